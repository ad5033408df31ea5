"""Pictures of a pair's configuration space, like Figure 5 of the paper.

Blocked space is shaded and outlined: its outline is where the parts touch. Region
boundaries that are not contacts (those that only keep regions convex) are dashed.
Each region is labelled with its name (``r1``...) where the label fits; a zero-width
channel (a region of dimension 1, where a part exactly fits) is a thick line. The
traced path is drawn over it all, from a circle at its start to a square at its end.
A 2-D pair space is drawn in its own coordinates, e.g. ``(xb1 - xp, yb1)`` for the
feeder's piston and first block; a 1-D one with its coordinate across and input time
up. The legend sits outside the axes so it never hides a region.

    >>> from cspace import analyze, load, trace
    >>> figure = pair_figure(trace(analyze(load("fixtures/feeder.toml")), until=3), "piston", "block1")
    >>> [axes.get_xlabel() for axes in figure.axes], figure.axes[0].get_title()
    (['xb1 - xp'], 'feeder: configuration space of piston/block1')
"""

from __future__ import annotations

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

from cspace import Analysis, PairSpace, Trace
from cspace.errors import ModelError

from .labels import Spot, place_labels
from .output import check_output

FORMATS = (".png", ".svg", ".pdf")
BLOCKED = "#c9c9c9"
OUTLINE = "#5a5a5a"
BOUNDARY = "#404040"
LABEL = "#202020"
PATH = "#d62728"
CHANNEL = "#1f77b4"
DASHES = (0, (4, 3))
PAD = 0.25
ASPECT = 4 / 3
SIZE = (7.2, 4.8)
DPI = 150
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


def pair_figure(trace: Trace, part_a: str, part_b: str) -> Figure:
    """A matplotlib figure of the pair's configuration space with the traced path over it."""
    pair = find_pair(trace.analysis, part_a, part_b)
    mechanism = trace.mechanism
    columns = [mechanism.coordinate_index[c] for c in pair.coordinates]
    samples = trace.samples()
    path = np.array([pair.matrix @ q[columns] for _, _, q in samples]).reshape(-1, pair.dimension)
    figure = Figure(figsize=SIZE, dpi=DPI, layout="constrained")
    axes = figure.add_subplot()
    names = [_combination(row, pair.coordinates) for row in pair.matrix]
    if pair.dimension == 2:
        spots = _draw_plane(axes, pair, path)
        axes.set_ylabel(names[1])
    else:
        path = np.column_stack([path[:, 0], [time for time, _, _ in samples]])
        spots = _draw_line(axes, pair, path)
        axes.set_ylabel("time (s)")
    _draw_path(axes, path)
    axes.set_xlabel(names[0])
    axes.set_title(f"{mechanism.name}: configuration space of {pair.name}")
    figure.legend(*axes.get_legend_handles_labels(), loc="outside right upper", fontsize="small")
    if pair.imposes_nothing:
        _note(axes, "one region: these parts never block each other")
    placed = len(axes.texts)
    left_out = len(place_labels(axes, spots, path, fontsize=9, color=LABEL))
    if left_out:
        note = _note(axes, "")
        # The note goes where the labels are already; labels under it give way to it.
        for label in axes.texts[placed:-1]:
            if label.get_window_extent().overlaps(_box_of(note, left_out + 1)):
                label.remove()
                left_out += 1
        note.set_text(_too_narrow(left_out))
    return figure


def plot_pair(trace: Trace, part_a: str, part_b: str, path: str | Path) -> None:
    """Write :func:`pair_figure` to ``path`` (.png, .svg or .pdf); the same trace gives the same bytes."""
    check_output(path, FORMATS, field="path")
    suffix = Path(path).suffix.lower()
    with matplotlib.rc_context({"svg.hashsalt": "cspace"}):
        pair_figure(trace, part_a, part_b).savefig(path, metadata=METADATA[suffix])


def _note(axes: Axes, text: str) -> Text:
    """A remark in the lower left corner of the axes."""
    note = axes.text(0.01, 0.015, text, transform=axes.transAxes, fontsize="small", color=LABEL, zorder=8,
                     bbox={"boxstyle": "square,pad=0.2", "facecolor": "white", "edgecolor": "none", "alpha": 0.8})
    note.set_in_layout(False)
    return note


def _too_narrow(count: int) -> str:
    return f"{count} region{'s' * (count > 1)} too narrow to label here"


def _box_of(note: Text, count: int) -> Bbox:
    """Where ``note`` will be once it says that at most ``count`` regions went unlabelled."""
    note.set_text(_too_narrow(count))
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
            ends = _extremes(region.vertices)
            style = {"linewidth": 4, "solid_capstyle": "butt"} if region.dimension == 1 else {"marker": "o"}
            first = all(spot.area is not None for spot in spots)
            axes.plot(*ends.T, color=CHANNEL, zorder=4, label="zero-width region" if first else None, **style)
            middle = ends.mean(axis=0)
            if x0 <= middle[0] <= x1 and y0 <= middle[1] <= y1:
                spots.append(Spot(region.name, channel=(tuple(ends[0]), tuple(ends[1]))))
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


def _draw_path(axes: Axes, points: np.ndarray) -> None:
    """The path as a line with a circle at its start and a square at its end.

    A path that runs back over itself is drawn once per stretch, so its colour is even.
    """
    if not len(points):
        return
    line = LineString(points) if len(points) > 1 else LineString()
    if line.length > 0:
        pieces = shapely.get_parts(shapely.line_merge(shapely.union_all(line)))
        for k, piece in enumerate(pieces):
            axes.plot(*np.asarray(piece.coords).T, color=PATH, linewidth=1.6, zorder=6,
                      label="path" if k == 0 else None)
    axes.plot(*points[0], marker="o", color=PATH, markersize=6, zorder=7, linestyle="none", label="start")
    axes.plot(*points[-1], marker="s", color=PATH, markersize=6, zorder=7, linestyle="none", label="end")


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
