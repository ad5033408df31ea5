"""A viewer in the browser: one self-contained HTML page that plays a traced path.

``cspace animate FILE -o OUT.html`` writes it. Why a page: a GIF cannot be paused,
scrubbed or read beside the description, and a window (``cspace show``) needs a
display and pyvista; the page needs only a browser, opens from disk and makes no
network request (inline script and styles, system fonts, nothing fetched).

What it holds:

* the parts drawn in the plane (SVG, y up, seen down the z axis, lower layers first):
  each part's outline in its local frame drawn once, arcs flattened at the
  mechanism's arc tolerance as the tracer sees them, and placed by one transform per
  sample (:func:`viz.snapshots.part_poses`, so linkage members too): the drawing of
  ``cspace draw`` (:func:`viz.drawing.scene_groups`), its marks (:mod:`viz.marks`) taken
  where the path starts. A part's pivots and angle marks are placed with it, so its turning
  is seen; its arrows, axes and limits are carried as each says (an arrow with its anchor, an
  axis or a limit only by the part's other coordinates); its name shows where the pointer
  is over it (``#hover``);
* play/pause, a speed control, a scrubber and a time readout;
* the current segment's record in the paper's Figure 4 form (the text
  :func:`cspace.describe` prints for it), kept in step with the scrubber.

The timeline is the path's samples (:func:`viz.snapshots.snapshots`). Between two
samples of an input motion the playback clock runs with the input's time; an
external motion (a stack dropping) takes no input time, so it is given
:data:`EXTERNAL_STEP` seconds of playback per sample, to be seen. Part poses are
interpolated linearly between samples (angles unwrapped).

A dynamic path (full dynamics, :class:`cspace.kinetics.result.DynamicTrace`) plays the same
way over its own samples (every event and a regular grid), in real time: the record beside
the drawing is its current *stretch*'s as ``cspace trace`` prints it
(:func:`cspace.report.motion.describe_motion`), headed by its number and mode (flight,
contact, impact), and the readout gives the kinetic and potential energy, interpolated like
the poses. An impact takes no time; its two samples (before and after) are given
:data:`EXTERNAL_STEP` seconds of playback, so it is seen while the clock stands still.
Linkage members are posed by the linkage's exact motion (:func:`viz.snapshots.posing`).

The samples are stored once, as JSON in the page: per part a reference point ``c``
in its frame (a turning part's pivot, else its outline's centre) and the series of
where it is, ``x`` and ``y``, and of its angle ``a`` (a number where it never
changes), rounded to a hundred-thousandth of the mechanism's size (angles to 1e-6
rad). The pivot's place and the angle are linear in the coordinates, so a part
between two samples is where the interpolated configuration puts it. The same input
gives the same bytes: nothing depends on the clock, keys are sorted.

For tests (and anyone curious) the page exposes a small read-only API,
``window.cspaceViewer``: ``seek(t)`` goes to mechanism time ``t`` (at a time holding
external motions, to after them), ``time()`` the current mechanism time,
``segment()`` the current segment's number (a dynamic path's: its stretch's), ``phase()``
its phase (a stretch's mode), ``energies()`` a dynamic path's ``[kinetic, potential]``
(null for a traced path), ``playing()``, ``positions()`` each
part's local origin as drawn, ``{name: [x, y]}`` in CSS pixels of the viewport (the
frame of ``getBoundingClientRect``), read back from the browser with
``getScreenCTM``, and ``point(name, x, y)`` where the point (x, y) of a part's own
frame is drawn, in the same pixels.

    >>> from cspace import analyze, load, trace
    >>> page = html_page(trace(analyze(load("fixtures/feeder.toml")), until=1), size=(400, 300))
    >>> page.startswith("<!DOCTYPE html>"), "://" in page, 'width="400" height="300"' in page
    (True, False, True)
"""

from __future__ import annotations

import html
import json
import math
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from cspace.io.outputs import write_text
from cspace.kinetics.result import DynamicTrace, Stretch
from cspace.model.kinds import Mode
from cspace.model.mechanism import Mechanism, Part
from cspace.report.describe import describe, summary
from cspace.report.motion import describe_motion
from cspace.tracing.trace import Trace

