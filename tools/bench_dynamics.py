"""cspace's full dynamics against pymunk and MuJoCo, at the same accuracy, in one run (issue 25).

The scenarios are ``tools/dynamics_peers.py``'s, with their exact references and
accuracy targets: Kramer's four-bar (``fixtures/kramer-four-bar.toml``: |theta(5)
error| and |theta'(5) error| at most 1e-8), Gillespie's disk on a ramp
(``fixtures/disk-on-ramp.toml``: its four switch times within 1e-9) and the bouncing
block (``fixtures/bouncing-block.toml``: its first ten impacts within 1e-9). The race
is fair on both sides: each peer runs at the largest step meeting the target
(``dynamics_peers.peer_table``), and cspace at the loosest integration tolerance
meeting it, ``[tolerance] integration`` tried at powers of ten from 1e-6 down to 1e-13
(the fixture itself is run at the default, 1e-12). On the four-bar cspace is held to
both |theta(5) error| and |theta'(5) error| at most 1e-8, where the peers' search asks
only the angle's: if anything, the stricter race is cspace's.

cspace is timed four ways, by ``time.perf_counter``:

* **trace-only**: ``cspace.simulate`` on one analysis, median of 5 calls (the peers'
  "wall": stepping a model built beforehand);
* **cold**: ``loads`` + ``analyze`` + ``simulate``, the first call in a fresh process
  after ``import cspace``, median of 3 processes. ``import cspace`` is lazy, so this
  includes the imports the first call makes (scipy.integrate, shapely, HiGHS, ...);
* **cold, imports excluded**: the same with those modules (:data:`PRELOAD`) imported
  before the clock starts, as the peers' "cold" (build + stepping, pymunk and MuJoCo
  imported beforehand) is measured;
* **whole-process**: ``cspace trace FILE --json`` with its output thrown away, the
  pair-space cache off (``CSPACE_CACHE=off``), from start to exit, median of 5 after
  one run not counted.

Beside the error, the largest violation of the geometry: the block's depth in the
floor (the largest ``max(0, -1 - y)``), the four-bar's loop-closure error (the crank
tip (cos theta, sin theta) and the rocker tip (4 + 3 cos phi, 3 sin phi) should stay
3.5 apart), the disk's largest ``|n|`` (off the ramp or into it); and the relative
energy drift where energy is conserved: the four-bar's over the whole path, the
block's within each flight (its samples strictly inside and its end, against its start; the
largest over the flights).

Gelsey's escapement (``fixtures/escapement.toml``, 37 time units) is timed too,
trace-only and cold, against issue 25's goal of 0.13 s (Gelsey's rigid model took
1.3 s in 1995).

It prints one Markdown table of every row, cspace's and the peers', then the ratios
peer / cspace of the trace-only times per scenario (and of the cold times, imports
excluded).

    python tools/bench_dynamics.py [--quick]

``--quick`` is a smoke run (about 2 minutes): the peers' coarse search and fewer
repeats. pymunk and MuJoCo are benchmark-only dependencies (``pip install '.[bench]'``).
"""

from __future__ import annotations

import argparse
import datetime
import math
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

import cspace
from cspace.kinetics.result import DynamicTrace
from cspace.model.kinds import Mode

sys.path.insert(0, str(Path(__file__).resolve().parent))
import dynamics_peers as peers  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
TOLERANCES = tuple(10.0 ** -k for k in range(6, 14))  # 1e-6 ... 1e-13, loosest first
ESCAPEMENT_GOAL = 0.13  # s for 37 time units (issue 25)
GELSEY_1995 = 1.3  # s, Gelsey's rigid model in 1995
TARGETS = {"four-bar": peers.FOURBAR_TARGET, "disk": peers.DISK_TARGET, "block": peers.BLOCK_TARGET}

PRELOAD = ("cspace.io.loader", "cspace.tracing.analysis", "cspace.kinetics.simulate", "cspace.spaces.builders",
           "cspace.spaces.parallel", "highspy", "scipy.integrate", "scipy.optimize", "scipy.sparse", "shapely")
COLD_CHILD = """
import importlib, sys, time
from pathlib import Path
import cspace
for name in sys.argv[2:]:
    importlib.import_module(name)
text = Path(sys.argv[1]).read_text()
start = time.perf_counter()
cspace.simulate(cspace.analyze(cspace.loads(text)))
print(time.perf_counter() - start)
"""


