"""HTML views of mechanisms, traces and segments, for notebooks (``import cspace`` registers them
with IPython's HTML formatter when it runs in one).

A mechanism shows its drawing at its initial configuration (``cspace draw``'s, :mod:`viz.drawing`)
over its parts, coordinates, forces and inputs; a trace its statistics (the
paper's Table 2), one row per segment with its Figure 4 record, and the browser viewer of
``viz.web`` embedded in an ``iframe`` (its own document: several in one notebook do not
share a script); a segment its record, times, contacts and end. In a notebook::

    import cspace
    result = cspace.trace(cspace.analyze(cspace.load("fixtures/feeder.toml")))
    result                      # the statistics, the segments and the viewer

The drawing and the viewer are imported from ``viz`` only when shown (they need neither pyvista
nor matplotlib); everything else here is text.
"""

from __future__ import annotations

from html import escape
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from cspace.kinetics.result import DynamicTrace
    from cspace.model.mechanism import Mechanism
    from cspace.tracing.trace import Segment, Trace

STYLE = ("<style>.cspace table{border-collapse:collapse;margin:0.3em 0}"
         ".cspace th,.cspace td{border:1px solid #ccc;padding:2px 6px;text-align:left;vertical-align:top}"
         ".cspace pre{margin:0;font-size:90%}.cspace svg.cspace-drawing{display:block;max-width:100%;height:auto}"
         "</style>")


def _table(header: list[str], rows: list[list[str]]) -> str:
    """An HTML table of already escaped cells."""
    head = "".join(f"<th>{h}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{cell}</td>" for cell in row) + "</tr>" for row in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


# Sizes each viewer's frame to the height its page posts (once per notebook page, for every viewer in it).
FIT = ("<script>window.cspaceFit || (window.cspaceFit = true, window.addEventListener('message', function (e) {"
       "var height = e.data && e.data.cspaceViewerHeight; if (!height) return;"
       "document.querySelectorAll('iframe.cspace-viewer').forEach(function (frame) {"
       "if (frame.contentWindow === e.source) frame.style.height = height + 'px'; }); }));</script>")


def _viewer(result) -> str:
    """The browser viewer of ``viz.web`` for a trace or a full-dynamics path, in an ``iframe`` as tall
    as its page: the page posts its height, which :data:`FIT` gives the frame; where the notebook runs no
    script, the frame keeps the height :func:`viz.web.page_height` bounds it by."""
    from cspace.viz.web import html_page, page_height

    page = escape(html_page(result), quote=True)
    return (f'<iframe class="cspace-viewer" srcdoc="{page}" style="width:100%;height:{page_height(result)}px;'
            f'border:0" title="cspace viewer"></iframe>{FIT}')


def mechanism_html(mechanism: Mechanism) -> str:
    """A mechanism's drawing at its initial configuration (:func:`viz.drawing.drawing_svg`), then
    its parts (motion, coordinates, faces), forces and input motions.

    >>> from cspace import load
    >>> view = mechanism_html(load("fixtures/feeder.toml"))
    >>> "<td>piston</td>" in view, view.count("<svg")
    (True, 1)
    """
    from .drawing import drawing_svg
    from .marks import mechanism_marks

    coordinates = {c.name: c for c in mechanism.coordinates}
    parts = []
    for part in mechanism.parts:
        own = ", ".join(f"{name} ({coordinates[name].kind})" for name in part.coordinates)
        faces = sum(len(p.elements) for s in part.slices for p in s.profiles)
        layers = ", ".join(f"[{s.z[0]:g}, {s.z[1]:g}]" for s in part.slices)
        parts.append([escape(part.name), escape(part.motion), escape(own), str(faces), escape(layers)])
    forces = [[escape(f.kind), escape(f.coordinate), f"{f.direction:+d}"] for f in mechanism.forces]
    inputs = [[escape(m.name or "input"), escape(", ".join(f"{c} {v:g}/s" for c, v in m.velocities)),
               "until blocked" if m.duration is None else f"{m.duration:g} s"] for m in mechanism.inputs]
    html = [STYLE, '<div class="cspace">', f"<b>{escape(mechanism.name)}</b> ({escape(mechanism.source)})",
            drawing_svg(mechanism_marks(mechanism)), _table(["part", "motion", "coordinates", "faces", "z"], parts)]
    if forces:
        html.append(_table(["force", "coordinate", "direction"], forces))
    if inputs:
        html.append(_table(["input motion", "velocities", "runs"], inputs))
    html.append("</div>")
    return "".join(html)


def segment_html(segment: Segment) -> str:
    """One segment: its Figure 4 record, its times, its contacts and what ended it."""
    from cspace.report.describe import record


    contacts = ", ".join(sorted(map(str, segment.first.contacts))) or "none"
    return "".join([STYLE, '<div class="cspace">',
                    f"<b>segment {segment.index}</b>: {segment.start_time:.6g} to {segment.end_time:.6g} s, "
                    f"{escape(segment.phase)}; ends: {escape(segment.end)}",
                    f"<pre>{escape(record(segment))}</pre>",
                    f"<div>contacts: {escape(contacts)}</div></div>"])


def trace_html(trace: Trace, viewer: bool = True) -> str:
    """A trace's statistics (Table 2), its segments with their Figure 4 records, and the
    browser viewer embedded (``viewer=False`` leaves it out)."""
    from cspace.report.describe import record, statistics, summary

    from .mesh import with_mesh_counts

    stats = with_mesh_counts(statistics(trace), trace.mechanism)
    rows = [[str(s.index), f"{s.start_time:.6g} to {s.end_time:.6g}", escape(summary(s)),
             f"<pre>{escape(record(s))}</pre>", escape(s.end)] for s in trace.segments]
    html = [STYLE, '<div class="cspace">',
            f"<b>{escape(trace.mechanism.name)}</b>: {len(trace.segments)} segments; "
            f"end: {escape(trace.end_reason)}"]
    if viewer:
        html.append(_viewer(trace))
    html.append(_table(["statistic", "value"], [[escape(k), escape(str(v))] for k, v in stats.items()]))
    html.append(_table(["segment", "time (s)", "summary", "record (Figure 4)", "end"], rows))
    html.append("</div>")
    return "".join(html)


def motion_html(result: DynamicTrace, viewer: bool = True) -> str:
    """A full-dynamics path: its stretches, each with its mode, time span and record (as
    ``cspace trace`` prints it), and the browser viewer embedded (``viewer=False`` leaves it out)."""
    from cspace.report.motion import describe_motion

    records = describe_motion(result).split("\n\n")
    rows = [[str(s.index), escape(str(s.mode)), f"{s.start:.9g} to {s.end:.9g}", f"<pre>{escape(record)}</pre>"]
            for s, record in zip(result.stretches, records)]
    html = [STYLE, '<div class="cspace">',
            f"<b>{escape(result.mechanism.name)}</b>: full dynamics, {len(result.stretches)} stretches; "
            f"end: {escape(result.end)}"]
    if viewer:
        html.append(_viewer(result))
    html.append(_table(["stretch", "mode", "time (s)", "record"], rows))
    return "".join(html) + "</div>"
