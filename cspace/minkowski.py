"""Blocked space of a translating pair: Minkowski sums of convex pieces, with contact labels.

Part B at offset ``s`` from part A overlaps A exactly when ``s`` lies in the *open*
set A + (-B). Splitting each part into convex pieces A_i, B_j (interiors disjoint),
the open blocked set is the union of the open convex polygons A_i + (-B_j): an open
set meeting int(A) meets some int(A_i) in positive area, so no configuration is
wrongly called free along a decomposition diagonal, and touching (sliding) parts are
free, never blocked. Coordinates are integers on the tolerance grid, so the sums
(pyclipper) and everything built on them are exact.

Each edge of a sum polygon is labelled with the features that touch along it: the
faces or corners of A and of B that are extreme in the edge's outward normal.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import pyclipper
import shapely
from shapely.geometry import Polygon

from .geometry import Polyline

IntPoint = tuple[int, int]
Side = tuple[str, ...]
ContactLabel = tuple[Side, Side]


@dataclass(frozen=True)
class ConvexPiece:
    """A convex piece of a part's slice, counterclockwise on the integer grid.

    ``edge_faces[i]`` names the faces edge i lies along (empty for an internal
    diagonal); ``vertex_features[i]`` names the corner or arc face at vertex i.
    """

    vertices: tuple[IntPoint, ...]
    vertex_features: tuple[str, ...]
    edge_faces: tuple[tuple[str, ...], ...]

    def support(self, nx: int, ny: int) -> Side | None:
        """Features extreme in direction (nx, ny); ``None`` if that is an internal diagonal."""
        dots = [x * nx + y * ny for x, y in self.vertices]
        top = max(dots)
        ends = [i for i, d in enumerate(dots) if d == top]
        if len(ends) == 1:
            return (self.vertex_features[ends[0]],)
        n = len(self.vertices)
        runs = [self.edge_faces[i] for i in ends if (i + 1) % n in ends]
        if any(not faces for faces in runs):
            return None
        return tuple(sorted({face for faces in runs for face in faces}))


@dataclass(frozen=True)
class SumPolygon:
    """An open convex polygon of blocked offsets with a contact label per edge.

    Edge i runs from vertex i to vertex i+1; its label is (features of A, features
    of B), or ``None`` when it comes from a decomposition diagonal.
    """

    vertices: tuple[IntPoint, ...]
    labels: tuple[ContactLabel | None, ...]


def convex_pieces(polylines: Iterable[Polyline], quantum: float) -> list[ConvexPiece]:
    """Split a slice's material (outer profiles and holes) into convex pieces on the grid."""
    rings = []
    for polyline in polylines:
        points = [(round(x / quantum), round(y / quantum)) for x, y in polyline.vertices]
        rings.append((points, polyline))
    vertex_feature: dict[IntPoint, str] = {}
    edge_face: dict[frozenset, str] = {}
    outers, holes = [], []
    for points, polyline in rings:
        n = len(points)
        for i, point in enumerate(points):
            vertex_feature.setdefault(point, polyline.vertex_features[i].name)
            edge_face[frozenset((point, points[(i + 1) % n]))] = polyline.edge_features[i].name
        cleaned = _dedupe(points)
        (outers if _area2(cleaned) > 0 else holes).append(cleaned)
    material = shapely.union_all([Polygon(o) for o in outers])
    if holes:
        material = material.difference(shapely.union_all([Polygon(h) for h in holes]))
    pieces = []
    for polygon in getattr(material, "geoms", [material]):
        if polygon.is_empty:
            continue
        for ring in _convex_rings(polygon):
            n = len(ring)
            pieces.append(ConvexPiece(
                tuple(ring),
                tuple(_feature_at(vertex_feature, edge_face, p) for p in ring),
                tuple(_faces_along(edge_face, ring[i], ring[(i + 1) % n]) for i in range(n))))
    return pieces


def minkowski_difference(a: ConvexPiece, b: ConvexPiece) -> SumPolygon:
    """The open set of offsets s where B + s overlaps A: A + (-B), labelled."""
    pattern = [(-x, -y) for x, y in b.vertices]
    paths = pyclipper.MinkowskiSum(pattern, list(a.vertices), True)
    outer = max(paths, key=pyclipper.Area)
    if pyclipper.Area(outer) < 0:
        outer = outer[::-1]
    vertices = _strip_collinear([tuple(p) for p in outer])
    labels = []
    n = len(vertices)
    for i in range(n):
        (x0, y0), (x1, y1) = vertices[i], vertices[(i + 1) % n]
        nx, ny = y1 - y0, x0 - x1  # outward normal of a counterclockwise edge
        side_a, side_b = a.support(nx, ny), b.support(-nx, -ny)
        labels.append(None if side_a is None or side_b is None else (side_a, side_b))
    return SumPolygon(tuple(vertices), tuple(labels))


