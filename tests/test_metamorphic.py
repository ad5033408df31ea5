"""Metamorphic checks: a change to a mechanism that cannot change its behaviour leaves
its description alone (issue 23, item 5).

Geometry nothing can ever meet (a hole deep in a part's material, a part above every
slice along z) must not end a segment: segments end where the behaviour changes, never
at a region boundary that changes nothing.
"""

from __future__ import annotations

import json

import pytest

from cspace import analyze, describe, load, loads, to_json, trace
from cspace.spaces.holes import unmet_holes_filled

from .common import FIXTURES, each, fixture_path, slow, traced
from .support.fuzz import SeededDraw, drawn_touching, generate, metamorphic_errors, unreachable
from .support.oracles import corners_beside_their_faces

QUICK = ["spring-gate", "feeder", "pusher", "wedge", "cam", "four-bar", "ramp-release", "spring-crank",
         "eccentric-cam", "lever", "shoe-brake", "rim-lock", "dxf-cam"]


def _described(mechanism) -> str:
    return describe(trace(analyze(mechanism)))


@pytest.mark.parametrize("name", each(QUICK))
def test_geometry_nothing_meets_changes_no_description(name):
    mechanism = load(fixture_path(name))
    assert _described(unreachable(mechanism)) == _described(mechanism)


def test_a_hole_in_a_block_leaves_its_contacts_as_they_were():
    """The spring gate's block with a hole: cut into convex pieces, a piece meets the
    block's top only at its corner, and that corner was named as a contact of its own
    beside the top face's, so the block's run under the gate was three segments."""
    gate = load(fixture_path("spring-gate"))
    plain, holed = (json.loads(to_json(trace(analyze(m))))["segments"] for m in (gate, unreachable(gate)))
    assert [s["contacts"] for s in holed] == [s["contacts"] for s in plain]
    assert [s["end"] for s in holed] == [s["end"] for s in plain]


PLATE = """
[mechanism]
name = "plate and pin"
time = 6

[[parts]]
name = "plate"
motion = "fixed"

[[parts.slices]]
z = [0, 1]
profiles = [ { rect = [0, 0, 10, 4] }, { name = "slot", rect = [2, 1, 8, 3] }, { name = "lightening", rect = [8.5, 1, 9.5, 3] } ]

[[parts]]
name = "pin"
motion = "fixed-axes"
coordinates = [ { name = "xp", axis = [1, 0], initial = 3 } ]

[[parts.slices]]
z = [0, 1]
profiles = [ { rect = [0, 1.5, 1, 2.5] } ]

[[inputs]]
name = "pin slides right"
velocities = { xp = 1.0 }
sampling = 0.5
"""


def test_a_hole_holding_another_part_is_kept_and_an_empty_one_filled():
    """The pin in the plate's slot stops at the slot's end (x = 8 - 1); the empty
    lightening hole beside it is filled for the pair spaces, the slot is not."""
    mechanism = loads(PLATE)
    values = {"xp": 3.0}
    reduced = unmet_holes_filled(mechanism, values, [("plate", "pin")])
    faces = {e.name for p in reduced.part("plate").slices[0].profiles for e in p.elements}
    assert any(f.startswith("slot.") for f in faces) and not any(f.startswith("lightening.") for f in faces)
    result = trace(analyze(mechanism))
    assert result.end_reason == "input blocked"
    assert abs(result.samples()[-1][2][0] - 7.0) < mechanism.tolerance.length


def test_a_shifting_pair_keeps_its_holes():
    """A part that shifts along z may drop into a hole from above: nothing is filled."""
    mechanism = load(fixture_path("transmission"))
    names = [("input", "cluster")]
    values = {c.name: c.initial for c in mechanism.coordinates}
    assert unmet_holes_filled(unreachable(mechanism), values, names).part("input").slices == \
        unreachable(mechanism).part("input").slices


SLIDER = """
[mechanism]
name = "slider with a slot on a peg"
time = 3

[[parts]]
name = "frame"
motion = "fixed"

[[parts.slices]]
z = [0, 1]
profiles = [ { name = "table", rect = [-5, -2, 30, 0] }, { name = "peg", rect = [4.5, 0.4, 5, 0.6] } ]

[[parts]]
name = "slider"
motion = "fixed-axes"
coordinates = [ { name = "xs", axis = [1, 0], initial = 0 } ]

[[parts.slices]]
z = [0, 1]
profiles = [ { name = "body", rect = [0, 0, 10, 1] }, { name = "slot", rect = [1, 0.3, 9, 0.7] } ]

[[parts]]
name = "gate"
motion = "fixed-axes"
coordinates = [ { name = "yg", axis = [0, 1], initial = 0 } ]

[[parts.slices]]
z = [0, 1]
profiles = [ { rect = [10, 0, 11, 4] } ]

[[forces]]
kind = "spring"
coordinate = "xs"
direction = 1

[[inputs]]
name = "gate lifts"
velocities = { yg = 1.0 }
sampling = 0.5
"""


def test_a_part_cut_into_pieces_touches_by_its_faces_alone():
    """A slider with a slot round a peg (the slot holds the peg, so it is kept) is cut into
    convex pieces; one meets the slider's top only at its corner. Released when the gate
    has lifted clear (t = 1), the spring drives it under the gate, its top on the gate's
    bottom, until the slot's end meets the peg (xs = 4.5 - 1 = 3.5): one segment, its one
    contact the top on the gate's bottom (it was two, the corner's contact ending first)."""
    result = trace(analyze(loads(SLIDER)))
    records = json.loads(to_json(result))["segments"]
    assert [s["contacts"] for s in records] == [["slider.body.right/gate.left"], ["slider.body.top/gate.bottom"],
                                                ["frame.peg.left/slider.slot.left"]]
    assert abs(result.samples()[-1][2][0] - 3.5) < 1e-9
    assert corners_beside_their_faces(result) == []


@pytest.mark.parametrize("name", each(n for n in FIXTURES if n in QUICK))
def test_no_fixture_names_a_corner_beside_its_face(name):
    assert corners_beside_their_faces(traced(name)) == []


def test_drawn_touching_puts_each_loaded_part_on_what_holds_it():
    """The eccentric cam's follower (drawn 0.01 above the cam) drawn touching: on the
    cam's top at yf = 3, to a thousandth of the length tolerance; a tenth of the length
    tolerance apart, that much higher."""
    cam = load(fixture_path("eccentric-cam"))
    length = cam.tolerance.length
    touching, apart = drawn_touching(cam), drawn_touching(cam, apart=0.1 * length)
    assert abs(touching.coordinate("yf").initial - 3) <= 2e-3 * length
    assert abs(apart.coordinate("yf").initial - touching.coordinate("yf").initial - 0.1 * length) <= 2e-3 * length


@pytest.mark.parametrize("family, seed", [("pin", 9), ("nested", 17), ("patch", 1)] + [
    pytest.param(family, seed, marks=slow) for family, seed in (("stack", 2), ("cam", 3), ("lever", 13))])
def test_generated_mechanisms_pass_every_metamorphic_check(family, seed):
    """A stack, a cam, a pin under a plate, a nest, a lever, a table of abutting profiles
    (the hole added must cross none): each unchanged by geometry
    nothing meets, the cache under random tolerances, a scale and a move, and being drawn
    touching (the fuzz report runs this on every case)."""
    case = generate(SeededDraw(seed), (family,))
    mechanism = loads(case.text)
    assert metamorphic_errors(mechanism, trace(analyze(mechanism)), seed) == []
