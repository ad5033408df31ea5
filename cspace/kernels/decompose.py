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

The decomposition is computed by one sweep from left to right. The sweep keeps the
edges that cross the current slab ordered by y (the *status*), each with the number
of polygons covering the gap above it, and the free cell or slit in that gap. The
slab boundaries are the events: the polygons' vertices, and the crossings of edges
that are neighbours in the status (Bentley-Ottmann: two edges that cross are
neighbours just before they do, so every crossing is found). At an event only the
edges through its points change, and only the cells and slits next to them are
cut, merged or started; the others run on. Everything that decides an answer is
exact; floats only sort out comparisons that are clear by a wide margin.

With ``slits=False`` the polygons are taken as closed sets: only the 2-D cells are
returned, since a slit or a free vertical segment then lies on blocked boundary.

1-D: the pair moves along one direction ``d``; free space is the complement of the
open intervals where the line ``s = d * t`` crosses polygon interiors.

A region is returned as rows ``a*x + b*y <= c`` (2-D) or ``a*t <= c`` (1-D).
"""

from __future__ import annotations

import math
from bisect import bisect_left
from fractions import Fraction
from heapq import heappop, heappush

Q = Fraction
INF = math.inf
Row2 = tuple[Fraction, Fraction, Fraction]

_ZERO, _ONE, _MINUS_ONE = Q(0), Q(1), Q(-1)
# A float comparison of two sums closer than this (relative to the sizes of their terms,
# plus a floor for underflow) is decided exactly. Rounding the inputs and one product and
# sum costs a few units of 1e-16, so a wider difference has the sign of the exact one.
_MARGIN, _FLOOR = 1e-9, 1e-300


def decompose_plane(polygons: list[list[tuple[int, int]]], *, slits: bool = True) -> list[list[Row2]]:
    """Closed convex regions covering the complement of the open convex ``polygons``.

    The polygons are counterclockwise, with integer or Fraction coordinates. The
    regions come in a fixed order: cells that lie in one slab, cells merged across
    slabs, slits, then free vertical segments and points. With ``slits=False`` the
    polygons count as closed and only the cells are returned.

    >>> regions = decompose_plane([[(0, 0), (2, 0), (2, 1), (0, 1)]])
    >>> len(regions)
    4
    >>> len(decompose_plane([[(0, 0), (1, 0), (1, 1), (0, 1)], [(0, 1), (1, 1), (1, 2), (0, 2)]]))
    5
    >>> len(decompose_plane([[(0, 0), (1, 0), (1, 1), (0, 1)], [(0, 1), (1, 1), (1, 2), (0, 2)]],
    ...                     slits=False))
    4
    """
    return _Sweep(polygons, slits).regions()


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


def _exact(value) -> int | Fraction:
    """An input coordinate as an int or a Fraction."""
    return value if type(value) is int or type(value) is Fraction else Q(value)


def _float(value: Fraction) -> float:
    """``value`` as a float (rounded to nearest, so the order of values is kept, ties
    aside); infinite when too large, so that every filter on it defers."""
    try:
        return float(value)
    except OverflowError:
        return INF if value > 0 else -INF


class _Line:
    """The line y = m x + c of one or more collinear edges (one object per line, so lines
    compare by identity); also y = (a x + e) / b in integers (b > 0) for exact
    comparisons without Fractions, floats for filtering, and the last y it was asked."""

    __slots__ = ("m", "c", "a", "e", "b", "fm", "fc", "x", "y")

    def __init__(self, mn: int, md: int, cn: int, cd: int) -> None:
        self.m, self.c = Q(mn, md), Q(cn, cd)
        self.a, self.e, self.b = mn * cd, cn * md, md * cd
        self.fm, self.fc = _float(self.m), _float(self.c)
        self.x: Fraction | None = None
        self.y = _ZERO

    def at(self, x: Fraction) -> Fraction:
        """The exact y at ``x`` (remembered: one sweep position asks many times)."""
        if self.x is not x:
            q = x.denominator
            self.x, self.y = x, Q(self.a * x.numerator + self.e * q, self.b * q)
        return self.y

    def side(self, fx: float, p: int, q: int, fy: float, r: int, s: int) -> int:
        """Sign of y(p / q) - r / s (q, s > 0; fx and fy the floats of both): by floats
        when the margin is wide, else exactly."""
        d = self.fm * fx + self.fc - fy
        margin = _MARGIN * (abs(self.fm * fx) + abs(self.fc) + abs(fy)) + _FLOOR
        if d > margin:
            return 1
        if d < -margin:
            return -1
        n = (self.a * p + self.e * q) * s - r * self.b * q
        return (n > 0) - (n < 0)


class _Polygon:
    """What the sweep needs of an input polygon: its x extent, whether it has area (a
    zero-area polygon blocks nothing but still splits cells, as a line of no width),
    and its lower and upper edges at the sweep position."""

    __slots__ = ("xmin", "xmax", "solid", "lower", "upper")

    def __init__(self, xmin: Fraction, xmax: Fraction, solid: bool) -> None:
        self.xmin, self.xmax, self.solid = xmin, xmax, solid
        self.lower: _Edge | None = None
        self.upper: _Edge | None = None


class _Edge:
    """A non-vertical polygon edge in the status, from its vertex at the smaller x to ``x1``.

    ``opening`` edges are on the lower chain (the polygon lies above them), the others
    on the upper chain. ``rank`` orders edges on one line: upper-chain edges first, then
    each zero-area polygon's pair (its lower edge, then its upper), then lower-chain
    edges; so along a line, polygons close before others open, and a slit is a gap of
    no width and no depth between an upper-chain edge and a lower-chain one. ``depth``,
    ``cell`` and ``slit`` describe the gap above the edge in the current slab.
    """

    __slots__ = ("x1", "fx1", "line", "polygon", "opening", "rank", "depth", "cell", "slit")

    def __init__(self, x1: Fraction, line: _Line, polygon: _Polygon, opening: bool, rank: int) -> None:
        self.x1, self.fx1 = x1, _float(x1)
        self.line, self.polygon, self.opening, self.rank = line, polygon, opening, rank
        self.depth = 0
        self.cell: _Chain | None = None
        self.slit = False


class _Chain:
    """A free cell and the cells of earlier slabs merged into it: its left end ``a``, the
    slab it started in, its current bottom and top lines (None when unbounded) and the
    distinct lines along its bottom and top so far."""

    __slots__ = ("a", "slab", "bottom", "top", "bottoms", "tops")

    def __init__(self, a: Fraction | float, slab: int, bottom: _Line | None, top: _Line | None) -> None:
        self.a, self.slab, self.bottom, self.top = a, slab, bottom, top
        self.bottoms = [] if bottom is None else [bottom]
        self.tops = [] if top is None else [top]

    def joins(self, bottom: _Line | None, top: _Line | None) -> bool:
        """Whether the union with the cell bounded by ``bottom`` and ``top`` on the right
        stays convex (the sides must already meet)."""
        if (self.bottom is None) != (bottom is None) or (self.top is None) != (top is None):
            return False
        bottom_ok = bottom is None or self.bottom is bottom or self.bottom.m <= bottom.m
        top_ok = top is None or self.top is top or self.top.m >= top.m
        return bottom_ok and top_ok

    def extend(self, bottom: _Line | None, top: _Line | None) -> None:
        """Merge in the cell bounded by ``bottom`` and ``top`` on the right."""
        if bottom is not None and bottom is not self.bottom:
            self.bottoms.append(bottom)
        if top is not None and top is not self.top:
            self.tops.append(top)
        self.bottom, self.top = bottom, top

    def rows(self, b: Fraction | float) -> list[Row2]:
        """The chain, ending at ``b``, as rows."""
        rows: list[Row2] = []
        if self.a != -INF:
            rows.append((_MINUS_ONE, _ZERO, -self.a))
        if b != INF:
            rows.append((_ONE, _ZERO, b))
        rows += [(line.m, _MINUS_ONE, -line.c) for line in self.bottoms]
        rows += [(-line.m, _ONE, line.c) for line in self.tops]
        return rows


class _Cluster:
    """Event points and vertical edges on one breakpoint line whose y ranges overlap, with
    the edges starting in them; ``lo:hi`` is the stretch of the status they cover."""

    __slots__ = ("ylo", "fylo", "yhi", "fyhi", "edges", "lo", "hi")

    def __init__(self, ylo: Fraction, yhi: Fraction, fy: float | None = None) -> None:
        self.ylo, self.yhi = ylo, yhi
        self.fylo = self.fyhi = _float(ylo) if fy is None else fy
        self.edges: list[_Edge] = []
        self.lo = self.hi = 0


class _Sweep:
    """The left-to-right sweep behind :func:`decompose_plane`."""

    def __init__(self, polygons: list[list[tuple[int, int]]], slits: bool) -> None:
        self.with_slits = slits
        self.lines: dict[tuple[int, int, int, int], _Line] = {}
        self.events = self._vertex_events(polygons)
        self.crossings: list[tuple[float, Fraction, float, Fraction]] = []  # a heap
        self.queued: set[tuple[int, int]] = set()  # pairs of edges whose crossing was looked for
        self.status: list[_Edge] = []
        self.bottom = _Chain(-INF, 0, None, None)  # the cell below every edge
        self.slab = 0  # slab 0 is left of the first breakpoint
        self.x: Fraction | float = -INF  # the left end of the current slab
        self.cells: list[tuple[bool, int, list[Row2]]] = []  # (merged, order closed, rows)
        self.slit_edges: list[_Edge] = []  # the edges below the current slab's slits, upwards
        self.pieces: list[list] = []  # merged slits: [line, a, b]
        self.piece: list | None = None  # the last piece, while the previous slab's slits can extend it
        self.vertical: list[tuple[Fraction, Fraction | float, Fraction | float]] = []

    def _line(self, x0, y0, x1, y1) -> _Line:
        """The line through two points with x0 != x1, one object per line."""
        dx, dy = x1 - x0, y1 - y0
        if type(dx) is int and type(dy) is int and type(x0) is int and type(y0) is int:
            g = math.gcd(dy, dx) if dx > 0 else -math.gcd(dy, dx)
            mn, md = dy // g, dx // g
            cn = y0 * md - mn * x0
            h = math.gcd(cn, md)
            key = (mn, md, cn // h, md // h)  # the Fractions m and c, reduced, as integers
        else:
            m = Q(dy) / dx
            c = y0 - m * x0
            key = (m.numerator, m.denominator, c.numerator, c.denominator)
        line = self.lines.get(key)
        if line is None:
            line = self.lines[key] = _Line(*key)
        return line

    def _vertex_events(self, polygons: list[list[tuple[int, int]]]) -> list[tuple[float, Fraction, list[_Cluster]]]:
        """The polygons' vertices by x, sorted: at each x, one cluster per polygon with a
        vertex there, holding the polygon's edges that start there."""
        xs: dict = {}  # each x as one Fraction object, so that equal positions are identical
        at: dict = {}
        for index, vertices in enumerate(polygons):
            for x, cluster in self._polygon_clusters(index, len(polygons), vertices, xs).items():
                at.setdefault(x, []).append(cluster)
        return [(_float(xs[x]), xs[x], at[x]) for x in sorted(at)]

    def _polygon_clusters(self, index: int, count: int, vertices: list[tuple[int, int]], xs: dict) -> dict:
        """Polygon ``index`` of ``count``: its vertices' y range at each of its x, with its
        edges starting there (``xs`` gathers each x as a Fraction)."""
        points = [(_exact(x), _exact(y)) for x, y in vertices]
        n = len(points)
        for x, _ in points:
            if x not in xs:
                xs[x] = Q(x)
        area2 = sum(points[i - 1][0] * points[i][1] - points[i][0] * points[i - 1][1] for i in range(n))
        polygon = _Polygon(xs[min(x for x, _ in points)], xs[max(x for x, _ in points)], area2 > 0)
        clusters: dict = {}
        for x, y in points:
            cluster = clusters.get(x)
            if cluster is None:
                clusters[x] = _Cluster(y, y)
            elif y < cluster.ylo:
                cluster.ylo, cluster.fylo = y, _float(y)
            elif y > cluster.yhi:
                cluster.yhi, cluster.fyhi = y, _float(y)
        top_rank = 2 * count + 1
        for i in range(n):
            (x0, y0), (x1, y1) = points[i], points[(i + 1) % n]
            if x0 == x1:
                continue
            opening = x1 > x0
            rank = (top_rank if opening else 0) if polygon.solid else 1 + 2 * index + (not opening)
            edge = _Edge(xs[max(x0, x1)], self._line(x0, y0, x1, y1), polygon, opening, rank)
            clusters[min(x0, x1)].edges.append(edge)
        return clusters

    def regions(self) -> list[list[Row2]]:
        """Sweep every breakpoint, then list the cells, slits and vertical pieces."""
        events, crossings = self.events, self.crossings
        i = 0
        while i < len(events) or crossings:
            # At an x with vertices, their event goes first: its x is the one object that
            # every vertex and edge end there shares.
            if crossings and (i == len(events) or crossings[0][:2] < events[i][:2]):
                (fx, x), clusters = crossings[0][:2], []
            else:
                fx, x, clusters = events[i]
                i += 1
            while crossings and crossings[0][0] == fx and crossings[0][1] == x:
                _, _, fy, y = heappop(crossings)
                clusters.append(_Cluster(y, y, fy))
            self._breakpoint(x, fx, clusters)
        self._close(self.bottom, INF)
        self.cells.sort(key=lambda cell: cell[:2])
        regions = [rows for _, _, rows in self.cells]
        regions += [_slit_rows(line, a, b) for line, a, b in self.pieces]
        regions += [_vertical_rows(x, lo, hi) for x, lo, hi in self.vertical]
        return regions

    def _breakpoint(self, x: Fraction, fx: float, events: list[_Cluster]) -> None:
        """Move the sweep across the line ``x`` where ``events`` happen."""
        if self.with_slits:
            self._flush_slits(x)
        windows = self._windows(x, fx, _merged(events))
        shift = 0
        for window in windows:
            shift += self._window(x, fx, window, window[0].lo + shift, window[-1].hi + shift)
        self.slab += 1
        self.x = x

    def _windows(self, x: Fraction, fx: float, clusters: list[_Cluster]) -> list[list[_Cluster]]:
        """The clusters placed in the status, and grouped where they touch a common gap."""
        windows: list[list[_Cluster]] = []
        for cluster in clusters:
            cluster.lo = self._search(x, fx, cluster.ylo, cluster.fylo, False)
            cluster.hi = self._search(x, fx, cluster.yhi, cluster.fyhi, True, cluster.lo)
            if windows and cluster.lo <= windows[-1][-1].hi:
                windows[-1].append(cluster)
            else:
                windows.append([cluster])
        return windows

    def _search(self, x: Fraction, fx: float, y: Fraction, fy: float, strict: bool, lo: int = 0) -> int:
        """Index of the first status edge at ``y`` or above on the line ``x`` (above, if
        ``strict``): the status is ordered on the line too, so this is a bisection."""
        status = self.status
        hi = len(status)
        p, q, r, s = x.numerator, x.denominator, y.numerator, y.denominator
        while lo < hi:
            mid = (lo + hi) // 2
            side = status[mid].line.side(fx, p, q, fy, r, s)
            if side < 0 or (strict and side == 0):
                lo = mid + 1
            else:
                hi = mid
        return lo

    def _window(self, x: Fraction, fx: float, clusters: list[_Cluster], lo: int, hi: int) -> int:
        """Replace the status edges ``lo:hi`` (those through the clusters) by the edges of
        the next slab there; cut, merge or start the cells and slits next to them, and find
        the free vertical pieces. Returns the change in the status's length."""
        status = self.status
        below = status[lo - 1] if lo else None
        above = status[hi] if hi < len(status) else None
        old = status[lo:hi]
        starting = [edge for cluster in clusters for edge in cluster.edges]
        for edge in starting:
            if edge.opening:
                edge.polygon.lower = edge
            else:
                edge.polygon.upper = edge
        left = self._gap_contents([below] + old + [above], x)
        old_slits = [edge for edge in old if edge.slit]
        new = [edge for edge in old if edge.x1 is not x] + starting
        # The order just right of x: by y on the line, then by slope; collinear by rank.
        new.sort(key=lambda edge: (edge.line.at(x), edge.line.fm, edge.line.m, edge.rank))
        depth = below.depth if below else 0
        for edge in new:
            depth += 1 if edge.opening else -1
            edge.depth, edge.cell, edge.slit = depth, None, False
        right, new_slits = self._new_gaps([below] + new + [above], x)
        self._match(x, left, right)
        if self.with_slits:
            if old_slits or new_slits:
                at = self._slit_index(x, fx, clusters[0].ylo, clusters[0].fylo)
                self.slit_edges[at:at + len(old_slits)] = new_slits
            covered = [(low, high) for _, low, high in left] + [(low, high) for _, _, low, high in right]
            covered += [(edge.line.at(x),) * 2 for edge in old_slits + new_slits]
            self._vertical_pieces(x, clusters, below.depth if below else 0, old + new, covered)
        status[lo:hi] = new  # the edges outside the window keep their order
        neighbours = [edge for edge in [below] + new + [above] if edge is not None]
        for lower, upper in zip(neighbours, neighbours[1:]):
            self._queue_crossing(lower, upper)
        return len(new) - len(old)

    def _gap_contents(self, bounds: list[_Edge | None], x: Fraction) -> list[tuple[_Chain, object, object]]:
        """The cells in the gaps between consecutive ``bounds`` (None: unbounded), with the
        y of their bottom and top on the line ``x``."""
        cells = []
        for k in range(len(bounds) - 1):
            lower, upper = bounds[k], bounds[k + 1]
            chain = self.bottom if lower is None else lower.cell
            if chain is not None:
                cells.append((chain, -INF if lower is None else lower.line.at(x),
                              INF if upper is None else upper.line.at(x)))
        return cells

    def _new_gaps(self, bounds: list[_Edge | None], x: Fraction) -> tuple[list[tuple], list[_Edge]]:
        """The free gaps between consecutive ``bounds`` in the next slab: cells as (lower
        edge, upper edge, y of both on the line ``x``), slits as the edge below them."""
        cells, slits = [], []
        for k in range(len(bounds) - 1):
            lower, upper = bounds[k], bounds[k + 1]
            if lower is not None and lower.depth:
                continue
            if lower is None or upper is None or lower.line is not upper.line:
                cells.append((lower, upper, -INF if lower is None else lower.line.at(x),
                              INF if upper is None else upper.line.at(x)))
            elif self.with_slits and not lower.opening and upper.opening:
                lower.slit = True
                slits.append(lower)
        return cells, slits

    def _match(self, x: Fraction, left: list[tuple], right: list[tuple]) -> None:
        """Continue each old cell into the new cell that has the same side on the line
        ``x`` if the union stays convex; close the other old cells (upwards: the order of
        the output) and start the other new ones."""
        on_left = {(low, high): chain for chain, low, high in left}
        continued = set()
        for lower, upper, low, high in right:
            bottom = None if lower is None else lower.line
            top = None if upper is None else upper.line
            chain = on_left.get((low, high))
            if chain is not None and chain.joins(bottom, top):
                chain.extend(bottom, top)
                continued.add(id(chain))
            else:
                chain = _Chain(x, self.slab + 1, bottom, top)
            if lower is None:
                self.bottom = chain
            else:
                lower.cell = chain
        for chain, _, _ in left:
            if id(chain) not in continued:
                self._close(chain, x)

    def _close(self, chain: _Chain, b: Fraction | float) -> None:
        """End ``chain`` at ``b``, in the current slab. Cells that stayed in one slab come
        first, in the order they close; then merged ones, in the order they close."""
        self.cells.append((chain.slab < self.slab, len(self.cells), chain.rows(b)))

    def _slit_index(self, x: Fraction, fx: float, y: Fraction, fy: float) -> int:
        """Index of the first current slit at ``y`` or above on the line ``x``."""
        edges = self.slit_edges
        lo, hi = 0, len(edges)
        p, q, r, s = x.numerator, x.denominator, y.numerator, y.denominator
        while lo < hi:
            mid = (lo + hi) // 2
            if edges[mid].line.side(fx, p, q, fy, r, s) < 0:
                lo = mid + 1
            else:
                hi = mid
        return lo

    def _flush_slits(self, x: Fraction) -> None:
        """The current slab's slits end at ``x``: each starts a piece, except that the
        lowest one continues the previous slab's highest if it lies on the same line."""
        edges = self.slit_edges
        piece = self.piece
        start = 0
        if edges and piece is not None and piece[0] is edges[0].line:
            piece[2] = x
            start = 1
        for edge in edges[start:]:
            piece = [edge.line, self.x, x]
            self.pieces.append(piece)
        self.piece = piece if edges else None

    def _vertical_pieces(self, x: Fraction, clusters: list[_Cluster], depth_below: int, edges: list[_Edge],
                         covered: list[tuple]) -> None:
        """Stretches of the line ``x`` that are free but that no cell or slit on either side
        (``covered``, closed y intervals) closes over, within the clusters' stretch of it,
        which the ``edges`` (old and new) pass through.

        Of the polygons that cover the line just below the stretch (``depth_below``), those
        whose top is not among ``edges`` cover all of it, and nothing there is free. (A
        polygon covers points of the line only if it extends to both sides: every vertex
        at x is the same object as x, so identity tells.) Otherwise the stretch is cut at
        every y where an edge meets the line; each point and each open gap between is
        free or not, closed over or not, as a whole."""
        inside = {id(edge) for edge in edges}
        spanning = [polygon for polygon in {edge.polygon for edge in edges}
                    if polygon.solid and polygon.xmin is not x and polygon.xmax is not x]
        if depth_below > sum(id(polygon.lower) not in inside for polygon in spanning):
            return
        ylow, yhigh = clusters[0].ylo, clusters[-1].yhi
        if not edges or any(low <= ylow and yhigh <= high for low, high in covered):
            return
        ys = sorted(edge.line.at(x) for edge in edges)
        values = [y for k, y in enumerate(ys) if k == 0 or y != ys[k - 1]]
        spans = [(polygon.lower.line.at(x), polygon.upper.line.at(x)) for polygon in spanning]
        self.vertical += [(x, lo, hi) for lo, hi in _free_runs(values, spans, covered)]

    def _queue_crossing(self, lower: _Edge, upper: _Edge) -> None:
        """Queue the point where ``lower`` and ``upper``, neighbours in the next slab, cross,
        if they do before either ends (so ``lower`` is steeper, and above ``upper`` where
        the first of them ends). Each pair is looked at once: the answer stays."""
        a, b = lower.line, upper.line
        if a is b or not _steeper(a, b):
            return
        pair = (id(lower), id(upper))
        if pair in self.queued:
            return
        self.queued.add(pair)
        if lower.fx1 < upper.fx1 or (lower.fx1 == upper.fx1 and lower.x1 < upper.x1):
            end, fend = lower.x1, lower.fx1
        else:
            end, fend = upper.x1, upper.fx1
        if not _higher_at(a, b, end, fend):
            return
        cx = Q(b.e * a.b - a.e * b.b, a.a * b.b - b.a * a.b)
        p, q = cx.numerator, cx.denominator
        cy = Q(a.a * p + a.e * q, a.b * q)
        heappush(self.crossings, (_float(cx), cx, _float(cy), cy))


