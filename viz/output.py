"""Checks on what a picture is asked to be, made before any work so a bad request fails at once.

No renderer is imported here, so the command line can check its options while parsing them.

    >>> check_output("out.txt", (".gif", ".mp4"), field="-o")
    Traceback (most recent call last):
    ...
    cspace.errors.ModelError: out.txt: -o: unsupported extension '.txt'; use .gif or .mp4
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from cspace.errors import ModelError

PIXELS = (16, 8192)  # smallest and largest frame width or height
MAX_FPS = 100.0


def check_output(path: str | Path, suffixes: Sequence[str], *, field: str) -> None:
    """Raise ModelError unless ``path`` ends in one of ``suffixes`` and its directory exists."""
    target = Path(path)
    if target.suffix.lower() not in suffixes:
        allowed = " or ".join(", ".join(suffixes).rsplit(", ", 1))
        raise ModelError(f"unsupported extension {target.suffix or '(none)'!r}; use {allowed}",
                         file=str(path), field=field)
    if not target.parent.is_dir():
        raise ModelError(f"directory {str(target.parent)!r} does not exist", file=str(path), field=field)


def check_size(size: tuple[int, int]) -> None:
    """Raise ValueError unless ``size`` is (width, height) in whole pixels within :data:`PIXELS`.

    >>> check_size((8, 600))
    Traceback (most recent call last):
    ...
    ValueError: size must be (width, height) in pixels, each from 16 to 8192, got (8, 600)
    """
    low, high = PIXELS
    if len(size) != 2 or not all(isinstance(v, int) and low <= v <= high for v in size):
        raise ValueError(f"size must be (width, height) in pixels, each from {low} to {high}, got {size!r}")


def check_fps(fps: float) -> None:
    """Raise ValueError unless ``fps`` is more than 0 and at most :data:`MAX_FPS` frames per second."""
    if not 0 < fps <= MAX_FPS:
        raise ValueError(f"fps must be more than 0 and at most {MAX_FPS:g} frames per second, got {fps!r}")
