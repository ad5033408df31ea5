"""Named canonical objects for the tests: fixtures' paths, cached analyses and traces."""

from __future__ import annotations

import importlib.util
import sys
from functools import lru_cache
from pathlib import Path
from types import ModuleType

from cspace import analyze, load, trace

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = sorted(p.stem for p in (ROOT / "fixtures").glob("*.toml"))


def fixture_path(name: str) -> Path:
    return ROOT / "fixtures" / f"{name}.toml"


@lru_cache(maxsize=None)
def analyzed(name: str):
    """The analysis of fixtures/<name>.toml (cached: tracing reads it, never changes it)."""
    return analyze(load(fixture_path(name)))


@lru_cache(maxsize=None)
def traced(name: str, until: float | None = None):
    """The trace of fixtures/<name>.toml (cached: tracing is deterministic)."""
    return trace(analyzed(name), until=until)


@lru_cache(maxsize=None)
def tool(name: str) -> ModuleType:
    """tools/<name>.py as a module: a fixture's generator, whose numbers a test derives from."""
    directory = ROOT / "tools"
    spec = importlib.util.spec_from_file_location(name, directory / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # a dataclass finds its module's names there
    sys.path.insert(0, str(directory))  # a generator may import a sibling (make_gears)
    try:
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(directory))
    return module
