"""Progress on standard error: shown when it is a terminal, never when it is redirected or with
``--quiet``, and never in what a command writes (standard output, ``--json``, ``--path``).

The command line runs in a child whose standard error is a pseudo-terminal (the ``pty``
module) and whose standard output is a pipe; the test reads what the terminal was sent.
"""

from __future__ import annotations

import fcntl
import os
import pty
import re
import struct
import subprocess
import sys
import termios
import threading
from pathlib import Path

import numpy as np
import pytest

from cspace import simulate

from .common import ROOT, analyzed, fixture_path

ENV = {**os.environ, "CSPACE_CACHE": "off", "CSPACE_WORKERS": "1"}  # every pair space built, here
FEEDER = ("trace", str(fixture_path("feeder")), "--until", "2")
# Full dynamics: Gillespie's disk, 7 s integrated in about half a second. Every bar redrawn at
# each update (tqdm reads its defaults from TQDM_* variables), so what a terminal is sent does
# not depend on the machine's speed.
DISK = ("trace", str(fixture_path("disk-on-ramp")))
EVERY_UPDATE = {**ENV, "TQDM_MININTERVAL": "0"}


def on_terminal(args: tuple[str, ...], cwd: Path, env: dict[str, str] = ENV) -> tuple[str, str]:
    """Run ``cspace ARGS`` with standard error a terminal 200 columns wide: (standard output,
    what the terminal was sent)."""
    main, child = pty.openpty()
    fcntl.ioctl(child, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 200, 0, 0))
    process = subprocess.Popen([sys.executable, "-m", "cspace.cli", *args], cwd=cwd, env=env,
                               stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=child)
    os.close(child)
    out: list[bytes] = []
    reader = threading.Thread(target=lambda: out.append(process.stdout.read()))
    reader.start()
    shown = bytearray()
    while True:
        try:
            chunk = os.read(main, 65536)
        except OSError:  # the child closed its terminal (Linux says EIO)
            break
        if not chunk:
            break
        shown += chunk
    os.close(main)
    reader.join()
    assert process.wait(timeout=60) == 0, shown.decode()
    return out[0].decode(), shown.decode()


def redirected(args: tuple[str, ...], cwd: Path) -> tuple[str, str]:
    """Run ``cspace ARGS`` with both streams pipes: (standard output, standard error)."""
    done = subprocess.run([sys.executable, "-m", "cspace.cli", *args], cwd=cwd, env=ENV, capture_output=True,
                          text=True, check=True)
    return done.stdout, done.stderr


def test_a_terminal_sees_the_pair_spaces_built_and_the_input_time_reached(tmp_path):
    out, shown = on_terminal(FEEDER, tmp_path)
    pairs = [f"{p.part_a}/{p.part_b}" for p in analyzed("feeder").pairs]
    for k, pair in enumerate(pairs):  # each pair named as it is built, after the k built before it
        assert re.search(rf"pair spaces: [^\r]*\b{k}/{len(pairs)} [^\r]*, {pair}\]", shown), pair
    assert re.search(r"trace: .*t = [0-9.]+ of 2 ", shown)
    assert out == redirected(FEEDER, tmp_path)[0]


def test_redirected_or_quiet_nothing_is_shown(tmp_path):
    out, err = redirected(FEEDER, tmp_path)
    assert err == "" and out.startswith("segment 1:")
    assert on_terminal((*FEEDER, "--quiet"), tmp_path) == (out, "")


def test_json_and_the_path_hold_no_progress(tmp_path):
    json = (*FEEDER, "--json", "--path", "path.csv")
    out, shown = on_terminal(json, tmp_path)
    on_tty = (tmp_path / "path.csv").read_bytes()
    assert "pair spaces" in shown and "trace" in shown
    assert out == redirected(json, tmp_path)[0]
    assert (tmp_path / "path.csv").read_bytes() == on_tty


def test_check_shows_its_trace(tmp_path):
    out, shown = on_terminal(("check", str(fixture_path("feeder"))), tmp_path)
    assert "pair spaces" in shown and re.search(r"trace: .*t = [0-9.]+ of 18.85", shown)
    assert out.endswith("(time allotment used)\n")


