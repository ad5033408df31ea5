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
    rests on, or a corner held off a curved face by less than the arc tolerance): the least of
    ``margins``, each smooth, so the events of reaching an end can be found on the dense output."""

    point: np.ndarray
    tangent: np.ndarray
    margins: tuple[float, ...]  # smooth in the configuration, each above zero inside the features

    @property
    def margin(self) -> float:
        return min(self.margins, default=math.inf)

    def __repr__(self) -> str:
        return (f"Frame(point={self.point.round(9).tolist()}, tangent={self.tangent.round(9).tolist()}, "
                f"margin={self.margin:.6g})")


class Features:
    """The faces of every part by name, placed in the plane at a configuration."""

    def __init__(self, bodies: Bodies) -> None:
        self.bodies = bodies
        self.touch = bodies.mechanism.tolerance.length  # a corner this near a face touches it
        self._chosen: dict[Contact, tuple[int | None, int | None]] = {}
        self._last: dict[Contact, tuple[bytes, Frame]] = {}  # the frame at the last state asked, per contact
        self._corners: dict[tuple, tuple[float, float]] = {}
        self._faces: dict[str, dict[str, list[Element]]] = {}
        for part in bodies.mechanism.parts:
            faces: dict[str, list[Element]] = {}
            for slice_ in part.slices:
                for profile in slice_.profiles:
                    for element in profile.elements:
                        faces.setdefault(element.name, []).append(element)
            self._faces[part.name] = faces

    def forget(self) -> None:
        """Choose the touching elements of each contact's faces afresh (the parts have moved on)."""
        self._chosen.clear()
        self._last.clear()

    def frame(self, contact: Contact, u: np.ndarray) -> Frame:
        """The contact's point and sliding direction at the independent coordinates ``u``: of the
        elements its faces name, those nearest each other where first asked since :meth:`forget`."""
        if contact not in self._chosen:
            self._chosen[contact] = self._choose(self._placed(contact.part_a, contact.faces_a, u),
                                                 self._placed(contact.part_b, contact.faces_b, u))
        first, second = self._chosen[contact]
        a = self._placed(contact.part_a, contact.faces_a, u, first)
        b = self._placed(contact.part_b, contact.faces_b, u, second)
        if isinstance(a, np.ndarray) and isinstance(b, np.ndarray):
            raise ValueError(f"contact {contact}: a corner on a corner has no sliding direction")
        if isinstance(a, np.ndarray):
            return _corner_on(a, b[0], self.touch)
        if isinstance(b, np.ndarray):
            return _corner_on(b, a[0], self.touch)
        return _face_on_face(a[0], b[0])

    def _choose(self, a, b) -> tuple[int | None, int | None]:
        """Which element of each side's face touches (None for a corner)."""
        if isinstance(a, np.ndarray) and isinstance(b, np.ndarray):
            return None, None
        if isinstance(a, np.ndarray):
            return None, b.index(_nearest(b, a))
        if isinstance(b, np.ndarray):
            return a.index(_nearest(a, b)), None
        ea, eb = _closest_pair(a, b)
        return a.index(ea), b.index(eb)

    def _placed(self, part: str, faces: tuple[str, ...], u: np.ndarray, element: int | None = None):
        """A corner (the point two faces share) or a face's elements (only ``element`` when given),
        in the plane. A corner may be named as one ``a+b`` (face names hold no ``+``)."""
        angle, t = self.bodies.pose(part, u)
        c, s = math.cos(angle), math.sin(angle)

        def place(p) -> np.ndarray:
            return np.array([c * p[0] - s * p[1] + t[0], s * p[0] + c * p[1] + t[1]])

        names = tuple(name for entry in faces for name in entry.split("+"))
        if len(names) > 1:
            return place(self._corner(part, names))
        chosen = self._faces[part][names[0]]
        chosen = chosen if element is None else [chosen[element]]
        return [(e, place(e.start), place(e.end), place(e.center) if isinstance(e, Arc) else None) for e in chosen]

    def _corner(self, part: str, names: tuple[str, ...]) -> tuple[float, float]:
        """The point, in the part's frame, where the first face's elements meet the second's."""
        key = (part, names)
        if key not in self._corners:
            ends = [p for e in self._faces[part][names[0]] for p in (e.start, e.end)]
            others = [p for e in self._faces[part][names[1]] for p in (e.start, e.end)]
            self._corners[key] = min(ends, key=lambda p: min(math.dist(p, q) for q in others))
        return self._corners[key]


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
        off = float(np.linalg.norm(radial)) - e.radius  # signed: outside the arc's circle above zero
        return Frame(corner, np.array([-radial[1], radial[0]]) / np.linalg.norm(radial),
                     _within_arc(element, corner) + (touch - off, touch + off))
    d = (end - start) / np.linalg.norm(end - start)
    r = corner - start
    off = float(d[0] * r[1] - d[1] * r[0])
    return Frame(corner, d, _within_line(start, end, corner) + (touch - off, touch + off))


def _face_on_face(a, b) -> Frame:
    (ea, sa, fa, ca), (eb, sb, fb, cb) = a, b
    if ca is None and cb is None:
        d = (fa - sa) / np.linalg.norm(fa - sa)
        ends = sorted([0.0, (fa - sa) @ d])
        others = sorted([(sb - sa) @ d, (fb - sa) @ d])
        low, high = max(ends[0], others[0]), min(ends[1], others[1])
        return Frame(sa + d * (low + high) / 2, d, (ends[1] - others[0], others[1] - ends[0]))
    if ca is not None and cb is not None:
        axis = (cb - ca) / np.linalg.norm(cb - ca)
        inside = np.linalg.norm(cb - ca) < max(ea.radius, eb.radius)
        point = ca + axis * (ea.radius if not inside or ea.radius >= eb.radius else -ea.radius)
        return Frame(point, np.array([-axis[1], axis[0]]), _within_arc(a, point) + _within_arc(b, point))
    line, arc = ((sa, fa), b) if ca is None else ((sb, fb), a)
    start, end = line
    d = (end - start) / np.linalg.norm(end - start)
    point = start + d * ((arc[3] - start) @ d)
    return Frame(point, d, _within_line(start, end, point) + _within_arc(arc, point))


def _within_line(start: np.ndarray, end: np.ndarray, point: np.ndarray) -> tuple[float, ...]:
    """How far a point projects past a segment's start and short of its end (each negative beyond)."""
    d = end - start
    length = float(np.linalg.norm(d))
    along = float((point - start) @ d) / length
    return (along, length - along)


def _within_arc(element, point: np.ndarray) -> tuple[float, ...]:
    """How far along an arc from each of its ends the point's direction lies (lengths, negative
    beyond an end; none for a full circle, which has no end). Measured from the arc's middle, so
    both are smooth wherever the point is near the arc."""
    e, start, _, centre = element
    if e.start == e.end:
        return ()
    a0 = math.atan2(start[1] - centre[1], start[0] - centre[0])
    sense = 1.0 if e.ccw else -1.0
    middle = a0 + sense * e.sweep / 2
    a = math.atan2(point[1] - centre[1], point[0] - centre[0])
    off = sense * (((a - middle) + math.pi) % (2 * math.pi) - math.pi)
    return (e.radius * (e.sweep / 2 + off), e.radius * (e.sweep / 2 - off))