@dataclass(frozen=True)
class Repeats:
    """How many times each timing is taken (the median is reported)."""

    trace: int
    cold: int
    whole: int
    escapement_trace: int
    escapement_cold: int


FULL = Repeats(trace=5, cold=3, whole=5, escapement_trace=5, escapement_cold=3)
QUICK = Repeats(trace=3, cold=1, whole=2, escapement_trace=1, escapement_cold=1)


@dataclass(frozen=True)
class Measure:
    """One path against its scenario: the error reported, whether every target is met, the
    largest geometric violation, the relative energy drift (nan where energy is not
    conserved) and the other measures as text."""

    error: float
    met: bool
    penetration: float
    energy_drift: float
    detail: str


@dataclass(frozen=True)
class Scenario:
    """A fixture raced against the peers' scenario of the same name."""

    name: str
    fixture: str
    measure: Callable[[DynamicTrace], Measure]


def _fourbar(result: DynamicTrace) -> Measure:
    angle = abs(result.configs[-1, 0] - peers.FOURBAR_ANGLE)
    rate = abs(result.rates[-1, 0] - peers.FOURBAR_RATE)
    theta, phi = result.configs[:, 0], result.configs[:, 1]
    crank_tip = np.stack([np.cos(theta), np.sin(theta)], axis=1)
    rocker_tip = np.stack([peers.GROUND + peers.ROCKER * np.cos(phi), peers.ROCKER * np.sin(phi)], axis=1)
    closure = np.abs(np.linalg.norm(rocker_tip - crank_tip, axis=1) - peers.COUPLER).max()
    total = result.energies.sum(axis=1)
    drift = np.abs(total - peers.FOURBAR_ENERGY).max() / peers.FOURBAR_ENERGY
    met = result.times[-1] == peers.FOURBAR_DURATION and max(angle, rate) <= peers.FOURBAR_TARGET
    return Measure(angle, met, float(closure), float(drift), f"rate err {rate:.1e}")


def switches(result: DynamicTrace) -> list[float]:
    """The times the stretch mode changes (slide, roll, frictionless), in order."""
    modes = [(s.start, s.mode) for s in result.stretches]
    return [t for (t, mode), (_, before) in zip(modes[1:], modes[:-1], strict=True) if mode != before]


def _disk(result: DynamicTrace) -> Measure:
    found = switches(result)
    if len(found) == len(peers.DISK_SWITCHES):
        error = max(abs(a - b) for a, b in zip(found, peers.DISK_SWITCHES, strict=True))
        detail = "times " + " ".join(f"{t - r:+.1e}" for t, r in zip(found, peers.DISK_SWITCHES, strict=True))
    else:
        error, detail = math.inf, f"{len(found)} switches ({len(peers.DISK_SWITCHES)} expected)"
    return Measure(error, error <= peers.DISK_TARGET, float(np.abs(result.configs[:, 1]).max()), math.nan, detail)


def _block(result: DynamicTrace) -> Measure:
    impacts = [s.start for s in result.impacts if s.ended == "impact"]
    exact = peers.block_impact_times()
    error = (max(abs(a - b) for a, b in zip(impacts, exact, strict=False)) if len(impacts) >= peers.IMPACTS
             else math.inf)
    depth = max(0.0, float((-1 - result.configs[:, 0]).max()))
    total = result.energies.sum(axis=1)
    drift = 0.0
    for stretch in result.stretches:
        if stretch.mode == Mode.FLIGHT:
            inside = (result.times > stretch.start) & (result.times < stretch.end)
            start = stretch.energies0.total
            worst = np.abs(total[inside] - start).max(initial=abs(stretch.energies1.total - start))
            drift = max(drift, float(worst) / start)
    resting = [s.start for s in result.stretches if s.mode == Mode.CONTACT]
    rest = f"rests from {resting[0]:.12f} ({resting[0] - peers.ACCUMULATION:+.1e})" if resting else "never rests"
    detail = f"{len(impacts)} impacts, {rest}, y(2) + 1 = {result.configs[-1, 0] + 1:.1e}"
    return Measure(error, error <= peers.BLOCK_TARGET, depth, drift, detail)


SCENARIOS = (
    Scenario("four-bar", "kramer-four-bar", _fourbar),
    Scenario("disk", "disk-on-ramp", _disk),
    Scenario("block", "bouncing-block", _block),
)