def _steeper(a: _Line, b: _Line) -> bool:
    """Whether ``a`` rises faster than ``b``."""
    d, margin = a.fm - b.fm, _MARGIN * (abs(a.fm) + abs(b.fm)) + _FLOOR
    if d > margin:
        return True
    if d < -margin:
        return False
    return a.m > b.m


def _higher_at(a: _Line, b: _Line, x: Fraction, fx: float) -> bool:
    """Whether ``a`` is above ``b`` at ``x``."""
    ya, yb = a.fm * fx, b.fm * fx
    d = ya + a.fc - yb - b.fc
    margin = _MARGIN * (abs(ya) + abs(a.fc) + abs(yb) + abs(b.fc)) + _FLOOR
    if d > margin:
        return True
    if d < -margin:
        return False
    p, q = x.numerator, x.denominator
    return (a.a * p + a.e * q) * b.b > (b.a * p + b.e * q) * a.b


def _merged(events: list[_Cluster]) -> list[_Cluster]:
    """The events on one line, upwards, with overlapping y ranges merged."""
    events.sort(key=lambda c: (c.fylo, c.ylo))
    clusters: list[_Cluster] = []
    for event in events:
        if clusters and event.ylo <= clusters[-1].yhi:
            last = clusters[-1]
            if event.yhi > last.yhi:
                last.yhi, last.fyhi = event.yhi, event.fyhi
            last.edges = last.edges + event.edges
        else:
            clusters.append(event)
    return clusters


