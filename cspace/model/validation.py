"""Every check on the values a mechanism holds, whoever built it (:meth:`Mechanism.validate`).

The reader (:mod:`cspace.io.loader`) checks only what a file alone can get wrong: its syntax, a
field's type, a shape's spelling. A mechanism built in Python meets the rules here as a file's does,
with the same one-line :class:`~cspace.model.errors.ModelError` naming the element and the field.
The checks run in the order a file is read, and the first problem is the one reported.
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

from .checks import check_profiles
from .errors import ModelError
from .geometry import Arc, Point, Profile
from .kinds import ForceKind, JointKind, Motion
from .limits import MAX_FACES, MAX_MAGNITUDE, MAX_PARTS, MAX_SAMPLES, MAX_TABLE, NAME
from .tolerance import DEFAULT_ANGLE, DEFAULT_ARC, DEFAULT_LENGTH, FLOORS, NOISE, TOLERANCE_KEYS

if TYPE_CHECKING:  # the mechanism's validate() calls this module: it names the types only
    from .mechanism import Coordinate, Joint, Linkage, Mechanism, Part


def validate(mechanism: Mechanism) -> None:
    """Raise :class:`ModelError` (or a subclass), naming the element and the field, at the first value
    of ``mechanism`` out of its bounds or at odds with the rest: parts and their coordinates and slices,
    linkages, forces, inputs, the time, the tolerance factors, and last the profiles' shapes
    (:func:`cspace.model.checks.check_profiles`)."""
    check_part_count(len(mechanism.parts))
    _check_parts(mechanism)
    _check_linkages(mechanism)
    _check_forces(mechanism)
    _check_inputs(mechanism)
    _check_forces_and_inputs(mechanism)
    _check_time(mechanism)
    _check_tolerance(mechanism.tolerance_factors)
    _check_dynamics(mechanism)
    check_profiles(mechanism)


# -- rules the reader applies too, to what it reads -------------------------------------------------

def check_part_count(count: int) -> None:
    """Raise ModelError unless a mechanism of ``count`` parts has at least one and at most ``MAX_PARTS``."""
    if not count:
        raise ModelError("a mechanism needs at least one part", where="mechanism", field="parts")
    if count > MAX_PARTS:
        raise ModelError(f"{count} parts; at most {MAX_PARTS} are supported", where="mechanism", field="parts")


def check_face_count(faces: int, part: str) -> None:
    """Raise ModelError, naming ``part``, if the parts up to it have more than ``MAX_FACES`` faces."""
    if faces > MAX_FACES:
        raise ModelError(f"the mechanism has more than {MAX_FACES} faces", where=f"part {part!r}", field="slices")


def check_name(name: str, where: str | None, field: str) -> None:
    """Raise ModelError unless ``name`` is a name: letters, digits, '_', '-' and '.', starting with a letter."""
    if not NAME.fullmatch(name):
        raise ModelError(f"{name!r} is not a name: use letters, digits, '_', '-' and '.', starting with a letter",
                         where=where, field=field)


def check_number(value: float, *, where: str | None = None, field: str | None = None) -> float:
    """``value`` as a float, or ModelError unless it is finite and at most ``MAX_MAGNITUDE`` in size
    (an integer too large for a float included)."""
    try:
        number = float(value)
    except OverflowError:
        raise ModelError(f"a number of {len(str(abs(value)))} digits is out of range: numbers in a mechanism "
                         f"file are at most {MAX_MAGNITUDE:g} in size", where=where, field=field) from None
    if not math.isfinite(number):
        raise ModelError(f"expected a finite number, got {number}", where=where, field=field)
    if abs(number) > MAX_MAGNITUDE:
        raise ModelError(f"{number:g} is out of range: numbers in a mechanism file are at most "
                         f"{MAX_MAGNITUDE:g} in size", where=where, field=field)
    return number


# -- parts ---------------------------------------------------------------------------------------------

def _check_parts(mechanism: Mechanism) -> None:
    """Each part: its name, motion, coordinates, slices and sticky faces, in the order a file spells
    them; then every coordinate of the mechanism is a part's, once (a file's are by construction)."""
    by_name: dict[str, Coordinate] = {}
    for coordinate in mechanism.coordinates:
        by_name.setdefault(coordinate.name, coordinate)
    part_names: set[str] = set()
    defined: set[str] = set()
    faces = 0
    for index, part in enumerate(mechanism.parts):
        check_name(part.name, f"parts[{index}]", "name")
        where = f"part {part.name!r}"
        if part.name in part_names:
            raise ModelError(f"another part is already named {part.name!r}", where=where, field="name")
        part_names.add(part.name)
        if part.motion not in tuple(Motion):
            raise ModelError(f"unknown motion {part.motion!r}; use one of {', '.join(Motion)}", where=where,
                             field="motion")
        _check_own_coordinates(part, by_name, defined, where)
        _check_slices(part, where)
        faces += sum(len(p.elements) for s in part.slices for p in s.profiles)
        check_face_count(faces, part.name)
        _check_sticky(part, where)
    listed = {name for part in mechanism.parts for name in part.coordinates}
    seen: set[str] = set()
    for coordinate in mechanism.coordinates:
        where = f"coordinate {coordinate.name!r}"
        if coordinate.name not in listed:
            known = coordinate.part in part_names
            raise ModelError(f"part {coordinate.part!r} does not list it among its coordinates" if known else
                             _unknown("part", coordinate.part, part_names), where=where, field="part")
        if coordinate.name in seen:
            raise ModelError("the mechanism's coordinates hold it twice", where=where, field="name")
        seen.add(coordinate.name)


def _check_own_coordinates(part: Part, by_name: dict[str, Coordinate], defined: set[str], where: str) -> None:
    """A fixed-axes part's coordinates (none for another part): each one of its own, well formed,
    and together at most a rotation, a shift and two non-parallel translations."""
    if part.motion != Motion.FIXED_AXES:
        if part.coordinates:
            raise ModelError(f"a {part.motion} part has no coordinates of its own", where=where, field="coordinates")
        return
    if not part.coordinates:
        raise ModelError("a fixed-axes part needs at least one coordinate (an axis to translate along or a pivot "
                         "to rotate about)", where=where, field="coordinates")
    own = []
    for index, name in enumerate(part.coordinates):
        field = f"coordinates[{index}]"
        check_name(name, where, f"{field}.name")
        if name in defined:
            raise ModelError(f"coordinate {name!r} is already defined", where=where, field=f"{field}.name")
        defined.add(name)
        coordinate = by_name.get(name)
        if coordinate is None:
            raise ModelError(f"{_unknown('coordinate', name, by_name)}: the mechanism's coordinates hold none of "
                             "that name", where=where, field=field)
        if coordinate.part != part.name:
            raise ModelError(f"coordinate {name!r} belongs to part {coordinate.part!r}", where=where, field=field)
        _check_coordinate(coordinate, where, field)
        own.append(coordinate)
    rotations = [c for c in own if c.is_angle]
    shifts = [c for c in own if c.along_z]
    translations = [c for c in own if not c.is_angle and not c.along_z]
    if len(rotations) > 1:
        raise ModelError("a part rotates about at most one pivot", where=where, field="coordinates")
    if len(shifts) > 1:
        raise ModelError("a part shifts along z by at most one coordinate", where=where, field="coordinates")
    if len(translations) > 2:
        raise ModelError("a part translates along at most two in-plane axes", where=where, field="coordinates")
    if len(translations) == 2:
        (ax, ay), (bx, by) = translations[0].axis, translations[1].axis
        if abs(ax * by - ay * bx) < DEFAULT_ANGLE:
            raise ModelError(f"axes of {translations[0].name!r} and {translations[1].name!r} are parallel",
                             where=where, field="coordinates")


def _check_coordinate(coordinate: Coordinate, where: str, field: str) -> None:
    """An axis (a unit vector, (0, 0) for a shift) or a pivot, finite numbers, limits a shift needs
    and the initial value lies within."""
    for key in ("axis", "pivot"):
        point = getattr(coordinate, key)
        if point is not None:
            _check_point(point, where, f"{field}.{key}")
    if (coordinate.axis is None) == (coordinate.pivot is None):
        raise ModelError("give exactly one of 'axis' (translation) or 'pivot' (rotation)", where=where, field=field)
    if coordinate.along_z and tuple(coordinate.axis) != (0.0, 0.0):
        raise ModelError("a shift along z moves nothing in the plane: its axis is (0, 0)", where=where,
                         field=f"{field}.axis")
    if coordinate.axis is not None and not coordinate.along_z:
        _check_direction(coordinate.axis, where, f"{field}.axis")
    check_number(coordinate.initial, where=where, field=f"{field}.initial")
    limits = coordinate.limits
    if limits is not None:
        _check_interval(limits, where, f"{field}.limits")
    if coordinate.along_z and limits is None:
        raise ModelError("a shift along z needs limits: the travel of the part along its shaft", where=where,
                         field=f"{field}.limits")
    if limits is not None and not limits[0] <= coordinate.initial <= limits[1]:
        raise ModelError(f"initial value {_num(coordinate.initial)} is outside the limits "
                         f"[{_num(limits[0])}, {_num(limits[1])}]", where=where, field=f"{field}.initial")


def _check_slices(part: Part, where: str) -> None:
    """At least one slice, each a finite z interval holding profiles, none overlapping another in z."""
    if not part.slices:
        raise ModelError("a part needs at least one slice", where=where, field="slices")
    for index, slice_ in enumerate(part.slices):
        field = f"slices[{index}]"
        _check_interval(slice_.z, where, f"{field}.z")
        if not slice_.profiles:
            raise ModelError("a slice needs a non-empty list of profiles", where=where, field=f"{field}.profiles")
        for k, profile in enumerate(slice_.profiles):
            _check_profile_values(profile, where, f"{field}.profiles[{k}]")
    for i, a in enumerate(part.slices):
        for b in part.slices[i + 1:]:
            if a.z[0] < b.z[1] and b.z[0] < a.z[1]:
                raise ModelError(f"slices z={list(a.z)} and z={list(b.z)} overlap", where=where, field="slices")


def _check_profile_values(profile: Profile, where: str, field: str) -> None:
    """A profile's numbers, and its face names: they differ but for neighbours that make one face
    (an involute flank drawn as arcs), which may run on round the profile's start."""
    for index, element in enumerate(profile.elements):
        points = [("start", element.start), ("end", element.end)]
        if isinstance(element, Arc):
            points.append(("center", element.center))
        for key, point in points:
            _check_point(point, where, f"{field}.elements[{index}].{key}")
    names = [element.name for element in profile.elements]
    runs = [name for k, name in enumerate(names) if k == 0 or name != names[k - 1]]
    if len(runs) > 1 and runs[0] == runs[-1]:
        runs.pop()
    if len(set(runs)) != len(runs):
        raise ModelError("face names must differ, but for neighbours that make one face (an involute flank drawn "
                         "as arcs)", where=where, field=f"{field}.faces")


