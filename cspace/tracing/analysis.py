"""Everything the tracer needs, built once from a mechanism: linkage tables and pair spaces.

``load -> analyze -> trace``: :func:`analyze` solves the linkages, places the parts in
the initial configuration, checks that nothing overlaps, finds the interacting pairs
and computes their configuration spaces.
"""

from __future__ import annotations

import math
import os
import sys
import time
from dataclasses import dataclass, field, replace
from fractions import Fraction
from functools import cached_property

import numpy as np
from tqdm import tqdm

from ..kernels.contact_curves import Shape
from ..kernels.minkowski import ConvexPiece, SumPolygon, convex_pieces, minkowski_difference, outlines, snapped
from ..kernels.symmetry import Symmetry, drawn_order, order, sector, symmetry
from ..model.checks import check_initial_overlaps, check_profiles, overlap_depth, posed
from ..model.errors import CspaceError, ModelError, UnsupportedPairError
from ..model.geometry import Arc, region_of
from ..model.mechanism import Coordinate, Mechanism, Part, Slice
from ..model.poses import shift_of
from ..spaces import cache, parallel
from ..spaces.budget import check_memory, estimate
from ..spaces.cache import PairCache
from ..spaces.holes import unmet_holes_filled
from ..spaces.layers import band_parts, meeting, shifted_pair_space
from ..spaces.linkage import LinkageTable, solve_linkage
from ..spaces.pairs import coordinate_ranges, interacting_pairs
from ..spaces.pairspace import PairSpace, translation_pair_space
from ..spaces.rotation import Cell, RotationBuilder
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
    try:
        check_profiles(mechanism)  # a mechanism built in Python has not been through the loader
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
    reduced = unmet_holes_filled(mechanism, values, names)
    builder = _PairBuilder(reduced, PairCache(cache) if isinstance(cache, (str, os.PathLike)) else cache,
                           parallel.checked(workers))
    with parallel.collector_paused():
        builder.prefetch([(reduced.part(a), reduced.part(b)) for a, b in names])
        spaces = tuple(builder.build(reduced.part(a), reduced.part(b))
                       for a, b in tqdm(names, desc="pair spaces", unit="pair", disable=not progress,
                                        file=sys.stderr, leave=False))
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


def _faces(part: Part) -> int:
    """How many lines and arcs a part is drawn with: what its pair spaces' cost grows with."""
    return sum(len(profile.elements) for piece in part.slices for profile in piece.profiles)


GRID_ROUNDING = 2.0  # grid steps a rounded vertex may stand off the line it was on (input rounding is far below one)


