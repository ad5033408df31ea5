"""cspace against pymunk on the feeder (issue 5) and the Geneva drive: wall time at matched accuracy, side by side.

What it measures, all in one process run, the two programs alternating so that a
shared, noisy machine slows both alike. The feeder:

* the paper's 3-block feeder (``fixtures/feeder.toml``), three revolutions, in
  cspace and in pymunk (``tools/peer_feeder.py``). cspace three ways: "cold" is load +
  analyze + trace with the pair-space disk cache off (a first run: every pair space
  is computed); "disk cache" is the same with the pair spaces read from the disk
  cache (a second run of the command line); "pair spaces cached" is trace alone on an
  analysed mechanism;
* pymunk over a sweep of time steps: for each, the error of its event times (the
  stack drops, the piston touches block i) against the exact crank-slider values
  (``tools/feeder_n.py``), its worst interpenetration, how far its final state is
  from cspace's, and its wall time. The largest step whose event error is at most
  1e-3 is the one cspace is compared with; the ratio is the median over pairs of
  pymunk time / cspace time measured back to back;
* the N-block feeder (N blocks in a taller magazine, N revolutions) in both, cspace
  cold, to show how each cost grows with N (one run each for N >= 30);
* where cspace's time goes: the analyze stages (pair spaces), a cProfile of the trace
  by stage (LP solves, region lookups, region building, following, ...), and the
  trace's cost per traversed region and per piece as a multiple of one feasibility
  LP on a traversed region's constraints, twice: fastest trace against fastest LP,
  and median against median (the machine is noisy; the two bracket it).

The Geneva drive (``fixtures/geneva.toml``, a turning pair; pymunk model in
``tools/peer_geneva.py``), over the fixture's time allotment (12.6 s, two turns of the
crank and a bit; pymunk steps as long):

* cspace three ways as for the feeder: "cold" (load + analyze with ``CSPACE_CACHE=off``
  + trace: the one rotating pair space is computed), "disk cache", and "pair spaces
  cached" (``cspace.trace`` on an analysed mechanism);
* cspace's events: the starts of the segments where the wheel begins to move and the
  ends of those where it moves (its velocity's sign), against the closed form: the
  clearance-corrected times of ``peer_geneva.reference_events`` (the first push comes
  0.053 s after the engagement boundary, where the pin reaches the wall it pushes) and,
  for the record, the engagement boundaries themselves; its interpenetration by
  ``cspace.testing.replay`` (violations deeper than the length tolerance, 0 expected)
  and by peer_geneva's measure on the real shapes at every sample of the trace (the
  pin's depth into the wheel exactly, the locking disk's by shapely), the same measure
  pymunk gets at every step;
* pymunk (simple dynamics: the wheel's velocity cleared every step) over the time-step
  sweep of peer_geneva (1/60 to 1/3840 s): event errors, interpenetration, pass-through
  (the pin's centre inside the wheel's material), skipped slots, wall time of the
  stepping loop (median of ``--repeats``). The largest step whose event error is at most
  1e-3 s is the one cspace is compared with, alternating, the ratio the median of
  back-to-back pairs;
* cspace with finer arc tolerances, ``[tolerance] arc = 5e-5, 2e-5, 1e-5`` (the
  default is 1e-4): the pair space's regions, a cold analyze (once), the trace (median
  of 3) or the error it stops with, the events and the replay. The arc budget (outward
  flattening, the rotating pair's blocked space grown by ``arc / 4``) moves the events
  of a pin that enters its slot along the wall, where the gap closes with the square of
  the crank angle.

pymunk times are pure stepping (build the space, step, read the final positions):
its events and penetration come from a separate run that inspects every step from
Python, which would otherwise dominate its time. cspace times include everything
it reports (segments, contacts, event times).

    python tools/bench_peer.py [--repeats 5] [--blocks 3 10 30 100] [--iterations 10] [--only feeder|geneva]

pymunk is a benchmark-only dependency (``pip install '.[bench]'``); cspace never imports it.
"""

from __future__ import annotations

import argparse
import cProfile
import datetime
import importlib.metadata
import math
import os
import platform
import statistics
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import peer_geneva
import pymunk
from feeder_n import Feeder
from geneva_geometry import HALF, engagement_bounds, turn_and_alpha, wheel_angle
from peer_feeder import Measurement, measure, run, steps_for

from cspace import Analysis, CspaceError, Trace, analyze, load, loads, trace
from cspace.kernels.constraints import ConstraintManager, LpResult
from cspace.spaces import cache, parallel
from cspace.spaces.linkage import LinkageTable
from cspace.testing import OVERLAP, replay
from cspace.tracing.dynamics import Mode, SimpleDynamics
from cspace.tracing.regions import RegionDiagram
from cspace.tracing.trace import build_segments
from cspace.tracing.tracer import Tracer

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "fixtures" / "feeder.toml"
GENEVA = ROOT / "fixtures" / "geneva.toml"
GENEVA_FINE_ARCS = (5e-5, 2e-5, 1e-5)  # relative arc tolerances of cspace's extra Geneva rows
MATCHED_ACCURACY = 1e-3
STEPS_PER_SECOND = (60, 120, 240, 480, 960, 1920, 3840)
FINEST_STEPS_PER_SECOND = 30720
SINGLE_RUN_FROM = 30
FEASIBILITY_REPEATS = 60  # feasibility LPs per traversed region; fastest and median are reported
TRACE_REPEATS = 25  # cached traces for the per-region cost; fastest and median are reported


@dataclass
class Events:
    """Event times (drops, touches, in order of revolution) and final block corners (x, y)."""

    drops: list[float]
    touches: list[float]
    corners: list[tuple[float, float]]

    def error(self, feeder: Feeder) -> float:
        """Largest deviation from the exact event times; inf if an event is missing or extra."""
        found, exact = self.drops + self.touches, feeder.drop_times() + feeder.touch_times()
        if len(self.drops) != feeder.revolutions or len(self.touches) != feeder.revolutions:
            return math.inf
        return max(abs(a - b) for a, b in zip(found, exact, strict=True))