def _check_sticky(part: Part, where: str) -> None:
    """Sticky names are faces of the part, and a linkage member (touching nothing) has none."""
    names = list(dict.fromkeys(e.name for s in part.slices for p in s.profiles for e in p.elements))
    for face in sorted(part.sticky):
        if face not in names:
            raise ModelError(f"no face named {face!r}; the faces are {', '.join(names)}", where=where, field="sticky")
    if part.sticky and part.motion == Motion.LINKAGE:
        raise ModelError("a linkage member touches nothing but through its joints, so it has no sticky faces",
                         where=where, field="slices")


# -- linkages -----------------------------------------------------------------------------------------

def _check_linkages(mechanism: Mechanism) -> None:
    """Each linkage's ends, members and joints are the mechanism's and fit together; a part is a member
    of one linkage at most, a coordinate the output of one at most."""
    coordinates = {c.name: c for c in mechanism.coordinates}
    parts = {p.name: p for p in mechanism.parts}
    fixed = {p.name for p in mechanism.parts if p.motion == Motion.FIXED}
    for index, linkage in enumerate(mechanism.linkages):
        check_name(linkage.name, f"linkages[{index}]", "name")
        where = f"linkage {linkage.name!r}"
        ends = []
        for key in ("input", "output"):
            name = getattr(linkage, key)
            if name not in coordinates:
                raise ModelError(_unknown("coordinate", name, coordinates), where=where, field=key)
            ends.append(coordinates[name])
        if ends[0].name == ends[1].name:
            raise ModelError("input and output must be different coordinates", where=where, field="output")
        for member in linkage.members:
            if member not in parts:
                raise ModelError(_unknown("part", member, parts), where=where, field="members")
            if parts[member].motion != Motion.LINKAGE:
                raise ModelError(f"part {member!r} has motion {str(parts[member].motion)!r}, not 'linkage'",
                                 where=where, field="members")
        allowed = set(linkage.members) | {ends[0].part, ends[1].part} | fixed
        if not linkage.joints:
            raise ModelError("a linkage needs a list of joints", where=where, field="joints")
        for k, joint in enumerate(linkage.joints):
            _check_joint(joint, where, f"joints[{k}]", allowed, parts)
        _check_linkage_shape(linkage, ends, parts, where)
    _check_linkage_membership(mechanism)


