"""A mechanism built in Python is refused like a file (issue 24, item 6: ``Mechanism.validate``).

Every file of the bad-input corpus (tests/data/bad/) is classified: either it is built here
again in Python, with plain constructor calls, and refused with the file's message (by
``validate``, or by the analysis or the trace when only they can tell), or it is in
``FILE_ONLY`` with the reason it has no Python form. The oracle is the file's own error,
read through the loader: the two messages are compared after the source, which is the file's
path for the one and ``<memory>`` (a Python mechanism's default ``source``) for the other.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from pathlib import Path

import pytest

import cspace.model.validation
from cspace import (
    Arc,
    Coordinate,
    CspaceError,
    Force,
    InputMotion,
    Line,
    Mechanism,
    ModelError,
    Part,
    Profile,
    Slice,
    analyze,
    load,
    trace,
)

from .common import fixture_path

BAD = Path(__file__).resolve().parent / "data" / "bad"
FILES = {path.stem: path for path in sorted(BAD.glob("*.toml"))}

FILE_ONLY = {
    "boolean-number": "a field's type: True is a number to Python",
    "coordinates-not-a-list": "a field's type",
    "deeply-nested-arrays": "TOML syntax",
    "deeply-nested-inline": "TOML syntax",
    "deeply-nested-tables": "an unknown field of the file",
    "dxf-branching-outline": "reading a DXF drawing",
    "dxf-empty-layer": "reading a DXF drawing",
    "dxf-missing-file": "reading a DXF drawing",
    "dxf-not-a-dxf": "reading a DXF drawing",
    "dxf-open-outline": "reading a DXF drawing",
    "dxf-unsupported-entities": "reading a DXF drawing",
    "empty": "a missing [[parts]] table (no parts at all: test_a_mechanism_of_no_parts_is_refused)",
    "inf": "a rect's corner, a number the model holds only as a face's end "
           "(test_an_infinite_point_is_refused_naming_its_face)",
    "malformed-toml": "TOML syntax",
    "name-not-a-string": "a field's type",
    "negative-radius": "a circle's spelling: the model holds its faces, not a radius",
    "not-utf8": "the file's encoding",
    "profile-not-a-table": "a field's type",
    "reversed-rect": "a rect's spelling: the model holds its faces, not its corners",
    "sticky-not-a-list": "a field's type",
    "sticky-unknown-face": "a sticky entry relative to its profile; the model's sticky names are the part's faces "
                           "(test_a_sticky_face_the_part_lacks_is_refused)",
    "two-velocities-one-coordinate": "TOML syntax: a key given twice (test_a_coordinate_driven_twice_is_refused)",
    "unknown-table": "an unknown field of the file",
    "zero-width-rect": "a rect's spelling: the model holds its faces, not its corners",
}


# -- the corpus in Python ---------------------------------------------------------------------------

def polygon(*points: tuple[float, float], prefix: str = "") -> Profile:
    """Straight faces through ``points`` (the last back to the first), named f0, f1, ... as a file's path names them."""
    return Profile(tuple(Line(a, b, f"{prefix}f{k}") for k, (a, b) in enumerate(zip(points, points[1:]))))


def block_on_frame(profile: Profile = Profile.rectangle(0, 0, 1, 1), *, x: Coordinate | None = None,
                   y: Coordinate | None = None, motion: str = "fixed-axes", z: tuple[float, float] = (0, 1),
                   forces: tuple[Force, ...] = (Force("gravity", "y", -1),),
                   inputs: tuple[InputMotion, ...] = (InputMotion((("x", 1.0),), 0.25),),
                   time: float = 1.0) -> Mechanism:
    """Most of the corpus: a block on a frame, driven along x and pulled down y by gravity."""
    frame = Part("frame", "fixed", (Slice((0, 1), (Profile.rectangle(-10, -1, 10, 0),)),))
    block = Part("block", motion, (Slice(z, (profile,)),), ("x", "y"))
    coordinates = (x or Coordinate("x", "block", axis=(1.0, 0.0)), y or Coordinate("y", "block", axis=(0.0, 1.0)))
    return Mechanism("b", (frame, block), coordinates, forces=forces, inputs=inputs, time=time)


def block_on_table(profile: Profile = Profile.rectangle(0, 0, 2, 1), *,
                   frame: Profile = Profile.rectangle(-5, -2, 30, 0),
                   tolerance: tuple[tuple[str, float], ...] = (), time: float = 1.0) -> Mechanism:
    """A block on a long table, driven along x, with tolerance factors."""
    parts = (Part("frame", "fixed", (Slice((0, 1), (frame,)),)),
             Part("block", "fixed-axes", (Slice((0, 1), (profile,)),), ("x",)))
    return Mechanism("b", parts, (Coordinate("x", "block", axis=(1.0, 0.0)),),
                     inputs=(InputMotion((("x", 1.0),), 0.5),), time=time, tolerance_factors=tolerance)


