"""The compiled arithmetic of a pair's vertex contacts (cspace/kernels/turning_roots.pyx) against
the same statements in numpy (``contact_curves._plain_rotation_roots`` and
``_plain_translation_roots``), bit for bit."""

from __future__ import annotations

import doctest

import numpy as np
import pytest

from cspace.kernels import contact_curves
from cspace.kernels import turning_roots as kernel
from cspace.kernels.contact_curves import (
    _distance_range,
    _plain_rotation_roots,
    _plain_translation_roots,
    _rotation_roots,
    _Sides,
    _translation_roots,
)

from .common import seeds
from .support.shapes import random_polygon, rectilinear, rounded, shape_of


def _pair(seed: int):
    """Two shapes, placements and centres: boxes on a grid at quarter turns about grid points
    (roots that tie, graze, sit on ends and flat sides), star-shaped polygons anywhere,
    rounded boxes (arcs against edges and vertices on arcs)."""
    rng = np.random.default_rng(seed)
    count = int(rng.integers(1, 40))
    if seed % 3 == 0:
        a, b = shape_of(rectilinear(rng, 3)), shape_of(rectilinear(rng, 2))
        angle = rng.integers(0, 4, count) * (np.pi / 2)
        offset = rng.integers(-3, 4, (count, 2)).astype(float)
        center = offset + rng.integers(-1, 2, (count, 2))
    else:
        a = shape_of(random_polygon(rng, int(rng.integers(3, 14)), (0, 0), 2))
        b = shape_of(random_polygon(rng, int(rng.integers(3, 14)), (0, 0), 1.5))
        if seed % 3 == 2:
            a = rounded(int(rng.integers(1, 4)), int(rng.integers(1, 4)), 0.5)[0]
            b = rounded(int(rng.integers(0, 3)), int(rng.integers(0, 3)), float(rng.choice([0.25, 0.5])))[0]
        angle = rng.uniform(-3, 3, count)
        offset = rng.uniform(-2, 2, (count, 2))
        center = offset + rng.uniform(-1, 1, (count, 2))
    return a, b, angle, offset, center, int(rng.choice([-1, 1]))


def _same(found, expected) -> None:
    for name in ("k", "v", "feature", "change", "degenerate"):
        x, y = getattr(found, name), getattr(expected, name)
        assert x.dtype == y.dtype and x.shape == y.shape and x.tobytes() == y.tobytes(), name


@pytest.mark.parametrize("seed", seeds(60, 12))
def test_the_compiled_roots_are_numpys_bit_for_bit(seed):
    a, b, angle, offset, center, sign = _pair(seed)
    found = 0
    with np.errstate(**contact_curves.QUIET):
        for kind in (0, 1):
            sides = _Sides.of(a, b, angle, offset, kind)
            near, far = _distance_range(sides.e0, sides.ev, sides.ec, sides.er, center)
            roots = _rotation_roots(sides, center, sign, near, far)
            _same(roots, _plain_rotation_roots(sides, center, sign, near, far))
            found += len(roots.k)
    assert found or seed % 3 == 0                      # boxes on a grid may stay apart


@pytest.mark.parametrize("seed", seeds(60, 12))
def test_the_compiled_translation_roots_are_numpys_bit_for_bit(seed):
    """Sliding along the axes (boxes on a grid: runs along edges, vertices on vertices) or
    any direction; straight edges compiled, arcs in numpy, the roots in the same order."""
    a, b, angle, offset, _, _ = _pair(seed)
    rng = np.random.default_rng(seed + 1000)
    if seed % 3 == 0:
        d = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0], [0.0, -1.0]])[rng.integers(0, 4, len(angle))]
    else:
        turn = rng.uniform(-np.pi, np.pi, len(angle))
        d = np.stack([np.cos(turn), np.sin(turn)], axis=1)
    found = 0
    with np.errstate(**contact_curves.QUIET):
        for kind in (0, 1):
            sides = _Sides.of(a, b, angle, offset, kind)
            roots = _translation_roots(sides, d)
            _same(roots, _plain_translation_roots(sides, d))
            found += len(roots.k)
    assert found