def _check_joint(joint: Joint, where: str, field: str, allowed: set[str], parts: dict[str, Part]) -> None:
    """A known kind joining two different parts the linkage may join, at finite points; a slider's axis."""
    if joint.kind not in tuple(JointKind):
        raise ModelError(f"unknown joint kind {joint.kind!r}; use one of {', '.join(JointKind)}", where=where,
                         field=f"{field}.kind")
    for name in joint.parts:
        if name not in parts:
            raise ModelError(_unknown("part", name, parts), where=where, field=f"{field}.parts")
        if name not in allowed:
            raise ModelError(f"part {name!r} is not a member of this linkage, the part of its input or output, or "
                             "a fixed part", where=where, field=f"{field}.parts")
    if joint.parts[0] == joint.parts[1]:
        raise ModelError("a joint connects two different parts", where=where, field=f"{field}.parts")
    for k, point in enumerate(joint.points):
        _check_point(point, where, f"{field}.points[{k}]")
    if joint.kind == JointKind.SLIDER:
        if joint.axis is None:
            raise ModelError("missing", where=where, field=f"{field}.axis")
        _check_point(joint.axis, where, f"{field}.axis")
        _check_direction(joint.axis, where, f"{field}.axis")
    elif joint.axis is not None:
        raise ModelError("only a slider joint has an axis", where=where, field=f"{field}.axis")


