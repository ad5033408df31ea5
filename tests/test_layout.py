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


def test_the_least_slack_of_some_regions_is_theirs_of_all():
    table = _table()
    rng = np.random.default_rng(6)
    slack = table.slack(rng.uniform(-3, 3, table.n))
    every = table.least(slack)
    flat = rng.choice(len(table.count), 500, replace=False)
    some = table.least(slack, flat)
    np.testing.assert_array_equal(some[flat], every[flat])
    rest = np.setdiff1d(np.arange(len(table.count)), flat)
    assert np.all(np.isinf(some[rest]))
    assert np.isfinite(some[flat]).sum() > 400
