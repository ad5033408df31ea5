"""The drawing of :mod:`viz.drawing` as a PNG, by matplotlib (the viz extra): the same marks,
framed the same way, at the same pixel size, in the same colours.

    >>> import tempfile, pathlib
    >>> from cspace import load
    >>> from cspace.viz.marks import mechanism_marks
    >>> out = pathlib.Path(tempfile.mkdtemp()) / "feeder.png"
    >>> write_png(mechanism_marks(load("fixtures/feeder.toml")), out, size=(400, 300))
    (400, 120)
"""

from __future__ import annotations

from pathlib import Path

from matplotlib import patheffects
from matplotlib.figure import Figure
from matplotlib.patches import Circle, PathPatch
from matplotlib.patches import Polygon as PolygonPatch
from matplotlib.path import Path as MplPath

from cspace.io.outputs import replaced

from .colors import INK, MARK_COLORS
from .marks import Marks
from .sheet import DASH, FONT, OUTLINE, RING, SHAFT, STROKE, framed

DPI = 100
POINT = 72 / DPI  # points per pixel
ALIGN = {"start": "left", "middle": "center", "end": "right"}


def write_png(marks: Marks, path: str | Path, *, size: tuple[int, int]) -> tuple[int, int]:
    """Write the drawing to ``path`` (PNG) as large as fits in ``size`` pixels; returns its size.
    The same marks give the same bytes."""
    (x, y, width, height), pixels = framed(marks, size)
    px = width / pixels[0]
    figure = Figure(figsize=(pixels[0] / DPI, pixels[1] / DPI), dpi=DPI, facecolor="#fcfcfc")
    axes = figure.add_axes((0, 0, 1, 1))
    axes.set_axis_off()
    axes.set_xlim(x, x + width)
    axes.set_ylim(-y - height, -y)
    for outline in marks.outlines:
        loops = outline.placed()
        vertices = [point for loop in loops for point in (*loop, loop[0])]
        codes = [code for loop in loops for code in
                 (MplPath.MOVETO, *[MplPath.LINETO] * (len(loop) - 1), MplPath.CLOSEPOLY)]
        axes.add_patch(PathPatch(MplPath(vertices, codes), facecolor=outline.color, alpha=0.85, edgecolor=INK,
                                 linewidth=OUTLINE * POINT))
    for stroke in marks.strokes:
        style = (0, tuple(d / STROKE for d in DASH)) if stroke.kind == "axis" else "solid"
        for line in stroke.lines:
            axes.plot(line[:, 0], line[:, 1], color=INK, linewidth=STROKE * POINT, linestyle=style)
    for arrow in marks.arrows:
        color = MARK_COLORS[arrow.kind]
        axes.plot(arrow.points[:, 0], arrow.points[:, 1], color=color, linewidth=SHAFT * POINT)
        axes.add_patch(PolygonPatch(arrow.head, closed=True, facecolor=color, edgecolor="none"))
    for pivot in marks.pivots:
        if pivot.mark is not None:
            axes.plot(*zip(pivot.at, pivot.mark), color=INK, linewidth=STROKE * POINT)
        axes.add_patch(Circle(pivot.at, 4 * px, facecolor=INK if pivot.mark is not None else "#ffffff",
                              edgecolor=INK, linewidth=RING * POINT, zorder=3))
    halo = [patheffects.withStroke(linewidth=3 * POINT, foreground="#ffffff")]
    for label in marks.labels:
        axes.text(*label.at, label.text, ha=ALIGN[label.align], va="center", fontsize=FONT * POINT,
                  color=INK if label.kind == "part" else MARK_COLORS[label.kind],
                  fontweight="bold" if label.kind == "part" else "normal", path_effects=halo, zorder=4)
    with replaced(path) as temporary:  # whole or not at all
        figure.savefig(temporary, dpi=DPI, metadata={"Software": None}, facecolor=figure.get_facecolor())
    return pixels
