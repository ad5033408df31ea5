"""Reports of a trace: Figure 4 text, JSON, the sampled path, Figure 10 and Table 2.

Numbers are printed with up to 4 decimals, trailing zeros dropped; angles are in
(-pi, pi], and a segment's end values are limits from inside the segment. A coordinate
whose start and end print alike is reported standing still, at its start: a report never
shows a motion from a value to itself. Lengths of
a mechanism smaller than 1 get as many more decimals as its size has leading zeros
(a part 3e-8 across moves by 0.00000001, not by 0), so reports read the same at any
scale; JSON and CSV keep 10 decimals on the same rule.
"""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Sequence

from ..io.outputs import markdown_cell, printable
from ..model.kinds import EndReason, Motion, Phase
from ..model.mechanism import Mechanism
from ..tracing.trace import Segment, Stop, Trace, contact_changes, motion_changes, reported


def number(value: float, decimals: int = 4) -> str:
    """Up to ``decimals`` decimals, no trailing zeros: ``number(2.12683) == '2.1268'``, ``number(-1.0) == '-1'``."""
    text = f"{value:.{decimals}f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def extra_decimals(mechanism: Mechanism) -> int:
    """Decimals lengths get beyond the usual: as many as the mechanism's size has leading zeros."""
    return max(0, -math.floor(math.log10(mechanism.size)))


def _decimals(mechanism: Mechanism, coordinate: str, base: int) -> int:
    """Decimals for a coordinate's values: ``base``, more for the lengths of a small mechanism."""
    return base if mechanism.coordinate(coordinate).is_angle else base + extra_decimals(mechanism)


def describe(trace: Trace) -> str:
    """The symbolic description of paper Figure 4, one record per segment, each closed by a
    comment saying why the segment ended."""
    following = list(trace.segments[1:]) + [None]
    records = [record(segment, ending(trace, segment, after)) for segment, after in zip(trace.segments, following)]
    end = _end_time(trace)
    records.append(f"; end: {trace.end_reason} at t = {number(end)}")
    return "\n\n".join(records) + "\n"


def record(segment: Segment, end: str = "") -> str:
    """One segment's record of paper Figure 4: what drives, what it drives, how each part moves;
    then, given ``end`` (:func:`ending`), the comment line ``; ends: end``.

    >>> from cspace import analyze, load, trace
    >>> t = trace(analyze(load("fixtures/feeder.toml")), until=1.0)
    >>> print(record(t.segments[0]).splitlines()[1])
    (driving-motion (driver cd))
    """
    mechanism = segment.mechanism
    lines = [f"segment {segment.index}:"]
    lines += [f"(driving-motion {_ref(mechanism, j)})" for j in segment.first.roots]
    for line in segment.first.lines:
        targets = " ".join(_ref(mechanism, j) for j in line.targets)
        lines.append(f"(drives {_ref(mechanism, line.source)} ({targets}))")
    for part in _described_parts(mechanism):
        motion, values = _part_motion(mechanism, segment, part, 4)
        fields = " ".join(_values_text(v, _decimals(mechanism, v[0], 4)) for v in values)
        lines.append(f"({part.name} {motion} {fields})")
    if end:
        lines.append(f"; ends: {end}")
    return "\n".join(lines)


def ending(trace: Trace, segment: Segment, following: Segment | None) -> str:
    """Why ``segment`` ended, in words, given the ``following`` one (None for the last).

    Contacts made and released (``contact made piston.right/block1.left; released
    piston.top/block1.bottom``), limits reached and left, else the coordinates that stop,
    start or reverse; an input blocked says by what (what touches where it stopped that the
    segment did not touch), the last external motions what they came to rest against.

    >>> from cspace import analyze, load, trace
    >>> t = trace(analyze(load("fixtures/pusher.toml")))
    >>> ending(t, t.segments[0], t.segments[1])
    'contact made pusher.right/a.left'
    >>> ending(t, t.segments[-1], None)
    'input blocked by frame.wall.left/c.right'
    """
    if following is None and segment.phase == Phase.EXTERNAL:
        return _against(trace, segment, "at rest against", "at rest")
    reason = trace.end_reason if following is None else segment.pieces[-1].end
    if reason == EndReason.INPUT_BLOCKED:
        return _against(trace, segment, "input blocked by", "input blocked")
    if following is None or reason == EndReason.INPUT_DONE:
        return str(reason)
    began, ended = contact_changes(segment, following)
    events = [_event(c, "contact made", "reaches limit") for c in began]
    events += [_event(c, "released", "leaves limit") for c in ended]
    if not events:
        names = [c.name for c in trace.mechanism.coordinates]
        events = [f"{names[j]} {verb}" for j, verb in motion_changes(segment, following)]
    return "; ".join(events) or "driving changes"