@dataclass
class SweepRow:
    """pymunk at one time step: accuracy against the exact events and cspace, and median wall time."""

    dt: float
    measurement: Measurement
    event_error: float
    final_difference: float
    seconds: float


@dataclass
class ScalingRow:
    """Both programs on the N-block feeder.

    ``final_difference`` is pymunk's final state against ``against`` (cspace's, or
    the expected one where cspace fails); ``cspace_final`` is cspace's against the
    expected one; ``cspace_failure`` is cspace's error message, if any. Penetrations
    are depths (positive = overlap); pymunk's is nan from ``SINGLE_RUN_FROM`` blocks,
    where reading every contact every step would take longer than the rest together.
    """

    blocks: int
    runs: int
    cspace_seconds: float
    pymunk_seconds: float
    ratio: float
    cspace_error: float
    pymunk_error: float
    cspace_penetration: float
    pymunk_penetration: float
    final_difference: float
    against: str
    cspace_final: float
    cspace_failure: str


def cspace_events(result: Trace, feeder: Feeder) -> Events:
    """Event times from cspace's segments and the final block corners.

    A drop is the start of an external segment. A touch of block i is the start of
    the first input segment in which the piston moves right with its right face on
    block i's left face (during the drop the falling block slides down that face
    too, in an external segment, which is not the touch).
    """
    index = result.mechanism.coordinate_index
    xp = index["xp"]
    drops = [s.start_time for s in result.segments if s.phase == "external"]
    touches = []
    for i in range(1, feeder.blocks + 1):
        contact = f"piston.right/block{i}.left"
        touch = next((s.start_time for s in result.segments if s.phase == "input" and s.finish[xp] > s.start[xp]
                      and contact in {str(c) for c in s.first.contacts}), None)
        if touch is not None:
            touches.append(touch)
    final = result.segments[-1].finish
    corners = [(float(final[index[f"xb{i}"]]), float(final[index[f"yb{i}"]])) for i in range(1, feeder.blocks + 1)]
    return Events(drops, touches, corners)


def corner_difference(a: list[tuple[float, float]], b: list[tuple[float, float]]) -> float:
    """Largest coordinate difference between two lists of block corners."""
    return max(max(abs(xa - xb), abs(ya - yb)) for (xa, ya), (xb, yb) in zip(a, b, strict=True))


def cspace_penetration(analysis: Analysis, result: Trace) -> float:
    """cspace's deepest overlap of two parts over the path (0 if none).

    The path is linear between knots and each piece stays in one convex region, so
    the knots suffice: at each, the largest excess of a pair row of the piece's
    region (all pairs' rows) over its bound. Pair rows are unit normals of the pair
    spaces, so the excess is a depth in length units.
    """
    diagram = RegionDiagram(analysis)
    knots: dict[tuple[int, ...], list[np.ndarray]] = defaultdict(list)
    for piece in result.pieces:
        knots[piece.key].append(piece.configs)
    deepest = 0.0
    for key, configs in knots.items():
        region = diagram.region(key)
        pair = np.array([kind == "pair" for kind in region.kinds])
        excess = (region.G @ np.vstack(configs).T)[pair] - region.h[pair, None]
        deepest = max(deepest, float(excess.max(initial=0.0)))
    return deepest


def expected_corners(feeder: Feeder) -> list[tuple[float, float]]:
    """Where simple dynamics leaves the blocks: a train on the table ending at x = 17."""
    return [(feeder.final_block_x(i), -1.0) for i in range(1, feeder.blocks + 1)]


def timed(action: Callable[[], object]) -> tuple[float, object]:
    """Wall time of one call and its result."""
    start = time.perf_counter()
    result = action()
    return time.perf_counter() - start, result


CACHE: str | None = None  # the benchmark's own pair-space cache folder (main makes it), as the command line keeps one
WORKERS = parallel.usable()  # as many processes as the command line uses by default


def cspace_cold(source: Path | str, use_disk_cache: bool = False) -> tuple[Analysis, Trace]:
    """Load (a file, or mechanism text), analyse and trace: what a run of the command line costs.

    Without the disk cache every pair space is computed, as in a user's first run.
    """
    mechanism = load(source) if isinstance(source, Path) else loads(source)
    analysis = analyze(mechanism, cache=CACHE if use_disk_cache else None, workers=WORKERS)
    return analysis, trace(analysis)


def pymunk_sweep(feeder: Feeder, iterations: int, repeats: int, reference: list[tuple[float, float]]) -> list[SweepRow]:
    """pymunk at ever smaller steps, until one meets the matched accuracy (or the finest step)."""
    rows: list[SweepRow] = []
    rates = list(STEPS_PER_SECOND)
    while rates:
        dt = 1.0 / rates.pop(0)
        measurement = measure(feeder, dt, iterations)
        found = Events(measurement.drops, measurement.touches, measurement.corners)
        seconds = statistics.median(timed(lambda step=dt: run(feeder, step, iterations))[0] for _ in range(repeats))
        rows.append(SweepRow(dt, measurement, found.error(feeder), corner_difference(measurement.corners, reference),
                             seconds))
        if not rates and rows[-1].event_error > MATCHED_ACCURACY and 2 / dt <= FINEST_STEPS_PER_SECOND:
            rates.append(round(2 / dt))
    return rows


def matched_step(rows: list[SweepRow]) -> SweepRow:
    """The largest step whose event error is within the matched accuracy (else the most accurate)."""
    good = [r for r in rows if r.event_error <= MATCHED_ACCURACY]
    return max(good, key=lambda r: r.dt) if good else min(rows, key=lambda r: r.event_error)


