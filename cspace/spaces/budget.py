"""How much memory an analysis and its trace will take, estimated from the input before the work.

:func:`estimate` reads only the mechanism and its interacting pairs (found from the parts'
swept boxes, cheap next to building their spaces), so an input too large for the machine is
refused before any heavy work (:func:`check_memory`, raising :class:`~cspace.model.errors.BudgetError`):
``cspace trace --max-memory 4G``; :func:`cspace.tracing.analysis.analyze` takes ``max_memory``.

What drives the peak (measured with ``tools/calibrate_budget.py``, the numbers in README):

* **the process**: Python with numpy, shapely and rtree loaded (scipy and HiGHS where a mechanism needs them), ``BASE``;
* **a pair with a turning part**: its sweep solves the contact curves at batches of
  placements, about 100 bytes per placement and vertex of both flattened outlines, a batch at
  most ``rotation.BATCH`` of them; with the samples and regions kept, a pair takes
  ``TURNING_PAIR`` plus ``TURNING_VERTEX`` per vertex (one pair at a time in a process: the
  largest counts, once per worker process that may build one at once);
* **a translating pair**: its Minkowski sums and free-space decomposition grow with the product
  of the two outlines' edge counts, ``TRANSLATING_EDGE_PAIR`` per product (pairs of the same
  shapes share one space, so each distinct pair of shapes counts once);
* **the trace**: the mechanism regions it keeps (``regions.REGION_CACHE``), the memos of its
  velocity programs and the path; each grows with the rows of a mechanism region, about one per
  constraining pair (``ROWS_PER_PAIR``), ``TRACE_ROW`` per row for a trace long enough to fill
  them. A 496-block feeder has 123,753 pairs: 11 GB estimated, 12 GB measured.

Measured peaks over the estimate run from 0.9 (small mechanisms: the process alone) to 2.5
(small turning pairs, whose sweeps stay well under a batch): an over-estimate rather than an
under one. ``tests/test_budget.py`` holds mechanisms of each kind within ``FACTOR`` of their
measured peaks. Time is not estimated: long work shows progress instead (``progress=``).
"""

from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass

from ..model.errors import BudgetError
from ..model.mechanism import Mechanism, Part
from .linkage import solve_linkage
from .pairs import coordinate_ranges, interacting_pairs

BASE = 55e6  # bytes: the interpreter with the libraries cspace loads (51 MB measured for the feeder, 2026-11-27)
TURNING_PAIR = 90e6  # bytes: a turning pair's sweep batch and what it keeps, at most
TURNING_VERTEX = 20e3  # bytes per flattened vertex of a turning pair's two outlines
TRANSLATING_EDGE_PAIR = 1.8e3  # bytes per (edge of one, edge of the other) of a distinct translating pair
TRACE_ROW = 80e3  # bytes per row of a mechanism region, over a long trace
ROWS_PER_PAIR = 1.1  # rows a constraining pair adds to a mechanism region, on average
LAPTOP = 8e9  # bytes: the command line's default bound (see laptop_bound)
FACTOR = 3.0  # the estimate is within this factor of the measured peak (tests/test_budget.py)
UNITS = {"": 1, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}


@dataclass(frozen=True)
class Estimate:
    """Bytes of peak memory, in all and by what takes them (``parts``: name, bytes)."""

    total: float
    parts: tuple[tuple[str, float], ...]

    def __str__(self) -> str:
        """``about 11 GB (the trace over 123753 pairs: 11 GB)``: the total and its largest part."""
        name, size = max(self.parts, key=lambda p: p[1])
        return f"about {size_text(self.total)} ({name}: {size_text(size)})"


