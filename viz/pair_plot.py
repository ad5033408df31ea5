"""Pictures of a pair's configuration space, like Figure 5 of the paper.

Blocked space is shaded and outlined: its outline is where the parts touch. Region
boundaries that are not contacts (those that only keep regions convex) are dashed.
Each region is labelled with its name (``r1``...) where the label fits; a zero-width
channel (a region of dimension 1, where a part exactly fits) is a thick line. The
traced path is drawn over it all, from a circle at its start to a square at its end.
A dynamic path (full dynamics) is drawn the same way, through its samples, and its
impacts on this pair (those at which a contact of these two parts is struck) are marked
with a cross.
A 2-D pair space is drawn in its own coordinates, e.g. ``(xb1 - xp, yb1)`` for the
feeder's piston and first block; a 1-D one with its coordinate across and input time
up. The legend sits outside the axes so it never hides a region.

A pair in which a part turns is drawn in its coordinates, angles in radians
(``th (rad)``). An angle that turns freely wraps: the picture shows one turn of it, -pi
to pi, ticked every quarter turn, its seam (where -pi and pi meet) a thin dash-dot line
along the window's edge; the path is taken into that turn and broken where it crosses
the seam, and the copies of regions a turn past the seam are not drawn. A limited angle
is drawn over its limits and a little beyond. Each axis is framed on its own (radians
and lengths have no common scale); the regions' boundaries are finer, for there are many.

A pair of which a part shifts along z has a pair space per band of the shift (the
stretches over which the same slices meet, :mod:`cspace.spaces.layers`). Its figure has a
panel per band instead of one picture: first the shift against time, each band a span
(``band 1``, ``band 2``... over the shift's limits; a band whose slices always overlap
shaded blocked), then the planar pair space of each band in which slices meet, drawn as
above, with the stretches of the path that lie in that band (the transmission's gear
cluster: the first gears' mesh, neutral, the second gears' mesh).

    >>> from cspace import analyze, load, trace
    >>> analysis = analyze(load("fixtures/feeder.toml"))
    >>> figure = pair_figure(analysis, trace(analysis, until=3), "piston", "block1")
    >>> [axes.get_xlabel() for axes in figure.axes], figure.axes[0].get_title()
    (['xb1 - xp'], 'feeder: configuration space of piston/block1')
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import matplotlib
import numpy as np
import shapely
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.patches import Polygon as PolygonPatch
from matplotlib.text import Text
from matplotlib.transforms import Bbox
from shapely.geometry import LineString, Polygon, box

from cspace.io.outputs import replaced
from cspace.model.errors import ModelError
from cspace.model.mechanism import Mechanism
from cspace.spaces.layers import Band, ShiftedPairSpace
from cspace.spaces.pairspace import PairSpace, Region
from cspace.tracing.analysis import Analysis

from .labels import Spot, place_labels
from .output import check_output
from .snapshots import Traced, impacts, samples

FORMATS = (".png", ".svg", ".pdf")
BLOCKED = "#c9c9c9"
OUTLINE = "#5a5a5a"
BOUNDARY = "#404040"
LABEL = "#202020"
PATH = "#d62728"
IMPACT = "#000000"
CHANNEL = "#1f77b4"
DASHES = (0, (4, 3))
PAD = 0.25
ASPECT = 4 / 3
SIZE = (7.2, 4.8)
DPI = 150
# Pairs in which a part turns: angles in radians; one that wraps is drawn over one turn, ticked
# every quarter turn, with its seam (where the turn closes) a thin dash-dot line at the window's
# edge; a limited one over its limits and ANGLE_PAD beyond (a 1-D pair; a 2-D one over its box).
TURN = 2 * np.pi
HALF_TURNS = [-np.pi, -np.pi / 2, 0.0, np.pi / 2, np.pi]
PI_LABELS = ["\u2212\u03c0", "\u2212\u03c0/2", "0", "\u03c0/2", "\u03c0"]
SEAM = {"color": "#7a7a7a", "linewidth": 0.8, "linestyle": (0, (6, 2, 1, 2)), "zorder": 2.5, "clip_on": False}
SEAM_LABEL = "seam (\u2212\u03c0 \u2261 \u03c0)"
ANGLE_PAD = 0.1
MARKER_CLEARANCE = 12.0  # pixels: half a path marker (6 points at 150 dpi), the note's margin and a little air
# Their regions are often many and narrow (a convex region under a curved contact is a thin
# slab): their boundaries are drawn finer, so they tint the free space rather than hide it.
TURNING_BOUNDARY = {"color": "#9a9a9a", "linewidth": 0.5, "linestyle": (0, (3, 2))}
TURNING_PAD = 0.4
# A pair of which a part shifts along z: the shift's panel and one per band, these wide (inches),
# and room for the legend.
SHIFT_WIDTH, PANEL_WIDTH, LEGEND_WIDTH = 3.2, 5.4, 1.6
# No dates, software versions or random ids in the files, so the same input gives the same bytes.
METADATA = {".png": {"Software": None}, ".svg": {"Date": None, "Creator": None},
            ".pdf": {"CreationDate": None, "ModDate": None, "Producer": None, "Creator": None}}


def find_pair(analysis: Analysis, part_a: str, part_b: str) -> PairSpace:
    """The pair space of two parts named in either order; ModelError if a name is unknown or they never touch.

    >>> from cspace import analyze, load
    >>> find_pair(analyze(load("fixtures/feeder.toml")), "block1", "piston").name
    'piston/block1'
    """
    mechanism = analysis.mechanism
    for field, name in (("PART_A", part_a), ("PART_B", part_b)):
        if name not in mechanism.part_index:
            raise ModelError(f"no part named {name!r}; the parts are {', '.join(p.name for p in mechanism.parts)}",
                             file=mechanism.source, field=field)
    if part_a == part_b:
        raise ModelError(f"a pair needs two different parts, got {part_a!r} twice", file=mechanism.source,
                         field="PART_B")
    for pair in analysis.pairs:
        if {pair.part_a, pair.part_b} == {part_a, part_b}:
            return pair
    known = ", ".join(p.name for p in analysis.pairs) or "none"
    raise ModelError(f"parts {part_a!r} and {part_b!r} never touch, so they have no configuration space; "
                     f"the pairs that can touch are {known}", file=mechanism.source, field="PART_B")


def pair_figure(analysis: Analysis, trace: Traced, part_a: str, part_b: str) -> Figure:
    """A matplotlib figure of the pair's configuration space (of ``analysis``) with the path of
    ``trace`` (a trace or a dynamic path, its impacts on the pair marked) over it; for a pair of
    which a part shifts along z, one panel per band (:func:`_shifted_panels`)."""
    pair = find_pair(analysis, part_a, part_b)
    mechanism = trace.mechanism
    sampled = samples(trace)
    times = np.array([time for time, _, _ in sampled])
    if pair.shifts:
        figure = Figure(figsize=_shifted_size(pair), dpi=DPI, layout="constrained")
        panels = _shifted_panels(figure, pair, mechanism, sampled, times)
        figure.suptitle(f"{mechanism.name}: configuration space of {pair.name}")
    else:
        figure = Figure(figsize=SIZE, dpi=DPI, layout="constrained")
        axes = figure.add_subplot()
        spots, path = _draw_pair(axes, pair, mechanism, [_points(pair, mechanism, sampled)], [times], True, True)
        _draw_impacts(axes, pair, mechanism, [(t, q) for t, q, contacts in impacts(trace)
                                              if set(contacts) & _contact_names(pair)])
        axes.set_title(f"{mechanism.name}: configuration space of {pair.name}")
        panels = [(axes, pair, spots, path)]
    figure.legend(*_legend(figure), loc="outside right upper", fontsize="small")
    for axes, space, spots, path in panels:
        _label(axes, space, spots, path)
    return figure


def _contact_names(pair: PairSpace) -> set[str]:
    """The names of the contacts on the pair space's boundaries, as a dynamic path's stretches name them."""
    return {str(contact) for region in pair.regions for edge in region.edges for contact in edge.contacts}


def _draw_impacts(axes: Axes, pair: PairSpace, mechanism: Mechanism, struck: list[tuple[float, np.ndarray]]) -> None:
    """A cross where the path is at each impact (time, configuration), drawn in the axes' coordinates:
    the pair's (an angle in radians, taken into its one turn where it wraps), against time for a
    pair of one coordinate."""
    if not struck:
        return
    points = _points(pair, mechanism, [(t, 0, q) for t, q in struck])
    if pair.periods:
        frame = _turning_axes(pair, mechanism)
        points = points / np.array([axis.scale for axis in frame])
        for k, axis in enumerate(frame):
            if axis.wraps:
                points[:, k] = (points[:, k] + np.pi) % TURN - np.pi
    if pair.dimension == 1:
        points = np.column_stack([points[:, 0], [t for t, _ in struck]])
    axes.plot(*points.T, marker="x", markersize=7, markeredgewidth=1.6, color=IMPACT, linestyle="none", zorder=8,
              label="impact", clip_on=False)


def _points(pair: PairSpace, mechanism: Mechanism, samples: list) -> np.ndarray:
    """The path's samples in the pair space's coordinates, one row each."""
    columns = [mechanism.coordinate_index[c] for c in pair.coordinates]
    return np.array([pair.matrix @ q[columns] for _, _, q in samples]).reshape(-1, pair.dimension)


def _draw_pair(axes: Axes, pair: PairSpace, mechanism: Mechanism, runs: list[np.ndarray], times: list[np.ndarray],
               start: bool, end: bool) -> tuple[list[Spot], np.ndarray]:
    """Draw a pair space and the stretches of the path in it (``runs``, in its coordinates,
    sampled at ``times``), a circle at the path's start if ``start``, a square at its end if
    ``end``. Returns the label spots and the line the labels keep clear of."""
    names = [_combination(row, pair.coordinates) for row in pair.matrix]
    if pair.periods:
        return _draw_turning(axes, pair, mechanism, runs, times, start, end)
    if pair.dimension == 2:
        spots = _draw_plane(axes, pair, _joined(runs))
        axes.set_ylabel(names[1])
    else:
        runs = [np.column_stack([run[:, 0], at]) for run, at in zip(runs, times)]
        spots = _draw_line(axes, pair, _joined(runs))
        axes.set_ylabel("time (s)")
    _draw_path(axes, runs, start, end)
    axes.set_xlabel(names[0])
    return spots, _joined(runs)


def _joined(runs: list[np.ndarray]) -> np.ndarray:
    """The path's stretches one after another (a line the labels keep clear of: across a gap
    between stretches it keeps them clear of a little more than the path)."""
    return np.vstack(runs) if runs else np.zeros((0, 2))


def _legend(figure: Figure) -> tuple[list, list[str]]:
    """Each label of the figure's axes once, in the order drawn."""
    handles, labels = [], []
    for axes in figure.axes:
        for handle, label in zip(*axes.get_legend_handles_labels()):
            if label not in labels:
                handles.append(handle)
                labels.append(label)
    return handles, labels


