"""Rendering for cspace: 3D meshes from part slices, animations and configuration-space plots.

Installed as ``cspace.viz`` (the project's top-level ``viz/`` folder); it imports the
library, which never imports it (but for the command line, and the notebook views
``import cspace`` registers with IPython). The meshes, snapshots, region tables and
drawings need neither pyvista nor matplotlib; the names that do (``Scene``, ``animate``,
``show``, ``Player``, ``pair_figure``, ``plot_pair``, ``find_pair``) load them on first
use, and every name loads with its module when first asked for::

    import cspace
    from cspace import viz
    analysis = cspace.analyze(cspace.load("fixtures/feeder.toml"))
    result = cspace.trace(analysis)
    viz.animate(result, "feeder.gif")                                  # one frame per snapshot
    viz.plot_pair(analysis, result, "piston", "block1", "piston-block1.png")   # paper Figure 5

Modules: ``mesh`` (part meshes as arrays), ``snapshots`` (path samples, part poses),
``colors``, ``scene`` (pyvista scene), ``animation`` (GIF/MP4), ``viewer`` (interactive
window), ``pair_plot`` (matplotlib), ``region_table`` (Figure 10 as Markdown/HTML),
``output`` (output path checks), ``marks`` (what a drawing of a mechanism marks: outlines,
pivots, axes, limits, arrows, labels), ``sheet`` (a drawing's box and sizes), ``drawing``
(``cspace draw``: SVG and HTML, and the browser viewer's SVG), ``drawing_png`` (its PNG,
matplotlib), ``web`` (the browser viewer), ``notebook`` (notebook views)::

    viz.write_drawing(cspace.load("fixtures/feeder.toml"), "feeder.svg")   # before any analysis
"""

from importlib import import_module
from typing import TYPE_CHECKING

# Every name loads with its module when first asked for (PEP 562): a drawing does not pay for the
# tracer's imports, nor anything for pyvista's or matplotlib's (scene, animation, viewer, pair_plot).
_HOMES = {
    "colors": ("part_colors",),
    "drawing": ("drawing_svg", "write_drawing"),
    "marks": ("Marks", "mechanism_marks"),
    "mesh": ("PartMesh", "mechanism_meshes", "part_mesh", "posed"),
    "region_table": ("html_region_table", "markdown_region_table"),
    "snapshots": ("Snapshot", "part_poses", "snapshots"),
    "scene": ("Scene",),
    "animation": ("animate",),
    "viewer": ("NoDisplayError", "Player", "show"),
    "pair_plot": ("find_pair", "pair_figure", "plot_pair"),
}
_HOME = {name: module for module, names in _HOMES.items() for name in names}

if TYPE_CHECKING:
    from .animation import animate
    from .colors import part_colors
    from .drawing import drawing_svg, write_drawing
    from .marks import Marks, mechanism_marks
    from .mesh import PartMesh, mechanism_meshes, part_mesh, posed
    from .pair_plot import find_pair, pair_figure, plot_pair
    from .region_table import html_region_table, markdown_region_table
    from .scene import Scene
    from .snapshots import Snapshot, part_poses, snapshots
    from .viewer import NoDisplayError, Player, show


def __getattr__(name: str):
    if name in _HOME:
        return getattr(import_module(f".{_HOME[name]}", __name__), name)
    raise AttributeError(f"module 'viz' has no attribute {name!r}")


__all__ = [
    "Marks", "NoDisplayError", "PartMesh", "Player", "Scene", "Snapshot", "animate", "drawing_svg", "find_pair",
    "html_region_table", "markdown_region_table", "mechanism_marks", "mechanism_meshes", "pair_figure",
    "part_colors", "part_mesh", "part_poses", "plot_pair", "posed", "show", "snapshots", "write_drawing",
]
