"""The sampled path on standard output (``--path -``) and each moving part's pose beside it
(``--poses``), checked against poses worked out by hand."""

from __future__ import annotations

import csv
import io
import json
import math

import pytest

from cspace.cli import main

from .common import fixture_path

TURNING = """
[mechanism]
name = "turning"
time = 2

[[parts]]
name = "wheel"
motion = "fixed-axes"
coordinates = [ { name = "a", pivot = [3, 4], initial = 0.2 } ]

[[parts.slices]]
z = [0, 1]
profiles = [ { rect = [2, 3, 4, 5] } ]

[[parts]]
name = "slider"
motion = "fixed-axes"
coordinates = [ { name = "s", axis = [0.6, 0.8], initial = 1 } ]

[[parts.slices]]
z = [0, 1]
profiles = [ { rect = [20, 0, 22, 1] } ]

[[inputs]]
name = "both move"
velocities = { a = 2.0, s = 1.0 }
sampling = 0.25
"""


def run(argv: list[str], capsys) -> tuple[int, str, str]:
    status = main(argv)
    out = capsys.readouterr()
    return status, out.out, out.err


def rows(text: str) -> list[dict[str, float]]:
    return [{k: float(v) for k, v in row.items()} for row in csv.DictReader(io.StringIO(text))]


def test_path_dash_writes_the_files_csv_to_standard_output(tmp_path, capsys):
    target = tmp_path / "path.csv"
    assert run(["trace", str(fixture_path("feeder")), "--path", str(target), "--until", "1"], capsys)[0] == 0
    status, out, err = run(["trace", str(fixture_path("feeder")), "--path", "-", "--until", "1"], capsys)
    assert (status, err) == (0, "")
    assert out == target.read_text()


@pytest.mark.parametrize("others", (["--describe"], ["--json"], ["--stats"]))
def test_path_dash_beside_another_report_is_refused_before_the_work(others, capsys, monkeypatch):
    monkeypatch.setattr("cspace.cli._traced", lambda *a, **k: pytest.fail("traced"))
    status, out, err = run(["trace", str(fixture_path("feeder")), "--path", "-", *others], capsys)
    assert (status, out) == (2, "")
    assert err == ("cspace: error: --path -: standard output holds the path alone; write it to a file "
                   "(--path OUT.csv) beside --describe, --json, --regions or --stats\n")


def test_poses_without_a_path_is_refused(capsys):
    status, _, err = run(["trace", str(fixture_path("feeder")), "--poses"], capsys)
    assert (status, err) == (2, "cspace: error: --poses: the poses are columns of the path: add --path OUT\n")


def test_poses_follow_the_unchanged_columns_and_match_poses_worked_by_hand(tmp_path, capsys):
    """The wheel turns by ``a`` about (3, 4): its drawing's origin goes to P - R(a) P; the
    slider moves ``s`` along (0.6, 0.8): its drawing's origin goes to s (0.6, 0.8)."""
    mechanism = tmp_path / "turning.toml"
    mechanism.write_text(TURNING)
    plain = run(["trace", str(mechanism), "--path", "-"], capsys)[1]
    status, out, _ = run(["trace", str(mechanism), "--path", "-", "--poses"], capsys)
    assert status == 0
    header = out.splitlines()[0]
    assert header == ("time,segment,a,s,wheel.x,wheel.y,wheel.angle,slider.x,slider.y,slider.angle")
    assert [line.split(",")[:4] for line in out.splitlines()] == [line.split(",") for line in plain.splitlines()]
    table = rows(out)
    assert len(table) > 5 and table[-1]["a"] != table[0]["a"]
    for row in table:
        a, s = row["a"], row["s"]
        assert row["wheel.x"] == pytest.approx(3 - (3 * math.cos(a) - 4 * math.sin(a)), abs=1e-9)
        assert row["wheel.y"] == pytest.approx(4 - (3 * math.sin(a) + 4 * math.cos(a)), abs=1e-9)
        assert math.remainder(row["wheel.angle"] - a, 2 * math.pi) == pytest.approx(0, abs=1e-9)
        assert (row["slider.x"], row["slider.y"], row["slider.angle"]) == pytest.approx((0.6 * s, 0.8 * s, 0), abs=1e-9)


def test_a_linkage_members_pose_keeps_its_pin_on_the_piston(tmp_path, capsys):
    """The feeder's link is pinned at its drawing's (8, 0) to the piston's (1, 0) (within the
    linkage table's interpolation, which poses its members along a trace)."""
    target = tmp_path / "path.json"
    status, _, err = run(["trace", str(fixture_path("feeder")), "--path", str(target), "--poses", "--until", "2"],
                         capsys)
    assert status == 0 and "the path sampled at" in err
    document = json.loads(target.read_text())
    for values in document["rows"]:
        row = dict(zip(document["columns"], values))
        turn = row["link.angle"]
        pin = (row["link.x"] + 8 * math.cos(turn), row["link.y"] + 8 * math.sin(turn))
        assert pin == pytest.approx((row["piston.x"] + 1, row["piston.y"]), abs=1e-4)
        assert row["piston.x"] == pytest.approx(row["xp"], abs=1e-9)


def test_a_full_dynamics_path_has_poses_too(capsys):
    status, out, _ = run(["trace", str(fixture_path("bouncing-block")), "--path", "-", "--poses", "--until", "0.5"],
                         capsys)
    assert status == 0
    assert out.splitlines()[0] == "time,y,dy,kinetic,potential,block.x,block.y,block.angle"
    for row in rows(out):
        assert (row["block.x"], row["block.y"], row["block.angle"]) == (0.0, row["y"], 0.0)


def test_plot_pair_checks_its_part_names_before_any_analysis(capsys, monkeypatch):
    """A typo in a part's name fails at once, in one line with a hint, exit 2: the analysis never starts."""
    monkeypatch.setattr("cspace.tracing.analysis.analyze", lambda *a, **k: pytest.fail("analysed"))
    status, out, err = run(["plot-pair", "geneva", "crank", "wheeel", "-o", "x.png"], capsys)
    assert (status, out) == (2, "")
    assert err.endswith("geneva.toml: PART_B: unknown part 'wheeel' (did you mean 'wheel'?)\n")
    assert len(err.splitlines()) == 1


def test_an_unknown_coordinate_in_an_inputs_velocities_gets_a_hint_or_the_list(tmp_path, capsys):
    for typo, said in (("xq", "(did you mean 'xp'?)"), ("zzzz", "; the coordinates are xp, xa, ya, xb, yb, xc, yc")):
        mechanism = tmp_path / f"{typo}.toml"
        mechanism.write_text(fixture_path("pusher").read_text().replace("velocities = { xp", f"velocities = {{ {typo}"))
        status, _, err = run(["trace", str(mechanism)], capsys)
        assert (status, err) == (2, f"cspace: error: {mechanism}: inputs[0]: velocities: unknown coordinate "
                                    f"{typo!r} {said}\n".replace(" ;", ";"))
