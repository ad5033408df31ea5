"""The tracer's shortcuts change nothing: with every velocity left to the linear program
(solved afresh, none remembered) and every candidate region tried, or with the representations meant for large
mechanisms (sparse regions, R-tree lookups), every fixture and a batch of generated
mechanisms trace to byte-identical reports."""

from __future__ import annotations

import pytest

from cspace import analyze, load, loads, trace
from cspace.testing import assert_traces_equal
from cspace.tracing import layout, regions, tracer
from cspace.tracing.dynamics import SimpleDynamics, Undetermined

from .common import FIXTURES, each, fixture_path, seeds
from .support.fuzz import SeededDraw, mechanism


def traced_both_ways(analysis, monkeypatch):
    fast = trace(analysis)
    program = SimpleDynamics.velocity_program

    def afresh(self, *args, **kwargs):
        self._programs.clear()  # no program remembered: each solved again
        return program(self, *args, **kwargs)

    with monkeypatch.context() as patch:
        patch.setattr(SimpleDynamics, "determined", lambda self, *args: Undetermined.PROGRAM)
        patch.setattr(SimpleDynamics, "velocity_program", afresh)
        patch.setattr(tracer, "unbeatable", lambda *args: False)
        slow = trace(analysis)
    return fast, slow


def traced_as_if_large(build, monkeypatch):
    """Trace a fresh analysis from ``build()``: its layout is made with the large-mechanism limits."""
    with monkeypatch.context() as patch:
        patch.setattr(layout, "DENSE_LIMIT", 0)
        patch.setattr(regions, "FEW_REGIONS", 0)
        return trace(build())


@pytest.mark.parametrize("name", each(FIXTURES))
def test_fixtures_trace_the_same_as_if_large(name, monkeypatch):
    """The same to 9 significant digits: a rotating pair's rows are not whole numbers, and
    sparse products round differently from dense ones in the last digit."""
    def build():
        return analyze(load(fixture_path(name)))
    assert_traces_equal(trace(build()), traced_as_if_large(build, monkeypatch), digits=9)


@pytest.mark.parametrize("seed", seeds(12, 2))
def test_generated_mechanisms_trace_the_same_as_if_large(seed, monkeypatch):
    def build():
        return analyze(loads(mechanism(SeededDraw(seed))))
    assert_traces_equal(trace(build()), traced_as_if_large(build, monkeypatch))


@pytest.mark.parametrize("name", each(FIXTURES))
def test_fixtures_trace_the_same_without_shortcuts(name, monkeypatch):
    fast, slow = traced_both_ways(analyze(load(fixture_path(name))), monkeypatch)
    assert_traces_equal(fast, slow)
    assert fast.stats.lp_solves <= slow.stats.lp_solves


@pytest.mark.parametrize("seed", seeds(12, 2))
def test_generated_mechanisms_trace_the_same_without_shortcuts(seed, monkeypatch):
    fast, slow = traced_both_ways(analyze(loads(mechanism(SeededDraw(seed)))), monkeypatch)
    assert_traces_equal(fast, slow)
