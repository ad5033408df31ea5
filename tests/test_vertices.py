"""Small linear programs by vertex enumeration (cspace.kernels.vertices) against HiGHS.

The oracle is HiGHS as the constraint manager runs it (``ConstraintManager(small=0)``):
the same status, the same optimal value, and the same point wherever the enumeration
gives one (it gives one only where the optimum is one point). Where the two statuses
differ, scipy's HiGHS (presolve on, its default simplex) referees: on badly scaled
programs the manager's HiGHS (presolve off) may stop without a clean answer, which the
manager reports infeasible. Programs are drawn by hypothesis: random and integer
coefficients (parallel, redundant and zero rows, degenerate vertices, tied optima),
rows scaled by 1e-5 to 1e5, equalities and ranges, variables boxed, half-bounded or
free; and simple dynamics' own kind (rows of unit largest entry, speeds boxed at 1e8).
Seeded: thousands of simple dynamics' kind, and of rows nearly parallel. Then whole
traces, with every program left to HiGHS and not.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cspace import trace
from cspace.kernels import vertices
from cspace.kernels.constraints import ConstraintManager
from cspace.kernels.vertices import INFEASIBLE, OPTIMAL, UNBOUNDED

from .common import analyzed, each, examples
from .support.fuzz import SeededDraw, mechanism

TOLERANCE = 1e-10  # the house's lp tolerance (cspace.model.tolerance.DEFAULT_LP)
HIGHS = ConstraintManager(TOLERANCE, small=0)
INF = math.inf
# Coefficients: none nearer zero than 1e-3 (rows are scaled by 1e-5 to 1e5 below, and HiGHS reads an
# entry of at most 1e-9 as zero: a case of its own below).
NUMBERS = st.floats(-3, 3, allow_nan=False, allow_subnormal=False).map(lambda v: v if abs(v) >= 1e-3 else 0.0)
INTEGERS = st.integers(-2, 2).map(float)
ROW_KINDS = ("upper", "lower", "range", "equality", "free")
BOUND_KINDS = ("box", "lower", "upper", "free", "fixed")


@st.composite
def programs(draw, coefficients, scaled: bool = False, kinds=BOUND_KINDS, most: int = 6):
    """(cost, rows, lower, upper, var_lower, var_upper) of 1 to 4 unknowns and 0 to ``most`` rows."""
    n = draw(st.integers(1, vertices.MAX_UNKNOWNS))
    m = draw(st.integers(0, most))
    values = st.lists(coefficients, min_size=n, max_size=n)
    rows = np.array([draw(values) for _ in range(m)], float).reshape(m, n)
    sides = np.array([draw(coefficients) for _ in range(2 * m)], float).reshape(2, m)
    lower, upper = np.minimum(*sides), np.maximum(*sides)
    for i in range(m):
        kind = draw(st.sampled_from(ROW_KINDS))
        if kind in ("upper", "free"):
            lower[i] = -INF
        if kind in ("lower", "free"):
            upper[i] = INF
        if kind == "equality":
            lower[i] = upper[i]
    if scaled and m:
        scales = 10.0 ** np.array(draw(st.lists(st.integers(-5, 5), min_size=m, max_size=m)), float)
        rows, lower, upper = rows * scales[:, None], lower * scales, upper * scales
    var_lower, var_upper = np.full(n, -INF), np.full(n, INF)
    for j in range(n):
        low, high = sorted(draw(coefficients) for _ in range(2))
        kind = draw(st.sampled_from(kinds))
        var_lower[j] = low if kind in ("box", "lower") else high if kind == "fixed" else -INF
        var_upper[j] = high if kind in ("box", "upper", "fixed") else INF
    cost = np.array(draw(values), float)
    return cost, rows, lower, upper, var_lower, var_upper


@st.composite
def velocity_programs(draw):
    """Simple dynamics' programs (:meth:`cspace.tracing.dynamics.SimpleDynamics._solved`): rows
    scaled to a largest entry of 1, each an inequality or an equality; every column boxed
    by the speed limit (1e8), an unforced one's from 0."""
    n = draw(st.integers(1, vertices.MAX_UNKNOWNS))
    m = draw(st.integers(1, 4))
    number = NUMBERS.filter(lambda v: v != 0)
    rows = np.array([draw(st.lists(NUMBERS, min_size=n, max_size=n)) for _ in range(m)])
    rows[np.abs(rows).sum(axis=1) == 0, 0] = 1.0
    rows /= np.abs(rows).max(axis=1)[:, None]
    upper = np.array([draw(number) for _ in range(m)])
    lower = np.where(np.array([draw(st.booleans()) for _ in range(m)]), upper, -INF)
    var_lower = np.where(np.array([draw(st.booleans()) for _ in range(n)]), 0.0, -1e8)
    cost = np.array([draw(number) for _ in range(n)])
    return cost, rows, lower, upper, var_lower, np.full(n, 1e8)


