"""Sweeps of full-dynamics mechanisms (fixtures/sweeps/bouncing-block.toml, disk-on-ramp.toml):
each row against the closed form of its variant's motion, and against a single
``cspace trace --set ...`` of it."""

from __future__ import annotations

import csv
import io
import json
import math

import pytest

import cspace
from cspace.cli import main
from cspace.sweeps.measures import MeasureError

from .common import ROOT

BLOCK = ROOT / "fixtures" / "sweeps" / "bouncing-block.toml"
DISK = ROOT / "fixtures" / "sweeps" / "disk-on-ramp.toml"
HEIGHTS, RESTITUTIONS = [0.5, 2.0, 4.0], [0.3, 0.6, 0.8]
SLOPES = [4.0, 8.0, 12.0, 15.0, 20.0]


def bounce(height: float, e: float, until: float = 2.0, g: float = 9.81) -> tuple[float, int | None]:
    """The block's height (y) at ``until`` and the path's stretches (flights and impacts, one by one),
    or None once the impacts have accumulated (at t1 (1 + e) / (1 - e)) and it rests on the floor."""
    t1 = math.sqrt(2 * height / g)
    if until <= t1:
        return -g * until ** 2 / 2, 1
    if until >= t1 * (1 + e) / (1 - e):
        return -height, None
    t, impacts, rate = t1, 1, e * g * t1
    while t + 2 * rate / g <= until:
        t, impacts, rate = t + 2 * rate / g, impacts + 1, rate * e
    return -height + rate * (until - t) - g * (until - t) ** 2 / 2, 2 * impacts + 1


def quadratic_roots(a: float, b: float, c: float) -> list[float]:
    if a == 0:
        return [-c / b] if b else []
    d = b * b - 4 * a * c
    return [] if d < 0 else [(-b - math.sqrt(d)) / (2 * a), (-b + math.sqrt(d)) / (2 * a)]


def roll(slope: float, until: float = 7.0, g: float = 9.8, mu: float = 0.2, seam: float = 22.0) -> dict[str, float]:
    """The disk's s and th at ``until``, the range of s and the events' times, integrated exactly: every stretch has
    constant accelerations (the fixture's header), from event to event (the contact point's slip
    reaching zero, the disk crossing the seam between the rough and the smooth zones)."""
    sin, cos = math.sin(math.radians(slope)), math.cos(math.radians(slope))
    t, s, v, th, w = 0.0, 14.0, 7.0, 0.0, -4.0
    low = high = s
    events = []
    while t < until:
        slip = v + w  # the contact point's velocity: radius 1
        if s > seam or (s == seam and v > 0):
            a, alpha, sliding = -g * sin, 0.0, False
        elif slip != 0 or math.tan(math.radians(slope)) > 3 * mu:
            sign = math.copysign(1, slip) if slip != 0 else -1.0  # rolling impossible: it slips downhill
            a, alpha, sliding = -g * sin - mu * g * cos * sign, -2 * mu * g * cos * sign, True
        else:
            a, sliding = -2 * g * sin / 3, False  # rolling: g sin / (1 + I / (m r^2))
            alpha = -a
        steps = [until - t] + [r for r in quadratic_roots(a / 2, v, s - seam) if r > 1e-12]
        if sliding and -slip / (a + alpha) > 1e-12:
            steps.append(-slip / (a + alpha))
        step = min(steps)
        if a and 0 < -v / a < step:
            turn = s - v * v / (2 * a)
            low, high = min(low, turn), max(high, turn)
        s, v, th, w, t = s + v * step + a * step ** 2 / 2, v + a * step, th + w * step + alpha * step ** 2 / 2, \
            w + alpha * step, t + step
        s = seam if abs(s - seam) < 1e-9 else s
        w = -v if abs(v + w) < 1e-9 else w
        low, high = min(low, s), max(high, s)
        events.append(t)
    return {"s": s, "th": th, "low": low, "high": high, "events": events[:-1]}


@pytest.fixture(scope="module")
def blocks():
    return cspace.sweep(BLOCK, {"height": HEIGHTS, "restitution": RESTITUTIONS}, measures=["floor/block"])


@pytest.fixture(scope="module")
def disks():
    return cspace.sweep(DISK, {"slope": SLOPES})


def test_at_the_defaults_the_parametric_mechanisms_are_the_fixtures(tmp_path, capsys):
    for name in ("bouncing-block", "disk-on-ramp"):
        outputs = []
        for path in (ROOT / "fixtures" / "sweeps" / f"{name}.toml", ROOT / "fixtures" / f"{name}.toml"):
            assert main(["trace", str(path), "--json"]) == 0
            outputs.append(capsys.readouterr().out)
        assert outputs[0] == outputs[1], name


