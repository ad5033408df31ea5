"""The outputs held fixed while the code is restructured: one set per fixture and for the
30-block feeder (``tools/feeder_n.py``), made by the command line itself (so they are what
a user sees, however the code behind it is laid out), recorded by
``tools/record_goldens.py`` and compared byte for byte by ``tests/test_golden.py``:

* ``describe.txt``: ``cspace trace FILE --describe``;
* ``json`` and ``path.csv``: ``cspace trace FILE --json --path OUT.csv``;
* ``stats.txt``: ``cspace stats FILE`` but its runtime row, the one measured figure.
"""

from __future__ import annotations

import contextlib
import gzip
import io
import tempfile
from functools import lru_cache
from pathlib import Path

from cspace.cli import main

from .common import FIXTURES, fixture_path, tool

FEEDER_BLOCKS = 30
NAMES = FIXTURES + [f"feeder-{FEEDER_BLOCKS}"]
GOLDEN = Path(__file__).resolve().parent / "golden"
LARGE = 200_000  # bytes: a golden this large is kept gzipped (the 30-block feeder's JSON is 4.9 MB)


def _printed(argv: list[str]) -> str:
    """What the command line prints on standard output (it must succeed)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(argv)
    assert status == 0, err.getvalue()
    return out.getvalue()


@lru_cache(maxsize=None)
def outputs(name: str) -> dict[str, str]:
    """Each report of the named mechanism, by file suffix."""
    with tempfile.TemporaryDirectory(prefix="cspace-golden-") as folder:
        if name == f"feeder-{FEEDER_BLOCKS}":
            path = Path(folder) / f"{name}.toml"
            path.write_text(tool("feeder_n").Feeder(FEEDER_BLOCKS).toml())
        else:
            path = fixture_path(name)
        csv = Path(folder) / "path.csv"
        document = _printed(["trace", str(path), "--json", "--path", str(csv)])
        stats = _printed(["stats", str(path)])
        return {"describe.txt": _printed(["trace", str(path), "--describe"]), "json": document,
                "path.csv": csv.read_text(),
                "stats.txt": "".join(line for line in stats.splitlines(keepends=True)
                                     if not line.startswith("runtime (s)"))}


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
