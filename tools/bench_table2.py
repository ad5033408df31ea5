"""Time the paper's Table 2 mechanisms, cold and cached, beside the paper's runtimes.

Each run is a fresh child process that loads, analyses and traces the mechanism and
computes its statistics (what ``cspace stats`` reports as the runtime; interpreter
start-up and imports excluded). "cold": the pair-space disk cache off, every pair
space computed. "cached": the pair spaces read from a disk cache a first run filled
(a temporary one, so the user's cache is untouched). Medians of ``--runs`` runs, the
turning pair spaces built by ``--workers`` processes (by default the processors, as the
command line does; ``--workers 1`` times one process alone). The paper's figures
are minutes of Lisp on a 1992 workstation; issue 14's goal is each under a second cold
on this machine.

    python tools/bench_table2.py [--runs 5] [--workers N] [FILE ...]
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
start = time.perf_counter()
result = trace(analyze(load(sys.argv[1]), cache=sys.argv[2] or None, workers=int(sys.argv[3])))
with_mesh_counts(statistics(result), result.mechanism)
print(time.perf_counter() - start)
"""


def run_once(path: Path, cache: str, workers: int) -> float:
    """Seconds of one child's load, analysis, trace and statistics with the pair-space cache in
    the folder ``cache`` (none if empty) and ``workers`` processes."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-c", CHILD, str(path), cache, str(workers)], env=env, check=True,
                         capture_output=True, text=True)
    return float(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="*", type=Path, default=DEFAULT)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--workers", type=int, default=parallel.usable())
    args = parser.parse_args()
    print(f"{args.runs} runs each on {platform.machine()} {platform.python_implementation()} "
          f"{platform.python_version()}, medians, {args.workers} worker process(es)")
    print(f"{'mechanism':<14}{'paper':>10}{'cold s':>9}{'cached s':>10}")
    for path in args.files:
        cold = statistics.median(run_once(path, "", args.workers) for _ in range(args.runs))
        with tempfile.TemporaryDirectory() as folder:
            run_once(path, folder, args.workers)  # fills the cache
            cached = statistics.median(run_once(path, folder, args.workers) for _ in range(args.runs))
        minutes = PAPER_MINUTES.get(path.stem)
        paper = f"{minutes:g} min" if minutes is not None else "-"
        print(f"{path.stem:<14}{paper:>10}{cold:>9.3f}{cached:>10.3f}")


if __name__ == "__main__":
    main()
