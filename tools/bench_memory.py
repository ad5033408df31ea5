"""Peak memory and time of ``cspace trace --until 10`` on the N-block feeder (issue 13), or
of the trace run to the end (``--to-end``: N revolutions, every block pushed out; issue 26).

Each run is a fresh process (so its peak resident set is its own), cache off, the
file made by ``tools/feeder_n.py``; the peak is ``ru_maxrss`` of that process. Also
prints the peak per pair-space row, to show memory growing with the rows, not faster.
Run to the end, it prints the trace's CPU seconds (the process's own, which other work
on a shared machine disturbs less than the wall clock), its pieces, the peak after the
analysis and at the end, and how the trace's CPU per piece grows with N (the exponent
of a least-squares fit of log time per piece on log N). Set PYTHONPATH to time another
checkout: the processes inherit it.

    python tools/bench_memory.py [--blocks 50 100 150 200] [--until 10]
    python tools/bench_memory.py --to-end [--blocks 40 80 120 200]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from feeder_n import Feeder  # noqa: E402

CHILD = """
import json, resource, sys, time
import cspace
def peak():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
start = time.perf_counter()
analysis = cspace.analyze(cspace.load(sys.argv[1]))
analyzed = peak()
cpu = time.process_time()
result = cspace.trace(analysis, until=None if sys.argv[2] == "end" else float(sys.argv[2]))
cpu = time.process_time() - cpu
cspace.describe(result)
seconds = time.perf_counter() - start
rows = len(analysis.layout.table.bound)
print(json.dumps({"seconds": seconds, "peak": peak(), "analyzed": analyzed, "trace_cpu": cpu,
                  "pieces": result.stats.pieces, "rows": rows, "pairs": len(analysis.pairs),
                  "segments": len(result.segments)}))
"""


def measure(blocks: int, until: float | str) -> dict:
    """One run in a fresh process: seconds, peak bytes, rows, pairs and segments."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"feeder-{blocks}.toml"
        path.write_text(Feeder(blocks).toml())
        env = {**os.environ, "CSPACE_CACHE": "off"}
        started = time.perf_counter()
        done = subprocess.run([sys.executable, "-c", CHILD, str(path), str(until)], capture_output=True, text=True,
                              env=env, check=True)
        result = json.loads(done.stdout.strip().splitlines()[-1])
        result["wall"] = time.perf_counter() - started
        return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--blocks", type=int, nargs="*", default=[50, 100, 150, 200])
    parser.add_argument("--until", type=float, default=10.0)
    parser.add_argument("--to-end", action="store_true", help="trace to the end of the file's allotment")
    args = parser.parse_args()
    if args.to_end:
        to_end(args.blocks)
        return
    print(f"trace --until {args.until:g} of the N-block feeder, one fresh process each, CSPACE_CACHE=off")
    print(f"{'N':>5}{'pairs':>8}{'rows':>9}{'segments':>10}{'analyze+trace':>15}{'process':>10}{'peak':>10}"
          f"{'per row':>10}")
    for blocks in args.blocks:
        r = measure(blocks, args.until)
        print(f"{blocks:>5}{r['pairs']:>8}{r['rows']:>9}{r['segments']:>10}{r['seconds']:>13.2f} s"
              f"{r['wall']:>8.2f} s{r['peak'] / 1e6:>7.0f} MB{r['peak'] / r['rows'] / 1e3:>7.1f} kB", flush=True)


def to_end(counts: list[int]) -> None:
    """The trace run to the end for each N: CPU, pieces, peaks; then the growth of CPU per piece."""
    print(f"trace to the end of the N-block feeder, one fresh process each, CSPACE_CACHE=off, "
          f"load average {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    print(f"{'N':>5}{'pieces':>8}{'trace CPU':>11}{'per piece':>11}{'peak':>9}{'analysis':>10}")
    runs = []
    for blocks in counts:
        r = measure(blocks, "end")
        runs.append((blocks, r["trace_cpu"] / r["pieces"]))
        print(f"{blocks:>5}{r['pieces']:>8}{r['trace_cpu']:>9.2f} s{r['trace_cpu'] / r['pieces'] * 1e3:>8.2f} ms"
              f"{r['peak'] / 1e6:>6.0f} MB{r['analyzed'] / 1e6:>7.0f} MB", flush=True)
    if len(runs) > 1:
        slope = np.polyfit(np.log([n for n, _ in runs]), np.log([t for _, t in runs]), 1)[0]
        print(f"trace CPU per piece grows as N^{slope:.2f} (load average now "
              f"{' '.join(f'{x:.1f}' for x in os.getloadavg())})")


if __name__ == "__main__":
    main()
