"""Memory bounds before the work: the estimate (cspace.spaces.budget) against measured peaks, the
refusal over --max-memory, progress, and the sweep's batches that keep a turning pair's memory
bounded."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import cspace.spaces.rotation
from cspace import analyze, load
from cspace.cli import main
from cspace.model.errors import BudgetError
from cspace.spaces import budget
from cspace.spaces.builders import Builders

from .common import ROOT, each, fixture_path, slow, tool


def _spaces(name: str) -> list:
    """Every pair space of a fixture, as bytes: regions (rows, bounds, outline, name) and blocked space."""
    return [(p.part_a, p.part_b, [(r.name, r.rows.tobytes(), r.bounds.tobytes(), r.vertices.tobytes()) for r in p.regions],
             [b.tobytes() for b in p.blocked]) for p in analyze(load(fixture_path(name))).pairs]


@pytest.mark.parametrize("name", each(["eccentric-cam", "geneva"]))
def test_a_sweep_solved_in_small_batches_builds_the_same_space(monkeypatch, name):
    """A turning pair's sweep solves at most rotation.BATCH placement-vertices at once (a
    4000-vertex wavy cam asked for 6048 placements at once: 2.8 GB); cut into batches of a few
    hundred placements, the (theta, x) cam and the (theta1, theta2) Geneva pair spaces are
    bit-identical to those solved whole."""
    whole = _spaces(name)
    monkeypatch.setattr(cspace.spaces.rotation, "BATCH", 3000)
    assert _spaces(name) == whole


MEASURE = """
import resource, subprocess, sys
child = "import cspace; cspace.trace(cspace.analyze(cspace.load(sys.argv[1])))"
subprocess.run([sys.executable, "-c", "import sys; " + child, sys.argv[1]], check=True)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024)
"""


def _peak(path: Path) -> float:
    """Peak resident bytes of analysing and tracing ``path`` in a process of its own (the only
    child of a process that reads RUSAGE_CHILDREN: no other child's peak mixes in)."""
    done = subprocess.run([sys.executable, "-c", MEASURE, str(path)], capture_output=True, text=True,
                          check=True, cwd=ROOT)
    return float(done.stdout.split()[-1])


def _mechanism_file(tmp_path: Path, name: str) -> Path:
    """A fixture, or a mechanism tools/calibrate_budget.py makes (feeder-N, wavy-cam-V, sawtooth-T)."""
    if (ROOT / "fixtures" / f"{name}.toml").exists():
        return ROOT / "fixtures" / f"{name}.toml"
    kind, size = name.rsplit("-", 1)
    maker = {"feeder": lambda n: tool("feeder_n").Feeder(n).toml(), "wavy-cam": tool("calibrate_budget").wavy_cam,
             "sawtooth": tool("calibrate_budget").sawtooth}[kind]
    path = tmp_path / f"{name}.toml"
    path.write_text(maker(int(size)))
    return path


@slow
@pytest.mark.parametrize("name", each(["feeder", "transmission", "feeder-50", "wavy-cam-1000", "sawtooth-100"],
                                      fast={"feeder"}))  # a process each
def test_the_estimate_is_within_its_factor_of_the_measured_peak(tmp_path, name):
    """Mechanisms of each kind: the process alone, gears (a turning pair of 1089 vertices),
    many translating pairs and a long trace (1326 pairs), a 1000-vertex wavy cam (a sweep past
    a batch: 937 MB before the sweep was batched, 3.5 times the estimate) and a translating
    pair of 41 x 81 pieces (1.4 GB at 300 teeth)."""
    path = _mechanism_file(tmp_path, name)
    mechanism = load(path)
    estimated = budget.estimate(mechanism, budget.mechanism_pairs(mechanism)).total
    measured = _peak(path)
    assert 1 / budget.FACTOR <= estimated / measured <= budget.FACTOR, (estimated, measured)


def test_over_the_bound_a_mechanism_is_refused_before_any_pair_space_is_built(monkeypatch):
    built = []
    monkeypatch.setattr(Builders, "space", lambda *a: built.append(a))
    with pytest.raises(BudgetError) as raised:
        analyze(load(fixture_path("transmission")), max_memory=200e6)
    assert built == []
    message = str(raised.value)
    assert message.startswith(f"{fixture_path('transmission')}: memory: ") and "\n" not in message
    assert "about 269 MB" in message and "turning pair spaces" in message and "200 MB" in message


@slow
def test_the_command_line_refuses_over_max_memory_in_one_line():
    done = subprocess.run([sys.executable, "-m", "cspace.cli", "trace", str(fixture_path("feeder")),
                           "--max-memory", "50M"], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert "feeder.toml: memory: its analysis and trace would take about 56.8 MB" in done.stderr
    assert "more than the bound of 50 MB" in done.stderr


@slow
def test_the_496_block_feeder_is_refused_by_the_default_bound(tmp_path):
    """The issue's case: it ran 500 s and took 12 GB with nothing said. Under the default bound
    (8 GB at most) it is refused with its estimate, after only its pairs are found."""
    path = _mechanism_file(tmp_path, "feeder-496")
    done = subprocess.run([sys.executable, "-m", "cspace.cli", "trace", str(path)], capture_output=True, text=True,
                          cwd=ROOT, env={**os.environ, "CSPACE_WORKERS": "1"})
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    estimated = float(done.stderr.split("would take about ")[1].split(" GB")[0])
    assert 6 <= estimated <= 24  # measured: 12 GB
    assert "the trace over 123753 pairs" in done.stderr


@slow
@pytest.mark.parametrize("asked", [True, False])
def test_progress_is_shown_when_asked(asked):
    """Standard error is not a terminal here: bars only with --progress, for the pair spaces
    and the trace; the report on standard output is the same."""
    argv = [sys.executable, "-m", "cspace.cli", "trace", str(fixture_path("feeder")), "--until", "3"]
    done = subprocess.run(argv + (["--progress"] if asked else []), capture_output=True, text=True, cwd=ROOT)
    plain = subprocess.run(argv, capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0 and done.stdout == plain.stdout
    assert ("pair spaces" in done.stderr and "trace" in done.stderr) if asked else done.stderr == ""


def test_max_memory_none_lifts_the_bound_and_a_bad_size_is_a_usage_error():
    feeder = str(fixture_path("feeder"))
    assert main(["check", feeder, "--max-memory", "none"]) == 0
    with pytest.raises(SystemExit) as raised:
        main(["check", feeder, "--max-memory", "lots"])
    assert raised.value.code == 2
