"""The model built in Python traces exactly like the same mechanism read from a file."""

from __future__ import annotations

import pytest

from cspace import (
    Coordinate,
    Force,
    GeometryError,
    InputMotion,
    Mechanism,
    Part,
    Profile,
    Slice,
    analyze,
    describe,
    trace,
)

from .common import traced


def pusher(block_a: Profile) -> Mechanism:
    def block(name: str, x: float, profile: Profile) -> tuple[Part, list[Coordinate]]:
        coordinates = [Coordinate(f"x{name}", name, axis=(1.0, 0.0), initial=x),
                       Coordinate(f"y{name}", name, axis=(0.0, 1.0), initial=0.0)]
        return Part(name, "fixed-axes", (Slice((0, 1), (profile,)),), tuple(c.name for c in coordinates)), coordinates

    frame = Part("frame", "fixed", (Slice((0, 1), (Profile.rectangle(-10, -2, 40, 0, "table."),
                                                  Profile.rectangle(36, 0, 38, 10, "wall."))),))
    push = Part("pusher", "fixed-axes", (Slice((0, 1), (Profile.rectangle(-2, 0, 0, 2),)),), ("xp",))
    parts, coordinates = [frame, push], [Coordinate("xp", "pusher", axis=(1.0, 0.0))]
    for name, x, profile in (("a", 5, block_a), ("b", 10, Profile.rectangle(0, 0, 2, 1.5)),
                             ("c", 15, Profile.rectangle(0, 0, 4, 3))):
        part, own = block(name, x, profile)
        parts.append(part)
        coordinates += own
    forces = tuple(Force("gravity", f"y{n}", -1, sampling=0.25) for n in "abc")
    return Mechanism("pusher", tuple(parts), tuple(coordinates), forces=forces,
                     inputs=(InputMotion((("xp", 1.0),), 0.5, "pusher advances"),), time=40)


def test_python_model_traces_like_the_file():
    clockwise = Profile.rectangle(0, 0, 3, 2).reversed()  # drawn the other way round: still solid
    built = trace(analyze(pusher(clockwise)))
    assert describe(built) == describe(traced("pusher"))


def test_python_model_is_checked_too():
    bowtie = Profile(Profile.rectangle(0, 0, 3, 2).elements[:2] + Profile.rectangle(0, 0, 3, 2).elements[3:]
                     + Profile.rectangle(0, 0, 3, 2).elements[2:3])
    with pytest.raises(GeometryError, match="part 'a': slices\\[0\\].profiles\\[0\\]"):
        analyze(pusher(bowtie))
