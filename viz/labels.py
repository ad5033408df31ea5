"""Region labels on a matplotlib figure, placed only where they can be read.

Each label goes at the point of its region farthest from the region's edges and from
the path drawn over it (shapely's ``polylabel``, worked out in screen pixels, so the
axes' scales do not matter). A region with no area (a zero-width channel, drawn as a
thick line) gets its label beside its middle, across the line first. A label that would cross its region's edge, the path or another
label is left out (the caller says how many were), and so is one that would cover
text already on the axes.

    >>> from matplotlib.figure import Figure
    >>> from shapely.geometry import box
    >>> axes = Figure(figsize=(4, 3)).add_subplot()
    >>> _ = axes.set(xlim=(0, 10), ylim=(0, 10))
    >>> place_labels(axes, [Spot("wide", box(0, 0, 8, 10)), Spot("thin", box(8, 0, 8.05, 10))], [])
    ['thin']
    >>> [text.get_text() for text in axes.texts]
    ['wide']
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import shapely
import shapely.ops
from matplotlib.axes import Axes
from shapely.geometry import LineString, Polygon, box

# Clear space kept around a label's text, in pixels.
PAD = 2.0
# Half the width of a channel's line (4 points at 150 dpi), with a little air, in pixels.
CHANNEL_WIDTH = 6.0


@dataclass(frozen=True)
class Spot:
    """Where a region's label may go: inside ``area``, or beside ``channel`` (its two ends), in data coordinates."""

    name: str
    area: Polygon | None = None
    channel: tuple[tuple[float, float], tuple[float, float]] | None = None

    def __repr__(self) -> str:
        where = "area" if self.area is not None else f"channel={self.channel!r}"
        return f"Spot({self.name!r}, {where})"


def place_labels(axes: Axes, spots: Sequence[Spot], path: np.ndarray, **style) -> list[str]:
    """Write each spot's name where it fits, in ``spots`` order, clear of text already there; returns the names left out.

    ``path`` (n, 2) data points drawn as a line that labels keep clear of; ``style`` goes to
    :meth:`Axes.text`. Lays the figure out first: call it after everything else is drawn.
    """
    figure = axes.figure
    figure.draw_without_rendering()
    to_screen = axes.transData
    frame = box(*axes.bbox.extents)
    trail = LineString(to_screen.transform(path)) if len(path) > 1 else None
    taken = [box(*text.get_window_extent().extents) for text in axes.texts]
    left_out = []
    for spot in spots:
        text = axes.text(0.0, 0.0, spot.name, ha="center", va="center", zorder=5, **style)
        text.set_in_layout(False)
        extent = text.get_window_extent()
        size = (extent.width / 2 + PAD, extent.height / 2 + PAD)
        if spot.area is not None:
            room = shapely.intersection(Polygon(to_screen.transform(np.asarray(spot.area.exterior.coords))), frame)
            candidates = _inside(room, trail, size)
        else:
            ends = to_screen.transform(np.asarray(spot.channel, float))
            room = frame.difference(LineString(ends).buffer(CHANNEL_WIDTH))
            candidates = _beside(ends, size)
        where = next((p for p in candidates if _fits(p, size, room, trail, taken)), None)
        if where is None:
            text.remove()
            left_out.append(spot.name)
            continue
        text.set_position(to_screen.inverted().transform(where))
        taken.append(_label_box(where, size))
    return left_out


def _inside(room, trail: LineString | None, size: tuple[float, float]) -> list[tuple[float, float]]:
    """The pole of each piece of ``room`` kept clear of the path, biggest piece first."""
    if room.is_empty:
        return []
    clear = room.difference(trail.buffer(size[1])) if trail is not None else room
    pieces = sorted(shapely.get_parts(clear), key=lambda piece: -piece.area)
    return [shapely.ops.polylabel(piece, 0.5).coords[0] for piece in pieces if piece.area > 0]


def _beside(ends: np.ndarray, size: tuple[float, float]) -> list[tuple[float, float]]:
    """Label centres beside the middle of a screen segment: across it both ways, then along it."""
    x, y = ends.mean(axis=0)
    across = (size[0] + CHANNEL_WIDTH + PAD, 0.0)
    along = (0.0, size[1] + CHANNEL_WIDTH + PAD)
    dx, dy = np.abs(ends[1] - ends[0])
    if dx > dy:
        across, along = along, across
    return [(x + across[0], y + across[1]), (x - across[0], y - across[1]),
            (x + along[0], y + along[1]), (x - along[0], y - along[1])]


def _fits(where: tuple[float, float], size: tuple[float, float], room, trail: LineString | None,
          taken: list[Polygon]) -> bool:
    label = _label_box(where, size)
    return (room.contains(label) and not (trail is not None and trail.intersects(label))
            and not any(label.intersects(other) for other in taken))


def _label_box(where: tuple[float, float], size: tuple[float, float]) -> Polygon:
    return box(where[0] - size[0], where[1] - size[1], where[0] + size[0], where[1] + size[1])
