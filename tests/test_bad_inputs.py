"""The hostile-input corpus: every file is rejected with its expected one-line message.

Files live in tests/data/bad/; the first line of each says ``# expect: <message>``.
Inputs too large to keep in the repository (a 100 MB file, 10,000 parts, a profile
of 50,000 faces) are generated here. Those run in a child process whose address
space is capped, so "bounded memory" is enforced, not hoped for; the timeout only
guards against a hang (timings are measured by tools/bad_input_report.py).
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from cspace.cli import main

from .common import slow
from .support.fuzz import hostile_inputs

BAD = Path(__file__).resolve().parent / "data" / "bad"
FILES = sorted(BAD.glob("*.toml"))
MEMORY_CAP = 1 << 30  # bytes of address space for the child process
HANG_GUARD = 120  # seconds


def expected(path: Path) -> str:
    first = path.read_bytes().split(b"\n", 1)[0].decode("ascii")
    assert first.startswith("# expect: "), f"{path.name} has no '# expect:' line"
    return first[len("# expect: "):]


def test_the_corpus_is_there():
    assert len(FILES) >= 30


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_rejected_with_its_message(path, capsys):
    status = main(["check", str(path)])
    captured = capsys.readouterr()
    assert status == 2 and captured.out == ""
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1, captured.err
    assert lines[0].startswith(f"cspace: error: {path}: ")
    assert expected(path) in lines[0]


def _capped():
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP, MEMORY_CAP))


def run_capped(path: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "cspace.cli", "check", str(path)], capture_output=True,
                          text=True, timeout=HANG_GUARD, preexec_fn=_capped)


GENERATED = hostile_inputs()


@slow
@pytest.mark.parametrize("case", sorted(GENERATED))
def test_hostile_input_is_rejected_in_bounded_memory(case, tmp_path):
    content, message = GENERATED[case]
    path = tmp_path / "hostile.toml"
    path.write_bytes(content)
    done = run_capped(path)
    assert done.returncode == 2, done.stderr[-500:]
    assert "Traceback" not in done.stderr
    assert done.stderr.count("\n") == 1 and message in done.stderr


def _special_files(tmp: Path) -> dict[str, tuple[Path, str]]:
    """Paths that are not regular files, each with the message expected for it."""
    fifo = tmp / "fifo.toml"
    os.mkfifo(fifo)
    zero = tmp / "zero.toml"
    zero.symlink_to("/dev/zero")
    random = tmp / "random.toml"
    random.symlink_to("/dev/urandom")
    return {
        "a FIFO (would block)": (fifo, "is not a regular file (a FIFO)"),
        "a link to /dev/zero (endless, size 0)": (zero, "is not a regular file (a character device)"),
        "a link to /dev/urandom": (random, "is not a regular file (a character device)"),
        "/dev/zero itself": (Path("/dev/zero"), "is not a regular file (a character device)"),
        "/proc/self/mem (a regular file that cannot be read)": (Path("/proc/self/mem"), "cannot read:"),
        "a directory": (tmp, "is a directory"),
    }


@slow
@pytest.mark.parametrize("case", ["a FIFO (would block)", "a link to /dev/zero (endless, size 0)",
                                  "a link to /dev/urandom", "/dev/zero itself",
                                  "/proc/self/mem (a regular file that cannot be read)", "a directory"])
def test_what_is_not_a_regular_file_is_refused_at_once(case, tmp_path):
    """The size ``stat`` gives these is 0, so a limit trusting it read /dev/zero until memory
    ran out and waited on a FIFO for ever: each is one line, in bounded memory and time."""
    path, message = _special_files(tmp_path)[case]
    done = run_capped(path)
    assert done.returncode == 2, done.stderr[-500:]
    assert "Traceback" not in done.stderr
    assert done.stderr.count("\n") == 1 and message in done.stderr and str(path) in done.stderr


def test_a_byte_order_mark_is_accepted(tmp_path):
    """Some editors start UTF-8 files with a byte order mark: the file reads as without it."""
    source = Path(__file__).resolve().parent.parent / "fixtures" / "pusher.toml"
    marked = tmp_path / "pusher.toml"
    marked.write_bytes(b"\xef\xbb\xbf" + source.read_bytes())
    from cspace import load

    assert repr(load(marked)) == repr(load(source))


BLOCK = """
[mechanism]
time = 1
{tolerance}
[[parts]]
name = "frame"
motion = "fixed"
[[parts.slices]]
z = [0, 1]
profiles = [{{ rect = [-5, -2, 30, 0] }}]
[[parts]]
name = "block"
motion = "fixed-axes"
coordinates = [{{ name = "x", axis = [1, 0], initial = 0 }}]
[[parts.slices]]
z = [0, 1]
profiles = [{profiles}]
[[inputs]]
velocities = {{ x = 1.0 }}
sampling = 0.5
"""


def test_an_arc_whose_centre_is_a_hair_off_is_a_correct_run(tmp_path, capsys):
    """The arc's ends are 1e-9 apart in radius (within the length tolerance): it was a
    TypeError in the overlap test; it is an arc like any other."""
    path = tmp_path / "arc-off.toml"
    path.write_text(BLOCK.format(tolerance="", profiles="{ path = [[0,0],[1,0],{arc=[1,1],center=[1.000000001,0.5]},"
                                                        "[0,1],[0,0]] }"))
    assert main(["check", str(path)]) == 0, capsys.readouterr().err


@slow
def test_arcs_that_would_flatten_into_too_many_segments_are_refused_before_the_work(tmp_path):
    """Ten circles at the finest arc tolerance would be 370,000 segments: refused at once,
    naming the tolerance, where a tiny arc tolerance ran out of memory."""
    circles = ", ".join(f"{{ circle = [{3 * k + 1}, 3], radius = 1 }}" for k in range(10))
    path = tmp_path / "circles.toml"
    path.write_text(BLOCK.format(tolerance="[tolerance]\narc = 1e-10\nlength = 1e-10", profiles=circles))
    done = run_capped(path)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.count("\n") == 1 and "tolerance: arc:" in done.stderr and "segments; at most 200,000" in done.stderr