def _scipy(cost, rows, lower, upper, var_lower, var_upper):
    """The program solved by scipy's HiGHS, presolve on."""
    from scipy.optimize import linprog

    high, low = np.isfinite(upper), np.isfinite(lower)
    A = np.vstack([rows[high], -rows[low]]).reshape(-1, len(cost))
    b = np.concatenate([upper[high], -lower[low]])
    bounds = [(None if math.isinf(a) else a, None if math.isinf(z) else z) for a, z in zip(var_lower, var_upper)]
    return linprog(cost, A_ub=A if len(b) else None, b_ub=b if len(b) else None, bounds=bounds, method="highs")


def _referee(*program) -> str:
    """The status by scipy's HiGHS."""
    return {0: OPTIMAL, 2: INFEASIBLE, 3: UNBOUNDED}.get(_scipy(*program).status, "undecided")


def _keeps(program, x: np.ndarray) -> bool:
    """Does ``x`` keep the program's rows (read as HiGHS reads them) and bounds, within the
    tolerance and the rounding of a vertex computed among numbers as large as its own?"""
    cost, rows, lower, upper, var_lower, var_upper = program
    rows = np.where(np.abs(rows) > vertices.SMALL_ENTRY, rows, 0.0)
    size = 1 + np.abs(x).max()
    values = rows @ x
    finite = np.where(np.isfinite(upper), np.abs(upper), 0.0) + np.where(np.isfinite(lower), np.abs(lower), 0.0)
    slack = TOLERANCE + 1e-14 * (np.abs(rows).sum(axis=1) * size + finite)
    return bool(np.all(values <= upper + slack) and np.all(values >= lower - slack)
                and np.all(x <= var_upper + TOLERANCE + 1e-14 * size)
                and np.all(x >= var_lower - TOLERANCE - 1e-14 * size))


def _check(program, point: bool) -> tuple | None:
    """The enumeration's answer, checked against HiGHS's; None where it declines."""
    found = vertices.solve(*program, TOLERANCE, point)
    if found is None:
        return None
    status, x, value = found
    reference = HIGHS.solve(*program)
    if status != reference.status:
        assert status == _referee(*program), (status, reference.status)
        return found
    if status == OPTIMAL:
        scale = 1 + abs(reference.objective) + float(np.abs(program[0]) @ np.abs(reference.x))
        assert value == pytest.approx(reference.objective, abs=1e-7 * scale)
        assert value == float(program[0] @ x)
        assert _keeps(program, x)
        if point:
            assert np.abs(x - reference.x).max() <= 1e-7 * (1 + np.abs(reference.x).max())
    else:
        assert x is None and value == (INF if status == INFEASIBLE else -INF)
    return found


@settings(max_examples=examples(1500), deadline=None)
@given(programs(NUMBERS), st.booleans())
def test_random_programs_get_highs_answer(program, point):
    _check(program, point)


