"""Pair spaces built in forked workers (cspace.spaces.parallel) are the ones built here."""

from __future__ import annotations

import gc
import os
import pickle
import signal
import time

import pytest

from cspace import UnsupportedPairError, WorkersError, analyze, load
from cspace.cli import main
from cspace.spaces import parallel
from cspace.spaces.turning import Rotating

from .common import fixture_path, slow


def _spaces(name: str, workers: int) -> list:
    analysis = analyze(load(fixture_path(name)), workers=workers)
    return [(pair.name, region.name, region.rows.tobytes(), region.bounds.tobytes(), region.vertices.tobytes(),
             tuple(str(c) for edge in region.edges for c in edge.contacts))
            for pair in analysis.pairs for region in pair.regions]


@slow
@pytest.mark.parametrize("name", ["rim-lock", "transmission", "shoe-brake"])
def test_spaces_built_by_two_workers_are_those_built_by_one(name, monkeypatch):
    calls = []
    run = parallel.run
    monkeypatch.setattr(parallel, "run", lambda tasks, workers: calls.append(len(tasks)) or run(tasks, workers))
    alone = _spaces(name, 1)
    shared = _spaces(name, 2)
    assert shared == alone
    assert calls and all(count >= 2 for count in calls)  # the work was shared


def test_a_pickled_pair_space_finds_the_regions_the_original_finds():
    """Its R-tree is built again: an rtree index pickles without its entries, and a space
    that lost them would find no region anywhere."""
    analysis = analyze(load(fixture_path("lever")))
    for pair in analysis.pairs:
        copy = pickle.loads(pickle.dumps(pair))
        assert type(copy) is type(pair) and copy.name == pair.name
        points = [region.vertices.mean(axis=0) for region in pair.regions if len(region.vertices)]
        found = [pair.regions_at(p, 1e-9) for p in points]
        assert all(found)
        assert [copy.regions_at(p, 1e-9) for p in points] == found


def test_a_relabeled_space_pickles_as_its_pair():
    pairs = {p.name: p for p in analyze(load(fixture_path("feeder"))).pairs}
    twin = pairs["block1/block2"].relabeled("block2", "block3", ("xb2", "yb2", "xb3", "yb3"))
    copy = pickle.loads(pickle.dumps(twin))
    assert copy.name == "block2/block3"
    assert [str(c) for r in copy.regions for e in r.edges for c in e.contacts] == \
        [str(c) for r in twin.regions for e in r.edges for c in e.contacts]


def test_a_task_that_fails_in_a_worker_gives_none_and_the_others_their_results():
    def fails() -> int:
        raise RuntimeError("no")

    assert parallel.run([lambda: 1, fails, lambda: 3], 2) == [1, None, 3]


def test_a_pair_whose_worker_fails_is_built_again_here(monkeypatch):
    """The space is then built here, whole (its error, had it one, raised here): the rim
    lock's two turning pairs, one built here as the first task, the other sent to a worker
    that fails and built here again."""
    parent = os.getpid()
    build, part = Rotating.build, Rotating.part
    here = []

    def failing(self, request):
        if os.getpid() != parent:
            raise UnsupportedPairError("no")  # what a worker's error becomes: its pair is built again here
        return part(self, request)

    monkeypatch.setattr(Rotating, "part", failing)
    monkeypatch.setattr(Rotating, "build", lambda self, request: here.append(request) or build(self, request))
    analysis = analyze(load(fixture_path("rim-lock")), workers=2)
    assert len(analysis.pairs) == 3 and len(here) == 2


@pytest.mark.parametrize("count", [0, -1, 1.5, "2", True])
def test_a_bad_worker_count_is_refused(count):
    with pytest.raises(WorkersError, match=f"workers must be a whole number of at least 1, got {count!r}"):
        analyze(load(fixture_path("lever")), workers=count)


