"""Design sweeps, run here (serially): the design, the rows, failures, --resume, determinism,
and each row against a single ``cspace trace --set`` of its variant."""

from __future__ import annotations

import csv
import io
import json

import numpy as np
import pandas as pd
import pytest

import cspace
from cspace.cli import main
from cspace.sweeps.design import Axis, DesignError, grid, hypercube
from cspace.sweeps.results import read
from cspace.sweeps.variant import RUN_COLUMNS

from .common import ROOT

FEEDER = ROOT / "fixtures" / "sweeps" / "feeder.toml"


def run(argv: list[str], capsys) -> tuple[int, str, str]:
    status = main(argv)
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def results(frame: pd.DataFrame) -> pd.DataFrame:
    """The rows without the run's own measurements (wall time, cache use)."""
    return frame.drop(columns=[c for c in RUN_COLUMNS if c in frame.columns]).reset_index(drop=True)


def test_a_grid_is_every_combination_the_last_axis_fastest():
    axes = [Axis.parse("crank=1:3:3"), Axis.parse(" link = 8:9:2 ")]
    assert grid(axes) == [{"crank": c, "link": k} for c in (1.0, 2.0, 3.0) for k in (8.0, 9.0)]
    assert Axis.parse("crank=0.1:0.7:7").values()[-1] == 0.7  # the end exact, not 0.1 + 6 * 0.1


@pytest.mark.parametrize("count", [1, 7, 50])
def test_a_hypercube_hits_each_stratum_of_each_axis_once(count):
    design = hypercube([Axis("crank", 1, 3), Axis("link", -5, 5)], count, seed=4)
    assert len(design) == count
    for name, low, high in (("crank", 1, 3), ("link", -5, 5)):
        strata = sorted(int((v[name] - low) / (high - low) * count) for v in design)
        assert strata == list(range(count))
    assert design == hypercube([Axis("crank", 1, 3), Axis("link", -5, 5)], count, seed=4)
    assert design != hypercube([Axis("crank", 1, 3), Axis("link", -5, 5)], count, seed=5)


@pytest.mark.parametrize("text", ["crank", "crank=1:2:0", "crank=3:1:4", "crank=a:2:3", "1x=1:2:3"])
def test_a_bad_range_is_refused(text):
    with pytest.raises(DesignError):
        grid([Axis.parse(text)])


def test_a_variant_that_fails_is_a_row_with_its_one_line_error():
    rows = cspace.sweep(FEEDER, [{"crank": 3, "link": 8}, {"crank": 5, "link": 2}, {"crank": 3, "link": "1e9"}])
    assert list(rows["error"][:1]) == [""] and rows["segments"][0] == 20
    assert "linkage 'crank-slider'" in rows["error"][1] and "\n" not in rows["error"][1]
    assert pd.isna(rows["segments"][1]) and rows["end_reason"][1] == ""
    assert "outside the bounds" in rows["error"][2]


def test_the_sweep_is_deterministic_and_in_the_designs_order():
    design = {"crank": [3.5, 2.0], "link": [9.0, 7.0]}
    first, second = cspace.sweep(FEEDER, design), cspace.sweep(FEEDER, design)
    assert list(zip(first["crank"], first["link"])) == [(3.5, 9.0), (3.5, 7.0), (2.0, 9.0), (2.0, 7.0)]
    pd.testing.assert_frame_equal(results(first), results(second))
    assert first["id"].is_unique and list(first["id"]) == list(second["id"])


def test_a_function_returning_a_mechanism_is_swept_like_a_file():
    text = FEEDER.read_text()

    def feeder(crank: float, link: float) -> cspace.Mechanism:
        return cspace.loads(text, source=str(FEEDER), default_name="feeder", parameters={"crank": crank, "link": link})

    design = [{"crank": 3.0, "link": 8.0}, {"crank": 4.0, "link": 9.0}]
    by_function, by_file = cspace.sweep(feeder, design), cspace.sweep(FEEDER, design)
    columns = [c for c in results(by_file).columns if c != "id"]
    pd.testing.assert_frame_equal(results(by_function)[columns], results(by_file)[columns])
    assert list(by_function["final:xb3"]) == [3 + 8 + 6, 4 + 9 + 6]  # the last block fed: crank + link + 6


