"""cspace: configuration-space simulation of rigid-part mechanisms with simple dynamics.

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
from types import ModuleType
from typing import TYPE_CHECKING

# The public names, by the module that holds them. They are imported when first used
# (PEP 562), so that ``import cspace`` and ``cspace --help`` do not pay for numpy, scipy
# and shapely before a command needs them.
_HOMES = {
    "analysis": ("Analysis", "analyze"),
    "describe": ("describe", "path_csv", "path_json", "region_rows", "region_table", "statistics", "summary",
                 "to_json"),
    "errors": ("BudgetError", "CspaceError", "DxfError", "GeometryError", "LinkageError", "ModelError", "OutputError",
               "TraceError", "UnsupportedPairError", "WorkersError"),
    "geometry": ("Arc", "Line", "Profile"),
    "linkage": ("LinkageTable",),
    "loader": ("load", "loads"),
    "model": ("Coordinate", "Force", "InputMotion", "Joint", "Linkage", "Mechanism", "Part", "Slice"),
    "pairspace": ("Contact", "PairSpace", "Region"),
    "tolerance": ("Tolerance",),
    "trace": ("Piece", "Segment", "Trace"),
    "tracer": ("trace",),
}
_HOME = {name: module for module, names in _HOMES.items() for name in names}

if TYPE_CHECKING:  # what the names are, for readers and type checkers
    from .analysis import Analysis, analyze
    from .describe import describe, path_csv, path_json, region_rows, region_table, statistics, summary, to_json
    from .errors import (BudgetError, CspaceError, DxfError, GeometryError, LinkageError, ModelError, OutputError,
                         TraceError, UnsupportedPairError, WorkersError)
    from .geometry import Arc, Line, Profile
    from .linkage import LinkageTable
    from .loader import load, loads
    from .model import Coordinate, Force, InputMotion, Joint, Linkage, Mechanism, Part, Slice
    from .pairspace import Contact, PairSpace, Region
    from .tolerance import Tolerance
    from .trace import Piece, Segment, Trace
    from .tracer import trace


def __getattr__(name: str):
    """A public name, imported from its module on first use (and kept)."""
    if name not in _HOME:
        raise AttributeError(f"module 'cspace' has no attribute {name!r}")
    value = getattr(import_module(f".{_HOME[name]}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


class _Package(ModuleType):
    """The package, whose functions ``trace`` and ``describe`` share their names with its
    modules ``cspace.trace`` and ``cspace.describe``: importing such a module binds the
    package's attribute to it, which would hide the function. The module stays in
    ``sys.modules``; the attribute stays the function, as an eager import left it."""

    def __setattr__(self, name: str, value) -> None:
        if name in _HOME and isinstance(value, ModuleType):
            return
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package


__all__ = [
    "Analysis", "Arc", "BudgetError", "Contact", "Coordinate", "CspaceError", "DxfError", "Force", "GeometryError",
    "InputMotion", "Joint", "Line", "Linkage", "LinkageError", "LinkageTable", "Mechanism", "ModelError", "OutputError", "PairSpace",
    "Part", "Piece", "Profile", "Region", "Segment", "Slice", "Tolerance", "Trace", "TraceError",
    "UnsupportedPairError", "WorkersError", "analyze", "describe", "load", "loads", "path_csv", "path_json",
    "region_rows", "region_table", "statistics", "summary", "to_json", "trace",
]
