"""Time the paper's Table 2 mechanisms, cold and cached, beside the paper's runtimes.

Each run is a fresh child process that loads, analyses and traces the mechanism and
computes its statistics (what ``cspace stats`` reports as the runtime; interpreter
start-up and imports excluded). "cold": the pair-space disk cache off, every pair
space computed. "cached": the pair spaces read from a disk cache a first run filled
(a temporary one, so the user's cache is untouched). Medians of ``--runs`` runs, the
turning pair spaces built by ``--workers`` processes (by default the processors, as the
command line does; ``--workers 1`` times one process alone). The paper's figures
are minutes of Lisp on a 1992 workstation; issue 26's goal is each at most 0.3 s cold,
in one process, on this machine.

Besides the wall-clock time of the whole run, each child reports the CPU time it took
and the share of loading and analysing (``cspace.analyze``, wall-clock): on a machine
shared with other work the CPU time moves least. ``--against DIR`` times another checkout of cspace (an
older commit: ``git worktree add /tmp/old main``) in the same run, cold, its runs
alternating with this one's, and prints the median of the pairs' ratios (above 1: this
checkout is faster). The load average is printed before and after.

    python tools/bench_table2.py [--runs 5] [--workers N] [--against DIR] [FILE ...]
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from cspace.spaces import parallel

ROOT = Path(__file__).resolve().parent.parent
PAPER_MINUTES = {"feeder": 10, "transmission": 0.3, "rim-lock": 2, "shoe-brake": 0.2}
DEFAULT = [ROOT / "fixtures" / f"{name}.toml" for name in PAPER_MINUTES
           if (ROOT / "fixtures" / f"{name}.toml").exists()]
CHILD = """
import sys, time
from cspace import analyze, load, trace
from cspace.report.describe import statistics
from cspace.viz.mesh import with_mesh_counts
start, cpu = time.perf_counter(), time.process_time()
analysis = analyze(load(sys.argv[1]), cache=sys.argv[2] or None, workers=int(sys.argv[3]))
analyzed = time.perf_counter()
result = trace(analysis)
with_mesh_counts(statistics(result), result.mechanism)
print(time.perf_counter() - start, time.process_time() - cpu, analyzed - start)
"""


def run_once(path: Path, cache: str, workers: int, root: Path = ROOT) -> tuple[float, float, float]:
    """Seconds of one child's load, analysis, trace and statistics (wall-clock, CPU, and the
    load's and analysis' wall-clock) with the pair-space cache in the folder ``cache`` (none if empty),
    ``workers`` processes and the cspace of the checkout ``root``."""
    env = {**os.environ, "PYTHONPATH": str(root)}
    out = subprocess.run([sys.executable, "-c", CHILD, str(path), cache, str(workers)], env=env, check=True,
                         capture_output=True, text=True, cwd=root)
    wall, cpu, analysis = map(float, out.stdout.strip().splitlines()[-1].split())
    return wall, cpu, analysis


def medians(runs: list[tuple[float, ...]]) -> tuple[float, ...]:
    """The median of each measure over the runs."""
    return tuple(statistics.median(measure) for measure in zip(*runs))


def load_average() -> str:
    return ", ".join(f"{x:.2f}" for x in os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="*", type=Path, default=DEFAULT)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--workers", type=int, default=parallel.usable())
    parser.add_argument("--against", type=Path, help="another checkout of cspace, timed cold in the same run")
    args = parser.parse_args()
    print(f"{args.runs} runs each on {platform.machine()} {platform.python_implementation()} "
          f"{platform.python_version()}, medians, {args.workers} worker process(es); load average {load_average()}")
    print(f"{'mechanism':<14}{'paper':>10}{'cold s':>9}{'CPU s':>8}{'analysis s':>12}{'cached s':>10}")
    compared = []
    for path in args.files:
        cold, other = [], []
        for _ in range(args.runs):
            cold.append(run_once(path, "", args.workers))
            if args.against:
                other.append(run_once(path, "", args.workers, args.against))
        with tempfile.TemporaryDirectory() as folder:
            run_once(path, folder, args.workers)  # fills the cache
            cached = statistics.median(run_once(path, folder, args.workers)[0] for _ in range(args.runs))
        minutes = PAPER_MINUTES.get(path.stem)
        paper = f"{minutes:g} min" if minutes is not None else "-"
        wall, cpu, analysis = medians(cold)
        print(f"{path.stem:<14}{paper:>10}{wall:>9.3f}{cpu:>8.3f}{analysis:>12.3f}{cached:>10.3f}")
        if args.against:
            ratios = [statistics.median(theirs[k] / mine[k] for mine, theirs in zip(cold, other)) for k in range(3)]
            compared.append((path.stem, medians(other), ratios))
    if compared:
        print(f"\ncold, {args.against} in the same run (ratios: its time over this checkout's, medians of the pairs)")
        print(f"{'mechanism':<14}{'cold s':>9}{'CPU s':>8}{'analysis s':>12}{'cold':>8}{'CPU':>7}{'analysis':>10}")
        for name, (wall, cpu, analysis), ratios in compared:
            print(f"{name:<14}{wall:>9.3f}{cpu:>8.3f}{analysis:>12.3f}" + "".join(f"{r:>{w}.2f}" for r, w in
                                                                          zip(ratios, (8, 7, 10))))
    print(f"load average after: {load_average()}")


if __name__ == "__main__":
    main()
