"""Outputs written whole or not at all (cspace.io.outputs), and write errors as one line.

A full disk gave ``OSError: [Errno 28]`` tracebacks for every output type and left the
target truncated, destroying a good file that was there. The writers are tested where
writing really fails: in a process whose file size limit (``RLIMIT_FSIZE``, no root or
mount needed) is below what any output takes, so the kernel refuses the write
(``EFBIG``, as it refuses ``ENOSPC`` on a full disk) wherever the bytes go; standard
output is tested on ``/dev/full``, closed (``>&-``) and with its reader gone.
"""

from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from cspace.io.outputs import replaced, write_text
from cspace.model.errors import OutputError

from .common import ROOT, fixture_path, slow

FEEDER = str(fixture_path("feeder"))
LEVER = str(fixture_path("lever"))
OLD = b"a good output, made before\n" * 20  # 540 bytes: more than the limit below
LIMIT = 100  # bytes a file may reach in the limited process

# Runs each command line (argument 1, JSON) in one process whose files may not grow past the
# bytes of argument 2 (if given); prints [status, standard error] per command (on the real
# standard output, a pipe: not a file it limits).
DRIVER = """
import io, json, resource, signal, sys
if len(sys.argv) > 2:
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails (EFBIG), not the process
    resource.setrlimit(resource.RLIMIT_FSIZE, (int(sys.argv[2]), int(sys.argv[2])))
from cspace.cli import main
results = []
for argv in json.loads(sys.argv[1]):
    sys.stdout, sys.stderr = io.StringIO(), io.StringIO()
    try:
        status = main(argv)
    except BaseException as error:
        status = repr(error)
    results.append([status, sys.stderr.getvalue()])
sys.__stdout__.write(json.dumps(results))
"""

OUTPUTS = [
    ("path.csv", ["trace", FEEDER, "--until", "1", "--path"]),
    ("path.json", ["trace", FEEDER, "--until", "1", "--path"]),
    ("viewer.html", ["animate", FEEDER, "--until", "1", "-o"]),
    ("feeder.gif", ["animate", FEEDER, "--until", "1", "--size", "64x48", "-o"]),
    ("feeder.mp4", ["animate", FEEDER, "--until", "1", "--size", "64x48", "-o"]),
    ("pair.png", ["plot-pair", FEEDER, "piston", "block1", "--until", "1", "-o"]),
    ("pair.svg", ["plot-pair", FEEDER, "piston", "block1", "--until", "1", "-o"]),
    ("pair.pdf", ["plot-pair", FEEDER, "piston", "block1", "--until", "1", "-o"]),
]


def _environment() -> dict[str, str]:
    return {**os.environ, "CSPACE_CACHE": "off", "PYTHONPATH": str(ROOT), "PYTHONDONTWRITEBYTECODE": "1"}


@pytest.fixture(scope="module")
def refused(tmp_path_factory):
    """Every output type written over a good file, where no file may grow past LIMIT bytes:
    the folder before and after, and each command's status and standard error."""
    folder = tmp_path_factory.mktemp("limited")
    for name, _ in OUTPUTS:
        (folder / name).write_bytes(OLD)
    before = sorted(p.name for p in folder.iterdir())
    return folder, before, _drive(folder, OUTPUTS, LIMIT)


def _drive(folder: Path, outputs: list[tuple[str, list[str]]], limit: int | None) -> dict[str, list]:
    """Each output's [status, standard error], written into ``folder`` by :data:`DRIVER`."""
    commands = [argv + [str(folder / name)] for name, argv in outputs]
    done = subprocess.run([sys.executable, "-c", DRIVER, json.dumps(commands), *([str(limit)] if limit else [])],
                          capture_output=True, text=True, env=_environment(), cwd=ROOT, check=False, timeout=600)
    assert done.returncode == 0, done.stderr
    return dict(zip((name for name, _ in outputs), json.loads(done.stdout)))


