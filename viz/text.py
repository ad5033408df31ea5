"""Text on a rendered picture, measured as the renderer draws it, and broken to fit a width.

:class:`TextMetrics` gives the size in pixels of a text at a font size from VTK's own text
renderer (FreeType), with the properties of the text actor that will draw it, so a text
said to fit does fit. :func:`wrapped` breaks a line where it reads best: after a comma,
else at a gap of three spaces (between a caption's fields), else at a space, else between
two characters; :func:`fitted` wraps a text and takes the largest font size at which it
fits a box, down to a smallest one.

    >>> fits = lambda line: len(line) <= 26  # a character a column
    >>> print("\\n".join(wrapped("gravity: block1 yb1-, block2 yb2-, block3 yb3-", fits)))
    gravity: block1 yb1-,
      block2 yb2-, block3 yb3-
    >>> wrapped("t = 0.50 s   stretch 3 of 26: flight", fits)
    ['t = 0.50 s', '  stretch 3 of 26: flight']
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import vtkmodules.vtkRenderingFreeType  # noqa: F401  (registers FreeType as the text renderer)
from vtkmodules.vtkRenderingCore import vtkTextProperty, vtkTextRenderer

# Where a line may break, best first; after them, between any two characters.
BREAKS = (", ", "   ", " ")
INDENT = "  "  # what a continued line starts with
# The glyphs that reach highest and lowest in a line: a line's full height.
TALLEST = "(|)"


class TextMetrics:
    """Sizes in pixels of text drawn with a text actor's properties (its font, line spacing)
    in a window of ``dpi`` dots per inch, at any font size; each answer is kept."""

    def __init__(self, properties: vtkTextProperty, dpi: int) -> None:
        self._properties = vtkTextProperty()
        self._properties.ShallowCopy(properties)
        self._dpi = dpi
        self._renderer = vtkTextRenderer()
        self._known: dict[tuple[str, int], tuple[int, int]] = {}

    def size(self, text: str, font: int) -> tuple[int, int]:
        """(width, height) in pixels of ``text`` (lines joined by newlines) at font size ``font``."""
        if not text:
            return (0, 0)
        key = (text, font)
        if key not in self._known:
            self._properties.SetFontSize(font)
            box = [0, 0, 0, 0]
            if not self._renderer.GetBoundingBox(self._properties, text, box, self._dpi):
                raise ValueError(f"the text renderer cannot measure {text!r}")
            self._known[key] = (box[1] - box[0] + 1, box[3] - box[2] + 1)
        return self._known[key]

    def line_height(self, font: int, lines: int = 1) -> int:
        """The height of ``lines`` full lines at font size ``font``."""
        return self.size("\n".join([TALLEST] * lines), font)[1]


@dataclass(frozen=True)
class Fitted:
    """A text as drawn: its lines joined by newlines, and its font size."""

    text: str
    font: int


def fitted(text: str, metrics: TextMetrics, *, width: int, height: int, font: int, smallest: int) -> Fitted:
    """``text`` wrapped to ``width`` pixels at the largest font size from ``font`` down to
    ``smallest`` at which its lines fit ``height`` pixels; at ``smallest`` if none does (its
    lines then fit the width, unless a single character does not)."""
    for size in range(font, smallest - 1, -1):
        lines = [piece for line in text.splitlines()
                 for piece in wrapped(line, lambda s, size=size: metrics.size(s, size)[0] <= width)]
        shown = "\n".join(lines)
        if metrics.size(shown, size)[1] <= height:
            break
    return Fitted(shown, size)


def wrapped(line: str, fits: Callable[[str], bool]) -> list[str]:
    """``line`` broken into lines that ``fits`` accepts where it can, each after the first
    indented by :data:`INDENT`: at the last break of the best kind (:data:`BREAKS`) whose
    line fits, else after the last character that fits (at least one a line)."""
    lines, lead = [], ""
    while not fits(lead + line):
        head, line = _break(line, lambda text, lead=lead: fits(lead + text))
        lines.append(lead + head)
        lead = INDENT
        if not line:
            return lines
    return [*lines, lead + line]


def _break(line: str, fits: Callable[[str], bool]) -> tuple[str, str]:
    """``line`` cut in two at the best break whose first part ``fits``."""
    for mark in BREAKS:
        cuts = [(line[:k + 1] if mark == ", " else line[:k].rstrip(" "), line[k + len(mark):].lstrip(" "))
                for k in _occurrences(line, mark)]
        cuts = [(head, rest) for head, rest in cuts if head.strip()]
        last = _last_fitting([head for head, _ in cuts], fits)
        if last is not None:
            return cuts[last]
    last = _last_fitting([line[:k] for k in range(1, len(line))], fits)
    k = 1 if last is None else last + 1
    return line[:k], line[k:]


def _occurrences(text: str, mark: str) -> list[int]:
    """Where ``mark`` starts in ``text``, past its first character."""
    found, k = [], text.find(mark, 1)
    while k != -1:
        found.append(k)
        k = text.find(mark, k + 1)
    return found


def _last_fitting(heads: Sequence[str], fits: Callable[[str], bool]) -> int | None:
    """The index of the last of ``heads`` (each longer than the one before) that ``fits``, by
    bisection: a longer text is never narrower."""
    count = bisect.bisect_left(range(len(heads)), True, key=lambda k: not fits(heads[k]))
    return count - 1 if count else None
