"""Checks on the real part shapes (shapely): parts may touch but never overlap.

Depth of an overlap is the diameter of the largest circle inside the intersection,
so a sliver thinner than the length tolerance is touching, not overlapping.
"""

from __future__ import annotations

from collections.abc import Mapping

import shapely
from shapely.affinity import affine_transform
from shapely.geometry.base import BaseGeometry

from .errors import GeometryError, ModelError
from .geometry import check_profile, region_of
from .model import LINKAGE, Mechanism, Part
from .poses import part_transform


def check_profiles(mechanism: Mechanism) -> None:
    """Raise GeometryError, naming part and field, unless every profile is a closed simple loop
    and no two profiles of a slice cross."""
    length = mechanism.tolerance.length
    for part in mechanism.parts:
        for i, slice_ in enumerate(part.slices):
            for k, profile in enumerate(slice_.profiles):
                try:
                    check_profile(profile, length)
                except GeometryError as error:
                    raise error.located(where=f"part {part.name!r}", field=f"slices[{i}].profiles[{k}]") from None
            _check_no_crossing(part, i)


def _check_no_crossing(part: Part, index: int) -> None:
    """Profiles of a slice may be apart, touch, or nest (a nested profile is a hole); two whose
    outlines cross are ambiguous (which is material, which a hole?), so they are refused."""
    polygons = [shapely.Polygon(profile.ring()) for profile in part.slices[index].profiles]
    if len(polygons) < 2:
        return
    tree = shapely.STRtree(polygons)
    for i, k in sorted(zip(*tree.query(polygons, predicate="overlaps"))):
        if i < k:
            where = polygons[i].intersection(polygons[k]).representative_point()
            raise GeometryError(f"profiles {i} and {k} cross near ({where.x:.6g}, {where.y:.6g}); profiles of a "
                                "slice may touch or nest (a nested one is a hole) but not cross: draw their "
                                "union as one profile", where=f"part {part.name!r}", field=f"slices[{index}].profiles")


def part_geometry(part: Part, slice_index: int) -> BaseGeometry:
    """A slice's material in the part's local frame, arcs finely linearized."""
    return region_of(part.slices[slice_index].profiles)


def posed(mechanism: Mechanism, part: Part, slice_index: int, values: Mapping[str, float]) -> BaseGeometry:
    """A slice's material placed in the plane at the given coordinate values."""
    t = part_transform(mechanism, part, values)
    return affine_transform(part_geometry(part, slice_index), [t[0, 0], t[0, 1], t[1, 0], t[1, 1], t[0, 2], t[1, 2]])


def overlap_depth(a: BaseGeometry, b: BaseGeometry) -> float:
    """How deep two shapes overlap (0 when they only touch)."""
    common = a.intersection(b)
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
        if part.motion == LINKAGE:
            continue
        for k, slice_ in enumerate(part.slices):
            shapes.append((part, slice_, posed(mechanism, part, k, values)))
    tree = shapely.STRtree([s for _, _, s in shapes])
    for i, j in sorted(zip(*tree.query([s for _, _, s in shapes], predicate="intersects"))):
        if j <= i:
            continue
        (pa, sa, ga), (pb, sb, gb) = shapes[i], shapes[j]
        if pa.name == pb.name or not (sa.z[0] < sb.z[1] and sb.z[0] < sa.z[1]):
            continue
        depth = overlap_depth(ga, gb)
        if depth > tolerance:
            common = ga.intersection(gb)
            where = common.representative_point()
            raise ModelError(f"overlap {depth:.4g} deep (area {common.area:.4g}) around "
                             f"({where.x:.4g}, {where.y:.4g}); parts may touch but not overlap",
                             where=f"parts {pa.name!r} and {pb.name!r}", field="initial configuration")
