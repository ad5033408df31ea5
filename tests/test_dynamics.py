"""Velocities found without a program agree with the velocity program (the oracle).

Blocks on a line, each tight against the next: the pusher's motion passes along
the row, each contact forcing the next block by exactly as much as the one before
it moved. Blocks stacked under gravity: in the external step they fall at full
speed unless something holds them. The shortcut must give the program's velocity,
say there is none exactly when the program finds the contacts infeasible, or leave
the question to the program.
"""

from __future__ import annotations

import numpy as np
import pytest

from cspace.kernels.constraints import ConstraintManager
from cspace.tracing.dynamics import EXTERNAL, INPUT, SimpleDynamics, Undetermined
from cspace.tracing.regions import MechanismRegion


def region(rows: list[list[float]]) -> MechanismRegion:
    """Every row tight at q = 0 (bound 0), owned by one pair each."""
    G = np.array(rows, float)
    m = len(G)
    return MechanismRegion((0,) * m, G, np.zeros(m), ("pair",) * m, np.full(m, 1e-9), (None,) * m, np.arange(m))


def both(rows: list[list[float]], rate: float, phase: str = INPUT, forces: dict | None = None):
    """The shortcut's and the program's velocity, and the LP solves, with coordinate 0 at ``rate``."""
    n = len(rows[0])
    dynamics = SimpleDynamics(n, (), forces or {}, ConstraintManager(1e-10), np.ones(n), 1e-9, 1e7)
    r = region(rows)
    q, fixed, ignore = np.zeros(n), {0: rate}, np.zeros(len(rows) + 1, bool)
    shortcut = dynamics.determined(r, q, phase, fixed, set(range(n)), ignore)
    program = dynamics.velocity(r, q, phase, fixed, ignore)
    return shortcut, program, dynamics.manager.solves


def stack(blocks: int, table: bool) -> list[list[float]]:
    """Coordinate 0 is a held input; blocks 1.. stand each on the one below (on the table if asked)."""
    n = blocks + 1
    rows = []
    for k in range(2, n):
        row = [0.0] * n
        row[k - 1], row[k] = 1.0, -1.0  # y_k >= y_(k-1) + height
        rows.append(row)
    if table:
        rows.append([0.0, -1.0] + [0.0] * (blocks - 1))  # y_1 >= table
    return rows


GRAVITY = (-1, 1.0)  # down, at most unit speed


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
    assert shortcut is Undetermined.NO_MOTION and program is None


def test_a_row_two_free_blocks_could_relieve_is_left_to_the_program():
    # Block 1 pushed forwards; a row with block 1 and blocks 2 and 3 both free to relieve it.
    rows = [[1, -1, 0, 0], [0, 1, -1, -1]]
    shortcut, program, solves = both(rows, 1.0)
    assert shortcut is Undetermined.PROGRAM
    assert program is not None and solves >= 1


@pytest.mark.parametrize("blocks", [2, 3])
def test_a_stack_in_the_air_falls_at_full_speed_without_a_program(blocks):
    forces = {k: GRAVITY for k in range(1, blocks + 1)}
    shortcut, program, _ = both(stack(blocks, table=False), 0.0, EXTERNAL, forces)
    np.testing.assert_allclose(shortcut.v, [0.0] + [-1.0] * blocks)
    np.testing.assert_allclose(shortcut.v, program.v, atol=1e-9)
    assert shortcut.objective == pytest.approx(program.objective, abs=1e-9) == -blocks
    assert shortcut.progress == pytest.approx(blocks)


@pytest.mark.parametrize("blocks", [1, 3])
def test_a_stack_on_the_table_stays_without_a_program(blocks):
    forces = {k: GRAVITY for k in range(1, blocks + 1)}
    shortcut, program, _ = both(stack(blocks, table=True), 0.0, EXTERNAL, forces)
    np.testing.assert_allclose(shortcut.v, np.zeros(blocks + 1))
    np.testing.assert_allclose(shortcut.v, program.v, atol=1e-9)
    assert shortcut.progress == 0.0


def test_a_falling_block_that_must_push_a_free_part_is_left_to_the_program():
    # Block 1 (forced down) rests on platform 2 (free, unforced): y_1 >= y_2 + height.
    rows = [[0.0, -1.0, 1.0]]
    shortcut, program, solves = both(rows, 0.0, EXTERNAL, {1: GRAVITY})
    assert shortcut is Undetermined.PROGRAM
    np.testing.assert_allclose(program.v, [0.0, -1.0, -1.0], atol=1e-9)
    assert solves >= 1


def test_forces_during_an_input_step_are_left_to_the_program():
    shortcut, _, _ = both(stack(2, table=True), 1.0, INPUT, {1: GRAVITY, 2: GRAVITY})
    assert shortcut is Undetermined.PROGRAM


def test_an_external_step_with_a_moving_input_is_left_to_the_program():
    forces = {1: GRAVITY, 2: GRAVITY}
    shortcut, program, _ = both(stack(2, table=False), 1.0, EXTERNAL, forces)
    assert shortcut is Undetermined.PROGRAM
    np.testing.assert_allclose(program.v, [1.0, -1.0, -1.0], atol=1e-9)


def test_programs_over_remembered_columns_are_answered_as_by_a_fresh_dynamics():
    """A program's columns come from its fixed rates and phase alone and are remembered
    (``SimpleDynamics._columns``): programs posed one after another over other rows, rates
    and phases, and one where every velocity is known, get what a fresh dynamics gives each,
    and a caller changing a velocity it was given changes no later answer."""
    forces = {2: GRAVITY}
    cases = [(chain(3), INPUT, {0: 1.0}), (chain(3), INPUT, {0: 2.5}), (stack(2, False), EXTERNAL, {0: 0.0}),
             (stack(2, True), EXTERNAL, {0: 0.0}), (chain(3), INPUT, {1: 1.0, 0: 1.0}),
             (chain(3), INPUT, {0: 1.0, 1: 1.0, 2: 1.0}), (stack(2, False), INPUT, {0: 0.0})]

    def dynamics() -> SimpleDynamics:
        return SimpleDynamics(3, (), forces, ConstraintManager(1e-10), np.array([1.0, 2.0, 0.5]), 1e-9, 1e7)

    shared, answers = dynamics(), set()
    for rows, phase, fixed in cases + cases[::-1]:
        ignore = np.zeros(len(rows) + 1, bool)
        got = shared.velocity(region(rows), np.zeros(3), phase, fixed, ignore)
        want = dynamics().velocity(region(rows), np.zeros(3), phase, fixed, ignore)
        assert (got is None) == (want is None)
        if got is not None:
            assert (got.v.tolist(), got.objective) == (want.v.tolist(), want.objective)
            answers.add(tuple(got.v.tolist()))
            got.v[:] = 7.0
    assert len(answers) >= 4
