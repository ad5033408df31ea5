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
from .constraints import ConstraintManager
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

    def tight(self, q: np.ndarray) -> np.ndarray:
        """Mask of the rows holding with equality at ``q``."""
        return self.h - self.G @ q <= self.tolerances

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


@dataclass
class RegionStats:
    """Regions explored (built) and found nonempty, by key, for Table 2."""

    explored: set = field(default_factory=set)
    nonempty: set = field(default_factory=set)


class RegionDiagram:
    """The mechanism's region diagram, built only where the path goes."""

    def __init__(self, analysis: Analysis, manager: ConstraintManager) -> None:
        self.analysis = analysis
        self.manager = manager
        self.mechanism = analysis.mechanism
        self.pairs = analysis.constraining_pairs
        self.stats = RegionStats()
        tol = self.mechanism.tolerance
        n = len(self.mechanism.coordinates)
        index = self.mechanism.coordinate_index
        self._columns = [np.array([index[c] for c in pair.coordinates]) for pair in self.pairs]
        self._pair_rows: dict[tuple[int, int], tuple[np.ndarray, np.ndarray]] = {}
        self._fixed: dict[tuple[int, ...], tuple[np.ndarray, np.ndarray]] = {}
        self._linkage_ranges: dict[tuple[int, ...], list] = {}
        self._angle = np.array([c.is_angle for c in self.mechanism.coordinates])
        self._n = n
        self._length_tol = tol.length
        self._angle_tol = tol.angle
        self._limit_rows, self._limit_h, self._limit_stops = self._limits()

    @property
    def potential(self) -> int:
        """Number of potential regions: the product of the pairwise region counts."""
        return math.prod(len(pair.regions) for pair in self.pairs)

    def keys_at(self, q: np.ndarray) -> list[tuple[int, ...]]:
        """Keys of every potential region whose closure holds ``q``."""
        choices = []
        for pair, columns in zip(self.pairs, self._columns):
            choices.append(pair.regions_at(pair.point(q[columns]), self._length_tol))
        count = math.prod(len(c) for c in choices)
        if count == 0:
            missing = next(p.name for p, c in zip(self.pairs, choices) if not c)
            raise TraceError(f"the path left the free space of pair {missing} (parts overlap)")
        if count > MAX_CANDIDATES:
            raise TraceError(f"{count} potential regions meet at one configuration; the mechanism is too "
                             "degenerate here to choose among them")
        return list(itertools.product(*choices))

    def region(self, key: tuple[int, ...], q: np.ndarray) -> MechanismRegion:
        """The mechanism region for ``key``, with linkage bounds around ``q``."""
        self.stats.explored.add(key)
        G, h = self._fixed_rows(key)
        rows, bounds, kinds, tols, stops = [G, self._limit_rows], [h, self._limit_h], [], [], []
        kinds += ["pair"] * len(h) + ["limit"] * len(self._limit_h)
        tols += [self._length_tol] * len(h) + [self._tolerance(np.argmax(np.abs(r))) for r in self._limit_rows]
        stops += [None] * len(h) + list(self._limit_stops)
        for linkage_rows, linkage_h in self._linkage_constraints(key, q):
            rows.append(linkage_rows)
            bounds.append(linkage_h)
            kinds += ["linkage"] * len(linkage_h)
            tols += [self._tolerance(np.argmax(np.abs(r))) for r in linkage_rows]
            stops += [None] * len(linkage_h)
        region = MechanismRegion(key, np.vstack(rows), np.concatenate(bounds), tuple(kinds),
                                 np.array(tols), tuple(stops))
        if key not in self.stats.nonempty and self.manager.feasible(region.G, region.h):
            self.stats.nonempty.add(key)
        return region

    def contacts(self, q: np.ndarray) -> frozenset:
        """Every contact (and stop) holding at ``q``."""
        found: set = set()
        for pair, columns in zip(self.pairs, self._columns):
            found.update(pair.contacts_at(pair.point(q[columns]), self._length_tol))
        for row, bound, stop in zip(self._limit_rows, self._limit_h, self._limit_stops):
            if bound - row @ q <= self._tolerance(np.argmax(np.abs(row))):
                found.add(stop)
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

    def _linkage_constraints(self, key: tuple[int, ...], q: np.ndarray):
        """Bounds on each linkage's output (forward map) and input (inverse map)."""
        if not self.analysis.linkage_tables:
            return []
        if key not in self._linkage_ranges:
            G, h = self._fixed_rows(key)
            G_all = np.vstack([G, self._limit_rows])
            h_all = np.concatenate([h, self._limit_h])
            ranges = []
            for table in self.analysis.linkage_tables.values():
                i = self.mechanism.coordinate_index[table.linkage.input]
                o = self.mechanism.coordinate_index[table.linkage.output]
                x_range = self._bounds(G_all, h_all, i)
                y_range = self._bounds(G_all, h_all, o)
                ranges.append((table, i, o, x_range, y_range))
            self._linkage_ranges[key] = ranges
        out = []
        for table, i, o, (xl, xu), (yl, yu) in self._linkage_ranges[key]:
            fl, fu = table.image(xl, xu)
            yl, yu = max(yl, fl), min(yu, fu)
            al, au = table.preimage(q[i], yl, yu)
            al, au = max(al, xl), min(au, xu)
            rows, bounds = [], []
            for j, lo, hi in ((o, yl, yu), (i, al, au)):
                for sign, value in ((-1.0, lo), (1.0, hi)):
                    if math.isfinite(value):
                        row = np.zeros(self._n)
                        row[j] = sign
                        rows.append(row)
                        bounds.append(sign * value)
            out.append((np.array(rows).reshape(-1, self._n), np.array(bounds, float)))
        return out

    def _bounds(self, G: np.ndarray, h: np.ndarray, j: int) -> tuple[float, float]:
        if not np.any(G[:, j]):
            return -math.inf, math.inf
        return self.manager.bounds(G, h, j)

    def _tolerance(self, j: int) -> float:
        return self._angle_tol if self._angle[j] else self._length_tol

