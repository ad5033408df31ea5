# cython: language_level=3, boundscheck=False, wraparound=False, initializedcheck=False, cdivision=True
"""A turning pair's arc tangencies, compiled where numpy made a pass per operation.

A mover arc turning about a centre is tangent to an edge where its centre is at its
radius from a straight edge's line, or at the sum or difference of the radii from an
arc's centre: again ``alpha cos phi + beta sin phi = gamma``
(:func:`cspace.kernels.contact_curves._rotation_tangencies`). Each candidate (placement,
edge, mover arc) took some sixty numpy passes on arrays of a few hundred; here it is one
pass of plain arithmetic before the roots and one after:

* ``tangency_terms``: alpha, beta, and gamma for each of the two tangencies (``which`` 0:
  the sum of the radii, or the arc's far side of the line; 1: their difference, or its
  near side), and whether a difference of radii is too small for a tangency;
* ``tangent_points``: at a root, the mover arc's centre, where it touches the edge, and
  how far along the edge (a fraction of it) where the edge is straight; NaN on an arc,
  whose angle numpy takes.

The roots (``hypot``, ``arccos``, ``arctan2``, ``cos``, ``sin``) and the arcs' angles stay
numpy's calls between these passes, as in :mod:`cspace.kernels.turning_roots` and for the
same reason: numpy's vector routines need not share C's last bits. Every other operation is
the numpy statement's own, in the same order, each rounded alike, never fused (setup.py
builds with ``-ffp-contract=off``); ``hypot`` is the C library's in both. So the
tangencies are the same to the bit: ``tests/test_turning_tangencies.py`` holds them equal
to the numpy statements (``contact_curves._plain_rotation_tangencies``).
"""

import numpy as np

cimport numpy as cnp
from libc.math cimport NAN, fabs, hypot

cnp.import_array()


cdef inline double _dot(double p0, double p1, double q0, double q1) noexcept nogil:
    """A dot product summed from zero, as ``contact_curves._dot``: ``0.0 + p0 q0``, then ``+ p1 q1``."""
    cdef double out = 0.0 + p0 * q0
    out += p1 * q1
    return out


def tangency_terms(const cnp.npy_intp[:] k, const cnp.npy_intp[:] e, const cnp.npy_intp[:] j,
                   const double[:, :, :] arm, const double[:, :] center, const double[:, :, :] normals,
                   const double[:, :, :] starts, const double[:, :, :] centers, const double[:] radii,
                   const double[:] mover_radii):
    """For each candidate (placement k, edge e, mover arc j, whose centre is ``arm[k, j]``
    from the turn's centre): alpha and beta of ``alpha cos phi + beta sin phi = gamma``,
    gamma for each tangency (n, 2), and whether a tangency of an arc edge has no difference
    of radii to be at (n, 2; never so for the sum).

    >>> import numpy as np
    >>> one = np.zeros(1, np.intp)
    >>> alpha, beta, gamma, apart = tangency_terms(one, one, one, np.array([[[2.0, 0.0]]]), np.zeros((1, 2)),
    ...     np.array([[[1.0, 0.0]]]), np.array([[[1.0, -1.0]]]), np.full((1, 1, 2), np.nan), np.zeros(1), np.full(1, 0.5))
    >>> alpha.tolist(), beta.tolist(), gamma.tolist(), apart.tolist()
    ([2.0], [0.0], [[1.5, 0.5]], [[False, False]])
    """
    cdef Py_ssize_t n = k.shape[0], i, kk, ee, jj
    alpha_out, beta_out, gamma_out = np.empty(n), np.empty(n), np.empty((n, 2))
    apart_out = np.empty((n, 2), np.bool_)
    cdef double[::1] alpha = alpha_out, beta = beta_out
    cdef double[:, ::1] gamma = gamma_out
    cdef cnp.npy_bool[:, ::1] apart = apart_out
    cdef double ox, oy, u0, u1, w0, w1, rho_a, rho_b, line, reach, uu, ww
    cdef bint curved
    for i in range(n):
        kk, ee, jj = k[i], e[i], j[i]
        ox, oy = center[kk, 0], center[kk, 1]
        w0, w1 = arm[kk, jj, 0], arm[kk, jj, 1]
        rho_a, rho_b = fabs(radii[ee]), fabs(mover_radii[jj])
        curved = radii[ee] != 0
        if curved:
            u0, u1 = ox - centers[kk, ee, 0], oy - centers[kk, ee, 1]
            uu, ww = _dot(u0, u1, u0, u1), _dot(w0, w1, w0, w1)
            reach = rho_a + rho_b
            gamma[i, 0] = (reach * reach - uu - ww) / 2
            apart[i, 0] = reach <= 1e-12 * rho_b
            reach = fabs(rho_a - rho_b)
            gamma[i, 1] = (reach * reach - uu - ww) / 2
            apart[i, 1] = reach <= 1e-12 * rho_b
        else:
            u0, u1 = normals[kk, ee, 0], normals[kk, ee, 1]
            line = _dot(u0, u1, starts[kk, ee, 0] - ox, starts[kk, ee, 1] - oy)
            gamma[i, 0], gamma[i, 1] = line + rho_b, line + -rho_b
            apart[i, 0] = apart[i, 1] = False
        alpha[i] = u0 * w0 + u1 * w1
        beta[i] = u1 * w0 - u0 * w1
    return alpha_out, beta_out, gamma_out, apart_out


