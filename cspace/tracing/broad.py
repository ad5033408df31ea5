"""The broad phase of a step: which of the active pairs' rows the step's region needs.

A step sees the pairs among parts that may move (the *active* pairs). In a large
mechanism most of them are far from every boundary of their pairwise region, and most
of those keep their point where it is (a falling stack moves its blocks together, a
pushed block leaves the blocks at rest alone). The step's region is built from:

1. :func:`near`: the pairs that may have tight rows (touching, on a boundary between
   their regions, or within ``margin`` of one). The velocity programs and the mode read
   only tight rows, so they see the same rows, in the same order, as with every active
   pair.
2. :func:`changing` and :func:`meeting`: once the motion is known, the rows of the other
   active pairs that it changes (a row ``g`` changes along ``q + a v0 + b w`` only if
   ``g @ v0`` or ``g @ w`` is not zero), and of those the ones the path, first followed
   on the near rows, could bring within ``margin`` of their bound (each coordinate's
   largest excursion through the row's entries). The tracer
   (:meth:`cspace.tracing.tracer.Tracer._mode_and_path`) adds their pairs and follows the
   path again: more rows only end it sooner, so the rows left out stay clear.

A pair is left out only when it can meet nothing in this step: the test is on the
path's own length, not on a guessed reach; ``tests/test_broad.py`` shows a naive one
(the rows' tolerance) letting a part through.

It runs only where a step has more than ``FROM_PAIRS`` active pairs: below, reading every
pair costs less than deciding which to leave out and following the path twice (the
feeder's trace took a quarter longer with it).
"""

from __future__ import annotations

import numpy as np

from .layout import RegionLayout
from .regions import Choices

FROM_PAIRS = 64  # active pairs in a step from which the broad phase leaves some out


def near(layout: RegionLayout, choices: Choices, active: np.ndarray, margin: float) -> np.ndarray:
    """Mask of the ``active`` pairs that may have a tight row at the configuration of
    ``choices``: touching, with several candidate regions (on a boundary between them), or
    with a row of their region within ``margin`` of its bound.

    ``margin`` must be above the rows' tolerance (the slack of ``choices`` and a region's
    own differ by rounding).
    """
    table = layout.table
    found = active & (choices.touching | choices.several)
    alone = np.flatnonzero(active & ~found)
    flat = table.base[alone] + choices.first[alone]
    room = table.least(choices.slack, flat)[flat]
    found[alone[room <= margin]] = True
    return found


def changing(layout: RegionLayout, choices: Choices, active: np.ndarray, near: np.ndarray,
             directions: list[np.ndarray]) -> np.ndarray:
    """Rows (of the layout's table) of the ``active`` pairs outside ``near``, in the region
    of ``choices``, that one of ``directions`` (velocities over the mechanism's
    coordinates) changes: the only rows of those pairs a motion along them can bring to
    their bound."""
    table = layout.table
    # Only a pair whose point moves can have a row that changes (to more than rounding,
    # far below any row's rate tolerance): one product gives every pair's point's velocity.
    moved = np.zeros(len(active), bool)
    for direction in directions:
        moved[layout.point_owner[layout.points @ direction != 0]] = True
    far = np.flatnonzero(active & ~near & moved)
    rows = table.indices(far, choices.first[far])
    change = np.zeros(len(rows), bool)
    for direction in directions:
        change |= table.rates(rows, direction) != 0
    return rows[change]


def meeting(layout: RegionLayout, choices: Choices, rows: np.ndarray, path: np.ndarray | None,
            margin: float) -> np.ndarray:
    """Mask of the pairs owning one of ``rows`` that the ``path`` (configurations, one a
    row, the first where ``choices`` were found) may bring within ``margin`` of its
    bound: each coordinate's largest excursion along the path, through the row's
    entries. Without a path (its length unknown), every owner."""
    table = layout.table
    found = np.zeros(len(layout.pairs), bool)
    if path is None:
        found[table.owner[rows]] = True
        return found
    excursion = np.abs(path - path[0]).max(axis=0)
    reach = table.rates(rows, excursion, absolute=True)
    found[table.owner[rows[reach >= choices.slack[rows] - margin]]] = True
    return found
