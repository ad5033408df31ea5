"""A mechanism drawn before it moves: ``cspace draw FILE -o OUT.svg|html|png``.

The drawing is the mechanism at its initial configuration with the marks of :mod:`viz.marks`:
parts filled in their colours and named, pivots and angle marks, axes (dashed) and limits,
forces (red) and input motions (blue) as arrows, each named. SVG and HTML are written here,
from the marks alone (no renderer: the core install draws them); PNG by matplotlib
(:mod:`viz.drawing_png`, the viz extra).

The SVG is the browser viewer's too (:mod:`viz.web` plays it): the world seen down the z axis,
y up (a group flipped by ``scale(1 -1)``); each part's outline in its own frame, placed by its
``matrix``; its pivots and angle marks in a group placed the same way (they turn with it); the
marks a part carries (axes, limits, arrows, labels) in groups that say how they follow it
(``data-carry``: the part's index in drawing order, the anchor in its frame, the carry's 2x2
matrix by rows). Lengths are rounded to a hundred-thousandth of the mechanism's size.

    >>> from cspace import load
    >>> from cspace.viz.marks import mechanism_marks
    >>> svg = drawing_svg(mechanism_marks(load("fixtures/feeder.toml")), standalone=True)
    >>> svg.startswith("<svg"), svg.count('class="part"'), svg.count('class="pivot"')
    (True, 7, 1)
"""

from __future__ import annotations

import html
from collections import defaultdict
from pathlib import Path

import numpy as np

from cspace.io.outputs import write_text
from cspace.model.mechanism import Mechanism

from .colors import INK, MARK_COLORS
from .marks import Carry, Label, Marks, mechanism_marks
from .output import check_output, check_size
from .sheet import DASH, FONT, OUTLINE, RING, SHAFT, SIZE, STROKE, decimals, framed, num

FORMATS = (".svg", ".html", ".png")
KEY = (("pivot", "a pivot (a dot) and its angle mark: the line turns with the part"), ("pin", "a linkage pin"),
       ("axis", "a translation's axis (dashed)"), ("limit", "a limit: a bar across the axis, or the arc an angle "
                                                          "mark sweeps"),
       ("force", "a force: gravity, a spring, a torque, a load (red)"), ("input", "an input motion (blue)"))


def check_drawing(path: str | Path, *, size: tuple[int, int], field: str) -> None:
    """Raise unless a drawing can be written to ``path`` (.svg, .html or .png) at ``size``;
    ``field`` names the path in the message (``-o`` on the command line)."""
    check_output(path, FORMATS, field=field)
    check_size(size)


def write_drawing(mechanism: Mechanism, path: str | Path, *, size: tuple[int, int] = SIZE) -> tuple[int, int]:
    """Draw ``mechanism`` at its initial configuration to ``path`` (.svg, .html or .png, by its
    suffix; PNG needs matplotlib), as large as fits in ``size`` pixels; returns its size in pixels."""
    check_drawing(path, size=size, field="path")
    marks = mechanism_marks(mechanism)
    suffix = Path(path).suffix.lower()
    if suffix == ".png":
        from .drawing_png import write_png

        return write_png(marks, path, size=size)
    write_text(path, drawing_svg(marks, size=size, standalone=True) + "\n" if suffix == ".svg"
               else drawing_page(marks, size=size))
    return framed(marks, size)[1]


def drawing_svg(marks: Marks, *, size: tuple[int, int] = SIZE, standalone: bool = False) -> str:
    """The drawing as an ``<svg>`` element as large as fits in ``size`` CSS pixels at the shape of
    what it draws, labels included; ``standalone`` adds the SVG namespace (a file of its own;
    inline in HTML it needs none)."""
    places = decimals(marks.mechanism)
    box, (width, height) = framed(marks, size)
    px = box[2] / width
    namespace = ' xmlns="http://www.w3.org/2000/svg"' if standalone else ""
    x, y, w, h = (num(v, places) for v in box)
    return (f'<svg{namespace} class="cspace-drawing" width="{width}" height="{height}" viewBox="{x} {y} {w} {h}" '
            f'role="img" aria-label="{html.escape(marks.mechanism.name)} at its initial configuration">\n'
            f'<rect x="{x}" y="{y}" width="{w}" height="{h}" fill="#fcfcfc"/>\n'
            f'<g transform="scale(1 -1)">\n{scene_groups(marks, px=px, places=places, text=True)}\n</g>\n</svg>')


