"""Time ``decompose_plane`` on growing inputs, against an older implementation if given.

For each kind of input and each edge count it prints the median time of a few runs of
the current sweep and, while it stays reasonable, of the implementation in the file
given with ``--old`` (for example the one before the sweep:
``git show <commit>:cspace/decompose.py > /tmp/old_decompose.py``), then the growth
exponent of each: the slope of log time against log edges, by least squares. It also
counts the breakpoints (the x of vertices and of edge crossings, which the output
depends on): where crossings grow faster than edges, so does any sweep, and the
exponent against edges plus breakpoints shows the cost per event. The inputs are
seeded, so every run times the same polygons.

    python tools/bench_decompose.py [--old /tmp/old_decompose.py] [--runs 3] [--old-limit 10]

Kinds of input:

* ``tiles``: small triangles, quadrilaterals and rectangles on an integer grid, dense
  enough that many overlap, abut along edges (slits) and meet at vertices.
* ``comb``: the blocked set of two combs translating against each other, the
  differences of every pair of their convex pieces (a base and trapezoid teeth of
  random widths): many long, nearly parallel, overlapping polygons, as for toothed parts.
* ``curves``: convex polygons of 12 to 48 vertices on circles rounded to the grid, as
  for linearized curves, overlapping each other.
"""

from __future__ import annotations

import argparse
import importlib.util
import math
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

from cspace.kernels.decompose import _Sweep, decompose_plane

EDGES = [10, 20, 50, 100, 200, 500, 1000, 2000, 5000]
Polygon = list[tuple[int, int]]


def hull(points: list[tuple[int, int]]) -> Polygon | None:
    """Counterclockwise convex hull without collinear points; None if it has no area."""
    pts = sorted(set(points))

    def turn(o, a, b) -> int:
        return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])

    lower: list[tuple[int, int]] = []
    upper: list[tuple[int, int]] = []
    for p in pts:
        while len(lower) >= 2 and turn(lower[-2], lower[-1], p) <= 0:
            lower.pop()
        lower.append(p)
    for p in reversed(pts):
        while len(upper) >= 2 and turn(upper[-2], upper[-1], p) <= 0:
            upper.pop()
        upper.append(p)
    ring = lower[:-1] + upper[:-1]
    return ring if len(ring) >= 3 else None


def tiles(edges: int, rng: random.Random) -> list[Polygon]:
    side = max(4, round(2 * math.sqrt(edges)))
    polygons: list[Polygon] = []
    while sum(map(len, polygons)) < edges:
        x, y = rng.randint(0, side), rng.randint(0, side)
        if rng.random() < 0.3:
            w, h = rng.randint(1, 3), rng.randint(1, 3)
            polygons.append([(x, y), (x + w, y), (x + w, y + h), (x, y + h)])
        else:
            ring = hull([(x + rng.randint(-2, 2), y + rng.randint(-2, 2)) for _ in range(rng.choice([3, 4]))])
            if ring:
                polygons.append(ring)
    return polygons


def comb(edges: int, rng: random.Random) -> list[Polygon]:
    def part(teeth: int, down: bool) -> list[Polygon]:
        sign = -1 if down else 1
        pieces = [[(0, 0), (10 * teeth, 0), (10 * teeth, sign * 6), (0, sign * 6)]]
        for k in range(teeth):
            w = rng.randint(3, 6)
            x = 10 * k + rng.randint(0, 2)
            base, tip = sign * 6, sign * (6 + rng.randint(8, 12))
            pieces.append([(x, base), (x + w + 2, base), (x + w, tip), (x + 2, tip)])
        return pieces

    teeth = 1
    while True:
        a, b = part(teeth, False), part(teeth, True)
        polygons = [ring for p in a for q in b
                    if (ring := hull([(u - s, v - t) for u, v in p for s, t in q]))]
        if sum(map(len, polygons)) >= edges:
            return polygons
        teeth += 1


def curves(edges: int, rng: random.Random) -> list[Polygon]:
    side = max(20, round(3 * math.sqrt(edges)))
    polygons: list[Polygon] = []
    while sum(map(len, polygons)) < edges:
        cx, cy, r = rng.randint(0, side), rng.randint(0, side), rng.randint(4, 12)
        n = rng.randint(12, 48)
        phase = rng.random()
        ring = hull([(round(cx + r * math.cos(2 * math.pi * (k + phase) / n)),
                      round(cy + r * math.sin(2 * math.pi * (k + phase) / n))) for k in range(n)])
        if ring:
            polygons.append(ring)
    return polygons


KINDS: dict[str, Callable[[int, random.Random], list[Polygon]]] = {"tiles": tiles, "comb": comb, "curves": curves}


def median_time(function: Callable, polygons: list[Polygon], runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        function(polygons)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def breakpoints(polygons: list[Polygon]) -> int:
    """How many slab boundaries the sweep crosses (its slabs are numbered from 0)."""
    sweep = _Sweep(polygons, True)
    sweep.regions()
    return sweep.slab


def exponent(points: list[tuple[int, float]]) -> float:
    """Least-squares slope of log time against log edges."""
    xs = [math.log(e) for e, _ in points]
    ys = [math.log(t) for _, t in points]
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)


def load_old(path: Path) -> Callable:
    spec = importlib.util.spec_from_file_location("old_decompose", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module.decompose_plane


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--old", type=Path, help="a decompose.py to compare with")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--old-limit", type=float, default=10.0,
                        help="stop timing the old implementation after a run slower than this (s)")
    parser.add_argument("--kinds", nargs="*", default=list(KINDS))
    args = parser.parse_args()
    old = load_old(args.old) if args.old else None
    for kind in args.kinds:
        print(f"\n{kind}")
        print(f"{'edges':>7} {'polygons':>8} {'breaks':>7} {'regions':>7} {'new (s)':>9} {'old (s)':>9} {'old/new':>7}")
        new_points, event_points, old_points = [], [], []
        old_alive = old is not None
        for target in EDGES:
            polygons = KINDS[kind](target, random.Random(target))
            edges, breaks = sum(map(len, polygons)), breakpoints(polygons)
            regions = len(decompose_plane(polygons))
            new_time = median_time(decompose_plane, polygons, args.runs)
            new_points.append((edges, new_time))
            event_points.append((edges + breaks, new_time))
            old_text, ratio = "-", ""
            if old_alive:
                old_time = median_time(old, polygons, 1 if new_time > 0.5 else args.runs)
                old_points.append((edges, old_time))
                old_text, ratio = f"{old_time:9.4f}", f"{old_time / new_time:7.1f}"
                old_alive = old_time < args.old_limit
            print(f"{edges:>7} {len(polygons):>8} {breaks:>7} {regions:>7} {new_time:9.4f} {old_text:>9} {ratio:>7}")
        line = f"growth exponent: new {exponent(new_points):.2f}"
        line += f" (against edges + breakpoints {exponent(event_points):.2f})"
        if len(old_points) >= 2:
            line += f", old {exponent(old_points):.2f} (over {old_points[0][0]}..{old_points[-1][0]} edges)"
        print(line)


if __name__ == "__main__":
    main()
