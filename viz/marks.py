"""What a picture of a mechanism marks, at one configuration: the one model behind ``cspace draw``
(SVG, HTML, PNG), the notebook view of a mechanism and the browser viewer's marks.

* **outlines**: each part's profiles in its own frame (arcs flattened at the arc tolerance, as
  the tracer sees them), its pose, its colour, and where its name goes (its largest piece's
  centroid, or where that is near an edge or outside, the point farthest from its edges:
  shapely's ``polylabel``);
* **pivots**: each turning part's pivot, with an angle mark from it towards the part's middle
  (along its own x axis where the middle is the pivot: a disk), which turns with the part so a
  turning disk is seen to turn; each linkage pin;
* **strokes**: each translation's axis through its part, each limit (a bar across the axis
  where the part's reference point stops; for an angle, an arc the angle mark sweeps between
  its limits, ticked at both ends);
* **arrows**: forces (simple dynamics: gravity, springs, torques; full dynamics: gravity at each
  centre of mass, springs towards their rest, constant loads) and input motions, straight along
  an axis or curved about a pivot, each with its anchor point and a label.

Everything is in the plane (y up) at the configuration given: by default the file's initial one,
each linkage assembled as its table starts (no analysis: drawing is fast). A mark belongs to a
part: a pivot turns with it; an axis, a limit, an arrow or a label is *carried* by it, moved by
``carry @ (where its anchor point is now - where it is here)`` as the part moves (the browser
viewer does so): an arrow goes along with its part, an axis and a limit only as the part's
other coordinates move it (:class:`Carry`).

    >>> from cspace import load
    >>> marks = mechanism_marks(load("fixtures/feeder.toml"))
    >>> [(p.part, p.at) for p in marks.pivots][-1]
    ('driver', (0.0, 0.0))
    >>> [(a.kind, a.coordinate, a.direction) for a in marks.arrows][:2]
    [('gravity', 'yb1', (0.0, -1.0)), ('gravity', 'yb2', (0.0, -1.0))]
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import shapely
import shapely.affinity
import shapely.ops

from cspace.model.geometry import Point, region_of
from cspace.model.kinds import Motion
from cspace.model.mechanism import Coordinate, Mechanism, Part
from cspace.model.poses import initial_values, part_transform
from cspace.spaces.linkage import assembly

from .colors import part_colors

Matrix = tuple[float, float, float, float]  # a 2x2 matrix by rows
ALONG: Matrix = (1.0, 0.0, 0.0, 1.0)
# Sizes, as shares of a part's size (its outline's diagonal) held between shares of the mechanism's.
ARROW = (0.6, 0.05, 0.12)  # an arrow's length
HEAD = (0.3, 0.02, 0.4)  # an arrowhead's length (a share of its arrow's, at most one of the size), its half-width
GAP = 0.15  # a straight arrow starts this share of its length off its anchor (the anchor stays clear)
ANGLE_MARK = 0.8  # the angle mark's length, and its limits' arc's radius, as a share of the part's reach
CENTRED = 0.15  # a name this near its pivot (a share of the reach) goes beside it, clear of the pivot
CURVES = (0.5, 0.12, math.pi / 2.4)  # curved arrows: first radius and step (shares of the reach), sweep
FAR = 1.0  # a limit farther than this many sizes off its part is not drawn
ARC_POINTS = 24


@dataclass(frozen=True, eq=False)
class Outline:
    """A part as drawn: its loops per slice (lowest first), in its own frame, each oriented with
    the material on its left; its pose (3x3, own frame to plane); and its name's place (plane)."""

    part: str
    color: str
    slices: tuple[tuple[np.ndarray, ...], ...]
    pose: np.ndarray
    label: Point

    def placed(self) -> list[np.ndarray]:
        """Every loop of every slice in the plane."""
        return [loop @ self.pose[:2, :2].T + self.pose[:2, 2] for loops in self.slices for loop in loops]

    def __repr__(self) -> str:
        return f"Outline({self.part!r}, slices={len(self.slices)})"


@dataclass(frozen=True)
class Carry:
    """How a mark follows its part: by ``matrix @ (anchor's place now - its place here)``, the
    anchor a point of the part's own frame. An arrow follows it all the way (:data:`ALONG`); an
    axis or a limit of a coordinate only as the part's other coordinates move it."""

    part: str
    anchor: Point
    matrix: Matrix


