"""Everything the tracer needs, built once from a mechanism: linkage tables and pair spaces.

``load -> analyze -> trace``: :func:`analyze` solves the linkages, places the parts in
the initial configuration, checks that nothing overlaps, finds the interacting pairs
and computes their configuration spaces.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from ..model.checks import check_initial_overlaps
from ..model.errors import ModelError
from ..model.mechanism import Mechanism
from ..spaces import parallel
from ..spaces.budget import check_memory, estimate
from ..spaces.builders import build_pairs
from ..spaces.cache import PairCache
from ..spaces.holes import unmet_holes_filled
from ..spaces.linkage import LinkageTable, solve_linkage
from ..spaces.pairs import coordinate_ranges, interacting_pairs
from ..spaces.pairspace import PairSpace
from .friction import Friction, faces_of
from .layout import RegionLayout
from .start import Settled, settle


@dataclass
class Analysis:
    """A mechanism made ready to trace.

    ``initial`` is the configuration vector (coordinates in mechanism order) the trace
    starts from: the drawn values, linkage outputs taken from their tables, and parts
    drawn touching moved to where the pair spaces hold them (``settled`` says which and
    how far: :mod:`cspace.tracing.start`); ``timings`` holds seconds per stage.
    """

    mechanism: Mechanism
    linkage_tables: dict[str, LinkageTable]
    pairs: tuple[PairSpace, ...]
    initial: np.ndarray
    timings: dict[str, float] = field(default_factory=dict)
    settled: tuple[Settled, ...] = ()

    @property
    def constraining_pairs(self) -> tuple[PairSpace, ...]:
        """Pairs whose space imposes some constraint."""
        return tuple(p for p in self.pairs if not p.imposes_nothing)

    @cached_property
    def ripple(self) -> np.ndarray:
        """Per coordinate, how far it may reverse and not be a new behaviour: the arc
        tolerance (over its part's reach, for an angle) for a coordinate of a pair with a
        turning part, whose grown blocked space rounds the real corners by about that;
        zero elsewhere (exact geometry)."""
        out = np.zeros(len(self.mechanism.coordinates))
        for pair in self.pairs:
            if not any(self.mechanism.coordinate(c).is_angle for c in pair.coordinates):
                continue
            for k, name in enumerate(pair.coordinates):
                scale = float(np.abs(pair.matrix[:, k]).max())
                j = self.mechanism.coordinate_index[name]
                limit = self.mechanism.tolerance.arc / scale
                out[j] = limit if not out[j] else min(out[j], limit)
        return out

    @cached_property
    def layout(self) -> RegionLayout:
        """The constraining pairs' rows and points over the coordinates; built once, shared by every trace."""
        return RegionLayout(self.mechanism, self.constraining_pairs)

    def __repr__(self) -> str:
        return (f"Analysis({self.mechanism.name!r}, pairs={len(self.pairs)}, "
                f"constraining={len(self.constraining_pairs)}, linkages={len(self.linkage_tables)})")


def analyze(mechanism: Mechanism, *, cache: PairCache | str | os.PathLike | None = None, workers: int = 1,
            max_memory: float | None = None, progress: bool = False) -> Analysis:
    """Solve linkages, check the initial configuration and build every pair space.

    ``cache`` is a folder (or a :class:`~cspace.spaces.cache.PairCache`) that keeps pair spaces
    for the next analysis of parts alike (:mod:`cspace.spaces.cache`); none by default.
    ``workers`` is how many processes build turning pairs' spaces (this one included:
    :mod:`cspace.spaces.parallel`); the spaces are the same however many. With ``max_memory``
    (bytes), a mechanism whose estimated peak (:mod:`cspace.spaces.budget`: its pair spaces and
    a trace of it) is larger is refused before its pair spaces are built
    (:class:`~cspace.model.errors.BudgetError`). ``progress`` shows a bar on standard error while
    the pair spaces are built.

    >>> from cspace.io.loader import load
    >>> analyze(load("fixtures/feeder.toml"))
    Analysis('feeder', pairs=10, constraining=9, linkages=1)
    """
    timings: dict[str, float] = {}
    workers = parallel.checked(workers)
    try:
        mechanism.validate()  # a mechanism built in Python has not been through the loader
    except ModelError as error:
        raise error.located(file=mechanism.source) from None
    start = time.perf_counter()
    tables = {}
    for linkage in mechanism.linkages:
        try:
            tables[linkage.name] = solve_linkage(mechanism, linkage)
        except ModelError as error:
            raise error.located(file=mechanism.source) from None
    timings["linkages"] = time.perf_counter() - start

    initial = np.array([c.initial for c in mechanism.coordinates], float)
    for table in tables.values():
        initial[mechanism.coordinate_index[table.linkage.output]] = table.assembled
    values = {c.name: float(v) for c, v in zip(mechanism.coordinates, initial)}
    start = time.perf_counter()
    try:
        check_initial_overlaps(mechanism, values)
    except ModelError as error:
        raise error.located(file=mechanism.source) from None
    timings["overlap check"] = time.perf_counter() - start

    start = time.perf_counter()
    ranges = coordinate_ranges(mechanism, tables)
    names = interacting_pairs(mechanism, ranges)
    timings["pairs"] = time.perf_counter() - start
    if max_memory is not None:
        check_memory(estimate(mechanism, names, workers), max_memory, file=mechanism.source)

    start = time.perf_counter()
    spaces = build_pairs(unmet_holes_filled(mechanism, values, names), names,
                         cache=PairCache(cache) if isinstance(cache, (str, os.PathLike)) else cache,
                         workers=workers, progress=progress)
    timings["pair spaces"] = time.perf_counter() - start

    analysis = Analysis(mechanism, tables, spaces, initial, timings)
    analysis.initial, analysis.settled = settle(mechanism, analysis.constraining_pairs, initial,
                                                _set_elsewhere(mechanism))
    _check_sticky_faces_meet(analysis)
    return analysis


def _check_sticky_faces_meet(analysis: Analysis) -> None:
    """Refuse a part none of whose sticky faces meets a sticky face of another part: its
    friction could never act (a face misnamed, or marked on the wrong part). They meet
    where a contact of a pair space names sticky faces of both parts, or where they touch
    with no row of a pair space between them, at the start or slid there (a sticky piston
    lying on a sticky table: :meth:`cspace.tracing.friction.Friction.rowless` and ``arriving``).
    A part marked sticky all round may have faces that never meet one."""
    mechanism = analysis.mechanism
    if not any(p.sticky for p in mechanism.parts):
        return
    friction = Friction(mechanism)
    met: set[tuple[str, str]] = set()
    for pair in analysis.pairs:
        for region in pair.regions:
            for edge in region.edges:
                for contact in edge.contacts:
                    if friction.sticky(contact):
                        met.update((contact.part_a, face) for face in faces_of(contact.faces_a))
                        met.update((contact.part_b, face) for face in faces_of(contact.faces_b))
    for part, face, other, its in friction.arriving(analysis.initial):
        met.update({(part, face), (other, its)})
    for grip in friction.rowless(analysis.initial):
        met.update((grip.contact.part_a, face) for face in grip.contact.faces_a)
        met.update((grip.contact.part_b, face) for face in grip.contact.faces_b)
    for part in mechanism.parts:
        if part.sticky and not any((part.name, face) in met for face in part.sticky):
            raise ModelError(f"none of its sticky faces ({', '.join(sorted(part.sticky))}) ever touches a sticky "
                             "face of another part, so friction could never act", file=mechanism.source,
                             where=f"part {part.name!r}", field="sticky")


def _set_elsewhere(mechanism: Mechanism) -> set[str]:
    """Coordinates a drawn start may not be moved along: those an input drives or a linkage sets."""
    driven = {name for motion in mechanism.inputs for name, _ in motion.velocities}
    return driven | {c for linkage in mechanism.linkages for c in (linkage.input, linkage.output)}
