"""Small linear programs: vertex enumeration against a fresh HiGHS model, per solve and in the trace (issue 26).

1. **The programs**: every program ``cspace trace FILE --json`` poses through
   ``ConstraintManager.solve`` on the fixtures named, captured as posed: the velocity
   programs of simple dynamics, and the redundancy and equality programs of the report's
   region constraints.
2. **Per solve**: each program solved by HiGHS as before (``ConstraintManager(small=0)``, a
   fresh model per program) and as now (``ConstraintManager()``: the enumeration of
   ``cspace.kernels.vertices``, HiGHS where it declines), alternating, the median of
   ``--repeats`` solves per program; then the median over the programs of each kind (who
   posed it, unknowns x rows), and the share the enumeration answers itself. Beside them,
   HiGHS's floor: ``run()`` alone on the model already passed, the least any reuse of one
   HiGHS model (warm-started or not) still pays per solve.
3. **The trace**: ``cspace.trace`` of each fixture named by ``--trace`` (the Geneva drive and
   the ratchet by default) with every program left to HiGHS and as now, alternating, the
   median of ``--repeats`` traces; the programs the trace poses and how many of them went to
   HiGHS.

Times are ``time.perf_counter`` in this one process; the load average is printed with them
(the machine may be shared: compare the ratios, which are measured side by side).

    python tools/bench_lp.py [--repeats 11] [--fixtures ratchet rim-lock ...] [--trace geneva ratchet]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import platform
import statistics
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

from cspace import analyze, load, trace
from cspace.cli import main as cli
from cspace.kernels import vertices
from cspace.kernels.constraints import ConstraintManager

ROOT = Path(__file__).resolve().parent.parent

# The fixtures whose trace or report poses programs (the feeder, the escapement and others pose none).
FIXTURES = ("cam", "conveyor", "dxf-cam", "eccentric-cam", "feeder-sticky", "gears", "geneva", "lever",
            "ramp-release", "ratchet", "rim-lock", "shoe-brake", "spring-crank", "spring-gate", "transmission",
            "wedge")
KINDS = {"_solved": "velocity", "essential": "redundancy", "equalities": "equalities", "bounds": "bounds",
         "feasible": "feasibility"}


def captured(names: list[str]) -> list[tuple[str, float, tuple, bool]]:
    """(kind, tolerance, arguments, point) of every program ``cspace trace FILE --json`` poses."""
    programs = []
    solve = ConstraintManager.solve

    def recording(self, *args, point=True):
        kind = KINDS.get(sys._getframe(1).f_code.co_name, sys._getframe(1).f_code.co_name)
        programs.append((kind, self.tolerance, tuple(np.array(a, float) for a in args), point))
        return solve(self, *args, point=point)

    ConstraintManager.solve = recording
    try:
        for name in names:
            with contextlib.redirect_stdout(io.StringIO()):
                cli(["trace", str(ROOT / "fixtures" / f"{name}.toml"), "--json"])
    finally:
        ConstraintManager.solve = solve
    return programs


def per_solve(programs, repeats: int) -> list[tuple]:
    """Per kind: (kind, unknowns, rows, count, HiGHS's median, the enumeration's, share it answers)."""
    groups: dict[tuple, list] = defaultdict(list)
    for kind, tolerance, args, point in programs:
        n = len(args[0])
        groups[(kind, n, args[1].reshape(-1, n).shape[0])].append((tolerance, args, point))
    rows = []
    for (kind, n, m), members in sorted(groups.items(), key=lambda item: -len(item[1])):
        old_times, new_times, answered = [], [], 0
        for tolerance, args, point in members:
            old, new = ConstraintManager(tolerance, small=0), ConstraintManager(tolerance)
            answered += vertices.solve(*args, tolerance, point) is not None
            samples = {id(old): [], id(new): []}
            for r in range(repeats):
                for manager in ((old, new) if r % 2 else (new, old)):
                    start = time.perf_counter()
                    manager.solve(*args, point=point)
                    samples[id(manager)].append(time.perf_counter() - start)
            old_times.append(statistics.median(samples[id(old)]))
            new_times.append(statistics.median(samples[id(new)]))
        rows.append((kind, n, m, len(members), statistics.median(old_times), statistics.median(new_times),
                     answered / len(members)))
    return rows


def highs_floor(programs, repeats: int) -> float:
    """Median seconds of HiGHS's ``run()`` alone, on each velocity program's model already passed."""
    times = []
    for kind, tolerance, args, point in programs:
        if kind != "velocity":
            continue
        manager = ConstraintManager(tolerance, small=0)
        manager.solve(*args)
        samples = []
        for _ in range(repeats):
            manager._highs.clearSolver()
            start = time.perf_counter()
            manager._highs.run()
            samples.append(time.perf_counter() - start)
        times.append(statistics.median(samples))
    return statistics.median(times)


def trace_times(name: str, repeats: int) -> tuple[float, float, int, int]:
    """(median seconds all to HiGHS, median seconds as now, programs posed, of them to HiGHS)."""
    analysis = analyze(load(ROOT / "fixtures" / f"{name}.toml"))
    default = vertices.MAX_UNKNOWNS
    to_highs = 0
    highs = ConstraintManager._solve_highs

    def counted(self, *args):
        nonlocal to_highs
        to_highs += 1
        return highs(self, *args)

    samples: dict[int, list[float]] = {0: [], default: []}
    trace(analysis)  # warm: caches, lazily imported modules
    try:
        for r in range(repeats):
            for small in ((0, default) if r % 2 else (default, 0)):
                vertices.MAX_UNKNOWNS = small
                start = time.perf_counter()
                result = trace(analysis)
                samples[small].append(time.perf_counter() - start)
        vertices.MAX_UNKNOWNS = default
        ConstraintManager._solve_highs = counted
        result = trace(analysis)
    finally:
        vertices.MAX_UNKNOWNS = default
        ConstraintManager._solve_highs = highs
    return statistics.median(samples[0]), statistics.median(samples[default]), result.stats.lp_solves, to_highs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=11)
    parser.add_argument("--fixtures", nargs="+", default=list(FIXTURES))
    parser.add_argument("--trace", nargs="+", default=["geneva", "ratchet"])
    args = parser.parse_args()
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout
    print(f"{platform.machine()}, {os.cpu_count()} cores, CPython {platform.python_version()}, "
          f"commit {commit.strip() or '?'}; medians of {args.repeats}, alternating")
    programs = captured(args.fixtures)
    print(f"\n{len(programs)} programs posed by `cspace trace FILE --json` on {len(args.fixtures)} fixtures\n")
    print("| posed by | unknowns | rows | programs | HiGHS (µs) | enumeration (µs) | ratio | answered by enumeration |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    table = per_solve(programs, args.repeats)
    for kind, n, m, count, old, new, share in table:
        print(f"| {kind} | {n} | {m} | {count} | {old * 1e6:.1f} | {new * 1e6:.1f} | {old / new:.1f}x | {share:.0%} |")
    weights = [row[3] for row in table]
    old_all = sum(row[4] * w for row, w in zip(table, weights)) / sum(weights)
    new_all = sum(row[5] * w for row, w in zip(table, weights)) / sum(weights)
    print(f"\nall programs (kinds weighted by count): HiGHS {old_all * 1e6:.1f} µs, enumeration "
          f"{new_all * 1e6:.1f} µs per solve, {old_all / new_all:.1f}x")
    print(f"HiGHS's floor, run() alone on a model already passed (velocity programs): "
          f"{highs_floor(programs, args.repeats) * 1e6:.1f} µs")
    print("\n| trace | programs posed | to HiGHS now | all to HiGHS (ms) | as now (ms) | ratio |")
    print("|---|---:|---:|---:|---:|---:|")
    for name in args.trace:
        old, new, posed, to_highs = trace_times(name, args.repeats)
        print(f"| {name} | {posed} | {to_highs} | {old * 1e3:.1f} | {new * 1e3:.1f} | {old / new:.2f}x |")
    print(f"\nload average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
