"""Simple dynamics: how every coordinate moves at a configuration (DESIGN, 'Simple dynamics').

At a configuration inside a mechanism region, one small linear program gives the
velocity of every coordinate:

* prescribed rates are fixed: the input coordinates during an input step; during
  the external step the input coordinates are held still (the input wins);
* tight constraints may not be violated: ``g @ v <= 0`` for every tight row;
* linkages carry their output: ``v_out = slope * v_in`` on the table cell in use;
* forced coordinates move as far along their force as they can (up to their speed
  in the external step; following a retreating blocker at any speed in an input
  step), while every other coordinate moves as little as it must (L1 norm).

The solution fixes a *mode*: which coordinates stand still, which have prescribed
rates, and which tight rows carry motion (a pushed part, a follower). Within one
region the mode stays valid across linkage-table cells, so the path is followed by
solving the mode's small linear system per cell instead of a new program.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .constraints import ConstraintManager
from .errors import TraceError
from .linkage import LinkageTable
from .regions import MechanismRegion

INPUT = "input"
EXTERNAL = "external"
UNFORCED_WEIGHT = 1e-3
SPEED_LIMIT = 1e6


@dataclass(frozen=True)
class LinkageLink:
    """A linkage as the dynamics sees it: table and coordinate indices."""

    table: LinkageTable
    input: int
    output: int


@dataclass
class Mode:
    """A motion valid until an event: rates, still coordinates, binding rows, directions."""

    phase: str
    region: MechanismRegion
    velocity: np.ndarray
    rates: dict[int, float]
    still: frozenset[int]
    binding: tuple[int, ...]
    directions: tuple[int, ...]
    linkages: tuple[LinkageLink, ...]
    eps: float
    objective: float = 0.0

    def velocity_at(self, q: np.ndarray) -> np.ndarray | None:
        """Velocity on the table cells at ``q``, or None if the mode no longer holds."""
        n = len(q)
        rows, rhs = [], []
        for j in sorted(self.still | set(self.rates)):
            row = np.zeros(n)
            row[j] = 1.0
            rows.append(row)
            rhs.append(self.rates.get(j, 0.0))
        for link, direction in zip(self.linkages, self.directions):
            row = np.zeros(n)
            row[link.output] = 1.0
            row[link.input] = -link.table.slope(q[link.input], direction)
            rows.append(row)
            rhs.append(0.0)
        for r in self.binding:
            rows.append(self.region.G[r])
            rhs.append(0.0)
        A, b = np.array(rows), np.array(rhs)
        v = np.linalg.lstsq(A, b, rcond=None)[0]
        if np.max(np.abs(A @ v - b), initial=0.0) > self.eps:
            return None
        v[list(self.still)] = 0.0
        for j, rate in self.rates.items():
            v[j] = rate
        expected = np.sign(np.where(np.abs(self.velocity) > self.eps, self.velocity, 0.0))
        actual = np.sign(np.where(np.abs(v) > self.eps, v, 0.0))
        if np.any(expected != actual):
            return None
        return v

    def transmissions(self, q: np.ndarray) -> list[tuple[int, int]]:
        """(pusher, pushed) coordinate pairs across contacts that stay tight while moving.

        Along a tight contact row ``g @ q <= h`` with ``g @ v = 0``, coordinate k pushes
        when its own motion would violate the row (``g[k] v[k] > 0``) and is pushed when
        its motion relieves it (``g[k] v[k] < 0``).
        """
        edges = []
        v = self.velocity
        tight = self.region.tight(q)
        for r in np.flatnonzero(tight):
            if self.region.kinds[r] != "pair" or abs(self.region.G[r] @ v) > self.eps:
                continue
            effect = self.region.G[r] * v
            pushers = [k for k in np.flatnonzero(effect > self.eps)]
            pushed = [k for k in np.flatnonzero(effect < -self.eps)]
            edges.extend((int(a), int(b)) for a in pushers for b in pushed)
        return sorted(set(edges))


class SimpleDynamics:
    """Velocity programs for one mechanism."""

    def __init__(self, n: int, linkages: tuple[LinkageLink, ...], forces: dict[int, tuple[int, float]],
                 manager: ConstraintManager, base_speed: float, velocity_tolerance: float) -> None:
        self.n = n
        self.linkages = linkages
        self.forces = forces
        self.manager = manager
        self.eps = velocity_tolerance * base_speed
        self.limit = SPEED_LIMIT * base_speed

    def solve(self, region: MechanismRegion, q: np.ndarray, phase: str,
              fixed: dict[int, float]) -> Mode | None:
        """Best motion inside ``region`` at ``q``, or None when the fixed rates are infeasible.

        For an external step the result moves forced coordinates only if it can.
        """
        tight = np.flatnonzero(region.tight(q))
        best: tuple[float, np.ndarray, tuple[int, ...]] | None = None
        for directions in self._direction_choices(q, fixed):
            result = self._program(region, tight, q, phase, fixed, directions)
            if result is not None and (best is None or result[0] < best[0] - self.eps):
                best = (result[0], result[1], directions)
        if best is None:
            return None
        objective, v, directions = best
        mode = self._mode(region, tight, q, phase, fixed, v, directions)
        mode.objective = objective
        return mode

    def progress(self, mode: Mode) -> float:
        """How far forced coordinates move along their forces, per unit of parameter."""
        return sum(d * mode.velocity[j] for j, (d, _) in self.forces.items())

    def _direction_choices(self, q: np.ndarray, fixed: dict[int, float]) -> list[tuple[int, ...]]:
        """Input directions to try for each linkage: known, or both at a table node."""
        choices = [()]
        for link in self.linkages:
            if link.input in fixed:
                options = [1 if fixed[link.input] >= 0 else -1]
            elif link.table.slope(q[link.input], 1) == link.table.slope(q[link.input], -1):
                options = [1]
            else:
                options = [1, -1]
            choices = [c + (o,) for c in choices for o in options]
        return choices

    def _program(self, region, tight, q, phase, fixed, directions):
        n = self.n
        cost = np.zeros(2 * n)
        lower = np.full(2 * n, -self.limit)
        upper = np.full(2 * n, self.limit)
        lower[n:], upper[n:] = 0.0, 0.0
        weighted = []
        for j in range(n):
            if j in fixed:
                lower[j] = upper[j] = fixed[j]
            elif j in self.forces:
                direction, speed = self.forces[j]
                cost[j] = -direction
                cap = speed if phase == EXTERNAL else self.limit
                if direction > 0:
                    upper[j] = cap
                else:
                    lower[j] = -cap
            else:
                weighted.append(j)
                cost[n + j] = UNFORCED_WEIGHT
                upper[n + j] = np.inf
        rows, row_lo, row_hi = [], [], []
        for r in tight:
            rows.append(np.concatenate([region.G[r], np.zeros(n)]))
            row_lo.append(-np.inf)
            row_hi.append(0.0)
        for link, direction in zip(self.linkages, directions):
            row = np.zeros(2 * n)
            row[link.output] = 1.0
            row[link.input] = -link.table.slope(q[link.input], direction)
            rows.append(row)
            row_lo.append(0.0)
            row_hi.append(0.0)
            if link.input not in fixed:
                sign = np.zeros(2 * n)
                sign[link.input] = direction
                rows.append(sign)
                row_lo.append(0.0)
                row_hi.append(np.inf)
        for j in weighted:
            for s in (1.0, -1.0):
                row = np.zeros(2 * n)
                row[j], row[n + j] = s, -1.0
                rows.append(row)
                row_lo.append(-np.inf)
                row_hi.append(0.0)
        matrix = np.array(rows).reshape(-1, 2 * n)
        result = self.manager.solve(cost, matrix, np.array(row_lo), np.array(row_hi), lower, upper)
        if not result.ok:
            return None
        v = result.x[:n]
        return result.objective, v

    def _mode(self, region, tight, q, phase, fixed, v, directions) -> Mode:
        eps = self.eps
        moving = {j for j in range(self.n) if abs(v[j]) > eps}
        rates = dict(fixed)
        if phase == EXTERNAL:
            for j, (direction, speed) in self.forces.items():
                if j not in fixed and direction * v[j] >= speed - eps:
                    rates[j] = direction * speed
        for j in self.forces:
            if phase == INPUT and j not in fixed and abs(v[j]) >= self.limit * (1 - 1e-9):
                raise TraceError("a force meets no resistance during an input step "
                                 f"(coordinate index {j}); the external step should have moved it")
        dependent = moving - set(rates)
        for j in dependent:
            if abs(v[j]) >= self.limit * (1 - 1e-9):
                raise TraceError("a motion needs unbounded speed (the mechanism jams at a singular contact)")
        still = frozenset(j for j in range(self.n) if j not in moving and j not in rates)
        binding = tuple(int(r) for r in tight
                        if abs(region.G[r] @ v) <= eps and any(region.G[r, j] != 0 for j in dependent))
        clean = np.where(np.abs(v) > eps, v, 0.0)
        for j, rate in rates.items():
            clean[j] = rate
        mode = Mode(phase, region, clean, rates, still, binding, directions, self.linkages, eps)
        check = mode.velocity_at(q)
        if check is None or np.max(np.abs(check - clean)) > 10 * eps:
            raise TraceError("the motion at this configuration is not determined by its contacts "
                             "(an underdetermined mode)")
        mode.velocity = np.where(np.abs(check) > eps, check, 0.0)
        return mode