def headline_pairs(dt: float, iterations: int, repeats: int) -> tuple[dict[str, list[float]], dict[str, list[float]]]:
    """cspace (cold, from the disk cache, pair spaces cached) and pymunk on the 3-block feeder, alternating.

    Each of the ``repeats`` rounds runs all four; pymunk runs last in one round and
    first in the next, so neither program always runs first. Returns the times per
    variant and, from the cold runs, the analyze stages' times.
    """
    feeder = Feeder(3)
    analysis = analyze(load(FIXTURE), workers=WORKERS)
    times: dict[str, list[float]] = defaultdict(list)
    stages: dict[str, list[float]] = defaultdict(list)

    def cold() -> None:
        seconds, (cold_analysis, _) = timed(lambda: cspace_cold(FIXTURE))
        times["cold"].append(seconds)
        for stage, value in cold_analysis.timings.items():
            stages[stage].append(value)

    def disk() -> None:
        times["disk"].append(timed(lambda: cspace_cold(FIXTURE, use_disk_cache=True))[0])

    def cached() -> None:
        times["cached"].append(timed(lambda: trace(analysis))[0])

    def peer() -> None:
        times["pymunk"].append(timed(lambda: run(feeder, dt, iterations))[0])

    for r in range(repeats):
        for action in ((cold, disk, cached, peer) if r % 2 == 0 else (peer, cold, disk, cached)):
            action()
    return times, stages


def paired_ratio(numerators: list[float], denominators: list[float]) -> float:
    """Median of the ratios of times measured back to back."""
    return statistics.median(a / b for a, b in zip(numerators, denominators, strict=True))


def scaling_row(blocks: int, dt: float, iterations: int, repeats: int) -> ScalingRow:
    """Both programs on the N-block feeder, alternating; one run each from ``SINGLE_RUN_FROM`` blocks."""
    feeder = Feeder(blocks)
    text = feeder.toml()
    cspace_times: list[float] = []
    pymunk_times: list[float] = []
    results: list[tuple[Analysis, Trace]] = []
    failures: list[str] = []

    def ours() -> None:
        start = time.perf_counter()
        try:
            results.append(cspace_cold(text))
        except CspaceError as error:
            failures.append(f"{type(error).__name__} after {time.perf_counter() - start:.1f} s: {error}")
        cspace_times.append(time.perf_counter() - start)

    def peer() -> None:
        pymunk_times.append(timed(lambda: run(feeder, dt, iterations))[0])

    runs = 1 if blocks >= SINGLE_RUN_FROM else repeats
    for r in range(runs):
        for action in ((ours, peer) if r % 2 == 0 else (peer, ours)):
            action()
    peer_run = measure(feeder, dt, iterations, penetration=blocks < SINGLE_RUN_FROM)
    peer_events = Events(peer_run.drops, peer_run.touches, peer_run.corners)
    expected = expected_corners(feeder)
    if results:
        ours_events = cspace_events(results[0][1], feeder)
        cspace_error, reference, against = ours_events.error(feeder), ours_events.corners, "cspace"
        cspace_final, cspace_depth = corner_difference(ours_events.corners, expected), cspace_penetration(*results[0])
    else:
        cspace_error, reference, against = math.nan, expected, "x = 17 + 4(N-i), y = -1"
        cspace_final = cspace_depth = math.nan
    return ScalingRow(blocks, runs, statistics.median(cspace_times), statistics.median(pymunk_times),
                      paired_ratio(pymunk_times, cspace_times), cspace_error, peer_events.error(feeder),
                      cspace_depth, -peer_run.penetration, corner_difference(peer_run.corners, reference), against,
                      cspace_final, failures[0] if failures else "")


TRACE_STAGES: tuple[tuple[str, Callable], ...] = (
    ("tracer steps (Tracer.step)", Tracer.step),
    ("  region lookups", RegionDiagram.choices),
    ("  region building", RegionDiagram.region),
    ("  settling free pairs", RegionDiagram.settle),
    ("  determined motions", SimpleDynamics.determined),
    ("  velocity programs", SimpleDynamics.velocity),
    ("  modes of motion", SimpleDynamics.mode),
    ("  LP solves, all callers", ConstraintManager.solve),
    ("  following", Tracer.follow),
    ("    without linkage motion", Tracer.follow_straight),
    ("    along one linkage table", Tracer.follow_table),
    ("    cell by cell", Tracer.follow_cells),
    ("      mode velocity per cell", Mode.velocity_at),
    ("    linkage table lookahead", LinkageTable.ahead),
    ("  drive relation", Tracer.drive_lines),
    ("  contacts of pieces", RegionDiagram.contacts),
    ("segments", build_segments),
)


def profile_trace(analysis: Analysis) -> tuple[float, list[tuple[str, str, int, float]], dict[str, float]]:
    """cProfile of one trace: total; (stage, function, calls, cumulative time); self time per module.

    Stages are matched by their functions' code objects, so a renamed function
    breaks this script at import instead of silently dropping out of the profile;
    a stage the trace never enters is listed with 0 calls.
    """
    profile = cProfile.Profile()
    profile.enable()
    trace(analysis)
    profile.disable()
    profile.create_stats()
    modules: dict[str, float] = defaultdict(float)
    for (filename, _, name), (_, _, own, _, _) in profile.stats.items():
        modules[_module(filename, name)] += own
    stages = []
    for label, function in TRACE_STAGES:
        code = function.__code__
        _, calls, _, cumulative, _ = profile.stats.get((code.co_filename, code.co_firstlineno, code.co_name),
                                                       (0, 0, 0.0, 0.0, {}))
        where = f"{function.__module__.removeprefix('cspace.')}.{function.__qualname__}"
        stages.append((label, where, calls, cumulative))
    return sum(modules.values()), stages, dict(modules)


def _module(filename: str, name: str) -> str:
    """Where a profiled function's own time belongs: a cspace module or the library doing the work."""
    if "/cspace/" in filename:
        return "cspace/" + filename.rsplit("/cspace/", 1)[1]
    for library in ("highspy", "numpy", "shapely", "rtree", "scipy"):
        if library in filename or library in name:
            return library
    return "Python and builtins"


