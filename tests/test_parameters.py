"""Parametric mechanism files: ``[parameters]``, expressions of them, ``--set``."""

from __future__ import annotations

import math

import pytest

from cspace import ModelError, loads
from cspace.cli import main
from cspace.io.parameters import of_text
from cspace.model.expressions import ExpressionError, evaluate

from .common import ROOT, fixture_path

PARAMETRIC_FEEDER = ROOT / "fixtures" / "sweeps" / "feeder.toml"

PLATE = """\
[parameters]
width = { default = 2, min = 1, max = 5 }
h = 1
[[parts]]
name = "plate"
motion = "fixed"
[[parts.slices]]
z = [0, 1]
profiles = [{ rect = [0, 0, %s, %s] }]
"""


def run(argv: list[str], capsys) -> tuple[int, str, str]:
    status = main(argv)
    captured = capsys.readouterr()
    return status, captured.out, captured.err


@pytest.mark.parametrize("text, value", [
    ("2 * crank + 1", 7.0), ("sqrt(link^2 - 1)", math.sqrt(63)), ("-crank ** 2", -9.0), ("2^3^2", 512.0),
    ("atan2(1, 1) * 4", math.pi), ("sin(pi / 6) + cos(0)", 1.5), ("min(crank, link) / 2", 1.5), ("(1 + 2) * 3", 9.0),
])
def test_expressions_evaluate_as_arithmetic_does(text, value):
    assert evaluate(text, {"crank": 3.0, "link": 8.0}) == pytest.approx(value, rel=1e-15)


@pytest.mark.parametrize("text, message", [
    ("crnk + 1", "unknown name 'crnk' (did you mean 'crank'?)"), ("1 +", "not an arithmetic expression"),
    ("__import__('os')", "unknown function '__import__'"), ("crank.real", "is not allowed"),
    ("'a' * 3", "is not a number"), ("1 / (crank - 3)", "division by zero"), ("sqrt(-crank)", "math domain error"),
    ("10 ** 10 ** 10", "out of range"), ("[crank]", "is not allowed"), ("lambda: 1", "is not allowed"),
    ("x" * 2000, "longer than"),
])
def test_a_bad_expression_is_refused_by_name(text, message):
    with pytest.raises(ExpressionError, match=None) as raised:
        evaluate(text, {"crank": 3.0})
    assert message in str(raised.value)


def test_parameters_and_their_expressions_make_the_numbers():
    plate = loads(PLATE % ('"width"', '"width * h / 2"'), parameters={"width": 4, "h": 3})
    assert plate.parts[0].slices[0].profiles[0].elements[1].end == (4.0, 6.0)
    assert of_text(PLATE % (1, 1))["width"].high == 5.0


@pytest.mark.parametrize("cell, given, fragments", [
    (('"width"', '"sqrt(width - 3)"'), {}, ["rect[3]", "'sqrt(width - 3)'", "math domain error"]),
    (('"width"', '"2 * wdth"'), {}, ["rect[3]", "'2 * wdth'", "unknown name 'wdth' (did you mean 'width'?)"]),
    (('"width"', '"h"'), {"wdth": 2}, ["parameters: wdth: unknown parameter 'wdth' (did you mean 'width'?)"]),
    (('"width"', '"h"'), {"width": 7}, ["parameters: width:", "7 is outside the bounds [1, 5]"]),
    (('"width * 1e9"', 1), {}, ["rect[2]", "is out of range"]),
])
def test_an_error_names_the_file_the_field_and_the_expression(cell, given, fragments):
    with pytest.raises(ModelError) as raised:
        loads(PLATE % cell, source="plate.toml", parameters=given)
    message = str(raised.value)
    assert message.startswith("plate.toml: ") and "\n" not in message
    for fragment in fragments:
        assert fragment in message


def test_the_parametric_feeder_at_its_defaults_traces_as_the_feeder_byte_for_byte(capsys):
    status, plain, _ = run(["trace", str(fixture_path("feeder")), "--json"], capsys)
    assert status == 0
    status, parametric, _ = run(["trace", str(PARAMETRIC_FEEDER), "--json"], capsys)
    assert status == 0 and parametric == plain
    status, same, _ = run(["trace", str(PARAMETRIC_FEEDER), "--json", "--set", "crank=3", "--set", "link=8"], capsys)
    assert same == plain


def test_set_changes_the_variant_as_the_closed_form_says(capsys):
    """The piston starts at crank + link - 1, and its stroke's inner end is link - crank - 1."""
    status, out, _ = run(["trace", str(PARAMETRIC_FEEDER), "--describe", "--set", "crank=2", "--set", "link=7"],
                         capsys)
    assert status == 0
    assert "(piston translates (xp 8 5))" in out  # from 2 + 7 - 1 to where the block's corner is met, xp + 7 = 12


@pytest.mark.parametrize("argv, fragment", [
    (["--set", "crnk=2"], "parameters: crnk: unknown parameter 'crnk' (did you mean 'crank'?)"),
    (["--set", "crank=40"], "parameters: crank: set: 40 is outside the bounds [0.25, 12]"),
    (["--set", "link=2"], "linkage 'crank-slider'"),  # shorter than the crank: it cannot be driven round
])
def test_a_bad_setting_is_one_line_and_status_2(argv, fragment, capsys):
    status, out, err = run(["trace", str(PARAMETRIC_FEEDER), *argv], capsys)
    assert status == 2 and out == ""
    assert err.count("\n") == 1 and fragment in err and err.startswith(f"cspace: error: {PARAMETRIC_FEEDER}: ")


def test_a_setting_that_is_not_name_equals_number_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as exited:
        main(["trace", str(PARAMETRIC_FEEDER), "--set", "crank"])
    assert exited.value.code == 2
    assert "expected NAME=VALUE" in capsys.readouterr().err


def test_set_works_on_every_command_that_takes_a_mechanism_file():
    from cspace.cli import _parser

    commands = _parser()._subparsers._group_actions[0].choices
    taking = [name for name, command in commands.items() if name != "sweep"  # it varies them: --vary
              and any(a.dest in ("file", "files") for a in command._actions)]
    assert {"trace", "check", "animate", "show", "plot-pair", "stats", "regions"} <= set(taking)
    for name in taking:
        assert any("--set" in a.option_strings for a in commands[name]._actions), name


def test_regions_traces_the_variant_set(capsys):
    from cspace.viz.region_table import markdown_region_table

    from cspace import analyze, trace

    status, out, err = run(["regions", str(PARAMETRIC_FEEDER), "--until", "2", "--set", "crank=2",
                            "--set", "link=7"], capsys)
    variant = loads(PARAMETRIC_FEEDER.read_text(), parameters={"crank": 2, "link": 7})
    assert status == 0 and err == ""
    assert out == markdown_region_table(trace(analyze(variant), until=2))
    status, default, _ = run(["regions", str(PARAMETRIC_FEEDER), "--until", "2"], capsys)
    assert status == 0 and default != out


def test_a_bad_setting_on_plot_pair_is_one_line_and_status_2(tmp_path, capsys):
    status, out, err = run(["plot-pair", str(PARAMETRIC_FEEDER), "piston", "block1", "-o", str(tmp_path / "p.png"),
                            "--set", "crnk=2"], capsys)
    assert status == 2 and out == "" and not (tmp_path / "p.png").exists()
    assert err == f"cspace: error: {PARAMETRIC_FEEDER}: parameters: crnk: unknown parameter 'crnk' (did you mean " \
                  "'crank'?)\n"
