# cython: language_level=3, boundscheck=False, wraparound=False, initializedcheck=False, cdivision=True
"""Propagation over tight contact rows, compiled: which motions are stuck, which coordinates move together.

Both are fixed points over the rows' nonzero pattern, linear in its entries. In Python
they cost a dictionary operation per entry and dominated the trace of a large stack
(the 80-block feeder: a quarter of the trace); here they cost a few machine operations
per entry. ``tests/test_propagation.py`` holds them equal to a plain Python statement
of the same rules on random and degenerate rows.
"""

import numpy as np

cimport numpy as cnp

cnp.import_array()


def stuck_motions(const double[:, :] rows, const unsigned char[:] frozen):
    """Motions that surely cannot happen under tight ``rows`` (each ``row @ v <= 0``).

    Returns an (n, 2) array of flags: ``[k, 0]`` for coordinate k moving up, ``[k, 1]``
    down. A frozen coordinate cannot move either way; coordinate k cannot move in the
    direction that increases some row unless another coordinate of that row can move
    the way that decreases it. The least set closed under that rule.

    >>> import numpy as np
    >>> stuck_motions(np.array([[1.0, -1.0]]), np.array([0, 1], np.uint8)).tolist()
    [[1, 0], [1, 1]]
    """
    cdef Py_ssize_t m = rows.shape[0], n = rows.shape[1]
    cdef Py_ssize_t r, k, e, motion, count = _nonzeros(rows), head = 0, tail = 0
    # Each nonzero entry is a member of its row: its coordinate and the motion that pushes into the row.
    cdef cnp.ndarray[cnp.npy_intp] starts = np.zeros(m + 1, np.intp)
    cdef cnp.ndarray[cnp.npy_intp] pushes = np.empty(count, np.intp)  # motion id 2k (up) or 2k + 1 (down)
    e = 0
    for r in range(m):
        starts[r] = e
        for k in range(n):
            if rows[r, k] > 0.0:
                pushes[e] = 2 * k
                e += 1
            elif rows[r, k] != 0.0:  # negative (or NaN, which np.nonzero counts too)
                pushes[e] = 2 * k + 1
                e += 1
    starts[m] = e
    # The rows each motion relieves (those holding the opposite push), as CSR.
    cdef cnp.ndarray[cnp.npy_intp] offsets, relieves
    offsets, relieves = _rows_holding(starts, pushes ^ 1, 2 * n)
    out = np.zeros((n, 2), np.uint8)
    cdef unsigned char[:, :] stuck = out
    cdef unsigned char[:] flat = out.reshape(-1)
    for k in range(n):
        if frozen[k]:
            stuck[k, 0] = 1
            stuck[k, 1] = 1
    # waiting[r]: members of row r whose relieving motion is not known to be stuck.
    cdef cnp.ndarray[cnp.npy_intp] waiting = np.zeros(m, np.intp)
    for r in range(m):
        for e in range(starts[r], starts[r + 1]):
            if not flat[pushes[e] ^ 1]:
                waiting[r] += 1
    cdef cnp.ndarray[cnp.npy_intp] queue = np.empty(m + count + 1, np.intp)
    for r in range(m):
        queue[tail] = r
        tail += 1
    cdef Py_ssize_t others, r2, f
    while head < tail:
        r = queue[head]
        head += 1
        for e in range(starts[r], starts[r + 1]):
            motion = pushes[e]
            others = waiting[r] - (0 if flat[motion ^ 1] else 1)
            if others == 0 and not flat[motion]:
                flat[motion] = 1
                for f in range(offsets[motion], offsets[motion + 1]):
                    r2 = relieves[f]
                    waiting[r2] -= 1
                    queue[tail] = r2
                    tail += 1
    return out


def reachable(const double[:, :] rows, const unsigned char[:] start, const Py_ssize_t[:, :] partners):
    """Coordinates that may move when those flagged in ``start`` move: linked to them by a
    row (its nonzero entries move together) or by a pair in ``partners`` (a linkage's input
    and output, either way). Returns a flag per coordinate.

    >>> import numpy as np
    >>> reachable(np.array([[1.0, -1.0, 0.0]]), np.array([0, 1, 0], np.uint8), np.zeros((0, 2), np.intp)).tolist()
    [1, 1, 0]
    """
    cdef Py_ssize_t m = rows.shape[0], n = rows.shape[1]
    cdef Py_ssize_t r, k, j, e, head = 0, tail = 0
    # Each row's coordinates, and the rows each coordinate appears in (CSR by coordinate).
    cdef cnp.ndarray[cnp.npy_intp] row_starts = np.zeros(m + 1, np.intp)
    cdef cnp.ndarray[cnp.npy_intp] columns = np.empty(_nonzeros(rows), np.intp)
    e = 0
    for r in range(m):
        row_starts[r] = e
        for k in range(n):
            if rows[r, k] != 0.0:
                columns[e] = k
                e += 1
    row_starts[m] = e
    cdef cnp.ndarray[cnp.npy_intp] offsets, appears
    offsets, appears = _rows_holding(row_starts, columns, n)
    out = np.zeros(n, np.uint8)
    cdef unsigned char[:] movable = out
    cdef cnp.ndarray[cnp.uint8_t] used = np.zeros(m, np.uint8)
    cdef cnp.ndarray[cnp.npy_intp] queue = np.empty(n, np.intp)
    for k in range(n):
        if start[k]:
            movable[k] = 1
            queue[tail] = k
            tail += 1
    while head < tail:
        k = queue[head]
        head += 1
        for j in range(partners.shape[0]):
            for e in range(2):
                if partners[j, e] == k and not movable[partners[j, 1 - e]]:
                    movable[partners[j, 1 - e]] = 1
                    queue[tail] = partners[j, 1 - e]
                    tail += 1
        for e in range(offsets[k], offsets[k + 1]):
            r = appears[e]
            if used[r]:
                continue
            used[r] = 1
            for j in range(row_starts[r], row_starts[r + 1]):
                if not movable[columns[j]]:
                    movable[columns[j]] = 1
                    queue[tail] = columns[j]
                    tail += 1
    return out


cdef Py_ssize_t _nonzeros(const double[:, :] rows):
    """The entries of ``rows`` that are not zero (NaN among them, as np.nonzero counts it)."""
    cdef Py_ssize_t r, k, count = 0
    for r in range(rows.shape[0]):
        for k in range(rows.shape[1]):
            if rows[r, k] != 0.0:
                count += 1
    return count


cdef tuple _rows_holding(cnp.ndarray[cnp.npy_intp] starts, cnp.ndarray[cnp.npy_intp] items, Py_ssize_t kinds):
    """For each value 0 .. kinds - 1, the rows whose entries (``items[starts[r]:starts[r + 1]]``
    for row r) hold it, in order, as CSR: the offsets of each value's rows and the rows."""
    cdef Py_ssize_t r, e, item
    cdef cnp.ndarray[cnp.npy_intp] degree = np.zeros(kinds + 1, np.intp)
    for e in range(len(items)):
        degree[items[e] + 1] += 1
    cdef cnp.ndarray[cnp.npy_intp] offsets = np.cumsum(degree)
    cdef cnp.ndarray[cnp.npy_intp] filled = offsets[:kinds].copy()
    cdef cnp.ndarray[cnp.npy_intp] holding = np.empty(len(items), np.intp)
    for r in range(len(starts) - 1):
        for e in range(starts[r], starts[r + 1]):
            item = items[e]
            holding[filled[item]] = r
            filled[item] += 1
    return offsets, holding
