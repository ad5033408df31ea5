"""Free space of a pair cut into closed convex regions, each side one contact or free.

Free space is a cell of the pair space (a box on the integer grid) less the grown
blocked polygons. It is cut by a vertical decomposition (:mod:`cspace.kernels.trapezoids`):
every region is half-planes with integer rows, its floors and ceilings the blocked
outline's edges, its walls verticals through vertices, and a straight side keeps one
label, so every facet of a region is a contact (the faces of A and B touching along
it) or free along its whole length, and the end of a contact is a region exit, as for
translating pairs.

A cell's regions are repeated over the space (:func:`repeated`); along an axis that
wraps (a freely turning part) the space spans one turn and a region on a seam is also
given shifted by a turn past it; along a translation the box ends a margin past the
blocked space and two free strips run on to infinity (:func:`finished`).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import partial

import numpy as np
import pyclipper
import shapely
from shapely.geometry import Polygon

from ..kernels import polylines
from ..kernels.contact_curves import Label
from ..kernels.trapezoids import decompose
from .pairspace import FAR, Contact, Region, RegionEdge

GridPoint = tuple[int, int]


class LabelledEdges:
    """Stretches of the ungrown blocked outlines with their contacts, to label the grown
    outline's edges: each takes the label of the stretch beside it (within ``reach``) that
    runs most nearly parallel to it, the nearer of two equally parallel ones. Near a
    corner the nearest stretch may be the other face's; the parallel one is the face the
    edge was grown from."""

    def __init__(self, stretches: list[tuple[np.ndarray, Label | None]], reach: float) -> None:
        kept = [(line, label) for line, label in stretches if label is not None and len(line) > 1]
        self.labels_of = [label for _, label in kept]
        self.lines = np.array([shapely.linestrings(line) for line, _ in kept], dtype=object)
        self.tree = shapely.STRtree(self.lines) if kept else None
        shapely.prepare(self.lines)
        self.coords = np.ascontiguousarray(shapely.get_coordinates(self.lines))
        self.starts = np.concatenate([[0], np.cumsum(shapely.get_num_coordinates(self.lines))]).astype(np.intp)
        self.reach = reach

    def labels(self, sides: list[tuple[GridPoint, GridPoint]]) -> list[Label | None]:
        """The label of each of the grown outline's edges p-q, all found at once: the stretches
        within reach of each edge's middle (else the nearest), scored by how far each runs
        askew of the edge (rounded to a thousandth), then how near it is. The stretches (few,
        prepared) are sought among the middles (many): the other way round, GEOS walks a
        long stretch for every middle whose box it crosses. Where on a stretch and how far,
        GEOS's arithmetic compiled (:mod:`cspace.kernels.polylines`), one walk for both."""
        if self.tree is None or not sides:
            return [None] * len(sides)
        ends = np.array(sides, float).reshape(-1, 4)
        x, y = (ends[:, 0] + ends[:, 2]) / 2, (ends[:, 1] + ends[:, 3]) / 2
        middles = shapely.points(x, y)
        line, edge = shapely.STRtree(middles).query(self.lines, predicate="dwithin", distance=self.reach)
        alone = np.setdiff1d(np.arange(len(sides)), edge)
        if len(alone):
            nearest = self.tree.query_nearest(middles[alone])
            edge, line = np.concatenate([edge, alone[nearest[0]]]), np.concatenate([line, nearest[1]])
        order = np.lexsort((line, edge))
        edge, line = edge[order], line[order]
        length = shapely.length(self.lines)[line]
        at, distance = polylines.located(self.coords, self.starts, line, x[edge], y[edge])
        step = np.maximum(length * 1e-6, 1.0)
        a = polylines.interpolated(self.coords, self.starts, line, np.maximum(at - step, 0.0))
        b = polylines.interpolated(self.coords, self.starts, line, np.minimum(at + step, length))
        along_x, along_y = b[:, 0] - a[:, 0], b[:, 1] - a[:, 1]
        dx, dy = ends[:, 2] - ends[:, 0], ends[:, 3] - ends[:, 1]
        size = np.maximum(np.hypot(dx, dy), 1e-300)
        dx, dy = (dx / size)[edge], (dy / size)[edge]
        norm = np.hypot(along_x, along_y)
        with np.errstate(invalid="ignore", divide="ignore"):
            skew = np.where(norm > 0, np.abs((dx * along_y - dy * along_x) / norm), 1.0)
        return [self.labels_of[k] for k in line[_first_least(edge, skew, distance)].tolist()]

    def __repr__(self) -> str:
        return f"LabelledEdges({len(self.labels_of)})"


