"""The Geneva example sweep (fixtures/sweeps/geneva.toml) over pin clearance, against asin(c / d)."""

from __future__ import annotations

import math

import pandas as pd
import pytest

import cspace
from cspace.sweeps.measures import MeasureError, Play

from .common import ROOT, slow

GENEVA = ROOT / "fixtures" / "sweeps" / "geneva.toml"
CLEARANCES = [0.005, 0.02, 0.04]
NEAREST = 10 - 5 * math.sqrt(2)  # the pin centre's distance from the wheel's centre at mid-engagement
MOUTH = 5 * math.sqrt(2)  # and where it leaves the slot


@pytest.fixture(scope="module")
def geneva() -> pd.DataFrame:
    return cspace.sweep(GENEVA, {"c": CLEARANCES}, measures=["play:w"])


def _elements(mechanism: cspace.Mechanism) -> list:
    return [(e.name, *e.start, *e.end, *(getattr(e, "center", None) or ())) for part in mechanism.parts
            for layer in part.slices for profile in layer.profiles for e in profile.elements]


def test_at_the_default_clearance_the_parametric_geneva_is_the_fixture():
    ours, fixture = (_elements(cspace.load(path)) for path in (GENEVA, ROOT / "fixtures" / "geneva.toml"))
    assert [e[0] for e in ours] == [e[0] for e in fixture]
    assert max(abs(a - b) for x, y in zip(ours, fixture) for a, b in zip(x[1:], y[1:])) <= 1e-9


def test_the_slots_widen_with_the_clearance():
    for c in (0.005, 0.05):
        wheel = cspace.loads(GENEVA.read_text(), parameters={"c": c}).part("wheel")
        faces = {e.name: e for e in wheel.slices[0].profiles[0].elements}
        right, left = faces["slot1.right"], faces["slot1.left"]
        (x0, y0), (x1, y1) = right.start, right.end
        across = abs((x1 - x0) * (left.start[1] - y0) - (y1 - y0) * (left.start[0] - x0)) / math.dist(right.start,
                                                                                                   right.end)
        assert across == pytest.approx(1 + 2 * c, abs=1e-12)


@slow
def test_the_wheels_play_is_twice_asin_of_the_clearance_over_the_pins_distance(geneva):
    """Hold the crank with the pin in a slot: the pin's centre is d from the wheel's centre and
    the slot's walls are 0.5 + c either side of the slot's axis, which passes through that
    centre, so the wheel turns until a wall touches the pin, where the pin's centre is c off
    the axis: asin(c / d) either way, 2 asin(c / d) in all. d is least at mid-engagement, the
    pin on the line of centres: 10 - 5 sqrt(2) (centre distance 10, crank radius 5 sqrt(2)).
    The measure is the largest play over the samples of the engagement, so at d within the
    sampling of that: the crank is sampled every 0.05 rad, so the nearest sample is within
    0.025 rad of it, where d = sqrt(150 - 100 sqrt(2) cos 0.025) = NEAREST + 0.0075.

    The tolerance is the arc tolerance's: the pair space's blocked space is the real parts'
    grown by the arc linearization, so each wall stops the pin up to the mechanism's
    turning_gap (0.81 arc; arc = 1e-5 of the size here) short of touching: the play is
    between 2 asin((c - turning_gap) / d) and 2 asin(c / d), bisected to 1e-9."""
    gap = cspace.load(GENEVA).tolerance.turning_gap
    far = math.sqrt(150 - 100 * math.sqrt(2) * math.cos(0.025))
    assert gap < 0.0004
    for row in geneva.to_dict("records"):
        c, play = row["c"], row["play:w"]
        assert row["error"] == ""
        assert 2 * math.asin((c - gap) / far) - 1e-9 <= play <= 2 * math.asin(c / NEAREST) + 1e-9, c
        assert play == pytest.approx(2 * math.asin(c / NEAREST), rel=0.1)


@slow
def test_the_pushed_wheel_is_left_trailing_by_one_sides_play_at_the_mouth(geneva):
    """Under simple dynamics the wheel moves only as the pin pushes it, so it rides the
    driving wall, asin(c / d) behind the zero-clearance drive; the pin leaves the slot at
    d = 5 sqrt(2) (alpha = pi/4: d^2 = 150 - 100 sqrt(2) cos(pi/4) = 50) and the wheel dwells
    there: the second engagement leaves it at -pi + asin(c / 5 sqrt(2)) (to within the
    turning gap over d, as above, and the 1e-6 it is pushed on as the pin turns out of the
    slot). With c = 0.04 the trailing wheel's locking arc meets the locking disk's leading
    edge (the passage is 0.0085 wide, the wheel trails by 0.04 at its rim) and the disk
    turns it on: it is left nearer the quarter turn than the slot's play would leave it."""
    gap = cspace.load(GENEVA).tolerance.turning_gap
    rows = {row["c"]: row for row in geneva.to_dict("records")}
    for c in (0.005, 0.02):
        trailing = rows[c]["final:w"] + math.pi
        assert math.asin((c - gap) / MOUTH) - 1e-6 <= trailing <= math.asin(c / MOUTH) + 1e-6, c
        assert rows[c]["segments"] == 5
    assert 0 < rows[0.04]["final:w"] + math.pi < math.asin(0.04 / MOUTH) - 1e-3
    assert rows[0.04]["segments"] > 5


def test_play_names_a_coordinate_the_mechanism_has():
    with pytest.raises(MeasureError, match="no coordinate named 'x'; the coordinates are a, w"):
        Play("x").check(cspace.load(GENEVA))
    with pytest.raises(MeasureError, match="expected play:COORDINATE"):
        Play.parse("play:")
