"""Files cspace writes: checked before any work, then written whole or not at all.

A report or picture is written after the whole trace has run, so whatever would stop
the write (a missing or read-only folder, a directory or device in the way, a link that
would carry the write to another file) is found first, in one line.

Every output is written to a new temporary file in the target's folder (named
``.<name>.<random>.tmp<suffix>``: hidden, and ending in the target's suffix, which is
how the picture writers choose their format), flushed to the disk and renamed over the
target (:func:`replaced`). A reader sees the old file or the new one, whole; a write
that fails (the disk full, the folder gone, an interrupt) removes the temporary file and
leaves the old one as it was, and an ``OSError`` becomes an
:class:`~cspace.model.errors.OutputError` naming the file. The rename replaces a link put in
the target's place since the check rather than writing through it. The new file gets
the permission bits of the file it replaces, or, for a new one, those ``open`` would
give it (``0o666`` less the umask). The price: until the rename both files exist, so on
a disk with no room for the new one beside the old, the write fails where overwriting in
place might have fitted, and the old file stays.

    >>> check_output("out.txt", (".csv", ".json"), field="--path")
    Traceback (most recent call last):
    ...
    cspace.model.errors.ModelError: out.txt: --path: unsupported extension '.txt'; use .csv or .json
"""

from __future__ import annotations

import errno
import io
import os
import stat
import sys
import tempfile
import unicodedata
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from ..model.errors import ModelError, OutputError


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
        if not os.access(target, os.W_OK):  # replaced, not written, but read-only is the owner's say
            raise fail("cannot write: permission denied")
    elif not target.parent.is_dir():
        raise fail(f"directory {str(target.parent)!r} does not exist")
    try:  # the one sure test that the temporary file can be made here (read-only mounts, /proc, ...)
        _remove(_temporary(target))
    except OSError as error:
        raise fail(f"cannot write: {error.strerror}") from None


@contextmanager
def replaced(path: str | os.PathLike) -> Iterator[Path]:
    """A temporary file's path, for the block to write ``path``'s new content to; renamed over
    ``path`` when the block ends, removed if it raises (``path`` left as it was). An
    ``OSError`` (the disk full, ...) is raised as an :class:`~cspace.model.errors.OutputError`.

    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> with replaced(folder / "a.txt") as new:
    ...     _ = new.write_text("whole")
    >>> (folder / "a.txt").read_text(), sorted(p.name for p in folder.iterdir())
    ('whole', ['a.txt'])
    """
    target = Path(path)
    try:
        temporary = _temporary(target)
    except OSError as error:
        raise _failed(target, error) from None
    try:
        yield temporary
        _sync(temporary)
        os.replace(temporary, target)
    except BaseException as error:
        _remove(temporary)
        cause = _os_error(error)
        if cause is None:
            raise
        raise _failed(target, cause) from None


def write_text(path: str | os.PathLike, text: str) -> None:
    """Write ``text`` to ``path`` (UTF-8), whole or not at all (:func:`replaced`)."""
    with replaced(path) as temporary, open(temporary, "w", encoding="utf-8", newline="") as out:
        out.write(text)


def _temporary(target: Path) -> Path:
    """A new, empty file in ``target``'s folder, with the mode the target will have."""
    descriptor, name = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=f".tmp{target.suffix}")
    try:
        os.fchmod(descriptor, _mode(target))
    finally:
        os.close(descriptor)
    return Path(name)


def _mode(target: Path) -> int:
    """The permission bits of the file ``target`` replaces, else those ``open`` gives a new one."""
    try:
        info = os.lstat(target)
    except OSError:
        info = None
    if info is not None and stat.S_ISREG(info.st_mode):
        return stat.S_IMODE(info.st_mode)
    umask = os.umask(0o022)  # read by setting it: there is no other portable way
    os.umask(umask)
    return 0o666 & ~umask


