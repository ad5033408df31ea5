"""The compiled turning of blocked arcs to every sector (cspace/kernels/sectors.pyx,
``rotation._repeated``) against the Python statements it replaced."""

from __future__ import annotations

import doctest
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cspace.kernels import sectors as kernel
from cspace.kernels.contact_curves import NO_FEATURE, Intervals
from cspace.kernels.sectors import repeated_arcs
from cspace.spaces.rotation import JOIN, TURN, _repeated

from .common import examples


def _sector_feature(feature: int, n: int, j: int) -> int:
    return NO_FEATURE if feature == NO_FEATURE else feature * n + j


def _joined(spans: list[list]) -> list[list]:
    """Sorted arcs (lo in one turn) with overlapping or meeting ones joined, round the seam too."""
    if not spans:
        return []
    if any(hi - lo >= TURN for lo, hi, _, _ in spans):
        return [[-math.pi, math.pi, NO_FEATURE, NO_FEATURE]]
    out = [list(spans[0])]
    for span in spans[1:]:
        if span[0] <= out[-1][1] + JOIN:
            if span[1] > out[-1][1]:
                out[-1][1], out[-1][3] = span[1], span[3]
        else:
            out.append(list(span))
    while len(out) > 1 and out[-1][1] - TURN >= out[0][0] - JOIN:
        first, last = out.pop(0), out[-1]
        if first[1] + TURN > last[1]:
            last[1], last[3] = first[1] + TURN, first[3]
    if out[-1][1] - out[-1][0] >= TURN - JOIN:
        return [[-math.pi, math.pi, NO_FEATURE, NO_FEATURE]]
    return out


def reference(arcs: Intervals, n: int) -> Intervals:
    """``rotation._repeated`` as it was in Python: a list of spans per placement, sorted, joined."""
    rows = []
    for k in range(len(arcs.count)):
        spans = []
        for m in range(int(arcs.count[k])):
            lo, hi = float(arcs.lo[k, m]), float(arcs.hi[k, m])
            f_lo, f_hi = int(arcs.lo_feature[k, m]), int(arcs.hi_feature[k, m])
            if hi - lo >= TURN:
                spans.append([-math.pi, math.pi, NO_FEATURE, NO_FEATURE])
                continue
            for j in range(n):
                shift = TURN * j / n
                a = lo - shift
                turn = TURN * math.floor((a + math.pi) / TURN)
                spans.append([a - turn, hi - shift - turn, _sector_feature(f_lo, n, j), _sector_feature(f_hi, n, j)])
        rows.append(_joined(sorted(spans)))
    width = max(1, max((len(r) for r in rows), default=0))
    table = np.full((len(rows), width, 4), np.nan)
    for k, r in enumerate(rows):
        if r:
            table[k, :len(r)] = r
    features = np.where(np.isnan(table[..., 2:]), NO_FEATURE, table[..., 2:]).astype(np.int64)
    return Intervals(table[..., 0], table[..., 1], features[..., 0], features[..., 1],
                     np.array([len(r) for r in rows], int))


def _same(found: Intervals, expected: Intervals) -> None:
    """Equal to the bit, signed zeros and the NaN padding too."""
    for name in ("lo", "hi"):
        a, b = getattr(found, name), getattr(expected, name)
        assert a.shape == b.shape and np.ascontiguousarray(a).tobytes() == np.ascontiguousarray(b).tobytes(), name
    for name in ("lo_feature", "hi_feature", "count"):
        a, b = getattr(found, name), getattr(expected, name)
        assert a.dtype == b.dtype and a.tolist() == b.tolist(), name


