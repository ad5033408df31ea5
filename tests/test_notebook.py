"""Notebook views (cspace.viz.notebook, registered with IPython's HTML formatter by ``import
cspace``): they are well-formed HTML and hold what they say they hold, checked against the
library's own reports (describe's records, the statistics) and the mechanism file."""

from __future__ import annotations

from html import escape as html_escape
from html.parser import HTMLParser

import pandas as pd
import pytest
from cspace.viz.notebook import mechanism_html, motion_html, segment_html, trace_html
from cspace.viz.web import html_page

from cspace import analyze, load, trace
from cspace.report.describe import describe, statistics

from .common import fixture_path

VOID = {"br", "hr", "img", "input", "meta", "link"}


class _Checker(HTMLParser):
    """Balanced tags, and the text of every <pre> (unescaped)."""

    def __init__(self) -> None:
        super().__init__()
        self.open: list[str] = []
        self.pres: list[str] = []
        self.frames: list[str] = []
        self._pre: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        if tag == "iframe":
            self.frames.append(dict(attrs).get("srcdoc", ""))
        if tag not in VOID:
            self.open.append(tag)
        if tag == "pre":
            self._pre = []

    def handle_endtag(self, tag):
        assert self.open and self.open[-1] == tag, f"</{tag}> closes <{self.open[-1] if self.open else None}>"
        self.open.pop()
        if tag == "pre":
            self.pres.append("".join(self._pre))
            self._pre = None

    def handle_data(self, data):
        if self._pre is not None:
            self._pre.append(data)


def _checked(html: str) -> _Checker:
    checker = _Checker()
    checker.feed(html)
    checker.close()
    assert checker.open == [], f"unclosed {checker.open}"
    return checker


@pytest.fixture(scope="module")
def feeder():
    return trace(analyze(load(fixture_path("feeder"))), until=4.0)


def test_a_mechanism_shows_its_parts_coordinates_forces_and_inputs():
    mechanism = load(fixture_path("feeder"))
    html = mechanism_html(mechanism)
    _checked(html)
    for part in mechanism.parts:
        assert f"<td>{part.name}</td>" in html
    for coordinate in mechanism.coordinates:
        assert coordinate.name in html
    assert "gravity" in html and "driver rotates counterclockwise" in html


def figure_4(trace) -> list[str]:
    """``describe``'s records without the comment saying why each segment ended (the
    notebook's table says that in a column of its own)."""
    return ["\n".join(line for line in record.split("\n") if not line.startswith("; ends: "))
            for record in describe(trace).split("\n\n")]


def test_a_segment_shows_its_own_figure_4_record(feeder):
    records = figure_4(feeder)
    for segment, expected in zip(feeder.segments, records):
        checker = _checked(segment_html(segment))
        assert checker.pres == [expected]


def test_a_trace_shows_its_statistics_every_record_and_the_viewer(feeder):
    html = trace_html(feeder)
    checker = _checked(html)
    assert checker.pres == figure_4(feeder)[:-1]  # every record; the end line is the header's
    for name, value in statistics(feeder).items():
        assert f"<td>{name}</td><td>{value}</td>" in html
    assert len(checker.frames) == 1
    assert checker.frames[0] == html_page(feeder)  # the parser unescapes attributes


def test_import_registers_the_views_with_ipythons_html_formatter(monkeypatch):
    """Registered by the types' names (nothing imported until one is shown); each view is the
    notebook module's."""
    import importlib
    import sys
    import types

    registered = {}
    formatter = types.SimpleNamespace(for_type_by_name=lambda module, name, view: registered.update({name: view})
                                      or modules.update({name: module}))
    modules = {}
    shell = types.SimpleNamespace(display_formatter=types.SimpleNamespace(formatters={"text/html": formatter}))
    monkeypatch.setitem(sys.modules, "IPython", types.SimpleNamespace(get_ipython=lambda: shell))
    import cspace
    importlib.reload(cspace)
    mechanism = load(fixture_path("feeder"))
    assert sorted(registered) == ["DynamicTrace", "Mechanism", "Segment", "SweepResults", "Trace"]
    assert registered["Mechanism"](mechanism) == mechanism_html(mechanism)
    assert modules["SweepResults"] == "cspace.sweeps.view"
    view = importlib.import_module("cspace.sweeps.view")  # not imported by cspace itself: the test imports it
    shown = view.SweepResults(pd.DataFrame({"id": ["a"], "crank": [2.0], "error": ["bad"]}), "r.csv")
    assert registered["SweepResults"](shown) == view.results_html(shown)


def test_a_dynamic_trace_shows_its_stretches_and_the_viewer():
    """Each stretch's mode, span and record as cspace trace prints it, and the viewer's page."""
    from cspace.viz.web import html_page

    from cspace.report.motion import describe_motion

    from .common import simulated

    result = simulated("bouncing-block")
    html = motion_html(result)
    records = describe_motion(result).split("\n\n")[:-1]
    for stretch, record in zip(result.stretches, records):
        assert f"<td>{stretch.mode}</td>" in html and html_escape(record) in html
    assert html_escape(html_page(result), quote=True) in html
    assert "<iframe" not in motion_html(result, viewer=False)
