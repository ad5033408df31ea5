"""Free space of a pair cut into closed convex regions, in exact rational arithmetic.

Free space is everything outside a union of *open* convex polygons, so it may hold
zero-width parts: a block that exactly fits a channel moves along a line, a block
sandwiched between table and wall along a segment. The cut keeps them.

2-D: a vertical decomposition. Slab boundaries are the x of every polygon vertex and
every crossing of two polygon edges, so inside a slab the polygons' upper and lower
edges never cross and their order is fixed. In each slab the free cells lie between
the unions of blocked intervals; where two blocked intervals abut along one line
the free set is a segment (a *slit*). On each slab boundary, free points that no
neighbouring cell closes over become vertical segments or single points. Finally,
cells in neighbouring slabs that share a whole side merge while the union stays
convex, and collinear slits merge.

1-D: the pair moves along one direction ``d``; free space is the complement of the
open intervals where the line ``s = d * t`` crosses polygon interiors.

A region is returned as rows ``a*x + b*y <= c`` (2-D) or ``a*t <= c`` (1-D).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction

Q = Fraction
INF = math.inf
Row2 = tuple[Fraction, Fraction, Fraction]


@dataclass(frozen=True)
class Line:
    """y = m x + c."""

    m: Fraction
    c: Fraction

    def at(self, x: Fraction) -> Fraction:
        return self.m * x + self.c


@dataclass
class _Poly:
    vertices: list[tuple[Fraction, Fraction]]
    lower: list[tuple[Fraction, Fraction, Line]] = field(default_factory=list)
    upper: list[tuple[Fraction, Fraction, Line]] = field(default_factory=list)

    def __post_init__(self) -> None:
        n = len(self.vertices)
        for i in range(n):
            (x0, y0), (x1, y1) = self.vertices[i], self.vertices[(i + 1) % n]
            if x0 == x1:
                continue
            line = Line((y1 - y0) / (x1 - x0), y0 - (y1 - y0) / (x1 - x0) * x0)
            if x1 > x0:
                self.lower.append((x0, x1, line))
            else:
                self.upper.append((x1, x0, line))
        self.xmin = min(x for x, _ in self.vertices)
        self.xmax = max(x for x, _ in self.vertices)

    def chain(self, which: list, a: Fraction, b: Fraction) -> Line:
        """The edge line of a chain covering [a, b]."""
        for x0, x1, line in which:
            if x0 <= a and b <= x1:
                return line
        raise AssertionError("no chain edge spans the slab")

    def span_at(self, x: Fraction) -> tuple[Fraction, Fraction]:
        return self.chain(self.lower, x, x).at(x), self.chain(self.upper, x, x).at(x)


@dataclass
class _Cell:
    a: float | Fraction
    b: float | Fraction
    bottom: Line | None
    top: Line | None

    def low(self, x) -> float | Fraction:
        return -INF if self.bottom is None else self.bottom.at(x)

    def high(self, x) -> float | Fraction:
        return INF if self.top is None else self.top.at(x)


def decompose_plane(polygons: list[list[tuple[int, int]]]) -> list[list[Row2]]:
    """Closed convex regions covering the complement of the open convex ``polygons``.

    >>> regions = decompose_plane([[(0, 0), (2, 0), (2, 1), (0, 1)]])
    >>> len(regions)
    4
    """
    polys = [_Poly([(Q(x), Q(y)) for x, y in vertices]) for vertices in polygons]
    xs = sorted(_breakpoints(polys))
    bounds = [-INF] + xs + [INF]
    slabs = [_slab(polys, bounds[i], bounds[i + 1]) for i in range(len(bounds) - 1)]
    cells = [cells for cells, _ in slabs]
    slits = [slits for _, slits in slabs]
    regions = []
    for chain in _merge_cells(cells, xs):
        regions.append(_cell_rows(chain))
    for line, a, b in _merge_slits(slits, xs):
        regions.append(_slit_rows(line, a, b))
    for i, x in enumerate(xs):
        for lo, hi in _uncovered(polys, x, cells[i] + cells[i + 1], slits[i] + slits[i + 1]):
            regions.append(_vertical_rows(x, lo, hi))
    return regions


def decompose_line(polygons: list[list[tuple[int, int]]], direction: tuple[Fraction, Fraction],
                   epsilon: float = 0.0) -> list[tuple[float | Fraction, float | Fraction]]:
    """Closed intervals of t where ``direction * t`` is outside every open polygon.

    A polygon the line enters no deeper than ``epsilon`` does not block it: a part drawn
    flush on a slope, moving along an axis that is the slope's direction only up to the
    rounding of its numbers, grazes the slope rather than cutting into it.

    >>> decompose_line([[(1, -1), (3, -1), (3, 1), (1, 1)]], (Q(1), Q(0)))
    [(-inf, Fraction(1, 1)), (Fraction(3, 1), inf)]
    """
    dx, dy = direction
    blocked = []
    for vertices in polygons:
        lo, hi = -INF, INF
        sides = []  # (distance to the side at t = 0, its rate of approach), scaled to lengths
        n = len(vertices)
        for i in range(n):
            (x0, y0), (x1, y1) = vertices[i], vertices[(i + 1) % n]
            nx, ny = Q(y1 - y0), Q(x0 - x1)  # outward normal, counterclockwise polygon
            rate, limit = nx * dx + ny * dy, nx * x0 + ny * y0
            norm = math.hypot(float(nx), float(ny))
            sides.append((float(limit) / norm, float(rate) / norm))
            if rate > 0:
                hi = min(hi, limit / rate)
            elif rate < 0:
                lo = max(lo, limit / rate)
            elif limit <= 0:
                lo, hi = INF, -INF
        if lo < hi and (epsilon <= 0 or _deepest(sides, float(lo), float(hi)) > epsilon):
            blocked.append((lo, hi))
    blocked.sort()
    free, start = [], -INF
    for lo, hi in blocked:
        if lo >= start:
            free.append((start, lo))
        start = max(start, hi)
    free.append((start, INF))
    return [(lo, hi) for lo, hi in free if lo <= hi and not (lo == hi and abs(lo) == INF)]


def _deepest(sides: list[tuple[float, float]], lo: float, hi: float) -> float:
    """Deepest the line gets inside a convex polygon for t in [lo, hi]: the largest, over t,
    of the least distance to a side (each ``limit - rate * t``). Concave in t, so its
    largest value is at an end or where two sides are equally far."""
    candidates = {lo, hi}
    for k, (a0, b0) in enumerate(sides):
        for a1, b1 in sides[k + 1:]:
            if b0 != b1:
                t = (a0 - a1) / (b0 - b1)
                if lo < t < hi:
                    candidates.add(t)
    return max(min(a - b * t for a, b in sides) for t in candidates)


def _breakpoints(polys: list[_Poly]) -> set[Fraction]:
    xs = {x for poly in polys for x, _ in poly.vertices}
    edges = [(i, x0, x1, line) for i, poly in enumerate(polys) for x0, x1, line in poly.lower + poly.upper]
    edges.sort(key=lambda e: e[1])
    for k, (i, x0, x1, line) in enumerate(edges):
        for j, u0, u1, other in edges[k + 1:]:
            if u0 >= x1:
                break
            if i == j or line.m == other.m:
                continue
            x = (other.c - line.c) / (line.m - other.m)
            if max(x0, u0) < x < min(x1, u1):
                xs.add(x)
    return xs


def _representative(a, b) -> Fraction:
    if a == -INF and b == INF:
        return Q(0)
    if a == -INF:
        return b - 1
    if b == INF:
        return a + 1
    return (a + b) / 2


def _slab(polys: list[_Poly], a, b) -> tuple[list[_Cell], list[tuple[Line, object, object]]]:
    """Free cells and slits of the slab between x = a and x = b."""
    x = _representative(a, b)
    spans = []
    if a != -INF and b != INF:
        for poly in polys:
            if poly.xmin <= a and b <= poly.xmax:
                spans.append((poly.chain(poly.lower, a, b), poly.chain(poly.upper, a, b)))
    spans.sort(key=lambda s: (s[0].at(x), s[1].at(x)))
    groups: list[list[Line]] = []  # [bottom line, top line] of each union of blocked intervals
    slits = []
    for low, high in spans:
        if groups and low.at(x) < groups[-1][1].at(x):
            if high.at(x) > groups[-1][1].at(x):
                groups[-1][1] = high
        elif groups and low.at(x) == groups[-1][1].at(x):
            slits.append((low, a, b))
            groups[-1][1] = high
        else:
            groups.append([low, high])
    if not groups:
        return [_Cell(a, b, None, None)], slits
    cells = [_Cell(a, b, None, groups[0][0])]
    cells += [_Cell(a, b, below[1], above[0]) for below, above in zip(groups, groups[1:])]
    cells.append(_Cell(a, b, groups[-1][1], None))
    return cells, slits


def _merge_cells(cells: list[list[_Cell]], xs: list[Fraction]) -> list[list[_Cell]]:
    """Chains of cells across slab boundaries whose union is convex."""
    chains = {id(c): [c] for slab in cells for c in slab}
    for i, x in enumerate(xs):
        on_left = {(c.low(x), c.high(x)): c for c in cells[i]}
        for right in cells[i + 1]:
            left = on_left.get((right.low(x), right.high(x)))
            if left is None or not _convex_join(left, right):
                continue
            chain = chains.pop(id(left))
            chain.extend(chains.pop(id(right)))
            chains[id(right)] = chain
    return list(chains.values())


def _convex_join(left: _Cell, right: _Cell) -> bool:
    if (left.bottom is None) != (right.bottom is None) or (left.top is None) != (right.top is None):
        return False
    bottom_ok = left.bottom is None or left.bottom.m <= right.bottom.m
    top_ok = left.top is None or left.top.m >= right.top.m
    return bottom_ok and top_ok


def _merge_slits(slits: list[list], xs: list[Fraction]) -> list[tuple[Line, object, object]]:
    merged = []
    for slab in slits:
        for line, a, b in slab:
            if merged and merged[-1][0] == line and merged[-1][2] == a:
                merged[-1] = (line, merged[-1][1], b)
            else:
                merged.append((line, a, b))
    return merged


def _uncovered(polys: list[_Poly], x: Fraction, cells: list[_Cell], slits: list) -> list[tuple]:
    """Free stretches of the line x = const not closed over by a neighbouring cell or slit."""
    blocked = [poly.span_at(x) for poly in polys if poly.xmin < x < poly.xmax]
    covered = [(c.low(x), c.high(x)) for c in cells] + [(line.at(x),) * 2 for line, _, _ in slits]
    values = sorted({v for span in blocked + covered for v in span if abs(v) != INF})
    if not values:
        return []

    def free(y) -> bool:
        return not any(lo < y < hi for lo, hi in blocked)

    def closed_over(y) -> bool:
        return any(lo <= y <= hi for lo, hi in covered)

    # Along the line: the gap below the first value, each value, the gap above it...
    elements, previous = [], -INF
    for v in values:
        elements += [(previous, v, _representative(previous, v)), (v, v, v)]
        previous = v
    elements.append((previous, INF, _representative(previous, INF)))
    runs: list[list] = []
    extend = False
    for lo, hi, probe in elements:
        if free(probe) and not closed_over(probe):
            if extend:
                runs[-1][1] = hi
            else:
                runs.append([lo, hi])
            extend = True
        else:
            extend = False
    return [tuple(run) for run in runs]


def _cell_rows(chain: list[_Cell]) -> list[Row2]:
    rows: list[Row2] = []
    if chain[0].a != -INF:
        rows.append((Q(-1), Q(0), -chain[0].a))
    if chain[-1].b != INF:
        rows.append((Q(1), Q(0), chain[-1].b))
    for line in _distinct(c.bottom for c in chain):
        rows.append((line.m, Q(-1), -line.c))
    for line in _distinct(c.top for c in chain):
        rows.append((-line.m, Q(1), line.c))
    return rows


def _slit_rows(line: Line, a, b) -> list[Row2]:
    return [(line.m, Q(-1), -line.c), (-line.m, Q(1), line.c), (Q(-1), Q(0), -a), (Q(1), Q(0), b)]


def _vertical_rows(x: Fraction, lo, hi) -> list[Row2]:
    rows = [(Q(1), Q(0), x), (Q(-1), Q(0), -x)]
    if lo != -INF:
        rows.append((Q(0), Q(-1), -lo))
    if hi != INF:
        rows.append((Q(0), Q(1), hi))
    return rows


def _distinct(lines) -> list[Line]:
    out: list[Line] = []
    for line in lines:
        if line is not None and (not out or out[-1] != line):
            out.append(line)
    return out

