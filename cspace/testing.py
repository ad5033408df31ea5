"""Oracles for tests: the real part geometry, independent of the configuration-space code.

:func:`replay` places every part with shapely at each sampled configuration of a
trace (its own posing, from the model's axes and pivots, with arcs sampled far more
finely than the tracer's linearization) and reports any two parts overlapping deeper
than the tolerance, any force-loaded part at rest that nothing holds, and any two
parts that slip while their sticky faces touch (friction holds them in tandem, so
while they touch neither moves against the other).

Given a full-dynamics path (a :class:`~cspace.kinetics.result.DynamicTrace`) it checks
every sample for overlaps the same way (linkage members posed by the linkage's exact
motion, :class:`~cspace.kinetics.linkage_motion.LinkageMotion`), every coordinate
within its limits, and the energy ledger (:func:`energy_bound`): each sample's
energies are what the masses hold at its configuration and rates (recomputed here
from the parts' masses, axes and pivots), each stretch's ledger balances, no impact
gains energy, and a stretch with nothing to add or take energy (no load, damper or sliding
friction) keeps it.
:func:`assert_traces_equal` compares two traces' reports byte for byte.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from itertools import product, zip_longest

import numpy as np
import shapely
from shapely import affinity
from shapely.geometry import LineString
from shapely.geometry.base import BaseGeometry
from shapely.ops import unary_union

from .kinetics.linkage_motion import LinkageMotion
from .kinetics.result import DynamicTrace, Stretch
from .model.checks import overlap_depth
from .model.geometry import Line, Profile
from .model.kinds import EndReason, Mode, Motion
from .model.mechanism import Mechanism
from .model.poses import z_offset
from .model.tolerance import NOISE
from .tracing.trace import Trace

FINE = 1e-3  # oracle arc sampling, as a fraction of the arc tolerance


OVERLAP = "overlap"
HELD_BY_NOTHING = "held by nothing"
SLIP = "slip"
LIMIT = "limit"  # full dynamics: a coordinate past one of its limits
ENERGY = "energy"  # full dynamics: the energy ledger does not hold
NOT_BLOCKED = "not blocked"  # simple dynamics: the input said blocked where the real shapes let it on
# A jam is tested by moving the input's part this many arc tolerances on (the tracer may stop
# parts up to one short of touching), and each coordinate it may drive this many times as far
# either way (a transmission up to that ratio), in BLOCK_STEPS samples a side (a tenth as many
# for each of two): a pose free of overlap, reached along a straight line, is a false jam.
BLOCK_PROBE = 20
BLOCK_SPAN = 10
BLOCK_STEPS = 200
# A full-dynamics stretch's energy may miss its ledger by this many times the integration
# tolerance times the energy scale (:func:`energy_bound`): a step at most.
ENERGY_STEPS = 1000
SLIP_ALLOWANCE = 10  # a gripped part may drift this many length tolerances against the other between samples
GRIP_RUN = 4  # sticky faces within the tolerance along this many tolerances run together (not a point)


@dataclass(frozen=True)
class Violation:
    """One failure of the geometry oracle at a sample.

    ``overlap``: two parts overlap ``amount`` deep. ``held by nothing``: a force-loaded
    part at rest can move ``amount`` along its force (``coordinate``) touching nothing.
    ``slip``: two parts whose sticky faces grip at this sample and the next (:func:`grips`)
    moved ``amount`` against each other in between. ``not blocked``: a segment ended with its
    input blocked where the real shapes let the input ``coordinate`` move ``amount`` on
    (:func:`unblocked`). Full dynamics (``segment`` is then the
    stretch's index, ``within`` says so): ``limit``: ``coordinate`` is ``amount`` past the
    limit ``detail`` names; ``energy``: the ledger misses by ``amount``, ``detail`` says
    which ledger and the bound.
    """

    kind: str
    time: float
    segment: int
    parts: tuple[str, ...]
    amount: float
    coordinate: str = ""
    detail: str = ""
    within: str = "segment"

    def __str__(self) -> str:
        when = f"at t = {self.time:.6g} ({self.within} {self.segment})"
        if self.kind == LIMIT:
            return f"{self.coordinate} of {self.parts[0]} {self.amount:.3g} past its {self.detail} {when}"
        if self.kind == ENERGY:
            return f"energy: {self.detail}: off by {self.amount:.3g} {when}"
        if self.kind == HELD_BY_NOTHING:
            return (f"{self.parts[0]} held by nothing {when}: at rest under the force on {self.coordinate}, "
                    f"yet it can move {self.amount:.3g} along it touching nothing")
        if self.kind == SLIP:
            return (f"{' and '.join(self.parts)} slip {self.amount:.3g} against each other {when}, "
                    f"their sticky faces touching")
        if self.kind == NOT_BLOCKED:
            return (f"input {self.coordinate} of {' and '.join(self.parts)} said blocked {when}, yet the real "
                    f"shapes let it move {self.amount:.3g} on ({self.detail})")
        return f"{self.kind} of {' and '.join(self.parts)} by {self.amount:.3g} {when}"


def material(profiles: Iterable[Profile], tolerance: float | None = None,
             origin: tuple[float, float] = (0.0, 0.0)) -> BaseGeometry:
    """A slice's real material by the even-odd rule, from its raw profiles and nothing the
    simulator computes: the points inside an odd number of them (an outline's inside, not a
    hole in it, an island in that hole again, to any depth), the profiles' polygons taken
    together by symmetric difference."""
    shape = shapely.Polygon()
    for profile in profiles:
        shape = shapely.symmetric_difference(shape, shapely.Polygon(profile.ring(tolerance, origin)))
    return shape


class Scene:
    """The real shapes of a mechanism's parts (arcs far finer than the tracer's), placed
    at coordinate values with their own posing from the model's axes and pivots."""

    def __init__(self, mechanism: Mechanism, members: bool = False) -> None:
        self.mechanism = mechanism
        self.origin = mechanism.origin  # shapes relative to it: far-out parts keep their precision
        self.grid = mechanism.tolerance.quantum  # overlays snap-round to it (robust; see overlap_depth)
        fine = mechanism.tolerance.arc * FINE
        # On the exact grid (a thousandth of the length tolerance): GEOS's overlays lose a
        # whole overlap when a coordinate is far below it (a table's top 1e-304 above zero).
        # Linkage members only with ``members``: :meth:`place` then takes their poses.
        self.base = {(part.name, k): shapely.set_precision(material(slice_.profiles, fine, self.origin), self.grid)
                     for part in mechanism.parts if members or part.motion != Motion.LINKAGE
                     for k, slice_ in enumerate(part.slices)}
        self.members = {part.name for part in mechanism.parts if part.motion == Motion.LINKAGE}

    def place(self, values: dict[str, float], parts: set[str] | None = None,
              poses: Mapping[str, tuple[float, float, float]] | None = None) -> dict[tuple[str, int], BaseGeometry]:
        """Every (or each named) part slice at ``values``, by (part, slice index): a linkage member
        (in a scene made with ``members``) at its pose in ``poses``, ``(angle, tx, ty)`` mapping its
        frame to the plane as ``R(angle) p + (tx, ty)``, and left out when it has none there."""
        placed = {}
        for (name, k), shape in self.base.items():
            if parts is not None and name not in parts:
                continue
            if name in self.members:
                if poses is None or name not in poses:
                    continue
                angle, tx, ty = poses[name]
                # Relative to the origin o: R (p + o) + t - o = R p + (R o + t - o).
                (ox, oy), c, s = self.origin, math.cos(angle), math.sin(angle)
                shape = affinity.rotate(shape, angle, origin=(0.0, 0.0), use_radians=True)
                placed[(name, k)] = affinity.translate(shape, c * ox - s * oy + tx - ox, s * ox + c * oy + ty - oy)
                continue
            angle, dx, dy, pivot = self.pose(name, values)
            if angle:
                shape = affinity.rotate(shape, angle, origin=pivot, use_radians=True)
            placed[(name, k)] = affinity.translate(shape, dx, dy)
        return placed

    def pose(self, name: str, values: dict[str, float]) -> tuple[float, float, float, tuple[float, float]]:
        """(angle, dx, dy, pivot): the part turns about its pivot (relative to the scene's
        origin), then translates along its axes."""
        angle, dx, dy, pivot = 0.0, 0.0, 0.0, (0.0, 0.0)
        for coordinate in (self.mechanism.coordinate(c) for c in self.mechanism.part(name).coordinates):
            if coordinate.is_angle:
                angle = values[coordinate.name]
                pivot = (coordinate.pivot[0] - self.origin[0], coordinate.pivot[1] - self.origin[1])
            else:
                dx += values[coordinate.name] * coordinate.axis[0]
                dy += values[coordinate.name] * coordinate.axis[1]
        return angle, dx, dy, pivot

    def sticky_faces(self, name: str, values: dict[str, float]) -> BaseGeometry | None:
        """The part's sticky faces placed at ``values`` (arcs sampled finely), None if it has none."""
        part = self.mechanism.part(name)
        if not part.sticky:
            return None
        fine = self.mechanism.tolerance.arc * FINE
        lines = []
        for slice_ in part.slices:
            for profile in slice_.profiles:
                for element in profile.elements:
                    if element.name in part.sticky:
                        points = element.points(fine, False) + [element.end]
                        lines.append([(x - self.origin[0], y - self.origin[1]) for x, y in points])
        return self.to_world(name, values, shapely.MultiLineString(lines))

    def to_world(self, name: str, values: dict[str, float], shape: BaseGeometry) -> BaseGeometry:
        """A shape drawn in the part's frame (relative to the scene's origin), placed at ``values``."""
        angle, dx, dy, pivot = self.pose(name, values)
        if angle:
            shape = affinity.rotate(shape, angle, origin=pivot, use_radians=True)
        return affinity.translate(shape, dx, dy)

    def to_part(self, name: str, values: dict[str, float], points: np.ndarray) -> np.ndarray:
        """World points (relative to the scene's origin) in the part's frame at ``values``."""
        angle, dx, dy, pivot = self.pose(name, values)
        c, s = np.cos(-angle), np.sin(-angle)
        shifted = np.asarray(points, float) - (dx, dy) - pivot
        return shifted @ np.array([[c, s], [-s, c]]) + pivot

    def touching(self, a: tuple[str, int], b: tuple[str, int], values: dict[str, float]) -> bool:
        """Can slices a and b touch at ``values``: different parts whose z-intervals (carried
        by their shifts along z) overlap?"""
        pa, pb = self.mechanism.part(a[0]), self.mechanism.part(b[0])
        za = np.add(pa.slices[a[1]].z, z_offset(self.mechanism, pa, values))
        zb = np.add(pb.slices[b[1]].z, z_offset(self.mechanism, pb, values))
        return a[0] != b[0] and za[0] < zb[1] and zb[0] < za[1]