from .drawing import scene_groups
from .marks import Marks, mechanism_marks
from .output import check_output, check_size
from .sheet import decimals, fitted_box, num
from .snapshots import Snapshot, Traced, posing, snapshots

FORMAT = ".html"
EXTERNAL_STEP = 0.1  # seconds of playback per sample of an external motion, and per impact
SPEEDS = (0.25, 0.5, 1.0, 2.0, 4.0)
ANGLE_PLACES = 6
ENERGY_PLACES = 9
# Bounds of the page's layout for page_height, in CSS pixels: a character of its text (14 px) and of its
# monospace (13 px), taken wide; their lines; the body's margins, title and controls (on up to three lines);
# the gap below the drawing; the side panel's text width below the drawing (a frame of 600 px or more) and
# beside it (its least).
TEXT_CHAR, MONO_CHAR, TEXT_LINE, MONO_LINE = 8.0, 8.0, 20, 18
CHROME, GAP, SIDE_BELOW, SIDE_BESIDE = 32 + 34 + 3 * 32 + 8, 16, 520, 300
PLAYING = ("Play/pause with the button or the space bar; drag the slider to scrub. Point at a part for its name. "
           "Dots are pivots, their lines angle marks (they turn with their parts); dashed lines are axes, bars and "
           "arcs limits; red arrows are forces, blue ones input motions.")
HINTS = {
    "simple": "An external motion\n(a part falling) takes no input time: the clock stands still while it plays.",
    "full": "Full dynamics, in real time. An impact takes no time: the clock stands still a moment while it is shown.",
}


def write_html(trace: Traced, path: str | Path, *, size: tuple[int, int] = (800, 600)) -> int:
    """Write the viewer page for ``trace`` (a trace or a dynamic path) to ``path`` (.html); returns
    the number of samples it plays.

    ``size`` is the drawing's width and height in CSS pixels.
    """
    check_page(path, size=size, field="path")
    write_text(path, html_page(trace, size=size))  # whole or not at all
    return len(snapshots(trace))


def check_page(path: str | Path, *, size: tuple[int, int], field: str) -> None:
    """Raise unless the page can be written to ``path`` (.html) at this drawing size.

    ``field`` names the path argument in the message (``-o`` on the command line). No
    renderer is imported, so the command line checks before it traces.
    """
    check_output(path, (FORMAT,), field=field)
    check_size(size)


def html_page(trace: Traced, *, size: tuple[int, int] = (800, 600)) -> str:
    """The viewer as one self-contained HTML document (see the module's docstring)."""
    check_size(size)
    mechanism = trace.mechanism
    shots = snapshots(trace)
    places = decimals(mechanism)
    poses_at = posing(trace)
    poses = [poses_at(shot.values) for shot in shots]
    marks = mechanism_marks(mechanism, {c.name: float(v) for c, v in zip(mechanism.coordinates, shots[0].values)},
                            poses[0])
    order = [outline.part for outline in marks.outlines]
    outlines = {outline.part: outline.slices for outline in marks.outlines}
    view = _view_box(marks, poses, size)
    colors = {outline.part: outline.color for outline in marks.outlines}
    series = {part.name: _pose_series([p[part.name] for p in poses], _reference(mechanism, part, outlines[part.name]),
                                      _turns(mechanism, part, shots), places)
              for part in mechanism.parts}
    dynamic = isinstance(trace, DynamicTrace)
    segments, end = _described(trace)
    data = {
        "mechanism": mechanism.name,
        "t": [_round(s.time, 9) for s in shots],
        "u": _dynamic_playback(shots) if dynamic else _playback(trace, shots),
        "segment": [s.segment for s in shots],
        "parts": [{"name": name, **series[name]} for name in order],
        "segments": segments,
        "end": end,
    }
    if dynamic:  # kinetic and potential energy at every sample
        data["energy"] = [[_round(v, ENERGY_PLACES) for v in row] for row in trace.energies.tolist()]
    groups = scene_groups(marks, px=view[2] / size[0], places=places, text=False)
    legend = "\n".join(f'<li><span class="swatch" style="background:{colors[name]}"></span>{html.escape(name)}</li>'
                       for name in order)
    first = data["segments"][shots[0].segment - 1] if shots[0].segment else None
    speeds = "".join(f'<option value="{s:g}"{" selected" if s == 1 else ""}>{s:g}\u00d7</option>' for s in SPEEDS)
    title = html.escape(f"{mechanism.name}: cspace viewer")
    end_u = data["u"][-1]
    return _PAGE.format(
        title=title,
        name=html.escape(mechanism.name),
        width=size[0],
        height=size[1],
        view=" ".join(num(v, places) for v in view),
        groups=groups,
        legend=legend,
        speeds=speeds,
        end_u=num(end_u, 9),
        end_t=f"{shots[-1].time:.3f}",
        heading=html.escape(_heading(first, len(data["segments"]))),
        record=html.escape(first["record"] if first else "nothing traced"),
        end=html.escape(data["end"]),
        hint=html.escape(_hint(trace)),
        data=_script_json(data),
        script=_SCRIPT,
        style=_STYLE,
    )