def _label(axes: Axes, pair: PairSpace | None, spots: list[Spot], path: np.ndarray) -> None:
    """Write the regions' names where they fit (the bands' for the shift's panel, ``pair``
    None), and say how many did not."""
    noun = "region" if pair is not None else "band"
    if pair is not None and pair.imposes_nothing:
        _note(axes, "one region: these parts never block each other")
    placed = len(axes.texts)
    left_out = len(place_labels(axes, spots, path, fontsize=9, color=LABEL))
    if left_out:
        note = _note(axes, "")
        if pair is None or pair.periods:  # the path may run along any edge: a turn's, or the shift's limits
            _clear_corner(axes, note, path, left_out + 1, noun)
        # The note goes where the labels are already; labels under it give way to it.
        for label in axes.texts[placed:-1]:
            if label.get_window_extent().overlaps(_box_of(note, left_out + 1, noun)):
                label.remove()
                left_out += 1
        note.set_text(_too_narrow(left_out, noun))


# ---- pairs of which a part shifts along z ------------------------------------------------------

def _shifted_size(pair: ShiftedPairSpace) -> tuple[float, float]:
    """The figure's size: the shift's panel, then one of :data:`SIZE`'s height per band drawn."""
    drawn = sum(1 for band in pair.bands if band.space is not None)
    return (max(SHIFT_WIDTH + PANEL_WIDTH * drawn + LEGEND_WIDTH, SIZE[0]), SIZE[1])


