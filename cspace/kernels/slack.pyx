# cython: language_level=3, boundscheck=False, wraparound=False, initializedcheck=False
"""The row table's slack where a trace step reads it, compiled.

``rows_slack``: ``bound[r] - A[r] @ x`` for a few rows of a sparse (CSR) table. A step
of the trace asks for the slack of a few dozen rows of a table of tens of thousands (a
pair of gears' regions); the whole product costs the step a pass over every row. Each
row's products are summed in the order of its stored entries, from zero, as scipy's CSR
product sums them, so a row's slack has the same bits either way.

``moved_pairs``: which pairs' candidate regions a step must look for again, from each
region's least slack. A dozen numpy calls on arrays of a few numbers each, every step,
became one pass here; it only takes minima and compares, so its answers are exactly
those of the numpy statement.

``tight_rows``: the rows of given regions whose slack is within the tolerance, in order:
the touching pairs' candidate rows a step starts from (the same comparisons).

``tests/test_slack.py`` holds them equal to plain Python (and scipy's product) on random
and degenerate input.
"""

import numpy as np

cimport numpy as cnp

cnp.import_array()

cdef double INF = float("inf")


cdef inline double _row_slack(const cnp.npy_intp[:] indptr, const cnp.npy_intp[:] indices, const double[:] data,
                              const double[:] bound, const double[:] x, Py_ssize_t r) noexcept nogil:
    cdef double total = 0.0
    cdef Py_ssize_t jj
    for jj in range(indptr[r], indptr[r + 1]):
        total += data[jj] * x[indices[jj]]
    return bound[r] - total


def rows_slack(const cnp.npy_intp[:] indptr, const cnp.npy_intp[:] indices, const double[:] data,
               const double[:] bound, const double[:] x, const cnp.npy_intp[:] rows):
    """``bound[rows] - A[rows] @ x`` for the CSR matrix ``A`` (``indptr``, ``indices``,
    ``data``); every index in ``rows`` must be a row of ``A``.

    >>> import numpy as np
    >>> ptr, idx = np.array([0, 2, 3], np.intp), np.array([0, 1, 1], np.intp)
    >>> rows_slack(ptr, idx, np.array([1.0, 2.0, 3.0]), np.array([5.0, 6.0]), np.array([1.0, 1.0]),
    ...            np.array([1, 0], np.intp)).tolist()
    [3.0, 2.0]
    """
    cdef Py_ssize_t k, m = rows.shape[0]
    out = np.empty(m, np.float64)
    cdef double[:] result = out
    for k in range(m):
        result[k] = _row_slack(indptr, indices, data, bound, x, rows[k])
    return out


cdef class _Least:
    """A region's least slack: over ``slack`` (every row's), or over rows computed from the
    CSR arrays when ``slack`` is empty. NaN propagates, as ``np.minimum`` propagates it."""

    cdef const double[:] slack
    cdef const cnp.npy_intp[:] indptr
    cdef const cnp.npy_intp[:] indices
    cdef const double[:] data
    cdef const double[:] bound
    cdef const double[:] x
    cdef const cnp.npy_intp[:] start
    cdef const cnp.npy_intp[:] count
    cdef bint dense

    cdef double row(self, Py_ssize_t r) noexcept:
        return self.slack[r] if self.dense else _row_slack(self.indptr, self.indices, self.data, self.bound, self.x, r)

    cdef double of(self, Py_ssize_t flat) noexcept:
        cdef Py_ssize_t r, first = self.start[flat], n = self.count[flat]
        cdef double least = INF, value
        for r in range(first, first + n):
            value = self.row(r)
            if r == first or value != value or value < least:
                if least == least:  # once NaN, NaN
                    least = value
        return least


cdef _Least _finder(const double[:] slack, const cnp.npy_intp[:] indptr, const cnp.npy_intp[:] indices,
                    const double[:] data, const double[:] bound, const double[:] x,
                    const cnp.npy_intp[:] start, const cnp.npy_intp[:] count):
    cdef _Least finder = _Least()
    finder.slack, finder.indptr, finder.indices, finder.data, finder.bound, finder.x = \
        slack, indptr, indices, data, bound, x
    finder.start, finder.count, finder.dense = start, count, slack.shape[0] > 0 or indptr.shape[0] == 0
    return finder


