"""The exact motion of a one-degree-of-freedom linkage: every pose it moves, with its first and
second derivatives with respect to the input (the linkage's kinematic *jet*).

Full dynamics needs a linkage's motion exactly and smoothly: a part's kinetic energy is
(m |dc/dx|² + I (dφ/dx)²) ẋ² / 2 for its centre c and angle φ, so the reduced mass and its
derivative need dc/dx and d²c/dx² as functions of the input x. The linkage table
(:mod:`cspace.spaces.linkage`) interpolates linearly, so its slopes, and a reduced mass made
from them, jump at every node. Here the joint equations R(u, x) = 0 (u: the members' poses and
the output) are solved by Newton's method at the very input asked for, and differentiated by the
implicit function theorem::

    R_u u' = -R_x                 R_u u'' = -(d²/dt²) R(u + t u', x + t) at t = 0

the second right-hand side being R_uu[u', u'] + 2 R_ux u' + R_xx, the residual's second derivative
along the motion's tangent line. Both, and the Jacobian R_u, come from evaluating the joint
equations on poses carried with their first and second derivatives along lines through (u, x)
(forward differentiation written out for a rotation: d/dt R(a) p = a' J R(a) p and
d²/dt² R(a) p = a'' J R(a) p - a'² R(a) p, J the quarter turn), so they are exact to rounding:
no finite differences anywhere.

The equations are those of :class:`cspace.spaces.linkage.JointSystem` (the table's solver), in
its frame: lengths relative to the mechanism's origin and over its size, angles in radians.

Continuation: the linkage starts where the table starts it (the file's assembly), and stays on
that branch. Solutions are kept at *anchors*, evenly spaced inputs x0 + k h from the initial
input x0 (h a 64th of a turn of an angle, a 64th of 2π sizes of a length), each continued from the anchor
next to it towards x0; an input is solved from its nearest anchor. So every answer depends on
the input alone, never on what was asked before, and a step is never long enough to jump to
another branch (a step whose Newton correction is large for its length is halved instead). A
freely turning input is reduced to its first turn and the answer carried on by the whole turns
its angles make in one turn of the input.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from types import MappingProxyType

import numpy as np

from ..model.errors import LinkageError
from ..model.kinds import JointKind, Motion
from ..model.mechanism import Linkage, Mechanism
from ..spaces.linkage import JointSystem

TWO_PI = 2.0 * math.pi
CLOSURE = 1e-13  # Newton's method stops once every joint closes this well (over the size; radians)
NEWTON_STEPS = 16  # from a second-order prediction, three or four steps reach CLOSURE
ANCHORS_PER_TURN = 64  # anchor spacing: a 64th of a turn (an input length: a 64th of 2π sizes)
CORRECTION = 0.25  # a step stays on its branch if Newton moves its prediction less than this times its length
SETTLE = 1e-9  # ... or less than this (in units): rounding, whatever the step
MAX_HALVINGS = 12  # a step halved this often without staying on its branch meets a dead point

Triple = tuple[float, float, float]
Vector = tuple[np.ndarray, np.ndarray, np.ndarray]  # a plane vector (2,) and its derivatives along k lines (k, 2)


@dataclass(frozen=True)
class PoseJet:
    """A part's pose ``(angle, tx, ty)`` and its first and second derivatives with respect to the input.

    The pose maps the part's local frame (where its profiles and joint points are drawn) to the
    plane: ``world = R(angle) p + (tx, ty)``, the transform of :func:`cspace.model.poses.rigid`
    and of :meth:`cspace.spaces.linkage.LinkageTable.pose`; for a fixed-axes part it is
    :func:`cspace.model.poses.part_transform`'s, ``(tx, ty) = pivot - R(angle) pivot + translation``.
    Angles run on continuously with the input (never wrapped), so the derivatives are those of
    the angles given.
    """

    value: Triple
    first: Triple
    second: Triple

    def point(self, local: tuple[float, float]) -> Vector:
        """A local point's world position and its first and second derivatives with respect to the input."""
        (angle, tx, ty), (da, dtx, dty), (dda, ddtx, ddty) = self.value, self.first, self.second
        turned = _rotated(angle, local)
        across = np.array([-turned[1], turned[0]])
        return (turned + (tx, ty), da * across + (dtx, dty),
                dda * across - da * da * turned + (ddtx, ddty))


@dataclass(frozen=True)
class Jet:
    """The linkage at one input value: the output coordinate's value and its first and second
    derivatives with respect to the input, and the :class:`PoseJet` of every part the linkage
    moves (its input's part, its members, its output's part), by name."""

    input: float
    output: Triple
    poses: Mapping[str, PoseJet]

    def __repr__(self) -> str:
        return f"Jet(input={self.input!r}, output={self.output!r}, parts={list(self.poses)!r})"


