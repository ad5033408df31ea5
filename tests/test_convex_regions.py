"""Pieces of cspace.spaces.convex_regions (and the trapezoids it cuts free space into) against plain
reference versions."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
import shapely

from cspace.kernels import trapezoids
from cspace.spaces.convex_regions import LabelledEdges, _first_least

from .common import seeds


def _label_one_at_a_time(stretches, reach, p, q):
    """The definition, one edge and one stretch at a time: of the labelled stretches within
    ``reach`` of the edge's middle (else the nearest ones), the first that runs least askew
    of the edge (rounded to a thousandth), then nearest."""
    kept = [(shapely.LineString(line), label) for line, label in stretches if label is not None and len(line) > 1]
    if not kept:
        return None
    middle = shapely.Point((p[0] + q[0]) / 2, (p[1] + q[1]) / 2)
    found = [k for k, (line, _) in enumerate(kept) if line.distance(middle) <= reach]
    if not found:
        nearest = min(line.distance(middle) for line, _ in kept)
        found = [k for k, (line, _) in enumerate(kept) if line.distance(middle) == nearest]
    direction = np.array([q[0] - p[0], q[1] - p[1]], float)
    direction /= max(np.hypot(*direction), 1e-300)
    best = label = None
    for k in found:
        line = kept[k][0]
        at = line.project(middle)
        step = max(line.length * 1e-6, 1.0)
        a, b = line.interpolate(max(at - step, 0.0)), line.interpolate(min(at + step, line.length))
        along = np.array([b.x - a.x, b.y - a.y])
        norm = np.hypot(*along)
        skew = abs(float(direction[0] * along[1] - direction[1] * along[0]) / norm) if norm > 0 else 1.0
        score = (round(skew, 3), line.distance(middle))
        if best is None or score < best:
            best, label = score, kept[k][1]
    return label


@pytest.mark.parametrize("seed", seeds(40, 4))
def test_edges_labelled_at_once_take_the_label_each_would_alone(seed):
    """Stretches on a small grid (parallel, crossing, equally near, twice over, one point long, unlabelled)
    and edges near and far from all of them: every edge's label, found all at once, is the
    one the definition gives it alone."""
    rng = np.random.default_rng(seed)
    stretches = []
    for k in range(int(rng.integers(0, 12))):
        points = np.cumsum(rng.integers(-3, 4, (int(rng.integers(1, 5)), 2)), axis=0) + rng.integers(-8, 8, 2)
        stretches.append((points.astype(np.int64), None if rng.random() < 0.15 else ((f"a{k}",), ("b",))))
        if rng.random() < 0.3:  # the same stretch under another name: equal scores, the first wins
            stretches.append((points.astype(np.int64), ((f"c{k}",), ("b",))))
    reach = float(rng.choice([0.5, 2.0, 4.0]))
    ends = rng.integers(-12, 12, (int(rng.integers(1, 30)), 2, 2))
    sides = [((int(p[0]), int(p[1])), (int(q[0]), int(q[1]))) for p, q in ends]
    found = LabelledEdges(stretches, reach).labels(sides)
    assert found == [_label_one_at_a_time(stretches, reach, p, q) for p, q in sides]


@pytest.mark.parametrize("seed", seeds(20, 4))
def test_an_edges_height_is_exact(seed):
    """A free polygon's edge height at a vertex abscissa (trapezoids._at): the exact fraction,
    an integer where it is one, equal and hashing alike either way."""
    rng = np.random.default_rng(seed)
    for _ in range(200):
        x0, y0, y1 = (int(v) for v in rng.integers(-10 ** 9, 10 ** 9, 3))
        x1 = x0 + int(rng.integers(1, 10 ** 6))
        y1 = y0 if rng.random() < 0.2 else y1
        x = int(rng.integers(x0, x1 + 1))
        found = trapezoids._at((x0, y0, x1, y1, None), x)
        exact = Fraction(y0) + Fraction((y1 - y0) * (x - x0), x1 - x0)
        assert found == exact and hash(found) == hash(exact)
        assert isinstance(found, int) == (exact.denominator == 1)


def _first_least_scanned(edge, skew, distance) -> list[int]:
    """The scan ``_first_least`` replaced: each edge keeps its first strictly better score."""
    best: dict[int, tuple] = {}
    for at, (i, sk, far) in enumerate(zip(edge.tolist(), skew.tolist(), distance.tolist())):
        score = (round(sk, 3), far)
        if i not in best or score < best[i][0]:
            best[i] = (score, at)
    return [best[i][1] for i in range(len(best))]


@pytest.mark.parametrize("seed", seeds(20, 4))
def test_each_edge_keeps_its_first_least_score(seed):
    """Skews that round alike (0.0014 and 0.0011), one that rounds apart from 0.0021 in Python
    (0.0025 to 0.003) but not in numpy's way (to 0.002), equal distances: the first of the
    least wins, as a scan keeps it."""
    rng = np.random.default_rng(seed)
    edge = np.sort(np.concatenate([np.arange(30), rng.integers(0, 30, 120)]))
    skew = rng.choice([0.0, 0.0011, 0.0014, 0.0021, 0.0025, 0.5, 1.0], len(edge))
    distance = rng.choice([0.0, 0.5, 1.0, 1.5], len(edge))
    assert _first_least(edge, skew, distance).tolist() == _first_least_scanned(edge, skew, distance)
