"""The values of full dynamics: each moving part's mass, and the mechanism's gravity, springs,
dampers, constant loads and contact laws (``[dynamics]`` in a file).

A mechanism with ``dynamics`` set is integrated as a system of masses (:mod:`cspace.kinetics`);
one without follows the paper's simple dynamics. Units are the file's: a length unit, seconds,
and a mass unit, so a stiffness is force per length (per radian for a rotation).

>>> Dynamics(gravity=(0.0, -9.81), restitution=0.5)
Dynamics(gravity=(0.0, -9.81), restitution=0.5, friction=0.0)
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from .geometry import Arc, Point, Profile

GAUSS_POINTS = 24  # Gauss-Legendre points per arc: exact to rounding for the moments of an arc's sweep


@dataclass(frozen=True)
class Mass:
    """A part's mass, its centre of mass in the part's own frame, and its moment of inertia
    about that centre (about the z axis).

    >>> Mass(1.0, 1 / 12, (0.5, 0.0))
    Mass(1.0, inertia=0.0833333, centre=(0.5, 0.0))
    """

    mass: float
    inertia: float
    centre: Point

    def __repr__(self) -> str:
        return f"Mass({self.mass!r}, inertia={self.inertia:.6g}, centre={self.centre!r})"


@dataclass(frozen=True)
class Spring:
    """A linear spring on a coordinate: the force (or torque) ``-stiffness * (value - rest)``."""

    coordinate: str
    stiffness: float
    rest: float = 0.0

    def __repr__(self) -> str:
        return f"Spring({self.coordinate!r}, stiffness={self.stiffness!r}, rest={self.rest!r})"


@dataclass(frozen=True)
class Damper:
    """A viscous damper on a coordinate: the force (or torque) ``-coefficient * rate``."""

    coordinate: str
    coefficient: float

    def __repr__(self) -> str:
        return f"Damper({self.coordinate!r}, coefficient={self.coefficient!r})"


@dataclass(frozen=True)
class Load:
    """A constant force along a translation, or torque about a rotation."""

    coordinate: str
    value: float

    def __repr__(self) -> str:
        return f"Load({self.coordinate!r}, value={self.value!r})"


@dataclass(frozen=True)
class ContactLaw:
    """Restitution and friction where two parts touch, on the named faces only (every face of
    each part when ``faces`` is empty): it overrides the mechanism-wide values."""

    parts: tuple[str, str]
    faces: tuple[str, str] | None = None
    restitution: float | None = None
    friction: float | None = None

    def __repr__(self) -> str:
        faces = f", faces={self.faces!r}" if self.faces else ""
        return (f"ContactLaw({self.parts!r}{faces}, restitution={self.restitution!r}, "
                f"friction={self.friction!r})")


@dataclass(frozen=True)
class Dynamics:
    """Full dynamics: gravity (an acceleration vector), Newton's restitution coefficient and
    Coulomb's friction coefficient at every contact (0 and 0: plastic and smooth), the
    contact laws overriding them per pair of parts or faces, the springs, dampers and
    constant loads on coordinates, and how often the path is sampled."""

    gravity: Point = (0.0, 0.0)
    restitution: float = 0.0
    friction: float = 0.0
    contacts: tuple[ContactLaw, ...] = ()
    springs: tuple[Spring, ...] = ()
    dampers: tuple[Damper, ...] = ()
    loads: tuple[Load, ...] = ()
    sampling: float = 0.01  # seconds between the path's samples (every event is sampled too)

    def law(self, a: str, b: str, faces_a: tuple[str, ...] = (), faces_b: tuple[str, ...] = ()) -> tuple[float, float]:
        """Restitution and friction between parts ``a`` and ``b`` touching with ``faces_a`` and
        ``faces_b`` (a face, or a corner's two): the last contact law that names both parts and
        either no faces or one face of each that touches, else the mechanism-wide values."""
        restitution, friction = self.restitution, self.friction
        for law in self.contacts:
            if law.faces:
                named = dict(zip(law.parts, law.faces))
                touching = {a: {f for entry in faces_a for f in entry.split("+")},
                            b: {f for entry in faces_b for f in entry.split("+")}}
                applies = set(law.parts) == {a, b} and all(named[p] in touching[p] for p in (a, b))
            else:
                applies = set(law.parts) == {a, b}
            if applies:
                restitution = restitution if law.restitution is None else law.restitution
                friction = friction if law.friction is None else law.friction
        return restitution, friction

    def __repr__(self) -> str:
        extra = "".join(f", {name}={len(getattr(self, name))}" for name in ("contacts", "springs", "dampers", "loads")
                        if getattr(self, name))
        return (f"Dynamics(gravity={self.gravity!r}, restitution={self.restitution!r}, "
                f"friction={self.friction!r}{extra})")


def mass_of(profiles_by_thickness: Iterable[tuple[float, Iterable[Profile]]], density: float) -> Mass:
    """The mass of a part of uniform ``density`` (mass per unit volume) made of slices, each a
    thickness and its profiles oriented material-left (:func:`cspace.model.geometry.orient`):
    area, centroid and second moment by Green's theorem over the faces, exact for lines and
    to rounding for arcs.

    >>> from cspace.model.geometry import Profile
    >>> mass_of([(1.0, [Profile.rectangle(0, 0, 2, 1)])], 3.0)
    Mass(6.0, inertia=2.5, centre=(1.0, 0.5))
    """
    area = mx = my = jo = 0.0
    for thickness, profiles in profiles_by_thickness:
        for profile in profiles:
            a, sx, sy, j = _moments(profile)
            area, mx, my, jo = area + thickness * a, mx + thickness * sx, my + thickness * sy, jo + thickness * j
    if area <= 0:
        raise ValueError("the part has no area")
    mass = density * area
    cx, cy = mx / area, my / area
    return Mass(mass, density * jo - mass * (cx * cx + cy * cy), (cx, cy))


def _moments(profile: Profile) -> tuple[float, float, float, float]:
    """Area, first moments (x, y) and polar second moment about the origin of the region a
    profile bounds, signed by its orientation: boundary integrals of Green's theorem."""
    area = sx = sy = jo = 0.0
    nodes, weights = np.polynomial.legendre.leggauss(GAUSS_POINTS)
    for element in profile.elements:
        if isinstance(element, Arc):
            (cx, cy), r = element.center, element.radius
            a0 = math.atan2(element.start[1] - cy, element.start[0] - cx)
            sweep = element.sweep if element.ccw else -element.sweep
            t = a0 + sweep * (nodes + 1) / 2
            x, y = cx + r * np.cos(t), cy + r * np.sin(t)
            dx, dy = -r * np.sin(t) * sweep / 2, r * np.cos(t) * sweep / 2
        else:
            (x0, y0), (x1, y1) = element.start, element.end
            s = (nodes + 1) / 2
            x, y = x0 + (x1 - x0) * s, y0 + (y1 - y0) * s
            dx, dy = np.full_like(s, (x1 - x0) / 2), np.full_like(s, (y1 - y0) / 2)
        area += float(weights @ (x * dy - y * dx)) / 2
        sx += float(weights @ (x * x * dy)) / 2
        sy -= float(weights @ (y * y * dx)) / 2
        jo += float(weights @ (x ** 3 * dy - y ** 3 * dx)) / 3
    return area, sx, sy, jo
