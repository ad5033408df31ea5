"""Each moving part's pose along a sampled path, as extra columns of the path reports
(``cspace trace --path OUT --poses``).

A part's pose is its drawing frame placed in the plane: ``PART.x`` and ``PART.y`` are where
the point (0, 0) of the part's drawing is carried, ``PART.angle`` how far the part has turned
(radians, in (-pi, pi]), so that a point (u, v) of its drawing is at
``(x + u cos angle - v sin angle, y + u sin angle + v cos angle)``. Fixed parts never move
and have no columns.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np

from ..kinetics.result import DynamicTrace
from ..model.kinds import Motion
from ..model.mechanism import Mechanism
from ..tracing.trace import Trace

AXES = ("x", "y", "angle")


def moving_parts(mechanism: Mechanism) -> list[str]:
    """The parts that have poses to report, in the mechanism's order."""
    return [part.name for part in mechanism.parts if part.motion != Motion.FIXED]


def pose_columns(mechanism: Mechanism) -> list[str]:
    """``PART.x``, ``PART.y``, ``PART.angle`` of each moving part."""
    return [f"{name}.{axis}" for name in moving_parts(mechanism) for axis in AXES]


def pose_rows(source: Trace | DynamicTrace, configurations: Iterable[np.ndarray]) -> list[list[float]]:
    """Each configuration's poses, in :func:`pose_columns`'s order (linkage members posed by
    their linkage: its table for a trace, its exact motion for a dynamic path)."""
    from ..viz.snapshots import posing  # numpy and cspace only: no renderer is imported

    placed, names = posing(source), moving_parts(source.mechanism)
    rows = []
    for values in configurations:
        transforms = placed(np.asarray(values, float))
        rows.append([value for name in names for value in _pose(transforms[name])])
    return rows


def _pose(transform: np.ndarray) -> tuple[float, float, float]:
    """(x, y, angle) of a 3x3 transform from a part's drawing to the plane."""
    return float(transform[0, 2]), float(transform[1, 2]), math.atan2(transform[1, 0], transform[0, 0])
