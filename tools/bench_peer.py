"""cspace against pymunk at matched accuracy, feeder and Geneva drive: trace only, cold, whole process, alternating.

Both programs are held to one accuracy target, ``TARGET``: every event time within 1e-3 s
of the closed form.

* The feeder (``fixtures/feeder.toml``, three revolutions of the crank; the pymunk model
  is ``tools/peer_feeder.py``): the stack's three drops and the piston touching each
  block, against the exact crank-slider times of ``tools/feeder_n.py``.
* The Geneva drive (``fixtures/geneva.toml``, its 12.6 s allotment, two turns of the
  crank and a bit; the pymunk model is ``tools/peer_geneva.py``, simple dynamics: the
  wheel's velocity cleared every step): the wheel's starts and stops, against the
  clearance-corrected closed form of ``peer_geneva.reference_events``.

What it does, per scenario:

1. **pymunk's step**, dt = 1/k for whole k: k from 50 up by a factor (1.25; 1.6 with
   ``--quick``) until pymunk's event error meets the target, then a bisection on k between
   the last miss and the first hit. The event error is not monotone in the step (events
   are step times, and a step may fall just after an event or just before it), so from the
   bisection's answer on, k is tried one by one until ``--window`` (10; 2 with ``--quick``)
   finer steps in a row meet the target too: the chosen step is the first of that run,
   the largest step from which the target holds steadily. Every k from ``window`` below
   the bisection's answer to the end of the run is printed as hit or miss. pymunk's
   events are detected every step from Python, in runs that are not timed.
2. **cspace's tolerance**: cspace at its default arc tolerance (1e-4 of its size), then
   ``[tolerance] arc`` = 5e-5, 2e-5, 1e-5, 5e-6, 2e-6, 1e-6 (5e-5, 1e-5 with ``--quick``),
   then the default and each of these arcs again with ``length`` = 1e-8 (the default is
   1e-7), until its own event error meets the target. The loosest that meets it is raced; if
   none does, the one with the smallest error is, and the tables say so. For each: the
   pair spaces' regions, analyze and trace time (one run), event error and
   ``cspace.testing.replay``'s overlap violations; cspace's events come from its segments.
3. **The timings**, each the median of ``--repeats`` back-to-back pairs after one untimed
   warm-up pair, the program that runs first swapping every round; the ratio is the
   median over the pairs of pymunk's time / cspace's (above 1: cspace is faster):

   * *trace only*: ``cspace.trace`` on an analysed mechanism, against pymunk stepping a
     space built beforehand (the feeder's loop only steps; the Geneva's also reads both
     angles and the wheel's speed every step, what its event detection needs);
   * *cold, in a fresh process*: one ``python -c`` process each, timed inside it from
     after the script's imports (``from cspace import analyze, load, trace``; ``import
     peer_feeder`` or ``peer_geneva``, which import pymunk) to the end of the work:
     cspace's load + analyze (no pair-space cache, as ``CSPACE_CACHE=off``; workers as the
     command line's default) + trace, against pymunk's read of its layout file + build +
     stepping. What the work imports on first use (lazily) is on the clock;
   * *cold, all imports out*: the same, with the modules the work imports on first use
     (listed by a run before) loaded before the clock as well, for both alike;
   * *whole process*: ``cspace trace FILE`` (the installed command, ``CSPACE_CACHE=off``,
     its report written to /dev/null) against ``python tools/peer_feeder.py LAYOUT --dt
     DT`` (``peer_geneva.py`` for the Geneva), each from start to exit, imports in.

   pymunk's model is read from a layout file (JSON) both cold and as a process, as cspace
   reads its mechanism file; for the Geneva it holds the convex pieces of the locking disk
   and the wheel's flattened outlines, computed beforehand with cspace's geometry and not
   timed (the time it takes is printed). The pymunk processes import pymunk and nothing
   heavier; each runs the same build and stepping functions as the trace-only figure,
   and gives the same final state (checked). The machine's load average is printed with
   the figures: the machine may be shared, so compare ratios, not times.

Options: ``--only feeder|geneva``; ``--iterations`` (pymunk's solver, default 10);
``--blocks N ...`` adds the N-block feeder (N revolutions) cold in a fresh process at the
feeder's chosen step, one pair from 30 blocks; ``--profile`` adds where cspace's trace
of the feeder spends its time (cProfile by stage; cspace's internals).

    python tools/bench_peer.py [--quick] [--repeats 11] [--window 10] [--only feeder|geneva]
                               [--iterations 10] [--blocks 10 30 100] [--profile]

pymunk is a benchmark-only dependency (``pip install '.[bench]'``); cspace never imports it.
"""

from __future__ import annotations

import argparse
import datetime
import importlib.metadata
import json
import math
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType

import numpy as np
import peer_feeder
import peer_geneva
import pymunk
from feeder_n import Feeder
from geneva_geometry import engagement_bounds

from cspace import CspaceError, Trace, analyze, load, loads, trace
from cspace.spaces import cache, parallel
from cspace.testing import OVERLAP, replay

