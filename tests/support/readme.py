"""The outputs the README shows, read from it: each command with the output shown for it.

A fenced block is tied to its command in one of two ways:

* lines starting ``$ `` in the block are commands, each followed by its output, up to the
  next command or the block's end (as a terminal shows them: standard output and error);
* ``<!-- $ command -->`` on the line just above the block makes the whole block that
  command's output (where a ``$`` line would not read well: JSON, a CSV file).

An output block that is neither carries ``<!-- not run: why -->`` just above it (a measured
report that takes minutes, a synopsis), as does a block of commands that must run elsewhere
(from an empty folder, on the core install) where another test runs them. Blocks of code (``sh``, ``python``, ``toml``) are
not outputs. In an output, a line ``...`` (indented or not) stands for any lines, none
included, and ``...`` within a line for any text; a :data:`MEASURED` line (seconds measured on the day) is
compared with its numbers left out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

CODE = ("sh", "python", "toml")
FENCE = re.compile(r"^```(\S*)\n(.*?)^```$", re.S | re.M)
TIED = re.compile(r"<!-- \$ (.+?) -->")
NOT_RUN = re.compile(r"<!-- not run: .+? -->")
MEASURED = re.compile(r"^\| runtime \(s\) \|")  # cspace stats' runtime row
NUMBER = re.compile(r"\d+(?:\.\d+)?")


@dataclass(frozen=True)
class Shown:
    """A command the README shows at ``line`` and the output it shows for it."""

    line: int
    command: str
    output: str


@dataclass(frozen=True)
class Block:
    """A fenced block: the line of its opening fence, its language, its text and the line above it."""

    line: int
    language: str
    text: str
    above: str


def blocks(readme: str) -> list[Block]:
    """Every fenced block of the README, in order."""
    lines = readme.split("\n")
    found = []
    for match in FENCE.finditer(readme):
        line = readme.count("\n", 0, match.start()) + 1
        found.append(Block(line, match.group(1), match.group(2), lines[line - 2].strip() if line > 1 else ""))
    return found


def shown(readme: str) -> list[Shown]:
    """Every command the README shows with its output, in order."""
    found = []
    for block in blocks(readme):
        tied = TIED.fullmatch(block.above)
        if tied:
            found.append(Shown(block.line, tied.group(1), block.text))
        elif block.language not in CODE and not NOT_RUN.fullmatch(block.above):
            found += _commands(block)
    return found


def untied(readme: str) -> list[int]:
    """Lines of the output blocks tied to no command and not marked as not run."""
    return [b.line for b in blocks(readme) if b.language not in CODE and not _commands(b)
            and not TIED.fullmatch(b.above) and not NOT_RUN.fullmatch(b.above)]


def matches(output: str, printed: str) -> bool:
    """Does ``printed`` read as the README shows it (``output``, with its elisions)?

    >>> matches("a 1\\n...\\nz ... 3\\n", "a 1\\nb\\nc\\nz y 3\\n"), matches("a 1\\n", "a 2\\n")
    (True, False)
    """
    return re.fullmatch(_patterns(output.splitlines()), _lines(printed)) is not None


def mismatch(output: str, printed: str) -> tuple[int, str, str] | None:
    """Where ``printed`` first departs from the README's ``output``: the number of the first
    shown line it cannot match (from 0; past the last when it prints more), that line, and the
    printed line in its place; None if it reads as shown.

    >>> mismatch("a 1\\nb 2\\n", "a 1\\nb 3\\n"), mismatch("a 1\\n", "a 1\\nmore\\n")
    ((1, 'b 2', 'b 3'), (1, '', 'more'))
    """
    if matches(output, printed):
        return None
    printed = _lines(printed)
    lines = output.splitlines()
    k = next((k for k in range(len(lines)) if re.match(_patterns(lines[:k + 1]), printed) is None), len(lines))
    done = re.match(_patterns(lines[:k]), printed).end()
    return k, (lines + [""])[k], printed[done:].split("\n")[0]


def _commands(block: Block) -> list[Shown]:
    """The ``$`` lines of a block, each with the lines after it."""
    found: list[Shown] = []
    for k, text in enumerate(block.text.split("\n")[:-1]):
        if text.startswith("$ "):
            found.append(Shown(block.line + 1 + k, text[2:], ""))
        elif found:
            found[-1] = Shown(found[-1].line, found[-1].command, found[-1].output + text + "\n")
    return found


def _lines(text: str) -> str:
    """Text as lines each ending in a newline, with no trailing blanks."""
    return "".join(line.rstrip() + "\n" for line in text.splitlines())


def _patterns(lines: list[str]) -> str:
    """Shown lines as one pattern for the printed text they stand for."""
    return "".join(_pattern(line) for line in lines)


def _pattern(line: str) -> str:
    """One shown line as a pattern for the printed line(s) it stands for."""
    if line.strip() == "...":
        return r"(?:[^\n]*\n)*?"
    if MEASURED.match(line):
        return r"\d+(?:\.\d+)?".join(re.escape(piece) for piece in NUMBER.split(line.rstrip())) + "\n"
    return r"[^\n]*?".join(re.escape(piece) for piece in line.rstrip().split("...")) + "\n"
