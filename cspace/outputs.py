"""Files cspace writes: checked before any work, written without following links.

A report or picture is written after the whole trace has run, so whatever would stop
the write (a missing or read-only folder, a directory or device in the way, a link that
would carry the write to another file) is found first, in one line.

    >>> check_output("out.txt", (".csv", ".json"), field="--path")
    Traceback (most recent call last):
    ...
    cspace.errors.ModelError: out.txt: --path: unsupported extension '.txt'; use .csv or .json
"""

from __future__ import annotations

import os
import stat
from collections.abc import Sequence
from pathlib import Path

from .errors import ModelError


def check_output(path: str | os.PathLike, suffixes: Sequence[str], *, field: str) -> None:
    """Raise ModelError unless ``path`` ends in one of ``suffixes`` and can be written: not a
    link, a directory or a special file, in a folder that exists and takes a new file."""
    name, target = str(path), Path(path)

    def fail(message: str) -> ModelError:
        return ModelError(message, file=name, field=field)

    if target.suffix.lower() not in suffixes:
        allowed = " or ".join(", ".join(suffixes).rsplit(", ", 1))
        raise fail(f"unsupported extension {target.suffix or '(none)'!r}; use {allowed}")
    try:
        mode = os.lstat(target).st_mode
    except FileNotFoundError:
        mode = None
    except OSError as error:
        raise fail(f"cannot write: {error.strerror}") from None
    if mode is not None:
        if stat.S_ISLNK(mode):
            raise fail("is a symbolic link; cspace does not write through links (write to its target)")
        if stat.S_ISDIR(mode):
            raise fail("is a directory")
        if not stat.S_ISREG(mode):
            raise fail("is not a regular file")
        if not os.access(target, os.W_OK):
            raise fail("cannot write: permission denied")
        return
    if not target.parent.is_dir():
        raise fail(f"directory {str(target.parent)!r} does not exist")
    try:  # the one sure test that a new file can be made here (read-only mounts, /proc, ...)
        fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o644)
    except OSError as error:
        raise fail(f"cannot write: {error.strerror}") from None
    os.close(fd)
    os.unlink(target)


def write_text(path: str | os.PathLike, text: str, *, field: str) -> None:
    """Write ``text`` to ``path`` (UTF-8), refusing a link put in its place since the check."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0), 0o644)
    except OSError as error:
        raise ModelError(f"cannot write: {error.strerror}", file=str(path), field=field) from None
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write(text)