ROOT = Path(__file__).resolve().parent.parent
TOOLS = ROOT / "tools"
FIXTURE = ROOT / "fixtures" / "feeder.toml"
GENEVA = ROOT / "fixtures" / "geneva.toml"
TARGET = 1e-3  # s: the largest event error either program may have
ARCS = (5e-5, 2e-5, 1e-5, 5e-6, 2e-6, 1e-6)
FINE_LENGTH = 1e-8  # [tolerance] length tried with each arc where no arc alone meets the target
# [tolerance] (arc, length) tried in order where the default misses (None: the default): the finer
# arcs, then each arc again with the finer length (the Geneva's pin stands 7.5e-6 off the wall it
# will push, 1.6 default length tolerances: only a finer length lets the start be placed).
FINE_ARCS = tuple((arc, None) for arc in ARCS) + tuple((arc, FINE_LENGTH) for arc in (None, *ARCS))
QUICK_ARCS = ((5e-5, None), (1e-5, None))
SEARCH_FROM = 50  # the coarsest pymunk step tried is 1/SEARCH_FROM
SEARCH_LIMIT = 20000  # the finest is 1/SEARCH_LIMIT
SINGLE_RUN_FROM = 30  # N-block feeders from this size are timed once
WORKERS = parallel.usable()  # as many processes as the command line uses by default

Errors = dict[int, float]  # pymunk's event error at dt = 1/k, by k


@dataclass(frozen=True)
class Settings:
    """How thoroughly to search and how often to time."""

    repeats: int
    iterations: int
    window: int  # finer steps in a row that must meet the target after the chosen one
    growth: float  # factor between the coarse scan's k
    arcs: tuple[float, ...]


# -- pymunk's step ---------------------------------------------------------------------------------


@dataclass
class StepSearch:
    """pymunk's event error at every step tried, and the step chosen (None: no k up to the limit meets)."""

    errors: Errors
    chosen: int | None
    boundary: int  # the bisection's answer: the smallest k meeting the target with k - 1 missing it
    window: range  # the k tried one by one around it, up to the last of the chosen step's run

    @property
    def dt(self) -> float:
        return 1.0 / self.chosen if self.chosen else math.nan

    def pattern(self, width: int = 100) -> list[str]:
        """The window's k, '+' meeting the target and '-' missing it, the chosen one in brackets; ``width``
        k a line, each line led by its first k."""
        return [f"{k0:>6}  " + "".join(f"[{self._mark(k)}]" if k == self.chosen else self._mark(k)
                                       for k in self.window[i:i + width])
                for i, k0 in enumerate(self.window) if i % width == 0]

    def _mark(self, k: int) -> str:
        return "+" if self.errors[k] <= TARGET else "-"


def search_step(error_at: Callable[[float], float], settings: Settings) -> StepSearch:
    """The largest step 1/k that meets the target steadily: coarse scan, bisection on k, then k by k from the
    bisection's answer until ``settings.window`` finer steps in a row meet it too."""
    errors: Errors = {}

    def meets(k: int) -> bool:
        if k not in errors:
            errors[k] = error_at(1.0 / k)
        return errors[k] <= TARGET

    miss, hit = SEARCH_FROM - 1, SEARCH_FROM
    while not meets(hit):
        if hit >= SEARCH_LIMIT:
            return StepSearch(errors, None, hit, range(hit, hit + 1))
        miss, hit = hit, min(SEARCH_LIMIT, math.ceil(hit * settings.growth))
    while hit - miss > 1:
        middle = (miss + hit) // 2
        miss, hit = (miss, middle) if meets(middle) else (middle, hit)
    chosen, window = steady_step(meets, hit, max(1, settings.window))
    return StepSearch(errors, chosen, hit, window)


def steady_step(meets: Callable[[int], bool], boundary: int, run: int) -> tuple[int | None, range]:
    """The smallest k from ``boundary`` on such that k and the ``run`` finer steps after it all meet the target
    (None if none up to the limit), and the k tried for it: every k from ``boundary - run`` (coarser steps
    that meet the target by their alignment with the events are shown, not chosen)."""
    low = max(1, boundary - run)
    for k in range(low, boundary):
        meets(k)
    start = k = boundary
    while k - start <= run:
        if k > SEARCH_LIMIT:
            return None, range(low, k)
        k += 1
        if not meets(k - 1):
            start = k
    return start, range(low, k)


# -- cspace's tolerance ----------------------------------------------------------------------------


@dataclass
class ArcRow:
    """cspace at one arc and length tolerance (None: the file's default): its pair spaces, times, error, replay."""

    arc: float | None
    length: float | None = None
    regions: int = 0
    analyze_seconds: float = math.nan
    trace_seconds: float = math.nan
    error: float = math.nan
    overlaps: int = 0
    failure: str = ""
    result: Trace | None = None

    def label(self) -> str:
        arc = "default" if self.arc is None else f"{self.arc:g}"
        return arc if self.length is None else f"{arc}, length {self.length:g}"


def mechanism_text(fixture: Path, arc: float | None, length: float | None = None) -> str:
    """The fixture, with ``[tolerance] arc = arc`` and ``length = length`` where they are not None."""
    text = fixture.read_text()
    settings = "".join(f"{key} = {value!r}\n" for key, value in (("arc", arc), ("length", length)) if value is not None)
    return text + f"\n[tolerance]\n{settings}" if settings else text


def arc_row(fixture: Path, arc: float | None, error_of: Callable[[Trace], float],
            length: float | None = None) -> ArcRow:
    """Analyze cold and trace once at ``arc`` and ``length``; the event error and replay's overlap violations."""
    row = ArcRow(arc, length)
    try:
        row.analyze_seconds, analysis = timed(lambda: analyze(loads(mechanism_text(fixture, arc, length)),
                                                              workers=WORKERS))
        row.regions = sum(len(p.regions) for p in analysis.pairs)
        row.trace_seconds, row.result = timed(lambda: trace(analysis))
    except CspaceError as error:
        row.failure = f"{type(error).__name__}: {error}"
        return row
    row.error = error_of(row.result)
    row.overlaps = sum(1 for v in replay(row.result) if v.kind == OVERLAP)
    return row