def stopped_by(trace: Trace, segment: Segment) -> list:
    """What touches where ``segment`` stopped that its last piece did not touch (contacts and
    stops, in name order): what blocked an input, or what external motions came to rest against.

    >>> from cspace import analyze, load, trace
    >>> t = trace(analyze(load("fixtures/pusher.toml")))
    >>> [str(c) for c in stopped_by(t, t.segments[-1])]
    ['frame.wall.left/c.right']
    """
    return sorted(trace.measures.touching(segment.finish) - segment.pieces[-1].contacts, key=str)


def _against(trace: Trace, segment: Segment, lead: str, alone: str) -> str:
    """``lead`` and what ``segment`` stopped against (:func:`stopped_by`), or ``alone`` when nothing new touches."""
    new = stopped_by(trace, segment)
    return f"{lead} {', '.join(_touch_text(c) for c in new)}" if new else alone


def _event(touch, contact: str, stop: str) -> str:
    """A contact or a stop beginning or ending: ``contact made a.top/b.bottom``, ``reaches limit xw upper 8``."""
    return f"{stop if isinstance(touch, Stop) else contact} {_touch_text(touch, bare=True)}"


def _touch_text(touch, bare: bool = False) -> str:
    """A contact as it is named, a stop as ``limit a upper 1.5`` (``a upper 1.5`` when ``bare``)."""
    if not isinstance(touch, Stop):
        return str(touch)
    text = f"{touch.coordinate} {touch.side} {number(touch.value)}"
    return text if bare else f"limit {text}"


def summary(segment: Segment) -> str:
    """One line saying what moves in a segment, e.g. ``gravity: block1 yb1-, block2 yb2-``."""
    mechanism = segment.mechanism
    if segment.phase == "input":
        motion = mechanism.inputs[segment.first.motion]
        lead = motion.name or "input " + ", ".join(motion.coordinates)
    else:
        kinds = sorted({f.kind for f in mechanism.forces if mechanism.coordinate_index[f.coordinate]
                        in segment.first.roots})
        lead = ", ".join(kinds) or "forces"
    moves = []
    for part in _described_parts(mechanism):
        words = []
        for name in part.coordinates:
            j = mechanism.coordinate_index[name]
            sign = segment.first.signs[j]
            if sign:
                if mechanism.coordinates[j].is_angle:
                    words.append(f"{name} {'ccw' if sign > 0 else 'cw'}")
                else:
                    words.append(f"{name}{'+' if sign > 0 else '-'}")
        if words:
            moves.append(f"{part.name} {' '.join(words)}")
    return f"{lead}: {', '.join(moves) if moves else 'nothing moves'}"


def to_json(trace: Trace, *, statistics: dict | None = None) -> str:
    """The description as JSON: segments, how the trace ended, and optionally statistics.

    Each segment also lists the irredundant constraints of the region it starts in. A
    mechanism drawn touching, started a little apart (:mod:`cspace.tracing.start`), has ``start``:
    each coordinate moved, from its drawn value to where the trace starts.
    """
    names = [c.name for c in trace.mechanism.coordinates]
    segments = []
    for segment in trace.segments:
        record = _segment_record(trace, segment)
        record["constraints"] = trace.measures.constraints(segment, 4 + extra_decimals(trace.mechanism))
        segments.append(record)
    document = {
        "mechanism": trace.mechanism.name,
        "coordinates": names,
        "end": {"reason": trace.end_reason, "time": _clean(_end_time(trace))},
        "segments": segments,
    }
    if trace.settled:  # parts drawn touching, moved to where the pair spaces hold them
        document["start"] = [{"coordinate": s.coordinate, "drawn": _clean(s.drawn), "start": _clean(s.start),
                              "parts": list(s.pair)} for s in trace.settled]
    if statistics is not None:
        document["statistics"] = statistics
    return laid_out(document) + "\n"


