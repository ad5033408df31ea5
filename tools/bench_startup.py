"""Time the command line's start-up against Python importing numpy, in one run.

Each command runs ``--runs`` times in a fresh process, alternating, and the medians are
compared: issue 15's goal is ``cspace --help`` within 2x of ``python -c "import numpy"``
(the CLI imports the library, and so numpy, scipy and shapely, only when a command needs
it). Also timed: ``import cspace`` and a real command's import of the library.

    python tools/bench_startup.py [--runs 21]
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
COMMANDS = {
    "python -c 'import numpy'": [sys.executable, "-c", "import numpy"],
    "cspace --help": [sys.executable, "-m", "cspace.cli", "--help"],
    "python -c 'import cspace'": [sys.executable, "-c", "import cspace"],
    "python -c 'import cspace.tracing.tracer'": [sys.executable, "-c", "import cspace.tracing.tracer"],
}


def seconds(command: list[str]) -> float:
    """Wall-clock seconds of one run of ``command`` in a fresh process."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    start = time.perf_counter()
    subprocess.run(command, env=env, check=True, stdout=subprocess.DEVNULL, cwd=ROOT)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=21)
    args = parser.parse_args()
    times: dict[str, list[float]] = {name: [] for name in COMMANDS}
    for name, command in COMMANDS.items():
        seconds(command)  # warm the file cache
    for _ in range(args.runs):
        for name, command in COMMANDS.items():
            times[name].append(seconds(command))
    medians = {name: statistics.median(values) for name, values in times.items()}
    base = medians["python -c 'import numpy'"]
    print(f"{args.runs} runs each, alternating, on {platform.machine()} {platform.python_implementation()} "
          f"{platform.python_version()}; medians")
    for name, median in medians.items():
        print(f"{name:<34}{median * 1000:8.1f} ms  {median / base:5.2f}x numpy")
    ratio = medians["cspace --help"] / base
    print(f"cspace --help is {ratio:.2f}x python -c 'import numpy' (goal: at most 2x)")


if __name__ == "__main__":
    main()
