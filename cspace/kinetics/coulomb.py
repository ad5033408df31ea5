"""Where two parts touch, exactly: the contact point and the direction of sliding, from the
features a contact names (a face, or a corner between two faces, of each part) and the parts'
poses. Coulomb friction acts along that direction at that point.

A corner on a face touches at the corner, and slides along the face (its tangent there); a face
on a face touches where they meet: a line and an arc at the foot of the arc's centre on the
line, two arcs on their centres' line, two lines along both (at the middle of their overlap).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..model.geometry import Arc, Element
from ..spaces.pairspace import Contact
from .bodies import Bodies


@dataclass(frozen=True)
class Frame:
    """A contact's point in the plane, the unit tangent along which its parts slide, and how far
    inside both features the point lies (``margin``, a length: negative when the exact parts
    touch there no longer, as a disk rolled past the end of a face its flattened outline still
    rests on, or a corner held off a curved face by less than the arc tolerance)."""

    point: np.ndarray
    tangent: np.ndarray
    margin: float

    def __repr__(self) -> str:
        return (f"Frame(point={self.point.round(9).tolist()}, tangent={self.tangent.round(9).tolist()}, "
                f"margin={self.margin:.6g})")


class Features:
    """The faces of every part by name, placed in the plane at a configuration."""

    def __init__(self, bodies: Bodies) -> None:
        self.bodies = bodies
        self.touch = bodies.mechanism.tolerance.length  # a corner this near a face touches it
        self._faces: dict[str, dict[str, list[Element]]] = {}
        for part in bodies.mechanism.parts:
            faces: dict[str, list[Element]] = {}
            for slice_ in part.slices:
                for profile in slice_.profiles:
                    for element in profile.elements:
                        faces.setdefault(element.name, []).append(element)
            self._faces[part.name] = faces

    def frame(self, contact: Contact, u: np.ndarray) -> Frame:
        """The contact's point and sliding direction at the independent coordinates ``u``."""
        a = self._placed(contact.part_a, contact.faces_a, u)
        b = self._placed(contact.part_b, contact.faces_b, u)
        if isinstance(a, np.ndarray) and isinstance(b, np.ndarray):
            raise ValueError(f"contact {contact}: a corner on a corner has no sliding direction")
        if isinstance(a, np.ndarray):
            return _corner_on(a, _nearest(b, a), self.touch)
        if isinstance(b, np.ndarray):
            return _corner_on(b, _nearest(a, b), self.touch)
        ea, eb = _closest_pair(a, b)
        return _face_on_face(ea, eb)

    def _placed(self, part: str, faces: tuple[str, ...], u: np.ndarray):
        """A corner (the point two faces share) or a face's elements, in the plane. A corner may
        be named as one ``a+b`` (face names hold no ``+``)."""
        faces = tuple(name for entry in faces for name in entry.split("+"))
        angle, t = self.bodies.pose(part, u)
        c, s = math.cos(angle), math.sin(angle)

        def place(p) -> np.ndarray:
            return np.array([c * p[0] - s * p[1] + t[0], s * p[0] + c * p[1] + t[1]])

        elements = [(e, place(e.start), place(e.end), place(e.center) if isinstance(e, Arc) else None)
                    for e in self._faces[part][faces[0]]]
        if len(faces) == 1:
            return elements
        others = [(place(e.start), place(e.end)) for e in self._faces[part][faces[1]]]
        ends = [p for _, start, end, _ in elements for p in (start, end)]
        return min(ends, key=lambda p: min(min(np.linalg.norm(p - q) for q in pair) for pair in others))


def _nearest(elements: list, point: np.ndarray):
    return min(elements, key=lambda e: _distance(e, point))


def _distance(element, point: np.ndarray) -> float:
    e, start, end, centre = element
    if centre is not None:
        return abs(np.linalg.norm(point - centre) - e.radius)
    d = end - start
    x = np.clip((point - start) @ d / (d @ d), 0.0, 1.0)
    return float(np.linalg.norm(start + x * d - point))


def _closest_pair(a: list, b: list):
    return min(((ea, eb) for ea in a for eb in b),
               key=lambda pair: min(_distance(pair[0], p) for p in (pair[1][1], pair[1][2], _foot(pair[0], pair[1]))))


def _foot(element, other) -> np.ndarray:
    """A point of ``other`` near ``element``: an arc's point facing it, or a line's start."""
    e, start, end, centre = other
    if centre is None:
        return start
    target = element[3] if element[3] is not None else (element[1] + element[2]) / 2
    direction = target - centre
    return centre + e.radius * direction / np.linalg.norm(direction)


def _corner_on(corner: np.ndarray, element, touch: float) -> Frame:
    e, start, end, centre = element
    if centre is not None:
        radial = corner - centre
        gap = abs(np.linalg.norm(radial) - e.radius)
        margin = min(_within_arc(element, corner), touch - gap)
        return Frame(corner, np.array([-radial[1], radial[0]]) / np.linalg.norm(radial), margin)
    d = (end - start) / np.linalg.norm(end - start)
    gap = abs(float(np.cross(d, corner - start)))
    return Frame(corner, d, min(_within_line(start, end, corner), touch - gap))


def _face_on_face(a, b) -> Frame:
    (ea, sa, fa, ca), (eb, sb, fb, cb) = a, b
    if ca is None and cb is None:
        d = (fa - sa) / np.linalg.norm(fa - sa)
        ends = sorted([0.0, (fa - sa) @ d])
        others = sorted([(sb - sa) @ d, (fb - sa) @ d])
        low, high = max(ends[0], others[0]), min(ends[1], others[1])
        return Frame(sa + d * (low + high) / 2, d, high - low)
    if ca is not None and cb is not None:
        axis = (cb - ca) / np.linalg.norm(cb - ca)
        inside = np.linalg.norm(cb - ca) < max(ea.radius, eb.radius)
        point = ca + axis * (ea.radius if not inside or ea.radius >= eb.radius else -ea.radius)
        return Frame(point, np.array([-axis[1], axis[0]]), min(_within_arc(a, point), _within_arc(b, point)))
    line, arc = ((sa, fa), b) if ca is None else ((sb, fb), a)
    start, end = line
    d = (end - start) / np.linalg.norm(end - start)
    point = start + d * ((arc[3] - start) @ d)
    return Frame(point, d, min(_within_line(start, end, point), _within_arc(arc, point)))


def _within_line(start: np.ndarray, end: np.ndarray, point: np.ndarray) -> float:
    """How far along a segment from its nearer end a point projects (negative beyond an end)."""
    d = end - start
    along = (point - start) @ d / np.linalg.norm(d)
    return float(min(along, np.linalg.norm(d) - along))


def _within_arc(element, point: np.ndarray) -> float:
    """How far along an arc from its nearer end the point's direction lies (a length; a full
    circle has no end)."""
    e, start, _, centre = element
    if e.start == e.end:
        return math.inf
    a0 = math.atan2(start[1] - centre[1], start[0] - centre[0])
    a = math.atan2(point[1] - centre[1], point[0] - centre[0])
    turn = ((a - a0) if e.ccw else (a0 - a)) % (2 * math.pi)
    sweep = e.sweep
    inside = turn <= sweep
    return e.radius * (min(turn, sweep - turn) if inside else -min(turn - sweep, 2 * math.pi - turn))
