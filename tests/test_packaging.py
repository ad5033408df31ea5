"""Packaging (issue 27): the version, the examples shipped as package data and taken by name
wherever a file is, the rendering as an extra that a rendering command asks for in one line,
the README's Install section and quick start, checked against what the commands print, and,
marked slow, the wheel installed in a fresh environment and run from an empty folder."""

from __future__ import annotations

import configparser
import importlib.metadata
import os
import re
import shlex
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

import cspace
import cspace.io.examples as examples_module
from cspace.cli import main

from .common import ROOT, fixture_path

SETUP = configparser.ConfigParser()
SETUP.read(ROOT / "setup.cfg")
EXAMPLES = sorted(p.stem for p in (ROOT / "fixtures").glob("*.toml"))
README = (ROOT / "README.md").read_text()
RENDERING = ("pyvista", "matplotlib", "PIL", "imageio_ffmpeg")  # the modules of the extra cspace[viz]


def run(argv: list[str], capsys) -> tuple[int, str, str]:
    status = main(argv)
    out = capsys.readouterr()
    return status, out.out, out.err


def child(argv: list[str], cwd: Path, prelude: str = "") -> subprocess.CompletedProcess:
    """The command line in a process of its own in ``cwd``, importing this checkout's cspace;
    ``prelude`` runs first (to make a module impossible to import)."""
    code = f"import sys\n{prelude}\nfrom cspace.cli import main\nsys.exit(main(sys.argv[1:]))\n"
    return subprocess.run([sys.executable, "-c", code, *argv], cwd=cwd, capture_output=True, text=True,
                          check=False, env={**os.environ, "PYTHONPATH": str(ROOT)})


def test_the_version_is_the_metadatas_everywhere(capsys):
    """setup.cfg is where the version is written; the installed metadata, cspace.__version__
    and cspace --version all say it."""
    with pytest.raises(SystemExit) as done:
        main(["--version"])
    out = capsys.readouterr()
    assert (done.value.code, out.err) == (0, "")
    assert out.out == f"cspace {cspace.__version__}\n"
    assert cspace.__version__ == importlib.metadata.version("cspace") == SETUP["metadata"]["version"]


def test_a_checkout_never_installed_says_so_instead_of_a_version(tmp_path):
    """Run from a checkout without installing it there is no metadata to read: ``--version``
    says so in its line, with no traceback (the metadata lookup is made to miss)."""
    prelude = ("import importlib.metadata as m\n"
               "def missing(name):\n    raise m.PackageNotFoundError(name)\n"
               "m.version = missing")
    done = child(["--version"], tmp_path, prelude)
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout == "cspace unknown (not installed: pip install .)\n"


def opening_paragraph(name: str) -> str:
    """The words of the comment a fixture opens with, up to its first blank comment line."""
    words = []
    for line in fixture_path(name).read_text().splitlines():
        if not line.startswith("#") or not line[1:].strip():
            break
        words += line[1:].split()
    return " ".join(words)


def test_examples_lists_every_fixture_with_the_first_sentence_of_its_description(capsys):
    """One line per example: its name and a whole sentence, the first of the comment its file
    opens with (what follows it there starts the next sentence, or nothing does), on one
    terminal line of at most 100 characters."""
    status, out, err = run(["examples"], capsys)
    assert (status, err) == (0, "")
    lines = out.splitlines()
    assert [line.split()[0] for line in lines] == EXAMPLES
    width = len(max(EXAMPLES, key=len))
    for name, line in zip(EXAMPLES, lines):
        assert len(line) <= 100, line
        assert line[:width + 2] == f"{name:<{width}}  "
        summary, paragraph = line[width + 2:], opening_paragraph(name)
        assert summary.endswith(".") and paragraph.startswith(summary), line
        assert re.fullmatch(r'( ["A-Z].*)?', paragraph[len(summary):]), f"{name}: cut inside a sentence"
        assert summary.count("(") == summary.count(")") and summary.count('"') % 2 == 0, line
        assert not re.search(r"\b[A-Z]\.$", summary), f"{name}: cut at an initial"


