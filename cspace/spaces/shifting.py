"""The builder of pairs one of whose parts shifts along z (a gear sliding on its shaft): the
planar pair space of each band of the shift, built by the other builders, laid out along the
shift (:func:`cspace.spaces.layers.shifted_pair_space`).

>>> from cspace.io.loader import load
>>> from cspace.spaces.builders import Builders
>>> from cspace.spaces.request import Request
>>> gearbox = load("fixtures/transmission.toml")
>>> request = Request.of(gearbox, "input", "cluster")
>>> [len(r.coordinates) for r in Builders(gearbox).builder(request).needs(request)]
[2, 2]
"""

from __future__ import annotations

from ..model.checks import overlap_depth, posed
from ..model.errors import UnsupportedPairError
from ..model.mechanism import Mechanism, Part
from ..model.poses import shift_of
from .layers import band_parts, meeting, shifted_pair_space
from .pairspace import PairSpace
from .request import Request, Spaces


class Shifting:
    """Pairs with a shift along z: composed of the planar spaces of their bands, which the
    other builders make (and cache, and share): it keeps nothing on disk of its own."""

    costly = False  # its bands are what cost, and they are built by the builders that make them

    def __init__(self, mechanism: Mechanism, builders: Spaces) -> None:
        self.mechanism = mechanism
        self.builders = builders
        self._bands: dict[tuple[str, str], list] = {}

    def accepts(self, request: Request) -> bool:
        return any(self.mechanism.coordinate(c).along_z for c in request.coordinates)

    def cache_key(self, request: Request) -> None:
        """None: a shifting pair is not kept whole (its bands' spaces are)."""
        return None

    def needs(self, request: Request) -> list[Request]:
        """The planar pairs its bands are made of, where slices meet and something moves in the plane."""
        if self._both_shift(request):
            return []  # refused by build
        planar = [c for c in request.coordinates if not self.mechanism.coordinate(c).along_z]
        return [Request.of(self.mechanism, pa, pb) for *_, met, pa, pb in self.bands(request.a, request.b)
                if met and planar]

    def build(self, request: Request) -> PairSpace:
        """The pair's space, band by band."""
        a, b = request.a, request.b
        if self._both_shift(request):
            raise UnsupportedPairError("both parts shift along z; at most one part of a pair may shift",
                                       file=self.mechanism.source, where=f"parts {a.name!r} and {b.name!r}",
                                       field="coordinates")
        planar = [c for c in request.coordinates if not self.mechanism.coordinate(c).along_z]
        bands = []
        for lo, hi, met, pa, pb in self.bands(a, b):
            if not met:
                bands.append((lo, hi, met, None, True))
            elif planar:
                bands.append((lo, hi, met, self.builders.space(Request.of(self.mechanism, pa, pb)), True))
            else:
                bands.append((lo, hi, met, None, self._clear(pa, pb)))
        return shifted_pair_space(self.mechanism, a, b, request.coordinates, bands)

    def bands(self, a: Part, b: Part) -> list:
        """The pair's bands and the parts as they meet in each (:func:`band_parts`), made once."""
        if (a.name, b.name) not in self._bands:
            self._bands[(a.name, b.name)] = band_parts(self.mechanism, a, b)
        return self._bands[(a.name, b.name)]

    def _both_shift(self, request: Request) -> bool:
        return all(shift_of(self.mechanism, part) is not None for part in (request.a, request.b))

    def _clear(self, a: Part, b: Part) -> bool:
        """Do the slices of two parts with no planar coordinate that meet in z clear each other?"""
        tolerance = self.mechanism.tolerance
        return all(overlap_depth(posed(self.mechanism, a, i, {}), posed(self.mechanism, b, j, {}),
                                 tolerance.quantum) <= tolerance.overlap for i, j in meeting(a, b, 0.0))

    def __repr__(self) -> str:
        return f"Shifting({self.mechanism.name!r})"