def _shifted_panels(figure: Figure, pair: ShiftedPairSpace, mechanism: Mechanism, samples: list,
                    times: np.ndarray) -> list[tuple[Axes, PairSpace | None, list[Spot], np.ndarray]]:
    """A pair of which a part shifts along z is a planar pair space per band of the shift
    (see :mod:`cspace.spaces.layers`): its first panel is the shift against time, the bands side by
    side; then each band whose slices meet in the plane is drawn as its own pair space, with
    the stretches of the path that lie in that band (a sample on a band's end is in both)."""
    shown = [band for band in pair.bands if band.space is not None]
    grid = figure.subplots(1, 1 + len(shown), squeeze=False,
                           width_ratios=[SHIFT_WIDTH] + [PANEL_WIDTH] * len(shown))[0]
    shift = _points(pair, mechanism, samples)[:, -1]
    panels = [(grid[0], None, *_draw_shift(grid[0], pair, mechanism, shift, times))]
    near = mechanism.tolerance.length
    for axes, band in zip(grid[1:], shown):
        runs = _band_runs(shift, band, near)
        points = _points(band.space, mechanism, samples)
        spots, path = _draw_pair(axes, band.space, mechanism, [points[i:j] for i, j in runs],
                                 [times[i:j] for i, j in runs], any(i == 0 for i, _ in runs),
                                 any(j == len(shift) for _, j in runs))
        axes.set_title(_band_title(pair, mechanism, band), fontsize="medium")
        panels.append((axes, band.space, spots, path))
    return panels


def _band_runs(shift: np.ndarray, band: Band, near: float) -> list[tuple[int, int]]:
    """The stretches ``[i, j)`` of the path's samples that lie in ``band``: those strictly
    inside it (on a band's end the z faces only touch: the slices of neither band meet in the
    plane there, and its blocked space does not hold), each with its neighbour on the band's
    end where the path comes in or goes out. ``near`` is the length tolerance.

    >>> _band_runs(np.array([0.0, 0.0, 0.5, 1.0, 1.5, 1.0, 0.5]), Band(0.0, 1.0, (), None, True, np.eye(1)), 1e-9)
    [(1, 4), (5, 7)]
    """
    inside = np.concatenate([[False], (shift > band.lo + near) & (shift < band.hi - near), [False]])
    closure = (shift >= band.lo - near) & (shift <= band.hi + near)
    edges = np.flatnonzero(np.diff(inside.astype(int)))
    runs = []
    for i, j in zip(edges[::2].tolist(), edges[1::2].tolist()):
        runs.append((i - 1 if i > 0 and closure[i - 1] else i, j + 1 if j < len(shift) and closure[j] else j))
    return runs


def _shift_range(pair: ShiftedPairSpace, mechanism: Mechanism) -> tuple[str, float, float]:
    """The shift axis's name (``s``, or ``-s`` when the other part shifts) and its limits on it."""
    row = pair.matrix[-1]
    j = int(np.argmax(np.abs(row)))
    low, high = mechanism.coordinate(pair.coordinates[j]).limits
    lo, hi = sorted((row[j] * low, row[j] * high))
    return _combination(row, pair.coordinates), float(lo), float(hi)


def _shown_bands(pair: ShiftedPairSpace, mechanism: Mechanism) -> list[Band]:
    """The bands the figure shows, numbered from 1 in this order: those the shift reaches over
    some length within its limits, and those in which slices meet in the plane."""
    _, lo, hi = _shift_range(pair, mechanism)
    return [band for band in pair.bands if min(band.hi, hi) > max(band.lo, lo) or band.space is not None]


def _band_title(pair: ShiftedPairSpace, mechanism: Mechanism, band: Band) -> str:
    """Which band, where along the shift, and which slices meet in it."""
    name, lo, hi = _shift_range(pair, mechanism)
    number = _shown_bands(pair, mechanism).index(band) + 1
    met = ", ".join(f"{pair.part_a} slices[{i}] / {pair.part_b} slices[{j}]" for i, j in band.slices)
    return f"band {number}: {max(band.lo, lo):g} \u2264 {name} \u2264 {min(band.hi, hi):g}\n{met}"


