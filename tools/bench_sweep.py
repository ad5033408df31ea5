"""Time a 400-variant feeder sweep serially and on a 2-worker Dask LocalCluster, in one run.

The design is fixtures/sweeps/feeder.toml over crank radius x link length, 20 x 20 (the
README's design map). Both runs trace every variant from scratch (no pair-space cache),
the serial one in this process, the parallel one on a ``LocalCluster`` of ``--workers``
single-threaded processes, its start-up included in its time: what a user waits for. The
rows of the two runs are checked equal (but for wall time); the machine's load
(``os.getloadavg``) is printed before and after each run, since on a shared machine it bounds
the ratio.

Where the parallel run's time goes is printed beside it: the cluster's start-up (until its
workers are up), the variants' own time on the workers (the rows' wall times summed: against
the serial run's, what the workers lose to their first imports and to sharing the cores with
this process), this process's CPU time (the scheduler runs here) and the number of tasks.
``--one-variant-a-task`` also runs the cluster with a task a variant (as before batches), for
the comparison; ``--repeat N`` runs the cluster's (and that) N times, alternating.

    python tools/bench_sweep.py [--workers 2] [--crank 1:6:20] [--link 4:14:20] [--one-variant-a-task] [--repeat 1]
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import cspace  # noqa: E402  (this checkout's)
from cspace.sweeps import runner  # noqa: E402
from cspace.sweeps.design import Axis, grid  # noqa: E402
from cspace.sweeps.variant import RUN_COLUMNS  # noqa: E402

FEEDER = ROOT / "fixtures" / "sweeps" / "feeder.toml"


def load() -> str:
    return "load average %.2f %.2f %.2f" % os.getloadavg()


def cpu() -> float:
    """This process's CPU time (the cluster's scheduler and client run in it)."""
    used = resource.getrusage(resource.RUSAGE_SELF)
    return used.ru_utime + used.ru_stime


def on_cluster(design: list, workers: int, share: float):
    """The sweep on a new LocalCluster, the variants cut into tasks by ``share`` (0: one a task);
    its rows, wall time, start-up time, this process's CPU time and its number of tasks."""
    runner.SHARE = share
    tasks = len(runner.batches(design, workers))
    start, used = time.perf_counter(), cpu()
    client = runner.local_client(workers)
    try:
        client.wait_for_workers(workers)
        up = time.perf_counter() - start
        rows = cspace.sweep(FEEDER, design, client=client)
    finally:
        cluster = client.cluster
        client.close()  # before its cluster, as the command line does: no worker heartbeats a closed scheduler
        cluster.close()
    return rows, time.perf_counter() - start, up, cpu() - used, tasks


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--crank", default="1:6:20")
    parser.add_argument("--link", default="4:14:20")
    parser.add_argument("--one-variant-a-task", action="store_true", help="also run the cluster a task a variant")
    parser.add_argument("--repeat", type=int, default=1, help="cluster runs (each kind), alternating")
    args = parser.parse_args()
    design = grid([Axis.parse(f"crank={args.crank}"), Axis.parse(f"link={args.link}")])
    print(f"{len(design)} variants of {FEEDER.relative_to(ROOT)}; {os.cpu_count()} cores; before: {load()}")

    start = time.perf_counter()
    serial = cspace.sweep(FEEDER, design)
    serial_time = time.perf_counter() - start
    print(f"{'serial:':42s} {serial_time:6.1f} s   (the variants {serial['wall_time'].sum():.1f} s; {load()})")

    kinds = [("batched", runner.SHARE)] + ([("a task a variant", 0.0)] if args.one_variant_a_task else [])
    for _ in range(args.repeat):
        for name, share in kinds:
            rows, took, up, used, tasks = on_cluster(design, args.workers, share)
            same = serial.drop(columns=list(RUN_COLUMNS)).equals(rows.drop(columns=list(RUN_COLUMNS)))
            label = f"LocalCluster of {args.workers}, {name}:"
            print(f"{label:42s} {took:6.1f} s   ratio {serial_time / took:.2f}x; start-up "
                  f"{up:.1f} s, the variants {rows['wall_time'].sum():.1f} s on the workers, this process's CPU "
                  f"{used:.1f} s, {tasks} tasks; rows equal: {same}; {load()}")
    print(f"failed variants: {int((serial['error'] != '').sum())}")


if __name__ == "__main__":
    main()
