"""The variants of a sweep: a full grid over ranges, or a Latin hypercube in them.

>>> grid([Axis("crank", 1, 2, 2), Axis("link", 5, 6, 2)])
[{'crank': 1.0, 'link': 5.0}, {'crank': 1.0, 'link': 6.0}, {'crank': 2.0, 'link': 5.0}, {'crank': 2.0, 'link': 6.0}]
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ..model.errors import CspaceError

_AXIS = re.compile(r"\s*([A-Za-z_][A-Za-z0-9_]*)\s*=\s*([^:]+):([^:]+)(?::([^:]+))?\s*")


class DesignError(CspaceError, ValueError):
    """A sweep's design that cannot be laid out: a range written wrong, no variants, a repeated name."""


@dataclass(frozen=True)
class Axis:
    """A parameter's range: ``count`` values evenly spaced from ``low`` to ``high`` (a grid's),
    or the interval a hypercube samples.

    >>> Axis.parse("crank=1:6:3")
    Axis('crank', 1:6:3)
    >>> Axis.parse("crank=1:6:3").values()
    [1.0, 3.5, 6.0]
    """

    name: str
    low: float
    high: float
    count: int = 0

    def __repr__(self) -> str:
        return f"Axis({self.name!r}, {self.low:g}:{self.high:g}{f':{self.count}' if self.count else ''})"

    @classmethod
    def parse(cls, text: str) -> Axis:
        """``NAME=LOW:HIGH:COUNT`` (a grid's axis) or ``NAME=LOW:HIGH`` (a hypercube's)."""
        match = _AXIS.fullmatch(text)
        if not match:
            raise DesignError(f"--vary {text}: expected NAME=LOW:HIGH:COUNT, e.g. crank=1:6:20")
        name, low, high, count = match.groups()
        try:
            low_value, high_value = float(low), float(high)
        except ValueError:
            raise DesignError(f"--vary {text}: LOW and HIGH must be numbers") from None
        if not low_value <= high_value:
            raise DesignError(f"--vary {text}: LOW must not be above HIGH")
        if count is not None and (not count.strip().isdigit() or int(count) < 1):
            raise DesignError(f"--vary {text}: COUNT must be a whole number of at least 1")
        return cls(name, low_value, high_value, int(count) if count is not None else 0)

    def values(self) -> list[float]:
        """The grid's values along this axis (just ``low`` for a count of 1), exact at both ends."""
        if self.count <= 1:
            return [float(self.low)]
        step = (self.high - self.low) / (self.count - 1)
        return [float(self.low + k * step) if k < self.count - 1 else float(self.high) for k in range(self.count)]


def grid(axes: Sequence[Axis]) -> list[dict[str, float]]:
    """Every combination of the axes' values, the last axis varying fastest."""
    _distinct(axes)
    for axis in axes:
        if axis.count < 1:
            raise DesignError(f"--vary {axis.name}: a grid needs a COUNT (NAME=LOW:HIGH:COUNT)")
    names = [axis.name for axis in axes]
    return [dict(zip(names, combination)) for combination in itertools.product(*(a.values() for a in axes))]


def hypercube(axes: Sequence[Axis], count: int, seed: int = 0) -> list[dict[str, float]]:
    """``count`` variants of a Latin hypercube (:class:`scipy.stats.qmc.LatinHypercube`, seeded)
    scaled to the axes' ranges: each axis's range cut into ``count`` strata, each hit once.

    >>> [round(v["crank"], 3) for v in hypercube([Axis("crank", 0, 1)], 4, seed=1)]
    [0.872, 0.512, 0.214, 0.263]
    """
    from scipy.stats import qmc

    _distinct(axes)
    if count < 1:
        raise DesignError(f"--lhs {count}: a hypercube needs at least one variant")
    if not axes:
        raise DesignError("--lhs: give the ranges to sample with --vary NAME=LOW:HIGH")
    points = qmc.LatinHypercube(d=len(axes), seed=seed).random(count)
    return [{axis.name: float(axis.low + u * (axis.high - axis.low)) for axis, u in zip(axes, row)} for row in points]


def variants(design: Mapping[str, Sequence[float]] | Sequence[Mapping[str, float]]) -> list[dict[str, float]]:
    """A design as the Python API takes it: values by parameter (every combination, the last
    varying fastest) or the variants themselves.

    >>> variants({"crank": [1, 2], "link": [8]})
    [{'crank': 1.0, 'link': 8.0}, {'crank': 2.0, 'link': 8.0}]
    """
    if isinstance(design, Mapping):
        names = list(design)
        return [dict(zip(names, map(float, values))) for values in itertools.product(*design.values())]
    return [{name: float(value) for name, value in variant.items()} for variant in design]


def _distinct(axes: Sequence[Axis]) -> None:
    names = [axis.name for axis in axes]
    for name in names:
        if names.count(name) > 1:
            raise DesignError(f"--vary {name}: given more than once")
