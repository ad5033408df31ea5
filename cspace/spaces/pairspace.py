"""Pairwise configuration spaces: closed convex regions of linear constraints.

A :class:`PairSpace` is what the tracer sees of a pair, whatever the pair type: a
linear map from the pair's coordinates to pair-space coordinates ``s`` and closed
convex regions ``rows @ s <= bounds`` covering its free space, each boundary edge
tagged with the contact along it (or free, for an edge that only makes regions
convex). Regions are indexed in an R-tree; :meth:`PairSpace.regions_at` returns every
region whose closure holds a configuration.

For translating pairs ``s`` is the offset of part B relative to part A (2-D), or its
length along the one direction the pair can move in (1-D).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from functools import cached_property, lru_cache

import numpy as np
import shapely
from rtree import index as rtree_index

from ..kernels.decompose import INF, Row2, decompose_line, decompose_plane
from ..kernels.minkowski import ContactLabel, SumPolygon

FAR = 1e30
SCAN_LIMIT = 1024  # a space of at most this many regions finds those at a point by scanning their boxes


@dataclass(frozen=True, order=True)
class Contact:
    """Faces (or corners) of two parts touching along a region boundary.

    >>> str(Contact("piston", ("top",), "block1", ("bottom",)))
    'piston.top/block1.bottom'
    """

    part_a: str
    faces_a: tuple[str, ...]
    part_b: str
    faces_b: tuple[str, ...]

    def __str__(self) -> str:
        return f"{self.part_a}.{'+'.join(self.faces_a)}/{self.part_b}.{'+'.join(self.faces_b)}"

    def __repr__(self) -> str:
        return f"Contact({self.part_a!r}, {self.faces_a!r}, {self.part_b!r}, {self.faces_b!r})"


@dataclass(frozen=True, init=False)
class RegionEdge:
    """A stretch of a region's boundary on one of its rows: a contact, or free if empty."""

    row: int
    start: tuple[float, ...]
    end: tuple[float, ...]
    contacts: tuple[Contact, ...]

    def __init__(self, row: int, start: tuple[float, ...], end: tuple[float, ...],
                 contacts: tuple[Contact, ...]) -> None:
        # Frozen, its fields set once here: into its dictionary, a third of the cost of the
        # generated object.__setattr__ per field (a turning pair's space makes tens of thousands).
        fields = self.__dict__
        fields["row"], fields["start"], fields["end"], fields["contacts"] = row, start, end, contacts

    def __repr__(self) -> str:
        what = ", ".join(map(str, self.contacts)) or "free"
        return f"RegionEdge(row={self.row}, {self.start} -> {self.end}, {what})"


@dataclass(frozen=True, init=False)
class Region:
    """A closed convex region of a pair space: ``rows @ s <= bounds`` (rows of unit length).

    ``vertices`` outline it within the pair's drawing box (an unbounded region is cut
    there for drawing only); ``dimension`` is 2, 1 (a segment) or 0 (a point).
    """

    name: str
    rows: np.ndarray
    bounds: np.ndarray
    vertices: np.ndarray
    edges: tuple[RegionEdge, ...]
    dimension: int
    bbox: tuple[float, ...]

    def __init__(self, name: str, rows: np.ndarray, bounds: np.ndarray, vertices: np.ndarray,
                 edges: tuple[RegionEdge, ...], dimension: int, bbox: tuple[float, ...]) -> None:
        fields = self.__dict__  # frozen, set once (see RegionEdge)
        fields["name"], fields["rows"], fields["bounds"], fields["vertices"] = name, rows, bounds, vertices
        fields["edges"], fields["dimension"], fields["bbox"] = edges, dimension, bbox

    @classmethod
    def deferred(cls, edges: Callable[[], tuple[RegionEdge, ...]], *fields, **more) -> Region:
        """A region ``cls(*fields, **more)`` (its ``edges`` given as ``()`` there) whose edges are
        ``edges()``, made when first read. A turning pair's space repeats its first cell
        hundreds of times, and a path reads the edges of the few regions it enters: the
        copies' tens of thousands of edges are made for those alone.

        >>> r = Region.deferred(lambda: (RegionEdge(0, (1.0,), (1.0,), ()),), "r1", np.ones((1, 1)),
        ...                     np.ones(1), np.ones((1, 1)), (), 0, (1.0, 1.0))
        >>> r.edges
        (RegionEdge(row=0, (1.0,) -> (1.0,), free),)
        """
        region = cls(*fields, **more)
        del region.__dict__["edges"]
        region.__dict__["_make_edges"] = edges
        return region

    def edges_later(self) -> Callable[[], tuple[RegionEdge, ...]]:
        """What makes this region's edges, without making them: for a region made from this
        one (renamed, moved, lifted) that defers its own (:meth:`deferred`)."""
        make = self.__dict__.get("_make_edges")
        return make if make is not None else (lambda edges=self.edges: edges)

    def named(self, name: str) -> Region:
        """This region under another name, its edges deferred as they are here."""
        return Region.deferred(self.edges_later(), name, self.rows, self.bounds, self.vertices, (), self.dimension,
                               self.bbox)

    def __getattr__(self, name: str):
        # Only an attribute not in the instance's dictionary comes here: a deferred region's edges.
        make = self.__dict__.pop("_make_edges", None) if name == "edges" else None
        if make is None:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        edges = self.__dict__["edges"] = make()
        return edges

    def __getstate__(self) -> dict:
        """Pickled with its edges made (what makes them may not pickle)."""
        self.edges  # noqa: B018 (made if deferred)
        return self.__dict__

    def contains(self, point: np.ndarray, tolerance: float) -> bool:
        return bool((self.rows @ point <= self.bounds + tolerance).all())

    @cached_property
    def _contact_edges(self) -> tuple[RegionEdge, ...]:
        return tuple(e for e in self.edges if e.contacts)

    def contacts_at(self, point: np.ndarray, tolerance: float) -> tuple[RegionEdge, ...]:
        """The contact edges of this region that pass within ``tolerance`` of ``point``.

        A few edges per region: a plain loop behind a slack filter beats vectorizing.
        """
        if not self._contact_edges:
            return ()
        slack = self.bounds - self.rows @ point
        return tuple(e for e in self._contact_edges if slack[e.row] <= tolerance
                     and _on_segment(point, e.start, e.end, tolerance))

    def __repr__(self) -> str:
        return f"Region({self.name!r}, dimension={self.dimension}, rows={len(self.bounds)})"


