"""Measure peak memory against cspace.spaces.budget's estimate, and fit its constants.

Each mechanism runs ``load, analyze, trace`` (its whole time allotment) in a fresh process with
one worker and the cache off; the peak is that process's ``ru_maxrss``. Mechanisms: the
fixtures, N-block feeders (``tools/feeder_n.py``), wavy cams of V vertices against a follower
(turning pairs) and sawtooth blocks on a sawtooth floor (translating pairs of many convex
pieces). ``--fit`` prints the constants a least-squares fit (non-negative, relative errors)
of the measured peaks gives, beside the ones in cspace/budget.py.

    python tools/calibrate_budget.py [--quick] [--fit]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
from feeder_n import Feeder  # noqa: E402

from cspace import load  # noqa: E402
from cspace.spaces import budget  # noqa: E402

CHILD = """
import json, resource, sys
import cspace
cspace.trace(cspace.analyze(cspace.load(sys.argv[1])))
print(json.dumps({"peak": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024}))
"""


def wavy_cam(vertices: int, waves: int = 37) -> str:
    """A cam of ``vertices`` vertices (r = 5 + 0.5 sin(waves t)) turning once under a flat
    follower on a spring: one (theta, y) pair whose contact curves kink at every vertex."""
    points = []
    for k in range(vertices + 1):
        t = 2 * math.pi * (k % vertices) / vertices
        r = 5 + 0.5 * math.sin(waves * t)
        points.append(f"[{r * math.cos(t):.6f}, {r * math.sin(t):.6f}]")
    return f"""[mechanism]
name = "wavy-cam-{vertices}"
time = 6.283185307179586

[[parts]]
name = "cam"
motion = "fixed-axes"
coordinates = [ {{ name = "t", pivot = [0, 0], initial = 0 }} ]
[[parts.slices]]
z = [0, 1]
profiles = [ {{ path = [{", ".join(points)}] }} ]

[[parts]]
name = "follower"
motion = "fixed-axes"
coordinates = [ {{ name = "y", axis = [0, 1], initial = 6, limits = [0, 20] }} ]
[[parts.slices]]
z = [0, 1]
profiles = [ {{ rect = [-2, 0, 2, 1] }} ]

[[forces]]
kind = "spring"
coordinate = "y"
direction = -1

[[inputs]]
velocities = {{ t = 1.0 }}
sampling = 0.1
"""


def sawtooth(teeth: int) -> str:
    """A block with ``teeth`` teeth under it dropped onto a floor of as many teeth a little
    narrower, pushed along: one translating pair of many convex pieces each."""
    floor = "[0, -5], [60, -5], [60, 0], " + ", ".join(
        f"[{60 - (k + 0.5) * 60 / (2 * teeth):.6f}, 0.8], [{60 - (k + 1) * 60 / (2 * teeth):.6f}, 0]"
        for k in range(2 * teeth)) + ", [0, -5]"
    block = "[0, 3], " + ", ".join(
        f"[{(k + 0.5) * 10 / teeth:.6f}, -0.8], [{(k + 1) * 10 / teeth:.6f}, 0]" for k in range(teeth)) + ", [10, 3], [0, 3]"
    return f"""[mechanism]
name = "sawtooth-{teeth}"
time = 20

[[parts]]
name = "floor"
motion = "fixed"
[[parts.slices]]
z = [0, 1]
profiles = [ {{ path = [{floor}] }} ]

[[parts]]
name = "block"
motion = "fixed-axes"
coordinates = [ {{ name = "x", axis = [1, 0], initial = 5 }}, {{ name = "y", axis = [0, 1], initial = 3 }} ]
[[parts.slices]]
z = [0, 1]
profiles = [ {{ path = [{block}] }} ]

[[forces]]
kind = "gravity"
coordinate = "y"
direction = -1

[[inputs]]
velocities = {{ x = 1.0 }}
sampling = 0.5
"""


def mechanisms(quick: bool) -> dict[str, str | Path]:
    """Name -> TOML text (or the file: a fixture) of every mechanism measured."""
    out: dict[str, str | Path] = {path.stem: path for path in sorted((ROOT / "fixtures").glob("*.toml"))}
    for n in (10, 25, 50) if quick else (10, 25, 50, 100):
        out[f"feeder-{n}"] = Feeder(n).toml()
    for v in (250, 1000) if quick else (250, 1000, 4000):
        out[f"wavy-cam-{v}"] = wavy_cam(v)
    for t in (5, 20) if quick else (5, 20, 60):
        out[f"sawtooth-{t}"] = sawtooth(t)
    return out


def measure(path: Path) -> float | None:
    """Peak bytes of a fresh process that analyses and traces ``path`` (one worker, no cache);
    None if it fails."""
    env = {**os.environ, "CSPACE_CACHE": "off", "CSPACE_WORKERS": "1"}
    done = subprocess.run([sys.executable, "-c", CHILD, str(path)], capture_output=True, text=True, env=env,
                          cwd=ROOT)
    if done.returncode:
        return None
    return float(json.loads(done.stdout.strip().splitlines()[-1])["peak"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="the smaller mechanisms only")
    parser.add_argument("--fit", action="store_true", help="fit the constants to the measured peaks")
    args = parser.parse_args()
    rows = []
    print(f"{'mechanism':<18}{'pairs':>8}{'estimate':>11}{'measured':>11}{'ratio':>7}")
    with tempfile.TemporaryDirectory() as folder:
        for name, text in mechanisms(args.quick).items():
            path = text if isinstance(text, Path) else Path(folder) / f"{name}.toml"
            if not isinstance(text, Path):
                path.write_text(text)
            mechanism = load(path)
            pairs = budget.mechanism_pairs(mechanism)
            found = budget.estimate(mechanism, pairs)
            peak = measure(path)
            if peak is None:
                print(f"{name:<18}  failed to trace")
                continue
            rows.append((name, dict(found.parts), peak))
            print(f"{name:<18}{len(pairs):>8}{budget.size_text(found.total):>11}{budget.size_text(peak):>11}"
                  f"{found.total / peak:>7.2f}", flush=True)
    if args.fit:
        fit(rows)


def fit(rows: list) -> None:
    """Non-negative least squares of the peaks on the estimate's parts, errors relative."""
    from scipy.optimize import nnls

    names = ["the process", "turning pair spaces", "translating pair spaces", "the trace"]
    features = np.array([[next((v for k, v in parts.items() if k.startswith(n)), 0.0) for n in names]
                         for _, parts, _ in rows])
    peaks = np.array([peak for *_, peak in rows])
    scale = np.where(features.max(axis=0) > 0, features.max(axis=0), 1.0)
    weights, _ = nnls(features / scale / peaks[:, None], np.ones(len(peaks)))
    for name, w, s in zip(names, weights, scale):
        print(f"{name}: multiply its constants by {w / s:.3g}")


if __name__ == "__main__":
    main()
