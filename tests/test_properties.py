"""Properties of generated mechanisms (hypothesis drives cspace.fuzz, so failures shrink).

For every case: the trace finishes, no two real parts overlap at any sample, every
force-loaded part at rest is supported, and tracing again gives identical reports.
tools/fuzz_report.py runs the same generator over hundreds of seeds.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cspace import analyze, loads, trace
from cspace.fuzz import row, stack
from cspace.testing import assert_traces_equal, replay

SETTINGS = settings(max_examples=10, deadline=None, derandomize=True, database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


class HypothesisDraw:
    """cspace.fuzz.Draw backed by hypothesis."""

    def __init__(self, data) -> None:
        self.data = data

    def integer(self, low: int, high: int) -> int:
        return self.data.draw(st.integers(low, high))

    def number(self, low: float, high: float) -> float:
        return round(self.data.draw(st.floats(low, high)), 3)

    def choice(self, options):
        return self.data.draw(st.sampled_from(list(options)))


def check(text: str) -> None:
    first = trace(analyze(loads(text)))
    assert first.segments, "nothing happened"
    violations = replay(first)
    assert not violations, "\n".join(map(str, violations[:5])) + "\n" + text
    assert_traces_equal(first, trace(analyze(loads(text))))


@SETTINGS
@given(st.data())
def test_stacks_drop_when_their_support_slides_away(data):
    check(stack(HypothesisDraw(data)))


@SETTINGS
@given(st.data())
def test_rows_are_gathered_by_a_pusher(data):
    check(row(HypothesisDraw(data)))