class RegionIndex:
    """A pair space's regions as computed, and how to find those at a point: their boxes
    scanned at once up to ``SCAN_LIMIT`` regions, an R-tree (built on first use) beyond.
    Shared by every relabelled twin of the space (it names no pair)."""

    def __init__(self, regions: tuple[Region, ...], dimension: int) -> None:
        self.regions = regions
        self.dimension = dimension
        self.boxes = np.array([r.bbox for r in regions], float).reshape(-1, 2 * dimension)
        # Each box column on its own (contiguous): a scan compares 1-d arrays, not slices of a 2-d one.
        self._lows = tuple(self.boxes[:, k].copy() for k in range(dimension))
        self._highs = tuple(self.boxes[:, dimension + k].copy() for k in range(dimension))
        self._tree: rtree_index.Index | None = None

    def __getstate__(self) -> dict:
        """Pickled without its R-tree (an rtree index pickles without its entries): built again on use."""
        return {**self.__dict__, "_tree": None}

    def meeting(self, lows, highs) -> list[int]:
        """Indices, in order, of the regions whose (closed) boxes meet the box from ``lows`` to ``highs``."""
        if len(self.boxes) <= SCAN_LIMIT:
            meets = self._lows[0] <= highs[0]
            for k in range(self.dimension):
                if k:
                    meets &= self._lows[k] <= highs[k]
                meets &= self._highs[k] >= lows[k]
            return np.flatnonzero(meets).tolist()
        pad = [0.0] * (2 - self.dimension)
        return sorted(self._index().intersection(list(lows) + pad + list(highs) + pad))

    def _index(self) -> rtree_index.Index:
        if self._tree is None:
            properties = rtree_index.Property()
            properties.dimension = 2
            # Bulk-loaded from arrays (sort-tile-recursive) when there are regions: one pass in C.
            if len(self.boxes):
                pad = np.zeros((len(self.boxes), 2 - self.dimension))
                lows = np.hstack([self.boxes[:, :self.dimension], pad])
                highs = np.hstack([self.boxes[:, self.dimension:], pad])
                self._tree = rtree_index.Index((np.arange(len(self.boxes), dtype=np.int64), lows, highs),
                                               properties=properties, interleaved=True)
            else:
                self._tree = rtree_index.Index(properties=properties, interleaved=True)
        return self._tree

    def __repr__(self) -> str:
        return f"RegionIndex(regions={len(self.regions)})"