def _check_linkage_shape(linkage: Linkage, ends: list[Coordinate], parts: dict[str, Part], where: str) -> None:
    """The end parts have no coordinate but the linkage's; the joints give as many equations as there
    are unknowns (1 degree of freedom); the table's size is in bounds."""
    for end in ends:
        owner = parts[end.part]
        others = [c for c in owner.coordinates if c != end.name]
        if others:
            raise ModelError(f"part {owner.name!r} joins the linkage through {end.name!r} but also has coordinate "
                             f"{others[0]!r}; a linkage end part may have only that coordinate", where=where,
                             field="joints")
    unknowns, equations = 3 * len(linkage.members) + 1, 2 * len(linkage.joints)
    if unknowns != equations:
        raise ModelError(f"{len(linkage.joints)} joints give {equations} equations for {unknowns} unknowns (3 per "
                         "member plus the output); a 1-DOF linkage needs them equal", where=where, field="joints")
    table = check_number(linkage.table_size, where=where, field="table")
    if table != int(table) or not 3 <= table <= MAX_TABLE:
        raise ModelError(f"table is a whole number of entries from 3 to {MAX_TABLE} (the least to start from: "
                         "cspace adds entries until interpolation meets the tolerance), got "
                         f"{_num(linkage.table_size)}", where=where, field="table")