def search_arc(fixture: Path, error_of: Callable[[Trace], float],
               arcs: tuple[tuple[float | None, float | None], ...]) -> list[ArcRow]:
    """cspace at its default tolerances, then at each (arc, length) in turn until its event error meets the target."""
    rows = [arc_row(fixture, None, error_of)]
    for arc, length in arcs:
        if rows[-1].error <= TARGET:
            break
        rows.append(arc_row(fixture, arc, error_of, length))
    return rows


def chosen_arc(rows: list[ArcRow]) -> ArcRow:
    """The loosest arc meeting the target, else the one with the smallest error (the loosest of equals)."""
    good = [r for r in rows if r.error <= TARGET]
    return good[0] if good else min((r for r in rows if not r.failure), key=lambda r: r.error)


# -- timings ---------------------------------------------------------------------------------------


def timed(action: Callable[[], object]) -> tuple[float, object]:
    """Wall time of one call and its result."""
    start = time.perf_counter()
    result = action()
    return time.perf_counter() - start, result


@dataclass
class Figure:
    """One timing: cspace's and pymunk's times, paired (the i-th of each measured back to back)."""

    label: str
    cspace: list[float]
    pymunk: list[float]
    load: tuple[float, float, float]  # os.getloadavg() when its last pair ended

    @property
    def ratio(self) -> float:
        """Median over the pairs of pymunk's time / cspace's."""
        return statistics.median(p / c for p, c in zip(self.pymunk, self.cspace, strict=True))


def alternate(label: str, ours: Callable[[], float], theirs: Callable[[], float], repeats: int) -> Figure:
    """One untimed warm-up pair, then ``repeats`` pairs back to back, the one run first swapping every round."""
    ours(), theirs()
    cspace_times: list[float] = []
    pymunk_times: list[float] = []
    for r in range(repeats):
        if r % 2 == 0:
            cspace_times.append(ours())
            pymunk_times.append(theirs())
        else:
            pymunk_times.append(theirs())
            cspace_times.append(ours())
    return Figure(label, cspace_times, pymunk_times, os.getloadavg())


# The cold runs: a fresh process each, timed from after its imports to the end of the work; argv[2]
# lists modules to load before the clock as well (those its work imports, or none). It prints the
# seconds and the modules its work imported.
COLD = """\
import importlib, sys, time
sys.path.insert(0, sys.argv[1])
{imports}
for name in filter(None, sys.argv[2].split(",")):
    try:
        importlib.import_module(name)
    except Exception:  # a module that cannot be imported alone is left to the work
        pass
before = set(sys.modules)
start = time.perf_counter()
{work}
seconds = time.perf_counter() - start
print(seconds, ",".join(sorted(set(sys.modules) - before)))
"""
CSPACE_COLD = COLD.format(imports="from cspace import analyze, load, trace",
                          work="trace(analyze(load(sys.argv[3]), workers=int(sys.argv[4])))")
PYMUNK_COLD = COLD.format(imports="import {module}",
                          work="{module}.run_file(sys.argv[3], float(sys.argv[4]), int(sys.argv[5]))")
