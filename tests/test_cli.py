"""The command line and its outputs."""

from __future__ import annotations

import csv
import importlib
import io
import json
import os
import subprocess
import sys

import pytest

from cspace.cli import main

from .common import FIXTURES, ROOT, fixture_path, slow

FEEDER = str(fixture_path("feeder"))


def run(argv, capsys):
    status = main(argv)
    out = capsys.readouterr()
    return status, out.out, out.err


def test_default_report_is_the_description(capsys):
    status, out, err = run(["trace", FEEDER, "--until", "3"], capsys)
    assert status == 0 and err == ""
    assert out.startswith("segment 1:\n(driving-motion (driver cd))")


def test_json_report(capsys):
    status, out, _ = run(["trace", FEEDER, "--json", "--until", "6.283185307179586"], capsys)
    document = json.loads(out)
    assert status == 0
    assert document["mechanism"] == "feeder"
    assert [s["kind"] for s in document["segments"]] == ["input", "external"] + ["input"] * 4
    second = document["segments"][1]
    assert second["driving"] == [{"part": "block3", "coordinate": "yb3"}]
    assert second["drives"][0]["to"] == [{"part": "block1", "coordinate": "yb1"},
                                         {"part": "block2", "coordinate": "yb2"}]
    block1 = next(p for p in second["parts"] if p["part"] == "block1")
    assert block1["coordinates"][0] == {"name": "yb1", "start": 1.0, "end": -1.0}
    assert "piston.top/block1.bottom" in document["segments"][0]["contacts"]
    assert document["statistics"]["segments"] == 6


@slow  # a process each
@pytest.mark.parametrize("name", FIXTURES)
def test_json_on_the_real_stdout_is_only_the_report(name):
    """In a separate process, so that anything a native library writes to file descriptor 1
    (HiGHS prints a banner unless told not to before its first call) lands in the output."""
    done = subprocess.run([sys.executable, "-m", "cspace.cli", "trace", str(fixture_path(name)), "--json"],
                          capture_output=True, text=True, check=False)
    assert (done.returncode, done.stderr) == (0, "")
    assert json.loads(done.stdout)["mechanism"] == name


def test_path_csv(tmp_path, capsys):
    out_file = tmp_path / "path.csv"
    status, out, _ = run(["trace", FEEDER, "--path", str(out_file), "--until", "1"], capsys)
    assert status == 0 and out == ""
    rows = list(csv.reader(io.StringIO(out_file.read_text())))
    assert rows[0] == ["time", "segment", "cd", "xp", "xb1", "yb1", "xb2", "yb2", "xb3", "yb3"]
    assert [float(r[0]) for r in rows[1:]] == [0, 0.25, 0.5, 0.75, 1.0]


@pytest.mark.parametrize("others", [["--stats"], ["--regions"], ["--describe"], ["--describe", "--regions", "--stats"]])
def test_json_with_any_other_report_is_one_document_holding_them(others, tmp_path, capsys):
    """--json with --describe, --regions or --stats: standard output parses, and holds what
    they would have printed: every segment's summary and regions, the statistics."""
    status, out, _ = run(["trace", FEEDER, "--json", "--until", "3", *others], capsys)
    document = json.loads(out)
    text = run(["trace", FEEDER, "--until", "3", "--stats", "--regions"], capsys)[1]
    assert status == 0
    assert document["statistics"]["segments"] == len(document["segments"])
    assert f"segments {document['statistics']['segments']}" in " ".join(text.split())
    assert all(segment["regions"] for segment in document["segments"])


def test_path_says_what_it_wrote_on_stderr(tmp_path, capsys):
    out_file = tmp_path / "path.csv"
    status, out, err = run(["trace", FEEDER, "--path", str(out_file), "--until", "1"], capsys)
    rows = out_file.read_text().splitlines()
    assert status == 0 and out == ""
    assert err == f"cspace: wrote {out_file}: the path sampled at {len(rows) - 1} configurations (CSV)\n"


def test_error_messages_print_numbers_as_numbers(tmp_path, capsys):
    path = tmp_path / "reversed.toml"
    path.write_text('[[parts]]\nname = "b"\nmotion = "fixed"\n[[parts.slices]]\nz = [0, 1]\n'
                    'profiles = [{ rect = [3, 2, 0.5, 0] }]\n')
    status, _, err = run(["check", str(path)], capsys)
    assert status == 2 and err.rstrip().endswith("got [3, 2, 0.5, 0]")


def test_path_json(tmp_path, capsys):
    out_file = tmp_path / "path.json"
    assert run(["trace", FEEDER, "--path", str(out_file), "--until", "1"], capsys)[0] == 0
    document = json.loads(out_file.read_text())
    assert document["columns"][:3] == ["time", "segment", "cd"]
    assert len(document["rows"]) == 5


