"""Automatic camera framing: what a picture of a mechanism must hold, and where the camera goes.

The picture is about what moves. The framed box starts as the box of every moving
part at every configuration given. It may grow to a window around that box: a
quarter of the box's larger side each way, widened across its smaller side to the
picture's shape. Within the window it grows only towards fixed parts, so a long
table runs out of the picture instead of shrinking the parts that move, and a wall
that fits is shown whole. A mechanism with nothing mobile is framed whole. The camera
keeps the framed box out of bands along the picture's edges (:class:`Insets`: the caption's
at the top, a legend's at the right or the bottom).

    >>> from cspace import analyze, load
    >>> analysis = analyze(load("fixtures/feeder.toml"))
    >>> [round(v, 2) for v in framed_box(analysis, [analysis.initial], aspect=4 / 3)]
    [-8.62, 22.12, -3.5, 19.56, -2.0, 1.0]
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import shapely
import shapely.affinity

from cspace.model.geometry import region_of
from cspace.model.kinds import Motion
from cspace.tracing.analysis import Analysis

from .mesh import bounds, mechanism_meshes, posed
from .snapshots import Traced, posing

# From the focal point towards the camera: "3d" from in front (+z) and above, square to x; "plane" straight
# down the z axis.
DIRECTIONS = {"3d": (0.0, 0.35, 1.0), "plane": (0.0, 0.0, 1.0)}
VIEWS = tuple(DIRECTIONS)
# Room around the moving parts, as a share of the larger side of their box.
ROOM = 0.25
# Beyond any picture: the half-height of the window's columns and half-width of its rows, in window sizes.
FAR = 1e3
# Space left between the framed box and the picture's edges, as a factor on the distance or scale.
MARGIN = 1.06

Box = tuple[float, float, float, float, float, float]


@dataclass(frozen=True)
class Insets:
    """Bands along the picture's edges kept clear of the framed box, as shares of its height
    (``top``, ``bottom``) or width (``right``)."""

    top: float = 0.0
    right: float = 0.0
    bottom: float = 0.0

    def aspect(self, size: tuple[int, int]) -> float:
        """The width over the height of the picture's room between the bands."""
        return size[0] * (1 - self.right) / (size[1] * (1 - self.top - self.bottom))


def moving_boxes(analysis: Analysis | Traced, configurations: Sequence[np.ndarray]) -> np.ndarray:
    """``(k, 6)``: the box ``(x0, x1, y0, y1, z0, z1)`` of each moving part at each configuration
    (none for a mechanism with nothing mobile)."""
    mechanism = analysis.mechanism
    meshes = mechanism_meshes(mechanism)
    poses_at = posing(analysis)
    moving = [part.name for part in mechanism.parts if part.motion != Motion.FIXED]
    boxes = [bounds(posed(meshes[name], poses[name]))
             for poses in (poses_at(values) for values in configurations) for name in moving]
    return np.array(boxes, float).reshape(-1, 6)


def framed_box(analysis: Analysis | Traced, configurations: Sequence[np.ndarray], *, aspect: float,
               moving: np.ndarray | None = None) -> Box:
    """``(x0, x1, y0, y1, z0, z1)`` the camera must hold at these configurations (see the module).

    ``aspect`` is the width over the height of the picture's room for it; ``moving`` the
    moving parts' boxes at the configurations, if :func:`moving_boxes` gave them already.
    """
    mechanism = analysis.mechanism
    still = posing(analysis)(configurations[0])
    moving = moving_boxes(analysis, configurations) if moving is None else moving
    if not len(moving):
        meshes = mechanism_meshes(mechanism)
        return bounds(np.vstack([posed(meshes[name], still[name]) for name in meshes]))
    x0, y0, z0 = moving[:, 0::2].min(axis=0).tolist()
    x1, y1, z1 = moving[:, 1::2].max(axis=0).tolist()
    room = ROOM * max(x1 - x0, y1 - y0)
    width, height = x1 - x0 + 2 * room, y1 - y0 + 2 * room
    width, height = max(width, height * aspect), max(height, width / aspect)
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    fixed = [(_placed(region_of(piece.profiles), still[part.name]), piece.z)
             for part in mechanism.parts if part.motion == Motion.FIXED for piece in part.slices]
    far = FAR * (width + height)
    # Fixed material in the window's columns says how far up and down to grow, in its rows how far across.
    columns = [a.intersection(shapely.box(cx - width / 2, cy - far, cx + width / 2, cy + far)) for a, _ in fixed]
    rows = [a.intersection(shapely.box(cx - far, cy - height / 2, cx + far, cy + height / 2)) for a, _ in fixed]
    x0, x1 = _grow(x0, x1, _extent(rows, 0), width)
    y0, y1 = _grow(y0, y1, _extent(columns, 1), height)
    for area, (a, b) in fixed:
        if area.intersects(shapely.box(x0, y0, x1, y1)):
            z0, z1 = min(z0, a), max(z1, b)
    return (x0, x1, y0, y1, z0, z1)