def _check_linkage_membership(mechanism: Mechanism) -> None:
    """Every linkage part is a member of exactly one linkage, and no two linkages drive one output."""
    owner: dict[str, str] = {}
    for linkage in mechanism.linkages:
        for member in linkage.members:
            if member in owner:
                raise ModelError(f"part {member!r} is already a member of linkage {owner[member]!r}",
                                 where=f"linkage {linkage.name!r}", field="members")
            owner[member] = linkage.name
    for part in mechanism.parts:
        if part.motion == Motion.LINKAGE and part.name not in owner:
            raise ModelError("a linkage part must be listed in the members of a linkage", where=f"part {part.name!r}",
                             field="motion")
    outputs: dict[str, str] = {}
    for linkage in mechanism.linkages:
        if linkage.output in outputs:
            raise ModelError(f"{linkage.output!r} is already the output of linkage {outputs[linkage.output]!r}",
                             where=f"linkage {linkage.name!r}", field="output")
        outputs[linkage.output] = linkage.name


# -- forces, inputs, time, tolerance ------------------------------------------------------------------

def _check_forces(mechanism: Mechanism) -> None:
    """A known kind on a known coordinate it can move (gravity along a translation, a torque about a
    pivot), a direction of +1 or -1, positive speed and sampling."""
    known = {c.name for c in mechanism.coordinates}
    angles = {c.name for c in mechanism.coordinates if c.is_angle}
    for index, force in enumerate(mechanism.forces):
        where = f"forces[{index}]"
        if force.kind not in tuple(ForceKind):
            raise ModelError(f"unknown force kind {force.kind!r}; use one of {', '.join(ForceKind)}", where=where,
                             field="kind")
        coordinate = force.coordinate
        if coordinate not in known:
            raise ModelError(_unknown("coordinate", coordinate, known), where=where, field="coordinate")
        where = f"force on {coordinate!r}"
        if force.kind == ForceKind.GRAVITY and coordinate in angles:
            raise ModelError(f"gravity acts along a translation, and {coordinate!r} is a rotation; a torque or a "
                             "spring turns it", where=where, field="kind")
        if force.kind == ForceKind.TORQUE and coordinate not in angles:
            raise ModelError(f"a torque turns a rotation, and {coordinate!r} is a translation; gravity or a spring "
                             "moves it", where=where, field="kind")
        check_number(force.direction, where=where, field="direction")
        if force.direction not in (1, -1):
            raise ModelError(f"direction is +1 or -1 along the coordinate, got {_num(force.direction)}", where=where,
                             field="direction")
        check_positive(force.speed, where, "speed")
        check_positive(force.sampling, where, "sampling")


def _check_inputs(mechanism: Mechanism) -> None:
    """Known coordinates at non-zero velocities, each once, a positive sampling and duration."""
    known = {c.name for c in mechanism.coordinates}
    for index, motion in enumerate(mechanism.inputs):
        where = f"inputs[{index}]"
        if not motion.velocities:
            raise ModelError("velocities is a table of coordinate = velocity, e.g. velocities = { cd = 1.0 }",
                             where=where, field="velocities")
        given: set[str] = set()
        for coordinate, velocity in motion.velocities:
            if coordinate not in known:
                names = [c.name for c in mechanism.coordinates]
                raise ModelError(unknown_listed("coordinate", coordinate, names), where=where, field="velocities")
            check_number(velocity, where=where, field=f"velocities.{coordinate}")
            if velocity == 0:
                raise ModelError("velocity must not be zero", where=where, field=f"velocities.{coordinate}")
            if coordinate in given:
                raise ModelError("given twice: an input moves a coordinate at one velocity", where=where,
                                 field=f"velocities.{coordinate}")
            given.add(coordinate)
        check_number(motion.sampling, where=where, field="sampling")
        if motion.sampling <= 0:
            raise ModelError(f"sampling interval must be positive, got {_num(motion.sampling)}", where=where,
                             field="sampling")
        if motion.duration is not None:
            check_positive(motion.duration, where, "duration")


