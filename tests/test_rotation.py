"""Pairs in which a part turns: contact curves, pair spaces and the fixtures' closed forms.

Oracles independent of the code under test: shapely overlap of the real shapes (arcs
finely sampled) and each fixture's closed-form kinematics from its header.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pyclipper
import pytest
import shapely
from shapely import affinity
from shapely.geometry import Polygon, box

from cspace import ModelError, TraceError, analyze, describe, load, loads, trace
from cspace.kernels.contact_curves import Shape, place, rotation_intervals, translation_intervals
from cspace.model.checks import overlap_depth
from cspace.spaces import rotation
from cspace.testing import NOT_BLOCKED, OVERLAP, Scene, replay

from .common import ROOT, analyzed, each, fixture_path, seeds, slow, traced
from .support.oracles import contact_edges_overlapping
from .support.shapes import agree, blocked_at, random_polygon, rectilinear, rounded, shape_of

ROTATING = ["eccentric-cam", "lever", "ratchet", "geneva", "gears"]


# -- closed-form contact curves against shapely ---------------------------------------------

@pytest.mark.parametrize("seed", seeds(40, 4))
def test_contact_curves_give_the_blocked_values_of_concave_shapes_with_holes(seed):
    rng = np.random.default_rng(seed)
    a = random_polygon(rng, int(rng.integers(3, 12)), (0, 0), 2)
    b = random_polygon(rng, int(rng.integers(3, 12)), rng.uniform(-4, 4, 2), 1.5)
    if seed % 3 == 0:
        a = a.difference(box(-0.3, -0.3, 0.3, 0.3))
    angle, offset = np.array([rng.uniform(-3, 3)]), rng.uniform(-1, 1, (1, 2))
    placed = Polygon(place(np.array(b.exterior.coords[:-1]), angle, offset)[0])
    d = rng.normal(size=2)
    d /= np.linalg.norm(d)
    found = translation_intervals(shape_of(a), shape_of(b), angle, offset, d[None])
    ts = np.linspace(-15, 15, 1501)
    truth = np.array([a.intersection(affinity.translate(placed, t * d[0], t * d[1])).area > 1e-9 for t in ts])
    assert agree(truth, blocked_at(found, 0, ts, False), ts, found, 0.03)
    centre, sign = rng.uniform(-3, 3, (1, 2)), int(rng.choice([-1, 1]))
    found = rotation_intervals(shape_of(a), shape_of(b), angle, offset, centre, sign)
    vs = np.linspace(-np.pi, np.pi, 1001, endpoint=False)
    truth = np.array([a.intersection(affinity.rotate(placed, sign * v, origin=tuple(centre[0]), use_radians=True)).area
                      > 1e-9 for v in vs])
    assert agree(truth, blocked_at(found, 0, vs, True), vs, found, 0.01)


@pytest.mark.parametrize("seed", seeds(60, 8))
def test_contact_curves_of_rectilinear_shapes_on_integer_points(seed):
    """Degenerate on purpose: vertices meet vertices, edges slide along edges."""
    rng = np.random.default_rng(seed)
    a, b = rectilinear(rng, 3), rectilinear(rng, 2)
    offset = rng.integers(-2, 3, (1, 2)).astype(float)
    d = np.array([[1.0, 0.0]]) if seed % 2 else np.array([[0.0, 1.0]])
    found = translation_intervals(shape_of(a), shape_of(b), np.zeros(1), offset, d)
    placed = affinity.translate(b, *offset[0])
    ts = np.linspace(-12.05, 12.05, 483)
    truth = np.array([a.intersection(affinity.translate(placed, t * d[0, 0], t * d[0, 1])).area > 1e-9 for t in ts])
    assert np.array_equal(truth, blocked_at(found, 0, ts, False))
    centre = rng.integers(-2, 3, (1, 2)).astype(float)
    found = rotation_intervals(shape_of(a), shape_of(b), np.zeros(1), offset, centre, 1)
    vs = np.linspace(-np.pi, np.pi, 721, endpoint=False) + 1e-3
    truth = np.array([a.intersection(affinity.rotate(placed, v, origin=tuple(centre[0]), use_radians=True)).area
                      > 1e-9 for v in vs])
    assert agree(truth, blocked_at(found, 0, vs, True), vs, found, 0.01)


def _arc_edge(p: np.ndarray, q: np.ndarray, sweep: float, convex: bool) -> tuple[float, float, float]:
    """Centre and signed radius of an arc from p to q turning by ``sweep``: bulging out of
    the material (on the left of p -> q) when convex, into it when not."""
    half = np.linalg.norm(q - p) / 2
    left = np.array([-(q - p)[1], (q - p)[0]]) / (2 * half)
    centre = (p + q) / 2 + (left if convex else -left) * half / np.tan(sweep / 2)
    radius = half / np.sin(sweep / 2)
    return centre[0], centre[1], radius if convex else -radius


def _on_arc(p: np.ndarray, q: np.ndarray, arc: tuple[float, float, float], count: int = 400) -> list[np.ndarray]:
    """Points strictly inside an arc edge, on the circle (the oracle's geometry)."""
    centre, radius = np.array(arc[:2]), arc[2]
    a0 = np.arctan2(*(p - centre)[::-1])
    a1 = np.arctan2(*(q - centre)[::-1])
    sweep = ((a1 - a0) if radius > 0 else (a0 - a1)) % (2 * np.pi)
    angles = a0 + np.sign(radius) * np.linspace(0, sweep, count)[1:-1]
    return list(centre + abs(radius) * np.stack([np.cos(angles), np.sin(angles)], 1))


def _arc_shape(points: np.ndarray, arcs: np.ndarray) -> tuple[Shape, Polygon]:
    """A shape with arc edges and its real outline in shapely, the arcs finely sampled."""
    n = len(points)
    ring = []
    for i in range(n):
        ring.append(points[i])
        if arcs[i, 2]:
            ring.extend(_on_arc(points[i], points[(i + 1) % n], tuple(arcs[i])))
    return Shape.of([(points, ("v",) * n, (("e",),) * n, arcs)]), Polygon(ring)


def _random_arc_shape(rng, centre, radius: float, disk: bool) -> tuple[Shape, Polygon]:
    """A star-shaped polygon with some edges bulging out and some dented in, or a disk."""
    if disk:
        angles = np.arange(4) * np.pi / 2 + rng.uniform(0, 1)
        points = np.stack([centre[0] + 0.6 * radius * np.cos(angles), centre[1] + 0.6 * radius * np.sin(angles)], 1)
        return _arc_shape(points, np.array([[centre[0], centre[1], 0.6 * radius]] * 4))
    n = int(rng.integers(3, 9))
    angles = np.sort(rng.uniform(0, 2 * np.pi, n))
    radii = radius * rng.uniform(0.5, 1.0, n)
    points = np.stack([centre[0] + radii * np.cos(angles), centre[1] + radii * np.sin(angles)], 1)
    arcs = np.array([[np.nan, np.nan, 0.0]] * n)
    for i, kind in enumerate(rng.integers(0, 3, n)):
        sweep = rng.uniform(0.2, 1.5)
        if kind:
            arcs[i] = _arc_edge(points[i], points[(i + 1) % n], sweep, kind == 1)
    return _arc_shape(points, arcs)


def _agree_touching(truth: np.ndarray, mine: np.ndarray, touching: np.ndarray, values, intervals, width) -> bool:
    """As :func:`_agree`, either answer accepted where the parts touch without overlapping:
    the direct tests flatten arcs outward, so a contact held over a stretch may be blocked."""
    return agree(truth, np.where(touching & ~truth, truth, mine), values, intervals, width)


@pytest.mark.parametrize("seed", seeds(40, 4))
def test_contact_curves_of_shapes_with_arcs(seed):
    """Vertex on arc, arc tangent to a line and arc tangent to an arc (convex and concave)."""
    rng = np.random.default_rng(seed)
    a, real_a = _random_arc_shape(rng, (0, 0), 2, False)
    while not real_a.is_valid:  # dents may cross the outline: draw again
        a, real_a = _random_arc_shape(rng, (0, 0), 2, False)
    b, real_b = _random_arc_shape(rng, rng.uniform(-4, 4, 2), 1.5, seed % 4 == 0)
    while not real_b.is_valid:
        b, real_b = _random_arc_shape(rng, rng.uniform(-4, 4, 2), 1.5, False)
    angle, offset = np.array([rng.uniform(-3, 3)]), rng.uniform(-1, 1, (1, 2))
    c, s = np.cos(angle[0]), np.sin(angle[0])
    placed = affinity.affine_transform(real_b, (c, -s, s, c, *offset[0]))
    d = rng.normal(size=2)
    d /= np.linalg.norm(d)
    found = translation_intervals(a, b, angle, offset, d[None])
    ts = np.linspace(-15, 15, 1501)
    truth = np.array([real_a.intersection(affinity.translate(placed, t * d[0], t * d[1])).area > 1e-9 for t in ts])
    assert agree(truth, blocked_at(found, 0, ts, False), ts, found, 0.03)
    centre, sign = rng.uniform(-3, 3, (1, 2)), int(rng.choice([-1, 1]))
    found = rotation_intervals(a, b, angle, offset, centre, sign)
    vs = np.linspace(-np.pi, np.pi, 1001, endpoint=False)
    truth = np.array([real_a.intersection(affinity.rotate(placed, sign * v, origin=tuple(centre[0]), use_radians=True))
                      .area > 1e-9 for v in vs])
    assert agree(truth, blocked_at(found, 0, vs, True), vs, found, 0.01)


@pytest.mark.parametrize("seed", seeds(40, 4))
def test_contact_curves_of_rounded_shapes_on_integer_points(seed):
    """Degenerate on purpose: straight faces meeting arcs tangentially, turns about an arc's centre."""
    rng = np.random.default_rng(seed)
    a = rectilinear(rng, 3)
    b, real_b = rounded(int(rng.integers(2, 4)), int(rng.integers(2, 4)), 0.5 * int(rng.integers(1, 3)))
    offset = rng.integers(-2, 3, (1, 2)).astype(float)
    d = np.array([[1.0, 0.0]]) if seed % 2 else np.array([[0.0, 1.0]])
    placed = affinity.translate(real_b, *offset[0])
    ts = np.linspace(-12.05, 12.05, 483)
    moved = [affinity.translate(placed, t * d[0, 0], t * d[0, 1]) for t in ts]
    found = translation_intervals(shape_of(a), b, np.zeros(1), offset, d)
    truth = np.array([a.intersection(m).area > 1e-12 for m in moved])
    touching = np.array([a.distance(m) < 1e-5 for m in moved])
    assert _agree_touching(truth, blocked_at(found, 0, ts, False), touching, ts, found, 0.03)
    centre = rng.integers(-2, 3, (1, 2)).astype(float)
    vs = np.linspace(-np.pi, np.pi, 721, endpoint=False) + 1e-3
    for turning_b in (True, False):
        if turning_b:
            found = rotation_intervals(shape_of(a), b, np.zeros(1), offset, centre, 1)
            moved = [affinity.rotate(placed, v, origin=tuple(centre[0]), use_radians=True) for v in vs]
            fixed = a
        else:
            found = rotation_intervals(b, shape_of(a), np.zeros(1), offset, centre, -1)
            moved = [affinity.rotate(affinity.translate(a, *offset[0]), -v, origin=tuple(centre[0]), use_radians=True)
                     for v in vs]
            fixed = real_b
        truth = np.array([fixed.intersection(m).area > 1e-12 for m in moved])
        touching = np.array([fixed.distance(m) < 1e-5 for m in moved])
        assert _agree_touching(truth, blocked_at(found, 0, vs, True), touching, vs, found, 0.01)


@pytest.mark.parametrize("name, arc", [pytest.param(name, arc, marks=slow) for name, arc in
                                       [("geneva", None), ("eccentric-cam", None), ("gears", 1e-6)]])
def test_arcs_made_again_lie_on_the_drawn_profiles(name, arc):
    """Every arc edge the builder makes from a flattened outline lies on the part as drawn
    (shapely, arcs sampled within 1e-9 of the size): its centre and radius are the arc's
    own, its ends where the profile runs. The gears at arc 1e-6 flatten each flank's five
    arcs, all one face, into 8 facets or more, so they are made arcs too."""
    from cspace.model.geometry import region_of
    from cspace.spaces.turning import Rotating

    text = fixture_path(name).read_text()
    mechanism = loads(text + f"\n[tolerance]\narc = {arc}\n" if arc else text)
    builder = Rotating(mechanism)
    tol = mechanism.tolerance
    made = 0
    for part in mechanism.parts:
        if not any(mechanism.coordinate(c).is_angle for c in part.coordinates):
            continue
        for index, slice_ in enumerate(part.slices):
            exact = builder.exact(part.name, index, builder.shape(part, index))
            drawn = region_of(slice_.profiles, 1e-9 * tol.size, mechanism.origin).boundary
            for i in exact.arcs:
                centre, radius = exact.centers[i], exact.radii[i]
                start = exact.vertices[i] - centre
                end = exact.vertices[exact.following[i]] - centre
                sweep = np.remainder(np.sign(radius) * (np.arctan2(end[1], end[0]) - np.arctan2(start[1], start[0])),
                                     2 * np.pi)
                angles = np.arctan2(start[1], start[0]) + np.sign(radius) * sweep * np.linspace(0, 1, 9)
                points = centre + abs(radius) * np.stack([np.cos(angles), np.sin(angles)], 1)
                assert shapely.distance(drawn, shapely.points(points)).max() <= 10 * tol.quantum + 1e-9 * tol.size
                made += 1
    assert made >= 4


def test_flattened_arcs_are_made_arcs_again():
    """The Geneva crank's pin (a circle) becomes four quarter arcs about its centre and its
    locking disk's rim quarter arcs about the pivot; every arc's ends lie on its circle."""
    from cspace.spaces.turning import Rotating
    mechanism = load(fixture_path("geneva"))
    builder = Rotating(mechanism)
    crank = mechanism.part("crank")
    flat = builder.shape(crank, 0)
    exact = builder.exact("crank", 0, flat)
    assert len(flat.vertices) > 100 and len(exact.vertices) == len(exact.arcs) == 10
    pin = [i for i in exact.arcs if exact.edge_faces[i] == ("pin.rim",)]
    assert len(pin) == 4 and np.allclose(np.abs(exact.radii[pin]), 0.5)
    assert np.allclose(exact.centers[pin], [7.071067811865 - mechanism.origin[0], -mechanism.origin[1]])
    for i in exact.arcs:
        for end in (exact.vertices[i], exact.vertices[exact.following[i]]):
            assert abs(np.hypot(*(end - exact.centers[i])) - abs(exact.radii[i])) <= mechanism.tolerance.length
        sweep = np.arctan2(*(exact.vertices[exact.following[i]] - exact.centers[i])[::-1]) - np.arctan2(
            *(exact.vertices[i] - exact.centers[i])[::-1])
        assert abs(np.remainder(sweep + np.pi, 2 * np.pi) - np.pi) <= np.pi / 2 + 1e-9


# -- pair spaces of the fixtures: their regions, and the real parts -------------------------

def _rotating_pairs(name: str):
    analysis = analyze(load(fixture_path(name)))
    return analysis, _turning(analysis)


def _turning(analysis) -> list:
    """An analysis's pairs in which a part turns."""
    return [p for p in analysis.pairs if p.periods or any(analysis.mechanism.coordinate(c).is_angle
                                                          for c in p.coordinates)]


@pytest.mark.parametrize("name", each(ROTATING))
def test_every_facet_lies_on_its_row_and_every_region_holds_its_corners(name):
    analysis, pairs = _rotating_pairs(name)
    tol = analysis.mechanism.tolerance.length
    assert pairs
    for pair in pairs:
        for region in pair.regions:
            assert np.all(region.rows @ region.vertices.T <= region.bounds[:, None] + tol)
            for edge in region.edges:
                row, bound = region.rows[edge.row], region.bounds[edge.row]
                for end in (edge.start, edge.end):
                    assert abs(row @ np.array(end) - bound) <= tol, (pair.name, region.name, edge)


def _pose(pair, analysis, point: np.ndarray) -> dict[str, float]:
    values = dict(zip((c.name for c in analysis.mechanism.coordinates), analysis.initial.tolist()))
    for k, name in enumerate(pair.coordinates):
        values[name] = float(point[k] / pair.matrix[k, k])
    return values


@pytest.mark.parametrize("name", each(["lever", "eccentric-cam", "ratchet", "geneva"]))
def test_free_configurations_never_overlap_and_blocked_ones_touch_within_the_bound(name):
    """Brute force: random configurations of each pair; where the pair space calls one free,
    the real shapes do not overlap deeper than the length tolerance; where it calls one
    blocked, the real shapes are no farther apart than the arc tolerance."""
    analysis, pairs = _rotating_pairs(name)
    mechanism = analysis.mechanism
    tol = mechanism.tolerance
    scene = Scene(mechanism)
    rng = np.random.default_rng(7)
    for pair in pairs:
        # One turn of a wrapping axis (the regions repeat beyond), the regions' extent elsewhere.
        lows = np.array([-p / 2 if p else min(r.vertices[:, k].min() for r in pair.regions)
                         for k, p in enumerate(pair.periods)])
        highs = np.array([p / 2 if p else max(r.vertices[:, k].max() for r in pair.regions)
                          for k, p in enumerate(pair.periods)])
        for _ in range(300):
            point = lows + rng.uniform(0, 1, pair.dimension) * (highs - lows)
            shapes = scene.place(_pose(pair, analysis, point))
            a = shapely.union_all([s for (part, _), s in shapes.items() if part == pair.part_a])
            b = shapely.union_all([s for (part, _), s in shapes.items() if part == pair.part_b])
            if pair.regions_at(point, tol.length):
                assert overlap_depth(a, b) <= tol.length, (pair.name, point)
            else:
                assert a.distance(b) <= tol.arc or a.intersection(b).area > 0, (pair.name, point)


# -- the fixtures, against their closed forms -------------------------------------------------

def _samples(result, names: tuple[str, ...]) -> np.ndarray:
    index = [result.mechanism.coordinate_index[n] for n in names]
    return np.array([q[index] for _, _, q in result.samples()])


@slow
def test_the_eccentric_cams_follower_rides_its_sinusoid():
    """Disk of radius 3 about (1, 0), turning about the origin: yf = 3 + sin th, the
    follower never leaving the cam (every segment after it lands touches it)."""
    result = traced("eccentric-cam")
    th, yf = _samples(result, ("th", "yf")).T
    touching = th != th[0]
    error = np.abs(yf[touching] - (3 + np.sin(th[touching])))
    assert error.max() <= result.mechanism.tolerance.arc
    assert all(s.first.contacts for s in result.segments[1:])
    assert [s.end for s in result.segments[1:-1]] == ["yf reverses"] * (len(result.segments) - 2)
    assert len(result.segments) == 6  # lands, then rise, fall, rise, fall, rise: two turns


@slow
def test_the_eccentric_cam_drawn_touching_starts_touching():
    """The follower drawn resting on the cam (yf = 3, the way anyone draws it) starts a
    little above, where the turning pair's grown blocked space leaves it, and rides the
    sinusoid from the first instant; the rest of the description is the fixture's."""
    drawn = fixture_path("eccentric-cam").read_text().replace("initial = 3.01", "initial = 3")
    analysis = analyze(loads(drawn))
    [moved] = analysis.settled
    assert moved.coordinate == "yf" and 0 < moved.start - 3 <= analysis.mechanism.tolerance.support_probe
    result = trace(analysis)
    th, yf = _samples(result, ("th", "yf")).T
    assert np.abs(yf - (3 + np.sin(th))).max() <= result.mechanism.tolerance.arc
    assert replay(result) == []
    fixture = describe(traced("eccentric-cam")).split("\n\n")
    assert describe(result).split("\n\n")[1:] == [s.replace(f"segment {k + 2}:", f"segment {k + 1}:")
                                                  for k, s in enumerate(fixture[1:])][1:]


def test_the_lever_pushes_the_block_along_its_closed_form_and_leaves_it():
    result = traced("lever")
    a, xb = _samples(result, ("a", "xb")).T
    pushing = (a > math.atan(7 / 24) + 0.01) & (a < math.atan(4 / 3) - 0.01)
    bound = result.mechanism.tolerance.arc
    assert np.abs(xb[pushing] - (9 * np.sin(a[pushing]) + 0.5 * np.cos(a[pushing]))).max() <= bound
    assert np.all(np.abs(xb[a < math.atan(7 / 24) - 0.01] - 3) <= bound)
    assert abs(xb[-1] - 7.5) <= bound and a[-1] == pytest.approx(1.5)
    first, push, last = result.segments
    assert push.first.contacts and not last.first.contacts
    assert push.start[0] == pytest.approx(math.atan(7 / 24), abs=1e-3)
    assert last.start[0] == pytest.approx(math.atan(4 / 3), abs=1e-2)
    assert result.segments[-1].end == "input blocked"


@slow
def test_the_ratchets_pawl_drops_once_per_tooth_and_catches_going_back():
    """Ten drops in the forward turn, each where the tip passes a tooth's tip (w = 0.330235
    + j pi/5); driven back, the input is blocked at w = 5.926109 (the root corner)."""
    result = traced("ratchet")
    drops = [s for s in result.segments if s.first.phase == "external" and
             s.finish[1] - s.start[1] > 0.05]
    assert len(drops) == 10
    w_at = sorted(s.start[0] for s in drops)
    expected = [0.330235 + j * math.pi / 5 for j in range(10)]
    assert np.abs(np.array(w_at) - expected).max() <= 0.01
    backward = [s for s in result.segments if s.first.phase == "input" and s.first.motion == 1]
    assert backward and backward[-1].end == "input blocked"
    assert backward[-1].finish[0] == pytest.approx(5.926109, abs=0.01)


def _geneva_wheel(a: np.ndarray) -> np.ndarray:
    """The fixture header's closed form: w(a) over two turns from a = pi."""
    lam = math.sin(math.pi / 4)
    out = np.empty_like(a)
    for n, value in enumerate(a):
        k = math.ceil((value - math.pi) / (2 * math.pi))  # a = alpha + 2 pi k, alpha in (-pi, pi]
        alpha = value - 2 * math.pi * k
        if abs(alpha) <= math.pi / 4:
            beta = math.atan2(lam * math.sin(alpha), 1 - lam * math.cos(alpha))
            out[n] = -(2 * k - 1) * math.pi / 4 - beta
        else:
            out[n] = -(k - 1) * math.pi / 2 if alpha < 0 else -k * math.pi / 2
    return out


@slow
def test_the_geneva_wheel_turns_a_quarter_per_crank_turn_as_tan_beta_says():
    result = traced("geneva")
    a, w = _samples(result, ("a", "w")).T
    unwrapped = np.unwrap(w)
    expected = _geneva_wheel(a)
    # The clearances: the wheel may lag asin(0.01 / s) (0.0034 at mid-engagement), and the pin
    # meets the wall up to 0.053 rad of crank late; the tolerance on top.
    assert np.abs(unwrapped - expected).max() <= 0.005 + 0.06 * 2.4142
    assert unwrapped[-1] == pytest.approx(-math.pi, abs=0.005)
    w_index = result.mechanism.coordinate_index["w"]
    moving = [s for s in result.segments if abs(s.finish[w_index] - s.start[w_index]) > 1e-6]
    assert len(moving) == 2 and all(s.first.contacts for s in moving)


@slow
def test_the_gears_turn_at_their_ratio_within_the_backlash():
    result = traced("gears")
    t1, t2 = _samples(result, ("t1", "t2")).T
    expected = 0.002777778 - (12 / 18) * np.unwrap(t1)
    assert np.abs(np.unwrap(t2) - expected).max() <= 0.005556 + 1e-3


@pytest.mark.parametrize("name", each(ROTATING))
def test_rotating_fixtures_replay_clean(name):
    assert replay(traced(name)) == []


# -- blocked outlines: cleaned within their distance, their contact edges out of the parts ---------

def _dense_outline(seed: int) -> tuple[list[list[int]], float]:
    """A closed outline on the grid through thousands of points of a smooth closed curve (as a
    turning pair's grown contact curves are), and a cleaning distance far above their spacing."""
    rng = np.random.default_rng(seed)
    t = np.linspace(0, 2 * np.pi, int(rng.integers(2000, 6000)), endpoint=False)
    lobes, phase, depth = int(rng.integers(2, 6)), rng.uniform(0, 2 * np.pi), rng.uniform(0.05, 0.3)
    radius = 1e6 * (1 + depth * np.sin(lobes * t + phase))
    ring = np.round(np.stack([radius * np.cos(t), radius * np.sin(t)], 1)).astype(np.int64)
    return ring.tolist(), float(rng.uniform(50, 500))


def _strays(ring: list[list[int]], cleaned: list[list[int]]) -> float:
    """How far the outline's points lie from its cleaned outline, at most."""
    return float(shapely.distance(shapely.LinearRing(cleaned), shapely.points(ring)).max())


@pytest.mark.parametrize("seed", seeds(12, 4))
def test_a_cleaned_outline_stays_within_the_cleaning_distance_and_keeps_no_closer_vertices(seed):
    """The blocked outlines are grown by the cleaning distance before they are cleaned, so
    the cleaning may move them no farther (they must hold every blocked configuration)."""
    ring, clean = _dense_outline(seed)
    (out,) = rotation.cleaned([ring], clean)
    assert _strays(ring, out) <= clean
    closed = np.array(out + out[:1], float)
    assert np.hypot(*np.diff(closed, axis=0).T).min() > clean
    assert len(out) < len(ring) / 4  # it does clean


@pytest.mark.parametrize("seed", seeds(12, 4))
def test_the_chords_measured_together_are_those_measured_one_by_one(seed):
    """rotation._close_chords gives each chord :func:`rotation._deviation`'s answer: on random
    grid rings with repeated points (chords of no length), collinear runs, clean distances
    at a measured deviation exactly, and coordinates too large for their products to be exact."""
    rng = np.random.default_rng(seed)
    for scale in (3, 1000, 2 ** 40):
        n = int(rng.integers(3, 60))
        ring = rng.integers(-scale, scale, (n, 2))
        ring[rng.random(n) < 0.2] = ring[0]
        ring[1:4] = ring[1] + np.arange(3)[:, None] * (ring[1] - ring[0] + 1)  # collinear: deviation 0
        at = np.sort(rng.choice(n, int(rng.integers(1, n + 1)), replace=False))
        lengths = (np.roll(at, -1) - at) % n
        lengths[lengths == 0] = n
        deviations = [rotation._deviation(ring[np.arange(i, i + m + 1) % n]) for i, m in zip(at, lengths)]
        for clean in (0.0, float(rng.uniform(0, scale)), *deviations[:3]):
            expected = [d <= clean for d in deviations]
            assert rotation._close_chords(ring, at, lengths, clean).tolist() == expected


def test_pyclippers_cleaning_alone_strays_far_beyond_its_distance():
    """The check above fails on pyclipper's CleanPolygon, which cspace used alone: its
    vertex-by-vertex removals compound along a densely sampled curve."""
    ring, clean = _dense_outline(0)
    assert _strays(ring, pyclipper.CleanPolygon(ring, clean)) > 10 * clean


def _at_arc(name: str, arc: float):
    """A fixture's analysis at ``[tolerance] arc``."""
    return analyze(replace(load(fixture_path(name)), tolerance_factors=(("arc", arc),)))


def _old_cleaning(rings: list, clean: float) -> list:
    """The cleaning as it was: pyclipper's CleanPolygons alone (its error compounds)."""
    return [p for p in pyclipper.CleanPolygons(rings, clean) if len(p) >= 3]


@pytest.mark.parametrize("name", each(ROTATING))
def test_the_contact_edges_of_turning_pairs_lie_out_of_the_real_parts(name):
    analysis, pairs = _rotating_pairs(name)
    for pair in pairs:
        assert contact_edges_overlapping(analysis, pair) == []


def test_at_an_arc_tolerance_of_1e6_the_lever_keeps_its_contact_edges_and_its_path_out_of_the_block():
    """There the cleaning distance (four length tolerances) is five times the blocked outline's
    last growth (``curve / 4``): a cleaning whose error compounds cut 2.3e-4 into the block, and
    the bar's corner pushed it from 2.2e-5 inside (the length tolerance is 2.8e-6)."""
    analysis = _at_arc("lever", 1e-6)
    (pair,) = _turning(analysis)
    assert contact_edges_overlapping(analysis, pair) == []
    assert replay(trace(analysis)) == []


def test_the_contact_edge_oracle_and_the_replay_find_the_lever_in_the_block_with_the_old_cleaning(monkeypatch):
    monkeypatch.setattr(rotation, "cleaned", _old_cleaning)
    analysis = _at_arc("lever", 1e-6)
    (pair,) = _turning(analysis)
    assert max((depth for _, _, depth in contact_edges_overlapping(analysis, pair)), default=0.0) > 1e-4
    assert any(v.kind == OVERLAP for v in replay(trace(analysis)))


@slow
def test_the_geneva_drive_at_fine_arc_tolerances_replays_clean():
    """At arc 2e-6 the replay found the pin 1.5e-5 inside the wheel (and 1.4e-4 at 1e-6): the
    same compounding cleaning, along the slots' walls. Its wheel stops where the pin leaves,
    at the engagements' ends (the pushed wheel's play at the mouth, 9.4e-5 s of crank, beyond)."""
    result = trace(_at_arc("geneva", 2e-6))
    assert replay(result) == []
    w = result.mechanism.coordinate_index["w"]
    stops = [s.start_time for s, before in zip(result.segments[1:], result.segments) if before.first.signs[w]
             and not s.first.signs[w]]
    assert stops == pytest.approx([5 * math.pi / 4, 13 * math.pi / 4], abs=2e-4)


def _at_length(name: str, length: float):
    """A fixture's analysis at ``[tolerance] length`` (the cache off: the code under test changes)."""
    return analyze(replace(load(fixture_path(name)), tolerance_factors=(("length", length),)))


@slow
def test_the_geneva_drive_at_a_fine_length_tolerance_turns_its_wheel_to_the_end(monkeypatch):
    """At length 1e-8 the trace stopped in the first engagement, its input blocked (t = 3.288),
    where the real shapes let the crank on: a short edge of the pin's contact curve on the slot
    wall (3e-6 tall, slope 1.9) leaned less than the cleaning distance and was stood upright,
    a wall across the path. Now the wheel turns a quarter per engagement and stops where the
    pin leaves (as at the default tolerances), and the replay finds no false jam."""
    monkeypatch.setenv("CSPACE_CACHE", "off")
    result = trace(_at_length("geneva", 1e-8))
    assert result.end_reason == "time allotment used"
    assert replay(result) == []
    w = result.mechanism.coordinate_index["w"]
    stops = [s.start_time for s, before in zip(result.segments[1:], result.segments) if before.first.signs[w]
             and not s.first.signs[w]]
    assert stops == pytest.approx([5 * math.pi / 4, 13 * math.pi / 4], abs=2e-4)


@slow
def test_the_replay_catches_the_false_jam_of_an_edge_stood_upright(monkeypatch):
    """The oracle taught by that bug (cspace.testing.unblocked): with every short edge stood
    upright again (the code as it was), the replay says the input was blocked where the real
    shapes let the crank turn on, the wheel moving out of its way."""
    monkeypatch.setenv("CSPACE_CACHE", "off")
    monkeypatch.setattr(rotation, "UPRIGHT", 0)
    result = trace(_at_length("geneva", 1e-8))
    assert result.end_reason == "input blocked"
    (violation,) = replay(result)
    assert violation.kind == NOT_BLOCKED and violation.coordinate == "a"
    assert "said blocked" in str(violation)


@pytest.mark.parametrize("seed", [97, pytest.param(90, marks=slow), pytest.param(337, marks=slow)])
def test_a_cam_turns_its_follower_over_the_seam(seed, monkeypatch):
    """Generated cams (tests/data/seam) whose follower is pushed as the cam's angle crosses
    pi, where the blocked outline meets its copy from across the seam. It met a hair inside
    the cell's side, leaving a dent 1.6e-6 deep (seed 97) or a region 8e-8 wide (seed 90)
    there, or its two sides differed by 1.9e-5 (seed 337), and the input was said blocked.
    With the vertices near a wrapping side moved onto it (rotation.onto_sides) and each side
    blocked where the other is, ramped (rotation.seams_met), the cam turns on and the replay
    finds no false jam; without the two, it does."""
    monkeypatch.setenv("CSPACE_CACHE", "off")
    path = ROOT / "tests" / "data" / "seam" / f"cam-{seed}.toml"
    result = trace(analyze(load(path)))
    assert result.end_reason == "time allotment used"
    assert replay(result) == []
    for fix in ("onto_sides", "seams_met"):
        monkeypatch.setattr(rotation, fix, lambda rings, cell, wraps, snap: rings)
    assert NOT_BLOCKED in {v.kind for v in replay(trace(analyze(load(path))))}


def test_a_cells_sides_are_blocked_alike_and_ramped_where_they_were_not():
    """A cell (wrapping along its first axis) whose blocked floor stands 40 grid steps higher
    at its right side than at its left: after seams_met both sides are blocked over the same
    stretch, the floor at the left side rises to the right side's with a slope of a tenth, and
    nothing blocked before is freed."""
    cell = (0, -1000, 10_000, 1000)
    floor = np.array([(0, -1000), (10_000, -1000), (10_000, 40), (0, 0)], np.int64)
    (met,) = rotation.seams_met([floor], cell, [True, False], 4.0)
    shape, before = shapely.Polygon(met), shapely.Polygon(floor)

    def side(x):
        cut = shape.intersection(shapely.LineString([(x, -2000), (x, 2000)]))
        return sorted(np.asarray(cut.coords)[:, 1].tolist())

    assert side(0) == side(10_000) == [-1000, 40]
    assert shape.contains(before.buffer(-1e-6))
    added = shape.difference(before)
    assert added.bounds[3] <= 40
    beyond = added.intersection(shapely.box(10 * 40 + 1, -2000, 10_000, 2000))  # past the ramp: rounding only
    assert beyond.is_empty or before.hausdorff_distance(before.union(beyond)) <= 1
    top_at = shape.intersection(shapely.LineString([(200, -2000), (200, 2000)])).bounds[3]
    assert 18 <= top_at <= 22  # halfway along the ramp, about halfway up


def test_a_bar_turning_against_a_stop_is_blocked_where_it_touches():
    """A one-axis pair: a bar on a pivot turns clockwise into a fixed stop. Where the input
    is blocked the real bar and stop are within the arc tolerance, and a little further
    round they would overlap (shapely)."""
    text = """
[mechanism]
time = 3
[[parts]]
name = "stop"
motion = "fixed"
[[parts.slices]]
z = [0, 1]
profiles = [{ rect = [-1, -3, 1, -2] }]
[[parts]]
name = "bar"
motion = "fixed-axes"
coordinates = [{ name = "a", pivot = [0, 0] }]
[[parts.slices]]
z = [0, 1]
profiles = [{ rect = [0, -0.25, 4, 0.25] }]
[[inputs]]
velocities = { a = -1.0 }
sampling = 0.1
"""
    mechanism = loads(text, source="stop.toml")
    result = trace(analyze(mechanism))
    a = result.segments[-1].finish[0]
    bar = Polygon([(0, -0.25), (4, -0.25), (4, 0.25), (0, 0.25)])
    stop = box(-1, -3, 1, -2)
    assert result.segments[-1].end == "input blocked"
    assert affinity.rotate(bar, a, origin=(0, 0), use_radians=True).distance(stop) <= mechanism.tolerance.arc
    assert affinity.rotate(bar, a - 0.01, origin=(0, 0), use_radians=True).intersection(stop).area > 0


@pytest.mark.parametrize("name", each(ROTATING))
def test_no_segment_is_a_ripple_of_the_grown_corners(name):
    """Every segment that ends with a coordinate reversing moved it by more than its ripple
    (the arc tolerance over its part's reach): a part riding over a grown corner of blocked
    space is not described as rising and falling again."""
    result = traced(name)
    ripple = analyzed(name).ripple
    names = [c.name for c in result.mechanism.coordinates]
    for segment in result.segments:
        for event in segment.end.split("; "):
            if event.endswith(" reverses"):
                j = names.index(event.split()[0])
                assert abs(segment.finish[j] - segment.start[j]) > ripple[j], (segment.index, event)


def test_neighbouring_elements_may_share_a_face_name_but_others_may_not():
    """A face drawn as several arcs (an involute flank) keeps one name; two faces apart may not."""
    base = """
[[parts]]
name = "p"
motion = "fixed"
[[parts.slices]]
z = [0, 1]
[[parts.slices.profiles]]
path = [[0, 0], [2, 0], [2, 1], [1, 2], [0, 1], [0, 0]]
faces = {faces}
"""
    shape = loads(base.format(faces='["bottom", "side", "side", "top", "left"]'))
    assert [e.name for e in shape.parts[0].slices[0].profiles[0].elements] == ["bottom", "side", "side", "top", "left"]
    with pytest.raises(ModelError, match="face names must differ"):
        loads(base.format(faces='["bottom", "side", "top", "side", "left"]'))


RESTING_BAR = """
[mechanism]
time = 1
[[parts]]
name = "frame"
motion = "fixed"
[[parts.slices]]
z = [0, 1]
profiles = [{{ name = "stop", rect = [3, {top}, 4, 2] }}]
[[parts]]
name = "bar"
motion = "fixed-axes"
coordinates = [{{ name = "t", pivot = [0, 0], initial = 0 }}]
[[parts.slices]]
z = [0, 1]
profiles = [{{ rect = [-0.5, -0.5, 5, 0.5] }}]
[[forces]]
kind = "torque"
coordinate = "t"
direction = 1
"""


def test_a_turning_pair_drawn_touching_starts_touching():
    """A bar drawn resting on a stop (its top face, 0.5 from the pivot, on the stop's
    bottom): the turning pair's blocked space is grown to bound its arc tolerance, so the
    drawn start lies in it. The bar (loaded by a torque, driven by no input) starts where
    the pair space holds it, turned back by no more than the gap the growth can leave
    (``turning_gap`` over its reach), the move reported; the torque keeps it there. Drawn
    that far apart, it traces to the same place (the torque closes the gap)."""
    touching = analyze(loads(RESTING_BAR.format(top=0.5)))
    reach = math.hypot(5, 0.5)
    gap = touching.mechanism.tolerance.turning_gap
    [moved] = touching.settled
    assert (moved.coordinate, moved.drawn, moved.pair) == ("t", 0.0, ("frame", "bar"))
    assert -gap / reach <= moved.start < 0
    result = trace(touching)
    assert replay(result) == []
    apart = trace(analyze(loads(RESTING_BAR.format(top=0.5 + 1.5 * gap))))
    assert analyze(loads(RESTING_BAR.format(top=0.5 + 1.5 * gap))).settled == ()
    # The bar's top face (0.5 from the pivot) meets the stop's far corner (4, top) first.
    assert result.segments == ()  # nothing moves: the torque holds the bar on the stop
    for top, turned in ((0.5, touching.initial[0]), (0.5 + 1.5 * gap, float(apart.segments[-1].finish[0]))):
        meets = math.acos(0.5 / math.hypot(4, top)) - math.atan2(4, top)
        assert meets - gap / 4 - 1e-9 <= turned <= meets + 1e-9


def test_a_turning_pair_that_really_overlaps_is_refused():
    """Drawn overlapping by more than any growth can explain, the start is refused, naming
    the pair (by the real shapes' overlap check, before any pair space is built)."""
    with pytest.raises(ModelError, match=r"parts 'frame' and 'bar'.*initial configuration"):
        analyze(loads(RESTING_BAR.format(top=0.45)))


def _slide_release_errors(seed: int) -> list[str]:
    from .support.fuzz import SeededDraw, released_rotation, turning_release_errors

    case = released_rotation(SeededDraw(seed), "slide")
    try:
        result = trace(analyze(loads(case.text)))
    except TraceError as error:
        return [str(error)]
    return turning_release_errors(result, case) + [str(v) for v in replay(result)]


def _neighbours_extent(sides, k):
    """The vertical side's extent where its neighbours in order meet it: wrong when a cut
    across the region stands beside the floor it replaces (the code as it was)."""
    from fractions import Fraction

    (a, _, c), _ = sides[k]
    x = Fraction(c, a)
    ys = [(r - p * x) / q for (p, q, r), _ in (sides[k - 1], sides[(k + 1) % len(sides)]) if q != 0]
    return (min(ys), max(ys)) if len(ys) == 2 else (Fraction(0), Fraction(0))


@pytest.mark.parametrize("seed, mutant", [(3, "leaning"), pytest.param(7, "leaning", marks=slow),
                                          pytest.param(0, "unlabelled", marks=slow)])
def test_a_bar_is_released_when_the_stop_holding_it_slides_away(seed, mutant, monkeypatch):
    """A stop sliding along the face it holds a bar with: the contact keeps one angle while
    the stop moves, a vertical curve in the pair space. Its grown outline leaned a hair, so
    the cut through its end ran the whole height of the free space just short of it, a wall
    free along its length, and the bar stayed held after the stop had gone ("leaning"). Stood
    upright, the wall is cut where the contact ends; its piece along the contact went
    unlabelled where the cut stood beside the floor it replaced, and the bar could not move
    at all ("unlabelled"). Fixed, the bar is released when the closed form says."""
    from cspace.kernels import trapezoids
    from cspace.spaces import rotation

    assert _slide_release_errors(seed) == []
    if mutant == "leaning":
        monkeypatch.setattr(rotation, "stood_upright", lambda rings, cell, snap: rings)
    else:
        monkeypatch.setattr(trapezoids, "side_extent", _neighbours_extent)
    assert _slide_release_errors(seed) != []



def _face(mechanism, part: str, name: str, values: dict):
    """The named face of a part's first slice as a line (arcs by their end points), placed at
    the coordinate values with the replay's own posing, relative to the mechanism's origin."""
    scene = Scene(mechanism)
    angle, dx, dy, pivot = scene.pose(part, values)
    ox, oy = mechanism.origin
    elements = [e for p in mechanism.part(part).slices[0].profiles for e in p.elements if e.name == name]
    line = shapely.MultiLineString([[(e.start[0] - ox, e.start[1] - oy), (e.end[0] - ox, e.end[1] - oy)]
                                    for e in elements])
    return affinity.translate(affinity.rotate(line, angle, origin=pivot, use_radians=True), dx, dy)


@slow
def test_the_pawl_wedged_in_a_root_corner_touches_both_faces_and_neither_deeper():
    """Driven back, the ratchet's input is blocked with the pawl's tip in the root corner,
    between flank 0 and the next tooth's locking face: on the real shapes the pawl is within
    the turning bound of both faces and overlaps neither."""
    result = traced("ratchet")
    mechanism = result.mechanism
    blocked = [s for s in result.segments if s.first.phase == "input" and s.end == "input blocked"][-1]
    assert blocked.finish[0] == pytest.approx(5.926109, abs=0.01)  # driven back (not the forward turn's limit)
    values = dict(zip([c.name for c in mechanism.coordinates], map(float, blocked.finish)))
    pawl = Scene(mechanism).place(values, {"pawl"})[("pawl", 0)]
    wheel = Scene(mechanism).place(values, {"wheel"})[("wheel", 0)]
    bound = mechanism.tolerance.turning_gap + mechanism.tolerance.length
    for face in ("flank0", "lock1"):
        assert pawl.distance(_face(mechanism, "wheel", face, values)) <= bound, face
    assert overlap_depth(pawl, wheel, mechanism.tolerance.quantum) <= mechanism.tolerance.length


@slow
def test_the_geneva_pin_enters_and_leaves_by_the_driving_wall_never_catching_a_mouth():
    """The pin passes the slots' mouths with 0.0085 to spare: every contact of the trace is
    the pin on a slot's driving wall, none on a mouth's tip or the locking arcs; each
    engagement begins with the pin on the wall it pushes and at no sample is the pin
    closer to a mouth's tips than touching."""
    result = traced("geneva")
    contacts = {str(c) for s in result.segments for c in s.first.contacts}
    assert contacts == {"crank.pin.rim/wheel.slot1.right", "crank.pin.rim/wheel.slot2.right"}
    mechanism = result.mechanism
    names = [c.name for c in mechanism.coordinates]
    scene = Scene(mechanism)
    closest = math.inf
    for _, _, q in result.samples():
        values = dict(zip(names, map(float, q)))
        pin = next(shape for (part, _), shape in scene.place(values, {"crank"}).items() if part == "crank")
        for k in range(1, 5):
            for side in ("right-tip", "left-tip"):
                closest = min(closest, pin.distance(_face(mechanism, "wheel", f"slot{k}.{side}", values)))
    assert closest >= 0.0
    assert closest < 0.05  # it does pass close: the test looks where it matters


def test_turning_parts_that_can_never_overlap_make_no_pair_or_one_that_imposes_nothing():
    """A lever turning inside a turning ring, clear of it at every pair of angles (found
    building the shoe brake): their swept regions (the ring, the lever's disk) are apart,
    so they make no pair. A small block sliding on a diagonal past the lever's disk is
    within its box, so they make a pair, but it has no blocked space to draw, which
    raised pyclipper's 'All paths are invalid for clipping'. Both trace."""
    ring = """
[mechanism]
time = 6.283185307179586

[[parts]]
name = "ring"
motion = "fixed-axes"
coordinates = [{ name = "d", pivot = [0, 0] }]

[[parts.slices]]
z = [0, 1]
profiles = [{ circle = [0, 0], radius = 11 }, { circle = [0, 0], radius = 10 }]

[[parts]]
name = "lever"
motion = "fixed-axes"
coordinates = [{ name = "c", pivot = [0, 7] }]

[[parts.slices]]
z = [0, 1]
profiles = [{ rect = [-1.6, 6.7, 1.6, 7.3] }]

[[inputs]]
velocities = { d = 1.0, c = -1.0 }
sampling = 0.5
"""
    analysis = analyze(loads(ring))
    assert analysis.pairs == ()
    assert trace(analysis).end_reason == "time allotment used"
    diagonal = """
[mechanism]
time = 3

[[parts]]
name = "lever"
motion = "fixed-axes"
coordinates = [{ name = "c", pivot = [0, 0] }]

[[parts.slices]]
z = [0, 1]
profiles = [{ rect = [-1.6, -0.2, 1.6, 0.2] }]

[[parts]]
name = "block"
motion = "fixed-axes"
coordinates = [{ name = "s", axis = [1, -1], limits = [-1, 1] }]

[[parts.slices]]
z = [0, 1]
profiles = [{ rect = [1.2, 1.2, 1.3, 1.3] }]

[[inputs]]
velocities = { c = 1.0, s = 0.5 }
sampling = 0.5
"""
    analysis = analyze(loads(diagonal))
    (pair,) = analysis.pairs
    assert pair.blocked == ()
    result = trace(analysis)
    assert result.segments[-1].end_time == pytest.approx(2.0)  # the block's limit blocks the shared input
    assert replay(result) == []
