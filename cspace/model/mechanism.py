"""The mechanism model: parts, coordinates, linkages, forces and input motions.

These are plain immutable values. :func:`cspace.io.loader.load` builds them from a TOML
file; they can equally be built in Python and passed to :func:`cspace.analyze`.

Conventions
-----------
* A part's profiles are drawn in its *local frame*: where the part is when all its
  coordinates are zero. A translation coordinate ``q`` along unit axis ``a`` moves it
  by ``q * a``; a rotation coordinate turns it by ``q`` radians counterclockwise about
  its pivot (a point of the local frame, carried along by the part's translations).
* Angles are radians and are reported in (-pi, pi].
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cached_property

from .dynamics import Dynamics, Mass
from .errors import ModelError
from .geometry import Point, Profile, orient
from .kinds import CoordinateKind, DynamicsKind, ForceKind, JointKind, Motion
from .tolerance import Tolerance


def unit(vector: Point) -> Point:
    """The unit vector along ``vector``, as a translation's or a slider's axis must be: divided by its
    larger component first, so a vector of tiny (even subnormal) or huge components is normalized
    exactly, not squared away. A zero or non-finite vector is returned as it is, for validation to refuse.

    >>> unit((0.0, 1e-320)), unit((3, 4))
    ((0.0, 1.0), (0.6, 0.8))
    """
    largest = max(abs(vector[0]), abs(vector[1]))
    if largest == 0 or not math.isfinite(largest):
        return vector
    x, y = vector[0] / largest, vector[1] / largest
    norm = math.hypot(x, y)
    return (x / norm, y / norm)


def _kind(cls: type, value):
    """``value`` as the kind ``cls`` names, if it names one: a string from a file or a call
    becomes the enumeration's member; anything else is left for validation to refuse."""
    try:
        return cls(value)
    except ValueError:
        return value


@dataclass(frozen=True)
class Slice:
    """A z-interval times closed profiles (outer boundaries, holes, islands in holes: nesting
    alternates, :func:`cspace.model.geometry.nesting_depths`).

    Profiles may be drawn either way round; ``oriented`` has them with the material on
    the left (outlines and islands counterclockwise, holes clockwise), as geometry needs them.

    >>> Slice((0, 1), (Profile.rectangle(0, 0, 4, 2).reversed(),)).oriented[0].signed_area()
    8.0
    """

    z: tuple[float, float]
    profiles: tuple[Profile, ...]

    @cached_property
    def oriented(self) -> tuple[Profile, ...]:
        return orient(self.profiles)

    def __repr__(self) -> str:
        return f"Slice(z={self.z!r}, profiles=<{len(self.profiles)}>)"


@dataclass(frozen=True)
class Coordinate:
    """A mobile degree of freedom of a part.

    ``axis`` is set for a translation (a unit vector in the plane: :func:`unit`), ``pivot`` for a
    rotation. A *shift* (``along_z``) translates its part along z, as a gear slides on
    its shaft: it moves nothing in the plane (``axis`` is (0, 0), given or not) and carries the
    part's slices up the z axis by its value, so which slices meet depends on it.

    >>> Coordinate("xp", "piston", axis=(1.0, 0.0), initial=10.0).kind
    <CoordinateKind.TRANSLATION: 'translation'>
    >>> Coordinate("s", "cluster", along_z=True, limits=(0.0, 2.0)).kind == "shift"
    True
    """

    name: str
    part: str
    axis: Point | None = None
    pivot: Point | None = None
    initial: float = 0.0
    limits: tuple[float, float] | None = None
    along_z: bool = False
    velocity: float = 0.0  # the initial rate, for full dynamics

    def __post_init__(self) -> None:
        if self.along_z and self.axis is None:
            object.__setattr__(self, "axis", (0.0, 0.0))

    @property
    def kind(self) -> CoordinateKind:
        if self.pivot is not None:
            return CoordinateKind.ROTATION
        return CoordinateKind.SHIFT if self.along_z else CoordinateKind.TRANSLATION

    @property
    def is_angle(self) -> bool:
        return self.pivot is not None

    @property
    def periodic(self) -> bool:
        """A rotation without limits turns freely; its values wrap around."""
        return self.is_angle and self.limits is None

    def __repr__(self) -> str:
        where = "along z" if self.along_z else f"axis={self.axis!r}" if self.axis is not None else \
            f"pivot={self.pivot!r}"
        lim = f", limits={self.limits!r}" if self.limits else ""
        rate = f", velocity={self.velocity!r}" if self.velocity else ""
        return f"Coordinate({self.name!r}, part={self.part!r}, {where}, initial={self.initial!r}{lim}{rate})"