def _draw_shift(axes: Axes, pair: ShiftedPairSpace, mechanism: Mechanism, shift: np.ndarray,
                times: np.ndarray) -> tuple[list[Spot], np.ndarray]:
    """The shift across, over its limits, and time up: each band a span labelled ``band k``,
    a band whose slices meet and always overlap shaded blocked, the bands' ends dashed and the
    shift's limits dotted; the path's shift over time."""
    name, low, high = _shift_range(pair, mechanism)
    pad = ANGLE_PAD * max(high - low, 1.0)
    lo, hi = min(low, *shift) - pad, max(high, *shift) + pad
    top = max(float(times.max()), 1.0) if len(times) else 1.0
    bottom, ceiling = -0.03 * top, 1.05 * top
    spots = []
    for k, band in enumerate(_shown_bands(pair, mechanism)):
        a, b = max(band.lo, low), min(band.hi, high)
        if band.space is None and not band.free:
            axes.axvspan(a, b, color=BLOCKED, zorder=1, label="blocked")
        spots.append(Spot(f"band {k + 1}", area=box(a, bottom, max(b, a + 1e-9 * (high - low)), ceiling)))
        if math.isfinite(band.hi) and low < band.hi < high:
            axes.axvline(band.hi, color=BOUNDARY, linewidth=0.8, linestyle=DASHES, zorder=2, label="band end")
    for value in (low, high):
        axes.axvline(value, color=OUTLINE, linewidth=1.0, linestyle=":", zorder=2, label="shift limit")
    path = np.column_stack([shift, times])
    _draw_path(axes, [path])
    axes.set_xlim(lo, hi)
    axes.set_ylim(bottom, ceiling)
    axes.set_xlabel(name)
    axes.set_ylabel("time (s)")
    axes.set_title("the shift, band by band", fontsize="medium")
    return spots, path


def plot_pair(analysis: Analysis, trace: Traced, part_a: str, part_b: str, path: str | Path) -> None:
    """Write :func:`pair_figure` to ``path`` (.png, .svg or .pdf); the same trace gives the same bytes."""
    check_output(path, FORMATS, field="path")
    suffix = Path(path).suffix.lower()
    figure = pair_figure(analysis, trace, part_a, part_b)
    with matplotlib.rc_context({"svg.hashsalt": "cspace"}), replaced(path) as temporary:  # whole or not at all
        figure.savefig(temporary, metadata=METADATA[suffix])


def _note(axes: Axes, text: str) -> Text:
    """A remark in the lower left corner of the axes."""
    note = axes.text(0.01, 0.015, text, transform=axes.transAxes, fontsize="small", color=LABEL, zorder=8,
                     bbox={"boxstyle": "square,pad=0.2", "facecolor": "white", "edgecolor": "none", "alpha": 0.8})
    note.set_in_layout(False)
    return note


def _too_narrow(count: int, noun: str = "region") -> str:
    return f"{count} {noun}{'s' * (count > 1)} too narrow to label here"


def _box_of(note: Text, count: int, noun: str = "region") -> Bbox:
    """Where ``note`` will be once it says that at most ``count`` regions (or bands) went unlabelled."""
    note.set_text(_too_narrow(count, noun))
    return note.get_window_extent()


def _draw_plane(axes: Axes, pair: PairSpace, path: np.ndarray) -> list[Spot]:
    drawing_box = np.vstack([region.vertices for region in pair.regions] + [path])
    window = _window(np.vstack([*pair.blocked, path]), drawing_box)
    x0, y0, x1, y1 = window.bounds
    for k, polygon in enumerate(pair.blocked):
        axes.add_patch(PolygonPatch(polygon, closed=True, facecolor=BLOCKED, edgecolor="none", zorder=1,
                                    label="blocked" if k == 0 else None))
    for k, ring in enumerate(_rings(shapely.union_all([Polygon(p) for p in pair.blocked]))):
        axes.plot(*np.asarray(ring.coords).T, color=OUTLINE, linewidth=1.0, zorder=2,
                  label="contact" if k == 0 else None)
    drawn = set()
    spots = []
    for region in pair.regions:
        if region.dimension == 2:
            for edge in region.edges:
                key = tuple(sorted(tuple(np.round(end, 9).tolist()) for end in (edge.start, edge.end)))
                if not edge.contacts and key not in drawn:
                    axes.plot(*np.array([edge.start, edge.end]).T, color=BOUNDARY, linestyle=DASHES,
                              linewidth=0.8, zorder=3, label=None if drawn else "region boundary")
                    drawn.add(key)
            shape = Polygon(region.vertices).intersection(window)
            if not shape.is_empty:
                spots.append(Spot(region.name, area=shape))
        else:
            _zero_width(axes, region, _extremes(region.vertices), spots, (x0, y0, x1, y1))
    axes.set_xlim(x0, x1)
    axes.set_ylim(y0, y1)
    axes.set_aspect("equal")
    return spots


