"""Pair spaces against the real geometry: shapely decides what is free, not the CS code."""

from __future__ import annotations

import math
from functools import lru_cache
from types import SimpleNamespace

import numpy as np
import pytest
import shapely
from shapely import affinity
from shapely.geometry import LineString, Point, Polygon

from cspace import analyze, load, loads
from cspace.model.geometry import Arc, region_of
from cspace.spaces.pairspace import SCAN_LIMIT, RegionIndex

from .common import FIXTURES, each, fixture_path, seeds

SHAPES = {
    "rectangles": ("{ rect = [0, 0, 6, 2] }", "{ rect = [0, 0, 2, 3] }"),
    "L and rectangle": ("{ path = [[0, 0], [6, 0], [6, 2], [2, 2], [2, 6], [0, 6], [0, 0]] }",
                        "{ rect = [0, 0, 1.5, 1] }"),
    "U with a channel exactly as wide as the block": (
        "{ path = [[0, 0], [7, 0], [7, 5], [5, 5], [5, 2], [3, 2], [3, 5], [0, 5], [0, 0]] }",
        "{ rect = [0, 0, 2, 1] }"),
    "ring and a small block": ("{ rect = [0, 0, 8, 8] }, { rect = [2, 2, 6, 6] }", "{ rect = [0, 0, 1, 2] }"),
    "disk and rectangle": ("{ circle = [0, 0], radius = 2 }", "{ rect = [0, 0, 3, 1] }"),
    "rectangle and an L": ("{ rect = [0, 0, 4, 1] }",
                           "{ path = [[0, 0], [3, 0], [3, 1], [1, 1], [1, 3], [0, 3], [0, 0]] }"),
    "two walls and a floor": ("{ rect = [-6, -2, 10, 0] }, { rect = [-6, 2, -2, 8] }, { rect = [0, 2, 4, 8] }",
                              "{ rect = [0, 0, 2, 2] }"),
    "a base whose top is two collinear faces": ("{ path = [[0, 0], [20, 0], [20, 1], [10, 1], [0, 1], [0, 0]] }",
                                                "{ rect = [0, 0, 2, 1] }"),
    # Drawn parallel to the 30-degree slope, but not after rounding to the grid.
    "a ramp and a square drawn along it": (
        "{ path = [[0, 0], [17.320508075689, 0], [17.320508075689, 10], [0, 0]] }",
        "{ path = [[0, 0], [1.732050807569, 1], [1.232050807569, 1.866025403784], [-0.5, 0.866025403784], [0, 0]] }"),
}


def mechanism(fixed: str, moving: str):
    text = f"""
[[parts]]
name = "a"
motion = "fixed"
[[parts.slices]]
z = [0, 1]
profiles = [{fixed}]

[[parts]]
name = "b"
motion = "fixed-axes"
coordinates = [{{ name = "x", axis = [1, 0], initial = -50 }}, {{ name = "y", axis = [0, 1], initial = -50 }}]
[[parts.slices]]
z = [0, 1]
profiles = [{moving}]
"""
    return loads(text)


@pytest.fixture(scope="module", params=sorted(SHAPES))
def case(request):
    m = mechanism(*SHAPES[request.param])
    analysis = analyze(m)
    (pair,) = analysis.pairs
    true_a = region_of(m.part("a").slices[0].profiles, 1e-6)
    true_b = region_of(m.part("b").slices[0].profiles, 1e-6)
    return m, pair, true_a, true_b


def test_regions_hold_exactly_the_free_offsets(case):
    m, pair, a, b = case
    tol = m.tolerance
    margin = 2 * tol.arc + tol.length
    box = np.array([v for r in pair.regions for v in r.vertices])
    lo, hi = box.min(axis=0), box.max(axis=0)
    rng = np.random.default_rng(7)
    checked = 0
    for s in rng.uniform(lo, hi, size=(600, 2)):
        placed = affinity.translate(b, *s)
        inside = bool(pair.regions_at(s, tol.length))
        overlap = placed.intersection(a).area
        if overlap > 0 and shapely.maximum_inscribed_circle(placed.intersection(a)).length * 2 > margin:
            assert not inside, f"blocked offset {s} lies in a region"
            checked += 1
        elif placed.distance(a) > margin:
            assert inside, f"free offset {s} lies in no region"
            checked += 1
    assert checked > 500