def pose_shapes(mechanism: Mechanism, values: dict[str, float]) -> dict[tuple[str, int], BaseGeometry]:
    """Every non-linkage part slice placed at the coordinate values, by (part, slice index)."""
    return Scene(mechanism).place(values)


def overlaps(mechanism: Mechanism, values: dict[str, float], tolerance: float,
             scene: Scene | None = None,
             poses: Mapping[str, tuple[float, float, float]] | None = None) -> list[tuple[str, str, float]]:
    """Pairs of parts overlapping deeper than ``tolerance`` (z-intervals taken into account;
    linkage members at ``poses``, in a scene that has them: :meth:`Scene.place`)."""
    scene = scene or Scene(mechanism)
    shapes = scene.place(values, poses=poses)
    keys = sorted(shapes)
    found = []
    for i, ka in enumerate(keys):
        for kb in keys[i + 1:]:
            if scene.touching(ka, kb, values):
                depth = overlap_depth(shapes[ka], shapes[kb], scene.grid)
                if depth > tolerance:
                    found.append((ka[0], kb[0], depth))
    return found


def held(scene: Scene, values: dict[str, float], coordinate: str, direction: int, probe: float) -> bool:
    """Is the coordinate's part held against its force: by its own limit, or by other parts?

    The part is first moved ``probe`` along its force's coordinate (a rotation by the
    angle that moves its farthest point by ``probe``); the parts it then overlaps are
    its holders. When it has a second translation it may also slide: along each
    straight face where it meets a holder (a ramp under a block, the block's own
    slanted side on a holder's corner), by ``probe`` with progress along the force. It
    is held when every such move overlaps another part or passes a limit it is on.
    Any buried area beyond float noise counts: a holder may be a sliver far thinner
    than the probe (a block the instant before its support slides away). Sliding along
    arcs is not tried: the tracer linearizes them, and a part may rest on an arc's flat
    facet up to the arc tolerance away from where the real arc would let it slide.
    """
    mechanism = scene.mechanism
    spec = mechanism.coordinate(coordinate)
    if _at_limit(mechanism, spec, values[coordinate], direction):
        return True
    owner = spec.part
    others = {key: shape for key, shape in scene.place(values).items() if key[0] != owner}
    noise = probe * mechanism.tolerance.length

    def holders(move: dict[str, float]) -> set[tuple[str, int]]:
        moved = scene.place({**values, **{n: values[n] + d for n, d in move.items()}}, {owner})
        return {other for key, shape in moved.items() for other, other_shape in others.items()
                if scene.touching(key, other, {**values, **move})
                and shapely.intersection(shape, other_shape, grid_size=scene.grid).area > noise}

    if spec.is_angle:
        return bool(holders({spec.name: direction * probe / _reach(mechanism, spec)}))
    found = holders({spec.name: direction * probe})
    if not found:
        return False
    return all(holders(move) for move in _slides(scene, values, spec, direction, probe, found, others)
               if not any(_at_limit(mechanism, mechanism.coordinate(n), values[n], d) for n, d in move.items()))


