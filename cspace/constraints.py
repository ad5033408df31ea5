"""The constraint manager: linear programs on HiGHS (highspy).

It answers the questions the paper's constraint manager answered (section 4.2.1):
is a set of linear constraints feasible, what bounds does it imply on a variable,
which constraints are redundant; and it solves the velocity programs of simple
dynamics (:mod:`cspace.dynamics`). Every solve is counted for the statistics.

highspy is used directly rather than through ``scipy.optimize.linprog``: the same
solver, without scipy's per-call validation, which dominated these tiny programs.
"""

from __future__ import annotations

from dataclasses import dataclass

import highspy
import numpy as np

INFEASIBLE = "infeasible"
OPTIMAL = "optimal"
UNBOUNDED = "unbounded"


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
    """Linear programming for cspace; one HiGHS instance, reused.

    >>> cm = ConstraintManager(1e-9)
    >>> cm.bounds(np.array([[1.0, 1.0], [-1.0, 0.0], [0.0, -1.0]]), np.array([4.0, 0.0, -1.0]), 0)
    (0.0, 3.0)
    """

    def __init__(self, tolerance: float) -> None:
        self.tolerance = tolerance
        self.solves = 0
        self._highs = highspy.Highs()
        self._highs.setOptionValue("output_flag", False)
        self._highs.setOptionValue("threads", 1)
        # Presolve buys nothing on programs this small and blurs infeasible vs unbounded.
        self._highs.setOptionValue("presolve", "off")
        self._highs.setOptionValue("primal_feasibility_tolerance", tolerance)
        self._highs.setOptionValue("dual_feasibility_tolerance", tolerance)

    def solve(self, cost: np.ndarray, rows: np.ndarray, lower: np.ndarray, upper: np.ndarray,
              var_lower: np.ndarray, var_upper: np.ndarray) -> LpResult:
        """Minimize ``cost @ x`` subject to ``lower <= rows @ x <= upper`` and variable bounds.

        Infinite entries in the bound arrays mean no bound.
        """
        self.solves += 1
        n = len(cost)
        m = rows.shape[0]
        lp = highspy.HighsLp()
        lp.num_col_ = n
        lp.num_row_ = m
        lp.col_cost_ = np.asarray(cost, float)
        lp.col_lower_ = _inf(var_lower)
        lp.col_upper_ = _inf(var_upper)
        lp.row_lower_ = _inf(lower)
        lp.row_upper_ = _inf(upper)
        matrix = np.asarray(rows, float).reshape(m, n)
        nonzero = matrix != 0
        lp.a_matrix_.format_ = highspy.MatrixFormat.kRowwise
        lp.a_matrix_.start_ = np.concatenate([[0], np.cumsum(nonzero.sum(axis=1))]).astype(np.int32)
        lp.a_matrix_.index_ = np.nonzero(nonzero)[1].astype(np.int32)
        lp.a_matrix_.value_ = matrix[nonzero]
        highs = self._highs
        highs.clearModel()
        highs.passModel(lp)
        highs.run()
        status = highs.getModelStatus()
        if status == highspy.HighsModelStatus.kOptimal:
            x = np.array(highs.getSolution().col_value)
            return LpResult(OPTIMAL, x, float(cost @ x))
        if status == highspy.HighsModelStatus.kUnbounded:
            return LpResult(UNBOUNDED, None, -np.inf)
        return LpResult(INFEASIBLE, None, np.inf)

    def feasible(self, G: np.ndarray, h: np.ndarray) -> bool:
        """Does some x satisfy ``G @ x <= h``?"""
        n = G.shape[1]
        result = self.solve(np.zeros(n), G, np.full(len(h), -np.inf), h + self.tolerance,
                            np.full(n, -np.inf), np.full(n, np.inf))
        return result.ok

    def bounds(self, G: np.ndarray, h: np.ndarray, j: int) -> tuple[float, float]:
        """Smallest and largest value of variable ``j`` subject to ``G @ x <= h``."""
        n = G.shape[1]
        cost = np.zeros(n)
        out = []
        for sign in (1.0, -1.0):
            cost[j] = sign
            result = self.solve(cost, G, np.full(len(h), -np.inf), h, np.full(n, -np.inf), np.full(n, np.inf))
            if result.status == UNBOUNDED:
                out.append(-sign * np.inf)
            elif not result.ok:
                raise ValueError("bounds of an infeasible constraint set")
            else:
                out.append(sign * result.objective)
        return out[0], out[1]

    def essential(self, G: np.ndarray, h: np.ndarray) -> list[int]:
        """Indices of the rows of ``G @ x <= h`` that are not implied by the others.

        Duplicates keep their first copy; a row is redundant when maximizing it over
        the remaining rows cannot exceed its bound.
        """
        keep = []
        seen: set[tuple] = set()
        for i, (g, b) in enumerate(zip(G, h)):
            signature = tuple(np.round(np.append(g, b), 12))
            if signature not in seen:
                seen.add(signature)
                keep.append(i)
        essential = []
        n = G.shape[1]
        for i in keep:
            others = [k for k in keep if k != i and (k in essential or k > i)]
            result = self.solve(-G[i], G[others], np.full(len(others), -np.inf), h[others],
                                np.full(n, -np.inf), np.full(n, np.inf))
            # The solver may overshoot each row by its tolerance; count that as tight.
            margin = 100 * self.tolerance * (1 + abs(h[i]))
            if not result.ok or -result.objective > h[i] + margin:
                essential.append(i)
        return essential


def _inf(values) -> np.ndarray:
    out = np.asarray(values, float).copy()
    out[out == np.inf] = highspy.kHighsInf
    out[out == -np.inf] = -highspy.kHighsInf
    return out