def test_a_first_sentence_runs_over_lines_and_stops_at_its_full_stop(tmp_path, monkeypatch):
    """A sentence the comment wraps is joined into one line; a full stop inside a word
    (``1.1``, ``make.py``) ends nothing; the next sentence is left out."""
    (tmp_path / "m.toml").write_text("# A mechanism of section 1.1, made by make.py, that\n# wraps. Then more.\n#\n"
                                     "# Another paragraph.\n[mechanism]\n")
    monkeypatch.setattr(examples_module, "folder", lambda: tmp_path)
    assert [(e.name, e.summary) for e in examples_module.examples()] == [
        ("m", "A mechanism of section 1.1, made by make.py, that wraps.")]


def test_every_file_in_fixtures_ships_as_package_data():
    """setup.cfg's package data for cspace.fixtures takes every file in fixtures/ (a drawing a
    fixture reads among them), so an installed example finds what it reads."""
    assert SETUP["options"]["package_dir"].split() == ["cspace.viz", "=", "viz", "cspace.fixtures", "=", "fixtures"]
    patterns = SETUP["options.package_data"]["cspace.fixtures"].split()
    shipped = {p for pattern in patterns for p in (ROOT / "fixtures").glob(pattern)}
    present = {p for p in (ROOT / "fixtures").rglob("*") if p.is_file()}
    assert present and shipped == present


