"""Friction (paper section 3): touching sticky faces move in tandem along the faces.

Each mechanism is traced sticky and smooth; the closed forms are what the paper's rule
says the parts do, and the geometry oracle (:func:`cspace.testing.replay`) checks
that no parts overlap, nothing force-loaded rests on nothing, and gripped parts never
slip against each other while they touch.
"""

from __future__ import annotations

import numpy as np
import pytest

from cspace import analyze, load, trace
from cspace.loader import loads
from cspace.testing import SLIP, Scene, replay

from .common import fixture_path

CONVEYOR = """
[mechanism]
time = 8

[[parts]]
name = "frame"
motion = "fixed"

[[parts.slices]]
z = [0, 1]
profiles = [{ name = "table", rect = [-20, -2, 40, -1] }, { name = "wall", rect = [9, 0.5, 10, 10] }]

[[parts]]
name = "plate"
motion = "fixed-axes"
coordinates = [{ name = "xp", axis = [1, 0] }]

[[parts.slices]]
z = [0, 1]
profiles = [{ rect = [0, -1, 10, 0], sticky = ["top"] }]

[[parts]]
name = "block"
motion = "fixed-axes"
coordinates = [{ name = "xb", axis = [1, 0] }, { name = "yb", axis = [0, 1], limits = [-5, 5] }]

[[parts.slices]]
z = [0, 1]
profiles = [{ rect = [2, 0, 4, 2], sticky = true }]

[[forces]]
kind = "gravity"
coordinate = "yb"
direction = -1

[[inputs]]
velocities = { xp = 1.0 }
sampling = 0.5
"""

BRAKE = """
[mechanism]
time = 3

[[parts]]
name = "frame"
motion = "fixed"

[[parts.slices]]
z = [0, 1]
profiles = [{ rect = [8, -3, 9, 3] }]

[[parts]]
name = "wheel"
motion = "fixed-axes"
coordinates = [{ name = "w", pivot = [0, 0] }]

[[parts.slices]]
z = [0, 1]
profiles = [{ circle = [0, 0], radius = 5, sticky = true }]

[[parts]]
name = "pad"
motion = "fixed-axes"
coordinates = [{ name = "xpad", axis = [1, 0], initial = 0.5, limits = [-1, 1] }]

[[parts.slices]]
z = [0, 1]
profiles = [{ rect = [5, -1, 6, 1], sticky = ["left"] }]

[[forces]]
kind = "spring"
coordinate = "xpad"
direction = -1

[[inputs]]
name = "the wheel turns"
velocities = { w = 1.0 }
sampling = 0.25
"""


def _traced(text: str, sticky: bool = True, **replacements: str):
    for old, new in replacements.items():
        text = text.replace(old, new)
    if not sticky:
        text = text.replace(', sticky = ["top"]', "").replace(", sticky = true", "").replace(', sticky = ["left"]', "")
    return trace(analyze(loads(text)))


def _column(result, name: str) -> np.ndarray:
    j = result.mechanism.coordinate_index[name]
    return np.array([q[j] for _, _, q in result.samples()])


def test_a_block_on_a_sticky_plate_rides_with_it_until_a_wall_stops_both():
    """xb - xp keeps its value at every sample; the wall meets the block's right face
    (x = 4 + xb) at x = 9, so the plate's input is blocked at t = 5 with xp = 5."""
    result = _traced(CONVEYOR)
    xp, xb, yb = (_column(result, name) for name in ("xp", "xb", "yb"))
    assert np.allclose(xb - xp, 0.0, atol=1e-9)
    assert np.allclose(yb, 0.0)
    assert result.end_reason == "input blocked"
    assert result.segments[-1].end_time == pytest.approx(5.0, abs=1e-9)
    assert xp[-1] == pytest.approx(5.0, abs=1e-9)
    assert [line.through for line in result.segments[0].first.lines] == ["friction"]
    assert replay(result) == []


def test_a_block_on_a_smooth_plate_stays_until_the_plate_leaves_it_then_falls():
    """Smooth: the plate slides under the block (xb stays 0) until the block's support
    ends (the plate's left end passes x = 4 at xp = 4), then it falls onto the table."""
    result = _traced(CONVEYOR, sticky=False)
    xb, yb = _column(result, "xb"), _column(result, "yb")
    assert np.allclose(xb, 0.0)
    assert yb[-1] == pytest.approx(-1.0, abs=1e-9)
    assert result.segments[0].end_time == pytest.approx(4.0, abs=1e-9)
    assert replay(result) == []


def test_a_grip_lets_go_when_the_parts_draw_apart():
    """The plate drops away while sliding: the block, held up by its limit, stays where
    it is (no grip drags it along once the faces part)."""
    result = _traced(CONVEYOR, **{
        'coordinates = [{ name = "xp", axis = [1, 0] }]':
            'coordinates = [{ name = "xp", axis = [1, 0] }, { name = "yp", axis = [0, 1], limits = [-5, 5] }]',
        "limits = [-5, 5] }]\n\n[[parts.slices]]\nz = [0, 1]\nprofiles = [{ rect = [2, 0, 4, 2]":
            "limits = [0, 5] }]\n\n[[parts.slices]]\nz = [0, 1]\nprofiles = [{ rect = [2, 0, 4, 2]",
        "velocities = { xp = 1.0 }": "velocities = { xp = 1.0, yp = -1.0 }",
        "time = 8": "time = 3",
        "rect = [-20, -2, 40, -1]": "rect = [-20, -12, 40, -11]"})
    assert np.allclose(_column(result, "xb"), 0.0) and np.allclose(_column(result, "yb"), 0.0)
    assert _column(result, "xp")[-1] == pytest.approx(3.0, abs=1e-9)
    assert replay(result) == []


