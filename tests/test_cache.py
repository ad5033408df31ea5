"""The pair-space cache: a second analysis reads it and traces identically; edits miss it."""

from __future__ import annotations

from dataclasses import replace

from cspace import analysis as analysis_module
from cspace import analyze, load, trace
from cspace.testing import assert_traces_equal

from .common import fixture_path


def test_second_analysis_reads_the_cache_and_traces_the_same(monkeypatch, tmp_path):
    monkeypatch.setenv("CSPACE_CACHE", str(tmp_path))
    first = trace(analyze(load(fixture_path("feeder"))))
    computed = []
    original = analysis_module._PairBuilder.compute
    monkeypatch.setattr(analysis_module._PairBuilder, "compute",
                        lambda self, a, b: computed.append((a.name, b.name)) or original(self, a, b))
    second = trace(analyze(load(fixture_path("feeder"))))
    assert computed == []
    assert_traces_equal(first, second)
    assert len(list((tmp_path / "pairs").glob("*.json"))) == 10


def test_an_edited_part_misses_the_cache(monkeypatch, tmp_path):
    monkeypatch.setenv("CSPACE_CACHE", str(tmp_path))
    mechanism = load(fixture_path("pusher"))
    analyze(mechanism)
    computed = []
    original = analysis_module._PairBuilder.compute
    monkeypatch.setattr(analysis_module._PairBuilder, "compute",
                        lambda self, a, b: computed.append((a.name, b.name)) or original(self, a, b))
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
    from dataclasses import replace

    from cspace.cache import key
    from cspace.geometry import Profile

    mechanism = load(fixture_path("pusher"))
    block = mechanism.part("a")
    nudged = replace(block, slices=(replace(block.slices[0], profiles=(Profile.rectangle(0, 0, 3.0000001, 2),)),))
    frame = mechanism.part("frame")
    assert key(mechanism, frame, block) != key(mechanism, frame, nudged)
