"""Linkage tables against closed-form kinematics."""

from __future__ import annotations

import math
import subprocess
import sys
from dataclasses import replace

import numpy as np
import pytest
from scipy.optimize import brentq

import cspace.spaces.linkage
from cspace import analyze, load, loads, trace
from cspace.model.errors import LinkageError
from cspace.report.describe import describe, path_rows
from cspace.spaces.linkage import solve_linkage

from .common import fixture_path, slow, traced
from .support.fuzz import CrankSlider, SeededDraw, closed_form_errors, generate


def crank_slider(cd):
    """Feeder piston position: crank 3, link 8, pin 1 behind the piston's face (paper 4.1)."""
    return 3 * np.cos(cd) - 1 + np.sqrt(64 - 9 * np.sin(cd) ** 2)


@pytest.fixture(scope="module")
def feeder_table():
    return analyze(load(fixture_path("feeder"))).linkage_tables["crank-slider"]


def test_table_covers_a_full_turn_with_301_entries(feeder_table):
    assert len(feeder_table.inputs) == 301
    assert feeder_table.inputs[0] == pytest.approx(-math.pi) and feeder_table.inputs[-1] == pytest.approx(math.pi)


def test_table_entries_solve_the_joint_equations(feeder_table):
    assert np.max(np.abs(feeder_table.outputs - crank_slider(feeder_table.inputs))) < 1e-9


def test_interpolation_error_within_the_second_difference_bound(feeder_table):
    h = feeder_table.step
    x = np.linspace(-math.pi, math.pi, 20001)
    second = np.max(np.abs(np.gradient(np.gradient(crank_slider(x), x), x)))
    error = max(abs(feeder_table.output(v) - crank_slider(v)) for v in x)
    assert 0 < error <= h * h / 8 * second * 1.01


def test_link_pose_keeps_both_pins_joined(feeder_table):
    for cd in np.linspace(-3, 3, 13):
        pose = feeder_table.pose("link", cd)
        near = pose[:2, :2] @ [0, 0] + pose[:2, 2]
        far = pose[:2, :2] @ [8, 0] + pose[:2, 2]
        assert near == pytest.approx([3 * math.cos(cd), 3 * math.sin(cd)], abs=1e-3)
        assert far == pytest.approx([feeder_table.output(cd) + 1, 0], abs=1e-3)


def test_inverse_map_is_the_widest_interval_around_the_input(feeder_table):
    root = brentq(lambda c: crank_slider(c) - 5, 1, 3)
    lo, hi = feeder_table.preimage(0.0, 5, 16)
    assert (lo, hi) == pytest.approx((-root, root), abs=1e-4)
    assert feeder_table.preimage(0.0, 3, 11) == (-math.inf, math.inf)


def test_forward_map_is_the_output_range(feeder_table):
    root = brentq(lambda c: crank_slider(c) - 5, 1, 3)
    assert feeder_table.image(0.0, root) == pytest.approx((5, 10), abs=2.5e-4)  # interpolation error
    _, hi = feeder_table.preimage(0.0, 5, 16)
    assert feeder_table.image(0.0, hi) == pytest.approx((5, 10), abs=1e-9)  # the maps agree exactly
    assert feeder_table.image(-10, 10) == pytest.approx((4, 10), abs=1e-12)


def test_four_bar_rocker_follows_the_closed_form():
    """Crank 1, coupler 4, rocker 3, ground 4: the rocker pin on the branch it starts on."""
    rows = path_rows(traced("four-bar"))
    assert len(rows) > 40
    for _, _, t2, t4 in rows:
        a = np.array([math.cos(t2), math.sin(t2)])
        o = np.array([4.0, 0.0])
        d = np.linalg.norm(a - o)
        along = (d * d + 9 - 16) / (2 * d)
        across = math.sqrt(9 - along * along)
        unit = (a - o) / d
        normal = np.array([unit[1], -unit[0]])  # keeps (A - O) x (B - O) < 0, the starting branch
        b = o + along * unit + across * normal
        assert math.remainder(math.atan2(b[1], b[0] - 4) - t4, 2 * math.pi) == pytest.approx(0, abs=1e-4)


