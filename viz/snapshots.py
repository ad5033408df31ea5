"""Snapshots of a path and where every part is in each: the one place that knows the two kinds
of result the rendering draws, the paper's simple dynamics (a :class:`~cspace.tracing.trace.Trace`)
and full dynamics (a :class:`~cspace.kinetics.result.DynamicTrace`). The scene, the animation,
the player, the browser viewer and the pair plots take either and ask this module for the
snapshots (time, number, configuration, caption) and the part poses.

A snapshot of a traced path is one sample of it (:meth:`cspace.Trace.samples`): at each motion's
sampling interval and at every segment boundary. External motions (a stack of blocks
dropping) take no input time, so their snapshots share one ``time``; they are still
snapshots, which is how an animation shows them.

    >>> from cspace import analyze, load, trace
    >>> shots = snapshots(trace(analyze(load("fixtures/feeder.toml")), until=1))
    >>> shots[1]
    Snapshot(time=0.25, segment=1)
    >>> shots[1].caption
    't = 0.25 s   segment 1 of 1\\ndriver rotates counterclockwise: driver cd ccw, piston xp-'

A dynamic path's snapshots are its samples (every event and a regular grid); its ``segment``
is the number of the *stretch* in force just after the sample (at an impact the path has two
samples at one time, before and after: the first is the impact's). A movie shows it in real
time instead (:func:`frames`): snapshots every ``1 / fps`` seconds, the configuration and the
energies interpolated linearly between samples; an impact takes no time, so it gets no frame
of its own and the first frame after it says it happened. Linkage members are posed by the
linkage's exact motion (:class:`~cspace.kinetics.linkage_motion.LinkageMotion`), as the
integration moved them, not from a linkage table.

    >>> from cspace import simulate
    >>> motion = simulate(analyze(load("fixtures/bouncing-block.toml")), until=0.5)
    >>> shown = frames(motion, fps=10)
    >>> len(shown), shown[5]
    (6, Snapshot(time=0.5, segment=3))
    >>> print(shown[5].caption)
    t = 0.50 s   stretch 3 of 3: flight   impact at t = 0.452 s
    energy: kinetic 1.512, potential 5.845
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from cspace.kinetics.linkage_motion import LinkageMotion
from cspace.kinetics.result import DynamicTrace
from cspace.model.kinds import Mode, Motion
from cspace.model.poses import part_transform, rigid
from cspace.report.describe import summary
from cspace.tracing.analysis import Analysis
from cspace.tracing.trace import Trace

Traced = Trace | DynamicTrace  # what the rendering draws
Posing = Callable[[np.ndarray], dict[str, np.ndarray]]  # a configuration to every part's 3x3 transform


@dataclass(frozen=True, eq=False)
class Snapshot:
    """A configuration of the path: ``values`` in ``Mechanism.coordinates`` order (angles unwrapped).

    ``segment`` is its segment's number (0 when nothing was traced), or for a dynamic path its
    stretch's; ``caption`` says when it is and what the segment does (the stretch's mode and
    the energies).
    """

    time: float
    segment: int
    values: np.ndarray
    caption: str

    def __repr__(self) -> str:
        return f"Snapshot(time={self.time:.6g}, segment={self.segment})"


def snapshots(trace: Traced) -> list[Snapshot]:
    """One snapshot per path sample, in path order; just the initial configuration if nothing moved."""
    if isinstance(trace, DynamicTrace):
        numbers = sample_stretches(trace)
        return [_dynamic_shot(trace, float(t), numbers[k], trace.configs[k], trace.energies[k], ())
                for k, t in enumerate(trace.times)]
    count = len(trace.segments)
    if not count:
        return [Snapshot(0.0, 0, trace.initial, "t = 0.00 s   nothing traced")]
    lines = {s.index: summary(s) for s in trace.segments}
    return [Snapshot(time, segment, values, f"t = {time:.2f} s   segment {segment} of {count}\n{lines[segment]}")
            for time, segment, values in trace.samples()]


def samples(trace: Traced) -> list[tuple[float, int, np.ndarray]]:
    """(time, segment or stretch number, configuration) at every sample of the path, as
    :meth:`cspace.Trace.samples` gives them for a traced path (no caption)."""
    if isinstance(trace, DynamicTrace):
        return list(zip(trace.times.tolist(), sample_stretches(trace), trace.configs))
    return trace.samples()


def impacts(trace: Traced) -> list[tuple[float, np.ndarray, tuple[str, ...]]]:
    """(time, configuration, contacts) of every impact of a dynamic path, once per instant (an
    accumulation of impacts starts where the last one was); none for a traced path."""
    if not isinstance(trace, DynamicTrace):
        return []
    seen: dict[float, tuple[float, np.ndarray, tuple[str, ...]]] = {}
    for stretch in trace.impacts:
        if stretch.start in seen:
            contacts = tuple(sorted({*seen[stretch.start][2], *stretch.contacts}))
            seen[stretch.start] = (stretch.start, seen[stretch.start][1], contacts)
        else:
            seen[stretch.start] = (stretch.start, np.array(stretch.q0), stretch.contacts)
    return list(seen.values())


def frames(trace: Traced, fps: float) -> list[Snapshot]:
    """The snapshots a movie shows at ``fps`` frames a second.

    A traced path: every snapshot, one frame each (external motions included). A dynamic path:
    real time, a frame at every multiple of ``1 / fps`` seconds from 0 to its end, and one at
    its end if that falls between; each interpolated linearly between the samples either side
    (after an impact's two samples, at its time). A frame's caption names the stretch in force
    and the impacts since the frame before (an impact is an instant: it has no frame).
    """
    if not isinstance(trace, DynamicTrace):
        return snapshots(trace)
    times, end = trace.times, float(trace.times[-1])
    count = max(0, math.ceil(end * fps - 1e-9))
    impacts = sorted({s.start for s in trace.impacts})  # an accumulation of impacts starts at the last one's time
    at = stretch_finder(trace)
    shots, previous = [], -math.inf
    for t in (min(k / fps, end) for k in range(count + 1)):
        k = int(np.searchsorted(times, t, side="right")) - 1
        if k + 1 < len(times) and times[k + 1] > times[k]:
            share = (t - times[k]) / (times[k + 1] - times[k])
            values = trace.configs[k] + share * (trace.configs[k + 1] - trace.configs[k])
            energies = trace.energies[k] + share * (trace.energies[k + 1] - trace.energies[k])
        else:
            values, energies = trace.configs[k], trace.energies[k]
        hits = impacts[bisect.bisect_right(impacts, previous):bisect.bisect_right(impacts, t)]
        shots.append(_dynamic_shot(trace, t, at(t), values, energies, hits))
        previous = t
    return shots


def sample_stretches(trace: DynamicTrace) -> list[int]:
    """Each sample's stretch: the number of the one in force just after it. Two samples at one
    time are an impact's, before and after: the first is the impact's; the last sample's is
    the last stretch."""
    times, stretches = trace.times, trace.stretches
    instants = {}
    for stretch in stretches:
        if stretch.mode == Mode.IMPACT and stretch.start == stretch.end:
            instants.setdefault(stretch.start, []).append(stretch.index)
    at = stretch_finder(trace)
    numbers = []
    for k, t in enumerate(times.tolist()):
        if k + 1 < len(times) and times[k + 1] == t and instants.get(t):
            numbers.append(instants[t].pop(0))
        elif k + 1 < len(times):
            numbers.append(at((t + float(times[k + 1])) / 2))
        else:
            numbers.append(at(t))
    return numbers


def stretch_finder(trace: DynamicTrace) -> Callable[[float], int]:
    """A function giving the number of the stretch in force just after a time: the last to start at
    or before it that lasts (an impact of no duration is only ever just before); at the path's end,
    the last; 0 when nothing was integrated."""
    lasting = [s for s in trace.stretches if s.end > s.start] or list(trace.stretches)
    starts = [s.start for s in lasting]
    if not lasting:
        return lambda t: 0
    return lambda t: lasting[max(bisect.bisect_right(starts, t) - 1, 0)].index


def _dynamic_shot(trace: DynamicTrace, time: float, number: int, values: np.ndarray, energies: np.ndarray,
                  impacts: Sequence[float]) -> Snapshot:
    """A dynamic path's snapshot: its caption names the stretch and its mode, the energies and
    the ``impacts`` (their times) since the frame before."""
    count = len(trace.stretches)
    line = f"t = {time:.2f} s   " + (f"stretch {number} of {count}: {trace.stretches[number - 1].mode}" if number
                                     else "nothing integrated")
    if len(impacts) == 1:
        line += f"   impact at t = {impacts[0]:.3f} s"
    elif impacts:
        line += f"   {len(impacts)} impacts, the last at t = {impacts[-1]:.3f} s"
    kinetic, potential = (float(v) + 0.0 for v in energies)
    return Snapshot(time, number, values, f"{line}\nenergy: kinetic {kinetic:.4g}, potential {potential:.4g}")


def initial(source: Analysis | Traced) -> np.ndarray:
    """The configuration a source starts from (every coordinate, in mechanism order)."""
    return source.configs[0] if isinstance(source, DynamicTrace) else source.initial


def posing(source: Analysis | Traced) -> Posing:
    """A function from a configuration to every part's 3x3 transform (local frame to plane), by
    part name in mechanism order: fixed and fixed-axes parts by
    :func:`~cspace.model.poses.part_transform`; linkage members from their linkage table at the
    configuration's input value (an analysis or a trace), or by the linkage's exact motion (a
    dynamic path, :class:`~cspace.kinetics.linkage_motion.LinkageMotion`). Made once for many
    configurations: the exact motion keeps what it solved."""
    mechanism = source.mechanism
    if isinstance(source, DynamicTrace):
        motions = [(linkage, LinkageMotion(mechanism, linkage)) for linkage in mechanism.linkages]

        def members(named: dict[str, float]) -> dict[str, np.ndarray]:
            out = {}
            for linkage, motion in motions:
                poses = motion.jet(named[linkage.input]).poses
                out.update((member, rigid(*poses[member].value)) for member in linkage.members)
            return out
    else:
        tables = source.linkage_tables

        def members(named: dict[str, float]) -> dict[str, np.ndarray]:
            return {member: tables[linkage.name].pose(member, named[linkage.input])
                    for linkage in mechanism.linkages for member in linkage.members}

    def poses(values: np.ndarray) -> dict[str, np.ndarray]:
        named = {c.name: float(v) for c, v in zip(mechanism.coordinates, values)}
        placed = members(named)
        return {part.name: placed[part.name] if part.motion == Motion.LINKAGE else
                part_transform(mechanism, part, named) for part in mechanism.parts}

    return poses


def part_poses(source: Analysis | Traced, values: np.ndarray) -> dict[str, np.ndarray]:
    """Every part's 3x3 transform (local frame to plane) at a configuration, by part name,
    for an analysis, a trace or a dynamic path (:func:`posing`, for one configuration).

    >>> from cspace import analyze, load
    >>> analysis = analyze(load("fixtures/feeder.toml"))
    >>> poses = part_poses(analysis, analysis.initial)
    >>> poses["piston"][:2, 2].tolist()
    [10.0, 0.0]
    >>> bool(np.allclose(poses["link"] @ [8.0, 0.0, 1.0], poses["piston"] @ [1.0, 0.0, 1.0]))  # pinned
    True
    """
    return posing(source)(values)
