"""Named canonical objects for the tests: fixtures' paths, cached analyses and traces."""

from __future__ import annotations

import importlib.util
import sys
import tomllib
from collections.abc import Collection, Iterable
from functools import lru_cache
from pathlib import Path
from types import ModuleType

import pytest

from cspace import analyze, load, simulate, trace

ROOT = Path(__file__).resolve().parent.parent

def _full(path: Path) -> bool:
    return tomllib.loads(path.read_text()).get("mechanism", {}).get("dynamics") == "full"


# The fixtures the paper's simple dynamics traces, and those full dynamics integrates (cspace.kinetics).
FIXTURES = sorted(p.stem for p in (ROOT / "fixtures").glob("*.toml") if not _full(p))
DYNAMIC_FIXTURES = sorted(p.stem for p in (ROOT / "fixtures").glob("*.toml") if _full(p))


# Mechanisms whose pair spaces or trace take seconds (turning pairs of many regions, the 30-block
# feeder, the escapement's integration). A test over every fixture runs them in the whole suite
# only: the fast subset (pytest -m "not slow") keeps the others, so it still covers every test.
HEAVY = frozenset({"dxf-cam", "eccentric-cam", "escapement", "feeder-30", "gears", "geneva", "ratchet", "rim-lock",
                   "shoe-brake", "transmission"})
slow = pytest.mark.slow


def each(names: Iterable, fast: Collection | None = None) -> list:
    """``names`` as test parameters, those not in ``fast`` (by default: all but the heavy
    mechanisms) marked slow."""
    return [name if (name not in HEAVY if fast is None else name in fast) else pytest.param(name, marks=slow)
            for name in names]


def seeds(count: int, fast: int) -> list:
    """Seeds 0 to ``count - 1`` as test parameters, all but the first ``fast`` marked slow."""
    return [seed if seed < fast else pytest.param(seed, marks=slow) for seed in range(count)]


# Set by conftest.py when the run leaves the slow tests out (pytest -m "not slow").
FAST_SUBSET = False


def examples(count: int) -> int:
    """A property test's example count: ``count`` in the whole suite, a fifth of it in the fast
    subset (the same property, checked less widely while a contributor works)."""
    return max(1, count // 5) if FAST_SUBSET else count


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


@lru_cache(maxsize=None)
def simulated(name: str):
    """The full-dynamics path of fixtures/<name>.toml (cached: integration is deterministic)."""
    return simulate(analyzed(name))
