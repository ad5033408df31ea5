"""Time ``cspace draw`` against the least that looks at a mechanism by analysing it, in one run.

For each example, ``cspace draw NAME -o OUT.svg`` (no analysis: the file read, linkages
assembled, the marks drawn) and ``cspace trace NAME --until 0`` (the analysis: every pair space
built, the pair-space cache off, and a trace of no input time) run ``--runs`` times each in
fresh processes, alternating; the medians and their ratio are printed, with the load average.
Modules are read from their bytecode, as after ``pip install`` (a ``PYTHONDONTWRITEBYTECODE`` in
the environment is dropped for the runs).

    python tools/bench_draw.py [--runs 11] [NAME ...]
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NAMES = ("feeder", "dxf-cam", "escapement", "transmission")


def seconds(argv: list[str], folder: str) -> float:
    """Wall-clock seconds of one run of the command line with ``argv`` in a fresh process."""
    env = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
    env.update(PYTHONPATH=str(ROOT), CSPACE_CACHE="off")
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "cspace.cli", *argv], env=env, check=True, cwd=folder,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=11)
    parser.add_argument("names", nargs="*", default=NAMES)
    args = parser.parse_args()
    print(f"{args.runs} runs each, alternating, on {platform.machine()} {platform.python_implementation()} "
          f"{platform.python_version()}; medians")
    with tempfile.TemporaryDirectory() as folder:
        for name in args.names:
            commands = {"draw": ["draw", name, "-o", "out.svg"],
                        "trace --until 0": ["trace", name, "--until", "0", "--quiet"]}
            for argv in commands.values():
                seconds(argv, folder)  # warm the file cache, write the bytecode
            times: dict[str, list[float]] = {label: [] for label in commands}
            for _ in range(args.runs):
                for label, argv in commands.items():
                    times[label].append(seconds(argv, folder))
            draw, trace = (statistics.median(times[label]) for label in commands)
            print(f"{name:<14} draw {draw * 1000:7.0f} ms   trace --until 0 {trace * 1000:7.0f} ms   "
                  f"{draw / trace:5.2f}x")
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
