"""Parts that repeat as they turn: gears, ratchet wheels, a Geneva wheel.

A part whose outline is unchanged by a turn of ``2 pi / N`` about its pivot meets
anything the same way every N-th of a turn, so a pair space repeats along its angle
with that period: :mod:`cspace.spaces.rotation` sweeps one period and repeats it. And against
such a part turning by ``v``, another part meets one *sector* (the part cut by a wedge
of angle ``2 pi / N``) turned by each multiple of the period: its blocked values are
those of the sector, shifted. Either way a contact found with sector 0 is, shifted, a
contact with sector j; :attr:`Symmetry.faces` names the faces there.

Found first on the drawing: a turn that maps every drawn line and arc onto a drawn line
or arc (:func:`drawn_order`) leaves the outline unchanged. A part drawn so that its
elements do not repeat (a face split in one place and not in the next) is then tried on
its real outline, arcs finely sampled, within a millionth of its area (:func:`order`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import shapely
from shapely import affinity
from shapely.geometry import MultiPolygon, Polygon
from shapely.geometry.polygon import orient

from ..model.geometry import Arc, Profile
from .contact_curves import Shape, sorted_pairs

MOST = 96  # the largest order looked for
MATCH = 1e-6  # a turned outline is the same if they differ by less than this fraction of its area
WEDGE = 0.3183098861837907  # where the first sector starts, as a fraction of a sector (no vertex lies on it)


@dataclass(frozen=True)
class Symmetry:
    """A part's order of rotational symmetry about its pivot and, per sector shift j, each
    face's name to the name of the face it turns into."""

    order: int
    faces: tuple[dict[str, str], ...]

    def rename(self, names: tuple[str, ...], shift: int) -> tuple[str, ...]:
        """Feature names (faces, corners ``a+b``) turned by ``shift`` sectors."""
        table = self.faces[shift % self.order]
        return tuple("+".join(table.get(part, part) for part in name.split("+")) for name in names)

    def __repr__(self) -> str:
        return f"Symmetry(order={self.order})"


def order(polygons: list[Polygon], pivot: tuple[float, float]) -> int:
    """The largest N (up to MOST) for which every polygon is unchanged by a turn of 2 pi / N.

    A candidate is tried (turned, compared by area) only if the polygons' angular moments
    allow it: see :func:`_possible`. A body of revolution (every ring a circle about the
    pivot: a drum, a shaft) is unchanged by any turn, and gets the largest order at once."""
    if all(_round(p, pivot) for p in polygons):
        return MOST
    moments = [_moments(p, pivot) for p in polygons]
    for n in range(MOST, 1, -1):
        if all(_possible(m, n) for m in moments) and all(_unchanged(p, pivot, 2 * math.pi / n) for p in polygons):
            return n
    return 1


def drawn_order(slices: list[tuple[Profile, ...]], pivot: tuple[float, float], near: float) -> int:
    """The largest N (up to MOST) for which a turn of 2 pi / N about the pivot maps each
    slice's drawn elements onto its elements of the same kind (a line, an arc either way
    round) within ``near``; 1 when none does. Enough for the outline to be unchanged;
    needed only of a part drawn the same way every N-th of a turn (the tools' gears are).

    >>> from cspace.model.geometry import Profile
    >>> drawn_order([(Profile.rectangle(-2, -1, 2, 1),)], (0.0, 0.0), 1e-9)
    2
    """
    groups = [_elements(profiles, pivot) for profiles in slices]
    groups = [points for group in groups for points in group.values()]
    moving = [int(np.count_nonzero(np.abs(points).max(axis=1) > near)) for points in groups]
    orders = [np.argsort(points[:, 0], kind="stable") for points in groups]
    for n in range(MOST, 1, -1):
        # a turn fixes only a circle about the pivot: every other element is one of n alike
        if all(count % n == 0 for count in moving) and \
                all(_maps_onto(points, order, 2 * math.pi / n, near) for points, order in zip(groups, orders)):
            return n
    return 1


def _elements(profiles: tuple[Profile, ...], pivot: tuple[float, float]) -> dict[int, np.ndarray]:
    """Each kind's elements (0 a line, 1 an arc counterclockwise, 2 clockwise) as rows of
    start, end and centre about the pivot; a full circle's start and end are its centre."""
    kinds: dict[int, list[list[float]]] = {}
    for profile in profiles:
        for element in profile.elements:
            if isinstance(element, Arc):
                kind, centre = (1 if element.ccw else 2), element.center
                ends = (centre, centre) if element.start == element.end else (element.start, element.end)
            else:
                kind, centre, ends = 0, pivot, (element.start, element.end)
            kinds.setdefault(kind, []).append([c - o for point in (*ends, centre) for c, o in zip(point, pivot)])
    return {kind: np.array(rows) for kind, rows in sorted(kinds.items())}


