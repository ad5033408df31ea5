"""The plane decomposition against independent oracles.

Each region is clipped to a large box in exact arithmetic, which gives its vertices;
points are tested against the input polygons directly (strictly inside an open
polygon, or on a closed one). Nothing here reuses the sweep's own geometry.
"""

from __future__ import annotations

import doctest
import random
from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from cspace.kernels import decompose
from cspace.kernels.decompose import decompose_plane

from .common import slow

Q = Fraction
Point = tuple[Fraction, Fraction]
BOX = 1000  # every input lies well inside [-BOX, BOX]^2


# --- exact geometry ---------------------------------------------------------------

def cross(o: Point, a: Point, b: Point) -> Fraction:
    return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])


def hull(points: list[tuple[int, int]]) -> list[tuple[int, int]] | None:
    """Counterclockwise convex hull without collinear points; None if it has no area."""
    pts = sorted(set(points))
    lower: list = []
    upper: list = []
    for p in pts:
        while len(lower) >= 2 and cross(lower[-2], lower[-1], p) <= 0:
            lower.pop()
        lower.append(p)
    for p in reversed(pts):
        while len(upper) >= 2 and cross(upper[-2], upper[-1], p) <= 0:
            upper.pop()
        upper.append(p)
    ring = lower[:-1] + upper[:-1]
    return ring if len(ring) >= 3 else None


def clip(polygon: list[Point], row) -> list[Point]:
    """The part of a convex polygon (or segment, or point) where a*x + b*y <= c."""
    a, b, c = row
    out: list[Point] = []
    n = len(polygon)
    for i in range(n):
        p, q = polygon[i], polygon[(i + 1) % n]
        fp, fq = a * p[0] + b * p[1] - c, a * q[0] + b * q[1] - c
        if fp <= 0:
            out.append(p)
        if (fp < 0 < fq) or (fq < 0 < fp):
            t = fp / (fp - fq)
            out.append((p[0] + t * (q[0] - p[0]), p[1] + t * (q[1] - p[1])))
    return [p for k, p in enumerate(out) if p != out[k - 1]] if len(out) > 1 else out


def outline(rows) -> list[Point]:
    """The region's vertices within the box, counterclockwise."""
    polygon = [(Q(-BOX), Q(-BOX)), (Q(BOX), Q(-BOX)), (Q(BOX), Q(BOX)), (Q(-BOX), Q(BOX))]
    for row in rows:
        polygon = clip(polygon, row)
    return polygon


def area2(polygon: list[Point]) -> Fraction:
    n = len(polygon)
    return sum((polygon[i][0] * polygon[(i + 1) % n][1] - polygon[(i + 1) % n][0] * polygon[i][1]
                for i in range(n)), Q(0))


def inside(point: Point, polygon, strict: bool) -> bool:
    """Whether ``point`` is in the open (strict) or closed counterclockwise convex polygon."""
    n = len(polygon)
    if strict:
        return all(cross(polygon[i], polygon[(i + 1) % n], point) > 0 for i in range(n))
    return all(cross(polygon[i], polygon[(i + 1) % n], point) >= 0 for i in range(n))


def in_region(point: Point, rows, strict: bool = False) -> bool:
    x, y = point
    if strict:
        return all(a * x + b * y < c for a, b, c in rows)
    return all(a * x + b * y <= c for a, b, c in rows)


# --- oracles ---------------------------------------------------------------------

def check_regions(regions, slits: bool) -> list[list[Point]]:
    """Each region non-empty, convex, inside all its rows, each row touching it; with
    ``slits=False`` each has area. Returns the outlines."""
    outlines = []
    for rows in regions:
        assert all(isinstance(v, Fraction) for row in rows for v in row)
        polygon = outline(rows)
        assert polygon, rows
        assert all(in_region(p, rows) for p in polygon)
        if len(polygon) >= 3:
            assert all(cross(polygon[i - 2], polygon[i - 1], polygon[i]) >= 0 for i in range(len(polygon)))
        for a, b, c in rows:
            assert any(a * x + b * y == c for x, y in polygon), "a row that does not touch its region"
        if not slits:
            assert area2(polygon) > 0
        outlines.append(polygon)
    return outlines