# Processes read modules from their bytecode, as after ``pip install`` (which compiles it, and
# pymunk's is): with PYTHONDONTWRITEBYTECODE, a checkout whose bytecode is missing or stale would
# compile cspace's modules from source at every start, so it is dropped, as tools/bench_startup.py
# drops it; the warm-up pair writes the bytecode.
ENVIRONMENT = {**{key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"},
               "CSPACE_CACHE": "off"}


@dataclass
class ColdRun:
    """One cold process's own time and the modules its work imported (comma-separated)."""

    seconds: float
    modules: str


@dataclass
class ColdProcess:
    """A ``python -c`` process timing its own work; ``preload`` the modules its work imports (found by a first run)."""

    code: str
    arguments: list[str]
    preload: str = ""

    def preload_work_imports(self) -> int:
        """From now on, load before the clock the modules the work imports (listed by a run); how many."""
        self.preload = ""
        self.preload = self.run().modules
        return len(self.preload.split(",")) if self.preload else 0

    def seconds(self) -> float:
        return self.run().seconds

    def run(self) -> ColdRun:
        done = checked([sys.executable, "-c", self.code, str(TOOLS), self.preload, *self.arguments],
                       stdout=subprocess.PIPE)
        seconds, _, modules = done.stdout.decode().strip().rpartition("\n")[2].partition(" ")
        return ColdRun(float(seconds), modules)


def checked(command: list[str], stdout: int) -> subprocess.CompletedProcess:
    """Run a process (``CSPACE_CACHE=off``); if it fails, raise with the end of what it said on standard error."""
    done = subprocess.run(command, check=False, stdout=stdout, stderr=subprocess.PIPE, env=ENVIRONMENT)
    if done.returncode:
        raise RuntimeError(f"{command[0]} ... {command[-1]} exited with {done.returncode}:\n"
                           f"{done.stderr.decode()[-2000:]}")
    return done


def process_seconds(command: list[str]) -> float:
    """Wall time of a process from start to exit (its output to /dev/null)."""
    start = time.perf_counter()
    checked(command, subprocess.DEVNULL)
    return time.perf_counter() - start


def cspace_command(path: Path) -> list[str]:
    """``cspace trace FILE``: the installed command beside this Python, else the same entry point through it."""
    script = Path(sys.executable).with_name("cspace")
    if script.exists():
        return [str(script), "trace", str(path)]
    return [sys.executable, "-c", "import sys; from cspace.cli import main; sys.exit(main())", "trace", str(path)]


# -- the scenarios ---------------------------------------------------------------------------------


@dataclass
class Scenario:
    """One race: cspace's mechanism, pymunk's model (its peer module and layout), and how each one's event
    error is measured."""

    name: str
    fixture: Path
    peer: ModuleType  # build_layout(layout, iterations), step(model, dt, count), run_file(path, dt, iterations)
    layout: dict
    layout_seconds: float  # time to make the layout from the fixture (not timed in any figure)
    steps: Callable[[float], int]  # pymunk's steps at dt
    cspace_error: Callable[[Trace], float]
    pymunk_error: Callable[[float, int], float]  # at dt, with the solver iterations


@dataclass
class Race:
    """Everything measured on one scenario."""

    scenario: Scenario
    search: StepSearch
    arcs: list[ArcRow]
    arc: ArcRow
    figures: list[Figure] = field(default_factory=list)
    preloaded: tuple[int, int] = (0, 0)  # modules the work imports, loaded before the clock: cspace's, pymunk's
    same_final: bool = True  # the pymunk process ends where the in-process run does

    def default_arc(self) -> float:
        """cspace's default arc tolerance, relative to the mechanism's size."""
        result = self.arcs[0].result
        return result.mechanism.tolerance.arc / result.mechanism.tolerance.size if result else math.nan


def feeder_scenario() -> Scenario:
    """The 3-block feeder: events are the drops and touches, against the exact crank-slider times."""
    feeder = Feeder(3)
    seconds, layout = timed(lambda: peer_feeder.layout(feeder))

    def pymunk_error(dt: float, iterations: int) -> float:
        m = peer_feeder.measure(feeder, dt, iterations, penetration=False)
        return Events(m.drops, m.touches, m.corners).error(feeder)

    return Scenario("feeder", FIXTURE, peer_feeder, layout, seconds,
                    lambda dt: peer_feeder.steps(layout["duration"], dt),
                    lambda result: cspace_events(result, feeder).error(feeder), pymunk_error)


def geneva_scenario() -> Scenario:
    """The Geneva drive: events are the wheel's starts and stops, against the clearance-corrected closed form."""
    seconds, layout = timed(lambda: peer_geneva.layout(peer_geneva.geneva()))
    turns = layout["turns"]

    def pymunk_error(dt: float, iterations: int) -> float:
        _, samples = peer_geneva.simulate(dt, turns, iterations, peer_geneva.SIMPLE)
        return geneva_error(*peer_geneva.wheel_events(samples[:, 0], samples[:, 3]), turns)

    return Scenario("Geneva", GENEVA, peer_geneva, layout, seconds, lambda dt: peer_geneva.steps_for(dt, turns),
                    lambda result: geneva_error(*cspace_wheel_events(result), turns), pymunk_error)


def race(scenario: Scenario, settings: Settings, folder: Path) -> Race:
    """Search pymunk's step and cspace's tolerance, then time trace only, cold (twice) and whole process."""
    search = search_step(lambda dt: scenario.pymunk_error(dt, settings.iterations), settings)
    arcs = search_arc(scenario.fixture, scenario.cspace_error, settings.arcs)
    found = Race(scenario, search, arcs, chosen_arc(arcs))
    if search.chosen is None:
        return found
    mechanism = folder / f"{scenario.fixture.stem}.toml"
    mechanism.write_text(mechanism_text(scenario.fixture, found.arc.arc, found.arc.length))
    layout = folder / f"{scenario.fixture.stem}-pymunk.json"
    layout.write_text(json.dumps(scenario.layout))
    found.same_final = peer_process_agrees(scenario, layout, search.dt, settings.iterations)
    found.figures.append(trace_only(scenario, mechanism, search.dt, settings))
    cold, found.preloaded = cold_start(scenario, mechanism, layout, search.dt, settings)
    found.figures += cold
    found.figures.append(whole_process(scenario, mechanism, layout, search.dt, settings))
    return found


def peer_command(scenario: Scenario, layout: Path, dt: float, iterations: int) -> list[str]:
    """The pymunk peer as a program: its script on the layout file."""
    return [sys.executable, scenario.peer.__file__, str(layout), "--dt", repr(dt), "--iterations", str(iterations)]


def peer_process_agrees(scenario: Scenario, layout: Path, dt: float, iterations: int) -> bool:
    """Whether the pymunk process prints the final state the same functions give in this process."""
    printed = checked(peer_command(scenario, layout, dt, iterations), subprocess.PIPE).stdout.decode()
    return [float(x) for x in printed.split()] == list(np.ravel(scenario.peer.run_file(layout, dt, iterations)))


def trace_only(scenario: Scenario, mechanism: Path, dt: float, settings: Settings) -> Figure:
    """cspace.trace on an analysed mechanism vs pymunk stepping a space built beforehand."""
    analysis = analyze(load(mechanism), workers=WORKERS)
    count = scenario.steps(dt)

    def ours() -> float:
        return timed(lambda: trace(analysis))[0]

    def theirs() -> float:
        model = scenario.peer.build_layout(scenario.layout, settings.iterations)
        return timed(lambda: scenario.peer.step(model, dt, count))[0]

    return alternate("trace only", ours, theirs, settings.repeats)


def cold_start(scenario: Scenario, mechanism: Path, layout: Path, dt: float,
               settings: Settings) -> tuple[list[Figure], tuple[int, int]]:
    """Load + analyze + trace vs read + build + step, each in a fresh process: timed from after the script's
    imports, then also with the modules the work imports loaded before the clock; and how many those were."""
    module = scenario.peer.__name__
    ours = ColdProcess(CSPACE_COLD, [str(mechanism), str(WORKERS)])
    theirs = ColdProcess(PYMUNK_COLD.format(module=module), [str(layout), repr(dt), str(settings.iterations)])
    figures = [alternate("cold, fresh process", ours.seconds, theirs.seconds, settings.repeats)]
    preloaded = (ours.preload_work_imports(), theirs.preload_work_imports())
    figures.append(alternate("cold, all imports out", ours.seconds, theirs.seconds, settings.repeats))
    return figures, preloaded


def whole_process(scenario: Scenario, mechanism: Path, layout: Path, dt: float, settings: Settings) -> Figure:
    """``cspace trace FILE`` vs the pymunk peer's script, each start to exit."""
    ours, theirs = cspace_command(mechanism), peer_command(scenario, layout, dt, settings.iterations)
    return alternate("whole process", lambda: process_seconds(ours), lambda: process_seconds(theirs),
                     settings.repeats)


# -- events ----------------------------------------------------------------------------------------


@dataclass
class Events:
    """Feeder event times (drops, touches, in order of revolution) and final block corners (x, y)."""

    drops: list[float]
    touches: list[float]
    corners: list[tuple[float, float]]

    def error(self, feeder: Feeder) -> float:
        """Largest deviation from the exact event times; inf if an event is missing or extra."""
        found, exact = self.drops + self.touches, feeder.drop_times() + feeder.touch_times()
        if len(self.drops) != feeder.revolutions or len(self.touches) != feeder.revolutions:
            return math.inf
        return max(abs(a - b) for a, b in zip(found, exact, strict=True))


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


def cspace_wheel_events(result: Trace) -> tuple[list[float], list[float]]:
    """When cspace's wheel starts and stops: a segment in which it moves (its velocity's sign, constant over
    a segment) after one in which it does not, and the reverse, counted when the new state lasts
    ``peer_geneva.HOLD``, the rule pymunk's events are read by (:func:`peer_geneva.wheel_events`): the pin
    touching a slot's mouth corner in passing is an instant's segment, not a start."""
    w = result.mechanism.coordinate_index["w"]
    states = [(segment.start_time, segment.end_time, segment.first.signs[w] != 0) for segment in result.segments]
    starts: list[float] = []
    stops: list[float] = []
    moving = False
    for i, (start, _, now) in enumerate(states):
        if now == moving:
            continue
        end = start
        for _, later_end, later in states[i:]:
            if later != now:
                break
            end = later_end
        if end - start >= peer_geneva.HOLD or i + 1 == len(states) or end >= states[-1][1]:
            (starts if now else stops).append(start)
            moving = now
    return starts, stops


def geneva_error(starts: list[float], stops: list[float], turns: float) -> float:
    """Largest |event time - clearance-corrected closed form| over the wheel's starts and stops (inf: missing)."""
    reference = peer_geneva.reference_events(turns)
    return max(peer_geneva.event_error(starts, reference.starts), peer_geneva.event_error(stops, reference.stops))


@dataclass
class WheelRun:
    """One program's Geneva run: events, errors (against the corrected and the ideal closed form), the wheel's
    last angle off where the last engagement leaves it (rad), deepest overlap of the real shapes, pass-through."""

    starts: list[float]
    stops: list[float]
    error: float
    ideal_error: float
    final: float
    depth: float
    pass_through: bool


def wheel_run(crank: np.ndarray, wheel: np.ndarray, starts: list[float], stops: list[float],
              turns: float) -> WheelRun:
    """A Geneva run's accuracy given its poses (crank and wheel angles, unwrapped) and events."""
    g = peer_geneva.geneva()
    reference = peer_geneva.reference_events(turns)
    ideal = max(peer_geneva.event_error(starts, reference.ideal_starts),
                peer_geneva.event_error(stops, reference.ideal_stops))
    a0 = g.coordinates["crank"].initial
    last = engagement_bounds(a0, a0 + turns * 2 * math.pi)[-1][1]
    final = math.remainder(float(wheel[-1]) - peer_geneva.pushed(g, last), 2 * math.pi)
    depth, through = peer_geneva.depths(g, crank, wheel)
    return WheelRun(starts, stops, geneva_error(starts, stops, turns), ideal, final, depth, through)


def cspace_wheel_run(result: Trace, turns: float) -> WheelRun:
    """cspace's Geneva run, its overlap measured at every sample of its path."""
    index = result.mechanism.coordinate_index
    configs = np.array([q for _, _, q in result.samples()])
    return wheel_run(configs[:, index["a"]], configs[:, index["w"]], *cspace_wheel_events(result), turns)


def pymunk_wheel_run(dt: float, turns: float, iterations: int) -> WheelRun:
    """pymunk's Geneva run at dt, its overlap measured at every step."""
    found = peer_geneva.run_pymunk(dt, turns, iterations, peer_geneva.SIMPLE)
    return wheel_run(found["crank"], found["wheel"], found["starts"], found["stops"], turns)


# -- printing --------------------------------------------------------------------------------------


def seconds_text(value: float) -> str:
    """A duration with three significant digits and a unit that keeps it readable."""
    if math.isnan(value):
        return "n/a"
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


def load_text(load: tuple[float, float, float]) -> str:
    return " / ".join(f"{x:.2f}" for x in load)


def cspace_revision() -> str:
    """The commit cspace is measured at, and whether its sources differ from it (read-only git)."""
    def git(*args: str) -> str:
        done = subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True, check=False)
        return done.stdout.strip() if done.returncode == 0 else ""

    commit = git("rev-parse", "--short", "HEAD")
    sources = f"sources sha256 {cache._CODE[:12]}"  # the digest the pair-space cache keys on: what was measured
    if not commit:
        return f"{sources}, not a git checkout"
    changed = git("status", "--porcelain", "--", "cspace")
    return f"{sources}, at {commit}" + (f" with {len(changed.splitlines())} changed file(s) under cspace/"
                                        if changed else "")