def _arcs(rng: np.random.Generator, count: int, width: int, n: int, grid: bool) -> Intervals:
    """Arcs as a sweep finds them (lo in one turn, hi past the seam when they cross it), some
    a whole turn or more, some without features; on a coarse grid (``grid``) copies of
    different sectors meet end to end, coincide, and land on signed zeros."""
    sector = TURN / n
    lo = np.full((count, width), np.nan)
    hi = np.full((count, width), np.nan)
    f_lo = np.full((count, width), NO_FEATURE, np.int64)
    f_hi = np.full((count, width), NO_FEATURE, np.int64)
    counts = rng.integers(0, width + 1, count)
    for k in range(count):
        m = int(counts[k])
        if grid:
            starts = rng.integers(-8, 8, m) * sector / 4
            lengths = rng.integers(0, 5, m) * sector / 4
        else:
            starts = rng.uniform(-math.pi, math.pi, m)
            lengths = rng.uniform(0, sector * 1.5, m)
        lengths[rng.random(m) < 0.05] = TURN * rng.choice([1.0, 1.2], 1)
        starts[rng.random(m) < 0.1] = rng.choice([-0.0, 0.0, -math.pi])
        lo[k, :m], hi[k, :m] = starts, starts + lengths
        f_lo[k, :m] = np.where(rng.random(m) < 0.1, NO_FEATURE, rng.integers(0, 1000, m))
        f_hi[k, :m] = np.where(rng.random(m) < 0.1, NO_FEATURE, rng.integers(0, 1000, m))
    return Intervals(lo, hi, f_lo, f_hi, counts)


@pytest.mark.parametrize("grid", [False, True])
def test_the_compiled_arcs_are_the_python_statements_bit_for_bit(grid):
    rng = np.random.default_rng(7 + grid)
    for _ in range(150):
        n = int(rng.choice([1, 2, 3, 5, 12, 36]))
        arcs = _arcs(rng, int(rng.integers(0, 12)), int(rng.integers(1, 6)), n, grid)
        _same(_repeated(arcs, n), reference(arcs, n))


@settings(max_examples=examples(300), deadline=None)
@given(st.integers(1, 8), st.lists(st.tuples(st.sampled_from([-math.pi, -2.0, -1.0, -0.0, 0.0, 1e-10, 0.5, 3.0]),
                                             st.sampled_from([0.0, 1e-10, 0.1, 0.7853981633974483, 3.0, TURN, 7.0]),
                                             st.sampled_from([NO_FEATURE, 0, 1, 5])), max_size=6))
def test_arcs_that_touch_coincide_or_wrap_a_turn_as_in_python(n, spans):
    width = max(1, len(spans))
    lo = np.full((1, width), np.nan)
    hi = np.full((1, width), np.nan)
    f = np.full((1, width), NO_FEATURE, np.int64)
    for m, (start, length, feature) in enumerate(spans):
        lo[0, m], hi[0, m], f[0, m] = start, start + length, feature
    arcs = Intervals(lo, hi, f, f.copy(), np.array([len(spans)]))
    _same(_repeated(arcs, n), reference(arcs, n))


def test_no_placements():
    arcs = Intervals(np.zeros((0, 1)), np.zeros((0, 1)), np.zeros((0, 1), np.int64), np.zeros((0, 1), np.int64),
                     np.zeros(0, int))
    _same(_repeated(arcs, 4), reference(arcs, 4))


def test_the_docstring_examples_hold():
    """A compiled module's examples are not collected by --doctest-modules: run them here."""
    runner = doctest.DocTestRunner()
    for test in doctest.DocTestFinder().find(repeated_arcs, "repeated_arcs", globs=vars(kernel)):
        runner.run(test)
    results = runner.summarize(verbose=False)
    assert (results.attempted, results.failed) == (3, 0)


@pytest.mark.parametrize("zeros", [(-0.0, 0.0), (0.0, -0.0)])
def test_equal_arcs_keep_the_order_they_were_made_in(zeros):
    """Arcs equal but for the sign of a zero sort equal: the first made is kept, as Python's
    stable sort keeps it."""
    lo = np.array([[zeros[0], zeros[1]]])
    arcs = Intervals(lo, lo + 0.5, np.array([[3, 3]]), np.array([[4, 4]]), np.array([2]))
    found = _repeated(arcs, 1)
    _same(found, reference(arcs, 1))
    assert math.copysign(1.0, found.lo[0, 0]) == math.copysign(1.0, zeros[0])
