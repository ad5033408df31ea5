"""Parts that shift along z (a gear sliding on its shaft): which slices of two parts meet
over which stretch of the shift, and the pair space over (planar coordinates, shift)
assembled from one planar pair space per stretch.

A shift carries its part's slices up the z axis by its value. Two slices meet (overlap
in z with positive length) over an open interval of the relative shift ``r``, B's
shift less A's. The ends of those intervals cut ``r``'s travel into *bands* within
which the same slices meet, and the pair's free space is, band by band, the planar
free space of the slices meeting there times the band's closed interval of ``r``:
each of the band's planar regions with two rows added, ``lo <= r <= hi``. So the
pair space gains the shift's coordinate only for a pair one of whose parts shifts,
and its region count is the sum of its bands' planar counts (one for a band where
nothing meets).

Where two bands meet, a configuration belongs to the regions of each band in which it
is free. Moving across into a band where the planar configuration is blocked is a
contact in z, the top face of one slice on the bottom face of the other, reported as
``slices[j].top``/``slices[i].bottom``: a shifted gear is blocked until its teeth line
up with the gear it is to engage. (At the end itself fewer slices meet than on either
side, so a configuration blocked on both sides would be free there alone; such a
configuration is taken as blocked, which loses nothing a motion of nonzero length
could use.)

Whether the z faces at a band's end touch changes along the end, where the band
beyond turns from blocked to free, and no row of the band's regions shows it: a step
moving along the end is cut there (:meth:`ShiftedPairSpace.z_change`, asked by the
tracer), so that a spring-loaded pin sliding under a plate rises into the first hole
it fits.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from functools import cached_property

import numpy as np

from ..model.mechanism import Coordinate, Mechanism, Part
from ..model.poses import shift_of, z_travel
from .pairspace import Contact, PairSpace, Region, RegionEdge

FAR = 1e30
SlicePair = tuple[int, int]


def meeting(a: Part, b: Part, r: float) -> tuple[SlicePair, ...]:
    """Slices (index in a, index in b) that overlap in z with B carried up by ``r`` relative to A.

    >>> from cspace.model.mechanism import Slice
    >>> a = Part("a", "fixed", (Slice((0, 1), ()), Slice((4, 5), ())))
    >>> b = Part("b", "fixed", (Slice((0, 1), ()), Slice((2, 3), ())))
    >>> meeting(a, b, 0.5), meeting(a, b, 1.0), meeting(a, b, 1.5)
    (((0, 0),), (), ((1, 1),))
    """
    return tuple((i, j) for i, sa in enumerate(a.slices) for j, sb in enumerate(b.slices)
                 if sa.z[0] < sb.z[1] + r and sb.z[0] + r < sa.z[1])


def layers_may_meet(mechanism: Mechanism, a: Part, b: Part) -> bool:
    """Can some slice of ``a`` overlap some slice of ``b`` in z over the parts' shifts?"""
    (a0, a1), (b0, b1) = z_travel(mechanism, a), z_travel(mechanism, b)
    low, high = b0 - a1, b1 - a0
    return any(sa.z[0] - sb.z[1] < high and low < sa.z[1] - sb.z[0] for sa in a.slices for sb in b.slices)


def bands(a: Part, b: Part, low: float, high: float) -> list[tuple[float, float, tuple[SlicePair, ...]]]:
    """The stretches of ``r`` in ``[low, high]`` within which the same slices meet, as
    ``(lo, hi, meeting)``: the first band open to -inf, the last to +inf (the shift's
    limits bound it), neighbours with the same slices meeting merged.

    >>> from cspace.model.mechanism import Slice
    >>> a = Part("a", "fixed", (Slice((0.0, 1.0), ()), Slice((4.0, 5.0), ())))
    >>> b = Part("b", "fixed", (Slice((0.0, 1.0), ()), Slice((2.0, 3.0), ())))
    >>> bands(a, b, 0.0, 2.0)
    [(-inf, 1.0, ((0, 0),)), (1.0, inf, ((1, 1),))]
    """
    ends = sorted({e for sa in a.slices for sb in b.slices
                   for e in (sa.z[0] - sb.z[1], sa.z[1] - sb.z[0]) if low <= e <= high})
    cuts = [-math.inf] + ends + [math.inf]
    out: list[tuple[float, float, tuple[SlicePair, ...]]] = []
    for lo, hi in zip(cuts, cuts[1:]):
        met = meeting(a, b, (max(lo, low) + min(hi, high)) / 2)
        if out and out[-1][2] == met:
            out[-1] = (out[-1][0], hi, met)
        else:
            out.append((lo, hi, met))
    return out