def lp_solve_times(analysis: Analysis) -> list[float]:
    """Wall time of every LP solve the tracer makes, timed through a wrapper on its manager.

    The tracer's dynamics solve through the tracer's one ``ConstraintManager``
    (``Tracer.manager``), so wrapping that instance's ``solve`` sees every LP.
    """
    tracer = Tracer(analysis)
    manager = tracer.manager
    solve = manager.solve
    times: list[float] = []

    def timed_solve(*args: np.ndarray) -> LpResult:
        start = time.perf_counter()
        result = solve(*args)
        times.append(time.perf_counter() - start)
        return result

    manager.solve = timed_solve
    tracer.run(analysis.mechanism.time)
    return times


def feasibility_times(analysis: Analysis, result: Trace) -> list[tuple[float, float, int]]:
    """Per traversed region: the fastest and the median of repeated feasibility LPs on its constraints, and its rows.

    The region is built from its key alone: every constraining pair's rows and the
    coordinate limits (the tracer itself builds regions from the active pairs'
    rows only, which are fewer).
    """
    manager = ConstraintManager(analysis.mechanism.tolerance.lp)
    diagram = RegionDiagram(analysis)
    found = []
    for key in sorted({piece.key for piece in result.pieces}):
        region = diagram.region(key)
        G, h = region.rows(), region.h
        seconds = [timed(lambda: manager.feasible(G, h))[0] for _ in range(FEASIBILITY_REPEATS)]
        found.append((min(seconds), statistics.median(seconds), len(h)))
    return found


def seconds_text(value: float) -> str:
    """A duration with three significant digits and a unit that keeps it readable."""
    if value < 1e-3:
        return f"{value * 1e6:.3g} us"
    if value < 1:
        return f"{value * 1e3:.3g} ms"
    return f"{value:.3g} s"


def ratio_text(value: float) -> str:
    """A ratio with three significant digits, trailing zeros kept: 8.00, 12.5, 150."""
    return f"{value:#.3g}".rstrip(".") if value < 1000 else f"{value:.0f}"


def error_text(value: float) -> str:
    """An event error: n/a when not measured, "missing" when an event is missing or extra."""
    return "n/a" if math.isnan(value) else ("missing" if math.isinf(value) else f"{value:.2e}")


def depth_text(value: float) -> str:
    """A penetration depth, n/a when not measured."""
    return "n/a" if math.isnan(value) else f"{value:.1e}"


def print_header(iterations: int, repeats: int) -> None:
    """When, on what machine, and with which versions and pymunk settings the benchmark ran."""
    print(f"cspace vs pymunk -- {datetime.datetime.now().isoformat(timespec='seconds')}")
    print(f"machine: {platform.platform()}, {platform.machine()}, {os.cpu_count()} cores, "
          f"load average {os.getloadavg()[0]:.2f} at start; Python {platform.python_version()}")
    print(f"cspace {importlib.metadata.version('cspace')}, pymunk {pymunk.version} "
          f"(Chipmunk {pymunk.chipmunk_version.split('-')[0]}), {iterations} solver iterations, "
          f"collision slop 1e-4 (feeder: table friction 1, g = 10); {repeats} alternating repetitions")
    print(f"cspace measured: {Path(cache.__file__).resolve().parent}, sources sha256 {cache._CODE[:12]}")
    print()


def print_table(headline: dict[str, list[float]], matched: SweepRow, exact: Events, ours: Events, depth: float,
                scaling: list[ScalingRow]) -> None:
    """The acceptance table: the 3-block feeder at matched accuracy, then the N-scaling rows.

    ``depth`` is cspace's deepest penetration on the 3-block feeder.
    """
    feeder = Feeder(3)
    peer = statistics.median(headline["pymunk"])
    print(f"{'case':<40}{'cspace':>10}{'pymunk':>10}{'pymunk/cspace':>15}{'cspace err':>12}"
          f"{'pymunk err':>12}{'cspace pen':>12}{'pymunk pen':>12}{'final diff':>12}{'runs':>6}")
    for label, key in (("feeder, cold (load+analyze+trace)", "cold"), ("feeder, pair spaces from disk cache", "disk"),
                       ("feeder, pair spaces cached (trace)", "cached")):
        print(f"{label:<40}{seconds_text(statistics.median(headline[key])):>10}{seconds_text(peer):>10}"
              f"{ratio_text(paired_ratio(headline['pymunk'], headline[key])):>15}{error_text(ours.error(feeder)):>12}"
              f"{error_text(matched.event_error):>12}{depth_text(depth):>12}"
              f"{depth_text(-matched.measurement.penetration):>12}{matched.final_difference:>12.1e}"
              f"{len(headline[key]):>6}")
    for row in scaling:
        label = f"N = {row.blocks} blocks, {row.blocks} revolutions, cold"
        cspace_time = seconds_text(row.cspace_seconds) + ("!" if row.cspace_failure else "")
        print(f"{label:<40}{cspace_time:>10}{seconds_text(row.pymunk_seconds):>10}"
              f"{'-' if row.cspace_failure else ratio_text(row.ratio):>15}{error_text(row.cspace_error):>12}"
              f"{error_text(row.pymunk_error):>12}{depth_text(row.cspace_penetration):>12}"
              f"{depth_text(row.pymunk_penetration):>12}{row.final_difference:>12.1e}{row.runs:>6}")
    print(f"pymunk at dt = 1/{round(1 / matched.dt)} (the largest step with event error <= {MATCHED_ACCURACY:g}); "
          "times are medians; pymunk/cspace is the median of back-to-back pairs.")
    print("err: largest |event time - exact| over the drops and touches; pen: deepest overlap of two parts "
          "over the run (cspace: largest excess of a pair-space row at a knot; pymunk: deepest contact; "
          f"not measured in pymunk from N = {SINGLE_RUN_FROM}); final diff: largest difference of pymunk's "
          "final block corners from cspace's")
    for row in scaling:
        if not row.cspace_failure:
            print(f"  N = {row.blocks}: cspace's final state is within {row.cspace_final:.1e} of x = 17 + 4(N-i), "
                  "y = -1")
    for row in scaling:
        if row.cspace_failure:
            print(f"! N = {row.blocks}: cspace fails ({row.cspace_failure[:160]}); the time is until it fails; "
                  f"pymunk's final state is compared with {row.against}")
    print()
    print("final block corners (x, y) after three revolutions, 3-block feeder:")
    for i, ((cx, cy), (px, py)) in enumerate(zip(ours.corners, matched.measurement.corners, strict=True), start=1):
        print(f"  block{i}: cspace ({cx:.6f}, {cy:.6f})  pymunk ({px:.6f}, {py:.6f})  "
              f"difference ({px - cx:+.1e}, {py - cy:+.1e})")
    print("event times (s):         " + "  ".join(f"{n:>9}" for n in ("drop 1", "drop 2", "drop 3",
                                                                       "touch 1", "touch 2", "touch 3")))
    for label, events in (("exact (closed form)", exact), ("cspace", ours),
                          (f"pymunk dt=1/{round(1 / matched.dt)}",
                           Events(matched.measurement.drops, matched.measurement.touches, []))):
        print(f"  {label:<22}" + "  ".join(f"{t:>9.5f}" for t in events.drops + events.touches))
    print()