def print_header(settings: Settings, quick: bool) -> None:
    """When, on what machine, with which versions and settings the benchmark ran."""
    print(f"cspace vs pymunk at matched accuracy -- {datetime.datetime.now().isoformat(timespec='seconds')}"
          + ("  (--quick: a smoke run)" if quick else ""))
    print(f"machine: {platform.platform()}, {platform.machine()}, {os.cpu_count()} cores; Python "
          f"{platform.python_version()}; load average (1 / 5 / 15 min) at start {load_text(os.getloadavg())}")
    print(f"cspace {importlib.metadata.version('cspace')} ({Path(sys.modules['cspace'].__file__).parent}, "
          f"{cspace_revision()}), "
          f"pymunk {pymunk.version} (Chipmunk {pymunk.chipmunk_version.split('-')[0]}), {settings.iterations} "
          f"solver iterations, collision slop 1e-4; cspace analyzes with {WORKERS} worker(s), the command line's "
          "default")
    print(f"target: every event within {TARGET:g} s of the closed form, for both programs; {settings.repeats} "
          f"alternating pairs per timing (after a warm-up pair); pymunk's step: coarse factor {settings.growth:g}, "
          f"bisection, then k by k until {settings.window} finer steps in a row meet the target too")
    print()


def print_race(found: Race) -> None:
    """A scenario's step search, cspace's tolerances, and the three timings."""
    scenario, search = found.scenario, found.search
    print(f"== {scenario.name} ({scenario.fixture.relative_to(ROOT)}) ==")
    print_search(search)
    print_arcs(found)
    if search.chosen is None:
        print(f"no pymunk step up to 1/{SEARCH_LIMIT} meets the target: not timed")
        return
    print_figures(found)


