"""Each fixture against its closed-form kinematics."""

from __future__ import annotations

import math

import pytest

from cspace.report.describe import path_rows

from .common import FIXTURES, each, traced


def test_pusher_collects_the_blocks_against_the_wall():
    trace = traced("pusher")
    assert trace.end_reason == "input blocked"
    final = trace.segments[-1].finish
    # Widths 3, 2, 4 stacked against the wall at x = 36.
    assert final == pytest.approx([27, 27, 0, 30, 0, 32, 0], abs=1e-9)
    assert trace.segments[-1].end_time == pytest.approx(27, abs=1e-9)


def test_pusher_picks_up_one_block_at_a_time():
    trace = traced("pusher")
    starts = [s.start_time for s in trace.segments]
    # Contact with a at xp = 5; a reaches b at 10 - 3; b reaches c at 15 - 2 - 3.
    assert starts == pytest.approx([0, 5, 7, 10], abs=1e-9)
    assert [len(s.first.lines[0].targets) if s.first.lines else 0 for s in trace.segments] == [0, 1, 2, 3]


def wedge_height(xw: float) -> float:
    return min(5.0, (11.0 - xw) / 2.0)


def test_wedge_follower_rides_the_slope():
    rows = path_rows(traced("wedge"))
    assert len(rows) > 25
    for _, _, xw, yf in rows:
        assert yf == pytest.approx(wedge_height(xw), abs=1e-9)


def test_wedge_stop_blocks_the_first_input_and_the_second_takes_over():
    segments = traced("wedge").segments
    assert segments[0].finish[0] == pytest.approx(8, abs=1e-9)  # the stop at xw = 8
    assert [s.first.motion for s in segments] == [0, 1, 1]
    # Down the slope the follower falls under its own weight; back up the wedge drives it.
    assert [len(s.first.roots) for s in segments] == [2, 1, 1]
    assert segments[1].first.lines[0].through == "contact"


def cam_height(xc: float) -> float:
    return -2.0 + math.sqrt(25.0 - xc * xc) if abs(xc) <= 3 else 2.0


def test_cam_follower_tracks_the_profile_within_the_arc_tolerance():
    trace = traced("cam")
    arc = trace.mechanism.tolerance.arc
    rows = path_rows(trace)
    assert len(rows) > 60
    for _, _, xc, yf in rows:
        # Outward linearization: never below the true profile, at most the arc tolerance above.
        assert -1e-9 <= yf - cam_height(xc) <= arc + 1e-9


def test_cam_follower_rises_then_falls():
    signs = [s.first.signs[1] for s in traced("cam").segments if s.first.signs[1]]
    assert signs == [1, -1]


def test_spring_gate_releases_the_block_when_the_gate_clears_it():
    trace = traced("spring-gate")
    for time, _, xb, yg in path_rows(trace):
        assert yg == pytest.approx(time, abs=1e-9)  # the gate lifts at 1 unit/s throughout
        # Held against the gate until its bottom passes the block's top at t = 1; then at the wall.
        if time < 1 - 1e-9:
            assert xb == pytest.approx(0, abs=1e-9)
        elif time > 1 + 1e-9:
            assert xb == pytest.approx(18, abs=1e-9)
    moving = [s for s in trace.segments if s.finish[0] != s.start[0]]
    assert moving and all(s.start_time == pytest.approx(1, abs=1e-9) for s in moving)
    assert trace.segments[-1].finish == pytest.approx([18, 3], abs=1e-9)


def test_spring_gate_contact_ends_with_a_segment():
    first = traced("spring-gate").segments[0]
    assert first.end_time == pytest.approx(1, abs=1e-9)
    assert "block.right/gate.left" in map(str, first.first.contacts)