def with_tolerance(text: str, integration: float) -> str:
    """A mechanism file's text with ``[tolerance] integration`` set (the fixtures have no [tolerance])."""
    return text.replace("[dynamics]", f"[tolerance]\nintegration = {integration!r}\n[dynamics]", 1)


def loosest(scenario: Scenario) -> tuple[float, Measure]:
    """The loosest tolerance of TOLERANCES whose path meets the scenario's targets, or the most
    accurate one tried if none does."""
    text = (ROOT / "fixtures" / f"{scenario.fixture}.toml").read_text()
    tried: dict[float, Measure] = {}
    for tolerance in TOLERANCES:
        tried[tolerance] = scenario.measure(cspace.simulate(cspace.analyze(cspace.loads(with_tolerance(text, tolerance)))))
        if tried[tolerance].met:
            return tolerance, tried[tolerance]
    best = min(tried, key=lambda t: tried[t].error)
    return best, tried[best]


def trace_only(text: str, runs: int) -> float:
    """Median seconds of ``simulate`` on one analysis of ``text``."""
    analysis = cspace.analyze(cspace.loads(text))
    seconds = []
    for _ in range(runs):
        start = time.perf_counter()
        cspace.simulate(analysis)
        seconds.append(time.perf_counter() - start)
    return statistics.median(seconds)


def cold(path: Path, runs: int, preload: tuple[str, ...] = ()) -> float:
    """Median seconds of loads + analyze + simulate, the first call of a fresh process that
    imported ``cspace`` and the modules ``preload``."""
    return statistics.median(
        float(subprocess.run([sys.executable, "-c", COLD_CHILD, str(path), *preload], check=True,
                             capture_output=True, text=True).stdout)
        for _ in range(runs))


def command() -> str:
    """The cspace console script of this interpreter (not a version manager's shim), else the one on PATH."""
    beside = Path(sys.executable).parent / "cspace"
    return str(beside) if beside.exists() else "cspace"


def whole_process(path: Path, runs: int) -> float:
    """Median seconds of ``cspace trace FILE --json > /dev/null``, cache off, after one run not counted."""
    env = {**os.environ, "CSPACE_CACHE": "off"}
    seconds = []
    for _ in range(runs + 1):
        start = time.perf_counter()
        subprocess.run([command(), "trace", str(path), "--json"], check=True, env=env, stdout=subprocess.DEVNULL)
        seconds.append(time.perf_counter() - start)
    return statistics.median(seconds[1:])


def cspace_row(scenario: Scenario, folder: Path, repeats: Repeats) -> dict:
    """cspace's row on a scenario, at its loosest tolerance meeting the targets."""
    tolerance, measure = loosest(scenario)
    text = with_tolerance((ROOT / "fixtures" / f"{scenario.fixture}.toml").read_text(), tolerance)
    path = folder / f"{scenario.fixture}.toml"
    path.write_text(text)
    met = "targets met" if measure.met else "targets NOT met: most accurate tolerance tried"
    return {"peer": "cspace", "scenario": scenario.name, "setting": f"tol {tolerance:.0e}",
            "wall_median_s": trace_only(text, repeats.trace), "cold_s": cold(path, repeats.cold, PRELOAD),
            "lazy_s": cold(path, repeats.cold),
            "whole_s": whole_process(path, repeats.whole), "error": measure.error,
            "penetration": measure.penetration, "energy_drift": measure.energy_drift,
            "note": f"{met} (loosest of 1e-6..1e-13); {measure.detail}"}


def escapement_row(folder: Path, repeats: Repeats) -> dict:
    """The escapement's 37 time units at the fixture's own (default) tolerance."""
    text = (ROOT / "fixtures" / "escapement.toml").read_text()
    path = folder / "escapement.toml"
    path.write_text(text)
    result = cspace.simulate(cspace.analyze(cspace.loads(text)))
    wall = trace_only(text, repeats.escapement_trace)
    return {"peer": "cspace", "scenario": "escapement", "setting": "tol 1e-12 (default)", "wall_median_s": wall,
            "cold_s": cold(path, repeats.escapement_cold, PRELOAD), "lazy_s": cold(path, repeats.escapement_cold),
            "whole_s": math.nan, "error": math.nan,
            "penetration": math.nan, "energy_drift": math.nan,
            "note": (f"{len(result.stretches)} stretches to t = {result.times[-1]:g}; goal {ESCAPEMENT_GOAL} s: "
                     f"{wall / ESCAPEMENT_GOAL:.0f}x over it; Gelsey 1995: {GELSEY_1995} s")}