def test_an_example_by_name_from_an_empty_folder_is_the_example(tmp_path):
    by_name = child(["trace", "feeder", "--describe"], cwd=tmp_path)
    by_path = child(["trace", str(fixture_path("feeder")), "--describe"], cwd=tmp_path)
    assert (by_name.returncode, by_name.stderr) == (0, "")
    assert by_name.stdout == by_path.stdout and by_name.stdout.startswith("segment 1:\n")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("argv, says", [
    (["check", "lever"], "lever: ok: 3 parts"),
    (["check", "lever.toml"], "lever.toml: ok: 3 parts"),
    (["regions", "lever", "--until", "1"], "| segment | motion | bar/block |"),
    (["stats", "lever", "feeder"], "statistic"),
    (["animate", "lever", "-o", "lever.html"], "lever.html: browser viewer"),
    (["plot-pair", "lever", "bar", "block", "-o", "pair.svg"], "pair.svg: configuration space of bar/block"),
])
def test_every_command_takes_an_example_by_name(argv, says, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    status, out, err = run(argv, capsys)
    assert (status, err) == (0, "")
    assert out.startswith(says)


def test_a_file_that_is_there_wins_over_an_example(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    shutil.copy(fixture_path("lever"), tmp_path / "feeder")
    status, out, _ = run(["check", "feeder"], capsys)
    assert status == 0 and out.startswith("feeder: ok: 3 parts, 2 coordinates, 0 linkages")


@pytest.mark.parametrize("argv, line", [
    (["trace", "feedr"], "feedr: no such file (did you mean the example 'feeder'?)"),
    (["trace", "fixtures/feeder.toml"], "fixtures/feeder.toml: no such file (did you mean the example 'feeder'?)"),
    (["check", "gneva.toml"], "gneva.toml: no such file (did you mean the example 'geneva'?)"),
    (["stats", "lever", "levr"], "levr: no such file (did you mean the example 'lever'?)"),
    (["animate", "rim-lok", "-o", "r.html"], "rim-lok: no such file (did you mean the example 'rim-lock'?)"),
    (["plot-pair", "leverr", "bar", "block", "-o", "p.png"], "leverr: no such file (did you mean the example 'lever'?)"),
    (["regions", "zzzz"], "zzzz: no such file"),
    (["trace", "elsewhere/feedr.toml"], "elsewhere/feedr.toml: no such file"),
])
def test_an_unknown_name_is_one_line_and_status_2(argv, line, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert run(argv, capsys) == (2, "", f"cspace: error: {line}\n")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("argv, missing, says", [
    (["animate", "feeder", "-o", "f.gif"], "pyvista", "animate: pyvista is not installed"),
    (["animate", "feeder", "-o", "f.mp4"], "imageio_ffmpeg", "animate: imageio-ffmpeg is not installed"),
    (["show", "feeder"], "pyvista", "show: pyvista is not installed"),
    (["plot-pair", "feeder", "piston", "block1", "-o", "p.png"], "matplotlib", "plot-pair: matplotlib is not installed"),
    (["draw", "feeder", "-o", "f.png"], "matplotlib", "draw: matplotlib is not installed"),
])
def test_rendering_without_the_extra_says_what_to_install(argv, missing, says, tmp_path):
    """A module of the rendering extra that cannot be imported: one line, status 2, before any work
    (nothing is analysed, nothing written)."""
    done = child(argv, cwd=tmp_path, prelude=f"sys.modules[{missing!r}] = None\n"
                                             "import atexit\n"
                                             "atexit.register(lambda: print('cspace.tracing.analysis' in sys.modules))")
    assert (done.returncode, done.stdout) == (2, "False\n")
    assert done.stderr == f"cspace: error: {says}; rendering needs the viz extra: pip install 'cspace[viz]'\n"
    assert list(tmp_path.iterdir()) == []


def test_the_browser_viewer_needs_no_rendering_extra(tmp_path):
    blocked = "".join(f"sys.modules[{m!r}] = None\n" for m in RENDERING)
    done = child(["animate", "lever", "-o", "lever.html"], cwd=tmp_path, prelude=blocked)
    assert (done.returncode, done.stderr) == (0, "")
    assert (tmp_path / "lever.html").stat().st_size > 0


@pytest.mark.parametrize("out", ["feeder.svg", "feeder.html"])
def test_draw_needs_no_rendering_extra_and_no_analysis(out, tmp_path):
    """The drawing in SVG or HTML on the core install, and before any analysis: no pair space is built."""
    blocked = "".join(f"sys.modules[{m!r}] = None\n" for m in RENDERING)
    refused = "import cspace.tracing.analysis as a\na.analyze = lambda *args, **options: sys.exit('analysed')\n"
    done = child(["draw", "feeder", "-o", out], cwd=tmp_path, prelude=blocked + refused)
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout.startswith(f"{out}: feeder at its initial configuration")
    assert (tmp_path / out).stat().st_size > 0


def readme_section(title: str) -> str:
    start = README.index(f"\n## {title}\n")
    end = README.find("\n## ", start + 1)
    return README[start:end]


def transcripts(text: str) -> list[tuple[str, str]]:
    """The ``$ cspace ...`` commands of a text's code blocks, each with the output shown under it."""
    shown = []
    for block in re.findall(r"```\n(.*?)```", text, re.S):
        for command, output in re.findall(r"^\$ (cspace .*)\n((?:(?!\$ ).*\n)*)", block, re.M):
            shown.append((command, output))
    return shown


def test_the_readmes_install_section_shows_what_the_core_install_prints(tmp_path):
    """Each command the Install section shows, run from an empty folder as on the core install
    (the rendering extra's modules made unimportable), prints what the README shows under it:
    the version, the examples' list, the one line asking for the extra, the missing file."""
    shown = transcripts(readme_section("Install"))
    assert [command.split()[1] for command, _ in shown] == ["--version", "animate", "examples", "trace"]
    blocked = "".join(f"sys.modules[{m!r}] = None\n" for m in RENDERING)
    for command, output in shown:
        done = child(shlex.split(command)[1:], cwd=tmp_path, prelude=blocked)
        assert done.stdout + done.stderr == output, command
    assert list(tmp_path.iterdir()) == []


def test_a_changed_line_of_the_shown_examples_fails(tmp_path):
    """The check can fail: the README's list with one figure changed is not what is printed."""
    [(_, listing)] = [t for t in transcripts(readme_section("Install")) if t[0] == "cspace examples"]
    changed = listing.replace("Figures 2-4, 7, 10.", "Figures 2-4, 7, 11.")
    assert changed != listing
    assert child(["examples"], cwd=tmp_path).stdout == listing != changed


def test_the_quick_start_installs_the_extra_and_ci_runs_its_test_command():
    """The README's two commands: the first installs the rendering extra and takes the example
    by name; the second is exactly the command .ci/run runs."""
    first, second = re.search(r"## Quick start\n.*?```sh\n(.*?)```", README, re.S).group(1).splitlines()
    assert first.startswith("python3 -m pip install '.[viz]' && cspace trace feeder --describe")
    assert (ROOT / ".ci" / "run").read_text().splitlines()[-1] == second
    assert "'.[test,viz]'" in second


def _venv_python(folder: Path) -> Path:
    subprocess.run([sys.executable, "-m", "venv", str(folder)], check=True)
    return folder / "bin" / "python"


def _sh(argv: list, cwd: Path, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([str(a) for a in argv], cwd=cwd, capture_output=True, text=True, check=False, env=env)


@pytest.mark.slow
def test_the_wheel_installs_and_runs_outside_the_checkout(tmp_path):
    """The issue's acceptance, as a user meets it (minutes: it installs from the package
    registry). A wheel and an sdist built from what the checkout holds pass twine's check;
    the wheel alone in a fresh environment traces an example by name from an empty folder
    as the checkout does, and asks for the extra to animate; with the extra added to it
    (as ``pip install <wheel>[viz]`` into a fresh one would install it), it animates."""
    source = tmp_path / "source"
    for name in ("cspace", "viz", "fixtures"):
        # Without the kernels compiled in place by the editable install: the build compiles them.
        shutil.copytree(ROOT / name, source / name, ignore=shutil.ignore_patterns("__pycache__", "*.so", "*.c"))
    for name in ("setup.cfg", "setup.py", "pyproject.toml", "MANIFEST.in", "README.md"):
        shutil.copy(ROOT / name, source / name)
    tools = _venv_python(tmp_path / "tools")
    assert _sh([tools, "-m", "pip", "install", "-q", "build", "twine"], tmp_path).returncode == 0
    built = _sh([tools, "-m", "build", "--outdir", tmp_path / "dist", source], tmp_path)
    assert built.returncode == 0, built.stderr
    [wheel] = (tmp_path / "dist").glob("*.whl")
    assert {name.split("/")[0] for name in zipfile.ZipFile(wheel).namelist()} == \
        {"cspace", f"cspace-{cspace.__version__}.dist-info"}  # nothing else at the top of site-packages
    checked = _sh([tools, "-m", "twine", "check", *sorted((tmp_path / "dist").iterdir())], tmp_path)
    assert checked.returncode == 0 and checked.stdout.count("PASSED") == 2, checked.stdout

    python = _venv_python(tmp_path / "venv")
    try:
        assert _sh([python, "-m", "pip", "install", "-q", wheel], tmp_path).returncode == 0
        empty = tmp_path / "empty"
        empty.mkdir()
        env = {**{k: v for k, v in os.environ.items() if k != "PYTHONPATH"},
               "PATH": f"{python.parent}{os.pathsep}{os.environ['PATH']}"}
        version = _sh(["cspace", "--version"], empty, env)
        assert version.stdout == f"cspace {cspace.__version__}\n"
        described = _sh(["cspace", "trace", "feeder", "--describe"], empty, env)
        assert (described.returncode, described.stderr) == (0, "")
        assert described.stdout == child(["trace", str(fixture_path("feeder")), "--describe"], cwd=empty).stdout
        assert _sh(["cspace", "trace", "dxf-cam"], empty, env).returncode == 0  # the drawing it reads is shipped
        assert _sh(["cspace", "draw", "feeder", "-o", "f.svg"], empty, env).returncode == 0  # SVG: no extra needed
        core = _sh(["cspace", "animate", "feeder", "-o", "f.gif"], empty, env)
        assert (core.returncode, core.stdout) == (2, "")
        assert core.stderr == ("cspace: error: animate: pyvista, pillow and imageio-ffmpeg are not installed; "
                               "rendering needs the viz extra: pip install 'cspace[viz]'\n")
        assert _sh([python, "-m", "pip", "install", "-q", f"{wheel}[viz]"], tmp_path).returncode == 0
        animated = _sh(["cspace", "animate", "feeder", "-o", "f.gif"], empty, env)
        assert (animated.returncode, animated.stdout) == (0, "f.gif: 124 frames, 800x600\n")
        assert _sh(["cspace", "draw", "feeder", "-o", "f.png"], empty, env).returncode == 0
        assert sorted(p.name for p in empty.iterdir()) == ["f.gif", "f.png", "f.svg"]
    finally:
        shutil.rmtree(tmp_path / "venv")  # a gigabyte, the rendering's