def test_a_root_left_unsettled_by_the_kept_sides_is_settled_by_numpy(monkeypatch):
    """Where a flat side must be measured against every candidate's sides (``_flat``), the
    kernel gives no answer and the numpy statements settle the whole call."""
    a, b, angle, offset, center, sign = _pair(1)
    d = np.tile([[0.6, 0.8]], (len(angle), 1))
    with np.errstate(**contact_curves.QUIET):
        sides = _Sides.of(a, b, angle, offset, 0)
        near, far = _distance_range(sides.e0, sides.ev, sides.ec, sides.er, center)
        expected = _plain_rotation_roots(sides, center, sign, near, far), _plain_translation_roots(sides, d)
        monkeypatch.setattr(contact_curves, "classified", lambda *args: None)
        _same(_rotation_roots(sides, center, sign, near, far), expected[0])
        _same(_translation_roots(sides, d), expected[1])
    assert len(expected[0].k) and len(expected[1].k)


def _one(t: float, side_back: float, side_ahead: float, radius: float = 0.0):
    """``classified`` of one root on a straight edge of normal (1, 0) (or on an arc of
    ``radius`` about (-1, 0)), the mover unturned, its edges leaving along directions whose
    sides are the given ones."""
    one = np.zeros(1, np.intp)
    back = np.array([[[side_back, np.sqrt(max(0.0, 1 - side_back ** 2))]]])
    ahead = np.array([[[side_ahead, np.sqrt(max(0.0, 1 - side_ahead ** 2))]]])
    entering = np.array([radius >= 0], np.uint8)                 # as a turn's second root finds it
    return kernel.classified(np.array([t]), np.array([[0.0, 0.0]]), one, one, one, one, np.ones(1), np.zeros(1),
                             True, entering, np.zeros(1, np.uint8), np.array([[[1.0, 0.0]]]),
                             np.array([[[-1.0, 0.0]]]), np.array([radius]), back, ahead, contact_curves.ENDS,
                             1e-9 * (contact_curves.SIDE_BOUND + 1e-300))


def test_classified_counts_crossings_and_marks_degenerate_roots():
    on, change, degenerate = _one(0.5, 0.6, -0.6)
    assert (on.tolist(), change.tolist(), degenerate.tolist()) == ([0], [1], [False])
    on, change, degenerate = _one(0.5, 0.6, 0.6)                   # both edges leave outward: one crossing each
    assert (change.tolist(), degenerate.tolist()) == ([3], [False])
    assert _one(1 + 2e-9, 0.6, -0.6)[0].tolist() == []              # past the edge's end
    assert _one(1 + 1e-10, 0.6, -0.6)[2].tolist() == [True]         # at it: degenerate
    on, change, degenerate = _one(0.5, 0.0, -0.6)                  # a flat side: no crossing counted
    assert (change.tolist(), degenerate.tolist()) == ([-1], [True])
    on, change, degenerate = _one(0.5, np.nan, 0.6)                # NaN: no side, and no scale to be flat by
    assert (change.tolist(), degenerate.tolist()) == ([1], [False])
    assert _one(0.5, 1e-10, 1e-3) is None                           # flat only against every candidate's sides
    on, change, degenerate = _one(0.5, 0.6, -0.6, radius=-2.0)      # a concave arc: the root leaves
    assert (change.tolist(), degenerate.tolist()) == ([-1], [False])
    on, change, degenerate = _one(0.5, -0.6, -0.6, radius=-2.0)     # both edges leave the arc's material
    assert (change.tolist(), degenerate.tolist()) == ([-3], [False])


def test_the_docstring_examples_hold():
    """A compiled module's examples are not collected by --doctest-modules: run them here."""
    runner = doctest.DocTestRunner()
    for function in (kernel.sinusoid_terms, kernel.turned_points, kernel.moved_points, kernel.classified):
        for test in doctest.DocTestFinder().find(function, function.__name__, globs=vars(kernel)):
            runner.run(test)
    results = runner.summarize(verbose=False)
    assert (results.attempted, results.failed) == (16, 0)  # the examples' statements, all as shown