def test_region_table(capsys):
    status, out, _ = run(["trace", FEEDER, "--regions", "--until", "6.283185307179586"], capsys)
    header, *rows = out.strip().splitlines()
    assert status == 0
    assert header.split()[:3] == ["segment", "motion", "frame/block1"]
    assert len(rows) == 6


def test_statistics(capsys):
    status, out, _ = run(["trace", FEEDER, "--stats"], capsys)
    stats = dict(line.rsplit(None, 1) for line in out.strip().splitlines())
    assert status == 0
    assert stats["moving parts"] == "6" and stats["linkages"] == "1" and stats["mechanism DOF"] == "6"
    assert 0 < int(stats["traversed regions"]) <= int(stats["explored regions"])
    # Regions are built around a configuration their closure holds: nonempty is explored (see RegionStats).
    assert stats["nonempty regions"] == stats["explored regions"]


def test_a_count_of_thousands_of_digits_is_reported_in_scientific_notation(monkeypatch):
    """The potential regions of a 100-block feeder number about 10**4681: Python refuses to
    print an integer of over 4,300 digits, and --stats and --json raised a traceback."""
    import json
    from dataclasses import replace

    from cspace import analyze, load, trace
    from cspace.report.describe import statistics, statistics_table, to_json

    result = trace(analyze(load(FEEDER)), until=1.0)
    result = replace(result, stats=replace(result.stats, potential_regions=7 * 10 ** 5000))
    stats = statistics(result)
    assert stats["potential regions"] == "7.0000e+5000"
    assert "potential regions   7.0000e+5000" in statistics_table(stats)
    assert json.loads(to_json(result, statistics=stats))["statistics"]["potential regions"] == "7.0000e+5000"


def test_stats_of_several_mechanisms_side_by_side(capsys):
    """One column per mechanism, each holding what its own trace's statistics say."""
    from cspace import analyze, load, trace
    from cspace.report.describe import statistics

    lever = str(fixture_path("lever"))
    status, out, err = run(["stats", FEEDER, lever, "--until", "3"], capsys)
    assert status == 0 and err == ""
    header, *lines = out.strip().splitlines()
    assert header.split() == ["statistic", "feeder", "lever"]
    table = {line[:20].strip(): line[20:].split() for line in lines}
    for column, path in enumerate((FEEDER, lever)):
        expected = statistics(trace(analyze(load(path)), until=3.0))
        for name, value in expected.items():
            assert table[name][column] == str(value).split()[0], name
    assert float(table["runtime (s)"][0]) > 0


def test_stats_as_markdown_name_a_repeated_mechanism_by_its_file(capsys):
    status, out, _ = run(["stats", FEEDER, FEEDER, "--format", "md", "--until", "1"], capsys)
    header, rule, *rows = out.strip().splitlines()
    assert status == 0
    assert header == f"| statistic | feeder | {FEEDER} |" and rule == "|---|---|---|"
    assert "| moving parts | 6 | 6 |" in rows and len(rows) == 20


def test_stats_of_a_missing_file_is_one_line_naming_it(capsys, tmp_path):
    missing = str(tmp_path / "missing.toml")
    status, out, err = run(["stats", FEEDER, missing], capsys)
    assert status == 2 and out == ""
    assert err.strip().splitlines() == [f"cspace: error: {missing}: no such file"]


def test_check(capsys):
    status, out, _ = run(["check", FEEDER], capsys)
    assert status == 0 and out.startswith(f"{FEEDER}: ok: 7 parts, 8 coordinates")
    assert out.rstrip().endswith("traced 20 segments (time allotment used)")


@pytest.mark.parametrize("command", [["--help"], ["trace", "--help"], ["check", "--help"]])
def test_help(command, capsys):
    with pytest.raises(SystemExit) as exit_:
        main(command)
    assert exit_.value.code == 0
    assert "usage: cspace" in capsys.readouterr().out


def test_bad_until_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["trace", FEEDER, "--until", "-1"])
    assert exit_.value.code == 2
    assert "non-negative" in capsys.readouterr().err


def _unwritable(tmp_path, case: str) -> tuple[str, str]:
    """An output path that cannot be written, and the message for it."""
    if case == "a directory named like a file":
        (tmp_path / "d.csv").mkdir()
        return str(tmp_path / "d.csv"), "--path: is a directory"
    if case == "a link to another file":
        victim = tmp_path / "victim.txt"
        victim.write_text("keep me")
        (tmp_path / "link.csv").symlink_to(victim)
        return str(tmp_path / "link.csv"), "--path: is a symbolic link"
    if case == "a folder that takes no new file":
        return "/proc/self/path.csv", "--path: cannot write:"
    return str(tmp_path / "missing" / "path.csv"), "does not exist"


@pytest.mark.parametrize("case", ["a directory named like a file", "a link to another file",
                                  "a folder that takes no new file", "a missing folder"])