def carried(part: Part, r: float, shift: Coordinate | None) -> Part:
    """The part with its slices carried up z by ``r`` and without its shift: how it meets
    the other part within one band, for the planar pair space."""
    slices = tuple(replace(s, z=(s.z[0] + r, s.z[1] + r)) for s in part.slices)
    coordinates = tuple(c for c in part.coordinates if shift is None or c != shift.name)
    return replace(part, slices=slices, coordinates=coordinates)


@dataclass(frozen=True)
class Band:
    """A stretch ``lo <= r <= hi`` of a shifted pair, the slices meeting there and their
    planar pair space (None when the pair has no planar coordinate: then ``free`` says
    whether the slices meeting clear each other). ``transform`` takes the shifted space's
    planar point to this band's; ``first`` is the index of its first region."""

    lo: float
    hi: float
    slices: tuple[SlicePair, ...]
    space: PairSpace | None
    free: bool
    transform: np.ndarray
    first: int = 0

    @cached_property
    def identity(self) -> bool:
        return self.transform.shape[0] == self.transform.shape[1] and \
            bool(np.array_equal(self.transform, np.eye(len(self.transform))))

    def planar(self, point: np.ndarray) -> np.ndarray:
        return self.transform @ point[:-1]

    def blocks(self, point: np.ndarray, tolerance: float) -> bool:
        """Is the planar configuration of ``point`` blocked in this band (not even touching)?"""
        if self.space is None:
            return not self.free
        return not self.space.regions_at(self.planar(point), tolerance)

    def first_change(self, point: np.ndarray, rate: np.ndarray, horizon: float, tolerance: float) -> float:
        """When, moving from ``point`` at ``rate`` (the shifted space's axes, the shift held),
        the planar configuration first turns from free to blocked in this band or back:
        where the z faces of parts resting on each other start or stop touching. ``horizon``
        when not before then (or never: a band without planar space does not change)."""
        if self.space is None:
            return horizon
        a, b = self.planar(point), self.transform @ rate[:-1]
        speed = float(np.linalg.norm(b))
        if speed == 0.0:
            return horizon
        far = min(horizon, FAR / speed)
        ends = np.array([a, a + far * b])
        box = list(ends.min(axis=0) - tolerance) + list(ends.max(axis=0) + tolerance)
        spans: list[tuple[float, float]] = []
        for i in self.space.candidates(box):
            region = self.space.geometry[i]
            ra, rb = region.rows @ a, region.rows @ b
            room = region.bounds - ra  # exact: a step ends on the edge, not a tolerance past it
            if np.any((np.abs(rb) <= 1e-15) & (room < 0)):
                continue
            ahead, behind = rb > 1e-15, rb < -1e-15
            lo = float(np.max(room[behind] / rb[behind])) if np.any(behind) else -math.inf
            hi = float(np.min(room[ahead] / rb[ahead])) if np.any(ahead) else math.inf
            spans.append((lo, hi))
        least = tolerance / speed  # a change closer than the tolerance is where the motion starts
        spans = sorted((lo, hi) for lo, hi in spans if lo <= hi and hi > least)
        inside = [(lo, hi) for lo, hi in spans if lo <= least]
        if inside:  # free now: until the spans holding the point, joined, end
            end = max(hi for _, hi in inside)
            for lo, hi in spans:
                if lo <= end:
                    end = max(end, hi)
            return min(end, horizon)
        later = [lo for lo, _ in spans if lo > least]
        return min(min(later, default=math.inf), horizon)

    def __repr__(self) -> str:
        return f"Band({self.lo!r}, {self.hi!r}, slices={self.slices!r}, free={self.free})"


@dataclass(frozen=True)
class ZEnd:
    """A band region's row at an end of its band, and what lies beyond: the neighbouring
    band, and the contact of the slices' z faces where that band blocks the configuration."""

    row: int
    beyond: Band
    contacts: tuple[Contact, ...]

    def __repr__(self) -> str:
        return f"ZEnd(row={self.row}, {', '.join(map(str, self.contacts))})"


