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

import hashlib
import itertools
import math
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np

from ..kernels.constraints import ConstraintManager, implied_bounds
from ..kernels.differences import DifferenceGraph
from ..model.errors import TraceError
from ..model.tolerance import NOISE
from .analysis import Analysis
from .layout import RowSlack, Stop

if TYPE_CHECKING:
    from scipy import sparse

MAX_CANDIDATES = 4096
REGION_CACHE = 256  # mechanism regions kept, most recently used
REGION_CACHE_ROWS = 200_000  # and at most this many rows in all (a large mechanism's region has many)
FEW_REGIONS = 16  # a pair with at most this many regions tests them all instead of asking its R-tree


@dataclass
class MechanismRegion:
    """Linear constraints ``G @ q <= h`` of one potential region of the whole mechanism.

    ``key[i]`` is the region chosen in constraining pair i; the key ends with the turns
    of the wrapping coordinates (the region lies that many turns on). ``kinds[r]`` says where
    row r comes from: ``"pair"``, ``"limit"`` or ``"linkage"``; ``tolerances[r]`` is
    the slack below which row r counts as tight (length or angle tolerance).

    ``G`` is a numpy array, or a scipy sparse array when the region is large (each
    pair row has a handful of nonzeros among all the mechanism's coordinates); both
    multiply vectors alike, and :meth:`rows` gives any subset as a dense array.
    """

    key: tuple[int, ...]
    G: np.ndarray | sparse.csr_array
    h: np.ndarray
    kinds: tuple[str, ...]
    tolerances: np.ndarray
    stops: tuple[Stop | None, ...]
    owners: np.ndarray  # the constraining pair each row comes from, -1 for limits and linkages

    def rows(self, which: np.ndarray | None = None) -> np.ndarray:
        """Rows of ``G`` (a mask or indices; all by default) as a dense array."""
        G = self.G if which is None else self.G[which]
        return G if isinstance(G, np.ndarray) else G.toarray()

    def signature(self) -> bytes:
        """The constraints as bytes: regions with equal signatures have equal constraints."""
        G = self.G
        parts = (np.asarray(G),) if isinstance(G, np.ndarray) else (G.indptr, G.indices, G.data)
        return b"|".join(p.tobytes() for p in parts + (np.asarray(G.shape), self.h))

    def tight(self, q: np.ndarray) -> np.ndarray:
        """Mask of the rows holding with equality at ``q``."""
        return self.h - self.G @ q <= self.tolerances

    def tight_except(self, q: np.ndarray, ignored: np.ndarray) -> np.ndarray:
        """Tight rows, leaving out those of the pairs flagged in ``ignored`` (one flag per pair)."""
        tight = self.h - self.G @ q <= self.tolerances
        if ignored.any():
            tight &= ~ignored[self.owners]  # owner -1 (limits) reads the flag past the last pair: False
        return tight

    def constraints(self, manager: ConstraintManager, names: list[str], decimals: int = 4,
                    point: np.ndarray | None = None) -> list[str]:
        """The region's irredundant constraints as text, like the paper's equation (1), bounds
        with up to ``decimals`` decimals; ``point``, a configuration in the region, lets most
        rows be settled without a program (:meth:`ConstraintManager.essential`).

        For the feeder's first segment: ``xb1 = 12``, ..., ``yb1 >= 1``, ``xp >= 5``, ...
        """
        keep = manager.essential(self.G, self.h, point)
        kept = self.rows(np.array(keep, dtype=int))
        scale = np.max(np.abs(kept), axis=1) if keep else np.zeros(0)
        rows, bounds = kept / scale[:, None], self.h[keep] / scale
        twins = _opposites(rows, bounds)
        out, used = [], set()
        for i in range(len(keep)):
            if i in used:
                continue
            twin = next((k for k in twins.get(i, []) if k > i and k not in used), None)
            if twin is not None:
                used.add(twin)
            out.append(_linear_text(rows[i], bounds[i], names, "=" if twin is not None else "<=", decimals))
        return out

    def __repr__(self) -> str:
        return f"MechanismRegion(key={self.key}, rows={len(self.h)})"


