# cython: language_level=3, boundscheck=False, wraparound=False, initializedcheck=False, cdivision=True
"""Copies of a shape's points placed, compiled.

A turning pair's sweep asks whether B, placed at each probe, overlaps A
(:func:`cspace.kernels.contact_curves._overlaps`): shapely turns and moves a copy of B's
material for every probe. At the Geneva drive's fine tolerances the wheel's material has
hundreds of points and a probe round thousands of copies, and numpy's passes over them
(a temporary array per product and sum) were a sixth of its analysis. Here each point is
one pass: ``c x + (-s) y + offset``, summed in that order, each product and sum rounded as
numpy rounds it, never fused (setup.py builds with ``-ffp-contract=off``). So the points
are the same to the bit; ``tests/test_contact_curves.py`` holds them equal to the numpy
statements, signed zeros, infinities and NaN included.
"""

import numpy as np

cimport numpy as cnp

cnp.import_array()


def placed_copies(const double[:, :] coords, const double[::1] c, const double[::1] s, const double[:, :] offset):
    """The points (K * n, 2) of K copies of a shape, n points each (``coords``, copy after
    copy), copy k turned (cosine ``c[k]``, sine ``s[k]``) and moved by ``offset[k]``.

    >>> import numpy as np
    >>> placed_copies(np.array([[1.0, 0.0], [1.0, 0.0]]), np.array([1.0, 0.0]), np.array([0.0, 1.0]),
    ...               np.array([[0.0, 0.0], [5.0, 0.0]])).tolist()
    [[1.0, 0.0], [5.0, 1.0]]
    """
    cdef Py_ssize_t count = c.shape[0], total = coords.shape[0], n, k, i, at
    n = total // count if count else 0
    points = np.empty((count * n, 2), np.float64)
    cdef double[:, ::1] out = points
    cdef double x, y, ck, sk, ox, oy
    with nogil:
        for k in range(count):
            ck, sk, ox, oy = c[k], s[k], offset[k, 0], offset[k, 1]
            for i in range(n):
                at = k * n + i
                x, y = coords[at, 0], coords[at, 1]
                out[at, 0] = ck * x + (-sk) * y + ox
                out[at, 1] = sk * x + ck * y + oy
    return points
