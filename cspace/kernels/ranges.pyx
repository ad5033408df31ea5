# cython: language_level=3, boundscheck=False, wraparound=False, initializedcheck=False
"""Which keys of each placement lie in each edge's range, compiled.

``keys_in_ranges``: a contact curve's candidates (:func:`cspace.kernels.contact_curves.candidate_triples`)
are the (placement, edge, vertex) triples whose vertex's key lies in the edge's range
at that placement: for each placement, each edge's range searched in the placement's
sorted keys, and every key between the two ends listed. numpy did it in a dozen passes
over arrays of a pair of gears' hundreds of thousands of triples (two searches, a
repeat, a cumulative sum, three gathers); here it is two passes, one to count and one
to write. Only comparisons, as ``np.searchsorted`` makes them (a NaN above every
number), so the triples are the same, in the same order.

``tests/test_ranges.py`` holds it equal to numpy's searches on random and degenerate
input (ties, infinities, NaN, empty ranges, no placements).
"""

import numpy as np

cimport numpy as cnp

cnp.import_array()


cdef inline bint _less(double a, double b) noexcept nogil:
    """numpy's order of floats in a search: NaN after every number."""
    return a < b or (b != b and a == a)


cdef inline Py_ssize_t _first_not_below(const double[:] row, double x) noexcept nogil:
    """``np.searchsorted(row, x, side="left")``."""
    cdef Py_ssize_t lo = 0, hi = row.shape[0], middle
    while lo < hi:
        middle = (lo + hi) >> 1
        if _less(row[middle], x):
            lo = middle + 1
        else:
            hi = middle
    return lo


cdef inline Py_ssize_t _first_above(const double[:] row, double x) noexcept nogil:
    """``np.searchsorted(row, x, side="right")``."""
    cdef Py_ssize_t lo = 0, hi = row.shape[0], middle
    while lo < hi:
        middle = (lo + hi) >> 1
        if _less(x, row[middle]):
            hi = middle
        else:
            lo = middle + 1
    return lo


def keys_in_ranges(const double[:, ::1] ordered, const cnp.npy_intp[:, ::1] order, const double[:, ::1] lows,
                   const double[:, ::1] highs, const cnp.npy_intp[::1] edges):
    """(placement, edge, key) triples with ``lows[k, e] <= ordered[k, i] <= highs[k, e]``:
    ``ordered`` (K, n) each placement's keys sorted (NaN last), ``order`` (K, n) where each
    came from, ``lows`` and ``highs`` (K, m) the ranges of the edges ``edges`` (m,). By
    placement, then edge, then key in sorted order; the edge as ``edges[e]``, the key as
    ``order[k, i]``.

    >>> import numpy as np
    >>> ordered = np.array([[1.0, 2.0, 3.0]])
    >>> k, e, i = keys_in_ranges(ordered, np.array([[2, 0, 1]], np.intp), np.array([[1.5, 0.0]]),
    ...                          np.array([[3.0, 1.0]]), np.array([4, 7], np.intp))
    >>> k.tolist(), e.tolist(), i.tolist()
    ([0, 0, 0], [4, 4, 7], [0, 1, 2])
    """
    cdef Py_ssize_t K = ordered.shape[0], m = edges.shape[0], k, e, i, total = 0, at = 0
    starts = np.empty((K, m), np.intp)
    stops = np.empty((K, m), np.intp)
    cdef cnp.npy_intp[:, ::1] first = starts, last = stops
    for k in range(K):
        for e in range(m):
            first[k, e] = _first_not_below(ordered[k], lows[k, e])
            last[k, e] = _first_above(ordered[k], highs[k, e])
            if last[k, e] > first[k, e]:
                total += last[k, e] - first[k, e]
    placements = np.empty(total, np.intp)
    found = np.empty(total, np.intp)
    keys = np.empty(total, np.intp)
    cdef cnp.npy_intp[::1] out_k = placements, out_e = found, out_i = keys
    for k in range(K):
        for e in range(m):
            for i in range(first[k, e], last[k, e]):
                out_k[at] = k
                out_e[at] = edges[e]
                out_i[at] = order[k, i]
                at += 1
    return placements, found, keys