def _sparse_stack(G: sparse.csr_array, rows: np.ndarray) -> sparse.csr_array:
    """A large region's rows with dense ``rows`` under them (scipy.sparse is loaded by then: it made G)."""
    from scipy import sparse

    return sparse.vstack([G, rows], format="csr")


def _opposites(rows: np.ndarray, bounds: np.ndarray) -> dict[int, list[int]]:
    """For each row, the rows opposite it (np.allclose of one to the other's negation) with
    opposite bounds, which make an equality. Only rows with the same variables can be
    opposite, so only those are compared."""
    if not len(rows):
        return {}
    packed = np.ascontiguousarray(np.packbits(np.abs(rows) > 1e-8, axis=1))
    group = np.unique(packed.view(f"V{packed.shape[1]}").ravel(), return_inverse=True)[1].ravel()
    i, k = np.nonzero((group[:, None] == group[None, :]) & ~np.eye(len(group), dtype=bool))
    close = np.all(np.abs(rows[i] + rows[k]) <= 1e-8 + 1e-5 * np.abs(rows[i]), axis=1)
    close &= np.abs(bounds[i] + bounds[k]) <= NOISE * np.maximum(np.abs(bounds[i]), np.abs(bounds[k]))
    out: dict[int, list[int]] = {}
    for a, b in zip(i[close].tolist(), k[close].tolist()):
        out.setdefault(a, []).append(b)
    return out


def _linear_text(g: np.ndarray, bound: float, names: list[str], relation: str, decimals: int = 4) -> str:
    """``g @ q (relation) bound`` written with names, leading term positive (flipping <= to >=)."""
    terms = [(float(g[j]), names[j]) for j in np.flatnonzero(np.abs(g) > NOISE).tolist()]
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
    value = f"{bound:.{decimals}f}".rstrip("0").rstrip(".")
    return f"{text} {relation} {'0' if value == '-0' else value}"


@dataclass(frozen=True)
class TightRows:
    """Rows tight at a configuration: ``G`` (dense, over all coordinates) of the candidate
    regions of the pairs touching there, each row's pair and region number in its pair,
    and the tight coordinate-limit rows."""

    G: np.ndarray
    pairs: np.ndarray
    regions: np.ndarray
    limits: np.ndarray