class Deferred(Sequence):
    """A tuple made when first read: ``make()``'s items. A turning pair's blocked pieces are
    for drawing, and a path that is only traced never draws them.

    >>> pieces = Deferred(lambda: [np.zeros((3, 2))])
    >>> len(pieces), pieces == (), Deferred(list) == ()
    (1, False, True)
    """

    def __init__(self, make: Callable[[], Iterable]) -> None:
        self._make: Callable[[], Iterable] | None = make
        self._items: tuple = ()

    def made(self) -> tuple:
        """The items, made on the first call."""
        if self._make is not None:
            self._items, self._make = tuple(self._make()), None
        return self._items

    def __getitem__(self, index):
        return self.made()[index]

    def __len__(self) -> int:
        return len(self.made())

    def __iter__(self) -> Iterator:
        return iter(self.made())

    def __eq__(self, other: object) -> bool:
        return self.made() == (other.made() if isinstance(other, Deferred) else other)

    __hash__ = None  # a tuple of arrays, as the tuple it stands for

    def __reduce__(self) -> tuple:
        return tuple, (self.made(),)

    def __repr__(self) -> str:
        return f"Deferred({'made' if self._make is None else 'not made'}, {len(self._items)} items)"


@dataclass(frozen=True)
class PairSpace:
    """The configuration space of one pair of parts: a value, never changed once made.

    ``matrix`` maps the pair's coordinates (``coordinates``, in mechanism order) to
    ``s``. ``geometry`` holds the regions as computed: their rows, bounds, boxes and names
    are this pair's, their contacts name the parts the space was computed for, ``names``
    maps those to this pair's (None: they are this pair's); :attr:`regions` has them
    renamed. ``blocked`` holds the blocked polygons (pair-space vertices) for drawing (a
    tuple, or a :class:`Deferred` one: made when first read).
    ``periods`` gives, per axis of ``s``, how far a turn moves along it (0 where the
    axis does not wrap): the regions cover one turn, ``[-period / 2, period / 2]``,
    and the space repeats beyond (see :mod:`cspace.spaces.rotation`).
    """

    part_a: str
    part_b: str
    coordinates: tuple[str, ...]
    matrix: np.ndarray
    geometry: tuple[Region, ...]
    blocked: tuple[np.ndarray, ...]
    periods: tuple[float, ...] = ()
    names: tuple[tuple[str, str], ...] | None = None
    index: RegionIndex | None = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.index is None:
            object.__setattr__(self, "index", RegionIndex(self.geometry, self.dimension))

    @property
    def name(self) -> str:
        return f"{self.part_a}/{self.part_b}"

    @property
    def dimension(self) -> int:
        return self.matrix.shape[0]

    @property
    def shifts(self) -> bool:
        """Does a part of the pair shift along z (what touches in z changes at a band's end)?"""
        return False

    @property
    def imposes_nothing(self) -> bool:
        """True when the parts can never overlap: one region, no constraints."""
        return len(self.geometry) == 1 and len(self.geometry[0].bounds) == 0

    def point(self, values: np.ndarray, wrap: bool = False) -> np.ndarray:
        """Pair-space point of the pair's coordinate values; with ``wrap``, each axis that
        wraps taken into its one turn ``[-period / 2, period / 2)``."""
        point = self.matrix @ values
        if wrap:
            for k, period in enumerate(self.periods):
                if period:
                    point[k] = (point[k] + period / 2) % period - period / 2
        return point

    def candidates(self, box: list[float]) -> list[int]:
        """Indices of the regions whose boxes meet ``box`` (lows, then highs), in order."""
        half = len(box) // 2
        return self.index.meeting(list(box[:half]), list(box[half:]))

    def regions_at(self, point: np.ndarray, tolerance: float) -> list[int]:
        """Indices of every region whose closure holds ``point`` (within ``tolerance``)."""
        hits = self.index.meeting(point - tolerance, point + tolerance)
        return [i for i in hits if self.geometry[i].contains(point, tolerance)]

    def relabeled(self, part_a: str, part_b: str, coordinates: tuple[str, ...]) -> PairSpace:
        """This space for two parts of the same shapes under other names: a new value sharing
        the geometry and its index.

        >>> from cspace import analyze, load
        >>> pairs = {p.name: p for p in analyze(load("fixtures/feeder.toml")).pairs}
        >>> twin = pairs["block1/block2"].relabeled("block2", "block3", ("xb2", "yb2", "xb3", "yb3"))
        >>> twin.name, twin.geometry is pairs["block1/block2"].geometry
        ('block2/block3', True)
        """
        if (part_a, part_b, coordinates) == (self.part_a, self.part_b, self.coordinates):
            return self
        # The regions and their index are shared and the contacts renamed as they are asked
        # for (contacts_in): a mechanism of many like parts (the 200-block feeder's 20,000
        # pairs) holds one copy of each computed space's regions, not one per pair.
        now = {self.part_a: part_a, self.part_b: part_b}
        names = tuple((first, now[current]) for first, current in (self.names or ((self.part_a, self.part_a),
                                                                                  (self.part_b, self.part_b))))
        return replace(self, part_a=part_a, part_b=part_b, coordinates=coordinates, names=names)

    @cached_property
    def regions(self) -> tuple[Region, ...]:
        """The regions with every contact naming this pair's parts (made when first asked for)."""
        if self.names is None:
            return self.geometry
        names = dict(self.names)
        return tuple(replace(region, edges=tuple(
            replace(edge, contacts=tuple(Contact(names[c.part_a], c.faces_a, names[c.part_b], c.faces_b)
                                         for c in edge.contacts)) for edge in region.edges))
            for region in self.geometry)

    def contacts_in(self, index: int, point: np.ndarray, tolerance: float) -> frozenset[Contact]:
        """Contacts holding at ``point`` of region ``index``: every contact edge through the point.

        A point of a region that touches blocked space lies on one of the region's own
        contact edges (the region is closed and holds no blocked point). Inside such an
        edge that is the whole answer; at its end the point is a corner of blocked space
        (a corner of one part on a corner of the other), where edges of the neighbouring
        regions meet too, so every region holding the point is asked. The answer never
        depends on which region holds the point.
        """
        edges = self.geometry[index].contacts_at(point, tolerance)
        if any(_near(point, edge.start, tolerance) or _near(point, edge.end, tolerance) for edge in edges):
            edges = tuple(edge for i in self.regions_at(point, tolerance)
                          for edge in self.geometry[i].contacts_at(point, tolerance))
        if self.names is None:
            return frozenset(c for edge in edges for c in edge.contacts)
        return frozenset(self._renamed(c) for edge in edges for c in edge.contacts)

    def _renamed(self, contact: Contact) -> Contact:
        """``contact`` naming this pair's parts, made once per contact: a path keeps the
        contacts of every piece, and a stack's pairs meet the same ones piece after piece."""
        made = self._contacts_renamed.get(contact)
        if made is None:
            names = dict(self.names)
            made = self._contacts_renamed[contact] = Contact(names[contact.part_a], contact.faces_a,
                                                             names[contact.part_b], contact.faces_b)
        return made

    @cached_property
    def _contacts_renamed(self) -> dict[Contact, Contact]:
        return {}

    def __repr__(self) -> str:
        return (f"PairSpace({self.name!r}, coordinates={self.coordinates!r}, "
                f"dimension={self.dimension}, regions={len(self.geometry)})")


