"""Pair spaces of pairs in which a part turns: (theta), (theta, x) and (theta1, theta2).

The pair's space has one or two axes, each a coordinate scaled to a length: an angle
by :meth:`~cspace.model.tolerance.Tolerance.angle_scale` (about the part's reach, so a step
in the space is about how far the parts move), a translation as it is. The first
angle is swept; the other coordinate, if any, is solved in closed form at each swept
value (:mod:`cspace.kernels.contact_curves`): the blocked intervals of the two outlines, each
end on a contact curve. Samples are added where a curve bends (until its chord is within
``curve / 8`` of it at three interior points, so within ``curve / 4`` everywhere, a kink
where one contact hands over to another included) and where intervals appear, vanish,
split or join (down to the length tolerance). The samples of each run of intervals
outline a polygon through points of the real contact curves. Their union is grown by
``3 curve / 8``, its outline simplified within as much (Douglas-Peucker: the kinks where
a flattened arc's vertices take turns touching go), and grown by ``curve / 4`` more: it
holds every blocked configuration and strays at most ``curve``
(:class:`~cspace.model.tolerance.Tolerance`) from the real curves.
Free space is what is left of the space's box, cut into convex regions
(:mod:`cspace.spaces.convex_regions`).

An angle that turns freely wraps: its axis spans one turn, ``[-pi, pi)`` scaled,
regions are cut at the seam, and each region on the seam also appears shifted by a
turn beyond it, so a configuration on the seam finds the regions on both sides. A
translation axis is unbounded: past the blocked space it is two free strips.

The space is built as *cells*: along a wrapping angle a cell is one turn, or one
sector when the part repeats N times round (:mod:`cspace.kernels.symmetry`). Only the first
cell is decomposed; the others are its regions moved a cell on, their contacts renamed
to the faces there. The blocked space in the cell is made to repeat exactly (its union
with itself shifted a cell either way, cut to the cell), so the cells meet edge to
edge and a contact that runs across a cell's edge goes on in the next. A pair of
gears of N1 and N2 teeth decomposes one (2 pi / N1, 2 pi / N2) cell.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pyclipper
import shapely

from ..kernels.contact_curves import (
    NO_FEATURE,
    Intervals,
    Label,
    Shape,
    label,
    rotation_intervals,
    translation_intervals,
)
from ..kernels.sectors import repeated_arcs
from ..kernels.symmetry import Symmetry
from ..model.mechanism import Mechanism, Part
from ..model.tolerance import GRID_ROUNDING
from .convex_regions import LabelledEdges, cell_regions, convex_cover, finished, interval_regions, repeated
from .pairspace import Contact, Deferred, PairSpace, Region

MARGIN = 0.2  # radians swept beyond a turn (or a limit) on each side, so the seams see their neighbours
STEP = 0.05  # largest first step of a sweep, in radians
JOIN = 1e-9  # radians: arcs of two sectors this close meet (their cut faces coincide)
ROUNDING = 0.05  # a grown corner's arc is flattened within this fraction of the growth
TURN = 2 * math.pi
QUARTERS = (0.25, 0.5, 0.75)  # where a chord is checked against its curve
CLEAN = 4  # blocked outlines are cleaned of vertices this many length tolerances apart (and grown as much)
RAMP = 10  # a seam's mismatch of height h is made up by a ramp this many times h long (a slope of a tenth)
# An outline's edge leaning at most the cleaning distance is stood upright only if it is at
# least this many times taller than its lean: a vertical contact's outline leans a hair over
# its height (a millionth in the tests), where a short edge of a sloped contact curve (the
# Geneva's pin on a slot wall, slope 1.9) stood upright would be a wall across the path.
UPRIGHT = 1000
# Placements times both outlines' vertices solved at once, at most: the contact-curve arrays
# take about 100 bytes per (placement, vertex), so a batch holds about 100 MB whatever the
# sweep asks for (a 1000-vertex wavy cam once asked for 6048 placements at once: 0.6 GB, and
# 4000 vertices 2.8 GB). No fixture's sweep comes near it (the ratchet's largest is 150,000).
BATCH = 1_000_000


@dataclass(frozen=True)
class _Pose:
    """How a part moves with its coordinates: rotation (name, pivot) and translations."""

    rotation: str | None
    pivot: np.ndarray
    translations: tuple[tuple[str, np.ndarray], ...]

    def angle(self, values: dict[str, np.ndarray], k: int) -> np.ndarray:
        return values[self.rotation] if self.rotation else np.zeros(k)

    def shift(self, values: dict[str, np.ndarray], k: int) -> np.ndarray:
        """Translation part of the transform: pivot - R pivot + translations (K, 2)."""
        phi = self.angle(values, k)
        c, s = np.cos(phi), np.sin(phi)
        px, py = self.pivot
        out = np.stack([px - c * px + s * py, py - s * px - c * py], axis=1)
        for name, axis in self.translations:
            out = out + values[name][:, None] * axis[None, :]
        return out


class _Motion:
    """Where B sits in A's frame, as functions of the pair's coordinates (vectorized)."""

    def __init__(self, mechanism: Mechanism, a: Part, b: Part, origin: tuple[float, float]) -> None:
        self.poses = {part.name: _pose(mechanism, part, origin) for part in (a, b)}
        self.a, self.b = a.name, b.name

    def placement(self, values: dict[str, np.ndarray], k: int) -> tuple[np.ndarray, np.ndarray]:
        """B's angle and offset in A's frame (K,), (K, 2): a B point p sits at R(angle) p + offset."""
        pa, pb = self.poses[self.a], self.poses[self.b]
        phi_a, phi_b = pa.angle(values, k), pb.angle(values, k)
        delta = pb.shift(values, k) - pa.shift(values, k)
        return phi_b - phi_a, _turn(delta, -phi_a)

    def along(self, name: str, values: dict[str, np.ndarray], k: int) -> tuple[str, np.ndarray, int]:
        """How B moves in A's frame as coordinate ``name`` grows, the others held at ``values``:
        ("translation", direction (K, 2), 0) or ("rotation", centre (K, 2), sign)."""
        pa, pb = self.poses[self.a], self.poses[self.b]
        phi_a = pa.angle(values, k)
        for pose, sign in ((pb, 1), (pa, -1)):
            for coordinate, axis in pose.translations:
                if coordinate == name:
                    return "translation", sign * _turn(np.broadcast_to(axis, (k, 2)), -phi_a), 0
        if pb.rotation == name:
            world = pb.pivot[None, :] + sum((values[c][:, None] * axis[None, :] for c, axis in pb.translations),
                                            np.zeros((k, 2)))
            return "rotation", _turn(world - pa.shift(values, k), -phi_a), 1
        return "rotation", np.broadcast_to(pa.pivot, (k, 2)).copy(), -1


def _pose(mechanism: Mechanism, part: Part, origin: tuple[float, float]) -> _Pose:
    rotation, pivot, translations = None, np.zeros(2), []
    for name in part.coordinates:
        coordinate = mechanism.coordinate(name)
        if coordinate.is_angle:
            rotation = name
            pivot = np.array([coordinate.pivot[0] - origin[0], coordinate.pivot[1] - origin[1]])
        else:
            translations.append((name, np.array(coordinate.axis, float)))
    return _Pose(rotation, pivot, tuple(translations))


def _turn(points: np.ndarray, angle: np.ndarray) -> np.ndarray:
    c, s = np.cos(angle)[:, None], np.sin(angle)[:, None]
    x, y = points[..., 0], points[..., 1]
    if points.ndim == 3:
        c, s = c[..., None], s[..., None]
        return np.stack([c[..., 0] * x - s[..., 0] * y, s[..., 0] * x + c[..., 0] * y], axis=-1)
    return np.stack([c[:, 0] * x - s[:, 0] * y, s[:, 0] * x + c[:, 0] * y], axis=-1)


@dataclass(frozen=True)
class Axis:
    """One axis of a rotating pair's space: the coordinate, its scale (pair-space length per
    unit), its period in grid steps (0: it does not wrap) and, for an angle, its range."""

    name: str
    is_angle: bool
    scale: float
    period: int
    low: float
    high: float

    def __repr__(self) -> str:
        return f"Axis({self.name!r}, scale={self.scale:g}, period={self.period})"


def axes_of(mechanism: Mechanism, coordinates: tuple[str, ...], reach: dict[str, float],
            orders: dict[str, int] | None = None) -> list[Axis]:
    """The pair's axes, the swept angle first: scales, periods and ranges (a turn a whole
    number of grid steps per sector of a symmetric part)."""
    tol = mechanism.tolerance
    axes = []
    for name in coordinates:
        c = mechanism.coordinate(name)
        if not c.is_angle:
            axes.append(Axis(name, False, 1.0, 0, -math.inf, math.inf))
            continue
        scale = tol.angle_scale(reach[c.part], (orders or {}).get(c.part, 1))
        period = round(2 * math.pi * scale / tol.quantum) if c.periodic else 0
        low, high = (-math.pi, math.pi) if c.periodic else c.limits
        axes.append(Axis(name, True, scale, period, low, high))
    return sorted(axes, key=lambda axis: not axis.is_angle)


@dataclass(frozen=True)
class Renaming:
    """How a contact found in the first cell of a repeating space is named in the copy
    where the swept part has turned ``i`` sectors more and the met part ``j``: each of its
    faces is where the face ``i`` (``j``) sectors back was."""

    swept: tuple[str, Symmetry] | None  # the swept part's name and symmetry
    met: tuple[str, Symmetry] | None

    def renamer(self) -> Callable[[tuple[Contact, ...], int, int], tuple[Contact, ...]]:
        """``renamed(contacts, i, j)``: each part's faces renamed once per shift, and each tuple
        of contacts once per shift, equal tuples on different edges alike (found by identity,
        then content: a cell's few contacts meet every one of its hundreds of copies)."""
        faces: dict[tuple, tuple[str, ...]] = {}
        alike: dict[tuple[Contact, ...], int] = {}
        seen: dict[int, int] = {}
        made: dict[tuple[int, int, int], tuple[Contact, ...]] = {}

        def turned(names: tuple[str, ...], part: str, i: int, j: int) -> tuple[str, ...]:
            for (owner, symmetry), shift in ((self.swept or (None, None), i), (self.met or (None, None), j)):
                if owner == part and shift:
                    key = (names, owner, shift)
                    if key not in faces:
                        faces[key] = symmetry.rename(names, -shift)
                    return faces[key]
            return names

        def renamed(contacts: tuple[Contact, ...], i: int, j: int) -> tuple[Contact, ...]:
            which = seen.get(id(contacts))
            if which is None:
                which = seen[id(contacts)] = alike.setdefault(contacts, len(alike))
            key = (which, i, j)
            if key not in made:
                made[key] = tuple(Contact(c.part_a, turned(c.faces_a, c.part_a, i, j), c.part_b,
                                          turned(c.faces_b, c.part_b, i, j)) for c in contacts)
            return made[key]

        return renamed


@dataclass
class Cell:
    """A turning pair's space before it is laid out: the regions and the blocked polygons
    (on the grid) of the first cell of its repeating pattern, with what lays them out
    (:meth:`space`). It is the costly part, and small: what a worker process sends back
    (:mod:`cspace.spaces.parallel`), the thousands of regions of the copies made here."""

    part_a: str
    part_b: str
    coordinates: tuple[str, ...]
    matrix: np.ndarray
    axes: tuple[Axis, Axis]
    quantum: float
    box: tuple[int, int, int, int]
    cell: tuple[int, int, int, int]
    counts: tuple[int, int]
    regions: list[Region]
    blocked: list[np.ndarray]
    renaming: Renaming

    def space(self) -> PairSpace:
        """The pair space: the cell repeated ``counts`` times along each axis, contacts
        renamed, regions ordered and named, and the copies across the seams; its blocked
        convex pieces (for drawing) made when first read."""
        cell, counts = self.cell, self.counts
        steps = (cell[2] - cell[0], cell[3] - cell[1])
        regions = repeated(self.regions, steps, counts, self.quantum, self.renaming.renamer())
        periods = tuple(axis.period * self.quantum for axis in self.axes)
        return PairSpace(self.part_a, self.part_b, self.coordinates, self.matrix,
                         tuple(finished(regions, self.box, self.axes, self.quantum)), Deferred(self._pieces), periods)

    def _pieces(self) -> list[np.ndarray]:
        """The blocked space as convex pieces in the pair space, the cell's repeated."""
        cell, counts = self.cell, self.counts
        steps = (cell[2] - cell[0], cell[3] - cell[1])
        shifts = np.array([(i * steps[0], j * steps[1]) for i in range(counts[0]) for j in range(counts[1])])
        return [placed for piece in convex_cover(cell, self.blocked)
                for placed in (piece[None] + shifts[:, None]) * self.quantum]

    def __repr__(self) -> str:
        return f"Cell({self.part_a}/{self.part_b}, regions={len(self.regions)}, counts={self.counts})"


class RotationBuilder:
    """Blocked and free space of one rotating pair from its parts' convex pieces."""

    def __init__(self, mechanism: Mechanism, a: Part, b: Part, coordinates: tuple[str, ...],
                 shapes_a: list[Shape], shapes_b: list[Shape], reach: dict[str, float],
                 repeats: dict[str, tuple[Symmetry, list[Shape]]] | None = None) -> None:
        self.mechanism, self.a, self.b = mechanism, a, b
        self.coordinates = coordinates
        self.shapes_a, self.shapes_b = shapes_a, shapes_b
        self.tol = mechanism.tolerance
        self.motion = _Motion(mechanism, a, b, mechanism.origin)
        self.quantum = self.tol.quantum
        repeats = repeats or {}
        self.axes = axes_of(mechanism, coordinates, reach, {name: r[0].order for name, r in repeats.items()})
        owner = {axis.name: mechanism.coordinate(axis.name).part for axis in self.axes}
        # A symmetric part's angle swept over one sector and repeated (the first axis), or the
        # other part met sector by sector (the second, or only, axis): see cspace.kernels.symmetry.
        u = self.axes[0]
        self.swept = repeats.get(owner[u.name]) if len(self.axes) == 2 and u.period and \
            owner[u.name] != owner[self.axes[1].name] else None
        v = self.axes[-1]
        single = len(self.axes) == 1 or owner[u.name] != owner[v.name]
        self.met = repeats.get(owner[v.name]) if v.is_angle and v.period and single else None
        self.met_is_b = self.met is not None and owner[v.name] == b.name
        self.swept_is_b = self.swept is not None and owner[u.name] == b.name
        if self.met is not None:
            if self.met_is_b:
                self.shapes_b = self.met[1]
            else:
                self.shapes_a = self.met[1]

    def build(self) -> PairSpace:
        computed = self.computed()
        return computed.space() if isinstance(computed, Cell) else computed

    def computed(self) -> PairSpace | Cell:
        """The pair space of one axis; of two, its first cell (:meth:`Cell.space` lays it out)."""
        matrix = np.zeros((len(self.axes), len(self.coordinates)))
        for k, axis in enumerate(self.axes):
            matrix[k, self.coordinates.index(axis.name)] = axis.scale
        if len(self.axes) == 2:
            return self._plane(matrix)
        periods = tuple(axis.period * self.quantum for axis in self.axes)
        return PairSpace(self.a.name, self.b.name, self.coordinates, matrix, tuple(self._line()), (), periods)

    # -- one axis: a part turning against one that does not move in the pair ---------------

    def _line(self) -> list[Region]:
        axis = self.axes[0]
        values = {axis.name: np.zeros(1)}
        spans: list[tuple[float, float, Label | None, Label | None]] = []
        for pa, pb in self._layers():
                solved = self._solve(pa, pb, axis, values, 1)
                for m in range(int(solved.count[0])):
                    lo, hi = float(solved.lo[0, m]), float(solved.hi[0, m])
                    labels = (self._label(pa, pb, axis, int(solved.lo_feature[0, m])),
                              self._label(pa, pb, axis, int(solved.hi_feature[0, m])))
                    for turn in ((-1, 0, 1) if axis.period else (0,)):
                        spans.append((lo + turn * TURN, hi + turn * TURN) + labels)
        grow = self.tol.curve / axis.scale
        return interval_regions(spans, axis, grow, self.quantum, self.a.name, self.b.name)

    # -- two axes: sweep the angle, solve the other coordinate --------------------------------

    def _plane(self, matrix: np.ndarray) -> Cell:
        u, v = self.axes
        u_low, u_high = self._swept(u)
        paths, stretches = [], []
        for pa, pb in self._layers():
            def solve(us: np.ndarray, pa=pa, pb=pb) -> Intervals:
                return self._solve(pa, pb, v, {u.name: us}, len(us))
            sweep = _Sweep(solve, u, v, self.tol.curve, self.tol.length,
                           max(1, BATCH // (len(pa.vertices) + len(pb.vertices))))
            sweep.run(u_low, u_high)
            labels: dict[int, Label | None] = {}
            for exact, features in sweep.polygons(self.quantum):
                paths.append(exact)
                for f in set(features) - set(labels):
                    labels[f] = self._label(pa, pb, v, f)
                stretches.extend(_stretches(exact, [labels[f] for f in features]))
        counts = self._counts()
        window = self._window(u, v, counts)
        shifts = self._shifts(u, v)
        paths = [path + shift for path in paths for shift, _ in _meeting(path, shifts, window)]
        stretches = [(line + shift, self._turned(label, sectors)) for line, label in stretches
                     for shift, sectors in _meeting(line, shifts, window)]
        grown = _grow(paths, 3 * self.tol.curve / 8 / self.quantum, self.tol.curve / 4 / self.quantum,
                      CLEAN * self.tol.length / self.quantum)
        box = self._box(u, v, grown)
        cell = _cell(box, counts)
        wraps = [axis.period > 0 for axis in (u, v)]
        snap = CLEAN * self.tol.length / self.quantum
        periodic = onto_sides(_periodic(grown, cell, wraps), cell, wraps, snap)
        blocked = stood_upright(seams_met(periodic, cell, wraps, snap), cell, snap)
        edges = LabelledEdges(stretches, 2 * self.tol.curve / self.quantum)
        regions = cell_regions(cell, blocked, edges, self.quantum, self.a.name, self.b.name)
        renaming = Renaming(None if self.swept is None else (self.b.name if self.swept_is_b else self.a.name,
                                                             self.swept[0]),
                            None if self.met is None else (self.b.name if self.met_is_b else self.a.name,
                                                           self.met[0]))
        return Cell(self.a.name, self.b.name, self.coordinates, matrix, (u, v), self.quantum, box, cell, counts,
                    regions, blocked, renaming)

    def _counts(self) -> tuple[int, int]:
        """How many times the space repeats along each axis: a symmetric part's sectors."""
        return (self.swept[0].order if self.swept else 1, self.met[0].order if self.met else 1)

    def _window(self, u: Axis, v: Axis, counts: tuple[int, int]) -> tuple[float, float, float, float]:
        """The first cell and a margin (the blocked outlines' growth) on the grid: what its
        blocked space is made of."""
        margin = math.ceil(self.tol.curve / self.quantum) + 1
        low, high = [], []
        for axis, count in zip((u, v), counts):
            if axis.period:
                start = -axis.period // 2
                low.append(start - margin)
                high.append(start + axis.period // count + margin)
            else:
                low.append(-math.inf)
                high.append(math.inf)
        return low[0], low[1], high[0], high[1]

    def _swept(self, axis: Axis) -> tuple[float, float]:
        """Where the swept angle is sampled: exactly one turn (on the grid) when it wraps, one
        sector of it when its part is symmetric, else its limits and a margin."""
        if axis.period:
            half = axis.period // 2 * self.quantum / axis.scale
            if self.swept is not None:
                return -half, -half + 2 * half / self.swept[0].order
            return -half, half
        return axis.low - MARGIN, axis.high + MARGIN

    def _shifts(self, u: Axis, v: Axis) -> list[tuple[np.ndarray, int]]:
        """Grid shifts that repeat the swept stretch over the space and a turn beyond each
        seam, with how many sectors each turns the swept part."""
        if self.swept is not None:
            n = self.swept[0].order
            along_u = [(k * u.period // n, k) for k in range(-1, n + 1)]
        else:
            along_u = [(0, 0)] + ([(-u.period, 0), (u.period, 0)] if u.period else [])
        along_v = [0, -v.period, v.period] if v.period else [0]
        return [(np.array([du, dv], np.int64), k) for du, k in along_u for dv in along_v]

    def _turned(self, label: Label | None, sectors: int) -> Label | None:
        """A contact found on the swept stretch, named where the swept part has turned by
        ``sectors`` sectors: its sector m is then where sector m - sectors was."""
        if label is None or not sectors or self.swept is None:
            return label
        symmetry = self.swept[0]
        if self.swept_is_b:
            return label[0], symmetry.rename(label[1], -sectors)
        return symmetry.rename(label[0], -sectors), label[1]

    def _layers(self) -> list[tuple[Shape, Shape]]:
        """The two parts' slices that overlap in z, in pairs."""
        return [(sa, sb) for sa in self.shapes_a for sb in self.shapes_b if sa.meets(sb)]

    def _solve(self, pa: Shape, pb: Shape, v: Axis, values: dict[str, np.ndarray], k: int) -> Intervals:
        """Blocked intervals of ``v`` (unscaled) at ``k`` placements given by ``values``: arcs
        as they come (``lo`` in one turn) when ``v`` wraps, else laid out over its range."""
        held = dict(values)
        held[v.name] = np.zeros(k)
        for name in self.coordinates:
            held.setdefault(name, np.zeros(k))
        angle, offset = self.motion.placement(held, k)
        kind, where, sign = self.motion.along(v.name, held, k)
        if kind == "translation":
            return translation_intervals(pa, pb, angle, offset, where)
        arcs = rotation_intervals(pa, pb, angle, offset, where, sign)
        if self.met is not None:
            arcs = _repeated(arcs, self.met[0].order)
        return arcs if v.period else _unrolled(arcs, v.low - MARGIN, v.high + MARGIN)

    def _label(self, pa: Shape, pb: Shape, axis: Axis, feature: int) -> Label | None:
        if feature == NO_FEATURE:
            return None
        if self.met is None:
            return label(pa, pb, feature)
        symmetry = self.met[0]
        found = label(pa, pb, feature // symmetry.order)
        shift = feature % symmetry.order
        if self.met_is_b:
            return found[0], symmetry.rename(found[1], shift)
        return symmetry.rename(found[0], shift), found[1]

    def _box(self, u: Axis, v: Axis, grown: list[np.ndarray]) -> tuple[int, int, int, int]:
        """The space's box on the grid: a turn (or the limits and a margin) along an angle,
        the blocked space and a margin along a translation."""
        bounds = []
        for k, axis in enumerate((u, v)):
            if axis.period:
                bounds.append((-axis.period // 2, axis.period // 2))
            elif axis.is_angle:
                pad = MARGIN / 2
                bounds.append((math.floor((axis.low - pad) * axis.scale / self.quantum),
                               math.ceil((axis.high + pad) * axis.scale / self.quantum)))
            else:
                values = [p[:, k] for p in grown] or [np.zeros(1)]
                lo, hi = int(min(x.min() for x in values)), int(max(x.max() for x in values))
                pad = max(hi - lo, 1) // 4 + 1
                bounds.append((lo - pad, hi + pad))
        return bounds[0][0], bounds[1][0], bounds[0][1], bounds[1][1]


def _stretches(outline: np.ndarray, labels: list[Label | None]) -> list[tuple[np.ndarray, Label | None]]:
    """An outline cut into stretches of one label each (edge i runs from point i to i + 1)."""
    n = len(outline)
    out, start = [], 0
    for i in range(1, n + 1):
        if i == n or labels[i] != labels[start]:
            indices = [(k % n) for k in range(start, i + 1)]
            out.append((outline[indices], labels[start]))
            start = i
    return out


def _meeting(points: np.ndarray, shifts: list[tuple[np.ndarray, int]],
             window: tuple[float, float, float, float]) -> list[tuple[np.ndarray, int]]:
    """The shifts that move the points' bounding box onto the window (x0, y0, x1, y1)."""
    (x_lo, y_lo), (x_hi, y_hi) = points.min(axis=0).tolist(), points.max(axis=0).tolist()
    return [(shift, k) for shift, k in shifts
            if x_lo + shift[0] <= window[2] and x_hi + shift[0] >= window[0]
            and y_lo + shift[1] <= window[3] and y_hi + shift[1] >= window[1]]


def _cell(box: tuple[int, int, int, int], counts: tuple[int, int]) -> tuple[int, int, int, int]:
    """The first of the box's ``counts`` cells along each axis (a whole number of grid steps)."""
    x0, y0, x1, y1 = box
    return x0, y0, x0 + (x1 - x0) // counts[0], y0 + (y1 - y0) // counts[1]


def _periodic(grown: list[np.ndarray], cell: tuple[int, int, int, int], wraps: list[bool]) -> list[np.ndarray]:
    """The blocked space in the cell, made to repeat: its union with itself shifted a cell
    either way along each axis that wraps, cut to the cell. Each cell's edge then sees the
    same blocked space as the opposite edge, and the cells fit exactly side by side (a grown
    outline simplified as a whole is not quite the same a cell on). It is still within the
    bound: every copy is a grown outline of real blocked space."""
    if not grown:
        return []
    x0, y0, x1, y1 = cell
    moves = [[0] + ([-1, 1] if wrap else []) for wrap in wraps]
    clipper = pyclipper.Pyclipper()
    for i in moves[0]:
        for j in moves[1]:
            shift = np.array([i * (x1 - x0), j * (y1 - y0)], np.int64)
            clipper.AddPaths([(p + shift).tolist() for p in grown], pyclipper.PT_SUBJECT, True)
    clipper.AddPath([(x0, y0), (x1, y0), (x1, y1), (x0, y1)], pyclipper.PT_CLIP, True)
    found = clipper.Execute(pyclipper.CT_INTERSECTION, pyclipper.PFT_NONZERO, pyclipper.PFT_NONZERO)
    return [np.array(p, np.int64) for p in found if len(p) >= 3]


def seams_met(rings: list[np.ndarray], cell: tuple[int, int, int, int], wraps: list[bool],
              snap: float) -> list[np.ndarray]:
    """The blocked outlines with each side of the cell along its first axis, when it wraps
    (the turning angle), blocked where the opposite side is: a stretch blocked on one side only is added to the other and
    tapered into the blocked space beside it over ``RAMP`` times its length (the convex hull
    of the stretch and the blocked space in a box that long), not left as a step.

    The union with the copies a cell away (:func:`_periodic`) meets at the seam only where the
    outline repeats exactly; simplified as a whole, it may not (a cam's follower stood 1.9e-5
    off across the seam: a wall it was pushed against). Added blocked space only: within the
    bound, the ramp a tenth as steep as it is long."""
    if not rings or not wraps[0]:
        return rings
    x0, y0, x1, y1 = cell
    tree = pyclipper.Pyclipper()
    tree.AddPaths([r.tolist() for r in rings if len(r) >= 3], pyclipper.PT_SUBJECT, True)
    blocked = shapely.union_all([shapely.Polygon(outer, holes) for outer, holes in
                                 _polygons(tree.Execute2(pyclipper.CT_UNION, pyclipper.PFT_NONZERO,
                                                         pyclipper.PFT_NONZERO))])
    height = y1 - y0
    added = []
    for here, there, inward in ((x0, x1, 1), (x1, x0, -1)):
        line_here = blocked.intersection(shapely.LineString([(here, y0 - height), (here, y1 + height)]))
        line_there = blocked.intersection(shapely.LineString([(there, y0 - height), (there, y1 + height)]))
        missing = shapely.transform(line_there, lambda c: c + [here - there, 0]).difference(line_here)
        for part in getattr(missing, "geoms", [missing]):
            if part.is_empty or part.length <= GRID_ROUNDING:
                continue
            (_, a), (_, b) = sorted(part.coords, key=lambda c: c[1])[:: len(part.coords) - 1]
            length = max(RAMP * (b - a), snap)
            left, right = sorted((here, here + inward * length))
            box = shapely.box(left, a - length, right, b + length)
            added.append(shapely.convex_hull(shapely.union(blocked.intersection(box), part)))
    if not added:
        return rings
    ramps = [np.round(np.asarray(shape.exterior.coords)[:-1]).astype(np.int64) for shape in added
             if isinstance(shape, shapely.Polygon) and not shape.is_empty]
    ramps = [r for r in ramps if len(r) >= 3 and pyclipper.Area(r.tolist())]
    if not ramps:
        return rings
    clipper = pyclipper.Pyclipper()
    clipper.AddPaths([r.tolist() for r in rings if len(r) >= 3], pyclipper.PT_SUBJECT, True)
    clipper.AddPaths([_ccw(r.tolist()) for r in ramps], pyclipper.PT_SUBJECT, True)
    united = clipper.Execute(pyclipper.CT_UNION, pyclipper.PFT_NONZERO, pyclipper.PFT_NONZERO)
    box = pyclipper.Pyclipper()
    box.AddPaths(united, pyclipper.PT_SUBJECT, True)
    box.AddPath([(x0, y0), (x1, y0), (x1, y1), (x0, y1)], pyclipper.PT_CLIP, True)
    found = box.Execute(pyclipper.CT_INTERSECTION, pyclipper.PFT_NONZERO, pyclipper.PFT_NONZERO)
    return [np.array(r, np.int64) for r in found if len(r) >= 3]


def _polygons(node) -> list[tuple[list, list[list]]]:
    """(outline, holes) of every polygon in a pyclipper PolyTree."""
    out = []
    for child in node.Childs:
        out.append((child.Contour, [hole.Contour for hole in child.Childs]))
        for hole in child.Childs:
            out += _polygons(hole)
    return out


def onto_sides(rings: list[np.ndarray], cell: tuple[int, int, int, int], wraps: list[bool],
               snap: float) -> list[np.ndarray]:
    """The blocked outlines with each vertex within ``snap`` grid steps of a side of the cell
    that wraps moved onto it, where that only grows the blocked space (the vertex lands
    outside its outline). A vertex a hair inside the side, where an outline meets its copy
    from across the seam, would cut the free space there into a region thinner than the
    length tolerance, both its walls tight: a part pushed over the seam stopped in it."""
    sides = [(cell[k], cell[k + 2]) if wraps[k] else () for k in (0, 1)]
    out = []
    for ring in rings:
        ring = ring.copy()
        outline = ring.tolist()
        for vertex in ring:
            for k in (0, 1):
                for side in sides[k]:
                    if 0 < abs(int(vertex[k]) - side) <= snap:
                        moved = vertex.copy()
                        moved[k] = side
                        if pyclipper.PointInPolygon(moved.tolist(), outline) != 1:
                            vertex[k] = side
        out.append(ring)
    kept = pyclipper.SimplifyPolygons([r.tolist() for r in out], pyclipper.PFT_NONZERO)
    return [np.array(p, np.int64) for p in kept if len(p) >= 3]


def stood_upright(rings: list[np.ndarray], cell: tuple[int, int, int, int], snap: float) -> list[np.ndarray]:
    """The blocked outlines with every edge that leans less than ``snap`` grid steps across
    its height, and less than a thousandth of it (``UPRIGHT``), stood upright, its inner end
    moved out to the outer's abscissa.

    The free space is cut by verticals through vertices. A contact that keeps one angle while
    the other coordinate moves (a stop sliding along the face it holds a bar with) is a
    vertical curve; its grown outline may lean a step or a few off it, and the cut through
    its upper end would then run down the whole height of the free space a hair short of it,
    a wall free along its length: a part pressed against it would stay held when the contact
    ends. Upright, the edge is a region's side, contact along its length and cut where it
    ends. Moving a vertex out by less than the cleaning distance keeps the outline a superset
    within the bound; a vertex on the cell's side stays, so the cells still fit."""
    x0, x1 = cell[0], cell[2]
    out = []
    for ring in rings:
        ring = ring.copy()
        n = len(ring)
        for k in range(n):
            p, q = ring[k], ring[(k + 1) % n]
            dx, dy = int(q[0] - p[0]), int(q[1] - p[1])
            if dx == 0 or abs(dx) > snap or abs(dy) <= snap or abs(dy) < UPRIGHT * abs(dx):
                continue
            # The blocked side is on the left of p -> q: going up, the free side is to the right.
            target = max(p[0], q[0]) if dy > 0 else min(p[0], q[0])
            inner = k if p[0] != target else (k + 1) % n
            if ring[inner][0] not in (x0, x1):
                ring[inner][0] = target
        out.append(ring)
    clean = pyclipper.SimplifyPolygons([r.tolist() for r in out], pyclipper.PFT_NONZERO)
    return [np.array(p, np.int64) for p in clean if len(p) >= 3]


def _repeated(arcs: Intervals, n: int) -> Intervals:
    """Blocked arcs against one sector of a part of order ``n``, turned to every sector: the
    arc of sector j is that of sector 0 less j n-ths of a turn, its features ``f * n + j``.
    Arcs that meet (two sectors' cut faces) join, round the seam too (compiled:
    :func:`cspace.kernels.sectors.repeated_arcs`)."""
    lo, hi, f_lo, f_hi, counts = repeated_arcs(
        np.ascontiguousarray(arcs.lo, float), np.ascontiguousarray(arcs.hi, float),
        np.ascontiguousarray(arcs.lo_feature, np.int64), np.ascontiguousarray(arcs.hi_feature, np.int64),
        np.ascontiguousarray(arcs.count, np.int64), n, TURN, math.pi, JOIN, NO_FEATURE)
    return Intervals(lo, hi, f_lo, f_hi, counts)


def _unrolled(arcs: Intervals, low: float, high: float) -> Intervals:
    """Arcs on the circle laid out on [low, high]: each copied a turn either way as needed,
    cut at the ends (a cut end has no feature)."""
    rows = []
    for k in range(len(arcs.count)):
        found, full = [], False
        for m in range(int(arcs.count[k])):
            lo, hi = float(arcs.lo[k, m]), float(arcs.hi[k, m])
            f_lo, f_hi = int(arcs.lo_feature[k, m]), int(arcs.hi_feature[k, m])
            full = f_lo == NO_FEATURE and f_hi == NO_FEATURE
            first = math.floor((low - hi) / (2 * math.pi))
            last = math.ceil((high - lo) / (2 * math.pi))
            for turn in range(first, last + 1):
                a, b = lo + 2 * math.pi * turn, hi + 2 * math.pi * turn
                if b <= low or a >= high:
                    continue
                found.append([max(a, low), min(b, high), f_lo if a >= low else NO_FEATURE,
                              f_hi if b <= high else NO_FEATURE])
        found.sort()
        if full or len(found) > 1:
            found = _merge_touching(found)
        rows.append(found)
    width = max(1, max(len(r) for r in rows))
    pad = [[r[m] if m < len(r) else [math.nan, math.nan, NO_FEATURE, NO_FEATURE] for m in range(width)]
           for r in rows]
    table = np.array(pad, float).reshape(len(rows), width, 4)
    return Intervals(table[..., 0], table[..., 1], table[..., 2].astype(int), table[..., 3].astype(int),
                     np.array([len(r) for r in rows], int))


def _merge_touching(spans: list[list]) -> list[list]:
    """Sorted spans with those that meet end to end merged (copies of a full turn)."""
    out = [list(spans[0])]
    for span in spans[1:]:
        if span[0] <= out[-1][1]:
            if span[1] > out[-1][1]:
                out[-1][1], out[-1][3] = span[1], span[3]
        else:
            out.append(list(span))
    return out


class _Sweep:
    """Adaptive samples of two slices' blocked intervals along the swept angle.

    A stretch between two samples is accepted when their intervals match (as many, each
    overlapping the other's) there and at a quarter, half and three quarters of the way,
    and the chord of each end is within ``curve / 8`` of the inner samples (in the scaled
    space); otherwise it is cut. Where intervals appear, vanish, split or join it is cut
    down to the length tolerance (``resolution``, scaled): what lies in between is within
    that of both sides, well inside the growth. Where one contact hands over to another along an end (a kink)
    it is not: the kink lies within twice the checked distance of the chord, and the
    blocked space is grown by that (``curve / 4``, see :func:`_grow`).
    """

    def __init__(self, solve, u: Axis, v: Axis, curve: float, resolution: float, batch: int) -> None:
        self.solve, self.u, self.v = solve, u, v
        self.batch = batch  # placements solved at once at most (see BATCH)
        self.limit = curve / 8
        self.step = resolution / u.scale
        self.samples: dict[float, tuple] = {}
        self.accepted: set[tuple[float, float]] = set()

    def run(self, low: float, high: float) -> None:
        count = max(2, math.ceil((high - low) / STEP) + 1)
        self._add(np.linspace(low, high, count))
        while True:
            us = sorted(self.samples)
            splits, checks = [], []
            for a, b in zip(us, us[1:]):
                if (a, b) in self.accepted:
                    continue
                if b - a <= self.step:
                    self.accepted.add((a, b))
                elif not _matching(self.samples[a], self.samples[b]):
                    splits.append((a + b) / 2)
                else:
                    checks.append((a, b))
            if not splits and not checks:
                return
            probes = np.array([a + (b - a) * t for a, b in checks for t in QUARTERS] + splits)
            found = self._evaluate(probes)
            close = self._close(checks, found)
            for n, (a, b) in enumerate(checks):
                inner = found[3 * n:3 * n + 3]
                if close[n] and all(_matching(self.samples[a], r) for r in inner):
                    self.accepted.add((a, b))
                else:
                    self._store(probes[3 * n:3 * n + 3], inner)
            self._store(np.array(splits), found[3 * len(checks):])

    def _add(self, us: np.ndarray) -> None:
        self._store(us, self._evaluate(us))

    def _evaluate(self, us: np.ndarray) -> list[tuple]:
        """Each value's blocked intervals, as tuples of plain numbers: (lo, hi, lo features, hi
        features). The sweep compares a few numbers at a time, where numpy costs more than it saves."""
        out = []
        for start in range(0, len(us), self.batch):
            solved = self.solve(us[start:start + self.batch])
            columns = (solved.lo.tolist(), solved.hi.tolist(), solved.lo_feature.tolist(), solved.hi_feature.tolist())
            for k, n in enumerate(solved.count.tolist()):
                out.append(tuple(tuple(column[k][:n]) for column in columns))
        return out

    def _store(self, us: np.ndarray, results: list[tuple]) -> None:
        for u, result in zip(us.tolist(), results):
            self.samples[u] = result

    def _close(self, checks: list[tuple[float, float]], found: list[tuple]) -> np.ndarray:
        """Per stretch (a, b): is every end's chord within the limit of the curve at the three
        inner samples (where they have as many intervals as a)? In the scaled space."""
        rows, owner = [], []
        for n, (a, b) in enumerate(checks):
            ra, rb = self.samples[a], self.samples[b]
            for t, r in zip(QUARTERS, found[3 * n:3 * n + 3]):
                for side in (0, 1):
                    if len(r[side]) == len(ra[side]):
                        for ya, yb, ym in zip(ra[side], rb[side], r[side]):
                            rows.append((a, b, t, ya, yb, ym))
                            owner.append(n)
        close = np.ones(len(checks), bool)
        if rows:
            a, b, t, ya, yb, ym = np.array(rows).T
            dx = (b - a) * self.u.scale
            dy = (yb - ya) * self.v.scale
            deviation = np.abs(dx * (ym - ya) * self.v.scale - dy * t * dx) / np.hypot(dx, dy)
            far = np.asarray(owner)[~(deviation <= self.limit)]
            close[far] = False
        return close

    def polygons(self, quantum: float) -> list[tuple[np.ndarray, list[int]]]:
        """Outlines on the grid of each run of intervals between samples, with each edge's
        feature (the contact it follows)."""
        return [_outline(run, self.u.scale, self.v.scale, quantum) for run in self._runs() if run]

    def _runs(self) -> list[list[tuple]]:
        """Runs of intervals over consecutive samples: (u, lo, hi, lo feature, hi feature).

        Two samples whose intervals match (as many, each overlapping the other's) continue
        each other's runs; where they do not, every run ends, a grid step short of where
        the next ones start."""
        runs: list[list] = []
        open_runs: list[int] = []
        previous = None
        for u in sorted(self.samples):
            lo, hi, f_lo, f_hi = self.samples[u]
            if previous is None or not _matching(previous, self.samples[u]):
                open_runs = []
                for m in range(len(lo)):
                    runs.append([])
                    open_runs.append(len(runs) - 1)
            for m, r in enumerate(open_runs):
                runs[r].append((u, lo[m], hi[m], f_lo[m], f_hi[m]))
            previous = self.samples[u]
        return runs


def _matching(first: tuple, second: tuple) -> bool:
    """Do two samples' intervals match: as many, each overlapping the other's (the same
    stretch of blocked values, moved a little)? A contact may change between them: where
    one contact hands over to another along an interval's end, the end is continuous."""
    lo, hi, other_lo, other_hi = first[0], first[1], second[0], second[1]
    return len(lo) == len(other_lo) and all(a < d and c < b for a, b, c, d in zip(lo, hi, other_lo, other_hi))


def _outline(run: list[tuple], su: float, sv: float, quantum: float) -> tuple[np.ndarray, list[int]]:
    """A run's outline on the grid, lower ends forward and upper ends back, and each edge's feature."""
    lower = [(u * su / quantum, lo * sv / quantum, f) for u, lo, _, f, _ in run]
    upper = [(u * su / quantum, hi * sv / quantum, f) for u, _, hi, _, f in reversed(run)]
    points = np.round(np.array([(x, y) for x, y, _ in lower + upper])).astype(np.int64)
    return points, [f for _, _, f in lower + upper]


def _simplified(ring: np.ndarray, tolerance: float) -> np.ndarray:
    """A closed outline simplified within ``tolerance``, its turning points kept.

    A turning point is where the outline stops rising and falls by more than the
    tolerance (or the reverse), in the second coordinate: kept, the edges on either side
    slope away from it, where two points left level across it would make a part riding
    the curve seem to dwell. The ripples of a flattened arc (its vertices taking turns
    to touch) are smaller and go.
    """
    if len(ring) < 4:
        return ring
    start = int(np.argmin(ring[:, 1]))
    chain = np.vstack([ring[start:], ring[:start + 1]])
    cuts = [0] + _turning(chain[:, 1], tolerance) + [len(chain) - 1]
    pieces = []
    for a, b in zip(cuts, cuts[1:]):
        if b > a:
            line = shapely.simplify(shapely.linestrings(chain[a:b + 1]), tolerance, preserve_topology=False)
            pieces.append(np.asarray(line.coords)[:-1])
    return np.round(np.vstack(pieces)).astype(np.int64)


def _turning(values: np.ndarray, threshold: float) -> list[int]:
    """Indices of the turning points of a sequence: the extreme of each swing that is
    followed by a move back of more than ``threshold``."""
    found: list[int] = []
    extreme, direction = 0, 0
    for k in range(1, len(values)):
        step = values[k] - values[extreme]
        if direction >= 0 and step > 0 or direction <= 0 and step < 0:
            extreme = k
            if direction == 0 and abs(step) > threshold:
                direction = 1 if step > 0 else -1
        elif abs(step) > threshold:
            if direction:
                found.append(extreme)
            direction = 1 if step > 0 else -1
            extreme = k
    return [k for k in found if 0 < k < len(values) - 1]


def _grow(paths: list[np.ndarray], simplify: float, delta: float, clean: float) -> list[np.ndarray]:
    """The union of the polygons grown by ``simplify`` grid steps, its outlines simplified
    within as much, then grown by ``delta``: a superset of the union, within
    ``2 simplify + delta + 2 clean`` of it.

    Grown before it is simplified, the union has one outline where the pieces' own
    outlines meet and cross, and slivers a step or two off it are inside: simplifying
    each piece's outline alone would leave steps where two of them cross, and a part
    sliding along would stop at such a step as at a wall.
    """
    usable = [p.tolist() for p in paths if len(p) >= 3]
    if not usable:
        return []
    clipper = pyclipper.Pyclipper()
    clipper.AddPaths([_ccw(p) for p in usable], pyclipper.PT_SUBJECT, True)
    union = clipper.Execute(pyclipper.CT_UNION, pyclipper.PFT_NONZERO, pyclipper.PFT_NONZERO)
    rings = [_simplified(np.array(p, np.int64), simplify) for p in _offset(union, math.ceil(simplify), clean)]
    return [np.array(p, np.int64) for p in _offset([r.tolist() for r in rings if len(r) >= 3], math.ceil(delta), clean)]


def _offset(paths: list, delta: int, clean: float) -> list:
    """Polygons grown by ``delta`` grid steps, cleaned of vertices within ``clean`` of each
    other and grown by that much more: an edge shorter than the length tolerance would
    make a region thinner than it, which a part could not cross (both its walls tight).

    Corners are rounded (their arcs' chords within ROUNDING of the arc, made up by growing
    that much more): where an interval of blocked values closes to a point, its outline
    ends in a cusp, and a cusp squared off would face a part sliding along the outline
    with a wall; rounded, the part rides over it. A corner of nearly straight edges gets
    no arc points, so a part riding over a crest is not given a level stretch there."""
    rounding = max(1.0, delta * ROUNDING)
    offset = pyclipper.PyclipperOffset(arc_tolerance=rounding)
    offset.AddPaths(paths, pyclipper.JT_ROUND, pyclipper.ET_CLOSEDPOLYGON)
    grown = offset.Execute(delta + math.ceil(rounding) + math.ceil(clean))
    return cleaned(grown, clean)


def cleaned(rings: list, clean: float) -> list:
    """Closed outlines (grid points, each ring unclosed) cleaned of vertices within ``clean``
    of each other or of the line through their neighbours (pyclipper's CleanPolygon), and
    kept within ``clean`` of what they were: where the cleaning dropped a stretch of
    vertices lying farther than that from the chord left in their place, the stretch is
    simplified within ``clean`` instead (Douglas-Peucker: its ends kept, and no two
    vertices nearer than ``clean``).

    CleanPolygon tests a vertex against its neighbours as they stand when it comes to it,
    so along a densely sampled curve its removals compound, each within ``clean`` of the
    chord so far and none of the curve: at an arc tolerance of 1e-6 the Geneva drive's
    outline held a chord 0.15 long 1.9e-4 inside the real blocked space, ten times
    ``clean``, and a trace pushed the pin that deep into the wheel. Elsewhere its answer
    stands: it drops the same vertices from every copy of a repeating outline, which a
    simplification of the whole ring does not (the copies must meet exactly).

    >>> cleaned([[[0, 0], [10, 0], [20, 1], [30, 0], [30, 30], [0, 30]]], 2.0)
    [[[0, 0], [30, 0], [30, 30], [0, 30]]]
    >>> ring = [[round(1000 * math.cos(t)), round(1000 * math.sin(t))] for t in np.linspace(0, 1, 400)] + [[0, 0]]
    >>> def farthest(outline): return max(shapely.Point(p).distance(shapely.LinearRing(outline)) for p in ring)
    >>> round(farthest(pyclipper.CleanPolygon(ring, 2.0))), round(farthest(cleaned([ring], 2.0)[0]), 2)
    (114, 1.87)
    """
    out = []
    for ring in rings:
        kept = pyclipper.CleanPolygon(ring, clean)
        if len(kept) >= 3:
            out.append(_within(np.asarray(ring, np.int64), np.asarray(kept, np.int64), clean))
    return out


def _within(ring: np.ndarray, kept: np.ndarray, clean: float) -> list:
    """``kept``, vertices of ``ring`` in its order, with every chord that strays more than
    ``clean`` from the vertices of ``ring`` it replaced simplified from them within ``clean``."""
    n = len(ring)
    at = _positions(ring, kept)
    if at is None:  # not a subsequence after all: simplify the whole ring
        return _simplified_chain(np.vstack([ring, ring[:1]]), clean)[:-1].tolist()
    ends = np.roll(at, -1)
    lengths = (ends - at) % n
    lengths[lengths == 0] = n
    close = _close_chords(ring, at, lengths, clean)
    points = ring.tolist()
    out = []
    for i, length, kept_close in zip(at.tolist(), lengths.tolist(), close.tolist()):
        if kept_close:
            out.append(points[i])
        else:
            out.extend(_simplified_chain(ring[np.arange(i, i + length + 1) % n], clean)[:-1].tolist())
    return out


def _close_chords(ring: np.ndarray, at: np.ndarray, lengths: np.ndarray, clean: float) -> np.ndarray:
    """Per chord from ``ring[at[k]]`` over ``lengths[k]`` steps: is :func:`_deviation` of the
    vertices it replaces at most ``clean``? The same answers, most of them at once: a chord
    over one vertex (the usual cleaning) is measured for all such chords together, in the
    arithmetic of :func:`_deviation` (each dot product a matmul of a row by a column, as
    there: numpy's same dot routine, the same bits), and a chord over none deviates by nothing."""
    n = len(ring)
    close = np.zeros(len(at), bool)
    close[lengths == 1] = 0.0 <= clean
    single = np.flatnonzero(lengths == 2)
    if len(single):
        a, inner, b = (ring[(at[single] + step) % n].astype(float) for step in range(3))
        d, inner = b - a, inner - a
        dd = np.matmul(d[:, None, :], d[:, :, None])[:, 0, 0]
        moving = dd != 0  # d.any()
        t = np.zeros(len(single))
        t[moving] = np.clip(np.matmul(inner[moving, None, :], d[moving, :, None])[:, 0, 0] / dd[moving], 0.0, 1.0)
        close[single] = np.hypot(inner[:, 0] - t * d[:, 0], inner[:, 1] - t * d[:, 1]) <= clean
    for k in np.flatnonzero(lengths > 2).tolist():
        close[k] = _deviation(ring[np.arange(at[k], at[k] + lengths[k] + 1) % n]) <= clean
    return close


def _positions(ring: np.ndarray, kept: np.ndarray) -> np.ndarray | None:
    """Where each vertex of ``kept`` is in ``ring`` (a subsequence of it, from any start), or None."""
    first = np.flatnonzero((ring == kept[0]).all(axis=1))
    if not len(first):
        return None
    start = int(first[0])
    wanted = kept.tolist()
    found: list[int] = []
    for m, point in enumerate(np.roll(ring, -start, axis=0).tolist()):
        if len(found) < len(wanted) and point == wanted[len(found)]:
            found.append(m)
    return (np.array(found) + start) % len(ring) if len(found) == len(wanted) else None


def _deviation(chain: np.ndarray) -> float:
    """The farthest a chain's inner vertices lie from the segment joining its ends."""
    if len(chain) <= 2:
        return 0.0
    a, b = chain[0].astype(float), chain[-1].astype(float)
    d, inner = b - a, chain[1:-1].astype(float) - a
    t = np.clip(inner @ d / (d @ d), 0.0, 1.0) if d.any() else np.zeros(len(inner))
    return float(np.hypot(*(inner - t[:, None] * d).T).max())


def _simplified_chain(chain: np.ndarray, tolerance: float) -> np.ndarray:
    """An open chain simplified within ``tolerance`` (Douglas-Peucker), its ends kept."""
    line = shapely.simplify(shapely.linestrings(chain), tolerance, preserve_topology=False)
    return np.round(shapely.get_coordinates(line)).astype(np.int64)


def _ccw(path: list) -> list:
    return path if pyclipper.Orientation(path) else path[::-1]

