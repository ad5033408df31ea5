"""Small linear programs solved exactly, by enumerating their vertices.

A program of at most :data:`MAX_UNKNOWNS` unknowns has few vertices: each choice of ``n``
of its constraints (a row's upper or lower side, a variable's bound) with independent
normals meets in one point. Every such ``n`` x ``n`` system is solved at once, by its
adjugate (closed forms up to three unknowns, numpy's batched LAPACK for four). Among the
points that keep every constraint (within the tolerance) the best is the optimum; none
means the program is infeasible; and a feasible program is bounded exactly when some
basis is dual feasible (the cost's negative is a nonnegative combination of the basis's
normals: Farkas), which the same adjugates decide. One unknown is an interval, solved
in plain Python. Simple dynamics solves thousands of such programs (1 to 3 unknowns,
1 to 4 rows) in a trace; this costs a fraction of a fresh HiGHS model
(``tools/bench_lp.py``).

The answer is HiGHS's wherever HiGHS's is determined: the status, the optimal value, and
the point when the optimum is one point. Where it is not, or where HiGHS's judgement and
this one may differ, :func:`solve` declines (returns None) and the caller asks HiGHS,
whose answer is then the answer, as it always was: optimal points that tie (when the
point is asked), the point of a program whose variables are not all boxed (its optimal
set may be a ray), normals that do not span (no vertex), a basis so near dependent
(:data:`WELL`) that its vertex is inexact, and a vertex, or a descent, within
:data:`BAND` times the tolerance of kept (the two solvers round differently there).
Tested against HiGHS on random, integer, badly scaled and nearly parallel programs
(``tests/test_vertices.py``).
"""

from __future__ import annotations

import math
from functools import lru_cache
from itertools import combinations
from typing import NamedTuple

import numpy as np

INFEASIBLE = "infeasible"
OPTIMAL = "optimal"
UNBOUNDED = "unbounded"
MAX_UNKNOWNS = 4  # programs with more unknowns go to HiGHS
MAX_BASES = 2048  # nor is a program enumerated whose constraints give more choices of n than this
SMALL_ENTRY = 1e-9  # HiGHS's small_matrix_value: a row's entry no larger is a zero to it, and so here
EPS = float(np.finfo(float).eps)
ROUNDING = 8 * EPS  # rounding of a computed vertex, relative to the sizes of the terms
BAND = 10  # within this factor of the tolerance, HiGHS's rounding and ours may judge a vertex apart
WELL = 1e-6  # a basis nearer dependent (determinant over the product of its normals' lengths) is left to HiGHS

Answer = tuple[str, "np.ndarray | None", float]


