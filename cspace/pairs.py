"""Which parts can touch: an R-tree over swept envelopes and z-intervals.

A part's swept envelope is the box it can reach over its coordinate ranges (limits,
a linkage output's tabulated range, or unbounded). Two parts form a pair when their
envelopes meet and their z-intervals overlap with positive length (parts stacked
face to face in z never interact). Linkage members interact only through their
joints, so they take part in no pair.
"""

from __future__ import annotations

import math

import numpy as np
from rtree import index as rtree_index

from .model import FIXED, LINKAGE, Mechanism, Part

FAR = 1e30


def swept_envelope(mechanism: Mechanism, part: Part,
                   ranges: dict[str, tuple[float, float]]) -> tuple[float, float, float, float]:
    """Planar box a part can reach; ``ranges`` gives each coordinate's reachable interval."""
    points = np.vstack([np.asarray(p.ring().coords) for s in part.slices for p in s.profiles])
    x0, y0 = points.min(axis=0)
    x1, y1 = points.max(axis=0)
    for name in part.coordinates:
        coordinate = mechanism.coordinate(name)
        if coordinate.is_angle:  # the disk it sweeps (conservative for a limited turn)
            reach = float(np.max(np.hypot(points[:, 0] - coordinate.pivot[0], points[:, 1] - coordinate.pivot[1])))
            x0, x1 = coordinate.pivot[0] - reach, coordinate.pivot[0] + reach
            y0, y1 = coordinate.pivot[1] - reach, coordinate.pivot[1] + reach
    for name in part.coordinates:
        coordinate = mechanism.coordinate(name)
        if coordinate.is_angle:
            continue
        lo, hi = ranges.get(name, (-math.inf, math.inf))
        ax, ay = coordinate.axis
        moves = [(lo * ax, lo * ay), (hi * ax, hi * ay)]
        dx = [m[0] if math.isfinite(m[0]) else math.copysign(FAR, m[0]) for m in moves] if ax else [0.0, 0.0]
        dy = [m[1] if math.isfinite(m[1]) else math.copysign(FAR, m[1]) for m in moves] if ay else [0.0, 0.0]
        x0, x1 = x0 + min(dx), x1 + max(dx)
        y0, y1 = y0 + min(dy), y1 + max(dy)
    return (max(x0, -FAR), max(y0, -FAR), min(x1, FAR), min(y1, FAR))


def interacting_pairs(mechanism: Mechanism, ranges: dict[str, tuple[float, float]]) -> list[tuple[str, str]]:
    """Pairs of parts (in file order) that may touch, at least one of them mobile."""
    candidates = [p for p in mechanism.parts if p.motion != LINKAGE]
    properties = rtree_index.Property()
    properties.dimension = 3
    tree = rtree_index.Index(properties=properties, interleaved=True)
    boxes = {}
    for i, part in enumerate(candidates):
        x0, y0, x1, y1 = swept_envelope(mechanism, part, ranges)
        z0, z1 = part.z_range
        boxes[i] = (x0, y0, z0, x1, y1, z1)
        tree.insert(i, boxes[i])
    pairs = []
    for i, part in enumerate(candidates):
        for j in sorted(tree.intersection(boxes[i])):
            other = candidates[j]
            if j <= i or (part.motion == FIXED and other.motion == FIXED):
                continue
            if _z_overlap(part, other):
                pairs.append((part.name, other.name))
    return pairs


def _z_overlap(a: Part, b: Part) -> bool:
    return any(sa.z[0] < sb.z[1] and sb.z[0] < sa.z[1] for sa in a.slices for sb in b.slices)