def print_search(search: StepSearch) -> None:
    """pymunk's step search: the steps tried, the window around the boundary, the step chosen."""
    tried = sorted(search.errors)
    print(f"pymunk step search (dt = 1/k): {len(tried)} steps tried, k = {tried[0]} to {tried[-1]}")
    outside = [k for k in tried if k not in search.window]
    print("  coarse scan and bisection: " + ", ".join(f"1/{k} {error_text(search.errors[k])}" for k in outside))
    print(f"  k by k from {search.window.start} to {search.window.stop - 1} (+ meets {TARGET:g} s, - misses, the "
          f"chosen step in brackets; errors {error_text(min(search.errors[k] for k in search.window))} to "
          f"{error_text(max(search.errors[k] for k in search.window))}):")
    for line in search.pattern():
        print("  " + line)
    if search.chosen is None:
        return
    between = range(search.boundary, search.chosen)
    hits = sum(search.errors[k] <= TARGET for k in between)
    print(f"  chosen: dt = 1/{search.chosen} ({search.dt:.6g} s), event error {error_text(search.errors[search.chosen])}"
          f" s, the first of {search.window.stop - search.chosen} steps in a row that meet the target; the "
          f"bisection's answer was 1/{search.boundary}"
          + (f", and {hits} of the {len(between)} steps from there to the chosen one meet the target, the others "
             "miss it" if len(between) else ""))


def print_arcs(found: Race) -> None:
    """cspace's event error at each arc tolerance tried, the one raced marked."""
    print(f"cspace at [tolerance] arc and length (relative to its size; the default arc is "
          f"{found.default_arc():g}), until its "
          "own event error meets the target:")
    print(f"  {'arc, length':<24}{'regions':>9}{'analyze':>10}{'trace':>10}{'event err':>11}{'replay overlaps':>17}")
    for row in found.arcs:
        mark = "  <- raced" if row is found.arc else ""
        if row.failure:
            print(f"  {row.label():<24}{row.regions:>9}{seconds_text(row.analyze_seconds):>10}  fails: "
                  f"{row.failure[:120]}")
            continue
        print(f"  {row.label():<24}{row.regions:>9}{seconds_text(row.analyze_seconds):>10}"
              f"{seconds_text(row.trace_seconds):>10}{error_text(row.error):>11}{row.overlaps:>17}{mark}")
    if found.arc.error > TARGET:
        print(f"  ! cspace misses the {TARGET:g} s target at every arc tried: raced at arc "
              f"{found.arc.label()}, its smallest error ({error_text(found.arc.error)} s), while pymunk is held "
              "to the target")


def print_figures(found: Race) -> None:
    """The three timings: medians, the paired ratio, the load average when each ended."""
    scenario, search = found.scenario, found.search
    print(f"timings: cspace at arc {found.arc.label()} (event error {error_text(found.arc.error)} s) vs pymunk at dt = "
          f"1/{search.chosen} (event error {error_text(search.errors[search.chosen])} s)")
    print(f"  {'figure':<22}{'cspace':>10}{'pymunk':>10}{'pymunk/cspace':>15}{'pairs':>7}   load average (1/5/15 min)")
    for figure in found.figures:
        print(f"  {figure.label:<22}{seconds_text(statistics.median(figure.cspace)):>10}"
              f"{seconds_text(statistics.median(figure.pymunk)):>10}{ratio_text(figure.ratio):>15}"
              f"{len(figure.cspace):>7}   {load_text(figure.load)}")
    ours, theirs = found.preloaded
    print(f"  trace only: pymunk's space built beforehand ({scenario.steps(search.dt)} steps). cold: the clock "
          "starts after the script's imports (`from cspace import analyze, load, trace`; `import "
          f"{scenario.peer.__name__}`, which imports pymunk), so what the work imports on first use is on it; all "
          f"imports out: those modules too are loaded before the clock (cspace's work imports {ours}, pymunk's "
          f"{theirs}). whole process: imports in")
    print(f"  pymunk's layout ({scenario.name}) took {seconds_text(scenario.layout_seconds)} to make from the "
          f"fixture, not timed; the pymunk process ends where the in-process run does: "
          f"{'yes' if found.same_final else 'NO'}")