@settings(max_examples=examples(1500), deadline=None)
@given(programs(INTEGERS), st.booleans())
def test_integer_programs_degenerate_and_tied_get_highs_answer(program, point):
    """Small integers make parallel, redundant and zero rows, vertices where more than n
    constraints meet, and optima along whole edges (which decline when the point is asked)."""
    _check(program, point)


@settings(max_examples=examples(1000), deadline=None)
@given(programs(NUMBERS, scaled=True), st.booleans())
def test_programs_with_tiny_and_huge_rows_get_highs_answer(program, point):
    _check(program, point)


@settings(max_examples=examples(1500), deadline=None)
@given(velocity_programs())
def test_velocity_programs_get_highs_point(program):
    _check(program, point=True)


def test_random_velocity_programs_are_never_declined():
    """Coefficients drawn from a continuous distribution tie with probability zero: each of
    2,000 programs of simple dynamics' kind is answered, point and all, and it is HiGHS's."""
    rng = np.random.default_rng(26)
    for _ in range(2000):
        n, m = int(rng.integers(1, vertices.MAX_UNKNOWNS + 1)), int(rng.integers(1, 5))
        rows = rng.normal(size=(m, n)) * (rng.random((m, n)) < 0.7)
        rows[:, 0] += rows.sum(axis=1) == 0
        rows /= np.abs(rows).max(axis=1)[:, None]
        upper = rng.normal(size=m)
        lower = np.where(rng.random(m) < 0.3, upper, -INF)
        program = (rng.normal(size=n), rows, lower, upper, np.where(rng.random(n) < 0.5, 0.0, -1e8), np.full(n, 1e8))
        assert _check(program, point=True) is not None, program


def test_variables_at_a_bound_are_at_it_exactly_as_highs_gives_them():
    """HiGHS holds a nonbasic variable at its bound exactly; a vertex solved from its basis
    may miss it by a rounding (1e8 elsewhere in the vertex makes that 1e-8), so a basis's
    bounds are set exactly: wherever HiGHS's optimum has a variable at a bound, so does the
    enumeration's, to the bit. 2,000 programs of simple dynamics' kind."""
    rng = np.random.default_rng(7)
    checked = 0
    for _ in range(2000):
        n, m = int(rng.integers(2, vertices.MAX_UNKNOWNS + 1)), int(rng.integers(1, 4))
        rows = rng.normal(size=(m, n))
        rows /= np.abs(rows).max(axis=1)[:, None]
        upper = rng.normal(size=m)
        lower = np.where(rng.random(m) < 0.3, upper, -INF)
        var_lower, var_upper = np.where(rng.random(n) < 0.5, 0.0, -1e8), np.full(n, 1e8)
        program = (rng.normal(size=n), rows, lower, upper, var_lower, var_upper)
        found, reference = vertices.solve(*program, TOLERANCE), HIGHS.solve(*program)
        if found is None or not reference.ok:
            continue
        at_bound = (reference.x == var_lower) | (reference.x == var_upper)
        assert found[1][at_bound].tolist() == reference.x[at_bound].tolist()
        checked += at_bound.sum()
    assert checked > 2000