def pusher_and_block(pusher: tuple[float, float, float, float], block: tuple[float, float, float, float],
                     speed: float) -> Mechanism:
    """A pusher and a block, each on its own x axis (the scale cases)."""
    parts = (Part("pusher", "fixed-axes", (Slice((0, 1), (Profile.rectangle(*pusher),)),), ("xp",)),
             Part("block", "fixed-axes", (Slice((0, 1), (Profile.rectangle(*block),)),), ("xb",)))
    coordinates = (Coordinate("xp", "pusher", axis=(1.0, 0.0)), Coordinate("xb", "block", axis=(1.0, 0.0)))
    return Mechanism("pusher", parts, coordinates, inputs=(InputMotion((("xp", speed),), 5.0),), time=50.0)


def two_profiles(second: Profile) -> Mechanism:
    """A block whose one slice holds a 4 x 2 rectangle and ``second``."""
    parts = (Part("frame", "fixed", (Slice((0, 1), (Profile.rectangle(-5, -2, 30, 0, "table."),)),)),
             Part("block", "fixed-axes", (Slice((0, 1), (Profile.rectangle(0, 0, 4, 2), second)),), ("xb", "yb")))
    coordinates = (Coordinate("xb", "block", axis=(1.0, 0.0)), Coordinate("yb", "block", axis=(0.0, 1.0)))
    return Mechanism("b", parts, coordinates, forces=(Force("gravity", "yb", -1),),
                     inputs=(InputMotion((("xb", 1.0),), 0.5),), time=5.0)


def sliding_gear(*coordinates: Coordinate) -> Mechanism:
    """A cluster gear on a shaft (a disk of radius 2), turned by its first coordinate."""
    cluster = Part("cluster", "fixed-axes", (Slice((0, 1), (Profile.circle((0, 0), 2),)),),
                   tuple(c.name for c in coordinates))
    return Mechanism("sliding gear", (cluster,), coordinates,
                     inputs=(InputMotion(((coordinates[0].name, 1.0),), 0.1),), time=1.0)


def lever(pivot_name: str, force: Force | None = None, motion: InputMotion | None = None) -> Mechanism:
    """A bar about a pivot: the gravity-on-a-rotation and the key cases."""
    frame = Part("frame", "fixed", (Slice((0, 1), (Profile.rectangle(-10, -1, 10, 0),)),))
    bar = Part("lever", "fixed-axes", (Slice((0, 1), (Profile.rectangle(0, 1, 4, 3),)),), (pivot_name,))
    return Mechanism("lever", (frame, bar), (Coordinate(pivot_name, "lever", pivot=(0.0, 2.0)),),
                     forces=(force,) if force else (), inputs=(motion,) if motion else (), time=1.0)


def conveyor(plate_sticky: frozenset[str]) -> Mechanism:
    """A sticky block carried on a sliding plate, next to a wall."""
    frame = Part("frame", "fixed", (Slice((0, 1), (Profile.rectangle(-20, -2, 40, -1, "table."),
                                                  Profile.rectangle(9, 0.5, 10, 10, "wall."))),))
    plate = Part("plate", "fixed-axes", (Slice((0, 1), (Profile.rectangle(0, -1, 10, 0),)),), ("xp",),
                 sticky=plate_sticky)
    block = Part("block", "fixed-axes", (Slice((0, 1), (Profile.rectangle(2, 0.5, 4, 2.5),)),), ("xb",),
                 sticky=frozenset({"bottom", "right", "top", "left"}))
    coordinates = (Coordinate("xp", "plate", axis=(1.0, 0.0)), Coordinate("xb", "block", axis=(1.0, 0.0)))
    return Mechanism("conveyor", (frame, plate, block), coordinates,
                     inputs=(InputMotion((("xp", 1.0),), 0.5, "the plate slides right"),), time=8.0)


def falls_forever() -> Mechanism:
    frame = Part("frame", "fixed", (Slice((0, 1), (Profile.rectangle(0, -1, 10, 0),)),))
    block = Part("block", "fixed-axes", (Slice((0, 1), (Profile.rectangle(0, 0, 1, 1),)),), ("y", "x"))
    coordinates = (Coordinate("y", "block", axis=(0.0, 1.0), initial=5.0),
                   Coordinate("x", "block", axis=(1.0, 0.0), initial=20.0))
    return Mechanism("b", (frame, block), coordinates, forces=(Force("gravity", "y", -1),),
                     inputs=(InputMotion((("x", 1.0),), 0.25),), time=1.0)


