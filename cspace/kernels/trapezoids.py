"""Free space cut into convex regions by a vertical decomposition, exact on the grid.

The free polygon (with holes; its edges never cross) is swept left to right. Between
two consecutive vertex abscissae every free gap lies between two of its edges, so it
is a trapezoid; a trapezoid runs on as long as the same two edges bound it. Side by
side trapezoids that share a whole vertical side merge while the union stays convex
and a straight side keeps one label. Every region is then half-planes on the grid:
its floor and ceiling are the polygon's own edges (integer lines), its walls the
verticals through vertices, so the rows are exact. A polygon edge that is vertical
stands on a region's wall; where it covers only part of it, the region is cut across
at the edge's end, so every facet is one contact or free along its whole length.

Cost: one sorted pass over the slabs, each with the few edges crossing it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from shapely.geometry import Polygon

GridPoint = tuple[int, int]
Side = tuple[tuple[int, int, int], object]  # (a, b, c) for a x + b y <= c, and its label


@dataclass
class _Trapezoid:
    left: int
    right: int
    floors: list[int]  # edge indices along the bottom, left to right
    ceilings: list[int]  # along the top, left to right

    def __repr__(self) -> str:
        return f"_Trapezoid({self.left}..{self.right})"


def decompose(polygons: list[Polygon], labels: dict) -> list[list[Side]]:
    """Convex regions covering the polygons (integer vertices), each as its sides in
    counterclockwise order: half-planes with the label of the polygon edge they lie on
    (``labels[(p, q)]``, either way round) or None where they cut through free space."""
    edges, walls = _edges(polygons, labels)
    traps = _sweep(edges)
    merged = _merge(traps, edges)
    regions = []
    for trap in merged:
        regions.extend(_walled(_sides(trap, edges), trap, edges, walls))
    return regions


def _edges(polygons: list[Polygon], labels: dict) -> tuple[list[tuple], dict[int, list[tuple]]]:
    """Non-vertical edges as (x0, y0, x1, y1, label) with x0 < x1, and the vertical ones by
    abscissa as (y_low, y_high, label)."""
    edges, walls = [], {}
    for polygon in polygons:
        for ring in (polygon.exterior, *polygon.interiors):
            points = [(int(x), int(y)) for x, y in ring.coords[:-1]]
            for k, p in enumerate(points):
                q = points[(k + 1) % len(points)]
                label = labels.get((p, q))
                if p[0] == q[0]:
                    if p[1] != q[1]:
                        walls.setdefault(p[0], []).append((min(p[1], q[1]), max(p[1], q[1]), label))
                    continue
                a, b = (p, q) if p[0] < q[0] else (q, p)
                edges.append((a[0], a[1], b[0], b[1], label))
    return edges, walls


def _sweep(edges: list[tuple]) -> list[_Trapezoid]:
    """Trapezoids of the free gaps: in each slab the edges crossing it, bottom to top,
    bound free gaps in pairs (below the lowest edge is outside)."""
    xs = sorted({e[0] for e in edges} | {e[2] for e in edges})
    starting: dict[int, list[int]] = {}
    ending: dict[int, list[int]] = {}
    for i, (x0, _, x1, _, _) in enumerate(edges):
        starting.setdefault(x0, []).append(i)
        ending.setdefault(x1, []).append(i)
    active: set[int] = set()
    open_traps: dict[tuple[int, int], _Trapezoid] = {}
    traps: list[_Trapezoid] = []
    for x, nxt in zip(xs, xs[1:]):
        active.difference_update(ending.get(x, ()))
        active.update(starting.get(x, ()))
        middle = (x + nxt) / 2
        order = sorted(active, key=lambda i: (_height(edges[i], middle), _slope(edges[i])))
        still = {}
        for lower, upper in zip(order[0::2], order[1::2]):
            trap = open_traps.get((lower, upper))
            if trap is None:
                trap = _Trapezoid(x, nxt, [lower], [upper])
                traps.append(trap)
            else:
                trap.right = nxt
            still[(lower, upper)] = trap
        open_traps = still
    return traps


def _height(edge: tuple, x: float) -> float:
    x0, y0, x1, y1, _ = edge
    return y0 + (y1 - y0) * (x - x0) / (x1 - x0)


def _slope(edge: tuple) -> float:
    x0, y0, x1, y1, _ = edge
    return (y1 - y0) / (x1 - x0)


def _at(edge: tuple, x: int) -> int | Fraction:
    """The edge's height at x, exactly: an integer where it is one (a fraction equal to an
    integer compares and hashes as it), made in one step (one reduction) where it is not."""
    x0, y0, x1, y1, _ = edge
    rise, run = (y1 - y0) * (x - x0), x1 - x0
    if rise % run == 0:
        return y0 + rise // run
    return Fraction(y0 * run + rise, run)


def _merge(traps: list[_Trapezoid], edges: list[tuple]) -> list[_Trapezoid]:
    """Chains of trapezoids, each joined to the next across a whole shared vertical side
    while the union stays convex and no straight floor or ceiling changes label there."""
    by_left: dict[tuple, _Trapezoid] = {}
    for trap in traps:
        key = (trap.left, _at(edges[trap.floors[0]], trap.left), _at(edges[trap.ceilings[0]], trap.left))
        by_left[key] = trap
    joined: set[int] = set()
    chains = []
    for trap in sorted(traps, key=lambda t: (t.left, _at(edges[t.floors[0]], t.left))):
        if id(trap) in joined:
            continue
        chain = _Trapezoid(trap.left, trap.right, list(trap.floors), list(trap.ceilings))
        while True:
            key = (chain.right, _at(edges[chain.floors[-1]], chain.right), _at(edges[chain.ceilings[-1]], chain.right))
            nxt = by_left.get(key)
            if nxt is None or id(nxt) in joined or not _convex(chain, nxt, edges):
                break
            joined.add(id(nxt))
            chain.right = nxt.right
            for mine, theirs in ((chain.floors, nxt.floors), (chain.ceilings, nxt.ceilings)):
                if theirs[0] != mine[-1]:
                    mine.append(theirs[0])
        chains.append(chain)
    return chains


def _convex(chain: _Trapezoid, nxt: _Trapezoid, edges: list[tuple]) -> bool:
    floor, ceiling = edges[chain.floors[-1]], edges[chain.ceilings[-1]]
    next_floor, next_ceiling = edges[nxt.floors[0]], edges[nxt.ceilings[0]]
    return _turn(floor, next_floor) >= 0 and _turn(next_ceiling, ceiling) >= 0 and \
        (_turn(floor, next_floor) != 0 or floor[4] == next_floor[4]) and \
        (_turn(next_ceiling, ceiling) != 0 or ceiling[4] == next_ceiling[4])


def _turn(first: tuple, second: tuple) -> int:
    """Sign of the slope's change from the first edge to the second (exact)."""
    a = (first[3] - first[1]) * (second[2] - second[0])
    b = (second[3] - second[1]) * (first[2] - first[0])
    return (b > a) - (b < a)


