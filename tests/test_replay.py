"""Every sampled configuration of every fixture, replayed through the real part shapes."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cspace import analyze, load, trace
from cspace.model.checks import overlap_depth
from cspace.spaces import pairspace
from cspace.testing import HELD_BY_NOTHING, OVERLAP, replay

from .common import FIXTURES, each, fixture_path, traced
from .support.edits import with_configs


@pytest.mark.parametrize("name", each(FIXTURES))
def test_parts_touch_but_never_overlap_and_loaded_parts_rest_on_something(name):
    trace = traced(name)
    # Nothing to sample only where nothing moves at all (feeder-sticky: its input is blocked at once).
    assert trace.samples() or (not trace.segments and trace.end_reason == "input blocked"), "nothing was sampled"
    violations = replay(trace)
    assert not violations, "\n".join(map(str, violations[:10]))


def test_the_oracle_catches_an_overlap():
    """The replay is not vacuous: a trace whose samples sink a block into the table fails."""
    trace = traced("pusher")
    sunk = trace.pieces[0].configs.copy()
    sunk[:, 2] -= 0.5  # ya: block a half sunk into the table
    kinds = {v.kind for v in replay(with_configs(trace, 0, sunk))}
    assert OVERLAP in kinds


def test_the_oracle_catches_a_hovering_block():
    trace = traced("pusher")
    lifted = trace.pieces[0].configs.copy()
    lifted[:, 4] += 0.5  # yb: block b floating above the table
    kinds = {v.kind for v in replay(with_configs(trace, 0, lifted))}
    assert HELD_BY_NOTHING in kinds


@pytest.mark.parametrize("name", ["spring-gate", "ramp-release"])
def test_the_oracle_catches_a_part_held_by_a_holder_that_left(name, monkeypatch):
    """The bug this oracle was taught: regions whose facet is a contact along part of its
    length and free along the rest. With the cut that splits them switched off (the
    code as it was), the part stays pressed against a face that has moved away."""
    monkeypatch.setenv("CSPACE_CACHE", "off")
    monkeypatch.setattr(pairspace, "label_change_cuts", lambda facets: [])
    violations = replay(trace(analyze(load(fixture_path(name)))))
    assert HELD_BY_NOTHING in {v.kind for v in violations}
    assert "held by nothing" in str(violations[0])


TRIPLES = [(3, 4), (4, 3), (5, 12), (12, 5), (8, 15), (7, 24), (20, 21)]


@st.composite
def blocks_on_slopes(draw):
    """A quadrilateral block with its base on a slope (a Pythagorean direction, so the file's
    numbers are exact decimals), slid along it in quarter steps the way the replay poses a
    part (a float translate), short of a wall at the slope's end; and ``sink``, how far the
    block is pressed into the slope."""
    from shapely import MultiPolygon, Polygon, affinity

    p, q = draw(st.sampled_from(TRIPLES))
    sx, sy = draw(st.sampled_from([1, -1])), draw(st.sampled_from([1, -1]))
    h = math.hypot(p, q)
    d = (sx * q / h, sy * p / h)

    def at(u, v):
        return (u * d[0] - v * d[1], u * d[1] + v * d[0])

    start, length = draw(st.integers(0, 4)), draw(st.integers(1, 4))
    top = draw(st.floats(0.2, 1.0))
    left, high, back = draw(st.integers(1, 4)), draw(st.integers(1, 4)), draw(st.integers(0, 1))
    sink = draw(st.sampled_from([0.0, 1e-3, 0.25]))
    block = Polygon([at(start, -sink), at(start + length, -sink), at(start + length * top, high - sink),
                     at(start - back, left - sink)])
    slope = MultiPolygon([Polygon([at(-2, 0), at(9, 0), at(9, -1), at(-2, -1)]),
                          Polygon([at(10, 0), at(11, 0), at(11, 3), at(10, 3)])])
    slide = draw(st.integers(0, 4 * (9 - start - length))) * 0.25
    return slope, affinity.translate(block, slide * d[0], slide * d[1]), sink


@settings(max_examples=400, deadline=None)
@given(case=blocks_on_slopes())
def test_the_overlap_oracle_measures_a_part_on_a_slope_right(case):
    """Touching is 0 deep and a block pressed in is as deep as it is pressed, in either order.
    GEOS's floating overlay takes about 1 in 250 of these blocks, lying along a slope, for
    wholly inside it (3 deep, found by the releases fuzz): the oracle snap-rounds to the
    exact grid instead."""
    slope, block, sink = case
    for a, b in ((slope, block), (block, slope)):
        assert overlap_depth(a, b, 1e-9) == pytest.approx(sink, abs=1e-6)


def test_the_overlap_oracle_survives_the_case_the_floating_overlay_failed():
    """The fuzz case that found it: block and frame in the replay's own coordinates."""
    from shapely import wkt

    block = wkt.loads("POLYGON ((1.2000000000000002 0.8999999999999999, 3.6 2.6999999999999997, "
                      "1.7999999999999998 5.1, -0.6 3.3, 1.2000000000000002 0.8999999999999999))")
    frame = wkt.loads("MULTIPOLYGON (((6.4 4.8, 7 4, -1 -2, -1.6 -1.2, 6.4 4.8)), "
                      "((1.8 7.6, 2.6 8.2, 5.6 4.2, 4.8 3.6, 1.8 7.6)))")
    assert overlap_depth(block, frame) > 2.9  # the floating overlay: the whole block inside the frame
    assert overlap_depth(block, frame, 1e-9) == overlap_depth(frame, block, 1e-9) == 0.0
