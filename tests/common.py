"""Named canonical objects for the tests: fixtures' paths and cached traces."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from cspace import analyze, load, trace

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = sorted(p.stem for p in (ROOT / "fixtures").glob("*.toml"))


def fixture_path(name: str) -> Path:
    return ROOT / "fixtures" / f"{name}.toml"


@lru_cache(maxsize=None)
def traced(name: str, until: float | None = None):
    """The trace of fixtures/<name>.toml (cached: tracing is deterministic)."""
    return trace(analyze(load(fixture_path(name))), until=until)
