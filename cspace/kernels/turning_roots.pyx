# cython: language_level=3, boundscheck=False, wraparound=False, initializedcheck=False, cdivision=True
"""A turning pair's vertex contacts, compiled where numpy made a pass per operation.

A vertex of one part meets an edge of the other as it turns where ``alpha cos phi + beta
sin phi = gamma`` (:func:`cspace.kernels.contact_curves._rotation_roots`). A pair of gears
has hundreds of thousands of (placement, edge, vertex) candidates over a sweep, and each
took some forty numpy passes: gathers of a point's two coordinates, products, sums,
selections. Here each candidate is one pass of plain arithmetic:

* ``sinusoid_terms``: alpha, beta and gamma of each candidate;
* ``turned_points``: where the vertex is at a root, and how far along a straight edge;
* ``classified``: which roots lie on their edge, the count's change there and whether
  each is degenerate (at an edge's end, a flat side, a graze).

The roots themselves (``hypot``, ``arccos``, ``arctan2``, ``cos``, ``sin``) and an arc
edge's angle stay numpy's calls between these passes: numpy computes them with its own
vector routines, whose last bits C's library need not share. Every other operation is
the numpy statement's own, in the same order (a dot product summed from zero, as
``contact_curves._dot`` sums it), each rounded alike, never fused (setup.py builds with
``-ffp-contract=off``); ``hypot`` is the C library's in both. So the roots are the same to
the bit. ``tests/test_turning_roots.py`` holds them equal to the numpy statements on
random and degenerate shapes and on the fixtures' gears.
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


def sinusoid_terms(const cnp.npy_intp[:] k, const cnp.npy_intp[:] e, const cnp.npy_intp[:] m,
                   const double[:, :, :] movers, const double[:, :] center, const double[:, :, :] normals,
                   const double[:, :, :] starts, const double[:, :, :] centers, const double[:] radii):
    """For each candidate (placement k, edge e, mover vertex m): alpha, beta and gamma of
    ``alpha cos phi + beta sin phi = gamma``, ``u . R(phi) w = gamma`` with ``w`` the vertex
    from the turn's centre and ``u`` the edge's normal (straight: ``gamma`` its line's
    distance) or the centre from the arc's centre (``gamma`` from the arc's radius).

    >>> import numpy as np
    >>> one = np.zeros(1, np.intp)
    >>> terms = sinusoid_terms(one, one, one, np.array([[[2.0, 0.0]]]), np.zeros((1, 2)), np.array([[[1.0, 0.0]]]),
    ...                        np.array([[[1.0, -1.0]]]), np.full((1, 1, 2), np.nan), np.zeros(1))
    >>> [x.tolist() for x in terms]
    [[2.0], [0.0], [1.0]]
    """
    cdef Py_ssize_t n = k.shape[0], i, kk, ee, mm
    alpha_out, beta_out, gamma_out = np.empty(n), np.empty(n), np.empty(n)
    cdef double[::1] alpha = alpha_out, beta = beta_out, gamma = gamma_out
    cdef double ox, oy, u0, u1, w0, w1, rho
    for i in range(n):
        kk, ee, mm = k[i], e[i], m[i]
        ox, oy = center[kk, 0], center[kk, 1]
        w0, w1 = movers[kk, mm, 0] - ox, movers[kk, mm, 1] - oy
        if radii[ee] != 0:
            u0, u1 = ox - centers[kk, ee, 0], oy - centers[kk, ee, 1]
            rho = fabs(radii[ee])
            gamma[i] = (rho * rho - _dot(u0, u1, u0, u1) - _dot(w0, w1, w0, w1)) / 2
        else:
            u0, u1 = normals[kk, ee, 0], normals[kk, ee, 1]
            gamma[i] = _dot(u0, u1, starts[kk, ee, 0] - ox, starts[kk, ee, 1] - oy)
        alpha[i] = u0 * w0 + u1 * w1
        beta[i] = u1 * w0 - u0 * w1
    return alpha_out, beta_out, gamma_out


def turned_points(const cnp.npy_intp[:] rows, const cnp.npy_intp[:] k, const cnp.npy_intp[:] e,
                  const cnp.npy_intp[:] m, const double[:] c, const double[:] s, const double[:, :, :] movers,
                  const double[:, :] center, const double[:, :, :] starts, const double[:, :, :] vectors,
                  const double[:] radii):
    """For the candidates ``rows`` turned by the angles whose cosines and sines are ``c`` and
    ``s`` (one each): where the vertex is, and how far along its edge (a fraction of it)
    where the edge is straight; NaN on an arc, whose angle numpy takes.

    >>> import numpy as np
    >>> one = np.zeros(1, np.intp)
    >>> point, t = turned_points(one, one, one, one, np.zeros(1), np.ones(1), np.array([[[2.0, 0.0]]]),
    ...                          np.zeros((1, 2)), np.array([[[-1.0, 1.0]]]), np.array([[[4.0, 0.0]]]), np.zeros(1))
    >>> point.tolist(), t.tolist()
    ([[0.0, 2.0]], [0.25])
    """
    cdef Py_ssize_t n = rows.shape[0], i, j, kk, ee, mm
    point_out = np.empty((n, 2))
    t_out = np.empty(n)
    cdef double[:, ::1] point = point_out
    cdef double[::1] t = t_out
    cdef double ox, oy, w0, w1, px, py, v0, v1
    for i in range(n):
        j = rows[i]
        kk, ee, mm = k[j], e[j], m[j]
        ox, oy = center[kk, 0], center[kk, 1]
        w0, w1 = movers[kk, mm, 0] - ox, movers[kk, mm, 1] - oy
        px = ox + (c[i] * w0 - s[i] * w1)
        py = oy + (s[i] * w0 + c[i] * w1)
        point[i, 0], point[i, 1] = px, py
        if radii[ee] != 0:
            t[i] = NAN
        else:
            v0, v1 = vectors[kk, ee, 0], vectors[kk, ee, 1]
            t[i] = _dot(px - starts[kk, ee, 0], py - starts[kk, ee, 1], v0, v1) / _dot(v0, v1, v0, v1)
    return point_out, t_out


def moved_points(const cnp.npy_intp[:] k, const cnp.npy_intp[:] e, const cnp.npy_intp[:] m,
                 const double[:, :, :] movers, const double[:, :] direction, const double[:, :, :] normals,
                 const double[:, :, :] starts, const double[:, :, :] vectors):
    """For each candidate (placement k, straight edge e, mover vertex m), the vertex moving
    along ``direction[k]``: how far it moves to the edge's line (0 where it runs along the
    line: its rate towards it at most 1e-12), where it is then, how far along the edge, and
    per root whether the vertex enters (moves against the normal) and grazes (runs along).
    ``contact_curves._translation_roots``' statements on a straight edge.

    >>> import numpy as np
    >>> one = np.zeros(1, np.intp)
    >>> v, point, t, entering, grazing = moved_points(one, one, one, np.array([[[3.0, 0.5]]]), np.array([[-1.0, 0.0]]),
    ...     np.array([[[1.0, 0.0]]]), np.array([[[1.0, 0.0]]]), np.array([[[0.0, 2.0]]]))
    >>> v.tolist(), point.tolist(), t.tolist(), entering.tolist(), grazing.tolist()
    ([2.0], [[1.0, 0.5]], [0.25], [1], [0])
    """
    cdef Py_ssize_t n = k.shape[0], i, kk, ee, mm
    v_out, point_out, t_out = np.empty(n), np.empty((n, 2)), np.empty(n)
    entering_out, grazing_out = np.empty(n, np.uint8), np.empty(n, np.uint8)
    cdef double[::1] v = v_out, t = t_out
    cdef double[:, ::1] point = point_out
    cdef unsigned char[::1] entering = entering_out, grazing = grazing_out
    cdef double p0, p1, d0, d1, n0, n1, rate, along, x0, x1, w0, w1
    for i in range(n):
        kk, ee, mm = k[i], e[i], m[i]
        p0, p1 = movers[kk, mm, 0], movers[kk, mm, 1]
        d0, d1 = direction[kk, 0], direction[kk, 1]
        n0, n1 = normals[kk, ee, 0], normals[kk, ee, 1]
        rate = _dot(n0, n1, d0, d1)
        along = _dot(n0, n1, starts[kk, ee, 0] - p0, starts[kk, ee, 1] - p1) / rate if fabs(rate) > 1e-12 else 0.0
        x0, x1 = p0 + along * d0, p1 + along * d1
        w0, w1 = vectors[kk, ee, 0], vectors[kk, ee, 1]
        v[i], point[i, 0], point[i, 1] = along, x0, x1
        t[i] = _dot(x0 - starts[kk, ee, 0], x1 - starts[kk, ee, 1], w0, w1) / _dot(w0, w1, w0, w1)
        entering[i], grazing[i] = rate < 0, not fabs(rate) > 1e-12
    return v_out, point_out, t_out, entering_out, grazing_out


cdef inline int _sign(double x) noexcept nogil:
    """np.sign's answer as compared with 1.0 and -1.0 (NaN: 2, equal to neither)."""
    if x > 0:
        return 1
    if x < 0:
        return -1
    return 0 if x == 0 else 2


