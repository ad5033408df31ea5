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
from cspace.io.loader import loads
from cspace.testing import SLIP, Scene, replay

from .common import fixture_path, seeds, slow

# A sticky block on a sticky plate, a wall ahead of it (the README's example of friction).
CONVEYOR = fixture_path("conveyor").read_text()

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
    assert sticky.segments == () or np.allclose(_column(sticky, "w"), 0.0)
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
    import cspace.tracing.friction

    real = cspace.tracing.friction.Friction.__init__

    def without_friction(self, mechanism):
        real(self, mechanism)
        self.any = False

    monkeypatch.setattr(cspace.tracing.friction.Friction, "__init__", without_friction)
    violations = replay(_traced(CONVEYOR))
    assert violations and {v.kind for v in violations} == {SLIP}
    assert violations[0].parts == ("plate", "block")


@slow
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


@slow
def test_statistics_count_friction_as_dynamics_and_simultaneous_inputs_apart():
    """Table 2's rows for the shoe brake read as the paper's: friction among the dynamics,
    two input motions (the drum's and the lever's, one [[inputs]] entry on one clock)."""
    from cspace.report.describe import statistics

    stats = statistics(trace(analyze(load(fixture_path("shoe-brake")))))
    assert stats["dynamics"] == "friction, spring"
    assert stats["input motions"] == 2
    assert statistics(_traced(CONVEYOR, sticky=False))["dynamics"] == "gravity"


# -- a grip where a contact spans sticky and smooth faces (issue 23, item 7) ---------------

SLIDER_ON_A_PATCH = """
[mechanism]
time = 12

[[parts]]
name = "frame"
motion = "fixed"

[[parts.slices]]
z = [0, 1]
profiles = [{table}, {{ name = "wall", rect = [39, 0, 40, 5] }}]

[[parts]]
name = "slider"
motion = "fixed-axes"
coordinates = [{{ name = "xs", axis = [1, 0], initial = {x0} }}, {{ name = "ys", axis = [0, 1] }}]

[[parts.slices]]
z = [0, 1]
profiles = [{slider}]

[[forces]]
kind = "gravity"
coordinate = "ys"
direction = -1
{drive}"""

# A smooth table with a sticky patch on top from x = 10 to 14: three profiles of one part,
# their tops meeting at corners, or one path whose top is three collinear faces.
TABLES = {
    "three profiles": '{ name = "near", rect = [-20, -2, 10, 0] }, '
                      '{ name = "patch", rect = [10, -2, 14, 0], sticky = ["top"] }, '
                      '{ name = "far", rect = [14, -2, 40, 0] }',
    "one path": '{ name = "table", path = [[-20, -2], [40, -2], [40, 0], [14, 0], [10, 0], [-20, 0], [-20, -2]], '
                'faces = ["bottom", "right", "far", "patch", "near", "left"], sticky = ["patch"] }',
}
STICKY_BOTTOM = '{ rect = [0, 0, 2, 1], sticky = ["bottom"] }'
INPUT = "\n[[inputs]]\nvelocities = {{ xs = {rate} }}\nsampling = 0.5\n"
SPRING = '\n[[forces]]\nkind = "spring"\ncoordinate = "xs"\ndirection = {rate}\n'


def _patch(table: str, x0: float = 0.0, rate: float = 1.0, drive: str = INPUT, slider: str = STICKY_BOTTOM,
           sticky: bool = True) -> str:
    text = SLIDER_ON_A_PATCH.format(table=TABLES[table], x0=x0, slider=slider,
                                    drive=drive.format(rate=rate if drive == INPUT else int(rate)))
    return text if sticky else text.replace(', sticky = ["top"]', "").replace(', sticky = ["patch"]', "") \
        .replace(', sticky = ["bottom"]', "")


@pytest.mark.parametrize("table", sorted(TABLES))
@pytest.mark.parametrize("drive", ["input", "spring"])
def test_a_sticky_bottom_stops_where_it_meets_a_sticky_patch_let_into_a_smooth_table(table, drive):
    """The slider (width 2) slides on the smooth table until its sticky bottom meets the
    sticky patch (x = 10): there the contact is named by the corner between the table's
    faces (``near.top+patch.top`` or ``table.near+table.patch``), and sticky touches sticky,
    so it grips at once: xs = 10 - 2 = 8. Pushed by the input, the input is blocked at
    t = 8; pushed by a spring, it stops there."""
    result = trace(analyze(loads(_patch(table, drive=INPUT if drive == "input" else SPRING))))
    xs = _column(result, "xs")
    assert xs[-1] == pytest.approx(8.0, abs=1e-9) and xs.max() == pytest.approx(8.0, abs=1e-9)
    assert np.allclose(_column(result, "ys"), 0.0)
    if drive == "input":
        assert result.end_reason == "input blocked"
        assert result.segments[-1].end_time == pytest.approx(8.0, abs=1e-9)
    assert replay(result) == []


