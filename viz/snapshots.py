"""Snapshots of a traced path and where every part is in each.

A snapshot is one sample of the path (:meth:`cspace.Trace.samples`): at each motion's
sampling interval and at every segment boundary. External motions (a stack of blocks
dropping) take no input time, so their snapshots share one ``time``; they are still
snapshots, which is how an animation shows them.

    >>> from cspace import analyze, load, trace
    >>> shots = snapshots(trace(analyze(load("fixtures/feeder.toml")), until=1))
    >>> shots[1]
    Snapshot(time=0.25, segment=1)
    >>> shots[1].caption
    't = 0.25 s   segment 1 of 1\\ndriver rotates counterclockwise: driver cd ccw, piston xp-'
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from cspace.model.kinds import Motion
from cspace.model.poses import part_transform
from cspace.report.describe import summary
from cspace.tracing.analysis import Analysis
from cspace.tracing.trace import Trace


@dataclass(frozen=True, eq=False)
class Snapshot:
    """A configuration of the path: ``values`` in ``Mechanism.coordinates`` order (angles unwrapped).

    ``segment`` is its segment's number (0 when nothing was traced); ``caption`` says when
    it is and what the segment does.
    """

    time: float
    segment: int
    values: np.ndarray
    caption: str

    def __repr__(self) -> str:
        return f"Snapshot(time={self.time:.6g}, segment={self.segment})"


def snapshots(trace: Trace) -> list[Snapshot]:
    """One snapshot per path sample, in path order; just the initial configuration if nothing moved."""
    count = len(trace.segments)
    if not count:
        return [Snapshot(0.0, 0, trace.initial, "t = 0.00 s   nothing traced")]
    lines = {s.index: summary(s) for s in trace.segments}
    return [Snapshot(time, segment, values, f"t = {time:.2f} s   segment {segment} of {count}\n{lines[segment]}")
            for time, segment, values in trace.samples()]


def part_poses(analysis: Analysis | Trace, values: np.ndarray) -> dict[str, np.ndarray]:
    """Every part's 3x3 transform (local frame to plane) at a configuration, by part name,
    for an analysis or a trace (both hold the mechanism and its linkage tables).

    Linkage members are posed from their linkage table at the configuration's input value.

    >>> from cspace import analyze, load
    >>> analysis = analyze(load("fixtures/feeder.toml"))
    >>> poses = part_poses(analysis, analysis.initial)
    >>> poses["piston"][:2, 2].tolist()
    [10.0, 0.0]
    >>> bool(np.allclose(poses["link"] @ [8.0, 0.0, 1.0], poses["piston"] @ [1.0, 0.0, 1.0]))  # pinned
    True
    """
    mechanism = analysis.mechanism
    named = {c.name: float(v) for c, v in zip(mechanism.coordinates, values)}
    poses = {}
    for part in mechanism.parts:
        if part.motion != Motion.LINKAGE:
            poses[part.name] = part_transform(mechanism, part, named)
    for linkage in mechanism.linkages:
        table = analysis.linkage_tables[linkage.name]
        for member in linkage.members:
            poses[member] = table.pose(member, named[linkage.input])
    return {part.name: poses[part.name] for part in mechanism.parts}
