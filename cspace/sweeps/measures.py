"""Measures of a traced variant on the real geometry: the least clearance between two parts.

The parts are placed with shapely at every sampled configuration of the path
(:class:`cspace.testing.Scene`: their own posing from the model's axes and pivots, arcs
sampled finely), independently of the configuration-space code; the clearance is the
least distance between slices of the two parts that share a z-interval (0 where they touch).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..model.errors import CspaceError
from ..model.kinds import Motion
from ..model.mechanism import Mechanism
from ..tracing.trace import Trace


class MeasureError(CspaceError, ValueError):
    """A measure that names a part the mechanism does not have, a linkage member, or two parts
    that never share a layer."""


@dataclass(frozen=True)
class Clearance:
    """The least clearance between parts ``a`` and ``b`` along the path (``--measure a/b``).

    >>> Clearance.parse("crank/wheel")
    Clearance('crank', 'wheel')
    """

    a: str
    b: str

    def __repr__(self) -> str:
        return f"Clearance({self.a!r}, {self.b!r})"

    @classmethod
    def parse(cls, text: str) -> Clearance:
        a, slash, b = text.partition("/")
        if not slash or not a.strip() or not b.strip() or "/" in b:
            raise MeasureError(f"--measure {text}: expected PART_A/PART_B, e.g. crank/wheel")
        return cls(a.strip(), b.strip())

    @property
    def column(self) -> str:
        return f"clearance:{self.a}/{self.b}"

    def check(self, mechanism: Mechanism) -> None:
        names = [p.name for p in mechanism.parts]
        for name in (self.a, self.b):
            if name not in names:
                raise MeasureError(f"--measure {self.a}/{self.b}: no part named {name!r}; the parts are "
                                   f"{', '.join(names)}")
            if mechanism.part(name).motion == Motion.LINKAGE:
                raise MeasureError(f"--measure {self.a}/{self.b}: {name!r} is a linkage member; the clearance "
                                   "of parts with coordinates is measured")

    def of(self, trace: Trace) -> float:
        """The least distance between the two parts' touching slices over the sampled path."""
        from ..testing import Scene

        mechanism = trace.mechanism
        self.check(mechanism)
        scene = Scene(mechanism)
        names = [c.name for c in mechanism.coordinates]
        least = float("inf")
        for _, _, q in trace.samples():
            values = dict(zip(names, map(float, q)))
            placed = scene.place(values, {self.a, self.b})
            for ka, shape_a in placed.items():
                for kb, shape_b in placed.items():
                    if ka[0] == self.a and kb[0] == self.b and scene.touching(ka, kb, values):
                        least = min(least, float(shape_a.distance(shape_b)))
        if least == float("inf"):
            raise MeasureError(f"--measure {self.a}/{self.b}: the parts never share a layer (z)")
        return least
