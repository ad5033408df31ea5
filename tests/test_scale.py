"""Where a mechanism is drawn and how large must not change what it does.

The stated limits (cspace/tolerance.py): any size from 1e-12 up, drawn where its numbers
resolve positions to a hundredth of its exact grid's step (about 10^3 sizes from the
origin). Inside them a mechanism moved and scaled behaves as the original; outside them
it is refused with one line that says why.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cspace import ModelError, analyze, load, loads, trace
from cspace.model.tolerance import MIN_SIZE, RESOLUTION
from cspace.report.describe import describe, path_rows
from cspace.testing import replay
from cspace.tracing.layout import Stop

from .common import FIXTURES, each, fixture_path, slow
from .support.fuzz import mechanism, moved
from .test_properties import HypothesisDraw

PUSHER_AND_BLOCK = """
[mechanism]
time = 50
[[parts]]
name = "pusher"
motion = "fixed-axes"
coordinates = [ {{ name = "xp", axis = [1, 0], initial = 0 }} ]
[[parts.slices]]
z = [0, 1]
profiles = [ {{ rect = [{pusher}] }} ]
[[parts]]
name = "block"
motion = "fixed-axes"
coordinates = [ {{ name = "xb", axis = [1, 0], initial = 0 }} ]
[[parts.slices]]
z = [0, 1]
profiles = [ {{ rect = [{block}] }} ]
[[inputs]]
velocities = {{ xp = {speed} }}
sampling = 5
"""


def pusher_and_block(x0: float, y0: float, unit: float) -> str:
    """The reliability attack's pusher (2 x 3) and block (5 x 3, 37 away) at (x0, y0), every
    length (and the pusher's speed) in units of ``unit``."""
    def rect(*corners):
        return ", ".join(repr(v) for v in corners)

    return PUSHER_AND_BLOCK.format(pusher=rect(x0, y0, x0 + 2 * unit, y0 + 3 * unit),
                                   block=rect(x0 + 39 * unit, y0, x0 + 44 * unit, y0 + 3 * unit), speed=repr(unit))


ATTACK = (870265100, 896928340)  # where the reliability attack drew them


@pytest.mark.parametrize("where", [(0, 0, 1.0), (0, 0, 1e-8), (0, 0, 1e-9), (2e4, -3e4, 1.0), (2e-5, -1e-5, 1e-9)])
def test_the_pusher_stops_at_the_block_and_pushes_it(where):
    """The reliability attack's pusher and block, at the origin, tiny (1e-8, 1e-9) and drawn away
    from it within the limit: the pusher meets the block after 37 of its units and pushes it the
    remaining 13 (far out and tiny, it used to pass through it)."""
    x0, y0, unit = where
    result = trace(analyze(loads(pusher_and_block(x0, y0, unit))))
    assert [s.start_time for s in result.segments] == pytest.approx([0, 37], abs=1e-6)
    assert result.segments[-1].finish == pytest.approx([50 * unit, 13 * unit], abs=1e-6 * unit)
    assert [sorted(map(str, s.first.contacts)) for s in result.segments] == [[], ["pusher.right/block.left"]]
    assert replay(result) == []


@pytest.mark.parametrize("unit", [1.0, 1e-8, 1e-9])
def test_a_mechanism_its_numbers_cannot_resolve_is_refused(unit):
    """The attack as drawn, at 9e8 (2e7 times its size; scaled, at 9 and at 0.9): its numbers
    resolve positions only to 1.2e-7 (times the scale), coarser than a hundredth of its grid."""
    with pytest.raises(ModelError, match=r"parts: it is drawn \S+ from the origin but is only \S+ across: numbers "
                                         r"that large resolve positions only to \S+, coarser than 0.01 of its "
                                         r"exact grid's step \S+; draw it nearer the origin \(within \S+\)$"):
        loads(pusher_and_block(ATTACK[0] * unit, ATTACK[1] * unit, unit))


def test_the_refusal_says_where_the_limit_is():
    with pytest.raises(ModelError) as caught:
        loads(pusher_and_block(*ATTACK, 1.0), source="far.toml")
    assert str(caught.value) == (
        "far.toml: parts: it is drawn 8.97e+08 from the origin but is only 44.1 across: numbers that large resolve "
        "positions only to 1.19e-07, coarser than 0.01 of its exact grid's step 1e-09; draw it nearer the origin "
        "(within 3.28e+04)")


def test_a_mechanism_below_the_floor_is_refused():
    with pytest.raises(ModelError, match=r"the mechanism is 4.41e-13 across; cspace works on mechanisms from "
                                         r"1e-12 across up: draw it in a smaller unit"):
        loads(pusher_and_block(0, 0, 1e-14))
    assert loads(pusher_and_block(0, 0, MIN_SIZE / 44)).size >= MIN_SIZE  # at the floor: accepted


@pytest.mark.parametrize("axis, expected", [([5e-324, 5e-324], (math.sqrt(0.5), math.sqrt(0.5))),
                                            ([1e-300, 0], (1.0, 0.0)), ([-3e-310, 4e-310], (-0.6, 0.8)),
                                            ([3, 4], (0.6, 0.8))])
def test_an_axis_of_tiny_components_is_normalized_exactly(axis, expected):
    text = ('[[parts]]\nname = "b"\nmotion = "fixed-axes"\n'
            f'coordinates = [{{ name = "x", axis = [{axis[0]!r}, {axis[1]!r}] }}]\n'
            '[[parts.slices]]\nz = [0, 1]\nprofiles = [{ rect = [0, 0, 1, 1] }]\n')
    got = loads(text).coordinate("x").axis
    assert got == pytest.approx(expected, abs=1e-15) and math.hypot(*got) == pytest.approx(1.0, abs=1e-15)


def test_an_axis_of_huge_components_is_refused_like_any_huge_number():
    text = ('[[parts]]\nname = "b"\nmotion = "fixed-axes"\n'
            'coordinates = [{ name = "x", axis = [1e308, 1e308] }]\n'
            '[[parts.slices]]\nz = [0, 1]\nprofiles = [{ rect = [0, 0, 1, 1] }]\n')
    with pytest.raises(ModelError, match=r"coordinates\[0\].axis: 1e\+308 is out of range"):
        loads(text)


def behaviour(result) -> list[tuple]:
    """Each segment's drive, contacts, signs and end; a stop by coordinate and side (a
    translation's or a shift's limit is a length: it scales)."""
    return [(s.first.roots, s.first.lines, tuple(sorted(f"{c.coordinate} at {c.side} limit" if isinstance(c, Stop)
                                                        else str(c) for c in s.first.contacts)), s.first.signs, s.end)
            for s in result.segments]


TRANSFORMS = {"to the limit": (0.95, 1.0), "scaled 1e-12": (0.0, 1e-12), "scaled 1e3, half the limit": (0.5, 1e3),
              "scaled 1e-9, to the limit": (0.95, 1e-9)}


def limit(mechanism, scale: float) -> float:
    """How far from the origin the mechanism scaled by ``scale`` may be drawn: where the numbers'
    rounding reaches a hundredth of its grid step."""
    return 2.0 ** (math.floor(math.log2(RESOLUTION * mechanism.tolerance.quantum * scale)) + 52)


@pytest.mark.parametrize("transform", each(sorted(TRANSFORMS), fast={"to the limit"}))
@pytest.mark.parametrize("name", each(FIXTURES))
def test_every_fixture_moved_and_scaled_behaves_the_same(name, transform):
    """Same segments, contacts, driving relations and ends; the same times; lengths scaled.

    A segment that ends where a part starts to move from rest along a curve it meets
    tangentially (the Geneva wheel, when the pin slides onto its slot's wall: the wall's
    gap closes with the square of the crank angle) ends where the outline, rounded to the
    grid a step differently, first leans into the path: a time that far apart costs the
    square of it in place. There the time may differ (within 1e-4 of the allotment), and
    the sampled states must still agree within 1e-7 of the size."""
    reach, scale = TRANSFORMS[transform]
    original = load(fixture_path(name))
    far = reach * limit(original, scale) - 2 * original.size * scale
    result = trace(analyze(original))
    other = trace(analyze(moved(original, (far * 0.6, -far * 0.8), scale)))
    assert behaviour(other) == behaviour(result)
    if not result.segments:  # nothing moves (feeder-sticky: its input is blocked at once)
        assert (other.end_reason, other.segments) == (result.end_reason, ())
        return
    allotment = original.time
    apart = [abs(theirs.end_time - mine.end_time) for mine, theirs in zip(result.segments, other.segments)]
    assert max(apart) <= 1e-4 * allotment
    if max(apart) > 1e-7 * allotment:
        assert deviation(result, other, scale) <= 1e-7
    angle = np.array([c.is_angle for c in original.coordinates])
    unit = np.where(angle, 1.0, scale * original.size)
    expected = np.where(angle, result.segments[-1].finish, result.segments[-1].finish * scale)
    assert np.all(np.abs(other.segments[-1].finish - expected) <= 1e-7 * unit)


@pytest.mark.parametrize("name", ["pusher", "spring-gate", "ramp-release", "cam"])
def test_fixtures_far_out_and_tiny_replay_clean(name):
    original = load(fixture_path(name))
    far = 0.6 * limit(original, 1e-9)
    assert replay(trace(analyze(moved(original, (-far, far), 1e-9)))) == []


def test_reports_of_a_tiny_mechanism_show_its_motion():
    """4 decimals of a mechanism 1e-9 across would print only zeros; its lengths get more."""
    text = describe(trace(analyze(moved(load(fixture_path("pusher")), scale=1e-9))))
    assert "(pusher translates (xp 0 0.000000005))" in text


def states(result) -> dict[float, np.ndarray]:
    """The configuration at each sampled time, after the external motions there."""
    return {row[0]: np.array(row[2:]) for row in path_rows(result)}


def deviation(original, other, scale: float) -> float:
    """Largest difference, in sizes (radians for angles), between the states at common times."""
    angle = np.array([c.is_angle for c in original.mechanism.coordinates])
    unit = np.where(angle, 1.0, scale * original.mechanism.size)
    mine, theirs = states(original), states(other)
    times = np.array(sorted(theirs))
    worst = 0.0
    for time, q in mine.items():
        k = int(np.argmin(np.abs(times - time)))
        if abs(times[k] - time) <= 1e-6 * original.mechanism.time:
            worst = max(worst, float(np.max(np.abs(np.where(angle, q, q * scale) - theirs[times[k]]) / unit)))
    return worst


@slow
@settings(max_examples=8, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.data(), st.sampled_from([-13, -12, -9, -6, -3, 0, 3]), st.floats(0.0, 1.0), st.floats(0.0, 2 * math.pi))
def test_generated_mechanisms_moved_to_the_limit_and_scaled_to_the_floor(data, exponent, reach, direction):
    """A generated mechanism of any family anywhere within the limit, at any scale down to the
    floor (scale 1e-13 makes them about 1e-11 across): the
    replay is clean and every sampled state is the original's, scaled, within the arc
    tolerance (events the original has at one instant may come a rounding apart)."""
    original = loads(mechanism(HypothesisDraw(data)))
    scale = 10.0 ** exponent
    distance = reach * (limit(original, scale) - 2 * original.size * scale)
    other_mechanism = moved(original, (distance * math.cos(direction), distance * math.sin(direction)), scale)
    other = trace(analyze(other_mechanism))
    assert replay(other) == []
    assert deviation(trace(analyze(original)), other, scale) <= original.tolerance.arc / original.size


@pytest.mark.parametrize("direction", [0.3, 2.2, 4.1])
def test_the_ramp_block_stops_at_the_lip_wherever_it_is_drawn(direction):
    """The ramp fixture's block and lip are drawn at 30 degrees; moved a third of the way to the
    limit, the block once slid through the lip (the sum of two nearly parallel pieces had a
    spike): it must stop at the lip, 6 down the ramp, as at the origin."""
    original = load(fixture_path("ramp-release"))
    far = 0.3 * limit(original, 1.0) - 2 * original.size
    result = trace(analyze(moved(original, (far * math.cos(direction), far * math.sin(direction)))))
    assert result.segments[-1].finish[:2] == pytest.approx([-3 * math.sqrt(3), -3], abs=1e-6)
    assert replay(result) == []