@pytest.mark.parametrize("table", sorted(TABLES))
def test_a_wide_sticky_bottom_grips_a_narrower_patch_and_from_the_far_side(table):
    """A slider wider than the patch (6 > 4) is never on the patch alone: it grips where its
    bottom first reaches x = 10 (xs = 4). Coming from the far side it grips where its left
    end reaches the patch's right end, x = 14. Smooth, it slides on to the wall at x = 39."""
    wide = STICKY_BOTTOM.replace("rect = [0, 0, 2, 1]", "rect = [0, 0, 6, 1]")
    assert _column(trace(analyze(loads(_patch(table, slider=wide)))), "xs")[-1] == pytest.approx(4.0, abs=1e-9)
    back = trace(analyze(loads(_patch(table, x0=20.0, rate=-1.0))))
    assert _column(back, "xs")[-1] == pytest.approx(14.0, abs=1e-9)
    assert back.segments[-1].end_time == pytest.approx(6.0, abs=1e-9)
    smooth = trace(analyze(loads(_patch(table, slider=wide, sticky=False))))
    assert _column(smooth, "xs")[-1] == pytest.approx(12.0, abs=1e-9)  # the allotment ends first
    assert all(replay(r) == [] for r in (back, smooth))


def test_a_slider_stopped_at_the_patch_backs_away_from_it():
    """Sticky faces that meet end to end grip against sliding onto each other, not against
    sliding apart: the slider that stopped at xs = 8 on reaching the patch backs off freely
    when the next input reverses it (3 s at -1: xs = 5)."""
    text = _patch("one path").replace("sampling = 0.5\n", "sampling = 0.5\nduration = 10\n") + \
        "\n[[inputs]]\nvelocities = { xs = -1.0 }\nsampling = 0.5\nduration = 3\n"
    result = trace(analyze(loads(text.replace("time = 12", "time = 13"))))
    assert [s.finish[0] for s in result.segments] == pytest.approx([8.0, 5.0], abs=1e-9)
    assert result.segments[-1].end_time == pytest.approx(11.0, abs=1e-9)
    assert replay(result) == []


def test_a_sticky_side_at_the_foot_of_a_smooth_bottom_does_not_grip():
    """The block's smooth bottom lies on a sticky table; its sticky sides end on the table
    (at its bottom corners), touching it at points inside a flush smooth contact: sticky
    material touches sticky material along nothing, and it slides to the wall (x = 37),
    where its sticky right side meets the sticky wall flush and grips."""
    table = '{ name = "table", rect = [-20, -2, 40, 0], sticky = ["top"] }'
    text = _patch("one path", slider='{ rect = [0, 0, 2, 1], sticky = ["left", "right"] }') \
        .replace(TABLES["one path"], table).replace('{ name = "wall", rect = [39, 0, 40, 5] }',
                                                      '{ name = "wall", rect = [39, 0, 40, 5], sticky = ["left"] }')
    result = trace(analyze(loads(text.replace("time = 12", "time = 40"))))
    assert _column(result, "xs")[-1] == pytest.approx(37.0, abs=1e-9)
    assert result.end_reason == "input blocked"
    assert replay(result) == []


def test_the_replay_finds_a_slip_across_a_corner_under_the_corner_rule(monkeypatch):
    """The oracle sees the class: under the old rule (a contact grips only if every face it
    names is sticky) the slider slides across the corner onto the patch, and the replay
    reports the slip of its sticky bottom on the sticky patch at every sample there."""
    from cspace.tracing.friction import Friction, faces_of

    def corner_rule(self, contact):
        return faces_of(contact.faces_a) <= self.parts[contact.part_a].sticky and \
            faces_of(contact.faces_b) <= self.parts[contact.part_b].sticky

    monkeypatch.setattr(Friction, "sticky", corner_rule)
    result = trace(analyze(loads(_patch("three profiles"))))
    assert _column(result, "xs")[-1] == pytest.approx(10.0, abs=1e-9)  # slid on until fully on the patch
    violations = replay(result)
    assert violations and {v.kind for v in violations} == {SLIP}
    assert {v.parts for v in violations} == {("frame", "slider")}


# -- a flush sticky contact no boundary records (issue 23, item 8) -------------------------

FLUSH = """
[mechanism]
time = 5

[[parts]]
name = "frame"
motion = "fixed"

[[parts.slices]]
z = [0, 1]
profiles = [{ name = "table", rect = [-20, -2, 40, 0], sticky = ["top"] }, { name = "wall", rect = [9, 1, 10, 10] }]

[[parts]]
name = "plate"
motion = "fixed-axes"
coordinates = [{ name = "xp", axis = [1, 0] }]

[[parts.slices]]
z = [0, 1]
profiles = [{ rect = [0, 0, 10, 1], sticky = true }]

[[parts]]
name = "block"
motion = "fixed-axes"
coordinates = [{ name = "xb", axis = [1, 0] }]

[[parts.slices]]
z = [0, 1]
profiles = [{ rect = [2, 1, 4, 3], sticky = true }]

[[inputs]]
velocities = { xp = 1.0 }
sampling = 0.5
"""


