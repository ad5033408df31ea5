"""The sheet a drawing of a mechanism is laid out on (:mod:`viz.drawing`, :mod:`viz.drawing_png`,
the browser viewer of :mod:`viz.web`): the box of the plane it shows, its size in pixels, the
sizes of its lines and text, and how its numbers are written.

    >>> fitted_box((0, 0), (10, 5), (400, 400))
    (-0.4, -7.9, 10.8, 10.8)
"""

from __future__ import annotations

import math

import numpy as np

from cspace.model.mechanism import Mechanism

from .marks import Marks
from .output import PIXELS

SIZE = (800, 600)  # the box a drawing fits in, in pixels
MARGIN = 0.04  # of the drawing's larger side, around everything drawn
FONT = 12.0  # label text, CSS pixels
# Widths in CSS pixels: outlines, axes and limits, arrows; a pivot's ring.
OUTLINE, STROKE, SHAFT, RING = 1.0, 1.2, 2.0, 1.5
DASH = (6.0, 4.0)  # an axis's dashes and gaps, CSS pixels


def framed(marks: Marks, size: tuple[int, int]) -> tuple[tuple[float, float, float, float], tuple[int, int]]:
    """The viewBox of a drawing of the marks and its size in pixels: the largest that fits in
    ``size`` at the shape of the marks and (roughly: a character is 0.6 of the font wide) their
    labels, with a margin."""
    x0, y0, x1, y1 = marks.bounds()
    lo, hi = np.array([x0, y0]), np.array([x1, y1])
    px = fitted_box(lo, hi, size)[2] / size[0]
    shift = {"start": 1.0, "middle": 0.0, "end": -1.0}
    for label in marks.labels:
        half = np.array([0.3 * FONT * len(label.text), FONT / 2]) * px
        centre = np.add(label.at, (shift[label.align] * half[0], 0.0))
        lo, hi = np.minimum(lo, centre - half), np.maximum(hi, centre + half)
    extent = (hi - lo) * (1 + 2 * MARGIN)
    scale = min(size[0] / extent[0], size[1] / extent[1])
    pixels = (max(PIXELS[0], round(extent[0] * scale)), max(PIXELS[0], round(extent[1] * scale)))
    return fitted_box(lo, hi, pixels), pixels


def fitted_box(lo, hi, size: tuple[int, int]) -> tuple[float, float, float, float]:
    """The SVG viewBox (x, y, width, height; y down, so the plane's y is negated) holding the box
    from ``lo`` to ``hi`` with a margin, widened to the drawing's aspect ratio so one unit is as
    wide as high."""
    lo, hi = np.array(lo, float), np.array(hi, float)
    pad = MARGIN * float((hi - lo).max())
    lo, hi = lo - pad, hi + pad
    width, height = float(hi[0] - lo[0]), float(hi[1] - lo[1])
    aspect = size[0] / size[1]
    if width / height < aspect:
        lo[0], width = lo[0] - (height * aspect - width) / 2, height * aspect
    else:
        lo[1], height = lo[1] - (width / aspect - height) / 2, width / aspect
    return float(lo[0]), -float(lo[1] + height), width, height


def decimals(mechanism: Mechanism) -> int:
    """Decimals for lengths: a hundred-thousandth of the mechanism's size or finer."""
    return max(0, 5 - math.floor(math.log10(mechanism.size)))


def num(value: float, places: int) -> str:
    """Up to ``places`` decimals, no trailing zeros, never -0."""
    text = f"{value:.{places}f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "", "-") else text
