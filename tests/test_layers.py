"""Parts that shift along z (cspace.spaces.layers): a spring-loaded pin sliding under a plate
pops into a hole as soon as it is wholly under it, then the hole's wall stops it; the
generated pins of tests.support.fuzz do the same against their closed forms.

The oracle is the drawing: the pin (1 wide) is under the hole (x from 2 to 4) from
x = 2.5 to 3.5, so it rises there (s from 0 to 1, its limit) and is blocked at 3.5.
"""

from __future__ import annotations

import numpy as np
import pytest

import cspace.tracing.regions
from cspace import analyze, loads, trace
from cspace.testing import HELD_BY_NOTHING, replay

from .common import seeds
from .support.fuzz import SeededDraw, closed_form_errors, generate

PIN = """
[mechanism]
name = "pin"
time = 10

[[parts]]
name = "frame"
motion = "fixed"

[[parts.slices]]
z = [1, 2]
profiles = [{ name = "plate", rect = [-10, -3, 10, 3] }, { name = "hole", rect = [2, -1, 4, 1] }]

[[parts]]
name = "pin"
motion = "fixed-axes"
coordinates = [{ name = "x", axis = [1, 0], initial = -5 }, { name = "s", axis = "z", limits = [0, 1] }]

[[parts.slices]]
z = [0, 1]
profiles = [{ rect = [-0.5, -0.5, 0.5, 0.5] }]

[[forces]]
kind = "spring"
coordinate = "s"
direction = 1

[[inputs]]
velocities = { x = 1 }
sampling = 0.5
"""


def _samples(result):
    times = np.array([t for t, _, _ in result.samples()])
    q = np.array([c for _, _, c in result.samples()])
    return times, q[:, 0], q[:, 1]


def test_a_spring_loaded_pin_pops_into_a_hole_and_is_stopped_by_its_wall():
    result = trace(analyze(loads(PIN)))
    near = result.mechanism.tolerance.length  # the hole's edge is found within it
    times, x, s = _samples(result)
    assert result.end_reason == "input blocked"
    assert np.all(s[x < 2.5 - near] == 0)  # under the plate: its bottom face holds the pin down
    assert np.allclose(x, np.minimum(-5 + times, 3.5), atol=near)
    assert np.all(s[(x > 2.5 + near)] == 1) and x[-1] == pytest.approx(3.5, abs=near)
    rising = [seg for seg in result.segments if seg.phase == "external"]
    assert len(rising) == 1 and rising[0].start[0] == pytest.approx(2.5, abs=near)
    assert replay(result) == []


def test_replay_sees_the_pin_held_by_nothing_when_steps_miss_the_hole(monkeypatch):
    """The oracle covers the class: if a step along a band's end did not end where the z
    faces stop touching, the pin would slide over the hole with its spring pushing it up;
    the replay, probing the real shapes carried by the shift, finds it held by nothing."""
    monkeypatch.setattr(cspace.tracing.regions.RegionDiagram, "z_change", lambda self, key, q, v, horizon: horizon)
    result = trace(analyze(loads(PIN)))
    found = {(v.kind, v.parts) for v in replay(result)}
    assert (HELD_BY_NOTHING, ("pin",)) in found


def test_a_pin_without_planar_motion_is_held_or_free_by_its_layers():
    """No planar coordinate: the band's parts either clear each other in the plane (the pin
    under the hole rises) or overlap (under the plate it stays down)."""
    for start, risen in ((3.0, 1.0), (-5.0, 0.0)):
        text = PIN.replace('{ name = "x", axis = [1, 0], initial = -5 }, ', "").replace(
            "rect = [-0.5, -0.5, 0.5, 0.5]", f"rect = [{start - 0.5}, -0.5, {start + 0.5}, 0.5]")
        text = text[:text.index("[[inputs]]")]  # the spring alone, at the start
        result = trace(analyze(loads(text)))
        path = [float(q[0]) for _, _, q in result.samples()] or [0.0]  # held down: no motion at all
        assert path[-1] == pytest.approx(risen, abs=1e-12)
        assert replay(result) == []


@pytest.mark.parametrize("seed", seeds(40, 5))
def test_generated_pins_rise_into_the_first_hole_they_fit(seed):
    """tests.support.fuzz's pin family: square or round pins, either way, under plates with holes
    some too narrow; each against its closed form and the replay on the real shapes."""
    case = generate(SeededDraw(seed), ("pin",))
    result = trace(analyze(loads(case.text)))
    assert closed_form_errors(result, case.expected) == [], case.text
    assert replay(result) == [], case.text
