"""The constraint manager on small programs with known answers."""

from __future__ import annotations

import math

import numpy as np
import pytest

from cspace.constraints import ConstraintManager


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
    import cspace.constraints as constraints

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


@pytest.mark.parametrize("seed", range(12))
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
    found = manager.equalities(G, h, tolerances, np.zeros(len(h), bool))
    assert found.tolist() == _equalities_one_program_each(G, h, 1e-7)
    assert found.sum() == 2 * ((seed % 2) + (seed % 3 > 0))
    assert manager.solves - before <= 6  # not one per row


@pytest.mark.parametrize("seed", range(16))
def test_rows_settled_by_shortest_paths_are_those_the_programs_keep(seed, manager):
    """Rows bounding differences of two variables (blocks stacked and side by side) or one,
    some parallel, some pinning a variable (an equality), sometimes with general rows mixed
    in: given a point of the system, shortest paths settle most rows, and the rows kept are
    those of one program each, in the same order."""
    rng = np.random.default_rng(seed)
    n = 8
    point = rng.uniform(0, 10, n)
    rows, bounds = [], []
    for _ in range(int(rng.integers(20, 60))):
        g = np.zeros(n)
        a, b = rng.choice(n, 2, replace=False)
        if rng.random() < 0.3:
            g[a] = rng.choice([-1, 1]) * rng.uniform(0.5, 2)
        else:
            g[a], g[b] = 1.0, -1.0
            g *= rng.uniform(0.5, 2)
        slack = 0.0 if rng.random() < 0.15 else rng.uniform(0, 5)
        rows.append(g)
        bounds.append(float(g @ point) + slack)
    if seed % 2:  # a variable pinned, and parallel copies of a few rows, looser or not
        k = int(rng.integers(n))
        rows += [np.eye(n)[k], -np.eye(n)[k]]
        bounds += [point[k], -point[k]]
        for r in rng.choice(len(rows) - 2, 4, replace=False):
            rows.append(rows[r] * 2.0)
            bounds.append(bounds[r] * 2.0 + float(rng.choice([0.0, 1.0])))
    if seed % 4 == 3:  # general rows: the paths settle less, the programs the rest
        for _ in range(3):
            g = rng.normal(size=n)
            rows.append(g)
            bounds.append(float(g @ point) + rng.uniform(0, 3))
    G, h = np.array(rows), np.array(bounds)
    before = manager.solves
    with_paths = manager.essential(G, h, point)
    programs = manager.solves - before
    assert with_paths == ConstraintManager(1e-10).essential(G, h)
    if seed % 4 != 3:
        assert programs == 0  # every row a difference: the paths settle them all


@pytest.mark.parametrize("seed", range(10))
def test_implied_bounds_hold_every_point_and_are_exact_on_chains(seed, manager):
    """Interval propagation (no program) against the programs' own bounds: never tighter on
    random systems with rows of one to four terms, and equal on a chain of differences
    (blocks stacked on a floor under a lid), the structure of a mechanism's regions."""
    from cspace.constraints import implied_bounds

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