def test_nearly_parallel_rows_get_highs_answer_or_are_left_to_it():
    """Rows parallel to within 1e-13 to 1e-3 (the same facet twice, a slab, a wedge), their
    sides apart by as little, costs along them: where a vertex is inexact, or kept or broken
    by a hair, HiGHS's rounding and the enumeration's may part, and the program goes to
    HiGHS (``WELL``, ``BAND``); elsewhere the answers are HiGHS's. 5,000 programs, each
    with and without the point."""
    rng = np.random.default_rng(1)
    for _ in range(5000):
        n, m = int(rng.integers(2, 4)), int(rng.integers(2, 5))
        rows = rng.normal(size=(m, n))
        rows[1] = rows[0] * rng.choice([1, -1, 2]) + rng.normal(size=n) * 10.0 ** rng.integers(-13, -2)
        upper = rng.normal(size=m)
        upper[1] = upper[0] * (rows[1] @ rows[0]) / (rows[0] @ rows[0]) + rng.normal() * 10.0 ** rng.integers(-13, -2)
        lower = np.full(m, -INF)
        if rng.random() < 0.5:
            lower[1] = upper[1]
        bound = np.full(n, 5.0 if rng.random() < 0.7 else INF)
        cost = rng.normal(size=n)
        if rng.random() < 0.5:
            cost = -(rows[0] * rng.random() + rows[1] * rng.random()) + rng.normal(size=n) * 10.0 ** rng.integers(-12, -3)
        for point in (True, False):
            _check((cost, rows, lower, upper, -bound, bound), point)


@settings(max_examples=examples(400), deadline=None)
@given(st.one_of(programs(NUMBERS, kinds=("box",), most=4), programs(INTEGERS, kinds=("box",), most=4),
                 velocity_programs()))
def test_boxed_programs_are_declined_only_when_optima_tie(program):
    """A declined program (of at most four rows: fewer bases than MAX_BASES) has an optimal
    set of more than a point: the optima for the cost nudged every way (scipy's HiGHS) are
    optimal for the cost itself, and not all one point."""
    if vertices.solve(*program, TOLERANCE, point=True) is not None:
        return
    answer = vertices.solve(*program, TOLERANCE, point=False)
    assert answer is not None and answer[0] == OPTIMAL
    cost = program[0]
    points = []
    for sign in (1.0, -1.0):
        for j in range(len(cost)):
            nudged = cost.copy()
            nudged[j] += sign * 1e-6
            result = _scipy(nudged, *program[1:])
            assert result.status == 0
            points.append(result.x)
    values = [float(cost @ p) for p in points]
    assert max(values) - min(values) <= 1e-5 * (1 + abs(answer[2]))  # all optimal for the cost
    assert max(np.abs(p - points[0]).max() for p in points) > 1e-6  # not all one point