def classified(const double[:] t, const double[:, :] point, const cnp.npy_intp[:] rows, const cnp.npy_intp[:] k,
               const cnp.npy_intp[:] e, const cnp.npy_intp[:] m, const double[:] c, const double[:] s, bint turned,
               const unsigned char[:] entering_, const unsigned char[:] grazing, const double[:, :, :] normals,
               const double[:, :, :] centers, const double[:] radii, const double[:, :, :] back,
               const double[:, :, :] ahead, double ends, double bound):
    """Of the roots (``rows`` of the candidates, ``t`` along their edges, at ``point``, the
    mover turned by ``c`` and ``s`` where ``turned``, else as it is), those on their edge
    (within ``ends`` of it): their positions, the count's change at each (one for the vertex,
    one for each of its edges that starts or stops crossing the edge:
    ``contact_curves._classify``) and whether each is degenerate (at an end, a flat side, a
    graze). ``entering`` and ``grazing`` are per root. Also whether a side is flat only as
    measured against every candidate's (above 1e-9 of the kept ones' largest, at most
    ``bound``): then these answers are not settled (``contact_curves._flat``), and None is
    returned instead.

    >>> import numpy as np
    >>> one, no = np.zeros(1, np.intp), np.zeros(1, np.uint8)
    >>> on, change, degenerate = classified(np.array([0.5]), np.array([[1.0, 0.0]]), one, one, one, one,
    ...     np.ones(1), np.zeros(1), True, np.ones(1, np.uint8), no, np.array([[[1.0, 0.0]]]),
    ...     np.full((1, 1, 2), np.nan), np.zeros(1), np.array([[[0.6, 0.8]]]), np.array([[[-0.6, 0.8]]]), 1e-9, 1e-9)
    >>> on.tolist(), change.tolist(), degenerate.tolist()
    ([0], [1], [False])
    """
    cdef Py_ssize_t n = t.shape[0], i, j, kk, ee, mm, count = 0
    positions_out = np.empty(n, np.intp)
    sides_out = np.empty((n, 2))
    cdef cnp.npy_intp[::1] positions = positions_out
    cdef double[:, ::1] sides = sides_out
    cdef double n0, n1, r0, r1, length, sign, d0, d1, largest = 0.0, size, threshold
    cdef bint nan = False
    cdef int side
    for i in range(n):
        if not (t[i] >= -ends and t[i] <= 1 + ends):
            continue
        positions[count] = i
        j = rows[i]
        kk, ee, mm = k[j], e[j], m[j]
        if radii[ee] != 0:
            r0, r1 = point[i, 0] - centers[kk, ee, 0], point[i, 1] - centers[kk, ee, 1]
            sign = 1.0 if radii[ee] > 0 else -1.0
            length = hypot(r0, r1)
            n0, n1 = sign * r0 / length, sign * r1 / length
        else:
            n0, n1 = normals[kk, ee, 0], normals[kk, ee, 1]
        d0, d1 = back[kk, mm, 0], back[kk, mm, 1]
        if turned:
            d0, d1 = c[i] * d0 - s[i] * d1, s[i] * d0 + c[i] * d1
        sides[count, 0] = _dot(n0, n1, d0, d1)
        d0, d1 = ahead[kk, mm, 0], ahead[kk, mm, 1]
        if turned:
            d0, d1 = c[i] * d0 - s[i] * d1, s[i] * d0 + c[i] * d1
        sides[count, 1] = _dot(n0, n1, d0, d1)
        for side in range(2):
            size = fabs(sides[count, side])
            if size != size:
                nan = True                                   # np.max's answer is then NaN
            elif size > largest:
                largest = size
        count += 1
    threshold = 1e-9 * ((NAN if nan else largest) + 1e-300)
    change_out = np.empty(count, np.int64)
    degenerate_out = np.empty(count, np.bool_)
    cdef cnp.int64_t[::1] change = change_out
    cdef cnp.npy_bool[::1] degenerate = degenerate_out
    cdef bint entering, flat
    cdef int before, crossing
    cdef double along
    for i in range(count):
        for side in range(2):
            size = fabs(sides[i, side])
            if size > threshold and size <= bound:
                return None
        entering = entering_[positions[i]] != 0
        before = 1 if entering else -1
        crossing = 0
        flat = False
        for side in range(2):
            crossing += 1 if _sign(sides[i, side]) == before else -1
            flat = flat or fabs(sides[i, side]) <= threshold
        change[i] = (1 if entering else -1) + crossing
        along = t[positions[i]]
        degenerate[i] = fabs(along) <= ends or fabs(along - 1) <= ends or flat or grazing[positions[i]] != 0
    return positions_out[:count].copy(), change_out, degenerate_out