def _slides(scene: Scene, values: dict[str, float], spec, direction: int, probe: float,
            holders: set[tuple[str, int]], others: dict) -> list[dict[str, float]]:
    """Coordinate changes sliding the part ``probe`` along the straight faces where it
    meets its holders, with progress along its force (none without a second translation)."""
    mechanism = scene.mechanism
    part = mechanism.part(spec.part)
    second = [mechanism.coordinate(c) for c in part.coordinates
              if c != spec.name and mechanism.coordinate(c).kind == "translation"]
    if not second or spec.along_z:  # a z face is held across all its breadth: no slide makes progress
        return []
    axes = np.array([spec.axis, second[0].axis], float).T
    slides = []
    for tangent in _contact_face_directions(scene, values, part.name, probe, {k: others[k] for k in holders}):
        for sign in (1.0, -1.0):
            along, across = np.linalg.solve(axes, sign * probe * tangent)
            if along * direction > NOISE * probe:
                slides.append({spec.name: float(along), second[0].name: float(across)})
    return slides


def _contact_face_directions(scene: Scene, values: dict[str, float], owner: str, probe: float,
                             holders: dict) -> list[np.ndarray]:
    """Unit directions of the straight faces where the part meets its holders: the holders'
    faces within 2 ``probe`` of it, and its own faces within 2 ``probe`` of a holder."""
    mine = unary_union(list(scene.place(values, {owner}).values()))
    theirs = unary_union(list(holders.values()))
    directions = {}
    for name in sorted({owner} | {key[0] for key in holders}):
        near = theirs if name == owner else mine
        for segment in _line_faces(scene, name, values):
            if segment.distance(near) <= 2 * probe:
                (x0, y0), (x1, y1) = segment.coords
                d = np.array([x1 - x0, y1 - y0]) / segment.length
                if d[0] < 0 or (d[0] == 0 and d[1] < 0):
                    d = -d
                directions.setdefault(tuple(np.round(d, 12)), d)
    return [directions[k] for k in sorted(directions)]


