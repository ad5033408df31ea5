"""A 3D scene of a mechanism on pyvista: one actor per part and per pin, posed per configuration.

Each part's mesh is built once (:mod:`viz.mesh`) and moved by setting its actor's
transform, so posing a snapshot copies no geometry. Pins (:mod:`viz.pins`) ride on
their parts, so a turning disc shows its turn. The camera is fixed for the scene's
life and framed by :mod:`viz.framing` on every configuration it is told about, so
frames of one animation are comparable pixel for pixel. A caption in the top left
says what is happening; the camera keeps the framed parts out of its band.

Views: ``"3d"`` looks at the mechanism from the front and a little above, so the
parts' depth shows; ``"plane"`` looks straight down the z axis at the plane of motion.
Both are parallel projections, as in an engineering drawing: plane lengths map to
pixels at one fixed scale.

    >>> from cspace import analyze, load
    >>> scene = Scene(analyze(load("fixtures/feeder.toml")), size=(200, 150))
    >>> scene.image().shape
    (150, 200, 3)
    >>> scene.close()
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyvista

from cspace.model.poses import z_offset
from cspace.tracing.analysis import Analysis

from .colors import part_colors
from .framing import check_view, framed_box, place_camera
from .mesh import PartMesh, mechanism_meshes
from .output import check_size
from .pins import PIN_COLOR, mechanism_pins
from .snapshots import Traced, initial, posing

BACKGROUND = "white"
# Faces square to the headlight show their part's colour exactly (ambient + diffuse = 1).
AMBIENT, DIFFUSE = 0.35, 0.65
# Antialiasing samples: most of the time of a frame in software rendering, and worth it. Sample
# patterns differ between renderers, and thin lines change shade with them.
MULTI_SAMPLES = 8
# Caption characters are at most about this many times the font size wide, and lines this
# many times high, in pixels; the camera keeps the framed parts out of a band of CAPTION_LINES
# lines. Parts that run past the framed box (a tall wall) pass under the caption's backing.
CHARACTER_WIDTH = 1.1
LINE_HEIGHT = 1.5
CAPTION_LINES = 3
CAPTION_BACKING = 0.8


class Scene:
    """A pyvista plotter showing every part of a mechanism at one configuration at a time.

    It shows an analysis, a traced path or a dynamic path (:mod:`viz.snapshots` poses the
    parts of each). ``framed`` lists the configurations the camera must hold (default: the
    initial one).
    ``antialias=False`` draws hard-edged pixels, free of the sample patterns that
    differ from one renderer to another: for comparing pictures pixel by pixel.
    """

    def __init__(self, analysis: Analysis | Traced, *, size: tuple[int, int] = (800, 600), view: str = "3d",
                 framed: Sequence[np.ndarray] | None = None, off_screen: bool = True,
                 antialias: bool = True) -> None:
        check_size(size)
        check_view(view)
        self.analysis = analysis
        self.size = size
        self.view = view
        self.meshes = mechanism_meshes(analysis.mechanism)
        self._posing = posing(analysis)
        # A fresh theme, not the global one, so pictures do not depend on settings made elsewhere.
        theme = pyvista.themes.Theme()
        theme.multi_samples = MULTI_SAMPLES if antialias else 0
        # Without a display VTK first tries X, warns, then falls back to an offscreen context.
        with pyvista.vtk_verbosity("error"):
            self.plotter = pyvista.Plotter(off_screen=off_screen, window_size=list(size), lighting="none",
                                           theme=theme)
        self.plotter.set_background(BACKGROUND)
        self.plotter.add_light(pyvista.Light(light_type="headlight"))
        colors = part_colors(analysis.mechanism)
        # Actors by the part that carries them: its own body and edges, then those of its pins.
        self._actors: dict[str, list[pyvista.Actor]] = {name: [] for name in self.meshes}
        for name, mesh in self.meshes.items():
            self._actors[name] += self._add(mesh, colors[name])
        for pin in mechanism_pins(analysis.mechanism):
            self._actors[pin.part] += self._add(pin.mesh, PIN_COLOR)
        self._caption = self.plotter.add_text("", position=(0.01, 0.985), viewport=True, color="black",
                                              font_size=caption_size(size), name="caption")
        self._caption.prop.justification_vertical = "top"
        self._caption.prop.background_color = BACKGROUND
        self._caption.prop.background_opacity = CAPTION_BACKING
        configurations = list(framed) if framed is not None else [initial(analysis)]
        band = CAPTION_LINES * LINE_HEIGHT * caption_size(size) / size[1]
        box = framed_box(analysis, configurations, aspect=size[0] / (size[1] * (1 - band)))
        place_camera(self.plotter.camera, box, view, size, band)
        self.pose(configurations[0])

    def pose(self, values: np.ndarray, caption: str = "") -> None:
        """Move every part to the configuration ``values`` and set the caption."""
        mechanism = self.analysis.mechanism
        named = {c.name: float(v) for c, v in zip(mechanism.coordinates, values)}
        for name, transform in self._posing(values).items():
            matrix = _matrix4(transform)
            matrix[2, 3] = z_offset(mechanism, mechanism.part(name), named)  # a shift along z lifts it
            for actor in self._actors[name]:
                actor.user_matrix = matrix
        self._caption.input = wrapped(caption, round(self.size[0] / (CHARACTER_WIDTH * caption_size(self.size))))

    def image(self) -> np.ndarray:
        """The current picture as an (height, width, 3) uint8 array."""
        self.plotter.render()
        return self.plotter.screenshot(return_img=True)

    def close(self) -> None:
        """Release the render window."""
        self.plotter.close()

    def _add(self, mesh: PartMesh, color: str) -> list[pyvista.Actor]:
        """Actors for a mesh's faces and its feature edges (drawn black, unlit)."""
        data = polydata(mesh)
        body = self.plotter.add_mesh(data, color=color, ambient=AMBIENT, diffuse=DIFFUSE, specular=0.0,
                                     name=mesh.part)
        outline = data.extract_feature_edges(boundary_edges=False, non_manifold_edges=False, manifold_edges=False)
        edges = self.plotter.add_mesh(outline, color="black", lighting=False, name=f"{mesh.part} edges")
        return [body, edges]

    def __repr__(self) -> str:
        return f"Scene({self.analysis.mechanism.name!r}, size={self.size!r}, view={self.view!r})"