def test_a_plate_driven_along_the_sticky_table_it_lies_flush_on_is_held_at_once():
    """The plate translates along x alone, flush on the sticky table along its whole length:
    no boundary of their pair space records the contact, yet sticky touches sticky, and the
    paper's x_p - x_t = constant holds it (the table is the frame): the input is blocked at
    t = 0. Given a y coordinate under gravity (a contact its pair space records) it is the
    same. Smooth all round, it slides the whole allotment, and the block on it stays."""
    held = trace(analyze(loads(FLUSH)))
    assert held.end_reason == "input blocked" and held.segments == ()
    with_y = FLUSH.replace('coordinates = [{ name = "xp", axis = [1, 0] }]',
                           'coordinates = [{ name = "xp", axis = [1, 0] }, { name = "yp", axis = [0, 1] }]') + \
        '\n[[forces]]\nkind = "gravity"\ncoordinate = "yp"\ndirection = -1\n'
    assert trace(analyze(loads(with_y))).segments == ()
    smooth = trace(analyze(loads(FLUSH.replace(', sticky = ["top"]', "").replace(", sticky = true", ""))))
    assert _column(smooth, "xp")[-1] == pytest.approx(5.0, abs=1e-9)
    assert np.allclose(_column(smooth, "xb"), 0.0)


def test_a_block_lying_flush_on_a_sticky_plate_rides_it_to_the_wall():
    """The block translates along x alone, flush on the plate (both sticky all round), the
    plate along a smooth table: the block rides the plate (xb - xp = 0, the drive through
    friction) until its right side (x = 4 + xb) meets the wall at x = 9, at t = 5."""
    result = trace(analyze(loads(FLUSH.replace(', sticky = ["top"]', "").replace("time = 5", "time = 8"))))
    xp, xb = _column(result, "xp"), _column(result, "xb")
    assert np.allclose(xb - xp, 0.0, atol=1e-9)
    assert xp[-1] == pytest.approx(5.0, abs=1e-9) and result.end_reason == "input blocked"
    assert [line.through for line in result.segments[0].first.lines] == ["friction"]
    assert replay(result) == []


def _along_x_alone(text: str) -> str:
    """The slider on a patch translating along x alone: flush on the table, no row between them."""
    text = text.replace('coordinates = [{ name = "xs", axis = [1, 0], initial = 0.0 }, { name = "ys", axis = [0, 1] }]',
                        'coordinates = [{ name = "xs", axis = [1, 0], initial = 0.0 }]')
    return text[:text.index("[[forces]]")] + text[text.index("[[inputs]]"):]


@pytest.mark.parametrize("table", sorted(TABLES))
def test_a_flush_sticky_contact_that_begins_during_the_motion_stops_it_there(table):
    """The slider translates along x alone, flush on the table: no boundary of their pair
    space is crossed where its sticky bottom reaches the patch, yet there it grips (within
    half the length tolerance of touching): the input is blocked at xs = 8."""
    result = trace(analyze(loads(_along_x_alone(_patch(table)))))
    tolerance = result.mechanism.tolerance.length
    assert result.end_reason == "input blocked"
    assert _column(result, "xs")[-1] == pytest.approx(8.0, abs=tolerance)
    assert replay(result) == []


def test_a_linkage_sliding_sticky_faces_onto_each_other_inside_a_region_is_refused_in_one_line():
    """The feeder's piston (sticky) driven by the crank onto a sticky stretch of the table at
    x < 5: the crank-slider's curved motion is not cut where the grip would begin."""
    from cspace.model.errors import TraceError

    text = open(fixture_path("feeder")).read().replace(
        '{ name = "table", rect = [-10, -3, 60, -1] },',
        '{ name = "left", rect = [-10, -3, 5, -1], sticky = ["top"] }, { name = "table", rect = [5, -3, 60, -1] },') \
        .replace("profiles = [ { rect = [0, -1, 7, 1] } ]", 'profiles = [ { rect = [0, -1, 7, 1], sticky = ["bottom"] } ]')
    with pytest.raises(TraceError, match="a linkage slides sticky faces onto each other"):
        trace(analyze(loads(text)))


