"""The compiled propagation kernels (cspace.kernels.propagation) against the rules they
implement, stated plainly in Python: repeat the rule over every row until nothing changes."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from cspace.kernels.propagation import reachable, stuck_motions


def stuck_reference(rows: np.ndarray, frozen: np.ndarray) -> np.ndarray:
    """Motion (k, up) or (k, down) is stuck if k is frozen, or if some row it pushes into has
    every other member's relieving motion stuck; the least such set, by repeating to a fixed point."""
    n = rows.shape[1]
    stuck = np.zeros((n, 2), np.uint8)
    stuck[frozen.astype(bool)] = 1

    def side(value: float) -> int:  # the motion that pushes into the row: up for a positive entry
        return 0 if value > 0 else 1

    changed = True
    while changed:
        changed = False
        for row in rows:
            members = np.flatnonzero(row)
            for k in members:
                others = [j for j in members if j != k]
                if not stuck[k, side(row[k])] and all(stuck[j, 1 - side(row[j])] for j in others):
                    stuck[k, side(row[k])] = 1
                    changed = True
    return stuck


def reach_reference(rows: np.ndarray, start: np.ndarray, partners: np.ndarray) -> np.ndarray:
    """Coordinates joined to a started one through rows' nonzero entries or partner pairs."""
    movable = start.astype(bool).copy()
    changed = True
    while changed:
        changed = False
        for row in rows:
            members = row != 0
            if (movable & members).any() and not movable[members].all():
                movable |= members
                changed = True
        for a, b in partners:
            if movable[a] != movable[b]:
                movable[a] = movable[b] = True
                changed = True
    return movable.astype(np.uint8)


# Entries from a small set, so rows share coordinates, repeat, cancel and hold zeros as stacks do.
ENTRIES = st.sampled_from([0.0, 0.0, 0.0, 1.0, -1.0, 0.5, -2.0, 1e-300, -1e300])


def matrices(max_rows: int = 12, max_columns: int = 8):
    return st.tuples(st.integers(0, max_rows), st.integers(1, max_columns)).flatmap(
        lambda shape: arrays(float, shape, elements=ENTRIES))


@settings(max_examples=400, deadline=None, derandomize=True, database=None)
@given(rows=matrices(), data=st.data())
def test_stuck_motions_equal_the_rule(rows, data):
    frozen = data.draw(arrays(np.uint8, rows.shape[1], elements=st.integers(0, 1)))
    assert stuck_motions(rows, frozen).tolist() == stuck_reference(rows, frozen).tolist()


@settings(max_examples=400, deadline=None, derandomize=True, database=None)
@given(rows=matrices(), data=st.data())
def test_reachable_equals_the_rule(rows, data):
    n = rows.shape[1]
    start = data.draw(arrays(np.uint8, n, elements=st.integers(0, 1)))
    pairs = data.draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=3))
    partners = np.array(pairs, np.intp).reshape(-1, 2)
    assert reachable(rows, start, partners).tolist() == reach_reference(rows, start, partners).tolist()


def test_a_stack_blocks_falling_all_the_way_down():
    """Three blocks on a floor: each rests on the one below (y_k - y_(k-1) >= 1 as -y_k + y_(k-1) <= -1),
    the lowest on the floor (-y_0 <= 0). Nothing frozen: none can move down, all can move up."""
    rows = np.array([[-1.0, 0, 0], [1.0, -1.0, 0], [0, 1.0, -1.0]])
    stuck = stuck_motions(rows, np.zeros(3, np.uint8))
    assert stuck[:, 1].tolist() == [1, 1, 1] and stuck[:, 0].tolist() == [0, 0, 0]
    # Lift the floor row: the chain's relief is free again, nothing is stuck.
    assert not stuck_motions(rows[1:], np.zeros(3, np.uint8)).any()


def test_degenerate_inputs():
    """No rows, no columns' entries, NaN entries (np.nonzero counts them, as the rule does)."""
    assert stuck_motions(np.zeros((0, 3)), np.array([1, 0, 0], np.uint8)).tolist() == [[1, 1], [0, 0], [0, 0]]
    assert reachable(np.zeros((2, 3)), np.array([0, 1, 0], np.uint8), np.zeros((0, 2), np.intp)).tolist() == [0, 1, 0]
    rows = np.array([[np.nan, 1.0]])
    assert stuck_motions(rows, np.array([1, 0], np.uint8)).tolist() == stuck_reference(rows, np.array([1, 0])).tolist()
    assert reachable(rows, np.array([1, 0], np.uint8), np.zeros((0, 2), np.intp)).tolist() == [1, 1]


def test_the_docstring_examples_hold():
    """A compiled module's examples are not collected by --doctest-modules: run them here."""
    import doctest

    from cspace.kernels import propagation

    for function in (stuck_motions, reachable):
        runner = doctest.DocTestRunner()
        for test in doctest.DocTestFinder().find(function, function.__name__,
                                                  globs=vars(propagation)):
            runner.run(test)
        assert runner.summarize(verbose=False).attempted >= 1
        assert runner.summarize(verbose=False).failed == 0


def test_a_mechanism_without_coordinates():
    """Fixed parts only: rows over no coordinates (the tracer asks all the same)."""
    assert stuck_motions(np.zeros((2, 0)), np.zeros(0, np.uint8)).shape == (0, 2)
    assert reachable(np.zeros((2, 0)), np.zeros(0, np.uint8), np.zeros((0, 2), np.intp)).shape == (0,)