@dataclass(frozen=True)
class Pivot:
    """A point a part turns about (``name`` its angle coordinate) with its angle mark (from the
    pivot to ``mark``), or a linkage pin (``name`` ``pin A/B``, no mark); it turns with ``part``."""

    part: str
    name: str
    at: Point
    mark: Point | None = None


@dataclass(frozen=True, eq=False)
class Stroke:
    """Lines that are not arrows: a translation's ``axis``, or a coordinate's ``limit``."""

    kind: str
    coordinate: str
    lines: tuple[np.ndarray, ...]
    carry: Carry

    def __repr__(self) -> str:
        return f"Stroke({self.kind!r}, {self.coordinate!r}, lines={len(self.lines)})"


@dataclass(frozen=True, eq=False)
class Arrow:
    """A force or an input motion: a line ``points`` from the anchor's side to the tip, the ``head``
    triangle at the tip. ``direction`` is the push at the anchor (a unit vector) for a straight
    arrow, +1 or -1 (counterclockwise or not) for one curved about a pivot."""

    kind: str
    coordinate: str
    title: str
    points: np.ndarray
    head: np.ndarray
    direction: Point | int
    carry: Carry

    def __repr__(self) -> str:
        return f"Arrow({self.kind!r}, {self.coordinate!r}, direction={self.direction!r})"


@dataclass(frozen=True)
class Label:
    """Text at a point of the plane: a part's name (``kind`` ``part``), or an arrow's; ``align`` says
    where the point is along the text (``start``, ``middle`` or ``end``), as SVG's ``text-anchor`` does."""

    kind: str
    text: str
    at: Point
    carry: Carry
    align: str = "middle"


@dataclass(frozen=True, eq=False)
class Marks:
    """Everything a picture of ``mechanism`` marks, at one configuration (see the module)."""

    mechanism: Mechanism
    outlines: tuple[Outline, ...]  # lowest layer first: higher layers cover lower ones
    pivots: tuple[Pivot, ...]
    strokes: tuple[Stroke, ...]
    arrows: tuple[Arrow, ...]
    labels: tuple[Label, ...]

    def bounds(self) -> tuple[float, float, float, float]:
        """(x0, y0, x1, y1) of every outline, stroke, arrow and pivot."""
        points = [*(loop for o in self.outlines for loop in o.placed()),
                  *(line for s in self.strokes for line in s.lines),
                  *(a.points for a in self.arrows), *(a.head for a in self.arrows),
                  *(np.array([p.at, p.mark or p.at]) for p in self.pivots)]
        stacked = np.vstack(points)
        (x0, y0), (x1, y1) = stacked.min(axis=0), stacked.max(axis=0)
        return float(x0), float(y0), float(x1), float(y1)

    def __repr__(self) -> str:
        return (f"Marks({self.mechanism.name!r}, pivots={len(self.pivots)}, strokes={len(self.strokes)}, "
                f"arrows={len(self.arrows)})")


def initial_poses(mechanism: Mechanism) -> tuple[dict[str, float], dict[str, np.ndarray]]:
    """The file's initial configuration (by coordinate name) and every part's pose there (3x3,
    by part name): each linkage assembled at its input's initial value as its table starts
    (:func:`cspace.spaces.linkage.assembly`), its output set by it."""
    values = initial_values(mechanism)
    poses = {}
    for linkage in mechanism.linkages:
        values[linkage.output], members = assembly(mechanism, linkage)
        poses.update(members)
    for part in mechanism.parts:
        if part.motion != Motion.LINKAGE:
            poses[part.name] = part_transform(mechanism, part, values)
    return values, poses


def mechanism_marks(mechanism: Mechanism, values: Mapping[str, float] | None = None,
                    poses: Mapping[str, np.ndarray] | None = None) -> Marks:
    """The marks of ``mechanism`` at a configuration (``values`` by coordinate name, ``poses`` every
    part's 3x3 transform there), by default its initial one (:func:`initial_poses`)."""
    if values is None or poses is None:
        values, poses = initial_poses(mechanism)
    colors = part_colors(mechanism)
    outlines = {part.name: _outline(mechanism, part, poses[part.name], colors[part.name]) for part in mechanism.parts}
    builder = _Builder(mechanism, values, outlines)
    return Marks(mechanism, tuple(outlines[name] for name in drawing_order(mechanism)), tuple(builder.pivots),
                 tuple(builder.strokes), tuple(builder.arrows), tuple(builder.labels))