def _first_least(edge: np.ndarray, skew: np.ndarray, distance: np.ndarray) -> np.ndarray:
    """For each edge (``edge`` sorted, every edge from 0 present), the index of its first pair
    with the least (skew rounded to a thousandth, distance): what keeping the first of a
    scan's strictly better scores keeps. A stable sort by edge, rounded skew and distance
    leaves each edge's first least pair first. Python's ``round`` (exact in decimal), not
    numpy's (scaled, then rounded)."""
    rounded = np.array([round(x, 3) for x in skew.tolist()], float)
    order = np.lexsort((distance, rounded, edge))
    first = np.ones(len(order), bool)
    first[1:] = edge[order[1:]] != edge[order[:-1]]
    return order[first]


def cell_regions(cell: tuple[int, int, int, int], blocked: list[np.ndarray], edges: LabelledEdges,
                 quantum: float, part_a: str, part_b: str) -> list[Region]:
    """Closed convex regions covering the cell (a box on the grid) less the blocked
    polygons, unnamed; a side on the cell's edge is free."""
    polygons = _free_polygons(cell, blocked)
    labels: dict = {}
    for polygon in polygons:
        labels.update(_boundary_labels(polygon, cell, edges))
    regions = [_side_region(sides, quantum, part_a, part_b) for sides in decompose(polygons, labels)]
    return [region for region in regions if region is not None]


def repeated(regions: list[Region], steps: tuple[int, int], counts: tuple[int, int], quantum: float,
             renamed: Callable[[tuple[Contact, ...], int, int], tuple[Contact, ...]]) -> list[Region]:
    """A cell's regions repeated ``counts`` times along each axis, copy (i, j) moved by i and j
    cells (``steps`` grid steps each) with its contacts ``renamed(contacts, i, j)``. A copy's
    edges are made when first read (:meth:`Region.deferred`): a path enters a few copies of
    the hundreds."""
    out = list(regions)
    moves = [(i, j) for i in range(counts[0]) for j in range(counts[1]) if i or j]
    if not moves:
        return out
    shifts = np.array([(i * steps[0], j * steps[1]) for i, j in moves], float) * quantum
    for region in regions:
        # every copy's numbers at once, in the order and arithmetic of one copy at a time
        vertices = region.vertices[None] + shifts[:, None]
        boxes = (np.array(region.bbox, float)[None] + np.hstack([shifts, shifts])).tolist()
        for m, (i, j) in enumerate(moves):
            out.append(Region.deferred(partial(_moved_edges, region.edges, shifts[m], renamed, i, j), region.name,
                                       region.rows, region.bounds + region.rows @ shifts[m], vertices[m], (),
                                       region.dimension, tuple(boxes[m])))
    return out


def _moved_edges(edges: tuple[RegionEdge, ...], shift: np.ndarray,
                 renamed: Callable[[tuple[Contact, ...], int, int], tuple[Contact, ...]], i: int,
                 j: int) -> tuple[RegionEdge, ...]:
    """A cell's region's edges in its copy (i, j), moved by ``shift`` (see :func:`repeated`):
    in plain floats, each sum rounded as numpy rounds it."""
    dx, dy = shift.tolist()
    return tuple(RegionEdge(e.row, (e.start[0] + dx, e.start[1] + dy), (e.end[0] + dx, e.end[1] + dy),
                            renamed(e.contacts, i, j) if e.contacts else ()) for e in edges)


