"""The pair-space cache: a second analysis reads it and traces identically; edits miss it; no damage
to an entry ever changes an answer."""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import random
import re
import shutil
import stat
import sys
import time
from dataclasses import fields, replace
from pathlib import Path

import numpy as np
import pytest

from cspace import analyze, describe, load, path_csv, to_json, trace
from cspace.cli import main
from cspace.model.tolerance import Tolerance
from cspace.spaces import cache
from cspace.spaces.request import Request
from cspace.spaces.translating import Translating
from cspace.spaces.turning import Rotating
from cspace.testing import assert_traces_equal

from .common import each, fixture_path, slow
from .support.oracles import cached_and_uncached

FOLDER: Path | None = None  # the cache folder this module's analyses use (None: none), set by _use


def _use(monkeypatch, folder: Path | None) -> None:
    """Analyse with the cache in ``folder`` (None: no cache) for the rest of the test."""
    monkeypatch.setattr(sys.modules[__name__], "FOLDER", folder)


def _analyzed(mechanism):
    return analyze(mechanism, cache=FOLDER)


def _said(caplog) -> str:
    """The ``cspace`` logger's warnings since last asked, as the command line prints them."""
    lines = "".join(f"cspace: warning: {r.getMessage()}\n" for r in caplog.records if r.name == "cspace")
    caplog.clear()
    return lines


def _counting(monkeypatch) -> list[tuple[str, str]]:
    """Record every pair space actually computed (not read from the cache or shared)."""
    computed: list[tuple[str, str]] = []
    original = Translating.build
    monkeypatch.setattr(Translating, "build",
                        lambda self, request: computed.append((request.a.name, request.b.name)) or original(self, request))
    return computed


def test_second_analysis_reads_the_cache_and_traces_the_same(monkeypatch, tmp_path):
    _use(monkeypatch, tmp_path)
    computed = _counting(monkeypatch)
    first = trace(_analyzed(load(fixture_path("feeder"))))
    shapes = len(computed)
    computed.clear()
    second = trace(_analyzed(load(fixture_path("feeder"))))
    assert computed == []
    assert_traces_equal(first, second)
    assert len(list((tmp_path / "pairs").glob("*.json"))) == shapes


def test_same_shaped_pairs_share_one_computation(monkeypatch):
    _use(monkeypatch, None)
    computed = _counting(monkeypatch)
    analysis = _analyzed(load(fixture_path("feeder")))
    # frame, piston, link; three equal blocks: frame/block, piston/block, block/block each computed once
    assert len(analysis.pairs) == 10 and len(computed) == 4
    mechanism = analysis.mechanism
    builder = Translating(mechanism)
    for shared in analysis.pairs:
        direct = builder.build(Request.of(mechanism, shared.part_a, shared.part_b))
        assert (shared.name, shared.coordinates) == (direct.name, direct.coordinates)
        assert [r.name for r in shared.regions] == [r.name for r in direct.regions]
        for mine, theirs in zip(shared.regions, direct.regions):
            assert np.array_equal(mine.rows, theirs.rows) and np.array_equal(mine.bounds, theirs.bounds)
            assert mine.edges == theirs.edges  # contacts name this pair's parts


def test_an_edited_part_misses_the_cache(monkeypatch, tmp_path):
    _use(monkeypatch, tmp_path)
    mechanism = load(fixture_path("pusher"))
    _analyzed(mechanism)
    computed = _counting(monkeypatch)
    taller = replace(mechanism.part("c"), slices=(replace(mechanism.part("c").slices[0], z=(0, 2)),))
    parts = tuple(taller if p.name == "c" else p for p in mechanism.parts)
    _analyzed(replace(mechanism, parts=parts))
    assert sorted(computed) == [("a", "c"), ("b", "c"), ("frame", "c"), ("pusher", "c")]