@pytest.mark.parametrize("program, status, value", [
    # parallel rows, the tighter one binding: max x + y under x + y <= 1, 2x + 2y <= 3, boxed
    (([-1.0, -1.0], [[1, 1], [2, 2]], [-INF, -INF], [1, 3], [0, 0], [5, 5]), OPTIMAL, -1.0),
    # redundant rows through one vertex (degenerate): max x + 2y at (1, 1)
    (([-1.0, -2.0], [[1, 0], [0, 1], [1, 1], [2, 1]], [-INF] * 4, [1, 1, 2, 3], [-9, -9], [9, 9]), OPTIMAL, -3.0),
    # zero rows: 0 <= 1 keeps everything, 0 in [-1, 1] too; 0 >= 1 keeps nothing
    (([1.0, 1.0], [[0, 0], [0, 0]], [-INF, -1], [1, 1], [0, 0], [1, 1]), OPTIMAL, 0.0),
    (([1.0, 1.0], [[0, 0], [1, 1]], [1, -INF], [INF, 1], [0, 0], [1, 1]), INFEASIBLE, INF),
    (([1.0], [[0.0]], [1], [INF], [0], [1]), INFEASIBLE, INF),
    # infeasible: x >= 1 and x <= 0; and two equalities that cross apart
    (([1.0, 0.0], [[1, 0], [1, 0]], [1, -INF], [INF, 0], [-INF, -5], [INF, 5]), INFEASIBLE, INF),
    (([0.0, 0.0], [[1, 1], [1, 1]], [1, 2], [1, 2], [-5, -5], [5, 5]), INFEASIBLE, INF),
    # a side no point keeps: an upper bound of -inf, a lower bound of +inf
    (([1.0, 1.0], [[1, 1]], [-INF], [-INF], [0, 0], [1, 1]), INFEASIBLE, INF),
    (([1.0], [[1.0]], [INF], [INF], [0], [1]), INFEASIBLE, INF),
    # unbounded: min -x under x - y <= 1, x + y >= 0, free; and along a ray the rows leave open
    (([-1.0, 0.0], [[1, -1], [1, 1]], [-INF, 0], [1, INF], [-INF, -INF], [INF, INF]), UNBOUNDED, -INF),
    (([1.0, 1.0, 1.0], [[1, 1, 0], [0, 0, 1], [1, 0, 0]], [-INF, 0, -5], [0, INF, INF], [-INF] * 3, [INF] * 3),
     UNBOUNDED, -INF),
    (([-1.0], [[1.0]], [0], [INF], [-INF], [INF]), UNBOUNDED, -INF),
    # bounded, though free: max x under x + y <= 1, x - y <= 1 (at x = 1)
    (([-1.0, 0.0], [[1, 1], [1, -1]], [-INF, -INF], [1, 1], [-INF, -INF], [INF, INF]), OPTIMAL, -1.0),
    # tiny and huge coefficients: 1e-8 x <= 1e-8 and 1e8 y <= 2e8, max x + y
    (([-1.0, -1.0], [[1e-8, 0], [0, 1e8]], [-INF, -INF], [1e-8, 2e8], [-5, -5], [5, 5]), OPTIMAL, -3.0),
    # an entry of at most 1e-9 is a zero, as to HiGHS: 1e-9 x <= 1e-9 bounds nothing
    (([-1.0], [[1e-9]], [-INF], [1e-9], [-5], [5]), OPTIMAL, -5.0),
    # a within-tolerance crossing (x <= 1, x >= 1 + 1e-12) is feasible, as for HiGHS
    (([1.0], [[1.0], [1.0]], [-INF, 1 + 1e-12], [1, INF], [-5], [5]), OPTIMAL, 1 + 1e-12),
    # four unknowns: the box's corner against one plane
    (([-1.0, -1.0, -1.0, -1.0], [[1, 2, 3, 4]], [-INF], [10], [0] * 4, [1] * 4), OPTIMAL, -4.0),
])
def test_degenerate_programs(program, status, value):
    program = tuple(np.array(part, float) for part in program)
    for point in (False, True):
        found = _check(program, point)
        if found is not None:
            assert found[0] == status and found[2] == pytest.approx(value, rel=1e-9)
    assert vertices.solve(*program, TOLERANCE, point=False) is not None


@pytest.mark.parametrize("program", [
    ([1.0, 1.0], [[1, 1]], [1], [INF], [0, 0], [5, 5]),  # min x + y on x + y >= 1: an edge
    ([0.0, 0.0], [[1, 1]], [-INF], [1], [0, 0], [5, 5]),  # no cost: every point
    ([1.0], [[1.0]], [-INF], [1], [0], [INF]),  # a variable without an upper bound: a point is not asked of it
    ([1.0, 0.0], [[1, 0]], [0], [INF], [-INF, -INF], [INF, INF]),  # min x, y free: a line of optima
    ([1.0, 1.0], [[1, 1], [2, 2]], [-INF, -INF], [1, 2], [-INF, -INF], [INF, INF]),  # normals that do not span
])
def test_optima_that_are_no_single_point_are_left_to_highs(program):
    """The enumeration declines where the point is asked and the optimum is not one point;
    the manager's answer there is HiGHS's own."""
    program = tuple(np.array(part, float) for part in program)
    assert vertices.solve(*program, TOLERANCE, point=True) is None
    answer, reference = ConstraintManager(TOLERANCE).solve(*program), HIGHS.solve(*program)
    assert answer.status == reference.status
    if answer.ok:
        assert answer.x.tolist() == reference.x.tolist()


