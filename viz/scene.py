"""A 3D scene of a mechanism on pyvista: one actor per part and per pin, posed per configuration.

Each part's mesh is built once (:mod:`viz.mesh`) and moved by setting its actor's
transform, so posing a snapshot copies no geometry. Pins (:mod:`viz.pins`) ride on
their parts, so a turning disc shows its turn. The camera is fixed for the scene's
life and framed by :mod:`viz.framing` on every configuration it is told about, so
frames of one animation are comparable pixel for pixel. A caption in the top left
says what is happening; the camera keeps the framed parts out of its band, and the caption
is wrapped (after commas first) to the picture's width and, where its band cannot hold it,
drawn smaller, its sizes measured as the renderer draws it (:mod:`viz.text`). A legend
names the parts beside their colours (:mod:`viz.legend`), in a corner where it covers
nothing of the mechanism, or none of its moving parts; where there is no such corner the
camera leaves it a band of its own along the right or the bottom edge, whichever draws the
parts larger.

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
import shapely
from vtkmodules.vtkRenderingCore import vtkMapper

from cspace.model.kinds import Motion
from cspace.model.poses import z_offset
from cspace.tracing.analysis import Analysis

from .colors import part_colors
from .framing import (
    Insets,
    check_view,
    drawn_boxes,
    framed_box,
    moving_boxes,
    place_camera,
    projection,
    view_scale,
)
from .legend import Layout, Placed, layouts, legend_entries, rectangle, spot
from .mesh import PartMesh, mechanism_meshes, posed
from .output import check_size
from .pins import PIN_COLOR, mechanism_pins
from .snapshots import Traced, initial, posing
from .text import Fitted, TextMetrics, fitted

BACKGROUND = "white"
# Faces square to the headlight show their part's colour exactly (ambient + diffuse = 1).
AMBIENT, DIFFUSE = 0.35, 0.65
# Antialiasing samples: most of the time of a frame in software rendering, and worth it. Sample
# patterns differ between renderers, and thin lines change shade with them.
MULTI_SAMPLES = 8
# The camera keeps the framed parts out of a band of CAPTION_LINES lines of the caption, at most
# MAX_BAND of the picture's height; parts that run past the framed box (a tall wall) pass under
# the caption's and the legend's backing, white at this opacity.
CAPTION_LINES = 3
MAX_BAND = 0.5
BACKING = 0.8
SMALLEST_FONT = 6  # pixels: text is drawn no smaller
MARGIN = 0.01  # between the picture's edges and its text, as a share of its width (at least 2 pixels)
EDGE_COLOR = "black"  # a swatch's edge, as the parts' edges
LEGEND_BAND = 0.5  # the most of the picture's width or height a legend's band may take


class Scene:
    """A pyvista plotter showing every part of a mechanism at one configuration at a time.

    It shows an analysis, a traced path or a dynamic path (:mod:`viz.snapshots` poses the
    parts of each). ``framed`` lists the configurations the camera must hold (default: the
    initial one).
    ``antialias=False`` draws hard-edged pixels, free of the sample patterns that
    differ from one renderer to another: for comparing pictures pixel by pixel.
    ``captions``, the captions it will be posed with, share one font size, the largest at
    which each fits (an animation's text does not change size from frame to frame).
    ``legend`` is where the legend is (None where the picture has no room for one); ``caption``
    the caption as drawn (its lines and font size); ``band`` the height in pixels of the caption's
    band at the top; ``metrics`` the sizes of the legend's text, ``caption_metrics`` the caption's
    (its backing included).
    """

    def __init__(self, analysis: Analysis | Traced, *, size: tuple[int, int] = (800, 600), view: str = "3d",
                 framed: Sequence[np.ndarray] | None = None, off_screen: bool = True,
                 antialias: bool = True, captions: Sequence[str] = ()) -> None:
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
        # A part's edges lie on its faces: with VTK's polygon offset (a switch global to the process) the
        # faces give way to them, so an edge on a silhouette shows wherever the camera's pixels fall.
        vtkMapper.SetResolveCoincidentTopologyToPolygonOffset()
        self.plotter.add_light(pyvista.Light(light_type="headlight"))
        colors = part_colors(analysis.mechanism)
        # Actors by the part that carries them: its own body and edges, then those of its pins.
        self._actors: dict[str, list[pyvista.Actor]] = {name: [] for name in self.meshes}
        for name, mesh in self.meshes.items():
            self._actors[name] += self._add(mesh, colors[name])
        for pin in mechanism_pins(analysis.mechanism):
            self._actors[pin.part] += self._add(pin.mesh, PIN_COLOR)
        self.margin = max(2, round(MARGIN * size[0]))
        self._caption = self._text("", self.margin, self.margin, SMALLEST_FONT, name="caption")
        dpi = self.plotter.render_window.GetDPI()
        self.metrics = TextMetrics(self._caption.GetTextProperty(), dpi)  # plain text: the legend's names
        self._caption.prop.background_color = BACKGROUND
        self._caption.prop.background_opacity = BACKING
        self.caption_metrics = TextMetrics(self._caption.GetTextProperty(), dpi)  # the caption on its backing
        self.caption_font, self.band = self._caption_band(captions)
        configurations = list(framed) if framed is not None else [initial(analysis)]
        self.legend = self._frame(configurations, self.caption_font)
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
        self.caption = self._fitted(caption, self.caption_font)
        self._caption.input = self.caption.text
        self._caption.prop.font_size = self.caption.font

    def image(self) -> np.ndarray:
        """The current picture as an (height, width, 3) uint8 array."""
        self.plotter.render()
        return self.plotter.screenshot(return_img=True)

    def close(self) -> None:
        """Release the render window."""
        self.plotter.close()

    def _caption_band(self, captions: Sequence[str]) -> tuple[int, int]:
        """The captions' font size, the largest from :func:`caption_size` down at which each fits
        :data:`CAPTION_LINES` lines of the picture's width in a band of at most :data:`MAX_BAND`
        of its height, and the height in pixels of the band at the top that holds them: their
        most lines (:data:`CAPTION_LINES` when they are not known). In a picture too small for
        the smallest font, a caption may run below the band."""
        limit = int(MAX_BAND * self.size[1])
        font = caption_size(self.size)
        while font > SMALLEST_FONT and self.margin + self.caption_metrics.line_height(font, CAPTION_LINES) > limit:
            font -= 1
        room = self.caption_metrics.line_height(font, CAPTION_LINES)
        shown = dict.fromkeys(captions)
        font = min([self._fitted(c, font, room).font for c in shown], default=font)
        lines = max([self._fitted(c, font, room).text.count("\n") + 1 for c in shown], default=CAPTION_LINES)
        return font, min(self.margin + self.caption_metrics.line_height(font, min(lines, CAPTION_LINES)), limit)

    def _fitted(self, caption: str, font: int, height: int | None = None) -> Fitted:
        """The caption wrapped to the picture's width, at the largest size from ``font`` down at
        which it fits ``height`` pixels (by default its band's)."""
        return fitted(caption, self.caption_metrics, width=self.size[0] - 2 * self.margin,
                      height=self.band - self.margin if height is None else height, font=font, smallest=SMALLEST_FONT)

    def _frame(self, configurations: list[np.ndarray], font: int) -> Placed | None:
        """Place the camera to hold the configurations below the caption's band, and the legend
        (at the largest font size from the caption's, ``font``, down at which it fits) where it covers
        none of the mechanism, else none of its moving parts, else in a band of its own; where
        the legend is, None if the picture has no room for it."""
        width, height = self.size
        boxes = moving_boxes(self.analysis, configurations)
        insets = Insets(top=self.band / height)
        self._place(configurations, boxes, insets)
        room = (self.margin, self.band + self.margin, width - self.margin, height - self.margin)
        choices = self._legend_layouts(room, font)
        if not choices:
            return None
        project = projection(self.plotter.camera, self.size)
        placed = spot(choices, room, drawn_boxes(project, boxes), self._fixed_faces(project, configurations[0]))
        if placed is None:
            placed, insets = self._legend_band(choices, room, configurations, boxes)
            self._place(configurations, boxes, insets)
        self._draw_legend(placed)
        return placed

    def _place(self, configurations: list[np.ndarray], boxes: np.ndarray, insets: Insets) -> None:
        box = framed_box(self.analysis, configurations, aspect=insets.aspect(self.size), moving=boxes)
        place_camera(self.plotter.camera, box, self.view, self.size, insets)

    def _legend_layouts(self, room: tuple[int, int, int, int], font: int) -> list[Layout]:
        """The legend's layouts that fit ``room``, at the largest font size from ``font`` down at
        which one does (none if none does at the smallest)."""
        entries = legend_entries(self.analysis.mechanism)
        for size in range(font, SMALLEST_FONT - 1, -1):
            fitting = [found for found in layouts(entries, self.metrics, size)
                       if found.width <= room[2] - room[0] and found.height <= room[3] - room[1]]
            if fitting:
                return fitting
        return []

    def _legend_band(self, choices: list[Layout], room: tuple[int, int, int, int],
                     configurations: list[np.ndarray], boxes: np.ndarray) -> tuple[Placed, Insets]:
        """The legend in a band of its own: along the right edge (its fewest columns), or along
        the bottom (its fewest rows), whichever draws the framed parts larger."""
        width, height = self.size
        top = self.band / height
        tall, low = choices[0], min(choices, key=lambda found: found.height)
        options = [(Placed(tall, room[2] - tall.width, room[1]),
                    Insets(top=top, right=min((tall.width + 2 * self.margin) / width, LEGEND_BAND))),
                   (Placed(low, room[2] - low.width, room[3] - low.height),
                    Insets(top=top, bottom=min((low.height + 2 * self.margin) / height, LEGEND_BAND)))]

        def scale(insets: Insets) -> float:
            box = framed_box(self.analysis, configurations, aspect=insets.aspect(self.size), moving=boxes)
            return view_scale(box, self.view, self.size, insets)

        return min(options, key=lambda option: scale(option[1]))

    def _fixed_faces(self, project, values: np.ndarray) -> shapely.STRtree:
        """The fixed parts' faces as the camera draws them at ``values`` (pixel polygons)."""
        poses = self._posing(values)
        faces = []
        for part in self.analysis.mechanism.parts:
            if part.motion == Motion.FIXED:
                mesh = self.meshes[part.name]
                points = project(posed(mesh, poses[part.name]))
                faces += [shapely.polygons(points[f]) for f in (mesh.triangles, mesh.quads) if len(f)]
        faces = np.concatenate(faces) if faces else np.array([], object)
        return shapely.STRtree(faces[shapely.area(faces) > 0])

    def _draw_legend(self, placed: Placed) -> None:
        """The legend's backing, each swatch on its edge and each entry's names."""
        found = placed.layout
        rectangles = [(placed.box, BACKGROUND, BACKING)]
        for entry, (left, top, right, bottom) in zip(found.entries, placed.swatch_boxes()):
            rectangles += [((left - 1, top - 1, right + 1, bottom + 1), EDGE_COLOR, 1.0),
                           ((left, top, right, bottom), entry.color, 1.0)]
        for box, color, opacity in rectangles:
            actor = rectangle(box, self.size[1], pyvista.Color(color).float_rgb, opacity)
            self.plotter.add_actor(actor, reset_camera=False, pickable=False, render=False)
        for k, (entry, (x, y)) in enumerate(zip(found.entries, found.labels)):
            self._text(entry.label, placed.left + x, placed.top + y, found.font, name=f"legend {k}")

    def _text(self, text: str, left: int, top: int, font: int, *, name: str) -> pyvista.Text:
        """Black text whose top left is at pixel (``left``, ``top``) of the picture."""
        actor = self.plotter.add_text(text, position=(left, self.size[1] - top), color="black", name=name,
                                      render=False)
        actor.prop.justification_vertical = "top"
        actor.prop.font_size = font
        return actor

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
    """The caption's font size in pixels for a window: readable at 200 pixels wide, not
    shouting at 1600 (the band it fits in may make it smaller)."""
    return 2 * max(5, round(size[0] / 80))


def _matrix4(transform: np.ndarray) -> np.ndarray:
    matrix = np.eye(4)
    matrix[:2, :2] = transform[:2, :2]
    matrix[:2, 3] = transform[:2, 2]
    return matrix
