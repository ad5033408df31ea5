"""The pair-space cache: a second analysis reads it and traces identically; edits miss it; no damage
to an entry ever changes an answer."""

from __future__ import annotations

import hashlib
import json
import os
import random
import shutil
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from cspace import analysis as analysis_module
from cspace import analyze, cache, describe, load, path_csv, to_json, trace
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


# Attacks on the cache: whatever is done to an entry, the output is the one computed without
# a cache, the damaged entry is replaced by a valid one, and at most one line goes to stderr.

def _reports(name: str) -> tuple[str, ...]:
    result = trace(analyze(load(fixture_path(name))))
    return describe(result), to_json(result), path_csv(result)


@pytest.fixture(scope="module")
def uncached():
    """The reports of the pusher and the feeder computed with the cache off."""
    previous = os.environ.get("CSPACE_CACHE")
    os.environ["CSPACE_CACHE"] = "off"
    try:
        return {name: _reports(name) for name in ("pusher", "feeder")}
    finally:
        os.environ["CSPACE_CACHE"] = previous


def _entries(folder) -> list:
    return sorted((folder / "pairs").glob("*.json"))


def _attacked(monkeypatch, tmp_path, capsys, attack, name: str = "pusher") -> tuple[tuple[str, ...], str]:
    """Fill a cache, attack its entries, run again: (reports, stderr of the second run)."""
    monkeypatch.setenv("CSPACE_CACHE", str(tmp_path))
    _reports(name)
    for entry in _entries(tmp_path):
        attack(entry)
    capsys.readouterr()
    reports = _reports(name)
    return reports, capsys.readouterr().err


def _assert_repaired(tmp_path) -> None:
    """Every entry is a valid one again."""
    for entry in _entries(tmp_path):
        assert cache.load(entry.stem) is not None, entry


def _edit_number(entry, rng, delta: float) -> None:
    document = json.loads(entry.read_text())
    numbers = []

    def collect(node, path):
        if isinstance(node, dict):
            for k, v in node.items():
                collect(v, path + (k,))
        elif isinstance(node, list):
            for k, v in enumerate(node):
                collect(v, path + (k,))
        elif isinstance(node, float) and node + delta != node:  # 1e30 + 0.001 is no edit
            numbers.append(path)

    collect(document["space"], ())
    path = numbers[rng.randrange(len(numbers))]
    node = document["space"]
    for step in path[:-1]:
        node = node[step]
    node[path[-1]] += delta
    entry.write_text(json.dumps(document))


def test_forty_random_numeric_edits_never_change_the_answer(monkeypatch, tmp_path, capsys, uncached):
    rng = random.Random(11)
    filled = tmp_path / "filled"
    monkeypatch.setenv("CSPACE_CACHE", str(filled))
    _reports("pusher")
    for attempt in range(40):
        folder = tmp_path / str(attempt)
        shutil.copytree(filled, folder)
        entries = _entries(folder)
        _edit_number(entries[rng.randrange(len(entries))], rng, rng.choice([0.001, 0.01, 0.1, 0.5]))
        monkeypatch.setenv("CSPACE_CACHE", str(folder))
        capsys.readouterr()
        assert _reports("pusher") == uncached["pusher"], f"edit {attempt} changed the answer"
        assert capsys.readouterr().err.count("discarded a damaged cache entry") == 1
        _assert_repaired(folder)


def _swap_faces(entry) -> None:
    document = json.loads(entry.read_text())
    for region in document["space"]["regions"]:
        for edge in region["edges"]:
            for contact in edge[3]:
                contact[1], contact[3] = contact[3], contact[1]
    entry.write_text(json.dumps(document))


def _double_matrix(entry) -> None:
    document = json.loads(entry.read_text())
    document["space"]["matrix"] = [[2 * v for v in row] for row in document["space"]["matrix"]]
    entry.write_text(json.dumps(document))


def _rename_keys(entry) -> None:
    document = json.loads(entry.read_text())
    document["space"]["regionz"] = document["space"].pop("regions")
    entry.write_text(json.dumps(document))


def _resign(edit):
    """An edit whose checksum is recomputed, so only the structural checks can catch it."""
    def attack(entry) -> None:
        edit(entry)
        document = json.loads(entry.read_text())
        document["checksum"] = cache._sha256(json.dumps(document["space"]))  # as store writes it
        entry.write_text(json.dumps(document))
    return attack