def translation_pair_space(part_a: str, part_b: str, coordinates: tuple[str, ...],
                           columns: list[tuple[Fraction, Fraction]], polygons: list[SumPolygon],
                           quantum: float, epsilon: float = 0.0) -> PairSpace:
    """Pair space of two translating parts.

    ``columns[k]`` is how coordinate k moves B relative to A (exact, in lengths);
    ``polygons`` are the open blocked sums on the integer grid of step ``quantum``;
    ``epsilon`` (grid steps) is how deep a one-dimensional pair may graze a polygon.
    """
    direction = next((c for c in columns if c != (0, 0)), None)
    if direction is None:
        raise ValueError("a pair needs at least one coordinate that moves its parts apart")
    one_dimensional = all(c[0] * direction[1] - c[1] * direction[0] == 0 for c in columns)
    tagger = _Tagger(part_a, part_b, polygons, epsilon)
    if one_dimensional:
        ratios = [(c[0] / direction[0]) if direction[0] else (c[1] / direction[1]) for c in columns]
        length = math.hypot(float(direction[0]), float(direction[1]))
        matrix = np.array([[float(r) * length for r in ratios]])
        intervals = decompose_line([list(p.vertices) for p in polygons], direction, epsilon) if polygons \
            else [(-INF, INF)]
        regions = [_interval_region(lo, hi, direction, length, quantum, tagger) for lo, hi in intervals]
    else:
        matrix = np.array([[float(c[0]) for c in columns], [float(c[1]) for c in columns]])
        exact = decompose_plane([list(p.vertices) for p in polygons]) if polygons else [[]]
        box = _drawing_box(polygons)
        regions = [region for rows in exact for region in _plane_regions(rows, box, quantum, tagger)]
    regions.sort(key=_order_key)
    named = tuple(r.named(f"r{i + 1}") for i, r in enumerate(regions))
    blocked = tuple(np.array(p.vertices, float) * quantum for p in polygons)
    return PairSpace(part_a, part_b, coordinates, matrix, named, blocked)


