"""Where a part is: the planar transform of a fixed-axes part at given coordinate values,
and how far a shift along z carries its slices.

A transform is a 3x3 homogeneous matrix mapping local points to the plane.
Linkage members get theirs from the linkage table (:mod:`cspace.spaces.linkage`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING

import numpy as np

from .geometry import Arc
from .kinds import Motion

if TYPE_CHECKING:  # the mechanism's size and origin are found here: it imports this module
    from .mechanism import Coordinate, Mechanism, Part


def rigid(angle: float, tx: float, ty: float) -> np.ndarray:
    """The transform rotating by ``angle`` about the origin, then translating by (tx, ty)."""
    c, s = math.cos(angle), math.sin(angle)
    return np.array([[c, -s, tx], [s, c, ty], [0.0, 0.0, 1.0]])


def part_transform(mechanism: Mechanism, part: Part, values: Mapping[str, float],
                   origin: tuple[float, float] = (0.0, 0.0)) -> np.ndarray:
    """Transform of a fixed or fixed-axes part given its coordinate values.

    The part turns about its pivot, then translates along its axes. With ``origin``
    the transform maps points relative to it to world points relative to it (the pivot
    is taken relative to it first, so nothing large cancels).

    >>> from cspace.io.loader import loads
    >>> m = loads('[[parts]]\\nname="b"\\nmotion="fixed-axes"\\n'
    ...           'coordinates=[{name="x", axis=[1,0], initial=2}]\\n'
    ...           '[[parts.slices]]\\nz=[0,1]\\nprofiles=[{rect=[0,0,1,1]}]')
    >>> part_transform(m, m.parts[0], {"x": 2.0})[:2, 2].tolist()
    [2.0, 0.0]
    """
    c, s, tx, ty = part_pose(mechanism, part, values, origin)
    return np.array([[c, -s, tx], [s, c, ty], [0.0, 0.0, 1.0]])


def part_pose(mechanism: Mechanism, part: Part, values: Mapping[str, float],
              origin: tuple[float, float] = (0.0, 0.0)) -> tuple[float, float, float, float]:
    """The numbers of :func:`part_transform` as plain floats: the rotation's cosine and sine
    and the translation, ``(c, s, tx, ty)`` (a linkage's joint equations ask thousands of times).
    Values may be numpy arrays of one shape (a linkage solved at many inputs at once): then
    so is each number.

    >>> from cspace.io.loader import loads
    >>> m = loads('[[parts]]\\nname="b"\\nmotion="fixed-axes"\\n'
    ...           'coordinates=[{name="x", axis=[1,0], initial=2}]\\n'
    ...           '[[parts.slices]]\\nz=[0,1]\\nprofiles=[{rect=[0,0,1,1]}]')
    >>> part_pose(m, m.parts[0], {"x": 2.0})
    (1.0, 0.0, 2.0, 0.0)
    """
    if part.motion == Motion.LINKAGE:
        raise ValueError(f"part {part.name!r} is a linkage member; its pose comes from the linkage")
    angle, tx, ty = 0.0, 0.0, 0.0
    pivot = (0.0, 0.0)
    for name in part.coordinates:
        coordinate = mechanism.coordinate(name)
        value = values[name]
        if coordinate.is_angle:
            angle = value
            pivot = (coordinate.pivot[0] - origin[0], coordinate.pivot[1] - origin[1])
        else:
            tx += value * coordinate.axis[0]
            ty += value * coordinate.axis[1]
    c, s = (np.cos(angle), np.sin(angle)) if isinstance(angle, np.ndarray) else (math.cos(angle), math.sin(angle))
    # world = R (p - pivot) + pivot + t
    return c, s, pivot[0] - c * pivot[0] + s * pivot[1] + tx, pivot[1] - s * pivot[0] - c * pivot[1] + ty


def initial_values(mechanism: Mechanism) -> dict[str, float]:
    """Every coordinate's initial value, by name."""
    return {c.name: c.initial for c in mechanism.coordinates}


def initial_bounds(mechanism: Mechanism) -> tuple[float, float, float, float]:
    """Bounding box of every fixed and fixed-axes part in the initial configuration."""
    values = initial_values(mechanism)
    xs, ys = [], []
    for part in mechanism.parts:
        if part.motion == Motion.LINKAGE:
            continue
        transform = part_transform(mechanism, part, values)
        for slice_ in part.slices:
            for profile in slice_.profiles:
                # Element end points and arc extents: robust even for profiles not yet checked.
                points = []
                for element in profile.elements:
                    points += [element.start, element.end]
                    if isinstance(element, Arc):
                        (cx, cy), r = element.center, element.radius
                        points += [(cx - r, cy - r), (cx + r, cy + r)]
                world = np.asarray(points, float) @ transform[:2, :2].T + transform[:2, 2]
                xs.extend(world[:, 0])
                ys.extend(world[:, 1])
    if not xs:
        return (0.0, 0.0, 1.0, 1.0)
    return (min(xs), min(ys), max(xs), max(ys))


def shift_of(mechanism: Mechanism, part: Part) -> Coordinate | None:
    """The part's shift along z, if it has one."""
    return next((c for c in map(mechanism.coordinate, part.coordinates) if c.along_z), None)


def z_offset(mechanism: Mechanism, part: Part, values) -> float:
    """How far the part's slices are carried up z at the coordinate values (0 without a shift)."""
    shift = shift_of(mechanism, part)
    return 0.0 if shift is None else float(values[shift.name])


def z_travel(mechanism: Mechanism, part: Part) -> tuple[float, float]:
    """The range of the part's z offset: its shift's limits, or (0, 0)."""
    shift = shift_of(mechanism, part)
    return (0.0, 0.0) if shift is None else shift.limits
