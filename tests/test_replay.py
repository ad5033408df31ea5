"""Every sampled configuration of every fixture, replayed through the real part shapes."""

from __future__ import annotations

import pytest

from cspace import analyze, load, pairspace, trace
from cspace.testing import HELD_BY_NOTHING, OVERLAP, replay

from .common import FIXTURES, fixture_path, traced


@pytest.mark.parametrize("name", FIXTURES)
def test_parts_touch_but_never_overlap_and_loaded_parts_rest_on_something(name):
    trace = traced(name)
    assert trace.samples(), "nothing was sampled"
    violations = replay(trace)
    assert not violations, "\n".join(map(str, violations[:10]))


def test_the_oracle_catches_an_overlap():
    """The replay is not vacuous: a trace whose samples sink a block into the table fails."""
    trace = traced("pusher")
    sunk = trace.pieces[0].configs.copy()
    sunk[:, 2] -= 0.5  # ya: block a half sunk into the table
    original = trace.pieces[0].configs
    try:
        trace.pieces[0].configs = sunk
        kinds = {v.kind for v in replay(trace)}
    finally:
        trace.pieces[0].configs = original
    assert OVERLAP in kinds


def test_the_oracle_catches_a_hovering_block():
    trace = traced("pusher")
    lifted = trace.pieces[0].configs.copy()
    lifted[:, 4] += 0.5  # yb: block b floating above the table
    original = trace.pieces[0].configs
    try:
        trace.pieces[0].configs = lifted
        kinds = {v.kind for v in replay(trace)}
    finally:
        trace.pieces[0].configs = original
    assert HELD_BY_NOTHING in kinds


@pytest.mark.parametrize("name", ["spring-gate", "ramp-release"])
def test_the_oracle_catches_a_part_held_by_a_holder_that_left(name, monkeypatch):
    """The bug this oracle was taught: regions whose facet is a contact along part of its
    length and free along the rest. With the cut that splits them switched off (the
    code as it was), the part stays pressed against a face that has moved away."""
    monkeypatch.setenv("CSPACE_CACHE", "off")
    monkeypatch.setattr(pairspace, "_label_change_cuts", lambda facets: [])
    violations = replay(trace(analyze(load(fixture_path(name)))))
    assert HELD_BY_NOTHING in {v.kind for v in violations}
    assert "held by nothing" in str(violations[0])