def _convex_rings(polygon: Polygon) -> list[list[IntPoint]]:
    """Convex pieces of a polygon with holes: itself if convex, else merged triangles."""
    outer = [(int(x), int(y)) for x, y in polygon.exterior.coords[:-1]]
    if not polygon.interiors and _is_convex(outer):
        ring = outer if _area2(outer) > 0 else outer[::-1]
        return [_strip_collinear(ring)]
    triangles = []
    for triangle in shapely.constrained_delaunay_triangles(polygon).geoms:
        ring = [(int(round(x)), int(round(y))) for x, y in triangle.exterior.coords[:-1]]
        triangles.append(ring if _area2(ring) > 0 else ring[::-1])
    return [_strip_collinear(r) for r in _hertel_mehlhorn(triangles)]


def _hertel_mehlhorn(pieces: list[list[IntPoint]]) -> list[list[IntPoint]]:
    """Greedily remove diagonals between pieces while the union stays convex."""
    pieces = [list(p) for p in pieces]
    merged = True
    while merged:
        merged = False
        owner: dict[tuple[IntPoint, IntPoint], int] = {}
        for k, piece in enumerate(pieces):
            for i in range(len(piece)):
                owner[(piece[i], piece[(i + 1) % len(piece)])] = k
        for (p, q), k in sorted(owner.items()):
            other = owner.get((q, p))
            if other is None or other == k:
                continue
            union = _join(pieces[k], pieces[other], p, q)
            if _is_convex(union):
                pieces[k] = union
                pieces.pop(other)
                merged = True
                break
    return pieces


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


def _strip_collinear(ring: list[IntPoint]) -> list[IntPoint]:
    ring = _dedupe(ring)
    changed = True
    while changed and len(ring) > 3:
        changed = False
        for i in range(len(ring)):
            (x0, y0), (x1, y1), (x2, y2) = ring[i - 1], ring[i], ring[(i + 1) % len(ring)]
            if (x1 - x0) * (y2 - y1) - (y1 - y0) * (x2 - x1) == 0:
                ring.pop(i)
                changed = True
                break
    return ring


def _dedupe(ring: list[IntPoint]) -> list[IntPoint]:
    out = [p for i, p in enumerate(ring) if p != ring[i - 1]]
    return out or ring[:1]


def _area2(ring: list[IntPoint]) -> int:
    return sum(x0 * y1 - x1 * y0 for (x0, y0), (x1, y1) in zip(ring, ring[1:] + ring[:1]))


def _faces_along(faces: dict[frozenset, str], p: IntPoint, q: IntPoint) -> tuple[str, ...]:
    """Faces whose boundary edges run along piece edge p-q; empty for an internal diagonal."""
    exact = faces.get(frozenset((p, q)))
    if exact is not None:
        return (exact,)
    covering = {name for edge, name in faces.items()
                if _collinear(p, q, *edge) and _overlaps(p, q, *edge)}
    return tuple(sorted(covering))


def _feature_at(features: dict[IntPoint, str], faces: dict[frozenset, str], p: IntPoint) -> str:
    """Corner or face at a piece vertex (a vertex made by uniting profiles lies on a face)."""
    if p in features:
        return features[p]
    on = sorted(name for edge, name in faces.items() if _on_segment(*edge, p))
    return "+".join(on)


def _collinear(a: IntPoint, b: IntPoint, c: IntPoint, d: IntPoint | None = None) -> bool:
    """Are c (and d) on the line through a and b?"""
    return all((b[0] - a[0]) * (u[1] - a[1]) - (b[1] - a[1]) * (u[0] - a[0]) == 0
               for u in ((c,) if d is None else (c, d)))


def _on_segment(a: IntPoint, b: IntPoint, p: IntPoint) -> bool:
    return _collinear(a, b, p) and min(a[0], b[0]) <= p[0] <= max(a[0], b[0]) \
        and min(a[1], b[1]) <= p[1] <= max(a[1], b[1])


def _overlaps(p: IntPoint, q: IntPoint, a: IntPoint, b: IntPoint) -> bool:
    """Collinear segments p-q and a-b share more than a point."""
    axis = 0 if p[0] != q[0] else 1
    lo, hi = sorted((p[axis], q[axis]))
    alo, ahi = sorted((a[axis], b[axis]))
    return min(hi, ahi) > max(lo, alo)
