"""The two-speed transmission (fixtures/transmission.toml, tools/make_transmission.py): a
gear cluster sliding along its shaft, a shift along z, changes which gears mesh.

The oracles are the tooth counts (the involute law: the output turns by the input's
angle times the tooth ratio), the layers the generator draws (where each pair of gears
starts and stops meeting in z) and the real shapes (shapely, via cspace.testing).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

import cspace.spaces.layers
from cspace import analyze, load, loads, trace
from cspace.testing import overlaps, replay

from .common import fixture_path, slow, tool, traced

ENGAGE = "input.slices[1].bottom/cluster.slices[1].top"  # B2's top face on A2's bottom face


def _tool():
    return tool("make_transmission")


def test_the_fixture_is_what_the_tool_writes():
    assert fixture_path("transmission").read_text() == _tool().mechanism(misaligned=False)


def _columns(result):
    names = [c.name for c in result.mechanism.coordinates]
    samples = result.samples()
    times = np.array([t for t, _, _ in samples])
    q = np.array([c for _, _, c in samples])
    return times, {name: q[:, k] for k, name in enumerate(names)}


def _law(t1: np.ndarray, t2: np.ndarray) -> tuple[float, float]:
    """Slope of t2 against t1 (unwrapped angles) and the largest residual from that line."""
    slope, intercept = np.polyfit(t1, t2, 1)
    return float(slope), float(np.abs(t2 - (slope * t1 + intercept)).max())


@slow
def test_each_speed_turns_the_output_by_its_tooth_ratio():
    """First speed: t2 = c - (12/18) t1 once the backlash is taken up; the shift moves
    nothing but the cluster along its shaft, 0 to 2.5; second speed: t2 = c' - (16/14) t1."""
    tool = _tool()
    result = traced("transmission")
    times, q = _columns(result)
    first, shift = tool.TURN / tool.SPEED, (tool.SHIFT[1] - tool.SHIFT[0]) / tool.SPEED
    speed1 = (times > 0.2) & (times <= first)
    slope, residual = _law(q["t1"][speed1], q["t2"][speed1])
    assert slope == pytest.approx(-tool.A1 / tool.B1, abs=2e-4) and residual < 2e-3
    assert np.all(q["s"][speed1] == tool.SHIFT[0])
    shifting = (times > first) & (times < first + shift)
    assert np.allclose(q["s"][shifting], tool.SHIFT[0] + tool.SPEED * (times[shifting] - first), atol=1e-9)
    for name in ("t1", "t2"):
        assert np.ptp(q[name][shifting]) < 1e-9
    speed2 = times >= first + shift + 0.2
    slope, residual = _law(q["t1"][speed2], q["t2"][speed2])
    assert slope == pytest.approx(-tool.A2 / tool.B2, abs=2e-4) and residual < 2e-3
    assert np.all(q["s"][speed2] == tool.SHIFT[1])
    assert replay(result) == []


@slow
def test_the_shift_is_blocked_until_the_teeth_line_up():
    """Half an A2 pitch further round, B2's teeth stand on A2's: the shift stops where B2's
    top face reaches A2's bottom face (s = 1.5), with that contact, and the real shapes
    would overlap a little further on. Aligned (the fixture), the same step is clear."""
    tool = _tool()
    mechanism = loads(tool.mechanism(misaligned=True))
    result = trace(analyze(mechanism))
    reach = tool.LAYERS["A2"][0] - tool.LAYERS["B2"][1]  # where B2 starts to meet A2
    shift = 1 + next(k for k, m in enumerate(mechanism.inputs) if m.coordinates == ("s",))
    shifts = [s for s in result.segments if s.phase == "input" and s.first.motion + 1 == shift]
    assert shifts[-1].end == "input blocked"
    names = [c.name for c in mechanism.coordinates]
    blocked = dict(zip(names, map(float, shifts[-1].finish)))
    assert blocked["s"] == pytest.approx(reach, abs=mechanism.tolerance.length)
    after = result.segments[shifts[-1].index]
    assert ENGAGE in {str(c) for c in after.first.contacts}
    further = {**blocked, "s": reach + 0.05}
    assert {(a, b) for a, b, _ in overlaps(mechanism, further, mechanism.tolerance.overlap)} == {("cluster", "input")}
    assert replay(result) == []

    aligned = traced("transmission")
    times, q = _columns(aligned)
    engaging = np.flatnonzero((q["s"] > reach + 0.01) & (q["s"] < tool.SHIFT[1]))
    assert len(engaging) >= 5  # B2 sliding into A2, teeth between teeth
    for at in engaging:
        values = {name: float(column[at]) for name, column in q.items()}
        assert overlaps(aligned.mechanism, values, aligned.mechanism.tolerance.overlap) == []


@slow
def test_a_shifted_pair_space_is_each_band_s_planar_space_times_its_stretch():
    """The gears' pair space: bands cut where a pair of gears starts or stops meeting in
    z (B1 leaves A1 at s = 1, B2 reaches A2 at s = 1.5), a free band between; as many
    regions as the bands' planar spaces together; each region bounded in s by its band."""
    tool = _tool()
    analysis = analyze(load(fixture_path("transmission")))
    (pair,) = analysis.pairs
    leaves = tool.LAYERS["A1"][1] - tool.LAYERS["B1"][0]
    reaches = tool.LAYERS["A2"][0] - tool.LAYERS["B2"][1]
    assert [(b.lo, b.hi) for b in pair.bands] == [(-np.inf, leaves), (leaves, reaches), (reaches, np.inf)]
    assert [b.slices for b in pair.bands] == [((0, 0),), (), ((1, 1),)]
    assert len(pair.geometry) == sum(len(b.space.geometry) if b.space is not None else 1 for b in pair.bands)
    for region in pair.geometry:
        r = region.rows[:, -1]
        assert np.count_nonzero(r) == (region.band.lo > -np.inf) + (region.band.hi < np.inf)
        inside = np.flatnonzero(r)
        assert np.allclose(np.abs(region.rows[inside, :-1]), 0)


@slow
def test_replay_sees_gears_pass_through_when_the_bands_ignore_the_shift(monkeypatch):
    """The oracle covers the class: built as if the cluster never left z [0, 2] (each band's
    planar space from the parts where they are drawn), second speed turns the input
    through the cluster's teeth, and the replay, which carries slices by the shift on the
    real shapes, reports the overlap."""
    monkeypatch.setattr(cspace.spaces.layers, "carried", lambda part, r, shift: replace(
        part, coordinates=tuple(c for c in part.coordinates if shift is None or c != shift.name)))
    result = trace(analyze(load(fixture_path("transmission"))))
    kinds = {(v.kind, v.parts) for v in replay(result)}
    assert kinds == {("overlap", ("cluster", "input"))}
