"""The README cannot go stale: every command it shows with its output is run, in a scratch
folder that holds the checkout's fixtures, tools and tests, and must print what the README
shows (numbers included; ``tests/support/readme.py`` says how a block is tied to its
command); its Python API section runs as written, as doctests."""

from __future__ import annotations

import doctest
import os
import re
import subprocess
import sys
from collections.abc import Callable

import pytest

from .common import ROOT, slow
from .support.readme import matches, mismatch, shown, untied

README = ROOT / "README.md"
SHOWN = shown(README.read_text())
SHARED = ("fixtures", "tools", "tests")  # what the README's commands read, by these relative paths


@pytest.fixture(scope="module")
def shell(tmp_path_factory) -> Callable[[str], str]:
    """Runs a command line in bash, in a scratch folder, ``cspace`` and ``python`` being this
    checkout's; returns what it prints (standard output and error, as a terminal shows them)."""
    folder = tmp_path_factory.mktemp("readme")
    bin_folder, work = folder / "bin", folder / "work"
    bin_folder.mkdir()
    work.mkdir()
    for name, line in (("cspace", f'exec "{sys.executable}" -m cspace.cli "$@"'),
                       ("python", f'exec "{sys.executable}" "$@"'), ("python3", f'exec "{sys.executable}" "$@"')):
        (bin_folder / name).write_text(f"#!/bin/sh\n{line}\n")
        (bin_folder / name).chmod(0o755)
    for name in SHARED:
        (work / name).symlink_to(ROOT / name)
    path = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    env = {**os.environ, "PATH": f"{bin_folder}{os.pathsep}{os.environ['PATH']}", "PYTHONPATH": path}

    def run(command: str) -> str:
        return subprocess.run(["bash", "-c", command], cwd=work, env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True, timeout=900, check=False).stdout
    return run


@slow
@pytest.mark.parametrize("example", SHOWN, ids=[f"line {s.line}: {s.command[:50]}" for s in SHOWN])
def test_every_command_the_readme_shows_prints_what_it_shows(example, shell):
    wrong = mismatch(example.output, shell(example.command))
    assert wrong is None, (f"$ {example.command}\nREADME line {example.line + 1 + wrong[0]} shows: {wrong[1]!r}\n"
                           f"where it prints: {wrong[2]!r}")


def test_every_output_the_readme_shows_is_tied_to_its_command():
    """An output block with no command to run would go stale unseen: each is tied to one or
    says why it is not run."""
    assert len(SHOWN) >= 20
    assert untied(README.read_text()) == []


def test_a_shown_output_changed_by_one_digit_fails(shell):
    """The check can fail: the feeder's first record, one digit changed, is caught."""
    [example] = [s for s in SHOWN if s.command == "cspace trace fixtures/feeder.toml --describe"]
    printed = shell(example.command)
    assert "(cd 0 2.1268)" in example.output and matches(example.output, printed)
    assert not matches(example.output.replace("(cd 0 2.1268)", "(cd 0 2.1269)"), printed)


def section(title: str) -> str:
    """The README's section under ``## title``, up to the next one."""
    text = README.read_text()
    start = text.index(f"\n## {title}\n")
    end = text.find("\n## ", start + 1)
    return text[start:end if end >= 0 else None]


def examples(text: str) -> str:
    """The ```python blocks of a section, one after another."""
    return "\n".join(re.findall(r"```python\n(.*?)```", text, re.S))


def test_the_python_api_section_runs_as_shown(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "fixtures").symlink_to(ROOT / "fixtures")
    code = examples(section("Python API"))
    assert code.count(">>>") >= 10
    test = doctest.DocTestParser().get_doctest(code, {}, "README: Python API", str(README), 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    runner.run(test)
    assert runner.failures == 0
    assert (tmp_path / "piston-block1.png").stat().st_size > 0


@pytest.mark.parametrize("changed", ["(cd 0 2.1269)", "segments=8"])
def test_a_changed_figure_fails(changed, tmp_path, monkeypatch):
    """The check can fail: one figure of the section changed by a digit is caught."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "fixtures").symlink_to(ROOT / "fixtures")
    code = examples(section("Python API"))
    original = {"(cd 0 2.1269)": "(cd 0 2.1268)", "segments=8": "segments=7"}[changed]
    assert original in code
    test = doctest.DocTestParser().get_doctest(code.replace(original, changed), {}, "README", str(README), 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    runner.run(test, out=lambda _: None)
    assert runner.failures == 1


def shown_commands(text: str) -> list[tuple[str, str]]:
    """The ``$ cspace ...`` commands of a section's ```console blocks that show their output,
    each with the output shown (up to the next command or the block's end)."""
    shown = []
    for block in re.findall(r"```console\n(.*?)```", text, re.S):
        for command, output in re.findall(r"^\$ (cspace [^\n]*)\n(.*?)(?=^\$ |\Z)", block, re.S | re.M):
            if output.strip():
                shown.append((command, output))
    return shown


@slow
def test_the_design_sweeps_section_shows_what_its_commands_print(tmp_path, monkeypatch, capsys):
    """Each command of the section shown with its output prints exactly that (run in a
    scratch folder that holds the fixtures); the design map it shows is in the checkout."""
    from cspace.cli import main

    monkeypatch.chdir(tmp_path)
    (tmp_path / "fixtures").symlink_to(ROOT / "fixtures")
    text = section("Design sweeps")
    commands = shown_commands(text)
    assert [command.split()[1] for command, _ in commands] == ["sweep", "sweep-plot", "sweep", "sweep"]
    for command, output in commands:
        assert main(command.split()[1:]) == 0, command
        assert capsys.readouterr().out == output, command
    for image in re.findall(r"!\[[^\]]*\]\(([^)]+)\)", text):
        assert (ROOT / image).stat().st_size > 0
    code = examples(text)
    test = doctest.DocTestParser().get_doctest(code, {}, "README: Design sweeps", str(README), 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    runner.run(test)
    assert test.examples and runner.failures == 0