def drawing_order(mechanism: Mechanism) -> list[str]:
    """Part names, lowest layer first (seen from above, higher layers cover lower ones)."""
    ranked = sorted(enumerate(mechanism.parts), key=lambda item: (min(s.z[0] for s in item[1].slices), item[0]))
    return [part.name for _, part in ranked]


def _outline(mechanism: Mechanism, part: Part, pose: np.ndarray, color: str) -> Outline:
    """A part's outline: its slices' profiles flattened as the tracer sees them, its name's place."""
    tolerance = mechanism.tolerance.arc
    slices = tuple(tuple(np.asarray(p.polyline(tolerance).vertices, float) for p in s.oriented)
                   for s in sorted(part.slices, key=lambda s: s.z))
    material = shapely.union_all([region_of(s.profiles, tolerance) for s in part.slices])
    (a, b, x), (d, e, y) = pose[0], pose[1]
    largest = max(shapely.get_parts(shapely.affinity.affine_transform(material, [a, b, d, e, x, y])),
                  key=lambda piece: piece.area)
    return Outline(part.name, color, slices, np.array(pose, float), _inside(largest, tolerance))


class _Builder:
    """The pivots, strokes, arrows and labels of a mechanism, part by part."""

    def __init__(self, mechanism: Mechanism, values: Mapping[str, float], outlines: dict[str, Outline]) -> None:
        self.mechanism, self.values, self.outlines = mechanism, values, outlines
        self.pivots: list[Pivot] = []
        self.strokes: list[Stroke] = []
        self.arrows: list[Arrow] = []
        self.labels: list[Label] = []
        self.curves: dict[str, int] = {}  # curved arrows drawn about each part's pivot so far
        for linkage in mechanism.linkages:
            for joint in linkage.joints:
                if joint.kind == "pin":
                    at = self._world(joint.parts[0], joint.points[0])
                    self.pivots.append(Pivot(joint.parts[0], f"pin {joint.parts[0]}/{joint.parts[1]}", at))
        for coordinate in mechanism.coordinates:
            if coordinate.is_angle:
                self._pivot(coordinate)
            elif not coordinate.along_z:
                self._axis(coordinate)
        for part in mechanism.parts:
            self.labels.append(Label("part", part.name, self._name_place(part), self._carry(part.name)))
        self._forces()
        for k, motion in enumerate(mechanism.inputs):
            title = motion.name or f"input {k + 1}"
            rate = ", ".join(f"{c} {v:g}/s" for c, v in motion.velocities)
            for j, (name, velocity) in enumerate(motion.velocities):  # named once, at its first arrow
                self._push("input", name, math.copysign(1.0, velocity), f"{title} ({rate})", "" if j else title)

    # -- sizes and places -------------------------------------------------------------------------

    def _world(self, part: str, local: Point) -> Point:
        x, y, _ = self.outlines[part].pose @ (local[0], local[1], 1.0)
        return (float(x), float(y))

    def _length(self, part: str) -> float:
        """An arrow's length on ``part``: a share of its size, held within shares of the mechanism's."""
        loops = np.vstack([loop for loops in self.outlines[part].slices for loop in loops])
        own = float(np.linalg.norm(loops.max(axis=0) - loops.min(axis=0)))
        share, low, high = ARROW
        return min(max(share * own, low * self.mechanism.size), high * self.mechanism.size)

    def _reach(self, coordinate: Coordinate) -> float:
        """How far the part's outline reaches from its pivot."""
        loops = np.vstack([loop for loops in self.outlines[coordinate.part].slices for loop in loops])
        return float(np.max(np.linalg.norm(loops - coordinate.pivot, axis=1)))

    def _carry(self, part: str, anchor: Point | None = None, matrix: Matrix = ALONG) -> Carry:
        """A carry by ``part`` from a point of the plane (its name's place by default)."""
        where = self.outlines[part].label if anchor is None else anchor
        local = np.linalg.solve(self.outlines[part].pose, (where[0], where[1], 1.0))
        return Carry(part, (float(local[0]), float(local[1])), matrix)

    def _turning(self, coordinate: Coordinate) -> tuple[Point, float, float]:
        """A turning coordinate's pivot in the plane, the direction of its angle mark (from the
        pivot towards the part's name's place, or along the part's x axis where that is at the
        pivot) and the mark's length."""
        pivot = self._world(coordinate.part, coordinate.pivot)
        reach = self._reach(coordinate)
        towards = np.subtract(self.outlines[coordinate.part].label, pivot)
        if np.linalg.norm(towards) > CENTRED * reach:
            direction = math.atan2(towards[1], towards[0])
        else:
            pose = self.outlines[coordinate.part].pose
            direction = math.atan2(pose[1, 0], pose[0, 0])
        return pivot, direction, ANGLE_MARK * reach

    def _name_place(self, part: Part) -> Point:
        """Where a part's name goes: its name's place, or halfway along its angle mark where that
        place is at its pivot."""
        at = self.outlines[part.name].label
        for coordinate in map(self.mechanism.coordinate, part.coordinates):
            if coordinate.is_angle:
                (px, py), direction, length = self._turning(coordinate)
                if math.dist(at, (px, py)) <= CENTRED * self._reach(coordinate):
                    return (px + 0.5 * length * math.cos(direction), py + 0.5 * length * math.sin(direction))
        return at

    # -- marks ------------------------------------------------------------------------------------

    def _pivot(self, coordinate: Coordinate) -> None:
        """The pivot and its angle mark; the limits as an arc the mark sweeps, ticked at both ends."""
        (px, py), direction, radius = self._turning(coordinate)
        mark = (px + radius * math.cos(direction), py + radius * math.sin(direction))
        self.pivots.append(Pivot(coordinate.part, coordinate.name, (px, py), mark))
        if coordinate.limits is not None:
            here = float(self.values[coordinate.name])
            lo, hi = (direction + v - here for v in coordinate.limits)
            hi = min(hi, lo + 2 * math.pi)
            ticks = [np.array([(px + r * math.cos(a), py + r * math.sin(a)) for r in (0.85 * radius, 1.15 * radius)])
                     for a in (lo, hi)]
            self.strokes.append(Stroke("limit", coordinate.name, (_arc((px, py), radius, lo, hi), *ticks),
                                       self._carry(coordinate.part, (px, py))))

    def _axis(self, coordinate: Coordinate) -> None:
        """The axis through the part's reference point (its pivot if it turns, else its name's
        place), over its limits where they are near, and a bar across it at each of them."""
        part = self.mechanism.part(coordinate.part)
        turning = next((c for c in map(self.mechanism.coordinate, part.coordinates) if c.is_angle), None)
        anchor = self._turning(turning)[0] if turning is not None else self.outlines[part.name].label
        axis, length = np.array(coordinate.axis), self._length(part.name)
        carry = self._carry(part.name, anchor, self._others(part, coordinate))
        here = float(self.values[coordinate.name])
        stops = [v - here for v in coordinate.limits or () if abs(v - here) <= FAR * self.mechanism.size]
        reach = [min([-1.2 * length, *stops]), max([1.2 * length, *stops])]
        self.strokes.append(Stroke("axis", coordinate.name, (anchor + np.outer(reach, axis),), carry))
        across = np.array([-axis[1], axis[0]]) * 0.4 * length
        bars = tuple(anchor + stop * axis + np.array([-across, across]) for stop in stops)
        if bars:
            self.strokes.append(Stroke("limit", coordinate.name, bars, carry))

    def _others(self, part: Part, coordinate: Coordinate) -> Matrix:
        """The carry of an axis or a limit of ``coordinate``: the part's motion less its own, the
        projection I - a b^T, b the dual of the axis a among the part's translations in the plane."""
        moving = [c for c in map(self.mechanism.coordinate, part.coordinates) if not (c.is_angle or c.along_z)]
        basis = np.array([c.axis for c in moving], float).T  # 2 x k, independent (validation sees to it)
        dual = np.linalg.pinv(basis)[moving.index(coordinate)]
        return tuple(float(v) for v in (np.eye(2) - np.outer(coordinate.axis, dual)).ravel())

    def _forces(self) -> None:
        """The simple-dynamics forces; full dynamics' gravity at each centre of mass, springs towards
        their rest, constant loads."""
        for force in self.mechanism.forces:
            self._push(str(force.kind), force.coordinate, force.direction, f"{force.kind} on {force.coordinate}")
        dynamics = self.mechanism.dynamics
        if dynamics is None:
            return
        gravity = np.array(dynamics.gravity, float)
        if np.any(gravity):
            down = gravity / np.linalg.norm(gravity)
            for part in self.mechanism.parts:
                if part.motion != Motion.FIXED and part.mass is not None:
                    at = self._world(part.name, part.mass.centre)
                    self._straight("gravity", part.name, "", at, (float(down[0]), float(down[1])),
                                   f"gravity {np.linalg.norm(gravity):g} on {part.name}", "gravity")
        for spring in dynamics.springs:
            pull = spring.rest - float(self.values[spring.coordinate])
            if pull:
                self._push("spring", spring.coordinate, math.copysign(1.0, pull),
                           f"spring on {spring.coordinate}: stiffness {spring.stiffness:g}, rest {spring.rest:g}")
        for load in dynamics.loads:
            if load.value:
                self._push("load", load.coordinate, math.copysign(1.0, load.value),
                           f"load on {load.coordinate}: {load.value:g}")

    def _push(self, kind: str, name: str, sign: float, title: str, label: str | None = None) -> None:
        """An arrow pushing coordinate ``name`` its ``sign`` way: along its axis from its part's
        name's place, or about its pivot; for a shift along z, its label alone."""
        coordinate = self.mechanism.coordinate(name)
        part = coordinate.part
        label = f"{kind} {name}" if label is None else label
        if coordinate.along_z:
            at = self.outlines[part].label
            self.labels.append(Label(kind, f"{label or title}: {name} {'up' if sign > 0 else 'down'} z", at,
                                     self._carry(part)))
        elif coordinate.is_angle:
            self._curved(kind, coordinate, int(sign), title, label)
        else:
            at = self.outlines[part].label
            self._straight(kind, part, name, at, (sign * coordinate.axis[0] + 0.0, sign * coordinate.axis[1] + 0.0),
                           title, label)

    def _straight(self, kind: str, part: str, name: str, at: Point, direction: Point, title: str, label: str) -> None:
        length = self._length(part)
        unit = np.array(direction)
        points = np.array([at + GAP * length * unit, at + length * unit])
        carry = self._carry(part, at)
        self.arrows.append(Arrow(kind, name, title, points, self._head(points), direction, carry))
        self._label(kind, label, points[-1], unit, carry)

    def _curved(self, kind: str, coordinate: Coordinate, sign: int, title: str, label: str) -> None:
        """An arc about the pivot, starting a little past the angle mark, ``sign`` counterclockwise."""
        (px, py), direction, _ = self._turning(coordinate)
        first, step, sweep = CURVES
        k = self.curves.get(coordinate.part, 0)
        self.curves[coordinate.part] = k + 1
        radius = (first + step * k) * self._reach(coordinate)
        start = direction + sign * sweep / 4
        points = _arc((px, py), radius, start, start + sign * sweep)
        carry = self._carry(coordinate.part, (px, py))
        self.arrows.append(Arrow(kind, coordinate.name, title, points, self._head(points), sign, carry))
        self._label(kind, label, points[-1], (points[-1] - (px, py)) / radius, carry)

    def _head(self, points: np.ndarray) -> np.ndarray:
        """The arrowhead at the last point of a line: a triangle along its last piece."""
        tip, before = points[-1], points[-2]
        share, most, half = HEAD
        length = min(share * float(np.linalg.norm(np.diff(points, axis=0), axis=1).sum()), most * self.mechanism.size)
        along = (tip - before) / np.linalg.norm(tip - before)
        across = np.array([-along[1], along[0]]) * half * length
        back = tip - length * along
        return np.array([tip, back + across, back - across])

    def _label(self, kind: str, text: str, tip: np.ndarray, away: np.ndarray, carry: Carry) -> None:
        """An arrow's label just past its tip, ``away`` from it, aligned to read away from the arrow."""
        if text:
            at = tip + HEAD[1] * self.mechanism.size * np.asarray(away)
            align = "start" if away[0] > 0.3 else "end" if away[0] < -0.3 else "middle"
            self.labels.append(Label(kind, text, (float(at[0]), float(at[1])), carry, align))


def _inside(area, tolerance: float) -> Point:
    """A point well inside ``area`` for its name: its centroid where that is at least half as far
    from its edges as the point farthest from them (shapely's ``polylabel``), else that point."""
    pole = shapely.ops.polylabel(area, tolerance)
    centroid = area.centroid
    inside = area.contains(centroid) and area.exterior.distance(centroid) >= 0.5 * area.exterior.distance(pole)
    at = centroid if inside and all(ring.distance(centroid) >= 0.5 * ring.distance(pole) for ring in area.interiors) \
        else pole
    return (float(at.x), float(at.y))


def _arc(center: Point, radius: float, start: float, end: float) -> np.ndarray:
    """Points of the arc from angle ``start`` to ``end`` (either way round)."""
    angles = np.linspace(start, end, ARC_POINTS)
    return np.column_stack([center[0] + radius * np.cos(angles), center[1] + radius * np.sin(angles)])
