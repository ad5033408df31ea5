"""Checks on the real part shapes (shapely): parts may touch but never overlap.

Depth of an overlap is the diameter of the largest circle inside the intersection,
so a sliver thinner than the length tolerance is touching, not overlapping.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING

import shapely
from shapely.affinity import affine_transform
from shapely.geometry.base import BaseGeometry

from .errors import GeometryError, ModelError
from .geometry import Arc, check_profile, region_of
from .kinds import Motion
from .poses import initial_bounds, part_transform, z_offset
from .tolerance import MAX_FACETS, MIN_SIZE, RESOLUTION, Tolerance

if TYPE_CHECKING:  # validation, which the mechanism's validate() calls, runs these checks: types only here
    from .mechanism import Mechanism, Part


def check_scale(mechanism: Mechanism) -> None:
    """Raise ModelError unless the mechanism is at least ``MIN_SIZE`` across and its numbers,
    where it is drawn, resolve positions to ``RESOLUTION`` of its exact grid's step."""
    size, quantum = mechanism.size, mechanism.tolerance.quantum
    if size < MIN_SIZE:
        raise ModelError(f"the mechanism is {size:.3g} across; cspace works on mechanisms from {MIN_SIZE:g} "
                         "across up: draw it in a smaller unit", field="parts")
    x0, y0, x1, y1 = initial_bounds(mechanism)
    distance = max(abs(x0), abs(y0), abs(x1), abs(y1))
    if math.ulp(distance) > RESOLUTION * quantum:
        within = 2.0 ** (math.floor(math.log2(RESOLUTION * quantum)) + 52)
        raise ModelError(f"it is drawn {distance:.3g} from the origin but is only {size:.3g} across: numbers that "
                         f"large resolve positions only to {math.ulp(distance):.3g}, coarser than {RESOLUTION:g} of "
                         f"its exact grid's step {quantum:.3g}; draw it nearer the origin (within {within:.3g})",
                         field="parts")


def check_profiles(mechanism: Mechanism) -> None:
    """Raise GeometryError, naming part and field, unless every profile is a closed simple loop
    and no two profiles of a slice cross; and ModelError unless the mechanism's scale is one
    cspace computes right (:func:`check_scale`)."""
    length = mechanism.tolerance.length
    for part in mechanism.parts:
        for i, slice_ in enumerate(part.slices):
            for k, profile in enumerate(slice_.profiles):
                try:
                    check_profile(profile, length)
                except GeometryError as error:
                    raise error.located(where=f"part {part.name!r}", field=f"slices[{i}].profiles[{k}]") from None
            _check_no_crossing(part, i, mechanism.tolerance)
    check_scale(mechanism)
    check_facets(mechanism)


def check_facets(mechanism: Mechanism) -> None:
    """Raise ModelError if the arcs would flatten into more than ``MAX_FACETS`` segments at the
    finest arc tolerance a pair uses (a turning pair's, ``rotation_arc``, if anything turns):
    bounded before the work, where a tiny ``[tolerance] arc`` ran out of memory."""
    tolerance = mechanism.tolerance
    turning = any(c.is_angle for c in mechanism.coordinates)
    finest = tolerance.rotation_arc if turning else tolerance.arc
    facets = sum(element.facets(finest) for part in mechanism.parts for slice_ in part.slices
                 for profile in slice_.profiles for element in profile.elements if isinstance(element, Arc))
    if facets > MAX_FACETS:
        raise ModelError(f"arc tolerance {tolerance.arc / tolerance.size:g} (of the size {tolerance.size:.3g}) "
                         f"flattens the arcs into {facets:,} segments; at most {MAX_FACETS:,} are supported: "
                         f"raise it", where="tolerance", field="arc")


NESTING = ("profiles of a slice may touch or nest (nested ones are holes and islands by turns) but not cross "
           "or coincide: draw their union as one profile")


