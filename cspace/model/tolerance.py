"""The one tolerance policy, defined here and used everywhere.

All lengths scale with the mechanism's *size*: the diagonal of the bounding box of
every part in its initial configuration. A file may override the relative factors
in its ``[tolerance]`` table.

=================  =====================  ==================================================
name               default                meaning
=================  =====================  ==================================================
``length``         1e-7 x size            two points closer than this coincide; a contact is
                                          tight; parts may overlap by at most this much
``angle``          1e-7 rad               the same for angles
``arc``            1e-4 x size            largest deviation of a linearized arc from the
                                          true arc; arcs are linearized *outward* (the
                                          polygon contains the true material) so real
                                          parts never overlap, but may stop up to this
                                          far short of touching
``quantum``        power of ten <=        grid of the exact integer geometry (pyclipper
                   length / 1000          Minkowski sums, exact region arithmetic)
``curve``          arc / 4                how far the flattened contact curves of a rotating
                                          pair may stray from the exact ones (those of the
                                          flattened profiles), in the pair's space (angles
                                          scaled by ``angle_scale``: lengths); its blocked
                                          space is grown by this
``lp``             1e-10                  HiGHS primal/dual feasibility tolerance, on
                                          velocity programs in units of the speed
``velocity``       1e-8 x speed           a translation slower than this stands still; speed
                                          is the fastest input or force as a linear speed
                                          (an angular one times the size); a rotation
                                          slower than this over the size stands still
``integration``    1e-12                  relative and absolute (in units of the size and
                                          of the speed) error allowed per step when full
                                          dynamics integrates the equations of motion
=================  =====================  ==================================================

Scale: a mechanism may be any size from ``MIN_SIZE`` (1e-12) up, drawn anywhere its
numbers resolve positions to a hundredth of the exact grid's step ``quantum``
(``RESOLUTION``): about 10^3 times its size from the origin (450 to 4500, as the
quantum is a power of ten). Geometry is computed relative to a point near the
mechanism, so nothing else depends on where it is drawn. The limit is where the
rounding of the input numbers stays far below the grid: there a contact drawn exact
(a block flush on a slope, sliding with zero clearance under a corner) rounds onto
the grid exactly, as it does at the origin. Measured: at 1e5 sizes the rounding is a
sixth of a grid step and such a block, moved there, jammed or was left held by
nothing; to the limit, 200 generated mechanisms of every family (releases on slopes
included), scaled from 1e-13 to 1e3, trace as at the origin (``tests/test_scale.py``).

Rotating pairs share the ``arc`` budget: their contact curves follow the profiles' arcs
exactly, but for short arcs (fewer than 8 facets) and the facet a straight face keeps where
it runs on tangentially into an arc, flattened outward within ``arc / 10``
(``rotation_arc``); their contact curves are flattened within ``curve`` on either
side, then the blocked space is grown by ``curve``. A pair-space angle is scaled by its
part's radius (``angle_scale``), so a step of ``d`` in the pair space moves no point of
either part more than ``sqrt(2) d``: real parts never overlap, and stop at most
``arc / 10 + 2 sqrt(2) curve`` (0.81 ``arc``, ``turning_gap``) short of touching. So
a start drawn touching lies in the blocked space grown by ``curve``: it is moved to the
nearest configuration the pair spaces hold (:mod:`cspace.tracing.start`), by at most
``support_probe``, the most linearization can stand between parts drawn touching.

``NOISE`` (1e-9, relative) is not a tolerance of the mechanism but of arithmetic: two
computed times or angles that differ by less than this fraction are the same value
(sampling grids, the angle seam, report formatting).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

DEFAULT_LENGTH = 1e-7
DEFAULT_ANGLE = 1e-7
DEFAULT_ARC = 1e-4
DEFAULT_LP = 1e-10
DEFAULT_VELOCITY = 1e-8
DEFAULT_INTEGRATION = 1e-12
NOISE = 1e-9
MIN_SIZE = 1e-12  # smallest mechanism (the diagonal of its parts), in any unit: tested down to here
RESOLUTION = 0.01  # input numbers must resolve positions to this fraction of the exact grid's step (quantum)
# The finest factor a file may ask for, per tolerance: a length finer than 1e-10 of the size
# gives an exact grid (length / 1000) no double resolves a point with; HiGHS takes no
# feasibility tolerance under 1e-10; an angle or speed finer than 1e-12 is below rounding.
FLOORS = {"length": 1e-10, "angle": 1e-12, "arc": 1e-10, "lp": 1e-10, "velocity": 1e-12, "integration": 1e-14}
TOLERANCE_KEYS = ("length", "angle", "arc", "lp", "velocity", "integration")  # the factors a mechanism may override
GRID_ROUNDING = 2.0  # grid steps a rounded vertex may stand off the line it was on (input rounding is far below one)
MAX_FACETS = 200_000  # line segments all the arcs of a mechanism may flatten into, at its arc tolerance


@dataclass(frozen=True)
class Tolerance:
    """Absolute tolerances for one mechanism.

    >>> tol = Tolerance.for_size(100.0)
    >>> round(tol.length, 12), tol.arc, tol.quantum
    (1e-05, 0.01, 1e-08)
    """

    size: float
    length: float
    angle: float
    arc: float
    quantum: float
    lp: float
    velocity: float
    integration: float = DEFAULT_INTEGRATION

    @classmethod
    def for_size(cls, size: float, *, speed: float = 1.0, length: float = DEFAULT_LENGTH,
                 angle: float = DEFAULT_ANGLE, arc: float = DEFAULT_ARC, lp: float = DEFAULT_LP,
                 velocity: float = DEFAULT_VELOCITY, integration: float = DEFAULT_INTEGRATION) -> Tolerance:
        """Tolerances for a mechanism of the given size whose fastest motion has ``speed``.

        Length factors are relative to the size, the velocity factor to the speed.
        """
        size = float(size) if size > 0 else 1.0
        absolute_length = length * size
        quantum = 10.0 ** math.floor(math.log10(absolute_length / 1000.0))
        return cls(size=size, length=absolute_length, angle=angle, arc=arc * size,
                   quantum=quantum, lp=lp, velocity=velocity * speed, integration=integration)

    @property
    def overlap(self) -> float:
        """Largest penetration the geometry oracle accepts between two real parts."""
        return self.length

    @property
    def joint(self) -> float:
        """How exactly a linkage's joints must close at each table entry (a solver target)."""
        return 1e-3 * self.length

    @property
    def assembly(self) -> float:
        """How far a hand-entered linkage output (a branch hint) may be from the solved value."""
        return 100.0 * self.length

    @property
    def rotation_arc(self) -> float:
        """Largest deviation of a flattened arc of a part in a rotating pair (a tenth of the budget)."""
        return self.arc / 10

    @property
    def curve(self) -> float:
        """How far a rotating pair's flattened contact curves may stray from the exact ones, in pair space;
        and a linkage table's linear interpolation from the real linkage (:mod:`cspace.spaces.linkage`)."""
        return self.arc / 4

    @property
    def turning_gap(self) -> float:
        """How far short of touching the parts of a pair with a turning part may stop:
        ``rotation_arc + 2 sqrt(2) curve``. Such parts must start at least this far apart."""
        return self.rotation_arc + 2 * math.sqrt(2) * self.curve

    def angle_scale(self, radius: float, parts: int = 1) -> float:
        """Length per radian of a rotation's pair-space axis: about ``radius`` (the part's
        reach from its pivot), so pair-space distances are distances the parts move; a turn
        is an even whole number of grid steps, a multiple of ``parts`` (a symmetric part's
        sectors), so the axis wraps exactly on the grid.

        >>> tol = Tolerance.for_size(100.0)
        >>> steps = 2 * math.pi * tol.angle_scale(10.0) / tol.quantum
        >>> round(steps) % 2, abs(steps - round(steps)) < 1e-6
        (0, True)
        """
        unit = 2 * parts
        steps = unit * max(1, round(2 * math.pi * radius / self.quantum / unit))
        return steps * self.quantum / (2 * math.pi)

    @property
    def steepest(self) -> float:
        """The largest speed ratio a contact transmits: a facet within ``angle`` of a
        coordinate's motion is tangent to it (:class:`cspace.tracing.layout.RowTable`), so a contact
        moves a part at most ``1 / angle`` times as fast as what pushes it. Velocity
        programs bound speeds at ten times this (in speed scales); faster is a jam.

        >>> Tolerance.for_size(1.0).steepest
        10000000.0
        """
        return 1.0 / self.angle

    @property
    def support_probe(self) -> float:
        """Distance a force-loaded part is moved to test that something holds it.

        It exceeds the largest gap outward arc linearization can leave between two
        real parts along an axis. A linearized arc's corner stands at most
        ``arc`` from the true arc radially, but along an axis up to (1 + sqrt 2)
        ``arc`` (an arc so small that one facet spans its quarter: the corner at
        (r, r) from the centre, r = (1 + sqrt 2) ``arc``, lies r above the arc's
        end); two such corners can face each other: 4.83 ``arc``.
        """
        return 5.0 * self.arc + 100.0 * self.length

    def __repr__(self) -> str:
        return (f"Tolerance(size={self.size:g}, length={self.length:g}, angle={self.angle:g}, "
                f"arc={self.arc:g}, quantum={self.quantum:g}, lp={self.lp:g}, "
                f"velocity={self.velocity:g})")