@dataclass(frozen=True)
class Choices:
    """Per constraining pair: the regions whose closure holds a configuration, and whether
    the pair touches there (only touching pairs constrain the motion; the others'
    regions all meet around the configuration and are settled after the motion).

    ``several`` flags the pairs with more than one candidate region, ``first`` is each
    pair's first candidate, ``points`` holds every pair's point, pair p's at
    ``points[slices[p]:slices[p + 1]]``, and ``tight`` the rows tight there (of the
    pairs touching before :meth:`among`). ``turns`` are the whole turns taken off the
    wrapping coordinates to find the points; every key ends with them. ``slack`` is
    the rows' slack at the configuration, indexed by rows (:meth:`RowTable.slack_at`).
    """

    regions: tuple[tuple[int, ...], ...]
    touching: np.ndarray
    several: np.ndarray
    first: np.ndarray
    points: np.ndarray
    slices: np.ndarray
    tight: TightRows
    turns: tuple[int, ...] = ()
    slack: np.ndarray | RowSlack | None = None

    @cached_property
    def loose(self) -> np.ndarray:
        """Flags, one per pair plus a last False for limit rows: the pairs that touch nothing here."""
        return np.append(~self.touching, False)

    def point(self, p: int) -> np.ndarray:
        """Pair p's point."""
        return self.points[self.slices[p]:self.slices[p + 1]]

    def candidates(self) -> list[tuple[int, ...]]:
        """Potential regions to try: every combination over the touching pairs."""
        base = self.first.tolist()
        varying = np.flatnonzero(self.touching & self.several).tolist()
        count = math.prod(len(self.regions[p]) for p in varying)
        if count > MAX_CANDIDATES:
            raise TraceError(f"{count} potential regions meet at one configuration; the mechanism is too "
                             "degenerate here to choose among them")
        keys = []
        for combination in itertools.product(*(self.regions[p] for p in varying)):
            for p, i in zip(varying, combination):
                base[p] = i
            keys.append(tuple(base) + self.turns)
        return keys

    def among(self, active: np.ndarray) -> Choices:
        """The same choices with every pair outside ``active`` (a mask) counted as touching nothing."""
        return Choices(self.regions, self.touching & active, self.several, self.first, self.points, self.slices,
                       self.tight, self.turns, self.slack)

    def touching_rows(self) -> np.ndarray:
        """Tight rows (over all coordinates) of every candidate region of every touching pair."""
        return self.tight.G

    def common_rows(self) -> np.ndarray:
        """Tight rows that every candidate region of a touching pair shares, and tight limit rows."""
        tight = self.tight
        several = self.several[tight.pairs]
        keep = ~several
        if several.any():
            # A row of a pair with several candidates is common if each candidate has it.
            seen: dict[tuple, set[int]] = {}
            for r in np.flatnonzero(several).tolist():
                seen.setdefault((int(tight.pairs[r]), *tight.G[r].tolist()), set()).add(int(tight.regions[r]))
            first: set[tuple] = set()
            for r in np.flatnonzero(several).tolist():
                signature = (int(tight.pairs[r]), *tight.G[r].tolist())
                if signature not in first and len(seen[signature]) == len(self.regions[tight.pairs[r]]):
                    first.add(signature)
                    keep[r] = True
        return np.vstack([tight.G[keep], tight.limits])

    def tight_rows(self, key: tuple[int, ...]) -> np.ndarray:
        """Tight rows of region ``key`` from its touching pairs, and tight limit rows."""
        tight = self.tight
        mine = tight.regions == np.asarray(key, int)[tight.pairs]
        return np.vstack([tight.G[mine], tight.limits])


@dataclass
class RegionStats:
    """Regions explored (built), by a digest of their key (a large mechanism's key is long), for Table 2.

    Every region is built around a configuration its closure holds, so every explored
    region is nonempty: the paper's separate count comes from its earlier program,
    which built potential regions blindly.
    """

    explored: set = field(default_factory=set)


