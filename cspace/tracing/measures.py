"""What the reports show that tracing did not compute on its way: each segment's irredundant
constraints (the paper's equation (1)), the mechanism's degrees of freedom (Table 2), the
pairwise regions each piece of path lies in (Figure 10) and what touches where a motion
stopped (what blocked an input).

They are computed here, in the tracing layer, from the analysis the trace was made of, each
when first asked for and then kept: the reports only format them, and solve no program.

>>> from cspace import analyze, load, trace
>>> result = trace(analyze(load("fixtures/feeder.toml")), until=1.0)
>>> result.measures.constraints(result.segments[0], 4)[:3]
['xb1 = 12', 'xb2 = 12', 'xb3 = 12']
"""

from __future__ import annotations

from functools import cached_property

import numpy as np

from ..kernels.constraints import ConstraintManager
from .analysis import Analysis
from .regions import RegionDiagram


class Measures:
    """The measures of one trace, made from its ``analysis`` and its path's ``pieces``."""

    def __init__(self, analysis: Analysis, pieces: tuple) -> None:
        self._analysis = analysis
        self._pieces = pieces
        self._constraints: dict[tuple[bytes, int], list[str]] = {}

    @cached_property
    def pairs(self) -> tuple[str, ...]:
        """The constraining pairs' names, in order (the columns of Figure 10)."""
        return tuple(p.name for p in self._analysis.constraining_pairs)

    def free(self, q: np.ndarray) -> bool:
        """Is configuration ``q`` (every coordinate, in mechanism order) in each constraining
        pair's free space, within the length tolerance?"""
        index = self._analysis.mechanism.coordinate_index
        tolerance = self._analysis.mechanism.tolerance.length
        for pair in self._analysis.constraining_pairs:
            values = np.array([q[index[name]] for name in pair.coordinates], dtype=float)
            if not pair.regions_at(pair.point(values, wrap=True), tolerance):
                return False
        return True

    def regions(self, key: tuple[int, ...]) -> dict[str, str]:
        """Names of the pairwise regions making up the mechanism region ``key``, by pair.

        >>> from cspace import analyze, load, trace
        >>> t = trace(analyze(load("fixtures/feeder.toml")), until=1.0)
        >>> t.measures.regions(t.pieces[0].key)["piston/block1"]
        'r5'
        """
        return {pair.name: pair.geometry[i].name for pair, i in zip(self._analysis.constraining_pairs, key)}

    def constraints(self, segment, decimals: int) -> list[str]:
        """The irredundant constraints of the region a segment starts in, as text with up to
        ``decimals`` decimals (segments starting in one region share them)."""
        region = self._diagram.reported(segment.pieces[0].key, segment.start)
        key = (region.signature(), decimals)
        if key not in self._constraints:
            names = [c.name for c in self._analysis.mechanism.coordinates]
            self._constraints[key] = region.constraints(self._manager, names, decimals, segment.start)
        return self._constraints[key]

    def touching(self, q: np.ndarray) -> frozenset:
        """Every contact and stop (a coordinate on one of its limits) holding at ``q``, as the
        pair spaces tell (a pair whose point lies in none of its regions tells none).

        >>> from cspace import analyze, load, trace
        >>> t = trace(analyze(load("fixtures/lever.toml")))
        >>> sorted(map(str, t.measures.touching(t.segments[-1].finish)))
        ['a at upper limit 1.5']
        """
        q = np.asarray(q, float)
        layout, tolerance = self._analysis.layout, self._analysis.mechanism.tolerance.length
        points = layout.points @ layout.wrapped(q)[0]
        found = set()
        for p, pair in enumerate(self._analysis.constraining_pairs):
            point = points[layout.slices[p]:layout.slices[p + 1]]
            for region in pair.regions_at(point, tolerance):
                found |= pair.contacts_in(region, point, tolerance)
        tight = layout.limit_h - layout.limit_rows @ q <= layout.limit_tol
        return frozenset(found | {stop for stop, hit in zip(layout.limit_stops, tight) if hit})

    @cached_property
    def degrees_of_freedom(self) -> int:
        """Largest dimension of a traversed region, less one per linkage (paper Table 2).

        A region's dimension is the coordinates' number less the rank of its implicit
        equalities: the rows no point of the region leaves slack on. Shortest paths decide
        them in a region of differences (a translating mechanism's); otherwise the trace's
        own configurations in the region clear most rows, and a few programs the rest
        (:meth:`~cspace.kernels.constraints.ConstraintManager.equalities`). Regions whose points
        spread along the most coordinates come first, and the search stops at the most a
        region can have (every coordinate free): the rim lock's 731 regions need one."""
        points: dict[tuple, list[np.ndarray]] = {}
        for piece in self._pieces:
            points.setdefault(piece.key, []).extend(piece.configs)
        linkages = len(self._analysis.linkage_tables)
        most = len(self._analysis.mechanism.coordinates) - linkages
        spread = {key: int(np.count_nonzero(np.ptp(np.asarray(seen), axis=0))) for key, seen in points.items()}
        best = 0
        for key in sorted(points, key=lambda k: -spread[k]):  # stable: first traversed first among equals
            region = self._diagram.region(key)
            equalities = region.rows(self._manager.equalities(region.G, region.h, region.tolerances,
                                                              np.asarray(points[key])))
            rank = np.linalg.matrix_rank(equalities) if len(equalities) else 0
            best = max(best, int(region.G.shape[1] - rank - linkages))
            if best == most:
                break
        return best

    @cached_property
    def _diagram(self) -> RegionDiagram:
        return RegionDiagram(self._analysis)

    @cached_property
    def _manager(self) -> ConstraintManager:
        return ConstraintManager(self._analysis.mechanism.tolerance.lp)

    def __repr__(self) -> str:
        return f"Measures({self._analysis.mechanism.name!r}, pairs={len(self.pairs)})"