def tangent_points(const cnp.npy_intp[:] rows, const cnp.npy_intp[:] k, const cnp.npy_intp[:] e,
                   const cnp.npy_intp[:] j, const double[:] c, const double[:] s, const double[:, :, :] arm,
                   const double[:, :] center, const double[:, :, :] normals, const double[:, :, :] starts,
                   const double[:, :, :] vectors, const double[:, :, :] centers, const double[:] radii,
                   const double[:] mover_radii, int which):
    """For the candidates ``rows`` turned by the angles whose cosines and sines are ``c`` and
    ``s`` (one each), at tangency ``which``: where the mover arc's centre is, where it
    touches the edge (the foot of its centre on a straight edge's line; on the line of
    centres for an arc: ``contact_curves._touch_point``), and how far along the edge the
    touch is (a fraction of it) where the edge is straight; NaN on an arc.

    >>> import numpy as np
    >>> one = np.zeros(1, np.intp)
    >>> moved, touch, t = tangent_points(one, one, one, one, np.zeros(1), np.ones(1), np.array([[[2.0, 0.0]]]),
    ...     np.zeros((1, 2)), np.array([[[0.0, 1.0]]]), np.array([[[-1.0, 1.5]]]), np.array([[[4.0, 0.0]]]),
    ...     np.full((1, 1, 2), np.nan), np.zeros(1), np.full(1, 0.5), 0)
    >>> moved.tolist(), touch.tolist(), t.tolist()
    ([[0.0, 2.0]], [[0.0, 1.5]], [0.25])
    """
    cdef Py_ssize_t n = rows.shape[0], i, r, kk, ee, jj
    moved_out, touch_out, t_out = np.empty((n, 2)), np.empty((n, 2)), np.empty(n)
    cdef double[:, ::1] moved = moved_out, touch = touch_out
    cdef double[::1] t = t_out
    cdef double ox, oy, w0, w1, mx, my, rho_a, rho_b, signed, a0, a1, length, scale, v0, v1
    for i in range(n):
        r = rows[i]
        kk, ee, jj = k[r], e[r], j[r]
        ox, oy = center[kk, 0], center[kk, 1]
        w0, w1 = arm[kk, jj, 0], arm[kk, jj, 1]
        mx = ox + (c[i] * w0 - s[i] * w1)
        my = oy + (s[i] * w0 + c[i] * w1)
        moved[i, 0], moved[i, 1] = mx, my
        rho_b = fabs(mover_radii[jj])
        if radii[ee] != 0:
            rho_a = fabs(radii[ee])
            a0, a1 = mx - centers[kk, ee, 0], my - centers[kk, ee, 1]
            length = hypot(a0, a1)
            if not length > 0:
                length = 1.0
            a0, a1 = a0 / length, a1 / length
            scale = (1.0 if which == 0 or rho_a >= rho_b else -1.0) * rho_a
            touch[i, 0] = centers[kk, ee, 0] + scale * a0
            touch[i, 1] = centers[kk, ee, 1] + scale * a1
            t[i] = NAN
        else:
            signed = rho_b if which == 0 else -rho_b
            touch[i, 0] = mx - signed * normals[kk, ee, 0]
            touch[i, 1] = my - signed * normals[kk, ee, 1]
            v0, v1 = vectors[kk, ee, 0], vectors[kk, ee, 1]
            t[i] = _dot(touch[i, 0] - starts[kk, ee, 0], touch[i, 1] - starts[kk, ee, 1], v0, v1) / _dot(v0, v1, v0, v1)
    return moved_out, touch_out, t_out
