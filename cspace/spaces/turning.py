"""The builder of pairs in which a part turns: the parts' exact shapes (their arcs arcs again),
symmetries and reach made ready for :class:`cspace.spaces.rotation.RotationBuilder`.

Costly: the spaces of several turning pairs are built at once, in worker processes
(:func:`cspace.spaces.builders.build_pairs`), each worker sending back its space's first
cell (:meth:`Rotating.part`), laid out here (:meth:`Rotating.assemble`).

>>> from cspace.io.loader import load
>>> from cspace.spaces.request import Request
>>> lever = load("fixtures/lever.toml")
>>> Rotating(lever).accepts(Request.of(lever, "bar", "block"))
True
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from ..kernels.contact_curves import Shape
from ..kernels.minkowski import outlines
from ..kernels.symmetry import Symmetry, drawn_order, order, sector, symmetry
from ..model.errors import UnsupportedPairError
from ..model.geometry import Arc, region_of
from ..model.mechanism import Coordinate, Mechanism, Part, Slice
from ..model.tolerance import GRID_ROUNDING
from . import cache
from .pairspace import PairSpace
from .request import Request
from .rotation import Cell, RotationBuilder


class Rotating:
    """Pairs with a turning part (no shift along z): (theta), (theta, x), (theta1, theta2)."""

    costly = True  # seconds a pair: several are built at once, in worker processes

    def __init__(self, mechanism: Mechanism, builders: object = None) -> None:
        self.mechanism = mechanism
        self.tolerance = mechanism.tolerance
        self._shapes: dict[tuple, Shape] = {}
        self._orders: dict[tuple[str, tuple[int, ...]], int] = {}

    def accepts(self, request: Request) -> bool:
        kinds = [c for c in map(self.mechanism.coordinate, request.coordinates)]
        return any(c.is_angle for c in kinds) and not any(c.along_z for c in kinds)

    def cache_key(self, request: Request) -> str:
        """The key of everything the space is built from: the slices, the pair's coordinates
        whole but their names and initial values, the tolerance, the origin. Refuses a pair
        of more than two dimensions first."""
        self._check_dimension(request)
        return cache.key(request.a.slices, request.b.slices, self.motion(request), self.tolerance,
                         self.mechanism.origin)

    def build(self, request: Request) -> PairSpace:
        """The pair's space (:mod:`cspace.spaces.rotation`)."""
        return self._builder(request).build()

    def part(self, request: Request) -> Cell:
        """What a worker process sends back: the first cell of the space's repeating pattern."""
        return self._builder(request).computed()

    def assemble(self, cell: Cell) -> PairSpace:
        """A worker's cell laid out into the whole space."""
        return cell.space() if isinstance(cell, Cell) else cell

    def motion(self, request: Request) -> list[Coordinate]:
        """The pair's coordinates as the builder reads them, for the cache key: every field
        (axis, pivot, limits, ...) but the names, which a space is relabelled for (its part
        is "a" or "b"), and the initial value, which no builder reads."""
        return [replace(c, name="", part="a" if c.part == request.a.name else "b", initial=0.0)
                for c in map(self.mechanism.coordinate, request.coordinates)]

    def _check_dimension(self, request: Request) -> None:
        if len(request.coordinates) > 2:
            raise UnsupportedPairError(
                f"their configuration space would have {len(request.coordinates)} dimensions "
                f"({', '.join(request.coordinates)}); a pair with a turning part may have at most two (put the parts "
                "in different z-layers if they never touch)", file=self.mechanism.source,
                where=f"parts {request.a.name!r} and {request.b.name!r}", field="coordinates")

    def _builder(self, request: Request) -> RotationBuilder:
        """The builder of the pair's space: its parts' exact shapes, symmetries and reach."""
        a, b = request.a, request.b
        slices = {part.name: [i for i, s in enumerate(part.slices) if _layers_meet(s, a if part is b else b)]
                  for part in (a, b)}
        shapes = {part.name: [self.shape(part, i) for i in slices[part.name]] for part in (a, b)}
        reach = {part.name: self.reach(part, shapes[part.name]) for part in (a, b)}
        repeats = {part.name: self.symmetry(part, slices[part.name], shapes[part.name], reach[part.name])
                   for part in (a, b)}
        exact = {name: [self.exact(name, i, s) for i, s in zip(slices[name], shapes[name])] for name in shapes}
        repeats = {name: (r[0], [self.exact(name, i, s) for i, s in zip(slices[name], r[1])])
                   for name, r in repeats.items() if r is not None}
        return RotationBuilder(self.mechanism, a, b, request.coordinates, exact[a.name], exact[b.name], reach,
                               repeats)

    def exact(self, name: str, index: int, shape: Shape) -> Shape:
        """A slice's shape (or sector) with its flattened arcs made arcs again, for exact contact curves."""
        ox, oy = self.mechanism.origin
        quantum = self.tolerance.quantum
        circles: dict[str, list] = {}
        for profile in self.mechanism.part(name).slices[index].oriented:
            for element in profile.elements:
                if isinstance(element, Arc):
                    # on the grid, as the outline is: the same shape wherever the mechanism is drawn
                    center = tuple(round((c - o) / quantum) * quantum for c, o in zip(element.center, (ox, oy)))
                    start = math.atan2(element.start[1] - element.center[1], element.start[0] - element.center[0])
                    sweep = element.sweep if element.ccw else -element.sweep
                    circles.setdefault(element.name, []).append((center, round(element.radius / quantum) * quantum,
                                                                 start, sweep))
        return shape.with_arcs(circles, GRID_ROUNDING * self.tolerance.quantum, self.tolerance.rotation_arc)

    def symmetry(self, part: Part, indices: list[int], shapes: list[Shape],
                  reach: float) -> tuple[Symmetry, list[Shape]] | None:
        """A freely turning part's rotational symmetry about its pivot (on its drawing, else
        on its real outline: :mod:`cspace.kernels.symmetry`) and its sectors, one per slice;
        None when it has none."""
        angle = next((self.mechanism.coordinate(c) for c in part.coordinates
                      if self.mechanism.coordinate(c).is_angle), None)
        if angle is None or not angle.periodic or not shapes:
            return None
        ox, oy = self.mechanism.origin
        pivot = np.array([angle.pivot[0] - ox, angle.pivot[1] - oy])
        key = (part.name, tuple(indices))
        if key not in self._orders:  # a part meets several others with the same slices
            fine = self.tolerance.length
            n = drawn_order([part.slices[i].oriented for i in indices], angle.pivot, fine)
            if n == 1:
                n = order([region_of(part.slices[i].profiles, fine, (ox, oy)) for i in indices], tuple(pivot))
            self._orders[key] = n
        n = self._orders[key]
        if n == 1:
            return None
        tables = [symmetry(shape, pivot, n) for shape in shapes]
        merged = Symmetry(n, tuple({k: v for t in tables for k, v in t.faces[j].items()} for j in range(n)))
        return merged, [sector(shape, pivot, n, reach) for shape in shapes]

    def shape(self, part: Part, index: int) -> Shape:
        """A slice's outline, arcs flattened within the rotation budget, in lengths relative
        to the mechanism's origin."""
        key = (part.name, index, part.slices[index].z)
        if key not in self._shapes:
            ox, oy = self.mechanism.origin
            arc, quantum = self.tolerance.rotation_arc, self.tolerance.quantum
            polylines = [replace(polyline, vertices=tuple((x - ox, y - oy) for x, y in polyline.vertices))
                         for polyline in (p.polyline(arc) for p in part.slices[index].oriented)]
            rings = [(np.array(ring.vertices, float) * quantum, ring.vertex_features, ring.edge_faces)
                     for ring in outlines(polylines, quantum, GRID_ROUNDING)]
            self._shapes[key] = Shape.of(rings, part.slices[index].z)
        return self._shapes[key]

    def reach(self, part: Part, shapes: list[Shape]) -> float:
        """How far the part's material reaches from its pivot (its size when it does not turn)."""
        pivot = next((self.mechanism.coordinate(c).pivot for c in part.coordinates
                      if self.mechanism.coordinate(c).is_angle), None)
        if pivot is None or not shapes:
            return self.tolerance.size
        ox, oy = self.mechanism.origin
        centre = np.array([pivot[0] - ox, pivot[1] - oy])
        return max(float(np.max(np.hypot(*(s.vertices - centre).T))) for s in shapes)

    def __repr__(self) -> str:
        return f"Rotating({self.mechanism.name!r})"


def _layers_meet(slice_: Slice, other: Part) -> bool:
    """Does the slice overlap one of the other part's slices in z?"""
    return any(slice_.z[0] < s.z[1] and s.z[0] < slice_.z[1] for s in other.slices)