def test_two_dimensional_regions_do_not_overlap(case):
    _, pair, _, _ = case
    polygons = [Polygon(r.vertices) for r in pair.regions if r.dimension == 2]
    for i, p in enumerate(polygons):
        for q in polygons[i + 1:]:
            assert p.intersection(q).area <= 1e-9 * max(p.area, 1.0)


def test_regions_and_blocked_space_tile_the_plane(case):
    _, pair, _, _ = case
    box = shapely.box(*np.min([r.vertices.min(axis=0) for r in pair.regions], axis=0),
                      *np.max([r.vertices.max(axis=0) for r in pair.regions], axis=0))
    free = shapely.union_all([Polygon(r.vertices) for r in pair.regions if r.dimension == 2])
    blocked = shapely.union_all([Polygon(p) for p in pair.blocked]).intersection(box)
    assert free.area + blocked.area == pytest.approx(box.area, rel=1e-9)
    assert free.intersection(blocked).area <= 1e-9 * box.area


def test_contact_tags_name_faces_that_touch(case):
    m, pair, a, b = case
    tol = m.tolerance
    tagged = 0
    for region in pair.regions:
        for edge in region.edges:
            middle = (np.asarray(edge.start) + np.asarray(edge.end)) / 2
            placed = affinity.translate(b, *middle)
            assert placed.intersection(a).area <= 1e-9, "a region edge lies in blocked space"
            for contact in edge.contacts:
                # Each face named touches the other side there: no face named that does not touch.
                near = 2 * tol.arc + tol.length
                face_a = feature(m, "a", contact.faces_a, (0.0, 0.0))
                face_b = feature(m, "b", contact.faces_b, middle)
                for name in contact.faces_a:
                    assert feature(m, "a", (name,), (0.0, 0.0)).distance(face_b) <= near, (contact, middle)
                for name in contact.faces_b:
                    assert feature(m, "b", (name,), middle).distance(face_a) <= near, (contact, middle)
                tagged += 1
    assert tagged >= 4


def test_channel_exactly_as_wide_as_the_block_is_a_line_of_free_space():
    m = mechanism(*SHAPES["U with a channel exactly as wide as the block"])
    (pair,) = analyze(m).pairs
    lines = [r for r in pair.regions if r.dimension == 1]
    assert lines, "the zero-width channel vanished"
    channel = [r for r in lines if np.allclose(r.vertices[:, 0], 3.0)]
    assert channel and channel[0].vertices[:, 1].min() == pytest.approx(2.0)
    edges = {str(c) for e in channel[0].edges for c in e.contacts}
    assert edges == {"a.f3/b.right", "a.f5/b.left", "a.f4/b.bottom"}


def feature(m, part: str, names: tuple[str, ...], offset) -> shapely.Geometry:
    """Geometry of faces (or a corner) of a part, translated by ``offset``."""
    pieces = []
    for profile in m.part(part).slices[0].profiles:
        for index, element in enumerate(profile.elements):
            corner = profile.corner_name(index)
            if element.name in names:
                if isinstance(element, Arc):
                    pieces.append(LineString(element.points(1e-6, False) + [element.end]))
                else:
                    pieces.append(LineString([element.start, element.end]))
            if corner in names:
                pieces.append(Point(element.start))
    assert pieces, f"no feature named {names} on {part}"
    return affinity.translate(shapely.union_all(pieces), *offset)


