"""The result of tracing: pieces of path, segments of uniform behaviour, samples.

A *piece* is a stretch of path in one mechanism region under one mode of motion;
within it every coordinate moves linearly between knots (the linkage-table cells).
A *segment* is a maximal run of pieces with the same behaviour: the same driving
motions and driving relations, the same contacts, and every coordinate moving the
same way (or standing still). Segments therefore end where a contact begins or ends,
a driving relation changes, a moving coordinate reverses or stops, an input is
blocked or time runs out, and never at a free region boundary or a table cell.

All three are values, never changed once made (their arrays read-only): the tracer
makes each piece whole, groups the pieces into segments when the path is done
(:meth:`Trace.of`), and a trace holds the mechanism, its segments, its statistics and
the measures its reports need (:class:`~cspace.tracing.measures.Measures`), not the
engine that traced it.
"""

from __future__ import annotations

import math
import sys
import zlib
from dataclasses import dataclass, field, replace
from functools import cached_property

import numpy as np

from ..model.errors import TraceError
from ..model.kinds import EndReason
from ..model.mechanism import Mechanism
from ..model.tolerance import NOISE
from ..spaces.linkage import LinkageTable
from .analysis import Analysis
from .layout import Stop
from .measures import Measures
from .start import Settled

TWO_PI = 2 * math.pi
MAX_SAMPLES = 1_000_000


@dataclass(frozen=True)
class DriveLine:
    """``source`` drives ``targets`` (coordinate indices), through a linkage or contacts."""

    source: int
    targets: tuple[int, ...]
    through: str

    def __repr__(self) -> str:
        return f"DriveLine({self.source}, {self.targets}, through={self.through!r})"


