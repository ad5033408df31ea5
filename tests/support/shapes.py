"""Shapes the tests draw and compare: a shapely polygon as a contact-curve shape, random
star-shaped and rectilinear polygons, and the blocked samples of computed intervals with
how they may differ from shapely's truth."""

from __future__ import annotations

import numpy as np
import shapely
from shapely.geometry import Polygon, box

from cspace.kernels.contact_curves import Shape


def shape_of(polygon: Polygon) -> Shape:
    polygon = shapely.geometry.polygon.orient(polygon)
    rings = [np.array(polygon.exterior.coords[:-1])] + [np.array(h.coords[:-1]) for h in polygon.interiors]
    return Shape.of([(ring, ("v",) * len(ring), (("e",),) * len(ring)) for ring in rings])


def random_polygon(rng, n: int, centre, radius: float) -> Polygon:
    """A star-shaped polygon (concave in general) about ``centre``; its convex hull where its
    points, all within half a turn of each other, would make it cross itself (no part's
    outline does: the loader refuses it)."""
    angles = np.sort(rng.uniform(0, 2 * np.pi, n))
    radii = radius * rng.uniform(0.4, 1.0, n)
    polygon = Polygon(np.stack([centre[0] + radii * np.cos(angles), centre[1] + radii * np.sin(angles)], 1))
    return polygon if polygon.is_valid else polygon.convex_hull


def rectilinear(rng, count: int) -> Polygon:
    """A union of integer boxes, each overlapping the first: collinear edges, vertices meeting
    vertices, every degeneracy."""
    x, y = rng.integers(-3, 2, 2)
    boxes = [box(x, y, x + 2, y + 2)]
    for _ in range(count - 1):
        dx, dy = rng.integers(-1, 2, 2)
        w, h = rng.integers(2, 4, 2)
        boxes.append(box(x + dx, y + dy, x + dx + w, y + dy + h))
    return shapely.union_all(boxes)


def blocked_at(intervals, k: int, values: np.ndarray, cyclic: bool) -> np.ndarray:
    inside = np.zeros(len(values), bool)
    for m in range(int(intervals.count[k])):
        lo, hi = intervals.lo[k, m], intervals.hi[k, m]
        inside |= (values > lo) & (values < hi)
        if cyclic:
            inside |= (values + 2 * np.pi > lo) & (values + 2 * np.pi < hi)
    return inside


def agree(truth: np.ndarray, mine: np.ndarray, values: np.ndarray, intervals, width: float) -> bool:
    """Equal, or differing only within ``width`` of an interval's end (the samples straddle it)."""
    ends = [x for m in range(int(intervals.count[0])) for x in (intervals.lo[0, m], intervals.hi[0, m])]
    differ = values[truth != mine]
    return all(min(min(abs(w - e), abs(w + 2 * np.pi - e), abs(w - 2 * np.pi - e)) for e in ends) < width
               for w in differ) if ends else not len(differ)


def rounded(width: int, height: int, radius: float) -> tuple[Shape, Polygon]:
    """A rectangle with quarter-round corners: straight faces meeting arcs tangentially (a
    disk when the faces have no length)."""
    w, h, r = width, height, radius
    points = [(r, 0), (w - r, 0), (w, r), (w, h - r), (w - r, h), (r, h), (0, h - r), (0, r)]
    straight = (np.nan, np.nan, 0.0)
    arcs = [straight, (w - r, r, r), straight, (w - r, h - r, r), straight, (r, h - r, r), straight, (r, r, r)]
    keep = [i for i in range(8) if arcs[i][2] or points[i] != points[(i + 1) % 8]]
    points, arcs = np.array([points[i] for i in keep], float), np.array([arcs[i] for i in keep], float)
    shape = Shape.of([(points, ("v",) * len(points), (("e",),) * len(points), arcs)])
    return shape, shapely.buffer(box(r, r, w - r, h - r), r, quad_segs=256)