@dataclass(frozen=True, init=False)
class ShiftedRegion(Region):
    """A region of a shifted pair: a planar region of its band times the band's stretch of
    the shift. ``edges`` are the planar region's (in its band's planar coordinates)."""

    band: Band | None = None
    planar_index: int = -1
    ends: tuple[ZEnd, ...] = field(default=())

    def __init__(self, name: str, rows: np.ndarray, bounds: np.ndarray, vertices: np.ndarray,
                 edges: tuple[RegionEdge, ...], dimension: int, bbox: tuple[float, ...], band: Band | None = None,
                 planar_index: int = -1, ends: tuple[ZEnd, ...] = ()) -> None:
        super().__init__(name, rows, bounds, vertices, edges, dimension, bbox)
        fields = self.__dict__  # frozen, set once (see RegionEdge)
        fields["band"], fields["planar_index"], fields["ends"] = band, planar_index, ends

    def contacts_at(self, point: np.ndarray, tolerance: float) -> tuple[RegionEdge, ...]:
        found: tuple[RegionEdge, ...] = ()
        if self.band.space is not None:
            found = self.band.space.geometry[self.planar_index].contacts_at(self.band.planar(point), tolerance)
        return found + self.z_contacts(point, tolerance)

    def z_contacts(self, point: np.ndarray, tolerance: float) -> tuple[RegionEdge, ...]:
        """The z faces touching at ``point``: at an end of the band, where the band beyond blocks it."""
        slack = self.bounds - self.rows @ point
        return tuple(RegionEdge(end.row, tuple(point), tuple(point), end.contacts) for end in self.ends
                     if slack[end.row] <= tolerance and end.beyond.blocks(point, tolerance))

    def __repr__(self) -> str:
        return f"ShiftedRegion({self.name!r}, dimension={self.dimension}, rows={len(self.bounds)})"


@dataclass(frozen=True)
class ShiftedPairSpace(PairSpace):
    """The pair space of two parts one of which shifts along z: the planar pair space of
    each band of the shift, times the band (see the module's docstring). Its last axis is
    the relative shift ``r``; its other axes are the first computed band's planar axes.

    Not shared between pairs of the same shapes, as a computed translating or turning
    space is: its bands are each such a space, shared as they are.
    """

    bands: tuple[Band, ...] = ()

    def __post_init__(self) -> None:
        """No index of its own: a point's regions are found band by band, in each band's space."""

    @property
    def shifts(self) -> bool:
        return True

    def regions_at(self, point: np.ndarray, tolerance: float) -> list[int]:
        r = point[-1]
        found = []
        for band in self.bands:
            if band.lo - tolerance <= r <= band.hi + tolerance:
                if band.space is None:
                    found.extend([band.first] if band.free else [])
                else:
                    found.extend(band.first + i for i in band.space.regions_at(band.planar(point), tolerance))
        return [i for i in found if self.geometry[i].contains(point, tolerance)]

    def contacts_in(self, index: int, point: np.ndarray, tolerance: float) -> frozenset[Contact]:
        region = self.geometry[index]
        band = region.band
        found = set(band.space.contacts_in(region.planar_index, band.planar(point), tolerance)) \
            if band.space is not None else set()
        found.update(c for edge in region.z_contacts(point, tolerance) for c in edge.contacts)
        return frozenset(found)

    def z_change(self, index: int, point: np.ndarray, rate: np.ndarray, horizon: float, tolerance: float) -> float:
        """When a configuration at an end of region ``index``'s band, moving at ``rate``
        along it (the shift held), first meets a change beyond that end: the z faces of
        the slices that would meet there start or stop touching (a pin sliding under a
        plate reaches a hole: its spring may lift it in). ``horizon`` if not before."""
        for end in self._resting(index, point, rate, tolerance):
            horizon = min(horizon, end.beyond.first_change(point, rate, horizon, tolerance))
        return horizon

    def _resting(self, index: int, point: np.ndarray, rate: np.ndarray, tolerance: float) -> list[ZEnd]:
        """The ends of region ``index``'s band the configuration rests on while moving
        along them (the shift held, the planar point moving)."""
        region = self.geometry[index]
        if not len(region.ends) or abs(rate[-1]) > 1e-15 * (1.0 + float(np.abs(rate).max())) or \
                not np.any(rate[:-1]):
            return []
        slack = region.bounds - region.rows @ point
        return [end for end in region.ends if slack[end.row] <= tolerance]

    def sliding(self, index: int, point: np.ndarray, rate: np.ndarray, tolerance: float) -> bool:
        """Does the configuration move along an end of its band (the parts sliding on a z face,
        or past where one would start)?"""
        return bool(self._resting(index, point, rate, tolerance))

    def relabeled(self, part_a: str, part_b: str, coordinates: tuple[str, ...]) -> PairSpace:
        if (part_a, part_b, coordinates) != (self.part_a, self.part_b, self.coordinates):
            raise ValueError("a shifted pair space is built for its own pair")
        return self

    def __repr__(self) -> str:
        return (f"ShiftedPairSpace({self.name!r}, coordinates={self.coordinates!r}, bands={len(self.bands)}, "
                f"regions={len(self.geometry)})")