def test_the_sticky_feeder_holds_its_piston_as_the_paper_says():
    """fixtures/feeder-sticky.toml, the paper's section 3: "if the table and the piston were
    sticky, their x coordinates would satisfy the constraint x_p - x_t = constant, but their
    y and z coordinates would not be constrained". The table is the frame (x_t fixed), so
    the piston stays at x_p = 10 and the crank tied to it cannot turn: the input is blocked
    at t = 0, nothing having moved. The grip is one row, on x_p alone; the smooth feeder
    (fixtures/feeder.toml) moves its piston at once."""
    from cspace.tracing.friction import Friction

    analysis = analyze(load(fixture_path("feeder-sticky")))
    mechanism = analysis.mechanism
    (grip,) = Friction(mechanism).rowless(analysis.initial)
    assert (grip.contact.part_a, grip.contact.faces_a, grip.contact.part_b) == ("frame", ("table.top",), "piston")
    assert grip.rows.tolist() == [[1.0 if c.name == "xp" else 0.0 for c in mechanism.coordinates]]
    assert analysis.initial[mechanism.coordinate_index["xp"]] == pytest.approx(10.0, abs=1e-9)
    result = trace(analysis)
    assert result.end_reason == "input blocked" and result.segments == ()
    smooth = trace(analyze(load(fixture_path("feeder"))), until=0.5)
    assert _column(smooth, "xp")[-1] != pytest.approx(10.0, abs=1e-3)


@pytest.mark.parametrize("seed", seeds(40, 5))
def test_the_fuzz_family_of_sticky_patches_meets_its_closed_form(seed):
    """tests.support.fuzz's ``patch`` family: a slider with a sticky bottom (whole, or one of two
    collinear faces) driven either way along a table whose top is a run of collinear faces,
    some sticky (abutting profiles or one path), must stop where sticky first meets sticky,
    or at the far wall; the replay finds no slip."""
    from .support.fuzz import SeededDraw, closed_form_errors, generate

    case = generate(SeededDraw(seed), ("patch",))
    result = trace(analyze(loads(case.text)))
    assert closed_form_errors(result, case.expected) == [], case.text
    assert replay(result) == [], case.text


@slow
def test_the_fuzz_family_of_sticky_patches_fails_under_the_corner_rule(monkeypatch):
    """The family's closed form sees the class: with the old rule (a contact grips only if
    every face it names is sticky, nothing found inside a region) most seeds are refused
    (a patch "never touches" the slider) or slide past where they must stop."""
    from cspace.model.errors import CspaceError
    from cspace.tracing.friction import Friction, faces_of

    from .support.fuzz import SeededDraw, closed_form_errors, generate

    def corner_rule(self, contact):
        return faces_of(contact.faces_a) <= self.parts[contact.part_a].sticky and \
            faces_of(contact.faces_b) <= self.parts[contact.part_b].sticky

    monkeypatch.setattr(Friction, "sticky", corner_rule)
    monkeypatch.setattr(Friction, "meeting", lambda self, contacts, knots, eps: None)
    failing = 0
    for seed in range(40):
        case = generate(SeededDraw(seed), ("patch",))
        try:
            failing += bool(closed_form_errors(trace(analyze(loads(case.text))), case.expected))
        except CspaceError:
            failing += 1
    assert failing >= 30  # 33 of 40: 28 refused, 5 past their stop


DISK = """
[mechanism]
time = 3

[[parts]]
name = "pad"
motion = "fixed-axes"
coordinates = [{ name = "yp", axis = [0, 1], initial = 0.01 }]

[[parts.slices]]
z = [0, 1]
profiles = [{ rect = [-1, 5, 1, 6], sticky = ["bottom"] }]

[[parts]]
name = "disk"
motion = "fixed-axes"
coordinates = [{ name = "w", pivot = [0, 0] }]

[[parts.slices]]
z = [0, 1]
[[parts.slices.profiles]]
path = [[5, 0], { arc = [-5, 0], center = [0, 0] }, { arc = [5, 0], center = [0, 0] }]
faces = ["smooth", "sticky"]
sticky = ["sticky"]

[[forces]]
kind = "spring"
coordinate = "yp"
direction = -1

[[inputs]]
velocities = { w = 1.0 }
sampling = 0.25
"""


def test_a_turning_disk_stops_when_its_sticky_arc_reaches_the_pad_pressed_on_it():
    """The disk's rim is two arcs of one circle, the upper half smooth, the lower sticky; a
    spring presses a sticky pad onto its top. Turning counterclockwise, the sticky arc's
    end reaches the top at w = pi/2, inside one region of their pair space (the arcs are
    one circle): there it grips and the input is blocked, within the angle over which the
    arc comes within the pair's turning gap of the pad."""
    result = trace(analyze(loads(DISK)))
    tolerance = result.mechanism.tolerance
    w = _column(result, "w")
    assert result.end_reason == "input blocked"
    assert abs(w[-1] - np.pi / 2) <= np.sqrt(2 * (tolerance.turning_gap + tolerance.length) / 5)
    assert replay(result) == []