def place_camera(camera, box: Box, view: str, size: tuple[int, int], insets: Insets) -> None:
    """Look at ``box`` from the view's direction so it fills the picture between the ``insets``.

    Both views are parallel projections, as in an engineering drawing: upright edges
    stay upright and parallel, and one scale holds across the picture.
    """
    center, corners, direction, up, right = _axes(box, view)
    half_height = view_scale(box, view, size, insets)
    half_width = half_height * size[0] / size[1]
    distance = 2 * float(np.max(np.linalg.norm(corners, axis=1))) + 1.0
    # Moving the camera up (right) by a band's share of the view moves the picture down (left), out of its way.
    focal_point = center + (insets.top - insets.bottom) * half_height * up + insets.right * half_width * right
    camera.enable_parallel_projection()
    camera.parallel_scale = half_height
    camera.focal_point = tuple(focal_point)
    camera.position = tuple(focal_point + distance * direction)
    camera.up = tuple(up)
    camera.clipping_range = (distance / 100, 2 * distance)


def view_scale(box: Box, view: str, size: tuple[int, int], insets: Insets) -> float:
    """Half the height of the world the picture shows when the camera holds ``box`` between the
    ``insets`` (the camera's parallel scale): the smaller, the larger the parts are drawn."""
    _, corners, _, up, right = _axes(box, view)
    return MARGIN * max(float(np.max(np.abs(corners @ up))) / (1 - insets.top - insets.bottom),
                        float(np.max(np.abs(corners @ right))) / (size[0] / size[1] * (1 - insets.right)))


def projection(camera, size: tuple[int, int]) -> Callable[[np.ndarray], np.ndarray]:
    """A function from world points ``(n, 3)`` to where the camera draws them: ``(n, 2)``
    pixel columns and rows (from the picture's top left)."""
    width, height = size
    matrix = camera.GetCompositeProjectionTransformMatrix(width / height, -1, 1)
    project = np.array([[matrix.GetElement(i, j) for j in range(4)] for i in range(4)])

    def pixels(points: np.ndarray) -> np.ndarray:
        homogeneous = np.column_stack([points, np.ones(len(points))]) @ project.T
        ndc = homogeneous[:, :2] / homogeneous[:, 3:]
        return np.column_stack([(ndc[:, 0] + 1) / 2 * width, (1 - ndc[:, 1]) / 2 * height])

    return pixels


def drawn_boxes(project: Callable[[np.ndarray], np.ndarray], boxes: np.ndarray) -> np.ndarray:
    """``(k, 4)``: where ``project`` (:func:`projection`) draws each box ``(x0, x1, y0, y1, z0,
    z1)``, as the pixels' left, top, right and bottom that hold its eight corners."""
    picks = [(x, y, z) for x in (0, 1) for y in (2, 3) for z in (4, 5)]
    corners = project(boxes[:, picks].reshape(-1, 3)).reshape(-1, 8, 2)
    return np.column_stack([corners.min(axis=1), corners.max(axis=1)])


def check_view(view: str) -> None:
    """Raise ValueError unless ``view`` is one of :data:`VIEWS`."""
    if view not in VIEWS:
        raise ValueError(f"view must be one of {', '.join(VIEWS)}, got {view!r}")


def _axes(box: Box, view: str) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The box's centre and its corners about it; the view's direction (towards the camera),
    up and right."""
    x0, x1, y0, y1, z0, z1 = box
    center = np.array([(x0 + x1) / 2, (y0 + y1) / 2, (z0 + z1) / 2])
    corners = np.array([(x, y, z) for x in (x0, x1) for y in (y0, y1) for z in (z0, z1)]) - center
    direction = np.array(DIRECTIONS[view], float)
    direction /= np.linalg.norm(direction)
    # Up is square to x as well as to the line of sight, so lines along x stay level.
    up = np.cross(direction, [1.0, 0.0, 0.0])
    up /= np.linalg.norm(up)
    return center, corners, direction, up, np.cross(up, direction)


def _placed(area, transform: np.ndarray):
    """A shapely geometry moved by a 3x3 planar transform."""
    (a, b, x), (d, e, y) = transform[0], transform[1]
    return shapely.affinity.affine_transform(area, [a, b, d, e, x, y])


def _extent(areas: Sequence, axis: int) -> tuple[float, float] | None:
    """The span of ``areas`` along x (0) or y (1), or None if they are all empty."""
    spans = [(area.bounds[axis], area.bounds[axis + 2]) for area in areas if not area.is_empty]
    return (min(a for a, _ in spans), max(b for _, b in spans)) if spans else None


def _grow(lo: float, hi: float, towards: tuple[float, float] | None, length: float) -> tuple[float, float]:
    """``[lo, hi]`` grown towards the span ``towards``, evenly where it can, to at most ``length``.

    >>> _grow(0, 10, (-5, 40), 20)
    (-5, 15)
    """
    if towards is None:
        return lo, hi
    spare = max(length - (hi - lo), 0.0)
    below, above = max(lo - towards[0], 0.0), max(towards[1] - hi, 0.0)
    down = min(below, max(spare / 2, spare - above))
    up = min(above, spare - down)
    return lo - down, hi + up
