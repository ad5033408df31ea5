"""The example sweeps of fixtures/sweeps/, against closed forms, and their design maps."""

from __future__ import annotations

import pandas as pd
import pytest

import cspace
from cspace.cli import main

from .common import ROOT

FEEDER = ROOT / "fixtures" / "sweeps" / "feeder.toml"
# Clear of every boundary of the closed form below by at least 0.2.
CRANKS = [1.3, 2.3, 3.3, 4.3, 5.3]
LINKS = [2.1, 4.6, 7.1, 9.6, 12.1, 14.6]


def expected(crank: float, link: float) -> str:
    """The feeder's outcome from its geometry alone (fixtures/sweeps/feeder.toml's header): the
    piston's stroke is [link - crank - 1, link + crank - 1] and it is 7 long; the channel is x in
    [12, 16]. A link shorter than the crank cannot be driven round. Advanced to x >= 16 the
    piston leaves the next block unsupported behind it, which falls and is driven back
    under the magazine as it retracts: a jam. Otherwise the stack drops only if the piston's
    right end retracts to x = 12, and a pushed block leaves the channel only if it is pushed
    to x >= 16: both, and every block is fed, one a turn."""
    if link < crank:
        return "fails to assemble"
    if crank + link - 1 >= 16:
        return "jams"
    if link - crank - 1 + 7 <= 12 and crank + link - 1 + 7 >= 16:
        return "feeds every block"
    return "stalls"


def observed(row: dict) -> str:
    if row["error"]:
        return "fails to assemble" if "linkage" in row["error"] else "error"
    final = [row[f"final:xb{k}"] for k in (1, 2, 3)]
    if min(final) < 12:
        return "jams"
    return "feeds every block" if min(final) >= 16 else "stalls"


@pytest.fixture(scope="module")
def feeder() -> pd.DataFrame:
    return cspace.sweep(FEEDER, {"crank": CRANKS, "link": LINKS})


def test_the_feeder_sweep_feeds_jams_and_fails_where_the_geometry_says(feeder):
    outcomes = {(r["crank"], r["link"]): observed(r) for r in feeder.to_dict("records")}
    assert outcomes == {(c, k): expected(c, k) for c in CRANKS for k in LINKS}
    assert set(outcomes.values()) == {"fails to assemble", "jams", "feeds every block", "stalls"}


def test_a_feeder_that_feeds_leaves_the_blocks_where_its_stroke_ends(feeder):
    """Each push leaves the last block fed at the piston's furthest right end, crank + link + 6,
    the ones before it 4 (a block's width) further on each, all on the table."""
    fed = feeder[[expected(c, k) == "feeds every block" for c, k in zip(feeder["crank"], feeder["link"])]]
    assert len(fed) >= 4
    for row in fed.to_dict("records"):
        end = row["crank"] + row["link"] + 6
        assert [row[f"final:xb{k}"] for k in (3, 2, 1)] == pytest.approx([end, end + 4, end + 8], abs=1e-5)
        assert [row[f"final:yb{k}"] for k in (1, 2, 3)] == [-1.0, -1.0, -1.0]


@pytest.mark.parametrize("suffix", [".png", ".svg"])
def test_sweep_plot_draws_the_design_map(feeder, tmp_path, suffix, capsys):
    results = tmp_path / "feeder.csv"
    feeder.to_csv(results, index=False)
    out = tmp_path / f"map{suffix}"
    assert main(["sweep-plot", str(results), "--x", "crank", "--y", "link", "--color", "end_reason", "-o", str(out)]) == 0
    assert capsys.readouterr().out == f"{out}: design map of 30 variants, link against crank by end_reason\n"
    head = out.read_bytes()[:200]
    assert head.startswith(b"\x89PNG") if suffix == ".png" else b"<svg" in out.read_bytes()[:2000]
    assert main(["sweep-plot", str(results), "--x", "crank", "--y", "link", "--color", "final:xb3",
                 "-o", str(tmp_path / f"xb3{suffix}")]) == 0


def test_sweep_plot_refuses_a_column_the_results_lack(feeder, tmp_path, capsys):
    results = tmp_path / "feeder.parquet"
    feeder.to_parquet(results, index=False)
    assert main(["sweep-plot", str(results), "--x", "crank", "--y", "lnk", "-o", str(tmp_path / "m.png")]) == 2
    assert "no column 'lnk'" in capsys.readouterr().err