def test_each_row_is_a_single_trace_of_its_variant(tmp_path, capsys):
    """Ten variants' rows against ``cspace trace --set ... --json --path``: how and when it ended,
    the segments, where it was blocked, each coordinate's final value and range (from the path)."""
    design = hypercube([Axis("crank", 1.5, 5.5), Axis("link", 5, 13)], 10, seed=28)
    rows = cspace.sweep(FEEDER, design, measures=["piston/block1"])
    assert len(rows) == 10 and (rows["error"] == "").all()
    for row, values in zip(rows.to_dict("records"), design):
        path = tmp_path / "path.csv"
        status, out, _ = run(["trace", str(FEEDER), "--json", "--path", str(path),
                              *[f"--set={name}={value!r}" for name, value in values.items()]], capsys)
        assert status == 0
        document = json.loads(out)
        blocked = [s for s in document["segments"] if s["end"] == "input blocked"]
        assert (row["crank"], row["link"]) == (values["crank"], values["link"])
        assert row["end_reason"] == document["end"]["reason"] and row["end_time"] == document["end"]["time"]
        assert row["segments"] == len(document["segments"]) and row["blocked"] == len(blocked)
        table = list(csv.DictReader(io.StringIO(path.read_text())))
        for name in document["coordinates"]:
            column = [float(r[name]) for r in table]
            assert (row[f"final:{name}"], row[f"min:{name}"], row[f"max:{name}"]) == \
                (column[-1], min(column), max(column)), name
        assert row["clearance:piston/block1"] >= 0


def test_a_blocked_input_is_named_with_its_time_and_contacts():
    """The pusher of fixtures/pusher.toml, its pusher's stroke a parameter: blocked at t = 27
    (its header's closed form) whatever the stroke beyond it, by the last block meeting the
    wall (not by the contacts it was pushing through all along)."""
    text = (ROOT / "fixtures" / "pusher.toml").read_text()
    row = cspace.sweep(lambda: cspace.loads(text), [{}]).iloc[0]
    assert row["blocked"] == 1 and row["blocked_at"] == "pusher advances at t = 27.0"
    assert row["blocked_contacts"] == "frame.wall.left/c.right"


def test_drops_counts_each_fall_that_ends_on_a_part():
    """The feeder's stack drops onto the table each time the piston retracts from under it, so
    block k (from the bottom) drops k times, once for each block fed from under it and itself;
    a coordinate gravity never moves (xb1) drops never. Counts stay whole numbers in the table."""
    rows = cspace.sweep(FEEDER, [{"crank": 3, "link": 8}, {"crank": 5, "link": 2}],
                        measures=["drops:yb1", "drops:yb2", "drops:yb3", "drops:xb1"])
    assert [rows[f"drops:{name}"][0] for name in ("yb1", "yb2", "yb3", "xb1")] == [1, 2, 3, 0]
    assert str(rows["drops:yb3"].dtype) == "Int64" and pd.isna(rows["drops:yb3"][1])  # the variant that fails


FUNNEL = """
[mechanism]
name = "funnel"
time = 1

[[parts]]
name = "frame"
motion = "fixed"

[[parts.slices]]
z = [0, 1]
profiles = [
  { name = "floor", rect = [-10, -2, 10, 0] },
  { name = "wall", path = [[-5, 1], [1, 1], [-5, 7], [-5, 1]], faces = ["under", "slope", "back"] },
]

[[parts]]
name = "block"
motion = "fixed-axes"
coordinates = [ { name = "xb", axis = [1, 0], initial = 0 }, { name = "yb", axis = [0, 1], initial = 0 } ]

[[parts.slices]]
z = [0, 1]
profiles = [ { rect = [0, 5, 1, 6] } ]

[[forces]]
kind = "gravity"
coordinate = "yb"
direction = -1
"""


def test_a_fall_that_glances_off_a_slope_on_its_way_down_is_one_drop():
    """The block falls 3 onto the 45-degree slope (a contact made), slides down it to the wall's
    corner (another), and falls on to the floor, where the trace ends: one drop, counted where it
    comes to rest (the last segment: what touches where it stopped)."""
    [row] = cspace.sweep(lambda: cspace.loads(FUNNEL), [{}], measures=["drops:yb"]).to_dict("records")
    assert (row["segments"], row["final:yb"], row["drops:yb"]) == (3, -5.0, 1)


