"""Pins: small dark cylinders at a mechanism's pin joints and rotation pivots.

A turning disc looks the same at every angle; the pin on it does not. Each pin is
carried by a part (the first part of its joint, or the part that turns about the pivot)
and posed with it. It goes through every slice of the parts it joins that holds its
point, and stands a little proud of their faces so it shows on both sides. All pins of
a mechanism have one radius: half the smallest clearance from a pin to the edge of
the material around it, at most 1% of the mechanism's size. A pin whose point lies in
no material (a pivot outside its part) is not drawn.

    >>> from cspace import load
    >>> [(pin.part, pin.mesh.part) for pin in mechanism_pins(load("fixtures/feeder.toml"))]
    [('driver', 'pin driver/link'), ('link', 'pin link/piston'), ('driver', 'pivot driver')]
"""

from __future__ import annotations

from dataclasses import dataclass

from shapely.geometry import Point as ShapelyPoint

from cspace.model.geometry import Point, Profile, region_of
from cspace.model.mechanism import Mechanism, Part, Slice

from .mesh import PartMesh, part_mesh

PIN_COLOR = "#303030"
# Share of the smallest clearance a pin takes as its radius, and the largest radius as a share of the size.
CLEARANCE_SHARE = 0.5
SIZE_SHARE = 0.01
# How far a pin stands out of the faces it goes through, and how far its polygon may stray from
# its circle (16 sides), in pin radii.
PROUD = 0.5
ROUNDNESS = 0.02


@dataclass(frozen=True)
class Pin:
    """A pin's mesh, in the local frame of the part that carries it."""

    part: str
    mesh: PartMesh

    def __repr__(self) -> str:
        return f"Pin({self.mesh.part!r}, on={self.part!r})"


def mechanism_pins(mechanism: Mechanism) -> list[Pin]:
    """The pins of every pin joint of every linkage, then of every pivot, in file order."""
    places: list[tuple[str, list[tuple[Part, Point]]]] = []
    for linkage in mechanism.linkages:
        for joint in linkage.joints:
            if joint.kind == "pin":
                ends = [(mechanism.part(name), point) for name, point in zip(joint.parts, joint.points)]
                places.append((f"pin {joint.parts[0]}/{joint.parts[1]}", ends))
    for coordinate in mechanism.coordinates:
        if coordinate.is_angle:
            places.append((f"pivot {coordinate.part}", [(mechanism.part(coordinate.part), coordinate.pivot)]))
    tolerance = mechanism.tolerance.arc
    found = [(name, ends, _holding(ends, tolerance)) for name, ends in places]
    found = [(name, ends, holding) for name, ends, holding in found if holding]
    if not found:
        return []
    clearance = min(distance for _, _, holding in found for _, distance in holding)
    radius = min(CLEARANCE_SHARE * clearance, SIZE_SHARE * mechanism.size)
    pins = []
    for name, ends, holding in found:
        z0 = min(s.z[0] for s, _ in holding) - PROUD * radius
        z1 = max(s.z[1] for s, _ in holding) + PROUD * radius
        part, point = ends[0]
        cylinder = Part(name, "fixed", (Slice((z0, z1), (Profile.circle(point, radius),)),))
        pins.append(Pin(part.name, part_mesh(cylinder, ROUNDNESS * radius)))
    return pins


def _holding(ends: list[tuple[Part, Point]], tolerance: float) -> list[tuple[Slice, float]]:
    """Each slice whose material holds its part's point, with the point's distance to the material's edge."""
    holding = []
    for part, point in ends:
        probe = ShapelyPoint(point)
        for slice_ in part.slices:
            area = region_of(slice_.profiles, tolerance)
            if area.contains(probe):
                holding.append((slice_, area.boundary.distance(probe)))
    return holding
