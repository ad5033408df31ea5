"""The paper's rim lock (section 5, Figure 11; fixtures/rim-lock.toml, made by
tools/make_rim_lock.py): a key turned counterclockwise lifts the spring-loaded latch out
of the rim's notch, pushes the rim back and lets the latch follow the rim's contour into
the unlocking detent; turned clockwise it pushes the rim out again and the latch drops
back into the locking notch.

Every expected value comes from the generator's geometry (imported from the tool), and
the contacts are checked on the real shapes (:class:`cspace.testing.Scene`), not on the
configuration spaces the tracer used.
"""

from __future__ import annotations

import pytest

from cspace.testing import Scene, replay

from .common import fixture_path, tool, traced

tool = tool("make_rim_lock")

KEY_LEG = (("key", 0), ("latch", 1))  # the key and the latch's leg (z [2, 3])
RIM_TOOTH = (("rim", 0), ("latch", 0))  # the rim's body and the latch's tooth (z [0, 1])


@pytest.fixture(scope="module")
def result():
    return traced("rim-lock")


@pytest.fixture(scope="module")
def rows(result):
    """(time, segment, values, input index or None for an external motion) per sample."""
    names = [c.name for c in result.mechanism.coordinates]
    out = []
    for time, number, q in result.samples():
        segment = result.segments[number - 1]
        motion = segment.first.motion if segment.phase == "input" else None
        out.append((time, segment, dict(zip(names, map(float, q))), motion))
    return out


def _tolerances(result):
    tolerance = result.mechanism.tolerance
    # a pair with a turning part stops up to turning_gap short of touching (README, Tolerances)
    return tolerance.length, tolerance.turning_gap + tolerance.length


def _distance(scene, values, pair):
    shapes = scene.place(values, {pair[0][0], pair[1][0]})
    return shapes[pair[0]].distance(shapes[pair[1]])


def test_the_fixture_is_what_the_tool_writes():
    assert fixture_path("rim-lock").read_text() == tool.TEXT


def test_the_key_lifts_the_latch_out_of_the_notch_before_the_rim_moves(result, rows):
    """The notch's vertical wall would block the rim: the latch must be up by the notch's
    depth before the rim moves at all, and stay at least on the flat's level until the
    tooth reaches the detent. The key lifts it as high as its tip's reach allows."""
    length, near = _tolerances(result)
    moving = [i for i, (_, _, v, _) in enumerate(rows) if v["xr"] < -length]
    assert moving, "the rim never moves"
    before = rows[:moving[0]]
    assert max(v["yl"] for _, _, v, _ in before) >= tool.NOTCH_DEPTH
    between = [v for _, _, v, m in rows
               if m == 0 and -(tool.TRAVEL - tool.DETENT_DEPTH) + length < v["xr"] < -tool.NOTCH_CLEAR]
    assert between and min(v["yl"] for v in between) >= tool.ON_FLAT - length
    top = tool.KEY_CORNER - tool.LEG_Y  # the key's tip (radius KEY_CORNER) under the leg
    assert top - length <= max(v["yl"] for _, _, v, _ in rows) <= top + near


def test_the_rim_goes_back_by_its_travel_and_out_again(result, rows):
    """Counterclockwise the rim only goes back, to the detent's floor (xr = -TRAVEL: further
    than the key pushes it, the spring finishes the way); clockwise the key pushes it out
    past the locked place by the overshoot its tip's reach gives, and it ends locked."""
    length, near = _tolerances(result)
    first = [v for _, _, v, m in rows if m == 0]
    second = [v for _, _, v, m in rows if m == 1]
    assert first and second
    assert all(b["xr"] <= a["xr"] + length for a, b in zip(first, first[1:]))
    unlocked = second[0]  # the state the first input left, after its external motions
    assert unlocked["xr"] == pytest.approx(tool.UNLOCKED["xr"], abs=length)
    assert unlocked["yl"] == pytest.approx(tool.UNLOCKED["yl"], abs=length)
    assert min(v["xr"] for _, _, v, _ in rows) >= -tool.TRAVEL - length
    assert tool.KEY_PUSH_BACK < tool.TRAVEL  # the key alone would leave it short of the detent
    pulled = [s for s in result.segments if s.phase == "external"
              and s.start[result.mechanism.coordinate_index["xr"]] > -tool.TRAVEL + length
              and s.finish[result.mechanism.coordinate_index["xr"]] == pytest.approx(-tool.TRAVEL, abs=length)]
    assert pulled, "the spring never takes the rim to the detent's floor"
    assert tool.OVERSHOOT - length <= max(v["xr"] for v in second) <= tool.OVERSHOOT + near
    final = rows[-1][2]
    assert final["xr"] == pytest.approx(tool.LOCKED["xr"], abs=length)
    assert final["yl"] == pytest.approx(tool.LOCKED["yl"], abs=length)
    assert final["k"] == pytest.approx(tool.KEY_LIMITS[0], abs=result.mechanism.tolerance.angle)


def test_the_spring_keeps_the_latch_on_the_rim(result, rows):
    """At every sample of the inputs where the key is not touching the latch's leg, the
    latch's tooth touches the rim's body: the spring keeps it on the contour. (External
    motions, the spring's own instantaneous drops, are not input samples.) Where the key
    lifts the latch above the flat, the tooth is off the rim: the check can fail."""
    length, near = _tolerances(result)
    scene = Scene(result.mechanism)
    checked = lifted = 0
    for time, segment, values, motion in rows:
        if motion is None:
            continue
        key_gap = _distance(scene, values, KEY_LEG)
        rim_gap = _distance(scene, values, RIM_TOOTH)
        if key_gap > near:
            assert rim_gap <= length, (time, segment.index, values, rim_gap)
            checked += 1
        elif values["yl"] > tool.ON_FLAT + near:
            assert rim_gap > length
            lifted += 1
    inputs = sum(m is not None for *_, m in rows)
    assert checked > inputs / 2 and lifted > 10


def test_the_replay_finds_no_violations(result):
    assert replay(result) == []


def test_the_latch_ends_in_the_locking_notch_and_blocks_the_rim(result, rows):
    """At the end the tooth sits in the notch on its floor and slope, and the rim cannot go
    back: moved back past the notch's clearance it would overlap the tooth."""
    length, _ = _tolerances(result)
    assert result.end_reason == "input blocked"
    contacts = {str(c) for c in result.segments[-1].first.contacts}
    assert contacts == {"rim.notch-floor/latch.tooth-bottom", "rim.notch-slope/latch.tooth-slope"}
    final = dict(rows[-1][2])
    scene = Scene(result.mechanism)
    assert _distance(scene, final, RIM_TOOTH) <= length
    final["xr"] -= tool.NOTCH_CLEAR + 0.1 * tool.NOTCH_DEPTH
    shapes = scene.place(final, {"rim", "latch"})
    assert shapes[RIM_TOOTH[0]].intersection(shapes[RIM_TOOTH[1]]).area > 0.01 * tool.NOTCH_DEPTH ** 2
