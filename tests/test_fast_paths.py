"""The tracer's shortcuts change nothing: with every velocity left to the linear program,
every fixture and a batch of generated mechanisms trace to byte-identical reports."""

from __future__ import annotations

import pytest

from cspace import analyze, load, loads, trace
from cspace.dynamics import SimpleDynamics
from cspace.fuzz import SeededDraw, mechanism
from cspace.testing import assert_traces_equal

from .common import FIXTURES, fixture_path


def traced_both_ways(analysis, monkeypatch):
    fast = trace(analysis)
    with monkeypatch.context() as patch:
        patch.setattr(SimpleDynamics, "determined", lambda self, *args: False)
        slow = trace(analysis)
    return fast, slow


@pytest.mark.parametrize("name", FIXTURES)
def test_fixtures_trace_the_same_without_shortcuts(name, monkeypatch):
    fast, slow = traced_both_ways(analyze(load(fixture_path(name))), monkeypatch)
    assert_traces_equal(fast, slow)
    assert fast.stats.lp_solves <= slow.stats.lp_solves


@pytest.mark.parametrize("seed", range(12))
def test_generated_mechanisms_trace_the_same_without_shortcuts(seed, monkeypatch):
    fast, slow = traced_both_ways(analyze(loads(mechanism(SeededDraw(seed)))), monkeypatch)
    assert_traces_equal(fast, slow)
