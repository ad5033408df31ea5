"""The compiled arithmetic of a turning pair's arc tangencies (cspace/kernels/turning_tangencies.pyx)
against the same statements in numpy (``contact_curves._plain_rotation_tangencies`` and the
helpers it calls), bit for bit."""

from __future__ import annotations

import doctest
from types import SimpleNamespace

import numpy as np
import pytest

from cspace.kernels import contact_curves
from cspace.kernels import turning_tangencies as kernel
from cspace.kernels.contact_curves import (
    _distance_range,
    _fraction,
    _plain_rotation_tangencies,
    _plain_tangency_terms,
    _rotation_tangencies,
    _Sides,
    _sinusoid_roots,
    _solved,
    _take,
    _touch_point,
    _turned,
)

from .common import seeds
from .support.shapes import random_polygon, rounded, shape_of


def _pair(seed: int):
    """Rounded boxes (arcs of equal radii: tangent arcs, differences of radii that vanish) or
    a rounded box and a star-shaped polygon, turned about grid points (an arc's centre: the
    concentric case) or anywhere."""
    rng = np.random.default_rng(seed)
    count = int(rng.integers(1, 30))
    a = rounded(int(rng.integers(0, 4)), int(rng.integers(0, 4)), float(rng.choice([0.5, 1.0])))[0]
    if seed % 2:
        b = rounded(int(rng.integers(0, 3)), int(rng.integers(0, 3)), float(rng.choice([0.5, 1.0])))[0]
    else:
        b = shape_of(random_polygon(rng, int(rng.integers(3, 12)), (0, 0), 1.5))
        a, b = b, a                               # the arcs turn against straight edges (kind 0) and arcs (kind 1)
    if seed % 3 == 0:
        angle = rng.integers(0, 4, count) * (np.pi / 2)
        offset = rng.integers(-3, 4, (count, 2)) * 0.5
        center = offset + rng.integers(-1, 2, (count, 2)) * 0.5
    else:
        angle = rng.uniform(-3, 3, count)
        offset = rng.uniform(-2, 2, (count, 2))
        center = offset + rng.uniform(-1, 1, (count, 2))
    return a, b, angle, offset, center, int(rng.choice([-1, 1]))


def _same_bits(x: np.ndarray, y: np.ndarray, name: str) -> None:
    x, y = np.asarray(x), np.asarray(y)
    assert x.dtype == y.dtype and x.shape == y.shape and x.tobytes() == y.tobytes(), name


@pytest.mark.parametrize("seed", seeds(60, 12))
def test_the_compiled_tangencies_are_numpys_bit_for_bit(seed):
    a, b, angle, offset, center, sign = _pair(seed)
    found = 0
    with np.errstate(**contact_curves.QUIET):
        for kind in (0, 1):
            sides = _Sides.of(a, b, angle, offset, kind)
            near, far = _distance_range(sides.e0, sides.ev, sides.ec, sides.er, center)
            roots = _rotation_tangencies(sides, center, sign, near, far)
            expected = _plain_rotation_tangencies(sides, center, sign, near, far)
            for name in ("k", "v", "feature", "change", "degenerate"):
                _same_bits(getattr(roots, name), getattr(expected, name), name)
            found += len(roots.k)
    assert found or seed % 3 == 0                          # on a grid the parts may stay apart