def _draw_line(axes: Axes, pair: PairSpace, path: np.ndarray) -> list[Spot]:
    """A 1-D pair space across, time up: blocked spans shaded, each region's ends drawn by what they are."""
    ends = [float(v) for region in pair.regions for v in region.vertices.ravel()]
    lo, hi = _padded(np.array(ends + path[:, 0].tolist()))
    top = max(float(path[:, 1].max()), 1.0) if len(path) else 1.0
    bottom, ceiling = -0.03 * top, 1.05 * top
    free = sorted((max(r.bbox[0], lo), min(r.bbox[1], hi)) for r in pair.regions)
    gaps = [(a, b) for a, b in zip([lo] + [f[1] for f in free], [f[0] for f in free] + [hi]) if b > a]
    for k, (a, b) in enumerate(gaps):
        axes.axvspan(a, b, color=BLOCKED, zorder=1, label="blocked" if k == 0 else None)
    shown = set()
    spots = []
    for region in pair.regions:
        for edge in region.edges:
            kind = "contact" if edge.contacts else "region boundary"
            style = {"color": OUTLINE, "linewidth": 1.0} if edge.contacts else {"color": BOUNDARY, "linewidth": 0.8,
                                                                                "linestyle": DASHES}
            axes.axvline(edge.start[0], zorder=2, label=None if kind in shown else kind, **style)
            shown.add(kind)
        a, b = max(region.bbox[0], lo), min(region.bbox[1], hi)
        spots.append(Spot(region.name, area=box(a, bottom, b, ceiling)))
    axes.set_xlim(lo, hi)
    axes.set_ylim(bottom, ceiling)
    return spots


def _draw_path(axes: Axes, runs: list[np.ndarray], start: bool = True, end: bool = True) -> None:
    """The path's stretches as lines, with a circle at the path's start and a square at its end.

    A path that runs back over itself is drawn once per stretch, so its colour is even.
    """
    runs = [run for run in runs if len(run)]
    if not runs:
        return
    lines = [line for line in (LineString(run) for run in runs if len(run) > 1) if line.length > 0]
    if lines:
        pieces = shapely.get_parts(shapely.line_merge(shapely.union_all(lines)))
        for k, piece in enumerate(pieces):
            axes.plot(*np.asarray(piece.coords).T, color=PATH, linewidth=1.6, zorder=6,
                      label="path" if k == 0 else None)
    if start:
        axes.plot(*runs[0][0], marker="o", color=PATH, markersize=6, zorder=7, linestyle="none", label="start")
    if end:
        axes.plot(*runs[-1][-1], marker="s", color=PATH, markersize=6, zorder=7, linestyle="none", label="end")


# ---- pairs in which a part turns -------------------------------------------------------------

@dataclass(frozen=True)
class _Axis:
    """One drawn axis of a turning pair: its coordinate, how many pair-space units one drawn
    unit is (an angle's scale, so angles are drawn in radians; 1 for a length), and whether
    it wraps (then it is drawn over one turn, -pi to pi)."""

    name: str
    scale: float
    angle: bool
    wraps: bool

    @property
    def label(self) -> str:
        return f"{self.name} (rad)" if self.angle else self.name

    @property
    def turn(self) -> float:
        return TURN if self.wraps else 0.0


def _turning_axes(pair: PairSpace, mechanism: Mechanism) -> list[_Axis]:
    """The pair's axes: each row of its (diagonal) matrix scales one coordinate."""
    axes = []
    for k, row in enumerate(pair.matrix):
        j = int(np.argmax(np.abs(row)))
        name = pair.coordinates[j]
        axes.append(_Axis(name, float(row[j]), mechanism.coordinate(name).is_angle, bool(pair.periods[k])))
    return axes


def _draw_turning(axes: Axes, pair: PairSpace, mechanism: Mechanism, runs: list[np.ndarray],
                  times: list[np.ndarray], start: bool, end: bool) -> tuple[list[Spot], np.ndarray]:
    """A pair in which a part turns, angles in radians: one turn of each angle that wraps.

    The regions copied a turn past a seam are left out (they are the ones inside, again);
    the path's stretches (``runs``, at ``times``) are taken into the turn and broken where
    they cross a seam, and the seam is a thin line at the window's edge. Returns the label
    spots and the line the labels keep clear of (the path's pieces joined round the outside
    of the axes).
    """
    frame = _turning_axes(pair, mechanism)
    scales = np.array([axis.scale for axis in frame])
    turns = [axis.turn for axis in frame] + ([0.0] if pair.dimension == 1 else [])
    pieces = []
    for run, at in zip(runs, times):
        drawn = run / scales
        if pair.dimension == 1:
            drawn = np.column_stack([drawn[:, 0], at])
        pieces += _wrapped(drawn, turns)
    regions = [region for region in pair.regions if not _past_seam(region, pair)]
    if pair.dimension == 2:
        spots = _draw_turning_plane(axes, pair, frame, regions, pieces)
        axes.set_ylabel(frame[1].label)
    else:
        every = np.concatenate(times) if times else np.zeros(0)
        spots = _draw_turning_line(axes, frame[0], regions, pieces, mechanism, every)
        axes.set_ylabel("time (s)")
    _draw_seams(axes, [axis.wraps for axis in frame])
    _draw_pieces(axes, pieces, start, end)
    axes.set_xlabel(frame[0].label)
    return spots, _clearance(pieces, (*axes.get_xlim(), *axes.get_ylim()))


def _past_seam(region: Region, pair: PairSpace) -> bool:
    """Is ``region`` a copy a turn past a seam: outside the one turn along an axis that wraps?"""
    n = pair.dimension
    for k, period in enumerate(pair.periods):
        if period:
            half, tolerance = period / 2, period * 1e-9
            if region.bbox[k] >= half - tolerance or region.bbox[n + k] <= -half + tolerance:
                return True
    return False


