"""Contact curves of a pair in closed form, one coordinate at a time.

With every coordinate of a pair but one held, part B moves relative to part A along a
one-parameter rigid motion: a translation ``v * d`` or a turn by ``v`` about a point.
For two convex pieces the blocked values of ``v`` lie between *contact
configurations*, where a vertex of one piece lies on an edge of the other (a vertex-line
or a line-vertex contact; arcs reach here already flattened into edges):

* translation: ``B + v d`` overlaps ``A`` while ``v d`` is inside ``A + (-B)``, whose
  facets are A's edges and B's edges turned round; each facet bounds ``v`` on one side,
  so the blocked set is one open interval and the facet that binds at each end is the
  contact there;
* rotation: a vertex turning about a point meets an edge's line where
  ``alpha cos v + beta sin v = gamma``; the roots whose contact point lies on the edge
  are every place the overlap can start or stop, so testing one value between each two
  consecutive roots gives the blocked arcs exactly.

Every function is vectorized over ``K`` placements of B (one per value of the held
coordinate), so a whole sweep of the other coordinate costs a few array operations.
Each end of a blocked interval carries a *feature*: an integer naming the vertex, the
edge and (for rotation) the root, equal at two placements exactly when the end follows
one smooth contact curve between them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

Label = tuple[tuple[str, ...], tuple[str, ...]]
NO_FEATURE = -1  # an end that is not a contact (a full turn blocked, a domain's edge)


@dataclass(frozen=True)
class Piece:
    """A convex piece of a part in its own frame: float vertices, counterclockwise, with
    the face or corner at each vertex and the faces along each edge (empty inside)."""

    vertices: np.ndarray
    vertex_features: tuple[str, ...]
    edge_faces: tuple[tuple[str, ...], ...]
    z: tuple[float, float] = (-math.inf, math.inf)

    def meets(self, other: Piece) -> bool:
        """Do the two pieces' slices overlap in z (with positive length)?"""
        return self.z[0] < other.z[1] and other.z[0] < self.z[1]

    @property
    def reach(self) -> tuple[float, float]:
        """Least and greatest distance of the piece's vertices from the frame's origin."""
        r = np.hypot(self.vertices[:, 0], self.vertices[:, 1])
        return float(r.min()), float(r.max())

    def __repr__(self) -> str:
        return f"Piece(vertices={len(self.vertices)})"


def edge_normals(vertices: np.ndarray) -> np.ndarray:
    """Outward unit normals of a counterclockwise polygon's edges (the last axis holds x, y)."""
    edges = np.roll(vertices, -1, axis=-2) - vertices
    normals = np.stack([edges[..., 1], -edges[..., 0]], axis=-1)
    return normals / np.linalg.norm(normals, axis=-1, keepdims=True)


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


