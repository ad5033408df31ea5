"""Checks on output files, made before any work so a bad path fails at once.

    >>> check_output("out.txt", (".gif", ".mp4"), field="-o")
    Traceback (most recent call last):
    ...
    cspace.errors.ModelError: out.txt: -o: unsupported extension '.txt'; use .gif or .mp4
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from cspace.errors import ModelError


def check_output(path: str | Path, suffixes: Sequence[str], *, field: str) -> None:
    """Raise ModelError unless ``path`` ends in one of ``suffixes`` and its directory exists."""
    target = Path(path)
    if target.suffix.lower() not in suffixes:
        allowed = " or ".join(", ".join(suffixes).rsplit(", ", 1))
        raise ModelError(f"unsupported extension {target.suffix or '(none)'!r}; use {allowed}",
                         file=str(path), field=field)
    if not target.parent.is_dir():
        raise ModelError(f"directory {str(target.parent)!r} does not exist", file=str(path), field=field)
