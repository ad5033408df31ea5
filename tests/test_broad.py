"""The tracer's broad phase (cspace/tracing/broad.py): a step's region leaves out the
active pairs that can meet nothing in the step. Wrong, it would let a part pass through
another far from it when the step begins. Each test has a pair far apart when its step
starts (a gap far beyond the rows' tolerance) that must stop the motion, checked against
the closed form and the real geometry (shapely: parts touch, never overlap); each is also
run with the broad phase made naive (only pairs within the tolerance of a bound count,
however far the step goes) to show it then fails, and without the broad phase (every
active pair kept) to show the broad phase changes no output.
"""

from __future__ import annotations

import numpy as np
import pytest

from cspace import analyze, loads, to_json, trace
from cspace.model.errors import TraceError
from cspace.testing import replay
from cspace.tracing import broad

FRAME = """
[[parts]]
name = "frame"
motion = "fixed"

[[parts.slices]]
z = [0, 1]
profiles = [
  { name = "table", rect = [-10, -2, 60, 0] },
  { name = "wall", rect = [40, 0, 42, 10] },
]
"""


def block(name: str, x: float, y: float, width: float = 4.0, height: float = 2.0, falls: bool = True) -> str:
    """A block that slides along x and (with ``falls``) drops under gravity along y."""
    force = f"""
[[forces]]
kind = "gravity"
coordinate = "y{name}"
direction = -1
""" if falls else ""
    return f"""
[[parts]]
name = "{name}"
motion = "fixed-axes"
coordinates = [
  {{ name = "x{name}", axis = [1, 0], initial = {x} }},
  {{ name = "y{name}", axis = [0, 1], initial = {y} }},
]

[[parts.slices]]
z = [0, 1]
profiles = [ {{ rect = [0, 0, {width}, {height}] }} ]
""" + force


# Three blocks stacked 11 above the table fall together (their own pairs keep their points:
# left out), past a block resting on the table 20 to the side (its pairs' rows change: they
# cross region boundaries on the way down, and must end pieces where they did), onto the table.
FALLING = """
[mechanism]
name = "falling-stack"
time = 1
""" + FRAME + block("a", 0, 11) + block("b", 0, 13) + block("c", 0, 15) + block("d", 20, 0)

# A pusher moving fast (50 per second) crosses a gap of 20 in one step, meets a block and
# pushes it to the wall: the block's left face ends at 40 - 4 = 36, the pusher's face there too.
FAST = """
[mechanism]
name = "fast-pusher"
time = 2
""" + FRAME + block("d", 20, 0, falls=False) + """
[[parts]]
name = "pusher"
motion = "fixed-axes"
coordinates = [ { name = "xp", axis = [1, 0], initial = 0 } ]

[[parts.slices]]
z = [0, 1]
profiles = [ { rect = [-2, 0, 0, 2] } ]

[[inputs]]
name = "pusher advances"
velocities = { xp = 50.0 }
sampling = 0.05
"""


@pytest.fixture(autouse=True)
def broad_from_the_first_pair(monkeypatch) -> None:
    """These mechanisms are small: the broad phase runs here from the first active pair."""
    monkeypatch.setattr(broad, "FROM_PAIRS", 0)


def finish(result) -> dict[str, float]:
    """Every coordinate at the end of the trace."""
    names = [c.name for c in result.mechanism.coordinates]
    return dict(zip(names, result.segments[-1].finish.tolist()))


def naive(monkeypatch) -> None:
    """The broad phase with a margin of the rows' tolerance only: a pair whose rows the step
    changes counts only if it is already within the margin of a bound (a path of no length)."""
    meeting = broad.meeting
    monkeypatch.setattr(broad, "meeting", lambda layout, choices, rows, path, margin:
                        meeting(layout, choices, rows, np.zeros((1, layout.n)), margin))


def everything(monkeypatch) -> None:
    """No broad phase: every active pair's rows in every region."""
    monkeypatch.setattr(broad, "near", lambda layout, choices, active, margin: active.copy())


def test_a_falling_stack_lands_on_the_table_far_below():
    result = trace(analyze(loads(FALLING)))
    end = finish(result)
    assert [end["ya"], end["yb"], end["yc"]] == pytest.approx([0.0, 2.0, 4.0], abs=1e-9)
    assert [end["xa"], end["xb"], end["xc"], end["xd"], end["yd"]] == pytest.approx([0, 0, 0, 20, 0], abs=1e-9)
    assert replay(result) == []


def test_a_fast_pusher_stops_at_the_block_across_the_gap():
    result = trace(analyze(loads(FAST)))
    end = finish(result)
    assert end["xp"] == pytest.approx(36.0, abs=1e-9)
    assert end["xd"] == pytest.approx(36.0, abs=1e-9)
    assert result.end_reason == "input blocked"
    assert replay(result) == []
    # The pusher meets the block at t = 20 / 50: a segment boundary there.
    assert any(abs(s.end_time - 0.4) < 1e-9 for s in result.segments)


@pytest.mark.parametrize("text", [FALLING, FAST], ids=["falling", "fast"])
def test_the_broad_phase_leaves_out_pairs_yet_changes_nothing(text, monkeypatch):
    analysis = analyze(loads(text))
    left_out = []
    near = broad.near

    def counting(layout, choices, active, margin):
        found = near(layout, choices, active, margin)
        left_out.append(int((active & ~found).sum()))
        return found

    monkeypatch.setattr(broad, "near", counting)
    with_broad = to_json(trace(analysis))
    assert max(left_out) > 0  # the broad phase had pairs to leave out
    everything(monkeypatch)
    assert to_json(trace(analysis)) == with_broad


@pytest.mark.parametrize("text", [FALLING, FAST], ids=["falling", "fast"])
def test_a_naive_margin_lets_a_part_through(text, monkeypatch):
    naive(monkeypatch)
    try:
        result = trace(analyze(loads(text)))
    except TraceError:
        return  # nothing stops the part (it falls or moves without end), or it is found inside another
    assert replay(result) != [] or finish(result) != finish(trace(analyze(loads(text))))


def test_left_out_rows_keep_their_slack():
    """broad.changing keeps exactly the rows of far active pairs that the velocity changes."""
    analysis = analyze(loads(FALLING))
    layout = analysis.layout
    from cspace.tracing.regions import RegionDiagram
    diagram = RegionDiagram(analysis)
    q = analysis.initial
    choices = diagram.choices(q)
    index = analysis.mechanism.coordinate_index
    falling = [index[c] for c in ("ya", "yb", "yc")]
    active = diagram.active(set(falling))
    near = broad.near(layout, choices, active, 2 * analysis.mechanism.tolerance.length)
    v = np.zeros(layout.n)
    v[falling] = -1.0
    rows = broad.changing(layout, choices, active, near, [v])
    owners = {diagram.pairs[p].name for p in layout.table.owner[rows]}
    # The stack's own pairs move as one: none of their rows change. Each falling block's
    # rows against the frame and the resting block do.
    assert not owners & {"a/b", "a/c", "b/c"}
    assert {"frame/a", "frame/c", "a/d", "c/d"} <= owners
    dense = layout.table.rows(rows, dense=True)
    assert np.all(dense @ v != 0)