def page_height(trace: Traced, *, size: tuple[int, int] = (800, 600)) -> int:
    """At least the height in CSS pixels of the viewer page of ``trace`` with a drawing of ``size``, in a
    frame 600 pixels wide or more, whatever segment it shows (for a frame that cannot ask the page).

    It takes the taller of the two layouts, the record below the drawing or beside it, with text
    wrapped at generous character widths.
    """
    segments, end = _described(trace)
    hint, count = _hint(trace), len(trace.mechanism.parts)
    below = size[1] + GAP + _side_height(segments, end, hint, count, SIDE_BELOW)
    beside = max(size[1], _side_height(segments, end, hint, count, SIDE_BESIDE))
    return math.ceil(CHROME + max(below, beside))


def _side_height(segments: list[dict], end: str, hint: str, parts: int, width: float) -> float:
    """The side panel's height at ``width`` pixels: the tallest heading and record, the end, legend and hint."""
    shown = [(_heading(s, len(segments)), s["record"]) for s in segments] or [("nothing traced", "nothing traced")]
    record = max(_lines(h, width, TEXT_CHAR) * TEXT_LINE + _lines(r, width - 20, MONO_CHAR) * MONO_LINE
                 for h, r in shown)
    return (record + 16 + _lines(end, width, MONO_CHAR) * MONO_LINE + 18 + math.ceil(parts / 2) * TEXT_LINE
            + _lines(hint, width, TEXT_CHAR) * TEXT_LINE + 24)


def _lines(text: str, width: float, char: float) -> int:
    """Lines ``text`` takes wrapped at ``width`` pixels, ``char`` pixels a character."""
    return sum(max(1, math.ceil(len(line) * char / width)) for line in text.split("\n"))


def _described(trace: Traced) -> tuple[list[dict], str]:
    """The page's segments (a dynamic path's stretches), each with its record, and the end."""
    dynamic = isinstance(trace, DynamicTrace)
    # One record per segment (stretch), then the end.
    described = (describe_motion(trace) if dynamic else describe(trace)).rstrip("\n").split("\n\n")
    segments = _stretches(trace, described[:-1]) if dynamic else _segments(trace, described[:-1])
    return segments, described[-1]


def _hint(trace: Traced) -> str:
    """The line below the legend: how to play the page, and how its clock runs."""
    return f"{PLAYING} {HINTS['full' if isinstance(trace, DynamicTrace) else 'simple']}"


def _view_box(marks: Marks, poses: Sequence[dict[str, np.ndarray]], size: tuple[int, int]) -> tuple[float, ...]:
    """The SVG viewBox (x, y, width, height; y down) holding every part at every sample and the
    marks where the path starts, with a margin, at the drawing's aspect ratio."""
    x0, y0, x1, y1 = marks.bounds()
    lo, hi = np.array([x0, y0]), np.array([x1, y1])
    for outline in marks.outlines:
        local = np.vstack([loop for loops in outline.slices for loop in loops])
        for posed in poses:
            pose = posed[outline.part]
            placed = local @ pose[:2, :2].T + pose[:2, 2]
            lo, hi = np.minimum(lo, placed.min(axis=0)), np.maximum(hi, placed.max(axis=0))
    return fitted_box(lo, hi, size)