def test_four_bar_segments_split_where_the_rocker_reverses():
    segments = traced("four-bar").segments
    assert len(segments) == 5
    signs = [s.first.signs[1] for s in segments]
    assert signs == [-1, 1, -1, 1, -1]


def test_four_bar_rocker_turns_exactly_where_the_closed_form_says():
    """The rocker is extreme where crank and coupler line up: B = (4 + 3 cos t4, 3 sin t4) at 5
    from the crank's pivot (stretched: t2 = atan2(3, 4)) or at 3 (folded: B = (2, sqrt 5),
    t2 = atan2(-sqrt 5, -2)). The table alone put them at 0.6493 and -2.3038."""
    turns = [s.finish[0] for s in traced("four-bar").segments[:-1]]
    extremes = [math.atan2(3, 4), math.atan2(-math.sqrt(5), -2)]
    assert len(turns) == 4
    for t2 in turns:
        assert min(abs(math.remainder(t2 - e, 2 * math.pi)) for e in extremes) < 1e-6


def test_feeder_events_lie_on_the_crank_slider():
    """Every segment boundary of the driver's motion has the piston where the real crank-slider
    puts it (the table's interpolation was up to 5.6e-5 off), and the first drop happens
    when the piston reaches x = 5 exactly."""
    result = traced("feeder")
    for segment in result.segments:
        if segment.phase == "input":
            for q in (segment.start, segment.finish):
                assert q[1] == pytest.approx(crank_slider(q[0]), abs=1e-9)
    drop = brentq(lambda c: float(crank_slider(c)) - 5.0, 1.0, 3.0, xtol=1e-14)
    assert result.segments[0].end_time == pytest.approx(drop, abs=1e-9)


def test_exact_output_and_slope_match_the_closed_form(feeder_table):
    for cd in np.linspace(-3.0, 3.0, 13):
        h = 1e-6
        slope = (crank_slider(cd + h) - crank_slider(cd - h)) / (2 * h)
        assert feeder_table.exact(cd) == pytest.approx(crank_slider(cd), abs=1e-10)
        y, dy = feeder_table.exact_with_slope(cd)
        assert y == pytest.approx(crank_slider(cd), abs=1e-10) and dy == pytest.approx(slope, abs=1e-7)


def _feeder_with_table(tmp_path, entries) -> str:
    """The feeder with ``table = entries`` in its linkage."""
    text = fixture_path("feeder").read_text().replace('members = ["link"]\n', f'members = ["link"]\ntable = {entries}\n')
    assert f"table = {entries}" in text
    path = tmp_path / f"feeder-{entries}.toml"
    path.write_text(text)
    return str(path)


@pytest.mark.parametrize("entries", [3, 4, 11])
def test_a_coarse_table_traces_like_the_default(tmp_path, entries):
    """A table of a few entries is refined until interpolation meets the curve tolerance: the
    piston lies on the closed-form crank-slider at every sample (table = 4 once had it
    stationary at 8.0664 while the crank turned, 11 was 0.18 off), starts where the file puts
    it, and the description is the default table's."""
    mechanism = load(_feeder_with_table(tmp_path, entries))
    result = trace(analyze(mechanism))
    rows = path_rows(result)
    cd, xp = np.array([r[2] for r in rows]), np.array([r[3] for r in rows])
    assert xp[0] == 10.0
    assert np.max(np.abs(xp - crank_slider(cd))) <= mechanism.tolerance.curve
    assert describe(result) == describe(traced("feeder"))


@pytest.mark.parametrize("entries", [3, 4, 5, 11])
def test_a_refined_table_meets_the_curve_tolerance_between_its_nodes(entries):
    """Between nodes (16 points a cell, not only the midpoints the refinement checks) the
    interpolated piston and both ends of the link lie within the curve tolerance of the
    closed form: pins at the crank pin (3 cos cd, 3 sin cd) and at the piston's (xp + 1, 0)."""
    mechanism = load(fixture_path("feeder"))
    table = solve_linkage(mechanism, replace(mechanism.linkages[0], table_size=entries))
    bound = mechanism.tolerance.curve
    x = np.linspace(-math.pi, math.pi, 16 * (len(table.inputs) - 1) + 1)
    assert np.max(np.abs([table.output(v) for v in x] - crank_slider(x))) <= bound
    for cd in x[::7]:
        pose = table.pose("link", cd)
        near, far = pose[:2, :2] @ [0, 0] + pose[:2, 2], pose[:2, :2] @ [8, 0] + pose[:2, 2]
        assert math.dist(near, (3 * math.cos(cd), 3 * math.sin(cd))) <= bound
        assert math.dist(far, (crank_slider(cd) + 1, 0)) <= bound