def test_parallel_faces_touch_face_to_face_after_rounding():
    """A square drawn along a 30-degree ramp rests on it bottom face on slope face, not on
    a corner, although rounding to the grid leaves the two a hair from parallel."""
    m = mechanism(*SHAPES["a ramp and a square drawn along it"])
    (pair,) = analyze(m).pairs
    labels = {str(c) for r in pair.regions for e in r.edges for c in e.contacts}
    assert "a.f2/b.f0" in labels  # the ramp's slope under the square's bottom
    assert not any(label.startswith("a.f2/") and "+" in label.split("/")[1] for label in labels)


def test_collinear_faces_are_named_where_they_touch():
    m = mechanism(*SHAPES["a base whose top is two collinear faces"])
    (pair,) = analyze(m).pairs
    on_top = sorted((e.start[0], e.end[0], str(c)) for r in pair.regions for e in r.edges for c in e.contacts
                    if e.start[1] == e.end[1] == pytest.approx(1.0) and e.start[0] != e.end[0])
    # The block (width 2, x its left end) on the left face, straddling both, on the right face.
    assert [(min(a, b), max(a, b), label) for a, b, label in on_top] == [
        (-2.0, 8.0, "a.f3/b.bottom"), (8.0, 10.0, "a.f2+f3/b.bottom"), (10.0, 20.0, "a.f2/b.bottom")]


@pytest.mark.parametrize("name", each(FIXTURES))
def test_every_facet_has_one_label_naming_faces_that_meet(name):
    """Over every fixture's pair spaces: a region facet is one contact or free along its whole
    length (else it could hold a part against a face that has left), and every label names
    faces of its part that really meet (a corner is two faces sharing a point)."""
    m = load(fixture_path(name))
    for pair in analyze(m).pairs:
        for region in pair.regions:
            labels: dict[int, set] = {}
            for edge in region.edges:
                labels.setdefault(edge.row, set()).add(edge.contacts)
                for contact in edge.contacts:
                    for part, features in ((contact.part_a, contact.faces_a), (contact.part_b, contact.faces_b)):
                        assert_faces_meet(m, part, [f for feature in features for f in feature.split("+")])
            assert all(len(found) == 1 for found in labels.values()), (pair.name, region.name, labels)


def assert_faces_meet(m, part: str, names: list[str]) -> None:
    """Every name is a face of the part, and the faces form one connected chain."""
    geometry = _faces(m, part)
    assert set(names) <= set(geometry), f"{part}: no face named {sorted(set(names) - set(geometry))}"
    reached, frontier = {names[0]}, [names[0]]
    while frontier:
        current = frontier.pop()
        for other in names:
            if other not in reached and geometry[current].distance(geometry[other]) <= m.tolerance.length:
                reached.add(other)
                frontier.append(other)
    assert reached == set(names), f"{part}: faces {names} do not meet"


@lru_cache(maxsize=None)
def _faces(m, part: str) -> dict:
    """Each face of the part as one geometry (its arcs finely sampled)."""
    faces: dict = {}
    for slice_ in m.part(part).slices:
        for profile in slice_.profiles:
            for element in profile.elements:
                points = element.points(1e-6, False) + [element.end] if isinstance(element, Arc) else \
                    [element.start, element.end]
                faces.setdefault(element.name, []).append(LineString(points))
    return {name: shapely.union_all(lines) for name, lines in faces.items()}