def test_plot_pair_shows_its_stages(tmp_path):
    out, shown = on_terminal(("plot-pair", str(fixture_path("feeder")), "piston", "block1", "-o", "p.png",
                              "--until", "2"), tmp_path)
    stages = [m.group(1) for m in re.finditer(r"plot-pair: (\d of 3, \w+)", shown)]
    assert list(dict.fromkeys(stages)) == ["1 of 3, analysing", "2 of 3, tracing", "3 of 3, plotting"]
    assert "pair spaces" in shown and "trace" in shown
    assert out == "p.png: configuration space of piston/block1\n"


@pytest.mark.slow
def test_animate_shows_its_stages_and_frames(tmp_path):
    out, shown = on_terminal(("animate", str(fixture_path("feeder")), "-o", "f.gif", "--until", "1",
                              "--size", "160x120"), tmp_path)
    stages = [m.group(1) for m in re.finditer(r"animate: (\d of 2, [\w ]+?)(?:\x1b|\r|$)", shown)]
    assert list(dict.fromkeys(stages)) == ["1 of 2, tracing", "2 of 2, rendering the frames"]
    assert re.search(r"f\.gif: .*\d+/\d+", shown)
    assert out.startswith("f.gif: ")


def test_a_sweep_shows_its_variants_unless_quiet(tmp_path):
    sweep = ("sweep", str(ROOT / "fixtures" / "sweeps" / "feeder.toml"), "--vary", "crank=2:4:2", "--out", "r.csv",
             "--workers", "1")
    out, shown = on_terminal(sweep, tmp_path)
    assert re.search(r"2/2 \[.*variant", shown) and out == "r.csv: 2 variants, 2 traced, 0 failed\n"
    assert on_terminal((*sweep, "--quiet"), tmp_path) == (out, "")


def times_shown(name: str, shown: str) -> list[float]:
    """The times reached that the bar ``name`` showed, in the order it showed them."""
    return [float(t) for t in re.findall(rf"{name}: [^\r]*\| t = ([0-9.e+-]+) of ", shown)]


def test_a_full_dynamics_run_shows_the_time_reached_as_the_trace_does(tmp_path):
    out, shown = on_terminal(DISK, tmp_path, EVERY_UPDATE)
    reached = times_shown("simulate", shown)
    assert re.search(r"simulate: [^\r]*\| t = [0-9.]+ of 7 \[", shown), "the allotment, as the trace shows it"
    assert reached[0] == 0 and reached[-1] == 7 and len(set(reached)) > 3, reached
    assert reached == sorted(reached), "time only goes on"
    assert out == redirected(DISK, tmp_path)[0]


def test_a_full_dynamics_run_redirected_or_quiet_shows_nothing(tmp_path):
    out, err = redirected(DISK, tmp_path)
    assert err == "" and out.startswith("stretch 1")
    assert on_terminal((*DISK, "--quiet"), tmp_path) == (out, "")


@pytest.mark.slow
def test_a_full_dynamics_runs_json_and_path_hold_no_progress(tmp_path):
    json = (*DISK, "--json", "--path", "path.csv")
    out, shown = on_terminal(json, tmp_path)
    on_tty = (tmp_path / "path.csv").read_bytes()
    assert "simulate: " in shown
    assert out == redirected(json, tmp_path)[0]
    assert (tmp_path / "path.csv").read_bytes() == on_tty


def test_check_shows_its_integration(tmp_path):
    out, shown = on_terminal(("check", str(fixture_path("disk-on-ramp"))), tmp_path)
    assert re.search(r"simulate: .*t = [0-9.]+ of 7", shown)
    assert "full dynamics; integrated" in out


def test_simulate_shows_progress_only_when_asked_and_integrates_the_same(capsys):
    analysis = analyzed("bouncing-block")
    quiet = simulate(analysis, until=0.5)
    assert capsys.readouterr().err == ""
    shown = simulate(analysis, until=0.5, progress=True)
    assert "simulate: " in capsys.readouterr().err
    assert np.array_equal(shown.times, quiet.times) and np.array_equal(shown.configs, quiet.configs)
