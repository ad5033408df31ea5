"""Which parts can touch: an R-tree over swept envelopes and z-intervals.

A part's swept envelope is the box it can reach over its coordinate ranges (limits,
a linkage output's tabulated range, or unbounded). Two parts form a pair when their
envelopes meet and their z-intervals overlap with positive length (parts stacked
face to face in z never interact; a part's shift along z widens its interval by its
travel). Linkage members interact only through their
joints, so they take part in no pair. Where both parts' swept regions are cheap to
draw exactly (a fixed part, or one turning about its pivot alone), boxes that meet
are not enough: the regions must come within a few arc tolerances (a lever turning
inside a drum never touches it, and its pair space would cost a second for nothing).
"""

from __future__ import annotations

import math

import numpy as np
import shapely
from rtree import index as rtree_index
from shapely import affinity
from shapely.geometry.base import BaseGeometry

from ..model.geometry import region_of
from ..model.kinds import Motion
from ..model.mechanism import Mechanism, Part
from ..model.poses import z_travel
from .layers import layers_may_meet

FAR = 1e30
SWEEP_STEP = math.radians(5)  # a limited turn is swept as copies this far apart, grown by the chords' sagitta
NEAR = 10  # swept regions closer than this many arc tolerances make a pair


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
    candidates = [p for p in mechanism.parts if p.motion != Motion.LINKAGE]
    properties = rtree_index.Property()
    properties.dimension = 3
    tree = rtree_index.Index(properties=properties, interleaved=True)
    boxes = {}
    for i, part in enumerate(candidates):
        x0, y0, x1, y1 = swept_envelope(mechanism, part, ranges)
        z0, z1 = np.add(part.z_range, z_travel(mechanism, part))
        boxes[i] = (x0, y0, z0, x1, y1, z1)
        tree.insert(i, boxes[i])
    pairs = []
    regions: dict[str, BaseGeometry] = {}
    for i, part in enumerate(candidates):
        for j in sorted(tree.intersection(boxes[i])):
            other = candidates[j]
            if j <= i or (part.motion == Motion.FIXED and other.motion == Motion.FIXED):
                continue
            if layers_may_meet(mechanism, part, other) and _may_meet(mechanism, part, other, regions):
                pairs.append((part.name, other.name))
    return pairs


def swept_region(mechanism: Mechanism, part: Part) -> BaseGeometry | None:
    """The region a part can reach, when it is cheap to draw exactly: a fixed part's own
    material; for a part turning about its pivot alone, the annulus its material sweeps
    in a free turn, or the union of its turned copies over its limits (grown by the
    chords' sagitta). None for any other part.

    >>> from cspace.io.loader import loads
    >>> m = loads('[[parts]]\\nname="ring"\\nmotion="fixed-axes"\\ncoordinates=[{name="d", pivot=[0,0]}]\\n'
    ...           '[[parts.slices]]\\nz=[0,1]\\nprofiles=[{circle=[0,0], radius=3}, {circle=[0,0], radius=2}]')
    >>> round(swept_region(m, m.parts[0]).area / math.pi, 2)             # the ring itself: 9 - 4
    5.0
    """
    if not _drawn(mechanism, part):
        return None
    material = shapely.union_all([region_of(s.profiles, mechanism.tolerance.arc) for s in part.slices])
    if part.motion == Motion.FIXED:
        return material
    turn = mechanism.coordinate(part.coordinates[0])
    pivot = shapely.Point(turn.pivot)
    reach = pivot.hausdorff_distance(material) if not material.is_empty else 0.0
    if turn.limits is None:
        # Polygons of 4 * 64 sides: the outer one circumscribed, the hole inscribed, so the
        # annulus drawn holds the true one.
        outer = pivot.buffer(reach / math.cos(math.pi / 256), quad_segs=64)
        inner = 0.0 if material.contains(pivot) else material.distance(pivot)
        return outer.difference(pivot.buffer(inner, quad_segs=64)) if inner > 0 else outer
    low, high = turn.limits
    steps = max(1, math.ceil((high - low) / SWEEP_STEP))
    copies = [affinity.rotate(material, low + (high - low) * k / steps, origin=turn.pivot, use_radians=True)
              for k in range(steps + 1)]
    sagitta = reach * (1 - math.cos((high - low) / steps / 2))
    return shapely.union_all(copies).buffer(sagitta)


def _may_meet(mechanism: Mechanism, a: Part, b: Part, regions: dict[str, BaseGeometry]) -> bool:
    """Can two parts whose boxes meet touch? No when both swept regions can be drawn (one
    of them turning) and they are far apart. ``regions`` keeps those drawn, by part."""
    if not (_drawn(mechanism, a) and _drawn(mechanism, b)):
        return True
    for part in (a, b):
        if part.name not in regions:
            regions[part.name] = swept_region(mechanism, part)
    return regions[a.name].distance(regions[b.name]) <= NEAR * mechanism.tolerance.arc


def _drawn(mechanism: Mechanism, part: Part) -> bool:
    """Is the part's swept region drawn (:func:`swept_region`): fixed, or turning alone?"""
    return part.motion == Motion.FIXED or (len(part.coordinates) == 1
                                    and mechanism.coordinate(part.coordinates[0]).is_angle)


def coordinate_ranges(mechanism: Mechanism, tables: dict) -> dict[str, tuple[float, float]]:
    """Where each coordinate may go, as far as is known before tracing: its limits, and a
    linkage output's range over its table (``tables``, by linkage name)."""
    ranges = {c.name: c.limits for c in mechanism.coordinates if c.limits is not None}
    for table in tables.values():
        ranges[table.linkage.output] = (float(table.outputs.min()), float(table.outputs.max()))
    return ranges