REFUSED_BY_VALIDATE: dict[str, Callable[[], Mechanism]] = {
    "arc-finer-than-length": lambda: block_on_table(tolerance=(("arc", 1e-9),)),
    "arc-radii-differ": lambda: block_on_frame(Profile((
        Line((0, 0), (1, 0), "f0"), Arc((1, 0), (1, 1), (0.5, 0), True, "f1"),
        Line((1, 1), (0, 1), "f2"), Line((0, 1), (0, 0), "f3")))),
    "arc-tolerance-1e-15": lambda: block_on_table(Profile.circle((1, 1), 1), tolerance=(("arc", 1e-15),)),
    "below-the-floor": lambda: pusher_and_block((0, 0, 2e-14, 3e-14), (3.9e-13, 0, 4.4e-13, 3e-14), 1e-14),
    "coinciding-profiles": lambda: two_profiles(Profile.rectangle(0, 0, 4, 2)),
    "collinear-profile": lambda: block_on_frame(polygon((0, 0), (1, 0), (2, 0), (0, 0))),
    "crossing-profiles": lambda: two_profiles(Profile.rectangle(1, 0.5, 5, 1.5)),
    "degenerate-arc": lambda: block_on_frame(Profile((
        Line((0, 0), (1, 0), "f0"), Arc((1, 0), (1, 1), (1, 0), True, "f1"),
        Line((1, 1), (0, 1), "f2"), Line((0, 1), (0, 0), "f3")))),
    "duplicate-points": lambda: block_on_frame(polygon((0, 0), (1, 0), (1, 0), (1, 1), (0, 1), (0, 0))),
    "far-from-origin": lambda: pusher_and_block((870265100, 896928340, 870265102.0, 896928343.0),
                                                (870265139.0, 896928340, 870265144.0, 896928343.0), 1.0),
    "gravity-on-a-rotation": lambda: lever("t", force=Force("gravity", "t", -1)),
    "half-direction": lambda: block_on_frame(forces=(Force("gravity", "y", 0.5),)),
    "huge-number": lambda: block_on_frame(time=1e300),
    "initial-outside-limits": lambda: block_on_frame(x=Coordinate("x", "block", axis=(1.0, 0.0), limits=(1.0, 2.0))),
    "input-duration-zero": lambda: lever("k", motion=InputMotion((("k", 1.0),), 0.1, duration=0.0)),
    "length-tolerance-1e-300": lambda: block_on_table(tolerance=(("length", 1e-300),)),
    "nan": lambda: block_on_frame(x=Coordinate("x", "block", axis=(1.0, 0.0), initial=math.nan)),
    "negative-time": lambda: block_on_frame(time=-1.0),
    "open-profile": lambda: block_on_frame(polygon((0, 0), (1, 0), (1, 1), (0, 1))),
    "parallel-axes": lambda: block_on_frame(y=Coordinate("y", "block", axis=(1.0, 0.0))),
    "shift-without-limits": lambda: sliding_gear(Coordinate("t2", "cluster", pivot=(0.0, 0.0)),
                                                 Coordinate("s", "cluster", along_z=True)),
    "short-face-in-a-huge-mechanism": lambda: block_on_table(
        polygon((0, 0), (1, 0), (1, 100000), (0, 100000), (0, 0)), frame=Profile.rectangle(-9e8, -2, 9e8, 0)),
    "tiny-sampling": lambda: block_on_frame(inputs=(InputMotion((("x", 1.0),), 1e-9),), time=1000.0),
    "time-with-400-digits": lambda: block_on_table(time=10 ** 400),
    "torque-on-a-translation": lambda: block_on_frame(forces=(Force("torque", "y", -1),), inputs=()),
    "two-forces-one-coordinate": lambda: block_on_frame(forces=(Force("gravity", "y", -1), Force("spring", "y", 1))),
    "two-point-path": lambda: block_on_table(polygon((0, 0), (1, 0), (0, 0))),
    "two-shifts": lambda: sliding_gear(Coordinate("s", "cluster", along_z=True, limits=(0.0, 1.0)),
                                       Coordinate("u", "cluster", along_z=True, limits=(0.0, 1.0))),
    "unknown-motion": lambda: block_on_frame(motion="flying"),
    "zero-thickness-slice": lambda: block_on_frame(z=(1, 1)),
    "zero-velocity": lambda: block_on_frame(inputs=(InputMotion((("x", 0.0),), 0.25),)),
}

