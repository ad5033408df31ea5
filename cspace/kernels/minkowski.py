"""Blocked space of a translating pair: Minkowski sums of convex pieces, with contact labels.

Part B at offset ``s`` from part A overlaps A exactly when ``s`` lies in the *open*
set A + (-B). Splitting each part into convex pieces A_i, B_j (interiors disjoint),
the open blocked set is the union of the open convex polygons A_i + (-B_j): an open
set meeting int(A) meets some int(A_i) in positive area, so no configuration is
wrongly called free along a decomposition diagonal, and touching (sliding) parts are
free, never blocked. Coordinates are integers on the tolerance grid, so the sums
(the hulls of the pieces' vertex sums) and everything built on them are exact.

Each edge of a sum polygon is labelled with the features that touch along it: the
faces or corners of A and of B that are extreme in the edge's outward normal.
"""

from __future__ import annotations

import heapq
import math
from bisect import bisect_left, bisect_right
from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property, lru_cache

import numpy as np
import shapely
from shapely.geometry import Polygon
from shapely.geometry.polygon import orient as orient_polygon

from ..model.geometry import Polyline, even_odd, nesting_depths

IntPoint = tuple[int, int]
SEARCHED = 32  # pieces with at least this many vertices find their extreme vertex by bisection
Side = tuple[str, ...]
ContactLabel = tuple[Side, Side]


@dataclass(frozen=True)
class ConvexPiece:
    """A convex piece of a part's slice, counterclockwise on the integer grid.

    ``edge_faces[i]`` names the faces edge i lies along (empty for an internal
    diagonal); ``vertex_features[i]`` names the corner or face at vertex i. A vertex
    where two collinear faces meet is kept, so every edge lies along one face.
    """

    vertices: tuple[IntPoint, ...]
    vertex_features: tuple[str, ...]
    edge_faces: tuple[tuple[str, ...], ...]

    def extreme(self, nx: int, ny: int, slack: float) -> list[int]:
        """Vertices extreme in direction (nx, ny), within ``slack`` (a length on the grid),
        in counterclockwise order: the run of vertices that far from the top, from its start.

        The slack makes faces parallel up to the grid's rounding touch face to face. A
        piece of many vertices (a finely flattened arc) is searched by its edges' normal
        angles, which increase round it, then by exact dot products about the estimate.
        """
        n = len(self.vertices)
        if n < SEARCHED:
            dots = [x * nx + y * ny for x, y in self.vertices]
            top = max(dots)
            start = dots.index(top)
        else:
            start = self._top(nx, ny)
            top = self._dot(start, nx, ny)
        floor = top - slack * math.hypot(nx, ny)
        first, steps = start, 0
        while steps < n and self._dot((first - 1) % n, nx, ny) >= floor and (first - 1) % n != start:
            first, steps = (first - 1) % n, steps + 1
        chain = [first]
        while self._dot((chain[-1] + 1) % n, nx, ny) >= floor and (chain[-1] + 1) % n != first:
            chain.append((chain[-1] + 1) % n)
        return chain

    def _dot(self, i: int, nx: int, ny: int) -> int:
        x, y = self.vertices[i]
        return x * nx + y * ny

    def _top(self, nx: int, ny: int) -> int:
        """The lowest-numbered vertex of greatest dot product with (nx, ny), exactly."""
        n = len(self.vertices)
        angles = self._normals
        target = math.atan2(ny, nx)
        while target < angles[0]:
            target += 2 * math.pi
        while target >= angles[0] + 2 * math.pi:
            target -= 2 * math.pi
        i = bisect_left(angles, target) % n
        while True:  # the dots rise to the top and fall past it: climb from the estimate
            here = self._dot(i, nx, ny)
            if self._dot((i + 1) % n, nx, ny) > here:
                i = (i + 1) % n
            elif self._dot((i - 1) % n, nx, ny) > here:
                i = (i - 1) % n
            else:
                break
        top = self._dot(i, nx, ny)
        while self._dot((i - 1) % n, nx, ny) == top and (i - 1) % n != i:  # a flat top: its lowest index
            if (i - 1) % n > i:
                break
            i -= 1
        return i

    @cached_property
    def _normals(self) -> list[float]:
        """Each edge's outward normal angle, increasing from the first edge's (a turn at most)."""
        out = []
        n = len(self.vertices)
        for i in range(n):
            (x0, y0), (x1, y1) = self.vertices[i], self.vertices[(i + 1) % n]
            angle = math.atan2(-(x1 - x0), y1 - y0)
            while out and angle < out[-1]:
                angle += 2 * math.pi
            out.append(angle)
        return out