def polydata(mesh: PartMesh) -> pyvista.PolyData:
    """A pyvista surface of a part mesh (triangles and quadrangles as they are)."""
    faces = [np.column_stack([np.full(len(f), f.shape[1]), f]).ravel() for f in (mesh.triangles, mesh.quads)]
    return pyvista.PolyData(mesh.vertices, np.concatenate(faces))


def caption_size(size: tuple[int, int]) -> int:
    """Caption font size for a window: readable at 200 pixels wide, not shouting at 1600."""
    return max(5, round(size[0] / 80))


def wrapped(text: str, columns: int) -> str:
    """Each line of ``text`` broken after commas to fit ``columns`` characters where it can.

    >>> print(wrapped("gravity: block1 yb1-, block2 yb2-, block3 yb3-", 26))
    gravity: block1 yb1-,
      block2 yb2-, block3 yb3-
    """
    lines = []
    for line in text.splitlines():
        pieces = line.split(", ")
        current = pieces[0]
        for piece in pieces[1:]:
            if len(current) + 2 + len(piece) <= columns:
                current += ", " + piece
            else:
                lines.append(current + ",")
                current = "  " + piece
        lines.append(current)
    return "\n".join(lines)


def _matrix4(transform: np.ndarray) -> np.ndarray:
    matrix = np.eye(4)
    matrix[:2, :2] = transform[:2, :2]
    matrix[:2, 3] = transform[:2, 2]
    return matrix
