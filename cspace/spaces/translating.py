"""The builder of translating pairs' spaces: open Minkowski sums of the parts' convex pieces,
cut into regions (:mod:`cspace.kernels.minkowski`, :func:`cspace.spaces.pairspace.translation_pair_space`).

>>> from cspace.io.loader import load
>>> from cspace.spaces.request import Request
>>> feeder = load("fixtures/feeder.toml")
>>> Translating(feeder).build(Request.of(feeder, "piston", "block1")).name
'piston/block1'
"""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

from ..kernels.minkowski import ConvexPiece, SumPolygon, convex_pieces, minkowski_difference, snapped
from ..model.mechanism import Mechanism, Part
from ..model.tolerance import GRID_ROUNDING
from . import cache
from .pairspace import PairSpace, translation_pair_space
from .request import Request


class Translating:
    """Pairs whose parts only translate in the plane: each pair's space one computation,
    the pieces of each part's slice made once."""

    costly = False  # built here, in order: a translating pair takes milliseconds

    def __init__(self, mechanism: Mechanism, builders: object = None) -> None:
        self.mechanism = mechanism
        self.tolerance = mechanism.tolerance
        self._pieces: dict[tuple[str, int], list[ConvexPiece]] = {}

    def accepts(self, request: Request) -> bool:
        return not any(c.is_angle or c.along_z for c in map(self.mechanism.coordinate, request.coordinates))

    def cache_key(self, request: Request) -> str:
        """The key of everything the space is built from: the parts' slices, how the pair's
        coordinates move B relative to A (exactly), the tolerance, the origin."""
        return cache.key(request.a.slices, request.b.slices, self.columns(request), self.tolerance,
                         self.mechanism.origin)

    def build(self, request: Request) -> PairSpace:
        """The pair space of two translating parts: open Minkowski sums of their pieces, cut."""
        a, b = request.a, request.b
        slack = self.tolerance.length / self.tolerance.quantum  # faces this close to parallel touch face to face
        polygons: list[SumPolygon] = []
        for i, sa in enumerate(a.slices):
            for j, sb in enumerate(b.slices):
                if sa.z[0] < sb.z[1] and sb.z[0] < sa.z[1]:
                    for pa in self.pieces(a, i):
                        for pb in self.pieces(b, j):
                            polygons.append(minkowski_difference(pa, pb, slack))
        return translation_pair_space(a.name, b.name, request.coordinates, self.columns(request),
                                      snapped(polygons, slack / 10), self.tolerance.quantum, slack / 10)

    def columns(self, request: Request) -> list[tuple[Fraction, Fraction]]:
        """How each coordinate moves B relative to A, exactly."""
        out = []
        for coordinate in map(self.mechanism.coordinate, request.coordinates):
            sign = -1 if coordinate.part == request.a.name else 1
            out.append((sign * Fraction(coordinate.axis[0]), sign * Fraction(coordinate.axis[1])))
        return out

    def pieces(self, part: Part, index: int) -> list[ConvexPiece]:
        """A slice's convex pieces on the exact grid, relative to the mechanism's origin (A - B is
        unchanged by a shift of both, and parts drawn far out keep their precision)."""
        key = (part.name, index)
        if key not in self._pieces:
            ox, oy = self.mechanism.origin
            polylines = [replace(polyline, vertices=tuple((x - ox, y - oy) for x, y in polyline.vertices))
                         for polyline in (p.polyline(self.tolerance.arc) for p in part.slices[index].oriented)]
            self._pieces[key] = convex_pieces(polylines, self.tolerance.quantum, GRID_ROUNDING)
        return self._pieces[key]

    def __repr__(self) -> str:
        return f"Translating({self.mechanism.name!r})"