def _reference(mechanism: Mechanism, part: Part, slices: list[list[np.ndarray]]) -> tuple[float, float]:
    """The local point whose place the page interpolates: a turning part's pivot, else the outline's centre.

    A pivot's place and the angle are linear in the coordinates, so interpolating them between two
    samples poses the part exactly where the interpolated configuration puts it.
    """
    for name in part.coordinates:
        coordinate = mechanism.coordinate(name)
        if coordinate.is_angle:
            return float(coordinate.pivot[0]), float(coordinate.pivot[1])
    points = np.vstack([loop for loops in slices for loop in loops])
    centre = (points.min(axis=0) + points.max(axis=0)) / 2
    return float(centre[0]), float(centre[1])


def _turns(mechanism: Mechanism, part: Part, shots: Sequence[Snapshot]) -> list[float] | None:
    """A turning part's angle at every sample, as the path has it (unwrapped: a turn is 2 pi more, not 0)."""
    for name in part.coordinates:
        if mechanism.coordinate(name).is_angle:
            j = mechanism.coordinate_index[name]
            return [float(shot.values[j]) for shot in shots]
    return None


def _pose_series(transforms: Sequence[np.ndarray], reference: tuple[float, float], turns: Sequence[float] | None,
                 places: int) -> dict:
    """Where the part's reference point ``c`` is (``x``, ``y``) and its angle ``a`` at every sample:
    a list, or one number where it never changes. The angle is ``turns`` where the part has an angle
    coordinate, else read off the transforms (a linkage member) and unwrapped."""
    point = np.array([reference[0], reference[1], 1.0])
    placed = [m @ point for m in transforms]
    a = list(turns) if turns is not None else np.unwrap([math.atan2(m[1, 0], m[0, 0]) for m in transforms]).tolist()
    return {"c": [_round(v, places) for v in reference], "x": _compact([p[0] for p in placed], places),
            "y": _compact([p[1] for p in placed], places), "a": _compact(a, ANGLE_PLACES)}


def _compact(values: Sequence[float], places: int) -> float | list[float]:
    rounded = [_round(v, places) for v in values]
    return rounded[0] if all(v == rounded[0] for v in rounded) else rounded


def _playback(trace: Trace, shots: Sequence[Snapshot]) -> list[float]:
    """The playback clock at every sample: input time, plus :data:`EXTERNAL_STEP` per step of an external motion."""
    phases = {s.index: s.phase for s in trace.segments}
    clock = [0.0]
    for before, after in zip(shots, shots[1:]):
        external = before.segment == after.segment and phases.get(after.segment) == "external"
        clock.append(clock[-1] + (EXTERNAL_STEP if external else max(0.0, after.time - before.time)))
    return [_round(u, 9) for u in clock]


def _dynamic_playback(shots: Sequence[Snapshot]) -> list[float]:
    """The playback clock at every sample of a dynamic path: its time, plus :data:`EXTERNAL_STEP`
    across each impact (two samples at one time)."""
    clock = [0.0]
    for before, after in zip(shots, shots[1:]):
        clock.append(clock[-1] + (after.time - before.time if after.time > before.time else EXTERNAL_STEP))
    return [_round(u, 9) for u in clock]


def _stretches(trace: DynamicTrace, records: Sequence[str]) -> list[dict]:
    """Per stretch: its record (``records``, as ``describe_motion`` prints them), a summary line (its
    contacts), its mode as the phase, and its times."""
    assert len(records) == len(trace.stretches)
    return [{"record": record, "summary": _stretch_summary(stretch), "phase": str(stretch.mode),
             "start": _round(stretch.start, 9), "end": _round(stretch.end, 9)}
            for record, stretch in zip(records, trace.stretches)]


def _stretch_summary(stretch: Stretch) -> str:
    """What holds in a stretch: its contacts, or none."""
    if not stretch.contacts:
        return "no contact" if stretch.mode != Mode.IMPACT else "an impact"
    return ("impact on " if stretch.mode == Mode.IMPACT else "") + ", ".join(stretch.contacts)


