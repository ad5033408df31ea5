"""What a pair space is built from: the mechanism (its tolerance, origin and coordinates),
the two parts as they meet, and the pair's coordinates in mechanism order.

>>> from cspace.io.loader import load
>>> Request.of(load("fixtures/feeder.toml"), "piston", "block1")
Request('feeder', 'piston', 'block1', coordinates=('xp', 'xb1', 'yb1'))
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from ..model.geometry import Arc
from ..model.mechanism import Coordinate, Mechanism, Part
from .pairspace import PairSpace


@dataclass(frozen=True)
class Request:
    """A pair whose space is wanted (parts as they meet: a band of a shift carries them)."""

    mechanism: Mechanism
    a: Part
    b: Part
    coordinates: tuple[str, ...]

    @classmethod
    def of(cls, mechanism: Mechanism, a: Part | str, b: Part | str) -> Request:
        """The request for two parts (or their names), with their coordinates in mechanism order
        (a part carried into a band of a shift has lost its shift)."""
        a, b = (mechanism.part(p) if isinstance(p, str) else p for p in (a, b))
        own = {name for part in (a, b) for name in part.coordinates
               if not turns_in_place(part, mechanism.coordinate(name))}
        return cls(mechanism, a, b, tuple(c.name for c in mechanism.coordinates if c.name in own))

    def __repr__(self) -> str:
        return f"Request({self.mechanism.name!r}, {self.a.name!r}, {self.b.name!r}, coordinates={self.coordinates!r})"


def turns_in_place(part: Part, coordinate: Coordinate) -> bool:
    """Does turning ``coordinate`` leave the part's material where it is: a rotation about a pivot
    that centres every profile of the part, each a full circle (a wheel on its axle)? Such a turn
    meets nothing new, so the part's pairs leave it out of their space (a disk rolling on a ramp
    has a pair space in its two translations, not three dimensions).

    >>> from cspace.model.geometry import Profile
    >>> from cspace.model.mechanism import Slice
    >>> wheel = Part("wheel", "fixed-axes", (Slice((0, 1), (Profile.circle((0, 1), 1.0),)),), ("x", "th"))
    >>> turns_in_place(wheel, Coordinate("th", "wheel", pivot=(0.0, 1.0))), turns_in_place(wheel, Coordinate("th", "wheel", pivot=(0.0, 0.0)))
    (True, False)
    """
    if not coordinate.is_angle:
        return False
    profiles = [profile for slice_ in part.slices for profile in slice_.profiles]
    return bool(profiles) and all(len(p.elements) == 1 and isinstance(p.elements[0], Arc)
                                  and p.elements[0].start == p.elements[0].end
                                  and tuple(p.elements[0].center) == tuple(coordinate.pivot) for p in profiles)


class Spaces(Protocol):
    """What gives the space of any pair a builder needs built first (a shifting pair's bands):
    the mechanism's builders (:class:`cspace.spaces.builders.Builders`), which share and cache it."""

    def space(self, request: Request) -> PairSpace: ...