class _Tagger:
    """Which contacts hold where a facet of free space meets blocked space.

    A point touches a polygon's edge within ``epsilon`` grid steps: a part's face may be
    made of several convex pieces whose sums' edges, rounded to the grid, are collinear
    only to a step or two, and each of them is the face.
    """

    def __init__(self, part_a: str, part_b: str, polygons: list[SumPolygon], epsilon: float = 0.0) -> None:
        self.part_a, self.part_b = part_a, part_b
        self.polygons = polygons
        self.epsilon = epsilon
        # Every polygon edge (k, i), its box indexed: a facet meets a few of the thousands of
        # edges of the hundreds of sums a toothed pair has, and only those are tested exactly.
        self.edges = [(k, i) for k, polygon in enumerate(polygons) for i in range(len(polygon.vertices))]
        ends = np.array([(*polygon.vertices[i], *polygon.vertices[(i + 1) % len(polygon.vertices)])
                         for polygon in polygons for i in range(len(polygon.vertices))], float).reshape(-1, 4)
        pad = epsilon + 1  # the index works in floats; the tests after it are exact
        self.index = shapely.STRtree(shapely.box(np.minimum(ends[:, 0], ends[:, 2]) - pad,
                                                 np.minimum(ends[:, 1], ends[:, 3]) - pad,
                                                 np.maximum(ends[:, 0], ends[:, 2]) + pad,
                                                 np.maximum(ends[:, 1], ends[:, 3]) + pad)) if len(ends) else None

    def _near(self, geometry) -> list[tuple[int, int]]:
        """The edges (polygon, index), in order, whose padded boxes meet the geometry."""
        if self.index is None:
            return []
        return [self.edges[j] for j in sorted(self.index.query(geometry).tolist())]

    def contacts(self, point: tuple[Fraction, Fraction], normal: tuple[Fraction, Fraction]) -> tuple[Contact, ...]:
        """Contacts of every polygon that ``point`` touches and ``normal`` points into."""
        px, py = point
        nx, ny = normal
        tight: dict[int, list[int]] = {}
        for k, i in self._near(shapely.Point(float(px), float(py))):
            vertices = self.polygons[k].vertices
            if self._on_edge(vertices[i], vertices[(i + 1) % len(vertices)], px, py):
                tight.setdefault(k, []).append(i)
        found = set()
        for k, edges in tight.items():
            polygon = self.polygons[k]
            if all(self._inward(polygon, i, nx, ny) for i in edges):
                found.update(self._contact(polygon.labels[i]) for i in edges if polygon.labels[i])
        return tuple(sorted(contact for contact in found if not _within_another(contact, found)))

    def breakpoints(self, p: tuple, q: tuple) -> list[Fraction]:
        """Parameters in (0, 1) along p->q where some polygon's boundary starts or stops.

        Exact, in integers: p and q (rational) are brought to a common denominator, so a
        Fraction is made only for a parameter found."""
        scale = math.lcm(*(Fraction(v).denominator for v in (*p, *q)))
        px, py, qx, qy = (int(Fraction(v) * scale) for v in (*p, *q))
        dx, dy = qx - px, qy - py
        ts = set()
        for k, i in self._near(shapely.LineString([(float(p[0]), float(p[1])), (float(q[0]), float(q[1]))])):
            vertices = self.polygons[k].vertices
            (x0, y0), (x1, y1) = vertices[i], vertices[(i + 1) % len(vertices)]
            ex, ey = x1 - x0, y1 - y0
            rx, ry = x0 * scale - px, y0 * scale - py
            denominator = dx * ey - dy * ex
            if denominator == 0:
                for vx, vy in ((rx, ry), (x1 * scale - px, y1 * scale - py)):
                    if vx * dy - vy * dx == 0:
                        ts.add(Fraction(vx * dx + vy * dy, dx * dx + dy * dy))
                continue
            t, u = rx * ey - ry * ex, rx * dy - ry * dx  # over denominator (scaled alike)
            if denominator < 0:
                t, u, denominator = -t, -u, -denominator
            if 0 <= u <= denominator * scale and 0 < t < denominator:
                ts.add(Fraction(t, denominator))
        return sorted(t for t in ts if 0 < t < 1)

    def _on_edge(self, start: tuple, end: tuple, px, py) -> bool:
        """Is the point on the edge from start to end: exactly, or within epsilon?"""
        (x0, y0), (x1, y1) = start, end
        if self.epsilon == 0:
            return (x1 - x0) * (py - y0) - (y1 - y0) * (px - x0) == 0 and \
                min(x0, x1) <= px <= max(x0, x1) and min(y0, y1) <= py <= max(y0, y1)
        dx, dy = float(x1 - x0), float(y1 - y0)
        rx, ry = float(px - x0), float(py - y0)
        t = min(max((rx * dx + ry * dy) / (dx * dx + dy * dy), 0.0), 1.0)
        return math.hypot(rx - t * dx, ry - t * dy) <= self.epsilon

    @staticmethod
    def _inward(polygon: SumPolygon, i: int, nx, ny) -> bool:
        (x0, y0), (x1, y1) = polygon.vertices[i], polygon.vertices[(i + 1) % len(polygon.vertices)]
        return nx * (y1 - y0) + ny * (x0 - x1) < 0

    def _contact(self, label: ContactLabel) -> Contact:
        return Contact(self.part_a, label[0], self.part_b, label[1])


