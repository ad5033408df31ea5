"""Names from a file shown on a terminal or in a table (cspace.io.outputs.printable, markdown_cell).

A mechanism's or an input's name is any text of the file: a ``|`` in it broke
``cspace stats --format md``; a newline, NUL or ESC broke the text table and reached the
terminal raw; and the same file given three times printed two columns. The oracles:
Python's own string-literal parser for the escapes, the GitHub Markdown rule for table
cells, and Unicode's categories for what may reach a terminal.
"""

from __future__ import annotations

import ast
import html
import json
import re
import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cspace import ModelError, loads
from cspace.cli import main
from cspace.io.outputs import markdown_cell, printable

from .common import fixture_path

LEVER = fixture_path("lever").read_text()
HOSTILE = "lever | pipe\\ \nnext\x00nul\x1b[31mred\u2028sep\u200bzw"


def _raw(text: str) -> list[str]:
    """The characters of ``text`` that would act on a terminal rather than show: Unicode
    category C and the line and paragraph separators, line ends between lines aside."""
    return [ch for line in text.split("\n") for ch in line
            if unicodedata.category(ch)[0] == "C" or unicodedata.category(ch) in ("Zl", "Zp")]


def _cells(row: str) -> list[str]:
    """A Markdown table row's cells by GitHub's rule: a ``|`` ends a cell unless escaped by a
    backslash, a backslash escaping the character after it (``\\\\`` is one backslash)."""
    assert row.startswith("| ") and row.endswith(" |"), row
    cells, cell, k = [], "", 1
    while k < len(row) - 1:
        if row[k] == "\\":
            cell += row[k + 1]
            k += 2
        elif row[k] == "|":
            cells.append(cell.strip())
            cell, k = "", k + 1
        else:
            cell, k = cell + row[k], k + 1
    return cells + [cell.strip()]


def _named(tmp_path, name: str, input_name: str = "lever turns counterclockwise", file: str = "m.toml"):
    path = tmp_path / file
    text = LEVER.replace('name = "lever"', f"name = {json.dumps(name)}", 1)
    path.write_text(text.replace('name = "lever turns counterclockwise"', f"name = {json.dumps(input_name)}", 1))
    return str(path)


def _run(argv, capsys):
    status = main(argv)
    out = capsys.readouterr()
    return status, out.out, out.err


@given(st.text())
def test_printable_shows_every_control_character_escaped_and_nothing_else_changed(text):
    shown = printable(text)
    assert _raw(shown.replace("\n", "\\n")) == [] and "\n" not in shown
    if "\\" not in text and '"' not in text:  # then Python reads the escapes back to the text
        assert ast.literal_eval(f'"{shown}"') == text
    assert printable(shown) == shown


@given(st.text())
def test_a_markdown_cell_is_one_cell_that_reads_back_as_the_printable_text(text):
    assert _cells(f"| {markdown_cell(text)} | x |") == [printable(text).strip(), "x"]


def test_stats_in_markdown_is_one_column_per_mechanism_whatever_its_name(tmp_path, capsys):
    status, out, _ = _run(["stats", _named(tmp_path, HOSTILE), "--format", "md"], capsys)
    rows = out.splitlines()
    assert status == 0 and _raw(out) == []
    assert _cells(rows[0]) == ["statistic", printable(HOSTILE)]
    assert all(len(_cells(row)) == 2 for row in rows if row.startswith("| "))
    assert len(rows) == 2 + 20  # the header, the divider and the 20 statistics: no name broke a line


def test_stats_as_text_shows_a_name_of_newline_nul_and_esc_escaped(tmp_path, capsys):
    status, out, _ = _run(["stats", _named(tmp_path, HOSTILE)], capsys)
    header, *rows = out.splitlines()
    assert status == 0 and _raw(out) == [] and len(rows) == 20
    assert header == f"statistic           {printable(HOSTILE)}"
    assert all(row[20] != " " for row in rows)  # each value in the name's column


def test_the_same_file_three_times_is_three_columns(tmp_path, capsys):
    lever = str(fixture_path("lever"))
    status, out, _ = _run(["stats", lever, lever, lever, "--format", "md"], capsys)
    rows = [_cells(row) for row in out.splitlines() if row.startswith("| ")]
    assert status == 0
    assert rows[0] == ["statistic", "lever", lever, f"{lever} (3)"]
    segments = next(row for row in rows if row[0] == "segments")
    assert len(set(segments[1:])) == 1 and len(segments) == 4


def test_two_files_of_one_name_are_two_columns(tmp_path, capsys):
    first, second = _named(tmp_path, "lever", file="a.toml"), _named(tmp_path, "lever", file="b.toml")
    status, out, _ = _run(["stats", first, second], capsys)
    assert status == 0 and out.splitlines()[0].split() == ["statistic", "lever", second]


def test_regions_tables_show_an_inputs_name_escaped(tmp_path, capsys):
    path = _named(tmp_path, "lever", input_name=HOSTILE)
    for argv, shown in ((["trace", path, "--regions"], printable(HOSTILE)), (["regions", path], markdown_cell(HOSTILE)),
                        (["regions", path, "--format", "html"], html.escape(printable(HOSTILE)))):
        status, out, _ = _run(argv, capsys)
        assert status == 0 and _raw(out) == [] and f"{shown}: bar a ccw" in out, argv
    status, out, _ = _run(["regions", path], capsys)
    rows = [row for row in out.splitlines() if row.startswith("| ")]
    assert {len(_cells(row)) for row in rows} == {3}
    assert _cells(rows[2])[1].startswith(printable(HOSTILE) + ": ")


def test_errors_show_a_file_name_escaped_on_one_line(tmp_path, capsys):
    name = str(tmp_path / "bad\n\x1b[31mname.toml")
    status, out, err = _run(["trace", name], capsys)
    assert (status, out) == (2, "") and _raw(err) == [] and err.count("\n") == 1
    assert err == f"cspace: error: {printable(name)}: no such file\n"


def test_json_keeps_a_name_as_it_is(tmp_path, capsys):
    status, out, _ = _run(["trace", _named(tmp_path, HOSTILE), "--json"], capsys)
    assert status == 0 and json.loads(out)["mechanism"] == HOSTILE


@pytest.mark.parametrize("name", ["table\n", "table\x1b", "ta ble", "table\u2028"])
def test_a_part_name_ending_in_a_newline_is_not_a_name(name):
    """``$`` in the name pattern matched before a final newline: 'table\\n' was a part's name,
    printed raw by --describe."""
    text = LEVER.replace('name = "table"', f"name = {json.dumps(name)}", 1)
    with pytest.raises(ModelError, match=re.escape(f"{name!r} is not a name")):
        loads(text)