def _maps_onto(points: np.ndarray, order: np.ndarray, angle: float, near: float) -> bool:
    """Does the turn by ``angle`` take the rows (three points each) one to one onto rows less
    than ``near`` away (each onto its nearest)? ``order`` sorts the rows by their first
    coordinate: only rows within ``near`` of a turned row's along it can be that near."""
    c, s = math.cos(angle), math.sin(angle)
    turned = (points.reshape(-1, 3, 2) @ np.array([[c, s], [-s, c]])).reshape(-1, 6)
    row, at = sorted_pairs(points[order, 0], turned[:, 0] - near, turned[:, 0] + near)
    if len(np.unique(row)) < len(turned):
        return False
    distance = np.sqrt(((turned[row] - points[order[at]]) ** 2).sum(axis=1))
    first = np.lexsort((order[at], distance, row))
    first = first[np.flatnonzero(np.diff(row[first], prepend=-1))]  # each turned row's nearest
    return bool((distance[first] < near).all()) and len(np.unique(order[at][first])) == len(turned)


def _round(shape: Polygon | MultiPolygon, pivot: tuple[float, float]) -> bool:
    """Is every ring of the shape a circle about the pivot: its vertices' and its edges'
    midpoints' distances from it alike within MATCH of the farthest (a rectangle centred
    on the pivot has its corners on a circle, not its edges)?"""
    rings = [np.asarray(r.coords) for polygon in getattr(shape, "geoms", [shape])
             for r in (polygon.exterior, *polygon.interiors)]
    rings = [np.vstack([ring, (ring[:-1] + ring[1:]) / 2]) for ring in rings]
    radii = [np.hypot(ring[:, 0] - pivot[0], ring[:, 1] - pivot[1]) for ring in rings]
    reach = max((float(r.max()) for r in radii), default=0.0)
    return reach > 0 and all(np.ptp(r) <= MATCH * reach for r in radii)


def _moments(shape: Polygon | MultiPolygon, pivot: tuple[float, float]) -> np.ndarray:
    """M_k = (1 / A) * integral of (z / R)^k over the shape, k = 1..MOST, z = x + iy about
    the pivot and R its farthest point: by Green's theorem, exact on each edge p -> q,
    integral of z^k dA = (1 / 2i) * loop integral of z^k conj(z) dz."""
    loops = []
    for polygon in getattr(shape, "geoms", [shape]):
        polygon = orient(polygon)  # exterior counterclockwise, holes clockwise: one loop integral
        for ring in (polygon.exterior, *polygon.interiors):
            xy = np.asarray(ring.coords)
            loops.append(xy[:, 0] - pivot[0] + 1j * (xy[:, 1] - pivot[1]))
    reach = max(float(np.abs(z).max()) for z in loops) or 1.0
    k = np.arange(1, MOST + 1)[:, None]
    total = np.zeros(MOST, complex)
    for z in loops:
        z = z / reach
        p, q = z[:-1], z[1:]
        d = q - p
        keep = d != 0
        p, q, d = p[keep], q[keep], d[keep]
        turn = np.conj(d) / d
        # Powers 2 .. MOST + 2 of every end, row m holding the (m + 2)-th.
        p_powers = np.cumprod(np.vstack([p * p] + [p] * (MOST)), axis=0)
        q_powers = np.cumprod(np.vstack([q * q] + [q] * (MOST)), axis=0)
        # On the edge conj(z) = conj(p) + (z - p) turn, so the integral is
        # (conj(p) - p turn) (q^(k+1) - p^(k+1)) / (k+1) + turn (q^(k+2) - p^(k+2)) / (k+2).
        lead = (np.conj(p) - p * turn) * (q_powers[:-1] - p_powers[:-1]) / (k + 1)
        tail = turn * (q_powers[1:] - p_powers[1:]) / (k + 2)
        total += (lead + tail).sum(axis=1) / 2j
    return total / (shape.area / reach ** 2)


def _possible(moments: np.ndarray, n: int) -> bool:
    """Can turning by 2 pi / n leave the polygon unchanged within MATCH of its area? Turned,
    M_k becomes M_k e^(2 pi i k / n); the two differ by at most twice the changed area's
    fraction, so |M_k| |1 - e^(2 pi i k / n)| <= 2 MATCH for every k (with margin)."""
    k = np.arange(1, MOST + 1)
    factor = np.abs(1 - np.exp(2j * math.pi * k / n))
    return bool(np.all(np.abs(moments) * factor <= 8 * MATCH + 1e-9))


def _unchanged(polygon: Polygon, pivot: tuple[float, float], angle: float) -> bool:
    turned = affinity.rotate(polygon, angle, origin=pivot, use_radians=True)
    return shapely.symmetric_difference(polygon, turned).area <= MATCH * polygon.area


