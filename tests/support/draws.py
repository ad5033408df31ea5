"""The random choices a generator of mechanisms makes: a :class:`Draw` is driven by a seed
(:class:`SeededDraw`, the fuzz report) or by hypothesis (the property tests), so both
make the same mechanisms, and hypothesis shrinks their failures."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Protocol


class Draw(Protocol):
    """The random choices a generator makes."""

    def integer(self, low: int, high: int) -> int: ...

    def number(self, low: float, high: float) -> float: ...

    def choice(self, options: Sequence[str]) -> str: ...


class SeededDraw:
    """Draws from Python's seeded generator: the same seed gives the same mechanism."""

    def __init__(self, seed: int) -> None:
        self._random = random.Random(seed)
        self.seed = seed

    def integer(self, low: int, high: int) -> int:
        return self._random.randint(low, high)

    def number(self, low: float, high: float) -> float:
        return round(self._random.uniform(low, high), 3)

    def choice(self, options: Sequence[str]) -> str:
        return options[self._random.randrange(len(options))]

    def __repr__(self) -> str:
        return f"SeededDraw({self.seed})"