def laid_out(value: object, depth: int = 0) -> str:
    """JSON text laid out for reading: objects and arrays of the top three levels one
    entry to a line, arrays of strings (contacts, constraints) too, anything deeper on
    one line. Only the layout differs from ``json.dumps(value)``; the one-line parts go
    through json's C encoder, where an indented dump would go through its Python one.

    >>> print(laid_out({"end": {"reason": "done"}, "segments": [{"contacts": ["a/b"], "parts": [[1, 2]]}]}))
    {
      "end": {
        "reason": "done"
      },
      "segments": [
        {
          "contacts": [
            "a/b"
          ],
          "parts": [[1, 2]]
        }
      ]
    }
    """
    strings = isinstance(value, list) and all(isinstance(v, str) for v in value)
    if not value or not isinstance(value, (dict, list)) or (depth >= 3 and not strings):
        return json.dumps(value)
    inner, outer = "  " * (depth + 1), "  " * depth
    if isinstance(value, dict):
        entries = [f"{inner}{json.dumps(k)}: {laid_out(v, depth + 1)}" for k, v in value.items()]
        return "{\n" + ",\n".join(entries) + f"\n{outer}}}"
    return "[\n" + ",\n".join(f"{inner}{laid_out(v, depth + 1)}" for v in value) + f"\n{outer}]"


def path_rows(trace: Trace) -> list[tuple]:
    """Sampled path rows: time, segment, then one value per coordinate (angles wrapped)."""
    is_angle = [c.is_angle for c in trace.mechanism.coordinates]
    samples = trace.samples()
    rows = []
    for k, (time, segment, q) in enumerate(samples):
        seg = trace.segments[segment - 1]
        first = k == 0 or samples[k - 1][1] != segment
        last = k + 1 == len(samples) or samples[k + 1][1] != segment
        inside = [seg.first.signs[j] if first else -seg.first.signs[j] if last else 0
                  for j in range(len(q))]
        rows.append((time, segment, *[reported(float(v), a, s) for v, a, s in zip(q, is_angle, inside)]))
    return rows


def path_csv(trace: Trace, poses: bool = False) -> str:
    """The sampled path as CSV; with ``poses``, each moving part's pose after the coordinates
    (:mod:`cspace.report.poses`)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    names, places, rows = _path_table(trace, poses)
    writer.writerow(names)
    for row in rows:
        writer.writerow([_csv_number(row[0]), row[1]] + [_csv_number(v, d) for v, d in zip(row[2:], places)])
    return out.getvalue()


def path_json(trace: Trace, poses: bool = False) -> str:
    """The sampled path as JSON: column names and rows (with ``poses``, as :func:`path_csv`)."""
    names, places, rows = _path_table(trace, poses)
    rows = [[_clean(r[0]), r[1]] + [_clean(v, d) for v, d in zip(r[2:], places)] for r in rows]
    return json.dumps({"columns": names, "rows": rows}) + "\n"


def _path_table(trace: Trace, poses: bool) -> tuple[list[str], list[int], list[list]]:
    """The path's column names, the decimals of each column after time and segment, and its rows."""
    names = [c.name for c in trace.mechanism.coordinates]
    places = [_decimals(trace.mechanism, name, 10) for name in names]
    rows = [list(row) for row in path_rows(trace)]
    if not poses:
        return ["time", "segment"] + names, places, rows
    from .poses import pose_columns, pose_rows

    columns = pose_columns(trace.mechanism)
    lengths = 10 + extra_decimals(trace.mechanism)
    places += [10 if column.endswith(".angle") else lengths for column in columns]
    extra = pose_rows(trace, (q for _, _, q in trace.samples()))
    return ["time", "segment"] + names + columns, places, [row + more for row, more in zip(rows, extra)]


def region_rows(trace: Trace) -> tuple[list[str], list[list[str]]]:
    """Paper Figure 10 as cells: a header and one row per segment with the pairwise region
    it lies in for every constraining pair (``r3>r4`` where it crosses from one into another).
    """
    pairs = list(trace.measures.pairs)
    body = []
    for segment in trace.segments:
        cells = [str(segment.index), summary(segment)]
        crossed = [trace.measures.regions(piece.key) for piece in segment.pieces]
        for pair in pairs:
            names = []
            for regions in crossed:
                name = regions[pair]
                if not names or names[-1] != name:
                    names.append(name)
            cells.append(">".join(names))
        body.append(cells)
    return ["segment", "motion"] + pairs, body


def region_table(trace: Trace) -> str:
    """Paper Figure 10 as aligned text: the pairwise region each segment lies in, for every constraining pair.
    An input's name is shown :func:`~cspace.io.outputs.printable` (it is any text of the file)."""
    header, body = region_rows(trace)
    header, body = [printable(cell) for cell in header], [[printable(cell) for cell in row] for row in body]
    widths = [max(len(row[i]) for row in [header] + body) for i in range(len(header))]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip() for row in [header] + body]
    return "\n".join(lines) + "\n"