def _degenerate_sides(rng, K: int, ne: int, nj: int):
    """Arrays of a pair's sides drawn from a few numbers (signed zeros, ties, equal radii, a
    mover arc's centre on an edge's centre, radii of zero) and from anywhere."""
    few = np.array([-1.0, -0.5, -0.0, 0.0, 0.5, 1.0])

    def draw(shape):
        out = rng.choice(few, shape)
        anywhere = rng.random(shape) < 0.3
        out[anywhere] = rng.uniform(-2, 2, anywhere.sum())
        return out

    er, mover_radii = draw(ne), draw(nj)
    er[:2], mover_radii[:2] = [0.0, -0.0], [0.0, -0.0]                # straight edges; arcs of no radius
    er[2], mover_radii[2] = -0.5, 0.5                                 # a concave arc a mover arc fits
    ec = draw((K, ne, 2))
    ec[:, er == 0] = np.where(rng.random((K, int((er == 0).sum()), 2)) < 0.5, np.nan, ec[:, er == 0])
    normal = draw((K, ne, 2))
    f = SimpleNamespace(er=er, ec=ec, en=normal, e0=draw((K, ne, 2)), ev=draw((K, ne, 2)),
                        mover_radii=mover_radii)
    center = draw((K, 2))
    arm = draw((K, nj, 2))
    arm[:, :ne][rng.random((K, min(nj, ne))) < 0.3] = 0.0          # some arcs' centres on the turn's
    k = rng.integers(0, K, 200).astype(np.intp)
    e = rng.integers(0, ne, 200).astype(np.intp)
    j = rng.integers(0, nj, 200).astype(np.intp)
    concentric = rng.random(200) < 0.2                               # the turn's centre on an edge's centre
    f.ec[k[concentric], e[concentric]] = center[k[concentric]]
    return f, arm, center, k, e, j


@pytest.mark.parametrize("seed", range(8))
def test_the_kernels_are_the_numpy_statements_on_degenerate_input(seed):
    rng = np.random.default_rng(seed)
    f, arm, center, k, e, j = _degenerate_sides(rng, 3, 5, 4)
    with np.errstate(**contact_curves.QUIET):
        alpha, beta, gamma, apart = kernel.tangency_terms(k, e, j, arm, center, f.en, f.e0, f.ec, f.er, f.mover_radii)
        u, w, gamma_, apart_ = _plain_tangency_terms(f, arm, center, k, e, j)
        _same_bits(gamma, gamma_, "gamma")
        _same_bits(apart, apart_, "apart")
        _same_bits(alpha, u[:, 0] * w[:, 0] + u[:, 1] * w[:, 1], "alpha")
        _same_bits(beta, u[:, 1] * w[:, 0] - u[:, 0] * w[:, 1], "beta")
        origin = _take(center, k)
        rho_b = np.abs(f.mover_radii[j])
        for which in (0, 1):
            roots, roots_ = _solved(alpha, beta, gamma[:, which]), _sinusoid_roots(u, w, gamma_[:, which])
            for phi, phi_ in zip(roots.phi, roots_.phi):
                _same_bits(phi, phi_, "phi")
            rows = np.flatnonzero(rng.random(len(k)) < 0.8).astype(np.intp)
            turned = np.where(rng.random(len(rows)) < 0.2, 0.0, rng.uniform(-4, 4, len(rows)))
            moved, touch, t = kernel.tangent_points(rows, k, e, j, np.cos(turned), np.sin(turned), arm, center, f.en,
                                                    f.e0, f.ev, f.ec, f.er, f.mover_radii, which)
            moved_ = _take(origin, rows) + _turned(_take(w, rows), turned)
            _same_bits(moved, moved_, "moved")
            _same_bits(touch, _touch_point(f, k[rows], e[rows], moved_, rho_b[rows], which), "touch")
            straight = np.flatnonzero(f.er[e[rows]] == 0)
            _same_bits(t[straight], _fraction(f, k[rows[straight]], e[rows[straight]], _take(touch, straight)), "t")
            assert np.isnan(t[f.er[e[rows]] != 0]).all()
            assert len(straight) and len(straight) < len(rows)
        assert apart.any() and not apart.all()


def test_the_docstring_examples_hold():
    """A compiled module's examples are not collected by --doctest-modules: run them here."""
    runner = doctest.DocTestRunner()
    for function in (kernel.tangency_terms, kernel.tangent_points):
        for test in doctest.DocTestFinder().find(function, function.__name__, globs=vars(kernel)):
            runner.run(test)
    results = runner.summarize(verbose=False)
    assert (results.attempted, results.failed) == (8, 0)  # the examples' statements, all as shown