def _check_forces_and_inputs(mechanism: Mechanism) -> None:
    """At most one force acts on a coordinate; no input drives a linkage's output."""
    acted_on: set[str] = set()
    for force in mechanism.forces:
        if force.coordinate in acted_on:
            raise ModelError("at most one force acts on a coordinate", where=f"force on {force.coordinate!r}",
                             field="coordinate")
        acted_on.add(force.coordinate)
    outputs = {linkage.output: linkage.name for linkage in mechanism.linkages}
    for index, motion in enumerate(mechanism.inputs):
        for coordinate in motion.coordinates:
            if coordinate in outputs:
                raise ModelError(f"{coordinate!r} is the output of linkage {outputs[coordinate]!r}; drive its input "
                                 "instead", where=f"inputs[{index}]", field="velocities")


def _check_time(mechanism: Mechanism) -> None:
    """The time allotment is not negative, and no input motion samples it more than ``MAX_SAMPLES`` times."""
    time = check_number(mechanism.time, where="mechanism", field="time")
    if time < 0:
        raise ModelError(f"must not be negative, got {_num(time)}", where="mechanism", field="time")
    for index, motion in enumerate(mechanism.inputs):
        if time / motion.sampling > MAX_SAMPLES:
            raise ModelError(f"sampling every {_num(motion.sampling)} s over the {_num(time)} s allotment takes "
                             f"{time / motion.sampling:.3g} samples; at most {MAX_SAMPLES:,} are allowed",
                             where=f"inputs[{index}]", field="sampling")


def _check_tolerance(factors: Iterable[tuple[str, float]]) -> None:
    """Each factor overrides a known tolerance, relative, in (0, 1) and no finer than cspace computes;
    the arc tolerance is no finer than the length tolerance."""
    chosen = {}
    for key, value in factors:
        if key not in TOLERANCE_KEYS:
            raise ModelError(f"unknown tolerance {key!r}; use one of {', '.join(TOLERANCE_KEYS)}",
                             where="tolerance", field=key)
        check_number(value, where="tolerance", field=key)
        if not 0 < value < 1:
            raise ModelError(f"must be a relative factor in (0, 1), got {_num(value)}", where="tolerance", field=key)
        if value < FLOORS[key]:
            raise ModelError(f"{_num(value)} is finer than cspace computes: the factor must be at least "
                             f"{FLOORS[key]:g}", where="tolerance", field=key)
        chosen[key] = value
    arc, length = chosen.get("arc", DEFAULT_ARC), chosen.get("length", DEFAULT_LENGTH)
    if arc < length:
        raise ModelError(f"{_num(arc)} is finer than the length tolerance {_num(length)}: points closer than that "
                         "coincide", where="tolerance", field="arc")


# -- full dynamics -------------------------------------------------------------------------------------

