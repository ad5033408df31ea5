"""Pieces of cspace.kernels.contact_curves against plain reference versions."""

from __future__ import annotations

import doctest

import numpy as np
import pytest
import shapely
from shapely.geometry import Point

from cspace.kernels import contact_curves
from cspace.kernels import placements
from cspace.kernels.contact_curves import candidate_triples, sorted_pairs, translation_intervals
from cspace.kernels.placements import placed_copies

from .common import seeds
from .support.shapes import random_polygon, rectilinear, rounded, shape_of


def _one_row_at_a_time(keys, lows, highs):
    order = np.argsort(keys, axis=1)
    ordered = np.take_along_axis(keys, order, 1)
    found = []
    for k in range(len(keys)):
        owner, at = sorted_pairs(ordered[k], lows[k], highs[k])
        found += [(k, int(e), int(order[k][a])) for e, a in zip(owner, at)]
    return found


@pytest.mark.parametrize("seed", seeds(40, 4))
def test_candidates_of_every_placement_at_once_are_those_of_each_alone(seed):
    """(placement, edge, vertex) triples with the vertex's key in the edge's [low, high], in
    the same order: keys on a coarse grid, so that many tie with the ends."""
    rng = np.random.default_rng(seed)
    count, vertices, edges = rng.integers(1, 30), rng.integers(1, 40), rng.integers(1, 40)
    keys = rng.integers(-5, 5, (count, vertices)) * 0.5
    lows = rng.integers(-6, 6, (count, edges)) * 0.5
    highs = lows + rng.integers(-1, 4, (count, edges)) * 0.5
    found = list(zip(*(x.tolist() for x in candidate_triples(keys, lows, highs))))
    assert found == _one_row_at_a_time(keys, lows, highs)


@pytest.mark.parametrize("seed", seeds(20, 4))
def test_candidates_beside_edges_out_of_play_are_those_of_each_placement_alone(seed):
    """Edges out of play at every placement (an empty range: infinite, reversed, not a number, as
    a turning arc's kind 1 marks arcs) are left out of the all-at-once search, and edges in play
    at some placements only keep theirs: the same triples, in the same order."""
    rng = np.random.default_rng(seed)
    count, vertices, edges = rng.integers(1, 20), rng.integers(1, 30), rng.integers(2, 30)
    keys = rng.integers(-5, 5, (count, vertices)) * 0.5
    lows = rng.integers(-6, 6, (count, edges)) * 0.5
    highs = lows + rng.integers(0, 4, (count, edges)) * 0.5
    out = rng.random(edges) < 0.4
    lows[:, out] = rng.choice([np.inf, np.nan, 3.0], (count, int(out.sum())))
    highs[:, out] = rng.choice([-np.inf, np.nan, 1.0], (count, int(out.sum())))
    if seed % 2:  # out of play at some placements: not all at once
        lows[rng.random(count) < 0.5, np.flatnonzero(~out)[:1]] = np.inf
    found = list(zip(*(x.tolist() for x in candidate_triples(keys, lows, highs))))
    assert found == _one_row_at_a_time(keys, lows, highs)


@pytest.mark.parametrize("seed", seeds(40, 4))
def test_flat_sides_are_measured_against_every_candidates_largest(seed):
    """A kept root's side is flat within 1e-9 of the largest side of every candidate, kept or
    not, though only the kept ones' sides are computed but where they cannot settle it: sides
    (products of unit vectors) whose largest is small, some between the kept ones' and the
    bound's thresholds, some not."""
    rng = np.random.default_rng(seed)
    count, kept = int(rng.integers(1, 60)), int(rng.integers(1, 20))
    top = 10.0 ** rng.uniform(-4, 0)
    every = [rng.uniform(-top, top, count) * (10.0 ** -rng.integers(0, 14, count)) for _ in range(2)]
    every[int(rng.integers(2))][int(rng.integers(count))] = rng.choice([top, -top, 1.0, 0.0])
    at = rng.integers(0, count, kept)
    sides = [s[at] for s in every]
    calls = []

    def all_sides():
        calls.append(1)
        return every

    scale = 1e-9 * (np.abs(np.concatenate(every)).max() + 1e-300)
    expected = (np.abs(sides[0]) <= scale) | (np.abs(sides[1]) <= scale)
    np.testing.assert_array_equal(contact_curves._flat(sides, all_sides), expected)
    undecided = np.abs(np.concatenate(sides))
    undecided = undecided[(undecided > 1e-9 * (undecided.max() + 1e-300)) & (undecided <= 1e-9 * (1 + 1e-12))]
    assert len(calls) == (1 if len(undecided) else 0)