def finished(regions: list[Region], box: tuple[int, int, int, int], axes: tuple, quantum: float) -> list[Region]:
    """The regions of the box with the strips past it along a translation, in order and
    named r1, r2, ..., and the copies across its seams."""
    regions = _in_order(regions + _strips(box, axes, quantum))
    named = [region.named(f"r{k + 1}") for k, region in enumerate(regions)]
    return named + _seam_copies(named, box, axes, quantum)


def convex_cover(box: tuple[int, int, int, int], blocked: list[np.ndarray]) -> list[np.ndarray]:
    """The blocked polygons within the box as convex pieces (for drawing); none when the
    parts can never overlap (a cam turning wholly inside a drum)."""
    blocked = [p for p in blocked if len(p) >= 3]
    if not blocked:
        return []
    x0, y0, x1, y1 = box
    clipper = pyclipper.Pyclipper()
    clipper.AddPath([(x0, y0), (x1, y0), (x1, y1), (x0, y1)], pyclipper.PT_CLIP, True)
    clipper.AddPaths([p.tolist() for p in blocked], pyclipper.PT_SUBJECT, True)
    tree = clipper.Execute2(pyclipper.CT_INTERSECTION, pyclipper.PFT_NONZERO, pyclipper.PFT_NONZERO)
    pieces = []
    for polygon in _polygons(tree):
        pieces.extend(np.array(piece, float) for piece in _merge(_triangles(polygon), {}))
    return pieces


def interval_regions(spans: list[tuple[float, float, Label | None, Label | None]], axis, grow: float,
                     quantum: float, part_a: str, part_b: str) -> list[Region]:
    """Regions of a one-axis pair (a part turning against a fixed one): the free stretches
    between blocked spans (angles, grown by ``grow``), with the contact at each end."""
    scale = axis.scale / quantum
    merged: list[list] = []
    for lo, hi, label_lo, label_hi in sorted(spans, key=lambda s: s[:2]):
        lo_g, hi_g = math.floor((lo - grow) * scale), math.ceil((hi + grow) * scale)
        if merged and lo_g <= merged[-1][1]:
            if hi_g >= merged[-1][1]:
                merged[-1][1], merged[-1][3] = hi_g, label_hi
            continue
        merged.append([lo_g, hi_g, label_lo, label_hi])
    if axis.period:
        low, high = -axis.period // 2, axis.period // 2
    else:
        low, high = -math.inf, math.inf
    free, start, start_label = [], low, None
    for lo, hi, label_lo, label_hi in merged:
        if lo > start:
            free.append((start, min(lo, high), start_label, label_lo if lo < high else None))
        if hi > start:
            start, start_label = hi, label_hi
    if start < high:
        free.append((start, high, start_label, None))
    free = [(lo, hi, a, b) for lo, hi, a, b in free if lo < high and hi > low]
    regions = [_interval(max(lo, low), min(hi, high), a if lo > low else None, b if hi < high else None,
                         quantum, part_a, part_b) for lo, hi, a, b in free]
    regions = _in_order(regions)
    named = [region.named(f"r{k + 1}") for k, region in enumerate(regions)]
    if axis.period:
        named += [_shifted(r, (shift * axis.period,), quantum) for r in list(named)
                  for shift, end in ((-1, high), (1, low)) if end in _ends(r, quantum)]
    return named


def _interval(lo, hi, label_lo, label_hi, quantum: float, part_a: str, part_b: str) -> Region:
    rows, bounds, edges = [], [], []
    for sign, end, label in ((-1.0, lo, label_lo), (1.0, hi, label_hi)):
        if not math.isfinite(end):
            continue
        rows.append([sign])
        bounds.append(sign * end * quantum)
        value = (end * quantum,)
        edges.append(RegionEdge(len(rows) - 1, value, value, _contacts(label, part_a, part_b)))
    finite = [v * quantum for v in (lo, hi) if math.isfinite(v)]
    lower = lo * quantum if math.isfinite(lo) else -FAR
    upper = hi * quantum if math.isfinite(hi) else FAR
    return Region("", np.array(rows, float).reshape(-1, 1), np.array(bounds, float),
                  np.array(finite, float).reshape(-1, 1), tuple(edges), 0 if lo == hi else 1, (lower, upper))