def band_parts(mechanism: Mechanism, a: Part, b: Part) -> list[tuple[float, float, tuple[SlicePair, ...], Part, Part]]:
    """The bands of a pair one of whose parts shifts (see :func:`bands`), each with the two
    parts as they meet within it (:func:`carried`): what a band's planar space is of."""
    shift = next(c for c in (shift_of(mechanism, a), shift_of(mechanism, b)) if c is not None)
    sign = 1.0 if shift.part == b.name else -1.0
    low, high = sorted((sign * shift.limits[0], sign * shift.limits[1]))
    out = []
    for lo, hi, met in bands(a, b, low, high):
        inside = (max(lo, low) + min(hi, high)) / 2
        pa, pb = (carried(a, 0.0, shift), carried(b, inside, shift)) if sign > 0 else \
            (carried(a, -inside, shift), carried(b, 0.0, shift))
        out.append((lo, hi, met, pa, pb))
    return out


def shifted_pair_space(mechanism: Mechanism, a: Part, b: Part, coordinates: tuple[str, ...],
                       bands: list[tuple[float, float, tuple[SlicePair, ...], PairSpace | None, bool]]
                       ) -> ShiftedPairSpace:
    """The pair space of ``a`` and ``b``, one of which shifts along z (at most one shift
    to a pair), from its bands: each ``(lo, hi, met, space, free)``, the band's ends along
    the relative shift, the slices that meet there, the planar pair space of the parts as
    they meet there (None where no slices meet, or the parts have no planar coordinate),
    and whether the band is free (no slices meet, or they clear each other).
    """
    shift = next(c for c in (shift_of(mechanism, a), shift_of(mechanism, b)) if c is not None)
    sign = 1.0 if shift.part == b.name else -1.0
    planar_names = tuple(c for c in coordinates if c != shift.name)
    raw = bands
    spaces = [s for *_, s, _ in raw if s is not None]
    base = spaces[0].matrix if spaces else np.zeros((0, len(planar_names)))
    dims = base.shape[0]
    columns = [coordinates.index(c) for c in planar_names]
    matrix = np.zeros((dims + 1, len(coordinates)))
    matrix[:dims, columns] = base
    matrix[dims, coordinates.index(shift.name)] = sign
    periods = (spaces[0].periods or (0.0,) * dims if spaces else ()) + (0.0,)
    made = []
    first = 0
    for lo, hi, met, space, free in raw:
        transform = _transform(space.matrix, base) if space is not None else np.eye(dims)
        count = len(space.geometry) if space is not None else int(free)
        made.append(Band(lo, hi, met, space, free, transform, first))
        first += count
    regions: list[ShiftedRegion] = []
    for k, band in enumerate(made):
        ends = _ends(band, made[k - 1] if k else None, made[k + 1] if k + 1 < len(made) else None, a, b)
        planar_regions = band.space.geometry if band.space is not None else \
            ([_point_region(dims)] if band.free else [])
        regions.extend(_lifted(planar_regions, band, ends, len(regions)))
    return ShiftedPairSpace(a.name, b.name, coordinates, matrix, tuple(regions), (), periods, bands=tuple(made))