@dataclass(frozen=True)
class _State:
    """The linkage solved at input ``x``: the unknowns ``u`` (each member's x, y relative to the
    mechanism's origin and its angle, then the output) and their first and second derivatives."""

    x: float
    u: np.ndarray
    du: np.ndarray
    ddu: np.ndarray

    def predict(self, x: float) -> np.ndarray:
        """The unknowns at ``x`` by the Taylor polynomial of second order: Newton's method's start."""
        step = x - self.x
        return self.u + self.du * step + self.ddu * (step * step / 2)

    def shifted(self, x: float, turns: np.ndarray) -> _State:
        """The same assembly some whole turns on: at input ``x``, its angles advanced by ``turns``."""
        return _State(x, self.u + turns, self.du, self.ddu)


@dataclass(frozen=True)
class _Lines:
    """A part's pose along k lines through configuration space at once: its angle and the
    translation of its frame, each with the first and second derivatives along every line
    (arrays of k, and of k × 2)."""

    angle: float
    d_angle: np.ndarray
    dd_angle: np.ndarray
    shift: np.ndarray
    d_shift: np.ndarray
    dd_shift: np.ndarray

    @classmethod
    def still(cls, lines: int) -> _Lines:
        """A part that does not move: the identity on every line."""
        zero, zeros = np.zeros(lines), np.zeros((lines, 2))
        return cls(0.0, zero, zero, np.zeros(2), zeros, zeros)

    def turned(self, local) -> Vector:
        """A local vector turned with the part: R(angle) v and its derivatives."""
        turned = _rotated(self.angle, local)
        across = np.array([-turned[1], turned[0]])
        return (turned, self.d_angle[:, None] * across,
                self.dd_angle[:, None] * across - (self.d_angle ** 2)[:, None] * turned)

    def point(self, local) -> Vector:
        """A local point placed with the part: R(angle) p + shift and its derivatives."""
        value, first, second = self.turned(local)
        return value + self.shift, first + self.d_shift, second + self.dd_shift

    def pose(self) -> PoseJet:
        """The pose along the one line of a motion, as a :class:`PoseJet`."""
        return PoseJet((self.angle, *map(float, self.shift)),
                       (float(self.d_angle[0]), *map(float, self.d_shift[0])),
                       (float(self.dd_angle[0]), *map(float, self.dd_shift[0])))


