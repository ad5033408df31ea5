"""A sweep's results on disk: rows streamed as they finish, the table written in the design's order.

Each finished variant's row is appended at once to a journal beside the output
(``RESULTS.csv.partial.jsonl``, one JSON object a line, flushed), so a sweep stopped
part-way keeps every row it finished; when the sweep ends, the table (``.csv`` or
``.parquet``) is written in the design's order (rows of earlier runs that this design
does not hold after them) and the journal removed. ``--resume`` reads the table and
any journal left and runs only the variants whose ids are in neither.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from ..model.errors import CspaceError, OutputError

FORMATS = (".csv", ".parquet")
TEXT_COLUMNS = ("id", "error", "end_reason", "blocked_at", "blocked_contacts")
WHOLE_COLUMNS = ("segments", "blocked", "cache_hits", "cache_lookups")
WHOLE_MEASURES = ("drops:",)  # the columns of measures that count


class ResultsError(CspaceError, ValueError):
    """A results file that cannot be used: not .csv or .parquet, or unreadable as a sweep's table."""


def check_format(path: str | os.PathLike) -> str:
    """The output's format, ``.csv`` or ``.parquet``, from its name."""
    suffix = Path(path).suffix.lower()
    if suffix not in FORMATS:
        raise ResultsError(f"--out {path}: results are written as .csv or .parquet")
    return suffix


def table(rows: Iterable[Mapping[str, Any]]):
    """The rows as a pandas DataFrame: every column any row has, in the order they first
    appear; counts as nullable integers, text empty where a failed variant has none."""
    import pandas as pd

    rows = list(rows)
    columns: list[str] = []
    for row in rows:
        columns.extend(name for name in row if name not in columns)
    run = [c for c in ("wall_time", "cache_hits", "cache_lookups") if c in columns]
    columns = [c for c in columns if c not in run] + run
    frame = pd.DataFrame.from_records(rows, columns=columns)
    for name in columns:
        if name in TEXT_COLUMNS:
            frame[name] = frame[name].astype(object).where(frame[name].notna(), "").astype(str)
        elif name in WHOLE_COLUMNS or name.startswith(WHOLE_MEASURES):
            frame[name] = frame[name].astype("Int64")
    return frame


def read(path: str | os.PathLike):
    """A sweep's results table (.csv or .parquet) as a DataFrame."""
    import pandas as pd

    suffix = check_format(path)
    try:
        frame = pd.read_parquet(path) if suffix == ".parquet" else \
            pd.read_csv(path, dtype={name: str for name in TEXT_COLUMNS})  # an id of digits stays text
    except FileNotFoundError:
        raise ResultsError(f"{path}: no such file") from None
    except (OSError, ValueError) as error:
        raise ResultsError(f"{path}: cannot read a sweep's results: {' '.join(str(error).split())}") from None
    if "id" not in frame.columns:
        raise ResultsError(f"{path}: not a sweep's results (no id column)")
    return table(frame.to_dict("records"))


class Results:
    """The rows of a sweep writing to ``path``: those of earlier runs (with ``resume``) and
    those finished since, each on disk as soon as it is added."""

    def __init__(self, path: str | os.PathLike, resume: bool = False) -> None:
        self.path = Path(path)
        self.format = check_format(path)
        self.journal = self.path.with_name(self.path.name + ".partial.jsonl")
        self.rows: dict[str, dict[str, Any]] = {}
        if resume:
            if self.path.exists():
                self.rows.update((row["id"], row) for row in read(self.path).to_dict("records"))
            if self.journal.exists():
                self.rows.update((row["id"], row) for row in _journal_rows(self.journal))
        self._stream = self._open_journal(resume)

    def __repr__(self) -> str:
        return f"Results({str(self.path)!r}, rows={len(self.rows)})"

    def _open_journal(self, keep: bool):
        try:
            stream = open(self.journal, "a" if keep else "w", encoding="utf-8")
            if keep and self.rows:  # the rows read from the table too: the journal alone then holds them all
                stream.seek(0)
                stream.truncate()
                for row in self.rows.values():
                    stream.write(json.dumps(_plain(row)) + "\n")
                stream.flush()
            return stream
        except OSError as error:
            raise OutputError(f"cannot write: {error.strerror}", file=str(self.journal), errno=error.errno) from None

    def add(self, row: Mapping[str, Any]) -> None:
        """Keep a finished variant's row, on disk at once."""
        self.rows[row["id"]] = dict(row)
        try:
            self._stream.write(json.dumps(_plain(row)) + "\n")
            self._stream.flush()
        except OSError as error:
            raise OutputError(f"cannot write: {error.strerror}", file=str(self.journal), errno=error.errno) from None

    def finish(self, order: Sequence[str]):
        """Write the table, the design's ``order`` of ids first, and remove the journal; returns the table."""
        self._stream.close()
        ranked = {variant: k for k, variant in enumerate(order)}
        rows = sorted(self.rows.values(), key=lambda row: ranked.get(row["id"], len(ranked)))
        frame = table(rows)
        partial = self.path.with_name(self.path.name + ".writing")
        try:
            if self.format == ".parquet":
                frame.to_parquet(partial, index=False)
            else:
                frame.to_csv(partial, index=False)
            os.replace(partial, self.path)
        except OSError as error:
            raise OutputError(f"cannot write: {error.strerror}", file=str(self.path), errno=error.errno) from None
        self.journal.unlink(missing_ok=True)
        return frame


def _journal_rows(path: Path) -> list[dict[str, Any]]:
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            rows.append(json.loads(line))
        except json.JSONDecodeError:
            continue  # a line cut short where a sweep was stopped: that variant runs again
    return [row for row in rows if isinstance(row, dict) and "id" in row]


def _plain(row: Mapping[str, Any]) -> dict[str, Any]:
    """A row as JSON holds it: missing values (None, NaN, pandas' NA) as null, numpy scalars as Python's."""
    import pandas as pd

    def plain(value: Any) -> Any:
        if pd.api.types.is_scalar(value) and pd.isna(value):
            return None
        return value.item() if hasattr(value, "item") else value

    return {name: plain(value) for name, value in row.items()}