def _line_faces(scene: Scene, name: str, values: dict[str, float]) -> list[LineString]:
    """The part's straight faces placed at ``values``."""
    angle, dx, dy, pivot = scene.pose(name, values)
    faces = []
    for slice_ in scene.mechanism.part(name).slices:
        for profile in slice_.profiles:
            for element in profile.elements:
                if isinstance(element, Line):
                    segment = LineString([(x - scene.origin[0], y - scene.origin[1])
                                          for x, y in (element.start, element.end)])
                    if angle:
                        segment = affinity.rotate(segment, angle, origin=pivot, use_radians=True)
                    faces.append(affinity.translate(segment, dx, dy))
    return faces


def unblocked(scene: Scene, values: dict[str, float], driving: dict[str, int],
              probe: float) -> dict[str, float] | None:
    """A pose the real shapes allow with each ``driving`` coordinate moved on its way
    (``driving[name]``: 1 or -1) by ``probe`` (a rotation by the angle that moves its part's
    farthest point that far), the other free coordinates searched within ``BLOCK_SPAN`` times
    as far and their limits, and reached from ``values`` along a straight line on which no
    two parts overlap deeper than the arc tolerance; None when there is none: the input is
    blocked. The nearest such poses are tried first.

    Only for mechanisms it can decide: at most two free coordinates besides the driving
    ones, no linkage (its members would need their poses), no sticky faces (friction may
    block an input the shapes let on), no shift along z. Otherwise None.
    """
    mechanism = scene.mechanism
    free = [c for c in mechanism.coordinates if c.name not in driving]
    if (mechanism.linkages or any(p.sticky for p in mechanism.parts) or len(free) > 2
            or any(c.along_z for c in mechanism.coordinates)):
        return None
    tolerance = mechanism.tolerance
    moved = {name: values[name] + way * _span(mechanism, name, probe) for name, way in driving.items()}
    steps = BLOCK_STEPS if len(free) == 1 else BLOCK_STEPS // 10
    axes = []
    for spec in free:
        low, high = (values[spec.name] + way * _span(mechanism, spec.name, BLOCK_SPAN * probe) for way in (-1, 1))
        if spec.limits is not None:
            low, high = max(low, spec.limits[0]), min(high, spec.limits[1])
        axes.append(np.union1d(np.linspace(low, high, 2 * steps + 1), [values[spec.name]]))
    scales = [_span(mechanism, spec.name, 1.0) for spec in free]
    candidates = sorted(product(*axes), key=lambda pose: sum(((v - values[spec.name]) / scale) ** 2
                                                             for v, spec, scale in zip(pose, free, scales)))
    for pose in candidates:
        target = {**values, **moved, **{spec.name: float(v) for spec, v in zip(free, pose)}}
        if not overlaps(mechanism, target, tolerance.overlap, scene) and _reached(scene, values, target, probe):
            return target
    return None