@dataclass(frozen=True)
class Part:
    """A rigid 2.5D part and how it may move. ``sticky`` names its sticky faces (the
    paper's friction: touching sticky faces move in tandem); the others are smooth.

    >>> Part("block1", "fixed-axes", (Slice((0, 1), (Profile.rectangle(0, 0, 4, 2),)),), ("xb1", "yb1"))
    Part('block1', motion='fixed-axes', slices=1, coordinates=('xb1', 'yb1'))
    """

    name: str
    motion: Motion
    slices: tuple[Slice, ...]
    coordinates: tuple[str, ...] = ()
    sticky: frozenset[str] = frozenset()
    mass: Mass | None = None  # for full dynamics

    def __post_init__(self) -> None:
        object.__setattr__(self, "motion", _kind(Motion, self.motion))

    @property
    def z_range(self) -> tuple[float, float]:
        return (min(s.z[0] for s in self.slices), max(s.z[1] for s in self.slices))

    def __repr__(self) -> str:
        sticky = f", sticky={sorted(self.sticky)!r}" if self.sticky else ""
        return (f"Part({self.name!r}, motion={str(self.motion)!r}, slices={len(self.slices)}, "
                f"coordinates={self.coordinates!r}{sticky})")


@dataclass(frozen=True)
class Joint:
    """A permanent connection between two parts of a linkage.

    ``pin``: ``points[0]`` of part ``parts[0]`` coincides with ``points[1]`` of ``parts[1]``.
    ``slider``: ``points[1]`` of ``parts[1]`` stays on the line through ``points[0]`` of
    ``parts[0]`` along ``axis`` (in ``parts[0]``'s frame), and the two parts keep their
    relative angle.

    >>> Joint("pin", ("driver", "link"), ((3, 0), (0, 0)))
    Joint('pin', ('driver', 'link'), ((3, 0), (0, 0)))
    """

    kind: JointKind
    parts: tuple[str, str]
    points: tuple[Point, Point]
    axis: Point | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "kind", _kind(JointKind, self.kind))

    def __repr__(self) -> str:
        extra = f", axis={self.axis!r}" if self.axis is not None else ""
        return f"Joint({str(self.kind)!r}, {self.parts!r}, {self.points!r}{extra})"


@dataclass(frozen=True)
class Linkage:
    """A one-degree-of-freedom linkage: ``output = f(input)``, tabulated.

    >>> Linkage("crank", "cd", "xp", ("link",), ()).table_size
    301
    """

    name: str
    input: str
    output: str
    members: tuple[str, ...]
    joints: tuple[Joint, ...]
    table_size: int = 301

    def __post_init__(self) -> None:
        if isinstance(self.table_size, float) and self.table_size.is_integer():  # a file's 301.0 is 301 entries
            object.__setattr__(self, "table_size", int(self.table_size))

    def __repr__(self) -> str:
        return (f"Linkage({self.name!r}, input={self.input!r}, output={self.output!r}, "
                f"members={self.members!r}, joints={len(self.joints)})")


