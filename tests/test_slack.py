"""The compiled row-table kernels (cspace.kernels.slack) against plain statements of what
they compute: the slack of a few rows of a sparse table against a Python sum of each row's
products and scipy's product of every row, bit for bit (the trace decides on these numbers,
so a row's slack must not depend on how it was asked for); the pairs a step must look at
again against each region's least slack taken by numpy and compared as the rule says."""

from __future__ import annotations

import doctest
import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from scipy import sparse

from cspace import analyze, load
from cspace.kernels import slack as kernel
from cspace.kernels.slack import moved_pairs, rows_slack, tight_rows
from cspace.tracing.layout import RowSlack
from cspace.tracing.regions import FEW_REGIONS

from .common import examples, fixture_path


def reference(A: sparse.csr_array, bound: np.ndarray, x: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """Each row's stored products summed from zero in the order stored, taken from its bound."""
    out = []
    for r in rows.tolist():
        total = 0.0
        for jj in range(A.indptr[r], A.indptr[r + 1]):
            total += float(A.data[jj]) * float(x[A.indices[jj]])
        out.append(float(bound[r]) - total)
    return np.array(out, float)


def _bits(values: np.ndarray) -> list[int]:
    """The values' bit patterns: equal bits, not merely equal numbers (0.0 is not -0.0)."""
    return np.ascontiguousarray(values, float).view(np.int64).tolist()


def _slack(A: sparse.csr_array, bound: np.ndarray, x: np.ndarray, rows: np.ndarray) -> np.ndarray:
    return rows_slack(A.indptr.astype(np.intp), A.indices.astype(np.intp), A.data, bound, x, rows.astype(np.intp))


# Entries from a few values, exact zeros and negative zeros among them (a row of explicit
# zeros sums to a signed zero), and arbitrary floats.
_values = st.one_of(st.sampled_from([0.0, -0.0, 1.0, -1.0, 0.5, 1e-300, -1e300]),
                    st.floats(-1e6, 1e6, allow_nan=False))


@st.composite
def _tables(draw):
    m, n = draw(st.integers(1, 12)), draw(st.integers(1, 5))
    dense = draw(arrays(float, (m, n), elements=_values))
    stored = draw(arrays(bool, (m, n)))  # which entries are stored (an explicit zero is stored)
    r, c = np.nonzero(stored)
    A = sparse.csr_array((dense[r, c], (r, c)), shape=(m, n))
    A.sum_duplicates()
    bound = draw(arrays(float, m, elements=_values))
    x = draw(arrays(float, n, elements=_values))
    rows = draw(arrays(np.intp, draw(st.integers(0, 20)), elements=st.integers(0, m - 1)))
    return A, bound, x, rows


@settings(max_examples=examples(500), deadline=None, derandomize=True, database=None)
@given(table=_tables())
def test_rows_slack_is_the_plain_sum_and_scipys_product_bit_for_bit(table):
    A, bound, x, rows = table
    got = _slack(A, bound, x, rows)
    assert _bits(got) == _bits(reference(A, bound, x, rows))
    assert _bits(got) == _bits((bound - A @ x)[rows])


def test_degenerate_tables():
    """No rows asked for, rows with no entries (their bound), a row asked for twice, entries
    stored in unsorted column order (summed as stored), infinities and NaN."""
    A = sparse.csr_array((np.array([2.0, 3.0, np.inf, -0.0]), np.array([1, 0, 1, 0]), np.array([0, 2, 2, 4])),
                         shape=(3, 2))
    bound, x = np.array([1.0, -0.0, 4.0]), np.array([0.5, 1.0])
    assert _slack(A, bound, x, np.zeros(0, int)).shape == (0,)
    for rows in (np.array([1, 1, 0, 2]), np.array([2, 0])):
        assert _bits(_slack(A, bound, x, rows)) == _bits(reference(A, bound, x, rows))
    assert _bits(_slack(A, bound, x, np.array([1]))) == _bits([-0.0])
    nan = np.array([np.nan, 1.0])
    assert _bits(_slack(A, bound, nan, np.array([0, 1]))) == _bits(reference(A, bound, nan, np.array([0, 1])))
    empty = sparse.csr_array((0, 2))
    assert _slack(empty, np.zeros(0), x, np.zeros(0, int)).shape == (0,)


def moved_reference(slack, regions, base, start, count, changed, alone, tolerance, few):
    """The rule, plainly: each region's least slack by numpy (inf without rows, NaN if any
    is), a pair of few regions unsettled unless exactly one holds its point (least slack
    at least -tolerance), away from its boundary (above tolerance), and it is the one the
    pair was alone in; a pair of more unless strictly inside that one."""
    def least(flat):
        rows = slack[start[flat]:start[flat] + count[flat]]
        return float(np.minimum.reduce(rows)) if len(rows) else math.inf

    few_moved, many_moved = [], []
    for p in np.flatnonzero(changed).tolist():
        if regions[p] <= few:
            values = [least(base[p] + i) for i in range(regions[p])]
            found = tuple(i for i, v in enumerate(values) if v >= -tolerance)
            near = any(-tolerance <= v <= tolerance for v in values)
            if not (len(found) == 1 and not near and found[0] == alone[p]):
                few_moved.append((p, found, near))
        elif not (alone[p] >= 0 and least(base[p] + alone[p]) > tolerance):
            many_moved.append(p)
    return few_moved, many_moved


_NONE, _NO_INDEX = np.zeros(0), np.zeros(0, np.intp)


@st.composite
def _pair_tables(draw):
    """Pairs of 1 to 9 regions (a few above ``few``), regions of 0 to 3 rows, slack that
    sits on the tolerance, on zero (either sign), at infinity and NaN, or anywhere."""
    tolerance, few = 1e-9, draw(st.integers(1, 6))
    regions = np.array(draw(st.lists(st.integers(1, 9), min_size=1, max_size=6)), np.intp)
    count = np.array(draw(st.lists(st.integers(0, 3), min_size=int(regions.sum()),
                                   max_size=int(regions.sum()))), np.intp)
    base = (np.cumsum(regions) - regions).astype(np.intp)
    start = (np.cumsum(count) - count).astype(np.intp)
    edge = [0.0, -0.0, tolerance, -tolerance, 2 * tolerance, -2 * tolerance, np.inf, -np.inf, np.nan]
    slack = np.array(draw(st.lists(st.one_of(st.sampled_from(edge), st.floats(-1, 1, allow_nan=False)),
                                   min_size=int(count.sum()), max_size=int(count.sum()))), float)
    changed = np.array(draw(st.lists(st.booleans(), min_size=len(regions), max_size=len(regions))), bool)
    alone = np.array([draw(st.integers(-1, int(n) - 1)) for n in regions], np.intp)
    return slack, regions, base, start, count, changed, alone, tolerance, few


@settings(max_examples=examples(500), deadline=None, derandomize=True, database=None)
@given(table=_pair_tables())
def test_moved_pairs_are_those_of_the_rule(table):
    slack, regions, base, start, count, changed, alone, tolerance, few = table
    got = moved_pairs(slack, _NO_INDEX, _NO_INDEX, _NONE, _NONE, _NONE, regions, base, start, count,
                      changed.view(np.uint8), alone, tolerance, few)
    assert got == moved_reference(slack, regions, base, start, count, changed, alone, tolerance, few)


def tight_reference(slack, start, count, flat, tolerance):
    """Each region's rows in order, kept where their slack is at most the tolerance."""
    rows = [r for f in flat.tolist() for r in range(start[f], start[f] + count[f])]
    return [r for r in rows if slack[r] <= tolerance]


@settings(max_examples=examples(500), deadline=None, derandomize=True, database=None)
@given(table=_pair_tables(), data=st.data())
def test_tight_rows_are_those_within_the_tolerance(table, data):
    slack, _, _, start, count, _, _, tolerance, _ = table
    flat = np.array(data.draw(st.lists(st.integers(0, len(count) - 1), max_size=8)), np.intp)
    got = tight_rows(slack, _NO_INDEX, _NO_INDEX, _NONE, _NONE, _NONE, start, count, flat, tolerance)
    assert got.tolist() == tight_reference(slack, start, count, flat, tolerance)


def test_moved_pairs_of_no_pairs_and_of_regions_without_rows():
    """Nothing changed, nothing to look at; a region without rows holds everywhere, away from any boundary."""
    ip = lambda *v: np.array(v, np.intp)
    nothing = moved_pairs(_NONE, _NO_INDEX, _NO_INDEX, _NONE, _NONE, _NONE, ip(), ip(), ip(), ip(),
                          np.zeros(0, np.uint8), ip(), 1e-9, 16)
    assert nothing == ([], [])
    args = (_NONE, _NO_INDEX, _NO_INDEX, _NONE, _NONE, _NONE, ip(1, 20), ip(0, 1), ip(0) * np.ones(21, np.intp),
            np.zeros(21, np.intp), np.ones(2, np.uint8))
    assert moved_pairs(*args, ip(0, 3), 1e-9, 16) == ([], [])  # each alone where it was
    assert moved_pairs(*args, ip(-1, -1), 1e-9, 16) == ([(0, (0,), False)], [1])


def test_a_step_reads_the_slack_of_the_rows_it_looks_at_as_in_the_product_of_all():
    """The transmission's table (thousands of regions: sparse) at random configurations: the
    rows' slack, the pairs to look at again and the regions' tight rows (from the rows
    computed as asked for, and from every row's slack)."""
    table = analyze(load(fixture_path("transmission"))).layout.table
    slack = table.slack_at(np.zeros(table.n))
    assert isinstance(slack, RowSlack)
    rng = np.random.default_rng(3)
    extents = (table.regions, table.base, table.start, table.count)
    moved = set()
    for _ in range(20):
        q = rng.uniform(-7, 7, table.n)
        rows = rng.integers(0, len(table.bound), 300)
        assert _bits(table.slack_at(q)[rows]) == _bits(table.slack(q)[rows])
        changed = rng.random(len(table.regions)) < 0.7
        alone = np.array([rng.integers(-1, n) for n in table.regions], np.intp)
        for few in (FEW_REGIONS, 10 ** 6):  # its many regions looked at through one, then all of them
            got = table.moved(table.slack_at(q), changed, alone, 1e-9, few)
            assert got == moved_reference(table.slack(q), *extents, changed, alone, 1e-9, few)
            moved.add(repr(got))
        pairs = rng.integers(0, len(table.regions), 40)
        regions = np.array([rng.integers(0, table.regions[p]) for p in pairs])
        flat = table.base[pairs] + regions
        tight = table.tight(table.slack_at(q), pairs, regions, 0.05)
        assert tight.tolist() == tight_reference(table.slack(q), table.start, table.count, flat, 0.05)
        moved.add(len(tight))
    assert len(moved) > 3  # the configurations differ in what they find


def test_the_docstring_examples_hold():
    """A compiled module's examples are not collected by --doctest-modules: run them here."""
    runner = doctest.DocTestRunner()
    for function in (rows_slack, moved_pairs, tight_rows):
        for test in doctest.DocTestFinder().find(function, function.__name__, globs=vars(kernel)):
            runner.run(test)
    results = runner.summarize(verbose=False)
    assert (results.attempted, results.failed) == (12, 0)  # the examples' statements, all as shown