def _span(mechanism: Mechanism, name: str, length: float) -> float:
    """The change of a coordinate that moves its part's farthest point ``length``."""
    spec = mechanism.coordinate(name)
    return length / _reach(mechanism, spec) if spec.is_angle else length


def _reached(scene: Scene, start: dict[str, float], end: dict[str, float], probe: float) -> bool:
    """Is the straight line from ``start`` to ``end`` free of overlaps deeper than the arc
    tolerance, checked at steps that move no point more than a tenth of ``probe``?"""
    mechanism = scene.mechanism
    moves = [abs(end[n] - start[n]) / _span(mechanism, n, 1.0) for n in start if end[n] != start[n]]
    count = max(2, math.ceil(10 * max(moves, default=0.0) / probe))
    return not any(overlaps(mechanism, {n: start[n] + t * (end[n] - start[n]) for n in start},
                            mechanism.tolerance.arc, scene)
                   for t in np.linspace(0.0, 1.0, count + 1)[1:-1])


def _at_limit(mechanism: Mechanism, spec, value: float, direction: float) -> bool:
    """Is the coordinate on the limit it would pass moving in ``direction``?"""
    if spec.limits is None or direction == 0:
        return False
    limit = spec.limits[1] if direction > 0 else spec.limits[0]
    return abs(value - limit) <= (mechanism.tolerance.angle if spec.is_angle else mechanism.tolerance.length)


def _reach(mechanism: Mechanism, rotation) -> float:
    """Largest distance from a rotation's pivot to a point of its part (its local frame)."""
    part = mechanism.part(rotation.part)
    ox, oy = mechanism.origin
    shape = shapely.union_all([material(s.profiles, origin=(ox, oy)) for s in part.slices])
    pivot = shapely.Point(rotation.pivot[0] - ox, rotation.pivot[1] - oy)
    return max(pivot.hausdorff_distance(shape), mechanism.tolerance.length)


def replay(trace: Trace | DynamicTrace) -> list[Violation]:
    """Check every sample of a trace against the real geometry; a full-dynamics path's
    coordinate limits and energy ledger too (:func:`energy_bound`)."""
    if isinstance(trace, DynamicTrace):
        return _replay_motion(trace)
    mechanism = trace.mechanism
    tolerance = mechanism.tolerance
    names = [c.name for c in mechanism.coordinates]
    forces = {f.coordinate: f for f in mechanism.forces}
    scene = Scene(mechanism)
    violations = []
    samples = trace.samples()
    sticky = [p.name for p in mechanism.parts if p.sticky]
    for k, (time, segment, q) in enumerate(samples):
        values = dict(zip(names, map(float, q)))
        if k + 1 < len(samples) and samples[k + 1][1] == segment:
            following = dict(zip(names, map(float, samples[k + 1][2])))
            for a, b, drift in _slips(scene, sticky, values, following, tolerance.length):
                violations.append(Violation(SLIP, time, segment, (a, b), drift))
        for a, b, depth in overlaps(mechanism, values, tolerance.overlap, scene):
            violations.append(Violation(OVERLAP, time, segment, (a, b), depth))
        signs = trace.segments[segment - 1].first.signs
        last = k + 1 == len(samples) or samples[k + 1][1] != segment
        after = trace.segments[segment].first.signs if last and segment < len(trace.segments) else signs
        for name, force in forces.items():
            j = mechanism.coordinate_index[name]
            # At rest: still in this segment, and not at the instant it starts to move.
            at_rest = signs[j] == 0 and after[j] == 0
            if at_rest and not held(scene, values, name, force.direction, tolerance.support_probe):
                violations.append(Violation(HELD_BY_NOTHING, time, segment, (mechanism.coordinate(name).part,),
                                            tolerance.support_probe, name))
    return violations + _false_jams(trace, scene)