def _draw_turning_plane(axes: Axes, pair: PairSpace, frame: list[_Axis], regions: list[Region],
                        pieces: list[np.ndarray]) -> list[Spot]:
    scales = np.array([axis.scale for axis in frame])
    outlines = [region.vertices / scales for region in regions]
    blocked = [polygon / scales for polygon in pair.blocked]
    # The space's box: the regions and blocked space together reach its every side.
    space = np.vstack(outlines + blocked)
    edge_lo, edge_hi = space.min(axis=0), space.max(axis=0)
    points = np.vstack(pieces) if pieces else np.zeros((0, 2))
    window = []
    for k, axis in enumerate(frame):
        if axis.wraps:
            window.append((-np.pi, np.pi))
        elif axis.angle:
            window.append((float(edge_lo[k]), float(edge_hi[k])))
        else:
            values = np.concatenate([p[:, k] for p in blocked] + [points[:, k]])
            lo, hi = (float(values.min()), float(values.max())) if len(values) else (0.0, 0.0)
            pad = TURNING_PAD * max(hi - lo, 1.0)
            window.append((max(lo - pad, float(edge_lo[k])), min(hi + pad, float(edge_hi[k]))))
    (x0, x1), (y0, y1) = window
    view = box(x0, y0, x1, y1)

    def on_edge(start: np.ndarray, end: np.ndarray) -> bool:
        """Do both ends lie on one side of the space's box (a seam, or the end of an angle's range)?"""
        for k in range(2):
            size = max(edge_hi[k] - edge_lo[k], 1.0) * 1e-9
            for side in (edge_lo[k], edge_hi[k]):
                if abs(start[k] - side) <= size and abs(end[k] - side) <= size:
                    return True
        return False

    for k, polygon in enumerate(blocked):
        axes.add_patch(PolygonPatch(polygon, closed=True, facecolor=BLOCKED, edgecolor=BLOCKED, linewidth=0.3,
                                    zorder=1, label="blocked" if k == 0 else None))
    # The outline of blocked space, less its sides on the box: there the space is cut, not touched.
    union = shapely.union_all([Polygon(p) for p in pair.blocked])
    stretches = [s for ring in _rings(union) for s in _stretches(np.asarray(ring.coords) / scales, on_edge)]
    for k, stretch in enumerate(stretches):
        axes.plot(*stretch.T, color=OUTLINE, linewidth=1.0, zorder=2, label="contact" if k == 0 else None)
    drawn = set()
    labelled = False
    spots = []
    for region, outline in zip(regions, outlines):
        if region.dimension == 2:
            for edge in region.edges:
                start, end = np.asarray(edge.start) / scales, np.asarray(edge.end) / scales
                key = tuple(sorted(tuple(np.round(v, 9).tolist()) for v in (start, end)))
                if edge.contacts or key in drawn or on_edge(start, end):
                    continue
                drawn.add(key)
                seen = LineString([start, end]).intersection(view)
                if seen.is_empty or seen.length == 0:
                    continue
                axes.plot(*np.asarray(seen.coords).T, zorder=3, label=None if labelled else "region boundary",
                          **TURNING_BOUNDARY)
                labelled = True
            shapes = [part for part in shapely.get_parts(Polygon(outline).intersection(view))
                      if part.geom_type == "Polygon" and part.area > 0]
            if shapes:
                spots.append(Spot(region.name, area=max(shapes, key=lambda part: part.area)))
        else:
            _zero_width(axes, region, _extremes(outline), spots, (x0, y0, x1, y1))
    axes.set_xlim(x0, x1)
    axes.set_ylim(y0, y1)
    return spots


def _draw_turning_line(axes: Axes, axis: _Axis, regions: list[Region], pieces: list[np.ndarray],
                       mechanism: Mechanism, times: np.ndarray) -> list[Spot]:
    """A turning pair of one axis, like :func:`_draw_line`: the angle across, in radians, time up."""
    if axis.wraps:
        lo, hi = -np.pi, np.pi
    else:
        ends = [v / axis.scale for region in regions for v in region.vertices.ravel()]
        ends += [v for piece in pieces for v in piece[:, 0]]
        limits = mechanism.coordinate(axis.name).limits if axis.angle else None
        if limits is not None:
            lo, hi = min(limits[0] - ANGLE_PAD, *ends), max(limits[1] + ANGLE_PAD, *ends)
        else:
            lo, hi = _padded(np.array(ends))
    top = max(float(times.max()), 1.0) if len(times) else 1.0
    bottom, ceiling = -0.03 * top, 1.05 * top
    regions = [r for r in regions if r.bbox[0] / axis.scale <= hi and r.bbox[1] / axis.scale >= lo]
    free = sorted((max(r.bbox[0] / axis.scale, lo), min(r.bbox[1] / axis.scale, hi)) for r in regions)
    gaps = [(a, b) for a, b in zip([lo] + [f[1] for f in free], [f[0] for f in free] + [hi]) if b > a]
    for k, (a, b) in enumerate(gaps):
        axes.axvspan(a, b, color=BLOCKED, zorder=1, label="blocked" if k == 0 else None)
    shown = set()
    spots = []
    for region in regions:
        for edge in region.edges:
            x = edge.start[0] / axis.scale
            if not lo <= x <= hi or (axis.wraps and not edge.contacts and abs(abs(x) - np.pi) <= 1e-9):
                continue  # off the picture, or the seam (drawn as such)
            kind = "contact" if edge.contacts else "region boundary"
            style = {"color": OUTLINE, "linewidth": 1.0} if edge.contacts else {"color": BOUNDARY, "linewidth": 0.8,
                                                                                "linestyle": DASHES}
            axes.axvline(x, zorder=2, label=None if kind in shown else kind, **style)
            shown.add(kind)
        a, b = max(region.bbox[0] / axis.scale, lo), min(region.bbox[1] / axis.scale, hi)
        spots.append(Spot(region.name, area=box(a, bottom, b, ceiling)))
    axes.set_xlim(lo, hi)
    axes.set_ylim(bottom, ceiling)
    return spots