def estimate(mechanism: Mechanism, pairs: list[tuple[str, str]], workers: int = 1) -> Estimate:
    """The peak memory analysing and tracing ``mechanism`` will take, from its ``pairs`` (the
    interacting pairs, :func:`cspace.spaces.pairs.interacting_pairs`) and how many ``workers``
    processes may build turning pairs at once.

    >>> from cspace.io.loader import load
    >>> m = load("fixtures/feeder.toml")
    >>> str(estimate(m, [("frame", "piston"), ("piston", "block1")]))
    'about 55.9 MB (the process: 55 MB)'
    """
    tol = mechanism.tolerance
    angles = {c.name for c in mechanism.coordinates if c.is_angle}
    turning, products = [], {}
    for a, b in pairs:
        part_a, part_b = mechanism.part(a), mechanism.part(b)
        if angles & set(part_a.coordinates + part_b.coordinates):
            vertices = _vertices(part_a, tol.rotation_arc) + _vertices(part_b, tol.rotation_arc)
            turning.append(TURNING_PAIR + TURNING_VERTEX * vertices)
        else:
            products[_shape_key(part_a), _shape_key(part_b)] = _vertices(part_a, tol.arc) * _vertices(part_b, tol.arc)
    rows = ROWS_PER_PAIR * len(pairs) + len(mechanism.coordinates)
    parts = (("the process", BASE),
             ("turning pair spaces", float(sum(sorted(turning, reverse=True)[:max(1, workers)]))),
             ("translating pair spaces", TRANSLATING_EDGE_PAIR * float(sum(products.values()))),
             (f"the trace over {len(pairs)} pairs", TRACE_ROW * rows if pairs else 0.0))
    return Estimate(sum(size for _, size in parts), parts)


def mechanism_pairs(mechanism: Mechanism) -> list[tuple[str, str]]:
    """The interacting pairs of a mechanism, as :func:`cspace.tracing.analysis.analyze` finds them
    (its linkages solved for their outputs' ranges): what :func:`estimate` needs."""
    tables = {linkage.name: solve_linkage(mechanism, linkage) for linkage in mechanism.linkages}
    return interacting_pairs(mechanism, coordinate_ranges(mechanism, tables))


def check_memory(found: Estimate, max_memory: float | None, *, file: str | None = None) -> None:
    """Refuse, in one line naming the estimate, work whose estimate exceeds ``max_memory`` bytes
    (None: no bound)."""
    if max_memory is not None and found.total > max_memory:
        raise BudgetError(f"its analysis and trace would take {found} of memory, more than the bound of "
                          f"{size_text(max_memory)}: raise the bound if the machine has the memory", file=file, field="memory")


def laptop_bound() -> float:
    """The command line's default bound: ``LAPTOP`` (8 GB), or half this machine's physical
    memory where that is less (what a laptop shared with a browser and an editor can give)."""
    try:
        physical = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return LAPTOP
    return min(LAPTOP, physical / 2) if physical > 0 else LAPTOP


def parse_size(text: str) -> float:
    """Bytes from ``4G``, ``512M``, ``2.5G``, ``1e9`` (units 1000-based: K, M, G, T; a B after is allowed).

    >>> parse_size("4G"), parse_size("512MB"), parse_size("1e9")
    (4000000000.0, 512000000.0, 1000000000.0)
    """
    match = re.fullmatch(r"\s*([0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?)\s*([kKmMgGtT]?)[bB]?\s*", text)
    if not match:
        raise ValueError(f"expected a size such as 4G, 512M or 8e9 bytes, got {text!r}")
    value = float(match.group(1)) * UNITS[match.group(2).upper()]
    if not math.isfinite(value) or value <= 0:
        raise ValueError(f"a size must be positive, got {text!r}")
    return value


def size_text(size: float) -> str:
    """``12.3 GB``, ``512 MB``: three significant figures, 1000-based."""
    for unit, scale in (("TB", 1e12), ("GB", 1e9), ("MB", 1e6), ("KB", 1e3)):
        if size >= scale:
            return f"{size / scale:.3g} {unit}"
    return f"{size:.0f} B"


def _vertices(part: Part, tolerance: float) -> int:
    """Vertices of a part's outlines with arcs flattened within ``tolerance``."""
    return sum(len(p.polyline(tolerance).vertices) for s in part.slices for p in s.profiles)


def _shape_key(part: Part) -> tuple:
    """The part's slices as drawn (z and profiles): parts alike share one pair space."""
    return tuple((s.z, s.profiles) for s in part.slices)