def drawing_page(marks: Marks, *, size: tuple[int, int] = SIZE) -> str:
    """The drawing in a self-contained HTML page, with a key to its parts and marks and the name
    of every force and input motion."""
    mechanism = marks.mechanism
    parts = "\n".join(f'<li><span class="swatch" style="background:{o.color}"></span>{html.escape(o.part)}</li>'
                      for o in marks.outlines)
    key = "\n".join(f'<li><span class="mark {kind}"></span>{html.escape(text)}</li>' for kind, text in KEY)
    arrows = "\n".join(f"<li>{html.escape(a.title)}</li>" for a in marks.arrows) or "<li>none</li>"
    name = html.escape(mechanism.name)
    return _PAGE.format(name=name, style=_STYLE, svg=drawing_svg(marks, size=size), parts=parts, key=key,
                        arrows=arrows)


def scene_groups(marks: Marks, *, px: float, places: int, text: bool) -> str:
    """The SVG groups of the drawing, for a y-up group: outlines, carried marks, pivots (see the
    module); ``px`` is the plane's length of a CSS pixel; ``text`` writes the labels (the viewer
    names a part when the pointer is over it instead)."""
    index = {o.part: k for k, o in enumerate(marks.outlines)}
    out = [_part_group(k, o.part, o.slices, o.pose, o.color, px, places) for k, o in enumerate(marks.outlines)]
    carried: dict[Carry, list[str]] = defaultdict(list)
    for stroke in marks.strokes:
        dashes = f' stroke-dasharray="{num(DASH[0] * px, places)} {num(DASH[1] * px, places)}"' \
            if stroke.kind == "axis" else ""
        carried[stroke.carry].append(
            f'<path class="{stroke.kind}" data-coordinate="{html.escape(stroke.coordinate)}" '
            f'd="{_lines(stroke.lines, places)}" fill="none" stroke="{INK}" stroke-width="{num(STROKE * px, places)}"'
            f'{dashes}/>')
    for arrow in marks.arrows:
        color = MARK_COLORS[arrow.kind]
        carried[arrow.carry].append(
            f'<g class="arrow {arrow.kind}" data-coordinate="{html.escape(arrow.coordinate)}" fill="{color}" '
            f'stroke="{color}"><title>{html.escape(arrow.title)}</title>'
            f'<path class="shaft" d="{_lines([arrow.points], places)}" fill="none" '
            f'stroke-width="{num(SHAFT * px, places)}"/>'
            f'<path class="head" d="{path_data([arrow.head], places)}" stroke="none"/></g>')
    if text:
        for label in marks.labels:
            carried[label.carry].append(_text(label, px, places))
    for carry, drawn in carried.items():
        out.append(f'<g class="carried" data-carry="{index[carry.part]} '
                   f'{" ".join(num(v, 9) for v in (*carry.anchor, *carry.matrix))}">{"".join(drawn)}</g>')
    for outline in marks.outlines:
        pivots = [p for p in marks.pivots if p.part == outline.part]
        if pivots:
            out.append(_pivot_group(index[outline.part], outline.pose, pivots, px, places))
    return "\n".join(out)


def _part_group(index: int, name: str, slices, pose: np.ndarray, color: str, px: float, places: int) -> str:
    """A part's ``<g>``: its outline once, in its own frame, placed by ``pose``."""
    paths = "".join(f'<path d="{path_data(loops, places)}"/>' for loops in slices)
    return (f'<g class="part" data-index="{index}" data-part="{html.escape(name)}" fill="{color}" '
            f'fill-opacity="0.85" fill-rule="evenodd" stroke="{INK}" stroke-width="{num(OUTLINE * px, places)}" '
            f'stroke-linejoin="round" transform="{_matrix(pose)}"><title>{html.escape(name)}</title>{paths}</g>')


