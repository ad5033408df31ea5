"""The row table's shortcuts against the plain matrix they stand for."""

from __future__ import annotations

import numpy as np
from scipy import sparse

from cspace import analyze, load

from .common import fixture_path, slow


def _table():
    table = analyze(load(fixture_path("transmission"))).layout.table
    assert sparse.issparse(table.A)  # thousands of regions: the sparse matrix, whose rows are slow to index
    return table


@slow
def test_rows_made_dense_from_each_rows_entries_are_the_matrix_rows():
    table = _table()
    rng = np.random.default_rng(5)
    for size in (1, 7, 300):
        which = rng.integers(0, len(table.bound), size)
        np.testing.assert_array_equal(table.rows(which, dense=True), table.A[which].toarray())
    np.testing.assert_array_equal(table.rows(np.zeros(0, int), dense=True), np.zeros((0, table.n)))


def test_the_slack_of_some_rows_is_theirs_in_the_whole_product_to_the_last_bit():
    """Rows read alone (random, repeated, empty, and rows of every length) give the slack the
    product of the whole matrix gives them, bit for bit: a trace decides tightness on it."""
    table = _table()
    rng = np.random.default_rng(7)
    for _ in range(20):
        q = rng.uniform(-3, 3, table.n) * 10.0 ** rng.integers(-6, 4)
        whole = table.bound - table.A @ q
        for which in (rng.integers(0, len(table.bound), 300), np.arange(len(table.bound)), np.zeros(0, int),
                      np.repeat(rng.integers(0, len(table.bound), 5), 3)):
            np.testing.assert_array_equal(table.slack_at(q)[which], whole[which])


def test_the_least_slack_of_some_regions_is_the_least_of_their_rows():
    """The broad phase reads a region's room from the rows' slack (dense or read row by row)."""
    table = _table()
    rng = np.random.default_rng(6)
    q = rng.uniform(-3, 3, table.n)
    whole = table.bound - table.A @ q
    flat = rng.choice(len(table.count), 500, replace=False)
    for slack in (table.slack_at(q), whole):
        some = table.least(slack, flat)
        for i in flat.tolist():
            rows = np.arange(table.start[i], table.start[i] + table.count[i])
            assert some[i] == (whole[rows].min() if len(rows) else np.inf)
        rest = np.setdiff1d(np.arange(len(table.count)), flat)
        assert np.all(np.isinf(some[rest]))
