"""Part meshes as plain arrays: vertices, cap triangles and side quadrangles per part.

A slice is its profiles extruded from ``z0`` to ``z1``: a bottom and a top cap (the
slice's area cut into triangles, holes left open and islands in them capped: nesting
alternates) and one quadrangle per linearized profile edge for the sides. Arcs are linearized outward within the mechanism's arc
tolerance, exactly as the tracer sees them, so parts drawn in contact touch. Meshes
are in the part's local frame, built once, and placed per snapshot by the part's
transform (:func:`posed`). No renderer is needed here.

    >>> from cspace import load
    >>> part_mesh(load("fixtures/feeder.toml").part("piston"), 1e-3)
    PartMesh('piston', vertices=8, triangles=4, quads=4)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import shapely
from shapely.geometry import Polygon

from cspace.model.geometry import Point, nesting_depths
from cspace.model.mechanism import Mechanism, Part, Slice


@dataclass(frozen=True, eq=False)
class PartMesh:
    """One part's mesh in its local frame.

    ``vertices`` is (n, 3); ``triangles`` (m, 3) and ``quads`` (k, 4) index it, each
    face counterclockwise seen from outside the material.
    """

    part: str
    vertices: np.ndarray
    triangles: np.ndarray
    quads: np.ndarray

    def __repr__(self) -> str:
        return (f"PartMesh({self.part!r}, vertices={len(self.vertices)}, triangles={len(self.triangles)}, "
                f"quads={len(self.quads)})")


def mechanism_meshes(mechanism: Mechanism) -> dict[str, PartMesh]:
    """Every part's mesh by part name, in mechanism order, at the mechanism's arc tolerance.

    >>> from cspace import load
    >>> list(mechanism_meshes(load("fixtures/feeder.toml")))[:3]
    ['frame', 'driver', 'link']
    """
    return {part.name: part_mesh(part, mechanism.tolerance.arc) for part in mechanism.parts}


def part_mesh(part: Part, tolerance: float) -> PartMesh:
    """The mesh of every slice of ``part``, arcs linearized within ``tolerance``."""
    vertices: list[np.ndarray] = []
    triangles: list[np.ndarray] = []
    quads: list[np.ndarray] = []
    offset = 0
    for slice_ in part.slices:
        v, t, q = _slice_mesh(slice_, tolerance)
        vertices.append(v)
        triangles.append(t + offset)
        quads.append(q + offset)
        offset += len(v)
    return PartMesh(part.name, np.vstack(vertices), np.vstack(triangles).astype(np.int64),
                    np.vstack(quads).astype(np.int64))


def posed(mesh: PartMesh, transform: np.ndarray) -> np.ndarray:
    """The mesh's vertices placed in the world by a 3x3 planar transform (z unchanged).

    >>> from cspace.model.poses import rigid
    >>> square = PartMesh("s", np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 2.0]]), np.empty((0, 3)), np.empty((0, 4)))
    >>> posed(square, rigid(0.0, 10.0, 0.0)).tolist()
    [[11.0, 0.0, 0.0], [10.0, 1.0, 2.0]]
    """
    placed = mesh.vertices.copy()
    placed[:, :2] = mesh.vertices[:, :2] @ transform[:2, :2].T + transform[:2, 2]
    return placed


def bounds(points: np.ndarray) -> tuple[float, float, float, float, float, float]:
    """Axis-aligned bounds of (n, 3) points as ``(x0, x1, y0, y1, z0, z1)``, pyvista's order."""
    lo, hi = points.min(axis=0), points.max(axis=0)
    return (float(lo[0]), float(hi[0]), float(lo[1]), float(hi[1]), float(lo[2]), float(hi[2]))


def _slice_mesh(slice_: Slice, tolerance: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    loops = [list(p.polyline(tolerance).vertices) for p in slice_.oriented]
    points = [pt for loop in loops for pt in loop]
    index = {pt: i for i, pt in reversed(list(enumerate(points)))}
    n = len(points)
    z0, z1 = slice_.z
    flat = np.asarray(points, float)
    vertices = np.vstack([np.column_stack([flat, np.full(n, z0)]), np.column_stack([flat, np.full(n, z1)])])
    caps = [triangle for polygon in _polygons(loops) for triangle in _triangulate(polygon, index)]
    top = np.array(caps, np.int64).reshape(-1, 3) + n
    bottom = np.array(caps, np.int64).reshape(-1, 3)[:, ::-1]
    sides = []
    start = 0
    for loop in loops:
        for k in range(len(loop)):
            a, b = start + k, start + (k + 1) % len(loop)
            sides.append((a, b, b + n, a + n))
        start += len(loop)
    return vertices, np.vstack([bottom, top]), np.array(sides, np.int64).reshape(-1, 4)


def _polygons(loops: Sequence[list[Point]]) -> list[Polygon]:
    """One polygon per loop of material (even nesting depth: an outline, an island in a
    hole, ...), with the holes that lie directly inside it (one deeper): nesting
    alternates, as the tracer and the SVG's even-odd fill have it."""
    rings = [Polygon(loop) for loop in loops]
    depths = nesting_depths(rings)
    holes: dict[int, list[list[Point]]] = {i: [] for i, depth in enumerate(depths) if depth % 2 == 0}
    for i, loop in enumerate(loops):
        if depths[i] % 2 == 0:
            continue
        probe = rings[i].representative_point()
        parent = next(k for k in holes if depths[k] == depths[i] - 1 and rings[k].contains(probe))
        holes[parent].append(loop)
    return [Polygon(loops[i], holes[i]) for i in holes]


def _triangulate(polygon: Polygon, index: dict[Point, int]) -> list[tuple[int, int, int]]:
    """Counterclockwise triangles of a polygon with holes, as indices of its own vertices."""
    triangles = []
    for triangle in shapely.get_parts(shapely.constrained_delaunay_triangles(polygon)):
        a, b, c = (index[pt] for pt in triangle.exterior.coords[:3])
        (ax, ay), (bx, by), (cx, cy) = triangle.exterior.coords[:3]
        ccw = (bx - ax) * (cy - ay) - (by - ay) * (cx - ax) > 0
        triangles.append((a, b, c) if ccw else (a, c, b))
    return triangles


def mesh_counts(mechanism: Mechanism) -> tuple[int, int]:
    """Triangles (top and bottom faces) and quadrangles (sides) of the part meshes, counted
    from the outlines as :func:`part_mesh` makes them (the paper's Table 2 counts them).

    >>> from cspace import load
    >>> mesh_counts(load("fixtures/feeder.toml"))
    (296, 166)
    """
    arc = mechanism.tolerance.arc
    triangles = quads = 0
    for part in mechanism.parts:
        for slice_ in part.slices:
            holes = sum(1 for p in slice_.oriented if p.signed_area() < 0)
            vertices = sum(len(p.polyline(arc).vertices) for p in slice_.oriented)
            outers = len(slice_.oriented) - holes
            triangles += 2 * (vertices + 2 * holes - 2 * outers)
            quads += vertices
    return triangles, quads


def with_mesh_counts(statistics: dict, mechanism: Mechanism) -> dict:
    """The statistics of a trace (:func:`cspace.report.describe.statistics`) with the mesh's
    triangles and quadrangles after the segments, where the paper's Table 2 has them."""
    triangles, quads = mesh_counts(mechanism)
    out = {}
    for name, value in statistics.items():
        out[name] = value
        if name == "segments":
            out.update({"triangles": triangles, "quadrangles": quads})
    return out
