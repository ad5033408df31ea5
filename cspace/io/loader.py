"""Read a mechanism from TOML and check it field by field.

The loader stops at the first problem and reports it as one line naming the file,
the element and the field (see :class:`cspace.model.errors.ModelError`). The format is
documented in the README; the checks here are its executable specification.
"""

from __future__ import annotations

import difflib
import math
import os
import re
import stat
import tomllib
from pathlib import Path
from typing import Any

from ..model.checks import check_profiles
from ..model.errors import DxfError, ModelError
from ..model.geometry import Arc, Element, Line, Point, Profile
from ..model.kinds import ForceKind, JointKind, Motion
from ..model.mechanism import MAX_TABLE, Coordinate, Force, InputMotion, Joint, Linkage, Mechanism, Part, Slice
from ..model.tolerance import DEFAULT_ANGLE, DEFAULT_ARC, DEFAULT_LENGTH, FLOORS

MAX_FILE_BYTES = 4 * 1024 * 1024
MAX_PARTS = 500
MAX_FACES = 20000
MAX_MAGNITUDE = 1e9  # no length, angle, time or speed in a mechanism file is larger
MAX_SAMPLES = 1_000_000  # samples one input motion may take over the time allotment
NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.\-]*")  # the whole name (fullmatch: "$" let a newline end one)
TOLERANCE_KEYS = ("length", "angle", "arc", "lp", "velocity")


def load(path: str | os.PathLike) -> Mechanism:
    """Read and check a mechanism file.

    >>> m = load("fixtures/feeder.toml")
    >>> [p.name for p in m.parts][:3]
    ['frame', 'driver', 'link']
    """
    name = str(path)
    text = _read(path, name)
    if text.startswith("\ufeff"):
        text = text[1:]  # a UTF-8 byte order mark, as some editors on Windows write
    return loads(text, source=name, default_name=Path(path).stem)


def _read(path: str | os.PathLike, name: str) -> str:
    """The file's text: a regular file (not a device, FIFO or directory, whatever a link
    points at) of at most ``MAX_FILE_BYTES``, read without blocking and no further than
    one byte past the limit (a size from ``stat`` is 0 for a device that never ends)."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        raise ModelError("no such file", file=name) from None
    except OSError as error:
        raise ModelError(f"cannot read: {error.strerror}", file=name) from None
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise ModelError("is a directory, not a mechanism file", file=name)
        if not stat.S_ISREG(mode):
            raise ModelError(f"is not a regular file (a {_file_kind(mode)}); a mechanism file must be one",
                             file=name)
        chunks, size = [], 0
        while size <= MAX_FILE_BYTES:
            chunk = os.read(fd, min(1 << 20, MAX_FILE_BYTES + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    except OSError as error:
        raise ModelError(f"cannot read: {error.strerror}", file=name) from None
    finally:
        os.close(fd)
    if size > MAX_FILE_BYTES:
        raise ModelError(f"file is over {MAX_FILE_BYTES // (1024 * 1024)} MB; mechanism files are limited to "
                         f"{MAX_FILE_BYTES // (1024 * 1024)} MB", file=name)
    data = b"".join(chunks)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ModelError(f"not UTF-8 text (byte {error.start})", file=name) from None


def _file_kind(mode: int) -> str:
    kinds = ((stat.S_ISCHR, "character device"), (stat.S_ISBLK, "block device"), (stat.S_ISFIFO, "FIFO"),
             (stat.S_ISSOCK, "socket"))
    return next((kind for test, kind in kinds if test(mode)), "special file")


def loads(text: str, *, source: str = "<string>", default_name: str = "mechanism") -> Mechanism:
    """Read a mechanism from TOML text (``source`` names it in errors)."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ModelError(f"invalid TOML: {error}", file=source) from None
    except RecursionError:
        raise ModelError("invalid TOML: nested too deeply", file=source) from None
    try:
        return _Reader(default_name, Path(source).parent).mechanism(data, source)
    except ModelError as error:
        raise error.located(file=source) from None


