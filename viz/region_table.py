"""The region table of paper Figure 10 as a document: Markdown or HTML.

One row per segment: its number, a one-line summary of what moves, and for every pair
that constrains anything the region the segment lies in (``r3>r4`` when it crosses
from one into another). ``cspace trace --regions`` prints the same table as text. An
input's name, any text of the file, is shown :func:`~cspace.io.outputs.printable`, and in
Markdown a ``|`` is escaped (:func:`~cspace.io.outputs.markdown_cell`).

    >>> from cspace import analyze, load, trace
    >>> table = markdown_region_table(trace(analyze(load("fixtures/feeder.toml")), until=2.2))
    >>> print(table.splitlines()[3][:72])
    | 2 | gravity: block1 yb1-, block2 yb2-, block3 yb3- | r9 | r9 | r9 | r7
"""

from __future__ import annotations

import html

from cspace.io.outputs import markdown_cell, printable
from cspace.report.describe import region_rows
from cspace.tracing.trace import Trace

FORMATS = ("md", "html")


def markdown_region_table(trace: Trace) -> str:
    """The region table as a Markdown (GitHub) table."""
    header, rows = region_rows(trace)

    def line(cells: list[str]) -> str:
        return "| " + " | ".join(markdown_cell(cell) for cell in cells) + " |"

    divider = "|" + "|".join("---:" if k == 0 else "---" for k in range(len(header))) + "|"
    return "\n".join([line(header), divider] + [line(row) for row in rows]) + "\n"


def html_region_table(trace: Trace) -> str:
    """The region table as a standalone HTML page. ``cspace regions`` prints it, maybe to a
    terminal: names are :func:`~cspace.io.outputs.printable` before they are escaped for HTML."""
    header, rows = region_rows(trace)

    def text(cell: str) -> str:
        return html.escape(printable(cell))

    title = text(f"{trace.mechanism.name}: regions of each segment")
    head = "".join(f"<th>{text(cell)}</th>" for cell in header)
    body = "\n".join("<tr>" + "".join(f"<td>{text(cell)}</td>" for cell in row) + "</tr>" for row in rows)
    return (f"<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>{title}</title>\n"
            "<style>table { border-collapse: collapse; font-family: sans-serif; font-size: 0.9em; }\n"
            "th, td { border: 1px solid #bbb; padding: 0.2em 0.5em; text-align: left; }\n"
            "th { background: #eee; }</style>\n</head>\n<body>\n"
            f"<h1>{title}</h1>\n<table>\n<thead><tr>{head}</tr></thead>\n<tbody>\n{body}\n</tbody>\n</table>\n"
            "</body>\n</html>\n")