def _ends(region: Region, quantum: float) -> set[int]:
    return {round(v / quantum) for v in region.vertices.ravel()}


def _free_polygons(box: tuple[int, int, int, int], blocked: list[np.ndarray]) -> list[Polygon]:
    x0, y0, x1, y1 = box
    clipper = pyclipper.Pyclipper()
    clipper.AddPath([(x0, y0), (x1, y0), (x1, y1), (x0, y1)], pyclipper.PT_SUBJECT, True)
    if blocked:
        clipper.AddPaths([p.tolist() for p in blocked], pyclipper.PT_CLIP, True)
    tree = clipper.Execute2(pyclipper.CT_DIFFERENCE, pyclipper.PFT_NONZERO, pyclipper.PFT_NONZERO)
    return _polygons(tree)


def _polygons(tree) -> list[Polygon]:
    """Polygons with holes from a pyclipper PolyTree (outlines and their holes, nested)."""
    out = []
    stack = list(tree.Childs)
    while stack:
        node = stack.pop()
        holes = [child.Contour for child in node.Childs]
        out.append(Polygon(node.Contour, holes))
        for child in node.Childs:
            stack.extend(child.Childs)
    out.sort(key=lambda p: p.bounds)
    return out


def _boundary_labels(polygon: Polygon, box: tuple[int, int, int, int],
                     edges: LabelledEdges) -> dict[tuple[GridPoint, GridPoint], Label | None]:
    """Label of every side of the free polygon, both ways round: free on the box, else the
    contact of the nearest blocked outline edge."""
    x0, y0, x1, y1 = box
    sides = []
    for ring in (polygon.exterior, *polygon.interiors):
        points = [(int(x), int(y)) for x, y in ring.coords[:-1]]
        sides += [(p, points[(k + 1) % len(points)]) for k, p in enumerate(points)]
    inside = [(p, q) for p, q in sides if not _on_box(p, q, x0, y0, x1, y1)]
    labels: dict[tuple[GridPoint, GridPoint], Label | None] = {}
    for (p, q), label in zip(inside, edges.labels(inside)):
        labels[(p, q)] = labels[(q, p)] = label
    return labels


def _on_box(p: GridPoint, q: GridPoint, x0: int, y0: int, x1: int, y1: int) -> bool:
    return (p[0] == q[0] and p[0] in (x0, x1)) or (p[1] == q[1] and p[1] in (y0, y1))


def _triangles(polygon: Polygon) -> list[list[GridPoint]]:
    """Counterclockwise triangles of the polygon, corners exactly its own vertices."""
    outline = {(int(x), int(y)) for ring in (polygon.exterior, *polygon.interiors) for x, y in ring.coords}
    found = []
    for triangle in shapely.constrained_delaunay_triangles(polygon).geoms:
        corners = [_vertex(outline, x, y) for x, y in triangle.exterior.coords[:-1]]
        area = _cross(corners[0], corners[1], corners[2])
        if area > 0:
            found.append(corners)
        elif area < 0:
            found.append(corners[::-1])
    return found


def _vertex(outline: set[GridPoint], x: float, y: float) -> GridPoint:
    point = (int(round(x)), int(round(y)))
    if point in outline:
        return point
    return min(outline, key=lambda v: (v[0] - x) ** 2 + (v[1] - y) ** 2)


def _cross(o: GridPoint, p: GridPoint, q: GridPoint) -> int:
    return (p[0] - o[0]) * (q[1] - p[1]) - (p[1] - o[1]) * (q[0] - p[0])