def symmetry(shape: Shape, pivot: np.ndarray, n: int) -> Symmetry:
    """The face names of a part of order ``n`` (its flattened outline ``shape``) by sector shift.

    A face is named after the face nearest the middle of its first edge turned: only the
    first edge of each face is looked up (all of them where one of those turns onto an edge
    along fewer faces)."""
    edges = shapely.linestrings(np.stack([shape.vertices, shape.vertices[shape.following]], axis=1))
    tree = shapely.STRtree(edges)
    middles = (shape.vertices + shape.vertices[shape.following]) / 2
    named: set[str] = set()
    firsts = []
    for k, here in enumerate(shape.edge_faces):
        if not named.issuperset(here):
            firsts.append(k)
            named.update(here)
    angles = [2 * math.pi * j / n for j in range(n)]
    tables = []
    for angle, nearest in zip(angles, _nearest(tree, middles, pivot, angles, firsts)):
        table, whole = _table(shape, firsts, nearest)
        if not whole:
            every = list(range(len(middles)))
            table, _ = _table(shape, every, _nearest(tree, middles, pivot, [angle], every)[0])
        tables.append(table)
    return Symmetry(n, tuple(tables))


def _nearest(tree: shapely.STRtree, middles: np.ndarray, pivot: np.ndarray, angles: list[float],
             edges: list[int]) -> list[list[int]]:
    """For each angle, the outline edge nearest each given edge's middle turned by it (all
    sought at once)."""
    turned = []
    for angle in angles:
        c, s = math.cos(angle), math.sin(angle)
        turned.append((middles[edges] - pivot) @ np.array([[c, s], [-s, c]]) + pivot)
    nearest = tree.query_nearest(shapely.points(np.vstack(turned)), all_matches=False)[1].tolist()
    return [nearest[k * len(edges):(k + 1) * len(edges)] for k in range(len(angles))]


def _table(shape: Shape, edges: list[int], nearest: list[int]) -> tuple[dict[str, str], bool]:
    """Each face's name to the name of the face its edges (those given) turn onto (their
    nearest edges turned), and whether each of them turned onto an edge along as many faces."""
    table: dict[str, str] = {}
    whole = True
    for k, there in zip(edges, nearest):
        whole = whole and len(shape.edge_faces[there]) >= len(shape.edge_faces[k])
        for name, other in zip(shape.edge_faces[k], shape.edge_faces[there]):
            table.setdefault(name, other)
    return table, whole


def sector(shape: Shape, pivot: np.ndarray, n: int, reach: float) -> Shape:
    """The part cut by a wedge of angle 2 pi / n about its pivot: its outline's edges keep
    their faces, the cuts have none; turned by each multiple of 2 pi / n the sectors make
    up the part."""
    if n == 1:
        return shape
    start = 2 * math.pi * WEDGE / n
    angles = np.linspace(start, start + 2 * math.pi / n, 17)
    far = 2 * reach + 1.0
    wedge = Polygon([tuple(pivot)] + [(pivot[0] + far * math.cos(a), pivot[1] + far * math.sin(a)) for a in angles])
    piece = shapely.intersection(shape.material, wedge)
    polygons = [p for p in getattr(piece, "geoms", [piece]) if isinstance(p, Polygon) and p.area > 0]
    edges = shapely.linestrings(np.stack([shape.vertices, shape.vertices[shape.following]], axis=1))
    tree = shapely.STRtree(edges)
    size = float(np.ptp(shape.vertices, axis=0).max())
    rings = []
    for polygon in polygons:
        polygon = shapely.geometry.polygon.orient(polygon)
        for ring in (polygon.exterior, *polygon.interiors):
            points = np.array(ring.coords[:-1])
            rings.append(_features(points, shape, tree, 1e-9 * size))
    return Shape.of(rings, shape.z)


def _features(points: np.ndarray, shape: Shape, tree: shapely.STRtree, near: float) -> tuple:
    """A sector ring's vertex features and edge faces, from the outline it was cut from."""
    count = len(points)
    faces = []
    for k in range(count):
        p, q = points[k], points[(k + 1) % count]
        found = tree.query(shapely.linestrings([p, q]), predicate="dwithin", distance=near)
        on = [i for i in found.tolist() if _along(shape, i, p, q, near)]
        faces.append(shape.edge_faces[on[0]] if on else ())
    features = []
    for k in range(count):
        match = np.flatnonzero(np.hypot(*(shape.vertices - points[k]).T) <= near)
        if len(match):
            features.append(shape.vertex_features[int(match[0])])
        else:
            beside = faces[k - 1] or faces[k]
            features.append("+".join(beside) if beside else "")
    return points, tuple(features), tuple(faces)


def _along(shape: Shape, edge: int, p: np.ndarray, q: np.ndarray, near: float) -> bool:
    """Does the segment p-q lie along outline edge ``edge``?"""
    a, b = shape.vertices[edge], shape.vertices[shape.following[edge]]
    d = b - a
    length = math.hypot(*d)
    if length == 0:
        return False
    return all(abs(d[0] * (x[1] - a[1]) - d[1] * (x[0] - a[0])) / length <= near for x in (p, q))