def _sync(path: Path) -> None:
    """Flush the file's content to the disk before the rename makes it the target's (else a
    crash just after could leave an empty file in its place); a full disk may say so only here."""
    descriptor = os.open(path, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


def _remove(path: Path) -> None:
    """Remove a temporary file, if it can be: the error that made it left over is the one to tell."""
    try:
        os.unlink(path)
    except OSError:
        pass


def _os_error(error: BaseException) -> OSError | None:
    """The ``OSError`` behind a writer's failure: the error itself, or one it was handling when
    it failed again (matplotlib's PDF writer, out of space, then fails to tidy up with an
    ``AttributeError``); None for anything else, an interrupt included."""
    if isinstance(error, (KeyboardInterrupt, SystemExit)):
        return None
    seen = set()
    while error is not None and id(error) not in seen:
        if isinstance(error, OSError):
            return error
        seen.add(id(error))
        error = error.__cause__ or error.__context__
    return None


def _failed(target: Path | str, error: OSError) -> OutputError:
    reason = error.strerror or str(error) or type(error).__name__
    return OutputError(f"cannot write: {reason}", file=str(target), errno=error.errno)


# ---- text shown -------------------------------------------------------------------------------

_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def printable(text: str) -> str:
    r"""``text`` with every character that is not text written as its Python escape: those of
    Unicode category C (controls such as newline, NUL and ESC; format characters,
    surrogates, unassigned) and the line and paragraph separators. A name from a file shown
    on a terminal or in a table (``cspace stats``, an error line) then can neither break
    its line nor drive the terminal; the JSON report keeps names as they are (it escapes
    them by construction).

    >>> printable("lev\ner\x00\x1b[31m\u2028ok \u00e9")
    'lev\\ner\\x00\\x1b[31m\\u2028ok é'
    """
    if text.isprintable():  # no category C nor separator but the space: nothing to do
        return text
    return "".join(_escaped(ch) for ch in text)


def markdown_cell(text: str) -> str:
    r"""``text`` as a cell of a Markdown (GitHub) table: :func:`printable`, its backslashes and
    pipes escaped, so that a ``|`` in a name neither ends the cell nor follows a backslash
    that would take its escape.

    >>> print(markdown_cell("lever | pipe \\ end"))
    lever \| pipe \\ end
    """
    return printable(text).replace("\\", "\\\\").replace("|", "\\|")


def _escaped(ch: str) -> str:
    if unicodedata.category(ch)[0] != "C" and unicodedata.category(ch) not in ("Zl", "Zp"):
        return ch
    if ch in _ESCAPES:
        return _ESCAPES[ch]
    code = ord(ch)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


# ---- the standard streams ----------------------------------------------------------------------

STDOUT = "standard output"


def open_standard_streams() -> None:
    """Give a standard stream closed when cspace started (``>&-``) the null device's descriptor,
    so that no file opened later takes its number and, with it, whatever a library writes
    there. Standard output stays closed to :func:`write_stdout` (``sys.stdout`` is None),
    which says so; standard error, closed, is the null device (nowhere to say anything)."""
    for descriptor in (0, 1, 2):
        try:
            os.fstat(descriptor)
        except OSError:
            null = os.open(os.devnull, os.O_RDWR)
            if null != descriptor:
                os.dup2(null, descriptor)
                os.close(null)
    if sys.stderr is None:
        sys.stderr = open(os.devnull, "w", encoding="utf-8")


def write_stdout(text: str) -> None:
    """Write ``text`` to standard output; an :class:`~cspace.model.errors.OutputError` if it cannot
    be written (closed, the disk full, the reader gone). Nothing to write is no write."""
    if not text:
        return
    if sys.stdout is None:
        raise OutputError("cannot write: it is closed", file=STDOUT, errno=errno.EBADF)
    try:
        sys.stdout.write(text)
    except OSError as error:
        raise _stdout_failed(error) from None


def flush_stdout() -> None:
    """Flush standard output, as :func:`write_stdout` writes (what is buffered may fail only here)."""
    if sys.stdout is None:
        return
    try:
        sys.stdout.flush()
    except OSError as error:
        raise _stdout_failed(error) from None


def say(line: str) -> None:
    """Print ``line`` on standard error, as one line of text (:func:`printable`: a file name
    or a name from a file may hold a newline or ESC), if it can be printed: it is the last resort."""
    try:
        print(printable(line), file=sys.stderr, flush=True)
    except (OSError, ValueError):
        pass


def _stdout_failed(error: OSError) -> OutputError:
    """The error, once what standard output still buffers is sent to the null device: Python
    flushes it again at exit, and would fail again, with a traceback (the Python
    documentation's note on SIGPIPE does the same)."""
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, sys.stdout.fileno())
        os.close(null)
    except (OSError, ValueError, io.UnsupportedOperation):
        pass  # not a real file (a test's capture): nothing flushes it at exit
    return _failed(STDOUT, error)
