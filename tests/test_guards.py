"""The tracer never hangs: each guard ends the trace with an error that says why."""

from __future__ import annotations

import pytest

from cspace import TraceError, analyze, load, loads, trace
from cspace.tracing.tracer import Tracer, _Followed

from .common import fixture_path

FALLING = """
[mechanism]
time = 1
[[parts]]
name = "frame"
motion = "fixed"
[[parts.slices]]
z = [0, 1]
profiles = [{ rect = [0, -1, 10, 0] }]
[[parts]]
name = "block"
motion = "fixed-axes"
coordinates = [{ name = "y", axis = [0, 1], initial = 5 }, { name = "x", axis = [1, 0], initial = 20 }]
[[parts.slices]]
z = [0, 1]
profiles = [{ rect = [0, 0, 1, 1] }]
[[forces]]
kind = "gravity"
coordinate = "y"
direction = -1
[[inputs]]
velocities = { x = 1.0 }
sampling = 0.25
"""


def test_a_part_falling_past_everything_is_an_error_naming_file_part_and_time():
    with pytest.raises(TraceError) as caught:
        trace(analyze(loads(FALLING, source="falling.toml")))
    assert str(caught.value) == ("falling.toml: part 'block': at t = 0: y moves without end: nothing ever stops "
                                 "this motion (is a support missing?)")


def test_the_piece_cap_stops_a_long_trace():
    with pytest.raises(TraceError, match=r"feeder.toml: at t = \S+: the trace passed 5 pieces of path"):
        trace(analyze(load(fixture_path("feeder"))), max_pieces=5)


def test_a_motion_that_cannot_be_followed_is_an_error_not_a_loop(monkeypatch):
    """Were the tracer ever to find a motion it cannot follow a step of, it must not retry forever."""
    monkeypatch.setattr(Tracer, "follow", lambda self, mode, q, param, limit: _Followed([param], [q], "stuck"))
    with pytest.raises(TraceError) as caught:
        trace(analyze(load(fixture_path("feeder"))))
    # The first step: the input turns the driver, which drives the piston through the linkage.
    assert str(caught.value).endswith("feeder.toml: parts 'driver' and 'piston': at t = 0: no progress (input "
                                      "step): the motion found at this configuration stops at once")
