"""Mechanism regions, composed lazily from pairwise regions (paper section 4.2.1).

Given a configuration, each constraining pair returns the regions whose closure
holds it (one, or several on a boundary); every choice of one per pair is a
*potential* mechanism region, keyed by the tuple of choices. Its constraints are the
union of the chosen pairwise regions' rows (mapped to the mechanism's coordinates),
the coordinate limits, and the linkage constraints: the linkage output restricted to
the image of the input's range and the input to the widest interval around its
current value whose image stays in the output's range. Regions are cached by key.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field

import numpy as np

from .analysis import Analysis
from .constraints import ConstraintManager, implied_bounds
from .errors import TraceError
from .tolerance import NOISE

MAX_CANDIDATES = 4096


@dataclass(frozen=True)
class Stop:
    """A coordinate resting on one of its limits (a stop), reported like a contact."""

    coordinate: str
    side: str
    value: float

    def __str__(self) -> str:
        return f"{self.coordinate} at {self.side} limit {self.value:g}"

    def __lt__(self, other) -> bool:
        return str(self) < str(other)


@dataclass
class MechanismRegion:
    """Linear constraints ``G @ q <= h`` of one potential region of the whole mechanism.

    ``key[i]`` is the region chosen in constraining pair i. ``kinds[r]`` says where
    row r comes from: ``"pair"``, ``"limit"`` or ``"linkage"``; ``tolerances[r]`` is
    the slack below which row r counts as tight (length or angle tolerance).
    """

    key: tuple[int, ...]
    G: np.ndarray
    h: np.ndarray
    kinds: tuple[str, ...]
    tolerances: np.ndarray
    stops: tuple[Stop | None, ...]
    owners: np.ndarray  # the constraining pair each row comes from, -1 for limits and linkages

    def tight(self, q: np.ndarray) -> np.ndarray:
        """Mask of the rows holding with equality at ``q``."""
        return self.h - self.G @ q <= self.tolerances

    def tight_except(self, q: np.ndarray, ignored: np.ndarray) -> np.ndarray:
        """Tight rows, leaving out those of the pairs flagged in ``ignored`` (one flag per pair)."""
        tight = self.h - self.G @ q <= self.tolerances
        if ignored.any():
            tight &= ~ignored[self.owners]  # owner -1 (limits) reads the flag past the last pair: False
        return tight

    def constraints(self, manager: ConstraintManager, names: list[str]) -> list[str]:
        """The region's irredundant constraints as text, like the paper's equation (1).

        For the feeder's first segment: ``xb1 = 12``, ..., ``yb1 >= 1``, ``xp >= 5``, ...
        """
        keep = manager.essential(self.G, self.h)
        rows = [(self.G[i] / np.max(np.abs(self.G[i])), self.h[i] / np.max(np.abs(self.G[i]))) for i in keep]
        out, used = [], set()
        for i, (g, b) in enumerate(rows):
            if i in used:
                continue
            twin = next((k for k in range(i + 1, len(rows)) if k not in used
                         and np.allclose(rows[k][0], -g) and abs(rows[k][1] + b) <= NOISE * (1 + abs(b))), None)
            if twin is not None:
                used.add(twin)
            out.append(_linear_text(g, b, names, "=" if twin is not None else "<="))
        return out

    def __repr__(self) -> str:
        return f"MechanismRegion(key={self.key}, rows={len(self.h)})"


def _linear_text(g: np.ndarray, bound: float, names: list[str], relation: str) -> str:
    """``g @ q (relation) bound`` written with names, leading term positive (flipping <= to >=)."""
    terms = [(c, n) for c, n in zip(g, names) if abs(c) > NOISE]
    if terms and terms[0][0] < 0:
        terms = [(-c, n) for c, n in terms]
        bound = -bound
        relation = {"<=": ">=", "=": "="}[relation]
    text = ""
    for k, (c, name) in enumerate(terms):
        size = abs(c)
        coefficient = "" if abs(size - 1) < NOISE else f"{size:.4g} "
        sign = ("-" if c < 0 else "") if k == 0 else (" - " if c < 0 else " + ")
        text += f"{sign}{coefficient}{name}"
    value = f"{bound:.4f}".rstrip("0").rstrip(".")
    return f"{text} {relation} {'0' if value == '-0' else value}"


@dataclass(frozen=True)
class Choices:
    """Per constraining pair: the regions whose closure holds a configuration, and whether
    the pair touches there (only touching pairs constrain the motion; the others'
    regions all meet around the configuration and are settled after the motion).
    """

    regions: tuple[tuple[int, ...], ...]
    touching: tuple[bool, ...]
    points: tuple[np.ndarray, ...]
    loose: np.ndarray = field(init=False, repr=False)

    def __post_init__(self) -> None:
        # Flags, one per pair plus a last False for limit rows: the pairs that touch nothing here.
        object.__setattr__(self, "loose", np.array([not touch for touch in self.touching] + [False]))

    def keys(self) -> list[tuple[int, ...]]:
        """Potential regions to try: every combination over the touching pairs."""
        options = [found if touch else found[:1] for found, touch in zip(self.regions, self.touching)]
        count = math.prod(len(o) for o in options)
        if count > MAX_CANDIDATES:
            raise TraceError(f"{count} potential regions meet at one configuration; the mechanism is too "
                             "degenerate here to choose among them")
        return list(itertools.product(*options))

    def among(self, active: set[int]) -> Choices:
        """The same choices with every pair outside ``active`` counted as touching nothing."""
        touching = tuple(touch and p in active for p, touch in enumerate(self.touching))
        return Choices(self.regions, touching, self.points)


@dataclass
class RegionStats:
    """Regions explored (built), by key, for Table 2.

    Every region is built around a configuration its closure holds, so every explored
    region is nonempty: the paper's separate count comes from its earlier program,
    which built potential regions blindly.
    """

    explored: set = field(default_factory=set)


class RegionDiagram:
    """The mechanism's region diagram, built only where the path goes."""

    def __init__(self, analysis: Analysis) -> None:
        self.analysis = analysis
        self.mechanism = analysis.mechanism
        self.pairs = analysis.constraining_pairs
        self.stats = RegionStats()
        tol = self.mechanism.tolerance
        n = len(self.mechanism.coordinates)
        index = self.mechanism.coordinate_index
        self._columns = [np.array([index[c] for c in pair.coordinates]) for pair in self.pairs]
        # Every pair's point at once: one product, then each pair's slice of it.
        blocks = []
        for pair, columns in zip(self.pairs, self._columns):
            block = np.zeros((pair.dimension, n))
            block[:, columns] = pair.matrix
            blocks.append(block)
        self._points = np.vstack(blocks) if blocks else np.zeros((0, n))
        self._slices = np.cumsum([0] + [pair.dimension for pair in self.pairs])
        self._pair_rows: dict[tuple[int, int], tuple[np.ndarray, np.ndarray]] = {}
        self._fixed: dict[tuple[int, ...], tuple[np.ndarray, np.ndarray]] = {}
        self._regions: dict[tuple[int, ...], MechanismRegion] = {}
        self._last: dict[int, tuple[list[float], tuple[int, ...], bool]] = {}
        self._last_choices: tuple[np.ndarray, Choices] | None = None
        self._angle = np.array([c.is_angle for c in self.mechanism.coordinates])
        self._n = n
        self._length_tol = tol.length
        self._angle_tol = tol.angle
        self._velocity_tol = tol.velocity
        self._limit_rows, self._limit_h, self._limit_stops = self._limits()

    @property
    def potential(self) -> int:
        """Number of potential regions: the product of the pairwise region counts."""
        return math.prod(len(pair.regions) for pair in self.pairs)

    def choices(self, q: np.ndarray) -> Choices:
        """The pairwise regions whose closure holds ``q``, and which pairs touch there.

        A pair whose point has not moved since the last call is not looked up again.
        """
        if self._last_choices is not None and np.array_equal(self._last_choices[0], q):
            return self._last_choices[1]
        regions, touching, points = [], [], []
        everything = self._points @ q
        for p, pair in enumerate(self.pairs):
            point = everything[self._slices[p]:self._slices[p + 1]]
            cached = self._last.get(p)
            if cached is not None and (cached[0] == point.tolist() or (
                    len(cached[1]) == 1 and not cached[2] and _inside(pair.regions[cached[1][0]], point,
                                                                       self._length_tol))):
                found, touch = cached[1], cached[2]
            else:
                found = tuple(pair.regions_at(point, self._length_tol))
                if not found:
                    raise TraceError(f"the path left the free space of pair {pair.name} (parts overlap)")
                touch = any(pair.regions[i].contacts_at(point, self._length_tol) for i in found)
                self._last[p] = (point.tolist(), found, touch)
            regions.append(found)
            touching.append(touch)
            points.append(point)
        choices = Choices(tuple(regions), tuple(touching), tuple(points))
        self._last_choices = (q.copy(), choices)
        return choices

    def touching_rows(self, choices: Choices, q: np.ndarray) -> np.ndarray:
        """Tight rows (over all coordinates) of every candidate region of every touching pair."""
        rows = [np.zeros((0, self._n))]
        for p, (found, touch) in enumerate(zip(choices.regions, choices.touching)):
            if touch:
                for i in found:
                    G, h = self._pair_region_rows(p, i)
                    rows.append(G[h - G @ q <= self._length_tol])
        return np.vstack(rows)

    def common_rows(self, choices: Choices, q: np.ndarray) -> np.ndarray:
        """Tight rows (over all coordinates) that every candidate region of a touching pair shares."""
        rows = [np.zeros((0, self._n)), self._limit_rows[self._limit_h - self._limit_rows @ q <= self._length_tol]]
        for p, (found, touch) in enumerate(zip(choices.regions, choices.touching)):
            if not touch:
                continue
            tight = []
            for i in found:
                G, h = self._pair_region_rows(p, i)
                tight.append(G[h - G @ q <= self._length_tol])
            if len(tight) == 1:
                rows.append(tight[0])
            else:
                others = [{tuple(g) for g in t.tolist()} for t in tight[1:]]
                rows.append(np.array([g for g in tight[0].tolist() if all(tuple(g) in o for o in others)],
                                     float).reshape(-1, self._n))
        return np.vstack(rows)

    def pairs_among(self, coordinates: set[int]) -> set[int]:
        """Constraining pairs with at least one coordinate in ``coordinates``."""
        return {p for p, columns in enumerate(self._columns) if coordinates.intersection(columns.tolist())}

    def settle(self, choices: Choices, key: tuple[int, ...], velocity: np.ndarray) -> tuple[int, ...]:
        """For pairs that touch nothing, the region the velocity moves into (others as chosen).

        Around a configuration where a pair touches nothing, its regions together
        cover every direction, so some region holding the configuration also holds the
        motion: the first whose tight rows the velocity keeps.
        """
        settled = list(key)
        for p, (pair, columns) in enumerate(zip(self.pairs, self._columns)):
            if choices.touching[p] or len(choices.regions[p]) == 1:
                continue
            rate = pair.matrix @ velocity[columns]
            for i in choices.regions[p]:
                region = pair.regions[i]
                tight = region.bounds - region.rows @ choices.points[p] <= self._length_tol
                if np.all(region.rows[tight] @ rate <= self._velocity_tol):
                    settled[p] = i
                    break
        return tuple(settled)

    def region(self, key: tuple[int, ...]) -> MechanismRegion:
        """The mechanism region for ``key``: its pairwise rows and the coordinate limits.

        The linkage constraints of section 4.2.1 are implied by these rows and the
        linkages themselves, so they never mark an exit the tracer would not find on
        these rows anyway; :meth:`reported` adds them for the region's description.
        """
        self.stats.explored.add(key)
        if key not in self._regions:
            G, h = self._fixed_rows(key)
            pair_rows = len(h)
            G = np.vstack([G, self._limit_rows])
            h = np.concatenate([h, self._limit_h])
            tolerances = [self._length_tol] * pair_rows
            tolerances += [self._tolerance(int(np.argmax(np.abs(r)))) for r in self._limit_rows]
            owners = np.concatenate([np.full(len(self.pairs[p].regions[i].bounds), p) for p, i in enumerate(key)]
                                    + [np.full(len(self._limit_h), -1)]).astype(int)
            self._regions[key] = MechanismRegion(
                key, G, h, ("pair",) * pair_rows + ("limit",) * len(self._limit_h), np.array(tolerances),
                (None,) * pair_rows + self._limit_stops, owners)
        return self._regions[key]

    def reported(self, key: tuple[int, ...], q: np.ndarray) -> MechanismRegion:
        """The region for ``key`` with the linkage constraints, as the paper composes it.

        Each linkage's output is bounded by what the other rows imply (interval
        propagation) and by the image of its input's range; its input by the widest
        interval around its value in ``q`` whose image stays within those bounds.
        """
        region = self.region(key)
        lower, upper = implied_bounds(region.G, region.h) if len(region.h) else (
            np.full(self._n, -math.inf), np.full(self._n, math.inf))
        rows, bounds = [], []
        for table in self.analysis.linkage_tables.values():
            i = self.mechanism.coordinate_index[table.linkage.input]
            o = self.mechanism.coordinate_index[table.linkage.output]
            image = table.image(lower[i], upper[i])
            out_lo, out_hi = max(lower[o], image[0]), min(upper[o], image[1])
            in_lo, in_hi = table.preimage(q[i], out_lo, out_hi)
            for j, lo, hi in ((o, out_lo, out_hi), (i, max(in_lo, lower[i]), min(in_hi, upper[i]))):
                for sign, value in ((-1.0, lo), (1.0, hi)):
                    if math.isfinite(value):
                        row = np.zeros(self._n)
                        row[j] = sign
                        rows.append(row)
                        bounds.append(sign * value)
        if not rows:
            return region
        extra = len(rows)
        return MechanismRegion(key, np.vstack([region.G] + rows), np.concatenate([region.h, bounds]),
                               region.kinds + ("linkage",) * extra,
                               np.concatenate([region.tolerances,
                                               [self._tolerance(int(np.argmax(np.abs(r)))) for r in rows]]),
                               region.stops + (None,) * extra, np.concatenate([region.owners, np.full(extra, -1)]))

    def contacts(self, key: tuple[int, ...], q: np.ndarray) -> frozenset:
        """Every contact (and stop) holding at ``q``, which lies in the region ``key``.

        Only a pair with a tight row there can be in contact.
        """
        region = self.region(key)
        tight = region.tight(q)
        found: set = set()
        for p in sorted(set(region.owners[tight].tolist()) - {-1}):
            pair = self.pairs[p]
            found.update(pair.contacts_in(key[p], pair.point(q[self._columns[p]]), self._length_tol))
        found.update(stop for stop, hit in zip(region.stops, tight) if stop is not None and hit)
        return frozenset(found)

    def pair_regions(self, key: tuple[int, ...]) -> dict[str, str]:
        """Names of the pairwise regions making up a mechanism region, by pair."""
        return {pair.name: pair.regions[i].name for pair, i in zip(self.pairs, key)}

    def _fixed_rows(self, key: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
        """Rows from the pairwise regions, over all coordinates (cached by key)."""
        if key not in self._fixed:
            blocks = [self._pair_region_rows(p, i) for p, i in enumerate(key)]
            G = np.vstack([b[0] for b in blocks]) if blocks else np.zeros((0, self._n))
            h = np.concatenate([b[1] for b in blocks]) if blocks else np.zeros(0)
            self._fixed[key] = (G, h)
        return self._fixed[key]

    def _pair_region_rows(self, p: int, i: int) -> tuple[np.ndarray, np.ndarray]:
        if (p, i) not in self._pair_rows:
            pair, region = self.pairs[p], self.pairs[p].regions[i]
            G = np.zeros((len(region.bounds), self._n))
            G[:, self._columns[p]] = region.rows @ pair.matrix
            self._pair_rows[(p, i)] = (G, region.bounds.copy())
        return self._pair_rows[(p, i)]

    def _limits(self):
        rows, bounds, stops = [], [], []
        for j, c in enumerate(self.mechanism.coordinates):
            if c.limits is None:
                continue
            for sign, value, side in ((-1.0, c.limits[0], "lower"), (1.0, c.limits[1], "upper")):
                row = np.zeros(self._n)
                row[j] = sign
                rows.append(row)
                bounds.append(sign * value)
                stops.append(Stop(c.name, side, value))
        return np.array(rows).reshape(-1, self._n), np.array(bounds, float), tuple(stops)

    def _tolerance(self, j: int) -> float:
        return self._angle_tol if self._angle[j] else self._length_tol


def _inside(region, point: np.ndarray, tolerance: float) -> bool:
    """Strictly inside (every row slack by more than the tolerance): no other region holds it."""
    return bool(np.all(region.bounds - region.rows @ point > tolerance))