def _false_jams(trace: Trace, scene: Scene) -> list[Violation]:
    """A violation for each segment that ended with its input blocked where the real shapes
    let the input on (:func:`unblocked`)."""
    mechanism = trace.mechanism
    names = [c.name for c in mechanism.coordinates]
    probe = BLOCK_PROBE * mechanism.tolerance.arc
    found = []
    for segment in trace.segments:
        if segment.end != EndReason.INPUT_BLOCKED or not mechanism.inputs:
            continue
        # The input motion that was blocked (a segment of forces alone may end the trace so,
        # its motion then the input's that could not start), and its coordinates' ways.
        motion = mechanism.inputs[segment.pieces[-1].motion]
        driving = {name: (1 if rate > 0 else -1) for name, rate in motion.velocities if rate}
        values = dict(zip(names, map(float, segment.finish)))
        if driving and not any(_at_limit(mechanism, mechanism.coordinate(n), values[n], way)
                               for n, way in driving.items()):
            pose = unblocked(scene, values, driving, probe)
            if pose is not None:
                name = next(iter(driving))
                found.append(Violation(NOT_BLOCKED, segment.end_time, segment.index,
                                       tuple(sorted({mechanism.coordinate(n).part for n in driving})),
                                       probe, name, f"free at {_pose_text(pose, names)}"))
    return found


def _pose_text(pose: dict[str, float], names: list[str]) -> str:
    return ", ".join(f"{n} = {pose[n]:.6g}" for n in names)


# -- full dynamics ---------------------------------------------------------------------------------


class _Masses:
    """A mechanism's masses, their energies recomputed at a sample from the model alone (centres
    placed by the parts' axes and pivots, a linkage member's by its linkage's exact motion), and
    the linkage members' poses."""

    def __init__(self, mechanism: Mechanism) -> None:
        self.mechanism = mechanism
        self.index = mechanism.coordinate_index
        self.gravity = np.asarray(mechanism.dynamics.gravity, float)
        self.motions = [(LinkageMotion(mechanism, link), self.index[link.input], link.members)
                        for link in mechanism.linkages]
        self.parts = [part for part in mechanism.parts if part.mass is not None and part.motion != Motion.FIXED]
        self.springs = [(self.index[s.coordinate], s.stiffness, s.rest) for s in mechanism.dynamics.springs]

    def jets(self, q: np.ndarray) -> dict:
        """Each linkage member's pose jet (:class:`~cspace.kinetics.linkage_motion.PoseJet`) at ``q``."""
        return {member: motion.jet(float(q[column])).poses[member]
                for motion, column, members in self.motions for member in members}

    def energies(self, q: np.ndarray, v: np.ndarray, jets: dict) -> tuple[float, float]:
        """Kinetic energy, and the potential of gravity and the springs, at ``q`` with rates ``v``."""
        kinetic = potential = 0.0
        for part in self.parts:
            mass = part.mass
            if part.name in jets:
                rate = next(float(v[column]) for _, column, members in self.motions if part.name in members)
                centre, along, _ = jets[part.name].point(mass.centre)
                velocity, spin = np.asarray(along, float).reshape(2) * rate, jets[part.name].first[0] * rate
                centre = np.asarray(centre, float).reshape(2)
            else:
                centre, velocity, spin = np.asarray(mass.centre, float), np.zeros(2), 0.0
                for name in part.coordinates:
                    coordinate, j = self.mechanism.coordinate(name), self.index[name]
                    if not coordinate.is_angle:
                        continue
                    c, s = math.cos(q[j]), math.sin(q[j])
                    arm = centre - coordinate.pivot
                    arm = np.array([c * arm[0] - s * arm[1], s * arm[0] + c * arm[1]])
                    centre, spin = coordinate.pivot + arm, float(v[j])
                    velocity = spin * np.array([-arm[1], arm[0]])
                for name in part.coordinates:
                    coordinate, j = self.mechanism.coordinate(name), self.index[name]
                    if not coordinate.is_angle:
                        centre = centre + q[j] * np.asarray(coordinate.axis, float)
                        velocity = velocity + v[j] * np.asarray(coordinate.axis, float)
            kinetic += 0.5 * (mass.mass * float(velocity @ velocity) + mass.inertia * spin * spin)
            potential -= mass.mass * float(self.gravity @ centre)
        potential += sum(0.5 * k * (q[j] - rest) ** 2 for j, k, rest in self.springs)
        return kinetic, potential


