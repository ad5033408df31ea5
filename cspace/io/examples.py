"""The example mechanisms cspace ships, the way MuJoCo ships its sample models.

They are the repository's ``fixtures/`` folder (the mechanism files and the drawings they
read), installed as package data under ``cspace/fixtures`` (setup.cfg's ``package_dir``),
so they are there wherever cspace is installed. An example's name is its file's stem
(``feeder`` for ``feeder.toml``); its summary is the first sentence of the comment the file
opens with, which each example keeps to one line.

The command line takes an example's name wherever it takes a mechanism file
(:func:`mechanism_file`); a path that exists wins, so a file of one's own is never
shadowed by an example:

    >>> example("feeder").name
    'feeder.toml'
    >>> example("feedr")
    Traceback (most recent call last):
    ...
    cspace.model.errors.ExampleError: no example named 'feedr' (did you mean 'feeder'?)
"""

from __future__ import annotations

import difflib
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from ..model.errors import ExampleError, ModelError

PACKAGE = Path(__file__).resolve().parents[1]
SUFFIX = ".toml"


@dataclass(frozen=True)
class Example:
    """A shipped mechanism: its name, its file and the first sentence of its description."""

    name: str
    path: Path
    summary: str


def folder() -> Path:
    """The examples' folder: the installed package's ``fixtures``; in a checkout (run in place
    or installed editable, where the package is the checkout's ``cspace/``), the ``fixtures/``
    folder beside it."""
    installed = PACKAGE / "fixtures"
    return installed if installed.is_dir() else PACKAGE.parent / "fixtures"


def examples() -> list[Example]:
    """Every example, in the order of their names."""
    found = [Example(path.stem, path, _summary(path)) for path in folder().glob(f"*{SUFFIX}")]
    return sorted(found, key=lambda e: e.name)


def _summary(path: Path) -> str:
    """The first sentence of the comment a mechanism file opens with: its first paragraph (the
    comment lines up to a blank one) up to the first full stop followed by a space or the
    paragraph's end, or the whole paragraph if it has none ('' if the file opens with no comment).

    A full stop inside a word (``1.1``, ``make_gears.py``) ends nothing."""
    lines = []
    with open(path, encoding="utf-8-sig") as file:
        for line in file:
            text = line.strip()
            if not text.startswith("#") or not text.lstrip("#").strip():
                break
            lines.append(text.lstrip("#").strip())
    paragraph = " ".join(lines)
    end = re.search(r"\.(?= |$)", paragraph)
    return paragraph[:end.end()] if end else paragraph


def example(name: str) -> Path:
    """The file of the example ``name`` (``feeder`` or ``feeder.toml``); ExampleError, with
    the nearest name as a hint, if there is none."""
    found = _by_name()
    if _stem(name) not in found:
        raise ExampleError(f"no example named {name!r}{_hint(_stem(name), found)}")
    return found[_stem(name)]


def mechanism_file(argument: str) -> str:
    """The mechanism file a command-line argument names: the path itself if anything is there;
    else, for a bare name (no folder), the example of that name; else ModelError, 'no such
    file', with a hint: for a bare name the nearest example's, for a path the example its file
    is named for (``fixtures/feeder.toml`` outside the checkout points to ``feeder``)."""
    if os.path.lexists(argument):
        return argument
    found, stem = _by_name(), _stem(Path(argument).name)
    bare = argument in (stem, stem + SUFFIX)
    if bare and stem in found:
        return str(found[stem])
    raise ModelError(f"no such file{_hint(stem, found if bare else found.keys() & {stem}, 'the example ')}",
                     file=argument)


def _by_name() -> dict[str, Path]:
    return {e.name: e.path for e in examples()}


def _stem(name: str) -> str:
    """A file name without the mechanism files' suffix."""
    return name[:-len(SUFFIX)] if name.endswith(SUFFIX) else name


def _hint(name: str, names: Iterable[str], what: str = "") -> str:
    """`` (did you mean 'NAME'?)`` for the nearest of ``names``, or nothing if none is near."""
    near = difflib.get_close_matches(name, sorted(names), n=1)
    return f" (did you mean {what}{near[0]!r}?)" if near else ""


def listing() -> str:
    """``cspace examples``: one line per example, its name and its summary."""
    found = examples()
    width = max(len(e.name) for e in found)
    return "".join(f"{e.name:<{width}}  {e.summary}\n" for e in found)