def _check_no_crossing(part: Part, index: int, tolerance: Tolerance) -> None:
    """Profiles of a slice may be apart, touch, or nest (nesting alternates: a profile in an
    outline is a hole, one in a hole an island of material, and so on to any depth:
    :func:`cspace.model.geometry.nesting_depths`). Two whose outlines cross are ambiguous (which
    is material, which a hole?), and so are two that coincide (is the second a hole the
    size of the first, leaving nothing?): both are refused."""
    profiles = part.slices[index].profiles
    if len(profiles) < 2:
        return
    near = profiles[0].elements[0].start  # relative to the slice: intersections far out cancel
    polygons = [shapely.Polygon(profile.ring(origin=near)) for profile in profiles]
    tree = shapely.STRtree(polygons)
    where = {"where": f"part {part.name!r}", "field": f"slices[{index}].profiles"}
    for i, k in sorted(zip(*tree.query(polygons, predicate="overlaps"))):
        # Profiles drawn to touch (a lip on a slope) may overlap by float noise: not a crossing.
        if i < k and overlap_depth(polygons[i], polygons[k], tolerance.quantum) > tolerance.length:
            point = polygons[i].intersection(polygons[k]).representative_point()
            x, y = point.x + near[0], point.y + near[1]
            raise GeometryError(f"profiles {i} and {k} cross near ({x:.6g}, {y:.6g}); {NESTING}", **where)
    inside = set(zip(*(found.tolist() for found in tree.query(polygons, predicate="contains"))))
    for i, k in sorted(inside):
        if i < k and (k, i) in inside:
            x, y = profiles[i].elements[0].start
            raise GeometryError(f"profiles {i} and {k} coincide (both through ({x:.6g}, {y:.6g})); {NESTING}",
                                **where)


def part_geometry(part: Part, slice_index: int, origin: tuple[float, float] = (0.0, 0.0)) -> BaseGeometry:
    """A slice's material in the part's local frame relative to ``origin``, arcs finely linearized."""
    return region_of(part.slices[slice_index].profiles, origin=origin)


def posed(mechanism: Mechanism, part: Part, slice_index: int, values: Mapping[str, float]) -> BaseGeometry:
    """A slice's material placed in the plane at the given coordinate values, relative to the
    mechanism's origin (overlaps are the same anywhere; their areas keep their precision)."""
    origin = mechanism.origin
    t = part_transform(mechanism, part, values, origin)
    return affine_transform(part_geometry(part, slice_index, origin),
                            [t[0, 0], t[0, 1], t[1, 0], t[1, 1], t[0, 2], t[1, 2]])


def overlap_depth(a: BaseGeometry, b: BaseGeometry, grid: float = 0.0) -> float:
    """How deep two shapes overlap (0 when they only touch).

    With ``grid`` > 0 the overlap is found by snap rounding to that grid, which is robust:
    GEOS's floating overlay may take a part lying along a nearly collinear face for wholly
    inside it (a block sliding on a slope measured 3 deep instead of touching).
    """
    common = shapely.intersection(a, b, grid_size=grid or None)
    if common.is_empty or common.area == 0:
        return 0.0
    depths = [2.0 * shapely.maximum_inscribed_circle(part, tolerance=max(part.area ** 0.5 * 1e-3, 1e-12)).length
              for part in shapely.get_parts(common) if part.area > 0]
    return max(depths, default=0.0)


def check_initial_overlaps(mechanism: Mechanism, values: Mapping[str, float]) -> None:
    """Raise ModelError naming both parts if any two overlap in the initial configuration."""
    tolerance = mechanism.tolerance.overlap
    shapes = []
    for part in mechanism.parts:
        if part.motion == Motion.LINKAGE:
            continue
        for k, slice_ in enumerate(part.slices):
            shapes.append((part, slice_, posed(mechanism, part, k, values)))
    tree = shapely.STRtree([s for _, _, s in shapes])
    for i, j in sorted(zip(*tree.query([s for _, _, s in shapes], predicate="intersects"))):
        if j <= i:
            continue
        (pa, sa, ga), (pb, sb, gb) = shapes[i], shapes[j]
        if pa.name == pb.name:
            continue
        za, zb = z_offset(mechanism, pa, values), z_offset(mechanism, pb, values)
        if not (sa.z[0] + za < sb.z[1] + zb and sb.z[0] + zb < sa.z[1] + za):
            continue
        depth = overlap_depth(ga, gb, mechanism.tolerance.quantum)
        if depth > tolerance:
            common = shapely.intersection(ga, gb, grid_size=mechanism.tolerance.quantum)
            where = common.representative_point()
            x, y = where.x + mechanism.origin[0], where.y + mechanism.origin[1]
            raise ModelError(f"overlap {depth:.4g} deep (area {common.area:.4g}) around "
                             f"({x:.4g}, {y:.4g}); parts may touch but not overlap",
                             where=f"parts {pa.name!r} and {pb.name!r}", field="initial configuration")
