"""Time exporting 100 frames of the feeder at 800x600, offscreen: the scene's set-up, rendering alone, GIF and MP4.

Each run builds the scene as ``animate`` does (framing, the captions' font size, the
legend's place), renders the first 100 snapshots of the feeder's path and, for the
exports, encodes them to a file in a temporary directory; the trace is made once,
outside the timing. "set-up only" builds the scene and renders nothing: its share of
"render only" is what framing, captions and legend cost. Prints the median and spread
of several runs (the machine is shared and noisy), frames per second and the load average.

    python tools/bench_render.py [--runs 3] [--frames 100] [--size 800x600]
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import tempfile
import time
from pathlib import Path

import pyvista
from cspace.viz.animation import render_frames, write_frames
from cspace.viz.scene import Scene
from cspace.viz.snapshots import snapshots

from cspace import analyze, load, trace

ROOT = Path(__file__).resolve().parent.parent
SETUP = "set-up"  # build the scene, render nothing
OUTPUTS = {"set-up only": SETUP, "render only": None, "export .gif": ".gif", "export .mp4": ".mp4"}


def one_run(result, frames: int, size: tuple[int, int], suffix: str | None, folder: Path) -> float:
    shots = snapshots(result)[:frames]
    start = time.perf_counter()
    scene = Scene(result, size=size, framed=[s.values for s in shots], captions=[s.caption for s in shots])
    if suffix == SETUP:
        pass
    elif suffix is None:
        for _ in render_frames(scene, shots):
            pass
    else:
        write_frames(render_frames(scene, shots), folder / f"feeder{suffix}", fps=10)
    scene.close()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--frames", type=int, default=100)
    parser.add_argument("--size", default="800x600")
    parser.add_argument("--file", type=Path, default=ROOT / "fixtures" / "feeder.toml")
    args = parser.parse_args()
    size = tuple(int(v) for v in args.size.lower().split("x"))
    pyvista.OFF_SCREEN = True
    result = trace(analyze(load(args.file)))
    frames = min(args.frames, len(snapshots(result)))
    print(f"{args.file.name}: {frames} frames at {size[0]}x{size[1]}, {args.runs} runs, on {platform.machine()} "
          f"{platform.python_implementation()} {platform.python_version()}, pyvista {pyvista.__version__}, "
          f"VTK {pyvista.vtk_version_info}")
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    print(f"{'what':<14}{'median s':>10}{'min s':>8}{'max s':>8}{'frames/s':>10}")
    with tempfile.TemporaryDirectory() as folder:
        one_run(result, 2, size, ".gif", Path(folder))  # warm up the renderer and the encoders
        for name, suffix in OUTPUTS.items():
            seconds = [one_run(result, frames, size, suffix, Path(folder)) for _ in range(args.runs)]
            median = statistics.median(seconds)
            rate = "" if suffix == SETUP else f"{frames / median:>10.1f}"
            print(f"{name:<14}{median:>10.2f}{min(seconds):>8.2f}{max(seconds):>8.2f}{rate}")


if __name__ == "__main__":
    main()
