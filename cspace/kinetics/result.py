"""The result of full dynamics: stretches of uniform behaviour and the sampled path, frozen.

A *stretch* is a span of time under one mode (flight, resting contact) with one set of
contacts, or an impact (an instant); it carries the state and the energies at both ends, and
the ledger of what happened in between: the loads' work, what the dampers and the impacts
took. Energy is conserved when ``start.total + work - losses == end.total``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..model.kinds import Mode
from ..model.mechanism import Mechanism
from .bodies import Energies


@dataclass(frozen=True)
class Stretch:
    """One stretch of uniform behaviour: its mode, its time span, the contacts that hold in it,
    the configuration and rates (every coordinate) and energies at both ends, and the ledger."""

    index: int
    mode: Mode
    start: float
    end: float
    contacts: tuple[str, ...]
    q0: tuple[float, ...]
    q1: tuple[float, ...]
    v0: tuple[float, ...]
    v1: tuple[float, ...]
    energies0: Energies
    energies1: Energies
    work: float
    losses: float
    ended: str

    @property
    def drift(self) -> float:
        """How far the energy ledger misses: end energy less start energy, work and losses."""
        return self.energies1.total - self.energies0.total - self.work + self.losses

    def __repr__(self) -> str:
        return (f"Stretch({self.index}, {str(self.mode)!r}, t=[{self.start:.9g}, {self.end:.9g}], "
                f"contacts={len(self.contacts)}, ended={self.ended!r})")


@dataclass(frozen=True)
class DynamicTrace:
    """A full-dynamics path: its stretches and its samples (times, every coordinate and its rate,
    kinetic and potential energy), and why it ended.

    >>> from cspace import analyze, load
    >>> from cspace.kinetics import simulate
    >>> result = simulate(analyze(load("fixtures/bouncing-block.toml")), until=0.5)
    >>> result.stretches[1]
    Stretch(2, 'impact', t=[0.451523641, 0.451523641], contacts=1, ended='impact')
    """

    mechanism: Mechanism
    stretches: tuple[Stretch, ...]
    times: np.ndarray
    configs: np.ndarray
    rates: np.ndarray
    energies: np.ndarray
    end: str

    def __post_init__(self) -> None:
        for array in (self.times, self.configs, self.rates, self.energies):
            array.flags.writeable = False

    @property
    def impacts(self) -> tuple[Stretch, ...]:
        return tuple(s for s in self.stretches if s.mode == Mode.IMPACT)

    def __repr__(self) -> str:
        return f"DynamicTrace({self.mechanism.name!r}, stretches={len(self.stretches)}, end={self.end!r})"
