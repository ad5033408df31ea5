"""Peak memory and wall time of ``cspace trace --until 10`` on the N-block feeder (issue 13).

Each run is a fresh process (so its peak resident set is its own), cache off, the
file made by ``tools/feeder_n.py``; the peak is ``ru_maxrss`` of that process. Also
prints the peak per pair-space row, to show memory growing with the rows, not faster.

    python tools/bench_memory.py [--blocks 50 100 150 200] [--until 10]
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

sys.path.insert(0, str(Path(__file__).resolve().parent))
from feeder_n import Feeder  # noqa: E402

CHILD = """
import json, resource, sys, time
import cspace
start = time.perf_counter()
analysis = cspace.analyze(cspace.load(sys.argv[1]))
result = cspace.trace(analysis, until=float(sys.argv[2]))
cspace.describe(result)
seconds = time.perf_counter() - start
rows = len(analysis.layout.table.bound)
print(json.dumps({"seconds": seconds, "peak": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024,
                  "rows": rows, "pairs": len(analysis.pairs), "segments": len(result.segments)}))
"""


def measure(blocks: int, until: float) -> dict:
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
    args = parser.parse_args()
    print(f"trace --until {args.until:g} of the N-block feeder, one fresh process each, CSPACE_CACHE=off")
    print(f"{'N':>5}{'pairs':>8}{'rows':>9}{'segments':>10}{'analyze+trace':>15}{'process':>10}{'peak':>10}"
          f"{'per row':>10}")
    for blocks in args.blocks:
        r = measure(blocks, args.until)
        print(f"{blocks:>5}{r['pairs']:>8}{r['rows']:>9}{r['segments']:>10}{r['seconds']:>13.2f} s"
              f"{r['wall']:>8.2f} s{r['peak'] / 1e6:>7.0f} MB{r['peak'] / r['rows'] / 1e3:>7.1f} kB", flush=True)


if __name__ == "__main__":
    main()
