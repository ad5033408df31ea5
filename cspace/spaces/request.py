"""What a pair space is built from: the mechanism (its tolerance, origin and coordinates),
the two parts as they meet, and the pair's coordinates in mechanism order.

>>> from cspace.io.loader import load
>>> Request.of(load("fixtures/feeder.toml"), "piston", "block1")
Request('feeder', 'piston', 'block1', coordinates=('xp', 'xb1', 'yb1'))
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from ..model.mechanism import Mechanism, Part
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
        own = set(a.coordinates) | set(b.coordinates)
        return cls(mechanism, a, b, tuple(c.name for c in mechanism.coordinates if c.name in own))

    def __repr__(self) -> str:
        return f"Request({self.mechanism.name!r}, {self.a.name!r}, {self.b.name!r}, coordinates={self.coordinates!r})"


class Spaces(Protocol):
    """What gives the space of any pair a builder needs built first (a shifting pair's bands):
    the mechanism's builders (:class:`cspace.spaces.builders.Builders`), which share and cache it."""

    def space(self, request: Request) -> PairSpace: ...
