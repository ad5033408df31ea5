"""Read a mechanism from TOML: what only a file can get wrong is checked here, the rest by the model.

The reader checks the file's syntax, each field's type, unknown and missing fields and the spelling
of a shape (a ``rect``'s corners in order, a ``circle``'s radius, a ``path``'s steps, a profile's
``faces`` and ``sticky`` lists, a DXF drawing), and bounds the part and face counts before the work.
Everything else is a rule on the mechanism's values, the same for one built in Python:
:meth:`cspace.model.mechanism.Mechanism.validate` (:mod:`cspace.model.validation`), which :func:`loads`
calls. The first problem is reported as one line naming the file, the element and the field (see
:class:`cspace.model.errors.ModelError`).
"""

from __future__ import annotations

import difflib
import math
import os
import stat
import tomllib
from pathlib import Path
from collections.abc import Mapping
from typing import Any

from ..model.dynamics import ContactLaw, Damper, Dynamics, Load, Mass, Spring, mass_of
from ..model.errors import DxfError, ModelError
from ..model.expressions import ExpressionError, evaluate
from ..model.geometry import Arc, Element, Line, Point, Profile
from ..model.kinds import DynamicsKind
from ..model.limits import MAX_FACES, MAX_MAGNITUDE, NAME
from ..model.mechanism import Coordinate, Force, InputMotion, Joint, Linkage, Mechanism, Part, Slice, unit
from ..model.tolerance import DEFAULT_ARC, FLOORS, TOLERANCE_KEYS
from ..model.validation import check_face_count, check_name, check_number, check_part_count, check_positive
from .parameters import declared, values

MAX_FILE_BYTES = 4 * 1024 * 1024
MASS_KEYS = ("mass", "inertia", "inertia-about", "centre", "density")  # a part's, for full dynamics


def load(path: str | os.PathLike, parameters: Mapping[str, float] | None = None) -> Mechanism:
    """Read and check a mechanism file; ``parameters`` set some of its ``[parameters]``
    (:mod:`cspace.io.parameters`), the others keep their defaults.

    >>> m = load("fixtures/feeder.toml")
    >>> [p.name for p in m.parts][:3]
    ['frame', 'driver', 'link']
    """
    name = str(path)
    return loads(read_text(path), source=name, default_name=Path(path).stem, parameters=parameters)


def read_text(path: str | os.PathLike) -> str:
    """A mechanism file's text, as :func:`load` reads it (a byte order mark dropped)."""
    text = _read(path, str(path))
    if text.startswith("\ufeff"):
        text = text[1:]  # a UTF-8 byte order mark, as some editors on Windows write
    return text


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


def loads(text: str, *, source: str = "<string>", default_name: str = "mechanism",
          parameters: Mapping[str, float] | None = None) -> Mechanism:
    """Read a mechanism from TOML text (``source`` names it in errors); ``parameters`` set
    some of the text's ``[parameters]``, whose expressions are evaluated with them.

    >>> text = '[parameters]\\nw = 2\\n[[parts]]\\nname = "a"\\nmotion = "fixed"\\n' \\
    ...        '[[parts.slices]]\\nz = [0, 1]\\nprofiles = [{ rect = [0, 0, "w", "w / 2"] }]\\n'
    >>> loads(text, parameters={"w": 4}).parts[0].slices[0].profiles[0].elements[1].end
    (4.0, 2.0)
    """
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ModelError(f"invalid TOML: {error}", file=source) from None
    except RecursionError:
        raise ModelError("invalid TOML: nested too deeply", file=source) from None
    try:
        bound = values(declared(data), parameters)
        return _Reader(default_name, Path(source).parent, bound).mechanism(data, source)
    except ModelError as error:
        raise error.located(file=source) from None