def test_the_closed_forms_give_the_fixtures_header_figures():
    """fixtures/disk-on-ramp.toml's switches (slide to roll, onto the smooth zone, back onto the
    rough one, roll again) and fixtures/bouncing-block.toml's resting time come out of the closed
    forms here."""
    assert roll(15.0)["events"] == pytest.approx([0.365138054717, 1.719574967448, 4.157873615804, 6.125464535146],
                                                 abs=1e-11)
    assert bounce(1.0, 0.5, until=1.354570922957)[0] == -1.0 and bounce(1.0, 0.5, until=1.35)[0] > -1.0


def test_each_bouncing_block_is_where_its_bounces_leave_it(blocks):
    """At the end of the time allotment (2 s) the block is where its flights put it, with one
    stretch a flight or impact, or at rest on the floor once its impacts have accumulated; it never
    sinks into the floor (its clearance is 0: it lands)."""
    tolerance = cspace.load(BLOCK).tolerance.length
    assert (blocks["error"] == "").all()
    resting = 0
    for row in blocks.to_dict("records"):
        y, stretches = bounce(row["height"], row["restitution"])
        assert row["end_reason"] == "time allotment used" and row["end_time"] == 2.0
        assert row["final:y"] == pytest.approx(y, abs=tolerance), (row["height"], row["restitution"])
        assert (row["max:y"], row["min:y"]) == (0.0, pytest.approx(-row["height"], abs=tolerance))
        assert row["clearance:floor/block"] == pytest.approx(0, abs=tolerance)
        if stretches is None:
            resting += 1
        else:
            assert row["segments"] == stretches, (row["height"], row["restitution"])
    assert 0 < resting < len(blocks)


def test_each_disk_rolls_as_its_ramps_slope_says(disks):
    """The disk's final s and th against the exact constant-acceleration stretches; the largest s
    over the samples within half a sample's travel under gravity of the exact largest."""
    tolerance = cspace.load(DISK).tolerance.length
    sampling = 0.01
    assert (disks["error"] == "").all()
    for row in disks.to_dict("records"):
        exact = roll(row["slope"])
        assert -9 < exact["low"] and exact["high"] < 59  # on the ramp, whose ends the closed form does not know
        assert row["final:s"] == pytest.approx(exact["s"], abs=tolerance), row["slope"]
        assert row["final:th"] == pytest.approx(exact["th"], abs=tolerance), row["slope"]
        assert row["min:s"] == pytest.approx(exact["low"], abs=tolerance)
        assert 0 <= exact["high"] - row["max:s"] <= 9.8 * (sampling / 2) ** 2 / 2 + tolerance
        assert (row["final:n"], row["min:n"], row["max:n"]) == (0.0, 0.0, 0.0)
    assert disks["final:s"].is_monotonic_decreasing  # steeper, further down


@pytest.mark.parametrize("path, values", [(BLOCK, {"height": 2.0, "restitution": 0.6}),
                                          (BLOCK, {"height": 0.5, "restitution": 0.3}),
                                          (DISK, {"slope": 12.0})])
def test_each_row_is_a_single_trace_of_its_variant(path, values, tmp_path, capsys):
    """The row against ``cspace trace --set ... --json --path``: the end and its time, the stretches,
    each coordinate's final value and range over the path's samples."""
    [row] = cspace.sweep(path, [values]).to_dict("records")
    out = tmp_path / "path.csv"
    assert main(["trace", str(path), "--json", "--path", str(out), *[f"--set={k}={v!r}" for k, v in values.items()]]) == 0
    document = json.loads(capsys.readouterr().out)
    table = list(csv.DictReader(io.StringIO(out.read_text())))
    assert row["end_reason"] == document["end"] and row["end_time"] == round(document["stretches"][-1]["end"], 10)
    assert row["segments"] == len(document["stretches"]) and row["blocked"] == 0
    for name in document["stretches"][0]["from"]:
        column = [float(r[name]) for r in table]
        assert (row[f"final:{name}"], row[f"min:{name}"], row[f"max:{name}"]) == \
            tuple(round(v, 10) + 0.0 for v in (column[-1], min(column), max(column))), name


def test_the_command_line_sweeps_a_full_dynamics_file(tmp_path, capsys):
    out = tmp_path / "blocks.csv"
    assert main(["sweep", str(BLOCK), "--vary", "height=1:2:2", "--out", str(out), "--workers", "1"]) == 0
    assert capsys.readouterr().out == f"{out}: 2 variants, 2 traced, 0 failed\n"


@pytest.mark.parametrize("measure", ["play:y", "drops:y"])
def test_plays_and_drops_are_refused_on_full_dynamics(measure, tmp_path, capsys):
    with pytest.raises(MeasureError, match="measured on the paper's simple dynamics"):
        cspace.sweep(BLOCK, {"height": [1.0]}, measures=[measure])
    status = main(["sweep", str(BLOCK), "--vary", "height=1:2:2", "--measure", measure, "--out",
                   str(tmp_path / "r.csv"), "--workers", "1"])
    err = capsys.readouterr().err
    assert status == 2 and err.count("\n") == 1 and "full dynamics" in err