class _PairBuilder:
    """Pair spaces of translating pairs, each shape computed once.

    Parts of the same shapes moving along the same axes have the same pair space up
    to names (the blocks of a magazine, each against the next), so a space is
    computed once per shape, kept on disk, and relabelled for each pair.
    """

    def __init__(self, mechanism: Mechanism, cache: PairCache | None, workers: int) -> None:
        self.mechanism = mechanism
        self.tolerance = mechanism.tolerance
        self.cache = cache
        self.workers = workers
        self._pieces: dict[tuple[str, int], list[ConvexPiece]] = {}
        self._shapes: dict[tuple[str, int], Shape] = {}
        self._spaces: dict[str, PairSpace] = {}
        self._orders: dict[tuple[str, tuple[int, ...]], int] = {}
        self._digests: dict[tuple, tuple[Part, Part, bool, str]] = {}
        self._bands: dict[tuple[str, str], list] = {}

    def build(self, a: Part, b: Part) -> PairSpace:
        """The pair space of ``a`` and ``b``: shared with same-shaped pairs, from the disk cache when there."""
        coordinates = self._coordinates(a, b)
        if any(self.mechanism.coordinate(c).along_z for c in coordinates):
            return self.shifted(a, b, coordinates)
        rotating, digest = self._digest(a, b, coordinates)
        space = self._spaces.get(digest)
        if space is None:
            space = self.cache.load(digest) if self.cache else None
            if space is None:
                space = self.rotating(a, b, coordinates) if rotating else self.compute(a, b)
                if self.cache:
                    self.cache.store(digest, space)
            self._spaces[digest] = space
        return space.relabeled(a.name, b.name, coordinates)

    def _digest(self, a: Part, b: Part, coordinates: tuple[str, ...]) -> tuple[bool, str]:
        """Whether a part of the pair turns, and the key of its space (see :func:`cache.key`),
        found once per pair of parts (a gear's slices take a while to hash)."""
        memo = (id(a), id(b), coordinates)
        if memo not in self._digests:
            rotating = any(self.mechanism.coordinate(c).is_angle for c in coordinates)
            if rotating:
                self._check_dimension(a, b, coordinates)
                motion = self._motion(a, coordinates)
            else:
                motion = self._columns(a, coordinates)
            digest = cache.key(a.slices, b.slices, motion, self.tolerance, self.mechanism.origin)
            self._digests[memo] = (a, b, rotating, digest)  # the parts kept, so their ids stay theirs
        return self._digests[memo][2:]

    def _band_parts(self, a: Part, b: Part) -> list[tuple[float, float, tuple, Part, Part]]:
        """A shifting pair's bands and the parts as they meet in each (:func:`band_parts`), made once."""
        if (a.name, b.name) not in self._bands:
            self._bands[(a.name, b.name)] = band_parts(self.mechanism, a, b)
        return self._bands[(a.name, b.name)]

    def prefetch(self, pairs: list[tuple[Part, Part]]) -> None:
        """Compute the turning pair spaces the pairs need (a shifting pair's bands' too) and
        no cache holds, several at once (:mod:`cspace.spaces.parallel`); :meth:`build` then finds
        them. A space whose worker failed is left for :meth:`build`, which raises its error."""
        jobs: dict[str, tuple[Part, Part, tuple[str, ...]]] = {}
        for a, b in pairs:
            shifts = [shift_of(self.mechanism, part) for part in (a, b)]
            if all(shifts):
                continue  # refused by build
            planar = [(pa, pb) for *_, met, pa, pb in self._band_parts(a, b) if met] \
                if any(shifts) else [(a, b)]
            for pa, pb in planar:
                names = self._coordinates(pa, pb)
                try:
                    rotating, digest = self._digest(pa, pb, names)
                except ModelError:
                    continue  # build raises it, in its turn
                if rotating and digest not in self._spaces and digest not in jobs:
                    cached = self.cache.load(digest) if self.cache else None
                    if cached is not None:
                        self._spaces[digest] = cached
                    else:
                        jobs[digest] = (pa, pb, names)
        if len(jobs) < 2:
            return
        # The costliest first: it is built here. The workers send back cells, laid out here.
        order = sorted(jobs, key=lambda digest: -_faces(jobs[digest][0]) * _faces(jobs[digest][1]))
        tasks = [lambda job=jobs[digest], k=k: self._attempt(*job, laid_out=k == 0) for k, digest in enumerate(order)]
        for digest, computed in zip(order, parallel.run(tasks, self.workers)):
            if computed is not None:
                space = computed.space() if isinstance(computed, Cell) else computed
                if self.cache:
                    self.cache.store(digest, space)
                self._spaces[digest] = space

    def _attempt(self, a: Part, b: Part, coordinates: tuple[str, ...], laid_out: bool) -> PairSpace | Cell | None:
        """The turning pair's space (or, unless ``laid_out``, its first cell: what a worker
        sends back), or None where it cannot be built (build says why)."""
        try:
            builder = self._rotation(a, b, coordinates)
            return builder.build() if laid_out else builder.computed()
        except CspaceError:
            return None

    def _coordinates(self, a: Part, b: Part) -> tuple[str, ...]:
        """The pair's coordinates, in mechanism order (a part carried into a band of a shift
        has lost its shift)."""
        own = set(a.coordinates) | set(b.coordinates)
        return tuple(c.name for c in self.mechanism.coordinates if c.name in own)

    def shifted(self, a: Part, b: Part, coordinates: tuple[str, ...]) -> PairSpace:
        """The pair space of a pair one of whose parts shifts along z (:mod:`cspace.spaces.layers`)."""
        if shift_of(self.mechanism, a) is not None and shift_of(self.mechanism, b) is not None:
            raise UnsupportedPairError("both parts shift along z; at most one part of a pair may shift",
                                       file=self.mechanism.source, where=f"parts {a.name!r} and {b.name!r}",
                                       field="coordinates")
        return shifted_pair_space(self.mechanism, a, b, coordinates, self.build, self._clear, self._band_parts(a, b))

    def _clear(self, a: Part, b: Part) -> bool:
        """Do the slices of two parts with no planar coordinate that meet in z clear each other?"""
        overlap = self.mechanism.tolerance.overlap
        return all(overlap_depth(posed(self.mechanism, a, i, {}), posed(self.mechanism, b, j, {}),
                                 self.tolerance.quantum) <= overlap for i, j in meeting(a, b, 0.0))

    def rotating(self, a: Part, b: Part, coordinates: tuple[str, ...]) -> PairSpace:
        """The pair space of a pair in which a part turns (:mod:`cspace.spaces.rotation`)."""
        return self._rotation(a, b, coordinates).build()

    def _rotation(self, a: Part, b: Part, coordinates: tuple[str, ...]) -> RotationBuilder:
        """The builder of a turning pair's space: its parts' exact shapes, symmetries and reach."""
        slices = {part.name: [i for i, s in enumerate(part.slices) if _layers_meet(s, a if part is b else b)]
                  for part in (a, b)}
        shapes = {part.name: [self.shape(part, i) for i in slices[part.name]] for part in (a, b)}
        reach = {part.name: self._reach(part, shapes[part.name]) for part in (a, b)}
        repeats = {part.name: self._symmetry(part, slices[part.name], shapes[part.name], reach[part.name])
                   for part in (a, b)}
        exact = {name: [self._exact(name, i, s) for i, s in zip(slices[name], shapes[name])] for name in shapes}
        repeats = {name: (r[0], [self._exact(name, i, s) for i, s in zip(slices[name], r[1])])
                   for name, r in repeats.items() if r is not None}
        return RotationBuilder(self.mechanism, a, b, coordinates, exact[a.name], exact[b.name], reach, repeats)

    def _exact(self, name: str, index: int, shape: Shape) -> Shape:
        """A slice's shape (or sector) with its flattened arcs made arcs again, for exact contact curves."""
        ox, oy = self.mechanism.origin
        quantum = self.tolerance.quantum
        circles: dict[str, list] = {}
        for profile in self.mechanism.part(name).slices[index].oriented:
            for element in profile.elements:
                if isinstance(element, Arc):
                    # on the grid, as the outline is: the same shape wherever the mechanism is drawn
                    center = tuple(round((c - o) / quantum) * quantum for c, o in zip(element.center, (ox, oy)))
                    start = math.atan2(element.start[1] - element.center[1], element.start[0] - element.center[0])
                    sweep = element.sweep if element.ccw else -element.sweep
                    circles.setdefault(element.name, []).append((center, round(element.radius / quantum) * quantum,
                                                                 start, sweep))
        return shape.with_arcs(circles, GRID_ROUNDING * self.tolerance.quantum, self.tolerance.rotation_arc)

    def _symmetry(self, part: Part, indices: list[int], shapes: list[Shape],
                  reach: float) -> tuple[Symmetry, list[Shape]] | None:
        """A freely turning part's rotational symmetry about its pivot (on its drawing, else
        on its real outline: :mod:`cspace.kernels.symmetry`) and its sectors, one per slice; None
        when it has none."""
        angle = next((self.mechanism.coordinate(c) for c in part.coordinates
                      if self.mechanism.coordinate(c).is_angle), None)
        if angle is None or not angle.periodic or not shapes:
            return None
        ox, oy = self.mechanism.origin
        pivot = np.array([angle.pivot[0] - ox, angle.pivot[1] - oy])
        key = (part.name, tuple(indices))
        if key not in self._orders:  # a part meets several others with the same slices
            fine = self.tolerance.length
            n = drawn_order([part.slices[i].oriented for i in indices], angle.pivot, fine)
            if n == 1:
                n = order([region_of(part.slices[i].profiles, fine, (ox, oy)) for i in indices], tuple(pivot))
            self._orders[key] = n
        n = self._orders[key]
        if n == 1:
            return None
        tables = [symmetry(shape, pivot, n) for shape in shapes]
        merged = Symmetry(n, tuple({k: v for t in tables for k, v in t.faces[j].items()} for j in range(n)))
        return merged, [sector(shape, pivot, n, reach) for shape in shapes]


    def shape(self, part: Part, index: int) -> Shape:
        """A slice's outline, arcs flattened within the rotation budget, in lengths relative
        to the mechanism's origin."""
        key = (part.name, index, part.slices[index].z)
        if key not in self._shapes:
            ox, oy = self.mechanism.origin
            arc, quantum = self.tolerance.rotation_arc, self.tolerance.quantum
            polylines = [replace(polyline, vertices=tuple((x - ox, y - oy) for x, y in polyline.vertices))
                         for polyline in (p.polyline(arc) for p in part.slices[index].oriented)]
            rings = [(np.array(ring.vertices, float) * quantum, ring.vertex_features, ring.edge_faces)
                     for ring in outlines(polylines, quantum, GRID_ROUNDING)]
            self._shapes[key] = Shape.of(rings, part.slices[index].z)
        return self._shapes[key]

    def _reach(self, part: Part, shapes: list[Shape]) -> float:
        """How far the part's material reaches from its pivot (its size when it does not turn)."""
        pivot = next((self.mechanism.coordinate(c).pivot for c in part.coordinates
                      if self.mechanism.coordinate(c).is_angle), None)
        if pivot is None or not shapes:
            return self.tolerance.size
        ox, oy = self.mechanism.origin
        centre = np.array([pivot[0] - ox, pivot[1] - oy])
        return max(float(np.max(np.hypot(*(s.vertices - centre).T))) for s in shapes)

    def _motion(self, a: Part, coordinates: tuple[str, ...]) -> list[Coordinate]:
        """The pair's coordinates as the builder of a turning pair reads them, for its cache
        key: every field (axis, pivot, limits, ...) but the names, which a space is relabelled
        for (its part is "a" or "b"), and the initial value, which no builder reads."""
        return [replace(c, name="", part="a" if c.part == a.name else "b", initial=0.0)
                for c in map(self.mechanism.coordinate, coordinates)]

    def _check_dimension(self, a: Part, b: Part, coordinates: tuple[str, ...]) -> None:
        if len(coordinates) > 2:
            raise UnsupportedPairError(
                f"their configuration space would have {len(coordinates)} dimensions "
                f"({', '.join(coordinates)}); a pair with a turning part may have at most two (put the parts in "
                "different z-layers if they never touch)", file=self.mechanism.source,
                where=f"parts {a.name!r} and {b.name!r}", field="coordinates")

    def compute(self, a: Part, b: Part) -> PairSpace:
        """The pair space of two translating parts: open Minkowski sums of their pieces, cut."""
        coordinates = self._coordinates(a, b)
        slack = self.tolerance.length / self.tolerance.quantum  # faces this close to parallel touch face to face
        polygons: list[SumPolygon] = []
        for i, sa in enumerate(a.slices):
            for j, sb in enumerate(b.slices):
                if sa.z[0] < sb.z[1] and sb.z[0] < sa.z[1]:
                    for pa in self.pieces(a, i):
                        for pb in self.pieces(b, j):
                            polygons.append(minkowski_difference(pa, pb, slack))
        return translation_pair_space(a.name, b.name, coordinates, self._columns(a, coordinates),
                                      snapped(polygons, slack / 10), self.tolerance.quantum, slack / 10)

    def _columns(self, a: Part, coordinates: tuple[str, ...]) -> list[tuple[Fraction, Fraction]]:
        """How each coordinate moves B relative to A, exactly."""
        columns = []
        for name in coordinates:
            coordinate = self.mechanism.coordinate(name)
            sign = -1 if coordinate.part == a.name else 1
            columns.append((sign * Fraction(coordinate.axis[0]), sign * Fraction(coordinate.axis[1])))
        return columns

    def pieces(self, part: Part, index: int) -> list[ConvexPiece]:
        key = (part.name, index)
        if key not in self._pieces:
            # Relative to the mechanism's origin: A - B is unchanged by a shift of both, and
            # parts drawn far out keep their precision on the grid (and its integer range).
            ox, oy = self.mechanism.origin
            polylines = [replace(polyline, vertices=tuple((x - ox, y - oy) for x, y in polyline.vertices))
                         for polyline in (p.polyline(self.tolerance.arc) for p in part.slices[index].oriented)]
            self._pieces[key] = convex_pieces(polylines, self.tolerance.quantum, GRID_ROUNDING)
        return self._pieces[key]


def _layers_meet(slice_: Slice, other: Part) -> bool:
    """Does the slice overlap one of the other part's slices in z?"""
    return any(slice_.z[0] < s.z[1] and s.z[0] < slice_.z[1] for s in other.slices)


def _set_elsewhere(mechanism: Mechanism) -> set[str]:
    """Coordinates a drawn start may not be moved along: those an input drives or a linkage sets."""
    driven = {name for motion in mechanism.inputs for name, _ in motion.velocities}
    return driven | {c for linkage in mechanism.linkages for c in (linkage.input, linkage.output)}