def _draw_seams(axes: Axes, wraps: list[bool]) -> None:
    """Each axis that wraps: ticks at multiples of pi/2, and its seam, at both ends of the
    turn, a thin line in place of the frame there."""
    first = True
    for k, wrapping in enumerate(wraps):
        if not wrapping:
            continue
        if k == 0:
            axes.set_xticks(HALF_TURNS, PI_LABELS)
            lines = [axes.axvline(x, **SEAM) for x in (-np.pi, np.pi)]
            sides = ("left", "right")
        else:
            axes.set_yticks(HALF_TURNS, PI_LABELS)
            lines = [axes.axhline(y, **SEAM) for y in (-np.pi, np.pi)]
            sides = ("bottom", "top")
        for side in sides:
            axes.spines[side].set_visible(False)
        if first:
            lines[0].set_label(SEAM_LABEL)
            first = False


def _wrapped(points: np.ndarray, turns: list[float]) -> list[np.ndarray]:
    """A polyline taken into one turn along each axis with ``turns[k] > 0`` (``[-turn/2, turn/2]``):
    its pieces, a new one wherever it crosses a seam, each ending on the seam it crosses.

    >>> [piece.round(2).tolist() for piece in _wrapped(np.array([[3.0, 0.0], [3.5, 1.0]]), [2 * np.pi, 0])]
    [[[3.0, 0.0], [3.14, 0.28]], [[-3.14, 0.28], [-2.78, 1.0]]]
    """
    if not len(points):
        return []
    turns = np.asarray(turns, float)
    wraps = turns > 0
    period = np.where(wraps, turns, 1.0)

    def cell(x: np.ndarray) -> np.ndarray:
        return np.where(wraps, np.floor((x + period / 2) / period), 0.0)

    def into(x: np.ndarray, which: np.ndarray) -> np.ndarray:
        return np.where(wraps, np.clip(x - which * period, -period / 2, period / 2), x)

    pieces = [[into(points[0], cell(points[0]))]]
    current = cell(points[0])
    for p, q in zip(points[:-1], points[1:]):
        ts = {0.0, 1.0}
        for k in np.flatnonzero(wraps):
            a, b = sorted((cell(p)[k], cell(q)[k]))
            for j in range(int(a) + 1, int(b) + 1):
                t = ((j - 0.5) * period[k] - p[k]) / (q[k] - p[k])
                if 0 < t < 1:
                    ts.add(float(t))
        ts = sorted(ts)
        for ta, tb in zip(ts, ts[1:]):
            start, end = p + ta * (q - p), p + tb * (q - p)
            which = cell((start + end) / 2)
            if np.array_equal(which, current):
                pieces[-1].append(into(end, which))
            else:
                pieces.append([into(start, which), into(end, which)])
                current = which
    return [np.array(piece) for piece in pieces]


def _draw_pieces(axes: Axes, pieces: list[np.ndarray], start: bool = True, end: bool = True) -> None:
    """The path's pieces as :func:`_draw_path` draws a path: each stretch once, a circle at the
    start if ``start``, a square at the end if ``end``."""
    if not pieces:
        return
    lines = [LineString(piece) for piece in pieces if len(piece) > 1]
    lines = [line for line in lines if line.length > 0]
    if lines:
        for k, piece in enumerate(shapely.get_parts(shapely.line_merge(shapely.union_all(lines)))):
            axes.plot(*np.asarray(piece.coords).T, color=PATH, linewidth=1.6, zorder=6,
                      label="path" if k == 0 else None)
    # Whole even on the seam or at the end of an angle's range, where the path may start or end.
    if start:
        axes.plot(*pieces[0][0], marker="o", color=PATH, markersize=6, zorder=7, linestyle="none", label="start",
                  clip_on=False)
    if end:
        axes.plot(*pieces[-1][-1], marker="s", color=PATH, markersize=6, zorder=7, linestyle="none", label="end",
                  clip_on=False)


def _clear_corner(axes: Axes, note: Text, path: np.ndarray, count: int, noun: str = "region") -> None:
    """Move ``note`` to the first corner of the axes where it hides none of the path (the lower
    left if none is clear): a turning pair's path may run along any edge of one turn."""
    trail = LineString(axes.transData.transform(path)) if len(path) > 1 else shapely.Point(
        axes.transData.transform(path)[0]) if len(path) else None
    if trail is None:
        return
    trail = trail.buffer(MARKER_CLEARANCE)
    for x, y, ha, va in ((0.01, 0.015, "left", "bottom"), (0.99, 0.015, "right", "bottom"),
                         (0.01, 0.985, "left", "top"), (0.99, 0.985, "right", "top")):
        note.set(x=x, y=y, horizontalalignment=ha, verticalalignment=va)
        if not trail.intersects(box(*_box_of(note, count, noun).extents)):
            return
    note.set(x=0.01, y=0.015, horizontalalignment="left", verticalalignment="bottom")