def _transform(matrix: np.ndarray, base: np.ndarray) -> np.ndarray:
    """``T`` with ``matrix = T @ base``: a band's planar axes from the first band's (they
    differ by scales: a turning part's angle is scaled by the reach of its slices)."""
    transform, *_ = np.linalg.lstsq(base.T, matrix.T, rcond=None)
    transform = transform.T
    if not np.allclose(transform @ base, matrix, rtol=1e-12, atol=1e-12 * float(np.abs(matrix).max())):
        raise ValueError("the bands of a shifted pair have planar spaces on different axes")
    return transform


def _point_region(dims: int) -> Region:
    return Region("r1", np.zeros((0, dims)), np.zeros(0), np.zeros((1, dims)), (), 0, (-FAR,) * dims + (FAR,) * dims)


def _ends(band: Band, below: Band | None, above: Band | None, a: Part, b: Part
          ) -> list[tuple[float, float, Band | None, tuple[Contact, ...]]]:
    """The band's finite ends, top first: the row's sign and value, the band beyond and the
    contacts of the z faces that start to meet there."""
    ends = []
    for side, value, beyond in ((1.0, band.hi, above), (-1.0, band.lo, below)):
        if math.isfinite(value):
            entering = _z_contacts(a, b, set(beyond.slices) - set(band.slices), side) if beyond is not None else ()
            ends.append((side, value, beyond, entering))
    return ends


def _lifted(planar: list[Region] | tuple[Region, ...], band: Band,
            ends: list[tuple[float, float, Band | None, tuple[Contact, ...]]], number: int) -> list[ShiftedRegion]:
    """A band's planar regions times the band, numbered from ``number``: each one's rows in
    the shifted space's planar axes (unit length again), then ``r <= hi`` and ``-r <= -lo``
    where finite. All the band's rows are made at once, each region's a view of them."""
    if not planar:
        return []
    counts = np.array([len(region.bounds) for region in planar])
    dims = planar[0].rows.shape[1]
    rows = np.vstack([region.rows for region in planar]).reshape(int(counts.sum()), dims)
    bounds = np.concatenate([region.bounds for region in planar])
    if len(bounds) and not band.identity:
        rows = rows @ band.transform
        norms = np.linalg.norm(rows, axis=1)
        rows, bounds = rows / norms[:, None], bounds / norms
    extra = len(ends)
    sizes = counts + extra
    starts = np.cumsum(sizes) - sizes
    own = np.repeat(starts, counts) + np.arange(len(bounds)) - np.repeat(np.cumsum(counts) - counts, counts)
    lifted = np.zeros((int(sizes.sum()), dims + 1))
    limits = np.zeros(len(lifted))
    lifted[own, :dims], limits[own] = rows, bounds
    for m, (side, value, *_) in enumerate(ends):
        lifted[starts + counts + m, dims] = side
        limits[starts + counts + m] = side * value
    z_ends: dict[int, tuple[ZEnd, ...]] = {}
    lo = band.lo if math.isfinite(band.lo) else -FAR
    hi = band.hi if math.isfinite(band.hi) else FAR
    half = len(planar[0].bbox) // 2
    out = []
    for i, (region, start, count) in enumerate(zip(planar, starts.tolist(), counts.tolist())):
        if count not in z_ends:
            z_ends[count] = tuple(ZEnd(count + m, beyond, entering)
                                  for m, (_, _, beyond, entering) in enumerate(ends) if beyond is not None)
        bbox = region.bbox[:half] + (lo,) + region.bbox[half:] + (hi,)
        stop = start + count + extra
        out.append(ShiftedRegion.deferred(region.edges_later(), f"{region.name}@z{number + i}", lifted[start:stop],
                                          limits[start:stop], region.vertices, (), region.dimension + 1, bbox,
                                          band, i, z_ends[count]))
    return out


def _z_contacts(a: Part, b: Part, entering: set[SlicePair], upward: float) -> tuple[Contact, ...]:
    """Contacts of the z faces of the slices that start to meet across a band's end: moving
    B up relative to A (``upward`` > 0), B's slice's top meets A's slice's bottom."""
    face_a, face_b = ("bottom", "top") if upward > 0 else ("top", "bottom")
    return tuple(Contact(a.name, (f"slices[{i}].{face_a}",), b.name, (f"slices[{j}].{face_b}",))
                 for i, j in sorted(entering))
