"""Animations of a path: one frame per snapshot, written as a GIF or an MP4.

A traced path (simple dynamics): every snapshot gets a frame, external motions included
(blocks dropping take no input time, so their frames share a time in the caption). A
dynamic path (full dynamics) plays in real time: a frame every ``1 / fps`` seconds,
interpolated between its samples, an impact an instant between two frames
(:func:`viz.snapshots.frames`). The camera is fixed, framed to hold every part at every
frame, and the caption gives the time and what the current segment does, or the
stretch's mode and the energies, in one font size for the whole animation, the largest at
which every caption fits the picture's width and its band. A legend names each colour's parts.

    >>> import tempfile, pathlib
    >>> from cspace import analyze, load, trace
    >>> out = pathlib.Path(tempfile.mkdtemp()) / "feeder.gif"
    >>> animate(trace(analyze(load("fixtures/feeder.toml")), until=0.5), out, size=(160, 120))
    3
"""

from __future__ import annotations

import errno
import itertools
import re
import subprocess
import sys
import tempfile
from collections.abc import Iterable, Iterator, Sequence
from fractions import Fraction
from pathlib import Path

import imageio_ffmpeg
import numpy as np
from PIL import Image
from tqdm import tqdm

from cspace.io.outputs import replaced
from cspace.model.errors import ModelError

from .output import check_fps, check_output, check_size
from .scene import Scene
from .snapshots import Snapshot, Traced, frames

FORMATS = (".gif", ".mp4")  # what animate() writes
PAGE = ".html"  # the browser viewer (viz.web), which the command line's animate also writes
MP4_CRF = 15  # H.264's constant rate factor: imageio-ffmpeg's quality 7 of 10 (51 is worst)


def animate(trace: Traced, path: str | Path, *, size: tuple[int, int] = (800, 600), view: str = "3d",
            fps: float = 10.0, progress: bool = False) -> int:
    """Write the path (a trace or a dynamic path) as an animation to ``path`` (.gif or .mp4);
    returns the frame count.

    ``progress`` shows a progress bar on standard error.
    """
    check_animation(path, size=size, fps=fps, field="path", formats=FORMATS)
    shots = frames(trace, fps)
    scene = Scene(trace, size=size, view=view, framed=[s.values for s in shots], captions=[s.caption for s in shots])
    try:
        return write_frames(render_frames(scene, shots), path, fps=fps, count=len(shots), progress=progress)
    finally:
        scene.close()


def check_animation(path: str | Path, *, size: tuple[int, int], fps: float, field: str,
                    formats: Sequence[str] = FORMATS + (PAGE,)) -> None:
    """Raise unless an animation can be written to ``path`` at this size and frame rate.

    ``field`` names the path argument in the message (``-o`` on the command line);
    ``formats`` are the suffixes accepted: by default a GIF, an MP4 or the browser
    viewer's page (:mod:`viz.web`), as ``cspace animate`` writes them.

    >>> check_animation("feeder.avi", size=(800, 600), fps=10, field="-o")
    Traceback (most recent call last):
    ...
    cspace.model.errors.ModelError: feeder.avi: -o: unsupported extension '.avi'; use .gif, .mp4 or .html
    """
    check_output(path, formats, field=field)
    check_size(size)
    check_fps(fps)
    if Path(path).suffix.lower() == ".mp4" and (size[0] % 2 or size[1] % 2):
        raise ModelError(f"an MP4 needs an even width and height, got {size[0]}x{size[1]}", file=str(path),
                         field=field)


def render_frames(scene: Scene, shots: Sequence[Snapshot]) -> Iterator[np.ndarray]:
    """The scene's picture at each snapshot, captioned."""
    for shot in shots:
        scene.pose(shot.values, shot.caption)
        yield scene.image()


def write_frames(frames: Iterable[np.ndarray], path: str | Path, *, fps: float, count: int | None = None,
                 progress: bool = False) -> int:
    """Write frames (equal-sized RGB arrays, at least one) to a .gif or .mp4 file; returns how many.

    ``count``, the number expected, is only for the progress bar. A GIF stores a picture
    that repeats unchanged as one frame shown for longer.
    """
    written = 0

    def tally() -> Iterator[np.ndarray]:
        nonlocal written
        for frame in tqdm(frames, total=count, disable=not progress, unit="frame", desc=Path(path).name,
                          file=sys.stderr):
            written += 1
            yield frame

    writer = _write_gif if Path(path).suffix.lower() == ".gif" else _write_mp4
    with replaced(path) as temporary:  # whole or not at all
        writer(tally(), temporary, fps)
    return written


def _write_gif(frames: Iterator[np.ndarray], path: str | Path, fps: float) -> None:
    # A fast octree palette per frame: several times quicker than Pillow's default median cut,
    # within a few levels of every colour (frames are flat-shaded, a few hundred colours).
    images = (Image.fromarray(frame).quantize(256, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE)
              for frame in frames)
    first = next(images)
    # GIF delays are whole centiseconds.
    delay = max(2, round(100 / fps)) * 10
    first.save(path, save_all=True, append_images=images, duration=delay, loop=0)


def _write_mp4(frames: Iterator[np.ndarray], path: str | Path, fps: float) -> None:
    """H.264 by imageio-ffmpeg's ffmpeg, run as its ``write_frames`` runs it (``quality=7``:
    CRF 15, yuv420p), but here: ``write_frames`` neither checks ffmpeg's exit status nor
    keeps its messages, so a full disk left an empty file and ffmpeg's lines on standard
    error. Its messages are kept, and a failure is an ``OSError`` with ffmpeg's last one."""
    first = next(frames)
    height, width = first.shape[:2]
    command = [imageio_ffmpeg.get_ffmpeg_exe(), "-y", "-f", "rawvideo", "-vcodec", "rawvideo",
               "-s", f"{width}x{height}", "-pix_fmt", "rgb24", "-r", str(Fraction(fps).limit_denominator()),
               "-i", "-", "-an", "-vcodec", "libx264", "-pix_fmt", "yuv420p", "-crf", str(MP4_CRF),
               "-v", "error", str(path)]
    with tempfile.TemporaryFile() as messages:
        ffmpeg = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=messages)
        try:
            for frame in itertools.chain([first], frames):
                ffmpeg.stdin.write(np.ascontiguousarray(frame).tobytes())
            ffmpeg.stdin.close()
        except BrokenPipeError:
            pass  # ffmpeg stopped: its status and messages say why
        except BaseException:
            ffmpeg.kill()
            raise
        finally:
            status = ffmpeg.wait()
        if status != 0:
            messages.seek(0)
            raise OSError(errno.EIO, f"ffmpeg failed: {_first_message(messages.read(), status)}")


def _first_message(log: bytes, status: int) -> str:
    """ffmpeg's first message (the cause; the rest follow from it) without its ``[muxer @ 0x...]``
    tags, or its exit status if it said nothing.

    >>> _first_message(b"[out#0/mp4 @ 0x55] Could not write header: No space left on device\\nmore\\n", 1)
    'Could not write header: No space left on device'
    """
    lines = [re.sub(r"^(\[[^\]]*\]\s*)+", "", line).strip() for line in log.decode("utf-8", "replace").splitlines()]
    return next((line for line in lines if line), f"exit status {status}")
