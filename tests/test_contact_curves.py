"""Pieces of cspace.contact_curves against plain reference versions."""

from __future__ import annotations

import numpy as np
import pytest

from cspace import contact_curves
from cspace.contact_curves import _candidates, _pairs, translation_intervals

from .test_rotation import _random_polygon, _rectilinear, _shape


def _one_row_at_a_time(keys, lows, highs):
    order = np.argsort(keys, axis=1)
    ordered = np.take_along_axis(keys, order, 1)
    found = []
    for k in range(len(keys)):
        owner, at = _pairs(ordered[k], lows[k], highs[k])
        found += [(k, int(e), int(order[k][a])) for e, a in zip(owner, at)]
    return found


@pytest.mark.parametrize("seed", range(40))
def test_candidates_of_every_placement_at_once_are_those_of_each_alone(seed):
    """(placement, edge, vertex) triples with the vertex's key in the edge's [low, high], in
    the same order: keys on a coarse grid, so that many tie with the ends."""
    rng = np.random.default_rng(seed)
    count, vertices, edges = rng.integers(1, 30), rng.integers(1, 40), rng.integers(1, 40)
    keys = rng.integers(-5, 5, (count, vertices)) * 0.5
    lows = rng.integers(-6, 6, (count, edges)) * 0.5
    highs = lows + rng.integers(-1, 4, (count, edges)) * 0.5
    found = list(zip(*(x.tolist() for x in _candidates(keys, lows, highs))))
    assert found == _one_row_at_a_time(keys, lows, highs)


def _follow_every_placement(k, v, f, c, odd, bounds):
    return np.ones(len(bounds) - 1, bool), np.zeros((0, 5))


@pytest.mark.parametrize("seed", range(30))
def test_translation_runs_of_every_placement_at_once_are_those_followed_one_by_one(seed, monkeypatch):
    """The all-at-once runs of a translation (no direct test needed) against the count
    followed placement by placement: boxes on a grid (roots that tie and degenerate) and
    star-shaped polygons, at many placements."""
    rng = np.random.default_rng(seed)
    if seed % 2:
        a, b = _rectilinear(rng, 3), _rectilinear(rng, 2)
    else:
        a = _random_polygon(rng, int(rng.integers(3, 12)), (0, 0), 2)
        b = _random_polygon(rng, int(rng.integers(3, 12)), (0, 0), 1.5)
    count = 60
    angle = rng.integers(0, 4, count) * (np.pi / 2) if seed % 2 else rng.uniform(-3, 3, count)
    offset = rng.integers(-3, 4, (count, 2)).astype(float) if seed % 2 else rng.uniform(-2, 2, (count, 2))
    d = np.tile([[1.0, 0.0], [0.0, 1.0]], (count // 2, 1))
    at_once = translation_intervals(_shape(a), _shape(b), angle, offset, d)
    monkeypatch.setattr(contact_curves, "_plain_runs", _follow_every_placement)
    followed = translation_intervals(_shape(a), _shape(b), angle, offset, d)
    for name in ("lo", "hi", "lo_feature", "hi_feature", "count"):
        np.testing.assert_array_equal(getattr(at_once, name), getattr(followed, name))
    assert at_once.count.sum() > 0