REFUSED_BY_ANALYSIS: dict[str, Callable[[], Mechanism]] = {
    "parts-overlap": lambda: block_on_frame(y=Coordinate("y", "block", axis=(0.0, 1.0), initial=-0.5)),
    "sticky-faces-never-touch": lambda: conveyor(frozenset({"top"})),
    "falls-forever": falls_forever,
}


def file_error(path: Path) -> CspaceError:
    """The error the file gets: from the loader, or else from the analysis or the trace (as ``cspace check``)."""
    with pytest.raises(CspaceError) as caught:
        trace(analyze(load(path)))
    return caught.value


def without_source(error: CspaceError, source: str) -> str:
    text = str(error)
    assert text.startswith(f"{source}: "), text
    return text[len(source) + 2:]


def expected(path: Path) -> str:
    return path.read_bytes().split(b"\n", 1)[0].decode("ascii").removeprefix("# expect: ")


def test_every_bad_file_is_classified_once():
    """A new bad file must be given a Python form or a reason it has none."""
    classes = [set(REFUSED_BY_VALIDATE), set(REFUSED_BY_ANALYSIS), set(FILE_ONLY)]
    assert sorted(name for names in classes for name in names) == sorted(FILES)
    assert all(reason for reason in FILE_ONLY.values())


@pytest.mark.parametrize("case", sorted(REFUSED_BY_VALIDATE))
def test_a_python_mechanism_is_refused_as_its_file_is(case):
    path = FILES[case]
    on_file = file_error(path)
    with pytest.raises(ModelError) as caught:
        REFUSED_BY_VALIDATE[case]().validate()
    assert type(caught.value) is type(on_file)
    message = without_source(caught.value, "<memory>")
    assert message == without_source(on_file, str(path))
    assert expected(path) in message


@pytest.mark.parametrize("case", sorted(REFUSED_BY_ANALYSIS))
def test_what_only_the_analysis_tells_is_refused_as_the_files_is(case):
    """Well formed, so valid; the analysis (an overlap, sticky faces that never meet) or the trace
    (nothing holds the block) refuses it with the file's message."""
    path = FILES[case]
    on_file = file_error(path)
    mechanism = REFUSED_BY_ANALYSIS[case]()
    mechanism.validate()
    with pytest.raises(CspaceError) as caught:
        trace(analyze(mechanism))
    assert type(caught.value) is type(on_file)
    message = without_source(caught.value, "<memory>")
    assert message == without_source(on_file, str(path))
    assert expected(path) in message


# -- the example, and what no file can spell ------------------------------------------------

def test_gravity_on_an_unknown_coordinate_names_the_force_and_the_field():
    """Issue 24's example: it ended in ``KeyError: 'nope'`` deep in the analysis."""
    mechanism = block_on_frame(forces=(Force("gravity", "nope", -1),))
    with pytest.raises(ModelError) as caught:
        mechanism.validate()
    error = caught.value
    assert (error.where, error.field, error.message) == ("forces[0]", "coordinate", "unknown coordinate 'nope'")
    assert str(error) == "<memory>: forces[0]: coordinate: unknown coordinate 'nope'"


@pytest.mark.parametrize("broken, message", [
    (block_on_frame(forces=(Force("gravity", "nope", -1),)), "forces[0]: coordinate: unknown coordinate 'nope'"),
    (block_on_frame(inputs=(InputMotion((("q", 1.0),), 0.25),)), "inputs[0]: velocities: unknown coordinate 'q'; the coordinates are x, y"),
    (dataclasses.replace(block_on_frame(), coordinates=(Coordinate("x", "block", axis=(1.0, 0.0)),)),
     "part 'block': coordinates[1]: unknown coordinate 'y': the mechanism's coordinates hold none of that name"),
    (dataclasses.replace(block_on_frame(), parts=()), "mechanism: parts: a mechanism needs at least one part"),
    (block_on_frame(motion="linkage"), "part 'block': coordinates: a linkage part has no coordinates of its own"),
], ids=["force on an unknown coordinate", "input of an unknown coordinate", "a part's coordinate missing",
        "no parts", "a linkage member with coordinates"])
def test_analyze_refuses_an_invalid_python_mechanism_with_a_model_error(broken, message):
    """Not a KeyError or an IndexError from inside the analysis: the one-line error, source first."""
    with pytest.raises(ModelError) as caught:
        analyze(broken)
    assert str(caught.value) == f"<memory>: {message}"


def test_a_mechanism_of_no_parts_is_refused():
    with pytest.raises(ModelError, match="^<memory>: mechanism: parts: a mechanism needs at least one part$"):
        Mechanism("empty", (), ()).validate()