def print_sweep(rows: list[SweepRow], feeder: Feeder, matched: SweepRow) -> None:
    """pymunk's accuracy, penetration and time at every time step tried, the matched one marked."""
    print("pymunk time-step sweep, 3-block feeder, three revolutions:")
    print(f"{'dt':>8}{'steps':>8}{'event err':>11}{'worst penetration':>19}{'final diff':>12}{'time':>10}")
    for row in rows:
        mark = "  <- matched accuracy" if row is matched else ""
        print(f"{'1/' + str(round(1 / row.dt)):>8}{steps_for(feeder, row.dt):>8}{error_text(row.event_error):>11}"
              f"{-row.measurement.penetration:>19.1e}{row.final_difference:>12.1e}"
              f"{seconds_text(row.seconds):>10}{mark}")
    print("penetration: deepest overlap of two shapes seen in any contact over the run (pymunk's "
          "contact distance, negated); time: median of pure-stepping runs")
    print()


def print_profile(analysis: Analysis, result: Trace, stages: dict[str, list[float]], repeats: int) -> None:
    """Where the time goes: analyze stages, trace stages, modules, and region vs LP cost."""
    print("where cspace's time goes, 3-block feeder:")
    print("  analyze stages (medians of the cold runs; pair spaces are built here):")
    for stage, values in stages.items():
        print(f"    {stage:<40}{seconds_text(statistics.median(values)):>10}")
    total, trace_stages, modules = profile_trace(analysis)
    print(f"  trace under cProfile, {seconds_text(total)} (cumulative time per stage; stages nest, so they overlap):")
    for label, where, calls, cumulative in trace_stages:
        share = 100 * cumulative / total
        print(f"    {label:<30}{where:<38}{calls:>7} calls{seconds_text(cumulative):>10}{share:>6.0f} %")
    samples = statistics.median(timed(result.samples)[0] for _ in range(repeats))
    print(f"    {'sampling (Trace.samples)':<30}{'trace.Trace.samples':<38}{'':>13}{seconds_text(samples):>10}"
          "   (after the trace, unprofiled)")
    print("  self time by module under cProfile:")
    for module, own in sorted(modules.items(), key=lambda item: -item[1]):
        if own >= 0.01 * total:
            print(f"    {module:<40}{seconds_text(own):>10}{100 * own / total:>6.0f} %")
    traces = [timed(lambda: trace(analysis))[0] for _ in range(TRACE_REPEATS)]
    fastest, typical = min(traces), statistics.median(traces)
    solves = lp_solve_times(analysis)
    print(f"  trace, {TRACE_REPEATS} runs (pair spaces cached, unprofiled): fastest {seconds_text(fastest)}, "
          f"median {seconds_text(typical)}; {result.stats.traversed_regions} traversed regions, "
          f"{len(result.pieces)} pieces, {result.stats.explored_regions} regions explored")
    if solves:
        print(f"  LP solves the tracer makes: {len(solves)}, median {seconds_text(statistics.median(solves))}, "
              f"{seconds_text(sum(solves))} in all ({100 * sum(solves) / fastest:.0f} % of the fastest trace)")
    else:
        print("  LP solves the tracer makes: none (every motion was determined without a program)")
    feasibility = feasibility_times(analysis, result)
    lp_fastest = statistics.median(best for best, _, _ in feasibility)
    lp_typical = statistics.median(middle for _, middle, _ in feasibility)
    rows = statistics.median(count for _, _, count in feasibility)
    print(f"  one feasibility LP on a traversed region's constraints ({rows:.0f} rows x "
          f"{len(analysis.mechanism.coordinates)} coordinates, every pair and the limits), median over the "
          f"{len(feasibility)} regions of {FEASIBILITY_REPEATS} solves each: fastest {seconds_text(lp_fastest)}, "
          f"median {seconds_text(lp_typical)}")
    regions, pieces = result.stats.traversed_regions, len(result.pieces)
    for label, count in (("traversed region", regions), ("piece", pieces)):
        best, middle = fastest / count, typical / count
        print(f"    per {label + ':':<18}fastest {seconds_text(best):>9} = {best / lp_fastest:5.1f} LPs;  "
              f"median {seconds_text(middle):>9} = {middle / lp_typical:5.1f} LPs")


# -- the Geneva drive ------------------------------------------------------------------------------


