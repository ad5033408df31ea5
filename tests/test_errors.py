"""Bad input gets one clear line naming file, element and field; exit status 2; no traceback."""

from __future__ import annotations

import subprocess
import sys

import pytest

from cspace import UnsupportedPairError, analyze, loads
from cspace.cli import main

from .common import slow

BASE = """\
[mechanism]
name = "base"
time = 1

[[parts]]
name = "frame"
motion = "fixed"

[[parts.slices]]
z = [0, 1]
profiles = [{ rect = [-10, -1, 10, 0] }]

[[parts]]
name = "block"
motion = "fixed-axes"
coordinates = [{ name = "x", axis = [1, 0], initial = 0 }, { name = "y", axis = [0, 1], initial = 0 }]

[[parts.slices]]
z = [0, 1]
profiles = [{ rect = [0, 0, 1, 1] }]

[[inputs]]
velocities = { x = 1.0 }
sampling = 0.25
"""

CRANK = """\
[[parts]]
name = "crank"
motion = "fixed-axes"
coordinates = [{ name = "c", pivot = [0, 0], initial = 0 }]

[[parts.slices]]
z = [2, 3]
profiles = [{ circle = [0, 0], radius = 1 }]

[[parts]]
name = "rod"
motion = "linkage"

[[parts.slices]]
z = [3, 4]
profiles = [{ rect = [0, -0.1, LENGTH, 0.1] }]

[[parts]]
name = "slider"
motion = "fixed-axes"
coordinates = [{ name = "s", axis = [1, 0], initial = START }]

[[parts.slices]]
z = [4, 5]
profiles = [{ rect = [0, -0.5, 1, 0.5] }]

[[linkages]]
name = "crank-slider"
input = "c"
output = "s"
members = ["rod"]
joints = [
  { kind = "pin", parts = ["crank", "rod"], points = [[1, 0], [0, 0]] },
  { kind = "pin", parts = ["rod", "slider"], points = [[LENGTH, 0], [0, 0]] },
]
"""

ROCKER = """\
[[parts]]
name = "lever"
motion = "fixed-axes"
coordinates = [{ name = "a", pivot = [0, 0], initial = 0 }]

[[parts.slices]]
z = [2, 3]
profiles = [{ rect = [0, -0.1, 3, 0.1] }]

[[parts]]
name = "bar"
motion = "linkage"

[[parts.slices]]
z = [3, 4]
profiles = [{ rect = [0, -0.1, 2, 0.1] }]

[[parts]]
name = "rocker"
motion = "fixed-axes"
coordinates = [{ name = "b", pivot = [4, 0], initial = 2.278380763520252 }]

[[parts.slices]]
z = [4, 5]
profiles = [{ rect = [4, -0.1, 6.5, 0.1] }]

[[linkages]]
name = "double-rocker"
input = "a"
output = "b"
members = ["bar"]
joints = [
  { kind = "pin", parts = ["lever", "bar"], points = [[3, 0], [0, 0]] },
  { kind = "pin", parts = ["bar", "rocker"], points = [[2, 0], [6.5, 0]] },
]
"""


def crank(length: float, start: float) -> str:
    return CRANK.replace("LENGTH", str(length)).replace("START", str(start))


