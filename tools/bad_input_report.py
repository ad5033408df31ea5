"""Seconds and peak memory to reject each hostile input: the corpus and the generated ones.

Each input is checked in a fresh child process that times ``load`` + ``analyze``
(interpreter start-up excluded) and reports its peak resident memory, beside the
peak of a child that only imports cspace.

    python tools/bad_input_report.py
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROBE = """
import json, resource, sys, time
from cspace import analyze, load
from cspace.model.errors import CspaceError
start = time.perf_counter()
message = ""
if sys.argv[1] != "-":
    try:
        analyze(load(sys.argv[1]))
    except CspaceError as error:
        message = str(error)
seconds = time.perf_counter() - start
print(json.dumps({"seconds": seconds, "kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
                  "message": message}))
"""


WRITE = """
import sys
from pathlib import Path
from tests.support.fuzz import hostile_inputs
for k, (content, _) in enumerate(hostile_inputs().values()):
    Path(sys.argv[1], f"{k}.toml").write_bytes(content)
print("\\n".join(hostile_inputs()))
"""


def probe(path: str) -> dict:
    done = subprocess.run([sys.executable, "-c", PROBE, path], capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def special_files(folder: Path) -> list[tuple[str, str]]:
    """Paths that are not regular files (their size from ``stat`` is 0): a FIFO, links to
    endless devices, a device, a /proc file that cannot be read, a directory."""
    fifo = folder / "fifo.toml"
    os.mkfifo(fifo)
    zero, random = folder / "zero.toml", folder / "random.toml"
    zero.symlink_to("/dev/zero")
    random.symlink_to("/dev/urandom")
    return [("a FIFO", str(fifo)), ("a link to /dev/zero", str(zero)), ("a link to /dev/urandom", str(random)),
            ("/dev/zero", "/dev/zero"), ("/proc/self/mem", "/proc/self/mem"), ("a directory", str(folder))]


def main() -> None:
    baseline = probe("-")
    print(f"baseline (import only): peak {baseline['kb'] / 1024:.0f} MB")
    print(f"{'input':<34}{'seconds':>9}{'peak MB':>9}  rejected with")
    rows = [(p.stem, str(p)) for p in sorted((ROOT / "tests" / "data" / "bad").glob("*.toml"))]
    with tempfile.TemporaryDirectory() as folder:
        # Written by a child: a child's peak memory includes its parent's at fork time.
        names = subprocess.run([sys.executable, "-c", WRITE, folder], capture_output=True, text=True,
                               check=True, cwd=ROOT).stdout.split("\n")  # the generators are test support
        rows += [(name, str(Path(folder) / f"{k}.toml")) for k, name in enumerate(names)]
        rows += special_files(Path(folder))
        worst = 0.0
        for name, path in rows:
            result = probe(path)
            worst = max(worst, result["seconds"])
            message = result["message"].split(": ", 1)[-1][:60] or "ACCEPTED"
            print(f"{name:<34}{result['seconds']:>9.3f}{result['kb'] / 1024:>9.0f}  {message}")
    print(f"slowest rejection: {worst:.3f} s over {len(rows)} inputs")


if __name__ == "__main__":
    main()
