"""The outputs held fixed while the code is restructured: one set per fixture and for the
30-block feeder (``tools/feeder_n.py``), recorded by ``tools/record_goldens.py`` and
compared byte for byte by ``tests/test_golden.py``."""

from __future__ import annotations

import gzip
from functools import lru_cache
from pathlib import Path

from cspace import analyze, describe, load, loads, path_csv, statistics, to_json, trace
from cspace.describe import statistics_columns

from .common import FIXTURES, fixture_path, tool

FEEDER_BLOCKS = 30
NAMES = FIXTURES + [f"feeder-{FEEDER_BLOCKS}"]
GOLDEN = Path(__file__).resolve().parent / "golden"
LARGE = 200_000  # bytes: a golden this large is kept gzipped (the 30-block feeder's JSON is 4.9 MB)


@lru_cache(maxsize=None)
def outputs(name: str) -> dict[str, str]:
    """Each report of the named mechanism's trace, by file suffix."""
    if name == f"feeder-{FEEDER_BLOCKS}":
        mechanism = loads(tool("feeder_n").Feeder(FEEDER_BLOCKS).toml(), source=f"{name}.toml")
    else:
        mechanism = load(fixture_path(name))
    result = trace(analyze(mechanism))
    values = statistics(result)
    return {"describe.txt": describe(result), "json": to_json(result, statistics=values), "path.csv": path_csv(result),
            "stats.txt": statistics_columns([(result.mechanism.name, values)])}


def stored(name: str, suffix: str, text: str) -> tuple[Path, bytes]:
    """Where a golden output is kept and its bytes: the text, gzipped (reproducibly) when large."""
    data = text.encode()
    if len(data) <= LARGE:
        return GOLDEN / f"{name}.{suffix}", data
    return GOLDEN / f"{name}.{suffix}.gz", gzip.compress(data, mtime=0)


def recorded(name: str, suffix: str) -> str:
    """The golden output as recorded."""
    plain = GOLDEN / f"{name}.{suffix}"
    if plain.exists():
        return plain.read_text()
    return gzip.decompress((GOLDEN / f"{name}.{suffix}.gz").read_bytes()).decode()
