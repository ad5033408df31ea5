"""The design map of a sweep: each variant a mark at two of its columns, coloured by how it
ended (``end_reason``; a failed variant is ``error``) or by a numeric column (a measure,
a coordinate's final value), failed variants grey crosses. Drawn with matplotlib, offscreen.
"""

from __future__ import annotations

import os
from pathlib import Path

from ..model.errors import CspaceError

FORMATS = (".png", ".svg")
CATEGORIES = ("end_reason",)


class PlotError(CspaceError, ValueError):
    """A design map that cannot be drawn: a column the results do not have, or not a number."""


def outcome(frame) -> list[str]:
    """Each row's end reason, or ``error`` where the variant failed.

    >>> import pandas as pd
    >>> outcome(pd.DataFrame({"error": ["", "bad"], "end_reason": ["input blocked", ""]}))
    ['input blocked', 'error']
    """
    return ["error" if error else reason for error, reason in zip(frame["error"], frame["end_reason"])]


def design_map(frame, x: str, y: str, color: str, output: str | os.PathLike) -> int:
    """Draw the map of ``frame`` (a sweep's results) to ``output`` (.png or .svg); returns the
    number of variants drawn."""
    if Path(output).suffix.lower() not in FORMATS:
        raise PlotError(f"-o {output}: a design map is written as .png or .svg")
    _save(frame, x, y, color, output)
    return len(frame)


def design_map_svg(frame, x: str, y: str, color: str) -> str:
    """The map of ``frame`` as an SVG document's text (a notebook shows it inline)."""
    import io

    buffer = io.StringIO()
    _save(frame, x, y, color, buffer, format="svg")
    return buffer.getvalue()


def _save(frame, x: str, y: str, color: str, output, **options) -> None:
    """Draw the map and save it to ``output`` (a path, or a stream with ``format``); the
    columns are checked before matplotlib is imported."""
    import pandas as pd

    for name in (x, y, color):
        if name not in frame.columns:
            raise PlotError(f"no column {name!r} in the results; the columns are {', '.join(frame.columns)}")
    for name in (x, y):
        if not pd.api.types.is_numeric_dtype(frame[name]):
            raise PlotError(f"column {name!r} is not numeric")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    figure, axes = plt.subplots(figsize=(6.4, 5.2), dpi=100)
    failed = frame["error"] != "" if "error" in frame.columns else pd.Series(False, index=frame.index)
    if color in CATEGORIES or not pd.api.types.is_numeric_dtype(frame[color]):
        labels = outcome(frame) if color in CATEGORIES else [str(v) for v in frame[color]]
        palette = plt.get_cmap("tab10")
        for k, label in enumerate(sorted(set(labels))):
            chosen = [value == label for value in labels]
            style = dict(color="0.6", marker="x") if label == "error" else dict(color=palette(k % 10), marker="s")
            axes.scatter(frame[x][chosen], frame[y][chosen], s=36, label=label, **style)
        axes.legend(title=color, fontsize="small", loc="best")
    else:
        good = ~failed & frame[color].notna()
        marks = axes.scatter(frame[x][good], frame[y][good], c=frame[color][good].astype(float), s=36, marker="s",
                             cmap="viridis")
        figure.colorbar(marks, ax=axes, label=color)
        if (~good).any():
            axes.scatter(frame[x][~good], frame[y][~good], s=36, marker="x", color="0.6", label="error")
            axes.legend(fontsize="small", loc="best")
    axes.set_xlabel(x)
    axes.set_ylabel(y)
    axes.set_title(f"{len(frame)} variants")
    figure.tight_layout()
    try:
        figure.savefig(output, **options)
    finally:
        plt.close(figure)