def print_feeder_detail(found: Race, iterations: int) -> None:
    """The feeder's events (exact, cspace, pymunk at the chosen step), overlaps and final states."""
    if found.search.chosen is None or found.arc.result is None:
        return
    feeder = Feeder(3)
    dt = found.search.dt
    peer = peer_feeder.measure(feeder, dt, iterations)
    ours = cspace_events(found.arc.result, feeder)
    names = ("drop 1", "drop 2", "drop 3", "touch 1", "touch 2", "touch 3")
    print("  event times (s):           " + "  ".join(f"{n:>9}" for n in names))
    for label, events in (("exact (closed form)", feeder.drop_times() + feeder.touch_times()),
                          ("cspace", ours.drops + ours.touches), (f"pymunk dt=1/{found.search.chosen}",
                                                                   peer.drops + peer.touches)):
        print(f"    {label:<24}" + "  ".join(f"{t:>9.5f}" for t in events))
    print(f"  deepest overlap: cspace {found.arc.overlaps} replay violations (deeper than its length tolerance); "
          f"pymunk {-peer.penetration:.1e} (its deepest contact); final block corners: pymunk within "
          f"{corner_difference(peer.corners, ours.corners):.1e} of cspace's")
    print()


def print_geneva_detail(found: Race, iterations: int) -> None:
    """The Geneva's events (closed form, cspace at each arc, pymunk at the chosen step), overlaps, final angle."""
    if found.search.chosen is None:
        return
    turns = found.scenario.layout["turns"]
    reference = peer_geneva.reference_events(turns)
    runs = [(f"cspace, arc {row.label()}", cspace_wheel_run(row.result, turns))
            for row in found.arcs if row.result is not None]
    runs.append((f"pymunk dt=1/{found.search.chosen}", pymunk_wheel_run(found.search.dt, turns, iterations)))
    names = [f"start {k}" for k in range(1, len(reference.starts) + 1)] + \
        [f"stop {k}" for k in range(1, len(reference.stops) + 1)]
    print("  event times (s):           " + "  ".join(f"{n:>9}" for n in names)
          + f"{'err':>10}{'vs bounds':>11}{'final w':>10}{'overlap':>9}{'through':>9}")
    print(f"    {'engagement boundaries':<24}" + "  ".join(f"{t:>9.5f}" for t in reference.ideal_starts
                                                        + reference.ideal_stops))
    print(f"    {'clearance-corrected':<24}" + "  ".join(f"{t:>9.5f}" for t in reference.starts + reference.stops))
    for label, run in runs:
        print(f"    {label:<24}" + "  ".join(f"{t:>9.5f}" for t in run.starts + run.stops)
              + f"{error_text(run.error):>10}{error_text(run.ideal_error):>11}{run.final:>+10.1e}"
              f"{run.depth:>9.1e}{'yes' if run.pass_through else 'no':>9}")
    print("  err: against the clearance-corrected times (the target's); vs bounds: against the engagement "
          "boundaries; final w: the wheel's last angle minus where the last engagement leaves it (rad); overlap: "
          "deepest of the real shapes at every cspace sample and every pymunk step; through: the pin's centre in "
          "the wheel's material")
    print()


# -- the N-block feeder (--blocks) -----------------------------------------------------------------


def scaling(blocks: list[int], dt: float, settings: Settings, folder: Path) -> None:
    """The N-block feeder, cold in a fresh process each, at the 3-block feeder's chosen step."""
    print(f"N-block feeder (N revolutions), cold in a fresh process (the clock after the script's imports), pymunk "
          f"at dt = 1/{round(1 / dt)}:")
    print(f"  {'N':>4}{'cspace':>10}{'pymunk':>10}{'pymunk/cspace':>15}{'pairs':>7}{'cspace err':>12}"
          f"{'pymunk err':>12}   load average")
    for n in blocks:
        feeder = Feeder(n)
        mechanism, layout = folder / f"feeder-{n}.toml", folder / f"feeder-{n}-pymunk.json"
        mechanism.write_text(feeder.toml())
        layout.write_text(json.dumps(peer_feeder.layout(feeder)))
        ours = ColdProcess(CSPACE_COLD, [str(mechanism), str(WORKERS)])
        theirs = ColdProcess(PYMUNK_COLD.format(module="peer_feeder"), [str(layout), repr(dt),
                                                                        str(settings.iterations)])
        figure = alternate(f"N = {n}", ours.seconds, theirs.seconds, 1 if n >= SINGLE_RUN_FROM else settings.repeats)
        try:
            cspace_error = cspace_events(trace(analyze(load(mechanism), workers=WORKERS)), feeder).error(feeder)
        except CspaceError:
            cspace_error = math.nan
        m = peer_feeder.measure(feeder, dt, settings.iterations, penetration=False)
        print(f"  {n:>4}{seconds_text(statistics.median(figure.cspace)):>10}"
              f"{seconds_text(statistics.median(figure.pymunk)):>10}{ratio_text(figure.ratio):>15}"
              f"{len(figure.cspace):>7}{error_text(cspace_error):>12}"
              f"{error_text(Events(m.drops, m.touches, m.corners).error(feeder)):>12}   {load_text(figure.load)}")
    print()


