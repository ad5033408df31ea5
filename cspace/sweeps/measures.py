"""Measures of a traced variant: the least clearance between two parts, a coordinate's play,
and how often a part drops onto another.

* :class:`Clearance` (``--measure a/b``): the parts are placed with shapely at every sampled
  configuration of the path (:class:`cspace.testing.Scene`: their own posing from the
  model's axes and pivots, arcs sampled finely), independently of the configuration-space
  code; the clearance is the least distance between slices of the two parts that share a
  z-interval (0 where they touch).
* :class:`Play` (``--measure play:w``): how far a coordinate can move, every other held, at
  each sampled configuration of a segment in which it moves (the part is being driven: a
  Geneva wheel while the pin is in its slot): moved either way from its traced value until
  the configuration leaves the free space of the mechanism's pair spaces (stepped out, then
  bisected), the free travel both ways together; the measure is the largest over those
  samples (infinite for a coordinate free beyond :data:`REACH`). It reads the configuration
  spaces the trace was made on, whose blocked space is the real parts' grown by the arc
  linearization: the play is short of the real parts' by at most twice the mechanism's
  ``turning_gap`` (a length) over the lever arm.
* :class:`Drops` (``--measure drops:p``): how many times the forces alone move a coordinate
  (the external motions, every input standing still: a pawl falling off a tooth, a stack of
  blocks dropping) and that motion ends on a part: a contact made as it stops, not a limit
  reached. It is read off the trace's segments: a ratchet's pawl that drops into every root
  the wheel passes counts one drop per root.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ..model.errors import CspaceError
from ..model.kinds import CoordinateKind, Motion, Phase
from ..model.mechanism import Mechanism
from ..spaces.pairspace import Contact
from ..tracing.trace import Trace, contact_changes

if TYPE_CHECKING:  # a full-dynamics path, without importing the integrator where none is swept
    from ..kinetics.result import DynamicTrace


REACH = 0.25  # how far either way a play is looked for: radians, or this fraction of the size
STEPS = 64  # steps out to REACH before bisecting
BISECTIONS = 40


class MeasureError(CspaceError, ValueError):
    """A measure written wrong, naming a part or coordinate the mechanism does not have, a
    linkage member, or two parts that never share a layer."""


def parse(text: str) -> Measure:
    """A ``--measure``: ``play:COORDINATE``, ``drops:COORDINATE`` or ``PART_A/PART_B``.

    >>> parse("play:w"), parse("drops:p"), parse("crank/wheel")
    (Play('w'), Drops('p'), Clearance('crank', 'wheel'))
    """
    kind = text.strip().partition(":")[0].strip()
    return {"play": Play, "drops": Drops}.get(kind, Clearance).parse(text)


@dataclass(frozen=True)
class Clearance:
    """The least clearance between parts ``a`` and ``b`` along the path (``--measure a/b``).

    >>> Clearance.parse("crank/wheel")
    Clearance('crank', 'wheel')
    """

    a: str
    b: str

    def __repr__(self) -> str:
        return f"Clearance({self.a!r}, {self.b!r})"

    @classmethod
    def parse(cls, text: str) -> Clearance:
        a, slash, b = text.partition("/")
        if not slash or not a.strip() or not b.strip() or "/" in b:
            raise MeasureError(f"--measure {text}: expected PART_A/PART_B, e.g. crank/wheel")
        return cls(a.strip(), b.strip())

    @property
    def column(self) -> str:
        return f"clearance:{self.a}/{self.b}"

    def check(self, mechanism: Mechanism) -> None:
        names = [p.name for p in mechanism.parts]
        for name in (self.a, self.b):
            if name not in names:
                raise MeasureError(f"--measure {self.a}/{self.b}: no part named {name!r}; the parts are "
                                   f"{', '.join(names)}")
            if mechanism.part(name).motion == Motion.LINKAGE:
                raise MeasureError(f"--measure {self.a}/{self.b}: {name!r} is a linkage member; the clearance "
                                   "of parts with coordinates is measured")

    def of(self, trace: Trace | DynamicTrace) -> float:
        """The least distance between the two parts' touching slices over the sampled path (a
        trace's samples, or a full-dynamics path's)."""
        from ..testing import Scene

        mechanism = trace.mechanism
        self.check(mechanism)
        scene = Scene(mechanism)
        names = [c.name for c in mechanism.coordinates]
        least = float("inf")
        full = mechanism.dynamics is not None
        configurations = trace.configs if full else (q for _, _, q in trace.samples())
        for q in configurations:
            values = dict(zip(names, map(float, q)))
            placed = scene.place(values, {self.a, self.b})
            for ka, shape_a in placed.items():
                for kb, shape_b in placed.items():
                    if ka[0] == self.a and kb[0] == self.b and scene.touching(ka, kb, values):
                        least = min(least, float(shape_a.distance(shape_b)))
        if least == float("inf"):
            raise MeasureError(f"--measure {self.a}/{self.b}: the parts never share a layer (z)")
        return least


@dataclass(frozen=True)
class Play:
    """The largest free travel of ``coordinate``, the others held, while it is driven.

    >>> Play.parse("play:w")
    Play('w')
    """

    coordinate: str

    def __repr__(self) -> str:
        return f"Play({self.coordinate!r})"

    @classmethod
    def parse(cls, text: str) -> Play:
        kind, colon, name = text.partition(":")
        if kind.strip() != "play" or not colon or not name.strip():
            raise MeasureError(f"--measure {text}: expected play:COORDINATE, e.g. play:w")
        return cls(name.strip())

    @property
    def column(self) -> str:
        return f"play:{self.coordinate}"

    def check(self, mechanism: Mechanism) -> None:
        _check_simple(mechanism, self.column)
        _check_coordinate(mechanism, self.column, self.coordinate)

    def of(self, trace: Trace) -> float:
        """The largest play over the samples of the segments that move the coordinate (0: none does)."""
        mechanism = trace.mechanism
        self.check(mechanism)
        if trace.measures is None:
            raise MeasureError(f"--measure {self.column}: the trace holds no configuration spaces")
        j = mechanism.coordinate_index[self.coordinate]
        coordinate = mechanism.coordinates[j]
        reach = REACH if coordinate.kind == CoordinateKind.ROTATION else REACH * mechanism.size
        still = mechanism.tolerance.angle if coordinate.kind == CoordinateKind.ROTATION else mechanism.tolerance.length
        driven = {s.index for s in trace.segments if abs(s.finish[j] - s.start[j]) > still}
        largest = 0.0
        for _, segment, q in trace.samples():
            if segment in driven:
                largest = max(largest, travel(trace.measures.free, q, j, 1, reach)
                              + travel(trace.measures.free, q, j, -1, reach))
        return largest


@dataclass(frozen=True)
class Drops:
    """How many times the forces alone move ``coordinate`` and its motion ends on a part: the
    external motion moving it stops with a contact made (a limit reached is no drop).

    >>> Drops.parse("drops:p")
    Drops('p')
    """

    coordinate: str

    def __repr__(self) -> str:
        return f"Drops({self.coordinate!r})"

    @classmethod
    def parse(cls, text: str) -> Drops:
        kind, colon, name = text.partition(":")
        if kind.strip() != "drops" or not colon or not name.strip():
            raise MeasureError(f"--measure {text}: expected drops:COORDINATE, e.g. drops:p")
        return cls(name.strip())

    @property
    def column(self) -> str:
        return f"drops:{self.coordinate}"

    def check(self, mechanism: Mechanism) -> None:
        _check_simple(mechanism, self.column)
        _check_coordinate(mechanism, self.column, self.coordinate)

    def of(self, trace: Trace) -> int:
        """The drops along the trace: each run of external segments moving the coordinate that
        ends with a contact made (the feeder's top block drops three times, with the stack:
        ``Drops("yb3")`` of its trace is 3). The last segment's contacts made are what touches
        where it stopped that it did not touch on its way."""
        mechanism = trace.mechanism
        self.check(mechanism)
        j = mechanism.coordinate_index[self.coordinate]
        segments = trace.segments
        count = 0
        for segment, following in zip(segments, (*segments[1:], None)):
            if not _falls(segment, j) or (following is not None and _falls(following, j)):
                continue
            if following is not None:
                made = contact_changes(segment, following)[0]
            elif trace.measures is not None:
                made = trace.measures.touching(segment.finish) - segment.pieces[-1].contacts
            else:
                made = ()
            count += any(isinstance(contact, Contact) for contact in made)
        return count


def _falls(segment, j: int) -> bool:
    """Do the forces alone move coordinate ``j`` in ``segment`` (the external motions)?"""
    return segment.phase == Phase.EXTERNAL and bool(segment.first.signs[j])


Measure = Clearance | Play | Drops


def _check_simple(mechanism: Mechanism, column: str) -> None:
    """Plays and drops are read off the paper's simple dynamics: its pair spaces and segments."""
    if mechanism.dynamics is not None:
        raise MeasureError(f"--measure {column}: measured on the paper's simple dynamics; {mechanism.source} has "
                           "full dynamics (a clearance PART_A/PART_B is measured on either)")


def _check_coordinate(mechanism: Mechanism, column: str, name: str) -> None:
    names = [c.name for c in mechanism.coordinates]
    if name not in names:
        raise MeasureError(f"--measure {column}: no coordinate named {name!r}; the coordinates are {', '.join(names)}")


def travel(free, q: np.ndarray, j: int, sign: int, reach: float) -> float:
    """How far coordinate ``j`` moves from ``q`` in direction ``sign`` while ``free(q)`` holds
    (``inf`` beyond ``reach``)."""
    step = reach / STEPS
    low = 0.0
    for k in range(1, STEPS + 1):
        if not free(_moved(q, j, sign * k * step)):
            high = k * step
            break
        low = k * step
    else:
        return math.inf
    for _ in range(BISECTIONS):
        middle = (low + high) / 2
        low, high = (middle, high) if free(_moved(q, j, sign * middle)) else (low, middle)
    return low


def _moved(q: np.ndarray, j: int, by: float) -> np.ndarray:
    moved = np.array(q, dtype=float)
    moved[j] += by
    return moved