def _merge(triangles: list[list[GridPoint]], labels: dict) -> list[list[GridPoint]]:
    """Hertel-Mehlhorn: remove shared sides while both ends stay convex; a straight angle is
    allowed only between sides of one label (a side not in ``labels`` is free)."""
    pieces: dict[int, list[GridPoint]] = dict(enumerate(triangles))
    owner: dict[tuple[GridPoint, GridPoint], int] = {}
    for k, piece in pieces.items():
        for i, p in enumerate(piece):
            owner[(p, piece[(i + 1) % len(piece)])] = k
    diagonals = sorted((p, q) for (p, q) in owner if (q, p) in owner and p < q)
    for p, q in diagonals:
        first, second = owner.get((p, q)), owner.get((q, p))
        if first is None or second is None or first == second:
            continue
        union = _join(pieces[first], pieces[second], p, q)
        if not (_convex_at(union, p, labels) and _convex_at(union, q, labels)):
            continue
        del pieces[second]
        pieces[first] = union
        owner.pop((p, q), None)
        owner.pop((q, p), None)
        for i, a in enumerate(union):
            owner[(a, union[(i + 1) % len(union)])] = first
    return [pieces[k] for k in sorted(pieces)]


def _join(first: list[GridPoint], second: list[GridPoint], p: GridPoint, q: GridPoint) -> list[GridPoint]:
    """Union of counterclockwise polygons sharing side p->q (first) / q->p (second)."""
    i = first.index(q)
    walk_first = first[i:] + first[:i]  # q ... p
    j = second.index(p)
    walk_second = second[j:] + second[:j]  # p ... q
    return walk_first[:-1] + walk_second[:-1]


def _convex_at(ring: list[GridPoint], vertex: GridPoint, labels: dict) -> bool:
    k = ring.index(vertex)
    before, after = ring[k - 1], ring[(k + 1) % len(ring)]
    turn = _cross(before, vertex, after)
    if turn > 0:
        return True
    return turn == 0 and labels.get((before, vertex)) == labels.get((vertex, after))


def _side_region(sides: list, quantum: float, part_a: str, part_b: str) -> Region | None:
    """A region from its half-planes (integer rows a x + b y <= c on the grid, each with its
    label), counterclockwise: the sides that bound it with positive length, in lengths."""
    polygon = _clipped(sides)
    if polygon is None:
        return None
    rows, bounds, edges = [], [], []
    for (a, b, c), label, start, end in polygon:
        norm = math.hypot(a, b)
        rows.append((a / norm, b / norm))
        bounds.append(c * quantum / norm)
        edges.append(RegionEdge(len(rows) - 1, (start[0] * quantum, start[1] * quantum),
                                (end[0] * quantum, end[1] * quantum), _contacts(label, part_a, part_b)))
    vertices = np.array([start for _, _, start, _ in polygon], float) * quantum
    lo, hi = vertices.min(axis=0), vertices.max(axis=0)
    return Region("", np.array(rows, float), np.array(bounds, float), vertices, tuple(edges), 2,
                  (float(lo[0]), float(lo[1]), float(hi[0]), float(hi[1])))