def _fifo(entry) -> None:
    entry.unlink()
    os.mkfifo(entry)


def _dev_zero(entry) -> None:
    entry.unlink()
    entry.symlink_to("/dev/zero")


def _directory(entry) -> None:
    entry.unlink()
    entry.mkdir()
    (entry / "inside").write_text("x")


ATTACKS = {
    "faces swapped": _swap_faces,
    "matrix doubled": _double_matrix,
    "keys renamed": _rename_keys,
    "keys renamed, checksum recomputed": _resign(_rename_keys),
    "a region's row on a row it lacks, checksum recomputed": _resign(
        lambda e: e.write_text(e.read_text().replace('"edges": [[0,', '"edges": [[99,', 1))),
    "an infinite bound, checksum recomputed": _resign(
        lambda e: e.write_text(e.read_text().replace('"bounds": [', '"bounds": [1e999, ', 1))),
    "truncated": lambda e: e.write_bytes(e.read_bytes()[: len(e.read_bytes()) // 2]),
    "empty": lambda e: e.write_bytes(b""),
    "not UTF-8": lambda e: e.write_bytes(b"\xff\xfe" * 10),
    "deep nesting": lambda e: e.write_text("[" * 100_000),
    "a FIFO": _fifo,
    "a /dev/zero symlink": _dev_zero,
    "a directory": _directory,
    "another entry's content": None,  # filled in below: needs two entries
}


def _copy_first_over_others(folder) -> None:
    first, *others = _entries(folder)
    for other in others:
        shutil.copyfile(first, other)


@pytest.mark.parametrize("attack", sorted(ATTACKS))
def test_an_attacked_entry_is_discarded_recomputed_and_rewritten(attack, monkeypatch, tmp_path, capsys, uncached):
    if ATTACKS[attack] is None:
        monkeypatch.setenv("CSPACE_CACHE", str(tmp_path))
        _reports("pusher")
        _copy_first_over_others(tmp_path)
        capsys.readouterr()
        reports, err = _reports("pusher"), capsys.readouterr().err
    else:
        reports, err = _attacked(monkeypatch, tmp_path, capsys, ATTACKS[attack])
    assert reports == uncached["pusher"]
    lines = err.strip().splitlines()
    assert lines and all(line.startswith("cspace: warning: discarded a damaged cache entry") for line in lines)
    assert len(lines) <= len(_entries(tmp_path))  # one line per entry at most
    _assert_repaired(tmp_path)


def test_the_feeder_survives_every_entry_damaged(monkeypatch, tmp_path, capsys, uncached):
    reports, err = _attacked(monkeypatch, tmp_path, capsys, _double_matrix, "feeder")
    assert reports == uncached["feeder"]
    assert len(err.strip().splitlines()) == len(_entries(tmp_path))


def test_an_unreadable_folder_is_not_used(monkeypatch, tmp_path, capsys, uncached):
    monkeypatch.setenv("CSPACE_CACHE", str(tmp_path / "file-not-folder"))
    (tmp_path / "file-not-folder").write_text("x")
    assert _reports("pusher") == uncached["pusher"]
    assert capsys.readouterr().err == ""


def test_leftover_temporary_files_are_removed_but_fresh_ones_kept(monkeypatch, tmp_path):
    monkeypatch.setenv("CSPACE_CACHE", str(tmp_path))
    pairs = tmp_path / "pairs"
    pairs.mkdir()
    old, fresh = pairs / "killed.tmp", pairs / "writing.tmp"
    old.write_text("{")
    fresh.write_text("{")
    past = time.time() - 2 * cache.STALE_SECONDS
    os.utime(old, (past, past))
    _reports("pusher")
    assert not old.exists() and fresh.exists()


def test_the_key_covers_every_module_of_cspace():
    """The builder lives in analysis.py and the model in model.py: both are in the code hash."""
    import cspace

    package = Path(cspace.__file__).parent
    names = sorted(p.name for p in package.glob("*.py"))
    assert {"analysis.py", "model.py", "pairspace.py", "minkowski.py", "decompose.py"} <= set(names)
    expected = hashlib.sha256(b"".join(n.encode() + b"\0" + (package / n).read_bytes() for n in names)).hexdigest()
    assert cache._CODE == expected