@pytest.mark.parametrize("setting", ["0", "two", "-1", "1.5"])
def test_a_bad_worker_setting_is_refused_by_the_command_line(setting, monkeypatch, capsys):
    monkeypatch.setenv("CSPACE_WORKERS", setting)
    assert main(["trace", str(fixture_path("lever"))]) == 2
    error = capsys.readouterr().err.strip().splitlines()
    assert error == [f"cspace: error: CSPACE_WORKERS must be a whole number of at least 1, got {setting!r}"]


def _dies(how: str) -> None:
    """End this process the way ``how`` says, as the OOM killer or a user would."""
    if how == "exit":
        os._exit(3)
    os.kill(os.getpid(), getattr(signal, how))
    time.sleep(60)  # not reached: the signal ends the process first


@pytest.mark.parametrize("how", ["SIGKILL", "SIGTERM", "exit"])
def test_a_task_whose_worker_dies_gives_none_and_the_first_its_result(how, monkeypatch):
    """A worker killed gave a BrokenProcessPool traceback; now its task (and any other the
    broken pool never sent back) gives None, for the caller to run here."""
    results = parallel.run([lambda: 1, lambda: _dies(how), lambda: 3], 2)
    assert results[:2] == [1, None] and results[2] in (3, None)


def _killing_workers(monkeypatch, how: str) -> list:
    """Every worker dies on its first turning job (the parent's builds are left alone)."""
    parent = os.getpid()
    part = Rotating.part
    killed = []

    def dying(self, request):
        if os.getpid() != parent:
            _dies(how)
        return part(self, request)

    monkeypatch.setattr(Rotating, "part", dying)
    run = parallel.run
    monkeypatch.setattr(parallel, "run", lambda tasks, workers: killed.append(len(tasks)) or run(tasks, workers))
    return killed


@slow
@pytest.mark.parametrize("how", ["SIGKILL", "SIGTERM"])
def test_an_analysis_whose_worker_is_killed_builds_its_pairs_here(how, monkeypatch):
    """The spaces are those one process builds: the killed worker's pairs are built again here."""
    alone = _spaces("rim-lock", 1)
    killed = _killing_workers(monkeypatch, how)
    assert _spaces("rim-lock", 2) == alone
    assert killed and all(count >= 2 for count in killed)  # there were workers, and they died


@slow
def test_the_command_line_never_shows_a_killed_worker(monkeypatch, capsys):
    monkeypatch.setenv("CSPACE_CACHE", "off")
    monkeypatch.setenv("CSPACE_WORKERS", "1")
    assert main(["trace", str(fixture_path("rim-lock")), "--json"]) == 0
    alone = capsys.readouterr()
    _killing_workers(monkeypatch, "SIGKILL")
    monkeypatch.setenv("CSPACE_WORKERS", "2")
    assert main(["trace", str(fixture_path("rim-lock")), "--json"]) == 0
    shared = capsys.readouterr()
    assert alone.err == shared.err == "" and shared.out == alone.out


class _Made:
    """An object the collector tracks."""


def test_what_a_paused_block_made_joins_the_oldest_generation_unscanned():
    """Objects made while the collector is paused are not left young (the first collections
    after would scan them all); the collector runs again after; objects the program froze
    itself stay frozen."""
    was = gc.isenabled()
    gc.enable()
    try:
        with parallel.collector_paused():
            made = [_Made() for _ in range(1000)]
        assert gc.isenabled()
        assert not any(isinstance(o, _Made) for o in gc.get_objects(generation=0))
        assert sum(isinstance(o, _Made) for o in gc.get_objects(generation=2)) == len(made)
        kept = [_Made()]
        gc.freeze()
        frozen = gc.get_freeze_count()
        try:
            with parallel.collector_paused():
                made += [_Made()]
            assert gc.get_freeze_count() == frozen
        finally:
            gc.unfreeze()
        assert kept
    finally:
        if not was:
            gc.disable()