@dataclass(frozen=True)
class SumPolygon:
    """An open convex polygon of blocked offsets with a contact label per edge.

    Edge i runs from vertex i to vertex i+1; its label is (features of A, features
    of B), or ``None`` when it comes from a decomposition diagonal. An edge is split
    where the features touching along it change, so vertices may be rational.
    """

    vertices: tuple[tuple[Fraction | int, Fraction | int], ...]
    labels: tuple[ContactLabel | None, ...]


def convex_pieces(polylines: Iterable[Polyline], quantum: float, flat: float = 0.0) -> list[ConvexPiece]:
    """Split a slice's material (outer profiles and holes) into convex pieces on the grid.

    A vertex within ``flat`` (grid steps) of the line through its neighbours, between
    edges of one face, is dropped first: a linearized arc's touch points and a rounded
    corner's tangent point lie on straight stretches, and rounding to the grid must not
    make a convex outline look concave (it would be cut into pieces for nothing).
    """
    pieces = []
    material, edge_face = _material(polylines, quantum, flat)
    for polygon in material:
        corners = _corners(polygon, edge_face)
        for ring in _convex_rings(polygon, edge_face, flat):
            n = len(ring)
            pieces.append(ConvexPiece(
                tuple(ring), tuple(corners[p] for p in ring),
                tuple(edge_face.along(ring[i], ring[(i + 1) % n]) for i in range(n))))
    return pieces


def outlines(polylines: Iterable[Polyline], quantum: float, flat: float = 0.0) -> list[Outline]:
    """A slice's material (outer profiles and holes, touching profiles joined) as rings on
    the grid, material on the left, each vertex and edge with its feature and faces."""
    material, edge_face = _material(polylines, quantum, flat)
    found = []
    for polygon in material:
        corners = _corners(polygon, edge_face)
        for ring in (polygon.exterior, *polygon.interiors):
            points = _strip_collinear([(int(x), int(y)) for x, y in ring.coords[:-1]], edge_face, flat)
            n = len(points)
            found.append(Outline(tuple(points), tuple(corners[p] for p in points),
                                 tuple(edge_face.along(points[i], points[(i + 1) % n]) for i in range(n))))
    return found


@dataclass(frozen=True)
class Outline:
    """A ring of a slice's material on the grid, material on its left: vertices, the
    feature at each vertex, the faces along each edge (from vertex i to i + 1)."""

    vertices: tuple[IntPoint, ...]
    vertex_features: tuple[str, ...]
    edge_faces: tuple[tuple[str, ...], ...]

    def __repr__(self) -> str:
        return f"Outline(vertices={len(self.vertices)})"


def _material(polylines: Iterable[Polyline], quantum: float, flat: float) -> tuple[list[Polygon], _FaceIndex]:
    """The slice's material on the grid, as counterclockwise polygons with holes, and the
    faces of its outline by edge.

    Nesting alternates (:func:`cspace.model.geometry.nesting_depths`): an island in a hole is
    material, a hole in it empty, to any depth. The outlines of material (even depths)
    are snapped together where drawn touching (:func:`_touching`)."""
    edge_face = _FaceIndex(flat)
    rings = []
    for polyline in polylines:
        points = [(round(x / quantum), round(y / quantum)) for x, y in polyline.vertices]
        n = len(points)
        for i, point in enumerate(points):
            edge_face.add(point, points[(i + 1) % n], polyline.edge_features[i].name)
        rings.append(Polygon(_dedupe(points)))
    depths = nesting_depths(rings)
    solid = [k for k, depth in enumerate(depths) if depth % 2 == 0]
    for k, polygon in zip(solid, _touching([rings[k] for k in solid], flat)):
        rings[k] = polygon
    material = even_odd(rings, depths)
    polygons = [orient_polygon(p) for p in getattr(material, "geoms", [material]) if not p.is_empty]
    return polygons, edge_face