def _within_another(contact: Contact, found: set[Contact]) -> bool:
    """Is the contact part of a larger one found at the same point: a corner of a face
    that touches there along its length (the corner a+b of A on B's face f, where A's face
    a lies on f)?

    A part cut into several convex pieces (one with a hole, or concave) has pieces that
    meet a face only at its corner; one convex piece never names that corner while its
    face touches (:meth:`ConvexPiece.extreme` takes the whole face). Dropped, the contacts
    are the same however the part is cut into pieces: geometry that touches nothing
    changes no label and so ends no segment.
    """
    return any(other != contact and _covers(other.faces_a, contact.faces_a)
               and _covers(other.faces_b, contact.faces_b) for other in found)


def _covers(side: tuple[str, ...], features: tuple[str, ...]) -> bool:
    """Does every feature lie in ``side``: named there, or a corner of a face named there?"""
    return all(feature in side or ("+" in feature and any(face in side for face in feature.split("+")))
               for feature in features)


def _plane_regions(rows: list[Row2], box: list[tuple[Fraction, Fraction]], quantum: float,
                   tagger: _Tagger) -> list[Region]:
    """The region ``rows``, cut until each facet carries one label along its whole length.

    A facet that is a contact along part of its length and free (or another contact)
    along the rest would hold a part against a face that has moved away: the tracer
    only sees a region's rows, so the end of the contact would not be an event. Each
    facet is labelled once; the cuts are made by clipping, and every facet of a piece
    then lies within one labelled stretch of the facet it came from, or on a cut.
    """
    polygon = _clip(box, rows)
    facets = _facets(rows, polygon, tagger)
    parts = [(rows, polygon)]
    for row, point, cut in label_change_cuts(facets):
        parts = [half for part in parts for half in _split(part, row, point, cut)]
    labels = {row: stretches for row, stretches in facets}
    return [_plane_region(part_rows, part, labels, box, quantum, tagger) for part_rows, part in parts]


def _plane_region(rows: list[Row2], polygon: list, labels: dict, box: list, quantum: float,
                  tagger: _Tagger) -> Region:
    """One region: its rows as unit-length float rows and its facets with their labels."""
    edges = []
    for k, row in enumerate(rows):
        stretch = _stretch(polygon, row)
        if stretch is None:
            continue
        start, end = stretch
        if start == end:
            contacts = tagger.contacts(start, row[:2])
        else:
            middle = _lerp(start, end, Fraction(1, 2))
            contacts = next((c for p0, p1, c in labels.get(row, ()) if _between(middle, p0, p1)), ())
        edges.append(RegionEdge(k, _float(start, quantum), _float(end, quantum), contacts))
    norms = [math.hypot(float(a), float(b)) for a, b, _ in rows]
    matrix = np.array([[float(a) / n, float(b) / n] for (a, b, _), n in zip(rows, norms)]).reshape(-1, 2)
    bounds = np.array([float(c) * quantum / n for (_, _, c), n in zip(rows, norms)])
    vertices = np.array([[float(x) * quantum, float(y) * quantum] for x, y in polygon]).reshape(-1, 2)
    return Region("", matrix, bounds, vertices, tuple(edges), _dimension(polygon), _bbox(polygon, box, quantum))


def _stretch(polygon: list, row: Row2) -> tuple[tuple, tuple] | None:
    """Where the outline lies on a row: its first and last point along the row, or None."""
    a, b, c = row
    ia, ib, ic = _integer_row(row)
    on_row = [p for p in polygon if ia * p[0].numerator * p[1].denominator + ib * p[1].numerator * p[0].denominator
              == ic * p[0].denominator * p[1].denominator]
    if not on_row:
        return None
    on_row.sort(key=lambda p: a * p[1] - b * p[0])
    return on_row[0], on_row[-1]


def _facets(rows: list[Row2], polygon: list, tagger: _Tagger) -> list[tuple[Row2, list]]:
    """(row, labelled stretches) of every row the region's outline runs along."""
    facets = []
    for row in rows:
        stretch = _stretch(polygon, row)
        if stretch is not None and stretch[0] != stretch[1]:
            facets.append((row, _facet_pieces(*stretch, row[:2], tagger)))
    return facets


def label_change_cuts(facets: list[tuple[Row2, list]]) -> list[tuple[Row2, tuple, Row2]]:
    """(facet row, point, cut) for every point where a facet's label changes: the cut is the
    line across the facet through that point, horizontal through a vertical facet and
    vertical through any other. It lies in free space, so it is free along its whole length."""
    cuts = []
    for row, pieces in facets:
        for _, (x, y), _ in pieces[:-1]:
            cut = (Fraction(0), Fraction(1), y) if row[1] == 0 else (Fraction(1), Fraction(0), x)
            cuts.append((row, (x, y), cut))
    return cuts


