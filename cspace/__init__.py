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

from .analysis import Analysis, analyze
from .describe import (
    describe,
    path_csv,
    path_json,
    region_rows,
    region_table,
    statistics,
    summary,
    to_json,
)
from .errors import (
    CspaceError,
    GeometryError,
    LinkageError,
    ModelError,
    TraceError,
    UnsupportedPairError,
)
from .geometry import Arc, Line, Profile
from .linkage import LinkageTable
from .loader import load, loads
from .model import (
    Coordinate,
    Force,
    InputMotion,
    Joint,
    Linkage,
    Mechanism,
    Part,
    Slice,
)
from .pairspace import Contact, PairSpace, Region
from .tolerance import Tolerance
from .trace import Piece, Segment, Trace
from .tracer import trace

__all__ = [
    "Analysis", "Arc", "Contact", "Coordinate", "CspaceError", "Force", "GeometryError", "InputMotion",
    "Joint", "Line", "Linkage", "LinkageError", "LinkageTable", "Mechanism", "ModelError", "PairSpace",
    "Part", "Piece", "Profile", "Region", "Segment", "Slice", "Tolerance", "Trace", "TraceError",
    "UnsupportedPairError", "analyze", "describe", "load", "loads", "path_csv", "path_json",
    "region_rows", "region_table", "statistics", "summary", "to_json", "trace",
]
