"""The constraint manager on small programs with known answers."""

from __future__ import annotations

import math

import numpy as np
import pytest

from cspace.kernels.constraints import ConstraintManager

from .common import seeds


@pytest.fixture
def manager():
    return ConstraintManager(1e-10)


def test_feasibility(manager):
    G = np.array([[1.0, 0.0], [-1.0, 0.0]])
    assert manager.feasible(G, np.array([1.0, -0.5]))
    assert not manager.feasible(G, np.array([1.0, -2.0]))


def test_bounds_of_a_triangle(manager):
    # x >= 0, y >= 0, x + 2y <= 4
    G = np.array([[-1.0, 0.0], [0.0, -1.0], [1.0, 2.0]])
    h = np.array([0.0, 0.0, 4.0])
    assert manager.bounds(G, h, 0) == pytest.approx((0, 4))
    assert manager.bounds(G, h, 1) == pytest.approx((0, 2))


def test_unbounded_direction(manager):
    assert manager.bounds(np.array([[-1.0, 0.0]]), np.array([1.0]), 0) == (-1.0, math.inf)


def test_redundant_rows_are_dropped(manager):
    # The paper's point (section 4.5): regions carry many implied constraints.
    G = np.array([[1.0, 0.0], [1.0, 0.0], [1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [-1.0, 0.0], [0.0, -1.0]])
    h = np.array([1.0, 1.0, 2.0, 1.0, 5.0, 0.0, 0.0])
    assert manager.essential(G, h) == [0, 3, 5, 6]


def test_every_solve_is_counted(manager):
    manager.feasible(np.eye(2), np.ones(2))
    manager.bounds(np.eye(2), np.ones(2), 0)
    assert manager.solves == 3


@pytest.mark.parametrize("seed", range(4))
def test_many_rows_keep_the_same_essential_ones_warm_started(seed, monkeypatch):
    """Past WARM_ROWS rows the programs share one model and start from the last basis; the
    rows kept are those of one program each. Tangent planes of a sphere (all essential),
    the same planes pushed out (implied), a pair pinning one variable, and duplicates."""
    import cspace.kernels.constraints as constraints

    rng = np.random.default_rng(seed)
    normals = rng.normal(size=(80, 4))
    normals /= np.linalg.norm(normals, axis=1)[:, None]
    G = np.vstack([normals, normals[:30], normals[:10], [[1, 0, 0, 0], [-1, 0, 0, 0]]])
    h = np.concatenate([np.ones(80), np.full(30, 1.5), np.ones(10), [0.25, -0.25]])
    order = rng.permutation(len(h))
    G, h = G[order], h[order]
    assert len(G) >= constraints.WARM_ROWS
    warm = ConstraintManager(1e-9).essential(G, h)
    monkeypatch.setattr(constraints, "WARM_ROWS", 10 ** 9)
    cold = ConstraintManager(1e-9).essential(G, h)
    assert warm == cold
    assert not any(h[i] == 1.5 for i in warm)  # the pushed-out planes are implied


def _equalities_one_program_each(G: np.ndarray, h: np.ndarray, tolerance: float) -> list[bool]:
    """The oracle, with scipy's own solver: row r is an implicit equality when minimizing it
    over the other rows cannot take it more than ``tolerance`` below its bound."""
    from scipy.optimize import linprog

    out = []
    for r in range(len(h)):
        others = np.delete(np.arange(len(h)), r)
        result = linprog(G[r], A_ub=G[others], b_ub=h[others], bounds=[(None, None)] * G.shape[1], method="highs")
        out.append(result.status == 0 and h[r] - result.fun <= tolerance)
    return out


@pytest.mark.parametrize("seed", seeds(12, 3))
def test_implicit_equalities_take_a_few_programs_and_match_one_program_per_row(seed, manager):
    """Boxes cut by random planes, with equalities hidden among them: a variable pinned by
    two rows, a sum of two variables pinned by two more, or both."""
    rng = np.random.default_rng(seed)
    n = 5
    rows = [np.eye(n)[k] for k in range(n)] + [-np.eye(n)[k] for k in range(n)]
    bounds = list(rng.uniform(1, 2, n)) + list(rng.uniform(1, 2, n))
    for _ in range(int(rng.integers(5, 20))):
        g = rng.normal(size=n)
        rows.append(g)
        bounds.append(float(np.abs(g).sum() * rng.uniform(0.3, 2)))
    a, b = rng.choice(n, 2, replace=False)
    if seed % 2:
        rows += [np.eye(n)[a], -np.eye(n)[a]]
        bounds += [0.5, -0.5]
    if seed % 3:
        rows += [np.eye(n)[a] + np.eye(n)[b], -(np.eye(n)[a] + np.eye(n)[b])]
        bounds += [0.75, -0.75]
    G, h = np.array(rows), np.array(bounds)
    order = rng.permutation(len(h))
    G, h = G[order], h[order]
    tolerances = np.full(len(h), 1e-7)
    before = manager.solves
    found = manager.equalities(G, h, tolerances)
    assert found.tolist() == _equalities_one_program_each(G, h, 1e-7)
    assert found.sum() == 2 * ((seed % 2) + (seed % 3 > 0))
    assert manager.solves - before <= 6  # not one per row


def _difference_system(rng: np.random.Generator, n: int, general: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rows bounding differences of two variables (blocks stacked and side by side) or
    one, at a point on the integers with integer slacks so that paths tie: some tight,
    parallel copies looser or not, duplicates, equalities pinned by opposite rows (to a
    value or between variables) or by a one-way cycle of tight rows; and ``general``
    rows of any direction."""
    point = rng.integers(0, 10, n).astype(float)
    rows, bounds = [], []

    def add(g: np.ndarray, slack: float) -> None:
        rows.append(g)
        bounds.append(float(g @ point) + slack)

    for _ in range(int(rng.integers(20, 60))):
        g = np.zeros(n)
        a, b = rng.choice(n, 2, replace=False)
        if rng.random() < 0.3:
            g[a] = rng.choice([-1, 1])
        else:
            g[a], g[b] = 1.0, -1.0
        add(g * rng.choice([0.5, 1.0, 2.0]), float(rng.choice([0, 0, 1, 2, 3])))
    for _ in range(int(rng.integers(0, 3))):               # equalities: opposite pairs
        g = np.zeros(n)
        a, b = rng.choice(n, 2, replace=False)
        g[a] = 1.0
        if rng.random() < 0.5:
            g[b] = -1.0
        add(g, 0.0)
        add(-g, 0.0)
    if rng.random() < 0.5:                                 # an equality: a one-way cycle of tight rows
        cycle = list(rng.choice(n, int(rng.integers(2, 5)), replace=False))
        for a, b in zip(cycle, cycle[1:] + cycle[:1]):
            g = np.zeros(n)
            g[a], g[b] = 1.0, -1.0
            add(g, 0.0)
    for r in rng.choice(len(rows), 6, replace=False):      # copies, scaled, looser or not
        add(rows[r] * float(rng.choice([1.0, 2.0])), float(rng.choice([0.0, 1.0])) + bounds[r] - rows[r] @ point)
    for _ in range(general):
        add(rng.normal(size=n), float(rng.uniform(0, 3)))
    order = rng.permutation(len(rows))
    return np.array(rows)[order], np.array(bounds)[order], point


def _largest(G: np.ndarray, h: np.ndarray, g: np.ndarray) -> float:
    """The largest ``g @ x`` over ``G @ x <= h`` (scipy's own solver), inf if unbounded."""
    from scipy.optimize import linprog

    result = linprog(-g, A_ub=G, b_ub=h, bounds=[(None, None)] * G.shape[1], method="highs")
    assert result.status in (0, 3)
    return math.inf if result.status == 3 else -result.fun


@pytest.mark.parametrize("seed", seeds(24, 4))
def test_a_system_of_differences_is_reduced_by_paths_alone_to_an_irredundant_equivalent(seed, manager):
    """The oracle is the definition, with scipy's solver: every row dropped is implied by
    the rows kept, and no row kept is implied by the other rows kept. Ties, duplicates
    and equalities make many reductions right; the paths choose one without a program."""
    rng = np.random.default_rng(seed)
    G, h, point = _difference_system(rng, 8)
    before = manager.solves
    kept = manager.essential(G, h, point)
    assert manager.solves == before
    for r in range(len(h)):
        others = [k for k in kept if k != r]
        implied = _largest(G[others], h[others], G[r]) <= h[r] + 1e-7
        assert implied == (r not in kept), r


@pytest.mark.parametrize("seed", range(8))
def test_rows_settled_by_shortest_paths_are_those_the_programs_keep(seed, manager):
    """Differences with general rows mixed in: the paths settle what they can, programs
    the rest, and the rows kept are those of one program each, in the same order."""
    rng = np.random.default_rng(seed)
    G, h, point = _difference_system(rng, 8, general=3)
    assert manager.essential(G, h, point) == ConstraintManager(1e-10).essential(G, h)


@pytest.mark.parametrize("seed", seeds(12, 3))
def test_differences_give_the_programs_bounds_and_equalities(seed, manager):
    """The shortest paths' bounds on each variable and implicit equalities against one
    program per variable and per row (scipy's solver)."""
    from cspace.kernels.differences import DifferenceGraph

    rng = np.random.default_rng(seed)
    G, h, point = _difference_system(rng, 6)
    graph = DifferenceGraph(G, h, point, np.zeros(len(h)))
    lower, upper = graph.bounds()
    for j in range(6):
        assert upper[j] == pytest.approx(_largest(G, h, np.eye(6)[j]), abs=1e-9)
        assert lower[j] == pytest.approx(-_largest(G, h, -np.eye(6)[j]), abs=1e-9)
    verdict = graph.equalities(np.full(len(h), 1e-7))
    assert (verdict >= 0).all()
    assert (verdict == 1).tolist() == _equalities_one_program_each(G, h, 1e-7)
    found = manager.equalities(G, h, np.full(len(h), 1e-7), point[None, :])
    assert found.tolist() == _equalities_one_program_each(G, h, 1e-7)


@pytest.mark.parametrize("seed", range(10))
def test_implied_bounds_hold_every_point_and_are_exact_on_chains(seed, manager):
    """Interval propagation (no program) against the programs' own bounds: never tighter on
    random systems with rows of one to four terms, and equal on a chain of differences
    (blocks stacked on a floor under a lid), the structure of a mechanism's regions."""
    from cspace.kernels.constraints import implied_bounds

    rng = np.random.default_rng(seed)
    n = 6
    rows, bounds = [np.eye(n)[k] for k in range(n)] + [-np.eye(n)[k] for k in range(n)], [5.0] * n + [5.0] * n
    for _ in range(12):
        g = np.zeros(n)
        cols = rng.choice(n, int(rng.integers(1, 5)), replace=False)
        g[cols] = rng.normal(size=len(cols))
        rows.append(g)
        bounds.append(float(np.abs(g).sum() * rng.uniform(0.5, 3)))
    G, h = np.array(rows), np.array(bounds)
    lower, upper = implied_bounds(G, h)
    for j in range(n):
        low, high = manager.bounds(G, h, j)
        assert lower[j] <= low + 1e-9 and upper[j] >= high - 1e-9
    chain, limits = [-np.eye(n)[0]], [0.0]                      # x0 >= 0, x_{k+1} - x_k >= 1 + k, x5 <= 30
    for k in range(n - 1):
        chain.append(np.eye(n)[k] - np.eye(n)[k + 1])
        limits.append(-(1.0 + k))
    chain.append(np.eye(n)[n - 1])
    limits.append(30.0)
    G, h = np.array(chain), np.array(limits)
    lower, upper = implied_bounds(G, h)
    exact = np.array([manager.bounds(G, h, j) for j in range(n)])
    assert np.allclose(lower, exact[:, 0]) and np.allclose(upper, exact[:, 1])