def _split(part: tuple[list[Row2], list], row: Row2, point: tuple, cut: Row2) -> list[tuple[list[Row2], list]]:
    """The part cut in two by ``cut`` if its facet on ``row`` runs through ``point``, else the part."""
    rows, polygon = part
    stretch = _stretch(polygon, row)
    if stretch is None or not _between(point, *stretch) or point in stretch:
        return [part]
    halves = []
    for side in (cut, (-cut[0], -cut[1], -cut[2])):
        halves.append((_tighter(rows + [side]), _clip(polygon, [side])))
    return halves


def _between(point: tuple, start: tuple, end: tuple) -> bool:
    """Is ``point`` on the segment from ``start`` to ``end`` (collinear points, exact)?"""
    return min(start[0], end[0]) <= point[0] <= max(start[0], end[0]) and \
        min(start[1], end[1]) <= point[1] <= max(start[1], end[1])


def _tighter(rows: list[Row2]) -> list[Row2]:
    """Rows without those another row of the same direction implies (a cut makes a parallel side redundant)."""
    kept: dict[tuple[Fraction, Fraction], Row2] = {}
    order = []
    for a, b, c in rows:
        scale = abs(a) if a else abs(b)
        direction = (a / scale, b / scale)
        if direction not in kept:
            order.append(direction)
            kept[direction] = (a, b, c)
        elif c / scale < kept[direction][2] / scale:
            kept[direction] = (a, b, c)
    return [kept[d] for d in order]


def _interval_region(lo, hi, direction, length: float, quantum: float, tagger: _Tagger) -> Region:
    rows, bounds, edges = [], [], []
    scale = quantum * length
    for sign, end in ((-1, lo), (1, hi)):
        if abs(end) == INF:
            continue
        point = (direction[0] * end, direction[1] * end)
        normal = (sign * direction[0], sign * direction[1])
        rows.append([float(sign)])
        bounds.append(sign * float(end) * scale)
        value = (float(end) * scale,)
        edges.append(RegionEdge(len(rows) - 1, value, value, tagger.contacts(point, normal)))
    finite = [float(v) * scale for v in (lo, hi) if abs(v) != INF]
    vertices = np.array(finite).reshape(-1, 1)
    lower = float(lo) * scale if lo != -INF else -FAR
    upper = float(hi) * scale if hi != INF else FAR
    return Region("", np.array(rows, float).reshape(-1, 1), np.array(bounds, float), vertices,
                  tuple(edges), 0 if lo == hi else 1, (lower, upper))


def _facet_pieces(start, end, normal, tagger: _Tagger) -> list[tuple[tuple, tuple, tuple[Contact, ...]]]:
    """A facet from ``start`` to ``end`` (exact) split where the blocked space beside it
    changes: (from, to, contacts) per stretch of one label, neighbours of one label merged."""
    if start == end:
        return [(start, start, tagger.contacts(start, normal))]
    ts = [Fraction(0)] + tagger.breakpoints(start, end) + [Fraction(1)]
    pieces: list[tuple[tuple, tuple, tuple[Contact, ...]]] = []
    for t0, t1 in zip(ts, ts[1:]):
        p0, p1 = _lerp(start, end, t0), _lerp(start, end, t1)
        contacts = tagger.contacts(_lerp(start, end, (t0 + t1) / 2), normal)
        if pieces and pieces[-1][2] == contacts:
            pieces[-1] = (pieces[-1][0], p1, contacts)
        else:
            pieces.append((p0, p1, contacts))
    return pieces


def _clip(box: list[tuple[Fraction, Fraction]], rows: list[Row2]) -> list[tuple[Fraction, Fraction]]:
    """Exact convex clipping of the box polygon by half-planes a x + b y <= c.

    Computed in integers: each vertex as (X, Y, W) with W > 0 (the point X/W, Y/W), each
    row scaled to integers, a crossing as the weighted sum of the edge's ends that lies on
    the row; Fractions are made once, for the result."""
    polygon = [_homogeneous(p) for p in box]
    for row in rows:
        a, b, c = _integer_row(row)
        out = []
        n = len(polygon)
        values = [a * x + b * y - c * w for x, y, w in polygon]
        for i in range(n):
            p, q = polygon[i], polygon[(i + 1) % n]
            fp, fq = values[i], values[(i + 1) % n]
            if fp <= 0:
                out.append(p)
            if (fp < 0 < fq) or (fq < 0 < fp):
                if fp > 0:
                    fp, fq = -fp, -fq
                out.append(_reduced(fq * p[0] - fp * q[0], fq * p[1] - fp * q[1], fq * p[2] - fp * q[2]))
        polygon = [p for i, p in enumerate(out) if not _same(p, out[i - 1])] or out[:1]
    return [(Fraction(x, w), Fraction(y, w)) for x, y, w in polygon]


