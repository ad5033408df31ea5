"""The constraint manager: linear programs on HiGHS (highspy).

It answers the questions the paper's constraint manager answered (section 4.2.1):
is a set of linear constraints feasible, what bounds does it imply on a variable,
which constraints are redundant; and it solves the velocity programs of simple
dynamics (:mod:`cspace.tracing.dynamics`). Every solve is counted for the statistics.

highspy is used directly rather than through ``scipy.optimize.linprog``, and models
are passed as plain arrays: the same solver, without the per-call Python overhead
that dominated these tiny programs (a solve is ~0.1 ms). Programs of at most four
unknowns, nearly all of a trace's, are solved without HiGHS, by enumerating their
vertices (:mod:`cspace.kernels.vertices`), to HiGHS's answer; HiGHS answers where that
declines (optimal points that tie, when the caller uses the point). The instance is highspy's
core class ``_Highs`` (exported by highspy since 1.7.2): the ``Highs`` subclass enables
callbacks in its constructor, which makes HiGHS print its banner to standard output
before ``output_flag`` can be turned off, and cspace's reports go to standard output.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np

from . import vertices
from .differences import DifferenceGraph, Differences
from .vertices import INFEASIBLE, OPTIMAL, UNBOUNDED

if TYPE_CHECKING:
    import highspy
    from scipy import sparse

SLACK_CAP = 1.0  # largest slack a row is credited with when the implicit equalities are sought
WARM_ROWS = 8  # a redundancy test of this many rows or more keeps one model and warm-starts its programs


@dataclass(frozen=True)
class LpResult:
    """Outcome of one linear program: status, solution and objective value."""

    status: str
    x: np.ndarray | None
    objective: float

    @property
    def ok(self) -> bool:
        return self.status == OPTIMAL

    def __repr__(self) -> str:
        return f"LpResult({self.status!r}, objective={self.objective:.6g})"


class ConstraintManager:
    """Linear programming for cspace; one HiGHS instance, reused. Programs of at most
    ``small`` unknowns (by default :data:`cspace.kernels.vertices.MAX_UNKNOWNS`) are solved
    by enumerating their vertices where that gives HiGHS's answer
    (:mod:`cspace.kernels.vertices`); ``small=0`` sends every program to HiGHS.

    >>> cm = ConstraintManager(1e-9)
    >>> cm.bounds(np.array([[1.0, 1.0], [-1.0, 0.0], [0.0, -1.0]]), np.array([4.0, 0.0, -1.0]), 0)
    (0.0, 3.0)
    """

    def __init__(self, tolerance: float, small: int | None = None) -> None:
        self.tolerance = tolerance
        self.small = vertices.MAX_UNKNOWNS if small is None else small
        self.solves = 0

    @cached_property
    def _highs(self) -> highspy._Highs:
        """The HiGHS instance, made (and highspy imported) when a program first needs it: a
        trace whose programs are all small needs none."""
        import highspy

        highs = highspy._Highs()
        highs.setOptionValue("output_flag", False)
        highs.setOptionValue("threads", 1)
        # Presolve buys nothing on programs this small and blurs infeasible vs unbounded;
        # plain simplex starts fastest on them.
        highs.setOptionValue("presolve", "off")
        highs.setOptionValue("solver", "simplex")
        highs.setOptionValue("primal_feasibility_tolerance", self.tolerance)
        highs.setOptionValue("dual_feasibility_tolerance", self.tolerance)
        return highs

    def solve(self, cost: np.ndarray, rows: np.ndarray, lower: np.ndarray, upper: np.ndarray,
              var_lower: np.ndarray, var_upper: np.ndarray, point: bool = True) -> LpResult:
        """Minimize ``cost @ x`` subject to ``lower <= rows @ x <= upper`` and variable bounds.

        Infinite entries in the bound arrays mean no bound. ``point=False`` says the caller
        uses the status and objective only: then the solution given may be another of the
        optimal points than HiGHS's, where several are.
        """
        self.solves += 1
        if len(cost) <= self.small:
            found = vertices.solve(cost, rows, lower, upper, var_lower, var_upper, self.tolerance, point)
            if found is not None:
                return LpResult(*found)
        return self._solve_highs(cost, rows, lower, upper, var_lower, var_upper)

    def _solve_highs(self, cost: np.ndarray, rows: np.ndarray, lower: np.ndarray, upper: np.ndarray,
                     var_lower: np.ndarray, var_upper: np.ndarray) -> LpResult:
        """:meth:`solve` by HiGHS, on a fresh model."""
        import highspy

        n = len(cost)
        matrix = np.asarray(rows, float).reshape(-1, n)
        nonzero = matrix != 0
        starts = np.zeros(len(matrix) + 1, dtype=np.int32)
        np.cumsum(nonzero.sum(axis=1), out=starts[1:])
        highs = self._highs
        highs.clearModel()
        highs.passModel(n, len(matrix), int(starts[-1]), int(highspy.MatrixFormat.kRowwise),
                        int(highspy.ObjSense.kMinimize), 0.0,
                        np.asarray(cost, float), _floats(var_lower), _floats(var_upper), _floats(lower), _floats(upper),
                        starts, np.nonzero(nonzero)[1].astype(np.int32), matrix[nonzero],
                        np.zeros(n, dtype=np.int32))
        status = self._run()
        if status == highspy.HighsModelStatus.kOptimal:
            x = np.array(highs.getSolution().col_value)
            return LpResult(OPTIMAL, x, float(cost @ x))
        if status == highspy.HighsModelStatus.kUnbounded:
            return LpResult(UNBOUNDED, None, -np.inf)
        return LpResult(INFEASIBLE, None, np.inf)

    def _run(self) -> highspy.HighsModelStatus:
        """Solve the model passed; the simplex alone can stall on degenerate programs (an
        all-zero row, say), and presolve settles them."""
        import highspy

        highs = self._highs
        highs.run()
        status = highs.getModelStatus()
        if status == highspy.HighsModelStatus.kUnknown:
            highs.setOptionValue("presolve", "on")
            highs.clearSolver()
            highs.run()
            highs.setOptionValue("presolve", "off")
            status = highs.getModelStatus()
        return status

    def feasible(self, G: np.ndarray, h: np.ndarray) -> bool:
        """Does some x satisfy ``G @ x <= h``?"""
        n = G.shape[1]
        result = self.solve(np.zeros(n), G, np.full(len(h), -np.inf), h + self.tolerance,
                            np.full(n, -np.inf), np.full(n, np.inf), point=False)
        return result.ok

    def bounds(self, G: np.ndarray, h: np.ndarray, j: int) -> tuple[float, float]:
        """Smallest and largest value of variable ``j`` subject to ``G @ x <= h``."""
        n = G.shape[1]
        cost = np.zeros(n)
        out = []
        for sign in (1.0, -1.0):
            cost[j] = sign
            result = self.solve(cost, G, np.full(len(h), -np.inf), h, np.full(n, -np.inf), np.full(n, np.inf),
                                point=False)
            if result.status == UNBOUNDED:
                out.append(-sign * np.inf)
            elif not result.ok:
                raise ValueError("bounds of an infeasible constraint set")
            else:
                out.append(sign * result.objective)
        return out[0], out[1]

    def essential(self, G: np.ndarray | sparse.csr_array, h: np.ndarray, point: np.ndarray | None = None) -> list[int]:
        """Indices of the rows of ``G @ x <= h`` (G dense or sparse) that are not implied by the others.

        Duplicates keep their first copy; a row is redundant when maximizing it over
        the remaining rows cannot exceed its bound. Given a ``point`` of the system, a
        system of differences of two variables (or one variable), as a translating
        mechanism's regions are, is reduced by shortest paths alone
        (:meth:`DifferenceGraph.essential`; where rows imply one another in a cycle, the
        equalities, it chooses among them as it says); otherwise such rows are first
        tested against the others of their kind by a shortest path (:class:`Differences`)
        and a program is solved only when no path settles one, with the programs' answer.
        """
        if point is not None and len(h) >= WARM_ROWS:
            graph = DifferenceGraph(G, h, point, 100 * self.tolerance * (1 + np.abs(h)))
            if graph.complete:
                return graph.essential()
        G = G if isinstance(G, np.ndarray) else G.toarray()
        signatures = np.round(np.column_stack([G, h]), 12) + 0.0  # + 0.0: -0.0 is 0.0, as in a comparison
        first: dict[bytes, int] = {}
        for i, signature in enumerate(signatures):
            first.setdefault(signature.tobytes(), i)
        keep = sorted(first.values())
        if len(keep) >= WARM_ROWS:
            return self._essential_warm(G, h, keep, point)
        essential = []
        n = G.shape[1]
        for i in keep:
            others = [k for k in keep if k != i and (k in essential or k > i)]
            result = self.solve(-G[i], G[others], np.full(len(others), -np.inf), h[others],
                                np.full(n, -np.inf), np.full(n, np.inf), point=False)
            # The solver may overshoot each row by its tolerance; count that as tight.
            margin = 100 * self.tolerance * (1 + abs(h[i]))
            if not result.ok or -result.objective > h[i] + margin:
                essential.append(i)
        return essential

    def equalities(self, G: np.ndarray | sparse.csr_array, h: np.ndarray, tolerances: np.ndarray,
                   points: np.ndarray | None = None) -> np.ndarray:
        """Mask of the implicit equalities of ``G @ x <= h`` (G dense or sparse): the rows no
        point leaves more than its tolerance of slack on. ``points`` (configurations, one
        per row of the array), such as a trace's, clear the rows they leave slack on if
        they are points of the system (within the tolerances; others are passed over); and
        when every row bounds a difference of two variables (or one), shortest paths from
        the first that is one decide the rows (:meth:`DifferenceGraph.equalities`), leaving to
        programs only those too close to tell.

        A few programs decide the rest: each maximizes the rows' slacks (each capped at
        ``SLACK_CAP``) summed over the rows in doubt, and clears those its point leaves
        slack on; when one clears none, the rows left are equalities if the largest sum is
        within their tolerance, and are otherwise decided one program each (minimizing the
        row over the others). The answer is that of one program per row.

        >>> G = np.array([[1.0, 0.0], [-1.0, 0.0], [0.0, 1.0], [0.0, -1.0]])
        >>> ConstraintManager(1e-10).equalities(G, np.array([1.0, -1.0, 1.0, 0.0]), np.full(4, 1e-9)).tolist()
        [True, True, False, False]
        """
        m, n = G.shape
        doubt = np.ones(m, bool)
        known = np.zeros(m, bool)
        points = np.zeros((0, n)) if points is None else np.asarray(points, float).reshape(-1, n)
        first = next((p for p in points if np.all(h - G @ p >= -tolerances)), None)
        if first is not None and m:
            graph = DifferenceGraph(G, h, first, np.zeros(m))
            if graph.complete:
                verdict = graph.equalities(tolerances)
                known = verdict == 1
                doubt = verdict == -1
            if doubt.any():
                slack = h[None, :] - (G @ points.T).T
                inside = np.all(slack >= -tolerances, axis=1)
                doubt &= ~np.any(slack[inside] > tolerances, axis=0)
        G = G.toarray() if not isinstance(G, np.ndarray) and doubt.any() else G
        while doubt.any():
            rows = np.flatnonzero(doubt)
            slack = np.zeros((m, len(rows)))
            slack[rows, np.arange(len(rows))] = 1.0
            cost = np.concatenate([np.zeros(n), -np.ones(len(rows))])
            result = self.solve(cost, np.hstack([G, slack]), np.full(m, -np.inf), h,
                                np.concatenate([np.full(n, -np.inf), np.zeros(len(rows))]),
                                np.concatenate([np.full(n, np.inf), np.full(len(rows), SLACK_CAP)]))
            if not result.ok:
                break
            cleared = h - G @ result.x[:n] > tolerances
            if (cleared & doubt).any():
                doubt &= ~cleared
                continue
            if -result.objective <= tolerances[doubt].min():
                return doubt | known
            break
        for r in np.flatnonzero(doubt):
            others = np.delete(np.arange(m), r)
            result = self.solve(G[r], G[others], np.full(m - 1, -np.inf), h[others], np.full(n, -np.inf),
                                np.full(n, np.inf), point=False)
            if not (result.ok and h[r] - result.objective <= tolerances[r]):
                doubt[r] = False
        return doubt | known

    def _essential_warm(self, G: np.ndarray, h: np.ndarray, keep: list[int], point: np.ndarray | None) -> list[int]:
        """:meth:`essential` for many rows: the same programs, on one model, each from the
        last one's basis. A row is dropped for its own program by lifting its bound, and
        stays dropped if it is implied (later rows are tested against the essential ones
        and those after them, as in :meth:`essential`). The model is made when the first
        program is needed (often none is, the paths settling every row)."""
        import highspy

        rows = np.asarray(G[keep], float)
        m, n = rows.shape
        margins = 100 * self.tolerance * (1 + np.abs(h[keep]))
        paths = Differences(rows, h[keep], point, margins) if point is not None else None
        upper = _floats(h[keep])                   # each row's bound as the programs see it now
        infinite = np.inf
        highs = None
        columns = np.arange(n, dtype=np.int32)
        essential = []
        for position, i in enumerate(keep):
            upper[position] = infinite
            if highs is not None:
                highs.changeRowBounds(position, -infinite, infinite)
            settled = paths.settle(position) if paths is not None else None
            if settled is None:
                if highs is None:
                    highs = self._model(rows, upper)
                cost = -rows[position]
                highs.changeColsCost(n, columns, cost)
                self.solves += 1
                if self._run() == highspy.HighsModelStatus.kOptimal:
                    x = np.array(highs.getSolution().col_value)
                    settled = -float(cost @ x) > h[i] + margins[position]
                else:
                    settled = True
            if settled:
                essential.append(i)
                upper[position] = float(h[i])
                if highs is not None:
                    highs.changeRowBounds(position, -infinite, float(h[i]))
            elif paths is not None:
                paths.drop(position)
        return essential

    def _model(self, rows: np.ndarray, upper: np.ndarray) -> highspy._Highs:
        """The HiGHS model of ``rows @ x <= upper``, free variables, passed and ready."""
        import highspy

        m, n = rows.shape
        nonzero = rows != 0
        starts = np.zeros(m + 1, dtype=np.int32)
        np.cumsum(nonzero.sum(axis=1), out=starts[1:])
        infinite = np.inf
        highs = self._highs
        highs.clearModel()
        highs.passModel(n, m, int(starts[-1]), int(highspy.MatrixFormat.kRowwise), int(highspy.ObjSense.kMinimize),
                        0.0, np.zeros(n), np.full(n, -infinite),
                        np.full(n, infinite), np.full(m, -infinite), upper.copy(), starts,
                        np.nonzero(nonzero)[1].astype(np.int32), rows[nonzero], np.zeros(n, dtype=np.int32))
        return highs


def implied_bounds(G: np.ndarray, h: np.ndarray, sweeps: int = 16) -> tuple[np.ndarray, np.ndarray]:
    """Bounds on every variable implied by ``G @ x <= h``, by interval propagation (no LP).

    Each row bounds each of its variables given the others' current bounds; sweeps
    repeat until nothing tightens. The bounds are valid, and exact when variables are
    bounded row by row in terms of already bounded ones, as in the regions of a
    mechanism (the paper's BOUNDER reasoned this way); they may be looser than
    :meth:`ConstraintManager.bounds` otherwise.

    >>> implied_bounds(np.array([[1.0, 0.0], [-1.0, 0.0], [-1.0, 1.0]]), np.array([12.0, -12.0, 4.0]))[1]
    array([12., 16.])
    """
    m, n = G.shape
    lower, upper = np.full(n, -np.inf), np.full(n, np.inf)
    rows, columns = np.nonzero(G)                  # the terms, row by row: a region's rows have few
    g = G[rows, columns]
    positive = g > 0
    wide = np.flatnonzero((G != 0).sum(axis=1) > 2)  # summed densely, in numpy's own order, as they were
    for _ in range(sweeps):
        # Smallest value each term can take, and how many terms are unbounded below.
        with np.errstate(invalid="ignore"):
            least = g * np.where(positive, lower[columns], upper[columns])
        unbounded = np.isinf(least)
        finite = np.where(unbounded, 0.0, least)
        finite_sum = np.bincount(rows, weights=finite, minlength=m)
        if len(wide):
            dense = np.zeros((len(wide), n))
            mine = np.isin(rows, wide)
            dense[np.searchsorted(wide, rows[mine]), columns[mine]] = finite[mine]
            finite_sum[wide] = dense.sum(axis=1)
        count = np.bincount(rows, weights=unbounded, minlength=m)
        # Room left for each term: h minus the others' least values (only if they are all finite).
        others = finite_sum[rows] - finite
        usable = (count[rows] == 0) | ((count[rows] == 1) & unbounded)
        room = np.where(usable, h[rows] - others, np.inf)
        with np.errstate(divide="ignore", invalid="ignore"):
            limit = room / g
        new_upper, new_lower = np.full(n, np.inf), np.full(n, -np.inf)
        np.minimum.at(new_upper, columns[positive], limit[positive])
        np.maximum.at(new_lower, columns[~positive], limit[~positive])
        tighter_upper, tighter_lower = np.minimum(upper, new_upper), np.maximum(lower, new_lower)
        if np.array_equal(tighter_upper, upper) and np.array_equal(tighter_lower, lower):
            break
        lower, upper = tighter_lower, tighter_upper
    return lower, upper


def _floats(values) -> np.ndarray:
    """``values`` as a new float array, as HiGHS takes bounds: its infinity is IEEE's
    (``highspy.kHighsInf``, tested)."""
    return np.array(values, float)