def moved_pairs(const double[:] slack, const cnp.npy_intp[:] indptr, const cnp.npy_intp[:] indices,
                const double[:] data, const double[:] bound, const double[:] x,
                const cnp.npy_intp[:] regions, const cnp.npy_intp[:] base, const cnp.npy_intp[:] start,
                const cnp.npy_intp[:] count, const unsigned char[:] changed, const cnp.npy_intp[:] alone,
                double tolerance, Py_ssize_t few):
    """The pairs whose candidate regions must be found again, of those ``changed``.

    Pair p's regions are ``base[p]`` to ``base[p] + regions[p] - 1`` (flat), region f's rows
    ``start[f]`` to ``start[f] + count[f] - 1`` (a region without rows holds everywhere).
    The rows' slack is ``slack`` (every row's) or, when it is empty, computed from the CSR
    arrays and ``x`` (:func:`rows_slack`). A pair of at most ``few`` regions is looked at
    whole: each region holds the point if its least slack is at least ``-tolerance``, and
    the point is near its boundary if also at most ``tolerance``; the pair is settled when
    exactly one region holds it, away from its boundary, and that is ``alone[p]`` (the one
    it was alone in, else -1). Returns ``(few_moved, many_moved)``: for each unsettled pair
    of few regions ``(p, regions holding, near)``, and each pair of more regions that is
    not strictly inside (least slack above ``tolerance``) the one it was alone in; in
    the order of p.

    >>> import numpy as np
    >>> ip = lambda *v: np.array(v, np.intp)
    >>> slack = np.array([1.0, 0.0, -1.0])   # region 0: rows 0-1, region 1: row 2
    >>> empty = np.zeros(0)
    >>> moved_pairs(slack, ip(), ip(), empty, empty, empty, ip(2), ip(0), ip(0, 2), ip(2, 1),
    ...             np.array([1], np.uint8), ip(-1), 1e-9, 16)
    ([(0, (0,), True)], [])
    """
    cdef Py_ssize_t p, i, flat, held_count, only, n = regions.shape[0]
    cdef double least
    cdef bint near, held
    cdef _Least finder = _finder(slack, indptr, indices, data, bound, x, start, count)
    few_moved, many_moved = [], []
    for p in range(n):
        if not changed[p]:
            continue
        if regions[p] <= few:
            held_count, only, near = 0, -1, False
            found = []
            for i in range(regions[p]):
                least = finder.of(base[p] + i)
                held = least >= -tolerance
                if held:
                    held_count += 1
                    only = i
                    found.append(i)
                    if least <= tolerance:
                        near = True
            if not (held_count == 1 and not near and only == alone[p]):
                few_moved.append((p, tuple(found), bool(near)))
        elif alone[p] < 0 or not finder.of(base[p] + alone[p]) > tolerance:
            many_moved.append(p)
    return few_moved, many_moved


def tight_rows(const double[:] slack, const cnp.npy_intp[:] indptr, const cnp.npy_intp[:] indices,
               const double[:] data, const double[:] bound, const double[:] x,
               const cnp.npy_intp[:] start, const cnp.npy_intp[:] count, const cnp.npy_intp[:] flat,
               double tolerance):
    """The rows of regions ``flat`` (in that order, each region's in its order) whose slack
    is at most ``tolerance``; the slack as in :func:`moved_pairs`.

    >>> import numpy as np
    >>> ip = lambda *v: np.array(v, np.intp)
    >>> empty = np.zeros(0)
    >>> tight_rows(np.array([0.0, 1.0, -0.5]), ip(), ip(), empty, empty, empty, ip(0, 2), ip(2, 1),
    ...            ip(1, 0), 1e-9).tolist()
    [2, 0]
    """
    cdef _Least finder = _finder(slack, indptr, indices, data, bound, x, start, count)
    cdef Py_ssize_t k, r, m = 0, total = 0
    for k in range(flat.shape[0]):
        total += count[flat[k]]
    out = np.empty(total, np.intp)
    cdef cnp.npy_intp[:] rows = out
    for k in range(flat.shape[0]):
        for r in range(start[flat[k]], start[flat[k]] + count[flat[k]]):
            if finder.row(r) <= tolerance:
                rows[m] = r
                m += 1
    return out[:m]