class LinkageMotion:
    """A linkage's exact motion over its input: poses and their derivatives at any input value.

    >>> from cspace.io.loader import load
    >>> m = load("fixtures/feeder.toml")
    >>> motion = LinkageMotion(m, m.linkages[0])
    >>> motion
    LinkageMotion('crank-slider': cd -> xp, parts=['driver', 'link', 'piston'])
    >>> [round(v, 6) for v in motion.jet(1.0).output]          # xp, dxp/dcd, d²xp/dcd²
    [8.212174, -3.063432, -1.165808]
    >>> [round(float(v), 6) for v in motion.point_jet("link", (8, 0), 1.0)[0]]   # the piston's pin
    [9.212174, 0.0]
    """

    def __init__(self, mechanism: Mechanism, linkage: Linkage) -> None:
        mechanism.validate()
        self.mechanism = mechanism
        self.linkage = linkage
        self.system = JointSystem(mechanism, linkage)
        driver = mechanism.coordinate(linkage.input)
        self._start = driver.initial
        self._periodic = driver.periodic
        self._spacing = TWO_PI / ANCHORS_PER_TURN * self.system.input_unit
        self._anchors: dict[int, _State] = {}
        self._last: Jet | None = None
        ends = (driver.part, mechanism.coordinate(linkage.output).part)
        self.parts: tuple[str, ...] = (ends[0], *linkage.members, ends[1])
        self._joined = sorted({*self.parts, *(p for joint in linkage.joints for p in joint.parts)})
        self._axes = [None if joint.axis is None else np.divide(joint.axis, math.hypot(*joint.axis))
                      for joint in linkage.joints]

    def __repr__(self) -> str:
        return (f"LinkageMotion({self.linkage.name!r}: {self.linkage.input} -> {self.linkage.output}, "
                f"parts={list(self.parts)!r})")

    def jet(self, x: float) -> Jet:
        """The linkage at input ``x``, solved exactly on its starting branch: the output and every
        moved part's pose, each with its first and second derivatives with respect to ``x``."""
        x = float(x)
        if self._last is None or self._last.input != x:
            state = self._state(x)
            lines = self._place(state.u, x, state.du[None], np.ones(1), state.ddu[None], np.zeros(1), (0.0, 0.0))
            poses = MappingProxyType({part: lines[part].pose() for part in self.parts})
            self._last = Jet(x, (float(state.u[-1]), float(state.du[-1]), float(state.ddu[-1])), poses)
        return self._last

    def point_jet(self, part: str, local_point: tuple[float, float], x: float) -> Vector:
        """A point of ``part`` (in its local frame) in the plane at input ``x``, with its first and
        second derivatives with respect to ``x``: what a kinetic energy needs of a centre of mass."""
        return self._pose(part, x).point(local_point)

    def angle_jet(self, part: str, x: float) -> Triple:
        """The angle of ``part`` at input ``x`` and its first and second derivatives with respect to ``x``."""
        pose = self._pose(part, x)
        return pose.value[0], pose.first[0], pose.second[0]

    def _pose(self, part: str, x: float) -> PoseJet:
        if part not in self.parts:
            raise KeyError(f"part {part!r} is not moved by linkage {self.linkage.name!r}; it moves "
                           f"{', '.join(self.parts)}")
        return self.jet(x).poses[part]

    # -- continuation ----------------------------------------------------------------------------------

    def _state(self, x: float) -> _State:
        """The solution at ``x`` from its nearest anchor (a freely turning input: on its first turn, then carried on)."""
        k = round((x - self._start) / self._spacing)
        if not self._periodic:
            return self._advance(self._anchor(k), x)
        turns, k = divmod(k, ANCHORS_PER_TURN)
        state = self._advance(self._anchor(k), x - turns * TWO_PI)
        return state if turns == 0 else state.shifted(x, turns * self._turn)

    @cached_property
    def _turn(self) -> np.ndarray:
        """The whole turns each angle makes in one turn of a freely turning input (the joint
        system checks the linkage comes back to its assembly)."""
        return self.system.turn(self._anchor(0).u, self._anchor(ANCHORS_PER_TURN).u)

    def _anchor(self, k: int) -> _State:
        """The solution at anchor ``k`` (input x0 + k h), continued anchor by anchor from the assembly."""
        if not self._anchors:
            start = self.system.assemble(self._start, self.mechanism.coordinate(self.linkage.output).initial,
                                         self.mechanism.tolerance.assembly)
            self._anchors[0] = self._settled(start, self._start)
        toward = 1 if k > 0 else -1
        known = k
        while known not in self._anchors:
            known -= toward
        while known != k:
            known += toward
            self._anchors[known] = self._advance(self._anchors[known - toward], self._start + known * self._spacing)
        return self._anchors[k]

    def _advance(self, start: _State, x: float, halvings: int = 0) -> _State:
        """The solution at ``x`` continued from ``start`` on its branch, the step halved where
        Newton's method strays (or fails) from the prediction."""
        if x == start.x:
            return start
        guess = start.predict(x)
        solved = self._newton(guess, x)
        if solved is not None and self._near(guess, solved[0], x - start.x):
            return self._differentiated(x, *solved)
        if halvings == MAX_HALVINGS:
            raise LinkageError(f"meets a dead point near {self.linkage.input} = {x:.6g}: its joints line up and "
                               "the linkage cannot be driven past it", where=self.system.where, field="joints")
        middle = self._advance(start, start.x + (x - start.x) / 2, halvings + 1)
        return self._advance(middle, x, halvings + 1)

    def _near(self, guess: np.ndarray, solved: np.ndarray, step: float) -> bool:
        """Newton's method kept to the predicted branch: it moved the prediction little for the step's length."""
        moved = float(np.max(np.abs(solved - guess) / self.system.units))
        return moved <= max(CORRECTION * abs(step) / self.system.input_unit, SETTLE)

    def _settled(self, guess: np.ndarray, x: float) -> _State:
        """The assembly closed to :data:`CLOSURE` where it stands."""
        solved = self._newton(guess, x)
        if solved is None:
            raise LinkageError(f"the joints do not close to {CLOSURE:g} of the size at {self.linkage.input} = "
                               f"{x:.6g}", where=self.system.where, field="joints")
        return self._differentiated(x, *solved)

    # -- the joint equations and their derivatives -----------------------------------------------------

    def _newton(self, guess: np.ndarray, x: float) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
        """The unknowns at ``x`` by Newton's method with the exact Jacobian, until every joint closes
        to :data:`CLOSURE`, with the Jacobian and d residual / d input there; None if it does not."""
        u = np.array(guess, float)
        for _ in range(NEWTON_STEPS):
            residual, jacobian, along_input = self._linearized(u, x)
            if float(np.max(np.abs(residual))) <= CLOSURE:
                return u, jacobian, along_input
            try:
                u = u - np.linalg.solve(jacobian, residual)
            except np.linalg.LinAlgError:
                return None
        return None

    def _differentiated(self, x: float, u: np.ndarray, jacobian: np.ndarray, along_input: np.ndarray) -> _State:
        """The solution with its derivatives: u' from R_u u' = -R_x, u'' from R_u u'' = -(the
        residual's second derivative along the tangent line (u + t u', x + t))."""
        du = -np.linalg.solve(jacobian, along_input)
        _, _, bend = self._equations(self._place(u, x, du[None], np.ones(1), np.zeros((1, len(u))), np.zeros(1)))
        return _State(x, u, du, -np.linalg.solve(jacobian, bend[0]))

    def _linearized(self, u: np.ndarray, x: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The residual at (u, x), its Jacobian R_u and its derivative R_x: one evaluation along
        every unknown's line and the input's."""
        lines = np.eye(len(u) + 1)
        still = np.zeros_like(lines)
        residual, first, _ = self._equations(self._place(u, x, lines[:, :-1], lines[:, -1], still[:, :-1], still[:, -1]))
        return residual, first[:-1].T, first[-1]

    def _equations(self, placed: dict[str, _Lines]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The joint equations of :meth:`JointSystem.residual` (lengths over the size, angles) with
        their first and second derivatives along every line (arrays k × equations)."""
        rows: list[Triple] = []
        for joint, (near, far), axis in zip(self.linkage.joints, self.system.points, self._axes):
            a, b = placed[joint.parts[0]], placed[joint.parts[1]]
            if joint.kind == JointKind.PIN:
                gap = _difference(a.point(near), b.point(far))
                rows += [tuple(part[..., i] / self.system.scale for part in gap) for i in (0, 1)]
            else:
                across = _cross(_difference(b.point(far), a.point(near)), a.turned(axis))
                rows.append(tuple(part / self.system.scale for part in across))
                rows.append((b.angle - a.angle, b.d_angle - a.d_angle, b.dd_angle - a.dd_angle))
        return (np.array([float(row[0]) for row in rows]), np.column_stack([row[1] for row in rows]),
                np.column_stack([row[2] for row in rows]))

    def _place(self, u: np.ndarray, x: float, du: np.ndarray, dx: np.ndarray, ddu: np.ndarray, ddx: np.ndarray,
               origin: tuple[float, float] | None = None) -> dict[str, _Lines]:
        """Every part's pose along the lines t -> (u + t du + t² ddu / 2, x + t dx + t² ddx / 2).

        Translations are measured from ``origin``: by default the mechanism's, the joint
        system's frame (its joint points of non-members are relative to it); (0, 0) for the plane's.
        """
        origin = self.mechanism.origin if origin is None else origin
        offset = np.subtract(self.mechanism.origin, origin)
        values = {self.linkage.input: (x, dx, ddx), self.linkage.output: (float(u[-1]), du[:, -1], ddu[:, -1])}
        placed = {}
        for part in self._joined:
            if part in self.system.members:
                i = 3 * self.system.members[part]
                placed[part] = _Lines(float(u[i + 2]), du[:, i + 2], ddu[:, i + 2], u[i:i + 2] + offset,
                                      du[:, i:i + 2], ddu[:, i:i + 2])
            else:
                placed[part] = self._driven(part, values, origin, len(dx))
        return placed

    def _driven(self, part: str, values: dict[str, Triple], origin: tuple[float, float], lines: int) -> _Lines:
        """A non-member's pose from its one coordinate (the input or the output), as
        :func:`cspace.model.poses.part_transform` places it: turned about its pivot, or moved along its axis."""
        owner = self.mechanism.part(part)
        if owner.motion == Motion.FIXED:
            return _Lines.still(lines)
        coordinate = self.mechanism.coordinate(owner.coordinates[0])
        value, first, second = values[coordinate.name]
        if coordinate.is_angle:
            pivot = np.subtract(coordinate.pivot, origin)
            turned = _rotated(value, pivot)
            across = np.array([-turned[1], turned[0]])
            return _Lines(value, first, second, pivot - turned, -first[:, None] * across,
                          (first ** 2)[:, None] * turned - second[:, None] * across)
        axis = np.asarray(coordinate.axis, float)
        return _Lines(0.0, 0 * first, 0 * first, value * axis, first[:, None] * axis, second[:, None] * axis)


def _rotated(angle: float, vector) -> np.ndarray:
    """R(angle) v."""
    c, s = math.cos(angle), math.sin(angle)
    return np.array([c * vector[0] - s * vector[1], s * vector[0] + c * vector[1]])


def _difference(a: Vector, b: Vector) -> Vector:
    """a - b, value and derivatives."""
    return a[0] - b[0], a[1] - b[1], a[2] - b[2]


def _cross(a: Vector, b: Vector) -> Triple:
    """The plane cross product a × b and its derivatives (the product rule, twice)."""
    def cross(p, q):
        return p[..., 0] * q[..., 1] - p[..., 1] * q[..., 0]
    return cross(a[0], b[0]), cross(a[1], b[0]) + cross(a[0], b[1]), \
        cross(a[2], b[0]) + 2 * cross(a[1], b[1]) + cross(a[0], b[2])