@dataclass
class WheelRun:
    """One program's run of the Geneva drive: when the wheel starts and stops, how far off the
    closed form it is, and how deep the real shapes overlap.

    ``error`` is against the clearance-corrected event times, ``ideal_error`` against the
    engagement boundaries; ``engaged_error`` and ``dwell_error`` are the largest |w - closed
    form| (rad) with the pin in a slot and while the wheel dwells; ``final`` is the wheel's
    last angle off where the last engagement leaves it (the closed form plus the slot's play);
    ``depth`` the deepest overlap of the real shapes at the program's poses (every step, every
    sample), ``pass_through`` whether the pin's centre entered the wheel's material.
    """

    starts: list[float]
    stops: list[float]
    error: float
    ideal_error: float
    engaged_error: float
    dwell_error: float
    final: float
    depth: float
    pass_through: bool
    poses: int


@dataclass
class GenevaSweepRow:
    """pymunk at one time step on the Geneva drive: its run and the median wall time of stepping."""

    dt: float
    run: dict
    measured: WheelRun
    seconds: float


def geneva_turns(mechanism_time: float) -> float:
    """Turns of the crank (1 rad/s) in the fixture's time allotment: pymunk steps as long."""
    return mechanism_time / (2 * math.pi)


def wheel_run(times: np.ndarray, crank: np.ndarray, wheel: np.ndarray, starts: list[float], stops: list[float],
              turns: float) -> WheelRun:
    """Errors and overlap of a run given its poses (crank and wheel angles, unwrapped) and events."""
    g = peer_geneva.geneva()
    reference = peer_geneva.reference_events(turns)
    error = max(peer_geneva.event_error(starts, reference.starts), peer_geneva.event_error(stops, reference.stops))
    ideal = max(peer_geneva.event_error(starts, reference.ideal_starts),
                peer_geneva.event_error(stops, reference.ideal_stops))
    off = np.abs(wheel - np.array([wheel_angle(a) for a in crank]))
    inside = np.abs(np.array([turn_and_alpha(a)[1] for a in crank])) <= HALF
    a0 = g.coordinates["crank"].initial
    last = engagement_bounds(a0, a0 + turns * 2 * math.pi)[-1][1]
    final = math.remainder(float(wheel[-1]) - peer_geneva.pushed(g, last), 2 * math.pi)
    depth, through = peer_geneva.depths(g, crank, wheel)
    return WheelRun(starts, stops, error, ideal, float(off[inside].max(initial=0.0)),
                    float(off[~inside].max(initial=0.0)), final, depth, through, len(times))


def cspace_wheel_run(result: Trace, turns: float) -> WheelRun:
    """cspace's Geneva events from its segments, errors and overlap at every sample of its path.

    The wheel starts where a segment in which it moves (its velocity's sign, constant over a
    segment) follows one in which it does not, and stops where one in which it does not follows.
    """
    index = result.mechanism.coordinate_index
    w = index["w"]
    starts: list[float] = []
    stops: list[float] = []
    moving = False
    for segment in result.segments:
        now = segment.first.signs[w] != 0
        if now != moving:
            (starts if now else stops).append(segment.start_time)
        moving = now
    samples = result.samples()
    times = np.array([t for t, _, _ in samples])
    configs = np.array([q for _, _, q in samples])
    return wheel_run(times, configs[:, index["a"]], configs[:, w], starts, stops, turns)


def pymunk_wheel_run(run_result: dict, turns: float) -> WheelRun:
    """pymunk's Geneva run (peer_geneva.run_pymunk) in the same terms as cspace's."""
    return wheel_run(run_result["time"], run_result["crank"], run_result["wheel"], run_result["starts"],
                     run_result["stops"], turns)


def replay_overlaps(result: Trace) -> tuple[int, float]:
    """cspace.testing.replay's overlap violations (deeper than the length tolerance): how many, deepest."""
    found = [v for v in replay(result) if v.kind == OVERLAP]
    return len(found), max((v.amount for v in found), default=0.0)


def geneva_text(arc: float) -> str:
    """The Geneva fixture with ``[tolerance] arc = arc``."""
    return GENEVA.read_text() + f"\n[tolerance]\narc = {arc!r}\n"


@dataclass
class ToleranceRow:
    """cspace on the Geneva drive at one arc tolerance: its pair space, times, run or failure."""

    arc: float
    regions: int
    analyze_seconds: float
    trace_seconds: float
    run: WheelRun | None
    replayed: tuple[int, float]
    failure: str


def geneva_tolerance_row(arc: float, turns: float) -> ToleranceRow:
    """Analyze cold once, trace three times (the median), measure the run."""
    seconds, analysis = timed(lambda: analyze(loads(geneva_text(arc)), workers=WORKERS))
    regions = sum(len(p.regions) for p in analysis.pairs)
    try:
        traces = [timed(lambda: trace(analysis)) for _ in range(3)]
    except CspaceError as error:
        return ToleranceRow(arc, regions, seconds, math.nan, None, (0, 0.0), f"{type(error).__name__}: {error}")
    result = traces[0][1]
    return ToleranceRow(arc, regions, seconds, statistics.median(t for t, _ in traces),
                        cspace_wheel_run(result, turns), replay_overlaps(result), "")


def geneva_sweep(turns: float, iterations: int, repeats: int) -> list[GenevaSweepRow]:
    """pymunk (simple dynamics) at every step of peer_geneva's sweep: measured once, timed ``repeats`` times."""
    rows = []
    for rate in peer_geneva.STEPS_PER_SECOND:
        dt = 1.0 / rate
        result = peer_geneva.run_pymunk(dt, turns, iterations, peer_geneva.SIMPLE)
        seconds = [peer_geneva.simulate(dt, turns, iterations, peer_geneva.SIMPLE)[0] for _ in range(repeats)]
        rows.append(GenevaSweepRow(dt, result, pymunk_wheel_run(result, turns), statistics.median(seconds)))
    return rows