def translation_intervals(a: Piece, b: np.ndarray, d: np.ndarray) -> Intervals:
    """Blocked ``v`` for ``K`` placements ``b`` (K, nb, 2) of piece B translating along
    ``d`` (K, 2), against piece A, both in A's frame.

    A feature ``i * nb + j`` is A's edge i against B's vertex j; ``na * nb + j * na + i``
    is B's edge j against A's vertex i.
    """
    K, nb = b.shape[0], b.shape[1]
    na = len(a.vertices)
    na_normals = edge_normals(a.vertices)                               # (na, 2)
    nb_normals = edge_normals(b)                                        # (K, nb, 2)
    # A's facets: n_i . (v d) < h_i with h_i = max_A n_i - min_B n_i.
    a_support = (na_normals * a.vertices).sum(axis=1)                   # (na,)
    b_along_a = np.matmul(na_normals, b.transpose(0, 2, 1))             # (K, na, nb)
    b_min_j = np.argmin(b_along_a, axis=2)                               # (K, na)
    h_a = a_support[None, :] - np.take_along_axis(b_along_a, b_min_j[..., None], 2)[..., 0]
    g_a = d @ na_normals.T                                               # (K, na)
    # B's facets, turned round: -n_j . (v d) < max_B n_j - min_A n_j.
    b_support = (nb_normals * b).sum(axis=2)                            # (K, nb)
    a_along_b = np.matmul(nb_normals, a.vertices.T)                      # (K, nb, na)
    a_min_i = np.argmin(a_along_b, axis=2)                               # (K, nb)
    h_b = b_support - np.take_along_axis(a_along_b, a_min_i[..., None], 2)[..., 0]
    g_b = -(nb_normals * d[:, None, :]).sum(axis=2)
    g = np.concatenate([g_a, g_b], axis=1)
    h = np.concatenate([h_a, h_b], axis=1)
    features = np.concatenate([np.arange(na)[None, :] * nb + b_min_j,
                               na * nb + np.arange(nb)[None, :] * na + a_min_i], axis=1)
    scale = np.abs(h).max(axis=1, keepdims=True) + 1.0
    flat = np.abs(g) <= 1e-14
    with np.errstate(divide="ignore", invalid="ignore"):
        bound = h / g
    lower = np.where(g < 0, bound, -np.inf)
    upper = np.where(g > 0, bound, np.inf)
    lower[flat] = -np.inf
    upper[flat] = np.inf
    never = (flat & (h <= 1e-14 * scale)).any(axis=1)
    m_lo, m_hi = np.argmax(lower, axis=1), np.argmin(upper, axis=1)
    rows = np.arange(K)
    lo, hi = lower[rows, m_lo], upper[rows, m_hi]
    blocked = ~never & (lo < hi)
    return Intervals(np.where(blocked, lo, np.nan)[:, None], np.where(blocked, hi, np.nan)[:, None],
                     np.where(blocked, features[rows, m_lo], NO_FEATURE)[:, None],
                     np.where(blocked, features[rows, m_hi], NO_FEATURE)[:, None], blocked.astype(int))


def translation_label(a: Piece, b: Piece, feature: int) -> Label:
    """The faces touching at translation contact ``feature``: an edge's faces and the
    vertex's face or corner."""
    na, nb = len(a.vertices), len(b.vertices)
    if feature < na * nb:
        i, j = divmod(feature, nb)
        return a.edge_faces[i], (b.vertex_features[j],)
    j, i = divmod(feature - na * nb, na)
    return (a.vertex_features[i],), b.edge_faces[j]


def rotation_intervals(a: Piece, b: np.ndarray, center: np.ndarray, sign: int) -> Intervals:
    """Blocked ``v`` in [-pi, pi) for ``K`` placements ``b`` (K, nb, 2) of piece B, each
    turning by ``sign * v`` about ``center`` (K, 2), against piece A, in A's frame.

    Intervals are arcs: an arc across the seam has ``hi > pi``. A feature is
    ``((kind * na + i) * nb + j) * 2 + root``: kind 0 is B's vertex j on A's edge i,
    kind 1 A's vertex i on B's edge j; ``root`` tells the two solutions apart.
    """
    K, nb = b.shape[0], b.shape[1]
    na = len(a.vertices)
    roots, features = _rotation_roots(a.vertices, b, center, sign)
    order = np.argsort(roots, axis=1)
    roots = np.take_along_axis(roots, order, 1)
    features = np.take_along_axis(features, order, 1)
    count = np.isfinite(roots).sum(axis=1)
    # One value between each two consecutive roots (cyclically), tested for overlap.
    width = roots.shape[1]
    nxt = np.where(np.arange(width)[None, :] + 1 < count[:, None], np.roll(roots, -1, axis=1),
                   roots[:, :1] + 2 * math.pi)
    probes = np.where(np.isfinite(roots), (roots + nxt) / 2, np.nan)
    lone = count == 0
    probes[lone, 0] = 0.0
    tested = np.isfinite(probes)
    inside = np.zeros(probes.shape, bool)
    rows, _ = np.nonzero(tested)
    inside[tested] = _overlapping(a.vertices, b[rows], center[rows], sign, probes[tested])
    los, his, flo, fhi, counts = [], [], [], [], []
    for k in range(K):
        if lone[k]:
            full = bool(inside[k, 0])
            los.append([-math.pi] if full else [])
            his.append([math.pi] if full else [])
            flo.append([NO_FEATURE] if full else [])
            fhi.append([NO_FEATURE] if full else [])
            continue
        n = int(count[k])
        r, f, blocked = roots[k, :n], features[k, :n], inside[k, :n]
        arcs = _arcs(r, f, blocked)
        los.append([x[0] for x in arcs])
        his.append([x[1] for x in arcs])
        flo.append([x[2] for x in arcs])
        fhi.append([x[3] for x in arcs])
    counts = np.array([len(x) for x in los], int)
    width = max(int(counts.max(initial=0)), 1)
    return Intervals(_pad(los, width, np.nan), _pad(his, width, np.nan),
                     _pad(flo, width, NO_FEATURE).astype(int), _pad(fhi, width, NO_FEATURE).astype(int), counts)