def _check_dynamics(mechanism: Mechanism) -> None:
    """Masses, initial velocities and ``[dynamics]`` only with full dynamics; then every moving part
    has a mass (an inertia when it turns), no simple-dynamics force or shift along z is left, and
    the springs, dampers, loads and contact laws name what exists, with sound numbers."""
    dynamics = mechanism.dynamics
    if dynamics is None:
        for part in mechanism.parts:
            if part.mass is not None:
                raise ModelError("mass is for full dynamics: set dynamics = \"full\" in [mechanism]",
                                 where=f"part {part.name!r}", field="mass")
        for coordinate in mechanism.coordinates:
            if coordinate.velocity:
                raise ModelError("an initial velocity is for full dynamics: set dynamics = \"full\" in [mechanism]",
                                 where=f"part {coordinate.part!r}", field=f"coordinate {coordinate.name!r}.velocity")
        return
    if mechanism.forces:
        raise ModelError("simple-dynamics forces do not act in full dynamics: use [dynamics] gravity, springs "
                         "and loads", where="forces[0]", field="kind")
    moved = {name for linkage in mechanism.linkages for name in linkage.members}
    moved |= {mechanism.coordinate(linkage.output).part for linkage in mechanism.linkages}
    for part in mechanism.parts:
        where = f"part {part.name!r}"
        turns = part.name in moved or any(mechanism.coordinate(c).is_angle for c in part.coordinates)
        for name in part.coordinates:
            coordinate = mechanism.coordinate(name)
            if coordinate.along_z:
                raise ModelError("full dynamics does not move parts along z yet", where=where,
                                 field=f"coordinate {name!r}")
            check_number(coordinate.velocity, where=where, field=f"coordinate {name!r}.velocity")
        if part.mass is None:
            if part.coordinates or part.name in moved:
                raise ModelError("a moving part needs a mass (or a density) in full dynamics", where=where,
                                 field="mass")
            continue
        check_positive(part.mass.mass, where, "mass")
        _check_point(part.mass.centre, where, "centre")
        check_number(part.mass.inertia, where=where, field="inertia")
        if part.mass.inertia < 0 or (turns and part.mass.inertia == 0):
            raise ModelError(f"must be {'positive: the part turns' if turns else 'at least 0'}, "
                             f"got {_num(part.mass.inertia)}", where=where, field="inertia")
    _check_point(dynamics.gravity, "dynamics", "gravity")
    check_positive(dynamics.sampling, "dynamics", "sampling")
    if mechanism.time / dynamics.sampling > MAX_SAMPLES:
        raise ModelError(f"sampling every {_num(dynamics.sampling)} s over the {_num(mechanism.time)} s allotment "
                         f"takes {mechanism.time / dynamics.sampling:.3g} samples; at most {MAX_SAMPLES:,} are "
                         "allowed", where="dynamics", field="sampling")
    for name, value, high in (("restitution", dynamics.restitution, 1.0), ("friction", dynamics.friction, None)):
        _check_coefficient(value, high, "dynamics", name)
    known = {c.name for c in mechanism.coordinates}
    for key, entries, fields in (("springs", dynamics.springs, ("stiffness", "rest")),
                                 ("dampers", dynamics.dampers, ("coefficient",)),
                                 ("loads", dynamics.loads, ("value",))):
        for index, entry in enumerate(entries):
            where = f"dynamics.{key}[{index}]"
            if entry.coordinate not in known:
                raise ModelError(_unknown("coordinate", entry.coordinate, known), where=where, field="coordinate")
            for field in fields:
                check_number(getattr(entry, field), where=where, field=field)
            if key != "loads" and getattr(entry, fields[0]) < 0:
                raise ModelError(f"must not be negative, got {_num(getattr(entry, fields[0]))}", where=where,
                                 field=fields[0])
    parts = {part.name: part for part in mechanism.parts}
    for index, law in enumerate(dynamics.contacts):
        where = f"dynamics.contacts[{index}]"
        for k, name in enumerate(law.parts):
            if name not in parts:
                raise ModelError(_unknown("part", name, parts), where=where, field=f"parts[{k}]")
            if law.faces is not None:
                faces = {e.name for s in parts[name].slices for p in s.profiles for e in p.elements}
                if law.faces[k] not in faces:
                    raise ModelError(_unknown(f"face of part {name!r}", law.faces[k], faces), where=where,
                                     field=f"faces[{k}]")
        _check_coefficient(law.restitution, 1.0, where, "restitution")
        _check_coefficient(law.friction, None, where, "friction")