@dataclass(frozen=True)
class Force:
    """A simple-dynamics force: it moves ``coordinate`` in ``direction`` (+1 or -1).

    It acts infinitely faster than the inputs; ``speed`` and ``sampling`` only set how
    its motion is parametrized and sampled for the path and the animation.

    >>> Force("gravity", "yb1", -1)
    Force('gravity', 'yb1', direction=-1, speed=1.0, sampling=0.25)
    """

    kind: ForceKind
    coordinate: str
    direction: int
    speed: float = 1.0
    sampling: float = 0.25

    def __post_init__(self) -> None:
        object.__setattr__(self, "kind", _kind(ForceKind, self.kind))
        if self.direction in (1, -1):  # a file's 1.0 is the direction 1; any other is left for validation
            object.__setattr__(self, "direction", int(self.direction))

    def __repr__(self) -> str:
        return (f"Force({str(self.kind)!r}, {self.coordinate!r}, direction={self.direction}, "
                f"speed={self.speed!r}, sampling={self.sampling!r})")


@dataclass(frozen=True)
class InputMotion:
    """Input coordinates moving at constant velocities, together, sampled every ``sampling``,
    until the mechanism blocks them or, with a ``duration``, for that long at most.

    >>> InputMotion((("cd", 1.0),), 0.25)
    InputMotion((('cd', 1.0),), sampling=0.25)
    >>> InputMotion((("key", 1.0),), 0.1, duration=3.0)
    InputMotion((('key', 1.0),), sampling=0.1, duration=3.0)
    """

    velocities: tuple[tuple[str, float], ...]
    sampling: float
    name: str = ""
    duration: float | None = None

    @property
    def coordinates(self) -> tuple[str, ...]:
        return tuple(c for c, _ in self.velocities)

    def __repr__(self) -> str:
        name = f", name={self.name!r}" if self.name else ""
        duration = f", duration={self.duration!r}" if self.duration is not None else ""
        return f"InputMotion({self.velocities!r}, sampling={self.sampling!r}{name}{duration})"


