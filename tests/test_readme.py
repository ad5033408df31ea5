"""The README's Python API section runs as written: its examples are doctests, run in a
scratch folder that holds the fixtures (a picture it writes lands there)."""

from __future__ import annotations

import doctest
import re

import pytest

from .common import ROOT

README = ROOT / "README.md"


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


def test_the_design_sweeps_section_shows_what_its_commands_print(tmp_path, monkeypatch, capsys):
    """Each command of the section shown with its output prints exactly that (run in a
    scratch folder that holds the fixtures); the design map it shows is in the checkout."""
    from cspace.cli import main

    monkeypatch.chdir(tmp_path)
    (tmp_path / "fixtures").symlink_to(ROOT / "fixtures")
    text = section("Design sweeps")
    commands = shown_commands(text)
    assert [command.split()[1] for command, _ in commands] == ["sweep", "sweep-plot", "sweep"]
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
