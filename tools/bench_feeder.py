"""Time the feeder by stage: load, linkage tables, overlap check, pairs, pair spaces, trace,
and the reports (``--json``'s document and ``--stats``'s table) against the trace.

Prints the median and spread of several runs (the machine is shared and noisy, so
single timings mean little) and the work counts that do not depend on the machine:
LP solves, regions explored, pieces of path. The last line is the reports' cost as a
multiple of the trace's, medians of the same runs (issue 13's goal: at most 1 on the
feeder, 2 on the 50-block feeder, ``python tools/feeder_n.py 50 > feeder-50.toml``).

    python tools/bench_feeder.py [--runs 9] [--file fixtures/feeder.toml] [--until T]
"""

from __future__ import annotations

import argparse
import platform
import statistics
import time
from pathlib import Path

from cspace import analyze, load, trace
from cspace.report.describe import statistics as table_2
from cspace.report.describe import to_json

ROOT = Path(__file__).resolve().parent.parent


def one_run(path: Path, until: float | None) -> tuple[dict[str, float], dict[str, int]]:
    seconds: dict[str, float] = {}
    start = time.perf_counter()
    mechanism = load(path)
    seconds["load"] = time.perf_counter() - start
    analysis = analyze(mechanism)
    seconds.update(analysis.timings)
    start = time.perf_counter()
    result = trace(analysis, until=until)
    seconds["trace"] = time.perf_counter() - start
    seconds["total"] = sum(seconds.values())
    start = time.perf_counter()
    to_json(result, statistics=table_2(result))
    seconds["--json --stats"] = time.perf_counter() - start
    counts = {"LP solves": result.stats.lp_solves, "explored regions": result.stats.explored_regions,
              "traversed regions": result.stats.traversed_regions, "pieces": result.stats.pieces,
              "segments": len(result.segments)}
    return seconds, counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--file", type=Path, default=ROOT / "fixtures" / "feeder.toml")
    parser.add_argument("--until", type=float, default=None, help="trace to this time (default: the allotment)")
    args = parser.parse_args()
    one_run(args.file, args.until)  # warm up imports and caches of the libraries
    runs = [one_run(args.file, args.until) for _ in range(args.runs)]
    print(f"{args.file.name}: {args.runs} runs on {platform.machine()} {platform.python_implementation()} "
          f"{platform.python_version()}")
    print(f"{'stage':<16}{'median ms':>11}{'min ms':>9}{'max ms':>9}")
    for stage in runs[0][0]:
        values = [r[0][stage] * 1e3 for r in runs]
        print(f"{stage:<16}{statistics.median(values):>11.1f}{min(values):>9.1f}{max(values):>9.1f}")
    counts = runs[0][1]
    assert all(r[1] == counts for r in runs), "work counts differ between runs"
    for name, value in counts.items():
        print(f"{name:<16}{value:>11}")
    ratios = [r[0]["--json --stats"] / r[0]["trace"] for r in runs]
    print(f"reports / trace: {statistics.median(ratios):.2f} (median of the runs' ratios; "
          f"min {min(ratios):.2f}, max {max(ratios):.2f})")


if __name__ == "__main__":
    main()
