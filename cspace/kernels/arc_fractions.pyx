# cython: language_level=3, boundscheck=False, wraparound=False, initializedcheck=False, cdivision=True
"""Where points lie along arcs, compiled around numpy's ``arctan2``.

``contact_curves._arc_fraction`` takes a point's direction from an arc's centre as a
fraction of the arc's sweep: two differences, a cross and a dot product, numpy's
``arctan2``, then the sign, the remainder of a turn, a wrap and a division. On a turning
pair's contacts that was some twenty numpy passes on each batch of roots; here it is one
pass before ``arctan2`` (``angle_terms``) and one after (``fractions``), ``arctan2`` kept
numpy's (its vector routine's last bits need not be C's). The other operations are the
numpy statements', in their order, never fused (``-ffp-contract=off``); the remainder is
numpy's (``npy_divmod``: C's ``fmod``, exact, then moved into ``[0, 2 pi)``).
``tests/test_arc_fractions.py`` holds them equal to the numpy statements bit for bit.
"""

import numpy as np

cimport numpy as cnp
from libc.math cimport M_PI, fmod

cnp.import_array()

cdef double TURN = 2 * M_PI


def angle_terms(const double[:, :] point, const double[:, :] center, const double[:, :] start):
    """For each point (n, 2) and its arc's centre and start: the cross and dot products of
    the start's and the point's directions from the centre, ``arctan2``'s arguments.

    >>> import numpy as np
    >>> cross, dot = angle_terms(np.array([[0.0, 2.0]]), np.array([[0.0, 1.0]]), np.array([[1.0, 1.0]]))
    >>> cross.tolist(), dot.tolist()
    ([1.0], [0.0])
    """
    cdef Py_ssize_t n = point.shape[0], i
    cross_out, dot_out = np.empty(n), np.empty(n)
    cdef double[::1] cross = cross_out, dot = dot_out
    cdef double p0, p1, q0, q1, out
    for i in range(n):
        p0, p1 = start[i, 0] - center[i, 0], start[i, 1] - center[i, 1]
        q0, q1 = point[i, 0] - center[i, 0], point[i, 1] - center[i, 1]
        cross[i] = p0 * q1 - p1 * q0
        out = 0.0 + p0 * q0                       # contact_curves._dot: summed from zero
        out += p1 * q1
        dot[i] = out
    return cross_out, dot_out


cdef inline double _remainder(double a, double b) noexcept nogil:
    """``a % b`` as numpy takes it (``npy_divmod``'s modulus)."""
    cdef double mod = fmod(a, b)
    if not b:
        return mod
    if mod:
        if (b < 0) != (mod < 0):
            mod += b
    else:
        mod = 0.0 if b > 0 else -0.0
    return mod


def fractions(const double[:] angle, const double[:] radius, const double[:] span):
    """Each point's fraction of its arc's sweep ``span``, from ``angle`` (``arctan2`` of
    :func:`angle_terms`) and the arc's nonzero signed ``radius``: the angle the way the arc
    turns, in ``[0, 2 pi)``, less a turn past the middle of what the arc leaves of a turn.

    >>> import numpy as np
    >>> fractions(np.array([1.0, 3.0, -1.0, 1.0]), np.array([2.0, 2.0, 2.0, -2.0]), np.full(4, 2.0)).tolist()
    [0.5, 1.5, -0.5, -0.5]
    """
    cdef Py_ssize_t n = angle.shape[0], i
    out_ = np.empty(n)
    cdef double[::1] out = out_
    cdef double at, sign, r
    for i in range(n):
        r = radius[i]
        sign = 1.0 if r > 0 else (-1.0 if r < 0 else (0.0 if r == 0 else r))   # np.sign
        at = _remainder(sign * angle[i], TURN)
        if at > span[i] / 2 + M_PI:
            at = at - TURN
        out[i] = at / (span[i] if span[i] > 0 else 1.0)
    return out_