CASES = {
    "malformed TOML": (BASE.replace("[mechanism]", "[mechanism"), ["invalid TOML", "line 1"]),
    "unknown coordinate in a motion": (BASE.replace("{ x = 1.0 }", "{ z = 1.0 }"),
                                       ["inputs[0]", "velocities", "unknown coordinate 'z'"]),
    "open profile": (BASE.replace("{ rect = [0, 0, 1, 1] }", "{ path = [[0, 0], [1, 0], [1, 1], [0, 1]] }"),
                     ["part 'block'", "slices[0].profiles[0]", "open"]),
    "self-intersecting profile": (BASE.replace("{ rect = [0, 0, 1, 1] }",
                                               "{ path = [[0, 0], [1, 1], [1, 0], [0, 1], [0, 0]] }"),
                                  ["part 'block'", "slices[0].profiles[0]", "crosses itself", "(0.5, 0.5)"]),
    "parts overlapping initially": (BASE.replace("initial = 0 }]", "initial = -0.5 }]"),
                                    ["parts 'frame' and 'block'", "initial configuration", "overlap 0.5"]),
    "linkage that cannot assemble": (BASE + crank(3, 9), ["linkage 'crank-slider'", "joints",
                                                          "cannot assemble at c = 0"]),
    "linkage with a dead point": (BASE + ROCKER, ["linkage 'double-rocker'", "joints", "dead point at a = 1.37"]),
    "zero sampling interval": (BASE.replace("sampling = 0.25", "sampling = 0"),
                               ["inputs[0]", "sampling", "must be positive, got 0"]),
    "negative sampling interval": (BASE.replace("sampling = 0.25", "sampling = -1"),
                                   ["inputs[0]", "sampling", "must be positive, got -1"]),
    "unknown field": (BASE.replace("motion = \"fixed-axes\"", "motoin = \"fixed-axes\""),
                      ["part 'block'", "motoin", "did you mean 'motion'"]),
    "not a number": (BASE.replace("time = 1", "time = \"soon\""), ["mechanism", "time", "expected a number"]),
    "inverted rect": (BASE.replace("[0, 0, 1, 1]", "[1, 0, 0, 1]"), ["part 'block'", "rect", "x1 > x0"]),
}


def run(argv: list[str], capsys) -> tuple[int, str, str]:
    status = main(argv)
    captured = capsys.readouterr()
    return status, captured.out, captured.err


@pytest.mark.parametrize("case", sorted(CASES))
def test_bad_mechanism_is_one_clear_line(case, tmp_path, capsys):
    text, fragments = CASES[case]
    path = tmp_path / "bad.toml"
    path.write_text(text)
    status, out, err = run(["trace", str(path)], capsys)
    assert status == 2
    assert out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith(f"cspace: error: {path}: ")
    for fragment in fragments:
        assert fragment in lines[0]


def test_check_reports_the_same_error(tmp_path, capsys):
    path = tmp_path / "bad.toml"
    path.write_text(CASES["open profile"][0])
    status, _, err = run(["check", str(path)], capsys)
    assert status == 2 and "profile is open" in err


def test_missing_file(tmp_path, capsys):
    status, _, err = run(["trace", str(tmp_path / "nowhere.toml")], capsys)
    assert status == 2
    assert err.strip() == f"cspace: error: {tmp_path / 'nowhere.toml'}: no such file"


@pytest.mark.parametrize("target, message", [("out.txt", "unsupported extension '.txt'"),
                                             ("missing/out.csv", "does not exist")])
def test_bad_path_option(target, message, tmp_path, capsys, root_fixture="fixtures/feeder.toml"):
    from .common import fixture_path

    status, _, err = run(["trace", str(fixture_path("feeder")), "--path", str(tmp_path / target)], capsys)
    assert status == 2 and message in err and len(err.strip().splitlines()) == 1


@slow
def test_the_installed_command_prints_no_traceback(tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text(CASES["linkage that cannot assemble"][0])
    done = subprocess.run([sys.executable, "-m", "cspace.cli", "trace", str(path)],
                          capture_output=True, text=True)
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert done.stderr.count("\n") == 1


def test_a_pair_of_three_dimensions_with_a_turning_part_is_refused_naming_the_pair():
    """A lever turning against a block free in x and y would need a 3-D space: refused, both parts named."""
    text = """
[[parts]]
name = "block"
motion = "fixed-axes"
coordinates = [{ name = "x", axis = [1, 0] }, { name = "y", axis = [0, 1] }]
[[parts.slices]]
z = [0, 1]
profiles = [{ rect = [-5, -3, 5, -2] }]
[[parts]]
name = "lever"
motion = "fixed-axes"
coordinates = [{ name = "a", pivot = [0, 0] }]
[[parts.slices]]
z = [0, 1]
profiles = [{ rect = [-4, -0.5, 4, 0.5] }]
"""
    with pytest.raises(UnsupportedPairError) as caught:
        analyze(loads(text, source="lever.toml"))
    assert str(caught.value).startswith("lever.toml: parts 'block' and 'lever': coordinates: their configuration "
                                        "space would have 3 dimensions (x, y, a)")
