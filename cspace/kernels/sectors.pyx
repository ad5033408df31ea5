# cython: language_level=3, boundscheck=False, wraparound=False, initializedcheck=False, cdivision=True
"""Blocked arcs against one sector of a symmetric part, turned to every sector, compiled.

``repeated_arcs``: a turning pair whose met part repeats (a gear's teeth) solves its
blocked arcs against one sector and turns them to the others
(:func:`cspace.spaces.rotation._repeated`): each arc copied once per sector, the copies
sorted, those that meet joined, round the seam too. In Python that was a list per
placement and a sort of lists, a gear pair's 554 placements times its arcs times its
teeth. The arithmetic is the Python statements' own, in the same order (a sum, a
difference, a product, a quotient and a floor: each rounded the same in C, no fused
operations: setup.py builds with ``-ffp-contract=off``), the sort is the same
lexicographic one, equal arcs kept in the order they were made, so the arcs are the
same to the bit.

``tests/test_sectors.py`` holds it equal to the Python statements on random and
degenerate arcs (full turns, arcs across the seam, equal and touching copies, signed zeros).
"""

import numpy as np

cimport numpy as cnp
from libc.math cimport floor
from libc.stdlib cimport free, malloc, qsort

cnp.import_array()


cdef struct Span:
    double lo
    double hi
    long long f_lo
    long long f_hi
    Py_ssize_t made  # its place among the placement's copies: equal spans keep their order


cdef int _compare(const void *first, const void *second) noexcept nogil:
    """Python's order of the lists [lo, hi, lo feature, hi feature], then as made."""
    cdef const Span *a = <const Span *> first
    cdef const Span *b = <const Span *> second
    if a.lo != b.lo:
        return -1 if a.lo < b.lo else 1
    if a.hi != b.hi:
        return -1 if a.hi < b.hi else 1
    if a.f_lo != b.f_lo:
        return -1 if a.f_lo < b.f_lo else 1
    if a.f_hi != b.f_hi:
        return -1 if a.f_hi < b.f_hi else 1
    return -1 if a.made < b.made else (1 if a.made > b.made else 0)


cdef inline long long _sector_feature(long long feature, long long n, long long j, long long none) noexcept nogil:
    return none if feature == none else feature * n + j


cdef Py_ssize_t _joined(Span *spans, Py_ssize_t count, double turn, double pi, double join,
                        long long none) noexcept nogil:
    """The sorted spans joined in place (``rotation._joined``): how many are left."""
    cdef Py_ssize_t i, kept, head
    cdef double lo0
    if count == 0:
        return 0
    for i in range(count):
        if spans[i].hi - spans[i].lo >= turn:
            spans[0].lo, spans[0].hi, spans[0].f_lo, spans[0].f_hi = -pi, pi, none, none
            return 1
    kept = 1
    for i in range(1, count):
        if spans[i].lo <= spans[kept - 1].hi + join:
            if spans[i].hi > spans[kept - 1].hi:
                spans[kept - 1].hi, spans[kept - 1].f_hi = spans[i].hi, spans[i].f_hi
        else:
            spans[kept] = spans[i]
            kept += 1
    # The last arc may run on past the seam over the first ones.
    head = 0
    while kept - head > 1 and spans[kept - 1].hi - turn >= spans[head].lo - join:
        if spans[head].hi + turn > spans[kept - 1].hi:
            spans[kept - 1].hi, spans[kept - 1].f_hi = spans[head].hi + turn, spans[head].f_hi
        head += 1
    if spans[kept - 1].hi - spans[kept - 1].lo >= turn - join:
        spans[0].lo, spans[0].hi, spans[0].f_lo, spans[0].f_hi = -pi, pi, none, none
        return 1
    for i in range(head, kept):
        spans[i - head] = spans[i]
    return kept - head