def geneva_matched(rows: list[GenevaSweepRow]) -> GenevaSweepRow:
    """The largest step whose event error is within the matched accuracy (else the most accurate)."""
    good = [r for r in rows if r.measured.error <= MATCHED_ACCURACY]
    return max(good, key=lambda r: r.dt) if good else min(rows, key=lambda r: r.measured.error)


def geneva_pairs(dt: float, turns: float, iterations: int, repeats: int) -> dict[str, list[float]]:
    """cspace (cold, disk cache, pair space cached) and pymunk on the Geneva drive, alternating
    as in :func:`headline_pairs`."""
    analysis = analyze(load(GENEVA), workers=WORKERS)
    times: dict[str, list[float]] = defaultdict(list)

    def cold() -> None:
        times["cold"].append(timed(lambda: cspace_cold(GENEVA))[0])

    def disk() -> None:
        times["disk"].append(timed(lambda: cspace_cold(GENEVA, use_disk_cache=True))[0])

    def cached() -> None:
        times["cached"].append(timed(lambda: trace(analysis))[0])

    def peer() -> None:
        times["pymunk"].append(peer_geneva.simulate(dt, turns, iterations, peer_geneva.SIMPLE)[0])

    for r in range(repeats):
        for action in ((cold, disk, cached, peer) if r % 2 == 0 else (peer, cold, disk, cached)):
            action()
    return times


def geneva_benchmark(repeats: int, iterations: int) -> None:
    """The Geneva section: cspace's runs, pymunk's sweep, the alternating timings, the tables."""
    started = time.perf_counter()
    analysis, result = cspace_cold(GENEVA, use_disk_cache=True)  # fills the disk cache
    turns = geneva_turns(result.mechanism.time)
    ours, replayed = cspace_wheel_run(result, turns), replay_overlaps(result)
    rows = geneva_sweep(turns, iterations, repeats)
    matched = geneva_matched(rows)
    times = geneva_pairs(matched.dt, turns, iterations, repeats)
    build = statistics.median(timed(lambda: peer_geneva.build(peer_geneva.geneva(), iterations))[0]
                              for _ in range(repeats))
    finer = [geneva_tolerance_row(arc, turns) for arc in GENEVA_FINE_ARCS]
    print_geneva(times, matched, ours, replayed, analysis, result, turns, build, iterations, finer)
    print_geneva_sweep(rows, matched)
    print(f"Geneva section took {time.perf_counter() - started:.0f} s")


def print_geneva(times: dict[str, list[float]], matched: GenevaSweepRow, ours: WheelRun, replayed: tuple[int, float],
                 analysis: Analysis, result: Trace, turns: float, build: float, iterations: int,
                 finer: list[ToleranceRow]) -> None:
    """The Geneva table at matched accuracy, the event times and the replay's verdict."""
    mechanism = result.mechanism
    peer = statistics.median(times["pymunk"])
    them = matched.measured
    print(f"Geneva drive (fixtures/geneva.toml): {mechanism.time:g} s of input ({turns:.4f} turns of the crank at "
          f"1 rad/s); pymunk {pymunk.version}, simple dynamics (the wheel's velocity cleared every step), "
          f"{iterations} solver iterations, collision slop {peer_geneva.SLOP:g}, arcs flattened within "
          f"{peer_geneva.ARC:g} of the centre distance")
    print(f"{'case':<44}{'cspace':>10}{'pymunk':>10}{'pymunk/cspace':>15}{'cspace err':>12}{'pymunk err':>12}"
          f"{'cspace pen':>12}{'pymunk pen':>12}{'pass-through':>14}{'runs':>6}")
    arc = mechanism.tolerance.arc / mechanism.tolerance.size
    cases = (("geneva, cold (load+analyze+trace)", "cold"), ("geneva, pair space from disk cache", "disk"),
             ("geneva, pair space cached (trace)", "cached"))
    for label, key in cases:
        print(f"{label:<44}{seconds_text(statistics.median(times[key])):>10}{seconds_text(peer):>10}"
              f"{ratio_text(paired_ratio(times['pymunk'], times[key])):>15}{error_text(ours.error):>12}"
              f"{error_text(them.error):>12}{depth_text(ours.depth):>12}{depth_text(them.depth):>12}"
              f"{('yes' if ours.pass_through else 'no') + ' / ' + ('yes' if them.pass_through else 'no'):>14}"
              f"{len(times[key]):>6}")
    print(f"pymunk at dt = 1/{round(1 / matched.dt)} (the largest step with event error <= {MATCHED_ACCURACY:g} s); "
          f"times are medians; pymunk/cspace is the median of back-to-back pairs; cspace's default arc tolerance "
          f"is {arc:g} (x size {mechanism.tolerance.size:.4g}).")
    print("err: largest |event time - closed form| over the wheel's starts and stops, the clearance-corrected "
          "times (peer_geneva.reference_events); pen: deepest overlap of the real shapes at every pymunk step and "
          "every cspace sample (the pin exactly, the locking disk by shapely); pass-through: cspace / pymunk, the "
          "pin's centre inside the wheel's material.")
    print(f"pymunk's time is its stepping loop ({matched.run['steps']} steps, reading the two angles every step); "
          f"building its space (convex pieces of the locking disk, the wheel's outline) takes {seconds_text(build)} "
          "more, not counted.")
    count, deepest = replayed
    print(f"cspace.testing.replay: {count} overlap violations over {len(result.samples())} samples (deeper than "
          f"the length tolerance {mechanism.tolerance.length:.2g})" + (f", deepest {deepest:.2g}" if count else ""))
    reference = peer_geneva.reference_events(turns)
    names = [f"start {k}" for k in range(1, len(reference.starts) + 1)] + \
        [f"stop {k}" for k in range(1, len(reference.stops) + 1)]
    print("event times (s from the start):  " + "  ".join(f"{n:>9}" for n in names)
          + f"{'err':>10}{'vs bounds':>11}{'engaged':>10}{'dwell':>10}{'final w':>10}")
    print(f"  {'engagement boundaries':<31}" + "  ".join(f"{t:>9.5f}" for t in reference.ideal_starts +
                                                     reference.ideal_stops))
    print(f"  {'clearance-corrected (used)':<31}" + "  ".join(f"{t:>9.5f}" for t in reference.starts +
                                                          reference.stops))
    runs = [(f"cspace, arc {arc:g}", ours)] + [(f"cspace, arc {row.arc:g}", row.run) for row in finer if row.run]
    for label, run_ in runs + [(f"pymunk dt=1/{round(1 / matched.dt)}", them)]:
        values = "  ".join(f"{t:>9.5f}" for t in run_.starts + run_.stops)
        print(f"  {label:<31}{values}{error_text(run_.error):>10}{error_text(run_.ideal_error):>11}"
              f"{run_.engaged_error:>10.1e}{run_.dwell_error:>10.1e}{run_.final:>+10.1e}")
    print("engaged, dwell: largest |w - closed form with the pin on the slot's axis| (rad) with the pin in a slot "
          "(the slot's play allows 1.4e-3 to 3.4e-3) and while the wheel dwells; final w: the wheel's last angle "
          "minus where the last engagement leaves it (closed form + the slot's play at the mouth), rad")
    print()
    print(f"cspace at finer arc tolerances (the default is {arc:g}): pair space built cold once, trace median of 3")
    print(f"{'arc':>8}{'regions':>9}{'analyze':>10}{'trace':>10}{'event err':>11}{'final w':>10}{'replay':>8}"
          f"{'pen':>9}")
    print(f"{arc:>8g}{sum(len(p.regions) for p in analysis.pairs):>9}"
          f"{seconds_text(statistics.median(times['cold'])):>10}{seconds_text(statistics.median(times['cached'])):>10}"
          f"{error_text(ours.error):>11}{ours.final:>+10.1e}{replayed[0]:>8}{depth_text(ours.depth):>9}"
          "   (the table above: cold is load + analyze + trace)")
    for row in finer:
        if row.run is None:
            print(f"{row.arc:>8g}{row.regions:>9}{seconds_text(row.analyze_seconds):>10}{'fails':>10}   {row.failure}")
        else:
            print(f"{row.arc:>8g}{row.regions:>9}{seconds_text(row.analyze_seconds):>10}"
                  f"{seconds_text(row.trace_seconds):>10}{error_text(row.run.error):>11}{row.run.final:>+10.1e}"
                  f"{row.replayed[0]:>8}{depth_text(row.run.depth):>9}")
    print()