def solve(cost: np.ndarray, rows: np.ndarray, lower: np.ndarray, upper: np.ndarray, var_lower: np.ndarray,
          var_upper: np.ndarray, tolerance: float, point: bool = True) -> Answer | None:
    """Minimize ``cost @ x`` subject to ``lower <= rows @ x <= upper`` and the variables' bounds
    (infinite entries: no bound), as :meth:`cspace.kernels.constraints.ConstraintManager.solve`.

    The rows are read as HiGHS reads them: entries of at most :data:`SMALL_ENTRY` are zeros.
    Returns ``(status, x, objective)``, ``x`` None unless optimal; or None where the
    answer is not this method's to give (the module says where; also more unknowns than
    :data:`MAX_UNKNOWNS` or more bases than :data:`MAX_BASES`). ``point=False`` says the
    caller uses the status and value only: ties do not matter then. ``tolerance`` is
    HiGHS's primal and dual feasibility tolerance: a constraint is kept if broken by no
    more (beyond rounding), and optima within it (per unit moved) of each other tie. Of
    the vertices that share the best value, the first (in the order of
    :func:`_inequalities`, then of the choices) is the one given.

    >>> solve(np.array([1.0, 0.5]), np.array([[-1.0, -1.0]]), np.array([-np.inf]), np.array([-1.0]),
    ...       np.zeros(2), np.full(2, 10.0), 1e-10)
    ('optimal', array([0., 1.]), 0.5)
    """
    cost = np.asarray(cost, float)
    n = len(cost)
    if not 0 < n <= MAX_UNKNOWNS:
        return None
    if n == 1:
        (low,), (high,) = np.asarray(var_lower, float).tolist(), np.asarray(var_upper, float).tolist()
        if point and not (math.isfinite(low) and math.isfinite(high)):
            return None
        normals = [a if abs(a) > SMALL_ENTRY else 0.0 for a in np.asarray(rows, float).ravel().tolist()]
        sides = np.asarray(upper, float).tolist() + [-b for b in np.asarray(lower, float).tolist()] + [high, -low]
        return _interval(float(cost[0]), normals + [-a for a in normals] + [1.0, -1.0], sides, tolerance, point)
    rows = np.asarray(rows, float).reshape(-1, n)
    rows = np.where(np.abs(rows) > SMALL_ENTRY, rows, 0.0)
    lower, upper = np.asarray(lower, float), np.asarray(upper, float)
    var_lower, var_upper = np.asarray(var_lower, float), np.asarray(var_upper, float)
    G, g = _inequalities(rows, lower, upper, var_lower, var_upper)
    finite = np.isfinite(g)
    if _basis_count(finite, len(rows), n) > MAX_BASES:
        return None  # counted before the choices are made: a program of many rows has millions
    choices = _bases(len(rows), n, finite.tobytes())
    if point and not choices.boxed or not 0 < len(choices.bases) <= MAX_BASES:
        return None
    lengths = np.sqrt(np.einsum("ij,ij->i", G, G))  # of each inequality's normal
    X, weights, measure = _vertices(G, g, lengths, choices, None if choices.boxed else cost)
    if (measure < WELL).any():
        return None  # a basis so near dependent that its vertex is inexact
    size = np.sqrt(np.einsum("ij,ij->i", X, X))  # NaN where dependent
    # A vertex is a rounding off, of its size: so each constraint's value at it (normwise).
    terms = size[:, None] * lengths + np.where(finite, np.abs(g), 0.0)
    worst = (X @ G.T - g - ROUNDING * terms).max(axis=1)  # the most a constraint is broken; NaN where dependent
    if ((worst > tolerance / BAND) & (worst <= tolerance * BAND)).any():
        return None  # a vertex kept or broken by a hair: HiGHS may judge it otherwise
    feasible = worst <= tolerance
    if not feasible.any():
        return (INFEASIBLE, None, math.inf) if not np.isnan(size).all() else None
    if weights is not None:
        # Leaving a basis's constraint i, the objective falls by -w_i per unit of the constraint's
        # value, and by at least -w_i measure per unit the vertex moves: HiGHS's dual tolerance is
        # per unit of its entering variable, a slack or a variable.
        least = weights.min(axis=1)
        if not (least >= -tolerance / BAND).any():
            if (least >= -tolerance * BAND).any() or (least * measure >= -tolerance * BAND).any():
                return None  # the objective falls by a hair, or too slowly: HiGHS may call it bounded
            return UNBOUNDED, None, -math.inf
    X, size = X[feasible], size[feasible]
    values = X @ cost
    best = int(values.argmin())
    if point and _tied(X, values, best, size, cost, tolerance * max(1.0, float(lengths.max()))):
        return None
    x = X[best]
    return OPTIMAL, x, float(cost @ x)


def _interval(cost: float, normals: list[float], sides: list[float], tolerance: float, point: bool) -> Answer | None:
    """:func:`solve` for one unknown, on the inequalities ``normals[k] * x <= sides[k]``, in
    plain Python: the vertices are ``sides[k] / normals[k]``, judged as :func:`solve` judges."""
    if -math.inf in sides:
        return INFEASIBLE, None, math.inf  # a side no point keeps (its vertex would be infinite, its excess inf - inf)
    constraints = [(a, b) for a, b in zip(normals, sides) if b != math.inf]
    vertices = [b / a for a, b in constraints if a != 0]
    if not vertices:
        return None
    worst = [max(a * x - b - ROUNDING * (abs(a * x) + abs(b)) for a, b in constraints) for x in vertices]
    if any(tolerance / BAND < w <= tolerance * BAND for w in worst):
        return None
    feasible = [x for x, w in zip(vertices, worst) if w <= tolerance]
    if not feasible:
        return INFEASIBLE, None, math.inf
    weights = [-cost if a > 0 else cost for a, _ in constraints if a != 0]  # -cost over each unit normal
    if not any(w >= -tolerance / BAND for w in weights):
        return None if any(w >= -tolerance * BAND for w in weights) else (UNBOUNDED, None, -math.inf)
    values = [cost * x for x in feasible]
    best = values.index(min(values))
    x = feasible[best]
    for other, value in zip(feasible, values):
        moved = abs(other - x)
        if point and moved > tolerance * (1 + abs(other)) and \
                value - values[best] <= tolerance * moved + ROUNDING * (abs(value) + abs(values[best])):
            return None
    return OPTIMAL, np.array([x]), cost * x


