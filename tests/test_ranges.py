"""The compiled search of keys in ranges (cspace/kernels/ranges.pyx) against plain Python."""

from __future__ import annotations

import doctest

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from cspace.kernels import ranges as kernel
from cspace.kernels.ranges import keys_in_ranges

from .common import examples


def _below(a: float, b: float) -> bool:
    """numpy's order of floats in a search and a sort: NaN after every number."""
    return a < b or (b != b and a == a)


def reference(ordered, order, lows, highs, edges) -> list[tuple[int, int, int]]:
    """Every key of each placement that is neither below the edge's low end nor above its
    high end, by placement, edge and sorted key: one comparison at a time."""
    return [(k, int(edges[e]), int(order[k, i])) for k in range(len(ordered)) for e in range(len(edges))
            for i in range(ordered.shape[1])
            if not _below(ordered[k, i], lows[k, e]) and not _below(highs[k, e], ordered[k, i])]


def _found(ordered, order, lows, highs, edges) -> list[tuple[int, int, int]]:
    out = keys_in_ranges(ordered, order, lows, highs, edges)
    assert all(x.dtype == np.intp for x in out)
    return list(zip(*(x.tolist() for x in out)))


NUMBERS = st.sampled_from([-2.0, -1.5, -1.0, -0.0, 0.0, 0.5, 1.0, 1.5, 2.0, np.inf, -np.inf, np.nan])


@st.composite
def _tables(draw):
    """Keys from a few values (ties with the ends, signed zeros, infinities, NaN), sorted
    as numpy sorts them; ranges from the same values, some reversed or empty."""
    count, width, edges = (draw(st.integers(0, n)) for n in (6, 9, 7))
    keys = np.array(draw(st.lists(NUMBERS, min_size=count * width, max_size=count * width)), float)
    keys = keys.reshape(count, width)
    order = np.argsort(keys, axis=1)
    ends = [np.array(draw(st.lists(NUMBERS, min_size=count * edges, max_size=count * edges)), float).reshape(count, edges)
            for _ in range(2)]
    names = np.array(draw(st.lists(st.integers(0, 50), min_size=edges, max_size=edges)), np.intp)
    return np.take_along_axis(keys, order, 1), order.astype(np.intp), ends[0], ends[1], names


@settings(max_examples=examples(400), deadline=None)
@given(_tables())
def test_the_triples_are_every_key_within_each_range_in_order(table):
    assert _found(*table) == reference(*table)


def test_random_keys_between_random_ends():
    rng = np.random.default_rng(5)
    for _ in range(50):
        count, width, edges = rng.integers(1, 20), rng.integers(1, 60), rng.integers(1, 40)
        keys = rng.normal(0, 3, (count, width))
        tied = rng.random(keys.shape) < 0.2
        keys[tied] = np.round(keys[tied])                              # ties with each other and the ends
        order = np.argsort(keys, axis=1).astype(np.intp)
        ordered = np.take_along_axis(keys, order, 1)
        lows = np.round(rng.normal(0, 3, (count, edges)))
        highs = lows + rng.integers(-1, 4, (count, edges))
        names = np.sort(rng.choice(200, edges, replace=False)).astype(np.intp)
        assert _found(ordered, order, lows, highs, names) == reference(ordered, order, lows, highs, names)


def test_no_placements_no_keys_and_no_edges():
    empty = np.zeros((0, 3)), np.zeros((0, 3), np.intp), np.zeros((0, 2)), np.zeros((0, 2)), np.arange(2, dtype=np.intp)
    assert _found(*empty) == []
    no_keys = np.zeros((2, 0)), np.zeros((2, 0), np.intp), np.zeros((2, 1)), np.ones((2, 1)), np.zeros(1, np.intp)
    assert _found(*no_keys) == []
    no_edges = np.ones((2, 3)), np.zeros((2, 3), np.intp), np.zeros((2, 0)), np.zeros((2, 0)), np.zeros(0, np.intp)
    assert _found(*no_edges) == []


def test_the_docstring_examples_hold():
    """A compiled module's examples are not collected by --doctest-modules: run them here."""
    runner = doctest.DocTestRunner()
    for test in doctest.DocTestFinder().find(keys_in_ranges, "keys_in_ranges", globs=vars(kernel)):
        runner.run(test)
    results = runner.summarize(verbose=False)
    assert (results.attempted, results.failed) == (4, 0)