@dataclass(frozen=True)
class Mechanism:
    """A whole mechanism: what :func:`cspace.load` returns and :func:`cspace.analyze` takes.

    ``tolerance_factors`` holds the file's overrides of :mod:`cspace.model.tolerance` defaults.
    """

    name: str
    parts: tuple[Part, ...]
    coordinates: tuple[Coordinate, ...]
    linkages: tuple[Linkage, ...] = ()
    forces: tuple[Force, ...] = ()
    inputs: tuple[InputMotion, ...] = ()
    time: float = 0.0
    source: str = "<memory>"
    tolerance_factors: tuple[tuple[str, float], ...] = field(default=())
    dynamics: Dynamics | None = None  # full dynamics when set; the paper's simple dynamics when None

    @property
    def dynamics_kind(self) -> DynamicsKind:
        return DynamicsKind.SIMPLE if self.dynamics is None else DynamicsKind.FULL

    @cached_property
    def part_index(self) -> dict[str, int]:
        return {p.name: i for i, p in enumerate(self.parts)}

    @cached_property
    def coordinate_index(self) -> dict[str, int]:
        return {c.name: i for i, c in enumerate(self.coordinates)}

    def validate(self) -> None:
        """Raise :class:`~cspace.model.errors.ModelError`, naming the source, the element and the field, at
        the first value out of bounds or at odds with the rest (:mod:`cspace.model.validation`): the checks
        a file passes when it is read, for a mechanism built in Python too. A mechanism found valid is
        remembered as such: :func:`cspace.analyze` of a loaded one does not check it again.

        >>> block = Part("block", "fixed-axes", (Slice((0, 1), (Profile.rectangle(0, 0, 1, 1),)),), ("y",))
        >>> Mechanism("m", (block,), (Coordinate("y", "block", axis=(0.0, 1.0)),),
        ...           forces=(Force("gravity", "nope", -1),)).validate()
        Traceback (most recent call last):
        ...
        cspace.model.errors.ModelError: <memory>: forces[0]: coordinate: unknown coordinate 'nope'
        """
        if "_validated" in self.__dict__:
            return
        from .validation import validate  # it names this module's types

        try:
            validate(self)
        except ModelError as error:
            raise error.located(file=self.source) from None
        object.__setattr__(self, "_validated", True)  # not a field: equality, hashing and replace() ignore it

    def part(self, name: str) -> Part:
        return self.parts[self.part_index[name]]

    def coordinate(self, name: str) -> Coordinate:
        return self.coordinates[self.coordinate_index[name]]

    @cached_property
    def size(self) -> float:
        """Diagonal of the bounding box of all parts in the initial configuration."""
        from .poses import initial_bounds

        x0, y0, x1, y1 = initial_bounds(self)
        return math.hypot(x1 - x0, y1 - y0)

    @cached_property
    def origin(self) -> Point:
        """Where geometry is computed from: a point near the mechanism on a power-of-two grid
        at least as coarse as its size, so (0, 0) unless the mechanism lies farther than its
        size from the origin. Coordinates relative to it keep their precision however far
        the mechanism is drawn (an area or a Minkowski sum of parts drawn at 1e9 would
        otherwise cancel), and shifting by it is exact near the mechanism.
        """
        from .poses import initial_bounds

        x0, y0, x1, y1 = initial_bounds(self)
        grid = 2.0 ** math.ceil(math.log2(self.size))
        return (float(round((x0 + x1) / 2 / grid)) * grid + 0.0, float(round((y0 + y1) / 2 / grid)) * grid + 0.0)

    @cached_property
    def speed(self) -> float:
        """The fastest input velocity or force speed, as a linear speed (an angular one times
        the size: how fast the mechanism's points move); the size per second when there is none."""
        angles = {c.name for c in self.coordinates if c.is_angle}
        speeds = [abs(v) * (self.size if c in angles else 1.0) for m in self.inputs for c, v in m.velocities]
        speeds += [f.speed * (self.size if f.coordinate in angles else 1.0) for f in self.forces]
        return max(speeds, default=self.size)

    @cached_property
    def input_speed(self) -> float:
        """The fastest input velocity as a linear speed (:attr:`speed` when there is no input):
        what an input step's motions are measured against."""
        return self._fastest([(c, abs(v)) for m in self.inputs for c, v in m.velocities])

    @cached_property
    def force_speed(self) -> float:
        """The fastest force speed as a linear speed (:attr:`speed` when there is no force):
        what an external step's motions are measured against. External motions take no
        input time; their speeds only say how they share their own clock."""
        return self._fastest([(f.coordinate, f.speed) for f in self.forces])

    def _fastest(self, rates: list[tuple[str, float]]) -> float:
        angles = {c.name for c in self.coordinates if c.is_angle}
        return max((rate * (self.size if name in angles else 1.0) for name, rate in rates), default=self.speed)

    @cached_property
    def speed_scales(self) -> tuple[float, ...]:
        """Per coordinate, the speed its motions are measured against: :attr:`speed` for a
        translation, :attr:`speed` over the size (an angular speed) for a rotation. Velocity
        tolerances and programs use it, so they mean the same at any size and in any units."""
        return self.scales_at(self.speed)

    def scales_at(self, speed: float) -> tuple[float, ...]:
        """Per coordinate, a linear ``speed`` as its own speed: over the size for a rotation.

        >>> from cspace.io.loader import load
        >>> load("fixtures/eccentric-cam.toml").scales_at(2.0)[1]
        2.0
        """
        return tuple(speed / self.size if c.is_angle else speed for c in self.coordinates)

    @cached_property
    def tolerance(self) -> Tolerance:
        return Tolerance.for_size(self.size, speed=self.speed, **dict(self.tolerance_factors))

    def __repr__(self) -> str:
        return (f"Mechanism({self.name!r}, parts={len(self.parts)}, "
                f"coordinates={[c.name for c in self.coordinates]!r}, linkages={len(self.linkages)}, "
                f"forces={len(self.forces)}, inputs={len(self.inputs)}, time={self.time!r})")