def test_a_start_between_table_nodes_is_the_files():
    """The spring-crank's crank starts at 0.5, between nodes: its piston starts at the file's
    9.50239573221085 (the real linkage there), not at the table's chord (9.50232)."""
    result = traced("spring-crank")
    assert result.segments[0].start[1] == pytest.approx(9.50239573221085, abs=1e-12)


def test_a_table_that_cannot_meet_the_tolerance_is_refused(monkeypatch):
    """Past the most entries a table may have, the linkage is refused with the error reached."""
    monkeypatch.setattr(cspace.spaces.linkage, "MAX_TABLE", 40)
    mechanism = load(fixture_path("feeder"))
    with pytest.raises(LinkageError) as raised:
        cspace.spaces.linkage.solve_linkage(mechanism, replace(mechanism.linkages[0], table_size=4))
    message = str(raised.value)
    assert "linkage 'crank-slider'" in message and "table" in message and "between 40 table entries" in message
    assert "\n" not in message


@slow
@pytest.mark.parametrize("entries", ["1e6", "1e8", "1e9", "10001"])
def test_a_huge_table_is_refused_when_loaded(tmp_path, entries):
    """table = 1e6 ran past a minute; 1e8 and 1e9 ended in a MemoryError traceback."""
    path = _feeder_with_table(tmp_path, entries)
    done = subprocess.run([sys.executable, "-m", "cspace.cli", "trace", path], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert f"{path}: linkage 'crank-slider': table:" in done.stderr and "from 3 to 10000" in done.stderr


@slow
def test_generated_stacks_with_coarse_tables_keep_the_piston_on_the_crank_slider():
    """tests.support.fuzz draws a stack's crank-slider table coarse (3 to 12 entries) half the time and
    checks the piston against the closed form from the file's joints (before the refinement,
    every such stack of the first 60 seeds missed it, or crashed)."""
    cases = [case for case in (generate(SeededDraw(seed), ("stack",)) for seed in range(60))
             if isinstance(case.expected, CrankSlider) and "table = " in case.text][:4]
    assert len(cases) == 4
    for case in cases:
        assert closed_form_errors(trace(analyze(loads(case.text))), case.expected) == [], case.text


def _slotted_arm():
    from .test_linkage_motion import SLOTTED
    return loads(SLOTTED)


LINKAGES = {"feeder": lambda: load(fixture_path("feeder")), "four-bar": lambda: load(fixture_path("four-bar")),
            "kramer-four-bar": lambda: load(fixture_path("kramer-four-bar")), "slotted arm": _slotted_arm}


@pytest.mark.parametrize("name", sorted(LINKAGES))
def test_a_table_solved_at_once_between_steps_is_the_table_solved_step_by_step(monkeypatch, name):
    """The continuation steps to every STRIDE-th node and solves the nodes between at once: every
    unknown at every node is the step-by-step continuation's to a few float roundings (pins and a
    slider; a turning input and the four-bar's rocker), and so is the interpolation error."""
    mechanism = LINKAGES[name]()
    linkage = mechanism.linkages[0]
    at_once = solve_linkage(mechanism, linkage)
    monkeypatch.setattr(cspace.spaces.linkage, "STRIDE", 10**9)
    step_by_step = solve_linkage(mechanism, linkage)
    assert np.array_equal(at_once.inputs, step_by_step.inputs)
    units = at_once.system.units
    assert np.max(np.abs(at_once.solutions - step_by_step.solutions) / units) <= 1e-13
    assert np.max(np.abs(at_once.system.residual(at_once.solutions, at_once.inputs))) <= 1e-13


def test_a_node_solved_onto_another_branch_sends_the_table_back_to_steps(monkeypatch):
    """Newton's method from a line between two far nodes may close the joints on the other
    assembly (the feeder's link flipped over the crank pin, its piston behind the crank): that
    node fails the branch rule the steps keep, and every node is then reached step by step."""
    mechanism = load(fixture_path("feeder"))
    system = cspace.spaces.linkage.JointSystem(mechanism, mechanism.linkages[0])
    solve_many = system.correct_many

    def flipped(guesses, x, jacobians=None):
        solved, closed = solve_many(guesses, x, jacobians)
        k = len(x) // 2
        if jacobians is None and len(x) > 100:
            other = guesses[k].copy()
            other[2] = math.pi - other[2]  # the link mirrored about the vertical through the crank pin
            other[-1] = 3 * math.cos(x[k]) - 1 - math.sqrt(64 - 9 * math.sin(x[k]) ** 2)
            solved[k] = system.correct(other, float(x[k]))
        return solved, closed

    monkeypatch.setattr(system, "correct_many", flipped)
    table = cspace.spaces.linkage._tabulate(mechanism, mechanism.linkages[0], system, 301)
    assert np.max(np.abs(table.outputs - crank_slider(table.inputs))) <= 1e-12


@pytest.mark.parametrize("name", sorted(LINKAGES))
def test_an_event_solved_with_the_joints_is_where_exact_solves_bracket_it(name):
    """``exact_where`` solves the joints and a region row together: its input is where
    bisection on exact solves puts the row's crossing (to a few float roundings), and its
    output is the exact one there, for rows of every slope across random cells."""
    mechanism = LINKAGES[name]()
    table = solve_linkage(mechanism, mechanism.linkages[0])
    rng = np.random.default_rng(7)
    found = 0
    for _ in range(40):
        k = int(rng.integers(0, len(table.inputs) - 1))
        a, b = float(table.inputs[k]), float(table.inputs[k + 1])
        x0, f0 = a, float(table.outputs[k])
        along_x, along_f = rng.normal(size=2)
        cross = a + (b - a) * rng.uniform(0.05, 0.95)
        c = -((cross - x0) * along_x + (table.exact(cross) - f0) * along_f)  # the row crosses at ``cross``

        def g(x: float) -> float:
            return c + (x - x0) * along_x + (table.exact(x) - f0) * along_f

        if g(a) * g(b) >= 0:
            continue
        lo, hi = (a, b) if g(a) < 0 else (b, a)
        while abs(hi - lo) > 2 * math.ulp(abs(lo) + 1):
            middle = (lo + hi) / 2
            lo, hi = (middle, hi) if g(middle) < 0 else (lo, middle)
        at = table.exact_where(a, b, (a + b) / 2, (c, along_x, along_f), x0, f0)
        assert at is not None
        # The root is as exact as g is (its terms' roundings) over g's slope there.
        slope = abs(along_x + along_f * table.exact_with_slope(lo)[1])
        noise = 16 * np.finfo(float).eps * (abs(c) + abs(along_x) * (abs(lo) + abs(x0)) +
                                            abs(along_f) * (abs(at[1]) + abs(f0)))
        assert abs(at[0] - lo) <= noise / slope + 8 * math.ulp(abs(lo) + 1)
        assert abs(at[1] - table.exact(at[0])) <= 8 * math.ulp(abs(at[1]) + 1)
        found += 1
    assert found >= 30


def test_an_event_the_joint_solve_cannot_place_is_bracketed_by_exact_solves(monkeypatch):
    """Where ``exact_where`` gives up (near a dead point), the tracer brackets the crossing with
    exact solves: the feeder traces to the same description and path."""
    expected = traced("feeder")
    monkeypatch.setattr(cspace.spaces.linkage.LinkageTable, "exact_where", lambda *args: None)
    result = trace(analyze(load(fixture_path("feeder"))))
    assert describe(result) == describe(expected)
    assert np.allclose(np.array(path_rows(result))[:, 2:].astype(float),
                       np.array(path_rows(expected))[:, 2:].astype(float), rtol=0, atol=1e-12)