def _placed_pair(seed: int, spread: float, count: int = 60):
    """Two shapes and ``count`` placements: odd seeds boxes on a grid at quarter turns and
    whole offsets (roots that tie, degenerate and sit on ends), even ones star-shaped
    polygons anywhere within ``spread``."""
    rng = np.random.default_rng(seed)
    if seed % 2:
        a, b = rectilinear(rng, 3), rectilinear(rng, 2)
        return (rng, shape_of(a), shape_of(b), rng.integers(0, 4, count) * (np.pi / 2),
                rng.integers(-3, 4, (count, 2)).astype(float))
    a = random_polygon(rng, int(rng.integers(3, 12)), (0, 0), 2)
    b = random_polygon(rng, int(rng.integers(3, 12)), (0, 0), 1.5)
    return rng, shape_of(a), shape_of(b), rng.uniform(-3, 3, count), rng.uniform(-spread, spread, (count, 2))


def _assert_same(found, expected) -> None:
    for name in ("lo", "hi", "lo_feature", "hi_feature", "count"):
        np.testing.assert_array_equal(getattr(found, name), getattr(expected, name))


@pytest.mark.parametrize("seed", seeds(30, 4))
def test_the_sides_of_every_candidate_hold_the_kept_ones(seed, monkeypatch):
    """A flat side is measured against every candidate root's largest side, asked for only
    where the kept roots' sides cannot settle it (``contact_curves._flat``). Asked for at every
    classification, every candidate's sides hold the kept ones' own and give the same
    intervals: boxes on a grid at quarter turns (flat sides, ties), star-shaped polygons and
    rounded boxes (arcs), turning and sliding. The compiled classification is left out: the
    numpy statements it stands for are what ask (tests/test_turning_roots.py holds the two equal)."""
    rng, a, b, angle, offset = _placed_pair(seed, 2)
    if seed % 3 == 0:
        b = rounded(int(rng.integers(1, 3)), int(rng.integers(1, 3)), 0.5)[0]
    center = offset + rng.integers(-1, 2, offset.shape)
    d = np.tile([[1.0, 0.0], [0.0, 1.0]], (len(angle) // 2, 1))
    found = (contact_curves.rotation_intervals(a, b, angle, offset, center, 1),
             translation_intervals(a, b, angle, offset, d))
    asked = []

    def always(sides, every):
        whole = every()
        asked.append(len(whole[0]))
        for kept, all_ in zip(sides, whole):
            assert np.isin(kept, all_).all()
        scale = 1e-9 * (np.abs(np.concatenate(whole)).max(initial=0.0) + 1e-300)
        return (np.abs(sides[0]) <= scale) | (np.abs(sides[1]) <= scale)

    monkeypatch.setattr(contact_curves, "_flat", always)
    monkeypatch.setattr(contact_curves, "classified", lambda *args: None)
    _assert_same(found[0], contact_curves.rotation_intervals(a, b, angle, offset, center, 1))
    _assert_same(found[1], translation_intervals(a, b, angle, offset, d))
    assert asked and sum(found[0].count) + sum(found[1].count) > 0


def _follow_every_placement(k, v, f, c, odd, bounds):
    return np.ones(len(bounds) - 1, bool), np.zeros((0, 5))


@pytest.mark.parametrize("seed", seeds(30, 4))
def test_translation_runs_of_every_placement_at_once_are_those_followed_one_by_one(seed, monkeypatch):
    """The all-at-once runs of a translation (no direct test needed) against the count
    followed placement by placement: boxes on a grid (roots that tie and degenerate) and
    star-shaped polygons, at many placements."""
    rng, a, b, angle, offset = _placed_pair(seed, 2)
    d = np.tile([[1.0, 0.0], [0.0, 1.0]], (len(angle) // 2, 1))
    at_once = translation_intervals(a, b, angle, offset, d)
    monkeypatch.setattr(contact_curves, "plain_runs", _follow_every_placement)
    _assert_same(at_once, translation_intervals(a, b, angle, offset, d))
    assert at_once.count.sum() > 0


@pytest.mark.parametrize("seed", seeds(20, 4))
def test_turning_against_only_the_vertices_within_reach_finds_what_all_of_them_find(seed, monkeypatch):
    """B, small, turning about centres along a short arc beside A, a disc with a ring of
    convex teeth: the contacts sought only among A's vertices within B's reach are all of them."""
    rng = np.random.default_rng(seed)
    teeth = [shapely.MultiPoint(rng.uniform(-1, 1, (6, 2)) + [6 * np.cos(t), 6 * np.sin(t)]).convex_hull
             for t in np.linspace(0, 2 * np.pi, 12, endpoint=False)]
    a = shape_of(shapely.union_all(teeth + [Point(0, 0).buffer(6.5, quad_segs=4)]))
    b = shape_of(random_polygon(rng, int(rng.integers(3, 12)), (0, 0), 1.5))
    count = 40
    turn = rng.uniform(-0.2, 0.2, count)
    center = np.stack([7.5 * np.cos(turn), 7.5 * np.sin(turn)], axis=1)
    angle, offset = rng.uniform(-3, 3, count), center + rng.uniform(-0.1, 0.1, (count, 2))
    sign = int(rng.choice([-1, 1]))
    kept = contact_curves.vertices_within_reach(a, b, angle, offset, center)
    assert kept is not None and len(kept) < len(a.vertices) / 2
    some = contact_curves.rotation_intervals(a, b, angle, offset, center, sign)
    monkeypatch.setattr(contact_curves, "vertices_within_reach", lambda *args: None)
    _assert_same(some, contact_curves.rotation_intervals(a, b, angle, offset, center, sign))
    assert some.count.sum() > 0


def _follow_every_turn(k, v, f, c, odd, bounds, start, overlaps):
    return np.ones(len(bounds) - 1, bool), np.zeros((0, 5))


@pytest.mark.parametrize("seed", seeds(30, 4))
def test_turning_runs_of_every_placement_at_once_are_those_followed_one_by_one(seed, monkeypatch):
    """The all-at-once runs of a turn (one direct test per placement, all together) against
    the count followed placement by placement: boxes on a grid turning by quarter turns
    (roots that tie, degenerate and sit on the start) and star-shaped polygons."""
    rng, a, b, angle, offset = _placed_pair(seed, 3)
    center = offset + (rng.integers(-1, 2, offset.shape) if seed % 2 else rng.uniform(-1, 1, offset.shape))
    sign = 1 if seed % 4 < 2 else -1
    at_once = contact_curves.rotation_intervals(a, b, angle, offset, center, sign)
    monkeypatch.setattr(contact_curves, "turned_runs", _follow_every_turn)
    _assert_same(at_once, contact_curves.rotation_intervals(a, b, angle, offset, center, sign))
    assert at_once.count.sum() > 0


def _starts_one_by_one(roots, K):
    order = np.lexsort((roots.v, roots.k))
    k_all, v_all = roots.k[order], roots.v[order]
    bounds = np.searchsorted(k_all, np.arange(K + 1))
    start = np.zeros(K)
    for k in range(K):
        values = v_all[bounds[k]:bounds[k + 1]]
        if len(values):
            gaps = np.diff(np.append(values, values[0] + 2 * np.pi))
            g = int(np.argmax(gaps))
            start[k] = contact_curves.wrapped_angles(values[g] + gaps[g] / 2)
    return start


@pytest.mark.parametrize("seed", seeds(20, 4))
def test_start_values_of_every_placement_at_once_are_those_of_each_alone(seed):
    """Half way across the first widest gap: roots on a coarse grid (ties, equal gaps,
    placements with none or one)."""
    rng = np.random.default_rng(seed)
    K, n = int(rng.integers(1, 12)), int(rng.integers(0, 40))
    roots = contact_curves._Roots(rng.integers(0, K, n), rng.integers(-6, 6, n) * 0.5, np.arange(n),
                                  np.ones(n, int), np.zeros(n, bool))
    np.testing.assert_array_equal(contact_curves.start_values(roots, K), _starts_one_by_one(roots, K))


@pytest.mark.parametrize("seed", seeds(40, 4))
def test_turning_runs_at_once_equal_followed_on_any_counts(seed, monkeypatch):
    """Roots of any changes (so counts that dip below the start, ends that disagree), any
    start values and a direct test that answers at random (the same for the same question):
    each placement's runs as the count followed one by one finds them."""
    rng = np.random.default_rng(seed)
    K, n = int(rng.integers(1, 15)), int(rng.integers(0, 60))
    roots = contact_curves._Roots(rng.integers(0, K, n), rng.integers(-12, 12, n) * (np.pi / 12) + 0.01,
                                  rng.integers(0, 50, n), rng.choice([-2, -1, 1, 2], n), rng.random(n) < 0.05)
    start = rng.uniform(-np.pi, np.pi, K)
    answers: dict[tuple[int, float], bool] = {}

    def overlaps(ks, values):
        return np.array([answers.setdefault((int(k), float(x)), bool(rng.random() < 0.5))
                         for k, x in zip(ks, values)], bool)

    at_once = contact_curves.blocked_intervals(roots, K, start, True, overlaps)
    monkeypatch.setattr(contact_curves, "turned_runs", _follow_every_turn)
    _assert_same(at_once, contact_curves.blocked_intervals(roots, K, start, True, overlaps))


@pytest.mark.parametrize("seed", seeds(40, 4))
def test_roots_in_placement_order_are_in_lexsort_order(seed):
    """By placement, value, then feature, equals as they come, as np.lexsort orders them:
    values on a coarse grid (ties, signed zeros, not-a-number), placements that fit 16 bits
    and placements that do not."""
    rng = np.random.default_rng(seed)
    for _ in range(20):
        n = int(rng.integers(0, 80))
        k = rng.integers(0, int(rng.choice([4, 40_000])), n)
        grid = np.array([0.0, -0.0, 1.0, -2.5, 3.0, np.nan, 0.5])
        v = rng.choice(grid, n) if seed % 2 else rng.uniform(-3, 3, n)
        feature = rng.integers(0, 6, n)
        np.testing.assert_array_equal(contact_curves.placement_order(k, v), np.lexsort((v, k)))
        np.testing.assert_array_equal(contact_curves.placement_order(k, v, feature), np.lexsort((feature, v, k)))
        plain = contact_curves.placement_order(k, v)
        np.testing.assert_array_equal(contact_curves.placement_order(k, v, feature, plain), np.lexsort((feature, v, k)))


@pytest.mark.parametrize("seed", seeds(20, 4))
def test_dot_products_are_einsums_to_the_bit(seed):
    """contact_curves._dot sums two products from zero as np.einsum does: the same numbers to
    the bit, signed zeros, infinities and nans alike, for rows of points and for points over
    placements against one point per placement."""
    rng = np.random.default_rng(seed)
    special = np.array([0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, 1e-300, -1e300, 3.5])

    def bits(x):
        return np.where(np.isnan(x), 0, x.view(np.int64)), np.isnan(x)

    for shape in ((int(rng.integers(1, 50)), 2), (int(rng.integers(1, 9)), int(rng.integers(1, 9)), 2)):
        p = np.where(rng.random(shape) < 0.3, rng.choice(special, shape), rng.normal(size=shape))
        q = np.where(rng.random(shape) < 0.3, rng.choice(special, shape), rng.normal(size=shape))
        p[(0,) * (len(shape) - 1)], q[(0,) * (len(shape) - 1)] = (-0.0, 1.0), (1.0, -0.0)  # -0 + -0: einsum's +0
        with np.errstate(all="ignore"):
            found, expected = contact_curves._dot(p, q), np.einsum("...x,...x->...", p, q)
        for mine, theirs in zip(bits(found), bits(expected)):
            np.testing.assert_array_equal(mine, theirs)
    K, n = int(rng.integers(1, 6)), int(rng.integers(1, 9))
    points, side = rng.normal(size=(K, n, 2)), rng.normal(size=(K, 2))
    np.testing.assert_array_equal(contact_curves._dot(points, side[:, None, :]).view(np.int64),
                                  np.einsum("kvx,kx->kv", points, side).view(np.int64))


def _placed_repeated(coords, c, s, offset):
    """The numpy statements the compiled ``placed_copies`` replaced: every placement repeated for each point."""
    n = len(coords) // len(c)
    x, y = coords.T
    cc, ss = np.repeat(c, n), np.repeat(s, n)
    return np.stack([cc * x + (-ss) * y + np.repeat(offset[:, 0], n),
                     ss * x + cc * y + np.repeat(offset[:, 1], n)]).T


@pytest.mark.parametrize("count, n", [(1, 1), (1, 7), (5, 3), (40, 130)])
def test_placed_copies_are_the_repeated_statements_to_the_bit(count, n):
    rng = np.random.default_rng(count * 1000 + n)
    angle = rng.uniform(-np.pi, np.pi, count)
    c, s = np.cos(angle), np.sin(angle)
    offset = rng.normal(0, 50, (count, 2))
    coords = np.tile(rng.normal(0, 10, (n, 2)), (count, 1))
    special = np.array([0.0, -0.0, 1e-300, -1e308, 1e308, np.inf, np.nan])     # signed zeros, overflow, inf, NaN
    coords.flat[rng.integers(0, coords.size, min(coords.size, 7))] = special[:min(coords.size, 7)]
    c[0], s[-1] = -0.0, 0.0
    with np.errstate(invalid="ignore", over="ignore"):                       # inf times zero, 1e308 doubled
        found = placed_copies(coords, c, s, offset)
        expected = _placed_repeated(coords, c, s, offset)
    assert found.shape == (count * n, 2)
    assert np.array_equal(found, expected, equal_nan=True)
    assert np.array_equal(np.signbit(found), np.signbit(expected))


def test_placed_copies_of_nothing_and_its_example():
    assert placed_copies(np.zeros((0, 2)), np.zeros(0), np.zeros(0), np.zeros((0, 2))).shape == (0, 2)
    runner = doctest.DocTestRunner()                 # a compiled module's examples are not collected
    for test in doctest.DocTestFinder().find(placed_copies, "placed_copies", globs=vars(placements)):
        runner.run(test)
    results = runner.summarize(verbose=False)
    assert (results.attempted, results.failed) == (2, 0)
