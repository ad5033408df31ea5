"""A sweep's results file as a notebook shows it: the design map and the table.

``cspace.sweep_results("feeder.csv")`` in a notebook shows the map (inline SVG, as
``cspace sweep-plot`` draws it) above the table of rows; ``import cspace`` registers the
view with IPython's HTML formatter (:func:`cspace._notebook_views`). The map's axes are the
first two parameters (a sweep of one parameter puts its first measure, else ``end_time``,
up), coloured by how each variant ended; ``.map(x, y, color)`` chooses others.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from html import escape
from typing import Any

from .plot import PlotError, design_map_svg
from .results import read
from .variant import RESULT_COLUMNS

MEASURES = ("play:", "clearance:", "drops:")


@dataclass(frozen=True)
class SweepResults:
    """A sweep's results table (``frame``, a pandas DataFrame) and the file it was read from."""

    frame: Any
    path: str

    def __repr__(self) -> str:
        return f"SweepResults({self.path!r}, {len(self.frame)} variants)"

    @property
    def parameters(self) -> list[str]:
        """The parameter columns: those a row holds between its id and its error."""
        columns = list(self.frame.columns)
        if "error" not in columns:
            return []
        return [c for c in columns[columns.index("id") + 1:columns.index("error")] if c not in RESULT_COLUMNS]

    def axes(self) -> tuple[str, str]:
        """The design map's default axes: the first two parameters, or the one and a measure (else end_time)."""
        names = self.parameters
        if len(names) >= 2:
            return names[0], names[1]
        measures = [c for c in self.frame.columns if c.startswith(MEASURES)]
        return (names[0] if names else "end_time"), (measures[0] if measures else "end_time")

    def map(self, x: str | None = None, y: str | None = None, color: str = "end_reason") -> str:
        """The design map as SVG text (the default axes where none are given)."""
        across, up = self.axes()
        return design_map_svg(self.frame, x or across, y or up, color)


def sweep_results(path: str | os.PathLike) -> SweepResults:
    """A sweep's results file (.csv or .parquet) to show in a notebook (its rows: ``.frame``)."""
    return SweepResults(read(path), os.fspath(path))


def results_html(results: SweepResults) -> str:
    """The notebook's view: the file's name and size, the design map, and the table."""
    html = [f'<div class="cspace"><b>{escape(results.path)}</b>: {len(results.frame)} variants']
    if len(results.frame):
        try:
            html.append(f"<div>{_without_prolog(results.map())}</div>")
        except PlotError as error:  # every variant failed: no results to map
            html.append(f"<div>no design map: {escape(str(error))}</div>")
    html.append(results.frame.to_html(index=False, na_rep="", escape=True))
    html.append("</div>")
    return "".join(html)


def _without_prolog(svg: str) -> str:
    """An SVG document's ``<svg>`` element alone (inline HTML takes no XML prolog or DOCTYPE)."""
    return svg[svg.index("<svg"):]