def check_disjoint(regions, outlines) -> None:
    """Interiors pairwise disjoint: 2-D regions overlap in no area, no lower-dimensional
    region passes through a 2-D region's interior, and no two of them overlap."""
    boxes = [(min(p[0] for p in o), min(p[1] for p in o), max(p[0] for p in o), max(p[1] for p in o))
             for o in outlines]
    flat = [area2(polygon) == 0 for polygon in outlines]
    for i in range(len(regions)):
        for j in range(i + 1, len(regions)):
            if boxes[i][0] > boxes[j][2] or boxes[j][0] > boxes[i][2] \
                    or boxes[i][1] > boxes[j][3] or boxes[j][1] > boxes[i][3]:
                continue
            common = outlines[i]
            for row in regions[j]:
                common = clip(common, row)
            if flat[i] and flat[j]:
                assert len(set(common)) <= 1, "two segments overlap"
            elif flat[i] or flat[j]:
                solid = regions[i] if flat[j] else regions[j]
                centre = (sum(p[0] for p in common) / len(common), sum(p[1] for p in common) / len(common)) \
                    if common else None
                assert not any(in_region(p, solid, strict=True) for p in common + [centre] if p), \
                    "a segment through a cell"
            else:
                assert len(common) < 3 or area2(common) == 0, "two cells overlap"


