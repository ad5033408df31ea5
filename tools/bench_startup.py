"""Time the command line's start-up against Python importing numpy, in one run.

Each command runs ``--runs`` times in a fresh process, alternating, and the medians are
compared: issue 15's goal is ``cspace --help`` within 2x of ``python -c "import numpy"``
(the CLI imports the library, and so numpy, scipy and shapely, only when a command needs
it). Also timed: ``import cspace``, the tracer's imports, and the whole ``cspace trace
fixtures/feeder.toml`` (pair-space cache off) from start to exit.

The import cost of ``cspace trace`` (issue 26) is the sum of the top-level imports that
``python -X importtime`` reports for that command, against the same sum for ``import
numpy``: the median of the runs and their ratio.

Modules are read from their bytecode, as after ``pip install`` (which compiles it): a
``PYTHONDONTWRITEBYTECODE`` in the environment is dropped for the runs, which would
otherwise compile every module of cspace from source at every start (about 0.1 s).

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
    "cspace trace fixtures/feeder.toml": [sys.executable, "-m", "cspace.cli", "trace", "fixtures/feeder.toml"],
}
IMPORTS = {
    "import numpy": [sys.executable, "-X", "importtime", "-c", "import numpy"],
    "cspace trace": [sys.executable, "-X", "importtime", "-m", "cspace.cli", "trace", "fixtures/feeder.toml"],
}


def environment() -> dict[str, str]:
    """The runs' environment: this checkout first on the path, bytecode used, the cache off."""
    env = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
    return {**env, "PYTHONPATH": str(ROOT), "CSPACE_CACHE": "off"}


def seconds(command: list[str]) -> float:
    """Wall-clock seconds of one run of ``command`` in a fresh process."""
    start = time.perf_counter()
    subprocess.run(command, env=environment(), check=True, stdout=subprocess.DEVNULL, cwd=ROOT)
    return time.perf_counter() - start


def import_seconds(command: list[str]) -> float:
    """Seconds of the top-level imports ``python -X importtime`` reports for one run of ``command``."""
    run = subprocess.run(command, env=environment(), check=True, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, text=True, cwd=ROOT)
    lines = [line.split("|") for line in run.stderr.splitlines() if line.startswith("import time:")]
    return sum(int(cumulative) for _, cumulative, name in lines[1:] if not name.startswith("  ")) / 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=21)
    args = parser.parse_args()
    times: dict[str, list[float]] = {name: [] for name in COMMANDS}
    imports: dict[str, list[float]] = {name: [] for name in IMPORTS}
    for name, command in COMMANDS.items():
        seconds(command)  # warm the file cache, write the bytecode
    for _ in range(args.runs):
        for name, command in COMMANDS.items():
            times[name].append(seconds(command))
        for name, command in IMPORTS.items():
            imports[name].append(import_seconds(command))
    medians = {name: statistics.median(values) for name, values in times.items()}
    base = medians["python -c 'import numpy'"]
    print(f"{args.runs} runs each, alternating, on {platform.machine()} {platform.python_implementation()} "
          f"{platform.python_version()}; medians")
    for name, median in medians.items():
        print(f"{name:<34}{median * 1000:8.1f} ms  {median / base:5.2f}x numpy")
    ratio = medians["cspace --help"] / base
    print(f"cspace --help is {ratio:.2f}x python -c 'import numpy' (goal: at most 2x)")
    numpy_imports, trace_imports = (statistics.median(imports[name]) for name in IMPORTS)
    print(f"imports of cspace trace fixtures/feeder.toml: {trace_imports * 1000:.1f} ms, "
          f"{trace_imports / numpy_imports:.2f}x import numpy's {numpy_imports * 1000:.1f} ms (python -X importtime)")
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
