"""Contact curves of a pair in closed form, one coordinate at a time.

With every coordinate of a pair but one held, part B moves relative to part A along a
one-parameter rigid motion: a translation ``v * d`` or a turn by ``v`` about a point.
Its blocked values lie between *contact configurations*, where a vertex of one part's
outline lies on an edge of the other's (vertex-line and line-vertex contacts; arcs
reach here flattened into edges):

* translation: the vertex meets the edge's line where ``v`` solves a linear equation;
* rotation: where ``alpha cos v + beta sin v = gamma``.

A root counts when the contact point lies on the edge. Between two consecutive roots
nothing changes, so the overlap is followed root by root with a count: the vertices of
each part inside the other's material (winding numbers: holes subtract) plus the
crossings of their edges. Two parts overlap exactly when the count is positive, and a
root changes it by what happens there alone: the vertex goes in or out (one), and each
of its two edges starts or stops crossing the other edge. A translation starts from no
overlap far away; a turn from the count at one value, found with shapely.

Outlines may be concave and have holes: the count does not need convex pieces. Every
function is vectorized over ``K`` placements of B (one per value of the held
coordinate). Each end of a blocked interval carries a *feature*: an integer naming the
vertex, the edge and (for rotation) the root, equal at two placements exactly when the
end follows one smooth contact curve between them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import shapely
import shapely.affinity

Label = tuple[tuple[str, ...], tuple[str, ...]]
NO_FEATURE = -1  # an end that is not a contact (a full turn blocked, a domain's edge)
TURN = 2 * math.pi
ENDS = 1e-9  # a contact this close to an edge's end (as a fraction of it) is at the end


@dataclass(frozen=True, eq=False)
class Shape:
    """A part's slice in its own frame: its outline's rings as one array of vertices
    (material on the left), the next vertex of each along its ring, the face or corner
    at each vertex and the faces along each edge (vertex i to ``following[i]``)."""

    vertices: np.ndarray
    following: np.ndarray
    vertex_features: tuple[str, ...]
    edge_faces: tuple[tuple[str, ...], ...]
    z: tuple[float, float] = (-math.inf, math.inf)
    material: shapely.Geometry = field(default=None, repr=False)
    edge_tree: shapely.STRtree = field(default=None, repr=False)

    @classmethod
    def of(cls, rings: list[tuple[np.ndarray, tuple[str, ...], tuple[tuple[str, ...], ...]]],
           z: tuple[float, float] = (-math.inf, math.inf)) -> Shape:
        """A shape from rings (vertices, vertex features, edge faces), each material on the left."""
        vertices, following, features, faces = [], [], [], []
        for points, vertex_features, edge_faces in rings:
            start = len(vertices)
            n = len(points)
            vertices.extend(map(tuple, points))
            following.extend(start + (k + 1) % n for k in range(n))
            features.extend(vertex_features)
            faces.extend(edge_faces)
        array = np.array(vertices, float).reshape(-1, 2)
        material = shapely.union_all([shapely.Polygon(points) for points, _, _ in rings if _area(points) > 0])
        holes = [shapely.Polygon(points) for points, _, _ in rings if _area(points) < 0]
        if holes:
            material = material.difference(shapely.union_all(holes))
        shapely.prepare(material)
        following = np.array(following, int)
        tree = shapely.STRtree(shapely.linestrings(np.stack([array, array[following]], axis=1)))
        return cls(array, following, tuple(features), tuple(faces), z, material, tree)

    @property
    def preceding(self) -> np.ndarray:
        out = np.empty_like(self.following)
        out[self.following] = np.arange(len(self.following))
        return out

    def meets(self, other: Shape) -> bool:
        """Do the two slices overlap in z (with positive length)?"""
        return self.z[0] < other.z[1] and other.z[0] < self.z[1]

    def __repr__(self) -> str:
        return f"Shape(vertices={len(self.vertices)})"


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


def translation_intervals(a: Shape, b: Shape, angle: np.ndarray, offset: np.ndarray, d: np.ndarray) -> Intervals:
    """Blocked ``v`` for ``K`` placements of B in A's frame (B's point p at ``R(angle) p +
    offset``), each translating further along the unit direction ``d`` (K, 2), against A.

    A feature ``(i * nb + j) * 2`` is B's vertex j on A's edge i; ``(na * nb + i * nb + j)
    * 2`` is A's vertex i on B's edge j.
    """
    K = len(angle)
    placed = place(b.vertices, angle, offset)
    roots = _concat([_translation_roots(a, b, placed, d, kind) for kind in (0, 1)])

    def overlaps(k: int, values: np.ndarray) -> np.ndarray:
        return _overlaps(a, b, np.full(len(values), angle[k]), offset[k] + values[:, None] * d[k])

    return _intervals(roots, K, np.full(K, -math.inf), False, overlaps)


def rotation_intervals(a: Shape, b: Shape, angle: np.ndarray, offset: np.ndarray, center: np.ndarray,
                       sign: int) -> Intervals:
    """Blocked ``v`` for ``K`` placements of B in A's frame (B's point p at ``R(angle) p +
    offset``), each turning further by ``sign * v`` about ``center`` (K, 2), against A.

    Intervals are arcs, ``lo`` in [-pi, pi); an arc across the seam has ``hi > pi``.
    Features as for translation, with the root (0 or 1) in the lowest bit.
    """
    K = len(angle)
    placed = place(b.vertices, angle, offset)
    roots = _concat([_rotation_roots(a, b, placed, center, sign, kind) for kind in (0, 1)])

    def overlaps(k: int, values: np.ndarray) -> np.ndarray:
        turn = sign * values
        c, s = np.cos(turn), np.sin(turn)
        rel = offset[k] - center[k]
        shift = center[k] + np.stack([c * rel[0] - s * rel[1], s * rel[0] + c * rel[1]], axis=1)
        return _overlaps(a, b, angle[k] + turn, shift)

    return _intervals(roots, K, _starts(roots, K), True, overlaps)


def _overlaps(a: Shape, b: Shape, angle: np.ndarray, offset: np.ndarray) -> np.ndarray:
    """Do the parts overlap in area, B placed at each (angle, offset)? Found directly (shapely)."""
    out = np.zeros(len(angle), bool)
    size = float(np.ptp(a.vertices, axis=0).max() + np.ptp(b.vertices, axis=0).max())
    for k in range(len(angle)):
        c, s = math.cos(angle[k]), math.sin(angle[k])
        moved = shapely.affinity.affine_transform(b.material, (c, -s, s, c, offset[k][0], offset[k][1]))
        out[k] = shapely.intersection(a.material, moved).area > 1e-12 * size * size
    return out

def place(points: np.ndarray, angle: np.ndarray, offset: np.ndarray) -> np.ndarray:
    """Points (n, 2) turned by each angle (K,) and moved by each offset (K, 2): (K, n, 2)."""
    c, s = np.cos(angle)[:, None], np.sin(angle)[:, None]
    x, y = points[:, 0][None, :], points[:, 1][None, :]
    return np.stack([c * x - s * y + offset[:, None, 0], s * x + c * y + offset[:, None, 1]], axis=-1)


def _concat(parts: list[_Roots]) -> _Roots:
    return _Roots(*(np.concatenate([getattr(p, f) for p in parts]) for f in ("k", "v", "feature", "change", "degenerate")))


def _edges(vertices: np.ndarray, following: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Edge starts, edge vectors and outward unit normals (material on the left)."""
    start = vertices
    vector = vertices[..., following, :] - vertices
    normal = np.stack([vector[..., 1], -vector[..., 0]], axis=-1)
    length = np.linalg.norm(normal, axis=-1, keepdims=True)
    return start, vector, normal / np.where(length > 0, length, 1.0)


