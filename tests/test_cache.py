"""The pair-space cache: a second analysis reads it and traces identically; edits miss it."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from cspace import analysis as analysis_module
from cspace import analyze, load, trace
from cspace.testing import assert_traces_equal

from .common import fixture_path


def _counting(monkeypatch) -> list[tuple[str, str]]:
    """Record every pair space actually computed (not read from the cache or shared)."""
    computed: list[tuple[str, str]] = []
    original = analysis_module._PairBuilder.compute
    monkeypatch.setattr(analysis_module._PairBuilder, "compute",
                        lambda self, a, b: computed.append((a.name, b.name)) or original(self, a, b))
    return computed


def test_second_analysis_reads_the_cache_and_traces_the_same(monkeypatch, tmp_path):
    monkeypatch.setenv("CSPACE_CACHE", str(tmp_path))
    computed = _counting(monkeypatch)
    first = trace(analyze(load(fixture_path("feeder"))))
    shapes = len(computed)
    computed.clear()
    second = trace(analyze(load(fixture_path("feeder"))))
    assert computed == []
    assert_traces_equal(first, second)
    assert len(list((tmp_path / "pairs").glob("*.json"))) == shapes


def test_same_shaped_pairs_share_one_computation(monkeypatch):
    monkeypatch.setenv("CSPACE_CACHE", "off")
    computed = _counting(monkeypatch)
    analysis = analyze(load(fixture_path("feeder")))
    # frame, piston, link; three equal blocks: frame/block, piston/block, block/block each computed once
    assert len(analysis.pairs) == 10 and len(computed) == 4
    mechanism = analysis.mechanism
    builder = analysis_module._PairBuilder(mechanism)
    for shared in analysis.pairs:
        direct = builder.compute(mechanism.part(shared.part_a), mechanism.part(shared.part_b))
        assert (shared.name, shared.coordinates) == (direct.name, direct.coordinates)
        assert [r.name for r in shared.regions] == [r.name for r in direct.regions]
        for mine, theirs in zip(shared.regions, direct.regions):
            assert np.array_equal(mine.rows, theirs.rows) and np.array_equal(mine.bounds, theirs.bounds)
            assert mine.edges == theirs.edges  # contacts name this pair's parts


def test_an_edited_part_misses_the_cache(monkeypatch, tmp_path):
    monkeypatch.setenv("CSPACE_CACHE", str(tmp_path))
    mechanism = load(fixture_path("pusher"))
    analyze(mechanism)
    computed = _counting(monkeypatch)
    taller = replace(mechanism.part("c"), slices=(replace(mechanism.part("c").slices[0], z=(0, 2)),))
    parts = tuple(taller if p.name == "c" else p for p in mechanism.parts)
    analyze(replace(mechanism, parts=parts))
    assert sorted(computed) == [("a", "c"), ("b", "c"), ("frame", "c"), ("pusher", "c")]


def test_off_means_off(monkeypatch, tmp_path):
    monkeypatch.setenv("CSPACE_CACHE", "off")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    analyze(load(fixture_path("pusher")))
    assert not any(tmp_path.iterdir())


def test_parts_differing_only_in_fine_geometry_get_different_keys():
    from cspace.cache import key
    from cspace.geometry import Profile

    mechanism = load(fixture_path("pusher"))
    block = mechanism.part("a")
    nudged = replace(block.slices[0], profiles=(Profile.rectangle(0, 0, 3.0000001, 2),))
    frame = mechanism.part("frame").slices
    columns = [(1, 0), (0, 1)]
    assert key(frame, block.slices, columns, mechanism.tolerance) != key(frame, (nudged,), columns,
                                                                         mechanism.tolerance)