def print_geneva_sweep(rows: list[GenevaSweepRow], matched: GenevaSweepRow) -> None:
    """pymunk's Geneva accuracy, overlap and time at every time step tried, the matched one marked."""
    print("pymunk time-step sweep, Geneva drive (simple dynamics):")
    print(f"{'dt':>8}{'steps':>8}{'event err':>11}{'vs bounds':>11}{'engaged':>10}{'dwell':>10}{'final w':>10}"
          f"{'penetration':>13}{'pass-through':>14}{'skipped':>9}{'time':>10}")
    for row in rows:
        m = row.measured
        mark = "  <- matched accuracy" if row is matched else ""
        print(f"{'1/' + str(round(1 / row.dt)):>8}{row.run['steps']:>8}{error_text(m.error):>11}"
              f"{error_text(m.ideal_error):>11}{m.engaged_error:>10.1e}{m.dwell_error:>10.1e}{m.final:>+10.1e}"
              f"{m.depth:>13.1e}{'yes' if m.pass_through else 'no':>14}{'yes' if row.run['skipped'] else 'no':>9}"
              f"{seconds_text(row.seconds):>10}{mark}")
    print("time: median of pure-stepping runs; penetration: deepest overlap of the real shapes posed at every step")
    print()



def main() -> None:
    """Parse the options and run the benchmark with a disk cache of its own."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5, help="alternating repetitions (default 5)")
    parser.add_argument("--blocks", type=int, nargs="*", default=[3, 10, 30, 100],
                        help="block counts of the N-scaling rows (default 3 10 30 100)")
    parser.add_argument("--iterations", type=int, default=10, help="pymunk solver iterations (default 10)")
    parser.add_argument("--only", choices=("feeder", "geneva"), help="run one section only (default: both)")
    args = parser.parse_args()
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="cspace-bench-cache-") as folder:
        global CACHE
        CACHE = folder  # the disk cache starts empty and is the benchmark's own
        print_header(args.iterations, args.repeats)
        if args.only != "geneva":
            benchmark(args.repeats, args.blocks, args.iterations)
        if args.only != "feeder":
            print()
            geneva_benchmark(args.repeats, args.iterations)
    print(f"\nbenchmark took {time.perf_counter() - started:.0f} s")


def benchmark(repeats: int, blocks: list[int], iterations: int) -> None:
    """The feeder section: measure everything, then print the table, the time-step sweep and the profile."""
    started = time.perf_counter()
    feeder = Feeder(3)
    analysis, result = cspace_cold(FIXTURE, use_disk_cache=True)  # fills the disk cache
    ours = cspace_events(result, feeder)
    exact = Events(feeder.drop_times(), feeder.touch_times(), expected_corners(feeder))
    rows = pymunk_sweep(feeder, iterations, repeats, ours.corners)
    matched = matched_step(rows)
    headline, stages = headline_pairs(matched.dt, iterations, repeats)
    scaling = [scaling_row(n, matched.dt, iterations, repeats) for n in blocks]
    print_table(headline, matched, exact, ours, cspace_penetration(analysis, result), scaling)
    print_sweep(rows, feeder, matched)
    print_profile(analysis, result, stages, repeats)
    print(f"\nfeeder section took {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