def sample_points(rng: random.Random, lo: int, hi: int, count: int) -> list[Point]:
    """Grid points at half steps (on vertices, edges and slits) and random rationals."""
    grid = [(Q(x, 2), Q(y, 2)) for x in range(2 * lo, 2 * hi + 1) for y in range(2 * lo, 2 * hi + 1)]
    rng.shuffle(grid)
    extra = [(Q(rng.randint(3 * lo, 3 * hi), 3), Q(rng.randint(5 * lo, 5 * hi), 5)) for _ in range(count // 2)]
    return grid[:count] + extra


class Boxed:
    """Closed convex sets (regions as rows, or polygons) with their bounding boxes as
    floats a little widened: a filter before the exact test."""

    def __init__(self, items, corners) -> None:
        self.items = []
        for item, points in zip(items, corners):
            xs, ys = [float(p[0]) for p in points], [float(p[1]) for p in points]
            self.items.append((item, min(xs) - 1e-6, max(xs) + 1e-6, min(ys) - 1e-6, max(ys) + 1e-6))

    def near(self, point: Point) -> list:
        x, y = float(point[0]), float(point[1])
        return [item for item, x0, x1, y0, y1 in self.items if x0 <= x <= x1 and y0 <= y <= y1]


def check_coverage(polygons, regions, outlines, points: list[Point], slits: bool) -> None:
    """Free points lie in a region, blocked ones in none; none lies in two interiors.
    With ``slits=False`` a point on a closed polygon lies in no region's interior."""
    blocked = Boxed(polygons, polygons)
    found = Boxed(regions, outlines)
    for point in points:
        containing = [rows for rows in found.near(point) if in_region(point, rows)]
        interiors = sum(in_region(point, rows, strict=True) for rows in containing)
        assert interiors <= 1, point
        if slits:
            assert bool(containing) != any(inside(point, p, strict=True) for p in blocked.near(point)), point
        elif any(inside(point, p, strict=False) for p in blocked.near(point)):
            assert interiors == 0, point
        else:
            assert containing, point


def check_all(polygons, seed: int = 0) -> None:
    rng = random.Random(seed)
    exact = [[(Q(x), Q(y)) for x, y in polygon] for polygon in polygons]
    points = sample_points(rng, -2, 9, 150)
    for slits in (True, False):
        regions = decompose_plane(polygons, slits=slits)
        outlines = check_regions(regions, slits)
        check_disjoint(regions, outlines)
        check_coverage(exact, regions, outlines, points, slits)


# --- random inputs with the hard cases -------------------------------------------

def rectangle(x: int, y: int, w: int, h: int) -> list[tuple[int, int]]:
    return [(x, y), (x + w, y), (x + w, y + h), (x, y + h)]


@st.composite
def polygon_sets(draw) -> list[list[tuple]]:
    """Up to eight polygons on a 0..6 grid: rectangles (they abut along edges, vertical
    ones too, and nest), triangles and quadrilaterals (thin ones, touching at vertices,
    sharing edge lines), repeats, extra vertices on edges, half-unit coordinates."""
    coordinate = st.integers(0, 6)
    polygons = []
    for _ in range(draw(st.integers(1, 8))):
        kind = draw(st.sampled_from(["rectangle", "hull", "repeat"]))
        if kind == "repeat" and polygons:
            polygons.append(list(draw(st.sampled_from(polygons))))
            continue
        if kind == "hull":
            ring = hull([(draw(coordinate), draw(coordinate)) for _ in range(draw(st.integers(3, 4)))])
            if ring is None:
                continue
        else:
            ring = rectangle(draw(coordinate), draw(coordinate), draw(st.integers(1, 3)), draw(st.integers(1, 3)))
        if draw(st.booleans()):  # a vertex in the middle of every edge
            middles = [((p[0] + q[0]) / Q(2), (p[1] + q[1]) / Q(2)) for p, q in zip(ring, ring[1:] + ring[:1])]
            ring = [v for pair in zip(ring, middles) for v in pair]
        if draw(st.integers(0, 4)) == 0:
            ring = [(Q(x, 2), Q(y, 2)) for x, y in ring]
        polygons.append(ring)
    return polygons or [rectangle(0, 0, 1, 1)]


@slow
@settings(max_examples=120, deadline=None)
@given(polygon_sets())
def test_random_polygon_sets_meet_the_oracles(polygons):
    check_all(polygons)


def test_many_polygons_on_a_small_grid():
    """Hundreds of triangles and quadrilaterals on a 12 x 12 grid: coincidences everywhere."""
    rng = random.Random(7)
    polygons = []
    while len(polygons) < 120:
        cx, cy = rng.randint(0, 10), rng.randint(0, 10)
        ring = hull([(cx + rng.randint(-2, 2), cy + rng.randint(-2, 2)) for _ in range(rng.choice([3, 4]))])
        if ring:
            polygons.append(ring)
    polygons += [rectangle(rng.randint(0, 10), rng.randint(0, 10), 1, 2) for _ in range(40)]
    rng2 = random.Random(8)
    exact = [[(Q(x), Q(y)) for x, y in polygon] for polygon in polygons]
    points = sample_points(rng2, -1, 13, 300)
    for slits in (True, False):
        regions = decompose_plane(polygons, slits=slits)
        check_coverage(exact, regions, check_regions(regions, slits), points, slits)


# --- named cases -----------------------------------------------------------------

SQUARE = rectangle(0, 0, 1, 1)
ABOVE = rectangle(0, 1, 1, 1)
BESIDE = rectangle(1, 0, 1, 1)


def dimensions(regions) -> list[int]:
    out = []
    for rows in regions:
        polygon = outline(rows)
        out.append(2 if area2(polygon) else (1 if len(set(polygon)) > 1 else 0))
    return out


def test_the_doctests_hold():
    assert doctest.testmod(decompose).failed == 0


def test_one_square_leaves_four_cells():
    regions = decompose_plane([[(0, 0), (2, 0), (2, 1), (0, 1)]])
    assert dimensions(regions) == [2, 2, 2, 2]
    check_all([[(0, 0), (2, 0), (2, 1), (0, 1)]])


def test_two_squares_sharing_a_horizontal_edge_leave_a_slit_only_when_open():
    open_regions = decompose_plane([SQUARE, ABOVE])
    assert dimensions(open_regions).count(1) == 1
    slit = open_regions[dimensions(open_regions).index(1)]
    assert in_region((Q(1, 2), Q(1)), slit) and set(outline(slit)) == {(0, 1), (1, 1)}
    closed_regions = decompose_plane([SQUARE, ABOVE], slits=False)
    assert set(dimensions(closed_regions)) == {2}
    assert not any(in_region((Q(1, 2), Q(1)), rows) for rows in closed_regions)
    check_all([SQUARE, ABOVE])


def test_two_squares_sharing_a_vertical_edge_leave_a_vertical_segment_only_when_open():
    open_regions = decompose_plane([SQUARE, BESIDE])
    segments = [rows for rows, d in zip(open_regions, dimensions(open_regions)) if d == 1]
    assert len(segments) == 1 and set(outline(segments[0])) == {(1, 0), (1, 1)}
    assert set(dimensions(decompose_plane([SQUARE, BESIDE], slits=False))) == {2}
    check_all([SQUARE, BESIDE])


def test_four_squares_round_a_point_leave_a_cross_of_free_segments():
    squares = [rectangle(x, y, 1, 1) for x in (0, 1) for y in (0, 1)]
    regions = decompose_plane(squares)
    for point in [(Q(1), Q(1)), (Q(1), Q(1, 2)), (Q(1, 2), Q(1)), (Q(3, 2), Q(1)), (Q(1), Q(3, 2))]:
        assert any(in_region(point, rows) for rows in regions), point
    assert not any(in_region((Q(1), Q(1)), rows) for rows in decompose_plane(squares, slits=False))
    check_all(squares)


def test_three_polygons_round_a_point_leave_it_free_on_its_own():
    """Above y = x, below y = -x, right of x = 0: only the origin is free near it."""
    polygons = [[(-2, -2), (2, 2), (-2, 2)], [(-2, 2), (-2, -2), (2, -2)], [(0, -2), (2, -2), (2, 2), (0, 2)]]
    regions = decompose_plane(polygons)
    points = [rows for rows, d in zip(regions, dimensions(regions)) if d == 0]
    assert len(points) == 1 and outline(points[0]) == [(0, 0)]
    assert 0 not in dimensions(decompose_plane(polygons, slits=False))
    check_all(polygons)


def test_the_order_of_the_regions_is_kept():
    """Callers name regions by their place in the list: cells within one slab, upwards,
    slab by slab; then merged cells; then slits; then vertical pieces."""
    polygons = [SQUARE, ABOVE, [(1, 0), (3, 1), (1, 1)]]
    assert decompose_plane(polygons) == [
        [(1, 0, 0)],
        [(-1, 0, 0), (1, 0, 1), (0, 1, 0)],
        [(-1, 0, 0), (1, 0, 1), (0, -1, -2)],
        [(-1, 0, -1), (1, 0, 3), (Q(-1, 2), 1, Q(-1, 2))],
        [(-1, 0, -1), (1, 0, 3), (0, -1, -1)],
        [(-1, 0, -3)],
        [(0, -1, -1), (0, 1, 1), (-1, 0, 0), (1, 0, 1)],
        [(1, 0, 1), (-1, 0, -1), (0, -1, 0), (0, 1, 1)],
    ]
    assert decompose_plane(polygons, slits=False) == decompose_plane(polygons)[:6]


def test_a_triangulated_polygon_without_slits_is_the_polygon():
    hexagon = [(0, 0), (4, -1), (7, 1), (6, 4), (2, 5), (-1, 3)]
    fan = [[hexagon[0], hexagon[k], hexagon[k + 1]] for k in range(1, len(hexagon) - 1)]
    as_set = sorted(map(repr, decompose_plane(fan, slits=False)))
    assert as_set == sorted(map(repr, decompose_plane([hexagon], slits=False)))
    assert len(decompose_plane(fan)) > len(decompose_plane(fan, slits=False))  # the diagonals are slits
    check_all(fan)


def test_nested_identical_and_thin_polygons():
    polygons = [rectangle(0, 0, 6, 6), rectangle(1, 1, 2, 2), rectangle(1, 1, 2, 2),
                [(0, 7), (8, 7), (8, 8)], [(2, -1), (3, 9), (2, 9)]]
    check_all(polygons)


@slow
def test_the_sweep_handles_three_thousand_edges():
    """A big input checked at sampled points: coverage and disjoint interiors."""
    rng = random.Random(3000)
    polygons: list[list[tuple[int, int]]] = []
    while sum(map(len, polygons)) < 3000:
        cx, cy = rng.randint(0, 60), rng.randint(0, 60)
        if rng.random() < 0.3:
            polygons.append(rectangle(cx, cy, rng.randint(1, 3), rng.randint(1, 3)))
        else:
            ring = hull([(cx + rng.randint(-3, 3), cy + rng.randint(-3, 3)) for _ in range(rng.choice([3, 4, 5]))])
            if ring:
                polygons.append(ring)
    exact = [[(Q(x), Q(y)) for x, y in polygon] for polygon in polygons]
    points = sample_points(random.Random(1), -1, 62, 400)
    index = Boxed(exact, exact)
    blocked = sum(any(inside(point, p, strict=True) for p in index.near(point)) for point in points)
    assert 0 < blocked < len(points)
    for slits in (True, False):
        regions = decompose_plane(polygons, slits=slits)
        check_coverage(exact, regions, [outline(rows) for rows in regions], points, slits)