def _clipped(sides: list) -> list | None:
    """The convex polygon of the half-planes, exactly: (row, label, start, end) for each side
    that bounds it with positive length, counterclockwise; None if it has no area.

    Clipped side by side from a box far beyond the grid. Every vertex is where two lines
    meet (a side's and the line of the edge it cuts), kept as integers (X, Y, W), W > 0,
    for the point (X / W, Y / W): exact without fractions."""
    big = 2 ** 62
    lines = [(0, -1, big), (1, 0, big), (0, 1, big), (-1, 0, big)] + [row for row, _ in sides]
    polygon = [(-big, -big, 1), (big, -big, 1), (big, big, 1), (-big, big, 1)]
    on = [0, 1, 2, 3]  # the line each polygon edge (from vertex i to i + 1) lies on
    owner: list = [None] * 4  # the side it is part of (None: the box)
    for s, ((a, b, c), _) in enumerate(sides):
        out, ons, owners = [], [], []
        n = len(polygon)
        values = [a * x + b * y - c * w for x, y, w in polygon]
        for i in range(n):
            fp, fq = values[i], values[(i + 1) % n]
            if fp <= 0:
                out.append(polygon[i])
                # From a point on the line towards the outside, the edge runs along the line.
                if fp == 0 and fq > 0:
                    ons.append(s + 4)
                    owners.append(s)
                else:
                    ons.append(on[i])
                    owners.append(owner[i])
            if (fp < 0 < fq) or (fq < 0 < fp):
                out.append(_meet(lines[s + 4], lines[on[i]]))
                ons.append(s + 4 if fp < 0 else on[i])
                owners.append(s if fp < 0 else owner[i])
        polygon, on, owner = out, ons, owners
        if len(polygon) < 3:
            return None
    kept = []
    n = len(polygon)
    for i in range(n):
        start, end = polygon[i], polygon[(i + 1) % n]
        if not _same(start, end) and owner[i] is not None:
            row, label = sides[owner[i]]
            if kept and kept[-1][0] == row:
                kept[-1] = (row, label, kept[-1][2], end)
            else:
                kept.append((row, label, start, end))
    if len(kept) > 1 and kept[0][0] == kept[-1][0]:
        first = kept.pop(0)
        kept[-1] = (first[0], first[1], kept[-1][2], first[3])
    if not _has_area(polygon):
        return None
    return [(row, label, _float2(start), _float2(end)) for row, label, start, end in kept]


def _meet(first: tuple[int, int, int], second: tuple[int, int, int]) -> tuple[int, int, int]:
    """Where two lines a x + b y = c meet, as (X, Y, W) with W > 0."""
    a1, b1, c1 = first
    a2, b2, c2 = second
    w = a1 * b2 - a2 * b1
    x, y = c1 * b2 - c2 * b1, a1 * c2 - a2 * c1
    return (x, y, w) if w > 0 else (-x, -y, -w)


def _same(p: tuple[int, int, int], q: tuple[int, int, int]) -> bool:
    return p[0] * q[2] == q[0] * p[2] and p[1] * q[2] == q[1] * p[2]


def _has_area(polygon: list[tuple[int, int, int]]) -> bool:
    """Does the convex polygon enclose area: some three of its corners not on a line?"""
    first = polygon[0]
    for k in range(1, len(polygon) - 1):
        (x1, y1, w1), (x2, y2, w2) = polygon[k], polygon[k + 1]
        x0, y0, w0 = first
        # Twice the signed area of the triangle, times w0 w1 w2 > 0.
        if x0 * (y1 * w2 - y2 * w1) - y0 * (x1 * w2 - x2 * w1) + w0 * (x1 * y2 - x2 * y1) > 0:
            return True
    return False


def _float2(point: tuple[int, int, int]) -> tuple[float, float]:
    return (point[0] / point[2], point[1] / point[2])


def _contacts(label: Label | None, part_a: str, part_b: str) -> tuple[Contact, ...]:
    if label is None or not label[0] or not label[1]:
        return ()
    return (Contact(part_a, tuple(label[0]), part_b, tuple(label[1])),)


def _strips(box: tuple[int, int, int, int], axes: tuple, quantum: float) -> list[Region]:
    """The free strips past the box along a translation axis (unbounded on that side)."""
    x0, y0, x1, y1 = box
    out = []
    for k, axis in enumerate(axes):
        if axis.is_angle:
            continue
        (lo, hi), (other_lo, other_hi) = ((x0, x1), (y0, y1)) if k == 0 else ((y0, y1), (x0, x1))
        for sign, end in ((-1.0, lo), (1.0, hi)):
            normal = [0.0, 0.0]
            normal[k] = -sign
            rows = [normal]
            bounds = [-sign * end * quantum]
            edges = [RegionEdge(0, *_strip_side(k, end, other_lo, other_hi, quantum), ())]
            for side_sign, other in ((-1.0, other_lo), (1.0, other_hi)):
                side = [0.0, 0.0]
                side[1 - k] = side_sign
                rows.append(side)
                bounds.append(side_sign * other * quantum)
            far = end + sign * (hi - lo)
            corners = [(end, other_lo), (far, other_lo), (far, other_hi), (end, other_hi)]
            vertices = np.array([c if k == 0 else c[::-1] for c in corners], float) * quantum
            bbox = [other_lo * quantum, other_hi * quantum]
            near_far = sorted([end * quantum, sign * FAR])
            box_k = (near_far[0], bbox[0], near_far[1], bbox[1]) if k == 0 else (bbox[0], near_far[0], bbox[1], near_far[1])
            out.append(Region("", np.array(rows, float), np.array(bounds, float), vertices,
                              tuple(edges), 2, box_k))
    return out