class _Reader:
    """Turns parsed TOML into model objects; every check raises ModelError with a location."""

    def __init__(self, default_name: str, base: Path = Path(".")) -> None:
        self.default_name = default_name
        self.base = base  # the mechanism file's folder: a dxf profile's path is relative to it
        self.where = ""

    def fail(self, field: str, message: str) -> ModelError:
        return ModelError(message, where=self.where or None, field=field or None)

    # -- top level -----------------------------------------------------------------

    def mechanism(self, data: dict, source: str) -> Mechanism:
        self.keys(data, ("mechanism", "tolerance", "parts", "linkages", "forces", "inputs"), "")
        head = self.table(data, "mechanism", optional=True)
        self.where = "mechanism"
        self.keys(head, ("name", "time"), "")
        name = self.string(head, "name", optional=True) or self.default_name
        parts_data = self.array_of_tables(data, "parts", optional=False)
        if not parts_data:
            raise self.fail("parts", "a mechanism needs at least one part")
        if len(parts_data) > MAX_PARTS:
            raise self.fail("parts", f"{len(parts_data)} parts; at most {MAX_PARTS} are supported")
        parts, coordinates = self.parts(parts_data)
        known = {c.name for c in coordinates}
        linkages = tuple(self.linkage(i, d, parts, coordinates)
                         for i, d in enumerate(self.array_of_tables(data, "linkages")))
        self.check_linkage_membership(parts, linkages)
        angles = {c.name for c in coordinates if c.is_angle}
        forces = tuple(self.force(i, d, known, angles) for i, d in enumerate(self.array_of_tables(data, "forces")))
        inputs = tuple(self.input(i, d, known) for i, d in enumerate(self.array_of_tables(data, "inputs")))
        self.check_forces_and_inputs(forces, inputs, linkages)
        self.where = "mechanism"
        time = self.number(head, "time", optional=True)
        if time is None:
            if inputs:
                raise self.fail("time", "missing: the time allotment in seconds for the input motions")
            time = 0.0
        if time < 0:
            raise self.fail("time", f"must not be negative, got {_num(time)}")
        for index, motion in enumerate(inputs):
            if time / motion.sampling > MAX_SAMPLES:
                self.where = f"inputs[{index}]"
                raise self.fail("sampling", f"sampling every {_num(motion.sampling)} s over the "
                                f"{_num(time)} s allotment takes {time / motion.sampling:.3g} samples; "
                                f"at most {MAX_SAMPLES:,} are allowed")
        self.where = "tolerance"
        factors = self.tolerance(self.table(data, "tolerance", optional=True))
        mechanism = Mechanism(name=name, parts=parts, coordinates=coordinates, linkages=linkages,
                              forces=forces, inputs=inputs, time=time, source=source,
                              tolerance_factors=factors)
        check_profiles(mechanism)
        return mechanism

    def tolerance(self, data: dict) -> tuple[tuple[str, float], ...]:
        self.keys(data, TOLERANCE_KEYS, "")
        factors = []
        for key in TOLERANCE_KEYS:
            value = self.number(data, key, optional=True)
            if value is not None:
                if not 0 < value < 1:
                    raise self.fail(key, f"must be a relative factor in (0, 1), got {_num(value)}")
                if value < FLOORS[key]:
                    raise self.fail(key, f"{_num(value)} is finer than cspace computes: the factor must be at "
                                         f"least {FLOORS[key]:g}")
                factors.append((key, value))
        chosen = dict(factors)
        if chosen.get("arc", DEFAULT_ARC) < chosen.get("length", DEFAULT_LENGTH):
            raise self.fail("arc", f"{_num(chosen.get('arc', DEFAULT_ARC))} is finer than the length tolerance "
                                   f"{_num(chosen.get('length', DEFAULT_LENGTH))}: points closer than that coincide")
        return tuple(factors)

    # -- parts -----------------------------------------------------------------------

    def parts(self, parts_data: list) -> tuple[tuple[Part, ...], tuple[Coordinate, ...]]:
        parts, coordinates, seen_parts, seen_coords = [], [], set(), set()
        faces = 0
        for index, data in enumerate(parts_data):
            self.where = f"parts[{index}]"
            name = self.identifier(data, "name")
            self.where = f"part {name!r}"
            if name in seen_parts:
                raise self.fail("name", f"another part is already named {name!r}")
            seen_parts.add(name)
            self.keys(data, ("name", "motion", "coordinates", "slices"), "")
            motion = self.string(data, "motion")
            if motion not in tuple(Motion):
                raise self.fail("motion", f"unknown motion {motion!r}; use one of {', '.join(Motion)}")
            own = self.coordinates(data, name, motion, seen_coords)
            self.sticky: set[str] = set()
            slices = self.slices(data)
            faces += sum(len(p.elements) for s in slices for p in s.profiles)
            if faces > MAX_FACES:
                raise self.fail("slices", f"the mechanism has more than {MAX_FACES} faces")
            if self.sticky and motion == Motion.LINKAGE:
                raise self.fail("slices", "a linkage member touches nothing but through its joints, so it has "
                                          "no sticky faces")
            parts.append(Part(name, motion, slices, tuple(c.name for c in own), frozenset(self.sticky)))
            coordinates.extend(own)
        return tuple(parts), tuple(coordinates)

    def coordinates(self, data: dict, part: str, motion: str, seen: set) -> list[Coordinate]:
        entries = data.get("coordinates", [])
        if motion != Motion.FIXED_AXES:
            if entries:
                raise self.fail("coordinates", f"a {motion} part has no coordinates of its own")
            return []
        if not isinstance(entries, list):
            raise self.fail("coordinates", f"expected a list of coordinates, got {_kind(entries)}")
        if not entries:
            raise self.fail("coordinates", "a fixed-axes part needs at least one coordinate "
                            "(an axis to translate along or a pivot to rotate about)")
        result: list[Coordinate] = []
        for index, entry in enumerate(entries):
            field = f"coordinates[{index}]"
            if not isinstance(entry, dict):
                raise self.fail(field, f"expected a table like {{name = \"x\", axis = [1, 0]}}, "
                                f"got {_kind(entry)}")
            self.keys(entry, ("name", "axis", "pivot", "initial", "limits"), field)
            name = self.identifier(entry, "name", field)
            if name in seen:
                raise self.fail(f"{field}.name", f"coordinate {name!r} is already defined")
            seen.add(name)
            along_z = entry.get("axis") == "z"
            axis = (0.0, 0.0) if along_z else self.point(entry, "axis", field, optional=True)
            pivot = self.point(entry, "pivot", field, optional=True)
            if (axis is None) == (pivot is None):
                raise self.fail(field, "give exactly one of 'axis' (translation) or 'pivot' (rotation)")
            if axis is not None and not along_z:
                axis = self.direction(axis, f"{field}.axis")
            initial = self.number(entry, "initial", field, optional=True) or 0.0
            limits = self.interval(entry, "limits", field, optional=True)
            if along_z and limits is None:
                raise self.fail(f"{field}.limits", "a shift along z needs limits: the travel of the part "
                                "along its shaft")
            if limits is not None and not limits[0] <= initial <= limits[1]:
                raise self.fail(f"{field}.initial", f"initial value {_num(initial)} is outside "
                                f"the limits [{_num(limits[0])}, {_num(limits[1])}]")
            result.append(Coordinate(name, part, axis=axis, pivot=pivot, initial=initial, limits=limits,
                                     along_z=along_z))
        rotations = [c for c in result if c.is_angle]
        shifts = [c for c in result if c.along_z]
        translations = [c for c in result if not c.is_angle and not c.along_z]
        if len(rotations) > 1:
            raise self.fail("coordinates", "a part rotates about at most one pivot")
        if len(shifts) > 1:
            raise self.fail("coordinates", "a part shifts along z by at most one coordinate")
        if len(translations) > 2:
            raise self.fail("coordinates", "a part translates along at most two in-plane axes")
        if len(translations) == 2:
            (ax, ay), (bx, by) = translations[0].axis, translations[1].axis
            if abs(ax * by - ay * bx) < DEFAULT_ANGLE:
                raise self.fail("coordinates", f"axes of {translations[0].name!r} and "
                                f"{translations[1].name!r} are parallel")
        return result

    def slices(self, data: dict) -> tuple[Slice, ...]:
        entries = self.array_of_tables(data, "slices", optional=False)
        if not entries:
            raise self.fail("slices", "a part needs at least one slice")
        slices = []
        for index, entry in enumerate(entries):
            field = f"slices[{index}]"
            if not isinstance(entry, dict):
                raise self.fail(field, f"expected a table, got {_kind(entry)}")
            self.keys(entry, ("z", "profiles"), field)
            z = self.interval(entry, "z", field)
            profiles_data = entry.get("profiles")
            if not isinstance(profiles_data, list) or not profiles_data:
                raise self.fail(f"{field}.profiles", "a slice needs a non-empty list of profiles")
            named = len(profiles_data) > 1
            profiles = tuple(profile for k, item in enumerate(profiles_data)
                             for profile in self.profiles(item, f"{field}.profiles[{k}]", f"p{k}." if named else ""))
            slices.append(Slice(z, profiles))
        for i, a in enumerate(slices):
            for b in slices[i + 1:]:
                if a.z[0] < b.z[1] and b.z[0] < a.z[1]:
                    raise self.fail("slices", f"slices z={list(a.z)} and z={list(b.z)} overlap")
        return tuple(slices)

    def profiles(self, item: Any, field: str, prefix: str) -> tuple[Profile, ...]:
        """A profile entry's loops: its one profile, or every closed loop on a DXF drawing's layer."""
        if isinstance(item, dict) and "dxf" in item:
            return self.dxf(item, field, prefix)
        return (self.profile(item, field, prefix),)

    def profile(self, item: Any, field: str, prefix: str) -> Profile:
        if isinstance(item, list):
            item = {"path": item}
        if not isinstance(item, dict):
            raise self.fail(field, f"expected a profile table (rect, circle, path or dxf), got {_kind(item)}")
        self.keys(item, ("name", "rect", "circle", "radius", "path", "faces", "sticky"), field)
        shapes = [k for k in ("rect", "circle", "path") if k in item]
        if len(shapes) != 1:
            raise self.fail(field, "give exactly one of 'rect', 'circle', 'path' or 'dxf'")
        name = self.identifier(item, "name", field, optional=True)
        prefix = f"{name}." if name else prefix
        if "rect" in item:
            values = self.numbers(item, "rect", field, 4)
            x0, y0, x1, y1 = values
            if not (x1 > x0 and y1 > y0):
                raise self.fail(f"{field}.rect", f"rect [x0, y0, x1, y1] needs x1 > x0 and y1 > y0, "
                                f"got [{', '.join(_num(v) for v in values)}]")
            profile = Profile.rectangle(x0, y0, x1, y1, prefix)
        elif "circle" in item:
            center = self.point(item, "circle", field)
            radius = self.number(item, "radius", field)
            if radius <= 0:
                raise self.fail(f"{field}.radius", f"must be positive, got {_num(radius)}")
            profile = Profile.circle(center, radius, prefix + "rim")
        else:
            profile = self.path(item["path"], f"{field}.path", prefix)
        profile = self.rename(profile, item, field, prefix)
        self.sticky.update(self.sticky_faces(profile, item, field, prefix))
        return profile

    def dxf(self, item: dict, field: str, prefix: str) -> tuple[Profile, ...]:
        """The closed loops on a layer of a DXF drawing (:mod:`cspace.io.dxf`: millimetres, faces
        ``e0``, ``e1``, ... numbered on across the loops); ``faces`` renames them all in that order."""
        from .dxf import read_profiles  # ezdxf is imported only for a mechanism with DXF parts

        if any(k in item for k in ("rect", "circle", "path")):
            raise self.fail(field, "give exactly one of 'rect', 'circle', 'path' or 'dxf'")
        self.keys(item, ("name", "dxf", "layer", "faces", "sticky"), field)
        path, layer = self.string(item, "dxf", field), self.string(item, "layer", field)
        for key, value in (("dxf", path), ("layer", layer)):
            if not value.strip():
                raise self.fail(f"{field}.{key}", f"must name a {'DXF file' if key == 'dxf' else 'layer'}")
        name = self.identifier(item, "name", field, optional=True)
        prefix = f"{name}." if name else prefix
        try:
            loops = read_profiles(self.base / path, layer, prefix=prefix, shown=path, max_faces=MAX_FACES,
                                  max_magnitude=MAX_MAGNITUDE)
        except DxfError as error:
            raise error.located(where=self.where or None, field=field) from None
        if "faces" in item:
            loops = self.rename_loops(loops, item["faces"], field, prefix)
        every = Profile(tuple(element for loop in loops for element in loop.elements))
        self.sticky.update(self.sticky_faces(every, item, field, prefix))
        return loops

    def rename_loops(self, loops: tuple[Profile, ...], names: Any, field: str, prefix: str) -> tuple[Profile, ...]:
        """Apply a ``faces`` list to a DXF layer's loops, one name per face of all the loops in order."""
        total = sum(len(loop.elements) for loop in loops)
        if not isinstance(names, list) or not all(isinstance(n, str) and NAME.fullmatch(n) for n in names):
            raise self.fail(f"{field}.faces", "faces is a list of names like [\"top\", \"left\"]")
        if len(names) != total:
            raise self.fail(f"{field}.faces", f"{len(names)} names for {total} faces "
                                              f"(the layer's {len(loops)} loops together)")
        renamed, start = [], 0
        for loop in loops:
            count = len(loop.elements)
            renamed.append(self.rename(loop, {"faces": names[start:start + count]}, field, prefix))
            start += count
        own = [{e.name for e in loop.elements} for loop in renamed]
        if any(a & b for i, a in enumerate(own) for b in own[i + 1:]):
            raise self.fail(f"{field}.faces", "face names must differ from loop to loop")
        return tuple(renamed)

    def sticky_faces(self, profile: Profile, item: dict, field: str, prefix: str) -> set[str]:
        """The profile's faces named sticky: all (``sticky = true``), none, or those listed."""
        value = item.get("sticky", False)
        names = list(dict.fromkeys(e.name for e in profile.elements))
        if isinstance(value, bool):
            return set(names) if value else set()
        own = [n[len(prefix):] for n in names]
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise self.fail(f"{field}.sticky", f"sticky is true, false or a list of face names, got {_kind(value)}")
        for face in value:
            if face not in own:
                raise self.fail(f"{field}.sticky", f"no face named {face!r}; the faces are {', '.join(own)}")
        return {prefix + face for face in value}

    def path(self, steps: Any, field: str, prefix: str) -> Profile:
        if not isinstance(steps, list) or len(steps) < 2:
            raise self.fail(field, "a path is a list of points [x, y] and arcs "
                            "{arc = [x, y], center = [cx, cy], turn = \"ccw\"}, starting and ending "
                            "at the same point")
        start = self.as_point(steps[0], f"{field}[0]")
        elements: list[Element] = []
        here = start
        for index, step in enumerate(steps[1:], start=1):
            sfield = f"{field}[{index}]"
            name = f"{prefix}f{index - 1}"
            if isinstance(step, dict):
                self.keys(step, ("arc", "center", "turn"), sfield)
                end = self.point(step, "arc", sfield)
                center = self.point(step, "center", sfield)
                turn = self.string(step, "turn", sfield, optional=True) or "ccw"
                if turn not in ("ccw", "cw"):
                    raise self.fail(f"{sfield}.turn", f"turn is 'ccw' or 'cw', got {turn!r}")
                elements.append(Arc(here, end, center, turn == "ccw", name))
            else:
                end = self.as_point(step, sfield)
                elements.append(Line(here, end, name))
            here = end
        return Profile(tuple(elements))

    def rename(self, profile: Profile, item: dict, field: str, prefix: str) -> Profile:
        """Apply the optional ``faces`` list of names, one per element."""
        if "faces" not in item:
            return profile
        names = item["faces"]
        if not isinstance(names, list) or not all(isinstance(n, str) and NAME.fullmatch(n) for n in names):
            raise self.fail(f"{field}.faces", "faces is a list of names like [\"top\", \"left\"]")
        if len(names) != len(profile.elements):
            raise self.fail(f"{field}.faces", f"{len(names)} names for {len(profile.elements)} faces")
        runs = [name for k, name in enumerate(names) if k == 0 or name != names[k - 1]]
        if len(runs) > 1 and runs[0] == runs[-1]:
            runs.pop()  # a face may run on round the profile's start
        if len(set(runs)) != len(runs):
            raise self.fail(f"{field}.faces", "face names must differ, but for neighbours that make one face "
                                              "(an involute flank drawn as arcs)")
        renamed = []
        for element, new in zip(profile.elements, names):
            kind = type(element)
            fields = {**element.__dict__, "name": prefix + new}
            renamed.append(kind(**fields))
        return Profile(tuple(renamed))

    # -- linkages ----------------------------------------------------------------------

    def linkage(self, index: int, data: Any, parts: tuple[Part, ...],
                coordinates: tuple[Coordinate, ...]) -> Linkage:
        self.where = f"linkages[{index}]"
        name = self.identifier(data, "name")
        self.where = f"linkage {name!r}"
        self.keys(data, ("name", "input", "output", "members", "joints", "table"), "")
        by_name = {c.name: c for c in coordinates}
        part_by_name = {p.name: p for p in parts}
        ends = []
        for key in ("input", "output"):
            coordinate = self.string(data, key)
            if coordinate not in by_name:
                raise self.fail(key, _unknown("coordinate", coordinate, by_name))
            ends.append(by_name[coordinate])
        if ends[0].name == ends[1].name:
            raise self.fail("output", "input and output must be different coordinates")
        members = data.get("members", [])
        if not isinstance(members, list) or not all(isinstance(m, str) for m in members):
            raise self.fail("members", "members is a list of part names")
        for member in members:
            if member not in part_by_name:
                raise self.fail("members", _unknown("part", member, part_by_name))
            if part_by_name[member].motion != Motion.LINKAGE:
                raise self.fail("members", f"part {member!r} has motion "
                                f"{part_by_name[member].motion!r}, not 'linkage'")
        allowed = set(members) | {ends[0].part, ends[1].part} | {p.name for p in parts if p.motion == Motion.FIXED}
        joints_data = data.get("joints")
        if not isinstance(joints_data, list) or not joints_data:
            raise self.fail("joints", "a linkage needs a list of joints")
        joints = tuple(self.joint(k, j, allowed, part_by_name) for k, j in enumerate(joints_data))
        for end in ends:
            owner = part_by_name[end.part]
            others = [c for c in owner.coordinates if c != end.name]
            if others:
                raise self.fail("joints", f"part {owner.name!r} joins the linkage through {end.name!r} "
                                f"but also has coordinate {others[0]!r}; a linkage end part may have "
                                "only that coordinate")
        unknowns, equations = 3 * len(members) + 1, 2 * len(joints)
        if unknowns != equations:
            raise self.fail("joints", f"{len(joints)} joints give {equations} equations for "
                            f"{unknowns} unknowns (3 per member plus the output); a 1-DOF linkage "
                            "needs them equal")
        table = self.number(data, "table", optional=True)
        table = 301 if table is None else table
        if table != int(table) or not 3 <= table <= MAX_TABLE:
            raise self.fail("table", f"table is a whole number of entries from 3 to {MAX_TABLE} (the least "
                            "to start from: cspace adds entries until interpolation meets the tolerance), "
                            f"got {_num(table)}")
        return Linkage(name, ends[0].name, ends[1].name, tuple(members), joints, int(table))

    def joint(self, index: int, data: Any, allowed: set, parts: dict) -> Joint:
        field = f"joints[{index}]"
        if not isinstance(data, dict):
            raise self.fail(field, f"expected a table, got {_kind(data)}")
        self.keys(data, ("kind", "parts", "points", "axis"), field)
        kind = self.string(data, "kind", field)
        if kind not in tuple(JointKind):
            raise self.fail(f"{field}.kind", f"unknown joint kind {kind!r}; use one of {', '.join(JointKind)}")
        names = data.get("parts")
        if not (isinstance(names, list) and len(names) == 2 and all(isinstance(n, str) for n in names)):
            raise self.fail(f"{field}.parts", "parts is a list of two part names")
        for name in names:
            if name not in parts:
                raise self.fail(f"{field}.parts", _unknown("part", name, parts))
            if name not in allowed:
                raise self.fail(f"{field}.parts", f"part {name!r} is not a member of this linkage, "
                                "the part of its input or output, or a fixed part")
        if names[0] == names[1]:
            raise self.fail(f"{field}.parts", "a joint connects two different parts")
        points = data.get("points")
        if not (isinstance(points, list) and len(points) == 2):
            raise self.fail(f"{field}.points", "points is [[x, y] on the first part, [x, y] on the second]")
        pa = self.as_point(points[0], f"{field}.points[0]")
        pb = self.as_point(points[1], f"{field}.points[1]")
        axis = None
        if kind == JointKind.SLIDER:
            axis = self.direction(self.point(data, "axis", field), f"{field}.axis")
        elif "axis" in data:
            raise self.fail(f"{field}.axis", "only a slider joint has an axis")
        return Joint(kind, (names[0], names[1]), (pa, pb), axis)

    def check_linkage_membership(self, parts: tuple[Part, ...], linkages: tuple[Linkage, ...]) -> None:
        owner: dict[str, str] = {}
        for linkage in linkages:
            for member in linkage.members:
                if member in owner:
                    self.where = f"linkage {linkage.name!r}"
                    raise self.fail("members", f"part {member!r} is already a member of linkage "
                                    f"{owner[member]!r}")
                owner[member] = linkage.name
        for part in parts:
            if part.motion == Motion.LINKAGE and part.name not in owner:
                self.where = f"part {part.name!r}"
                raise self.fail("motion", "a linkage part must be listed in the members of a linkage")
        outputs = {}
        for linkage in linkages:
            if linkage.output in outputs:
                self.where = f"linkage {linkage.name!r}"
                raise self.fail("output", f"{linkage.output!r} is already the output of linkage "
                                f"{outputs[linkage.output]!r}")
            outputs[linkage.output] = linkage.name

    # -- forces and inputs -----------------------------------------------------------------

    def force(self, index: int, data: Any, known: set, angles: set) -> Force:
        self.where = f"forces[{index}]"
        if not isinstance(data, dict):
            raise self.fail("", f"expected a table, got {_kind(data)}")
        self.keys(data, ("kind", "coordinate", "direction", "speed", "sampling"), "")
        kind = self.string(data, "kind")
        if kind not in tuple(ForceKind):
            raise self.fail("kind", f"unknown force kind {kind!r}; use one of {', '.join(ForceKind)}")
        coordinate = self.string(data, "coordinate")
        if coordinate not in known:
            raise self.fail("coordinate", _unknown("coordinate", coordinate, known))
        self.where = f"force on {coordinate!r}"
        if kind == ForceKind.GRAVITY and coordinate in angles:
            raise self.fail("kind", f"gravity acts along a translation, and {coordinate!r} is a rotation; "
                            "a torque or a spring turns it")
        if kind == ForceKind.TORQUE and coordinate not in angles:
            raise self.fail("kind", f"a torque turns a rotation, and {coordinate!r} is a translation; "
                            "gravity or a spring moves it")
        direction = self.number(data, "direction")
        if direction not in (1, -1):
            raise self.fail("direction", f"direction is +1 or -1 along the coordinate, got {_num(direction)}")
        speed = self.positive(data, "speed", 1.0)
        sampling = self.positive(data, "sampling", 0.25)
        return Force(kind, coordinate, int(direction), speed, sampling)

    def input(self, index: int, data: Any, known: set) -> InputMotion:
        self.where = f"inputs[{index}]"
        if not isinstance(data, dict):
            raise self.fail("", f"expected a table, got {_kind(data)}")
        self.keys(data, ("name", "velocities", "sampling", "duration"), "")
        name = self.string(data, "name", optional=True) or ""
        velocities = data.get("velocities")
        if not isinstance(velocities, dict) or not velocities:
            raise self.fail("velocities", "velocities is a table of coordinate = velocity, "
                            "e.g. velocities = { cd = 1.0 }")
        pairs = []
        for coordinate, value in velocities.items():
            if coordinate not in known:
                raise self.fail("velocities", _unknown("coordinate", coordinate, known))
            speed = self.as_number(value, f"velocities.{coordinate}")
            if speed == 0:
                raise self.fail(f"velocities.{coordinate}", "velocity must not be zero")
            pairs.append((coordinate, speed))
        sampling = self.number(data, "sampling")
        if sampling <= 0:
            raise self.fail("sampling", f"sampling interval must be positive, got {_num(sampling)}")
        duration = self.positive(data, "duration", None) if "duration" in data else None
        return InputMotion(tuple(pairs), sampling, name, duration)

    def check_forces_and_inputs(self, forces: tuple[Force, ...], inputs: tuple[InputMotion, ...],
                                linkages: tuple[Linkage, ...]) -> None:
        seen: set[str] = set()
        for force in forces:
            if force.coordinate in seen:
                self.where = f"force on {force.coordinate!r}"
                raise self.fail("coordinate", "at most one force acts on a coordinate")
            seen.add(force.coordinate)
        outputs = {lk.output: lk.name for lk in linkages}
        for index, motion in enumerate(inputs):
            for coordinate in motion.coordinates:
                if coordinate in outputs:
                    self.where = f"inputs[{index}]"
                    raise self.fail("velocities", f"{coordinate!r} is the output of linkage "
                                    f"{outputs[coordinate]!r}; drive its input instead")

    # -- typed field readers ------------------------------------------------------------

    def keys(self, data: dict, allowed: tuple[str, ...], field: str) -> None:
        for key in data:
            if key not in allowed:
                hint = difflib.get_close_matches(key, allowed, n=1)
                where = f"{field}.{key}" if field else key
                suggestion = f" (did you mean {hint[0]!r}?)" if hint else f"; allowed: {', '.join(allowed)}"
                raise self.fail(where, f"unknown field {key!r}{suggestion}")

    def table(self, data: dict, key: str, optional: bool = False) -> dict:
        value = data.get(key)
        if value is None:
            if optional:
                return {}
            raise self.fail(key, "missing")
        if not isinstance(value, dict):
            raise self.fail(key, f"expected a table [{key}], got {_kind(value)}")
        return value

    def array_of_tables(self, data: dict, key: str, optional: bool = True) -> list:
        value = data.get(key)
        if value is None:
            if optional:
                return []
            raise self.fail(key, f"missing: add at least one [[{key}]] table")
        if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
            raise self.fail(key, f"expected [[{key}]] tables, got {_kind(value)}")
        return value

    def string(self, data: dict, key: str, field: str = "", optional: bool = False) -> str | None:
        where = f"{field}.{key}" if field else key
        if key not in data:
            if optional:
                return None
            raise self.fail(where, "missing")
        value = data[key]
        if not isinstance(value, str):
            raise self.fail(where, f"expected a string, got {_kind(value)}")
        return value

    def identifier(self, data: Any, key: str, field: str = "", optional: bool = False) -> str | None:
        if not isinstance(data, dict):
            raise self.fail(field, f"expected a table, got {_kind(data)}")
        value = self.string(data, key, field, optional)
        if value is None:
            return None
        if not NAME.fullmatch(value):
            where = f"{field}.{key}" if field else key
            raise self.fail(where, f"{value!r} is not a name: use letters, digits, '_', '-' and '.', "
                            "starting with a letter")
        return value

    def number(self, data: dict, key: str, field: str = "", optional: bool = False) -> float | None:
        where = f"{field}.{key}" if field else key
        if key not in data:
            if optional:
                return None
            raise self.fail(where, "missing")
        return self.as_number(data[key], where)

    def positive(self, data: dict, key: str, default: float) -> float:
        value = self.number(data, key, optional=True)
        if value is None:
            return default
        if value <= 0:
            raise self.fail(key, f"must be positive, got {_num(value)}")
        return value

    def as_number(self, value: Any, where: str) -> float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise self.fail(where, f"expected a number, got {_kind(value)}")
        try:
            value = float(value)
        except OverflowError:
            raise self.fail(where, f"a number of {len(str(abs(value)))} digits is out of range: numbers in a "
                                   f"mechanism file are at most {MAX_MAGNITUDE:g} in size") from None
        if not math.isfinite(value):
            raise self.fail(where, f"expected a finite number, got {value}")
        if abs(value) > MAX_MAGNITUDE:
            raise self.fail(where, f"{value:g} is out of range: numbers in a mechanism file are at most "
                            f"{MAX_MAGNITUDE:g} in size")
        return value

    def numbers(self, data: dict, key: str, field: str, count: int) -> list[float]:
        where = f"{field}.{key}" if field else key
        value = data.get(key)
        if not isinstance(value, list) or len(value) != count:
            raise self.fail(where, f"expected a list of {count} numbers, got {_kind(value)}")
        return [self.as_number(v, f"{where}[{i}]") for i, v in enumerate(value)]

    def direction(self, axis: tuple[float, float], field: str) -> tuple[float, float]:
        """A unit vector along ``axis``: divided by its larger component first, so an axis of
        tiny (even subnormal) or huge components is normalized exactly, not squared away."""
        largest = max(abs(axis[0]), abs(axis[1]))
        if largest == 0:
            raise self.fail(field, "axis must not be the zero vector")
        x, y = axis[0] / largest, axis[1] / largest
        norm = math.hypot(x, y)
        return (x / norm, y / norm)

    def point(self, data: dict, key: str, field: str = "", optional: bool = False) -> Point | None:
        if key not in data:
            if optional:
                return None
            raise self.fail(f"{field}.{key}" if field else key, "missing")
        return self.as_point(data[key], f"{field}.{key}" if field else key)

    def as_point(self, value: Any, where: str) -> Point:
        if not isinstance(value, list) or len(value) != 2:
            raise self.fail(where, f"expected a point [x, y], got {_kind(value)}")
        return (self.as_number(value[0], where), self.as_number(value[1], where))

    def interval(self, data: dict, key: str, field: str = "",
                 optional: bool = False) -> tuple[float, float] | None:
        where = f"{field}.{key}" if field else key
        if key not in data:
            if optional:
                return None
            raise self.fail(where, "missing")
        lo, hi = self.numbers(data, key, field, 2)
        if not lo < hi:
            raise self.fail(where, f"expected [low, high] with low < high, got [{_num(lo)}, {_num(hi)}]")
        return (lo, hi)


def _unknown(kind: str, name: str, known) -> str:
    hint = difflib.get_close_matches(str(name), sorted(known), n=1)
    suggestion = f" (did you mean {hint[0]!r}?)" if hint else ""
    return f"unknown {kind} {name!r}{suggestion}"


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return f"boolean {str(value).lower()}"
    if isinstance(value, (int, float)):
        return f"number {_num(value)}"
    if isinstance(value, str):
        return f"string {value!r}"
    if isinstance(value, list):
        return f"a list of {len(value)}"
    if isinstance(value, dict):
        return "a table"
    return type(value).__name__


def _num(value: float) -> str:
    return f"{value:g}"