def _segments(trace: Trace, records: Sequence[str]) -> list[dict]:
    """Per segment: its Figure 4 record (``records``, as ``describe`` prints them), summary line, phase and times."""
    assert len(records) == len(trace.segments)
    return [{"record": record, "summary": summary(segment), "phase": segment.phase,
             "start": _round(segment.start_time, 9), "end": _round(segment.end_time, 9)}
            for record, segment in zip(records, trace.segments)]


def _heading(segment: dict | None, count: int) -> str:
    if segment is None:
        return "nothing traced"
    number = segment["record"].split(":", 1)[0]
    return f"{number} of {count} ({segment['phase']}): {segment['summary']}"


def _round(value: float, places: int) -> float | int:
    """``value`` rounded, as an int when whole (shorter JSON), never -0."""
    rounded = round(float(value), places) + 0.0
    return int(rounded) if rounded.is_integer() and abs(rounded) < 1e15 else rounded


def _script_json(data: dict) -> str:
    """JSON for a ``<script type="application/json">``: sorted keys, no ``<``, ``>`` or ``&`` left raw."""
    text = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


_STYLE = """\
body { margin: 16px; font: 14px/1.4 system-ui, sans-serif; color: #222; background: #fff; }
h1 { font-size: 18px; margin: 0 0 8px; }
#controls { display: flex; flex-wrap: wrap; gap: 12px; align-items: center; margin: 0 0 8px; }
#controls button { min-width: 5em; }
#scrub { flex: 1 1 240px; min-width: 160px; }
#time { font-variant-numeric: tabular-nums; min-width: 15em; }
#main { display: flex; flex-wrap: wrap; gap: 16px; align-items: flex-start; }
#stage { position: relative; outline: 1px solid #ccc; line-height: 0; min-width: 0; max-width: 100%; }
#scene { display: block; max-width: 100%; height: auto; background: #fcfcfc; }
#scene .part path { fill-rule: evenodd; fill-opacity: 0.85; stroke: #333; stroke-width: 1;
  vector-effect: non-scaling-stroke; stroke-linejoin: round; }
#scene .carried, #scene .pivots { pointer-events: none; }
#hover { position: absolute; pointer-events: none; font: 13px/1.4 system-ui, sans-serif; white-space: nowrap;
  background: rgba(255, 255, 255, 0.92); border: 1px solid #999; padding: 1px 6px; }
#side { flex: 1 1 320px; min-width: 320px; max-width: 620px; }
#heading { font-weight: 600; margin-bottom: 4px; }
#record { font: 13px/1.35 ui-monospace, monospace; background: #f4f4f4; padding: 8px 10px; margin: 0;
  white-space: pre-wrap; }
#end { font: 13px ui-monospace, monospace; color: #555; margin: 6px 0 12px; }
#legend { list-style: none; padding: 0; margin: 0; columns: 2; }
.swatch { display: inline-block; width: 12px; height: 12px; margin-right: 6px; vertical-align: -1px;
  border: 1px solid #333; }
.hint { color: #666; font-size: 12px; }
"""