def _strip_side(k: int, end: int, lo: int, hi: int, quantum: float) -> tuple[tuple, tuple]:
    if k == 0:
        return (end * quantum, lo * quantum), (end * quantum, hi * quantum)
    return (lo * quantum, end * quantum), (hi * quantum, end * quantum)


def _seam_copies(regions: list[Region], box: tuple[int, int, int, int], axes: tuple, quantum: float) -> list[Region]:
    """Each region on a seam of a wrapping axis, shifted a turn past it (both axes: corners too)."""
    x0, y0, x1, y1 = box
    lows, highs = (x0, y0), (x1, y1)
    copies = []
    for region in regions:
        shifts = [[0], [0]]
        for k, axis in enumerate(axes):
            if not axis.period:
                continue
            if lows[k] + 1 < region.bbox[k] / quantum and region.bbox[k + 2] / quantum < highs[k] - 1:
                continue  # off both seams
            along = np.round(region.vertices[:, k] / quantum)
            if (along == highs[k]).any():
                shifts[k].append(-axis.period)
            if (along == lows[k]).any():
                shifts[k].append(axis.period)
        for dx in shifts[0]:
            for dy in shifts[1]:
                if dx or dy:
                    copies.append(_shifted(region, (dx, dy), quantum))
    return copies


def _shifted(region: Region, steps: tuple[int, ...], quantum: float) -> Region:
    """The region moved by ``steps`` grid steps along each axis."""
    shift = np.array(steps, float) * quantum
    bounds = region.bounds + region.rows @ shift
    vertices = region.vertices + shift
    half = len(region.bbox) // 2
    bbox = tuple(v + shift[k % half] if abs(v) < FAR else v for k, v in enumerate(region.bbox))
    return Region.deferred(partial(_shifted_edges, region.edges_later(), shift), region.name, region.rows, bounds,
                           vertices, (), region.dimension, bbox)


def _shifted_edges(edges: Callable[[], tuple[RegionEdge, ...]], shift: np.ndarray) -> tuple[RegionEdge, ...]:
    """A region's edges (made by ``edges()``) moved by ``shift``, in plain floats."""
    by = shift.tolist()
    return tuple(RegionEdge(e.row, tuple(x + d for x, d in zip(e.start, by)), tuple(x + d for x, d in zip(e.end, by)),
                            e.contacts) for e in edges())


def _in_order(regions: list[Region]) -> list[Region]:
    """The regions sorted by box (lows, then highs), dimension and rounded vertices: the
    vertices, slow to round, only among regions alike in the rest."""
    half = len(regions[0].bbox) // 2 if regions else 0
    regions = sorted(regions, key=lambda r: (tuple(r.bbox[:half]), tuple(r.bbox[half:]), r.dimension))
    out, start = [], 0
    for k in range(1, len(regions) + 1):
        if k == len(regions) or (tuple(regions[k].bbox), regions[k].dimension) != \
                (tuple(regions[start].bbox), regions[start].dimension):
            out.extend(regions[start:k] if k - start == 1 else
                       sorted(regions[start:k], key=lambda r: tuple(np.round(r.vertices.ravel(), 12).tolist())))
            start = k
    return out