def _touching(polygons: list[Polygon], flat: float) -> list[Polygon]:
    """The polygons with each vertex within ``flat`` of another's outline moved onto it.

    Profiles drawn to touch (a lip standing on a slope) may, rounded to the grid, stand a
    step apart: their union would be two polygons with a hairline gap, and a part could
    slide into it. Snapped, they touch, and their union is one.
    """
    if flat <= 0 or len(polygons) < 2:
        return polygons
    return [shapely.snap(polygon, shapely.union_all(polygons[:k] + polygons[k + 1:]), flat)
            for k, polygon in enumerate(polygons)]


def minkowski_difference(a: ConvexPiece, b: ConvexPiece, slack: float = 0.0) -> SumPolygon:
    """The open set of offsets s where B + s overlaps A: A + (-B), labelled.

    ``slack`` (a length on the grid) is how far from flat a run of faces may be and
    still touch along its length (see :meth:`ConvexPiece.extreme`).

    Pieces that are the same up to a translation and the names of their faces (a saw's
    teeth, a rack's) have the same sum moved and renamed: it is computed once, for the
    pieces moved to their first vertex with their names numbered, and moved and renamed.
    """
    (pattern_a, names_a), (pattern_b, names_b) = _pattern(a), _pattern(b)
    canonical = _canonical_difference(pattern_a, pattern_b, slack)
    (ax, ay), (bx, by) = a.vertices[0], b.vertices[0]
    dx, dy = ax - bx, ay - by
    return SumPolygon(tuple((x + dx, y + dy) for x, y in canonical.vertices),
                      tuple(None if label is None else (_named(label[0], names_a), _named(label[1], names_b))
                            for label in canonical.labels))


def _pattern(piece: ConvexPiece) -> tuple[ConvexPiece, list[str]]:
    """The piece moved to put its first vertex at the origin, its face and corner names
    replaced by their numbers in order of first use; and the names, by number."""
    names: dict[str, str] = {}

    def number(name: str) -> str:
        return names.setdefault(name, f"{len(names)}")

    x0, y0 = piece.vertices[0]
    pattern = ConvexPiece(tuple((x - x0, y - y0) for x, y in piece.vertices),
                          tuple(number(name) for name in piece.vertex_features),
                          tuple(tuple(number(name) for name in faces) for faces in piece.edge_faces))
    return pattern, list(names)


def _named(side: Side, names: list[str]) -> Side:
    return tuple(sorted(names[int(number)] for number in side))


@lru_cache(maxsize=4096)
def _canonical_difference(a: ConvexPiece, b: ConvexPiece, slack: float) -> SumPolygon:
    return _difference(a, b, slack)


def _difference(a: ConvexPiece, b: ConvexPiece, slack: float) -> SumPolygon:
    """:func:`minkowski_difference` computed for these pieces as they are."""
    # The sum of convex pieces is convex: the hull of the sums of their vertices (exact in
    # integers). pyclipper's MinkowskiSum unions a quadrilateral per pair of edges, slow for
    # a finely flattened arc, and its outline of two pieces with nearly parallel edges can
    # carry a zero-area spike.
    sums = (np.array(a.vertices, np.int64)[:, None, :] - np.array(b.vertices, np.int64)[None, :, :]).reshape(-1, 2)
    hull = shapely.MultiPoint(sums.astype(float)).convex_hull
    outer = [(int(x), int(y)) for x, y in hull.exterior.coords[:-1]]
    if _area2(outer) < 0:
        outer = outer[::-1]
    vertices = _strip_collinear(outer)
    points: list[tuple] = []
    labels: list[ContactLabel | None] = []
    n = len(vertices)
    for i in range(n):
        p, q = vertices[i], vertices[(i + 1) % n]
        nx, ny = q[1] - p[1], p[0] - q[0]  # outward normal of a counterclockwise edge
        chain_a, chain_b = a.extreme(nx, ny, slack), b.extreme(-nx, -ny, slack)
        for start, label in _edge_labels(p, q, _Run(a, chain_a, q[0] - p[0], q[1] - p[1]),
                                         _Run(b, chain_b, q[0] - p[0], q[1] - p[1])):
            points.append(start)
            labels.append(label)
    return SumPolygon(tuple(points), tuple(labels))


