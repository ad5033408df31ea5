"""Velocities found without a program agree with the velocity program (the oracle).

Blocks on a line, each tight against the next: the pusher's motion passes along
the row, each contact forcing the next block by exactly as much as the one before
it moved. The shortcut must give the program's velocity, or say there is none
exactly when the program finds the contacts infeasible.
"""

from __future__ import annotations

import numpy as np
import pytest

from cspace.constraints import ConstraintManager
from cspace.dynamics import INPUT, SimpleDynamics
from cspace.regions import MechanismRegion


def region(rows: list[list[float]]) -> MechanismRegion:
    """Every row tight at q = 0 (bound 0), owned by one pair each."""
    G = np.array(rows, float)
    m = len(G)
    return MechanismRegion((0,) * m, G, np.zeros(m), ("pair",) * m, np.full(m, 1e-9), (None,) * m, np.arange(m))


def both(rows: list[list[float]], rate: float):
    n = len(rows[0])
    dynamics = SimpleDynamics(n, (), {}, ConstraintManager(1e-10), 1.0, 1e-9)
    r = region(rows)
    q, fixed, ignore = np.zeros(n), {0: rate}, np.zeros(len(rows) + 1, bool)
    shortcut = dynamics.determined(r, q, fixed, set(range(n)), ignore)
    program = dynamics.velocity(r, q, INPUT, fixed, ignore)
    return shortcut, program, dynamics.manager.solves


def chain(n: int) -> list[list[float]]:
    """Coordinate k pushes k + 1 forwards: x_k - x_{k+1} <= 0, tight."""
    rows = []
    for k in range(n - 1):
        row = [0.0] * n
        row[k], row[k + 1] = 1.0, -1.0
        rows.append(row)
    return rows


@pytest.mark.parametrize("n", [2, 3, 5])
@pytest.mark.parametrize("rate", [1.0, 2.5])
def test_a_push_along_a_row_of_blocks_needs_no_program(n, rate):
    shortcut, program, _ = both(chain(n), rate)
    assert shortcut not in (None, False)
    np.testing.assert_allclose(shortcut.v, np.full(n, rate))
    np.testing.assert_allclose(shortcut.v, program.v, atol=1e-9)
    assert shortcut.objective == pytest.approx(program.objective, abs=1e-9)


def test_a_push_that_fans_out_moves_each_pushed_block_once():
    # 0 pushes 1; 1 pushes 2 and 3; 2 also pushes 3 (a stack leaning on two blocks).
    rows = [[1, -1, 0, 0], [0, 1, -1, 0], [0, 1, 0, -1], [0, 0, 1, -1]]
    shortcut, program, _ = both(rows, 1.0)
    np.testing.assert_allclose(shortcut.v, [1, 1, 1, 1])
    np.testing.assert_allclose(shortcut.v, program.v, atol=1e-9)


def test_a_pushed_block_against_a_wall_stops_the_push():
    rows = chain(3) + [[0.0, 0.0, 1.0]]  # block 2 cannot move forwards
    shortcut, program, _ = both(rows, 1.0)
    assert shortcut is None and program is None


def test_a_row_two_free_blocks_could_relieve_is_left_to_the_program():
    # Block 1 pushed forwards; a row with block 1 and blocks 2 and 3 both free to relieve it.
    rows = [[1, -1, 0, 0], [0, 1, -1, -1]]
    shortcut, program, solves = both(rows, 1.0)
    assert shortcut is False
    assert program is not None and solves >= 1
