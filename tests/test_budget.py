"""Memory bounds before the work: the estimate (cspace.budget) against measured peaks, the
refusal over --max-memory, progress, and the sweep's batches that keep a turning pair's memory
bounded."""

from __future__ import annotations

import pytest

import cspace.rotation
from cspace import analyze, load

from .common import fixture_path


def _spaces(name: str) -> list:
    """Every pair space of a fixture, as bytes: regions (rows, bounds, outline, name) and blocked space."""
    return [(p.part_a, p.part_b, [(r.name, r.rows.tobytes(), r.bounds.tobytes(), r.vertices.tobytes()) for r in p.regions],
             [b.tobytes() for b in p.blocked]) for p in analyze(load(fixture_path(name))).pairs]


@pytest.mark.parametrize("name", ["eccentric-cam", "geneva"])
def test_a_sweep_solved_in_small_batches_builds_the_same_space(monkeypatch, name):
    """A turning pair's sweep solves at most rotation.BATCH placement-vertices at once (a
    4000-vertex wavy cam asked for 6048 placements at once: 2.8 GB); cut into batches of a few
    hundred placements, the (theta, x) cam and the (theta1, theta2) Geneva pair spaces are
    bit-identical to those solved whole."""
    monkeypatch.setenv("CSPACE_CACHE", "off")
    monkeypatch.setenv("CSPACE_WORKERS", "1")
    whole = _spaces(name)
    monkeypatch.setattr(cspace.rotation, "BATCH", 3000)
    assert _spaces(name) == whole
