"""The notebook view of a sweep's results file (cspace.sweep_results): the design map and the table."""

from __future__ import annotations

from html.parser import HTMLParser

import pandas as pd
import pytest

import cspace
from cspace.sweeps.view import SweepResults, results_html

from .common import ROOT
from .test_notebook import _checked

FEEDER = ROOT / "fixtures" / "sweeps" / "feeder.toml"


class _Table(HTMLParser):
    """The cells of an HTML table, row by row (the header's first)."""

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[list[str]] = []
        self._cell: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        if tag == "tr":
            self.rows.append([])
        elif tag in ("td", "th"):
            self._cell = []

    def handle_endtag(self, tag):
        if tag in ("td", "th"):
            self.rows[-1].append("".join(self._cell).strip())
            self._cell = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)


def _table(html: str) -> list[list[str]]:
    parser = _Table()
    parser.feed(html[html.index("<table"):])
    return parser.rows


@pytest.fixture(scope="module")
def results_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("view") / "feeder.csv"
    cspace.sweep(FEEDER, {"crank": [2.0, 3.0], "link": [1.0, 8.0]}, out=path)  # link 1: cannot assemble
    return path


def test_a_results_file_shows_its_map_and_every_row(results_file):
    results = cspace.sweep_results(results_file)
    html = results_html(results)
    _checked(html)
    assert html.count("<svg") == 1 and "</svg>" in html and "<?xml" not in html
    header, *rows = _table(html)
    assert header == list(results.frame.columns)
    assert [row[0] for row in rows] == list(results.frame["id"]) and len(rows) == 4
    errors = [row[header.index("error")] for row in rows]
    assert sum(bool(e) for e in errors) == 2  # the variants that failed (link 1) are rows with their errors
    assert "linkage" in "".join(errors)
    assert f"<b>{results_file}</b>: 4 variants" in html


def test_the_map_is_over_the_parameters_or_a_parameter_and_a_measure(results_file):
    results = cspace.sweep_results(results_file)
    assert results.parameters == ["crank", "link"] and results.axes() == ("crank", "link")
    one = SweepResults(pd.DataFrame({"id": ["a"], "c": [0.01], "error": [""], "end_reason": ["time allotment used"],
                                     "end_time": [1.0], "play:w": [0.1]}), "g.csv")
    assert one.parameters == ["c"] and one.axes() == ("c", "play:w")
    assert one.map().lstrip().startswith("<?xml")


def test_results_where_every_variant_failed_show_the_table_and_say_there_is_no_map():
    failed = SweepResults(pd.DataFrame({"id": ["a"], "crank": [2.0], "error": ["bad"]}), "f.csv")
    html = results_html(failed)
    _checked(html)
    assert "<svg" not in html and "no design map: no column" in html and _table(html)[1] == ["a", "2.0", "bad"]


def test_a_results_file_that_is_not_one_is_refused_by_name(tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text("a,b\n1,2\n")
    with pytest.raises(cspace.CspaceError, match="not a sweep's results"):
        cspace.sweep_results(bad)
