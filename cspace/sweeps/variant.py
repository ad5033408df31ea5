"""One variant of a sweep: its id, and its trace (or full-dynamics path) summed up as one row.

A variant is a pure function of its source (a file's text, a function's code) and its
parameter values: :func:`variant_id` hashes both, and :func:`run` traces it with one
process (no in-variant workers), or integrates it where it asks for full dynamics, and
returns the same row wherever it runs, but for the run's own measurements
(:data:`RUN_COLUMNS`: wall time and pair-space cache use). A
variant that fails (its geometry bad at these values, a linkage that cannot assemble,
parts overlapping at the start, a trace that cannot go on) is a row whose ``error`` is
the one-line message and whose results are empty.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Mapping, Sequence
from typing import Any

from ..model.errors import CspaceError
from ..spaces.cache import PairCache
from .measures import Measure
from .source import Source

RUN_COLUMNS = ("wall_time", "cache_hits", "cache_lookups")  # the run's, not the variant's: they may differ
RESULT_COLUMNS = ("id", "error", "end_reason", "end_time", "segments", "blocked", "blocked_at", "blocked_contacts",
                  *RUN_COLUMNS)  # no parameter may be named so
BLOCKED = "input blocked"


def variant_id(digest: str, values: Mapping[str, float]) -> str:
    """The variant's id: 16 hex digits hashed from the source's digest and the values (by name).

    >>> variant_id("0" * 64, {"crank": 3.0, "link": 8.0}) == variant_id("0" * 64, {"link": 8, "crank": 3})
    True
    """
    canonical = json.dumps({name: float(values[name]) for name in sorted(values)})
    return hashlib.sha256(f"{digest}\n{canonical}".encode()).hexdigest()[:16]


class _CountingCache(PairCache):
    """The pair-space cache, counting its look-ups and hits (the sweep reports the hit rate)."""

    def __init__(self, folder: str | os.PathLike) -> None:
        super().__init__(folder)
        self.lookups = 0
        self.hits = 0

    def load(self, digest: str):
        space = super().load(digest)
        self.lookups += 1
        self.hits += space is not None
        return space


def run(source: Source, values: Mapping[str, float], measures: Sequence[Measure] = (),
        cache: str | os.PathLike | None = None) -> dict[str, Any]:
    """Trace one variant (integrate it, with full dynamics) and return its row (:func:`summary`
    and :func:`motion_summary` say what it holds).

    >>> from cspace.sweeps.source import FileSource
    >>> row = run(FileSource.read("fixtures/sweeps/feeder.toml"), {"crank": 3, "link": 8})
    >>> row["end_reason"], row["segments"], row["final:xb3"]
    ('time allotment used', 20, 17.0)
    """
    from ..tracing.analysis import analyze
    from ..tracing.tracer import trace

    start = time.perf_counter()
    row: dict[str, Any] = {"id": variant_id(source.digest, values), **{k: float(v) for k, v in values.items()},
                           "error": ""}
    counting = _CountingCache(cache) if cache is not None else None
    try:
        mechanism = source.mechanism(values)
        for measure in measures:
            measure.check(mechanism)
        analysis = analyze(mechanism, cache=counting, workers=1)
        if mechanism.dynamics is not None:
            from ..kinetics.simulate import simulate  # the integrator only where a variant needs it

            result = simulate(analysis)
            row.update(motion_summary(result))
        else:
            result = trace(analysis)
            row.update(summary(result))
        for measure in measures:
            value = measure.of(result)
            row[measure.column] = value if isinstance(value, int) else _clean(value)
    except CspaceError as error:
        row["error"] = _one_line(str(error))
    except (ArithmeticError, ValueError, TypeError, MemoryError, RecursionError) as error:
        row["error"] = _one_line(f"{type(error).__name__}: {error}")
    row["wall_time"] = time.perf_counter() - start
    row["cache_hits"] = counting.hits if counting else 0
    row["cache_lookups"] = counting.lookups if counting else 0
    return row


def run_batch(source: Source, batch: Sequence[Mapping[str, float]], measures: Sequence[Measure] = (),
              cache: str | os.PathLike | None = None) -> list[dict[str, Any]]:
    """The rows of several variants, one after another (:func:`run` each): a cluster's task."""
    return [run(source, values, measures, cache) for values in batch]


def summary(result) -> dict[str, Any]:
    """A trace's results as row cells: how and when it ended, its segments, where an input was
    blocked, and each coordinate's final value and range over the sampled path (as reported:
    angles in (-pi, pi], to 10 decimals, as ``cspace trace --path``)."""
    from ..report.describe import path_rows, stopped_by

    segments = result.segments
    blocked = [s for s in segments if s.end == BLOCKED]
    inputs = result.mechanism.inputs
    cells: dict[str, Any] = {
        "end_reason": str(result.end_reason),
        "end_time": _clean(segments[-1].end_time if segments else 0.0),
        "segments": len(segments),
        "blocked": len(blocked),
        "blocked_at": "; ".join(f"{_input_name(inputs, s.first.motion)} at t = {_clean(s.end_time)}"
                                for s in blocked),
        "blocked_contacts": "; ".join(" ".join(str(c) for c in stopped_by(result, s)) for s in blocked),
    }
    rows = path_rows(result)
    for j, coordinate in enumerate(result.mechanism.coordinates):
        column = [row[2 + j] for row in rows]
        cells[f"final:{coordinate.name}"] = _clean(column[-1])
        cells[f"min:{coordinate.name}"] = _clean(min(column))
        cells[f"max:{coordinate.name}"] = _clean(max(column))
    return cells


def motion_summary(result) -> dict[str, Any]:
    """A full-dynamics path's results as the same row cells: how and when it ended, its stretches
    (as segments; nothing is blocked: an input drives its coordinates whatever the load), and
    each coordinate's final value and range over the sampled path (as ``cspace trace --path``
    writes a full-dynamics path: angles as integrated, not wrapped)."""
    stretches = result.stretches
    cells: dict[str, Any] = {
        "end_reason": str(result.end),
        "end_time": _clean(stretches[-1].end if stretches else result.times[-1]),
        "segments": len(stretches),
        "blocked": 0,
        "blocked_at": "",
        "blocked_contacts": "",
    }
    for j, coordinate in enumerate(result.mechanism.coordinates):
        column = result.configs[:, j]
        cells[f"final:{coordinate.name}"] = _clean(column[-1])
        cells[f"min:{coordinate.name}"] = _clean(column.min())
        cells[f"max:{coordinate.name}"] = _clean(column.max())
    return cells


def _input_name(inputs, index: int) -> str:
    motion = inputs[index] if 0 <= index < len(inputs) else None
    if motion is None:
        return f"input {index + 1}"
    return motion.name or " ".join(name for name, _ in motion.velocities)


def _clean(value: float) -> float:
    """Float noise rounded away (and negative zero), as the trace's own reports do."""
    rounded = round(float(value), 10)
    return 0.0 if rounded == 0 else rounded


def _one_line(message: str) -> str:
    return " ".join(message.split()) or "failed"
