"""Oracles for tests: the real part geometry, independent of the configuration-space code.

:func:`replay` places every part with shapely at each sampled configuration of a
trace (its own posing, from the model's axes and pivots, with arcs sampled far more
finely than the tracer's linearization) and reports any two parts overlapping deeper
than the tolerance, and any force-loaded part at rest that nothing supports.
:func:`assert_traces_equal` compares two traces' reports byte for byte.
"""

from __future__ import annotations

from dataclasses import dataclass

from shapely import affinity
from shapely.geometry.base import BaseGeometry

from .checks import overlap_depth
from .geometry import region_of
from .model import LINKAGE, Mechanism
from .trace import Trace

FINE = 1e-3  # oracle arc sampling, as a fraction of the arc tolerance


@dataclass(frozen=True)
class Violation:
    """One failure of the geometry oracle at a sample."""

    kind: str
    time: float
    segment: int
    parts: tuple[str, ...]
    amount: float

    def __str__(self) -> str:
        return (f"{self.kind} of {' and '.join(self.parts)} by {self.amount:.3g} "
                f"at t = {self.time:.6g} (segment {self.segment})")


def pose_shapes(mechanism: Mechanism, values: dict[str, float]) -> dict[tuple[str, int], BaseGeometry]:
    """Every non-linkage part slice placed at the coordinate values, by (part, slice index)."""
    fine = mechanism.tolerance.arc * FINE
    shapes = {}
    for part in mechanism.parts:
        if part.motion == LINKAGE:
            continue
        for k, slice_ in enumerate(part.slices):
            shape = region_of(slice_.profiles, fine)
            dx = dy = 0.0
            for name in part.coordinates:
                coordinate = mechanism.coordinate(name)
                if coordinate.is_angle:
                    shape = affinity.rotate(shape, values[name], origin=coordinate.pivot, use_radians=True)
                else:
                    dx += values[name] * coordinate.axis[0]
                    dy += values[name] * coordinate.axis[1]
            shapes[(part.name, k)] = affinity.translate(shape, dx, dy)
    return shapes


def overlaps(mechanism: Mechanism, values: dict[str, float], tolerance: float) -> list[tuple[str, str, float]]:
    """Pairs of parts overlapping deeper than ``tolerance`` (z-intervals taken into account)."""
    shapes = pose_shapes(mechanism, values)
    keys = sorted(shapes)
    found = []
    for i, ka in enumerate(keys):
        for kb in keys[i + 1:]:
            if ka[0] == kb[0]:
                continue
            za = mechanism.part(ka[0]).slices[ka[1]].z
            zb = mechanism.part(kb[0]).slices[kb[1]].z
            if not (za[0] < zb[1] and zb[0] < za[1]):
                continue
            depth = overlap_depth(shapes[ka], shapes[kb])
            if depth > tolerance:
                found.append((ka[0], kb[0], depth))
    return found


def supported(mechanism: Mechanism, values: dict[str, float], coordinate: str, direction: int,
              probe: float) -> bool:
    """Would nudging the coordinate's part by ``probe`` along its force push it into another part?

    Any buried area beyond float noise counts: a support may be a sliver far thinner
    than the probe (a block the instant before its support slides away).
    """
    noise = probe * mechanism.tolerance.length
    nudged = dict(values)
    spec = mechanism.coordinate(coordinate)
    nudged[coordinate] += direction * (probe if not spec.is_angle else probe / max(mechanism.size, 1e-9))
    shapes = pose_shapes(mechanism, nudged)
    owner = spec.part
    for key, shape in shapes.items():
        if key[0] != owner:
            continue
        z = mechanism.part(owner).slices[key[1]].z
        for other, other_shape in shapes.items():
            if other[0] == owner:
                continue
            zo = mechanism.part(other[0]).slices[other[1]].z
            if z[0] < zo[1] and zo[0] < z[1] and shape.intersection(other_shape).area > noise:
                return True
    return False


def replay(trace: Trace) -> list[Violation]:
    """Check every sample of a trace against the real geometry."""
    mechanism = trace.mechanism
    tolerance = mechanism.tolerance
    names = [c.name for c in mechanism.coordinates]
    forces = {f.coordinate: f for f in mechanism.forces}
    violations = []
    samples = trace.samples()
    for k, (time, segment, q) in enumerate(samples):
        values = dict(zip(names, map(float, q)))
        for a, b, depth in overlaps(mechanism, values, tolerance.overlap):
            violations.append(Violation("overlap", time, segment, (a, b), depth))
        signs = trace.segments[segment - 1].first.signs
        last = k + 1 == len(samples) or samples[k + 1][1] != segment
        after = trace.segments[segment].first.signs if last and segment < len(trace.segments) else signs
        for name, force in forces.items():
            j = mechanism.coordinate_index[name]
            # At rest: still in this segment, and not at the instant it starts to move.
            at_rest = signs[j] == 0 and after[j] == 0
            if at_rest and not supported(mechanism, values, name, force.direction, tolerance.support_probe):
                violations.append(Violation("unsupported", time, segment, (mechanism.coordinate(name).part,),
                                            tolerance.support_probe))
    return violations


def assert_traces_equal(first: Trace, second: Trace) -> None:
    """Raise AssertionError unless two traces give byte-identical reports."""
    from .describe import describe, path_csv, region_table, to_json

    for report in (describe, to_json, path_csv, region_table):
        a, b = report(first), report(second)
        if a != b:
            line = next(i for i, (x, y) in enumerate(zip(a.splitlines(), b.splitlines())) if x != y)
            raise AssertionError(f"{report.__name__} differs at line {line + 1}")
