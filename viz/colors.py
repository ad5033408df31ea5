"""A fixed colour per part, so every picture of a mechanism colours it the same way.

Fixed parts (the frame) are grey; the others take the colours of a fixed palette in
the order the mechanism lists them. The marks of a drawing (:mod:`viz.marks`) have colours
of their own: ink for pivots, axes and limits, red for forces, blue for input motions.

    >>> from cspace import load
    >>> part_colors(load("fixtures/feeder.toml"))["piston"]
    '#59a14f'
"""

from __future__ import annotations

from cspace.model.kinds import Motion
from cspace.model.mechanism import Mechanism

PALETTE = ("#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1", "#ff9da7", "#9c755f")
FIXED_COLOR = "#bab0ac"


def part_colors(mechanism: Mechanism) -> dict[str, str]:
    """Each part's colour as ``#rrggbb``, by part name."""
    colors = {}
    moving = 0
    for part in mechanism.parts:
        if part.motion == Motion.FIXED:
            colors[part.name] = FIXED_COLOR
        else:
            colors[part.name] = PALETTE[moving % len(PALETTE)]
            moving += 1
    return colors



# The marks of a drawing (viz.marks): pivots, axes and limits in ink; forces red; input motions blue.
INK = "#303030"
MARK_COLORS = {"gravity": "#b2182b", "spring": "#b2182b", "torque": "#b2182b", "load": "#b2182b", "input": "#2166ac"}
