"""cspace: configuration-space simulation of rigid-part mechanisms, with simple or full dynamics.

``load -> analyze -> trace``, then report::

    >>> import cspace
    >>> result = cspace.trace(cspace.analyze(cspace.load("fixtures/feeder.toml")))
    >>> [round(float(v), 4) for v in result.segments[-1].finish[2::2]]
    [25.0, 21.0, 17.0]

The method is Sacks & Joskowicz, *Mechanism simulation with configuration spaces and
simple dynamics* (1992): pairwise configuration spaces cut into contact regions,
composed lazily along the path the input motions drive, with forces acting as
instantaneous motions.
"""

import sys
from importlib import import_module
from typing import TYPE_CHECKING

# The public names, by the module that holds them. They are imported when first used
# (PEP 562), so that ``import cspace`` and ``cspace --help`` do not pay for numpy, scipy
# and shapely before a command needs them.
_HOMES = {
    "tracing.analysis": ("Analysis", "analyze"),
    "report.describe": ("describe", "path_csv", "path_json", "region_rows", "region_table", "statistics",
                        "summary", "to_json"),
    "model.errors": ("BudgetError", "CspaceError", "DxfError", "ExampleError", "GeometryError", "LinkageError",
                     "ModelError", "OutputError", "TraceError", "UnsupportedPairError", "WorkersError"),
    "model.geometry": ("Arc", "Line", "Profile"),
    "spaces.linkage": ("LinkageTable",),
    "io.loader": ("load", "loads"),
    "io.examples": ("Example", "example", "examples"),
    "model.mechanism": ("Coordinate", "Force", "InputMotion", "Joint", "Linkage", "Mechanism", "Part", "Slice"),
    "spaces.pairspace": ("Contact", "PairSpace", "Region"),
    "model.tolerance": ("Tolerance",),
    "tracing.trace": ("Piece", "Segment", "Trace"),
    "tracing.tracer": ("trace",),
    "model.dynamics": ("ContactLaw", "Damper", "Dynamics", "Load", "Mass", "Spring"),
    "kinetics.result": ("DynamicTrace", "Stretch"),
    "kinetics.simulate": ("simulate",),
    "sweeps.runner": ("sweep",),
    "sweeps.view": ("sweep_results",),
}
_HOME = {name: module for module, names in _HOMES.items() for name in names}

if TYPE_CHECKING:  # what the names are, for readers and type checkers
    from .io.examples import Example, example, examples
    from .io.loader import load, loads
    from .kinetics.result import DynamicTrace, Stretch
    from .kinetics.simulate import simulate
    from .model.dynamics import ContactLaw, Damper, Dynamics, Load, Mass, Spring
    from .model.errors import (
        BudgetError,
        CspaceError,
        DxfError,
        ExampleError,
        GeometryError,
        LinkageError,
        ModelError,
        OutputError,
        TraceError,
        UnsupportedPairError,
        WorkersError,
    )
    from .model.geometry import Arc, Line, Profile
    from .model.mechanism import Coordinate, Force, InputMotion, Joint, Linkage, Mechanism, Part, Slice
    from .model.tolerance import Tolerance
    from .report.describe import describe, path_csv, path_json, region_rows, region_table, statistics, summary, to_json
    from .spaces.linkage import LinkageTable
    from .spaces.pairspace import Contact, PairSpace, Region
    from .sweeps.runner import sweep
    from .sweeps.view import sweep_results
    from .tracing.analysis import Analysis, analyze
    from .tracing.trace import Piece, Segment, Trace
    from .tracing.tracer import trace


def __getattr__(name: str):
    """A public name, imported from its module on first use (and kept); ``__version__``, the
    installed distribution's version: setup.cfg's metadata is the one place it is written, and
    ``cspace --version`` reads it the same way."""
    if name == "__version__":
        from .io.version import installed_version

        value = installed_version()
    elif name in _HOME:
        value = getattr(import_module(f".{_HOME[name]}", __name__), name)
    else:
        raise AttributeError(f"module 'cspace' has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


def _notebook_views() -> None:
    """In IPython (Jupyter), show a mechanism, a trace, a segment and a full-dynamics path as HTML
    (:mod:`cspace.viz.notebook`), and a sweep's results file as its design map and table
    (:mod:`cspace.sweeps.view`): registered by the types' names, so nothing is imported until
    one is shown, and the library itself never imports the rendering."""
    shell = getattr(sys.modules.get("IPython"), "get_ipython", lambda: None)()
    if shell is None:
        return

    def view(name: str):
        def html(value) -> str:
            from .viz import notebook

            return getattr(notebook, name)(value)
        return html

    formatter = shell.display_formatter.formatters["text/html"]
    formatter.for_type_by_name("cspace.model.mechanism", "Mechanism", view("mechanism_html"))
    formatter.for_type_by_name("cspace.tracing.trace", "Trace", view("trace_html"))
    formatter.for_type_by_name("cspace.tracing.trace", "Segment", view("segment_html"))
    formatter.for_type_by_name("cspace.kinetics.result", "DynamicTrace", view("motion_html"))

    def results_html(value) -> str:
        from .sweeps.view import results_html

        return results_html(value)

    formatter.for_type_by_name("cspace.sweeps.view", "SweepResults", results_html)


_notebook_views()


__all__ = [
    "Analysis", "Arc", "BudgetError", "Contact", "ContactLaw", "Coordinate", "CspaceError", "Damper", "DxfError",
    "DynamicTrace", "Dynamics", "Example", "ExampleError", "Force", "GeometryError", "InputMotion", "Joint", "Line",
    "Linkage", "LinkageError", "LinkageTable", "Load", "Mass", "Mechanism", "ModelError", "OutputError",
    "PairSpace", "Part", "Piece", "Profile", "Region", "Segment", "Slice", "Spring", "Stretch", "Tolerance",
    "Trace", "TraceError", "UnsupportedPairError", "WorkersError", "analyze", "describe", "example", "examples",
    "load", "loads", "path_csv", "path_json", "region_rows", "region_table", "simulate", "statistics", "summary",
    "sweep", "sweep_results", "to_json", "trace",
]
