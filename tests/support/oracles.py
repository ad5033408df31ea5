"""Checks the tests share beside the library's own oracle (:mod:`cspace.testing`): closed
forms of the generated releases, labels that name a face's corner beside the face, and
the cache against no cache."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Sequence

import numpy as np

from cspace.model.mechanism import Mechanism
from cspace.model.tolerance import NOISE
from cspace.spaces.pairspace import Contact, PairSpace
from cspace.testing import Scene, overlaps
from cspace.tracing.analysis import Analysis
from cspace.tracing.trace import Trace


def release_errors(trace: Trace, case) -> list[str]:
    """How a trace of a :class:`tests.support.releases.ReleaseCase` misses its closed form: the held
    coordinate's first free motion (an external segment moving it) must start at the release
    time, and the trace must end with every coordinate the case names at its value."""
    mechanism = trace.mechanism
    tolerance = mechanism.tolerance
    j = mechanism.coordinate_index[case.held]
    free = [s for s in trace.segments if s.phase == "external" and s.first.signs[j]]
    errors = []
    instant = tolerance.length / mechanism.speed
    if not free:
        errors.append(f"{case.held} is never released (due at t = {case.release:.6g})")
    elif abs(free[0].start_time - case.release) > instant + NOISE * case.release:
        errors.append(f"{case.held} released at t = {free[0].start_time:.9g}, due at {case.release:.9g}")
    final = trace.segments[-1].finish if trace.segments else []
    for name, value in case.final.items():
        got = float(final[mechanism.coordinate_index[name]])
        if abs(got - value) > 10 * tolerance.length:
            errors.append(f"{name} ends at {got:.9g}, due at {value:.9g}")
    return errors


def corners_beside_their_faces(trace: Trace) -> list[tuple[int, str, str]]:
    """Contacts that name a corner of a face touching along the same contact: (segment, the
    corner's contact, the face's). A part touching another along a face touches it at that
    face's corners too; a label names the face alone, however the part is cut into convex
    pieces (a piece meeting the face only at its corner must not add a contact of its own,
    which would begin and end, and end segments, where nothing changes).
    """
    found = []
    for segment in trace.segments:
        for piece in segment.pieces:
            contacts = [c for c in piece.contacts if isinstance(c, Contact)]  # not a coordinate's limit
            for corner in contacts:
                for face in contacts:
                    if corner != face and (corner.part_a, corner.part_b) == (face.part_a, face.part_b) \
                            and _corner_of(corner.faces_a, face.faces_a) and _corner_of(corner.faces_b, face.faces_b):
                        found.append((segment.index, str(corner), str(face)))
    return sorted(set(found))


def _corner_of(features: tuple[str, ...], faces: tuple[str, ...]) -> bool:
    """Is each feature one of the faces, or a corner (``a+b``) of one of them?"""
    return all(f in faces or ("+" in f and any(part in faces for part in f.split("+"))) for f in features)


def contact_edges_overlapping(analysis: Analysis, pair: PairSpace) -> list[tuple[str, dict[str, float], float]]:
    """Middles of a pair space's contact edges where the real parts overlap deeper than the
    length tolerance: (region, the pair's coordinates there, depth).

    A contact edge is where a region's free space meets the pair's blocked space: there the
    parts touch or, a turning pair's blocked space being grown by the ``curve`` tolerance,
    stand a little apart; they never overlap. For a turning pair the edge is a chord of a
    flattened outline of blocked space, and where that outline cuts into the real blocked
    space the chord's middle is deepest in it (a cleaning whose error compounded along a
    densely sampled contact curve put a chord 0.15 long 1.9e-4 inside the Geneva drive's
    real blocked space at an arc tolerance of 1e-6). Random configurations seldom fall in
    such a sliver; the middles of the chords do. The other coordinates keep their start.
    """
    mechanism = analysis.mechanism
    scene = Scene(mechanism)
    start = dict(zip((c.name for c in mechanism.coordinates), analysis.initial.tolist()))
    parts = {pair.part_a, pair.part_b}
    found = []
    for region in pair.regions:
        for edge in region.edges:
            if not edge.contacts:
                continue
            middle = (np.asarray(edge.start) + np.asarray(edge.end)) / 2
            values = dict(start)
            values.update(zip(pair.coordinates, np.linalg.lstsq(pair.matrix, middle, rcond=None)[0].tolist()))
            for a, b, depth in overlaps(mechanism, values, mechanism.tolerance.length, scene):
                if {a, b} == parts:
                    found.append((region.name, {name: values[name] for name in pair.coordinates}, depth))
    return found


def cached_and_uncached(mechanisms: Sequence[Mechanism],
                        answer: Callable[[Mechanism], str]) -> list[tuple[str, str]]:
    """Each mechanism's ``answer`` (say, its trace's ``--json``) computed through one fresh
    cache, in order, so each may read the spaces the ones before it stored, and then with
    the cache off. The cache must never change an answer: the two of each pair agree. A
    check for the tests and :mod:`cspace.fuzz` (one mechanism under random ``[tolerance]``
    settings: an entry reused where the key left out what changed shows as a difference).
    ``CSPACE_CACHE`` is as it was after."""
    previous = os.environ.get("CSPACE_CACHE")
    try:
        with tempfile.TemporaryDirectory(prefix="cspace-cache-check-") as where:
            os.environ["CSPACE_CACHE"] = where
            cached = [answer(mechanism) for mechanism in mechanisms]
        os.environ["CSPACE_CACHE"] = "off"
        return list(zip(cached, (answer(mechanism) for mechanism in mechanisms)))
    finally:
        if previous is None:
            os.environ.pop("CSPACE_CACHE", None)
        else:
            os.environ["CSPACE_CACHE"] = previous