def snapped(polygons: list[SumPolygon], epsilon: float) -> list[SumPolygon]:
    """The polygons with vertex coordinates closer than ``epsilon`` (per axis, across all of
    them) made equal, and polygons thinner than that dropped.

    Points closer than the length tolerance coincide (one tolerance policy), but input
    numbers carry rounding: a channel drawn exactly as wide as a block may come out a
    few grid steps too narrow where the numbers are large (far from the origin) and the
    grid fine, and the channel would vanish. Snapped, exact fits stay exact.
    """
    maps = []
    for axis in (0, 1):
        representative, start, previous = {}, None, None
        for value in sorted({v[axis] for polygon in polygons for v in polygon.vertices}):
            if previous is None or value - previous > epsilon:
                start = value
            representative[value] = start
            previous = value
        maps.append(representative)
    out = []
    for polygon in polygons:
        vertices, labels = [], []
        for (x, y), label in zip(polygon.vertices, polygon.labels):
            point = (maps[0][x], maps[1][y])
            if vertices and point == vertices[-1]:
                labels[-1] = label  # a zero-length edge: the next edge starts here
                continue
            vertices.append(point)
            labels.append(label)
        while len(vertices) > 1 and vertices[-1] == vertices[0]:
            vertices.pop()
            labels.pop()
        if len(vertices) >= 3 and _area2(vertices) > 0:
            out.append(SumPolygon(tuple(vertices), tuple(labels)))
    return out


class _Run:
    """A piece's features extreme in one direction, laid out along the edge direction t:
    positions of its vertices (``stops``, increasing) and the faces between them."""

    def __init__(self, piece: ConvexPiece, chain: list[int], tx: int, ty: int) -> None:
        at = [piece.vertices[i][0] * tx + piece.vertices[i][1] * ty for i in chain]
        self.stops = sorted(at)
        self.corner = piece.vertex_features[chain[0]]
        self.faces = sorted((tuple(sorted((at[k], at[k + 1]))), piece.edge_faces[chain[k]])
                            for k in range(len(chain) - 1))
        # A convex chain's faces lie end to end along t: both ends increase, so the faces
        # touching a stretch are found by bisection (a saw's body has a face per tooth).
        self.starts = [2 * t0 for (t0, _), _ in self.faces]
        self.ends = [2 * t1 for (_, t1), _ in self.faces]
        self.ordered = all(a <= b for a, b in zip(self.ends, self.ends[1:]))

    def features(self, lo: int, hi: int, shift: int) -> tuple[str, ...] | None:
        """Features of the run (moved by ``shift`` along t) touching the stretch [lo, hi]:
        the faces overlapping it, or, for a single point, the face holding it; ``None``
        where an internal diagonal touches (that stretch lies inside the part's material).
        All three are given doubled (a shift halfway between two stops stays an integer)."""
        if not self.faces:
            return (self.corner,)
        if hi > lo:
            window = self.faces
            if self.ordered:  # faces starting before hi and ending after lo
                window = self.faces[bisect_right(self.ends, lo - shift):bisect_left(self.starts, hi - shift)]
            found = [f for (t0, t1), f in window if min(hi, 2 * t1 + shift) > max(lo, 2 * t0 + shift)]
        else:
            middle = lo + hi  # doubled again: compared with doubled positions doubled
            found = [f for (t0, t1), f in self.faces if 2 * (2 * t0 + shift) <= middle <= 2 * (2 * t1 + shift)]
            found = found or [min(self.faces, key=lambda e: min(abs(2 * (2 * e[0][0] + shift) - middle),
                                                             abs(2 * (2 * e[0][1] + shift) - middle)))[1]]
        if any(not faces for faces in found):
            return None
        return tuple(sorted({face for faces in found for face in faces}))