def revision() -> str:
    """Which cspace is measured: its commit and whether its sources differ from it."""
    package = Path(cspace.__file__).resolve().parent
    try:
        head = subprocess.run(["git", "-C", str(package), "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(package), "status", "--porcelain", "--", "."], capture_output=True,
                               text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return f"cspace from {package} (not a git checkout)"
    return f"cspace at {head}{' with uncommitted changes to cspace/' if dirty else ''} ({package})"


def _peer_row(row: dict) -> dict:
    return {**row, "setting": f"dt {row['step']:.3e}", "lazy_s": math.nan, "whole_s": math.nan}


def _cell(value: float, digits: int = 2) -> str:
    return "-" if math.isnan(value) else f"{value:.{digits}e}"


def _seconds(value: float) -> str:
    return "-" if math.isnan(value) else f"{value:.3g}"


def markdown(rows: list[dict]) -> str:
    """Every row as one Markdown table."""
    lines = [("| peer | scenario | step or tolerance | trace-only (s) | cold, imports excluded (s) "
              "| cold after import cspace (s) | whole-process (s) | error | penetration | energy drift | note |"),
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for r in rows:
        lines.append(f"| {r['peer']} | {r['scenario']} | {r['setting']} | {_seconds(r['wall_median_s'])} "
                     f"| {_seconds(r['cold_s'])} | {_seconds(r['lazy_s'])} | {_seconds(r['whole_s'])} "
                     f"| {_cell(r['error'])} "
                     f"| {_cell(r['penetration'])} | {_cell(r['energy_drift'])} | {r['note']} |")
    return "\n".join(lines)


def ratios(rows: list[dict]) -> str:
    """Peer / cspace trace-only time (and cold time, imports excluded), for every peer row,
    against cspace's row of its scenario."""
    ours = {r["scenario"]: r for r in rows if r["peer"] == "cspace"}
    lines = [("| scenario | peer | step | peer target met | peer trace-only (s) | cspace trace-only (s) "
              "| peer / cspace | cold: peer / cspace |"),
             "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for r in rows:
        if r["peer"] == "cspace":
            continue
        mine = ours[r["scenario"]]["wall_median_s"]
        cold_ratio = r["cold_s"] / ours[r["scenario"]]["cold_s"]
        met = "fixed step" if r["note"].startswith("fixed step") else ("yes" if r["error"] <= TARGETS[r["scenario"]] else "no")
        lines.append(f"| {r['scenario']} | {r['peer']} | {r['step']:.3e} | {met} | {r['wall_median_s']:.3g} "
                     f"| {mine:.3g} | {r['wall_median_s'] / mine:.2f} | {cold_ratio:.2f} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Race cspace and the peers and print the tables."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="a smoke run: coarse peer search, fewer repeats")
    args = parser.parse_args(argv)
    repeats = QUICK if args.quick else FULL
    began = time.perf_counter()
    with tempfile.TemporaryDirectory() as folder:
        rows = [cspace_row(scenario, Path(folder), repeats) for scenario in SCENARIOS]
        rows.append(escapement_row(Path(folder), repeats))
    rows += [_peer_row(row) for row in peers.peer_table(quick=args.quick)]
    print(f"{datetime.date.today()}, {platform.machine()}, {os.cpu_count()} cores, {platform.system()} "
          f"{platform.release()}, CPython {platform.python_version()}, pymunk {peers.pymunk.version}, "
          f"MuJoCo {peers.mujoco.__version__}; {revision()}; {'quick' if args.quick else 'full'} run\n")
    print(markdown(rows))
    print("\nTimes, peer / cspace (above 1: cspace is faster):\n")
    print(ratios(rows))
    print(f"\ncspace: trace-only median of {repeats.trace} (escapement {repeats.escapement_trace}), cold median of "
          f"{repeats.cold} fresh processes (escapement {repeats.escapement_cold}), whole-process median of "
          f"{repeats.whole}. Peers: median of their timed runs. The machine is shared (2 cores): single timings move "
          "by tens of per cent, so compare within one run, not across runs.")
    print(f"\n{time.perf_counter() - began:.0f} s in all")
    return 0


if __name__ == "__main__":
    sys.exit(main())