def test_sums_of_nearly_parallel_pieces_are_convex():
    """Two squares drawn at 30 degrees, rounded to the grid, have edges parallel only to a step;
    pyclipper's sum of such pieces once came back with a zero-area spike folded onto it (a
    repeated vertex, the decomposition then took blocked space for free). Every sum must be a
    simple convex polygon within two grid steps of the exact sum (the hull of every difference
    of the pieces' vertices; pyclipper drops a vertex convex by less than a step)."""
    from cspace.kernels.minkowski import ConvexPiece, minkowski_difference

    c, s = math.cos(math.pi / 6), 0.5
    rng = np.random.default_rng(3)
    for _ in range(200):
        offset = rng.uniform(-1e7, 1e7, 2)
        def square(size, at):
            corners = [(0, 0), (size, 0), (size, size), (0, size)]
            return tuple((int(round((at[0] + x * c - y * s) * 1e3)), int(round((at[1] + x * s + y * c) * 1e3)))
                         for x, y in corners)
        a = square(rng.uniform(0.5, 3), offset)
        b = square(rng.uniform(0.5, 3), offset + rng.uniform(-3, 3, 2))
        faces = (("f",),) * 4
        polygon = minkowski_difference(ConvexPiece(a, ("v",) * 4, faces), ConvexPiece(b, ("v",) * 4, faces), 2.0)
        ring = [(float(x), float(y)) for x, y in polygon.vertices]
        assert len(set(ring)) == len(ring), "a repeated vertex"
        sum_polygon = shapely.Polygon(ring)
        assert sum_polygon.is_valid and sum_polygon.convex_hull.area - sum_polygon.area <= 1e-9 * sum_polygon.area
        hull = shapely.MultiPoint([(ax - bx, ay - by) for ax, ay in a for bx, by in b]).convex_hull
        assert sum_polygon.hausdorff_distance(hull) <= 2.0


@pytest.mark.parametrize("seed", seeds(80, 10))
def test_parts_left_out_of_the_pairs_never_come_near(seed):
    """Parts whose boxes meet are left unpaired only when their swept regions are apart:
    a bar turning (freely or between limits) about a random pivot and a fixed block or a
    second bar turning about another pivot. The oracle samples the turns with shapely: an
    unpaired couple never comes within the margin; a couple that comes into contact is
    always paired."""
    import math
    import random

    from shapely import affinity
    from shapely.geometry import box as rectangle

    from cspace.io.loader import loads
    from cspace.spaces.pairs import NEAR, interacting_pairs

    rng = random.Random(seed)

    def bar(name: str) -> tuple[str, dict]:
        pivot = (round(rng.uniform(-3, 3), 3), round(rng.uniform(-3, 3), 3))
        length, width = round(rng.uniform(1, 4), 3), round(rng.uniform(0.2, 1), 3)
        limits = None
        if rng.random() < 0.5:
            limits = (round(rng.uniform(-2, 0), 3), round(rng.uniform(0.1, 2), 3))  # holding 0, the start
        shape = (pivot[0] - 0.5, pivot[1] - width / 2, pivot[0] + length, pivot[1] + width / 2)
        limit = f", limits = [{limits[0]}, {limits[1]}]" if limits else ""
        text = (f'[[parts]]\nname = "{name}"\nmotion = "fixed-axes"\n'
                f'coordinates = [{{ name = "{name}t", pivot = [{pivot[0]}, {pivot[1]}]{limit} }}]\n'
                f'[[parts.slices]]\nz = [0, 1]\nprofiles = [{{ rect = [{", ".join(map(str, shape))}] }}]\n')
        return text, {"pivot": pivot, "shape": rectangle(*shape), "limits": limits}

    first_text, first = bar("a")
    if rng.random() < 0.5:
        x, y = rng.uniform(-6, 4), rng.uniform(-6, 4)
        block = (round(x, 3), round(y, 3), round(x + rng.uniform(0.3, 2), 3), round(y + rng.uniform(0.3, 2), 3))
        second_text = ('[[parts]]\nname = "b"\nmotion = "fixed"\n[[parts.slices]]\nz = [0, 1]\n'
                       f'profiles = [{{ rect = [{", ".join(map(str, block))}] }}]\n')
        second = {"pivot": (0.0, 0.0), "shape": rectangle(*block), "limits": (0.0, 0.0)}
    else:
        second_text, second = bar("b")
    mechanism = loads(first_text + second_text)
    paired = bool(interacting_pairs(mechanism, {}))

    def angles(spec: dict) -> list[float]:
        low, high = spec["limits"] or (-math.pi, math.pi)
        return [low + (high - low) * k / 120 for k in range(121)]

    least = min(affinity.rotate(first["shape"], u, origin=first["pivot"], use_radians=True).distance(
        affinity.rotate(second["shape"], w, origin=second["pivot"], use_radians=True))
        for u in angles(first) for w in angles(second)[::8])
    if not paired:
        assert least > NEAR * mechanism.tolerance.arc
    if least == 0:
        assert paired