def _edge_labels(p: tuple, q: tuple, run_a: _Run, run_b: _Run) -> list[tuple[tuple, ContactLabel | None]]:
    """Stretches of the sum edge p->q with one label each: (start point, label).

    An offset s on the edge puts B's run at its positions plus s.t along the edge
    direction t; the features touching are A's and B's faces overlapping where the two
    runs overlap. That changes where a stop of A meets a stop of B.
    """
    tx, ty = q[0] - p[0], q[1] - p[1]
    s0, s1 = p[0] * tx + p[1] * ty, q[0] * tx + q[1] * ty
    cuts = sorted({ta - tb for ta in run_a.stops for tb in run_b.stops if s0 < ta - tb < s1})
    bounds = [s0] + cuts + [s1]
    stretches: list[tuple[tuple, ContactLabel | None]] = []
    for lo, hi in zip(bounds, bounds[1:]):
        shift = lo + hi  # B's run moved halfway along the stretch, doubled (as ``features`` takes it)
        start = max(2 * run_a.stops[0], 2 * run_b.stops[0] + shift)
        end = min(2 * run_a.stops[-1], 2 * run_b.stops[-1] + shift)
        side_a, side_b = run_a.features(start, end, 0), run_b.features(start, end, shift)
        label = None if side_a is None or side_b is None else (side_a, side_b)
        if stretches and stretches[-1][1] == label:
            continue
        stretches.append((p if lo == s0 else _point_at(p, q, Fraction(lo - s0, s1 - s0)), label))
    return stretches


def _point_at(p: tuple, q: tuple, t: Fraction) -> tuple:
    """The point a fraction t of the way from p to q, as integers where it falls on the grid."""
    point = (p[0] + (q[0] - p[0]) * t, p[1] + (q[1] - p[1]) * t)
    return tuple(int(v) if v.denominator == 1 else v for v in point)


def _corners(polygon: Polygon, faces: _FaceIndex) -> dict[IntPoint, str]:
    """The feature at every vertex of a polygon's boundary (material on the left):
    the face it lies on, or ``before+after`` where two faces meet, as the real outline
    has them (faces that a union of profiles made internal are not named)."""
    corners = {}
    for ring in (polygon.exterior, *polygon.interiors):
        points = [(int(x), int(y)) for x, y in ring.coords[:-1]]
        n = len(points)
        along = [faces.along(point, points[(k + 1) % n]) for k, point in enumerate(points)]  # edge k leaves point k
        for k, point in enumerate(points):
            corners[point] = "+".join(dict.fromkeys(along[k - 1] + along[k]))
    return corners


def _convex_rings(polygon: Polygon, faces: _FaceIndex, flat: float) -> list[list[IntPoint]]:
    """Convex pieces of a polygon with holes: itself if convex, else merged triangles."""
    outer = [(int(x), int(y)) for x, y in polygon.exterior.coords[:-1]]
    if not polygon.interiors:
        ring = _strip_collinear(outer if _area2(outer) > 0 else outer[::-1], faces, flat)
        if _is_convex(ring):
            return [ring]
    # Every triangle's corner is a vertex of the outline; GEOS may hand it back a grid step
    # off (it transforms coordinates internally), so each is taken back to that vertex.
    outline = {(int(x), int(y)) for ring in (polygon.exterior, *polygon.interiors) for x, y in ring.coords}
    triangles = []
    for triangle in shapely.constrained_delaunay_triangles(polygon).geoms:
        ring = [_vertex_of(outline, x, y) for x, y in triangle.exterior.coords[:-1]]
        triangles.append(ring if _area2(ring) > 0 else ring[::-1])
    # Exactly collinear vertices only: dropping a vertex within ``flat`` of the line would
    # change a piece's shape and open a sliver between it and the piece sharing that vertex.
    return [_strip_collinear(r, faces) for r in _hertel_mehlhorn(triangles)]


