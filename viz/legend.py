"""A picture's legend: a swatch of each part colour beside the names of the parts it colours.

Parts of one colour share an entry (the fixed parts are all grey; moving parts share one
when the palette runs out), in the mechanism's order. The entries are laid out in columns,
filled downwards, their sizes measured as the renderer draws the names
(:class:`~viz.text.TextMetrics`). :func:`spot` looks for a corner of the picture, below
the caption, where the legend covers nothing of the mechanism at any framed configuration,
else one where it covers no moving part; where there is none, the scene gives the legend a
band of its own along an edge, which the camera keeps the moving parts out of
(:class:`~viz.scene.Scene`). :func:`rectangle` draws a swatch or the backing over the scene.

    >>> from cspace import load
    >>> [(e.color, e.label) for e in legend_entries(load("fixtures/feeder.toml"))][:3]
    [('#bab0ac', 'frame'), ('#4e79a7', 'driver'), ('#f28e2b', 'link')]
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np
import shapely
from vtkmodules.vtkCommonCore import vtkPoints
from vtkmodules.vtkCommonDataModel import vtkCellArray, vtkPolyData
from vtkmodules.vtkRenderingCore import vtkActor2D, vtkPolyDataMapper2D

from cspace.model.mechanism import Mechanism

from .colors import part_colors
from .text import TextMetrics

# Sizes as shares of the font size: the space round the entries, between a swatch and its
# names, between rows and between columns; a swatch's side as a share of a line's height.
PAD = 0.4
GAP = 0.4
ROW_GAP = 0.2
COLUMN_GAP = 1.0
SWATCH = 0.8


@dataclass(frozen=True)
class Entry:
    """A colour (``#rrggbb``) and the names of the parts it colours."""

    color: str
    label: str


@dataclass(frozen=True)
class Layout:
    """The legend's entries laid out at one font size in ``columns`` columns: its size in
    pixels, and where each entry's swatch and names go (left, top, from the legend's top left)."""

    entries: tuple[Entry, ...]
    font: int
    columns: int
    width: int
    height: int
    swatch: int
    swatches: tuple[tuple[int, int], ...]
    labels: tuple[tuple[int, int], ...]


@dataclass(frozen=True)
class Placed:
    """A layout at ``(left, top)`` in the picture's pixels (columns, rows from its top left)."""

    layout: Layout
    left: int
    top: int

    @property
    def box(self) -> tuple[int, int, int, int]:
        """``(left, top, right, bottom)``: the pixels it covers, right and bottom excluded."""
        return (self.left, self.top, self.left + self.layout.width, self.top + self.layout.height)

    def swatch_boxes(self) -> list[tuple[int, int, int, int]]:
        """Each entry's swatch, as :attr:`box` gives the legend's."""
        side = self.layout.swatch
        return [(self.left + x, self.top + y, self.left + x + side, self.top + y + side)
                for x, y in self.layout.swatches]


def legend_entries(mechanism: Mechanism) -> list[Entry]:
    """One entry per part colour, in the order the parts first show it, naming its parts."""
    named: dict[str, list[str]] = {}
    for name, color in part_colors(mechanism).items():
        named.setdefault(color, []).append(name)
    return [Entry(color, ", ".join(names)) for color, names in named.items()]


def layout(entries: Sequence[Entry], metrics: TextMetrics, font: int, columns: int) -> Layout:
    """The entries in ``columns`` columns at font size ``font``, filled downwards."""
    line = metrics.line_height(font)
    pad, gap, row_gap, column_gap = (max(1, round(share * font)) for share in (PAD, GAP, ROW_GAP, COLUMN_GAP))
    side = max(2, round(SWATCH * line))
    rows = math.ceil(len(entries) / columns)
    swatches, labels, left = [], [], pad
    for column in range(columns):
        held = entries[column * rows:(column + 1) * rows]
        for row, entry in enumerate(held):
            top = pad + row * (line + row_gap)
            swatches.append((left, top + (line - side) // 2))
            labels.append((left + side + gap, top))
        left += side + gap + max(metrics.size(e.label, font)[0] for e in held) + column_gap
    width = left - column_gap + pad
    height = 2 * pad + rows * line + (rows - 1) * row_gap
    return Layout(tuple(entries), font, columns, width, height, side, tuple(swatches), tuple(labels))


def layouts(entries: Sequence[Entry], metrics: TextMetrics, font: int) -> Iterator[Layout]:
    """Every way to lay the entries out at font size ``font``: one column, two, ..."""
    for columns in range(1, len(entries) + 1):
        if math.ceil(len(entries) / columns) * (columns - 1) < len(entries):  # no column left empty
            yield layout(entries, metrics, font, columns)


def corners(found: Layout, room: tuple[int, int, int, int]) -> list[Placed]:
    """The layout in each corner of ``room`` (left, top, right, bottom, in pixels) it fits in:
    top right, top left, bottom right, bottom left."""
    left, top, right, bottom = room
    if found.width > right - left or found.height > bottom - top:
        return []
    x, y = right - found.width, bottom - found.height
    return [Placed(found, x, top), Placed(found, left, top), Placed(found, x, y), Placed(found, left, y)]


def spot(choices: Sequence[Layout], room: tuple[int, int, int, int], moving: np.ndarray,
         fixed: shapely.STRtree) -> Placed | None:
    """The first place, over the layouts in order and each one's corners in ``room``, that
    covers none of the mechanism: no moving part's box (``moving``, rows of left, top, right,
    bottom in pixels) and no face of ``fixed`` (the fixed parts' faces as drawn, in pixels);
    else the first that covers no moving part; None if every place covers one."""
    places = [place for found in choices for place in corners(found, room)]
    clear = [place for place in places if not _covers(place.box, moving)]
    return next((p for p in clear if not len(fixed.query(shapely.box(*p.box), predicate="intersects"))),
                clear[0] if clear else None)


def _covers(box: tuple[int, int, int, int], moving: np.ndarray) -> bool:
    """Whether the box overlaps any of the boxes ``moving`` (by more than their edges)."""
    left, top, right, bottom = box
    return bool(np.any((moving[:, 0] < right) & (moving[:, 2] > left) & (moving[:, 1] < bottom)
                       & (moving[:, 3] > top)))


def rectangle(box: tuple[int, int, int, int], height: int, rgb: tuple[float, float, float],
              opacity: float = 1.0) -> vtkActor2D:
    """An actor filling ``box`` (left, top, right, bottom, as :attr:`Placed.box`) of a picture
    ``height`` pixels high, over the scene, in colour ``rgb`` (0 to 1 each)."""
    left, top, right, bottom = box
    points = vtkPoints()
    for x, y in ((left, height - bottom), (right, height - bottom), (right, height - top), (left, height - top)):
        points.InsertNextPoint(x, y, 0.0)  # the window's pixels count up from its bottom
    cells = vtkCellArray()
    cells.InsertNextCell(4, [0, 1, 2, 3])
    data = vtkPolyData()
    data.SetPoints(points)
    data.SetPolys(cells)
    mapper = vtkPolyDataMapper2D()
    mapper.SetInputData(data)
    actor = vtkActor2D()
    actor.SetMapper(mapper)
    actor.GetProperty().SetColor(rgb)
    actor.GetProperty().SetOpacity(opacity)
    return actor