def _clearance(pieces: list[np.ndarray], window: tuple[float, float, float, float]) -> np.ndarray:
    """One line through the path's pieces for the labels to keep clear of: from the seam where
    a piece ends out of the window, round it and back in where the next piece starts.

    >>> _clearance([np.array([[0.0, 0.0], [1.0, 0.5]]), np.array([[-1.0, 0.5], [0.0, 0.2]])], (-1, 1, -1, 1)).tolist()
    [[0.0, 0.0], [1.0, 0.5], [3.0, 0.5], [3.0, 3.0], [-3.0, 3.0], [-3.0, 0.5], [-1.0, 0.5], [0.0, 0.2]]
    """
    if not pieces:
        return np.zeros((0, 2))
    x0, x1, y0, y1 = window
    width, height = x1 - x0, y1 - y0
    ring = box(x0 - width, y0 - height, x1 + width, y1 + height).exterior
    corners = np.asarray(ring.coords)[:-1]
    along = np.array([ring.project(shapely.Point(c)) for c in corners])

    def outside(point: np.ndarray) -> np.ndarray:
        """``point`` (on the window's edge) moved straight out onto the ring."""
        x, y = point
        nearest = np.argmin([abs(x - x0), abs(x - x1), abs(y - y0), abs(y - y1)])
        return np.array([(x0 - width, y), (x1 + width, y), (x, y0 - height), (x, y1 + height)][nearest])

    out = [pieces[0]]
    for before, after in zip(pieces, pieces[1:]):
        leave, enter = outside(before[-1]), outside(after[0])
        a, b = ring.project(shapely.Point(leave)), ring.project(shapely.Point(enter))
        # The ring's corners lie in order along it: walk on from where the path leaves to where it comes back.
        walk = corners[(along > a) & (along < b)] if a <= b else np.vstack([corners[along > a], corners[along < b]])
        out.append(np.vstack([leave, *walk, enter]))
        out.append(after)
    return np.vstack(out)


def _stretches(ring: np.ndarray, cut) -> list[np.ndarray]:
    """A closed ring's stretches without the sides for which ``cut(start, end)`` holds."""
    points = ring[:-1]
    n = len(points)
    kept = [not cut(points[i], points[(i + 1) % n]) for i in range(n)]
    if all(kept):
        return [ring]
    first = kept.index(False)
    stretches, current = [], []
    for i in range(first + 1, first + 1 + n):
        i %= n
        if kept[i]:
            current = current or [points[i]]
            current.append(points[(i + 1) % n])
        elif current:
            stretches.append(np.array(current))
            current = []
    if current:
        stretches.append(np.array(current))
    return stretches


def _window(points: np.ndarray, limits: np.ndarray) -> Polygon:
    """The part of the plane to draw: ``points`` padded and widened to the axes' shape, within ``limits``.

    Unbounded regions end at the pair's drawing box, so the window stays inside it.
    """
    (x0, y0), (x1, y1) = points.min(axis=0), points.max(axis=0)
    pad = PAD * max(x1 - x0, y1 - y0, 1.0)
    x0, y0, x1, y1 = x0 - pad, y0 - pad, x1 + pad, y1 + pad
    grow_x = max(ASPECT * (y1 - y0) - (x1 - x0), 0.0) / 2
    grow_y = max((x1 - x0) / ASPECT - (y1 - y0), 0.0) / 2
    (lx0, ly0), (lx1, ly1) = limits.min(axis=0), limits.max(axis=0)
    return box(max(x0 - grow_x, lx0), max(y0 - grow_y, ly0), min(x1 + grow_x, lx1), min(y1 + grow_y, ly1))


def _padded(values: np.ndarray) -> tuple[float, float]:
    lo, hi = float(values.min()), float(values.max())
    pad = max(PAD * (hi - lo), 1.0)
    return lo - pad, hi + pad


def _zero_width(axes, region, ends: np.ndarray, spots: list, window: tuple[float, float, float, float]) -> None:
    """Draw a region without area (a segment or a point) and label it if its middle is shown."""
    x0, y0, x1, y1 = window
    style = {"linewidth": 4, "solid_capstyle": "butt"} if region.dimension == 1 else {"marker": "o"}
    first = all(spot.area is not None for spot in spots)
    axes.plot(*ends.T, color=CHANNEL, zorder=4, label="zero-width region" if first else None, **style)
    middle = ends.mean(axis=0)
    if x0 <= middle[0] <= x1 and y0 <= middle[1] <= y1:
        spots.append(Spot(region.name, channel=(tuple(ends[0]), tuple(ends[1]))))


def _extremes(vertices: np.ndarray) -> np.ndarray:
    """The two ends of a degenerate (segment or point) region's vertex list."""
    direction = vertices[-1] - vertices[0] if len(vertices) > 1 else np.zeros(2)
    if len(vertices) > 2:
        spread = vertices - vertices[0]
        direction = spread[np.argmax(np.linalg.norm(spread, axis=1))]
    order = np.argsort(vertices @ direction)
    return vertices[[order[0], order[-1]]]


def _rings(geometry) -> list:
    rings = []
    for polygon in shapely.get_parts(geometry):
        rings.append(polygon.exterior)
        rings.extend(polygon.interiors)
    return rings


def _combination(row: np.ndarray, names: tuple[str, ...]) -> str:
    """A linear combination as text: ``[-1, 1, 0]`` over (xp, xb1, yb1) is ``xb1 - xp``."""
    terms = []
    for weight, name in sorted(zip(row, names), key=lambda t: -t[0]):
        if abs(weight) < 1e-12:
            continue
        size = "" if abs(abs(weight) - 1) < 1e-12 else f"{abs(weight):g} "
        sign = "-" if weight < 0 else "+"
        terms.append((sign, f"{size}{name}"))
    if not terms:
        return "0"
    text = ("-" if terms[0][0] == "-" else "") + terms[0][1]
    return text + "".join(f" {sign} {term}" for sign, term in terms[1:])