@slow
@pytest.mark.parametrize("name", [name for name, _ in OUTPUTS])
def test_a_write_that_fails_leaves_the_old_file_and_says_so_in_one_line(refused, name):
    folder, before, results = refused
    status, err = results[name]
    assert status == 1, err
    assert err.startswith(f"cspace: error: {folder / name}: cannot write: ") and err.count("\n") == 1, err
    if not name.endswith(".mp4"):  # ffmpeg writes the video: its own message is given
        assert err.endswith(": File too large\n")
    assert (folder / name).read_bytes() == OLD, "the good file that was there survives, byte for byte"
    assert sorted(p.name for p in folder.iterdir()) == before, "no temporary file is left behind"


# In a mount namespace of its own (no mount outside it to clean up): a 64 kB tmpfs on the
# folder (argument 1), good files written, the rest of the disk filled, then the driver's
# commands (argument 2) run there; prints the driver's results and each file's bytes kept.
FULL = """
import json, os, subprocess, sys
folder, commands, old = sys.argv[1], sys.argv[2], sys.argv[3].encode()
subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", folder], check=True)
names = [os.path.basename(argv[-1]) for argv in json.loads(commands)]
for name in names:
    with open(os.path.join(folder, name), "wb") as out:
        out.write(old)
try:
    with open(os.path.join(folder, "filler"), "wb", buffering=0) as filler:
        while True:
            filler.write(bytes(4096))
except OSError:
    pass
before = sorted(os.listdir(folder))
done = subprocess.run([sys.executable, "-c", sys.argv[4], commands], capture_output=True, text=True, check=True)
kept = {name: open(os.path.join(folder, name), "rb").read() == old for name in names}
print(json.dumps([json.loads(done.stdout), kept, before == sorted(os.listdir(folder))]))
"""


@slow
def test_on_a_full_tmpfs_the_old_files_survive(tmp_path):
    """A disk really full: a 64 kB tmpfs, mounted in a mount namespace of the test's own
    (``unshare``, as root or as a user mapped to root), filled, then a CSV, a GIF and a PNG
    written over good files there: each refused in one line, the old files kept."""
    folder = tmp_path / "full"
    folder.mkdir()
    outputs = [OUTPUTS[0], OUTPUTS[3], OUTPUTS[5]]  # a CSV, a GIF, a PNG
    commands = json.dumps([argv + [str(folder / name)] for name, argv in outputs])
    isolate = ["unshare", "--mount"] + ([] if os.geteuid() == 0 else ["--user", "--map-root-user"])
    done = subprocess.run(isolate + [sys.executable, "-c", FULL, str(folder), commands, OLD.decode(), DRIVER],
                          capture_output=True, text=True, env=_environment(), cwd=ROOT, check=False, timeout=600)
    assert done.returncode == 0, done.stderr
    results, kept, unchanged = json.loads(done.stdout)
    for (name, _), (status, err) in zip(outputs, results):
        assert (status, err) == (1, f"cspace: error: {folder / name}: cannot write: No space left on device\n")
        assert kept[name], "the good file that was there survives, byte for byte"
    assert unchanged, "no temporary file is left behind"


def test_replaced_on_a_full_disk_removes_its_temporary_and_keeps_the_old_file(tmp_path):
    target = tmp_path / "out.csv"
    target.write_bytes(OLD)
    with pytest.raises(OutputError) as caught:
        with replaced(target) as temporary:
            temporary.write_bytes(b"half of the new")
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    assert str(caught.value) == f"{target}: cannot write: No space left on device"
    assert caught.value.errno == errno.ENOSPC
    assert target.read_bytes() == OLD and [p.name for p in tmp_path.iterdir()] == ["out.csv"]