def test_an_infinite_point_is_refused_naming_its_face():
    mechanism = block_on_frame(Profile.rectangle(0, 0, math.inf, 1))
    with pytest.raises(ModelError, match=r"^<memory>: part 'block': slices\[0\]\.profiles\[0\]\.elements\[0\]\.end: "
                                         "expected a finite number, got inf$"):
        mechanism.validate()


def test_a_sticky_face_the_part_lacks_is_refused():
    with pytest.raises(ModelError, match="^<memory>: part 'plate': sticky: no face named 'topp'; "
                                         "the faces are bottom, right, top, left$"):
        conveyor(frozenset({"topp"})).validate()


def test_a_coordinate_driven_twice_is_refused():
    """A file's velocities are a table, so no key comes twice; a tuple of pairs may hold one twice."""
    twice = InputMotion((("x", 1.0), ("x", 2.0)), 0.25)
    with pytest.raises(ModelError, match=r"^<memory>: inputs\[0\]: velocities\.x: given twice"):
        block_on_frame(inputs=(twice,)).validate()


@pytest.mark.parametrize("broken, message", [
    (block_on_frame(x=Coordinate("x", "frame", axis=(1.0, 0.0))),
     "part 'block': coordinates[0]: coordinate 'x' belongs to part 'frame'"),
    (dataclasses.replace(block_on_frame(), coordinates=(Coordinate("x", "block", axis=(1.0, 0.0)),
                                                        Coordinate("y", "block", axis=(0.0, 1.0)),
                                                        Coordinate("z", "block", axis=(0.0, 1.0)))),
     "coordinate 'z': part: part 'block' does not list it among its coordinates"),
    (dataclasses.replace(block_on_frame(), coordinates=(Coordinate("x", "block", axis=(1.0, 0.0)),
                                                        Coordinate("y", "block", axis=(0.0, 1.0)),
                                                        Coordinate("y", "block", axis=(0.0, 1.0)))),
     "coordinate 'y': name: the mechanism's coordinates hold it twice"),
    (block_on_frame(x=Coordinate("x", "block", axis=(2.0, 0.0))),
     "part 'block': coordinates[0].axis: axis must be a unit vector, got one of length 2"),
    (block_on_frame(x=Coordinate("x", "block", axis=(0.0, 0.0))),
     "part 'block': coordinates[0].axis: axis must not be the zero vector"),
    (block_on_frame(x=Coordinate("x", "block", axis=(1.0, 0.0), pivot=(0.0, 0.0))),
     "part 'block': coordinates[0]: give exactly one of 'axis' (translation) or 'pivot' (rotation)"),
    (block_on_frame(Profile((Line((0, 0), (1, 0), "a"), Line((1, 0), (1, 1), "b"), Line((1, 1), (0, 1), "a"),
                             Line((0, 1), (0, 0), "c")))),
     "part 'block': slices[0].profiles[0].faces: face names must differ, but for neighbours that make one face "
     "(an involute flank drawn as arcs)"),
    (dataclasses.replace(block_on_frame(), tolerance_factors=(("lenght", 1e-6),)),
     "tolerance: lenght: unknown tolerance 'lenght'; use one of length, angle, arc, lp, velocity, integration"),
], ids=["a coordinate of another part", "a coordinate no part lists", "a coordinate given twice",
        "an axis not a unit vector", "a zero axis", "an axis and a pivot", "a face name twice",
        "an unknown tolerance"])
def test_what_only_python_can_get_wrong_is_refused(broken, message):
    """Consistency a file has by construction (a part's coordinates are its own), and an axis the
    reader would have normalized."""
    with pytest.raises(ModelError) as caught:
        broken.validate()
    assert str(caught.value) == f"<memory>: {message}"


def test_a_valid_mechanism_is_validated_once(monkeypatch):
    """The loader validates; the analysis of the mechanism loaded does not pay for it again (the
    profile checks are the dear part), but a mechanism derived from it is validated afresh."""
    mechanism = load(fixture_path("feeder"))

    def refuse(_mechanism: Mechanism) -> None:
        raise AssertionError("validated twice")

    monkeypatch.setattr(cspace.model.validation, "check_profiles", refuse)
    mechanism.validate()
    with pytest.raises(AssertionError, match="validated twice"):
        dataclasses.replace(mechanism, time=2.0).validate()


def test_an_invalid_mechanism_is_refused_every_time():
    mechanism = block_on_frame(time=-1.0)
    for _ in range(2):
        with pytest.raises(ModelError, match="must not be negative"):
            mechanism.validate()

