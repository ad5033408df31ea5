"""A mode's linear system (the velocity of what moves, given binding rows and linkage slopes):
large ones are solved sparse (cspace.tracing.dynamics._square_solution), and must give what
the dense solve gives, to rounding, and the same trace."""

from __future__ import annotations

import numpy as np
import pytest

from cspace import analyze, loads, trace
from cspace.report.describe import to_json
from cspace.tracing import dynamics

from .common import tool


def chain(n: int, rng: np.random.Generator) -> np.ndarray:
    """A stack's system: each row ties a coordinate to the one below it, the first to the floor."""
    A = np.eye(n)
    A[np.arange(1, n), np.arange(n - 1)] = -rng.uniform(0.5, 1.0, n - 1)
    return A[rng.permutation(n)]


@pytest.mark.parametrize("n", [dynamics.SPARSE_SOLVE + 1, 150, 400])
def test_large_systems_solve_as_dense_ones_do(n):
    rng = np.random.default_rng(n)
    for A in (chain(n, rng), chain(n, rng) + np.diag(rng.uniform(1, 2, n)) * (rng.random((n, n)) < 0.02)):
        b = rng.normal(size=n)
        x = dynamics._square_solution(A, b)
        assert x is not None and np.allclose(x, np.linalg.solve(A, b), rtol=1e-12, atol=1e-12)
        assert np.all(np.abs(A @ x - b) <= 1e-12 * (np.abs(A) @ np.abs(x) + np.abs(b)))


@pytest.mark.parametrize("n", [dynamics.SPARSE_SOLVE + 1, 200])
def test_a_singular_large_system_has_no_solution(n):
    """Two rows alike (two contacts saying the same thing once too often): no unique velocity,
    where the sparse solve is used (a small one is the dense solve's, checked by its residual)."""
    A = chain(n, np.random.default_rng(1))
    A[-1] = A[0]
    assert dynamics._square_solution(A, np.ones(n)) is None


def test_a_feeder_traces_the_same_solved_sparse(monkeypatch):
    """The 12-block feeder run to the end (the blocks pushed out slide on as one: a system
    of up to 13 unknowns) with every system beyond 4 unknowns solved sparse: the same report,
    to the JSON's ten decimals, as solved dense. (The default threshold is passed by feeders
    of over 63 blocks, minutes of trace.)"""
    text = tool("feeder_n").Feeder(12).toml()
    dense = to_json(trace(analyze(loads(text))))
    sizes = []
    solved = dynamics._square_solution

    def spied(A, b):
        sizes.append(len(A))
        return solved(A, b)

    monkeypatch.setattr(dynamics, "SPARSE_SOLVE", 4)
    monkeypatch.setattr(dynamics, "_square_solution", spied)
    assert to_json(trace(analyze(loads(text)))) == dense
    assert max(sizes) > 4