_SCRIPT = r"""
(function () {
  "use strict";
  var D = JSON.parse(document.getElementById("cspace-data").textContent);
  var svg = document.getElementById("scene");
  var groups = Array.prototype.slice.call(svg.querySelectorAll("g.part"));
  var pivots = {};  // each part's pivots and angle marks, placed as the part is
  svg.querySelectorAll("g.pivots").forEach(function (g) { pivots[g.getAttribute("data-index")] = g; });
  var carried = Array.prototype.slice.call(svg.querySelectorAll("g.carried")).map(function (g) {
    var v = g.getAttribute("data-carry").split(" ").map(Number);
    return {g: g, part: v[0], anchor: [v[1], v[2]], m: v.slice(3, 7)};
  });
  var stage = document.getElementById("stage"), hover = document.getElementById("hover");
  var T = D.t, U = D.u, S = D.segment, N = T.length, END = U[N - 1];
  var scrub = document.getElementById("scrub"), play = document.getElementById("play");
  var speed = document.getElementById("speed"), timeOut = document.getElementById("time");
  var heading = document.getElementById("heading"), record = document.getElementById("record");
  var E = D.energy || null;
  var u = 0, playing = false, last = null, shown = null, now = {t: 0, segment: S[0], energy: null};
  var sentHeight = null;

  function value(series, k, f) {
    if (typeof series === "number") return series;
    return f > 0 ? series[k] + (series[k + 1] - series[k]) * f : series[k];
  }
  function last_at_most(array, v) {  // the largest k with array[k] <= v (0 if none)
    var lo = 0, hi = N - 1;
    if (v >= array[hi]) return hi;
    while (lo < hi) {
      var mid = (lo + hi + 1) >> 1;
      if (array[mid] <= v) lo = mid; else hi = mid - 1;
    }
    return lo;
  }
  function placed(k, f) {  // every part's transform (a b c d e f of an SVG matrix) at sample k, f of the way on
    return D.parts.map(function (p) {
      var x = value(p.x, k, f), y = value(p.y, k, f), a = value(p.a, k, f);
      var c = Math.cos(a), s = Math.sin(a), cx = p.c[0], cy = p.c[1];
      // rotate about the reference point c, then carry it to (x, y)
      return [c, s, -s, c, x - (c * cx - s * cy), y - (s * cx + c * cy)];
    });
  }
  function anchored(c, m) {  // where a carried mark's anchor is for its part's transform m
    return [m[0] * c.anchor[0] + m[2] * c.anchor[1] + m[4], m[1] * c.anchor[0] + m[3] * c.anchor[1] + m[5]];
  }
  var first = placed(0, 0);
  carried.forEach(function (c) { c.start = anchored(c, first[c.part]); });
  function render() {
    var k = last_at_most(U, u), f = 0;
    if (k < N - 1 && U[k + 1] > U[k]) f = Math.min(1, Math.max(0, (u - U[k]) / (U[k + 1] - U[k])));
    var poses = placed(k, f);
    poses.forEach(function (m, i) {
      var matrix = "matrix(" + m.join(" ") + ")";
      groups[i].setAttribute("transform", matrix);
      if (pivots[i]) pivots[i].setAttribute("transform", matrix);
    });
    carried.forEach(function (c) {  // moved by the carry's matrix times its anchor's move
      var at = anchored(c, poses[c.part]), dx = at[0] - c.start[0], dy = at[1] - c.start[1];
      c.g.setAttribute("transform", "translate(" + (c.m[0] * dx + c.m[1] * dy) + " " + (c.m[2] * dx + c.m[3] * dy) +
        ")");
    });
    now = {t: value(T, k, f), segment: S[k], energy: null};
    if (E) {
      var e1 = E[Math.min(k + 1, N - 1)];
      now.energy = [E[k][0] + (e1[0] - E[k][0]) * f, E[k][1] + (e1[1] - E[k][1]) * f];
    }
    scrub.value = String(u);
    var info = now.segment ? D.segments[now.segment - 1] : null;
    timeOut.textContent = "t = " + now.t.toFixed(3) + " s of " + T[N - 1].toFixed(3) +
      (info && info.phase === "external" ? " (external motion: no input time passes)" : "") +
      (info && info.phase === "impact" && info.start === info.end ? " (impact: no time passes)" : "") +
      (now.energy ? "; energy: kinetic " + now.energy[0].toPrecision(4) + ", potential " +
        now.energy[1].toPrecision(4) : "");
    if (now.segment !== shown) {
      shown = now.segment;
      if (info) {
        heading.textContent = info.record.split(":")[0] + " of " + D.segments.length + " (" + info.phase + "): " +
          info.summary;
        record.textContent = info.record;
      } else {
        heading.textContent = "nothing traced";
        record.textContent = "nothing traced";
      }
    }
  }
  function setPlaying(on) {
    playing = on;
    last = null;
    play.textContent = on ? "Pause" : "Play";
    if (on) {
      if (u >= END) u = 0;
      requestAnimationFrame(tick);
    }
  }
  function tick(stamp) {
    if (!playing) return;
    if (last !== null) u = Math.min(END, u + (stamp - last) / 1000 * Number(speed.value));
    last = stamp;
    render();
    if (u >= END) setPlaying(false); else requestAnimationFrame(tick);
  }
  function seekTime(t) {  // the last moment of the playback at mechanism time t: after any external motion then
    t = Number(t);
    if (!(t > T[0])) { u = t === T[0] ? U[last_at_most(T, t)] : 0; }
    else {
      var k = last_at_most(T, t);
      u = k >= N - 1 ? END : U[k] + (t - T[k]) * (U[k + 1] - U[k]) / (T[k + 1] - T[k]);
    }
    render();
  }

  function postHeight() {  // in a frame (a notebook's): tell the page holding it how tall this one is
    var height = Math.ceil(document.documentElement.getBoundingClientRect().height);
    if (height !== sentHeight) {
      sentHeight = height;
      window.parent.postMessage({cspaceViewerHeight: height}, "*");
    }
  }

  svg.addEventListener("pointermove", function (e) {  // the name of the part under the pointer, beside it
    var g = e.target.closest ? e.target.closest("g.part") : null;
    if (!g) { hover.hidden = true; return; }
    var box = stage.getBoundingClientRect();
    hover.textContent = g.getAttribute("data-part");
    hover.style.left = (e.clientX - box.left + 12) + "px";
    hover.style.top = (e.clientY - box.top + 12) + "px";
    hover.hidden = false;
  });
  svg.addEventListener("pointerleave", function () { hover.hidden = true; });
  play.addEventListener("click", function () { setPlaying(!playing); });
  scrub.addEventListener("input", function () { u = Number(scrub.value); render(); });
  document.addEventListener("keydown", function (e) {
    var tag = e.target && e.target.tagName;
    if (e.key === " " && tag !== "BUTTON" && tag !== "SELECT" && tag !== "INPUT") {
      e.preventDefault();
      setPlaying(!playing);
    }
  });

  window.cspaceViewer = Object.freeze({
    seek: function (t) { seekTime(t); return now.t; },
    time: function () { return now.t; },
    segment: function () { return now.segment; },
    phase: function () { return now.segment ? D.segments[now.segment - 1].phase : null; },
    energies: function () { return now.energy; },
    playing: function () { return playing; },
    positions: function () {
      var out = {};
      groups.forEach(function (g) {
        var m = g.getScreenCTM();
        out[g.getAttribute("data-part")] = [m.e, m.f];
      });
      return out;
    },
    point: function (name, x, y) {
      var g = groups.filter(function (g) { return g.getAttribute("data-part") === name; })[0];
      if (!g) return null;
      var m = g.getScreenCTM();
      return [m.a * x + m.c * y + m.e, m.b * x + m.d * y + m.f];
    }
  });
  render();
  if (window.parent !== window && window.ResizeObserver) new ResizeObserver(postHeight).observe(document.documentElement);
})();
"""

_PAGE = """\
<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<style>
{style}</style>
</head>
<body>
<h1>{name}</h1>
<div id="controls">
<button id="play" type="button">Play</button>
<label>speed <select id="speed">{speeds}</select></label>
<input id="scrub" type="range" min="0" max="{end_u}" step="any" value="0" aria-label="time">
<span id="time">t = 0.000 s of {end_t}</span>
</div>
<div id="main">
<div id="stage">
<svg id="scene" width="{width}" height="{height}" viewBox="{view}" preserveAspectRatio="xMidYMid meet" \
role="img" aria-label="{name}, seen down the z axis">
<g id="world" transform="scale(1 -1)">
{groups}
</g>
</svg>
<div id="hover" role="tooltip" hidden></div>
</div>
<div id="side">
<div id="heading">{heading}</div>
<pre id="record">{record}</pre>
<div id="end">{end}</div>
<ul id="legend">
{legend}
</ul>
<p class="hint">{hint}</p>
<noscript><p>The viewer needs JavaScript to move the parts.</p></noscript>
</div>
</div>
<script type="application/json" id="cspace-data">{data}</script>
<script>{script}</script>
</body>
</html>
"""