def test_entries_highs_reads_as_zeros_are_zeros():
    import highspy

    assert ConstraintManager(TOLERANCE)._highs.getOptionValue("small_matrix_value")[1] == vertices.SMALL_ENTRY
    assert highspy.kHighsInf == INF  # an infinite bound is no bound to both


def test_the_first_of_vertices_that_share_a_point_is_given():
    """A vertex where more than n constraints meet (x = 0 and y = 0 and x + y = 0) is the
    same point by every choice of n; the answer is that point, exactly."""
    program = tuple(np.array(part, float) for part in
                    ([1.0, 2.0], [[1, 1], [-1, 0], [0, -1]], [-INF] * 3, [0, 0, 0], [-1, -1], [1, 1]))
    status, x, value = vertices.solve(*program, TOLERANCE)
    assert (status, x.tolist(), value) == (OPTIMAL, [0.0, 0.0], 0.0)


def test_more_unknowns_or_bases_than_enumerated_go_to_highs(monkeypatch):
    program = (np.ones(5), np.ones((1, 5)), np.array([1.0]), np.array([INF]), np.zeros(5), np.ones(5))
    assert vertices.solve(*program, TOLERANCE) is None
    program = (np.ones(3), np.eye(3), np.full(3, -1.0), np.ones(3), np.full(3, -2.0), np.full(3, 2.0))
    assert vertices.solve(*program, TOLERANCE) is not None
    monkeypatch.setattr(vertices, "MAX_BASES", 10)
    assert vertices.solve(*program, TOLERANCE) is None


def _traced(analysis, small: int | None, monkeypatch):
    with monkeypatch.context() as patch:
        if small is not None:
            patch.setattr(vertices, "MAX_UNKNOWNS", small)
        return trace(analysis)


@pytest.mark.parametrize("name", each(["cam", "conveyor", "feeder-sticky", "ramp-release", "shoe-brake", "ratchet",
                                       "rim-lock"], fast={"cam", "conveyor", "feeder-sticky", "ramp-release"}))
def test_fixtures_trace_the_same_with_every_program_left_to_highs(name, monkeypatch):
    from cspace.testing import assert_traces_equal

    analysis = analyzed(name)
    assert_traces_equal(_traced(analysis, None, monkeypatch), _traced(analysis, 0, monkeypatch))


@pytest.mark.parametrize("seed", range(6))
def test_generated_mechanisms_trace_the_same_with_every_program_left_to_highs(seed, monkeypatch):
    """Every velocity left to the program (no shortcut), so that many programs are posed."""
    from cspace import analyze, loads
    from cspace.testing import assert_traces_equal
    from cspace.tracing import tracer
    from cspace.tracing.dynamics import SimpleDynamics, Undetermined

    monkeypatch.setattr(SimpleDynamics, "determined", lambda self, *args: Undetermined.PROGRAM)
    monkeypatch.setattr(tracer, "unbeatable", lambda *args: False)
    analysis = analyze(loads(mechanism(SeededDraw(seed))))
    small, highs = _traced(analysis, None, monkeypatch), _traced(analysis, 0, monkeypatch)
    assert_traces_equal(small, highs)
    assert small.stats.lp_solves == highs.stats.lp_solves


def test_the_bases_are_counted_before_they_are_made():
    """A program of many rows has millions of choices of n of them: counted first (one pass),
    they are only made when few enough. The count is the number of choices made, on random
    patterns of bounded sides."""
    from cspace.kernels.vertices import _bases, _basis_count

    rng = np.random.default_rng(7)
    for _ in range(300):
        m, n = int(rng.integers(0, 7)), int(rng.integers(1, 5))
        finite = rng.random(2 * m + 2 * n) < 0.6
        assert _basis_count(finite, m, n) == len(_bases(m, n, finite.tobytes()).bases)
    # 300 rows and 3 variables, both sides bounded: 3 of the 303 pairs of sides, a side of each.
    assert _basis_count(np.ones(2 * 300 + 6, bool), 300, 3) == math.comb(303, 3) * 2**3
