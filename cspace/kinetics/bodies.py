"""The equations of motion of a mechanism's masses in its independent coordinates:
``M(u) u'' = Q(u, u', t) - h(u, u')`` (Lagrange's equations for rigid bodies on fixed axes).

The independent coordinates ``u`` are every coordinate but the linkages' outputs, which
follow their inputs exactly (:class:`~cspace.kinetics.linkage_motion.LinkageMotion`). Each
massive part contributes through its centre ``c(u)`` and angle ``phi(u)``: with the Jacobians
``J = dc/du`` and ``j = dphi/du`` and the velocity products ``k = J' u'`` and ``kw = j' u'``,

    M = sum m J^T J + I j^T j,    h = sum m J^T k + I j kw,    Q_gravity = sum m J^T g,

and springs, dampers and loads act on their coordinates (on a linkage output through its
slope). Energies make each conservative trace check itself (:class:`Energies`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..model.kinds import Motion
from ..model.mechanism import Mechanism, Part
from .linkage_motion import LinkageMotion
from .linkage_terms import LinkageTerms


@dataclass(frozen=True)
class Energies:
    """Kinetic and potential (gravity and springs) energy at one instant."""

    kinetic: float
    potential: float

    @property
    def total(self) -> float:
        return self.kinetic + self.potential

    def __repr__(self) -> str:
        return f"Energies(kinetic={self.kinetic:.10g}, potential={self.potential:.10g})"


@dataclass(frozen=True)
class Kinematics:
    """Everything the configuration ``q`` (all coordinates) and its rate hold at one state:
    ``dq`` maps independent rates to all rates (``q' = dq @ u'``), ``ddq`` is the rest of
    ``q''`` (``q'' = dq @ u'' + ddq``)."""

    q: np.ndarray
    dq: np.ndarray
    ddq: np.ndarray


class Bodies:
    """The mechanism's masses, and its equations of motion and energies in the independent
    coordinates. Parts without a mass (fixed ones) take no part.

    >>> from cspace import load
    >>> bodies = Bodies(load("fixtures/bouncing-block.toml"))
    >>> bodies.mass_matrix(bodies.initial()[0])
    array([[1.]])
    """

    def __init__(self, mechanism: Mechanism, linkages: dict[str, LinkageMotion] | None = None) -> None:
        self.mechanism = mechanism
        self.dynamics = mechanism.dynamics
        names = [c.name for c in mechanism.coordinates]
        self.linkages = linkages if linkages is not None else {
            link.name: LinkageMotion(mechanism, link) for link in mechanism.linkages}
        outputs = {link.output: link for link in mechanism.linkages}
        self.independent = [i for i, name in enumerate(names) if name not in outputs]
        self.column = {names[i]: k for k, i in enumerate(self.independent)}
        self.n = len(self.independent)
        # Per linkage: its input's column in u, its output's index in q.
        self._links = [(self.linkages[link.name], self.column[link.input], names.index(link.output), link)
                       for link in mechanism.linkages]
        moved_by = {}
        for motion, column, _, link in self._links:
            for member in link.members + (mechanism.coordinate(link.output).part,):
                moved_by[member] = (motion, column)
        self._moved = moved_by
        # A linkage's parts enter through its table (exactly, through its joints, where it has none).
        self._tables = []
        for motion, column, _, link in self._links:
            table = LinkageTerms.of(mechanism, link)
            if table is not None:
                self._tables.append((table, column))
        tabled = {name for table, _ in self._tables for name in table.motion.parts
                  if name != mechanism.coordinate(table.motion.linkage.input).part}
        self._table_of = {table.motion.linkage.name: table for table, _ in self._tables}
        self._parts = [(part, moved_by.get(part.name)) for part in mechanism.parts if part.mass is not None
                       and part.motion != Motion.FIXED and part.name not in tabled]
        self._gravity = np.asarray(self.dynamics.gravity, float)
        self._springs = [(names.index(s.coordinate), s.stiffness, s.rest) for s in self.dynamics.springs]
        self._dampers = [(names.index(d.coordinate), d.coefficient) for d in self.dynamics.dampers]
        self._loads = [(names.index(load.coordinate), load.value) for load in self.dynamics.loads]
        self.powered = bool(self._loads or self._dampers)  # whether any work is done or taken but by contacts
        self._steady_terms()
        self._own_forces()

    def _steady_terms(self) -> None:
        """Set apart the parts whose centre moves linearly with ``u`` and whose angle is a
        coordinate (translations, and a turn about the centre of mass): their mass matrix and
        gravity's force are constant and their potential linear, summed once here."""
        u0, du0 = self.initial()
        self._M0, self._Q0, self._P0, self._p = np.zeros((self.n, self.n)), np.zeros(self.n), 0.0, np.zeros(self.n)
        self._u0 = u0
        varying = []
        for part, moved in self._parts:
            if moved is not None or not self._steady(part):
                varying.append((part, moved))
                continue
            J, _, j, _ = self._jets(part, moved, u0, du0)
            mass = part.mass
            self._M0 += mass.mass * J.T @ J + mass.inertia * np.outer(j, j)
            self._Q0 += mass.mass * J.T @ self._gravity
            self._P0 -= mass.mass * float(self._gravity @ self._centre(part, moved, u0))
            self._p -= mass.mass * J.T @ self._gravity
        self._parts = varying
        self.constant_mass = not varying and not self._tables  # M(u) is the same everywhere

    def _steady(self, part: Part) -> bool:
        turns = [self.mechanism.coordinate(c) for c in part.coordinates if self.mechanism.coordinate(c).is_angle]
        return not turns or all(math.dist(part.mass.centre, c.pivot) == 0 for c in turns)

    def _own_forces(self) -> None:
        """The springs, dampers and loads on independent coordinates, as arrays over ``u``; those
        on a linkage's output act through its slope (``terms``)."""
        def split(entries):
            own = [e for e in entries if e[0] in self.independent]
            return own, [e for e in entries if e[0] not in self.independent]

        own, self._springs_out = split(self._springs)
        self._spring_at = np.array([self.independent.index(e[0]) for e in own], int)
        self._spring_k, self._spring_rest = np.array([e[1] for e in own]), np.array([e[2] for e in own])
        own, self._dampers_out = split(self._dampers)
        self._damper_at, self._damper_c = np.array([self.independent.index(e[0]) for e in own], int), \
            np.array([e[1] for e in own])
        own, self._loads_out = split(self._loads)
        self._load_at, self._load_value = np.array([self.independent.index(e[0]) for e in own], int), \
            np.array([e[1] for e in own])

    def initial(self) -> tuple[np.ndarray, np.ndarray]:
        """The independent coordinates' initial values and rates."""
        coordinates = self.mechanism.coordinates
        return (np.array([coordinates[i].initial for i in self.independent], float),
                np.array([coordinates[i].velocity for i in self.independent], float))

    def kinematics(self, u: np.ndarray, du: np.ndarray) -> Kinematics:
        """All coordinates at ``u``, and how their rates and accelerations follow from ``u``'s."""
        count = len(self.mechanism.coordinates)
        q, dq, ddq = np.zeros(count), np.zeros((count, self.n)), np.zeros(count)
        q[self.independent] = u
        dq[self.independent, np.arange(self.n)] = 1.0
        for motion, column, output, link in self._links:
            table = self._table_of.get(link.name)
            y, dy, ddy = table.at(float(u[column]))[4:] if table is not None else motion.jet(float(u[column])).output
            q[output], dq[output, column], ddq[output] = y, dy, ddy * du[column] ** 2
        return Kinematics(q, dq, ddq)

    def configurations(self, U: np.ndarray) -> np.ndarray:
        """All coordinates at each row of ``U`` (the independent coordinates of a batch of states)."""
        if self._links:
            return np.array([self.kinematics(u, np.zeros(self.n)).q for u in U])
        Q = np.zeros((len(U), len(self.mechanism.coordinates)))
        Q[:, self.independent] = U
        return Q

    def mass_matrix(self, u: np.ndarray) -> np.ndarray:
        return self.terms(u, np.zeros(self.n), 0.0)[0]

    def terms(self, u: np.ndarray, du: np.ndarray, t: float) -> tuple[np.ndarray, np.ndarray]:
        """``M(u)`` and the generalized force ``Q - h`` at the state: gravity, springs, dampers,
        loads, less the velocity products."""
        M, rest = self._M0.copy(), self._Q0.copy()
        for part, moved in self._parts:
            mass = part.mass
            J, k, j, kw = self._jets(part, moved, u, du)
            M += mass.mass * J.T @ J + mass.inertia * np.outer(j, j)
            rest += mass.mass * J.T @ (self._gravity - k) - mass.inertia * j * kw
        for table, column in self._tables:
            mass, dmass, force = table.at(float(u[column]))[:3]
            M[column, column] += mass
            rest[column] += force - 0.5 * dmass * du[column] ** 2
        np.subtract.at(rest, self._spring_at, self._spring_k * (u[self._spring_at] - self._spring_rest))
        np.subtract.at(rest, self._damper_at, self._damper_c * du[self._damper_at])
        np.add.at(rest, self._load_at, self._load_value)
        if not (self._springs_out or self._dampers_out or self._loads_out):
            return M, rest
        kin = self.kinematics(u, du)
        rates = kin.dq @ du
        for index, stiffness, value in self._springs_out:
            rest -= stiffness * (kin.q[index] - value) * kin.dq[index]
        for index, coefficient in self._dampers_out:
            rest -= coefficient * rates[index] * kin.dq[index]
        for index, value in self._loads_out:
            rest += value * kin.dq[index]
        return M, rest

    def energies(self, u: np.ndarray, du: np.ndarray) -> Energies:
        """Kinetic energy, and the potential of gravity and the springs (zero at the origin and at rest)."""
        kinetic = 0.5 * float(du @ self._M0 @ du)
        potential = self._P0 + float(self._p @ (u - self._u0))
        for part, moved in self._parts:
            mass = part.mass
            J, _, j, _ = self._jets(part, moved, u, du)
            v, w = J @ du, float(j @ du)
            kinetic += 0.5 * (mass.mass * float(v @ v) + mass.inertia * w * w)
            potential -= mass.mass * float(self._gravity @ self._centre(part, moved, u))
        for table, column in self._tables:
            mass, _, _, gravity = table.at(float(u[column]))[:4]
            kinetic += 0.5 * mass * du[column] ** 2
            potential += gravity
        q = self.kinematics(u, du).q
        potential += sum(0.5 * stiffness * (q[index] - value) ** 2 for index, stiffness, value in self._springs)
        return Energies(kinetic, potential)

    def power(self, u: np.ndarray, du: np.ndarray) -> tuple[float, float]:
        """The power of the loads and that the dampers take, at the state (work rates for the ledger)."""
        kin = self.kinematics(u, du)
        rates = kin.dq @ du
        loads = sum(value * rates[index] for index, value in self._loads)
        damped = sum(coefficient * rates[index] ** 2 for index, coefficient in self._dampers)
        return float(loads), float(damped)

    def pose(self, name: str, u: np.ndarray) -> tuple[float, np.ndarray]:
        """The angle and translation placing part ``name``'s local frame in the plane at ``u``
        (``world = R(angle) p + t``): fixed parts where drawn, linkage members exactly."""
        part = self.mechanism.part(name)
        moved = self._moved.get(name)
        if moved is not None:
            motion, column = moved
            angle, tx, ty = motion.jet(float(u[column])).poses[name].value
            return angle, np.array([tx, ty])
        if part.motion == Motion.FIXED:
            return 0.0, np.zeros(2)
        angle, pivot, shift = self._pose(part, u)
        c, s = math.cos(angle), math.sin(angle)
        return angle, pivot - np.array([c * pivot[0] - s * pivot[1], s * pivot[0] + c * pivot[1]]) + shift

    def point_jacobian(self, name: str, point: np.ndarray, u: np.ndarray) -> np.ndarray:
        """How the material point of part ``name`` now at ``point`` (in the plane) moves with each
        independent coordinate: a (2, n) matrix, zero for a fixed part."""
        J = np.zeros((2, self.n))
        part = self.mechanism.part(name)
        moved = self._moved.get(name)
        if moved is not None:
            motion, column = moved
            angle, t = self.pose(name, u)
            c, s = math.cos(angle), math.sin(angle)
            d = np.asarray(point) - t
            local = (c * d[0] + s * d[1], -s * d[0] + c * d[1])
            J[:, column] = np.reshape(motion.point_jet(name, local, float(u[column]))[1], 2)
            return J
        if part.motion == Motion.FIXED:
            return J
        _, pivot, shift = self._pose(part, u)
        for name_ in part.coordinates:
            coordinate, column = self.mechanism.coordinate(name_), self.column[name_]
            if coordinate.is_angle:
                r = np.asarray(point) - (pivot + shift)
                J[:, column] = (-r[1], r[0])
            else:
                J[:, column] = coordinate.axis
        return J

    def _centre(self, part: Part, moved, u: np.ndarray) -> np.ndarray:
        if moved is not None:
            motion, column = moved
            return motion.point_jet(part.name, part.mass.centre, float(u[column]))[0]
        angle, pivot, shift = self._pose(part, u)
        c, s = math.cos(angle), math.sin(angle)
        d = np.subtract(part.mass.centre, pivot)
        return np.array([c * d[0] - s * d[1], s * d[0] + c * d[1]]) + pivot + shift

    def _pose(self, part: Part, u: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
        angle, pivot, shift = 0.0, np.zeros(2), np.zeros(2)
        for name in part.coordinates:
            coordinate = self.mechanism.coordinate(name)
            value = u[self.column[name]]
            if coordinate.is_angle:
                angle, pivot = float(value), np.asarray(coordinate.pivot, float)
            else:
                shift += value * np.asarray(coordinate.axis, float)
        return angle, pivot, shift

    def _jets(self, part: Part, moved, u: np.ndarray, du: np.ndarray):
        """``J``, ``k = J' u'``, ``j`` and ``kw = j' u'`` of the part's centre and angle."""
        J, j = np.zeros((2, self.n)), np.zeros(self.n)
        if moved is not None:
            motion, column = moved
            x, dx = float(u[column]), float(du[column])
            _, dc, ddc = motion.point_jet(part.name, part.mass.centre, x)
            _, da, dda = motion.angle_jet(part.name, x)
            J[:, column], j[column] = np.reshape(dc, 2), da
            return J, np.reshape(ddc, 2) * dx * dx, j, dda * dx * dx
        angle, pivot, _ = self._pose(part, u)
        c, s = math.cos(angle), math.sin(angle)
        d = np.subtract(part.mass.centre, pivot)
        r = np.array([c * d[0] - s * d[1], s * d[0] + c * d[1]])  # the centre from the pivot, turned
        k = np.zeros(2)
        kw = 0.0
        for name in part.coordinates:
            coordinate, column = self.mechanism.coordinate(name), self.column[name]
            if coordinate.is_angle:
                J[:, column] = (-r[1], r[0])
                j[column] = 1.0
                k = -r * du[column] ** 2
            else:
                J[:, column] = coordinate.axis
        return J, k, j, kw

    def __repr__(self) -> str:
        return f"Bodies({self.mechanism.name!r}, parts={len(self._parts)}, coordinates={self.n})"