def energy_bound(trace: DynamicTrace) -> float:
    """How far a full-dynamics path's energy ledger may miss: ``ENERGY_STEPS`` times the
    mechanism's integration tolerance times its energy scale.

    The energy scale is the largest kinetic energy and the largest potential energy's magnitude
    over the samples (recomputed from the masses, not read from the trace), plus what gravity
    does over the mechanism's size (``sum m |g| size``: a resting mechanism's scale). The
    integrator keeps each step's error within ``integration`` relative to the state and
    absolute in units of the size: a position off by ``integration (|q| + size)`` and a rate by
    ``integration |q'|`` move the energy by at most ``integration`` times that scale. Errors of
    successive steps add at worst; DOP853 at the default 1e-12 steps about 1e-12^(1/8), 3 %, of
    the motion's time scale, so a stretch of up to 30 time scales (a few seconds of a bouncing
    block or a swinging bar) takes fewer than ``ENERGY_STEPS`` = 1000 steps. Measured, in units
    of ``integration`` times the scale: the four-bar's five seconds drift 6.4, the generated
    pendulums at most 2.7, blocks in free fall (polynomials, integrated exactly) 1e-3.
    """
    mechanism = trace.mechanism
    masses = _Masses(mechanism)
    kinetic, potential = _recomputed(masses, trace)
    held = sum(p.mass.mass for p in masses.parts) * float(np.linalg.norm(masses.gravity)) * mechanism.size
    scale = float(np.max(kinetic, initial=0.0) + np.max(np.abs(potential), initial=0.0)) + held
    return ENERGY_STEPS * mechanism.tolerance.integration * scale


def _recomputed(masses: _Masses, trace: DynamicTrace) -> tuple[np.ndarray, np.ndarray]:
    """Every sample's kinetic and potential energy, from the masses at its configuration and rates."""
    pairs = [masses.energies(q, v, masses.jets(q)) for q, v in zip(trace.configs, trace.rates)]
    return np.array([k for k, _ in pairs]), np.array([p for _, p in pairs])


def _driven(mechanism: Mechanism, stretch: Stretch) -> bool:
    """Does an input motion drive a coordinate during the stretch (its work is in no ledger)?"""
    begin = 0.0
    for motion in mechanism.inputs:
        end = math.inf if motion.duration is None else begin + motion.duration
        if begin <= stretch.end and stretch.start < end or begin == stretch.start == stretch.end:
            return True
        begin = end
    return False


def _replay_motion(trace: DynamicTrace) -> list[Violation]:
    """:func:`replay` of a full-dynamics path: overlaps and limits at every sample, and the
    energy ledger (the worst miss of each kind per stretch)."""
    mechanism = trace.mechanism
    tolerance = mechanism.tolerance
    names = [c.name for c in mechanism.coordinates]
    scene = Scene(mechanism, members=True)
    masses = _Masses(mechanism)
    bound = energy_bound(trace)
    starts = np.array([s.start for s in trace.stretches])
    violations = []
    worst: dict[tuple[str, int], Violation] = {}

    def energy(detail: str, time: float, stretch: int, amount: float) -> None:
        if amount > bound and ((detail, stretch) not in worst or amount > worst[(detail, stretch)].amount):
            worst[(detail, stretch)] = Violation(ENERGY, time, stretch, (), amount,
                                                 detail=f"{detail} (allowed {bound:.3g})", within="stretch")

    for time, q, v, (kinetic, potential) in zip(trace.times, trace.configs, trace.rates, trace.energies):
        stretch = max(int(np.searchsorted(starts, time, side="right")), 1)
        values = dict(zip(names, map(float, q)))
        jets = masses.jets(q)
        poses = {name: jet.value for name, jet in jets.items()}
        for a, b, depth in overlaps(mechanism, values, tolerance.overlap, scene, poses):
            violations.append(Violation(OVERLAP, float(time), stretch, (a, b), depth, within="stretch"))
        for coordinate in mechanism.coordinates:
            if coordinate.limits is None:
                continue
            allowed = tolerance.angle if coordinate.is_angle else tolerance.length
            (low, high), value = coordinate.limits, values[coordinate.name]
            for side, limit, past in (("low", low, low - value), ("high", high, value - high)):
                if past > allowed:
                    violations.append(Violation(LIMIT, float(time), stretch, (coordinate.part,), past,
                                                coordinate.name, f"{side} limit {limit:g}", "stretch"))
        mine = masses.energies(q, v, jets)
        energy("the sample's energies are not what its masses hold", float(time), stretch,
               abs(mine[0] - kinetic) + abs(mine[1] - potential))

    total = trace.energies.sum(axis=1)
    quiet = not mechanism.dynamics.loads and not mechanism.dynamics.dampers
    for stretch in trace.stretches:
        for end, state, energies in (("start", (stretch.q0, stretch.v0), stretch.energies0),
                                     ("end", (stretch.q1, stretch.v1), stretch.energies1)):
            q, v = np.asarray(state[0], float), np.asarray(state[1], float)
            mine = masses.energies(q, v, masses.jets(q))
            energy(f"the energies at the stretch's {end} are not what its masses hold",
                   stretch.start if end == "start" else stretch.end, stretch.index,
                   abs(mine[0] - energies.kinetic) + abs(mine[1] - energies.potential))
        if _driven(mechanism, stretch):
            continue  # an input's work is in no ledger
        energy(f"the {stretch.mode} stretch's ledger drifts", stretch.end, stretch.index, abs(stretch.drift))
        if stretch.mode == Mode.IMPACT:
            energy("the impact gains energy", stretch.start, stretch.index,
                   max(stretch.energies1.total - stretch.energies0.total, -stretch.losses))
        elif quiet and stretch.mode != Mode.SLIP:  # sliding friction takes energy (in the ledger)
            inside = np.flatnonzero((trace.times > stretch.start) & (trace.times < stretch.end))
            if len(inside):
                off = np.abs(total[inside] - stretch.energies0.total)
                k = int(np.argmax(off))
                energy(f"the energy changes inside a {stretch.mode} stretch with no loads or dampers",
                       float(trace.times[inside[k]]), stretch.index, float(off[k]))
    return violations + sorted(worst.values(), key=lambda w: (w.segment, w.time))