def test_no_cache_unless_asked(monkeypatch, tmp_path, capsys):
    """The library keeps nothing on disk unless given a cache; the command line none with
    ``CSPACE_CACHE=off``."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setenv("HOME", str(tmp_path))
    analyze(load(fixture_path("pusher")))
    monkeypatch.setenv("CSPACE_CACHE", "off")
    assert main(["trace", str(fixture_path("pusher"))]) == 0
    assert not any(tmp_path.iterdir())


def test_parts_differing_only_in_fine_geometry_get_different_keys():
    from cspace.model.geometry import Profile
    from cspace.spaces.cache import key

    mechanism = load(fixture_path("pusher"))
    block = mechanism.part("a")
    nudged = replace(block.slices[0], profiles=(Profile.rectangle(0, 0, 3.0000001, 2),))
    frame = mechanism.part("frame").slices
    columns = [(1, 0), (0, 1)]
    assert key(frame, block.slices, columns, mechanism.tolerance) != key(frame, (nudged,), columns,
                                                                         mechanism.tolerance)


# The key: everything the builder reads, taken structurally.

def _pusher_key(tolerance: Tolerance) -> str:
    mechanism = load(fixture_path("pusher"))
    return cache.key(mechanism.part("frame").slices, mechanism.part("a").slices, [(1, 0), (0, 1)], tolerance,
                     mechanism.origin)


@pytest.mark.parametrize("name", [f.name for f in fields(Tolerance)])
def test_every_field_of_the_tolerance_is_in_the_key(name):
    """Whatever field a builder reads (today's or one added later), an entry made under another value is not read."""
    tolerance = load(fixture_path("pusher")).tolerance
    assert _pusher_key(replace(tolerance, **{name: getattr(tolerance, name) * 1.5})) != _pusher_key(tolerance)
    assert _pusher_key(replace(tolerance)) == _pusher_key(tolerance)


def test_every_field_of_a_turning_pairs_coordinates_but_names_is_in_the_key():
    """A turning pair's key holds its coordinates whole (pivot, axis, limits, shift, and any field
    added later) but the names, which a space is relabelled for, and the initial value."""
    mechanism = load(fixture_path("eccentric-cam"))
    a, b = mechanism.parts[0], mechanism.parts[1]
    motion = Rotating(mechanism).motion(Request.of(mechanism, a, b))
    assert any(c.pivot is not None for c in motion) and {c.part for c in motion} <= {"a", "b"}
    digest = cache.key(a.slices, b.slices, motion, mechanism.tolerance, mechanism.origin)
    others = {str: "other", tuple: (0.5, 0.25), type(None): (0.5, 0.25), bool: True, float: 0.125}
    for number, coordinate in enumerate(motion):
        for field in fields(coordinate):
            changed = list(motion)
            changed[number] = replace(coordinate, **{field.name: others[type(getattr(coordinate, field.name))]})
            assert cache.key(a.slices, b.slices, changed, mechanism.tolerance, mechanism.origin) != digest, field
    moved = replace(mechanism, coordinates=tuple(replace(c, initial=c.initial + 0.5) for c in mechanism.coordinates))
    assert Rotating(moved).motion(Request.of(moved, a, b)) == motion


def test_the_key_refuses_what_it_cannot_take_exactly():
    """A value the key does not know how to take field by field is refused, not hashed by its repr."""
    tolerance = load(fixture_path("pusher")).tolerance
    with pytest.raises(TypeError, match="cannot key"):
        cache.key((), (), [object()], tolerance)


def _with_length(tmp_path, name: str, length: str) -> Path:
    path = tmp_path / f"{name}-{length}.toml"
    text = fixture_path(name).read_text()
    assert "[tolerance]" not in text
    path.write_text(text + f"\n[tolerance]\nlength = {length}\n")
    return path


# Issue 23: each pair of lengths keeps the grid (quantum) and the arc tolerance, so the key of
# format 5 (which held those two) was the same, and the space built under one was read under the other.
LENGTHS = {"gears": ("2e-7", "5e-7"), "eccentric-cam": ("2e-7", "5e-7"), "rim-lock": ("5e-7", "8e-7")}


@pytest.mark.parametrize("name", each(sorted(LENGTHS)))
def test_a_space_built_under_one_length_is_not_read_under_another(name, tmp_path):
    """The trace (``--json``) of a turning mechanism under a second ``[tolerance] length``, its
    cache filled under a first, is the one computed with the cache off."""
    mechanisms = [load(_with_length(tmp_path, name, length)) for length in LENGTHS[name]]
    first, second = (m.tolerance for m in mechanisms)
    assert first.length != second.length and (first.quantum, first.arc) == (second.quantum, second.arc)
    for cached, uncached in cached_and_uncached(mechanisms, lambda m: to_json(trace(_analyzed(m)))):
        assert cached == uncached


# Attacks on the cache: whatever is done to an entry, the output is the one computed without
# a cache, the damaged entry is replaced by a valid one, and at most one line goes to stderr.

def _reports(name: str) -> tuple[str, ...]:
    result = trace(_analyzed(load(fixture_path(name))))
    return describe(result), to_json(result), path_csv(result)


@pytest.fixture(scope="module")
def uncached():
    """The reports of the pusher and the feeder computed with the cache off."""
    return {name: _reports(name) for name in ("pusher", "feeder")}


def _entries(folder) -> list:
    return sorted((folder / "pairs").glob("*.json"))


def _attacked(monkeypatch, tmp_path, caplog, attack, name: str = "pusher") -> tuple[tuple[str, ...], str]:
    """Fill a cache, attack its entries, run again: (reports, stderr of the second run)."""
    _use(monkeypatch, tmp_path)
    _reports(name)
    for entry in _entries(tmp_path):
        attack(entry)
    _said(caplog)
    reports = _reports(name)
    return reports, _said(caplog)


def _assert_repaired(folder) -> None:
    """Every entry is a valid one again."""
    for entry in _entries(folder):
        assert cache.PairCache(folder).load(entry.stem) is not None, entry


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


@slow
def test_forty_random_numeric_edits_never_change_the_answer(monkeypatch, tmp_path, caplog, uncached):
    rng = random.Random(11)
    filled = tmp_path / "filled"
    _use(monkeypatch, filled)
    _reports("pusher")
    for attempt in range(40):
        folder = tmp_path / str(attempt)
        shutil.copytree(filled, folder)
        entries = _entries(folder)
        _edit_number(entries[rng.randrange(len(entries))], rng, rng.choice([0.001, 0.01, 0.1, 0.5]))
        _use(monkeypatch, folder)
        _said(caplog)
        assert _reports("pusher") == uncached["pusher"], f"edit {attempt} changed the answer"
        assert _said(caplog).count("discarded a damaged cache entry") == 1
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


def _signed(edit, secret: bytes | None = None):
    """An edit whose signature is made again: a plain SHA-256 of the content, the checksum
    format 5 trusted (what anyone who can write the folder can compute), or, given the
    cache's own ``secret``, a true signature, so only the structural checks can catch it."""
    def attack(entry) -> None:
        edit(entry)
        document = json.loads(entry.read_text())
        content = json.dumps(document["space"])  # as store writes it
        signature = list(document)[2]  # "mac" ("checksum" in format 5)
        document[signature] = cache.entry_mac(secret, document["key"], content) if secret else \
            hashlib.sha256(content.encode()).hexdigest()
        entry.write_text(json.dumps(document))
    return attack


def _secret_of(entry) -> bytes:
    return (entry.parent.parent / cache.SECRET).read_bytes()


def _truly_signed(edit):
    """An edit signed with the cache's own secret (as if cspace itself had written it wrong)."""
    return lambda entry: _signed(edit, _secret_of(entry))(entry)


def _rename_faces(entry) -> None:
    """Every face a contact names, renamed (so every contact names faces the parts lack)."""
    document = json.loads(entry.read_text())
    for region in document["space"]["regions"]:
        for edge in region["edges"]:
            for contact in edge[3]:
                contact[1], contact[3] = [f"{face}-renamed" for face in contact[1]], \
                    [f"{face}-renamed" for face in contact[3]]
    entry.write_text(json.dumps(document))


def _fifo(entry) -> None:
    entry.unlink()
    os.mkfifo(entry)


def _dev_zero(entry) -> None:
    entry.unlink()
    entry.symlink_to("/dev/zero")


ATTACKS = {
    "faces swapped": _swap_faces,
    "matrix doubled": _double_matrix,
    "keys renamed": _rename_keys,
    "faces renamed, hashed again": _signed(_rename_faces),
    "faces swapped, hashed again": _signed(_swap_faces),
    "keys renamed, hashed again": _signed(_rename_keys),
    "keys renamed, signed with the secret": _truly_signed(_rename_keys),
    "a region's row on a row it lacks, signed with the secret": _truly_signed(
        lambda e: e.write_text(e.read_text().replace('"edges": [[0,', '"edges": [[99,', 1))),
    "an infinite bound, signed with the secret": _truly_signed(
        lambda e: e.write_text(e.read_text().replace('"bounds": [', '"bounds": [1e999, ', 1))),
    "truncated": lambda e: e.write_bytes(e.read_bytes()[: len(e.read_bytes()) // 2]),
    "empty": lambda e: e.write_bytes(b""),
    "not UTF-8": lambda e: e.write_bytes(b"\xff\xfe" * 10),
    "deep nesting": lambda e: e.write_text("[" * 100_000),
    "a FIFO": _fifo,
    "a /dev/zero symlink": _dev_zero,
    "another entry's content": None,  # filled in below: needs two entries
}


def _copy_first_over_others(folder) -> None:
    first, *others = _entries(folder)
    for other in others:
        shutil.copyfile(first, other)


@pytest.mark.parametrize("attack", each(sorted(ATTACKS), fast=sorted(ATTACKS)[:4]))
def test_an_attacked_entry_is_discarded_recomputed_and_rewritten(attack, monkeypatch, tmp_path, caplog, uncached):
    if ATTACKS[attack] is None:
        _use(monkeypatch, tmp_path)
        _reports("pusher")
        _copy_first_over_others(tmp_path)
        _said(caplog)
        reports, err = _reports("pusher"), _said(caplog)
    else:
        reports, err = _attacked(monkeypatch, tmp_path, caplog, ATTACKS[attack])
    assert reports == uncached["pusher"]
    lines = err.strip().splitlines()
    assert lines and all(line.startswith("cspace: warning: discarded a damaged cache entry") for line in lines)
    assert len(lines) <= len(_entries(tmp_path))  # one line per entry at most
    _assert_repaired(tmp_path)


def test_the_feeder_survives_every_entry_damaged(monkeypatch, tmp_path, caplog, uncached):
    reports, err = _attacked(monkeypatch, tmp_path, caplog, _double_matrix, "feeder")
    assert reports == uncached["feeder"]
    assert len(err.strip().splitlines()) == len(_entries(tmp_path))


def test_an_unreadable_folder_is_not_used(monkeypatch, tmp_path, caplog, uncached):
    _use(monkeypatch, tmp_path / "file-not-folder")
    (tmp_path / "file-not-folder").write_text("x")
    assert _reports("pusher") == uncached["pusher"]
    assert _said(caplog) == ""


def _age(path, seconds: float = 2 * cache.STALE_SECONDS) -> None:
    past = time.time() - seconds
    os.utime(path, (past, past), follow_symlinks=False)


def _temporary_name() -> str:
    return f".cspace-{os.urandom(16).hex()}.tmp"


def test_only_cspaces_own_stale_temporary_files_are_removed(monkeypatch, tmp_path):
    """A killed run's temporary file (cspace's name, this user's, a minute old) is removed; a
    fresh one, a file of another name, and a link or folder of cspace's name (with what they
    lead to) are left."""
    _use(monkeypatch, tmp_path)
    pairs = tmp_path / "pairs"
    pairs.mkdir()
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "data").write_text("keep")
    killed, fresh, foreign = pairs / _temporary_name(), pairs / _temporary_name(), pairs / "killed.tmp"
    link, folder = pairs / _temporary_name(), pairs / _temporary_name()
    for path in (killed, fresh, foreign):
        path.write_text("{")
    link.symlink_to(victim / "data")
    folder.mkdir()
    for path in (killed, foreign, link, folder, victim / "data"):
        _age(path)
    _reports("pusher")
    assert not killed.exists()
    assert all(p.exists() or p.is_symlink() for p in (fresh, foreign, link, folder))
    assert (victim / "data").read_text() == "keep"


def _victim(tmp_path) -> tuple[Path, dict]:
    """A folder of someone else's: files a minute old, one named as cspace names its temporary
    files, one as it names an entry; and a snapshot of it (names, contents, times)."""
    victim = tmp_path / "victim"
    victim.mkdir()
    for name in ("work.tmp", _temporary_name(), "0" * 64 + ".json", "notes.txt"):
        (victim / name).write_text(f"{name} of the victim")
        _age(victim / name)
    return victim, _snapshot(victim)


def _snapshot(where: Path) -> dict:
    return {p.name: (p.read_bytes(), p.lstat().st_mtime_ns) for p in sorted(where.iterdir())}


def test_a_planted_pairs_symlink_is_never_followed(monkeypatch, tmp_path, caplog, uncached):
    """A ``pairs`` link in a shared cache folder: nothing is read, written or deleted through it,
    the answer is the uncached one, and one line says why the cache is not used."""
    cache_folder = tmp_path / "shared"
    cache_folder.mkdir()
    victim, before = _victim(tmp_path)
    (cache_folder / "pairs").symlink_to(victim)
    _use(monkeypatch, cache_folder)
    _said(caplog)
    assert _reports("pusher") == uncached["pusher"]
    assert _reports("pusher") == uncached["pusher"]
    assert _snapshot(victim) == before
    err = _said(caplog).strip().splitlines()
    assert err == [f"cspace: warning: not using the cache {cache_folder}: its 'pairs' is a symbolic link, "
                   "not a folder"]


def test_the_cache_folder_itself_may_be_a_link(monkeypatch, tmp_path, caplog):
    """Where the cache is, is the user's choice: a link to a folder there is followed."""
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "link").symlink_to(real)
    _use(monkeypatch, tmp_path / "link")
    _reports("pusher")
    assert _entries(real) and (real / cache.SECRET).exists()
    assert _said(caplog) == ""


# The secret: entries are signed under it, so a writer who cannot read it cannot forge one.

def test_the_secret_is_made_private_and_entries_signed_with_it(monkeypatch, tmp_path):
    _use(monkeypatch, tmp_path)
    previous = os.umask(0)  # whatever the umask, the secret and the entries are the user's alone
    try:
        _reports("pusher")
    finally:
        os.umask(previous)
    secret = tmp_path / cache.SECRET
    info = secret.lstat()
    assert stat.S_ISREG(info.st_mode) and stat.S_IMODE(info.st_mode) == 0o600 and info.st_uid == os.geteuid()
    assert len(secret.read_bytes()) == cache.SECRET_BYTES
    assert stat.S_IMODE((tmp_path / "pairs").lstat().st_mode) == 0o700
    for entry in _entries(tmp_path):
        assert stat.S_IMODE(entry.lstat().st_mode) == 0o600
        document = json.loads(entry.read_text())
        assert document["key"] == entry.stem and document["format"] == cache.FORMAT
        expected = hmac.new(secret.read_bytes(), f"cspace {cache.FORMAT} {entry.stem}\n".encode()
                            + json.dumps(document["space"]).encode(), hashlib.sha256).hexdigest()
        assert document["mac"] == expected
    assert not [p for p in tmp_path.rglob("*.tmp")]


def test_entries_signed_with_another_secret_are_rejected(monkeypatch, tmp_path, caplog, uncached):
    """Another cache's entries (another user's, or a forger's with a key of their own)."""
    def other_secret(entry) -> None:
        _signed(lambda e: None, b"k" * cache.SECRET_BYTES)(entry)

    reports, err = _attacked(monkeypatch, tmp_path, caplog, other_secret)
    assert reports == uncached["pusher"]
    lines = err.strip().splitlines()
    assert len(lines) == len(_entries(tmp_path))
    assert all("not signed with this cache's secret" in line for line in lines)
    _assert_repaired(tmp_path)


def test_swapped_entries_with_their_keys_edited_are_rejected(monkeypatch, tmp_path, caplog, uncached):
    """Two entries exchanged, each one's ``key`` made its new name's: a true signature each, of another key."""
    _use(monkeypatch, tmp_path)
    _reports("feeder")
    entries = _entries(tmp_path)
    for first, second in zip(entries[0::2], entries[1::2]):
        one, other = json.loads(first.read_text()), json.loads(second.read_text())
        one["key"], other["key"] = second.stem, first.stem
        first.write_text(json.dumps(other))
        second.write_text(json.dumps(one))
    _said(caplog)
    assert _reports("feeder") == uncached["feeder"]
    lines = _said(caplog).strip().splitlines()
    assert len(lines) == 2 * (len(entries) // 2)
    assert all("not signed with this cache's secret" in line for line in lines)
    _assert_repaired(tmp_path)


def test_a_replaced_secret_invalidates_every_entry(monkeypatch, tmp_path, caplog, uncached):
    """Whoever replaces the secret (with one of theirs, of this user, 0600) gains nothing from the entries."""
    _use(monkeypatch, tmp_path)
    _reports("pusher")
    (tmp_path / cache.SECRET).write_bytes(os.urandom(cache.SECRET_BYTES))
    _said(caplog)
    assert _reports("pusher") == uncached["pusher"]
    assert len(_said(caplog).strip().splitlines()) == len(_entries(tmp_path))
    _assert_repaired(tmp_path)


def _chmod(mode: int):
    return lambda secret: secret.chmod(mode)


def _secret_link(secret) -> None:
    own = secret.parent.parent / "own-secret"
    secret.rename(own)
    secret.symlink_to(own)


def _secret_replaced_by(kind: str):
    def replace_it(secret) -> None:
        secret.unlink()
        if kind == "folder":
            secret.mkdir()
        elif kind == "fifo":
            os.mkfifo(secret)
        else:
            secret.write_bytes(b"short")
            secret.chmod(0o600)
    return replace_it


def _another_users(secret) -> None:
    os.chown(secret, os.geteuid() + 1, -1)


SECRET_ATTACKS = {
    "readable by others": (_chmod(0o644), "has mode 0644, not 0600"),
    "writable by the group": (_chmod(0o620), "has mode 0620, not 0600"),
    "a symbolic link to a good secret": (_secret_link, "is a symbolic link"),
    "a folder": (_secret_replaced_by("folder"), "is a folder, not a regular file"),
    "a FIFO": (_secret_replaced_by("fifo"), "is a FIFO, not a regular file"),
    "too short": (_secret_replaced_by("short"), "holds 5 bytes, not 32"),
    "another user's": (_another_users, "belongs to user"),
}


@pytest.mark.parametrize("attack", each(sorted(SECRET_ATTACKS), fast=sorted(SECRET_ATTACKS)[:2]))
def test_a_secret_not_private_to_this_user_means_no_cache(attack, monkeypatch, tmp_path, caplog, uncached):
    """The cache is not used at all (nothing read, written or deleted), with one warning line
    for the whole run, however many pairs: the answer is the uncached one."""
    edit, reason = SECRET_ATTACKS[attack]
    if attack == "another user's" and os.geteuid() != 0:
        pytest.skip("only root may give a file away")
    folder = tmp_path / attack.replace(" ", "-")
    _use(monkeypatch, folder)
    _reports("pusher")
    edit(folder / cache.SECRET)
    for entry in _entries(folder):
        _signed(_double_matrix)(entry)  # a forged entry: if the cache were read, the answer would change
    stale = folder / "pairs" / _temporary_name()
    stale.write_text("{")
    _age(stale)
    before = _snapshot(folder / "pairs")
    _said(caplog)
    assert _reports("pusher") == uncached["pusher"]
    assert _reports("feeder") == uncached["feeder"]
    lines = _said(caplog).strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"cspace: warning: not using the cache {folder}: its 'secret' ")
    assert reason in lines[0]
    assert _snapshot(folder / "pairs") == before


def test_a_folder_in_place_of_an_entry_is_left_alone(monkeypatch, tmp_path, caplog, uncached):
    """cspace deletes only files it made: a folder where an entry should be is not used, and
    neither it nor what is in it is deleted."""
    def directory(entry) -> None:
        entry.unlink()
        entry.mkdir()
        (entry / "inside").write_text("x")

    reports, err = _attacked(monkeypatch, tmp_path, caplog, directory)
    assert reports == uncached["pusher"]
    lines = err.strip().splitlines()
    assert lines and all(line.startswith("cspace: warning: discarded a damaged cache entry") and
                         "a folder, not a regular file" in line for line in lines)
    assert all((entry / "inside").read_text() == "x" for entry in _entries(tmp_path))


def test_the_key_covers_every_module_of_cspace():
    """The builders, the kernels and the model live in layers of their own: every module of
    every layer is in the code hash (the rendering, which builds nothing, is not)."""
    import cspace

    package = Path(cspace.__file__).parent
    names = sorted(str(p.relative_to(package)) for p in package.rglob("*.py") if "viz" not in p.parts)
    assert {"tracing/analysis.py", "model/mechanism.py", "spaces/pairspace.py", "kernels/minkowski.py",
            "kernels/decompose.py", "spaces/rotation.py"} <= set(names)
    expected = hashlib.sha256(b"".join(n.encode() + b"\0" + (package / n).read_bytes() for n in names)).hexdigest()
    assert cache._CODE == expected


def _filled(folder: Path) -> list[Path]:
    """A cache holding the pusher's entries, oldest first, each used a second after the one before."""
    analyze(load(fixture_path("pusher")), cache=folder)
    entries = _entries(folder)
    for k, entry in enumerate(entries):
        os.utime(entry, (1_000_000 + k, 1_000_000 + k))
    return entries


def test_cache_info_and_clear_say_where_how_many_and_how_much(monkeypatch, tmp_path, capsys):
    monkeypatch.setenv("CSPACE_CACHE", str(tmp_path))
    entries = _filled(tmp_path)
    size = sum(entry.stat().st_size for entry in entries)
    assert main(["cache", "info"]) == 0
    text = f"{size / 1e3:.3g} KB"
    assert capsys.readouterr().out == (f"location: {tmp_path}\nentries: {len(entries)} ({text})\n"
                                       "cap: 500 MB (CSPACE_CACHE_MAX), least recently used evicted first\n")
    assert main(["cache", "clear"]) == 0
    assert capsys.readouterr().out == f"{tmp_path}: removed {len(entries)} entries ({text})\n"
    assert _entries(tmp_path) == [] and (tmp_path / cache.SECRET).exists()
    monkeypatch.setenv("CSPACE_CACHE_MAX", "2 G")
    assert main(["cache", "info"]) == 0
    assert capsys.readouterr().out.endswith("entries: 0 (0 B)\ncap: 2 GB (CSPACE_CACHE_MAX), least recently "
                                            "used evicted first\n")


def test_a_bad_cache_cap_is_one_line_and_exit_2(monkeypatch, capsys):
    monkeypatch.setenv("CSPACE_CACHE_MAX", "lots")
    assert main(["cache", "info"]) == 2
    assert capsys.readouterr().err == ("cspace: error: CSPACE_CACHE_MAX: expected a size such as 4G, 512M or 8e9 "
                                       "bytes, got 'lots'\n")


def test_the_cap_evicts_the_least_recently_used_first(tmp_path):
    entries = _filled(tmp_path)
    used = entries[0]
    cache.PairCache(tmp_path).load(used.stem)  # the oldest, read: now the most recently used
    sizes = {entry.name: entry.stat().st_size for entry in entries}
    others = entries[1:]
    limit = sum(sizes.values()) - sizes[others[0].name] - sizes[others[1].name]
    space = cache.PairCache(tmp_path).load(others[2].stem)
    cache.PairCache(tmp_path, limit=limit).store(others[2].stem, space)  # stored again: used now too
    assert [entry.name for entry in _entries(tmp_path)] == sorted(e.name for e in entries if e not in others[:2])


def test_an_entry_of_another_version_is_removed_when_the_cache_is_next_written(monkeypatch, tmp_path, capsys):
    entries = _filled(tmp_path)
    old, older = entries[0], entries[1]
    old.write_text(old.read_text().replace(f'"code": "{cache.CODE}"', '"code": "' + "0" * 16 + '"'))
    older.write_text(re.sub(r', "code": "[0-9a-f]{16}"', "", older.read_text()).replace('"format": 7', '"format": 6'))
    monkeypatch.setenv("CSPACE_CACHE", str(tmp_path))
    assert main(["cache", "info"]) == 0
    assert "from other versions of cspace: 2 (" in capsys.readouterr().out
    space = cache.PairCache(tmp_path).load(entries[2].stem)
    cache.PairCache(tmp_path).store(entries[2].stem, space)
    assert _entries(tmp_path) == entries[2:]


def test_eviction_beside_another_process_skips_an_entry_that_vanished(monkeypatch, tmp_path):
    """Another process evicts an entry between this one listing the folder and looking at
    (or removing) it: no error, the rest is tidied as ever."""
    entries = _filled(tmp_path)
    gone = entries[0]
    looked = cache._entry

    def racing(pairs: int, name: str):
        if name == gone.name and gone.exists():
            gone.unlink()  # the other process's eviction
        return looked(pairs, name)

    monkeypatch.setattr(cache, "_entry", racing)
    space = cache.PairCache(tmp_path).load(entries[1].stem)
    cache.PairCache(tmp_path, limit=0).store(entries[1].stem, space)
    assert _entries(tmp_path) == []
    pairs = os.open(tmp_path / cache.PAIRS, os.O_RDONLY)
    try:
        assert cache._remove(pairs, gone.name) is False  # and removing it again is no error either
    finally:
        os.close(pairs)
