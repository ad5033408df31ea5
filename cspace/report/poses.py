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
from collections.abc import Callable, Iterable

import numpy as np

from ..kinetics.linkage_motion import LinkageMotion
from ..kinetics.result import DynamicTrace
from ..model.kinds import Motion
from ..model.mechanism import Mechanism
from ..model.poses import part_transform, rigid
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
    mechanism = source.mechanism
    members = _members(source)
    parts = [mechanism.part(name) for name in moving_parts(mechanism)]
    rows = []
    for values in configurations:
        named = {c.name: float(v) for c, v in zip(mechanism.coordinates, values)}
        placed = members(named)
        rows.append([value for part in parts for value in _pose(
            placed[part.name] if part.motion == Motion.LINKAGE else part_transform(mechanism, part, named))])
    return rows


def _members(source: Trace | DynamicTrace) -> Callable[[dict[str, float]], dict[str, np.ndarray]]:
    """A function from named coordinate values to every linkage member's transform."""
    linkages = source.mechanism.linkages
    if isinstance(source, DynamicTrace):
        motions = [(linkage, LinkageMotion(source.mechanism, linkage)) for linkage in linkages]
        return lambda named: {member: rigid(*motion.jet(named[linkage.input]).poses[member].value)
                              for linkage, motion in motions for member in linkage.members}
    tables = source.linkage_tables
    return lambda named: {member: tables[linkage.name].pose(member, named[linkage.input])
                          for linkage in linkages for member in linkage.members}


def _pose(transform: np.ndarray) -> tuple[float, float, float]:
    """(x, y, angle) of a 3x3 transform from a part's drawing to the plane."""
    return float(transform[0, 2]), float(transform[1, 2]), math.atan2(transform[1, 0], transform[0, 0])