def _sides(trap: _Trapezoid, edges: list[tuple]) -> list[Side]:
    """The region's half-planes, counterclockwise: floors, right wall, ceilings, left wall."""
    sides: list[Side] = []
    for i in trap.floors:
        x0, y0, x1, y1, label = edges[i]
        sides.append(((y1 - y0, x0 - x1, (y1 - y0) * x0 + (x0 - x1) * y0), label))
    sides.append(((1, 0, trap.right), None))
    for i in reversed(trap.ceilings):
        x0, y0, x1, y1, label = edges[i]
        sides.append(((y0 - y1, x1 - x0, (y0 - y1) * x0 + (x1 - x0) * y0), label))
    sides.append(((-1, 0, -trap.left), None))
    return sides


def _walled(sides: list[Side], trap: _Trapezoid, edges: list[tuple], walls: dict) -> list[list[Side]]:
    """The region with its vertical sides labelled by the polygon's vertical edges on them,
    cut across where such an edge covers only part of a side."""
    floor_left, ceiling_left = edges[trap.floors[0]], edges[trap.ceilings[0]]
    floor_right, ceiling_right = edges[trap.floors[-1]], edges[trap.ceilings[-1]]
    spans = {trap.left: (_at(floor_left, trap.left), _at(ceiling_left, trap.left)),
             trap.right: (_at(floor_right, trap.right), _at(ceiling_right, trap.right))}
    cuts = set()
    labels = {}
    for x, (low, high) in spans.items():
        covering = [(a, b, label) for a, b, label in walls.get(x, ()) if a < high and b > low]
        for a, b, _ in covering:
            cuts.update(y for y in (a, b) if low < y < high)
        if len(covering) == 1 and covering[0][0] <= low and covering[0][1] >= high:
            labels[x] = covering[0][2]
    if cuts:
        return _cut(sides, sorted(cuts), trap, edges, walls)
    out = []
    for (row, label) in sides:
        if row[1] == 0:
            x = row[2] * row[0]  # (1, 0, right) or (-1, 0, -left)
            label = labels.get(x, label)
        out.append((row, label))
    return [out]


def _cut(sides: list[Side], heights: list[int], trap: _Trapezoid, edges: list[tuple],
         walls: dict) -> list[list[Side]]:
    """The region cut across at each height: pieces bounded by free horizontal sides, each
    then labelled on its walls."""
    pieces = []
    bounds = [None] + heights + [None]
    for low, high in zip(bounds, bounds[1:]):
        piece = list(sides)
        if low is not None:
            piece.append(((0, -1, -low), None))
        if high is not None:
            piece.append(((0, 1, high), None))
        pieces.append(_ordered(piece))
    return [_label_walls(piece, walls) for piece in pieces]


def _ordered(sides: list[Side]) -> list[Side]:
    """Sides sorted counterclockwise by the direction of their outward normals."""
    return sorted(sides, key=lambda s: (math.atan2(s[0][1], s[0][0]) + math.pi / 2) % (2 * math.pi))


def _label_walls(sides: list[Side], walls: dict) -> list[Side]:
    """Label each vertical side by a vertical polygon edge that covers it wholly."""
    out = []
    for k, (row, label) in enumerate(sides):
        if row[1] == 0 and row[0] != 0:
            x = row[2] * row[0]
            low, high = side_extent(sides, k)
            found = [lab for a, b, lab in walls.get(x, ()) if a <= low and b >= high and high > low]
            if found:
                label = found[0]
        out.append((row, label))
    return out


def side_extent(sides: list[Side], k: int) -> tuple[Fraction, Fraction]:
    """Lowest and highest point of vertical side k (exact): the tightest floor and ceiling
    the other sides put on its line (a cut across a region stands beside the floor or
    ceiling it replaces, so the neighbours in order need not be the ones that bind)."""
    (a, _, c), _ = sides[k]
    x = Fraction(c, a)
    low, high = None, None
    for (p, q, r), _ in sides:
        if q > 0:
            y = (r - p * x) / q
            high = y if high is None else min(high, y)
        elif q < 0:
            y = (r - p * x) / q
            low = y if low is None else max(low, y)
    if low is None or high is None:
        return Fraction(0), Fraction(0)
    return low, high
