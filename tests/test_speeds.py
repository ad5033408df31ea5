"""Speeds and tilts that change nothing a mechanism does (issue 23, items 16 to 18).

A force's speed only shares out the clock of an external step (forces act infinitely
faster than inputs), and an input's speed only sets the input time's unit: neither may
change which parts move, what drives what, or where anything stops. An axis tilted off
a face by less than the angle tolerance runs along it; tilted by more, the face drives
it at the ratio the tilt gives.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from cspace import TraceError, analyze, describe, load, loads, trace
from cspace.testing import replay

from .common import each, fixture_path, traced
from .support.fuzz import moved
from .test_scale import behaviour

GATE = fixture_path("spring-gate").read_text()


def _tilted(axis: str) -> str:
    return GATE.replace("axis = [1, 0]", f"axis = {axis}")


@pytest.mark.parametrize("axis", ["[1, 1e-12]", "[1, -1e-12]", "[1e9, 1e-9]", "[1, 5e-8]"])
def test_an_axis_tilted_within_the_angle_tolerance_runs_along_the_face(axis):
    """The spring gate's block on an axis within the angle tolerance (1e-7) of the gate's
    bottom face: released when the gate's bottom passes its top at t = 1, as the level
    block is (it used to end in 'a force meets no resistance' tilted up). Only why a segment
    ends may name one contact more: tilted down, the block meets the wall on the table, and
    the pair space of a block that moves along y as well names its bottom there too."""
    result = trace(analyze(loads(_tilted(axis))))
    assert _figure_4(describe(result)) == _figure_4(describe(traced("spring-gate")))
    assert replay(result) == []


def _figure_4(text: str) -> str:
    """A description without the comments saying why each segment ended."""
    return "\n".join(line for line in text.split("\n") if not line.startswith("; ends: "))


@pytest.mark.parametrize("tilt", [1e-6, 1e-5])
def test_an_axis_tilted_beyond_it_follows_the_face_that_holds_it(tilt):
    """Tilted up by more than the angle tolerance, the block rises as it moves right: it
    follows the lifting gate's bottom, xb = (yg - 1) / tilt, until its top left corner
    passes the gate (xb = 3, at t = 1 + 3 tilt), then the spring drives it to the wall."""
    result = trace(analyze(loads(_tilted(f"[1, {tilt}]"))))
    h = np.hypot(1, tilt)  # xb is measured along the axis: the block is at x = xb / h, y = xb tilt / h
    [follow] = [s for s in result.segments if s.phase == "input" and s.first.signs == (1, 1)]
    assert follow.start == pytest.approx([0, 1], abs=1e-9)
    assert follow.finish == pytest.approx([3 * h, 1 + 3 * tilt], abs=1e-9)
    params, configs = follow.knots()
    assert np.abs(configs[:, 1] - (1 + configs[:, 0] * tilt / h)).max() <= result.mechanism.tolerance.length
    assert result.segments[-1].finish[0] == pytest.approx(18 * h, abs=1e-6)
    assert replay(result) == []


@pytest.mark.parametrize("name", each(["eccentric-cam", "rim-lock"]))
def test_a_tiny_mechanism_at_the_default_force_speed_behaves_as_drawn(name):
    """Drawn a millionth as large with its forces left at the default speed 1 (a million
    sizes a second): the same segments and the same times as the fixture. It used to
    leave the free space unless the force speed was lowered to 0.1."""
    original = load(fixture_path(name))
    tiny = moved(original, scale=1e-6)
    tiny = replace(tiny, forces=tuple(replace(f, speed=1.0) for f in tiny.forces))
    result, other = traced(name), trace(analyze(tiny))
    assert behaviour(other) == behaviour(result)
    assert [s.end_time for s in other.segments] == pytest.approx([s.end_time for s in result.segments], abs=1e-6)


@pytest.mark.parametrize("speed", ["1e-9", "1e9"])
def test_a_force_speed_far_from_the_inputs_changes_nothing(speed):
    """The spring gate's spring at a billionth and a billion times the gate's speed: the
    same description (a force's speed only samples its motion)."""
    text = GATE.replace('direction = 1\n', f'direction = 1\nspeed = {speed}\n')
    assert describe(trace(analyze(loads(text)))) == describe(traced("spring-gate"))


def test_an_input_a_billion_times_faster_than_the_forces_changes_only_the_clock():
    """The gate lifting at 1e9 (the spring at its default speed 1): the same segments,
    every time a billionth of the fixture's."""
    fast = trace(analyze(loads(GATE.replace("velocities = { yg = 1.0 }", "velocities = { yg = 1e9 }")
                               .replace("time = 3", "time = 3e-9").replace("sampling = 0.5", "sampling = 5e-10"))))
    result = traced("spring-gate")
    assert behaviour(fast) == behaviour(result)
    assert [s.end_time * 1e9 for s in fast.segments] == pytest.approx([s.end_time for s in result.segments])


def test_a_motion_without_end_names_what_moves():
    """A block falling at a billionth of the input's speed with nothing under it: the error
    names its coordinate (it used to name none: the motion was below the inputs' velocity
    tolerance)."""
    text = """
[mechanism]
name = "fall"
time = 1
[[parts]]
name = "block"
motion = "fixed-axes"
coordinates = [ { name = "yb", axis = [0, 1], initial = 0 } ]
[[parts.slices]]
z = [0, 1]
profiles = [ { rect = [0, 0, 1, 1] } ]
[[parts]]
name = "pusher"
motion = "fixed-axes"
coordinates = [ { name = "xp", axis = [1, 0], initial = 0 } ]
[[parts.slices]]
z = [0, 1]
profiles = [ { rect = [-3, 0, -2, 1] } ]
[[forces]]
kind = "gravity"
coordinate = "yb"
direction = -1
speed = 1e-9
[[inputs]]
velocities = { xp = 1.0 }
sampling = 0.5
"""
    with pytest.raises(TraceError, match=r"part 'block': at t = 0: yb moves without end"):
        trace(analyze(loads(text)))