def _vertex_of(outline: set[IntPoint], x: float, y: float) -> IntPoint:
    """The outline vertex at (x, y), or nearest to it."""
    point = (int(round(x)), int(round(y)))
    if point in outline:
        return point
    return min(outline, key=lambda v: (v[0] - x) ** 2 + (v[1] - y) ** 2)


def _hertel_mehlhorn(pieces: list[list[IntPoint]]) -> list[list[IntPoint]]:
    """Greedily remove diagonals between pieces while the union stays convex, always the
    smallest removable diagonal (as a directed edge) first.

    A diagonal that cannot go can only become removable once one of its two pieces has
    grown, so after each merge only the merged piece's sides are looked at again (a heap
    of sides to try), instead of every side of every piece.
    """
    pieces = [list(p) for p in pieces]
    alive = [True] * len(pieces)
    owner: dict[tuple[IntPoint, IntPoint], int] = {}
    for k, piece in enumerate(pieces):
        for i in range(len(piece)):
            owner[(piece[i], piece[(i + 1) % len(piece)])] = k
    pending = sorted(owner)
    heapq.heapify(pending)
    while pending:
        p, q = heapq.heappop(pending)
        k, other = owner.get((p, q)), owner.get((q, p))
        if k is None or other is None or k == other:
            continue
        first, second = pieces[k], pieces[other]
        if not (_turns_left(first, second, p) and _turns_left(second, first, q)):
            continue
        union = _join(first, second, p, q)
        pieces[k], alive[other] = union, False
        del owner[(p, q)], owner[(q, p)]
        for i in range(len(union)):
            side = (union[i], union[(i + 1) % len(union)])
            owner[side] = k
            heapq.heappush(pending, side)
    return [piece for piece, kept in zip(pieces, alive) if kept]


def _turns_left(before: list[IntPoint], after: list[IntPoint], vertex: IntPoint) -> bool:
    """Joined at ``vertex`` (coming from ``before``, leaving along ``after``), do two
    counterclockwise pieces turn left or go straight there?"""
    a = before[before.index(vertex) - 1]
    b = after[(after.index(vertex) + 1) % len(after)]
    return (vertex[0] - a[0]) * (b[1] - vertex[1]) - (vertex[1] - a[1]) * (b[0] - vertex[0]) >= 0


def _join(first: list[IntPoint], second: list[IntPoint], p: IntPoint, q: IntPoint) -> list[IntPoint]:
    """Union of two counterclockwise polygons sharing edge p->q (first) / q->p (second)."""
    i = first.index(q)
    walk_first = first[i:] + first[:i]  # starts at q, ends at p
    j = second.index(p)
    walk_second = second[j:] + second[:j]  # starts at p, ends at q
    return walk_first[:-1] + walk_second[:-1]


def _is_convex(ring: list[IntPoint]) -> bool:
    n = len(ring)
    signs = set()
    for i in range(n):
        (x0, y0), (x1, y1), (x2, y2) = ring[i], ring[(i + 1) % n], ring[(i + 2) % n]
        cross = (x1 - x0) * (y2 - y1) - (y1 - y0) * (x2 - x1)
        if cross:
            signs.add(cross > 0)
    return len(signs) <= 1


def _strip_collinear(ring: list[IntPoint], faces: _FaceIndex | None = None,
                     flat: float = 0.0) -> list[IntPoint]:
    """The ring without vertices between collinear edges (within ``flat`` grid steps of the
    line through their neighbours); with ``faces``, only where the two edges lie along the
    same faces (a vertex where one face ends and the next begins stays, so each face keeps
    its own edge and its own contacts).

    Vertices go first to last, each as soon as it is found; a removal changes only its two
    neighbours, so the scan goes on from the one before it."""
    ring = _dedupe(ring)
    i = 0
    while i < len(ring) and len(ring) > 3:
        (x0, y0), (x1, y1), (x2, y2) = ring[i - 1], ring[i], ring[(i + 1) % len(ring)]
        cross = (x1 - x0) * (y2 - y1) - (y1 - y0) * (x2 - x1)
        removable = abs(cross) <= flat * math.hypot(x2 - x0, y2 - y0)
        if removable and faces is not None:
            before = faces.along(ring[i - 1], ring[i])
            removable = before == faces.along(ring[i], ring[(i + 1) % len(ring)])
            if removable and len(before) == 1:  # the merged edge lies along that face (maybe not exactly collinear)
                faces.add(ring[i - 1], ring[(i + 1) % len(ring)], before[0])
        if not removable:
            i += 1
            continue
        last = i == len(ring) - 1
        ring.pop(i)
        i = 0 if i == 0 or last else i - 1
    return ring