# -- where cspace's time goes (--profile) ----------------------------------------------------------


def profile_trace(repeats: int) -> None:
    """cProfile of one trace of the feeder by stage, and the trace's time per region and per piece.

    Stages are cspace's internal functions: a renamed one breaks this option only.
    """
    import cProfile

    from cspace.kernels.constraints import ConstraintManager
    from cspace.spaces.linkage import LinkageTable
    from cspace.tracing.dynamics import Mode, SimpleDynamics
    from cspace.tracing.regions import RegionDiagram
    from cspace.tracing.trace import build_segments
    from cspace.tracing.tracer import Tracer
    stages = (("tracer steps", Tracer.step), ("  region lookups", RegionDiagram.choices),
              ("  region building", RegionDiagram.region), ("  settling free pairs", RegionDiagram.settle),
              ("  determined motions", SimpleDynamics.determined), ("  velocity programs", SimpleDynamics.velocity),
              ("  modes of motion", SimpleDynamics.mode), ("  LP solves, all callers", ConstraintManager.solve),
              ("  following", Tracer.follow), ("    along one linkage table", Tracer.follow_table),
              ("    cell by cell", Tracer.follow_cells), ("      mode velocity per cell", Mode.velocity_at),
              ("    linkage table lookahead", LinkageTable.ahead), ("  contacts of pieces", RegionDiagram.contacts),
              ("segments", build_segments))
    analysis = analyze(load(FIXTURE), workers=WORKERS)
    profile = cProfile.Profile()
    profile.enable()
    result = trace(analysis)
    profile.disable()
    profile.create_stats()
    total = sum(own for _, _, own, _, _ in profile.stats.values())
    print(f"where cspace's trace of the feeder goes (cProfile, {seconds_text(total)}; stages nest, so they overlap):")
    for label, function in stages:
        code = function.__code__
        _, calls, _, cumulative, _ = profile.stats.get((code.co_filename, code.co_firstlineno, code.co_name),
                                                       (0, 0, 0.0, 0.0, {}))
        print(f"  {label:<30}{function.__qualname__:<34}{calls:>7} calls{seconds_text(cumulative):>10}"
              f"{100 * cumulative / total:>6.0f} %")
    times = [timed(lambda: trace(analysis))[0] for _ in range(max(5, 3 * repeats))]
    typical = statistics.median(times)
    print(f"  trace unprofiled, median of {len(times)}: {seconds_text(typical)}; {result.stats.traversed_regions} "
          f"traversed regions ({seconds_text(typical / result.stats.traversed_regions)} each), "
          f"{len(result.pieces)} pieces ({seconds_text(typical / len(result.pieces))} each)")
    print()


# -- main ------------------------------------------------------------------------------------------


def run_scenario(make: Callable[[], Scenario], settings: Settings, folder: Path,
                 detail: Callable[[Race, int], None]) -> Race:
    """Race one scenario and print it, with how long it took."""
    started = time.perf_counter()
    found = race(make(), settings, folder)
    print_race(found)
    detail(found, settings.iterations)
    print(f"{found.scenario.name} took {time.perf_counter() - started:.0f} s")
    print()
    return found


def settings_from(args: argparse.Namespace) -> Settings:
    """The search and timing settings: the options, or a smoke run's with --quick."""
    repeats = args.repeats if args.repeats is not None else (3 if args.quick else 11)
    window = args.window if args.window is not None else (2 if args.quick else 10)
    return Settings(repeats, args.iterations, window, 1.6 if args.quick else 1.25,
                    QUICK_ARCS if args.quick else FINE_ARCS)


def main() -> None:
    """Parse the options and run the races."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true",
                        help="a smoke run: 3 pairs, a coarser step search (--window 2), two arc tolerances")
    parser.add_argument("--repeats", type=int, help="alternating pairs per timing (default 11; 3 with --quick)")
    parser.add_argument("--window", type=int, help="finer steps in a row that must meet the target after pymunk's "
                        "chosen step (default 10; 2 with --quick)")
    parser.add_argument("--iterations", type=int, default=10, help="pymunk solver iterations (default 10)")
    parser.add_argument("--only", choices=("feeder", "geneva"), help="run one scenario only (default: both)")
    parser.add_argument("--blocks", type=int, nargs="*", default=[],
                        help="also the N-block feeder, cold, for these N (default: none)")
    parser.add_argument("--profile", action="store_true", help="also profile cspace's trace of the feeder")
    args = parser.parse_args()
    settings = settings_from(args)
    started = time.perf_counter()
    print_header(settings, args.quick)
    with tempfile.TemporaryDirectory(prefix="cspace-bench-peer-") as folder:
        if args.only != "geneva":
            feeder = run_scenario(feeder_scenario, settings, Path(folder), print_feeder_detail)
            if args.blocks and feeder.search.chosen:
                scaling(args.blocks, feeder.search.dt, settings, Path(folder))
            if args.profile:
                profile_trace(settings.repeats)
        if args.only != "feeder":
            run_scenario(geneva_scenario, settings, Path(folder), print_geneva_detail)
    print(f"load average (1 / 5 / 15 min) at the end {load_text(os.getloadavg())}; "
          f"benchmark took {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
