"""Traces changed on purpose, to show an oracle fails on a wrong path: results are frozen, so
a changed trace is a new one sharing everything but the changed piece."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from cspace import Trace
from cspace.tracing.trace import Piece


def with_configs(trace: Trace, index: int, configs: np.ndarray) -> Trace:
    """``trace`` with the knots of its piece ``index`` (counted over the whole path, negative
    from the end) at ``configs`` instead."""
    count = len(trace.pieces)
    index %= count
    segments = list(trace.segments)
    for k, segment in enumerate(segments):
        if index < len(segment.pieces):
            pieces = list(segment.pieces)
            first, moved, changes = Piece.compact(np.array(configs, dtype=float))
            pieces[index] = replace(pieces[index], first=first, moved=moved, changes=changes)
            segments[k] = replace(segment, pieces=tuple(pieces))
            return replace(trace, segments=tuple(segments))
        index -= len(segment.pieces)
    raise IndexError(index)