def _pairs(keys: np.ndarray, lows: np.ndarray, highs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Pairs (interval index, key index) with lows[i] <= keys[j] <= highs[i]; keys sorted
    ascending per row of ``lows`` (each row's keys are ``keys`` shifted by nothing)."""
    first = np.searchsorted(keys, lows, side="left")
    last = np.searchsorted(keys, highs, side="right")
    counts = np.maximum(last - first, 0).ravel()
    owner = np.repeat(np.arange(counts.size), counts)
    offsets = np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts)
    return owner, first.ravel()[owner] + offsets


def _translation_roots(a: Shape, b: Shape, placed: np.ndarray, d: np.ndarray, kind: int) -> _Roots:
    """Kind 0: B's vertices (moving) meeting A's edges; kind 1: A's vertices meeting B's edges."""
    K = len(placed)
    na, nb = len(a.vertices), len(b.vertices)
    side = np.stack([-d[:, 1], d[:, 0]], axis=1)                               # across the motion
    if kind == 0:
        movers = placed                                                        # (K, nb, 2)
        e0, ev, en = (np.broadcast_to(x, (K,) + x.shape) for x in _edges(a.vertices, a.following))
        mover_next, mover_prev = b.following, b.preceding
        direction = d
    else:
        movers = np.broadcast_to(a.vertices, (K, na, 2))
        e0, ev, en = _edges(placed, b.following)                               # (K, nb, ...)
        mover_next, mover_prev = a.following, a.preceding
        direction = -d                                                         # A's vertices move so relative to B
    # A mover meets an edge only if its line along the motion crosses the edge: offsets across.
    offset = np.einsum("kvx,kx->kv", movers, side)
    ends = np.stack([np.einsum("kex,kx->ke", e0, side), np.einsum("kex,kx->ke", e0 + ev, side)], axis=-1)
    span = np.abs(ends).max(initial=0.0) * 1e-12 + 1e-300
    k_, e_, m_ = _candidates(offset, ends.min(axis=2) - span, ends.max(axis=2) + span)
    w = movers[k_, m_]
    n = en[k_, e_]
    rate = np.einsum("px,px->p", n, direction[k_])
    moving = np.abs(rate) > 1e-12
    with np.errstate(divide="ignore", invalid="ignore"):
        v = np.where(moving, np.einsum("px,px->p", n, e0[k_, e_] - w) / np.where(moving, rate, 1.0), 0.0)
    hit = w + v[:, None] * direction[k_]
    t = _along(hit, e0[k_, e_], ev[k_, e_])
    shifted = v[:, None] * direction[k_]
    sides = [np.einsum("px,px->p", n, movers[k_, nbr] + shifted - e0[k_, e_]) for nbr in (mover_prev[m_], mover_next[m_])]
    feature = (e_ * nb + m_) * 2 if kind == 0 else (na * nb + m_ * nb + e_) * 2
    return _classify(k_, v, feature, rate < 0, t, sides, ~moving)


def _rotation_roots(a: Shape, b: Shape, placed: np.ndarray, center: np.ndarray, sign: int, kind: int) -> _Roots:
    """Kind 0: B's vertices (turning by sign * v) meeting A's edges; kind 1: A's vertices,
    turning by -sign * v relative to B, meeting B's edges."""
    K = len(placed)
    na, nb = len(a.vertices), len(b.vertices)
    if kind == 0:
        movers = placed
        e0, ev, en = (np.broadcast_to(x, (K,) + x.shape) for x in _edges(a.vertices, a.following))
        mover_next, mover_prev = b.following, b.preceding
        turn = sign
    else:
        movers = np.broadcast_to(a.vertices, (K, na, 2))
        e0, ev, en = _edges(placed, b.following)
        mover_next, mover_prev = a.following, a.preceding
        turn = -sign
    arm = movers - center[:, None, :]
    radius = np.hypot(arm[..., 0], arm[..., 1])                                    # (K, nm)
    near, far = _distance_range(e0, ev, center)                                   # (K, ne)
    k_, e_, m_ = _candidates(radius, near * (1 - 1e-9), far * (1 + 1e-9))
    w = arm[k_, m_]
    n = en[k_, e_]
    alpha = n[:, 0] * w[:, 0] + n[:, 1] * w[:, 1]
    beta = n[:, 1] * w[:, 0] - n[:, 0] * w[:, 1]
    gamma = np.einsum("px,px->p", n, e0[k_, e_] - center[k_])
    r = np.hypot(alpha, beta)
    with np.errstate(invalid="ignore", divide="ignore"):
        spread = np.arccos(np.clip(gamma / np.where(r > 0, r, 1.0), -1.0, 1.0))
    reach = np.abs(gamma) <= r * (1 + 1e-9)
    grazing = np.abs(np.abs(gamma) - r) <= 1e-9 * r     # the vertex's circle just touches the line
    base = np.arctan2(beta, alpha)
    found = []
    for root, phi in ((0, base - spread), (1, base + spread)):
        c, s = np.cos(phi), np.sin(phi)
        turned = np.stack([c * w[:, 0] - s * w[:, 1], s * w[:, 0] + c * w[:, 1]], axis=1)
        t = np.where(reach, _along(center[k_] + turned, e0[k_, e_], ev[k_, e_]), np.nan)
        sides = []
        for nbr in (mover_prev[m_], mover_next[m_]):
            other = movers[k_, nbr] - center[k_]
            other = np.stack([c * other[:, 0] - s * other[:, 1], s * other[:, 0] + c * other[:, 1]], axis=1)
            sides.append(np.einsum("px,px->p", n, center[k_] + other - e0[k_, e_]))
        # As phi grows the vertex leaves the edge's inner side at the first root and comes
        # back at the second; v runs with phi or against it.
        entering = np.full(len(k_), (root == 1) == (turn > 0))
        feature = (e_ * nb + m_) * 2 + root if kind == 0 else (na * nb + m_ * nb + e_) * 2 + root
        found.append(_classify(k_, _wrap(phi * turn), feature, entering, t, sides, grazing))
    return _concat(found)


def _candidates(keys: np.ndarray, lows: np.ndarray, highs: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(placement, edge, vertex) triples whose vertex key lies in the edge's [low, high]."""
    order = np.argsort(keys, axis=1)
    ordered = np.take_along_axis(keys, order, 1)
    ks, edges, movers = [], [], []
    for k in range(len(keys)):
        owner, at = _pairs(ordered[k], lows[k], highs[k])
        ks.append(np.full(len(owner), k))
        edges.append(owner)
        movers.append(order[k][at])
    return tuple(np.concatenate(x) if x else np.zeros(0, int) for x in (ks, edges, movers))


def _along(point: np.ndarray, start: np.ndarray, vector: np.ndarray) -> np.ndarray:
    """Where a point lies along an edge, as a fraction of it."""
    return np.einsum("px,px->p", point - start, vector) / np.einsum("px,px->p", vector, vector)


def _classify(k: np.ndarray, v: np.ndarray, feature: np.ndarray, entering: np.ndarray, t: np.ndarray,
              sides: list[np.ndarray], tie: np.ndarray) -> _Roots:
    """Roots whose contact lies on the edge, with the count's change there. A root at an
    edge's end, with a neighbouring vertex on the edge's line, or where the vertex only
    grazes the line, is *degenerate*: its change depends on more than the one contact, so
    its placement is settled by direct overlap tests instead."""
    near_end = (np.abs(t) <= ENDS) | (np.abs(t - 1) <= ENDS)
    keep = (t >= -ENDS) & (t <= 1 + ENDS)
    scale = 1e-9 * (np.abs(np.concatenate(sides)).max(initial=0.0) + 1e-300)
    flat = np.zeros(len(k), bool)
    for s in sides:
        flat |= np.abs(s) <= scale
    before = np.where(entering, 1.0, -1.0)
    crossing = sum(np.where(np.sign(s) == before, 1, -1) for s in sides)
    change = np.where(entering, 1, -1) + crossing
    degenerate = near_end | flat | tie
    return _Roots(k[keep], v[keep], feature[keep], change[keep], degenerate[keep])


def _cross(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    return p[..., 0] * q[..., 1] - p[..., 1] * q[..., 0]


def _distance_range(e0: np.ndarray, ev: np.ndarray, center: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Least and greatest distance of each edge from the centre (K, ne)."""
    rel = e0 - center[:, None, :]
    length2 = np.einsum("kex,kex->ke", ev, ev)
    t = np.clip(-np.einsum("kex,kex->ke", rel, ev) / np.where(length2 > 0, length2, 1.0), 0.0, 1.0)
    closest = rel + t[..., None] * ev
    near = np.hypot(closest[..., 0], closest[..., 1])
    far = np.maximum(np.hypot(rel[..., 0], rel[..., 1]), np.hypot(*(rel + ev).transpose(2, 0, 1)))
    return near, far


def _wrap(v: np.ndarray) -> np.ndarray:
    """Angles into [-pi, pi)."""
    return (v + math.pi) % TURN - math.pi


def _starts(roots: _Roots, K: int) -> np.ndarray:
    """Per placement, a value of ``v`` half way across the widest gap between its roots."""
    order = np.lexsort((roots.v, roots.k))
    k_all, v_all = roots.k[order], roots.v[order]
    bounds = np.searchsorted(k_all, np.arange(K + 1))
    start = np.zeros(K)
    for k in range(K):
        values = v_all[bounds[k]:bounds[k + 1]]
        if len(values):
            gaps = np.diff(np.append(values, values[0] + TURN))
            g = int(np.argmax(gaps))
            start[k] = _wrap(values[g] + gaps[g] / 2)
    return start

def _intervals(roots: _Roots, K: int, start: np.ndarray, cyclic: bool, overlaps) -> Intervals:
    """Blocked intervals from the roots per placement: the count is followed through the
    roots in order, from a start value (far below for a translation), and is positive
    where the parts overlap (``overlaps(k, values)`` tells directly, see :func:`_levels`).
    Roots at one value act together: their changes add up, and the first feature there
    (in feature order) names the contact."""
    rows = []
    order = np.lexsort((roots.feature, roots.v, roots.k))
    k_all, v_all, f_all, c_all, d_all = (getattr(roots, f)[order] for f in ("k", "v", "feature", "change",
                                                                           "degenerate"))
    bounds = np.searchsorted(k_all, np.arange(K + 1))
    for k in range(K):
        v, f, c, odd = (x[bounds[k]:bounds[k + 1]] for x in (v_all, f_all, c_all, d_all))
        if len(v):
            v, first = np.unique(v, return_index=True)
            f = f[first]
            c = np.add.reduceat(c, first)
            odd = np.logical_or.reduceat(odd, first)
        if cyclic and len(v):
            turn = int(np.searchsorted(v, start[k]))
            v = np.concatenate([v[turn:], v[:turn] + TURN])
            f, c, odd = (np.concatenate([x[turn:], x[:turn]]) for x in (f, c, odd))
        levels = _levels(v, c, odd, float(start[k]), cyclic, lambda x, k=k: overlaps(k, x))
        rows.append(_runs(v, f, levels > 0, cyclic))
    counts = np.array([len(r) for r in rows], int)
    width = max(1, int(counts.max(initial=0)))
    table = np.full((K, width, 4), np.nan)
    for k, row in enumerate(rows):
        if row:
            table[k, :len(row)] = row
    features = np.where(np.isnan(table[..., 2:]), NO_FEATURE, table[..., 2:]).astype(np.int64)
    return Intervals(table[..., 0], table[..., 1], features[..., 0], features[..., 1], counts)


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
    """The faces touching at contact ``feature``: an edge's faces and a vertex's feature."""
    na, nb = len(a.vertices), len(b.vertices)
    rest = feature // 2
    if rest < na * nb:
        i, j = divmod(rest, nb)
        return a.edge_faces[i], (b.vertex_features[j],)
    i, j = divmod(rest - na * nb, nb)
    return (a.vertex_features[i],), b.edge_faces[j]