def statistics(trace: Trace) -> dict:
    """The rows of paper Table 2 for this trace, but the runtime.

    The runtime is the one measured, run-dependent figure: ``cspace trace --stats``
    adds it to the table, and the JSON report leaves it out so that it is
    byte-identical from run to run.
    """
    mechanism = trace.mechanism
    stats = trace.stats
    faces = sum(len(p.elements) for part in mechanism.parts for s in part.slices for p in s.profiles)
    faces += sum(2 * len(part.slices) for part in mechanism.parts)
    members = sum(len(lk.members) for lk in mechanism.linkages)
    return {
        "moving parts": sum(1 for p in mechanism.parts if p.motion != Motion.FIXED),
        "part faces": faces,
        "linkages": len(mechanism.linkages),
        "CS dimension": len(mechanism.coordinates) + 3 * members,
        "dynamics": ", ".join(sorted({f.kind for f in mechanism.forces}
                                     | ({"friction"} if any(p.sticky for p in mechanism.parts) else set()))) or "none",
        # the most run at once (the paper's count: the shoe brake's two on one clock are 2; the
        # rim lock's turn one way and then the other, or a turn, a shift and a turn, are 1)
        "input motions": max((len(i.velocities) for i in mechanism.inputs), default=0),
        "mechanism DOF": trace.measures.degrees_of_freedom,
        "interacting pairs": stats.pairs,
        "constraining pairs": stats.constraining_pairs,
        "pairwise regions": stats.pairwise_regions,
        "potential regions": _count(stats.potential_regions),
        "explored regions": stats.explored_regions,
        "nonempty regions": stats.nonempty_regions,
        "traversed regions": stats.traversed_regions,
        "segments": len(trace.segments),
        "snapshots": len(trace.samples()),
        "LP solves": stats.lp_solves,
    }


def statistics_table(values: dict) -> str:
    """Statistics as aligned ``name  value`` lines."""
    width = max(len(k) for k in values)
    return "\n".join(f"{k.ljust(width)}  {v}" for k, v in values.items()) + "\n"


def statistics_columns(columns: dict[str, dict] | Sequence[tuple[str, dict]], markdown: bool = False) -> str:
    """The statistics of several mechanisms side by side, one column each (paper Table 2):
    aligned text, or a Markdown table. A statistic a mechanism lacks is left blank.
    ``columns`` are (name, statistics) pairs, or a dict of them: one column per pair, even
    where two share a name. Names are shown :func:`~cspace.io.outputs.printable` (a newline,
    NUL or ESC in a mechanism's name neither breaks the table nor reaches the terminal), in
    Markdown with ``|`` escaped (:func:`~cspace.io.outputs.markdown_cell`).

    >>> print(statistics_columns({"a": {"segments": 3}, "b": {"segments": 12}}), end="")
    statistic  a  b
    segments   3  12
    >>> print(statistics_columns([("a | b", {"segments": 3}), ("a | b", {"segments": 4})], markdown=True), end="")
    | statistic | a \\| b | a \\| b |
    |---|---|---|
    | segments | 3 | 4 |
    """
    pairs = list(columns.items() if isinstance(columns, dict) else columns)
    names = list(dict.fromkeys(k for _, values in pairs for k in values))
    table = [["statistic", *(name for name, _ in pairs)]] + \
        [[name, *(str(values.get(name, "")) for _, values in pairs)] for name in names]
    if markdown:
        lines = [f"| {' | '.join(markdown_cell(cell) for cell in row)} |" for row in table]
        return "\n".join(lines[:1] + ["|" + "---|" * len(table[0])] + lines[1:]) + "\n"
    table = [[printable(cell) for cell in row] for row in table]
    widths = [max(len(row[k]) for row in table) for k in range(len(table[0]))]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip() for row in table) + "\n"