def _check_coefficient(value: float | None, high: float | None, where: str, field: str) -> None:
    """A restitution coefficient in [0, 1], or a friction coefficient at least 0 (None: not given)."""
    if value is None:
        return
    check_number(value, where=where, field=field)
    if value < 0 or (high is not None and value > high):
        bounds = f"in [0, {_num(high)}]" if high is not None else "at least 0"
        raise ModelError(f"must be {bounds}, got {_num(value)}", where=where, field=field)


# -- helpers -----------------------------------------------------------------------------------------

def _check_point(point: Point, where: str, field: str) -> None:
    """Both coordinates of a point are numbers in range."""
    for value in point:
        check_number(value, where=where, field=field)


def _check_direction(axis: Point, where: str, field: str) -> None:
    """An axis is a unit vector (:func:`cspace.model.mechanism.unit` makes one)."""
    length = math.hypot(axis[0], axis[1])
    if length == 0:
        raise ModelError("axis must not be the zero vector", where=where, field=field)
    if abs(length - 1) > NOISE:
        raise ModelError(f"axis must be a unit vector, got one of length {_num(length)}", where=where, field=field)


def _check_interval(interval: Sequence[float], where: str, field: str) -> None:
    """A [low, high] pair of numbers in range, low below high."""
    for k, value in enumerate(interval):
        check_number(value, where=where, field=f"{field}[{k}]")
    low, high = interval
    if not low < high:
        raise ModelError(f"expected [low, high] with low < high, got [{_num(low)}, {_num(high)}]", where=where,
                         field=field)


def check_positive(value: float, where: str | None, field: str) -> float:
    """``value``, unless it is out of range or not above zero (then ModelError)."""
    check_number(value, where=where, field=field)
    if value <= 0:
        raise ModelError(f"must be positive, got {_num(value)}", where=where, field=field)
    return value


def _unknown(kind: str, name: str, known: Iterable[str]) -> str:
    """The message for a ``kind`` named ``name`` not among ``known``, with the nearest known name as a hint."""
    hint = difflib.get_close_matches(str(name), sorted(known), n=1)
    suggestion = f" (did you mean {hint[0]!r}?)" if hint else ""
    return f"unknown {kind} {name!r}{suggestion}"


def unknown_listed(kind: str, name: str, known: Sequence[str]) -> str:
    """The message for a ``kind`` named ``name`` not among ``known``: the nearest known name as a
    hint (a looser match than :func:`_unknown`'s: short names differ by a larger share), else them all.

    >>> unknown_listed("coordinate", "xq", ["xp", "ya"]), unknown_listed("part", "zz", ["frame"])
    ("unknown coordinate 'xq' (did you mean 'xp'?)", "unknown part 'zz'; the parts are frame")
    """
    hint = difflib.get_close_matches(str(name), list(known), n=1, cutoff=0.5)
    if hint:
        return f"unknown {kind} {name!r} (did you mean {hint[0]!r}?)"
    return f"unknown {kind} {name!r}; the {kind}s are {', '.join(known)}"


def check_part_names(mechanism: Mechanism, names: Mapping[str, str]) -> None:
    """Raise ModelError, naming the field, unless every part of ``names`` (field: part name) is a
    part of the mechanism, and they are different parts."""
    parts = [part.name for part in mechanism.parts]
    for field, name in names.items():
        if name not in parts:
            raise ModelError(unknown_listed("part", name, parts), file=mechanism.source, field=field)
    if len(set(names.values())) < len(names):
        raise ModelError(f"a pair needs two different parts, got {list(names.values())[0]!r} twice",
                         file=mechanism.source, field=list(names)[-1])


def _num(value: float) -> str:
    return f"{value:g}"
