"""Pieces of cspace.contact_curves against plain reference versions."""

from __future__ import annotations

import numpy as np
import pytest

from cspace.contact_curves import _candidates, _pairs


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