def _homogeneous(point: tuple) -> tuple[int, int, int]:
    x, y = Fraction(point[0]), Fraction(point[1])
    w = x.denominator * y.denominator // math.gcd(x.denominator, y.denominator)
    return _reduced(x.numerator * (w // x.denominator), y.numerator * (w // y.denominator), w)


@lru_cache(maxsize=4096)
def _integer_row(row: Row2) -> tuple[int, int, int]:
    """The row a x + b y <= c with integer coefficients (the same half-plane)."""
    a, b, c = (Fraction(v) for v in row)
    scale = math.lcm(a.denominator, b.denominator, c.denominator)
    return int(a * scale), int(b * scale), int(c * scale)


def _reduced(x: int, y: int, w: int) -> tuple[int, int, int]:
    g = math.gcd(x, y, w)
    return (x // g, y // g, w // g) if g > 1 else (x, y, w)


def _same(p: tuple[int, int, int], q: tuple[int, int, int]) -> bool:
    return p[0] * q[2] == q[0] * p[2] and p[1] * q[2] == q[1] * p[2]


def _drawing_box(polygons: list[SumPolygon]) -> list[tuple[Fraction, Fraction]]:
    xs = [x for p in polygons for x, _ in p.vertices] or [0]
    ys = [y for p in polygons for _, y in p.vertices] or [0]
    margin = max(max(xs) - min(xs), max(ys) - min(ys), 1)
    x0, x1, y0, y1 = min(xs) - margin, max(xs) + margin, min(ys) - margin, max(ys) + margin
    return [(Fraction(x0), Fraction(y0)), (Fraction(x1), Fraction(y0)),
            (Fraction(x1), Fraction(y1)), (Fraction(x0), Fraction(y1))]


def _bbox(polygon, box, quantum: float) -> tuple[float, float, float, float]:
    """Bounding box in lengths; sides on the drawing box reach to the far field."""
    xs = [p[0] for p in polygon]
    ys = [p[1] for p in polygon]
    (bx0, by0), (bx1, by1) = box[0], box[2]
    lo_x = -FAR if min(xs) <= bx0 else float(min(xs)) * quantum
    hi_x = FAR if max(xs) >= bx1 else float(max(xs)) * quantum
    lo_y = -FAR if min(ys) <= by0 else float(min(ys)) * quantum
    hi_y = FAR if max(ys) >= by1 else float(max(ys)) * quantum
    return (lo_x, lo_y, hi_x, hi_y)


def _dimension(polygon) -> int:
    if len(set(polygon)) == 1:
        return 0
    (x0, y0) = polygon[0]
    for (x1, y1), (x2, y2) in zip(polygon[1:], polygon[2:]):
        if (x1 - x0) * (y2 - y0) - (y1 - y0) * (x2 - x0) != 0:
            return 2
    return 1


def _order_key(region: Region) -> tuple:
    lo = region.bbox[:len(region.bbox) // 2]
    hi = region.bbox[len(region.bbox) // 2:]
    return (tuple(lo), tuple(hi), region.dimension)


def _lerp(p, q, t):
    return (p[0] + (q[0] - p[0]) * t, p[1] + (q[1] - p[1]) * t)


def _float(p, quantum: float) -> tuple[float, float]:
    return (float(p[0]) * quantum, float(p[1]) * quantum)


def _near(point: np.ndarray, corner: tuple, tolerance: float) -> bool:
    """Is ``point`` within ``tolerance`` of ``corner`` (1-D or 2-D)?"""
    return math.dist([float(v) for v in point], corner) <= tolerance


def _on_segment(point: np.ndarray, start: tuple, end: tuple, tolerance: float) -> bool:
    """Is ``point`` within ``tolerance`` of the segment (1-D or 2-D)? Plain floats: hot path."""
    if len(start) == 1:
        lo, hi = min(start[0], end[0]), max(start[0], end[0])
        return lo - tolerance <= float(point[0]) <= hi + tolerance
    px, py = float(point[0]), float(point[1])
    (ax, ay), (bx, by) = start, end
    dx, dy = bx - ax, by - ay
    length2 = dx * dx + dy * dy
    t = 0.0 if length2 == 0 else min(max(((px - ax) * dx + (py - ay) * dy) / length2, 0.0), 1.0)
    return math.hypot(px - ax - t * dx, py - ay - t * dy) <= tolerance
