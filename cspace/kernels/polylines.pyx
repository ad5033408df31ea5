# cython: language_level=3, boundscheck=False, wraparound=False, initializedcheck=False, cdivision=True
"""Points against polylines, compiled: how far along each line its nearest point lies,
how near it is, and the point a length along a line.

A turning pair's grown outline takes each edge's contact from the ungrown stretch beside
it (:class:`cspace.spaces.convex_regions.LabelledEdges`). shapely's ``line_locate_point``,
``distance`` and ``line_interpolate_point`` did it, each walking the whole stretch in GEOS
for every (edge, stretch) pair: at fine tolerances an arc of a Geneva wheel is a stretch
of two thousand vertices, and five thousand edges made the walk most of a second. Here
one walk gives both the measure along the line and the distance (GEOS's own loop finds
the nearest segment and measures along it; the distance is that segment's), with GEOS's
arithmetic in its order (``LengthIndexOfPoint``, ``Distance::pointToSegment``,
``LengthLocationMap``, ``LineSegment::pointAlongSegmentByFraction``), built with
``-ffp-contract=off`` so nothing is fused: the same doubles as shapely's.

``tests/test_polylines.py`` holds them equal to shapely's, bit for bit, on random lines,
on lines with repeated vertices and on points on vertices and past the ends.
"""

import numpy as np

cimport numpy as cnp
from libc.math cimport INFINITY, fabs, sqrt

cnp.import_array()


cdef inline double _distance(double ax, double ay, double bx, double by) noexcept nogil:
    """GEOS's ``Coordinate::distance``."""
    cdef double dx = ax - bx, dy = ay - by
    return sqrt(dx * dx + dy * dy)


cdef inline double _to_segment(double px, double py, double ax, double ay, double bx, double by) noexcept nogil:
    """GEOS's ``Distance::pointToSegment``: from p to the segment a-b."""
    if ax == bx and ay == by:
        return _distance(px, py, ax, ay)
    cdef double len2 = (bx - ax) * (bx - ax) + (by - ay) * (by - ay)
    cdef double r = ((px - ax) * (bx - ax) + (py - ay) * (by - ay)) / len2
    if r <= 0.0:
        return _distance(px, py, ax, ay)
    if r >= 1.0:
        return _distance(px, py, bx, by)
    cdef double s = ((ay - py) * (bx - ax) - (ax - px) * (by - ay)) / len2
    return fabs(s) * sqrt(len2)


cdef inline double _projection(double px, double py, double ax, double ay, double bx, double by) noexcept nogil:
    """GEOS's ``LineSegment::projectionFactor`` of p on the segment a-b."""
    if px == ax and py == ay:
        return 0.0
    if px == bx and py == by:
        return 1.0
    cdef double dx = bx - ax, dy = by - ay
    cdef double len2 = dx * dx + dy * dy
    return ((px - ax) * dx + (py - ay) * dy) / len2


def located(const double[:, ::1] coords, const cnp.npy_intp[::1] starts, const cnp.npy_intp[::1] which,
            const double[::1] x, const double[::1] y):
    """For each point (x[i], y[i]) and line ``which[i]`` (its vertices ``coords[starts[j]:
    starts[j + 1]]``, at least two): how far along the line its nearest point lies and how
    far away it is, as shapely's ``line_locate_point`` and ``distance`` give them.

    >>> import numpy as np
    >>> at, far = located(np.array([[0.0, 0.0], [2.0, 0.0], [2.0, 2.0]]), np.array([0, 3], np.intp),
    ...                   np.array([0], np.intp), np.array([3.0]), np.array([1.0]))
    >>> at.tolist(), far.tolist()
    ([3.0], [1.0])
    """
    cdef Py_ssize_t n = which.shape[0], i, v, line
    along = np.empty(n, np.float64)
    near = np.empty(n, np.float64)
    cdef double[::1] out_at = along, out_far = near
    cdef double px, py, ax, ay, bx, by, least, measure, start, far, length, factor
    with nogil:
        for i in range(n):
            line = which[i]
            px, py = x[i], y[i]
            least, measure, start = INFINITY, -1.0, 0.0
            for v in range(starts[line], starts[line + 1] - 1):
                ax, ay, bx, by = coords[v, 0], coords[v, 1], coords[v + 1, 0], coords[v + 1, 1]
                far = _to_segment(px, py, ax, ay, bx, by)
                length = _distance(ax, ay, bx, by)
                if far < least:                      # GEOS measures at every segment, keeps it only here
                    factor = _projection(px, py, ax, ay, bx, by)
                    if factor <= 0.0:
                        measure = start
                    elif factor <= 1.0:
                        measure = start + factor * length
                    else:
                        measure = start + length
                    least = far
                start += length
            out_at[i] = measure
            out_far[i] = least
    return along, near


def interpolated(const double[:, ::1] coords, const cnp.npy_intp[::1] starts, const cnp.npy_intp[::1] which,
                 const double[::1] where):
    """The point ``where[i]`` along line ``which[i]`` (0 <= where), as shapely's
    ``line_interpolate_point`` gives it: (n, 2).

    >>> import numpy as np
    >>> interpolated(np.array([[0.0, 0.0], [2.0, 0.0], [2.0, 2.0]]), np.array([0, 3], np.intp),
    ...              np.array([0, 0], np.intp), np.array([3.0, 9.0])).tolist()
    [[2.0, 1.0], [2.0, 2.0]]
    """
    cdef Py_ssize_t n = which.shape[0], i, v, line, last
    points = np.empty((n, 2), np.float64)
    cdef double[:, ::1] out = points
    cdef double length, total, piece, fraction, ax, ay, bx, by
    with nogil:
        for i in range(n):
            line = which[i]
            length = where[i]
            last = starts[line + 1] - 1
            out[i, 0], out[i, 1] = coords[last, 0], coords[last, 1]
            if length <= 0.0:
                out[i, 0], out[i, 1] = coords[starts[line], 0], coords[starts[line], 1]
                continue
            total = 0.0
            for v in range(starts[line], last):
                ax, ay, bx, by = coords[v, 0], coords[v, 1], coords[v + 1, 0], coords[v + 1, 1]
                piece = _distance(bx, by, ax, ay)
                if total + piece > length:
                    fraction = (length - total) / piece
                    if fraction <= 0.0:
                        out[i, 0], out[i, 1] = ax, ay
                    elif fraction >= 1.0:
                        out[i, 0], out[i, 1] = bx, by
                    else:
                        out[i, 0] = (bx - ax) * fraction + ax
                        out[i, 1] = (by - ay) * fraction + ay
                    break
                total += piece
    return points
