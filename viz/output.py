"""Checks on what a picture is asked to be, made before any work so a bad request fails at once.

No renderer is imported here, so the command line can check its options while parsing them.

    >>> check_output("out.txt", (".gif", ".mp4"), field="-o")
    Traceback (most recent call last):
    ...
    cspace.model.errors.ModelError: out.txt: -o: unsupported extension '.txt'; use .gif or .mp4
"""

from __future__ import annotations

from cspace.io.outputs import check_output

__all__ = ["check_fps", "check_output", "check_size"]

PIXELS = (16, 8192)  # smallest and largest frame width or height
MAX_FPS = 100.0


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
