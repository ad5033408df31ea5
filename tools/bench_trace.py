"""The trace's cost per region crossing against the numpy floor (issue 26).

A piece of path is one region crossing. Its real work is a small linear solve (the
velocity of the moving coordinates: 2 to 4 unknowns) and a ratio test (where along that
velocity the first of the region's rows reaches its bound). The floor is that work done
in numpy on the very regions the trace crossed, each piece's region built beforehand and
only the arithmetic timed; the ratio says how much more the trace costs a crossing.

    python tools/bench_trace.py [--runs 9] [--blocks 30] [FIXTURE ...]

Prints, per mechanism, the median trace time (pair spaces in memory), the pieces, the
cost per crossing, the floor per crossing and their ratio, with the load average.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from feeder_n import Feeder  # noqa: E402

from cspace import analyze, load, trace  # noqa: E402
from cspace.io.examples import example  # noqa: E402
from cspace.tracing.regions import RegionDiagram  # noqa: E402


def crossings(analysis, result) -> list[tuple]:
    """Per piece: its region's rows and bounds, the configuration where it starts, its
    velocity, and a well-conditioned system the size of its moving coordinates (2 to 4)."""
    diagram = RegionDiagram(analysis)
    rng = np.random.default_rng(0)
    out = []
    for piece in result.pieces:
        region = diagram.region(piece.key)
        configs = piece.configs
        span = float(piece.params[-1] - piece.params[0]) or 1.0
        v = (configs[-1] - configs[0]) / span
        k = min(max(len(piece.moved), 2), 4)
        system = rng.normal(size=(k, k)) + k * np.eye(k)
        out.append((region.G, region.h, piece.first.copy(), v, system, rng.normal(size=k)))
    return out


def floor_seconds(work: list[tuple]) -> float:
    """numpy doing each crossing's arithmetic: the solve, every row's slack and rate, the least ratio."""
    start = time.perf_counter()
    for G, h, q, v, system, rhs in work:
        np.linalg.solve(system, rhs)
        slack = h - G @ q
        rate = G @ v
        moving = rate > 0
        if moving.any():
            (slack[moving] / rate[moving]).min()
    return time.perf_counter() - start


def measure(path: Path, runs: int) -> tuple[str, float, int, float]:
    analysis = analyze(load(path))
    result = trace(analysis)
    work = crossings(analysis, result)
    traced, floors = [], []
    for _ in range(runs):  # alternating, so both see the same load
        start = time.perf_counter()
        trace(analysis)
        traced.append(time.perf_counter() - start)
        floors.append(floor_seconds(work))
    return path.stem, statistics.median(traced), result.stats.pieces, statistics.median(floors)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("fixtures", nargs="*", default=["feeder", "lever", "spring-gate", "geneva"])
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--blocks", type=int, default=30, help="also the N-block feeder (0: not)")
    args = parser.parse_args()
    load_text = " ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"trace per region crossing against the numpy floor, median of {args.runs} alternating runs, "
          f"load average {load_text}")
    print(f"{'mechanism':<16}{'trace':>11}{'pieces':>8}{'per piece':>12}{'floor':>10}{'ratio':>8}")
    with tempfile.TemporaryDirectory() as folder:
        paths = [example(name) for name in args.fixtures]
        if args.blocks:
            generated = Path(folder) / f"feeder-{args.blocks}.toml"
            generated.write_text(Feeder(args.blocks).toml())
            paths.append(generated)
        for path in paths:
            name, seconds, pieces, floor = measure(path, args.runs)
            print(f"{name:<16}{seconds * 1e3:>8.1f} ms{pieces:>8}{seconds / pieces * 1e6:>9.0f} µs"
                  f"{floor / pieces * 1e6:>7.1f} µs{seconds / floor:>7.0f}x", flush=True)
    print(f"load average now {' '.join(f'{x:.1f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