def _inequalities(rows: np.ndarray, lower: np.ndarray, upper: np.ndarray, var_lower: np.ndarray,
                  var_upper: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every side of the rows and bounds as one inequality ``G @ x <= g``: the rows' upper
    sides, the rows' lower sides, the variables' upper bounds, their lower bounds. A side
    with no bound has ``g`` infinite: it is kept by every point and in no basis (and one of
    ``-inf``, an upper bound of ``-inf``, is kept by none)."""
    identity = _IDENTITY[len(var_lower)]
    G = np.concatenate((rows, -rows, identity, -identity))
    g = np.concatenate((upper, -lower, var_upper, -var_lower))
    return G, g


_IDENTITY = {n: np.eye(n) for n in range(1, MAX_UNKNOWNS + 1)}


class Choices(NamedTuple):
    """The bases of a program's shape, as indices of its inequalities (``G``'s rows): each
    basis; for the cofactors of three unknowns, its rows taken cyclically from the second
    and from the third, as flat indices of a table of pairs; whether the variables are
    boxed; and the variables each basis holds at a bound (see :func:`_pin`)."""

    bases: np.ndarray
    first: np.ndarray
    pairs: np.ndarray
    boxed: bool  # every variable has both bounds: the program is bounded
    pinned: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]  # flat index into X, inequality, sign


def _basis_count(finite: np.ndarray, m: int, n: int) -> int:
    """How many choices :func:`_bases` makes: ``n`` bounded inequalities from ``n`` different
    rows or variables (the elementary symmetric sum of the bounded sides per row and variable)."""
    per_group = finite[:m].astype(int) + finite[m:2 * m] if m else np.zeros(0, int)
    sizes = per_group.tolist() + (finite[2 * m:2 * m + n].astype(int) + finite[2 * m + n:]).tolist()
    ways = [1] + [0] * n
    for size in sizes:
        if size:
            for k in range(n, 0, -1):
                ways[k] += size * ways[k - 1]
    return ways[n]


@lru_cache(maxsize=4096)
def _bases(m: int, n: int, finite: bytes) -> Choices:
    """Every choice of ``n`` of the inequalities of :func:`_inequalities` (``m`` rows, ``n``
    variables) with a bound (``finite``, a boolean array's bytes), no two the sides of one
    row or variable (they never meet), in lexicographic order."""
    bounded = np.frombuffer(finite, dtype=bool)
    count = len(bounded)
    groups = np.tile(np.arange(m), 2).tolist() + np.tile(np.arange(m, m + n), 2).tolist()
    candidates = [k for k in range(count) if bounded[k]]
    chosen = [c for c in combinations(candidates, n) if len({groups[k] for k in c}) == n]
    bases = np.array(chosen, dtype=np.intp).reshape(-1, n)
    pairs = np.roll(bases, -1, axis=1) * count + np.roll(bases, -2, axis=1)
    basis, position = np.nonzero(bases >= 2 * m)
    side = bases[basis, position]
    pinned = (basis * n + (side - 2 * m) % n, side, np.where(side < 2 * m + n, 1.0, -1.0))
    return Choices(bases, bases[:, 0].copy(), pairs, bool(bounded[2 * m:].all()), pinned)


def _pin(X: np.ndarray, g: np.ndarray, choices: Choices) -> None:
    """Set each variable a basis holds at a bound to that bound, exactly (as HiGHS holds a
    nonbasic variable), where the solve left it a rounding off. A dependent basis has a row
    among its normals (bounds alone are independent), so its vertex keeps a NaN."""
    index, side, sign = choices.pinned
    X.put(index, g.take(side) * sign)


def _vertices(G: np.ndarray, g: np.ndarray, lengths: np.ndarray, choices: Choices,
              cost: np.ndarray | None) -> tuple[np.ndarray, np.ndarray | None, np.ndarray]:
    """Per basis: its vertex (NaN where its normals are dependent: it keeps no constraint);
    if ``cost`` is given the weights of its normals (each of unit length) that sum to
    ``-cost`` (NaN where dependent); and how far from dependent its normals are, relatively
    (NaN where dependent; a vertex is inexact by about :data:`ROUNDING` over this, of its
    size). By the adjugate, in closed form, up to three unknowns (the measure: the
    determinant over the product of the normals' lengths; dependent within rounding); by
    numpy's batched LAPACK for four (the smallest singular value over the largest;
    dependent within numpy's rank tolerance)."""
    bases = choices.bases
    n = bases.shape[1]
    norms = lengths.take(bases)
    if n <= 3:
        det, cofactors = _adjugates(G, choices)
        scale = norms.prod(axis=1)
        det[~(np.abs(det) > ROUNDING * scale)] = np.nan
        X = np.matmul(g.take(bases)[:, None, :], cofactors)[:, 0] / det[:, None]
        _pin(X, g, choices)
        weights = None if cost is None else -(cofactors @ cost) / det[:, None] * norms
        return X, weights, np.abs(det) / scale
    M = G[bases]
    singular = np.linalg.svd(M, compute_uv=False)
    regular = singular[:, -1] > n * EPS * singular[:, 0]
    X = np.full(bases.shape, np.nan)
    X[regular] = np.linalg.solve(M[regular], g.take(bases[regular])[..., None])[..., 0]
    _pin(X, g, choices)
    measure = np.where(regular, singular[:, -1], np.nan) / singular[:, 0]
    if cost is None:
        return X, None, measure
    weights = np.full(bases.shape, np.nan)
    transposed = np.swapaxes(M[regular], 1, 2)
    weights[regular] = np.linalg.solve(transposed, np.broadcast_to(-cost, (len(transposed), n))[..., None])[..., 0]
    return X, weights * norms, measure


def _adjugates(G: np.ndarray, choices: Choices) -> tuple[np.ndarray, np.ndarray]:
    """Per basis of two or three unknowns (rows ``G[basis]``, a matrix M): its determinant and
    its adjugate ``adj`` (``M @ adj = det I``), transposed: row i of the second is the
    cofactor vector k_i with ``G[basis[j]] @ k_i = det`` if i == j, else 0."""
    doubled = np.concatenate((G, G), axis=1)  # its columns 1 to n + 1: G's, turned cyclically
    if choices.bases.shape[1] == 2:
        # k_0 is the second row turned a quarter back, k_1 the first turned a quarter on.
        turned = doubled[:, 1:3] * np.array([1.0, -1.0])
        cofactors = turned.take(choices.bases[:, ::-1], axis=0) * np.array([[1.0], [-1.0]])
    else:
        # k_i is the cross product of the two rows after row i, cyclically: from a table of every pair's.
        after, later = doubled[:, 1:4], doubled[:, 2:5]
        cross = (after[:, None] * later[None, :] - later[:, None] * after[None, :]).reshape(-1, 3)
        cofactors = cross.take(choices.pairs, axis=0)
    return np.einsum("ij,ij->i", G.take(choices.first, axis=0), cofactors[:, 0]), cofactors


def _tied(X: np.ndarray, values: np.ndarray, best: int, size: np.ndarray, cost: np.ndarray, per_unit: float) -> bool:
    """Does another feasible vertex, a different point, come within the dual tolerance of the
    best: its objective higher by at most ``per_unit`` per unit of length it moves (the dual
    tolerance times the most a unit move changes a constraint's value or a variable)?"""
    step = X - X[best]
    moved = np.sqrt(np.einsum("ij,ij->i", step, step))
    rounding = ROUNDING * (size * math.sqrt(cost @ cost) + abs(values[best]))  # of the values
    apart = moved > per_unit * (1 + size)
    return bool(np.any(apart & (values - values[best] <= per_unit * moved + rounding)))
