"""The layout: layers that only point down (issue 24).

Every ``import`` in ``cspace/`` and ``viz/`` (installed as ``cspace.viz``) is read with
``ast``, at module level and inside functions alike. Each module belongs to a layer; a
module may import its own layer's modules and those of layers below it, never above (an
import only a type checker runs, under ``if TYPE_CHECKING:``, counts too: it is a
dependency all the same), and the imports that run form no cycle (a type named under
``TYPE_CHECKING`` is no cycle: ``Mechanism.validate()`` and the mechanism's size call the
validation and the poses modules, which name the mechanism's type in their signatures only). Only the command line and the package's face (which
registers the notebook views with IPython) import the rendering.
"""

from __future__ import annotations

import ast
from functools import lru_cache
from pathlib import Path

import pytest

from .common import slow

ROOT = Path(__file__).resolve().parent.parent
# Bottom to top. The package's face (cspace/__init__.py) hands the public names on and stands above all.
LAYERS = ["model", "io", "kernels", "spaces", "tracing", "kinetics", "report", "testing", "sweeps", "viz", "cli",
          "face"]


def _modules() -> dict[str, Path]:
    """Every module of the package, by dotted name, the rendering's under ``cspace.viz``."""
    found = {}
    for path in sorted((ROOT / "cspace").rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    for path in sorted((ROOT / "viz").glob("*.py")):
        found["cspace.viz" + ("" if path.stem == "__init__" else f".{path.stem}")] = path
    return found


MODULES = _modules()


def layer(module: str) -> str:
    """The layer a module of the package belongs to."""
    if module == "cspace":
        return "face"
    name = module.split(".")[1]
    return name if name in LAYERS else {"cli": "cli", "testing": "testing"}[name]


def _resolved(module: str, node: ast.ImportFrom) -> str:
    """The absolute module an ``import from`` names (relative ones resolved against the importer)."""
    if not node.level:
        return node.module or ""
    package = module.split(".") if MODULES[module].name == "__init__.py" else module.split(".")[:-1]
    base = package[:len(package) - node.level + 1]
    return ".".join(base + ([node.module] if node.module else []))


def _typing_only(tree: ast.Module) -> set[int]:
    """The ids of the nodes under ``if TYPE_CHECKING:``."""
    inside = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            inside.update(id(n) for child in node.body for n in ast.walk(child))
    return inside


@lru_cache(maxsize=None)
def imports(module: str, running: bool = False) -> tuple[str, ...]:
    """The package's modules this one imports, wherever in it the import stands (with
    ``running``, only those imported when the code runs: not under ``TYPE_CHECKING``)."""
    tree = ast.parse(MODULES[module].read_text())
    skipped = _typing_only(tree) if running else set()
    named = set()
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Import):
            named.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            source = _resolved(module, node)
            named.add(source)
            named.update(f"{source}.{alias.name}" for alias in node.names)  # a module imported from a package
    return tuple(sorted(name for name in named if name in MODULES and name != module))


def _cycle() -> list[str]:
    """A cycle of imports among the package's modules, or none."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(module: str) -> list[str]:
        state[module] = 1
        stack.append(module)
        for other in imports(module, running=True):
            if state.get(other) == 1:
                return stack[stack.index(other):] + [other]
            if other not in state:
                found = visit(other)
                if found:
                    return found
        stack.pop()
        state[module] = 2
        return []

    for module in MODULES:
        if module not in state:
            found = visit(module)
            if found:
                return found
    return []


def upward() -> list[tuple[str, str]]:
    """Every import of a module from a layer above the importer's."""
    return [(module, other) for module in MODULES for other in imports(module)
            if LAYERS.index(layer(other)) > LAYERS.index(layer(module))]


def test_every_module_has_a_layer():
    assert all(layer(module) in LAYERS for module in MODULES)
    assert {layer(m) for m in MODULES} == set(LAYERS)


def test_no_module_imports_one_above_its_layer():
    assert upward() == []


def test_the_imports_form_no_cycle():
    assert _cycle() == []


def test_only_the_command_line_imports_the_rendering():
    assert sorted(m for m in MODULES if layer(m) not in ("viz", "cli", "face")
                  and any(layer(o) == "viz" for o in imports(m))) == []


@pytest.mark.parametrize("source, expected", [
    ("from ..spaces.pairspace import Contact", "cspace.spaces.pairspace"),
    ("from .layers import meeting", "cspace.spaces.layers"),
    ("from . import cache", "cspace.spaces.cache"),
])
def test_relative_imports_are_read_as_python_reads_them(source, expected):
    """The checker itself: an import from the spaces layer's pair finder, resolved."""
    node = ast.parse(source).body[0]
    found = _resolved("cspace.spaces.pairs", node)
    assert expected in ({found} | {f"{found}.{a.name}" for a in node.names})


def test_the_reports_only_format():
    """describe, JSON, CSV and statistics read the frozen result; they import no kernel, no
    pair space and, of the tracing layer, only the result types (what a report shows that
    tracing did not compute, the trace's measures compute)."""
    reached = {other for module in MODULES if layer(module) == "report" for other in imports(module)}
    assert sorted(o for o in reached if layer(o) in ("kernels", "spaces")
                  or (layer(o) == "tracing" and o != "cspace.tracing.trace")) == []


def _reads_environment(module: str) -> bool:
    """Does the module read ``os.environ`` or call ``os.getenv``/``os.putenv`` anywhere?"""
    tree = ast.parse(MODULES[module].read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr in ("environ", "environb", "getenv", "putenv"):
            return True
        if isinstance(node, ast.ImportFrom) and node.module == "os" and \
                any(a.name in ("environ", "environb", "getenv", "putenv") for a in node.names):
            return True
    return False


@slow
def test_only_the_command_line_reads_the_environment():
    """Settings are arguments: the library takes the cache, the workers and the display's
    presence from its caller; the command line alone maps the environment to them."""
    assert [m for m in MODULES if _reads_environment(m)] == ["cspace.cli"]
