"""Contact curves of a pair in closed form, one coordinate at a time.

With every coordinate of a pair but one held, part B moves relative to part A along a
one-parameter rigid motion: a translation ``v * d`` or a turn by ``v`` about a point.
Its blocked values lie between *contact configurations*, exact for line and arc edges:

* a vertex of one part on an edge of the other: on a straight edge's line, or at an
  arc's radius from its centre;
* an arc of one part tangent to an edge of the other: its centre at its radius from a
  straight edge's line, or at the sum or the difference of the radii from an arc's centre.

Each is a root of a linear or quadratic equation in ``v`` (translation), or of
``alpha cos v + beta sin v = gamma`` (rotation). A root counts when the contact point
lies on both edges. Between two consecutive roots nothing changes, so the overlap is
followed root by root with a count: the vertices of each part inside the other's
material (winding numbers: holes subtract, islands in them add) plus the crossings of their edges. Two parts
overlap exactly when the count is positive, and a root changes it by what happens there
alone: a vertex goes in or out (one) and each of its two edges starts or stops crossing
the other edge; at a tangency two crossings appear or go. A translation starts from no
overlap far away; a turn from the count at one value, found with shapely.

Outlines may be concave and have holes: the count does not need convex pieces. Every
function is vectorized over ``K`` placements of B (one per value of the held
coordinate). Each end of a blocked interval carries a *feature*: an integer naming the
contact and the root, equal at two placements exactly when the end follows one smooth
contact curve between them.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property, partial

import numpy as np
import shapely

from ..model.geometry import even_odd, nesting_depths
from .arc_fractions import angle_terms, fractions
from .ranges import keys_in_ranges
from .placements import placed_copies
from .turning_roots import classified, moved_points, sinusoid_terms, turned_points
from .turning_tangencies import tangency_terms, tangent_points

Label = tuple[tuple[str, ...], tuple[str, ...]]
NO_FEATURE = -1  # an end that is not a contact (a full turn blocked, a domain's edge)
TURN = 2 * math.pi
ENDS = 1e-9  # a contact this close to an edge's end (as a fraction of it) is at the end
SIDE_BOUND = 1 + 1e-12  # a side (a product of two unit vectors, rounded) is at most this
# Roots are sought with numpy's floating-point warnings off: a contact that does not exist
# (a point at no edge's place, a straight edge's missing centre) is a nan, never an answer.
QUIET = {"divide": "ignore", "invalid": "ignore", "over": "ignore"}


@dataclass(frozen=True, eq=False)
class Shape:
    """A part's slice in its own frame: its outline's rings as one array of vertices
    (material on the left), the next vertex of each along its ring, the face or corner
    at each vertex and the faces along each edge (vertex i to ``following[i]``).

    An edge is straight, or an arc (at most a quarter turn) about ``centers[i]`` of radius
    ``abs(radii[i])``, counterclockwise when ``radii[i] > 0`` (the material on the centre's
    side: convex) and clockwise when negative (concave); ``radii[i] == 0`` on a straight
    edge. ``material`` is the slice for direct overlap tests, arcs flattened outward.
    """

    vertices: np.ndarray
    following: np.ndarray
    vertex_features: tuple[str, ...]
    edge_faces: tuple[tuple[str, ...], ...]
    z: tuple[float, float] = (-math.inf, math.inf)
    material: shapely.Geometry = field(default=None, repr=False)
    centers: np.ndarray = field(default=None, repr=False)
    radii: np.ndarray = field(default=None, repr=False)

    @classmethod
    def of(cls, rings: list[tuple], z: tuple[float, float] = (-math.inf, math.inf),
           material: shapely.Geometry | None = None) -> Shape:
        """A shape from rings (vertices, vertex features, edge faces[, arcs]), each material on
        the left; ``arcs`` (n, 3) holds each edge's centre and signed radius (0: straight).
        Without ``material`` it is the rings' polygons, arcs flattened outward finely.

        >>> square = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], float)
        >>> Shape.of([(square, ("v",) * 4, (("e",),) * 4)])
        Shape(vertices=4, arcs=0)
        """
        vertices, following, features, faces, arcs = [], [], [], [], []
        for ring in rings:
            points, vertex_features, edge_faces = ring[:3]
            start = len(vertices)
            n = len(points)
            vertices.extend(map(tuple, points))
            following.extend(start + (k + 1) % n for k in range(n))
            features.extend(vertex_features)
            faces.extend(edge_faces)
            arcs.extend(map(tuple, ring[3]) if len(ring) > 3 else [(math.nan, math.nan, 0.0)] * n)
        array = np.array(vertices, float).reshape(-1, 2)
        following = np.array(following, int)
        bends = np.array(arcs, float).reshape(-1, 3)
        if material is None:
            material = _material(array, following, bends, [len(r[0]) for r in rings])
        shapely.prepare(material)
        return cls(array, following, tuple(features), tuple(faces), z, material, bends[:, :2].copy(), bends[:, 2].copy())

    @cached_property
    def extent(self) -> float:
        """The outline's larger side (0 without vertices): the scale of its overlap tests."""
        return float(np.ptp(self.vertices, axis=0).max()) if len(self.vertices) else 0.0

    @property
    def preceding(self) -> np.ndarray:
        out = np.empty_like(self.following)
        out[self.following] = np.arange(len(self.following))
        return out

    @cached_property
    def arcs(self) -> np.ndarray:
        """Indices of the arc edges."""
        return _frozen(np.flatnonzero(self.radii != 0))

    @cached_property
    def edges(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Edge starts, vectors and outward unit normals (see :func:`_edges`), made once: every
        sweep round of a turning pair reads them."""
        return tuple(_frozen(x) for x in _edges(self.vertices, self.following))

    @cached_property
    def tangents(self) -> tuple[np.ndarray, np.ndarray]:
        """Unit directions leaving each vertex along its previous edge (backward) and its next,
        made once."""
        def unit(x: np.ndarray) -> np.ndarray:
            length = np.hypot(x[:, 0], x[:, 1])[:, None]
            return x / np.where(length > 0, length, 1.0)
        ahead = self.vertices[self.following] - self.vertices
        turning = self.radii != 0
        radial = self.vertices - self.centers
        ahead[turning] = np.sign(self.radii[turning])[:, None] * _left(radial[turning])
        before = self.preceding
        back = self.vertices[before] - self.vertices
        arc_before = self.radii[before] != 0
        radial = self.vertices - self.centers[before]
        back[arc_before] = -np.sign(self.radii[before][arc_before])[:, None] * _left(radial[arc_before])
        return _frozen(unit(back)), _frozen(unit(ahead))

    def with_arcs(self, circles: dict[str, list[tuple[tuple[float, float], float, float, float]]], near: float,
                  flattened: float) -> Shape:
        """The shape with its flattened arcs made arcs again: each run of edges along one face
        that is an arc (``circles``: a face's arcs, each centre, radius, start direction and
        sweep, negative when clockwise; an edge goes with the arc it lies along), between vertices
        on its circle (within ``near``), becomes edges of at most a quarter turn. The run's
        edges lie within ``flattened`` outside the circle; an edge at either end that leaves
        it (a tangent continuing a straight face) stays straight, and so does the material.
        A run of fewer than ``FEW_FACETS`` edges stays flattened: within the budget already
        (``Tolerance.rotation_arc``), and cheaper so than as arcs (a gear's short flank arcs:
        exact, two tooth pairs sharing the load would hand the contact back and forth as
        their arcs, drawn within the involute's error, take turns being ahead). The arcs
        that flatten into many facets (a pin, a disk, a locking arc) are where it pays.

        >>> square = Shape.of([(np.array([[0, 0], [1, 0], [1, 1], [0, 1]], float), ("v",) * 4, (("e",),) * 4)])
        >>> square.with_arcs({}, 1e-9, 1e-4)
        Shape(vertices=4, arcs=0)
        """
        rings = []
        points = self.vertices.tolist()
        on: dict[tuple[int, str, int], bool] = {}  # a vertex on a face's n-th arc: each end of two edges
        for ring in self._rings():
            circle = [self._circle(i, points, circles, near, flattened, on) for i in ring]
            features = [self.vertex_features[i] for i in ring]
            faces = [self.edge_faces[i] for i in ring]
            rings.append(_rebuilt(self.vertices[ring], features, faces, circle, near))
        return Shape.of(rings, self.z, self.material)

    def _rings(self) -> list[list[int]]:
        """Each ring's vertex indices in order."""
        seen = np.zeros(len(self.vertices), bool)
        rings = []
        for start in range(len(self.vertices)):
            if not seen[start]:
                ring, i = [], start
                while not seen[i]:
                    seen[i] = True
                    ring.append(i)
                    i = int(self.following[i])
                rings.append(ring)
        return rings

    def _circle(self, i: int, points: list, circles: dict, near: float, flattened: float, on: dict) -> tuple | None:
        """The circle edge i was flattened from, if it lies along one face that is an arc:
        both its ends on that arc (``on`` remembers each vertex and arc)."""
        faces = self.edge_faces[i]
        if len(faces) != 1:
            return None
        for n, (center, radius, start, sweep) in enumerate(circles.get(faces[0], ())):
            slack = (near + flattened) / radius
            for v in (i, int(self.following[i])):
                key = (v, faces[0], n)
                if key not in on:
                    x = points[v]
                    on[key] = radius - near <= math.dist(x, center) <= radius + flattened + near \
                        and _within(math.atan2(x[1] - center[1], x[0] - center[0]), start, sweep, slack)
                if not on[key]:
                    break
            else:
                return (float(center[0]), float(center[1]), float(radius))
        return None

    def meets(self, other: Shape) -> bool:
        """Do the two slices overlap in z (with positive length)?"""
        return self.z[0] < other.z[1] and other.z[0] < self.z[1]

    def __repr__(self) -> str:
        return f"Shape(vertices={len(self.vertices)}, arcs={len(self.arcs)})"


_STRAIGHT = (math.nan, math.nan, 0.0)


def _rebuilt(points: np.ndarray, features: list[str], faces: list[tuple[str, ...]], circle: list[tuple | None],
             near: float) -> tuple:
    """One ring with each run of edges along a circle (``circle[k]`` for edge k to k + 1)
    made arcs of at most a quarter turn: from where the run first meets its circle (a vertex
    on it, or where an edge flattened outward touches it) to where it last does. A run
    round the whole ring becomes four quarters."""
    n = len(points)
    runs = _runs_along(circle)
    if len(runs) == 1 and len(runs[0]) == n + 1:
        cx, cy, radius = circle[0]
        turn = 1.0 if _area(points) > 0 else -1.0
        angles = [turn * k * math.pi / 2 for k in range(4)]
        quarter = [(cx + radius * math.cos(t), cy + radius * math.sin(t)) for t in angles]
        face = faces[0][0]
        return np.array(quarter), (face,) * 4, ((face,),) * 4, np.array([(cx, cy, turn * radius)] * 4)
    points = points.copy()
    for run in runs:                                                     # ends on the circle exactly on it
        center, radius = np.array(circle[run[0]][:2]), circle[run[0]][2]
        for k in (run[0] % n, run[-1] % n):
            d = math.dist(points[k], center)
            if abs(d - radius) <= near and d > 0:
                points[k] = center + (points[k] - center) * (radius / d)
    entries: list[tuple] = []
    starts = {run[0]: run for run in runs}
    k = runs[0][0] if runs else 0
    first = k
    while True:
        if k in starts:
            entries.extend(_run_entries(points, features, faces, starts[k], circle[k], near))
            k = starts[k][-1] % n
        else:
            entries.append((points[k], features[k], faces[k], _STRAIGHT))
            k = (k + 1) % n
        if k == first:
            break
    out = list(zip(*entries))
    return np.array(out[0], float), tuple(out[1]), tuple(out[2]), np.array(out[3], float)


def _run_entries(points: np.ndarray, features: list[str], faces: list[tuple[str, ...]], run: list[int],
                 circle: tuple, near: float) -> list[tuple]:
    """A run's vertices (its last excluded) as (point, feature, faces of the edge leaving it,
    arc of that edge): straight up to where the run meets the circle, arcs, straight after."""
    n = len(points)
    cx, cy, radius = circle
    center = np.array([cx, cy])
    ends = [_meets(points[run[i] % n], points[run[i + 1] % n], center, radius, near) for i in range(len(run) - 1)]
    entering = [i for i, e in enumerate(ends) if e[0] is not None]
    leaving = [i for i, e in enumerate(ends) if e[1] is not None]
    straight = [(points[k % n], features[k % n], faces[k % n], _STRAIGHT) for k in run[:-1]]
    if not entering or not leaving or leaving[-1] < entering[0]:
        return straight
    i, j = entering[0], leaving[-1]
    start, end = ends[i][0], ends[j][1]
    rel = points[[k % n for k in run]] - center
    turn = 1.0 if _cross(rel[:-1], rel[1:]).sum() > 0 else -1.0
    sweep = _sweep(start - center, end - center, turn)
    face = faces[run[i] % n][0]
    arc = (cx, cy, turn * radius)
    out = straight[:i + 1]
    if math.dist(start, points[run[i] % n]) <= near:          # the arc starts at the run's vertex
        out[-1] = (start, out[-1][1], (face,), arc)
    else:                                                     # or part way along its edge
        out.append((start, face, (face,), arc))
    count = max(1, math.ceil(sweep / (math.pi / 2) - 1e-9))
    a0 = math.atan2(start[1] - cy, start[0] - cx)
    out.extend((center + radius * np.array([math.cos(a0 + turn * sweep * m / count),
                                            math.sin(a0 + turn * sweep * m / count)]), face, (face,), arc)
               for m in range(1, count))
    after = run[j + 1]
    if math.dist(end, points[after % n]) > near:
        out.append((end, face, faces[run[j] % n], _STRAIGHT))
    elif j + 1 < len(run) - 1:
        out.append((end, features[after % n], faces[after % n], _STRAIGHT))
        out.extend(straight[j + 2:])
        return out
    out.extend(straight[j + 1:])
    return out


def _meets(p: np.ndarray, q: np.ndarray, center: np.ndarray, radius: float, near: float) -> tuple:
    """Where an edge along a circle first and last meets it: an end on the circle (moved onto
    it), else the edge's touching point when the edge runs along a tangent; None where not."""
    def on(x: np.ndarray):
        d = math.dist(x, center)
        return center + (x - center) * (radius / d) if abs(d - radius) <= near and d > 0 else None
    start, end = on(p), on(q)
    if start is None or end is None:
        v = q - p
        t = float(np.dot(center - p, v) / np.dot(v, v)) if np.dot(v, v) > 0 else -1.0
        foot = p + t * v
        touching = 0.0 <= t <= 1.0 and abs(math.dist(foot, center) - radius) <= near
        if touching:
            start = start if start is not None else foot
            end = end if end is not None else foot
    return start, end


def _runs_along(circle: list[tuple | None]) -> list[list[int]]:
    """Maximal runs of consecutive edges along one circle, as vertex positions (first edge's
    start to last edge's end, counting on past the ring's end); one round when all are."""
    n = len(circle)
    if circle[0] is not None and all(c == circle[0] for c in circle):
        return [list(range(n + 1))]
    runs = []
    for start in range(n):
        if circle[start] is not None and circle[start] != circle[start - 1]:
            end = start
            while circle[(end + 1) % n] == circle[start]:
                end += 1
            if end + 1 - start >= FEW_FACETS:
                runs.append(list(range(start, end + 2)))
    return runs


def _within(angle: float, start: float, sweep: float, slack: float) -> bool:
    """Does a direction lie on an arc from ``start`` turning by ``sweep`` (negative:
    clockwise), within ``slack`` radians of its ends?"""
    along = (math.copysign(1.0, sweep) * (angle - start)) % TURN
    return along <= abs(sweep) + slack or along >= TURN - slack


def _left(x: np.ndarray) -> np.ndarray:
    """Vectors turned a quarter counterclockwise."""
    return np.stack([-x[..., 1], x[..., 0]], axis=-1)





FEW_FACETS = 8  # an arc flattened into fewer facets stays flattened (see Shape.with_arcs)
FINE = 1e-6  # direct tests flatten a shape's arcs within this fraction of its size (outward)


def _material(vertices: np.ndarray, following: np.ndarray, bends: np.ndarray, sizes: list[int]) -> shapely.Geometry:
    """The rings' material, arcs flattened outward within FINE of the shape's size; nesting
    alternates (holes, islands in holes, ...: :func:`cspace.model.geometry.nesting_depths`)."""
    size = float(np.ptp(vertices, axis=0).max()) if len(vertices) else 1.0
    polygons, start = [], 0
    for n in sizes:
        points = []
        for i in range(start, start + n):
            points.append(vertices[i])
            if bends[i, 2]:
                points.extend(_flattened(vertices[i], vertices[following[i]], bends[i, :2], bends[i, 2], FINE * size))
        polygons.append(shapely.Polygon(np.array(points)))
        start += n
    return even_odd(polygons, nesting_depths(polygons))


def _flattened(p: np.ndarray, q: np.ndarray, center: np.ndarray, radius: float, deviation: float) -> list:
    """Inner points of an arc edge flattened outward within ``deviation``: corners of its
    tangents when convex (the polygon holds the arc), points on it when concave."""
    r = abs(radius)
    a0 = math.atan2(p[1] - center[1], p[0] - center[0])
    sweep = _sweep(p - center, q - center, radius)
    step = 2 * math.acos(max(-1.0, 1 - min(deviation, r) / r))
    n = max(1, math.ceil(sweep / step))
    sign = 1.0 if radius > 0 else -1.0
    if radius > 0:
        out = r / math.cos(sweep / n / 2)
        angles = [a0 + sign * sweep * (k + 0.5) / n for k in range(n)]
        return [(center[0] + out * math.cos(t), center[1] + out * math.sin(t)) for t in angles]
    angles = [a0 + sign * sweep * k / n for k in range(1, n)]
    return [(center[0] + r * math.cos(t), center[1] + r * math.sin(t)) for t in angles]


def _sweep(start: np.ndarray, end: np.ndarray, radius: float) -> float:
    """Angle from direction ``start`` to ``end``, counterclockwise for a positive radius, in [0, 2 pi)."""
    turn = math.atan2(start[0] * end[1] - start[1] * end[0], start[0] * end[0] + start[1] * end[1])
    return (turn if radius > 0 else -turn) % TURN


def _area(points: np.ndarray) -> float:
    x, y = np.asarray(points, float).T
    return float(np.dot(x, np.roll(y, -1)) - np.dot(np.roll(x, -1), y))


@dataclass(frozen=True)
class Intervals:
    """Blocked intervals for ``K`` placements: ``lo[k, m] < v < hi[k, m]`` for ``m <
    count[k]``, sorted, with the feature of each end (padding is nan and NO_FEATURE)."""

    lo: np.ndarray
    hi: np.ndarray
    lo_feature: np.ndarray
    hi_feature: np.ndarray
    count: np.ndarray

    def __repr__(self) -> str:
        return f"Intervals(placements={len(self.count)}, most={int(self.count.max(initial=0))})"


@dataclass(frozen=True)
class _Roots:
    """Contact roots over all placements: placement, value, feature and change of count."""

    k: np.ndarray
    v: np.ndarray
    feature: np.ndarray
    change: np.ndarray
    degenerate: np.ndarray

    @cached_property
    def by_placement(self) -> np.ndarray:
        """The roots' order by placement, then value (:func:`placement_order`), sorted once for
        the start values and the count."""
        return placement_order(self.k, self.v)


def translation_intervals(a: Shape, b: Shape, angle: np.ndarray, offset: np.ndarray, d: np.ndarray) -> Intervals:
    """Blocked ``v`` for ``K`` placements of B in A's frame (B's point p at ``R(angle) p +
    offset``), each translating further along the unit direction ``d`` (K, 2), against A.

    A feature ``(i * nb + j) * 2 + root`` is B's vertex j on A's edge i; ``(na * nb + i * nb
    + j) * 2 + root`` is A's vertex i on B's edge j (root 0 or 1: the two where an edge is an
    arc); ``(2 na nb + (i nb + j) * 2 + which) * 2 + root`` is A's edge i tangent to B's
    edge j, one of them an arc (see :func:`label`).
    """
    K = len(angle)
    with np.errstate(**QUIET):
        sides = [_Sides.of(a, b, angle, offset, kind) for kind in (0, 1)]
        roots = _concat([_translation_roots(side, d) for side in sides]
                        + [_translation_tangencies(side, d) for side in sides])

    def overlaps(ks: np.ndarray, values: np.ndarray) -> np.ndarray:
        return _overlaps(a, b, angle[ks], offset[ks] + values[:, None] * d[ks])

    return blocked_intervals(roots, K, np.full(K, -math.inf), False, overlaps)


def rotation_intervals(a: Shape, b: Shape, angle: np.ndarray, offset: np.ndarray, center: np.ndarray,
                       sign: int) -> Intervals:
    """Blocked ``v`` for ``K`` placements of B in A's frame (B's point p at ``R(angle) p +
    offset``), each turning further by ``sign * v`` about ``center`` (K, 2), against A.

    Intervals are arcs, ``lo`` in [-pi, pi); an arc across the seam has ``hi > pi``.
    Features as for :func:`translation_intervals`, the root in the lowest bit.
    """
    K = len(angle)
    with np.errstate(**QUIET):
        kept = vertices_within_reach(a, b, angle, offset, center)
        sides = [_Sides.of(a, b, angle, offset, kind, kept) for kind in (0, 1)]
        ranges = [_distance_range(side.e0, side.ev, side.ec, side.er, center) for side in sides]
        roots = _concat([_rotation_roots(side, center, sign, *r) for side, r in zip(sides, ranges)]
                        + [_rotation_tangencies(side, center, sign, *r) for side, r in zip(sides, ranges)])

    def overlaps(ks: np.ndarray, values: np.ndarray) -> np.ndarray:
        turn = sign * values
        c, s = np.cos(turn), np.sin(turn)
        rel = offset[ks] - center[ks]
        shift = center[ks] + np.stack([c * rel[:, 0] - s * rel[:, 1], s * rel[:, 0] + c * rel[:, 1]], axis=1)
        return _overlaps(a, b, angle[ks] + turn, shift)

    return blocked_intervals(roots, K, start_values(roots, K), True, overlaps)


def vertices_within_reach(a: Shape, b: Shape, angle: np.ndarray, offset: np.ndarray, center: np.ndarray) -> np.ndarray | None:
    """A's vertices (each with the edge it starts) that B can reach turning about ``center``
    from any of its placements: those whose edge comes within B's reach of the disc holding
    every centre. None when that is all of them. A gear meets another only by the few
    teeth near the mesh, and the contacts of the rest need not be sought."""
    middle = (center.min(axis=0) + center.max(axis=0)) / 2
    spread = float(np.hypot(*(center - middle).T).max(initial=0.0))
    arm = place(b.vertices, angle, offset) - center[:, None, :]
    reach = float(np.hypot(arm[..., 0], arm[..., 1]).max(initial=0.0))
    bends = b.radii != 0
    if bends.any():
        arc = place(b.centers[bends], angle, offset) - center[:, None, :]
        reach = max(reach, float((np.hypot(arc[..., 0], arc[..., 1]) + np.abs(b.radii[bends])).max()))
    e0, ev, _ = a.edges
    near, _ = _distance_range(e0[None], ev[None], a.centers[None], a.radii, middle[None])
    size = a.extent + reach + spread
    kept = np.flatnonzero(near[0] <= spread + reach + 1e-9 * size)
    return None if len(kept) == len(a.vertices) else kept


def _overlaps(a: Shape, b: Shape, angle: np.ndarray, offset: np.ndarray) -> np.ndarray:
    """Do the parts overlap in area, B placed at each (angle, offset)? Found directly
    (shapely, every placement at once; each placed as ``shapely.affinity`` places it)."""
    count = len(angle)
    if not count:
        return np.zeros(0, bool)
    size = a.extent + b.extent
    c = np.array([math.cos(x) for x in angle.tolist()])
    s = np.array([math.sin(x) for x in angle.tolist()])
    moved = shapely.transform(np.full(count, b.material, dtype=object), partial(placed_copies, c=c, s=s, offset=offset))
    return shapely.area(shapely.intersection(a.material, moved)) > 1e-12 * size * size


def place(points: np.ndarray, angle: np.ndarray, offset: np.ndarray) -> np.ndarray:
    """Points (n, 2) turned by each angle (K,) and moved by each offset (K, 2): (K, n, 2)."""
    c, s = np.cos(angle)[:, None], np.sin(angle)[:, None]
    x, y = points[:, 0][None, :], points[:, 1][None, :]
    return np.stack([c * x - s * y + offset[:, None, 0], s * x + c * y + offset[:, None, 1]], axis=-1)


def _turned(vectors: np.ndarray, angle: np.ndarray) -> np.ndarray:
    """Vectors (K, n, 2) or (p, 2) turned by angles (K,) or (p,)."""
    c, s = np.cos(angle), np.sin(angle)
    if vectors.ndim == 3:
        c, s = c[:, None], s[:, None]
    return np.stack([c * vectors[..., 0] - s * vectors[..., 1], s * vectors[..., 0] + c * vectors[..., 1]], axis=-1)


def _concat(parts: list[_Roots]) -> _Roots:
    return _Roots(*(np.concatenate([getattr(p, f) for p in parts]) for f in ("k", "v", "feature", "change", "degenerate")))


@dataclass(frozen=True)
class _Sides:
    """One way round of a pair's contacts: the *movers* (vertices and arc edges of one part,
    moving relative to the other) and the *edges* they meet (the other part's), all at ``K``
    placements in A's frame. Kind 0: B moves against A; kind 1: A moves against B (the
    motion reversed). Edge arrays (K, ne, ...): start, vector, outward unit normal of a
    straight edge, centre and signed radius of an arc. Mover arrays (K, nm, 2): points,
    and the unit directions leaving each along its previous and next edge."""

    kind: int
    na: int
    nb: int
    movers: np.ndarray
    back: np.ndarray
    ahead: np.ndarray
    mover_arcs: np.ndarray      # the movers' arc edges, by their index in their part
    mover_centers: np.ndarray   # (K, arcs, 2)
    mover_radii: np.ndarray     # (arcs,) signed
    mover_ends: np.ndarray      # (K, arcs, 2, 2): each arc's start and end
    e0: np.ndarray
    ev: np.ndarray
    en: np.ndarray
    ec: np.ndarray
    er: np.ndarray
    kept: np.ndarray            # A's vertices and edges in play, by their index in A

    @classmethod
    def of(cls, a: Shape, b: Shape, angle: np.ndarray, offset: np.ndarray, kind: int,
           kept: np.ndarray | None = None) -> _Sides:
        """Kind ``kind``'s arrays; of A, only the vertices and edges ``kept`` (all by default)."""
        K = len(angle)
        kept = np.arange(len(a.vertices)) if kept is None else kept
        placed = place(b.vertices, angle, offset)
        if kind == 0:
            mover, movers, arcs = b, placed, b.arcs
            back, ahead = (_turned(np.broadcast_to(x, (K,) + x.shape), angle) for x in b.tangents)
            centers = place(b.centers[arcs], angle, offset)
            ends = np.stack([placed[:, arcs], placed[:, b.following[arcs]]], axis=2)
            e0, ev, en = (np.broadcast_to(x[kept], (K, len(kept), 2)) for x in a.edges)
            ec, er = np.broadcast_to(a.centers[kept], (K, len(kept), 2)), a.radii[kept]
        else:
            mover, arcs = a, kept[a.radii[kept] != 0]
            movers = np.broadcast_to(a.vertices[kept], (K, len(kept), 2))
            back, ahead = (np.broadcast_to(x[kept], (K, len(kept), 2)) for x in a.tangents)
            centers = np.broadcast_to(a.centers[arcs], (K, len(arcs), 2))
            ends = np.broadcast_to(np.stack([a.vertices[arcs], a.vertices[a.following[arcs]]], axis=1),
                                   (K, len(arcs), 2, 2))
            e0, ev, en = _edges(placed, b.following)
            ec = place(b.centers, angle, offset)
            er = b.radii
        return cls(kind, len(a.vertices), len(b.vertices), movers, back, ahead, arcs, centers,
                   mover.radii[arcs], ends, e0, ev, en, ec, er, kept)

    @cached_property
    def edge_spans(self) -> np.ndarray:
        """Each arc edge's sweep (:func:`_arc_span`; 0 on a straight edge) at each placement
        (K, ne): made once for all the contacts on it, and once for every placement where
        the edges do not move (kind 0)."""
        e0, ev, ec = _once(self.e0, self.ev, self.ec)
        return _spans(self.er, ec, e0, e0 + ev, len(self.e0))

    @cached_property
    def mover_spans(self) -> np.ndarray:
        """Each mover arc's sweep at each placement (K, arcs), as :attr:`edge_spans`."""
        centers, ends = _once(self.mover_centers, self.mover_ends)
        return _spans(self.mover_radii, centers, ends[:, :, 0], ends[:, :, 1], len(self.mover_centers))

    def vertex_feature(self, e: np.ndarray, m: np.ndarray, root: int | np.ndarray) -> np.ndarray:
        """Features of mover vertex m on edge e (see :func:`translation_intervals`)."""
        if self.kind == 0:
            return (self.kept[e] * self.nb + m) * 2 + root
        return (self.na * self.nb + self.kept[m] * self.nb + e) * 2 + root

    def tangency_feature(self, e: np.ndarray, j: np.ndarray, which: int, root: int | np.ndarray) -> np.ndarray:
        """Features of mover arc edge j (its index in its part) tangent to edge e, ``which``
        of its two tangencies."""
        i, jb = (self.kept[e], j) if self.kind == 0 else (j, e)
        return (2 * self.na * self.nb + (i * self.nb + jb) * 2 + which) * 2 + root


def _once(*arrays: np.ndarray) -> tuple[np.ndarray, ...]:
    """Arrays over placements, each its first placement alone where all are the same at every
    placement (broadcast)."""
    if all(len(a) and a.strides[0] == 0 for a in arrays):
        return tuple(a[:1] for a in arrays)
    return arrays


def _spans(radii: np.ndarray, centers: np.ndarray, starts: np.ndarray, ends: np.ndarray, count: int) -> np.ndarray:
    """The sweeps of arcs (signed radii (n,); centres, starts and ends (K, n, 2), or (1, n, 2)
    for every placement alike) at each of ``count`` placements, 0 for straight edges (radius 0)."""
    arcs = np.flatnonzero(radii != 0)
    out = np.zeros(centers.shape[:2])
    out[:, arcs] = _arc_span(centers[:, arcs], starts[:, arcs], ends[:, arcs], radii[arcs])
    return np.broadcast_to(out, (count,) + out.shape[1:]) if len(out) < count else out


def _frozen(array: np.ndarray) -> np.ndarray:
    """The array, made read-only: a shape's, shared by every call that reads it."""
    array.flags.writeable = False
    return array


def _edges(vertices: np.ndarray, following: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Edge starts, edge vectors and outward unit normals (material on the left)."""
    start = vertices
    vector = vertices[..., following, :] - vertices
    normal = np.stack([vector[..., 1], -vector[..., 0]], axis=-1)
    length = np.linalg.norm(normal, axis=-1, keepdims=True)
    return start, vector, normal / np.where(length > 0, length, 1.0)


def sorted_pairs(keys: np.ndarray, lows: np.ndarray, highs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Pairs (interval index, key index) with lows[i] <= keys[j] <= highs[i]; keys sorted
    ascending per row of ``lows`` (each row's keys are ``keys`` shifted by nothing)."""
    first = np.searchsorted(keys, lows, side="left")
    last = np.searchsorted(keys, highs, side="right")
    counts = np.maximum(last - first, 0).ravel()
    owner = np.repeat(np.arange(counts.size), counts)
    offsets = np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts)
    return owner, first.ravel()[owner] + offsets


def _take(values: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """``values[rows]`` along the first axis, by np.take: numpy's fancy and boolean indexing
    copy a short row (a point's two coordinates) at a time, tens of times slower."""
    return values.take(rows, axis=0)


def _at(values: np.ndarray, k: np.ndarray, i: np.ndarray) -> np.ndarray:
    """``values[k, i]`` of an array over placements (K, n, ...), by np.take (see :func:`_take`);
    of one that is the same at every placement (broadcast), its rows i."""
    if values.strides[0] == 0:
        return values[0].take(i, axis=0)
    return values.reshape((-1,) + values.shape[2:]).take(k * values.shape[1] + i, axis=0)


def _dot(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Dot products of points (..., 2), summed from zero as ``np.einsum`` sums them (the same
    numbers to the bit, its signed zeros too), without its cost on pairs."""
    out = 0.0 + p[..., 0] * q[..., 0]
    out += p[..., 1] * q[..., 1]
    return out


def _scaled(v: np.ndarray, d: np.ndarray) -> np.ndarray:
    """Each point (n, 2) times its number: ``v[:, None] * d``, a column at a time."""
    return np.stack([v * d[:, 0], v * d[:, 1]], axis=-1)


def _rotated(vectors: np.ndarray, c: np.ndarray, s: np.ndarray) -> np.ndarray:
    """Vectors (n, 2) turned by the angles whose cosines and sines are ``c`` and ``s``."""
    x, y = vectors[:, 0], vectors[:, 1]
    return np.stack([c * x - s * y, s * x + c * y], axis=-1)


def _fraction(f: _Sides, k: np.ndarray, e: np.ndarray, point: np.ndarray) -> np.ndarray:
    """Where contact points lie along their edges e: a fraction of each, of its angle for an arc."""
    start, vector = _at(f.e0, k, e), _at(f.ev, k, e)
    t = _dot(point - start, vector) / _dot(vector, vector)
    curved = np.flatnonzero(f.er[e] != 0)
    if len(curved):
        t[curved] = _arc_fractions(f, k[curved], e[curved], _take(point, curved))
    return t


def _arc_fractions(f: _Sides, k: np.ndarray, e: np.ndarray, point: np.ndarray) -> np.ndarray:
    """Where contact points lie along their arc edges e, as a fraction of each one's angle."""
    return _arc_fraction(point, _at(f.ec, k, e), _at(f.e0, k, e), _at(f.edge_spans, k, e), f.er[e])


def _normal(f: _Sides, k: np.ndarray, e: np.ndarray, point: np.ndarray) -> np.ndarray:
    """Edges e's outward unit normals at contact points on them."""
    normal = _at(f.en, k, e)
    curved = np.flatnonzero(f.er[e] != 0)
    if len(curved):
        radial = _take(point, curved) - _at(f.ec, k[curved], e[curved])
        sign = np.sign(f.er[e[curved]])
        length = np.hypot(radial[:, 0], radial[:, 1])
        normal[curved] = np.stack([sign * radial[:, 0] / length, sign * radial[:, 1] / length], axis=-1)
    return normal


def _arc_fraction(point: np.ndarray, center: np.ndarray, start: np.ndarray, span: np.ndarray,
                  radius: np.ndarray) -> np.ndarray:
    """Where a point's direction from an arc's centre lies along the arc (from ``start``, its
    sweep ``span``: :func:`_arc_span`), as a fraction of its sweep (negative or above one:
    outside it). The arithmetic is compiled (:mod:`cspace.kernels.arc_fractions`) around
    numpy's ``arctan2``, as :func:`_plain_arc_fraction` has it all in numpy."""
    cross, dot = angle_terms(point, center, start)
    return fractions(np.arctan2(cross, dot), radius, span)


def _plain_arc_fraction(point: np.ndarray, center: np.ndarray, start: np.ndarray, span: np.ndarray,
                        radius: np.ndarray) -> np.ndarray:
    """:func:`_arc_fraction` in numpy alone."""
    at = _arc_angle(start - center, point - center, radius)
    at = np.where(at > span / 2 + math.pi, at - TURN, at)
    return at / np.where(span > 0, span, 1.0)


def _arc_span(center: np.ndarray, start: np.ndarray, end: np.ndarray, radius: np.ndarray) -> np.ndarray:
    """An arc's sweep from its start to its end, the way it turns (its radius' sign), in [0, 2 pi)."""
    return _arc_angle(start - center, end - center, radius)


def _arc_angle(p: np.ndarray, q: np.ndarray, radius: np.ndarray) -> np.ndarray:
    """The angle from direction p to q, counterclockwise for a positive radius, in [0, 2 pi)."""
    return (np.sign(radius) * np.arctan2(_cross(p, q), _dot(p, q))) % TURN


def _sides(f: _Sides, k: np.ndarray, e: np.ndarray, m: np.ndarray, point: np.ndarray,
           motion: Callable[[np.ndarray], np.ndarray]) -> list[np.ndarray]:
    """Mover vertex m on edge e at ``point``: on which side of the edge each of the vertex's
    two edges leaves it (``motion`` turns the mover's directions to where it is), which tells
    whether each starts or stops crossing the edge."""
    normal = _normal(f, k, e, point)
    return [_dot(normal, motion(_at(direction, k, m))) for direction in (f.back, f.ahead)]


def _translation_roots(f: _Sides, d: np.ndarray) -> _Roots:
    """Mover vertices meeting edges, moving along ``d`` (kind 0) or against it (kind 1).

    Each candidate's arithmetic against a straight edge is compiled
    (:func:`cspace.kernels.turning_roots.moved_points` and ``classified``), as
    :func:`_plain_translation_roots` has it in numpy: the same roots to the bit. That one
    settles the rare call where a flat side must be measured against every candidate's sides."""
    direction = d if f.kind == 0 else -d
    low, high, span = _across(f, d)
    side = np.stack([-d[:, 1], d[:, 0]], axis=1)                               # across the motion
    k_, e_, m_ = candidate_triples(_dot(f.movers, side[:, None, :]), low - span, high + span)
    found = []
    straight = f.er[e_] == 0
    if straight.any():
        rows = np.flatnonzero(straight)
        k, e, m = k_[rows], e_[rows], m_[rows]
        v, point, t, entering, grazing = moved_points(k, e, m, f.movers, direction, f.en, f.e0, f.ev)
        settled = classified(t, point, np.arange(len(k)), k, e, m, t, t, False, entering, grazing, f.en, f.ec, f.er,
                             f.back, f.ahead, ENDS, 1e-9 * (SIDE_BOUND + 1e-300))
        if settled is None:
            return _plain_translation_roots(f, d)
        on, change, degenerate = settled
        found.append(_Roots(k[on], v[on], f.vertex_feature(e[on], m[on], 0), change, degenerate))
    if not straight.all():
        found.append(_arc_translation_roots(f, direction, k_, e_, m_, np.flatnonzero(~straight)))
    return _concat(found) if found else _no_roots()


def _plain_translation_roots(f: _Sides, d: np.ndarray) -> _Roots:
    """:func:`_translation_roots` in numpy alone."""
    direction = d if f.kind == 0 else -d
    low, high, span = _across(f, d)
    side = np.stack([-d[:, 1], d[:, 0]], axis=1)                               # across the motion
    k_, e_, m_ = candidate_triples(_dot(f.movers, side[:, None, :]), low - span, high + span)
    w = _at(f.movers, k_, m_)
    dk = _take(direction, k_)
    found = []
    straight = f.er[e_] == 0
    if straight.any():
        rows = np.flatnonzero(straight)
        k, e, m, p, dp = k_[rows], e_[rows], m_[rows], _take(w, rows), _take(dk, rows)
        n = _at(f.en, k, e)
        rate = _dot(n, dp)
        moving = np.abs(rate) > 1e-12
        v = np.where(moving, _dot(n, _at(f.e0, k, e) - p) / np.where(moving, rate, 1.0), 0.0)
        point = p + _scaled(v, dp)
        on, change, degenerate = _classify(
            _fraction(f, k, e, point), rate < 0, ~moving,
            lambda at: _sides(f, k[at], e[at], m[at], _take(point, at), _still),
            lambda: _sides(f, k, e, m, point, _still))
        found.append(_Roots(k[on], v[on], f.vertex_feature(e[on], m[on], 0), change, degenerate))
    if not straight.all():
        found.append(_arc_translation_roots(f, direction, k_, e_, m_, np.flatnonzero(~straight)))
    return _concat(found) if found else _no_roots()


def _arc_translation_roots(f: _Sides, direction: np.ndarray, k_: np.ndarray, e_: np.ndarray, m_: np.ndarray,
                           rows: np.ndarray) -> _Roots:
    """The candidates ``rows`` (mover vertices against arc edges) met moving along
    ``direction``: where the vertex reaches the arc's circle, two roots each."""
    found = []
    k, e, m = k_[rows], e_[rows], m_[rows]
    p, dc = _at(f.movers, k, m), _take(direction, k)
    rel = p - _at(f.ec, k, e)
    rho = np.abs(f.er[e])
    b = _dot(dc, rel)
    disc = b * b - (_dot(rel, rel) - rho * rho)
    real = np.flatnonzero(disc >= -1e-9 * rho * rho)
    root_ = np.sqrt(np.maximum(disc, 0.0))
    tie = np.abs(disc) <= 1e-9 * rho * rho
    kr, er, mr, pr, dr = k[real], e[real], m[real], _take(p, real), _take(dc, real)
    for root, v in ((0, -b - root_), (1, -b + root_)):
        point = pr + _scaled(v[real], dr)
        entering = (f.er[er] > 0) == (root == 0)
        on, change, degenerate = _classify(
            _fraction(f, kr, er, point), entering, tie[real],
            lambda at: _sides(f, kr[at], er[at], mr[at], _take(point, at), _still),
            lambda: _sides(f, k, e, m, p + _scaled(v, dc), _still))
        rows = real[on]
        found.append(_Roots(k[rows], v[rows], f.vertex_feature(e[rows], m[rows], root), change, degenerate))
    return _concat(found)


def _across(f: _Sides, d: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
    """How far across the motion ``d`` each edge reaches, least and most (K, ne) (an arc's
    whole circle), and a margin for rounding."""
    side = np.stack([-d[:, 1], d[:, 0]], axis=1)[:, None, :]
    first, second = _dot(f.e0, side), _dot(f.e0 + f.ev, side)
    low, high = np.minimum(first, second), np.maximum(first, second)
    curved = f.er != 0
    if curved.any():
        middle = _dot(f.ec[:, curved], side)
        low[:, curved], high[:, curved] = middle - np.abs(f.er[curved]), middle + np.abs(f.er[curved])
    span = max(np.abs(first).max(initial=0.0), np.abs(second).max(initial=0.0)) * 1e-12 + 1e-300
    return low, high, span


def _no_roots() -> _Roots:
    empty = np.zeros(0)
    return _Roots(empty.astype(int), empty, empty.astype(np.int64), empty.astype(int), empty.astype(bool))


def _rotation_roots(f: _Sides, center: np.ndarray, sign: int, near: np.ndarray, far: np.ndarray) -> _Roots:
    """Mover vertices meeting edges, turning by ``sign * v`` about ``center`` (kind 0) or by
    ``-sign * v`` (kind 1), the edges ``near`` to ``far`` from it (:func:`_distance_range`).
    Each contact is where ``alpha cos phi + beta sin phi = gamma`` (phi the turn): on a
    straight edge the vertex is on its line, on an arc at its radius.

    Each candidate's arithmetic is compiled (:mod:`cspace.kernels.turning_roots`), the roots'
    trigonometry numpy's, as :func:`_plain_rotation_roots` has it all in numpy: the same
    roots to the bit. That one settles the rare call where a flat side must be measured
    against every candidate's sides."""
    turn = sign if f.kind == 0 else -sign
    arm = _from(f.movers, center)
    radius = np.hypot(arm[..., 0], arm[..., 1])                                    # (K, nm)
    k_, e_, m_ = candidate_triples(radius, near * (1 - 1e-9), far * (1 + 1e-9))
    if not len(k_):
        return _no_roots()
    roots = _solved(*sinusoid_terms(k_, e_, m_, f.movers, center, f.en, f.e0, f.ec, f.er))
    reach = np.flatnonzero(roots.reach)
    grazing = roots.grazing.view(np.uint8)
    curved = np.flatnonzero(f.er[e_[reach]] != 0)
    found = []
    for root, phi in enumerate(roots.phi):
        c, s = np.cos(phi[reach]), np.sin(phi[reach])
        point, t = turned_points(reach, k_, e_, m_, c, s, f.movers, center, f.e0, f.ev, f.er)
        if len(curved):
            t[curved] = _arc_fractions(f, k_[reach[curved]], e_[reach[curved]], _take(point, curved))
        entering = ((root == 1) == (turn > 0)) == (f.er[e_[reach]] >= 0)
        settled = classified(t, point, reach, k_, e_, m_, c, s, True, entering.view(np.uint8), grazing[reach], f.en,
                             f.ec, f.er, f.back, f.ahead, ENDS, 1e-9 * (SIDE_BOUND + 1e-300))
        if settled is None:
            return _plain_rotation_roots(f, center, sign, near, far)
        on, change, degenerate = settled
        rows = reach[on]
        found.append(_Roots(k_[rows], wrapped_angles(phi[rows] * turn), f.vertex_feature(e_[rows], m_[rows], root),
                            change, degenerate))
    return _concat(found)


def _plain_rotation_roots(f: _Sides, center: np.ndarray, sign: int, near: np.ndarray, far: np.ndarray) -> _Roots:
    """:func:`_rotation_roots` in numpy alone."""
    turn = sign if f.kind == 0 else -sign
    arm = _from(f.movers, center)
    radius = np.hypot(arm[..., 0], arm[..., 1])                                    # (K, nm)
    k_, e_, m_ = candidate_triples(radius, near * (1 - 1e-9), far * (1 + 1e-9))
    if not len(k_):
        return _no_roots()
    w = _at(arm, k_, m_)
    origin = _take(center, k_)
    curved = f.er[e_] != 0
    normal = _at(f.en, k_, e_)
    u = _where(curved, origin - _at(f.ec, k_, e_), normal)
    rho = np.abs(f.er[e_])
    gamma = np.where(curved, (rho * rho - _dot(u, u) - _dot(w, w)) / 2, _dot(normal, _at(f.e0, k_, e_) - origin))
    roots = _sinusoid_roots(u, w, gamma)
    reach = np.flatnonzero(roots.reach)
    k, e, m = k_[reach], e_[reach], m_[reach]
    found = []
    for root, phi in enumerate(roots.phi):
        c, s = np.cos(phi[reach]), np.sin(phi[reach])
        point = _take(origin, reach) + _rotated(_take(w, reach), c, s)
        # As phi grows the vertex leaves the edge's inner side (or an arc's circle, convex
        # side inward) at the first root and comes back at the second; v runs with phi or
        # against it; a concave arc's material is outside its circle.
        entering = ((root == 1) == (turn > 0)) == (f.er[e] >= 0)
        on, change, degenerate = _classify(
            _fraction(f, k, e, point), entering, roots.grazing[reach],
            lambda at: _sides(f, k[at], e[at], m[at], _take(point, at), lambda x: _rotated(x, c[at], s[at])),
            lambda: _sides(f, k_, e_, m_, origin + _turned(w, phi), lambda x: _turned(x, phi)))
        rows = reach[on]
        found.append(_Roots(k_[rows], wrapped_angles(phi[rows] * turn), f.vertex_feature(e_[rows], m_[rows], root),
                            change, degenerate))
    return _concat(found)


def _from(points: np.ndarray, center: np.ndarray) -> np.ndarray:
    """Points over placements (K, n, 2) less each placement's centre (K, 2), a column at a time."""
    return np.stack([points[..., 0] - center[:, None, 0], points[..., 1] - center[:, None, 1]], axis=-1)


def _where(condition: np.ndarray, yes: np.ndarray, no: np.ndarray) -> np.ndarray:
    """``np.where(condition[:, None], yes, no)`` for points (n, 2), a column at a time."""
    return np.stack([np.where(condition, yes[:, 0], no[:, 0]), np.where(condition, yes[:, 1], no[:, 1])], axis=-1)


@dataclass(frozen=True)
class _Sinusoid:
    """Roots of ``alpha cos phi + beta sin phi = gamma`` with ``alpha = u . w`` and ``beta =
    u x w`` (that is ``u . R(phi) w = gamma``): the two roots, whether they exist, whether
    they nearly coincide (a graze)."""

    phi: tuple[np.ndarray, np.ndarray]
    reach: np.ndarray
    grazing: np.ndarray


def _sinusoid_roots(u: np.ndarray, w: np.ndarray, gamma: np.ndarray) -> _Sinusoid:
    alpha = u[:, 0] * w[:, 0] + u[:, 1] * w[:, 1]
    beta = u[:, 1] * w[:, 0] - u[:, 0] * w[:, 1]
    return _solved(alpha, beta, gamma)


def _solved(alpha: np.ndarray, beta: np.ndarray, gamma: np.ndarray) -> _Sinusoid:
    """The roots of ``alpha cos phi + beta sin phi = gamma``."""
    r = np.hypot(alpha, beta)
    spread = np.arccos(np.clip(gamma / np.where(r > 0, r, 1.0), -1.0, 1.0))
    base = np.arctan2(beta, alpha)
    return _Sinusoid((base - spread, base + spread), np.abs(gamma) <= r * (1 + 1e-9),
                     np.abs(np.abs(gamma) - r) <= 1e-9 * r)


def _rotation_tangencies(f: _Sides, center: np.ndarray, sign: int, near: np.ndarray, far: np.ndarray) -> _Roots:
    """Mover arcs tangent to edges as they turn: a mover arc's centre at its radius from a
    straight edge's line, or at the sum or difference of the radii from an arc's centre
    (arc against arc once, in kind 0), the edges ``near`` to ``far`` from the centre. Each
    tangency inside both edges adds or removes two crossings of the outlines.

    Each candidate's arithmetic is compiled (:mod:`cspace.kernels.turning_tangencies`), the
    roots' trigonometry and the arcs' angles numpy's, as :func:`_plain_rotation_tangencies`
    has it all in numpy: the same tangencies to the bit."""
    if not len(f.mover_arcs):
        return _no_roots()
    turn = sign if f.kind == 0 else -sign
    arm = _from(f.mover_centers, center)                                           # (K, arcs, 2)
    k_, e_, j_ = _arc_candidates(f, np.hypot(arm[..., 0], arm[..., 1]), near, far)
    if not len(k_):
        return _no_roots()
    alpha, beta, gamma, apart = tangency_terms(k_, e_, j_, arm, center, f.en, f.e0, f.ec, f.er, f.mover_radii)
    found = []
    for which in (0, 1):
        roots = _solved(alpha, beta, gamma[:, which])
        valid = np.flatnonzero(roots.reach & ~apart[:, which])
        curved = np.flatnonzero(f.er[e_[valid]] != 0)
        for root, phi in enumerate(roots.phi):
            turned = phi[valid]
            moved, touch, t_edge = tangent_points(valid, k_, e_, j_, np.cos(turned), np.sin(turned), arm, center,
                                                  f.en, f.e0, f.ev, f.ec, f.er, f.mover_radii, which)
            if len(curved):
                t_edge[curved] = _arc_fractions(f, k_[valid[curved]], e_[valid[curved]], _take(touch, curved))
            rows, degenerate = _inside(f, valid, k_, j_, t_edge,
                                       lambda on: _turned(_take(touch, on) - _take(moved, on), -turned[on]),
                                       roots.grazing)
            entering = ((root == 1) == (turn > 0)) == (which == 0)
            found.append(_Roots(k_[rows], wrapped_angles(phi[rows] * turn),
                                f.tangency_feature(e_[rows], f.mover_arcs[j_[rows]], which, root),
                                np.full(len(rows), 2 if entering else -2), degenerate))
    return _concat(found)


def _plain_rotation_tangencies(f: _Sides, center: np.ndarray, sign: int, near: np.ndarray,
                               far: np.ndarray) -> _Roots:
    """:func:`_rotation_tangencies` in numpy alone."""
    if not len(f.mover_arcs):
        return _no_roots()
    turn = sign if f.kind == 0 else -sign
    arm = _from(f.mover_centers, center)                                           # (K, arcs, 2)
    k_, e_, j_ = _arc_candidates(f, np.hypot(arm[..., 0], arm[..., 1]), near, far)
    if not len(k_):
        return _no_roots()
    u, w, gamma, apart = _plain_tangency_terms(f, arm, center, k_, e_, j_)
    origin = _take(center, k_)
    rho_b = np.abs(f.mover_radii[j_])
    found = []
    for which in (0, 1):
        roots = _sinusoid_roots(u, w, gamma[:, which])
        valid = np.flatnonzero(roots.reach & ~apart[:, which])
        for root, phi in enumerate(roots.phi):
            turned = phi[valid]
            moved = _take(origin, valid) + _turned(_take(w, valid), turned)      # the mover arc's centre
            touch = _touch_point(f, k_[valid], e_[valid], moved, rho_b[valid], which)
            rows, degenerate = _tangent(f, valid, k_, e_, j_, touch,
                                        lambda on: _turned(_take(touch, on) - _take(moved, on), -turned[on]),
                                        roots.grazing)
            # Crossings appear where the centre comes within reach: towards the line
            # (which 0), away from it (1); within the sum of the radii, or beyond their
            # difference. Growing phi moves it away at the first root.
            entering = ((root == 1) == (turn > 0)) == (which == 0)
            found.append(_Roots(k_[rows], wrapped_angles(phi[rows] * turn),
                                f.tangency_feature(e_[rows], f.mover_arcs[j_[rows]], which, root),
                                np.full(len(rows), 2 if entering else -2), degenerate))
    return _concat(found)


def _plain_tangency_terms(f: _Sides, arm: np.ndarray, center: np.ndarray, k_: np.ndarray, e_: np.ndarray,
                          j_: np.ndarray) -> tuple[np.ndarray, ...]:
    """Of candidate tangencies (placement k_, edge e_, mover arc j_ whose centre is ``arm``
    from the turn's centre), ``u`` and ``w`` of ``u . R(phi) w = gamma`` (:func:`_sinusoid_roots`),
    gamma for each tangency (n, 2) and whether an arc edge's tangency has no difference of
    radii to be at (n, 2): :func:`cspace.kernels.turning_tangencies.tangency_terms` in numpy."""
    curved = f.er[e_] != 0
    w = _at(arm, k_, j_)
    origin = _take(center, k_)
    rho_a, rho_b = np.abs(f.er[e_]), np.abs(f.mover_radii[j_])
    normal = _at(f.en, k_, e_)
    u = _where(curved, origin - _at(f.ec, k_, e_), normal)
    line = _dot(normal, _at(f.e0, k_, e_) - origin)
    gammas, apart = [], []
    for which in (0, 1):
        # straight: the centre at +rho (which 0) or -rho (1) from the line; arc: at the
        # sum of the radii (0) or their difference (1) from its centre.
        reach_ab = rho_a + rho_b if which == 0 else np.abs(rho_a - rho_b)
        offset = line + (rho_b if which == 0 else -rho_b)
        gammas.append(np.where(curved, (reach_ab ** 2 - _dot(u, u) - _dot(w, w)) / 2, offset))
        apart.append(curved & (reach_ab <= 1e-12 * rho_b))
    return u, w, np.stack(gammas, axis=1), np.stack(apart, axis=1)


def _arc_candidates(f: _Sides, keys: np.ndarray, lows: np.ndarray,
                    highs: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(placement, edge, mover arc) triples whose arc, at its radius about its key (K, arcs),
    may reach the edge's [low, high]: the arcs grouped by radius, each group culled at once.
    Kind 1 meets straight edges only (arc against arc is found once, in kind 0)."""
    if f.kind == 1:
        lows, highs = lows.copy(), highs.copy()
        lows[:, f.er != 0], highs[:, f.er != 0] = np.inf, -np.inf
    radii = np.abs(f.mover_radii)
    ks, es, js = [], [], []
    for radius in np.unique(radii):
        group = np.flatnonzero(radii == radius)
        k, e, m = candidate_triples(keys[:, group], (lows - radius) * (1 - 1e-9), (highs + radius) * (1 + 1e-9))
        ks.append(k)
        es.append(e)
        js.append(group[m])
    return tuple(np.concatenate(x) if x else np.zeros(0, int) for x in (ks, es, js))


def _mover_fraction(f: _Sides, k: np.ndarray, j: np.ndarray, direction: np.ndarray) -> np.ndarray:
    """Where a direction from a mover arc's centre (in the mover's placed frame) lies along it."""
    center, start = _at(f.mover_centers, k, j), _at(f.mover_ends[:, :, 0], k, j)
    return _arc_fraction(direction, np.zeros_like(direction), start - center, _at(f.mover_spans, k, j),
                         f.mover_radii[j])


def _touch_point(f: _Sides, k: np.ndarray, e: np.ndarray, moved: np.ndarray, rho_b: np.ndarray, which: int) -> np.ndarray:
    """Where a mover arc (centre ``moved``, radius ``rho_b``) touches edge e at a tangency:
    the foot of its centre on a straight edge's line; on the line of centres for an arc."""
    out = moved - _scaled(rho_b if which == 0 else -rho_b, _at(f.en, k, e))
    curved = np.flatnonzero(f.er[e] != 0)
    if len(curved):
        center = _at(f.ec, k[curved], e[curved])
        rho_a = np.abs(f.er[e[curved]])
        away = _take(moved, curved) - center
        length = np.hypot(away[:, 0], away[:, 1])
        length = np.where(length > 0, length, 1.0)
        away = np.stack([away[:, 0] / length, away[:, 1] / length], axis=-1)
        outward = np.where((which == 0) | (rho_a >= rho_b[curved]), 1.0, -1.0)
        out[curved] = center + _scaled(outward * rho_a, away)
    return out


def _translation_tangencies(f: _Sides, d: np.ndarray) -> _Roots:
    """Mover arcs tangent to edges as they move along ``d`` (kind 0) or against it (kind 1):
    linear in the distance against a straight edge, quadratic against an arc (arc against
    arc once, in kind 0)."""
    if not len(f.mover_arcs):
        return _no_roots()
    direction = d if f.kind == 0 else -d
    low, high, span = _across(f, d)
    side = np.stack([-d[:, 1], d[:, 0]], axis=1)                               # across the motion
    k_, e_, j_ = _arc_candidates(f, _dot(f.mover_centers, side[:, None, :]), low - span, high + span)
    if not len(k_):
        return _no_roots()
    curved = f.er[e_] != 0
    c0 = _at(f.mover_centers, k_, j_)
    dk = _take(direction, k_)
    rho_a, rho_b = np.abs(f.er[e_]), np.abs(f.mover_radii[j_])
    n = _at(f.en, k_, e_)
    rate = _dot(n, dk)
    moving = np.abs(rate) > 1e-12
    rel = c0 - _at(f.ec, k_, e_)
    b = _dot(dk, rel)
    line = _dot(n, c0 - _at(f.e0, k_, e_))
    found = []
    for which in (0, 1):
        # straight: v solves n . (c0 + v d - e0) = +-rho; arc: |c0 + v d - ca| = ra +- rb.
        linear = ((rho_b if which == 0 else -rho_b) - line) / np.where(moving, rate, 1.0)
        reach_ab = rho_a + rho_b if which == 0 else np.abs(rho_a - rho_b)
        disc = b * b - (_dot(rel, rel) - reach_ab ** 2)
        scale = np.maximum(reach_ab, rho_b) ** 2
        tie = curved & (np.abs(disc) <= 1e-9 * scale)
        real = np.where(curved, (disc >= -1e-9 * scale) & (reach_ab > 1e-12 * rho_b), moving)
        spread = np.sqrt(np.maximum(np.nan_to_num(disc), 0.0))
        for root in (0, 1):
            if root == 0:
                v = np.where(curved, -b - spread, linear)
                keep = np.flatnonzero(real)
                # Towards the line (which 0: rate < 0) or away from it (1); into the sum
                # of the radii (the nearer root), or out past their difference (the farther).
                entering = np.where(curved, which == 0, (rate < 0) == (which == 0))
            else:
                v = -b + spread
                keep = np.flatnonzero(real & curved)
                entering = np.full(len(k_), which == 1)
            along = v[keep]
            moved = _take(c0, keep) + _scaled(np.where(np.isfinite(along), along, 0.0), _take(dk, keep))
            touch = _touch_point(f, k_[keep], e_[keep], moved, rho_b[keep], which)
            rows, degenerate = _tangent(f, keep, k_, e_, j_, touch, lambda on: _take(touch, on) - _take(moved, on),
                                        tie)
            found.append(_Roots(k_[rows], v[rows], f.tangency_feature(e_[rows], f.mover_arcs[j_[rows]], which, root),
                                np.where(entering[rows], 2, -2), degenerate))
    return _concat(found)


def _tangent(f: _Sides, rows: np.ndarray, k: np.ndarray, e: np.ndarray, j: np.ndarray, touch: np.ndarray,
             direction: Callable[[np.ndarray], np.ndarray], tie: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Of the candidate tangencies ``rows`` (edge e and mover arc j at placement k, touching at
    ``touch``), those inside both edges, where two crossings of the outlines appear or go, and
    whether each is degenerate: at an end of either edge, or a graze (``tie``; see
    :func:`_classify`). ``direction(on)`` is the touching point's direction from the mover
    arc's centre, in its placed frame, for the rows ``rows[on]``."""
    return _inside(f, rows, k, j, _fraction(f, k[rows], e[rows], touch), direction, tie)


def _inside(f: _Sides, rows: np.ndarray, k: np.ndarray, j: np.ndarray, t_edge: np.ndarray,
            direction: Callable[[np.ndarray], np.ndarray], tie: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_tangent` of tangencies ``t_edge`` along their edges (:func:`_fraction`)."""
    on = np.flatnonzero(_on_edge(t_edge))
    t_arc = _mover_fraction(f, k[rows[on]], j[rows[on]], direction(on))
    inside = np.flatnonzero(_on_edge(t_arc))
    on = on[inside]
    rows = rows[on]
    return rows, _at_end(t_edge[on]) | _at_end(t_arc[inside]) | tie[rows]


def _on_edge(t: np.ndarray) -> np.ndarray:
    """Is a contact on its edge (``t`` along it, within ENDS of it)?"""
    return (t >= -ENDS) & (t <= 1 + ENDS)


def _at_end(t: np.ndarray) -> np.ndarray:
    """Is a contact at an end of its edge (``t`` along it)?"""
    return (np.abs(t) <= ENDS) | (np.abs(t - 1) <= ENDS)


def candidate_triples(keys: np.ndarray, lows: np.ndarray, highs: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(placement, edge, vertex) triples whose vertex key lies in the edge's [low, high]: by
    placement, edge, then key (:func:`cspace.kernels.ranges.keys_in_ranges`)."""
    order = np.argsort(keys, axis=1)
    ordered = np.take_along_axis(keys, order, 1)
    # An edge whose range is empty (or not a number) at every placement has no triple: left out.
    edges = np.flatnonzero((lows <= highs).any(axis=0))
    lows, highs = lows[:, edges], highs[:, edges]
    return keys_in_ranges(np.ascontiguousarray(ordered, float), np.ascontiguousarray(order, np.intp),
                          np.ascontiguousarray(lows, float), np.ascontiguousarray(highs, float), edges)


def _classify(t: np.ndarray, entering: np.ndarray, tie: np.ndarray, sides: Callable[[np.ndarray], list[np.ndarray]],
              every: Callable[[], list[np.ndarray]]) -> tuple[np.ndarray, ...]:
    """Of candidate roots whose contacts lie ``t`` along their edges, those on the edge
    (their positions), with the count's change there and whether they are degenerate: (on,
    change, degenerate). A root at an edge's end, with a neighbouring vertex on the edge's
    line (a flat side: :func:`_flat`), or where the vertex only grazes the line (``tie``), is
    *degenerate*: its change depends on more than the one contact, so its placement is
    settled by direct overlap tests instead. ``sides(on)`` are the sides (:func:`_sides`) of
    the candidates at positions ``on``; ``every()`` those of every candidate root the
    candidates were found among (see :func:`_flat`)."""
    on = np.flatnonzero(_on_edge(t))
    t = t[on]
    kept = sides(on)
    flat = _flat(kept, every)
    entering = entering[on]
    before = np.where(entering, 1.0, -1.0)
    crossing = sum(np.where(np.sign(s) == before, 1, -1) for s in kept)
    change = np.where(entering, 1, -1) + crossing
    return on, change, _at_end(t) | flat | tie[on]


def _flat(sides: list[np.ndarray], every: Callable[[], list[np.ndarray]]) -> np.ndarray:
    """Which of the kept roots have a side (:func:`_sides`) within 1e-9 of the largest side of
    every candidate root, kept or not: the scale a flat side is measured against.

    The sides are products of unit vectors, at most SIDE_BOUND, and the candidates' largest
    is at least the kept ones': a side at most 1e-9 of the kept ones' largest is flat, one
    above 1e-9 of the bound is not. Only a side in between needs ``every()`` candidate's
    sides (a rare case, and the costly one: most candidates are not kept)."""
    def scale(found: list[np.ndarray]) -> float:
        return 1e-9 * (np.abs(np.concatenate(found)).max(initial=0.0) + 1e-300)

    size = np.abs(np.concatenate(sides))
    threshold = scale(sides)
    if ((size > threshold) & (size <= 1e-9 * (SIDE_BOUND + 1e-300))).any():
        threshold = scale(every())
    flat = np.zeros(len(sides[0]), bool)
    for s in sides:
        flat |= np.abs(s) <= threshold
    return flat


def _still(directions: np.ndarray) -> np.ndarray:
    """A translating mover's directions, as they are."""
    return directions


def _cross(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    return p[..., 0] * q[..., 1] - p[..., 1] * q[..., 0]


def _distance_range(e0: np.ndarray, ev: np.ndarray, ec: np.ndarray, er: np.ndarray,
                    center: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Least and greatest distance of each edge from the centre (K, ne); for an arc, of its
    whole circle (at most a quarter of which it is)."""
    rel = _from(e0, center)
    length2 = _dot(ev, ev)
    t = np.clip(-_dot(rel, ev) / np.where(length2 > 0, length2, 1.0), 0.0, 1.0)
    closest_x, closest_y = rel[..., 0] + t * ev[..., 0], rel[..., 1] + t * ev[..., 1]
    near = np.hypot(closest_x, closest_y)
    far = np.maximum(np.hypot(rel[..., 0], rel[..., 1]), np.hypot(rel[..., 0] + ev[..., 0], rel[..., 1] + ev[..., 1]))
    curved = er != 0
    if curved.any():
        rho = np.abs(er[curved])
        middle = _from(ec[:, curved], center)
        middle = np.hypot(middle[..., 0], middle[..., 1])
        near[:, curved] = np.maximum(middle - rho, 0.0)
        far[:, curved] = middle + rho
    return near, far


def wrapped_angles(v: np.ndarray) -> np.ndarray:
    """Angles into [-pi, pi)."""
    return (v + math.pi) % TURN - math.pi


def placement_order(k: np.ndarray, v: np.ndarray, then: np.ndarray | None = None,
                    plain: np.ndarray | None = None) -> np.ndarray:
    """The order ``np.lexsort((then, v, k))`` gives (``(v, k)`` without ``then``): by placement,
    then value, then ``then``, equals as they come. numpy's lexsort is several times slower
    at these sizes than what is done here: a quicksort on the value, a stable sort on the
    placement (a radix sort where it fits 16 bits), and the rare runs of equal placement
    and value put in order by what follows. ``plain``, the order without ``then`` if
    known, saves the sorts: only its runs of equals are put in order again."""
    if plain is not None:
        order = plain.copy()
    else:
        order = np.argsort(v)
        key = k[order]
        if len(key) and 0 <= key.min() and key.max() < 2 ** 15:
            key = key.astype(np.int16)
        order = order[np.argsort(key, kind="stable")]
    same_k, values = k[order], v[order]
    equal = (same_k[1:] == same_k[:-1]) & ((values[1:] == values[:-1]) | (np.isnan(values[1:]) & np.isnan(values[:-1])))
    if equal.any():
        edges = np.flatnonzero(np.diff(np.concatenate([[0], equal.astype(np.int8), [0]])))
        for start, stop in zip(edges[0::2].tolist(), (edges[1::2] + 1).tolist()):
            run = order[start:stop]
            order[start:stop] = run[np.lexsort((run, then[run])) if then is not None else np.argsort(run)]
    return order


def start_values(roots: _Roots, K: int) -> np.ndarray:
    """Per placement, a value of ``v`` half way across the widest gap between its roots
    (the first widest, going round from the lowest root), for every placement at once."""
    order = roots.by_placement
    k, v = roots.k[order], roots.v[order]
    start = np.zeros(K)
    if not len(k):
        return start
    bounds = np.searchsorted(k, np.arange(K + 1))
    index = np.arange(len(k))
    first, last = bounds[:-1][k], bounds[1:][k] - 1
    gaps = np.where(index == last, v[first] + TURN, v[np.minimum(index + 1, len(k) - 1)]) - v
    groups = np.flatnonzero(bounds[1:] > bounds[:-1])
    widest = np.maximum.reduceat(gaps, bounds[groups])
    g = np.minimum.reduceat(np.where(gaps == widest[np.searchsorted(groups, k)], index, len(k)), bounds[groups])
    start[groups] = wrapped_angles(v[g] + gaps[g] / 2)
    return start


def blocked_intervals(roots: _Roots, K: int, start: np.ndarray, cyclic: bool, overlaps) -> Intervals:
    """Blocked intervals from the roots per placement: the count is followed through the
    roots in order, from a start value (far below for a translation), and is positive
    where the parts overlap (``overlaps(k, values)`` tells directly, see :func:`_levels`).
    Roots at one value act together: their changes add up, and the first feature there
    (in feature order) names the contact. Translations whose count needs no direct test
    are settled for all placements at once (:func:`plain_runs`)."""
    k_all, v_all, f_all, c_all, d_all = _merged(roots)
    bounds = np.searchsorted(k_all, np.arange(K + 1))
    found = [np.zeros((0, 5))]
    if cyclic:
        followed, runs = turned_runs(k_all, v_all, f_all, c_all, d_all, bounds, start, overlaps)
    else:
        followed, runs = plain_runs(k_all, v_all, f_all, c_all, d_all, bounds)
    found.append(runs)
    for k in np.flatnonzero(followed).tolist():
        v, f, c, odd = (x[bounds[k]:bounds[k + 1]] for x in (v_all, f_all, c_all, d_all))
        if cyclic and len(v):
            turn = int(np.searchsorted(v, start[k]))
            v = np.concatenate([v[turn:], v[:turn] + TURN])
            f, c, odd = (np.concatenate([x[turn:], x[:turn]]) for x in (f, c, odd))
        levels = _levels(v, c, odd, float(start[k]), cyclic, lambda x, k=k: overlaps(np.full(len(x), k), x))
        found.append(_placed(k, _runs(v, f, levels > 0, cyclic)))
    runs = np.concatenate(found)
    runs = runs[np.lexsort((runs[:, 1], runs[:, 0]))]
    placement = runs[:, 0].astype(np.int64)
    counts = np.bincount(placement, minlength=K)
    table = np.full((K, max(1, int(counts.max(initial=0))), 4), np.nan)
    table[placement, np.arange(len(runs)) - np.searchsorted(placement, placement)] = runs[:, 1:]
    features = np.where(np.isnan(table[..., 2:]), NO_FEATURE, table[..., 2:]).astype(np.int64)
    return Intervals(table[..., 0], table[..., 1], features[..., 0], features[..., 1], counts)


def _placed(k: int, runs: list[list]) -> np.ndarray:
    """One placement's runs as rows (placement, lo, hi, lo feature, hi feature)."""
    return np.column_stack([np.full(len(runs), k), np.array(runs, float).reshape(-1, 4)])


def turned_runs(k: np.ndarray, v: np.ndarray, f: np.ndarray, c: np.ndarray, odd: np.ndarray, bounds: np.ndarray,
                 start: np.ndarray, overlaps) -> tuple[np.ndarray, np.ndarray]:
    """A turn's blocked runs at every placement without a degenerate root, as
    :func:`_levels` and :func:`_runs` find them one at a time: the roots taken round from
    the start value, the count followed and anchored by one direct test where it is
    lowest (all placements' tests at once), each placement's runs then read off. Rows
    (placement, lo, hi, lo feature, hi feature), and which placements are left to follow
    one by one (a degenerate root, or a count whose ends disagree)."""
    K = len(bounds) - 1
    counts = np.diff(bounds)
    followed = np.zeros(K, bool)
    followed[k[odd]] = True
    first = bounds[:-1][k]
    below = v < start[k]
    turn = np.bincount(k[below], minlength=K)
    order = np.empty(len(k), int)
    order[first + (np.arange(len(k)) - first - turn[k]) % counts[k]] = np.arange(len(k))
    v, f, c = np.where(below, v + TURN, v)[order], f[order], c[order]
    total = np.cumsum(c)
    after = total - np.concatenate([[0], total])[bounds[:-1]][k]
    # The stretch where the count is lowest (the first such): before the first root (0)
    # unless the count dips below zero, then after the first root that takes it lowest.
    groups = np.flatnonzero(counts > 0)
    lowest = np.zeros(K, int)
    lowest[groups] = np.minimum(np.minimum.reduceat(after, bounds[groups]), 0)
    index = np.arange(len(k))
    dips = np.full(K, len(k))
    dips[groups] = np.minimum.reduceat(np.where(after == lowest[k], index, len(k)), bounds[groups])
    g = np.where(lowest < 0, dips - bounds[:-1] + 1, 0)
    # The probe inside that stretch (as _probes places it); a placement without roots, its start.
    probe = start.copy()
    before = (v[bounds[1:][groups] - 1] - TURN + v[bounds[:-1][groups]]) / 2
    probe[groups] = before
    inner = groups[(g[groups] > 0) & (g[groups] < counts[groups])]
    at = bounds[:-1][inner] + g[inner]
    probe[inner] = (v[at - 1] + v[at]) / 2
    whole = groups[g[groups] == counts[groups]]
    probe[whole] = before[np.searchsorted(groups, whole)] + TURN
    plain = np.flatnonzero(~followed)
    target = overlaps(plain, probe[plain]).astype(int)
    shift = np.zeros(K, int)
    shift[plain] = target - lowest[plain]
    last = np.zeros(K, int)
    last[groups] = after[bounds[1:][groups] - 1]
    followed[plain] = (shift[plain] > 0) != (last[plain] + shift[plain] > 0)
    return followed, _turned_rows(k, v, f, after, shift, bounds, ~followed)


def _turned_rows(k: np.ndarray, v: np.ndarray, f: np.ndarray, after: np.ndarray, shift: np.ndarray,
                 bounds: np.ndarray, read: np.ndarray) -> np.ndarray:
    """The runs of the placements ``read`` (their count the same before the first root and
    after the last, both outside or both inside), all at once, as :func:`_runs` reads them
    one at a time: the roots ``v`` taken round from the start value (``after``, the count
    after each, less ``shift``), a run from a root the count rises through to the next it
    falls through, one across the seam from the last rise to the first fall a turn on, a
    whole turn where the count never falls; each put in the turn from -pi. Rows (placement,
    lo, hi, lo feature, hi feature), in order."""
    K = len(bounds) - 1
    index = np.arange(len(k))
    inside = after + shift[k] > 0                                      # the stretch after each root
    before = np.where(index == bounds[:-1][k], shift[k] > 0, np.roll(inside, 1))
    rises = np.flatnonzero(read[k] & ~before & inside)
    falls = np.flatnonzero(read[k] & before & ~inside)
    wraps = read & (shift > 0)
    whole = wraps & (np.bincount(k[~inside], minlength=K) == 0)
    wraps &= ~whole
    # A placement has as many rises as falls, so the i-th rise and the i-th fall are the same
    # placement's. One that wraps falls first: each rise pairs with the next fall, its last
    # rise with its first fall, a turn on.
    first = np.searchsorted(falls, bounds[:-1][k[falls]])
    stop = np.searchsorted(falls, bounds[1:][k[falls]])
    ahead = np.arange(len(falls)) + 1
    across = wraps[k[falls]] & (ahead == stop)
    paired = np.where(wraps[k[falls]], np.where(across, first, ahead), ahead - 1)
    lo = v[rises]
    hi = v[falls[paired]] + np.where(across, TURN, 0.0)
    turned = TURN * np.floor((lo + math.pi) / TURN)
    round_ = hi - lo >= TURN - 1e-12
    rows = np.column_stack([k[rises], np.where(round_, -math.pi, lo - turned), np.where(round_, math.pi, hi - turned),
                            np.where(round_, NO_FEATURE, f[rises]), np.where(round_, NO_FEATURE, f[falls[paired]])])
    everywhere = np.flatnonzero(whole)
    rows = np.vstack([rows, np.column_stack([everywhere, np.full((len(everywhere), 2), [-math.pi, math.pi]),
                                             np.full((len(everywhere), 2), NO_FEATURE)])]).astype(float)
    return rows[np.lexsort(rows.T[::-1])]


def _merged(roots: _Roots) -> tuple[np.ndarray, ...]:
    """The roots by placement and value, those at one value of one placement made one:
    placement, value, first feature, summed change and whether any is degenerate."""
    order = placement_order(roots.k, roots.v, roots.feature, roots.by_placement)
    k, v, f, c, odd = (getattr(roots, name)[order] for name in ("k", "v", "feature", "change", "degenerate"))
    if not len(k):
        return k, v, f, c, odd
    first = np.flatnonzero(np.concatenate([[True], (k[1:] != k[:-1]) | (v[1:] != v[:-1])]))
    return k[first], v[first], f[first], np.add.reduceat(c, first), np.logical_or.reduceat(odd, first)


def plain_runs(k: np.ndarray, v: np.ndarray, f: np.ndarray, c: np.ndarray, odd: np.ndarray,
                bounds: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A translation's blocked runs at every placement whose count, followed from zero far
    below, never goes negative, comes back to zero and crosses no degenerate root (what
    :func:`_levels` would leave as followed): rows (placement, lo, hi, lo feature, hi
    feature). Also which placements are left to follow one by one."""
    K = len(bounds) - 1
    total = np.cumsum(c)
    after = total - np.concatenate([[0], total])[bounds[:-1]][k]
    before = after - c
    followed = np.zeros(K, bool)
    followed[k[odd | (after < 0)]] = True
    ends = bounds[1:] - 1
    some = bounds[1:] > bounds[:-1]
    followed[some] |= after[ends[some]] != 0
    plain = ~followed[k]
    opens = np.flatnonzero(plain & (before == 0) & (after > 0))
    closes = np.flatnonzero(plain & (before > 0) & (after == 0))
    runs = np.column_stack([k[opens], v[opens], v[closes], f[opens], f[closes]]).astype(float)
    return followed, runs


def _levels(v: np.ndarray, c: np.ndarray, odd: np.ndarray, start: float, cyclic: bool, overlaps) -> np.ndarray:
    """The count before the first root value, between values and after the last.

    Followed value by value it is right up to a constant, except across a degenerate
    root, whose change is unknown. So each stretch of values between degenerate ones is
    anchored with one direct test where the followed count is lowest: free there, the
    count is zero there; blocked, it is at least one there, so everywhere in the stretch.
    A translation starts free far below. If the count still comes out inconsistent,
    every stretch is tested directly."""
    tentative = np.concatenate([[0], np.cumsum(c)])
    probes = _probes(v, start, cyclic)
    bounds = [0] + (np.flatnonzero(odd) + 1).tolist() + [len(tentative)]
    levels = tentative.copy()
    for segment, (lo, hi) in enumerate(zip(bounds, bounds[1:])):
        if hi <= lo or (segment == 0 and not cyclic):
            continue
        g = lo + int(np.argmin(tentative[lo:hi]))
        target = 1 if overlaps(probes[g:g + 1])[0] else 0
        levels[lo:hi] += target - tentative[g]
    same_end = (levels[-1] > 0) == (levels[0] > 0) if cyclic else levels[-1] == 0
    if levels.min(initial=0) < 0 or not same_end:
        levels = overlaps(probes).astype(int)
    return levels


def _probes(v: np.ndarray, start: float, cyclic: bool) -> np.ndarray:
    """A value inside each stretch: before the first root, between roots, after the last."""
    if not len(v):
        return np.array([start if cyclic else 0.0])
    inner = (v[:-1] + v[1:]) / 2
    if cyclic:
        before = (v[-1] - TURN + v[0]) / 2
        return np.concatenate([[before], inner, [before + TURN]])
    return np.concatenate([[v[0] - 1.0], inner, [v[-1] + 1.0]])


def _runs(v: np.ndarray, f: np.ndarray, inside: np.ndarray, cyclic: bool) -> list[list]:
    """Blocked stretches: ``inside[m]`` tells the stretch before root m (the last, after the
    last root); for a turn the roots run from a start value once round."""
    n = len(v)
    if not inside.any():
        return []
    if cyclic and (not n or inside.all()):
        return [[-math.pi, math.pi, NO_FEATURE, NO_FEATURE]]
    flags = inside.astype(np.int8)
    change = np.diff(np.concatenate([[0], flags, [0]]))
    firsts, lasts = np.flatnonzero(change == 1), np.flatnonzero(change == -1) - 1
    runs = []
    for k, j in zip(firsts.tolist(), lasts.tolist()):
        lo = v[k - 1] if k > 0 else (v[-1] - TURN if cyclic else -math.inf)
        hi = v[j] if j < n else (v[0] + TURN if cyclic else math.inf)
        f_lo = f[k - 1] if k > 0 else (f[-1] if cyclic else NO_FEATURE)
        f_hi = f[j] if j < n else (f[0] if cyclic else NO_FEATURE)
        runs.append([float(lo), float(hi), int(f_lo), int(f_hi)])
    if cyclic and len(runs) > 1 and inside[0] and inside[n]:
        first, last = runs[0], runs.pop()
        runs[0] = [last[0], first[1] + TURN, last[2], first[3]]
    out = []
    for lo, hi, f_lo, f_hi in runs:
        if cyclic and hi - lo >= TURN - 1e-12:
            out.append([-math.pi, math.pi, NO_FEATURE, NO_FEATURE])
            continue
        if cyclic:
            shift = TURN * math.floor((lo + math.pi) / TURN)
            lo, hi = lo - shift, hi - shift
        out.append([lo, hi, f_lo, f_hi])
    return sorted(out)


def label(a: Shape, b: Shape, feature: int) -> Label:
    """The faces touching at contact ``feature``: an edge's faces and a vertex's feature, or
    two edges' faces (a tangency)."""
    na, nb = len(a.vertices), len(b.vertices)
    rest = feature // 2
    if rest < na * nb:
        i, j = divmod(rest, nb)
        return a.edge_faces[i], (b.vertex_features[j],)
    if rest < 2 * na * nb:
        i, j = divmod(rest - na * nb, nb)
        return (a.vertex_features[i],), b.edge_faces[j]
    i, j = divmod((rest - 2 * na * nb) // 2, nb)
    return a.edge_faces[i], b.edge_faces[j]