def _segment_record(trace: Trace, segment: Segment) -> dict:
    mechanism = trace.mechanism
    parts = []
    for part in _described_parts(mechanism):
        motion, values = _part_motion(mechanism, segment, part, 10)
        places = {v[0]: _decimals(mechanism, v[0], 10) for v in values}
        coordinates = [{"name": v[0], "start": _clean(v[1], places[v[0]]), "end": _clean(v[2], places[v[0]])}
                       if len(v) == 3 else {"name": v[0], "value": _clean(v[1], places[v[0]])} for v in values]
        parts.append({"part": part.name, "motion": motion, "coordinates": coordinates})
    regions: dict[str, list[str]] = {}
    for piece in segment.pieces:
        for pair, name in trace.measures.regions(piece.key).items():
            names = regions.setdefault(pair, [])
            if not names or names[-1] != name:
                names.append(name)
    return {
        "segment": segment.index,
        "kind": segment.phase,
        "summary": summary(segment),
        "start_time": _clean(segment.start_time),
        "end_time": _clean(segment.end_time),
        "driving": [_ref_json(mechanism, j) for j in segment.first.roots],
        "drives": [{"from": _ref_json(mechanism, line.source), "to": [_ref_json(mechanism, j) for j in line.targets],
                    "through": line.through} for line in segment.first.lines],
        "parts": parts,
        "contacts": sorted(str(c) for c in segment.first.contacts),
        "regions": regions,
        "end": segment.end,
        "pieces": len(segment.pieces),
    }


def _described_parts(mechanism: Mechanism):
    return [p for p in mechanism.parts if p.motion == Motion.FIXED_AXES]


def _part_motion(mechanism: Mechanism, segment: Segment, part, base: int) -> tuple[str, list[tuple]]:
    """Motion type of a part in a segment and its coordinate values (moving ones first), to
    ``base`` decimals (more for the lengths of a small mechanism): a coordinate whose start
    and end read alike there stands still, at its start."""
    moving, still = [], []
    for name in part.coordinates:
        j = mechanism.coordinate_index[name]
        coordinate = mechanism.coordinates[j]
        sign = segment.first.signs[j]
        start = reported(float(segment.start[j]), coordinate.is_angle, sign)
        end = reported(float(segment.finish[j]), coordinate.is_angle, -sign)
        decimals = _decimals(mechanism, name, base)
        if sign and number(start, decimals) != number(end, decimals):
            moving.append((name, start, end, coordinate.is_angle, j))
        else:
            still.append((name, start))
    turning = [m for m in moving if m[3]]
    sliding = [m for m in moving if not m[3]]
    if not moving:
        motion = "stationary"
    elif not turning:
        motion = "translates"
    elif not sliding:
        motion = "rotates"
    elif _coupled(segment, [m[4] for m in moving]):
        motion = "helical"
    else:
        motion = "rotates-and-translates"
    return motion, [m[:3] for m in moving] + still


def _coupled(segment: Segment, coordinates: list[int]) -> bool:
    """Do these coordinates all follow from one driving motion?"""
    origin = {}
    for root in segment.first.roots:
        origin[root] = root
    changed = True
    while changed:
        changed = False
        for line in segment.first.lines:
            for target in line.targets:
                if line.source in origin and target not in origin:
                    origin[target] = origin[line.source]
                    changed = True
    return len({origin.get(j, j) for j in coordinates}) == 1


def _count(value: int) -> int | str:
    """A count as an integer, or past 10**18 as text in scientific notation (the number
    of potential regions of a mechanism of a hundred blocks has thousands of digits).

    >>> _count(12), _count(2 ** 4000), _count(10 ** 40 - 1)
    (12, '1.3182e+1204', '1.0000e+40')
    """
    if value < 10 ** 18:
        return value
    exponent = math.floor(math.log10(value))
    mantissa = f"{10 ** (math.log10(value) - exponent):.4f}"
    if mantissa == "10.0000":
        mantissa, exponent = "1.0000", exponent + 1
    return f"{mantissa}e+{exponent}"


def _values_text(value: tuple, decimals: int) -> str:
    return f"({value[0]} {' '.join(number(v, decimals) for v in value[1:])})"


def _ref(mechanism: Mechanism, j: int) -> str:
    coordinate = mechanism.coordinates[j]
    return f"({coordinate.part} {coordinate.name})"


def _ref_json(mechanism: Mechanism, j: int) -> dict:
    coordinate = mechanism.coordinates[j]
    return {"part": coordinate.part, "coordinate": coordinate.name}


def _end_time(trace: Trace) -> float:
    return trace.segments[-1].end_time if trace.segments else 0.0


def _clean(value: float, decimals: int = 10) -> float:
    """Round away float noise (and negative zero) so output is stable and readable."""
    rounded = round(float(value), decimals)
    return 0.0 if rounded == 0 else rounded


def _csv_number(value: float, decimals: int = 10) -> str:
    return repr(_clean(value, decimals))

