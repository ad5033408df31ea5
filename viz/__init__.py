"""Rendering for cspace: 3D meshes from part slices, animations and configuration-space plots.

Installed as ``cspace.viz`` (the project's top-level ``viz/`` folder); it imports the
library, which never imports it (but for the command line, and the notebook views
``import cspace`` registers with IPython). The meshes, snapshots and region tables need
neither pyvista nor matplotlib; the names that do (``Scene``, ``animate``, ``show``,
``Player``, ``pair_figure``, ``plot_pair``, ``find_pair``) load them on first use::

    import cspace
    from cspace import viz
    analysis = cspace.analyze(cspace.load("fixtures/feeder.toml"))
    result = cspace.trace(analysis)
    viz.animate(result, "feeder.gif")                                  # one frame per snapshot
    viz.plot_pair(analysis, result, "piston", "block1", "piston-block1.png")   # paper Figure 5

Modules: ``mesh`` (part meshes as arrays), ``snapshots`` (path samples, part poses),
``colors``, ``scene`` (pyvista scene), ``animation`` (GIF/MP4), ``viewer`` (interactive
window), ``pair_plot`` (matplotlib), ``region_table`` (Figure 10 as Markdown/HTML),
``output`` (output path checks).
"""

from importlib import import_module

from .colors import part_colors
from .mesh import PartMesh, mechanism_meshes, part_mesh, posed
from .region_table import html_region_table, markdown_region_table
from .snapshots import Snapshot, part_poses, snapshots

# Names whose modules import pyvista or matplotlib: loaded when first asked for.
_RENDERING = {
    "Scene": "scene",
    "animate": "animation",
    "Player": "viewer",
    "NoDisplayError": "viewer",
    "show": "viewer",
    "find_pair": "pair_plot",
    "pair_figure": "pair_plot",
    "plot_pair": "pair_plot",
}


def __getattr__(name: str):
    if name in _RENDERING:
        return getattr(import_module(f".{_RENDERING[name]}", __name__), name)
    raise AttributeError(f"module 'viz' has no attribute {name!r}")


__all__ = [
    "NoDisplayError", "PartMesh", "Player", "Scene", "Snapshot", "animate", "find_pair", "html_region_table",
    "markdown_region_table", "mechanism_meshes", "pair_figure", "part_colors", "part_mesh", "part_poses",
    "plot_pair", "posed", "show", "snapshots",
]