class _Reader:
    """Turns parsed TOML into model objects, checking what only a file can get wrong; every check
    raises ModelError with a location. The model's rules are :meth:`Mechanism.validate`'s."""

    def __init__(self, default_name: str, base: Path = Path("."), parameters: Mapping[str, float] | None = None) -> None:
        self.default_name = default_name
        self.base = base  # the mechanism file's folder: a dxf profile's path is relative to it
        self.parameters = dict(parameters or {})  # their values: a number may be an expression of them
        self.where = ""
        self.arc = DEFAULT_ARC  # the file's arc tolerance factor: DXF ellipses and splines are flattened within it

    def fail(self, field: str, message: str) -> ModelError:
        return ModelError(message, where=self.where or None, field=field or None)

    # -- top level -----------------------------------------------------------------

    def mechanism(self, data: dict, source: str) -> Mechanism:
        self.keys(data, ("parameters", "mechanism", "tolerance", "dynamics", "parts", "linkages", "forces", "inputs"),
                  "")
        head = self.table(data, "mechanism", optional=True)
        self.where = "mechanism"
        self.keys(head, ("name", "time", "dynamics"), "")
        name = self.string(head, "name", optional=True) or self.default_name
        kind = self.string(head, "dynamics", optional=True) or DynamicsKind.SIMPLE
        if kind not in tuple(DynamicsKind):
            raise self.fail("dynamics", f"dynamics is \"simple\" (the paper's) or \"full\" (masses), got {kind!r}")
        self.where = "dynamics"
        dynamics_data = self.table(data, "dynamics", optional=True)
        if dynamics_data and kind == DynamicsKind.SIMPLE:
            raise self.fail("", "[dynamics] is for full dynamics: set dynamics = \"full\" in [mechanism]")
        dynamics = self.dynamics(dynamics_data) if kind == DynamicsKind.FULL else None
        self.where = "tolerance"  # before the parts: a DXF part's curves are flattened within the arc tolerance
        factors = self.tolerance(self.table(data, "tolerance", optional=True))
        self.arc = dict(factors).get("arc", DEFAULT_ARC)
        self.where = "mechanism"
        parts_data = self.array_of_tables(data, "parts", optional=False)
        check_part_count(len(parts_data))  # before the work: a file of 10,000 parts is refused unread
        parts, coordinates = self.parts(parts_data)
        linkages = tuple(self.linkage(i, d) for i, d in enumerate(self.array_of_tables(data, "linkages")))
        forces = tuple(self.force(i, d) for i, d in enumerate(self.array_of_tables(data, "forces")))
        inputs = tuple(self.input(i, d) for i, d in enumerate(self.array_of_tables(data, "inputs")))
        self.where = "mechanism"
        time = self.number(head, "time", optional=True)
        if time is None and inputs:
            raise self.fail("time", "missing: the time allotment in seconds for the input motions")
        mechanism = Mechanism(name=name, parts=parts, coordinates=coordinates, linkages=linkages,
                              forces=forces, inputs=inputs, time=time or 0.0, source=source,
                              tolerance_factors=factors, dynamics=dynamics)
        mechanism.validate()
        return mechanism

    def tolerance(self, data: dict) -> tuple[tuple[str, float], ...]:
        self.keys(data, TOLERANCE_KEYS, "")
        return tuple(self.given(data, TOLERANCE_KEYS).items())

    # -- parts -----------------------------------------------------------------------

    def parts(self, parts_data: list) -> tuple[tuple[Part, ...], tuple[Coordinate, ...]]:
        parts, coordinates = [], []
        faces = 0
        for index, data in enumerate(parts_data):
            self.where = f"parts[{index}]"
            name = self.string(data, "name")
            self.where = f"part {name!r}"
            self.keys(data, ("name", "motion", "coordinates", "slices") + MASS_KEYS, "")
            motion = self.string(data, "motion")
            own = self.coordinates(data, name)
            self.sticky: set[str] = set()
            slices = self.slices(data)
            faces += sum(len(p.elements) for s in slices for p in s.profiles)
            check_face_count(faces, name)  # before the work, part by part
            mass = self.mass(data, slices, own)
            parts.append(Part(name, motion, slices, tuple(c.name for c in own), frozenset(self.sticky), mass))
            coordinates.extend(own)
        return tuple(parts), tuple(coordinates)

    def coordinates(self, data: dict, part: str) -> list[Coordinate]:
        entries = data.get("coordinates", [])
        if not isinstance(entries, list):
            raise self.fail("coordinates", f"expected a list of coordinates, got {_kind(entries)}")
        result: list[Coordinate] = []
        for index, entry in enumerate(entries):
            field = f"coordinates[{index}]"
            if not isinstance(entry, dict):
                raise self.fail(field, f"expected a table like {{name = \"x\", axis = [1, 0]}}, "
                                f"got {_kind(entry)}")
            self.keys(entry, ("name", "axis", "pivot", "initial", "limits", "velocity"), field)
            name = self.string(entry, "name", field)
            along_z = entry.get("axis") == "z"
            axis = (0.0, 0.0) if along_z else self.point(entry, "axis", field, optional=True, shape=True)
            pivot = self.point(entry, "pivot", field, optional=True)
            initial = self.number(entry, "initial", field, optional=True) or 0.0
            limits = self.interval(entry, "limits", field, optional=True)
            velocity = self.number(entry, "velocity", field, optional=True) or 0.0
            result.append(Coordinate(name, part, axis=None if axis is None else unit(axis), pivot=pivot,
                                     initial=initial, limits=limits, along_z=along_z, velocity=velocity))
        return result

    def slices(self, data: dict) -> tuple[Slice, ...]:
        entries = self.array_of_tables(data, "slices", optional=False)
        slices = []
        for index, entry in enumerate(entries):
            field = f"slices[{index}]"
            if not isinstance(entry, dict):
                raise self.fail(field, f"expected a table, got {_kind(entry)}")
            self.keys(entry, ("z", "profiles"), field)
            z = self.interval(entry, "z", field)
            profiles_data = entry.get("profiles")
            if not isinstance(profiles_data, list):
                raise self.fail(f"{field}.profiles", "a slice needs a non-empty list of profiles")
            named = len(profiles_data) > 1
            profiles = tuple(profile for k, item in enumerate(profiles_data)
                             for profile in self.profiles(item, f"{field}.profiles[{k}]", f"p{k}." if named else ""))
            slices.append(Slice(z, profiles))
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
            values = self.numbers(item, "rect", field, 4, shape=True)
            x0, y0, x1, y1 = values
            if not (x1 > x0 and y1 > y0):
                raise self.fail(f"{field}.rect", f"rect [x0, y0, x1, y1] needs x1 > x0 and y1 > y0, "
                                f"got [{', '.join(_num(v) for v in values)}]")
            profile = Profile.rectangle(x0, y0, x1, y1, prefix)
        elif "circle" in item:
            center = self.point(item, "circle", field, shape=True)
            radius = self.number(item, "radius", field, shape=True)
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
                                  max_magnitude=MAX_MAGNITUDE, arc=self.dxf_arc())
        except DxfError as error:
            raise error.located(where=self.where or None, field=field) from None
        if "faces" in item:
            loops = self.rename_loops(loops, item["faces"], field, prefix)
        every = Profile(tuple(element for loop in loops for element in loop.elements))
        self.sticky.update(self.sticky_faces(every, item, field, prefix))
        return loops

    def dxf_arc(self) -> float:
        """The arc tolerance factor DXF curves are flattened with: the file's, or, if it is out of
        bounds (refused once the parts are read), the default."""
        return self.arc if FLOORS["arc"] <= self.arc <= 1 else DEFAULT_ARC

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
        start = self.as_point(steps[0], f"{field}[0]", shape=True)
        elements: list[Element] = []
        here = start
        for index, step in enumerate(steps[1:], start=1):
            sfield = f"{field}[{index}]"
            name = f"{prefix}f{index - 1}"
            if isinstance(step, dict):
                self.keys(step, ("arc", "center", "turn"), sfield)
                end = self.point(step, "arc", sfield, shape=True)
                center = self.point(step, "center", sfield, shape=True)
                turn = self.string(step, "turn", sfield, optional=True) or "ccw"
                if turn not in ("ccw", "cw"):
                    raise self.fail(f"{sfield}.turn", f"turn is 'ccw' or 'cw', got {turn!r}")
                elements.append(Arc(here, end, center, turn == "ccw", name))
            else:
                end = self.as_point(step, sfield, shape=True)
                elements.append(Line(here, end, name))
            here = end
        return Profile(tuple(elements))

    def rename(self, profile: Profile, item: dict, field: str, prefix: str) -> Profile:
        """Apply the optional ``faces`` list of names, one per element (that they differ is the model's rule)."""
        if "faces" not in item:
            return profile
        names = item["faces"]
        if not isinstance(names, list) or not all(isinstance(n, str) and NAME.fullmatch(n) for n in names):
            raise self.fail(f"{field}.faces", "faces is a list of names like [\"top\", \"left\"]")
        if len(names) != len(profile.elements):
            raise self.fail(f"{field}.faces", f"{len(names)} names for {len(profile.elements)} faces")
        renamed = []
        for element, new in zip(profile.elements, names):
            kind = type(element)
            fields = {**element.__dict__, "name": prefix + new}
            renamed.append(kind(**fields))
        return Profile(tuple(renamed))

    # -- linkages ----------------------------------------------------------------------

    def linkage(self, index: int, data: dict) -> Linkage:
        self.where = f"linkages[{index}]"
        name = self.string(data, "name")
        self.where = f"linkage {name!r}"
        self.keys(data, ("name", "input", "output", "members", "joints", "table"), "")
        ends = [self.string(data, key) for key in ("input", "output")]
        members = data.get("members", [])
        if not isinstance(members, list) or not all(isinstance(m, str) for m in members):
            raise self.fail("members", "members is a list of part names")
        joints_data = data.get("joints")
        if not isinstance(joints_data, list):
            raise self.fail("joints", "a linkage needs a list of joints")
        joints = tuple(self.joint(k, j) for k, j in enumerate(joints_data))
        table = self.number(data, "table", optional=True)
        size = {} if table is None else {"table_size": table}  # none given: the model's default
        return Linkage(name, ends[0], ends[1], tuple(members), joints, **size)

    def joint(self, index: int, data: Any) -> Joint:
        field = f"joints[{index}]"
        if not isinstance(data, dict):
            raise self.fail(field, f"expected a table, got {_kind(data)}")
        self.keys(data, ("kind", "parts", "points", "axis"), field)
        kind = self.string(data, "kind", field)
        names = data.get("parts")
        if not (isinstance(names, list) and len(names) == 2 and all(isinstance(n, str) for n in names)):
            raise self.fail(f"{field}.parts", "parts is a list of two part names")
        points = data.get("points")
        if not (isinstance(points, list) and len(points) == 2):
            raise self.fail(f"{field}.points", "points is [[x, y] on the first part, [x, y] on the second]")
        pa = self.as_point(points[0], f"{field}.points[0]")
        pb = self.as_point(points[1], f"{field}.points[1]")
        axis = self.point(data, "axis", field, optional=True, shape=True)
        return Joint(kind, (names[0], names[1]), (pa, pb), None if axis is None else unit(axis))

    # -- forces and inputs -----------------------------------------------------------------

    def force(self, index: int, data: Any) -> Force:
        self.where = f"forces[{index}]"
        if not isinstance(data, dict):
            raise self.fail("", f"expected a table, got {_kind(data)}")
        self.keys(data, ("kind", "coordinate", "direction", "speed", "sampling"), "")
        kind = self.string(data, "kind")
        coordinate = self.string(data, "coordinate")
        self.where = f"force on {coordinate!r}"
        direction = self.number(data, "direction")
        return Force(kind, coordinate, direction, **self.given(data, ("speed", "sampling")))

    def input(self, index: int, data: Any) -> InputMotion:
        self.where = f"inputs[{index}]"
        if not isinstance(data, dict):
            raise self.fail("", f"expected a table, got {_kind(data)}")
        self.keys(data, ("name", "velocities", "sampling", "duration"), "")
        name = self.string(data, "name", optional=True) or ""
        velocities = data.get("velocities")
        if not isinstance(velocities, dict):
            raise self.fail("velocities", "velocities is a table of coordinate = velocity, "
                            "e.g. velocities = { cd = 1.0 }")
        pairs = tuple((coordinate, self.as_number(value, f"velocities.{coordinate}"))
                      for coordinate, value in velocities.items())
        sampling = self.number(data, "sampling")
        return InputMotion(pairs, sampling, name, self.number(data, "duration", optional=True))

    # -- full dynamics ---------------------------------------------------------------

    def mass(self, data: dict, slices: tuple[Slice, ...], own: list[Coordinate]) -> Mass | None:
        """A part's ``mass`` (with ``inertia``, about its ``centre`` of mass or its pivot, and the centre,
        the profiles' centroid by default) or its ``density`` (mass per unit volume: all from the profiles)."""
        given = [key for key in MASS_KEYS if key in data]
        if not given:
            return None
        if "density" in given and len(given) > 1:
            raise self.fail("density", "give a density or a mass (with inertia and centre), not both")
        if "density" not in given and "mass" not in given:
            raise self.fail(given[0], "needs the part's mass (or a density instead)")
        outline = [(s.z[1] - s.z[0], s.oriented) for s in slices]
        if "density" in given:
            density = check_positive(self.number(data, "density"), self.where, "density")
            try:
                return mass_of(outline, density)
            except ValueError:
                raise self.fail("density", "the part's profiles enclose no area to weigh") from None
        mass = self.number(data, "mass")
        inertia = self.number(data, "inertia", optional=True) or 0.0
        centre = self.point(data, "centre", optional=True) or mass_of(outline, 1.0).centre
        about = self.string(data, "inertia-about", optional=True) or "centre"
        if about not in ("centre", "pivot"):
            raise self.fail("inertia-about", f"inertia is about the \"centre\" of mass or the \"pivot\", got {about!r}")
        if about == "pivot":
            pivots = [c.pivot for c in own if c.pivot is not None]
            if not pivots:
                raise self.fail("inertia-about", "the part has no pivot: give its inertia about its centre of mass")
            inertia -= mass * math.dist(centre, pivots[0]) ** 2
            if inertia < 0:
                raise self.fail("inertia", "smaller than the mass times the squared distance from the pivot to "
                                "the centre: no body has that inertia about its pivot")
        return Mass(mass, inertia, centre)

    def dynamics(self, data: dict) -> Dynamics:
        """The ``[dynamics]`` table: gravity, restitution, friction, contact laws, springs, dampers, loads."""
        self.keys(data, ("gravity", "restitution", "friction", "contacts", "springs", "dampers", "loads", "sampling"),
                  "")
        gravity = self.point(data, "gravity", optional=True) or (0.0, 0.0)
        restitution = self.number(data, "restitution", optional=True) or 0.0
        friction = self.number(data, "friction", optional=True) or 0.0
        tables = {key: self.list_of_tables(data, key) for key in ("contacts", "springs", "dampers", "loads")}
        contacts = tuple(self.contact_law(f"contacts[{i}]", d) for i, d in enumerate(tables["contacts"]))
        springs = tuple(Spring(self.string(d, "coordinate", f"springs[{i}]"), self.number(d, "stiffness", f"springs[{i}]"),
                               self.number(d, "rest", f"springs[{i}]", optional=True) or 0.0)
                        for i, d in enumerate(self.checked_tables(tables["springs"], "springs",
                                                                  ("coordinate", "stiffness", "rest"))))
        dampers = tuple(Damper(self.string(d, "coordinate", f"dampers[{i}]"),
                               self.number(d, "coefficient", f"dampers[{i}]"))
                        for i, d in enumerate(self.checked_tables(tables["dampers"], "dampers",
                                                                  ("coordinate", "coefficient"))))
        loads = tuple(Load(self.string(d, "coordinate", f"loads[{i}]"), self.number(d, "value", f"loads[{i}]"))
                      for i, d in enumerate(self.checked_tables(tables["loads"], "loads", ("coordinate", "value"))))
        sampling = self.number(data, "sampling", optional=True) or Dynamics.sampling
        return Dynamics(gravity, restitution, friction, contacts, springs, dampers, loads, sampling)

    def contact_law(self, field: str, data: dict) -> ContactLaw:
        self.keys(data, ("parts", "faces", "restitution", "friction"), field)
        parts = data.get("parts")
        if not (isinstance(parts, list) and len(parts) == 2 and all(isinstance(p, str) for p in parts)):
            raise self.fail(f"{field}.parts", f"expected the two parts' names, got {_kind(parts)}")
        faces = data.get("faces")
        if faces is not None and not (isinstance(faces, list) and len(faces) == 2
                                      and all(isinstance(f, str) for f in faces)):
            raise self.fail(f"{field}.faces", f"expected a face of each part, in the parts' order, got {_kind(faces)}")
        return ContactLaw(tuple(parts), None if faces is None else tuple(faces),
                          self.number(data, "restitution", field, optional=True),
                          self.number(data, "friction", field, optional=True))

    def list_of_tables(self, data: dict, key: str) -> list:
        value = data.get(key, [])
        if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
            raise self.fail(key, f"expected a list of tables, got {_kind(value)}")
        return value

    def checked_tables(self, tables: list, key: str, allowed: tuple[str, ...]) -> list:
        for index, table in enumerate(tables):
            self.keys(table, allowed, f"{key}[{index}]")
        return tables

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
        """A profile's name, a prefix of its faces' names: a name by the model's rule."""
        if not isinstance(data, dict):
            raise self.fail(field, f"expected a table, got {_kind(data)}")
        value = self.string(data, key, field, optional)
        if value is not None:
            check_name(value, self.where or None, f"{field}.{key}" if field else key)
        return value

    def number(self, data: dict, key: str, field: str = "", optional: bool = False,
               shape: bool = False) -> float | None:
        where = f"{field}.{key}" if field else key
        if key not in data:
            if optional:
                return None
            raise self.fail(where, "missing")
        return self.as_number(data[key], where, shape)

    def given(self, data: dict, keys: tuple[str, ...]) -> dict[str, float]:
        """The numbers given for ``keys``: those not given take the model's defaults."""
        return {key: value for key in keys if (value := self.number(data, key, optional=True)) is not None}

    def as_number(self, value: Any, where: str, shape: bool = False) -> float:
        """A number as a float. Its bounds are the model's, checked here only for a number the model does
        not hold as written (``shape``: a rect's corner, a circle's radius, a path's point, an axis before
        it is made a unit vector) and for an integer too large for a float (the model could not hold it).
        A string is an expression of the parameters (:mod:`cspace.model.expressions`), its value checked so."""
        if isinstance(value, str):
            try:
                value = evaluate(value, self.parameters)
            except ExpressionError as error:
                raise self.fail(where, f"expected a number or an expression, got {value!r}: {error}") from None
            return check_number(value, where=self.where or None, field=where)
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise self.fail(where, f"expected a number, got {_kind(value)}")
        if shape or isinstance(value, int):
            return check_number(value, where=self.where or None, field=where)
        return float(value)

    def numbers(self, data: dict, key: str, field: str, count: int, shape: bool = False) -> list[float]:
        where = f"{field}.{key}" if field else key
        value = data.get(key)
        if not isinstance(value, list) or len(value) != count:
            raise self.fail(where, f"expected a list of {count} numbers, got {_kind(value)}")
        return [self.as_number(v, f"{where}[{i}]", shape) for i, v in enumerate(value)]

    def point(self, data: dict, key: str, field: str = "", optional: bool = False,
              shape: bool = False) -> Point | None:
        if key not in data:
            if optional:
                return None
            raise self.fail(f"{field}.{key}" if field else key, "missing")
        return self.as_point(data[key], f"{field}.{key}" if field else key, shape)

    def as_point(self, value: Any, where: str, shape: bool = False) -> Point:
        if not isinstance(value, list) or len(value) != 2:
            raise self.fail(where, f"expected a point [x, y], got {_kind(value)}")
        return (self.as_number(value[0], where, shape), self.as_number(value[1], where, shape))

    def interval(self, data: dict, key: str, field: str = "",
                 optional: bool = False) -> tuple[float, float] | None:
        where = f"{field}.{key}" if field else key
        if key not in data:
            if optional:
                return None
            raise self.fail(where, "missing")
        low, high = self.numbers(data, key, field, 2)
        return (low, high)


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
