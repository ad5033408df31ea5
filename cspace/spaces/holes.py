"""Holes no other part can enter, filled before pair spaces are built.

Parts never overlap, and a hole is enclosed by its part's material, so in the plane a
part is inside another's hole for good or never: to get in or out it would have to
pass through material. A hole that holds none of another part's material at the start
(among the slices that meet it in z) is never met, and the pair spaces are built as if
it were filled: the free space inside it could only ever be reached from inside. This
keeps geometry that touches nothing from changing anything: a lightening hole in a gear
neither breaks its symmetry nor adds contact curves, and the regions (so the segments)
are those of the part without it. Only a shift along z can bring a part into a hole
from above (a pin dropping into a plate), so the holes of a part in a pair with one
that shifts are kept, as are those of linkage members and of the parts they meet.

A hole is a profile nested in an odd number of others (:func:`cspace.model.geometry.orient`);
filling it drops it with everything nested in it (islands in it are material anyway). A
hole whose outline touches another profile's (a notch cut from an island's top, a slot
from a plate's edge, two holes side by side) is open: it is kept.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace

import shapely
from shapely import affinity
from shapely.geometry import Polygon

from ..model.checks import posed
from ..model.kinds import Motion
from ..model.mechanism import Mechanism, Part, Slice
from ..model.poses import part_transform


def unmet_holes_filled(mechanism: Mechanism, values: Mapping[str, float],
                       pairs: Iterable[tuple[str, str]]) -> Mechanism:
    """The mechanism with every hole no other part can enter filled (see the module), for
    building pair spaces; ``pairs`` are the interacting pairs, ``values`` the initial
    configuration.

    >>> from cspace.io.loader import loads
    >>> plate = loads('[mechanism]\\nname = "p"\\ntime = 1\\n[[parts]]\\nname = "plate"\\nmotion = "fixed"\\n'
    ...               '[[parts.slices]]\\nz = [0, 1]\\nprofiles = [{ rect = [0, 0, 4, 4] }, { rect = [1, 1, 3, 3] }]')
    >>> [len(s.profiles) for s in unmet_holes_filled(plate, {}, []).part("plate").slices]
    [1]
    """
    shifting = {c.part for c in mechanism.coordinates if c.along_z}
    beside_shift = {name for pair in pairs if shifting & set(pair) for name in pair}
    partners: dict[str, set[str]] = {}
    for a, b in pairs:
        partners.setdefault(a, set()).add(b)
        partners.setdefault(b, set()).add(a)
    parts = []
    for part in mechanism.parts:
        others = [mechanism.part(name) for name in sorted(partners.get(part.name, ()))]
        if part.name in beside_shift or any(p.motion == Motion.LINKAGE for p in (part, *others)):
            parts.append(part)  # linkage members are posed by their tables: kept as drawn
            continue
        parts.append(replace(part, slices=tuple(_filled(mechanism, part, k, others, values)
                                                for k in range(len(part.slices)))))
    return replace(mechanism, parts=tuple(parts))


def _filled(mechanism: Mechanism, part: Part, index: int, others: list[Part], values: Mapping[str, float]) -> Slice:
    """The slice with its holes that hold none of the other parts' material filled."""
    slice_ = part.slices[index]
    if len(slice_.profiles) < 2:
        return slice_
    origin = mechanism.origin
    rings = [Polygon(profile.ring(origin=origin)) for profile in slice_.profiles]
    inside = [{j for j, other in enumerate(rings) if j != i and other.contains(ring.representative_point())
               and other.area > ring.area} for i, ring in enumerate(rings)]
    holes = [i for i, around in enumerate(inside) if len(around) % 2 == 1 and _closed(i, rings, inside, mechanism)]
    if not holes:
        return slice_
    nearby = [posed(mechanism, other, k, values) for other in others
              for k, s in enumerate(other.slices) if s.z[0] < slice_.z[1] and slice_.z[0] < s.z[1]]
    matrix = part_transform(mechanism, part, values, origin)
    dropped = set()
    for i in holes:
        placed = affinity.affine_transform(rings[i], [matrix[0, 0], matrix[0, 1], matrix[1, 0], matrix[1, 1],
                                                              matrix[0, 2], matrix[1, 2]])
        if not any(shapely.intersection(placed, shape).area > 0 for shape in nearby):
            dropped |= {i} | {j for j, around in enumerate(inside) if i in around}
    if not dropped:
        return slice_
    return replace(slice_, profiles=tuple(p for i, p in enumerate(slice_.profiles) if i not in dropped))


def _closed(hole: int, rings: list[Polygon], inside: list[set[int]], mechanism: Mechanism) -> bool:
    """Is the hole closed off by material all round: its outline within the length
    tolerance of no other profile's but those nested in it? A hole drawn touching the
    profile it lies in (a notch cut from an island's top, a slot from a plate's edge) or
    a neighbouring hole opens into that one, and a part may come in through the opening."""
    gap = mechanism.tolerance.length
    return not any(shapely.dwithin(rings[hole].exterior, ring.exterior, gap)
                   for j, ring in enumerate(rings) if j != hole and hole not in inside[j])
