"""Friction as the paper defines it (section 3): every face is smooth or sticky, and two
parts touching along sticky faces move in tandem along those faces.

**Where a contact grips.** The paper: "Friction acts solely between touching pairs of
sticky faces. If two parts touch along sticky faces, they move in tandem along axes
parallel to those faces." So a contact grips where sticky material of one part touches
sticky material of the other, and that is found from the geometry at the contact, not
from its name. A contact is named by the features touching along it (a face, a corner
``a+b`` where two faces meet, several faces), and a name may mix sticky and smooth
faces: a slider's sticky bottom across the corner where a smooth table meets a sticky
patch let into it (``frame.near.top+patch.top/slider.bottom``), or one path with three
collinear faces. The faces a contact names are placed at the configuration and, with
the *reach* the contact's own gap in the real geometry plus the length tolerance (the
pair spaces of turning parts stop them a little short of touching):

* where sticky faces of both run together along a stretch (flush, or within the reach
  along ``FLUSH`` reaches or more), the contact grips;
* where they touch at a point that is all the contact there is (a corner on a face, a
  curve on a curve), it grips: the point is sticky material of both parts (a corner is
  sticky material where either of its faces is, as the end of a face is part of it);
* where they touch only at a point inside a flush contact, two cases. Sticky faces that
  meet *end to end*, each on its own side of the point (the slider's sticky bottom has
  just reached the patch), grip against a motion sliding one onto the other and let go
  of one sliding them apart (:attr:`Grip.apart`), as any grip lets go of parts drawing
  apart. A sticky face that merely ends there (a sticky side of a block whose smooth
  bottom lies flush on a sticky table) does not grip: sticky material touches sticky
  material along nothing.

Why this reading: the paper makes friction a property of touching faces, and a corner or
a run of collinear faces is not a face; the older rule here (a corner grips only when
both its faces are sticky) let a sticky bottom slide over a sticky patch because the
contact's name also held the smooth table beside it. Whether the parts touch at a point
or along a stretch is the geometry's answer, so the geometry decides.

**Where a grip begins.** At a boundary between a smooth stretch and a sticky one the
tracer sees the contacts of both sides; the end-to-end rule gives the motion onto the
sticky stretch its grip at once (the slider stops as its sticky bottom meets the patch)
and the motion back its freedom. Sticky faces may also meet inside a region, where no
boundary stops the path: a slider whose bottom is two collinear faces, one sticky,
crossing a patch (the contact's name, several faces on each side, stays the same), or a
flush touch no row records. :meth:`Friction.meeting` finds where (exactly for parts that
translate, by bisection with a turn moving), and the tracer ends the piece of path
there; a linkage's curved motion is not cut there (refused, not traced wrong).

**Contacts no boundary records.** Two parts whose motion keeps them touching (a piston
sliding along the table it lies on, a wheel turning in its bearing) never meet a row of
their pair space, so no contact is named for them; the paper's feeder with a sticky
table and piston is one ("their x coordinates would satisfy x_p - x_t = constant").
:meth:`Friction.rowless` finds these from geometry: sticky faces of two parts touching
at the configuration where no coordinate of either part moves its material across the
faces. Such a touch holds as long as the motion keeps it, which the grip does.

**The grip.** While it holds, the coordinates of each part that move the part's material
at the contact along the faces take part: a translation whose axis is not across the
faces, a rotation whose arm to the contact is not along them. A coordinate of one part
and one of the other on parallel translation axes, or about the same rotation axis,
keep their difference, ``u - v = constant`` (rates scaled to equal speeds along the
faces); every other coordinate taking part keeps its value, ``u = constant``. These are
equalities on the velocities, which the velocity program asserts while the contact
holds and the parts do not draw apart (:mod:`cspace.tracing.dynamics`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from itertools import combinations

import numpy as np
import shapely

from ..model.geometry import Arc
from ..model.kinds import Motion
from ..model.mechanism import Mechanism, Part
from ..model.poses import part_transform, z_offset
from ..model.tolerance import NOISE
from ..spaces.pairspace import Contact

FLUSH = 4  # a touch running this many reaches along the faces is a stretch, not a point
ARC_FINENESS = 0.1  # arcs are placed as polylines within this fraction of the length tolerance
MEMO = 4096  # grips remembered by contact and configuration (the tracer asks again for each region tried)


@dataclass(frozen=True)
class Grip:
    """The friction of one sticky contact: ``rows @ v == 0`` on the velocity ``v``, and the
    constraining pair it belongs to (its contact rows say when the parts draw apart; None
    for a contact no row records, :meth:`Friction.rowless`). ``apart``, for sticky faces
    meeting end to end: ``apart @ v > 0`` slides them apart along the faces, a motion the
    grip lets go of."""

    contact: Contact
    pair: int | None
    rows: np.ndarray
    apart: np.ndarray | None = None

    def lets_go(self, v: np.ndarray, eps: np.ndarray) -> bool:
        """Does ``v`` (coordinates standing still within ``eps``) slide sticky faces that
        meet end to end apart?"""
        return self.apart is not None and float(self.apart @ v) > float(np.abs(self.apart) @ eps)

    def __repr__(self) -> str:
        one_sided = ", end to end" if self.apart is not None else ""
        return f"Grip({str(self.contact)!r}, pair={self.pair}, rows={len(self.rows)}{one_sided})"


@dataclass(frozen=True)
class _Face:
    """One line or arc of a part placed in the world (relative to the mechanism's origin)."""

    name: str
    slice: int
    line: shapely.LineString
    sticky: bool
    center: tuple[float, float] | None  # an arc's centre; None for a straight face


@dataclass(frozen=True)
class _Touch:
    """Where sticky faces of two parts touch: a point, the faces' unit tangent there, and
    for faces meeting end to end the side (+1 along the tangent, -1 against it) the first
    part's sticky face lies on (None: the touch grips both ways)."""

    point: np.ndarray
    tangent: np.ndarray
    side: int | None
    faces_a: tuple[str, ...]
    faces_b: tuple[str, ...]


class Friction:
    """The sticky faces of a mechanism and the grips of its sticky contacts.

    >>> from cspace.io.loader import loads
    >>> m = loads('[[parts]]\\nname="table"\\nmotion="fixed"\\n[[parts.slices]]\\nz=[0,1]\\n'
    ...           'profiles=[{rect=[0,-1,9,0], sticky=["top"]}]\\n'
    ...           '[[parts]]\\nname="b"\\nmotion="fixed-axes"\\n'
    ...           'coordinates=[{name="x", axis=[1,0]}, {name="y", axis=[0,1]}]\\n'
    ...           '[[parts.slices]]\\nz=[0,1]\\nprofiles=[{rect=[0,0,1,1], sticky=true}]')
    >>> grip = Friction(m).grip(Contact("table", ("top",), "b", ("bottom",)), np.zeros(2), 0)
    >>> grip.rows.tolist()                  # the block keeps x along the table; y is free
    [[1.0, 0.0]]
    """

    def __init__(self, mechanism: Mechanism) -> None:
        self.mechanism = mechanism
        self.parts = {p.name: p for p in mechanism.parts}
        self.any = any(p.sticky for p in mechanism.parts)
        self._tolerance = mechanism.tolerance.length
        self._origin = np.asarray(mechanism.origin, float)
        self._local: dict[str, list[tuple]] = {}  # each part's faces, drawn when first needed
        self._resting = [(a.name, b.name, *faces) for a, b in combinations([p for p in mechanism.parts if p.sticky], 2)
                         if (faces := _resting_faces(mechanism, a, b)) is not None]
        self._rowless: tuple[bytes, tuple[Grip, ...]] | None = None
        self._grips: dict[tuple[Contact, bytes], Grip | None] = {}  # by contact and configuration

    def sticky(self, contact: Contact) -> bool:
        """Does ``contact`` name a sticky face on both sides? Only such a contact may grip;
        whether it does is found where the parts touch (:meth:`grip`)."""
        return bool(faces_of(contact.faces_a) & self.parts[contact.part_a].sticky) and \
            bool(faces_of(contact.faces_b) & self.parts[contact.part_b].sticky)

    def grip(self, contact: Contact, q: np.ndarray, pair: int | None) -> Grip | None:
        """The grip of ``contact`` holding at ``q``: None where its sticky faces touch along
        nothing (see the module's docstring), or nothing takes part."""
        if not self.sticky(contact):
            return None
        key = (contact, q.tobytes())
        if key not in self._grips:
            if len(self._grips) >= MEMO:
                self._grips.clear()
            self._grips[key] = self._gripping(contact, q)
        found = self._grips[key]
        return found if found is None or found.pair == pair else replace(found, pair=pair)

    def _gripping(self, contact: Contact, q: np.ndarray) -> Grip | None:
        values = self._values(q)
        poses = {name: self._pose(name, values) for name in (contact.part_a, contact.part_b)}
        faces_a = self._placed(contact.part_a, poses[contact.part_a], faces_of(contact.faces_a))
        faces_b = self._placed(contact.part_b, poses[contact.part_b], faces_of(contact.faces_b))
        gap = float(_lines(faces_a).distance(_lines(faces_b)))
        touches = _touches(faces_a, faces_b, gap + self._tolerance)
        # One grip per contact: a stretch (or a point) gripping both ways before an end-to-end meeting.
        touch = min(touches, key=lambda t: t.side is not None, default=None)
        return None if touch is None else self._grip(contact, None, poses, touch)

    def meeting(self, contacts: list[Contact], knots: list[tuple[float, np.ndarray]],
                eps: np.ndarray) -> float | None:
        """Where along a path (``knots``: (parameter, configuration), straight between them)
        sticky faces first start to grip, as a parameter; None if they do not. These are
        faces a contact at the start names (sticky faces of both that do not grip there, as
        a slider's sticky bottom reaching a sticky patch across collinear faces of both,
        inside one region of their pair space) and flush touches no row records
        (:meth:`rowless`). For parts that translate (their turns still): the time a sticky
        vertex, sliding with the relative motion, comes within half the length tolerance
        of the other's sticky faces, then whether the faces grip there (not sliding
        apart). With a turn moving: if they grip at a knot, the first time they do before
        it, by bisection (sticky faces that meet and part again between two knots are not
        seen). ``eps`` is how fast a coordinate standing still may move."""
        start = knots[0][1]
        open_ = [(c.part_a, c.part_b, faces_of(c.faces_a), faces_of(c.faces_b), c)
                 for c in contacts if self.sticky(c) and self.grip(c, start, None) is None]
        held = {(g.contact.part_a, g.contact.part_b) for g in self.rowless(start)}
        open_ += [(a, b, names_a, names_b, None) for a, b, names_a, names_b in self._resting if (a, b) not in held]
        if not open_:
            return None
        for (t0, qa), (t1, qb) in zip(knots, knots[1:]):
            if t1 > t0:
                t = self._first_meeting(open_, qa, (qb - qa) / (t1 - t0), t1 - t0, eps)
                if t is not None:
                    return t0 + t
        return None

    def _first_meeting(self, open_: list[tuple], q: np.ndarray, v: np.ndarray, horizon: float,
                       eps: np.ndarray) -> float | None:
        """The first time in (0, ``horizon``) that one of the ``open_`` touches grips, moving at
        ``v`` from ``q`` (see :meth:`meeting`)."""
        moving = np.abs(v) > eps
        values = self._values(q)
        first = None
        for a, b, names_a, names_b, contact in open_:
            def gripping(t: float, a=a, b=b, contact=contact) -> bool:
                at = q + t * v
                grips = [self.grip(contact, at, None)] if contact is not None else \
                    [g for g in self.rowless(at) if (g.contact.part_a, g.contact.part_b) == (a, b)]
                return any(g is not None and not g.lets_go(v, eps) for g in grips)

            limit = horizon if first is None else first
            if not (self._translating(a, moving) and self._translating(b, moving)):
                first = _first_true(gripping, limit) or first
                continue
            relative = self._velocity(b, v, moving) - self._velocity(a, v, moving)
            if not np.any(relative):
                continue
            mine = [f for f in self._placed(a, self._pose(a, values), names_a) if f.sticky]
            theirs = [f for f in self._placed(b, self._pose(b, values), names_b) if f.sticky]
            # Within half the tolerance of touching, where the grip (to the tolerance) surely sees it.
            first = next((t for t in _meeting_times(_lines(mine), _lines(theirs), relative, limit,
                                                    self._tolerance / 2) if gripping(t)), first)
        return first

    def _translating(self, name: str, moving: np.ndarray) -> bool:
        """Is no turn of the part moving?"""
        index = self.mechanism.coordinate_index
        return not any(moving[index[c]] for c in self.parts[name].coordinates
                       if self.mechanism.coordinate(c).is_angle)

    def _velocity(self, name: str, v: np.ndarray, moving: np.ndarray) -> np.ndarray:
        """The part's velocity in the plane (it translates)."""
        index = self.mechanism.coordinate_index
        out = np.zeros(2)
        for coordinate in map(self.mechanism.coordinate, self.parts[name].coordinates):
            if coordinate.axis is not None and moving[index[coordinate.name]]:
                out += np.asarray(coordinate.axis, float) * v[index[coordinate.name]]
        return out

    def rowless(self, q: np.ndarray) -> tuple[Grip, ...]:
        """The grips of sticky faces touching at ``q`` that no row of a pair space records:
        touches no coordinate of either part moves across (a sticky piston lying on a
        sticky table as it slides along it)."""
        key = q.tobytes()
        if self._rowless is not None and self._rowless[0] == key:
            return self._rowless[1]
        values = self._values(q)
        grips: list[Grip] = []
        for a, b, names_a, names_b in self._resting:
            poses = {name: self._pose(name, values) for name in (a, b)}
            faces_a, faces_b = self._placed(a, poses[a], names_a), self._placed(b, poses[b], names_b)
            for touch in self._layered(a, b, faces_a, faces_b, values):
                normal = np.array([-touch.tangent[1], touch.tangent[0]])
                if any(self._moving(name, poses[name], touch.point, normal) for name in (a, b)):
                    continue  # a row of the pair's space records this touch; its contact grips
                grip = self._grip(Contact(a, touch.faces_a, b, touch.faces_b), None, poses, touch)
                if grip is not None and not any(np.array_equal(grip.rows, g.rows) for g in grips):
                    grips.append(grip)
        self._rowless = (key, tuple(grips))
        return self._rowless[1]

    def arriving(self, q: np.ndarray) -> list[tuple[str, str, str, str]]:
        """(part, face, other part, its face): sticky faces of two parts translating along one
        direction relative to each other, apart at ``q``, that the motion may slide into a
        grip no row records (found by sliding the one part along the direction until the
        faces meet, end to end or overlapping, and asking :func:`_touches`): the sticky faces
        of a pair space's contacts are not all that may meet (the analysis' check that every
        sticky part meets one). Parts held in tandem at ``q`` stay so."""
        values = self._values(q)
        held = {(g.contact.part_a, g.contact.part_b) for g in self.rowless(q) if g.apart is None}
        found = set()
        for a, b, names_a, names_b in self._resting:
            direction = self._direction(a, b)
            if direction is None or (a, b) in held:
                continue
            faces_a = self._placed(a, self._pose(a, values), names_a)
            faces_b = self._placed(b, self._pose(b, values), names_b)
            for fa, fb in ((fa, fb) for fa in faces_a if fa.sticky for fb in faces_b if fb.sticky):
                near_a = [f for f in faces_a if f.slice == fa.slice]
                for shift in _meeting_shifts(fa, fb, direction, self._tolerance):
                    moved = [replace(f, line=shapely.transform(f.line, lambda p: p + shift * direction))
                             for f in faces_b if f.slice == fb.slice]
                    if any(fa.name in t.faces_a and fb.name in t.faces_b
                           for t in _touches(near_a, moved, self._tolerance)):
                        found.add((a, fa.name, b, fb.name))
        return sorted(found)

    def _direction(self, a: str, b: str) -> np.ndarray | None:
        """The one direction parts a and b translate along (relative to each other), if they
        only translate (shifts along z aside)."""
        moving = [c for part in (a, b) for c in map(self.mechanism.coordinate, self.parts[part].coordinates)
                  if c.kind != "shift"]
        if not moving or any(c.is_angle for c in moving):
            return None
        axis = np.asarray(moving[0].axis, float)
        return axis / np.linalg.norm(axis)

    def _layered(self, a: str, b: str, faces_a: list[_Face], faces_b: list[_Face],
                 values: dict[str, float]) -> list[_Touch]:
        """Sticky touches of parts a and b within the length tolerance, between slices that
        overlap in z."""
        found = []
        za = [np.add(s.z, z_offset(self.mechanism, self.parts[a], values)) for s in self.parts[a].slices]
        zb = [np.add(s.z, z_offset(self.mechanism, self.parts[b], values)) for s in self.parts[b].slices]
        for i, j in ((i, j) for i in range(len(za)) for j in range(len(zb))):
            if za[i][0] < zb[j][1] and zb[j][0] < za[i][1]:
                found += _touches([f for f in faces_a if f.slice == i], [f for f in faces_b if f.slice == j],
                                  self._tolerance)
        return found

    def _grip(self, contact: Contact, pair: int | None, poses: dict[str, np.ndarray],
              touch: _Touch) -> Grip | None:
        """The grip's rows (and, end to end, its ``apart`` row) at the touch."""
        sides = [self._taking_part(name, poses[name], touch.point, touch.tangent)
                 for name in (contact.part_a, contact.part_b)]
        n = len(self.mechanism.coordinates)
        rows, matched = [], set()
        for j, kind, key, speed in sides[0]:
            partner = next((m for m in sides[1] if m[0] not in matched and m[1] == kind
                            and _same_axis(kind, key, m[2], self._tolerance)), None)
            row = np.zeros(n)
            row[j] = speed
            if partner is not None:
                matched.add(partner[0])
                row[partner[0]] = -partner[3]
            rows.append(row)
        for j, _, _, speed in sides[1]:
            if j not in matched:
                row = np.zeros(n)
                row[j] = speed
                rows.append(row)
        if not rows:
            return None
        rows = np.array(rows)
        largest = rows[np.arange(len(rows)), np.abs(rows).argmax(axis=1)]
        apart = None
        if touch.side is not None:
            apart = np.zeros(n)
            for sign, side in zip((1.0, -1.0), sides):
                for j, _, _, speed in side:
                    apart[j] += sign * touch.side * speed
        return Grip(contact, pair, rows / largest[:, None] + 0.0, apart)  # + 0.0: no -0.0

    def _values(self, q: np.ndarray) -> dict[str, float]:
        return {c.name: float(v) for c, v in zip(self.mechanism.coordinates, q)}

    def _pose(self, name: str, values: dict[str, float]) -> np.ndarray:
        """The part's transform of points relative to the origin to world points relative to it."""
        return part_transform(self.mechanism, self.parts[name], values, tuple(self._origin))

    def _placed(self, name: str, pose: np.ndarray, names: set[str] | None = None) -> list[_Face]:
        """The part's faces (those in ``names``, or all) placed by ``pose``."""
        rotation, shift = pose[:2, :2], pose[:2, 2]
        return [_Face(face, k, shapely.LineString(points @ rotation.T + shift), sticky,
                      None if center is None else tuple(rotation @ center + shift))
                for k, face, points, sticky, center in self._faces(name) if names is None or face in names]

    def _faces(self, name: str) -> list[tuple]:
        if name not in self._local:
            self._local[name] = _local_faces(self.parts[name], ARC_FINENESS * self._tolerance, self._origin)
        return self._local[name]

    def _moving(self, name: str, pose: np.ndarray, point: np.ndarray, direction: np.ndarray) -> bool:
        """Does some coordinate of the part move its material at ``point`` along ``direction``?"""
        return bool(self._taking_part(name, pose, point, direction))

    def _taking_part(self, name: str, pose: np.ndarray, point: np.ndarray,
                     tangent: np.ndarray) -> list[tuple[int, str, tuple, float]]:
        """(index, kind, axis or pivot, speed along the faces per unit rate) of each of the
        part's coordinates that moves its material at ``point`` along ``tangent``."""
        out = []
        index = self.mechanism.coordinate_index
        for coordinate in (self.mechanism.coordinate(c) for c in self.parts[name].coordinates):
            if coordinate.is_angle:
                pivot = pose[:2, :2] @ (np.asarray(coordinate.pivot, float) - self._origin) + pose[:2, 2]
                arm = point - pivot
                speed = float(np.array([-arm[1], arm[0]]) @ tangent)
                key: tuple = tuple(pivot)
                scale = max(float(np.linalg.norm(arm)), self._tolerance)
            else:
                speed = float(np.asarray(coordinate.axis, float) @ tangent)
                key = tuple(coordinate.axis)
                scale = 1.0
            if abs(speed) > NOISE * scale:
                out.append((index[coordinate.name], "rotation" if coordinate.is_angle else "translation",
                            key, speed))
        return out


def _touches(faces_a: list[_Face], faces_b: list[_Face], reach: float) -> list[_Touch]:
    """Where sticky faces of ``faces_a`` touch sticky faces of ``faces_b`` within ``reach``
    in a way that grips (the module's docstring): one touch per stretch or point."""
    sticky_a, sticky_b = [f for f in faces_a if f.sticky], [f for f in faces_b if f.sticky]
    if not sticky_a or not sticky_b:
        return []
    mine, theirs = _lines(sticky_a), _lines(sticky_b)
    if mine.distance(theirs) > reach:
        return []
    everything = (_lines(faces_a), _lines(faces_b), mine, theirs)
    found = []
    for piece in _pieces(shapely.intersection(mine, shapely.buffer(theirs, reach))):
        side: int | None = None
        if piece.length > FLUSH * reach and \
                shapely.intersection(theirs, shapely.buffer(piece, reach)).length > FLUSH * reach:
            point = np.asarray(piece.interpolate(0.5, normalized=True).coords[0])
            tangent = _tangent(point, faces_a + faces_b, reach)
        else:
            point = np.asarray(shapely.shortest_line(piece, theirs).coords).mean(axis=0)
            tangent = _tangent(point, faces_a + faces_b, reach)
            side = _side(point, tangent, *everything, reach)
            if side == 0:
                continue
        here = shapely.Point(point)
        found.append(_Touch(point, tangent, side,
                            tuple(sorted({f.name for f in sticky_a if f.line.distance(here) <= reach})),
                            tuple(sorted({f.name for f in sticky_b if f.line.distance(here) <= reach}))))
    return found


def _side(point: np.ndarray, tangent: np.ndarray, all_a, all_b, sticky_a, sticky_b, reach: float) -> int | None:
    """How sticky faces touching only at ``point`` grip, probing ``FLUSH`` reaches either
    way along the faces' ``tangent``: meeting end to end (each runs on along the tangent on
    its own side), the side of the first part's (+1 along the tangent, -1 against it); a
    sticky face that merely ends on a contact running on along the faces (flush), 0: no
    grip; else None: the point is all the contact there is, and it grips both ways."""
    probes = {s: shapely.Point(point + s * FLUSH * reach * tangent) for s in (1, -1)}
    a = {s: sticky_a.distance(p) <= reach for s, p in probes.items()}
    b = {s: sticky_b.distance(p) <= reach for s, p in probes.items()}
    end_to_end = next((s for s in (1, -1) if a[s] and not b[s] and b[-s] and not a[-s]), None)
    if end_to_end is not None:
        return end_to_end
    if any(all_a.distance(p) <= reach and all_b.distance(p) <= reach for p in probes.values()):
        return 0
    return None


def _first_true(holds, horizon: float) -> float | None:
    """The least time in (0, ``horizon``] at which ``holds`` (false at 0), if it holds at
    ``horizon``: bisected to float resolution."""
    if not holds(horizon):
        return None
    lo, hi = 0.0, horizon
    while hi - lo > NOISE * horizon:
        middle = (lo + hi) / 2
        lo, hi = (lo, middle) if holds(middle) else (middle, hi)
    return hi


def _meeting_times(mine, theirs, relative: np.ndarray, horizon: float, reach: float) -> list[float]:
    """Times in (0, ``horizon``), in order, at which a vertex of ``theirs`` moving at
    ``relative`` comes within ``reach`` of ``mine``, or a vertex of ``mine`` of ``theirs``
    (each ray's first entry into the other's reach)."""
    speed = float(np.linalg.norm(relative))
    times = []
    for points, target, direction in ((theirs, mine, relative), (mine, theirs, -relative)):
        starts = np.unique(shapely.get_coordinates(points), axis=0)
        rays = shapely.linestrings(np.stack([starts, starts + direction * horizon], axis=1))
        hits = shapely.intersection(rays, shapely.buffer(target, reach))
        found = ~shapely.is_empty(hits)
        times += (shapely.distance(shapely.points(starts[found]), hits[found]) / speed).tolist()
    floor = NOISE * max(horizon, 1.0)
    return sorted({t for t in times if floor < t < horizon})


def _meeting_shifts(fa: _Face, fb: _Face, direction: np.ndarray, tolerance: float) -> list[float]:
    """How far to slide face ``fb`` along ``direction`` for it to meet face ``fa`` across it:
    where their extremes across the direction lie at one level, the shifts putting the
    stretches of each at that level end to end (either way) and centre to centre."""
    normal = np.array([-direction[1], direction[0]])
    points_a, points_b = np.asarray(fa.line.coords), np.asarray(fb.line.coords)
    level_a, level_b = points_a @ normal, points_b @ normal
    levels = [lv for lv in (level_a.max(), level_a.min()) if min(abs(level_b - lv)) <= tolerance and
              (abs(level_b.min() - lv) <= tolerance or abs(level_b.max() - lv) <= tolerance)]
    shifts = []
    for level in levels:
        along_a = points_a[np.abs(level_a - level) <= tolerance] @ direction
        along_b = points_b[np.abs(level_b - level) <= tolerance] @ direction
        shifts += [along_a.min() - along_b.max(), along_a.max() - along_b.min(),
                   (along_a.min() + along_a.max() - along_b.min() - along_b.max()) / 2]
    return shifts


def _tangent(point: np.ndarray, faces: list[_Face], reach: float) -> np.ndarray:
    """The unit tangent at ``point`` of the face it lies on: one it lies inside of rather
    than at an end of (a face under a corner), a straight one before an arc (exact)."""
    here = shapely.Point(point)
    near = [f for f in faces if f.line.distance(here) <= reach]
    inside = [f for f in near if min(here.distance(shapely.Point(f.line.coords[0])),
                                     here.distance(shapely.Point(f.line.coords[-1]))) > reach]
    pool = inside or near or faces
    face = min([f for f in pool if f.center is None] or pool, key=lambda f: f.line.distance(here))
    if face.center is None:
        tangent = np.subtract(face.line.coords[-1], face.line.coords[0])
    else:
        tangent = np.array([-(point[1] - face.center[1]), point[0] - face.center[0]])
    return tangent / np.linalg.norm(tangent)


def _pieces(geometry) -> list:
    """The connected stretches (merged lines) and points of an intersection."""
    parts = shapely.get_parts(geometry).tolist()
    lines = [g for g in parts if isinstance(g, shapely.LineString) and not g.is_empty]
    points = [g for g in parts if isinstance(g, shapely.Point) and not g.is_empty]
    merged = shapely.get_parts(shapely.line_merge(shapely.MultiLineString(lines))).tolist() if lines else []
    return merged + points


def _lines(faces: list[_Face]) -> shapely.MultiLineString:
    return shapely.MultiLineString([f.line for f in faces])


def _resting_faces(mechanism: Mechanism, a: Part, b: Part) -> tuple[set[str] | None, set[str] | None] | None:
    """The faces of parts a and b that may touch where no row of their pair space records
    it (None: any), or None if none may. Such a touch is one no coordinate moves across:
    never when their translations (shifts along z aside) span the plane, or when neither
    moves; on a turning part, only on a face its turn slides along itself, an arc about
    its pivot."""
    moving = [c for part in (a, b) for c in map(mechanism.coordinate, part.coordinates) if c.kind != "shift"]
    axes = [c.axis for c in moving if not c.is_angle]
    if not moving or (axes and np.linalg.matrix_rank(np.array(axes, float), tol=NOISE) == 2):
        return None
    faces = tuple(_about_pivot(mechanism, part) for part in (a, b))
    return None if any(f is not None and not f for f in faces) else faces


def _about_pivot(mechanism: Mechanism, part: Part) -> set[str] | None:
    """A turning part's sticky arcs about its pivot (None for a part that does not turn)."""
    pivots = [c.pivot for c in map(mechanism.coordinate, part.coordinates) if c.is_angle]
    if not pivots:
        return None
    return {e.name for s in part.slices for p in s.profiles for e in p.elements
            if e.name in part.sticky and isinstance(e, Arc) and math.dist(e.center, pivots[0]) <= mechanism.tolerance.length}


def faces_of(features: tuple[str, ...]) -> set[str]:
    """The faces named by a contact's features: a face, or a corner's two."""
    return {face for feature in features for face in feature.split("+")}


def _same_axis(kind: str, a: tuple, b: tuple, tolerance: float) -> bool:
    """Parallel translation axes, or rotations about one point."""
    if kind == "translation":
        return abs(a[0] * b[1] - a[1] * b[0]) <= NOISE * math.hypot(*a) * math.hypot(*b)
    return math.dist(a, b) <= tolerance


def _local_faces(part: Part, fine: float, origin: np.ndarray) -> list[tuple]:
    """(slice index, face name, points relative to the origin, sticky, an arc's centre or
    None) of every line and arc of the part, arcs within ``fine`` of their polyline."""
    out = []
    if part.motion == Motion.LINKAGE:
        return out
    for k, slice_ in enumerate(part.slices):
        for profile in slice_.profiles:
            for element in profile.elements:
                points = np.asarray(element.points(fine, False) + [element.end], float) - origin
                center = np.asarray(element.center, float) - origin if isinstance(element, Arc) else None
                out.append((k, element.name, points, element.name in part.sticky, center))
    return out