def _arcs(roots: np.ndarray, features: np.ndarray, blocked: np.ndarray) -> list[tuple]:
    """Blocked arcs from sorted roots and the overlap test after each root (cyclic):
    (lo, hi, lo feature, hi feature), lo in [-pi, pi), merged across roots inside blocked space."""
    n = len(roots)
    if blocked.all():
        return [(-math.pi, math.pi, NO_FEATURE, NO_FEATURE)]
    start = int(np.flatnonzero(~blocked)[0]) + 1  # the first root after a free stretch
    arcs = []
    k = 0
    while k < n:
        i = (start + k) % n
        if not blocked[i]:
            k += 1
            continue
        j = k
        while blocked[(start + j) % n]:
            j += 1
        lo, hi = roots[i], roots[(start + j) % n]
        if hi <= lo:
            hi += 2 * math.pi
        if lo >= math.pi:
            lo, hi = lo - 2 * math.pi, hi - 2 * math.pi
        arcs.append((float(lo), float(hi), int(features[i]), int(features[(start + j) % n])))
        k = j + 1
    return sorted(arcs)


def _pad(rows: list[list], width: int, fill) -> np.ndarray:
    out = np.full((len(rows), width), fill, dtype=float)
    for k, row in enumerate(rows):
        out[k, :len(row)] = row
    return out


def _rotation_roots(a: np.ndarray, b: np.ndarray, center: np.ndarray, sign: int) -> tuple[np.ndarray, np.ndarray]:
    """Every v in [-pi, pi) where a vertex of one piece lies on an edge of the other (K, M),
    nan-padded, and its feature."""
    K, nb = b.shape[0], b.shape[1]
    na = len(a)
    # Kind 0: B's vertex j, turned by phi = sign * v about c, on A's edge i.
    phi0, t0 = _vertex_on_edges(np.broadcast_to(a, (K, na, 2)), b, center)     # (K, na, nb, 2)
    # Kind 1: A's vertex i turned by phi = -sign * v about c (B held) on B's edge j.
    phi1, t1 = _vertex_on_edges(b, np.broadcast_to(a, (K, na, 2)), center)     # (K, nb, na, 2)
    v0 = phi0 * sign
    v1 = -phi1 * sign
    ok0 = (t0 >= -1e-12) & (t0 <= 1 + 1e-12)
    ok1 = (t1 >= -1e-12) & (t1 <= 1 + 1e-12)
    v0 = np.where(ok0, _wrap(v0), np.nan)
    v1 = np.where(ok1, _wrap(v1), np.nan)
    i0, j0, r0 = np.meshgrid(np.arange(na), np.arange(nb), np.arange(2), indexing="ij")
    f0 = (i0 * nb + j0) * 2 + r0
    j1, i1, r1 = np.meshgrid(np.arange(nb), np.arange(na), np.arange(2), indexing="ij")
    f1 = ((na + i1) * nb + j1) * 2 + r1
    roots = np.concatenate([v0.reshape(K, -1), v1.reshape(K, -1)], axis=1)
    features = np.concatenate([np.broadcast_to(f0.ravel(), (K, f0.size)),
                               np.broadcast_to(f1.ravel(), (K, f1.size))], axis=1)
    return roots, np.array(features)


