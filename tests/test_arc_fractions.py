"""The compiled arithmetic of a point's fraction along an arc (cspace/kernels/arc_fractions.pyx)
against the same statements in numpy (``contact_curves._plain_arc_fraction``), bit for bit."""

from __future__ import annotations

import doctest
import math

import numpy as np
import pytest

from cspace.kernels import arc_fractions as kernel
from cspace.kernels import contact_curves
from cspace.kernels.contact_curves import _arc_fraction, _plain_arc_fraction


def _same_bits(x: np.ndarray, y: np.ndarray) -> None:
    assert x.dtype == y.dtype and x.shape == y.shape and x.tobytes() == y.tobytes()


def _points(rng, n: int):
    """Points, centres and starts from a few numbers (signed zeros, a point on its centre or
    its start, directions a multiple of a quarter turn apart: angles on the remainder's
    and the wrap's edges) and from anywhere; spans of none, a quarter or half a turn and
    any; radii of either sign and NaN."""
    few = np.array([-1.0, -0.5, -0.0, 0.0, 0.5, 1.0])

    def draw(shape):
        out = rng.choice(few, shape)
        anywhere = rng.random(shape) < 0.3
        out[anywhere] = rng.uniform(-3, 3, anywhere.sum())
        return out

    point, center, start = draw((n, 2)), draw((n, 2)), draw((n, 2))
    on = rng.random(n) < 0.1
    point[on] = center[on]
    on = rng.random(n) < 0.1
    point[on] = start[on]
    span = rng.choice([0.0, math.pi / 2, math.pi, 2 * math.pi - 1e-12, 1.0], n)
    anywhere = rng.random(n) < 0.3
    span[anywhere] = rng.uniform(0, 2 * math.pi, anywhere.sum())
    radius = rng.choice([-2.0, -0.5, 0.5, 1.0, np.nan], n)
    return point, center, start, span, radius


@pytest.mark.parametrize("seed", range(10))
def test_the_compiled_fractions_are_numpys_bit_for_bit(seed):
    rng = np.random.default_rng(seed)
    point, center, start, span, radius = _points(rng, 2000)
    with np.errstate(**contact_curves.QUIET):
        found, expected = _arc_fraction(point, center, start, span, radius), _plain_arc_fraction(point, center, start,
                                                                                                  span, radius)
    _same_bits(found, expected)
    assert (found < 0).any() and (found > 1).any() and np.isnan(found).any() and (found == 0).any()


@pytest.mark.parametrize("seed", range(4))
def test_points_on_the_wrap_are_wrapped_as_numpy_wraps_them(seed):
    """Spans whose far side (half of what they leave of a turn past their middle) is at the
    point's angle, give or take a bit or two: the wrap's comparison, rounded as numpy's."""
    rng = np.random.default_rng(seed)
    point, center, start, _, _ = _points(rng, 2000)
    radius = np.ones(len(point))
    at = np.arctan2(*kernel.angle_terms(point, center, start)) % contact_curves.TURN
    span = np.clip(2 * (at - math.pi), 0.0, None) * (1 + rng.integers(-2, 3, len(at)) * 2.0 ** -52)
    with np.errstate(**contact_curves.QUIET):
        found, expected = _arc_fraction(point, center, start, span, radius), _plain_arc_fraction(point, center, start,
                                                                                                  span, radius)
    _same_bits(found, expected)
    assert (found < 0).any() and (found > 1).any()


def test_the_docstring_examples_hold():
    """A compiled module's examples are not collected by --doctest-modules: run them here."""
    runner = doctest.DocTestRunner()
    for function in (kernel.angle_terms, kernel.fractions):
        for test in doctest.DocTestFinder().find(function, function.__name__, globs=vars(kernel)):
            runner.run(test)
    results = runner.summarize(verbose=False)
    assert (results.attempted, results.failed) == (5, 0)  # the examples' statements, all as shown