def test_the_command_line_writes_the_table_and_resumes(tmp_path, capsys):
    out = tmp_path / "feeder.parquet"
    argv = ["sweep", str(FEEDER), "--vary", "crank=2:4:2", "--vary", "link=7:8:2", "--out", str(out), "--workers", "1"]
    status, said, _ = run(argv[:3] + ["crank=2:4:1"] + argv[4:], capsys)  # half the grid first
    assert status == 0 and said == f"{out}: 2 variants, 2 traced, 0 failed\n"
    half = read(out)
    status, said, _ = run(argv + ["--resume"], capsys)
    assert status == 0 and said == f"{out}: 4 variants, 4 traced, 0 failed\n"
    whole = read(out)
    assert list(zip(whole["crank"], whole["link"])) == [(2.0, 7.0), (2.0, 8.0), (4.0, 7.0), (4.0, 8.0)]
    assert list(whole["wall_time"][:2]) == list(half["wall_time"])  # kept, not run again
    assert not (tmp_path / "feeder.parquet.partial.jsonl").exists()
    fresh = cspace.sweep(FEEDER, {"crank": [2.0, 4.0], "link": [7.0, 8.0]})
    pd.testing.assert_frame_equal(results(whole), results(fresh), check_dtype=False)


def test_a_sweep_stopped_part_way_resumes_from_its_journal(tmp_path, capsys):
    out = tmp_path / "feeder.csv"
    design = {"crank": [2.0, 3.0, 4.0], "link": [8.0]}
    done = cspace.sweep(FEEDER, design)
    journal = tmp_path / "feeder.csv.partial.jsonl"
    journal.write_text(json.dumps({**done.iloc[1].to_dict(), "segments": 99, "wall_time": 0.0}) + '\n{"id": "cut sh')
    status, said, _ = run(["sweep", str(FEEDER), "--vary", "crank=2:4:3", "--vary", "link=8:8:1", "--out", str(out),
                           "--workers", "1", "--resume"], capsys)
    assert status == 0 and said.endswith(": 3 variants, 3 traced, 0 failed\n")
    table = read(out)
    assert list(table["segments"]) == [done["segments"][0], 99, done["segments"][2]]  # the journal's row kept


@pytest.mark.parametrize("argv, fragment", [
    (["--vary", "crnk=1:2:2"], "unknown parameter 'crnk' (did you mean 'crank'?)"),
    (["--vary", "crank=1:2"], "a grid needs a COUNT"),
    (["--vary", "crank=1:2", "--lhs", "0"], "at least one variant"),
    (["--vary", "crank=1:2:2", "--measure", "piston"], "expected PART_A/PART_B"),
    (["--vary", "crank=1:2:2", "--measure", "piston/blok1"], "no part named 'blok1'"),
])
def test_a_bad_sweep_is_one_line_and_status_2(argv, fragment, tmp_path, capsys):
    status, out, err = run(["sweep", str(FEEDER), *argv, "--out", str(tmp_path / "r.csv"), "--workers", "1"], capsys)
    assert status == 2 and out == "" and err.count("\n") == 1 and fragment in err


def test_a_results_file_must_be_csv_or_parquet(tmp_path, capsys):
    status, _, err = run(["sweep", str(FEEDER), "--vary", "crank=1:2:2", "--out", str(tmp_path / "r.xlsx")], capsys)
    assert status == 2 and "written as .csv or .parquet" in err


def test_a_hypercube_from_the_command_line(tmp_path, capsys):
    out = tmp_path / "lhs.csv"
    status, said, _ = run(["sweep", str(FEEDER), "--vary", "crank=2:4", "--vary", "link=7:9", "--lhs", "3",
                           "--seed", "7", "--out", str(out), "--workers", "1"], capsys)
    assert status == 0
    table = read(out)
    expected = hypercube([Axis("crank", 2, 4), Axis("link", 7, 9)], 3, seed=7)
    assert np.allclose(table[["crank", "link"]].to_numpy(), [[v["crank"], v["link"]] for v in expected], rtol=0,
                       atol=1e-12)


@pytest.mark.parametrize("count, workers", [(1, 2), (7, 2), (400, 2), (400, 8), (30, 1)])
def test_a_cluster_gets_the_variants_in_batches_largest_first(count, workers):
    """Every variant once, in the design's order; each batch at most the one before, the last
    ones single variants; far fewer tasks than variants once there are many."""
    from cspace.sweeps.runner import batches

    cut = batches(list(range(count)), workers)
    assert [v for batch in cut for v in batch] == list(range(count))
    sizes = [len(batch) for batch in cut]
    assert sizes == sorted(sizes, reverse=True) and sizes[-1] == 1
    assert sizes[0] == max(1, -(-count // (8 * workers)))
    if count >= 400:
        assert len(cut) <= count / 2


def test_a_parameter_may_not_hide_a_result_column():
    def made(segments: float) -> cspace.Mechanism:
        return cspace.load(FEEDER)

    with pytest.raises(DesignError, match="would hide the result column"):
        cspace.sweep(made, {"segments": [1.0]})