def _vertex_on_edges(edges_of: np.ndarray, vertices: np.ndarray, center: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Angles phi (K, ne, nv, 2 roots) turning each vertex about ``center`` onto the line of
    each edge of the (held) polygon ``edges_of``, and where along the edge it lands (t in
    [0, 1] is on the edge); nan where the line is out of the vertex's reach."""
    p0 = edges_of                                                        # (K, ne, 2)
    e = np.roll(edges_of, -1, axis=1) - p0
    n = np.stack([e[..., 1], -e[..., 0]], axis=-1)
    n = n / np.linalg.norm(n, axis=-1, keepdims=True)
    w = vertices - center[:, None, :]                                    # (K, nv, 2)
    # n . R(phi) w = alpha cos phi + beta sin phi, with R(phi) w turning w counterclockwise.
    alpha = np.einsum("kex,kvx->kev", n, w)
    beta = n[..., 1][..., None] * w[:, None, :, 0] - n[..., 0][..., None] * w[:, None, :, 1]
    gamma = np.einsum("kex,kex->ke", n, p0 - center[:, None, :])[..., None]
    radius = np.hypot(alpha, beta)
    with np.errstate(invalid="ignore", divide="ignore"):
        ratio = gamma / radius
    reach = np.abs(ratio) <= 1 + 1e-12
    base = np.arctan2(beta, alpha)
    spread = np.arccos(np.clip(ratio, -1.0, 1.0))
    phi = np.stack([base - spread, base + spread], axis=-1)
    phi = np.where(reach[..., None], phi, np.nan)
    c, s = np.cos(phi), np.sin(phi)
    wx, wy = w[:, None, :, 0, None], w[:, None, :, 1, None]
    px = center[:, None, None, 0, None] + c * wx - s * wy
    py = center[:, None, None, 1, None] + s * wx + c * wy
    ex, ey = e[..., 0][..., None, None], e[..., 1][..., None, None]
    t = ((px - p0[..., 0][..., None, None]) * ex + (py - p0[..., 1][..., None, None]) * ey) / (ex * ex + ey * ey)
    return phi, t


def _wrap(v: np.ndarray) -> np.ndarray:
    """Angles into [-pi, pi)."""
    return (v + math.pi) % (2 * math.pi) - math.pi


def _overlapping(a: np.ndarray, b: np.ndarray, center: np.ndarray, sign: int, angles: np.ndarray) -> np.ndarray:
    """Do the open pieces overlap with B (N, nb, 2) turned by ``sign * angles`` (N,) about
    ``center`` (N, 2)? Separating axes: both pieces' edge normals; a piece's extent along
    its own normals does not change as it turns."""
    phi = sign * angles
    c, s = np.cos(phi)[:, None], np.sin(phi)[:, None]
    w = b - center[:, None, :]
    turned = np.stack([center[:, None, 0] + c * w[..., 0] - s * w[..., 1],
                       center[:, None, 1] + s * w[..., 0] + c * w[..., 1]], axis=-1)      # (N, nb, 2)
    na_normals = edge_normals(a)                                                        # (na, 2)
    own_a = a @ na_normals.T                                                            # (na, na)
    b_on_a = np.matmul(turned, na_normals.T)                                            # (N, nb, na)
    gap_a = np.minimum(own_a.max(axis=0)[None, :] - b_on_a.min(axis=1),
                       b_on_a.max(axis=1) - own_a.min(axis=0)[None, :])                 # (N, na)
    nb_normals = edge_normals(turned)                                                   # (N, nb, 2)
    own_b = np.matmul(turned, nb_normals.transpose(0, 2, 1))                            # (N, nb, nb)
    a_on_b = np.matmul(nb_normals, a.T)                                                 # (N, nb, na)
    gap_b = np.minimum(own_b.max(axis=1) - a_on_b.min(axis=2), a_on_b.max(axis=2) - own_b.min(axis=1))
    scale = 1e-12 * (np.abs(a).max() + np.abs(turned).max(axis=(1, 2)) + 1.0)
    return (gap_a > scale[:, None]).all(axis=1) & (gap_b > scale[:, None]).all(axis=1)


def rotation_label(a: Piece, b: Piece, feature: int) -> Label:
    """The faces touching at a rotation contact ``feature``."""
    na, nb = len(a.vertices), len(b.vertices)
    rest = feature // 2
    kind_i, j = divmod(rest, nb)
    kind, i = divmod(kind_i, na)
    if kind == 0:
        return a.edge_faces[i], (b.vertex_features[j],)
    return (a.vertex_features[i],), b.edge_faces[j]
