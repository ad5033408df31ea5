"""Planar profiles made of line segments and circular arcs, and their polygons.

A profile is a closed loop of elements. Each element is a *face* of the part (its
side surface in 2.5D) and carries a face name; the point where two elements meet is
a *corner*, named after its two faces (``"top+left"``). Profiles are oriented so the
material lies on the left of the direction of travel: outer boundaries run
counterclockwise, holes clockwise, islands in holes counterclockwise again (nesting
alternates to any depth: :func:`nesting_depths`).

Arcs are linearized *outward* (see :mod:`cspace.model.tolerance`): the polygon contains
the true material, so a configuration that is free for the polygons is free for the
real parts.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import shapely
from shapely.geometry import LinearRing, MultiPolygon, Polygon
from shapely.validation import explain_validity

from .errors import GeometryError
from .tolerance import NOISE

Point = tuple[float, float]


@dataclass(frozen=True)
class Line:
    """A straight face from ``start`` to ``end``.

    >>> Line((0, 0), (7, 0), "bottom")
    Line((0, 0), (7, 0), 'bottom')
    """

    start: Point
    end: Point
    name: str

    def reversed(self) -> Line:
        return Line(self.end, self.start, self.name)

    def points(self, _tolerance: float, _outward: bool) -> list[Point]:
        """The polyline from start (inclusive) to end (exclusive)."""
        return [self.start]

    def __repr__(self) -> str:
        return f"Line({_fmt(self.start)}, {_fmt(self.end)}, {self.name!r})"


@dataclass(frozen=True)
class Arc:
    """A circular face from ``start`` to ``end`` about ``center``, counterclockwise if ``ccw``.

    An arc whose start equals its end is a full circle.

    >>> Arc((1, 0), (0, 1), (0, 0), True, "rim").sweep == math.pi / 2
    True
    """

    start: Point
    end: Point
    center: Point
    ccw: bool
    name: str

    @property
    def radius(self) -> float:
        return math.dist(self.start, self.center)

    @property
    def sweep(self) -> float:
        """Angle swept, in (0, 2*pi]."""
        a0 = math.atan2(self.start[1] - self.center[1], self.start[0] - self.center[0])
        a1 = math.atan2(self.end[1] - self.center[1], self.end[0] - self.center[0])
        turn = (a1 - a0) if self.ccw else (a0 - a1)
        turn %= 2 * math.pi
        return turn if turn > 0 else 2 * math.pi

    def reversed(self) -> Arc:
        return Arc(self.end, self.start, self.center, not self.ccw, self.name)

    def facets(self, tolerance: float) -> int:
        """How many segments :meth:`points` flattens the arc into at ``tolerance`` (at most)."""
        step = 2 * math.acos(max(-1.0, 1 - tolerance / self.radius))
        return math.ceil(self.sweep / step) + 4

    def points(self, tolerance: float, outward: bool) -> list[Point]:
        """Polyline from start (inclusive) to end (exclusive), within ``tolerance`` of the arc.

        ``outward`` puts the polyline on the far side of the arc from the material
        (circumscribed when the material holds the center, chords otherwise). The
        arc's axis extremes (0, 90, 180, 270 degrees) are always polyline points or
        tangent points, so a round part resting on an axis-aligned face touches it
        exactly.
        """
        r = self.radius
        circumscribe = outward and self.ccw
        if circumscribe:
            step = 2 * math.acos(r / (r + tolerance))
        else:
            step = 2 * math.acos(max(-1.0, 1 - tolerance / r))
        sign = 1.0 if self.ccw else -1.0
        a0 = math.atan2(self.start[1] - self.center[1], self.start[0] - self.center[0])
        # Angles (measured along the arc from its start) where the polyline must touch it.
        quarter = math.pi / 2
        first = (math.floor(sign * a0 / quarter) + 1) * quarter - sign * a0
        stops = [0.0] + [t for t in _frange(first, self.sweep, quarter) if NOISE < t < self.sweep - NOISE]
        stops.append(self.sweep)
        angles = [0.0]
        for t0, t1 in zip(stops, stops[1:]):
            n = max(math.ceil((t1 - t0) / step), 1)
            angles += [t0 + (t1 - t0) * k / n for k in range(1, n + 1)]
        cx, cy = self.center

        def at(t: float, radius: float) -> Point:
            return (cx + radius * math.cos(a0 + sign * t), cy + radius * math.sin(a0 + sign * t))

        if not circumscribe:
            return [self.start] + [at(t, r) for t in angles[1:-1]]
        # Tangent polyline: endpoints stay on the arc; each corner is where the tangents
        # at two consecutive touch angles meet, at r / cos(half the angle between them).
        corners = [at((t0 + t1) / 2, r / math.cos((t1 - t0) / 2)) for t0, t1 in zip(angles, angles[1:])]
        touch = [at(t, r) for t in angles[1:-1]]
        points = [self.start]
        for k, corner in enumerate(corners):
            points.append(corner)
            if k < len(touch):
                points.append(touch[k])
        return points

    def __repr__(self) -> str:
        return (f"Arc({_fmt(self.start)}, {_fmt(self.end)}, center={_fmt(self.center)}, "
                f"ccw={self.ccw}, name={self.name!r})")


Element = Line | Arc


@dataclass(frozen=True)
class Feature:
    """A face or a corner of a part, the unit contacts are described in.

    >>> Feature("face", "top"), Feature("corner", "top+left")
    (Feature('face', 'top'), Feature('corner', 'top+left'))
    """

    kind: str
    name: str

    def __repr__(self) -> str:
        return f"Feature({self.kind!r}, {self.name!r})"

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True)
class Polyline:
    """A linearized closed profile: vertices, the feature of each vertex and of each edge.

    Edge ``i`` runs from vertex ``i`` to vertex ``i + 1`` (cyclically).
    """

    vertices: tuple[Point, ...]
    vertex_features: tuple[Feature, ...]
    edge_features: tuple[Feature, ...]


@dataclass(frozen=True)
class Profile:
    """A closed loop of faces.

    >>> p = Profile.rectangle(0, 0, 4, 2)
    >>> [e.name for e in p.elements], p.signed_area()
    (['bottom', 'right', 'top', 'left'], 8.0)
    """

    elements: tuple[Element, ...]

    @classmethod
    def rectangle(cls, x0: float, y0: float, x1: float, y1: float, prefix: str = "") -> Profile:
        """Counterclockwise rectangle with faces bottom, right, top, left."""
        corners = [(x0, y0), (x1, y0), (x1, y1), (x0, y1)]
        names = ["bottom", "right", "top", "left"]
        return cls(tuple(Line(corners[i], corners[(i + 1) % 4], prefix + names[i]) for i in range(4)))

    @classmethod
    def circle(cls, center: Point, radius: float, name: str = "rim") -> Profile:
        """Counterclockwise full circle, a single face."""
        start = (center[0] + radius, center[1])
        return cls((Arc(start, start, center, True, name),))

    def corner_name(self, index: int) -> str:
        """Name of the corner where element ``index`` starts."""
        before = self.elements[index - 1].name
        after = self.elements[index].name
        return after if before == after else f"{before}+{after}"

    def reversed(self) -> Profile:
        return Profile(tuple(e.reversed() for e in reversed(self.elements)))

    def polyline(self, tolerance: float, *, outward: bool = True) -> Polyline:
        """Linearize every arc within ``tolerance`` (outward by default).

        Outward, an arc's first and last segments run along its tangents; where a straight
        face meets the arc tangentially (a rounded corner) that segment extends the face,
        and is named after it: a rounded block resting on its flat bottom touches with its
        bottom, not with the arcs beside it. Remembered: analysis, checks and replay ask
        for the same profile at the same tolerance many times (a gear's hundreds of arcs).
        """
        return _polyline(self, tolerance, outward)

    def signed_area(self) -> float:
        """Shoelace area of a fine linearization: positive when counterclockwise.

        Taken relative to the first vertex, so a profile drawn far from the origin keeps
        its area (the plain sum cancels: a 5 x 3 block at 1e9 came out at -128).
        """
        pts = self.polyline(self._fine(), outward=False).vertices
        x0, y0 = pts[0]
        rel = [(x - x0, y - y0) for x, y in pts]
        return 0.5 * sum(xa * yb - xb * ya for (xa, ya), (xb, yb) in zip(rel, rel[1:] + rel[:1]))

    def ring(self, tolerance: float | None = None, origin: Point = (0.0, 0.0)) -> LinearRing:
        """Shapely ring through the profile relative to ``origin``, arcs by chords within ``tolerance``
        (handed over as an array: shapely reads a list point by point in Python)."""
        tol = tolerance if tolerance is not None else self._fine()
        ox, oy = origin
        return LinearRing(np.array([(x - ox, y - oy) for x, y in self.polyline(tol, outward=False).vertices], float))

    def _fine(self) -> float:
        radii = [e.radius for e in self.elements if isinstance(e, Arc)]
        return 1e-4 * min(radii) if radii else 1.0

    def __repr__(self) -> str:
        return f"Profile({list(self.elements)!r})"


def _tangent(at: Point, away: Point, touch: Point, center: Point) -> bool:
    """Does the line from ``at`` towards ``away`` touch the circle about ``center`` at ``touch``
    (``at`` and ``touch`` one point), running perpendicular to the radius there?"""
    dx, dy = away[0] - at[0], away[1] - at[1]
    rx, ry = touch[0] - center[0], touch[1] - center[1]
    return abs(dx * rx + dy * ry) <= NOISE * math.hypot(dx, dy) * math.hypot(rx, ry)


def _frange(start: float, stop: float, step: float) -> list[float]:
    values, k = [], 0
    while start + k * step < stop:
        values.append(start + k * step)
        k += 1
    return values


def check_profile(profile: Profile, length_tolerance: float) -> None:
    """Raise :class:`GeometryError` unless the profile is a closed, simple loop.

    The message says what is wrong and where; callers add the file and field.
    """
    if not profile.elements:
        raise GeometryError("profile has no faces")
    for index, element in enumerate(profile.elements):
        if isinstance(element, Arc):
            r0, r1 = element.radius, math.dist(element.end, element.center)
            if r0 <= length_tolerance:
                raise GeometryError(f"face {index} ({element.name}) is a degenerate arc of radius {_num(r0)}")
            if abs(r0 - r1) > length_tolerance:
                raise GeometryError(f"face {index} ({element.name}): arc ends are at radii {_num(r0)} "
                                    f"and {_num(r1)} from its center")
        elif math.dist(element.start, element.end) <= length_tolerance:
            length = math.dist(element.start, element.end)
            if length == 0:
                raise GeometryError(f"face {index} ({element.name}) has zero length at {_fmt(element.start)}")
            raise GeometryError(f"face {index} ({element.name}) at {_fmt(element.start)} is {_num(length)} long, "
                                f"within the length tolerance {_num(length_tolerance)} (relative to the "
                                f"mechanism's size): points closer than that coincide")
        following = profile.elements[(index + 1) % len(profile.elements)]
        if math.dist(element.end, following.start) > length_tolerance:
            if index == len(profile.elements) - 1:
                raise GeometryError(f"profile is open: it ends at {_fmt(element.end)} "
                                    f"but starts at {_fmt(following.start)}")
            raise GeometryError(f"face {index} ({element.name}) ends at {_fmt(element.end)} "
                                f"but the next face starts at {_fmt(following.start)}")
    if len(profile.elements) < 3 and not any(isinstance(e, Arc) for e in profile.elements):
        raise GeometryError("profile needs at least three faces")
    ring = profile.ring()
    if not ring.is_simple:
        reason = explain_validity(Polygon(ring))
        raise GeometryError(f"profile crosses itself ({_validity(reason)})")
    if abs(profile.signed_area()) <= length_tolerance ** 2:
        raise GeometryError("profile encloses no area")


def orient(profiles: Iterable[Profile]) -> tuple[Profile, ...]:
    """Orient each profile so the material is on its left.

    Nesting alternates (:func:`nesting_depths`): a profile inside an even number of
    others (an outline, an island in a hole, ...) runs counterclockwise, one inside an
    odd number (a hole, a hole in an island, ...) clockwise.
    """
    profiles = list(profiles)
    near = profiles[0].elements[0].start if profiles else (0.0, 0.0)  # areas relative to the slice
    depths = nesting_depths([Polygon(p.ring(origin=near)) for p in profiles])
    oriented = []
    for profile, depth in zip(profiles, depths):
        want_ccw = depth % 2 == 0
        is_ccw = profile.signed_area() > 0
        oriented.append(profile if is_ccw == want_ccw else profile.reversed())
    return tuple(oriented)


def nesting_depths(polygons: Sequence[Polygon]) -> list[int]:
    """How many of the other polygons each one lies inside: its nesting depth.

    The material of a slice alternates with depth, to any depth (the even-odd rule, as
    SVG's ``fill-rule: evenodd`` draws it): inside an outline (depth 0) is material,
    inside a hole in it (1) empty, inside an island in that hole (2) material again, and
    so on. Profiles of a slice never cross (:mod:`cspace.model.checks` refuses them), so one
    lies inside another exactly when a point inside it does; the larger area decides
    between two that coincide, so neither counts the other.
    """
    count = len(polygons)
    depths = [0] * count
    if count < 2:
        return depths
    areas = shapely.area(polygons)
    probes = [polygon.representative_point() for polygon in polygons]
    inner, outer = shapely.STRtree(polygons).query(probes, predicate="within")
    for i, j in zip(inner.tolist(), outer.tolist()):
        if i != j and areas[j] > areas[i]:
            depths[i] += 1
    return depths


def even_odd(polygons: Sequence[Polygon], depths: Sequence[int]) -> Polygon | MultiPolygon:
    """The material bounded by nested outlines of the given depths: what lies inside an
    odd number of them. Taken layer by layer, each even depth's union less the next
    (odd) depth's, so outlines of one depth that touch or overlap by rounding join as
    they are drawn: the union of ``L0 - L1``, ``L2 - L3``, ... where ``Ld`` is the union
    of the polygons of depth ``d``.
    """
    layers: dict[int, list[Polygon]] = {}
    for polygon, depth in zip(polygons, depths):
        layers.setdefault(depth, []).append(polygon)
    pieces = []
    for depth in range(0, max(layers, default=-1) + 1, 2):
        solid = shapely.union_all(layers[depth]) if depth in layers else Polygon()
        if depth + 1 in layers:
            solid = solid.difference(shapely.union_all(layers[depth + 1]))
        pieces.append(solid)
    if len(pieces) == 1:
        return pieces[0]
    return shapely.union_all(pieces) if pieces else Polygon()


def region_of(profiles: Iterable[Profile], tolerance: float | None = None,
              origin: Point = (0.0, 0.0)) -> Polygon | MultiPolygon:
    """The material enclosed by profiles, as one shapely geometry relative to ``origin``
    (nesting alternates: holes, islands in holes, holes in islands: :func:`nesting_depths`)."""
    polygons = [Polygon(profile.ring(tolerance, origin)) for profile in orient(profiles)]
    return even_odd(polygons, nesting_depths(polygons))


def _validity(reason: str) -> str:
    """Turn GEOS' 'Self-intersection[3 4]' into 'self-intersection at (3, 4)'."""
    if "[" in reason and reason.endswith("]"):
        what, where = reason[:-1].split("[", 1)
        coords = where.split()
        if len(coords) >= 2:
            return f"{what.lower()} at ({_num(float(coords[0]))}, {_num(float(coords[1]))})"
    return reason.lower()


def _num(value: float) -> str:
    return f"{value:.6g}"


def _fmt(point: Point) -> str:
    return f"({_num(point[0])}, {_num(point[1])})"


@lru_cache(maxsize=4096)
def _polyline(profile: Profile, tolerance: float, outward: bool) -> Polyline:
    """:meth:`Profile.polyline`, remembered."""
    vertices: list[Point] = []
    vertex_features: list[Feature] = []
    edge_features: list[Feature] = []
    n = len(profile.elements)
    for index, element in enumerate(profile.elements):
        points = element.points(tolerance, outward)
        face = Feature("face", element.name)
        faces = [face] * len(points)
        if outward and isinstance(element, Arc) and element.ccw and len(points) > 1:
            before, after = profile.elements[index - 1], profile.elements[(index + 1) % n]
            if isinstance(before, Line) and _tangent(before.end, before.start, element.start, element.center):
                faces[0] = Feature("face", before.name)
            if isinstance(after, Line) and _tangent(after.start, after.end, element.end, element.center):
                faces[-1] = Feature("face", after.name)
        for k, point in enumerate(points):
            vertices.append(point)
            vertex_features.append(Feature("corner", profile.corner_name(index)) if k == 0 else face)
            edge_features.append(faces[k])
    return Polyline(tuple(vertices), tuple(vertex_features), tuple(edge_features))
