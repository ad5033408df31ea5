"""The constraining pairs laid out over a mechanism's coordinates, built once per analysis.

Everything the region diagram reads and never changes: which coordinates each pair
uses, every pair's point as one product, every pairwise region's rows in one flat
table, and the coordinate limits as rows. :attr:`cspace.tracing.analysis.Analysis.layout`
builds it on first use, so every trace (and every description) of an analysis shares it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ..kernels.slack import moved_pairs, rows_slack, tight_rows
from ..model.mechanism import Mechanism
from ..spaces.pairspace import PairSpace

if TYPE_CHECKING:
    from scipy import sparse

DENSE_LIMIT = 20000  # a matrix (a region's rows, every pair's point) of at most this many entries is dense
TURN = 2 * math.pi


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


class RegionLayout:
    """The static side of a region diagram: pairs, their columns and points, rows and limits.

    ``points @ q`` holds every pair's point, pair p's at ``slices[p]:slices[p + 1]``;
    ``pair_columns[p]`` lists pair p's coordinates (padded with n); ``table`` holds every
    pairwise region's rows; ``limit_rows @ q <= limit_h`` are the coordinate limits,
    tight within ``limit_tol`` and reported as ``limit_stops``.
    """

    def __init__(self, mechanism: Mechanism, pairs: tuple[PairSpace, ...]) -> None:
        tol = mechanism.tolerance
        n = len(mechanism.coordinates)
        index = mechanism.coordinate_index
        self.pairs = pairs
        self.n = n
        self.angle = np.array([c.is_angle for c in mechanism.coordinates])
        self.length_tol, self.angle_tol = tol.length, tol.angle
        self.columns = [np.array([index[c] for c in pair.coordinates]) for pair in pairs]
        # Each pair's coordinates, padded with n (a column past the last) to the widest pair's count.
        width = max((len(columns) for columns in self.columns), default=0)
        self.pair_columns = np.full((len(pairs), width), n)
        for p, columns in enumerate(self.columns):
            self.pair_columns[p, :len(columns)] = columns
        self.points = _stacked([pair.matrix for pair in pairs], self.columns, n)
        self.slices = np.cumsum([0] + [pair.dimension for pair in pairs])
        self.point_owner = np.repeat(np.arange(len(pairs)), [pair.dimension for pair in pairs])
        # Freely turning coordinates a pair wraps: each pair's regions cover one turn of them.
        wraps = np.zeros(n, bool)
        for pair, columns in zip(pairs, self.columns):
            for k, period in enumerate(pair.periods):
                if period:
                    wraps[columns[np.flatnonzero(pair.matrix[k])[0]]] = True
        self.wraps = np.flatnonzero(wraps)
        self.table = RowTable(pairs, self.columns, n, self.wraps, tol.angle)
        self.limit_rows, self.limit_h, self.limit_stops = _limits(mechanism)
        self.limit_tol = np.array([self.tolerance(int(np.argmax(np.abs(r)))) for r in self.limit_rows])

    def tolerance(self, j: int) -> float:
        """The tolerance of a row on coordinate j: angle or length."""
        return self.angle_tol if self.angle[j] else self.length_tol

    def wrapped(self, q: np.ndarray) -> tuple[np.ndarray, tuple[int, ...]]:
        """``q`` with every wrapping coordinate taken into its turn [-pi, pi), and the turns
        taken off (one whole number per wrapping coordinate, in order).

        >>> from cspace import analyze, load
        >>> analyze(load("fixtures/feeder.toml")).layout.wrapped(np.zeros(8))[1]
        ()
        """
        if not len(self.wraps):
            return q, ()
        angles = q[self.wraps]
        turns = np.floor((angles + math.pi) / TURN)
        local = q.copy()
        local[self.wraps] = angles - turns * TURN
        return local, tuple(int(t) for t in turns)

    def local(self, q: np.ndarray, turns: tuple[int, ...]) -> np.ndarray:
        """``q`` less the given turns of the wrapping coordinates (the frame of a region of those turns)."""
        if not len(self.wraps):
            return q
        local = q.copy()
        local[self.wraps] = q[self.wraps] - np.array(turns, float) * TURN
        return local

    def __repr__(self) -> str:
        return f"RegionLayout(pairs={len(self.pairs)}, rows={len(self.table.bound)}, limits={len(self.limit_h)})"


def _stacked(blocks: list[np.ndarray], columns: list[np.ndarray], n: int) -> np.ndarray | sparse.csr_array:
    """The blocks stacked into one matrix of ``n`` columns, block k's columns at ``columns[k]``:
    dense up to ``DENSE_LIMIT`` entries, else sparse, built from its entries (a large
    mechanism's pairs each fill a few of its columns; the dense matrix is never made)."""
    total = sum(len(block) for block in blocks)
    offsets = np.cumsum([0] + [len(block) for block in blocks])[:-1]
    rows = np.concatenate([np.repeat(np.arange(len(block)), len(where)) + offset
                           for block, where, offset in zip(blocks, columns, offsets)]) if blocks else np.zeros(0, int)
    cols = np.concatenate([np.tile(where, len(block)) for block, where in zip(blocks, columns)]) \
        if blocks else np.zeros(0, int)
    data = np.concatenate([block.ravel() for block in blocks]) if blocks else np.zeros(0)
    if total * n <= DENSE_LIMIT:  # scipy.sparse (70 ms to import) only for a large mechanism
        dense = np.zeros((total, n))
        dense[rows, cols] = data + 0.0  # -0.0 + 0.0 is 0.0: a zero entry is none, as in a sparse matrix
        return dense
    from scipy import sparse

    entries = sparse.csr_array((data, (rows, cols)), shape=(total, n))
    entries.eliminate_zeros()
    entries.sort_indices()  # the entries, in the order, of the matrix made dense and then sparse
    return entries


def _limits(mechanism: Mechanism) -> tuple[np.ndarray, np.ndarray, tuple[Stop, ...]]:
    """Coordinate limits as rows ``row @ q <= bound``, with the stop each one reports."""
    n = len(mechanism.coordinates)
    rows, bounds, stops = [], [], []
    for j, c in enumerate(mechanism.coordinates):
        if c.limits is None:
            continue
        for sign, value, side in ((-1.0, c.limits[0], "lower"), (1.0, c.limits[1], "upper")):
            row = np.zeros(n)
            row[j] = sign
            rows.append(row)
            bounds.append(sign * value)
            stops.append(Stop(c.name, side, value))
    # (len(rows), n), not (-1, n): with no coordinates (fixed parts only) -1 cannot be inferred
    return np.array(rows, float).reshape(len(rows), n), np.array(bounds, float), tuple(stops)


def _tangents_zeroed(rows: np.ndarray, norms: np.ndarray, tangent: float) -> np.ndarray:
    """The rows with each entry whose coordinate moves within ``tangent`` of along the facet
    set to zero (a row with no other entry kept whole: it stands as drawn)."""
    small = (np.abs(rows) <= tangent * norms) & (rows != 0)
    small &= np.any(np.abs(rows) > tangent * norms, axis=1)[:, None]
    if not small.any():
        return rows
    rows = rows.copy()
    rows[small] = 0.0
    return rows


_NONE, _NO_INDEX = np.zeros(0), np.zeros(0, np.intp)


def _kernel_slack(slack: np.ndarray | RowSlack) -> tuple[np.ndarray, ...]:
    """The slack as the kernels take it: every row's (and no CSR arrays), or the CSR arrays
    and the configuration to compute rows from (and no slack)."""
    if isinstance(slack, RowSlack):
        return _NONE, slack.indptr, slack.indices, slack.data, slack.bound, slack.x
    return np.ascontiguousarray(slack, float), _NO_INDEX, _NO_INDEX, _NONE, _NONE, _NONE


@dataclass
class RowSlack:
    """A sparse row table's slack at one configuration, row by row as asked for:
    ``slack[rows]`` is ``bound[rows] - A[rows] @ x`` (:func:`cspace.kernels.slack.rows_slack`),
    the same numbers as in the product of every row (:meth:`RowTable.slack`)."""

    indptr: np.ndarray
    indices: np.ndarray
    data: np.ndarray
    bound: np.ndarray
    x: np.ndarray

    def __getitem__(self, rows: np.ndarray) -> np.ndarray:
        return rows_slack(self.indptr, self.indices, self.data, self.bound, self.x,
                          np.asarray(rows, np.intp))


class RowTable:
    """Every pairwise region's rows over the mechanism's coordinates: ``A @ q <= bound``.

    Region i of pair p owns rows ``start[base[p] + i]`` onwards, ``count[base[p] + i]``
    of them; ``owner[r]`` is row r's pair and ``region[r]`` its region's number in the
    pair. ``A`` is dense up to ``DENSE_LIMIT`` entries, sparse (CSR) beyond, so one
    product gives every row's slack at a configuration, however large the mechanism.

    A coordinate whose motion runs along a facet to within ``tangent`` (the angle
    tolerance: the cosine of the facet's normal with the motion's direction in the pair
    space) is tangent to it: its entry is zero. Without it an axis tilted by 1e-12 off a
    face would be pushed by that face at 1e12 times the speed of what moves it; angles
    closer than the angle tolerance coincide, and the drift this leaves, the tilt times
    the distance moved, is within the length tolerance over the mechanism's size.
    """

    def __init__(self, pairs: tuple, columns: list[np.ndarray], n: int, wraps: np.ndarray | None = None,
                 tangent: float = 0.0) -> None:
        locals_, bound, counts = [], [], []
        for pair in pairs:
            locals_.append(_tangents_zeroed(np.vstack([region.rows for region in pair.geometry]) @ pair.matrix,
                                            np.linalg.norm(pair.matrix, axis=0), tangent))
            bound.extend(region.bounds for region in pair.geometry)
            counts.extend(len(region.bounds) for region in pair.geometry)
        total = sum(len(local) for local in locals_)
        self.n = n
        self.A = _stacked(locals_, columns, n)
        # A region's bound moves by a turn's worth of each wrapping coordinate per turn.
        wrapping = wraps if wraps is not None and len(wraps) else np.zeros(0, int)
        per_turn = np.zeros((total, len(wrapping)))
        start = 0
        for local, where in zip(locals_, columns):
            for k, j in enumerate(wrapping):
                if j in where:
                    per_turn[start:start + len(local), k] = TURN * local[:, list(where).index(j)]
            start += len(local)
        self.per_turn = per_turn
        self.bound = np.concatenate(bound) if bound else np.zeros(0)
        self.count = np.array(counts, int)
        self.start = np.cumsum(self.count) - self.count
        self.regions = np.array([len(p.geometry) for p in pairs], int)
        self.base = np.cumsum(self.regions) - self.regions
        self.owner = np.repeat(np.repeat(np.arange(len(pairs)), self.regions), self.count)
        self.region = np.repeat(np.arange(len(self.count)) - np.repeat(self.base, self.regions), self.count)
        self._extents = tuple(np.ascontiguousarray(a, np.intp) for a in (self.regions, self.base, self.start, self.count))
        # A sparse table's arrays in the kernel's index type, once (rows_slack).
        self._csr = (self.A.indptr.astype(np.intp), self.A.indices.astype(np.intp), self.A.data) \
            if not isinstance(self.A, np.ndarray) else None
        # Each row's entries in its pair's columns (padded with zeros on a column past the
        # last): a few rows made dense without indexing the sparse matrix.
        width = max((len(where) for where in columns), default=0)
        self._entries = np.zeros((total, width))
        self._columns = np.full((total, width), n)
        start = 0
        for local, where in zip(locals_, columns):
            self._entries[start:start + len(local), :len(where)] = local
            self._columns[start:start + len(local), :len(where)] = where
            start += len(local)

    def indices(self, pairs: np.ndarray, regions: np.ndarray) -> np.ndarray:
        """Rows of region ``regions[k]`` of pair ``pairs[k]``, for every k, in order."""
        flat = self.base[pairs] + regions
        counts = self.count[flat]
        total = int(counts.sum())
        offsets = np.repeat(self.start[flat] - np.cumsum(counts) + counts, counts)
        return offsets + np.arange(total)

    def bounds(self, rows: np.ndarray, turns: tuple[int, ...]) -> np.ndarray:
        """Bounds of ``rows`` for regions ``turns`` turns along the wrapping coordinates."""
        if not turns:
            return self.bound[rows]
        return self.bound[rows] + self.per_turn[rows] @ np.array(turns, float)

    def slack(self, q: np.ndarray) -> np.ndarray:
        """Every row's slack at ``q``: negative where it is violated."""
        return self.bound - self.A @ q

    def slack_at(self, q: np.ndarray) -> np.ndarray | RowSlack:
        """The rows' slack at ``q``, to be indexed by the rows a step looks at: every row's
        when the table is dense (one small product), else a :class:`RowSlack` that
        computes only the rows asked for, with the bits of :meth:`slack`."""
        if self._csr is None:
            return self.slack(q)
        return RowSlack(*self._csr, self.bound, np.ascontiguousarray(q, float))

    def moved(self, slack: np.ndarray | RowSlack, changed: np.ndarray, alone: np.ndarray, tolerance: float,
              few: int) -> tuple[list[tuple[int, tuple[int, ...], bool]], list[int]]:
        """The pairs among ``changed`` (a mask) whose candidate regions a step must find again,
        from their regions' least slack (``slack``: :meth:`slack_at`'s); ``alone[p]`` is the
        region pair p was alone in, else -1. A pair of at most ``few`` regions is looked at
        whole: ``(p, the regions holding its point, whether it is near their boundary)``
        unless exactly one holds it, away from its boundary, and that is ``alone[p]``; a pair
        of more is listed (p) unless its point is strictly inside ``alone[p]``
        (:func:`cspace.kernels.slack.moved_pairs`, compiled: the same minima and comparisons)."""
        return moved_pairs(*_kernel_slack(slack), *self._extents, changed.view(np.uint8), alone, tolerance, few)

    def tight(self, slack: np.ndarray | RowSlack, pairs: np.ndarray, regions: np.ndarray,
              tolerance: float) -> np.ndarray:
        """The rows of region ``regions[k]`` of pair ``pairs[k]``, for every k in order, whose
        slack (:meth:`slack_at`'s) is at most ``tolerance`` (:func:`cspace.kernels.slack.tight_rows`)."""
        flat = np.asarray(self.base[pairs] + regions, np.intp)
        return tight_rows(*_kernel_slack(slack), self._extents[2], self._extents[3], flat, tolerance)

    def rates(self, rows: np.ndarray, velocity: np.ndarray, absolute: bool = False) -> np.ndarray:
        """How fast each of ``rows`` changes at ``velocity`` (``A[rows] @ velocity``; with
        ``absolute``, ``abs(A[rows]) @ velocity``), from the rows' few entries: no row of
        the sparse matrix is taken out."""
        padded = np.append(velocity, 0.0)
        entries = self._entries[rows]
        return np.einsum("ij,ij->i", np.abs(entries) if absolute else entries, padded[self._columns[rows]])

    def least(self, slack: np.ndarray | RowSlack, flat: np.ndarray) -> np.ndarray:
        """Per region (flat index ``base[p] + i``): its rows' least slack (``slack``:
        :meth:`slack_at`'s); negative outside it, about zero on its boundary. Only regions
        ``flat`` are measured (the others inf, as a region without rows)."""
        least = np.full(len(self.count), np.inf)
        flat = flat[self.count[flat] > 0]
        if len(flat):
            counts = self.count[flat]
            firsts = np.cumsum(counts) - counts
            rows = np.repeat(self.start[flat] - firsts, counts) + np.arange(int(counts.sum()))
            least[flat] = np.minimum.reduceat(slack[rows], firsts)
        return least

    def stacked(self, which: np.ndarray, below: np.ndarray) -> np.ndarray | sparse.csr_array:
        """Rows ``which`` of ``A`` with the dense rows ``below`` under them, dense or sparse as
        :meth:`rows` gives ``which``. The sparse stack is made from ``A``'s arrays directly:
        scipy's row indexing and stacking cost more than the rows of a large region."""
        A = self.A
        if isinstance(A, np.ndarray) or len(which) * self.n <= DENSE_LIMIT:
            return np.vstack([self.rows(which), below])
        from scipy import sparse

        starts = A.indptr[which]
        counts = A.indptr[which + 1] - starts
        entries = np.repeat(starts - np.cumsum(counts) + counts, counts) + np.arange(int(counts.sum()))
        r, c = np.nonzero(below)
        indptr = np.concatenate([[0], np.cumsum(counts), counts.sum() + np.cumsum(np.bincount(r, minlength=len(below)))])
        return sparse.csr_array((np.concatenate([A.data[entries], below[r, c]]),
                                 np.concatenate([A.indices[entries], c]), indptr),
                                shape=(len(which) + len(below), self.n))

    def rows(self, which: np.ndarray, dense: bool = False) -> np.ndarray | sparse.csr_array:
        """Rows ``which`` of ``A``: dense when asked or up to ``DENSE_LIMIT`` entries, sparse beyond."""
        if isinstance(self.A, np.ndarray):
            return self.A[which]
        if dense or len(which) * self.n <= DENSE_LIMIT:
            out = np.zeros((len(which), self.n + 1))
            out[np.arange(len(which))[:, None], self._columns[which]] = self._entries[which]
            return out[:, :self.n]
        return self.A[which]