def grips(scene: Scene, a: str, b: str, values: dict[str, float], tolerance: float) -> bool:
    """Do sticky faces of parts a and b touch at ``values`` the way the paper's friction
    acts, sticky material touching sticky material: along a stretch (within ``tolerance``
    over ``GRIP_RUN`` tolerances, whatever faces the stretch spans: a sticky bottom on a
    sticky patch let into a smooth table), or at a point that is all the parts' contact
    there (a corner on a face)? A sticky face that only ends on a flush contact of smooth
    faces (a sticky side at the foot of a smooth bottom), or sticky faces that meet only
    end to end along one, touch along nothing."""
    mine, theirs = scene.sticky_faces(a, values), scene.sticky_faces(b, values)
    if mine.distance(theirs) > tolerance:
        return False
    run = shapely.intersection(mine, theirs.buffer(tolerance))
    lines = [g for g in shapely.get_parts(run) if isinstance(g, shapely.LineString)]
    if lines and max(g.length for g in shapely.get_parts(shapely.line_merge(shapely.MultiLineString(lines)))) \
            > GRIP_RUN * tolerance:
        return True
    point = shapely.shortest_line(mine, theirs).centroid
    outlines = [unary_union([s.boundary for s in scene.place(values, {name}).values()]) for name in (a, b)]
    around = shapely.intersection(outlines[0], outlines[1].buffer(tolerance)).intersection(
        point.buffer(2 * GRIP_RUN * tolerance))
    return around.length <= GRIP_RUN * tolerance


def _slips(scene: Scene, sticky: list[str], before: dict[str, float], after: dict[str, float],
           tolerance: float) -> list[tuple[str, str, float]]:
    """Pairs of parts whose sticky faces grip at both configurations (:func:`grips`), and
    how far the first part's sticky faces moved in the second part's frame from one to the
    other (more than the allowance: a gripped pair keeps its relative place while touching)."""
    found = []
    for i, a in enumerate(sticky):
        for b in sticky[i + 1:]:
            faces = [(scene.sticky_faces(a, v), scene.sticky_faces(b, v)) for v in (before, after)]
            if all(grips(scene, a, b, v, tolerance) for v in (before, after)):
                points = [np.concatenate([np.asarray(line.coords) for line in fa.geoms]) for fa, _ in faces]
                mine = [scene.to_part(b, v, p) for v, p in zip((before, after), points)]
                drift = float(np.max(np.linalg.norm(mine[1] - mine[0], axis=1)))
                if drift > SLIP_ALLOWANCE * tolerance:
                    found.append((a, b, drift))
    return found


def assert_traces_equal(first: Trace, second: Trace, digits: int | None = None) -> None:
    """Raise AssertionError unless two traces give byte-identical reports, or, with
    ``digits``, reports that differ in no number's first ``digits`` significant digits
    (two ways of computing the same products, dense and sparse, round differently)."""
    from .report.describe import describe, path_csv, region_table, to_json

    for report in (describe, to_json, path_csv, region_table):
        a, b = report(first).splitlines(), report(second).splitlines()
        for line, (x, y) in enumerate(zip_longest(a, b), start=1):
            if digits is not None and x is not None and y is not None:
                x, y = _rounded(x, digits), _rounded(y, digits)
            if x != y:
                raise AssertionError(f"{report.__name__} differs at line {line}: {x!r} != {y!r}")


def _rounded(text: str, digits: int) -> str:
    """The text with every decimal number rounded to ``digits`` significant digits."""
    return re.sub(r"-?\d+\.\d+(?:[eE][-+]?\d+)?", lambda m: f"{float(m.group()):.{digits}g}", text)