class RegionDiagram:
    """The mechanism's region diagram, built only where the path goes.

    A step of the path only sees the pairs among parts that can move in it (the
    *active* pairs): the others' rows are constant along the step, satisfied where it
    starts, so they can neither bind nor mark its exit. Regions are built from the
    active pairs' rows and the coordinate limits; their keys still name a region in
    every pair.
    """

    def __init__(self, analysis: Analysis) -> None:
        self.analysis = analysis
        self.mechanism = analysis.mechanism
        self.pairs = analysis.constraining_pairs
        self.stats = RegionStats()
        self.layout = analysis.layout
        self._regions: dict[bytes, MechanismRegion] = {}
        self._cached_rows = 0
        self._recent: dict[tuple, MechanismRegion] = {}
        self._last_key: tuple[tuple[int, ...], np.ndarray] | None = None
        self._found: list[tuple[int, ...]] = [()] * len(self.pairs)
        self._touch = np.zeros(len(self.pairs), bool)
        self._several = np.zeros(len(self.pairs), bool)
        self._first = np.zeros(len(self.pairs), int)
        self._alone = np.full(len(self.pairs), -1)  # the one region of a pair that touches nothing, else -1
        self._last_points: np.ndarray | None = None
        self._last_choices: tuple[bytes, Choices] | None = None  # the configuration's bytes, its choices
        self._contacts: list[tuple | None] = [None] * len(self.pairs)  # per pair: (region, point), contacts
        self._contact_sets: dict[frozenset, frozenset] = {}  # each set of contacts once, shared by the pieces
        tol = self.mechanism.tolerance
        self._length_tol = tol.length
        self._shifted = [p for p, pair in enumerate(self.pairs) if pair.shifts]

    def z_change(self, key: tuple[int, ...], q: np.ndarray, v: np.ndarray, horizon: float) -> float:
        """When moving from ``q`` at ``v`` in region ``key`` first changes what touches in z
        beyond a band's end of a pair with a shift (:meth:`cspace.spaces.layers.ShiftedPairSpace.z_change`):
        the rows cannot show it, so the step must end there. ``horizon`` if not before."""
        for p in self._shifted:
            pair, columns = self.pairs[p], self.layout.columns[p]
            local = self.layout.local(q, key[len(self.pairs):])
            horizon = pair.z_change(key[p], pair.point(local[columns]), pair.matrix @ v[columns], horizon,
                                    self._length_tol)
        return horizon

    def sliding_in_z(self, key: tuple[int, ...], q: np.ndarray, v: np.ndarray) -> list[str]:
        """Names of the pairs with a shift whose parts move along a band's end (on or past a
        z face) from ``q`` at ``v``."""
        local = self.layout.local(q, key[len(self.pairs):])
        return [self.pairs[p].name for p in self._shifted
                if self.pairs[p].sliding(key[p], self.pairs[p].point(local[self.layout.columns[p]]),
                                         self.pairs[p].matrix @ v[self.layout.columns[p]], self._length_tol)]

    @property
    def potential(self) -> int:
        """Number of potential regions: the product of the pairwise region counts."""
        return math.prod(len(pair.geometry) for pair in self.pairs)

    def choices(self, q: np.ndarray) -> Choices:
        """The pairwise regions whose closure holds ``q``, which pairs touch there, and their tight rows.

        Only pairs whose point moved since the last call are looked at again. A pair
        with few regions tests them all (for all such pairs at once); a pair with many
        is first checked strictly inside its one region, and otherwise asks its R-tree.
        """
        if self._last_choices is not None and self._last_choices[0] == q.tobytes():
            return self._last_choices[1]
        table = self.layout.table
        local, turns = self.layout.wrapped(q)
        everything = self.layout.points @ local
        changed = np.ones(len(self.pairs), bool)
        if self._last_points is not None:
            changed[:] = False
            changed[self.layout.point_owner[everything != self._last_points]] = True
        slack = table.slack_at(local)  # of a large table, only the rows looked at
        few, many = table.moved(slack, changed, self._alone, self._length_tol, FEW_REGIONS)
        slices = self.layout.slices
        for p, found, near in few:
            self._update(p, found, near, everything[slices[p]:slices[p + 1]])
        for p in many:
            point = everything[slices[p]:slices[p + 1]]
            self._update(p, tuple(self.pairs[p].regions_at(point, self._length_tol)), True, point)
        self._last_points = everything
        touching = self._touch.nonzero()[0]
        numbers = np.array([i for p in touching.tolist() for i in self._found[p]], int)
        pairs = np.repeat(touching, [len(self._found[p]) for p in touching.tolist()])
        rows = table.tight(slack, pairs, numbers, self._length_tol)
        G, owners, sources = table.rows(rows, dense=True), table.owner[rows], table.region[rows]
        choices = Choices(tuple(self._found), self._touch.copy(), self._several.copy(), self._first.copy(),
                          everything, self.layout.slices, TightRows(G, owners, sources, self._tight_limits(q)), turns,
                          slack)
        self._last_choices = (q.tobytes(), choices)
        return choices

    def _update(self, p: int, found: tuple[int, ...], near: bool, point: np.ndarray) -> None:
        """Record pair p's candidate regions; it touches if one of them has a contact edge through its point."""
        pair = self.pairs[p]
        if not found:
            raise TraceError("the path left the free space of the pair (the parts would overlap)",
                             parts=(pair.part_a, pair.part_b))
        touch = near and any(pair.geometry[i].contacts_at(point, self._length_tol) for i in found)
        self._found[p], self._touch[p] = found, touch
        self._several[p], self._first[p] = len(found) > 1, found[0]
        self._alone[p] = found[0] if len(found) == 1 and not touch else -1

    def active(self, coordinates: set[int]) -> np.ndarray:
        """Mask of the constraining pairs with at least one coordinate in ``coordinates``."""
        flags = np.zeros(self.layout.n + 1, bool)
        flags[list(coordinates)] = True
        return flags[self.layout.pair_columns].any(axis=1)

    def settle(self, choices: Choices, key: tuple[int, ...], velocity: np.ndarray,
               active: np.ndarray, still: float) -> tuple[int, ...]:
        """For active pairs that touch nothing, the region the velocity moves into (others as chosen).

        Around a configuration where a pair touches nothing, its regions together
        cover every direction, so some region holding the configuration also holds the
        motion: the first whose tight rows the velocity keeps (a rate below ``still``, the
        step's velocity tolerance, keeps a row). Inactive pairs do not move: their first
        region holds them.
        """
        settled = list(key)
        for p in np.flatnonzero(active & ~choices.touching & choices.several).tolist():
            pair = self.pairs[p]
            rate = pair.matrix @ velocity[self.layout.columns[p]]
            point = choices.point(p)
            for i in choices.regions[p]:
                region = pair.geometry[i]
                tight = region.bounds - region.rows @ point <= self._length_tol
                if np.all(region.rows[tight] @ rate <= still):
                    settled[p] = i
                    break
        return tuple(settled)

    def region(self, key: tuple[int, ...], active: np.ndarray | None = None) -> MechanismRegion:
        """The mechanism region for ``key``: the active pairs' rows (all pairs' by default) and the limits.

        The linkage constraints of section 4.2.1 are implied by these rows and the
        linkages themselves, so they never mark an exit the tracer would not find on
        these rows anyway; :meth:`reported` adds them for the region's description.
        """
        count = len(self.pairs)
        exact = (key, None if active is None else active.tobytes())
        if exact in self._recent:  # counted when it was built
            return self._recent[exact]
        chosen_regions = self._chosen(key)
        pairs = np.arange(count) if active is None else np.flatnonzero(active)
        regions = chosen_regions[pairs]
        turns = key[count:]
        chosen = pairs.tobytes() + regions.tobytes() + np.asarray(turns, int).tobytes()
        cached = self._regions.pop(chosen, None)
        if cached is not None:
            self._cached_rows -= len(cached.h)
        if cached is not None and cached.key != key:
            cached = replace(cached, key=key)  # same rows: only inactive pairs' regions differ
        if cached is None:
            table = self.layout.table
            rows = table.indices(pairs, regions)
            G, h, owners = table.stacked(rows, self.layout.limit_rows), table.bounds(rows, turns), table.owner[rows]
            pair_rows = len(h)
            cached = MechanismRegion(
                key, G, np.concatenate([h, self.layout.limit_h]),
                ("pair",) * pair_rows + ("limit",) * len(self.layout.limit_h),
                np.concatenate([np.full(pair_rows, self._length_tol), self.layout.limit_tol]),
                (None,) * pair_rows + self.layout.limit_stops,
                np.concatenate([owners, np.full(len(self.layout.limit_h), -1)]))
        self._regions[chosen] = cached  # most recently used last
        self._cached_rows += len(cached.h)
        while len(self._regions) > 1 and (len(self._regions) > REGION_CACHE or self._cached_rows > REGION_CACHE_ROWS):
            self._cached_rows -= len(self._regions.pop(next(iter(self._regions))).h)
        self._recent = {exact: cached}
        return cached

    def _chosen(self, key: tuple[int, ...]) -> np.ndarray:
        """The pairs' regions of ``key`` as an array, counted as explored. A large
        mechanism's key is long: the last key asked for (a step asks for its settled
        region twice, with more pairs the second time) is not read again."""
        if self._last_key is not None and self._last_key[0] is key:
            return self._last_key[1]
        chosen = np.fromiter(key, np.int64, len(self.pairs))
        self.stats.explored.add(hashlib.blake2b(chosen.tobytes(), digest_size=16).digest())
        self._last_key = (key, chosen)
        return chosen

    def reported(self, key: tuple[int, ...], q: np.ndarray) -> MechanismRegion:
        """The region for ``key`` with the linkage constraints, as the paper composes it.

        Each linkage's output is bounded by what the other rows imply (shortest paths
        when every row bounds a difference, :meth:`DifferenceGraph.bounds`; else interval
        propagation) and by the image of its input's range; its input by the widest
        interval around its value in ``q`` whose image stays within those bounds.
        """
        region = self.region(key)
        lower, upper = np.full(self.layout.n, -math.inf), np.full(self.layout.n, math.inf)
        if len(region.h):
            graph = DifferenceGraph(region.G, region.h, q, np.zeros(len(region.h)))
            lower, upper = graph.bounds() if graph.complete else implied_bounds(region.rows(), region.h)
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
                        row = np.zeros(self.layout.n)
                        row[j] = sign
                        rows.append(row)
                        bounds.append(sign * value)
        if not rows:
            return region
        extra = len(rows)
        G = np.vstack([region.G] + rows) if isinstance(region.G, np.ndarray) else \
            _sparse_stack(region.G, np.array(rows))
        return MechanismRegion(key, G, np.concatenate([region.h, bounds]),
                               region.kinds + ("linkage",) * extra,
                               np.concatenate([region.tolerances,
                                               [self.layout.tolerance(int(np.argmax(np.abs(r)))) for r in rows]]),
                               region.stops + (None,) * extra, np.concatenate([region.owners, np.full(extra, -1)]))

    def contacts(self, region: MechanismRegion, q: np.ndarray, still: Choices) -> frozenset:
        """Every contact (and stop) holding at ``q``, which lies in ``region``.

        Pairs with rows in ``region`` are in contact only where a row is tight; the
        others have not moved since ``still`` was found, and touch as they touched then.
        Equal sets are one object: a stack's hundreds of contacts, held by piece after
        piece, are held once.
        """
        key = region.key
        tight = region.tight(q)
        local = self.layout.local(q, key[len(self.pairs):])
        found: set = set()
        present = np.zeros(len(self.pairs), bool)
        present[region.owners[region.owners >= 0]] = True
        for p in sorted(set(region.owners[tight].tolist()) - {-1}):
            found.update(self._pair_contacts(p, key[p], self.pairs[p].point(local[self.layout.columns[p]])))
        for p in np.flatnonzero(still.touching & ~present).tolist():
            found.update(self._pair_contacts(p, key[p], still.point(p)))
        found.update(region.stops[r] for r in np.flatnonzero(tight).tolist() if region.stops[r] is not None)
        contacts = frozenset(found)
        return self._contact_sets.setdefault(contacts, contacts)

    def _pair_contacts(self, p: int, index: int, point: np.ndarray) -> frozenset:
        """Contacts of pair p at ``point`` of its region ``index``, remembered per pair: parts at
        rest keep their point, however many others move."""
        where = (index, point.tobytes())
        held = self._contacts[p]
        if held is None or held[0] != where:
            held = self._contacts[p] = (where, self.pairs[p].contacts_in(index, point, self._length_tol))
        return held[1]

    def _tight_limits(self, q: np.ndarray) -> np.ndarray:
        layout = self.layout
        return layout.limit_rows[layout.limit_h - layout.limit_rows @ q <= layout.limit_tol]
