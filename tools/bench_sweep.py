"""Time a 400-variant feeder sweep serially and on a 2-worker Dask LocalCluster, in one run.

The design is fixtures/sweeps/feeder.toml over crank radius x link length, 20 x 20 (the
README's design map). Both runs trace every variant from scratch (no pair-space cache),
the serial one in this process, the parallel one on a ``LocalCluster`` of ``--workers``
single-threaded processes (its start-up included in its time). The rows of the two runs
are checked equal (but for wall time); the machine's load (``os.getloadavg``) is printed
before and after, since on a shared machine it bounds the ratio.

    python tools/bench_sweep.py [--workers 2] [--crank 1:6:20] [--link 4:14:20]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import cspace  # noqa: E402  (this checkout's)
from cspace.sweeps.design import Axis, grid  # noqa: E402
from cspace.sweeps.runner import local_client  # noqa: E402
from cspace.sweeps.variant import RUN_COLUMNS  # noqa: E402

FEEDER = ROOT / "fixtures" / "sweeps" / "feeder.toml"


def load() -> str:
    return "load average %.2f %.2f %.2f" % os.getloadavg()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--crank", default="1:6:20")
    parser.add_argument("--link", default="4:14:20")
    args = parser.parse_args()
    design = grid([Axis.parse(f"crank={args.crank}"), Axis.parse(f"link={args.link}")])
    print(f"{len(design)} variants of {FEEDER.relative_to(ROOT)}; {os.cpu_count()} cores; before: {load()}")

    start = time.perf_counter()
    serial = cspace.sweep(FEEDER, design)
    serial_time = time.perf_counter() - start
    print(f"serial:            {serial_time:7.1f} s   ({load()})")

    start = time.perf_counter()
    with local_client(args.workers) as client:
        parallel = cspace.sweep(FEEDER, design, client=client)
        client.cluster.close()
    parallel_time = time.perf_counter() - start
    print(f"LocalCluster of {args.workers}: {parallel_time:7.1f} s   ({load()})")

    same = serial.drop(columns=list(RUN_COLUMNS)).equals(parallel.drop(columns=list(RUN_COLUMNS)))
    print(f"ratio: {serial_time / parallel_time:.2f}x; rows equal: {same}; "
          f"failed variants: {int((serial['error'] != '').sum())}")


if __name__ == "__main__":
    main()
