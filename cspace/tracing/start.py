"""Where a trace starts: a mechanism drawn touching starts touching.

The tracer's geometry is the real geometry grown a little: arcs are flattened outward,
and a turning pair's blocked space is grown by the ``curve`` tolerance. Parts drawn
exactly touching (a flat follower resting on an eccentric cam, the way anyone draws it)
may so start a little inside the blocked space: by no more than the gap flattened arcs
can leave between real parts, :attr:`~cspace.model.tolerance.Tolerance.support_probe` (the real
shapes are checked first: parts that really overlap are refused before). Such a start is moved to the nearest
configuration every pair space holds, moving only coordinates no input drives and no
linkage sets (a force-loaded part, or one free to move), by the least total distance
(each angle weighted by its part's reach, so every move is a length), and the move is
reported (:class:`Settled`). When no configuration within that distance is free, the
start is refused, naming the pair.

The configurations held are those of the pairs' regions: every pair stays in a region
holding its drawn configuration or, for a pair drawn inside its blocked space, moves
into one of the regions within reach; coordinate limits hold. Each choice of regions
is a small linear program (scipy's HiGHS), and the least move over all choices wins
(ties to the first in region order, so the start is deterministic).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

from ..model.errors import ModelError
from ..model.mechanism import Mechanism
from ..spaces.pairspace import PairSpace

MAX_CHOICES = 256  # combinations of candidate regions tried before the start is refused


@dataclass(frozen=True)
class Settled:
    """A coordinate moved from where it was drawn to where the trace starts.

    >>> Settled("yf", 3.0, 3.000946, ("cam", "follower"))
    Settled('yf', drawn=3, start=3.00095, pair=('cam', 'follower'))
    """

    coordinate: str
    drawn: float
    start: float
    pair: tuple[str, str]

    def __str__(self) -> str:
        return (f"{self.coordinate} moved {self.start - self.drawn:+.3g} (from {self.drawn:.6g} to "
                f"{self.start:.6g}): parts {self.pair[0]!r} and {self.pair[1]!r} were drawn touching")

    def __repr__(self) -> str:
        return f"Settled({self.coordinate!r}, drawn={self.drawn:g}, start={self.start:g}, pair={self.pair!r})"


def settle(mechanism: Mechanism, pairs: tuple[PairSpace, ...], initial: np.ndarray,
           fixed: set[str]) -> tuple[np.ndarray, tuple[Settled, ...]]:
    """The configuration the trace starts from, and what was moved to get there.

    ``pairs`` are the constraining pair spaces, ``initial`` the drawn configuration (in
    mechanism order), ``fixed`` the coordinates that may not move (driven by an input or
    set by a linkage). Raises :class:`ModelError` naming a pair that no move within
    :attr:`Tolerance.support_probe` frees.
    """
    tolerance = mechanism.tolerance
    index = mechanism.coordinate_index
    outside = [p for p in pairs if not p.regions_at(_point(p, initial, index), tolerance.length)]
    if not outside:
        return initial, ()
    movable = sorted({index[c] for p in outside for c in p.coordinates if c not in fixed})
    if not movable:
        raise _refusal(mechanism, outside[0], "no coordinate of theirs is free to move (inputs drive them)")
    involved = [p for p in pairs if any(index[c] in movable for c in p.coordinates)]
    reach = tolerance.support_probe
    choices = []
    for pair in involved:
        point = _point(pair, initial, index)
        held = pair.regions_at(point, tolerance.length)
        choices.append(held or pair.regions_at(point, reach))
    if not all(choices):
        pair = next(p for p, c in zip(involved, choices) if not c)
        raise _refusal(mechanism, pair, f"no free configuration lies within {reach:.3g} of the drawing")
    weights = _weights(involved, movable, index)
    best = None
    for k, choice in enumerate(itertools.product(*choices)):
        if k == MAX_CHOICES:
            break
        found = _nearest(mechanism, involved, choice, initial, movable, weights, index)
        if found is not None and (best is None or found[0] < best[0] - tolerance.length):
            best = found
    if best is None or not _within(best[1], initial, movable, weights, reach):
        raise _refusal(mechanism, outside[0], f"no free configuration lies within {reach:.3g} of the drawing")
    start = best[1]
    moved = tuple(Settled(mechanism.coordinates[j].name, float(initial[j]), float(start[j]),
                          _pair_of(outside, mechanism.coordinates[j].name))
                  for j in movable if abs(start[j] - initial[j]) * weights[j] > tolerance.length * 1e-3)
    return start, moved


def _point(pair: PairSpace, values: np.ndarray, index: dict[str, int]) -> np.ndarray:
    return pair.point(np.array([values[index[c]] for c in pair.coordinates]), wrap=True)


def _weights(pairs: list[PairSpace], movable: list[int], index: dict[str, int]) -> dict[int, float]:
    """Length per unit of each movable coordinate: the most any pair space moves by it."""
    weights = {j: 0.0 for j in movable}
    for pair in pairs:
        for k, name in enumerate(pair.coordinates):
            if index[name] in weights:
                weights[index[name]] = max(weights[index[name]], float(np.abs(pair.matrix[:, k]).max()))
    return {j: w or 1.0 for j, w in weights.items()}


def _nearest(mechanism: Mechanism, pairs: list[PairSpace], choice: tuple[int, ...], initial: np.ndarray,
             movable: list[int], weights: dict[int, float], index: dict[str, int]) -> tuple[float, np.ndarray] | None:
    """The least weighted L1 move of the movable coordinates into the chosen regions (and
    their limits), or None when they share no point. Variables: the moves, then their sizes."""
    m = len(movable)
    column = {j: k for k, j in enumerate(movable)}
    rows, bounds = [], []
    for pair, i in zip(pairs, choice):
        region = pair.geometry[i]
        names = [index[c] for c in pair.coordinates]
        here = region.rows @ _point(pair, initial, index)
        for r in range(len(region.bounds)):
            row = np.zeros(2 * m)
            for k, j in enumerate(names):
                if j in column:
                    row[column[j]] += float(region.rows[r] @ pair.matrix[:, k])
            if np.any(row):
                rows.append(row)
                bounds.append(float(region.bounds[r] - here[r]))
            elif here[r] > region.bounds[r] + mechanism.tolerance.length:
                return None  # a row no movable coordinate can satisfy
    for k in range(m):  # |move| <= size: move - size <= 0 and -move - size <= 0
        for sign in (1.0, -1.0):
            row = np.zeros(2 * m)
            row[k], row[m + k] = sign, -1.0
            rows.append(row)
            bounds.append(0.0)
    limits = []
    for j in movable:
        coordinate = mechanism.coordinates[j]
        lo, hi = coordinate.limits if coordinate.limits is not None else (-np.inf, np.inf)
        limits.append((lo - initial[j], hi - initial[j]))
    cost = np.concatenate([np.zeros(m), [weights[j] for j in movable]])
    from scipy.optimize import linprog  # scipy.optimize (40 ms to import) only for a start drawn overlapping

    result = linprog(cost, A_ub=np.array(rows), b_ub=np.array(bounds), bounds=limits + [(0, None)] * m,
                     method="highs")
    if result.status != 0:
        return None
    start = initial.copy()
    for k, j in enumerate(movable):
        start[j] += result.x[k]
    return float(result.fun), start


def _within(start: np.ndarray, initial: np.ndarray, movable: list[int], weights: dict[int, float],
            reach: float) -> bool:
    return all(abs(start[j] - initial[j]) * weights[j] <= reach for j in movable)


def _pair_of(pairs: list[PairSpace], name: str) -> tuple[str, str]:
    pair = next((p for p in pairs if name in p.coordinates), pairs[0])
    return (pair.part_a, pair.part_b)


def _refusal(mechanism: Mechanism, pair: PairSpace, why: str) -> ModelError:
    tolerance = mechanism.tolerance
    return ModelError(f"the parts overlap as the tracer sees them (arcs flattened outward by up to "
                      f"{tolerance.arc:.3g}, a turning pair's blocked space grown to bound that): {why}; "
                      f"draw them at most touching, or lower [tolerance] arc", file=mechanism.source,
                      where=f"parts {pair.part_a!r} and {pair.part_b!r}", field="initial configuration")