def _pivot_group(index: int, pose: np.ndarray, pivots, px: float, places: int) -> str:
    """A part's pivots and pins, and its angle marks, in its own frame: they turn with it."""
    inverse = np.linalg.inv(pose)

    def local(point) -> tuple[str, str]:
        x, y, _ = inverse @ (point[0], point[1], 1.0)
        return num(x, places), num(y, places)

    radius = num(4 * px, places)
    drawn = []
    for pivot in pivots:
        x, y = local(pivot.at)
        kind = "pin" if pivot.mark is None else "pivot"
        if pivot.mark is not None:
            mx, my = local(pivot.mark)
            drawn.append(f'<path class="angle-mark" data-name="{html.escape(pivot.name)}" d="M{x} {y}L{mx} {my}" '
                         f'stroke="{INK}" stroke-width="{num(STROKE * px, places)}"/>')
        fill = INK if kind == "pivot" else "#ffffff"
        drawn.append(f'<circle class="{kind}" data-name="{html.escape(pivot.name)}" cx="{x}" cy="{y}" r="{radius}" '
                     f'fill="{fill}" stroke="{INK}" stroke-width="{num(RING * px, places)}"/>')
    return f'<g class="pivots" data-index="{index}" transform="{_matrix(pose)}">{"".join(drawn)}</g>'


def _text(label: Label, px: float, places: int) -> str:
    """A label, upright in the y-up group, over a white halo."""
    x, y = (num(v, places) for v in label.at)
    color = INK if label.kind == "part" else MARK_COLORS[label.kind]
    weight = ' font-weight="600"' if label.kind == "part" else ""
    return (f'<text class="label" data-kind="{label.kind}" transform="translate({x} {y}) scale(1 -1)" font-size="'
            f'{num(FONT * px, places)}" font-family="system-ui, sans-serif" text-anchor="{label.align}" '
            f'dominant-baseline="central" fill="{color}"{weight} stroke="#ffffff" stroke-width="{num(3 * px, places)}"'
            f' paint-order="stroke">{html.escape(label.text)}</text>')


def path_data(loops, places: int) -> str:
    """SVG path data of closed loops. Filled even-odd, nesting alternates as it does for the
    tracer (:func:`cspace.model.geometry.nesting_depths`): a loop in a hole is an island, drawn
    solid, a loop in that a hole again."""
    return "".join("M" + " ".join(f"{num(x, places)} {num(y, places)}" for x, y in loop) + "Z" for loop in loops)


def _lines(lines, places: int) -> str:
    """SVG path data of open polylines."""
    return "".join("M" + " ".join(f"{num(x, places)} {num(y, places)}" for x, y in line) for line in lines)


def _matrix(pose: np.ndarray) -> str:
    return "matrix(" + " ".join(num(v, 9) for v in (pose[0, 0], pose[1, 0], pose[0, 1], pose[1, 1], pose[0, 2],
                                                    pose[1, 2])) + ")"


_STYLE = """\
body { margin: 16px; font: 14px/1.4 system-ui, sans-serif; color: #222; background: #fff; }
h1 { font-size: 18px; margin: 0 0 8px; }
svg { display: block; max-width: 100%; height: auto; outline: 1px solid #ccc; }
ul { list-style: none; padding: 0; }
#parts { columns: 3; }
.swatch, .mark { display: inline-block; width: 12px; height: 12px; margin-right: 6px; vertical-align: -1px; }
.swatch { border: 1px solid #333; }
.mark.pivot { border-radius: 50%; background: #303030; }
.mark.pin { border-radius: 50%; border: 2px solid #303030; width: 8px; height: 8px; }
.mark.axis { height: 0; border-top: 2px dashed #303030; vertical-align: 3px; }
.mark.limit { width: 2px; background: #303030; margin: 0 11px 0 5px; }
.mark.force { height: 3px; background: #b2182b; vertical-align: 3px; }
.mark.input { height: 3px; background: #2166ac; vertical-align: 3px; }
"""

_PAGE = """\
<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{name}: cspace drawing</title>
<style>
{style}</style>
</head>
<body>
<h1>{name}</h1>
{svg}
<h2>Parts</h2>
<ul id="parts">
{parts}
</ul>
<h2>Forces and input motions</h2>
<ul id="arrows">
{arrows}
</ul>
<h2>Marks</h2>
<ul id="key">
{key}
</ul>
</body>
</html>
"""