def _dedupe(ring: list[IntPoint]) -> list[IntPoint]:
    out = [p for i, p in enumerate(ring) if p != ring[i - 1]]
    return out or ring[:1]


def _area2(ring: list[IntPoint]) -> int:
    return sum(x0 * y1 - x1 * y0 for (x0, y0), (x1, y1) in zip(ring, ring[1:] + ring[:1]))


class _FaceIndex:
    """The faces of a slice's outline by their edges on the grid, found again along the
    edges of its union and pieces: exactly, or within ``flat`` grid steps (where profiles
    meet, a union's vertex may lie a step off the face it is on)."""

    def __init__(self, flat: float) -> None:
        self.flat = flat
        self.edges: dict[tuple[IntPoint, IntPoint], str] = {}  # by its ends, the lesser first
        self._boxes: tuple[np.ndarray, list] | None = None

    def add(self, p: IntPoint, q: IntPoint, name: str) -> None:
        self.edges[(p, q) if p <= q else (q, p)] = name
        self._boxes = None

    def along(self, p: IntPoint, q: IntPoint) -> tuple[str, ...]:
        """Faces whose edges run along the edge p-q; empty for an internal diagonal.

        Only edges whose boxes meet the edge's (widened by ``flat``) can lie along it."""
        exact = self.edges.get((p, q) if p <= q else (q, p))
        if exact is not None:
            return (exact,)
        boxes, entries = self._index()
        margin = self.flat + 1
        near = np.flatnonzero((boxes[:, 0] <= max(p[0], q[0]) + margin) & (boxes[:, 2] >= min(p[0], q[0]) - margin)
                              & (boxes[:, 1] <= max(p[1], q[1]) + margin) & (boxes[:, 3] >= min(p[1], q[1]) - margin))
        covering = {entries[k][1] for k in near.tolist()
                    if self._collinear(*entries[k][0], p, q) and _overlaps(p, q, *entries[k][0])}
        return tuple(sorted(covering))

    def _index(self) -> tuple[np.ndarray, list]:
        """Every edge's box (x0, y0, x1, y1) and the edges with their faces, in one array."""
        if self._boxes is None:
            entries = list(self.edges.items())
            boxes = np.array([(min(a[0], b[0]), min(a[1], b[1]), max(a[0], b[0]), max(a[1], b[1]))
                              for (a, b), _ in entries], float).reshape(-1, 4)
            self._boxes = (boxes, entries)
        return self._boxes

    def _collinear(self, a: IntPoint, b: IntPoint, *points: IntPoint) -> bool:
        """Are the points on the line through a and b (within ``flat``)?"""
        if self.flat == 0:
            return _collinear(a, b, *points)
        length = math.hypot(b[0] - a[0], b[1] - a[1])
        return all(abs((b[0] - a[0]) * (u[1] - a[1]) - (b[1] - a[1]) * (u[0] - a[0])) <= self.flat * length
                   for u in points)


def _collinear(a: IntPoint, b: IntPoint, c: IntPoint, d: IntPoint | None = None) -> bool:
    """Are c (and d) on the line through a and b?"""
    return all((b[0] - a[0]) * (u[1] - a[1]) - (b[1] - a[1]) * (u[0] - a[0]) == 0
               for u in ((c,) if d is None else (c, d)))


def _overlaps(p: IntPoint, q: IntPoint, a: IntPoint, b: IntPoint) -> bool:
    """Collinear segments p-q and a-b share more than a point."""
    axis = 0 if p[0] != q[0] else 1
    lo, hi = sorted((p[axis], q[axis]))
    alo, ahi = sorted((a[axis], b[axis]))
    return min(hi, ahi) > max(lo, alo)
