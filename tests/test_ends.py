"""``--describe`` says why each segment ended, and never shows a motion from a value to itself."""

from __future__ import annotations

import re

import pytest

from cspace.report.describe import describe, ending, number

from .common import slow, traced
from .golden_outputs import NAMES, recorded

ENDS = "; ends: "


def ends(name: str) -> list[str]:
    """The ``; ends:`` comment of every record of the fixture's description, in order."""
    return [line[len(ENDS):] for line in describe(traced(name)).splitlines() if line.startswith(ENDS)]


def test_the_pusher_gathers_its_blocks_and_the_wall_blocks_it():
    """The pusher meets block a, a meets b, b meets c, and c the wall (at x = 36) blocks it all."""
    assert ends("pusher") == ["contact made pusher.right/a.left", "contact made a.right/b.left",
                              "contact made b.right/c.left", "input blocked by frame.wall.left/c.right"]


@slow
def test_a_limit_that_blocks_the_input_is_named_with_its_value():
    """The lever's bar turns until its limit, a = 1.5 in the file; the ratchet's wheel turns
    forward to its upper limit, a full turn, before it turns back."""
    assert ends("lever")[-1] == "input blocked by limit a upper 1.5"
    assert f"input blocked by limit w upper {number(6.283185307179586)}" in ends("ratchet")


@slow
def test_the_shoe_brake_is_blocked_by_a_shoe_on_the_drum():
    """Friction stops the drum when a shoe's sticky face touches its sticky inner rim."""
    last = ends("shoe-brake")[-1]
    assert re.fullmatch(r"input blocked by drum\.inner\.rim/(left|right)-shoe\.\S+", last), last


def test_the_last_external_motions_say_what_they_rest_against():
    """The spring-crank has no input: its spring pulls the piston until it meets the stop."""
    assert ends("spring-crank") == ["at rest against frame.stop.right/piston.left"]


def test_the_spring_gate_segments_differ_by_their_ends():
    """Segments 2 and 3 both have the spring drive the block; 2 ends as the block leaves the
    gate's bottom corner, 3 where it meets the wall."""
    assert ends("spring-gate")[1:3] == ["released block.top/gate.bottom", "contact made frame.wall.left/block.right"]


def test_an_ending_is_the_traces_own_for_the_last_segment():
    result = traced("four-bar")
    assert ending(result, result.segments[-1], None) == result.end_reason == "time allotment used"


@pytest.mark.parametrize("name", NAMES)
def test_every_record_says_why_it_ended_and_no_motion_is_from_a_value_to_itself(name):
    """Over every golden description (``test_golden`` holds the program to them): each record
    ends with its comment, and no coordinate reads ``(c v v)``."""
    records = recorded(name, "describe.txt").split("\n\n")[:-1]
    assert all(record.split("\n")[-1].startswith(ENDS) for record in records)
    assert not re.search(r"\(\S+ (\S+) \1\)", "\n".join(records))


@slow
def test_a_coordinate_moving_less_than_a_printed_digit_stands_still():
    """The shoe brake's second segment lasts about 1e-4 s: a coordinate that moves less than
    half the last printed digit reads ``(name value)``, one that moves more ``(name start end)``."""
    segment = traced("shoe-brake").segments[1]
    lines = [line for line in describe(traced("shoe-brake")).split("\n\n")[1].splitlines()
             if not line.startswith(("(driving-motion", "(drives", ";"))]
    names = [c.name for c in segment.mechanism.coordinates]
    for j, name in enumerate(names):
        [field] = [f for line in lines for f in re.findall(rf"\({name} [^()]*\)", line)]
        moved = abs(segment.finish[j] - segment.start[j])
        assert (len(field.split()) == 2) == (moved < 5e-5), (field, moved)
    assert "(left-shoe stationary (l 0))" in lines