def test_ramp_block_slides_to_the_lip_once_the_finger_clears_it():
    trace = traced("ramp-release")
    tan30 = math.tan(math.pi / 6)
    release = math.sqrt(3) - 1  # the finger's bottom (y = 5 + f) passes the corner at y = 4 + sqrt 3
    for time, _, xb, yb, f in path_rows(trace):
        assert f == pytest.approx(time, abs=1e-9)
        assert yb == pytest.approx(xb * tan30, abs=1e-9)  # it can only slide along the ramp
        if time < release - 1e-9:
            assert (xb, yb) == pytest.approx((0, 0), abs=1e-9)
        elif time > release + 1e-9:
            assert (xb, yb) == pytest.approx((-3 * math.sqrt(3), -3), abs=1e-9)
    moving = [s for s in trace.segments if s.finish[1] != s.start[1]]
    assert moving and all(s.start_time == pytest.approx(release, abs=1e-9) for s in moving)


@pytest.mark.parametrize("name", each(FIXTURES))
def test_every_moving_coordinate_drives_or_is_driven(name):
    """Figure 4 accounts for every motion: each moving coordinate of a segment is one of its
    driving motions or reached from one through its drives lines."""
    for segment in traced(name).segments:
        piece = segment.first
        moving = {j for j, sign in enumerate(piece.signs) if sign}
        accounted = set(piece.roots) | {t for line in piece.lines for t in line.targets}
        assert moving <= accounted, f"segment {segment.index}: {sorted(moving - accounted)} unaccounted"
        assert all(line.source in accounted for line in piece.lines)


def test_each_segment_says_what_ended_it():
    pusher = [s.end for s in traced("pusher").segments]
    assert pusher == ["contact begins: pusher.right/a.left", "contact begins: a.right/b.left",
                      "contact begins: b.right/c.left", "input blocked"]
    wedge = traced("wedge").segments
    assert wedge[0].end == "input blocked"  # the stop at xw = 8 blocks the first input; the second takes over
    assert wedge[-1].end == "time allotment used"
    four_bar = traced("four-bar").segments
    assert [s.end for s in four_bar[:-1]] == ["t4 reverses"] * (len(four_bar) - 1)
    gate = [s.end for s in traced("spring-gate").segments]
    assert gate[0] == "contact begins: block.top/gate.bottom; contact ends: block.right/gate.left"


def test_spring_crank_turns_the_free_crank_until_the_piston_meets_the_stop(monkeypatch):
    """A linkage moved through its output: the spring pulls the piston to the stop at x = 6 and
    the crank follows the crank-slider's closed form to where it puts the piston there. This
    is the path a motion takes cell by cell (Tracer.follow_cells, Mode.velocity_at)."""
    from cspace import analyze, load, trace
    from cspace.tracing.dynamics import Mode
    from cspace.tracing.tracer import Tracer

    from .common import fixture_path

    used = {"cells": 0, "velocities": 0}
    cells, velocity_at = Tracer.follow_cells, Mode.velocity_at
    monkeypatch.setattr(Tracer, "follow_cells", lambda *a: used.__setitem__("cells", used["cells"] + 1) or cells(*a))
    monkeypatch.setattr(Mode, "velocity_at",
                        lambda *a: used.__setitem__("velocities", used["velocities"] + 1) or velocity_at(*a))
    result = trace(analyze(load(fixture_path("spring-crank"))))
    assert used["cells"] >= 1 and used["velocities"] >= 2
    crank = brent_root(lambda c: 3 * math.cos(c) - 1 + math.sqrt(64 - 9 * math.sin(c) ** 2) - 6, 0.5, math.pi)
    assert result.segments[-1].finish == pytest.approx([crank, 6.0], abs=1e-9)
    for _, _, cd, xp in path_rows(result):
        # Between its exact ends the path follows the table (interpolation error below 2e-4 here).
        assert xp == pytest.approx(3 * math.cos(cd) - 1 + math.sqrt(64 - 9 * math.sin(cd) ** 2), abs=2e-4)
    (segment,) = result.segments
    assert [(line.source, line.targets) for line in segment.first.lines] == [(1, (0,))]  # piston drives crank
    assert result.end_reason == "no input motions"


def brent_root(f, a: float, b: float) -> float:
    from scipy.optimize import brentq

    return brentq(f, a, b, xtol=1e-15)
