"""Automatic camera framing: what a picture of a mechanism must hold, and where the camera goes.

The picture is about what moves. The framed box starts as the box of every moving
part at every configuration given. It may grow to a window around that box: a
quarter of the box's larger side each way, widened across its smaller side to the
picture's shape. Within the window it grows only towards fixed parts, so a long
table runs out of the picture instead of shrinking the parts that move, and a wall
that fits is shown whole. A mechanism with nothing mobile is framed whole.

    >>> from cspace import analyze, load
    >>> analysis = analyze(load("fixtures/feeder.toml"))
    >>> [round(v, 2) for v in framed_box(analysis, [analysis.initial], aspect=4 / 3)]
    [-8.62, 22.12, -3.5, 19.56, -2.0, 1.0]
"""

from __future__ import annotations

from collections.abc import Sequence

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


def framed_box(analysis: Analysis | Traced, configurations: Sequence[np.ndarray], *, aspect: float) -> Box:
    """``(x0, x1, y0, y1, z0, z1)`` the camera must hold at these configurations (see the module).

    ``aspect`` is the width over the height of the picture's room for it.
    """
    mechanism = analysis.mechanism
    meshes = mechanism_meshes(mechanism)
    poses_at = posing(analysis)
    still = poses_at(configurations[0])
    moving = [part.name for part in mechanism.parts if part.motion != Motion.FIXED]
    if not moving:
        return bounds(np.vstack([posed(meshes[name], still[name]) for name in meshes]))
    points = [posed(meshes[name], poses[name])
              for poses in (poses_at(values) for values in configurations) for name in moving]
    x0, x1, y0, y1, z0, z1 = bounds(np.vstack(points))
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


def place_camera(camera, box: Box, view: str, size: tuple[int, int], band: float) -> None:
    """Look at ``box`` from the view's direction so it fills the picture below a top band.

    ``band`` is the share of the picture's height kept free at the top (for a caption).
    Both views are parallel projections, as in an engineering drawing: upright edges
    stay upright and parallel, and one scale holds across the picture.
    """
    x0, x1, y0, y1, z0, z1 = box
    center = np.array([(x0 + x1) / 2, (y0 + y1) / 2, (z0 + z1) / 2])
    corners = np.array([(x, y, z) for x in (x0, x1) for y in (y0, y1) for z in (z0, z1)]) - center
    direction = np.array(DIRECTIONS[view], float)
    direction /= np.linalg.norm(direction)
    # Up is square to x as well as to the line of sight, so lines along x stay level.
    up = np.cross(direction, [1.0, 0.0, 0.0])
    up /= np.linalg.norm(up)
    right = np.cross(up, direction)
    aspect = size[0] / size[1]
    half_height = MARGIN * max(float(np.max(np.abs(corners @ up))) / (1 - band),
                               float(np.max(np.abs(corners @ right))) / aspect)
    distance = 2 * float(np.max(np.linalg.norm(corners, axis=1))) + 1.0
    # Raising the camera by the band's share of the view lowers the picture out of the band's way.
    focal_point = center + band * half_height * up
    camera.enable_parallel_projection()
    camera.parallel_scale = half_height
    camera.focal_point = tuple(focal_point)
    camera.position = tuple(focal_point + distance * direction)
    camera.up = tuple(up)
    camera.clipping_range = (distance / 100, 2 * distance)


def check_view(view: str) -> None:
    """Raise ValueError unless ``view`` is one of :data:`VIEWS`."""
    if view not in VIEWS:
        raise ValueError(f"view must be one of {', '.join(VIEWS)}, got {view!r}")


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