@pytest.mark.parametrize("offset, paired", [(-0.05, True), (0.05, False)])
def test_a_block_just_inside_a_turning_bars_reach_is_paired_and_just_outside_is_not(offset, paired):
    """The bar [0, 4] x [-0.5, 0.5] turns freely about the origin: its far corners reach
    sqrt(16.25). A fixed block placed that far out along the diagonal, plus or minus 0.05."""
    import math

    from cspace.io.loader import loads
    from cspace.spaces.pairs import interacting_pairs

    corner = (math.sqrt(16.25) + offset) / math.sqrt(2)
    text = ('[[parts]]\nname = "bar"\nmotion = "fixed-axes"\ncoordinates = [{ name = "t", pivot = [0, 0] }]\n'
            '[[parts.slices]]\nz = [0, 1]\nprofiles = [{ rect = [0, -0.5, 4, 0.5] }]\n'
            '[[parts]]\nname = "block"\nmotion = "fixed"\n[[parts.slices]]\nz = [0, 1]\n'
            f'profiles = [{{ rect = [{corner}, {corner}, {corner + 1}, {corner + 1}] }}]\n')
    assert bool(interacting_pairs(loads(text), {})) == paired


@pytest.mark.parametrize("name", each(["rim-lock", "cam", "feeder"]))
def test_scanning_the_boxes_finds_what_the_r_tree_finds(name, monkeypatch):
    """Regions at a point and regions meeting a box, by scanning every box (a space of up to
    SCAN_LIMIT regions) and from the R-tree: the same, at region corners and edges (on box
    sides) and at random."""
    from cspace.spaces import pairspace
    rng = np.random.default_rng(11)
    for pair in analyze(load(fixture_path(name))).pairs:
        d = pair.dimension
        corners = [v for region in pair.regions for v in region.vertices[:3]]
        points = corners + list(rng.uniform(-20, 20, (50, d)))
        boxes = [np.concatenate([p - w, p + w]) for p in points for w in (0.0, 0.3)]
        scanned = ([pair.regions_at(p, 1e-9) for p in points], [pair.candidates(list(b)) for b in boxes])
        monkeypatch.setattr(pairspace, "SCAN_LIMIT", -1)
        searched = ([pair.regions_at(p, 1e-9) for p in points], [pair.candidates(list(b)) for b in boxes])
        monkeypatch.undo()
        assert scanned == searched
        assert sum(map(len, scanned[0])) >= len(corners)


@pytest.mark.parametrize("dimension", [1, 2])
@pytest.mark.parametrize("count", [40, SCAN_LIMIT + 60])  # scanned, and through the R-tree
def test_the_regions_meeting_a_box_are_those_whose_boxes_meet_it(dimension, count):
    """The box scan (columns compared one by one) and the R-tree answer as the definition does,
    closed boxes included: boxes on a grid share edges and corners with the query's."""
    rng = np.random.default_rng(dimension * 1000 + count)
    lows = rng.integers(0, 20, size=(count, dimension)).astype(float)
    boxes = np.hstack([lows, lows + rng.integers(0, 4, size=(count, dimension))])  # some of zero width
    index = RegionIndex(tuple(SimpleNamespace(bbox=tuple(box)) for box in boxes), dimension)
    for _ in range(200):
        low = rng.integers(0, 22, size=dimension).astype(float) + rng.choice([0.0, 0.5], size=dimension)
        high = low + rng.choice([0.0, 1.0, 2.5], size=dimension)
        expected = [i for i, box in enumerate(boxes)
                    if all(box[k] <= high[k] and box[dimension + k] >= low[k] for k in range(dimension))]
        assert index.meeting(low, high) == expected