@dataclass(frozen=True)
class Piece:
    """Path in one region under one mode, as knots (parameter, configuration).

    The parameter is input time for an input step and the external motions' own
    clock for an external step (which takes no input time: ``time`` stays put).
    ``origin`` is where the sampling grid of this motion starts. The configurations
    are kept as the first one and the columns that change (``moved``, their values
    at every knot): a piece moves a few coordinates of many, and a long trace of a
    large mechanism would otherwise keep every coordinate at every knot. For the same
    reason the region's key (an entry per pair) is kept compressed (``region``, from
    :meth:`packed`; :attr:`key` is the tuple): most pairs of a large mechanism are far
    apart, in regions that repeat along the key.
    """

    phase: str
    motion: int
    region: bytes
    params: np.ndarray
    first: np.ndarray
    moved: np.ndarray
    changes: np.ndarray
    time: float
    origin: float
    sampling: float
    roots: tuple[int, ...]
    lines: tuple[DriveLine, ...]
    contacts: frozenset
    signs: tuple[int, ...]
    end: str

    def __post_init__(self) -> None:
        for array in (self.params, self.first, self.moved, self.changes):
            array.flags.writeable = False

    @staticmethod
    def packed(key: tuple[int, ...]) -> bytes:
        """A region key as bytes: the type code of the smallest integers that hold it, then
        the integers compressed (zlib; a 200-block feeder's key of 20,301 pairs takes
        hundreds of bytes, not 20 kB). :attr:`key` unpacks it.

        >>> Piece.packed((0, 3, -1))[:1]
        b'b'
        """
        values = np.asarray(key, np.int64)
        low, high = int(values.min(initial=0)), int(values.max(initial=0))
        kind = next(k for k in (np.int8, np.int16, np.int32, np.int64) if np.iinfo(k).min <= low and high <= np.iinfo(k).max)
        packed = values.astype(kind)
        return packed.dtype.char.encode() + zlib.compress(packed.tobytes(), 1)

    @property
    def key(self) -> tuple[int, ...]:
        """The region's key: per pair its region, then the turns of the wrapping coordinates."""
        return tuple(self.key_array().tolist())

    def key_array(self) -> np.ndarray:
        """The region's key as an array (of the smallest integers that hold it)."""
        return np.frombuffer(zlib.decompress(self.region[1:]), self.region[:1].decode())

    @staticmethod
    def compact(configs: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(first, moved, changes)`` of a piece's configurations, one knot per row.

        >>> first, moved, changes = Piece.compact(np.array([[0.0, 1.0, 2.0], [0.5, 1.0, 2.0]]))
        >>> first.tolist(), moved.tolist(), changes.tolist()
        ([0.0, 1.0, 2.0], [0], [[0.0], [0.5]])
        """
        moved = np.flatnonzero((configs != configs[0]).any(axis=0))
        return configs[0].copy(), moved, configs[:, moved].copy()

    @property
    def configs(self) -> np.ndarray:
        """Every coordinate at every knot."""
        full = np.repeat(self.first[None, :], len(self.changes), axis=0)
        full[:, self.moved] = self.changes
        return full

    @property
    def last(self) -> np.ndarray:
        """The configuration at the last knot."""
        q = self.first.copy()
        q[self.moved] = self.changes[-1]
        return q

    @cached_property
    def behaviour(self) -> tuple:
        """What makes two pieces one segment: phase, motion, drives, contacts (as text), signs."""
        return (self.phase, self.motion, self.roots, self.lines, contact_text(self.contacts), self.signs)

    @property
    def duration(self) -> float:
        return float(self.params[-1] - self.params[0]) if self.phase == "input" else 0.0

    def __repr__(self) -> str:
        return (f"Piece({str(self.phase)!r}, key={self.key}, params=[{self.params[0]:.6g}, "
                f"{self.params[-1]:.6g}], end={str(self.end)!r})")


def contact_text(contacts: frozenset) -> tuple[str, ...]:
    """Contacts (and stops) as sorted text, each text interned: a large stack's pieces
    name the same hundreds of contacts, piece after piece, and keep one string for each.

    >>> contact_text(frozenset({"b", "a"}))
    ('a', 'b')
    """
    return tuple(sorted(sys.intern(str(contact)) for contact in contacts))


@dataclass(frozen=True)
class Segment:
    """A maximal stretch of uniform behaviour (one record of paper Figure 4) of the path of
    ``mechanism``.

    ``end`` says what ended it: the input blocked, contacts beginning or ending, a
    coordinate starting, stopping or reversing, or, for the last, why the trace ended.
    """

    index: int
    pieces: tuple[Piece, ...]
    end: str = ""
    lead: int = 0  # the piece whose behaviour the segment has: the first, unless a ripple leads into it
    mechanism: Mechanism | None = field(default=None, repr=False, compare=False)

    @property
    def first(self) -> Piece:
        """The piece that says what the segment does (its motion, contacts and signs)."""
        return self.pieces[self.lead]

    @property
    def phase(self) -> str:
        return self.first.phase

    @property
    def start(self) -> np.ndarray:
        return self.pieces[0].first.copy()

    @property
    def finish(self) -> np.ndarray:
        return self.pieces[-1].last

    @property
    def start_time(self) -> float:
        return self.pieces[0].time

    @property
    def end_time(self) -> float:
        return self.pieces[-1].time + self.pieces[-1].duration

    def knots(self) -> tuple[np.ndarray, np.ndarray]:
        params = np.concatenate([p.params if i == 0 else p.params[1:] for i, p in enumerate(self.pieces)])
        configs = np.vstack([p.configs if i == 0 else p.configs[1:] for i, p in enumerate(self.pieces)])
        return params, configs

    def __repr__(self) -> str:
        return f"Segment({self.index}, {str(self.phase)!r}, pieces={len(self.pieces)}, end={str(self.end)!r})"



@dataclass(frozen=True)
class TraceStats:
    """Counts behind Table 2 and the cost of the trace."""

    pairs: int
    constraining_pairs: int
    pairwise_regions: int
    potential_regions: int
    explored_regions: int
    nonempty_regions: int
    traversed_regions: int
    lp_solves: int
    pieces: int
    seconds: float


@dataclass(frozen=True)
class Trace:
    """A traced path: its segments, why it ended, statistics, and the measures its reports need.

    ``initial`` is the configuration it started from, ``settled`` the coordinates of parts
    drawn touching that were moved to get there (:mod:`cspace.tracing.start`), and
    ``linkage_tables`` the linkages' solutions, which pose their members at any sample.
    """

    mechanism: Mechanism
    segments: tuple[Segment, ...]
    end_reason: str
    stats: TraceStats
    initial: np.ndarray
    settled: tuple[Settled, ...] = ()
    linkage_tables: dict[str, LinkageTable] = field(default_factory=dict, repr=False, compare=False)
    measures: Measures | None = field(default=None, repr=False, compare=False)

    @classmethod
    def of(cls, analysis: Analysis, pieces: list[Piece], end_reason: str, stats: TraceStats) -> Trace:
        """The trace of ``analysis``'s mechanism along ``pieces``: its segments made, its
        measures ready to be asked for."""
        mechanism = analysis.mechanism
        names = [c.name for c in mechanism.coordinates]
        segments = build_segments(pieces, names, end_reason, analysis.ripple, mechanism)
        start = analysis.initial.copy()
        start.flags.writeable = False
        return cls(mechanism, segments, end_reason, stats, start, analysis.settled, dict(analysis.linkage_tables),
                   Measures(analysis, tuple(pieces)))

    @property
    def pieces(self) -> tuple[Piece, ...]:
        """Every piece of the path, in order."""
        return tuple(piece for segment in self.segments for piece in segment.pieces)

    def samples(self) -> list[tuple[float, int, np.ndarray]]:
        """(time, segment number, configuration) at every sampling step and segment boundary.

        Angles are unwrapped here; :func:`reported` turns them into reported values.
        """
        rows = []
        instant = self.mechanism.tolerance.length / self.mechanism.speed
        for segment in self.segments:
            params, configs = segment.knots()
            step = segment.first.sampling
            origin = segment.first.origin
            lo, hi = params[0], params[-1]
            if (hi - lo) / step + len(rows) > MAX_SAMPLES:
                raise TraceError(f"the path would take more than {MAX_SAMPLES:,} samples "
                                 f"(segment {segment.index} is sampled every {step:g}); "
                                 "use a larger sampling interval or a shorter time allotment",
                                 file=self.mechanism.source, time=segment.start_time)
            k0 = math.floor((lo - origin) / step + NOISE) + 1
            grid = [origin + k * step for k in range(k0, math.ceil((hi - origin) / step - NOISE))]
            # Grid points this close to a boundary are the boundary: times apart by less than
            # the length tolerance over the speed are one instant (an event may land that far
            # from a sampling time through rounding alone).
            near = max(NOISE * max(step, abs(hi)), instant)
            values = [lo] + [g for g in grid if lo + near < g < hi - near] + [hi]
            for value in values:
                q = np.array([np.interp(value, params, configs[:, j]) for j in range(configs.shape[1])])
                time = value if segment.phase == "input" else segment.start_time
                rows.append((float(time), segment.index, q))
        return rows

    def __repr__(self) -> str:
        return f"Trace({self.mechanism.name!r}, segments={len(self.segments)}, end={str(self.end_reason)!r})"



def build_segments(pieces: list[Piece], names: list[str] | None = None, end_reason: str = "",
                   ripple: np.ndarray | None = None, mechanism: Mechanism | None = None) -> tuple[Segment, ...]:
    """Group consecutive pieces of equal behaviour into numbered segments, each with its end.

    ``names`` are the coordinates' names and ``end_reason`` why the trace ended (the last
    segment's end). A stretch whose coordinates reverse by less than ``ripple`` (per
    coordinate), with the same contacts and motion as the stretch before (or, failing
    that, after), belongs to it:
    a part riding over a grown corner of a turning pair's blocked space (within the arc
    tolerance of the real corner) is not a new behaviour.
    """
    drafts: list[tuple[list[Piece], int]] = []  # each segment's pieces and its lead, while they are gathered
    behaviours = _smoothed(pieces, ripple)
    for k, piece in enumerate(pieces):
        if drafts and behaviours[k - 1] == behaviours[k]:
            drafts[-1][0].append(piece)
        else:
            drafts.append(([piece], 0))
        gathered, lead = drafts[-1]
        if gathered[lead].behaviour != behaviours[k] and piece.behaviour == behaviours[k]:
            drafts[-1] = (gathered, len(gathered) - 1)
    segments = [Segment(k + 1, tuple(gathered), "", lead, mechanism) for k, (gathered, lead) in enumerate(drafts)]
    return tuple(replace(segment, end=_ending(segment, following, names, end_reason))
                 for segment, following in zip(segments, segments[1:] + [None]))


def _smoothed(pieces: list[Piece], ripple: np.ndarray | None) -> list[tuple]:
    """Each piece's behaviour, a ripple taking the behaviour of the stretch before it or,
    failing that, after it (a part settling a hair into a grown corner, then carried on),
    and a graze the behaviour of the stretch after it (a pawl riding over the last hair of
    a tooth's grown tip before it drops)."""
    behaviours = [piece.behaviour for piece in pieces]
    if ripple is None or not np.any(ripple):
        return behaviours
    start = 0
    while start < len(pieces):
        end = start
        while end + 1 < len(pieces) and pieces[end + 1].behaviour == pieces[start].behaviour:
            end += 1
        if start and _ripple(pieces[start - 1], pieces[start], pieces[end], ripple):
            behaviours[start:end + 1] = [behaviours[start - 1]] * (end + 1 - start)
        elif end + 1 < len(pieces) and (_ripple(pieces[end + 1], pieces[start], pieces[end], ripple)
                                        or _graze(pieces[start], pieces[end], pieces[end + 1], ripple)):
            behaviours[start:end + 1] = [behaviours[end + 1]] * (end + 1 - start)
        start = end + 1
    return behaviours


def _ripple(beside: Piece, first: Piece, last: Piece, ripple: np.ndarray) -> bool:
    """Does the stretch from ``first`` to ``last`` differ from the piece ``beside`` it only
    in coordinates moving the other way, each by less than its ripple, with its contacts
    and motion?"""
    if (first.phase, first.motion, first.contacts) != (beside.phase, beside.motion, beside.contacts):
        return False
    changed = [j for j, (a, b) in enumerate(zip(beside.signs, first.signs)) if a != b]
    moved = np.abs(last.last - first.first)
    return bool(changed) and all(beside.signs[j] and moved[j] < ripple[j] for j in changed)


def _graze(first: Piece, last: Piece, after: Piece, ripple: np.ndarray) -> bool:
    """Does the stretch from ``first`` to ``last`` move every coordinate by less than its
    ripple, as the piece ``after`` it moves (phase, motion and directions), only touching
    what that piece no longer touches? A contact that ends within the ripple of where the
    stretch began is the grown outline's corner, not a stage of the mechanism."""
    if (first.phase, first.motion, first.signs) != (after.phase, after.motion, after.signs):
        return False
    if not after.contacts < first.contacts:
        return False
    moved = np.abs(last.last - first.first)
    return bool(np.all(moved < ripple))


def _ending(segment: Segment, following: Segment | None, names: list[str] | None, end_reason: str) -> str:
    """What ended a segment, from the last piece's event and how the next segment differs."""
    last = segment.pieces[-1]
    if following is None:
        return end_reason or last.end
    if last.end in (EndReason.INPUT_BLOCKED, EndReason.INPUT_DONE):
        return last.end
    began, ended = contact_changes(segment, following)
    events = [_contact_event(c, "begins") for c in began] + [_contact_event(c, "ends") for c in ended]
    if not events and names is not None:
        events = [f"{names[j]} {verb}" for j, verb in motion_changes(segment, following)]
    return "; ".join(events) or "driving changes"


def contact_changes(segment: Segment, following: Segment) -> tuple[list, list]:
    """The contacts (and stops) that begin and those that end from ``segment`` to the
    ``following`` one, each sorted by name."""
    before, after = segment.first.contacts, following.first.contacts
    return sorted(after - before, key=str), sorted(before - after, key=str)


def motion_changes(segment: Segment, following: Segment) -> list[tuple[int, str]]:
    """The coordinates whose motion changes from ``segment`` to the ``following`` one, with
    how: ``(j, 'stops')``, ``'starts'`` or ``'reverses'``."""
    changes = zip(segment.first.signs, following.first.signs)
    return [(j, "stops" if new == 0 else "starts" if old == 0 else "reverses")
            for j, (old, new) in enumerate(changes) if old != new]


def _contact_event(contact, verb: str) -> str:
    """``contact begins: a.top/b.bottom``, or ``xw reaches its upper limit 8`` for a stop."""
    if isinstance(contact, Stop):
        side = f"its {contact.side} limit {contact.value:g}"
        return f"{contact.coordinate} {'reaches' if verb == 'begins' else 'leaves'} {side}"
    return f"contact {verb}: {contact}"


def wrap(angle: float) -> float:
    """An angle in (-pi, pi]."""
    wrapped = math.remainder(angle, TWO_PI)
    return math.pi if wrapped == -math.pi else wrapped


def reported(value: float, is_angle: bool, inside: float = 0.0) -> float:
    """A coordinate value as reported: angles in (-pi, pi].

    ``inside`` is the direction towards the inside of the segment the value ends;
    at the seam (pi) the value is the limit from that side, so a segment that starts
    at pi turning counterclockwise starts at -pi.
    """
    if not is_angle:
        return value
    base = wrap(value)
    if inside and abs(abs(base) - math.pi) < NOISE:
        return -math.pi if wrap(value + 1e3 * NOISE * inside) < 0 else math.pi
    return base
