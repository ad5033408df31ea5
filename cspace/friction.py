"""Friction as the paper defines it (section 3): every face is smooth or sticky, and two
parts touching along sticky faces move in tandem along those faces.

A contact is sticky when every face it names on each side is sticky (a corner grips
only when both its faces do). While it holds, the coordinates of each part that move
the part's material at the contact along the faces take part: a translation whose
axis is not across the faces, a rotation whose arm to the contact is not along them.
A coordinate of one part and one of the other on parallel translation axes, or about
the same rotation axis, keep their difference, ``u - v = constant`` (rates scaled to
equal speeds along the faces); every other coordinate taking part keeps its value,
``u = constant``. These are equalities on the velocities, which the velocity program
asserts while the contact holds and the parts do not draw apart
(:mod:`cspace.dynamics`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import shapely

from .geometry import Arc, Line
from .model import LINKAGE, Mechanism, Part
from .pairspace import Contact
from .poses import part_transform
from .tolerance import NOISE

ARC_SAMPLES = 64  # points an arc face is sampled at to find where it touches


@dataclass(frozen=True)
class Grip:
    """The friction of one sticky contact: ``rows @ v == 0`` on the velocity ``v``, and the
    constraining pair it belongs to (its contact rows say when the parts draw apart)."""

    contact: Contact
    pair: int
    rows: np.ndarray

    def __repr__(self) -> str:
        return f"Grip({str(self.contact)!r}, pair={self.pair}, rows={len(self.rows)})"


class Friction:
    """The sticky faces of a mechanism and the grips of its sticky contacts.

    >>> from cspace.loader import loads
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
        self._elements = {p.name: _elements(p) for p in mechanism.parts}
        self._tolerance = mechanism.tolerance.length

    def sticky(self, contact: Contact) -> bool:
        """Does ``contact`` touch sticky faces on both sides?"""
        return sticky_contact(contact, self.parts[contact.part_a], self.parts[contact.part_b])

    def grip(self, contact: Contact, q: np.ndarray, pair: int) -> Grip | None:
        """The grip of a sticky ``contact`` holding at ``q``, None if nothing takes part."""
        values = {c.name: float(v) for c, v in zip(self.mechanism.coordinates, q)}
        poses = {name: part_transform(self.mechanism, self.parts[name], values)
                 for name in (contact.part_a, contact.part_b)}
        point, tangent = self._where(contact, poses)
        sides = [self._taking_part(name, poses[name], point, tangent)
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
        return Grip(contact, pair, rows / largest[:, None] + 0.0)  # + 0.0: no -0.0

    def _where(self, contact: Contact, poses: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
        """Where the contact is (a world point) and the faces' unit tangent there."""
        shapes = []
        for name, features in ((contact.part_a, contact.faces_a), (contact.part_b, contact.faces_b)):
            faces = tuple(features[0].split("+"))
            if len(faces) == 2:
                shapes.append((None, shapely.Point(self._corner(name, faces, poses[name]))))
            else:
                elements = self._elements[name][faces[0]]
                shapes.append((elements, shapely.MultiLineString(
                    [_world(_samples(e), poses[name]) for e in elements])))
        point = np.asarray(shapely.shortest_line(shapes[0][1], shapes[1][1]).coords).mean(axis=0)
        faces = [(name, elements) for (elements, _), name in zip(shapes, (contact.part_a, contact.part_b))
                 if elements is not None]
        # A straight face gives the tangent exactly; else the arc face nearest the point.
        candidates = [(name, e) for name, elements in faces for e in elements]
        lines = [(name, e) for name, e in candidates if isinstance(e, Line)]
        name, element = min(lines or candidates, key=lambda c: _distance(c[1], poses[c[0]], point))
        pose = poses[name]
        if isinstance(element, Line):
            a, b = _world([element.start, element.end], pose)
            tangent = np.subtract(b, a)
        else:
            (cx, cy), = _world([element.center], pose)
            tangent = np.array([-(point[1] - cy), point[0] - cx])
        return point, tangent / np.linalg.norm(tangent)

    def _corner(self, name: str, faces: tuple[str, str], pose: np.ndarray) -> tuple[float, float]:
        """World position of the corner where face ``faces[0]`` ends and ``faces[1]`` begins."""
        first, then = self._elements[name][faces[0]], self._elements[name][faces[1]]
        ends = {tuple(e.end) for e in first} & {tuple(e.start) for e in then}
        ends = ends or {tuple(e.start) for e in first} & {tuple(e.end) for e in then}
        return _world([min(ends)], pose)[0]

    def _taking_part(self, name: str, pose: np.ndarray, point: np.ndarray,
                     tangent: np.ndarray) -> list[tuple[int, str, tuple, float]]:
        """(index, kind, axis or pivot, speed along the faces per unit rate) of each of the
        part's coordinates that moves its material at ``point`` along ``tangent``."""
        out = []
        index = self.mechanism.coordinate_index
        for coordinate in (self.mechanism.coordinate(c) for c in self.parts[name].coordinates):
            if coordinate.is_angle:
                pivot = pose[:2, :2] @ np.asarray(coordinate.pivot, float) + pose[:2, 2]
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


def sticky_contact(contact: Contact, part_a: Part, part_b: Part) -> bool:
    """Are all the faces ``contact`` names sticky on both sides (a corner ``top+left``
    naming two)?"""
    return faces_of(contact.faces_a) <= part_a.sticky and faces_of(contact.faces_b) <= part_b.sticky


def faces_of(features: tuple[str, ...]) -> set[str]:
    """The faces named by a contact's features: a face, or a corner's two."""
    return {face for feature in features for face in feature.split("+")}


def _same_axis(kind: str, a: tuple, b: tuple, tolerance: float) -> bool:
    """Parallel translation axes, or rotations about one point."""
    if kind == "translation":
        return abs(a[0] * b[1] - a[1] * b[0]) <= NOISE * math.hypot(*a) * math.hypot(*b)
    return math.dist(a, b) <= tolerance


def _elements(part: Part) -> dict[str, list]:
    """The part's faces by name: the elements (lines and arcs) each is drawn as."""
    out: dict[str, list] = {}
    if part.motion == LINKAGE:
        return out
    for slice_ in part.slices:
        for profile in slice_.profiles:
            for element in profile.elements:
                out.setdefault(element.name, []).append(element)
    return out


def _samples(element: Line | Arc) -> list[tuple[float, float]]:
    """Points along a face element, ends included."""
    if isinstance(element, Line):
        return [element.start, element.end]
    (cx, cy), r = element.center, element.radius
    a0 = math.atan2(element.start[1] - cy, element.start[0] - cx)
    sign = 1.0 if element.ccw else -1.0
    return [(cx + r * math.cos(a0 + sign * element.sweep * k / ARC_SAMPLES),
             cy + r * math.sin(a0 + sign * element.sweep * k / ARC_SAMPLES)) for k in range(ARC_SAMPLES + 1)]


def _world(points: list, pose: np.ndarray) -> np.ndarray:
    return np.asarray(points, float) @ pose[:2, :2].T + pose[:2, 2]


def _distance(element: Line | Arc, pose: np.ndarray, point: np.ndarray) -> float:
    return shapely.LineString(_world(_samples(element), pose)).distance(shapely.Point(point))
