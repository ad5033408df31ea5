"""Points against polylines compiled (cspace/kernels/polylines.pyx) against shapely, bit for bit."""

from __future__ import annotations

import doctest

import numpy as np
import shapely
from hypothesis import given, settings
from hypothesis import strategies as st

from cspace.kernels import polylines as kernel
from cspace.kernels.polylines import interpolated, located

from .common import examples


def _packed(lines: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    starts = np.concatenate([[0], np.cumsum([len(line) for line in lines])]).astype(np.intp)
    return np.ascontiguousarray(np.concatenate(lines), float), starts


def _same(lines: list[np.ndarray], which: np.ndarray, points: np.ndarray) -> None:
    """Where along each line and how far each point is, and the points a little before and
    after, past the ends and at them, all as shapely finds them to the bit."""
    coords, starts = _packed(lines)
    geometries = np.array([shapely.linestrings(line) for line in lines], dtype=object)
    chosen, at_points = geometries[which], shapely.points(points)
    at, far = located(coords, starts, which, points[:, 0].copy(), points[:, 1].copy())
    assert np.array_equal(at, shapely.line_locate_point(chosen, at_points))
    assert np.array_equal(far, shapely.distance(chosen, at_points))
    length = shapely.length(chosen)
    for where in (at, np.maximum(at - 1.0, 0.0), np.minimum(at + 1.0, length), length, length * 2, 0 * at,
                  length * 0.37):
        expected = shapely.get_coordinates(shapely.line_interpolate_point(chosen, where))
        assert np.array_equal(interpolated(coords, starts, which, where), expected)


def test_random_lines_and_points():
    rng = np.random.default_rng(3)
    for _ in range(40):
        lines = [np.cumsum(rng.normal(0, 10, (rng.integers(2, 60), 2)), axis=0) for _ in range(rng.integers(1, 6))]
        which = rng.integers(0, len(lines), 200).astype(np.intp)
        points = rng.normal(0, 40, (200, 2))
        _same(lines, which, points)


def test_long_arcs_on_a_grid_as_the_labels_meet_them():
    """Stretches as a Geneva wheel's arcs at a fine tolerance: thousands of short chords,
    grid-sized coordinates, points near the arc (the middles of the grown outline's edges)."""
    rng = np.random.default_rng(8)
    turn = np.linspace(0.2, 2.9, 1900)
    arc = np.round(np.stack([4e5 * np.cos(turn), 4e5 * np.sin(turn)], axis=1))
    line = np.round(np.stack([np.linspace(-3e5, 3e5, 300), np.full(300, 1e5)], axis=1))
    near = arc[rng.integers(0, len(arc), 500)] + rng.normal(0, 300, (500, 2))
    points = np.concatenate([near, np.round(near), rng.normal(0, 3e5, (100, 2))])
    which = rng.integers(0, 2, len(points)).astype(np.intp)
    _same([arc, line], which, points)


@st.composite
def _degenerate(draw):
    """Few values, so that vertices repeat (segments of no length), points fall on vertices
    and segments, and nearest segments tie."""
    values = st.sampled_from([-2.0, -1.0, -0.0, 0.0, 0.5, 1.0, 3.0])
    lines = [np.array(draw(st.lists(st.tuples(values, values), min_size=2, max_size=7)), float)
             for _ in range(draw(st.integers(1, 3)))]
    points = np.array(draw(st.lists(st.tuples(values, values), min_size=1, max_size=8)), float)
    which = np.array(draw(st.lists(st.integers(0, len(lines) - 1), min_size=len(points), max_size=len(points))),
                     np.intp)
    return lines, which, points


@settings(max_examples=examples(300), deadline=None)
@given(_degenerate())
def test_repeated_vertices_ties_and_points_on_the_line(case):
    _same(*case)


def test_no_points():
    coords, starts = _packed([np.array([[0.0, 0.0], [1.0, 0.0]])])
    none = np.zeros(0, np.intp)
    assert [x.shape for x in located(coords, starts, none, np.zeros(0), np.zeros(0))] == [(0,), (0,)]
    assert interpolated(coords, starts, none, np.zeros(0)).shape == (0, 2)


def test_the_docstring_examples_hold():
    """A compiled module's examples are not collected by --doctest-modules: run them here."""
    runner = doctest.DocTestRunner()
    finder = doctest.DocTestFinder()
    for function in (located, interpolated):
        for test in finder.find(function, function.__name__, globs=vars(kernel)):
            runner.run(test)
    results = runner.summarize(verbose=False)
    assert (results.attempted, results.failed) == (5, 0)