def test_a_sticky_pad_pressed_on_a_turning_wheel_stops_it():
    """The pad translates across the rim, so only the wheel's turn takes part and it is
    held (the paper's u = constant): the input is blocked at once. Smooth, the wheel
    turns under the pad for the whole allotment."""
    sticky = _traced(BRAKE)
    assert sticky.end_reason == "input blocked"
    assert sticky.segments == [] or np.allclose(_column(sticky, "w"), 0.0)
    smooth = _traced(BRAKE, sticky=False)
    assert _column(smooth, "w")[-1] == pytest.approx(3.0, abs=1e-9)
    assert replay(smooth) == []


APEX = """
[mechanism]
time = 4

[[parts]]
name = "frame"
motion = "fixed"
[[parts.slices]]
z = [0, 1]
profiles = [{ name = "table", rect = [-60, -2, 80, 0] }]

[[parts]]
name = "piston"
motion = "fixed-axes"
coordinates = [{ name = "xp", axis = [1, 0], initial = 4.827 }]
[[parts.slices]]
z = [0, 1]
profiles = [{ sticky = true, rect = [0, 0, 9.259, 0.574] }]

[[parts]]
name = "block1"
motion = "fixed-axes"
coordinates = [{ name = "x1", axis = [1, 0], initial = 10.0 }, { name = "y1", axis = [0, 1], initial = 0.574 }]
[[parts.slices]]
z = [0, 1]
profiles = [{ sticky = true, path = [[0, 0], [1.071, 0], [1.071, 1.771], [0.333, 2.997], [0, 0.815], [0, 0]] }]

[[parts]]
name = "block2"
motion = "fixed-axes"
coordinates = [{ name = "x2", axis = [1, 0], initial = 10.0 }, { name = "y2", axis = [0, 1], initial = 3.571 }]
[[parts.slices]]
z = [0, 1]
profiles = [{ sticky = true, path = [[0, 0], [3.378, 0], [3.378, 0.323], [1.378, 0.323], [1.378, 0.791], [0, 0.791], [0, 0]] }]

[[forces]]
kind = "gravity"
coordinate = "y1"
direction = -1

[[forces]]
kind = "gravity"
coordinate = "y2"
direction = -1

[[inputs]]
velocities = { xp = -1.0 }
sampling = 0.25
"""


def test_a_corner_of_sticky_faces_grips():
    """Found by the fuzz (a sticky stack): block 2 balances on block 1's apex, a corner
    of two sticky faces. Contacts name a corner ``f2+f3``; read as one face name it
    gripped nothing, and block 1 slid out from under block 2 (a slip the replay saw).
    The three ride the piston together to the end of the allotment."""
    result = _traced(APEX)
    xp, x1, x2 = (_column(result, name) for name in ("xp", "x1", "x2"))
    assert np.allclose(x1 - xp, 10.0 - 4.827) and np.allclose(x2 - xp, 10.0 - 4.827)
    assert xp[-1] == pytest.approx(4.827 - 4.0, abs=1e-9)
    assert replay(result) == []


def test_the_replay_finds_gripped_parts_slipping(monkeypatch):
    """The oracle is independent of the friction code: with the grips switched off the
    plate slides under the sticky block, and every sample while they touch is a slip."""
    import cspace.friction

    real = cspace.friction.Friction.__init__

    def without_friction(self, mechanism):
        real(self, mechanism)
        self.any = False

    monkeypatch.setattr(cspace.friction.Friction, "__init__", without_friction)
    violations = replay(_traced(CONVEYOR))
    assert violations and {v.kind for v in violations} == {SLIP}
    assert violations[0].parts == ("plate", "block")


def test_the_shoe_brake_stops_its_drum_when_a_shoe_touches_it():
    """The paper's shoe brake (fixtures/shoe-brake.toml, two simultaneous inputs): the drum
    turns with the input (d = t) and the lever with it (c = 1.4 - t / 2) while the lever
    opens the shoes; on the real shapes neither shoe touches the drum until the input is
    blocked, and then one does (within the turning bound); the drum never turns again."""
    result = trace(analyze(load(fixture_path("shoe-brake"))))
    mechanism = result.mechanism
    assert result.end_reason == "input blocked"
    blocked = max(s.end_time for s in result.segments if s.first.phase == "input")
    assert 1.0 < blocked < 3.0
    names = [c.name for c in mechanism.coordinates]
    scene = Scene(mechanism)
    bound = mechanism.tolerance.turning_gap + mechanism.tolerance.length
    at_block = []
    for time, segment, q in result.samples():
        values = dict(zip(names, map(float, q)))
        shapes = scene.place(values)
        gap = min(shapes[("drum", 0)].distance(shapes[(shoe, 0)]) for shoe in ("left-shoe", "right-shoe"))
        assert values["d"] == pytest.approx(min(time, blocked), abs=1e-9)
        if result.segments[segment - 1].first.phase == "input":
            assert values["c"] == pytest.approx(1.4 - time / 2, abs=1e-9)
        if time < blocked - 0.05:
            assert gap > bound, time
        if abs(time - blocked) <= 1e-12:
            at_block.append(gap)
    assert at_block and max(at_block) <= bound
    assert replay(result) == []


def test_statistics_count_friction_as_dynamics_and_simultaneous_inputs_apart():
    """Table 2's rows for the shoe brake read as the paper's: friction among the dynamics,
    two input motions (the drum's and the lever's, one [[inputs]] entry on one clock)."""
    from cspace.describe import statistics

    stats = statistics(trace(analyze(load(fixture_path("shoe-brake")))))
    assert stats["dynamics"] == "friction, spring"
    assert stats["input motions"] == 2
    assert statistics(_traced(CONVEYOR, sticky=False))["dynamics"] == "gravity"