def test_an_interrupted_write_removes_its_temporary_and_keeps_the_old_file(tmp_path):
    target = tmp_path / "out.csv"
    target.write_bytes(OLD)
    with pytest.raises(KeyboardInterrupt):
        with replaced(target) as temporary:
            temporary.write_bytes(b"half of the new")
            raise KeyboardInterrupt
    assert target.read_bytes() == OLD and [p.name for p in tmp_path.iterdir()] == ["out.csv"]


def test_an_error_raised_while_handling_a_write_error_is_the_write_error(tmp_path):
    """matplotlib's PDF writer, out of space, fails again tidying up (an AttributeError)."""
    target = tmp_path / "pair.pdf"
    with pytest.raises(OutputError, match=r"pair\.pdf: cannot write: No space left on device$"):
        with replaced(target):
            try:
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
            except OSError:
                raise AttributeError("'Stream' object has no attribute 'pos'") from None
    assert list(tmp_path.iterdir()) == []


def test_a_replaced_file_keeps_its_mode_and_a_new_one_gets_opens(tmp_path):
    kept = tmp_path / "kept.csv"
    kept.write_bytes(OLD)
    kept.chmod(0o640)
    write_text(kept, "new\n")
    assert kept.read_text() == "new\n" and kept.stat().st_mode & 0o777 == 0o640
    umask = os.umask(0o027)
    try:
        write_text(tmp_path / "new.csv", "new\n")
    finally:
        os.umask(umask)
    assert (tmp_path / "new.csv").stat().st_mode & 0o777 == 0o640  # 0o666 less the umask, as open() gives


def test_a_link_put_in_the_targets_place_is_replaced_not_written_through(tmp_path):
    elsewhere = tmp_path / "elsewhere.txt"
    elsewhere.write_bytes(OLD)
    (tmp_path / "out.csv").symlink_to(elsewhere)
    write_text(tmp_path / "out.csv", "new\n")
    assert elsewhere.read_bytes() == OLD and not (tmp_path / "out.csv").is_symlink()


# ---- standard output ---------------------------------------------------------------------------

def _cspace(args: list[str], redirect: str) -> subprocess.CompletedProcess:
    """The command line in a shell that redirects its standard output (``> /dev/full``, ``>&-``)."""
    command = " ".join([sys.executable, "-m", "cspace.cli", *args, redirect])
    return subprocess.run(["sh", "-c", command], stderr=subprocess.PIPE, text=True, env=_environment(), cwd=ROOT,
                          check=False, timeout=300)


@slow  # a process each
@pytest.mark.parametrize("args", [["trace", LEVER], ["trace", LEVER, "--json"], ["check", LEVER],
                                  ["stats", LEVER], ["regions", LEVER]])
@pytest.mark.parametrize("redirect,reason", [("> /dev/full", "No space left on device"),
                                             (">&-", "it is closed")])
def test_standard_output_that_cannot_be_written_is_one_line(args, redirect, reason):
    done = _cspace(args, redirect)
    assert (done.returncode, done.stderr) == (1, f"cspace: error: standard output: cannot write: {reason}\n")


@slow
def test_a_command_that_writes_nothing_to_a_closed_standard_output_succeeds(tmp_path):
    out = tmp_path / "path.csv"
    done = _cspace(["trace", LEVER, "--until", "1", "--path", str(out)], ">&-")
    assert done.returncode == 0 and done.stderr.startswith(f"cspace: wrote {out}: ")
    assert out.read_text().startswith("time,segment,")


@slow
def test_a_reader_that_stops_reading_ends_it_quietly():
    """``cspace trace ... | head``: the pipe closed before anything is written."""
    process = subprocess.Popen([sys.executable, "-m", "cspace.cli", "trace", LEVER], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, env=_environment())
    process.stdout.close()
    err = process.stderr.read()
    assert (process.wait(timeout=300), err) == (1, b"")


@slow
def test_standard_error_full_too_ends_with_a_status_and_nothing_more():
    done = _cspace(["trace", LEVER], "> /dev/full 2> /dev/full")
    assert done.returncode == 1