def _free_runs(values: list[Fraction], spans: list[tuple], covered: list[tuple]) -> list[tuple]:
    """Closed stretches of a line cut at ``values`` (increasing) made of points and open
    gaps that no open span in ``spans`` and no closed interval in ``covered`` reaches.
    Outside the values, nothing is free; every bound inside them is one of the values."""
    size = 2 * len(values) - 1  # point k is element 2k, the gap above it 2k + 1
    blocked, closed = [0] * (size + 1), [0] * (size + 1)
    for low, high in spans:
        first, last = _element(values, low) + 1, _element(values, high)
        if first < last:
            blocked[first] += 1
            blocked[last] -= 1
    for low, high in covered:
        first, last = max(_element(values, low), 0), min(_element(values, high), size - 1)
        if first <= last:
            closed[first] += 1
            closed[last + 1] -= 1
    runs, start, depth, over = [], None, 0, 0
    for k in range(size + 1):
        depth += blocked[k]
        over += closed[k]
        if k < size and depth == 0 and over == 0:
            start = k if start is None else start
        elif start is not None:
            runs.append((values[start // 2], values[k // 2]))
            start = None
    return runs


def _element(values: list[Fraction], y) -> int:
    """The element of ``values`` (point k is element 2k, the gap above it 2k + 1) that
    ``y`` falls on: -1 below them all, ``2 * len(values) - 1`` above."""
    k = bisect_left(values, y)
    return 2 * k if k < len(values) and values[k] == y else 2 * k - 1


def _slit_rows(line: _Line, a: Fraction, b: Fraction) -> list[Row2]:
    """The segment of ``line`` over a <= x <= b."""
    return [(line.m, _MINUS_ONE, -line.c), (-line.m, _ONE, line.c), (_MINUS_ONE, _ZERO, -a), (_ONE, _ZERO, b)]


def _vertical_rows(x: Fraction, lo, hi) -> list[Row2]:
    """The segment (or point, or ray) of the line ``x`` between ``lo`` and ``hi``."""
    rows = [(_ONE, _ZERO, x), (_MINUS_ONE, _ZERO, -x)]
    if lo != -INF:
        rows.append((_ZERO, _MINUS_ONE, -lo))
    if hi != INF:
        rows.append((_ZERO, _ONE, hi))
    return rows