def repeated_arcs(const double[:, ::1] lo, const double[:, ::1] hi, const cnp.int64_t[:, ::1] lo_feature,
                  const cnp.int64_t[:, ::1] hi_feature, const cnp.int64_t[::1] count, long long n, double turn,
                  double pi, double join, long long none):
    """Each placement's arcs (the first ``count[k]`` of row k) copied to the ``n`` sectors
    (the copy in sector j ``j * turn / n`` back, put in the turn from ``-pi``, its features
    ``f * n + j``), sorted and joined (within ``join``, round the seam); an arc of a whole
    turn or more blocks it all (``-pi`` to ``pi``, no features: ``none``). Returns lo, hi
    (K, width) padded with NaN, their features padded with ``none``, and the counts.

    >>> import math, numpy as np
    >>> lo, hi, f_lo, f_hi, counts = repeated_arcs(np.array([[0.5]]), np.array([[1.0]]), np.array([[7]]),
    ...                                            np.array([[8]]), np.array([1]), 2, 2 * math.pi, math.pi, 1e-9, -1)
    >>> np.round(lo, 4).tolist(), np.round(hi, 4).tolist(), f_lo.tolist(), f_hi.tolist(), counts.tolist()
    ([[-2.6416, 0.5]], [[-2.1416, 1.0]], [[15, 14]], [[17, 16]], [2])
    """
    cdef Py_ssize_t K = count.shape[0], k, m, j, made, widest = 1, i, at = 0
    cdef long long most = 0, total = 0
    for k in range(K):
        most = max(most, count[k])
        total += count[k]
    cdef Span *spans = <Span *> malloc(max(1, most * n) * sizeof(Span))
    cdef Span *kept = <Span *> malloc(max(1, total * n) * sizeof(Span))  # each placement's joined spans, in turn
    if spans == NULL or kept == NULL:
        free(spans)
        free(kept)
        raise MemoryError()
    sizes = np.zeros(K, np.int64)
    cdef cnp.int64_t[::1] size = sizes
    cdef double a, shift, whole, first, last
    try:
        for k in range(K):
            made = 0
            for m in range(count[k]):
                first, last = lo[k, m], hi[k, m]
                if last - first >= turn:
                    spans[made].lo, spans[made].hi, spans[made].f_lo, spans[made].f_hi = -pi, pi, none, none
                    spans[made].made = made
                    made += 1
                    continue
                for j in range(n):
                    shift = turn * <double> j / <double> n
                    a = first - shift
                    whole = turn * floor((a + pi) / turn)
                    spans[made].lo, spans[made].hi = a - whole, last - shift - whole
                    spans[made].f_lo = _sector_feature(lo_feature[k, m], n, j, none)
                    spans[made].f_hi = _sector_feature(hi_feature[k, m], n, j, none)
                    spans[made].made = made
                    made += 1
            qsort(spans, made, sizeof(Span), _compare)
            size[k] = _joined(spans, made, turn, pi, join, none)
            widest = max(widest, size[k])
            for i in range(size[k]):
                kept[at + i] = spans[i]
            at += size[k]
        out_lo = np.full((K, widest), np.nan)
        out_hi = np.full((K, widest), np.nan)
        out_f_lo = np.full((K, widest), none, np.int64)
        out_f_hi = np.full((K, widest), none, np.int64)
        _fill(kept, size, out_lo, out_hi, out_f_lo, out_f_hi)
    finally:
        free(spans)
        free(kept)
    return out_lo, out_hi, out_f_lo, out_f_hi, sizes


cdef void _fill(const Span *kept, const cnp.int64_t[::1] size, double[:, ::1] lo, double[:, ::1] hi,
                cnp.int64_t[:, ::1] f_lo, cnp.int64_t[:, ::1] f_hi) noexcept:
    """Each placement's spans (one after another in ``kept``) into its row of the tables."""
    cdef Py_ssize_t k, i, at = 0
    for k in range(size.shape[0]):
        for i in range(size[k]):
            lo[k, i], hi[k, i] = kept[at].lo, kept[at].hi
            f_lo[k, i], f_hi[k, i] = kept[at].f_lo, kept[at].f_hi
            at += 1
