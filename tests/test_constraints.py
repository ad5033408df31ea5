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