def test_an_output_that_cannot_be_written_is_refused_before_the_work(case, tmp_path, capsys, monkeypatch):
    """Found after the whole trace, these were tracebacks; a link carried the write to a
    file of another kind. Now one line, exit 2, and the trace is never run."""
    import cspace.tracing.tracer

    monkeypatch.setattr(cspace.tracing.tracer, "trace", lambda *a, **k: pytest.fail("traced before checking the output"))
    path, message = _unwritable(tmp_path, case)
    status, out, err = run(["trace", FEEDER, "--path", path], capsys)
    assert status == 2 and out == "" and err.count("\n") == 1 and message in err
    if case == "a link to another file":
        assert (tmp_path / "victim.txt").read_text() == "keep me"


def test_a_picture_into_a_directory_is_refused_before_the_work(tmp_path, capsys):
    (tmp_path / "pic.png").mkdir()
    status, _, err = run(["plot-pair", FEEDER, "piston", "block1", "-o", str(tmp_path / "pic.png")], capsys)
    assert status == 2 and "-o: is a directory" in err and err.count("\n") == 1


def test_the_runtime_row_counts_the_reports_it_comes_with(capsys, monkeypatch):
    """The --stats runtime is the command's work, the statistics included: it said 0.564 s for
    a 168 s command whose time went to the degrees of freedom. A report made to take at
    least 0.3 s shows in it."""
    import time as clock

    from cspace.report.describe import statistics as real

    def slow(result):
        clock.sleep(0.3)
        return real(result)

    monkeypatch.setattr(importlib.import_module("cspace.report.describe"), "statistics", slow)
    status, out, _ = run(["trace", FEEDER, "--stats", "--until", "1"], capsys)
    runtime = float(next(line for line in out.splitlines() if line.startswith("runtime")).split()[-1])
    assert status == 0 and runtime >= 0.3


def test_the_command_line_starts_without_the_library():
    """``cspace --help`` imports neither numpy nor scipy nor shapely (the library is
    imported by the command that needs it), and the package's names still resolve."""
    code = ("import sys, cspace.cli\n"
            "heavy = sorted(m for m in ('numpy', 'scipy', 'shapely', 'rtree', 'pyvista') if m in sys.modules)\n"
            "assert not heavy, heavy\n"
            "import cspace\n"
            "assert callable(cspace.trace) and callable(cspace.describe) and cspace.Trace.__name__ == 'Trace'\n"
            "import cspace.tracing.trace, cspace.report.describe\n"
            "assert callable(cspace.trace) and callable(cspace.describe)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr


@slow  # a process each
@pytest.mark.parametrize("name, unused", [
    ("feeder", ("scipy.integrate", "cspace.kinetics")),  # simple dynamics (its linkage's assembly: scipy.optimize)
    ("pusher", ("scipy.spatial", "scipy.integrate", "scipy.optimize")),  # no part turns, no linkage to assemble
])
def test_a_trace_imports_only_what_its_mechanism_uses(name, unused):
    """Start-up is most of a small trace's time (issue 26): the symmetry finder's
    scipy.spatial, the integrator, the assembly's scipy.optimize are imported by the
    mechanisms that use them, not by every trace."""
    code = ("import sys\n"
            "from cspace.cli import main\n"
            f"assert main(['trace', {str(fixture_path(name))!r}]) == 0\n"
            f"print(sorted(m for m in {unused!r} if m in sys.modules))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False,
                          env={**os.environ, "CSPACE_CACHE": "off"})
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "[]"


def test_a_start_moved_from_the_drawing_is_said_on_stderr_and_in_json(tmp_path, capsys):
    """The eccentric cam's follower drawn resting on the cam starts where the pair space
    holds it: one note on standard error, and ``start`` in the JSON with the same numbers."""
    path = tmp_path / "touching.toml"
    path.write_text(fixture_path("eccentric-cam").read_text().replace("initial = 3.01", "initial = 3"))
    status, out, err = run(["trace", str(path), "--json", "--until", "1"], capsys)
    [start] = json.loads(out)["start"]
    assert status == 0 and start["coordinate"] == "yf" and start["drawn"] == 3.0 and start["parts"] == ["cam", "follower"]
    assert err == (f"cspace: note: {path}: yf moved +{start['start'] - 3:.3g} (from 3 to {start['start']:.6g}): "
                   "parts 'cam' and 'follower' were drawn touching\n")


def test_check_says_it_traces_and_refuses_what_only_tracing_finds(capsys):
    """``check --help`` says it traces the mechanism as a dry run, and it does: a block with
    nothing under it is well formed, and only its trace shows that it falls for ever."""
    with pytest.raises(SystemExit):
        main(["check", "--help"])
    words = " ".join(capsys.readouterr().out.split())
    assert "trace the mechanism" in words and "dry run" in words and "without tracing" not in words
    falls = ROOT / "tests" / "data" / "bad" / "falls-forever.toml"
    status, out, err = run(["check", str(falls)], capsys)
    assert (status, out) == (2, "") and "moves without end" in err
