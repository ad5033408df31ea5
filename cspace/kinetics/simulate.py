"""Full dynamics inside the configuration-space regions (S&J section 8; Gillespie's hybrid
dynamics): the equations of motion are integrated within the region the mechanism is in, and
its rows are the events.

* **Inside a region** the state ``(u, u')`` of the independent coordinates follows
  ``M u'' = Q - h + N_A^T lambda`` (:class:`~cspace.kinetics.bodies.Bodies`), with the resting
  contacts ``A`` held by their multipliers (:mod:`cspace.kinetics.contact`), by DOP853 at the
  mechanism's ``integration`` tolerance.
* **No event is missed**: after every step each row's slack is followed on the step's dense
  output, a polynomial of degree 7 in time that is fitted exactly on Chebyshev points; its
  roots in the step (a row crossed and crossed back within one step included) are found,
  the first is refined on the dense output. So event times do not depend on the step size.
* **At a boundary** the velocity either enters a neighbouring region (a cut: the path goes on)
  or is blocked: an impact, Newton's restitution on every tight row at once. A row that a
  contact force holds rests; it lifts off where its multiplier falls to zero.
* **Zeno**: impacts on the same rows whose flight times shrink geometrically are summed to
  their accumulation point, where the contact is declared resting (a plastic impact).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field, replace

import numpy as np
from scipy.integrate import DOP853
from scipy.optimize import brentq

from ..model.errors import ModelError, TraceError
from ..model.kinds import Mode
from ..model.tolerance import NOISE
from ..spaces.pairspace import Contact
from ..tracing.analysis import Analysis
from ..tracing.progress import time_bar
from ..tracing.regions import RegionDiagram
from ..tracing.start import settle
from .bodies import Bodies
from .contact import complementarity
from .coulomb import Features
from .result import DynamicTrace, Stretch

LEDGER_NODES = np.polynomial.legendre.leggauss(8)  # Gauss-Legendre on a step: exact for its dense output's work
NODES = 0.5 - 0.5 * np.cos(np.pi * (np.arange(9) + 0.5) / 9)  # Chebyshev points of a step, in (0, 1)
BOUND_POINTS = 65  # a fit's least value is bounded on this many even points of the step
BOUND_GRID = np.linspace(-1.0, 1.0, BOUND_POINTS)
DEGREE = 7  # DOP853's dense output is a polynomial of this degree in time
MAX_HALVINGS = 12  # a step is halved at most this often to follow an event function no polynomial fits
ZENO_FLIGHTS = 10  # flights whose ratios must agree before their accumulation point is taken
ZENO_AGREEMENT = 1e-6  # how closely the ratios of successive flight times must agree
MAX_EVENTS = 100_000


@dataclass
class _Grip:
    """A resting contact with friction: its row among the plan's, its contact and ``mu``, whether
    it sticks or slips (and which way), and its normal force per unit multiplier of its row."""

    row: int
    contact: Contact
    mu: float
    on: bool = True  # the exact parts touch at the contact's point (else it holds no friction yet)
    outside: tuple[int, ...] = ()  # which of its frame's margins are below zero, when it is not on
    stick: bool = True
    sign: float = 1.0
    scale: float = 1.0
    normal: np.ndarray = field(default_factory=lambda: np.zeros(0))
    at: tuple[bytes, np.ndarray] | None = None  # the tangent row at the last state asked


@dataclass
class _Hold:
    """A resting row of a pair with a turning part, held on the exact contact it stands for: its
    gap's rate ``n . (v_X(c) - v_Y(c))`` (``n`` the normal at the contact point ``c``, oriented as
    the row's) kept at zero, where the pair space's row is a flattening of the curve."""

    row: int
    contact: Contact
    owner: int
    sign: float = 1.0


@dataclass
class _Plan:
    """The rows held in a stretch of integration, the exact contacts among them, and the grips."""

    G: np.ndarray
    grips: list[_Grip] = field(default_factory=list)
    holds: list[_Hold] = field(default_factory=list)

    @property
    def sticking(self) -> list[_Grip]:
        return [g for g in self.grips if g.on and g.stick]

    @property
    def slipping(self) -> list[_Grip]:
        return [g for g in self.grips if g.on and not g.stick]

    @property
    def mode(self) -> Mode:
        if not len(self.G):
            return Mode.FLIGHT
        if self.slipping:
            return Mode.SLIP
        return Mode.STICK if self.sticking else Mode.CONTACT


def simulate(analysis: Analysis, until: float | None = None, *, progress: bool = False) -> DynamicTrace:
    """Integrate the mechanism's full dynamics from its initial state for ``until`` seconds
    (the mechanism's time by default). ``progress`` shows a bar of the time reached on standard
    error, the trace's (:func:`~cspace.tracing.progress.time_bar`).

    >>> from cspace import analyze, load
    >>> result = simulate(analyze(load("fixtures/bouncing-block.toml")), until=0.5)
    >>> [str(s.mode) for s in result.stretches]
    ['flight', 'impact', 'flight']
    """
    allotment = analysis.mechanism.time if until is None else until
    with time_bar("simulate", allotment, show=progress) as reached:
        return _Simulation(analysis, allotment, reached).run()


class _Simulation:
    """The state of one integration: where the mechanism is, the stretches and samples so far."""

    def __init__(self, analysis: Analysis, until: float, reached: Callable[[float], object]) -> None:
        self.mechanism = mechanism = analysis.mechanism
        self.reached = reached  # told the time after each step
        self.bodies = Bodies(mechanism)
        self.features = Features(self.bodies)
        self.u_now = self.du_now = None
        self.step: float | None = None
        self._constant_inverse: np.ndarray | None = None
        self.held: list[_Hold] = []  # the exact contacts held in the last stretch of integration
        self.accumulating: tuple[float, tuple[str, ...]] | None = None  # impacts accumulating: until, on
        self.diagram = RegionDiagram(analysis)
        self.layout = analysis.layout
        self.pairs = analysis.constraining_pairs
        tol = mechanism.tolerance
        self.length, self.still, self.rtol, self.quantum = tol.length, tol.velocity, tol.integration, tol.quantum
        self.until = until
        self.n = self.bodies.n
        self.u = np.asarray(analysis.initial, float)[self.bodies.independent]  # parts drawn touching, settled
        self.du = self.bodies.initial()[1]
        self.t = 0.0
        self.stretches: list[Stretch] = []
        self.samples: list[tuple] = []
        self.open: dict | None = None
        self.flights: list[tuple[float, tuple]] = []  # (time, rows) of the impacts in a row on the same rows
        self.drive = self._drives()
        self.du[~self.free_mask] = self.drive(0.0)[1][~self.free_mask]  # driven from the first instant

    # -- the loop ----------------------------------------------------------------------------

    def run(self) -> DynamicTrace:
        end = "time allotment used"
        self._sample()
        for _ in range(MAX_EVENTS):
            if self.t >= self.until - NOISE * max(1.0, self.until):
                break
            self._past_seams()
            key, blocked = self._enter()
            if blocked:
                self._impact(blocked)
                continue
            self._integrate(key)  # (blocked by a cut alone, a region beyond it not found here: go on to it)
        else:
            end = "too many events"
        self._close("time allotment used" if end != "too many events" else end)
        return DynamicTrace(self.mechanism, tuple(self.stretches), *self._arrays(), end)

    def _past_seams(self) -> None:
        """Carry a freely turning angle that has reached the seam of its turn (+-pi, where the pair
        spaces' turn ends and the next begins) just past it, the way it turns: the regions found are
        then those of the turn it enters. The step is a few rounding units of the angle."""
        for j in self.layout.wraps.tolist():
            name = self.mechanism.coordinates[j].name
            if name not in self.bodies.column:
                continue
            k = self.bodies.column[name]
            seam = math.pi * (2 * math.floor(self.u[k] / (2 * math.pi) + 0.5) - 1)  # the odd multiple of pi nearest
            seam = min((seam, seam + 2 * math.pi), key=lambda v: abs(v - self.u[k]))
            if abs(self.u[k] - seam) <= self.mechanism.tolerance.angle and self.du[k] != 0:
                self.u[k] = seam + math.copysign(8 * np.spacing(abs(seam)), self.du[k])

    def _enter(self) -> tuple[tuple[int, ...], list | None]:
        """The region the state moves into, or, when every region holding the configuration
        blocks the velocity, the tight contact rows that do (as ``(key, row)``)."""
        kin = self.bodies.kinematics(self.u, self.du)
        q, v = kin.q, kin.dq @ self.du
        try:
            choices = self.diagram.choices(q)
        except TraceError:  # an exact contact held left the parts inside a pair's grown blocked space
            before = self.bodies.energies(self.u, self.du).total
            self._into_free_space(q)
            self._account(before)
            kin = self.bodies.kinematics(self.u, self.du)
            q, v = kin.q, kin.dq @ self.du
            choices = self.diagram.choices(q)
        active = np.ones(len(self.pairs), bool)
        keys = choices.candidates()
        moving = []
        for key in keys:
            key = self.diagram.settle(choices, key, v, active, self.still)
            rows = self._tight(key, q)
            if len(rows):  # a cut the velocity closes stops it only when on it (then its neighbour is here too)
                region = self.diagram.region(key)
                on = self._contact_rows(key, q)[rows] | (region.h[rows] - self._G(key)[rows] @ q <= self.quantum)
                rows = rows[on]
            if not len(rows) or (self._closing(key, rows, kin) <= self.still).all():
                moving.append(key)
        if not moving:  # blocked: an impact on the tight contacts, in any region here (those it closes, and
            blocking, seen, closes = [], set(), False  # those it may close by pushing on the others)
            for key in keys:
                region = self.diagram.region(key)
                tight = self._tight(key, q)
                contacts = tight[self._contact_rows(key, q)[tight]]
                closing = self._closing(key, contacts, kin) if len(contacts) else np.zeros(0)
                for row, rate in zip(contacts.tolist(), closing.tolist()):
                    signature = (int(region.owners[row]), region.rows(np.array([row])).tobytes())
                    closes |= rate > self.still
                    if signature not in seen:
                        seen.add(signature)
                        blocking.append((key, row))
            return keys[0], blocking if closes else []
        entered = [key for key in moving if self._accelerates_into(key, kin)] or moving
        for key in entered:  # where a contact holds it (a flattened curve's next facet), rather than in flight
            region = self.diagram.region(key)
            G = region.rows()
            if len(self._resting(key, G, region.h - G @ q, kin, self._contact_rows(key, q))):
                return key, None
        return entered[0], None

    def _closing(self, key: tuple[int, ...], rows: np.ndarray, kin) -> np.ndarray:
        """How fast the motion closes each of region ``key``'s ``rows`` (a row's slack falling): a
        contact of a pair with a turning part is read on the exact contact, not its flattened row."""
        G = self.diagram.region(key).rows()
        closing = G[rows] @ (kin.dq @ self.du)
        for hold in self._holds(key, G, rows):
            closing[hold.row] = -float(self._gap_rate_row(hold, self.u) @ self.du)
        return closing

    def _into_free_space(self, q: np.ndarray) -> None:
        """Move the configuration to the nearest one every pair space holds, as a start drawn
        touching is moved (:func:`cspace.tracing.start.settle`): a held exact contact runs within
        the ``curve`` tolerance of the pair space's flattened boundary, and may end just inside it."""
        local, _ = self.layout.wrapped(q)
        names = [c.name for c in self.mechanism.coordinates]
        fixed = {names[j] for j in range(len(names)) if j not in self.bodies.independent}
        fixed |= {name for name, k in self.bodies.column.items() if not self.free_mask[k]}
        try:
            moved, _ = settle(self.mechanism, self.pairs, local, fixed)
        except ModelError as error:
            raise TraceError(f"at t = {self.t:.9g} the parts held on an exact contact ended inside a pair's "
                             f"blocked space by more than the flattened geometry allows: {error.message}") from None
        self.u = (moved + (q - local))[self.bodies.independent]

    def _accelerates_into(self, key: tuple[int, ...], kin) -> bool:
        """Whether the motion, its resting contacts held, accelerates into region ``key``: no
        tight row it leaves at no speed (a cut, or a contact that lets go) is left by its
        acceleration. At rest on a cut, the region the acceleration enters is the one to be in."""
        region = self.diagram.region(key)
        G = region.rows()
        slack = region.h - G @ kin.q
        rates = G @ (kin.dq @ self.du)
        still = np.flatnonzero((slack <= region.tolerances) & (np.abs(rates) <= self.still))
        if not len(still):
            return True
        resting = self._resting(key, G, slack, kin, self._contact_rows(key, kin.q))
        ddu = self._acceleration(self.u, self.du, self._plan(key, G, resting))[0]
        leaving = np.setdiff1d(still, resting)
        return bool((G[leaving] @ (kin.dq @ ddu + kin.ddq) <= self.still).all())

    def _contact_rows(self, key: tuple[int, ...], q: np.ndarray) -> np.ndarray:
        """Mask of the region's rows that are contacts here (a pair's contact edge through the
        pair's point, or a coordinate's limit), as opposed to cuts between free regions."""
        region = self.diagram.region(key)
        local = self.layout.local(q, key[len(self.pairs):])
        mask = region.owners < 0
        first = 0
        for p, pair in enumerate(self.pairs):
            rows = len(pair.geometry[key[p]].bounds)
            edges = pair.geometry[key[p]].contacts_at(pair.point(local[self.layout.columns[p]]), self.length)
            for edge in edges:
                mask[first + edge.row] = True
            first += rows
        return mask

    def _G(self, key: tuple[int, ...]) -> np.ndarray:
        return self.diagram.region(key).rows()

    def _tight(self, key: tuple[int, ...], q: np.ndarray) -> np.ndarray:
        region = self.diagram.region(key)
        return np.flatnonzero(region.h - region.G @ q <= region.tolerances)  # bounds moved to the key's turns

    # -- impacts -----------------------------------------------------------------------------

    def _impact(self, blocking: list) -> None:
        """Newton's restitution on the blocking rows at once: the impulses that leave each row
        separating at least ``e`` times as fast as it approached."""
        kin = self.bodies.kinematics(self.u, self.du)
        free = self._free()
        G = np.vstack([self.diagram.region(key).rows(np.array([row])) for key, row in blocking])
        normals = -(G @ kin.dq)
        for k, (key, row) in enumerate(blocking):  # a pair with a turning part collides on its exact contact
            holds = self._holds(key, self.diagram.region(key).rows(), np.array([row]))
            if holds:
                normals[k] = self._gap_rate_row(holds[0], self.u)
        N = normals[:, free]
        rates = normals @ self.du
        e = np.array([self._restitution(self.diagram.region(key), row) for key, row in blocking])
        contacts = tuple(sorted({name for key, row in blocking for name in self._contacts(key, np.array([row]))}))
        zeno = self._zeno(contacts)
        if zeno is not None:
            e[:] = 0.0
        M = self.bodies.mass_matrix(self.u)[np.ix_(free, free)]
        Minv_N = np.linalg.solve(M, N.T)
        A = N @ Minv_N
        before = self.bodies.energies(self.u, self.du)
        start = self._state()
        du = self.du.copy()
        du[free] += Minv_N @ self._impulses(A, rates, e, M, Minv_N, self.du[free])
        self._close("impact")
        self.du = du
        after = self.bodies.energies(self.u, self.du)
        self.stretches.append(Stretch(len(self.stretches) + 1, Mode.IMPACT, self.t, self.t, contacts, *start[:1],
                                      *self._state()[:1], start[1], self._state()[1], before, after, 0.0,
                                      before.kinetic - after.kinetic, "impact"))
        if zeno is not None:  # the impacts accumulate: the contact rests from their accumulation point
            self._accumulate(zeno, contacts)
        self._sample()

    def _impulses(self, A: np.ndarray, rates: np.ndarray, e: np.ndarray, M: np.ndarray, Minv_N: np.ndarray,
                  rate: np.ndarray) -> np.ndarray:
        """Newton's impulses on several contacts at once; where they would gain energy (Newton's law
        on simultaneous contacts can: a stack of bouncing blocks), Poisson's: the plastic impulses
        times (1 + e), if they open every contact; else the plastic ones, which never gain. With an
        input driving, energy may come in: Newton's stand."""
        newton = complementarity(A, rates + e * np.minimum(rates, 0.0), self.still)
        if not self.all_free or len(rates) == 1 or not e.any():
            return newton

        def gain(x: np.ndarray) -> float:
            change = Minv_N @ x
            return float(rate @ M @ change + 0.5 * change @ M @ change)

        allowed = self.still * float(np.sqrt(max(rate @ M @ rate, 0.0)) * np.sqrt(np.trace(M)))
        if gain(newton) <= allowed:
            return newton
        plastic = complementarity(A, rates, self.still)
        poisson = (1 + e) * plastic
        if (rates + A @ poisson >= -self.still).all() and gain(poisson) <= allowed:
            return poisson
        return plastic

    def _zeno(self, contacts: tuple[str, ...]) -> float | None:
        """The accumulation time of the impacts on ``contacts`` when their flight times have shrunk
        geometrically (the same ratio below 1 ``ZENO_FLIGHTS`` times), else None."""
        signature = contacts
        if self.flights and self.flights[-1][1] != signature:
            self.flights = []
        self.flights.append((self.t, signature))
        times = [t for t, _ in self.flights[-(ZENO_FLIGHTS + 2):]]
        if len(times) < ZENO_FLIGHTS + 2:
            return None
        gaps = np.diff(times)
        if not (gaps > 0).all():
            return None
        ratios = gaps[1:] / gaps[:-1]
        if not (ratios < 1).all() or np.ptp(ratios) > ZENO_AGREEMENT * ratios.mean():
            return None
        r = float(ratios[-1])
        return self.t + float(gaps[-1]) * r / (1 - r)

    def _accumulate(self, until: float, contacts: tuple[str, ...]) -> None:
        """The impacts accumulate at ``until`` (their flights shrink to nothing there): from the
        last, plastic, the contact rests, and the motion along it goes on, a stretch of impacts on
        ``contacts`` up to there, after which the contact rests."""
        self.flights = []
        self.accumulating = (min(until, self.until), contacts)

    def _restitution(self, region, row: int) -> float:
        owner = int(region.owners[row])
        if owner < 0:
            return self.mechanism.dynamics.restitution
        pair = self.pairs[owner]
        return self.mechanism.dynamics.law(pair.part_a, pair.part_b)[0]

    # -- integration inside a region -----------------------------------------------------------

    def _integrate(self, key: tuple[int, ...]) -> None:
        """Integrate in region ``key`` until a row is reached, a resting contact lifts off, the
        input changes or time runs out."""
        region = self.diagram.region(key)
        G, h = region.rows(), region.h
        drive_end, velocities = self.drive(self.t)
        free = self._free()
        self.du[~free] = velocities[~free]  # before the start's energies are taken: the input moves them
        kin = self.bodies.kinematics(self.u, self.du)
        resting = self._resting(key, G, h - G @ kin.q, kin, self._contact_rows(key, kin.q))
        plan = self._plan(key, G, resting)
        self._carry_holds(plan)
        before = self.bodies.energies(self.u, self.du).total
        self._settle_rates(plan)
        self._account(before)
        self.held = list(plan.holds)
        mode = plan.mode
        contacts = tuple(sorted(set(self._contacts(key, resting)) | {str(h.contact) for h in plan.holds}))
        if self.accumulating is not None:  # the stretch up to where the impacts accumulate
            mode, contacts = Mode.IMPACT, self.accumulating[1]
        self._open(mode, contacts)
        stop = min(self.until, drive_end, self.accumulating[0] if self.accumulating is not None else math.inf)
        slack, watched = self._slack(key, plan, resting)

        def rhs(_t: float, y: np.ndarray) -> np.ndarray:
            return np.concatenate([y[self.n:], self._acceleration(y[:self.n], y[self.n:], plan)[0]])

        def holding(y: np.ndarray) -> np.ndarray:  # the rows' forces, and each grip's cone margin or slip
            self.u_now, self.du_now = y[:self.n], y[self.n:]
            forces = self._acceleration(self.u_now, self.du_now, plan)[1]
            ends = [m for hold in plan.holds for m in self.features.frame(hold.contact, self.u_now).margins]
            return np.concatenate([forces[:len(plan.G)], self._cone(plan, forces), ends])

        forces = holding if len(plan.G) else None
        scale = self.mechanism.size
        hint = None if self.step is None else min(self.step, (stop - self.t) / 2)
        solver = DOP853(rhs, self.t, np.concatenate([self.u, self.du]), stop, rtol=self.rtol,
                        atol=self.rtol * scale, first_step=hint if hint and hint > 0 else None)
        dense = None
        while True:
            if dense is None:  # the step's remainder is looked at again from a cut crossed in flight
                solver.step()
                if solver.status == "failed":
                    raise RuntimeError(f"the integration failed at t = {self.t:.9g}: {solver.message}")
                dense = solver.dense_output()
            before = self.t
            event = self._first_event(dense, before, solver.t, slack, forces)
            t = solver.t if event is None else event
            y = dense(t) if event is not None else solver.y
            self.step = solver.h_abs  # the next step the solver would take: where the next region starts
            self._accrue(dense, before, t, plan)
            self._sample_grid(dense, before, t)
            self.t, self.u, self.du = t, y[:self.n].copy(), y[self.n:].copy()
            self._sample()
            self.reached(self.t)
            if event is None and solver.status != "finished":
                dense = None
                continue
            if event is not None and self.accumulating is None:
                onward = self._onward(plan, slack, watched, forces, y)
                if onward is not None:  # a cut between free regions: the same motion, other rows to watch
                    slack, watched = onward
                    continue
            if self.accumulating is not None and (event is not None or self.t >= self.accumulating[0]):
                self.t = max(self.t, self.accumulating[0]) if event is None else self.t
                self.accumulating = None
                self._close("impacts accumulate")
            elif event is None and self.t >= drive_end and drive_end < self.until:
                self._close("input motion done")
            return

    def _slack(self, key: tuple[int, ...], plan: _Plan, resting: np.ndarray):
        """The function of the state that must stay positive in region ``key``: the slack of its
        rows but the resting ones and those of pairs held on an exact contact, then the distance
        of each freely turning angle to the seams of the key's turn; and how many rows it watches."""
        region = self.diagram.region(key)
        turns = key[len(self.pairs):]
        G, h = region.rows(), region.h
        held_pairs = {hold.owner for hold in plan.holds}
        watched = np.setdiff1d(np.flatnonzero(~np.isin(region.owners, list(held_pairs))) if held_pairs
                               else np.arange(len(h)), resting)
        G, h, wraps = G[watched], h[watched], self.layout.wraps
        shift = self.layout.local(np.zeros(len(self.mechanism.coordinates)), turns)

        def slack(Y: np.ndarray) -> np.ndarray:  # one state per row of Y (the region's bounds are the key's turns')
            Q = self.bodies.configurations(Y[:, :self.n])
            local = Q[:, wraps] + shift[wraps]
            return np.hstack([h - Q @ G.T, math.pi - local, local + math.pi])

        return slack, len(h)

    def _onward(self, plan: _Plan, slack, watched: int, holding, y: np.ndarray):
        """Where an event is a cut between regions that hold the motion alike (not a seam of a
        turn; the region the state enters rests on the same rows, holds the same exact contacts
        and grips them alike), the slack function of the region entered, so the step's dense
        output goes on being followed there; else None (the integration starts afresh)."""
        values = slack(y[None])[0]
        forces = holding(y) if holding is not None else np.zeros(0)
        if int(np.argmin(values)) >= watched or (values[watched:] <= self.quantum).any() \
                or (forces <= self.quantum).any():  # a seam (where a turn's rows end too), a force let go
            return None
        u, du = self.u.copy(), self.du.copy()
        key, blocked = self._enter()
        if blocked or not (np.array_equal(u, self.u) and np.array_equal(du, self.du)):
            return None  # an impact, or the state moved into free space: start afresh from there
        region = self.diagram.region(key)
        kin = self.bodies.kinematics(self.u, self.du)
        G = region.rows()
        resting = self._resting(key, G, region.h - G @ kin.q, kin, self._contact_rows(key, kin.q))
        entered = self._plan(key, G, resting)
        self._carry_holds(entered)
        contacts = tuple(sorted(set(self._contacts(key, resting)) | {str(h.contact) for h in entered.holds}))
        if _signature(entered) != _signature(plan) or contacts != self.open["contacts"]:
            return None
        return self._slack(key, plan, resting)

    def _first_event(self, dense, t0: float, t1: float, slack, forces) -> float | None:
        """The first time in (t0, t1] where a watched row's slack or a resting contact's force
        (``forces``, None in flight) falls below zero, on the step's dense output (:func:`first_crossing`)."""
        def rows(times: np.ndarray) -> np.ndarray:
            return slack(dense(times).T)

        def values(times: np.ndarray) -> np.ndarray:
            Y = dense(times).T
            return slack(Y) if forces is None else np.hstack([slack(Y), np.array([forces(y) for y in Y])])

        if not values(np.array([t0])).size:  # nothing to watch: no row, no seam, no contact
            return None
        return first_crossing(values, t0, t1, self.mechanism.tolerance.quantum, rising=self.still, head=rows)

    def _resting(self, key: tuple[int, ...], G: np.ndarray, slack: np.ndarray, kin,
                 contact: np.ndarray) -> np.ndarray:
        """The tight rows a contact force holds: contacts (``contact``, a mask), tight, still (on
        the exact contact, for a pair with a turning part), and pressed (a positive multiplier).
        A cut between free regions holds nothing."""
        tight = np.flatnonzero(contact & (slack <= self.length))
        if not len(tight):
            return tight
        rates = -(G[tight] @ kin.dq) @ self.du
        holds = self._holds(key, G, tight)
        for hold in holds:
            rates[hold.row] = self._gap_rate_row(hold, self.u) @ self.du
        still = np.abs(rates) <= self.still
        candidates = tight[still]
        if not len(candidates):
            return candidates
        positions = np.cumsum(still) - 1
        plan = _Plan(G[candidates], holds=[replace(h, row=int(positions[h.row])) for h in holds if still[h.row]])
        _, forces = self._acceleration(self.u, self.du, plan, complementary=True)
        return candidates[forces[:len(candidates)] > 0]

    def _plan(self, key: tuple[int, ...], G: np.ndarray, resting: np.ndarray) -> _Plan:
        """How the resting rows hold: each one with friction (a contact law's ``mu`` above zero)
        sticks while its friction force stays inside the cone, and slips otherwise."""
        plan = _Plan(G[resting])
        self.features.forget()
        plan.holds = self._holds(key, G, resting)
        region = self.diagram.region(key)
        q = self.bodies.kinematics(self.u, self.du).q
        local = self.layout.local(q, key[len(self.pairs):])
        for position, row in enumerate(resting.tolist()):
            owner = int(region.owners[row])
            if owner < 0:
                continue
            pair = self.pairs[owner]
            contacts = sorted(pair.contacts_in(key[owner], pair.point(local[self.layout.columns[owner]]), self.length),
                              key=str)
            laws = [(c, self.mechanism.dynamics.law(c.part_a, c.part_b, c.faces_a, c.faces_b)[1]) for c in contacts]
            gripping = [(self._margin_ahead(c), str(c), c, mu) for c, mu in laws if mu > 0]
            if gripping:  # the contact the exact parts make here (the most inside its features)
                margins, _, contact, mu = max(gripping, key=lambda g: (min(g[0], default=math.inf), g[1]))
                outside = tuple(k for k, m in enumerate(margins) if m < 0)
                plan.grips.append(_Grip(position, contact, mu, on=not outside, outside=outside))
        for grip in plan.grips:
            slip = self._slip(grip, self.u, self.du)
            grip.stick, grip.sign = abs(slip) <= self.still, math.copysign(1.0, slip)
        if plan.sticking:
            _, forces = self._acceleration(self.u, self.du, plan)
            self.u_now, self.du_now = self.u, self.du
            for grip, margin in zip(plan.grips, self._cone(plan, forces)):
                if grip.on and grip.stick and margin < -self.still:
                    grip.stick, grip.sign = False, -math.copysign(1.0, forces[len(plan.G) + plan.sticking.index(grip)])
        return plan

    def _gap_rate_row(self, hold: _Hold, u: np.ndarray) -> np.ndarray:
        """How the exact gap of a held contact changes with each independent coordinate."""
        frame = self.features.frame(hold.contact, u)
        normal = np.array([-frame.tangent[1], frame.tangent[0]])
        moving = self.bodies.point_jacobian(hold.contact.part_b, frame.point, u) - \
            self.bodies.point_jacobian(hold.contact.part_a, frame.point, u)
        return hold.sign * (normal @ moving)

    def _exact_row(self, hold: _Hold, u: np.ndarray, du: np.ndarray) -> tuple[np.ndarray, float]:
        """A held contact's gap-rate row and the rest of its gap's acceleration (the row's change
        along the motion times the rates: a central difference over a step that moves the parts by
        ``NOISE`` of the size, far below the tolerances and far above rounding)."""
        row = self._gap_rate_row(hold, u)
        speed = float(np.abs(self.bodies.kinematics(u, du).dq @ du).max(initial=0.0))
        if speed == 0:
            return row, 0.0
        h = 1e-6 * self.mechanism.size / speed
        ahead, behind = self._gap_rate_row(hold, u + h * du), self._gap_rate_row(hold, u - h * du)
        return row, float((ahead - behind) @ du) / (2 * h)

    def _holds(self, key: tuple[int, ...], G: np.ndarray, resting: np.ndarray) -> list[_Hold]:
        """The rows ``resting`` of region ``key`` that are pairs' with a turning part, each held on
        the exact contact it stands for (the first whose features give a contact point), its
        normal oriented as the row's; each hold's ``row`` is its place in ``resting``."""
        region = self.diagram.region(key)
        kin = self.bodies.kinematics(self.u, self.du)
        local = self.layout.local(kin.q, key[len(self.pairs):])
        holds = []
        for position, row in enumerate(resting.tolist()):
            owner = int(region.owners[row])
            if owner < 0 or not any(self.mechanism.coordinate(c).is_angle for c in self.pairs[owner].coordinates):
                continue
            pair = self.pairs[owner]
            for contact in sorted(pair.contacts_in(key[owner], pair.point(local[self.layout.columns[owner]]),
                                                   self.length), key=str):
                try:
                    hold = _Hold(position, contact, owner)
                    exact = self._gap_rate_row(hold, self.u)
                except ValueError:  # a corner on a corner: no contact point to hold
                    continue
                along = -(G[row] @ kin.dq)
                hold.sign = 1.0 if along @ exact >= 0 else -1.0
                holds.append(hold)
                break
        return holds

    def _margin_ahead(self, contact: Contact) -> tuple[float, ...]:
        """How far inside its features the contact's exact point lies once the parts have moved
        on by a length tolerance: on an end of a face, whether it is coming onto it or leaving."""
        speed = float(np.abs(self.bodies.kinematics(self.u, self.du).dq @ self.du).max(initial=0.0))
        ahead = self.u + self.du * (self.length / speed if speed > 0 else 0.0)
        return self.features.frame(contact, ahead).margins

    def _account(self, before: float) -> None:
        """Put in the open stretch's ledger what a correction of the state changed the energy by
        (rates made still on a resting contact; the parts moved out of a flattened pair space's
        grown blocked space): a loss, or a negative one, never a drift."""
        if self.open is not None:
            self.open["losses"] += before - self.bodies.energies(self.u, self.du).total

    def _carry_holds(self, plan: _Plan) -> None:
        """Keep holding the exact contacts held before (a cut of another pair crossed, a region
        entered): the flattened rows of their pairs need not be tight where the exact contact is,
        so they are carried while their contact point stays on its features, their gap still and
        their force pressing."""
        present = {str(h.contact) for h in plan.holds}
        carried = [h for h in self.held if str(h.contact) not in present
                   and min(self._margin_ahead(h.contact), default=math.inf) >= 0
                   and abs(self._gap_rate_row(h, self.u) @ self.du) <= self.still]
        while carried:
            trial = _Plan(np.vstack([plan.G, np.zeros((len(carried), plan.G.shape[1] if plan.G.size else
                                                         len(self.mechanism.coordinates)))]),
                          plan.grips, plan.holds + [replace(h, row=len(plan.G) + k) for k, h in enumerate(carried)])
            forces = self._acceleration(self.u, self.du, trial, complementary=True)[1]
            pressing = [h for k, h in enumerate(carried) if forces[len(plan.G) + k] > 0]
            if len(pressing) == len(carried):
                plan.G, plan.holds = trial.G, trial.holds
                return
            carried = pressing

    def _settle_rates(self, plan: _Plan) -> None:
        """Take out of the rates what would open or close a resting contact: what the velocity
        tolerance let the last impacts leave on its row (a stack creeping into the floor), and, on
        an exact contact, what its flattened row, a little off the exact normal, let through. The
        least change in the kinetic energy's metric that does: a plastic impact on the contacts,
        the driven coordinates' rates as they are."""
        if not len(plan.G):
            return
        free = self._free()
        kin = self.bodies.kinematics(self.u, self.du)
        rows = -(plan.G @ kin.dq)
        for hold in plan.holds:
            rows[hold.row] = self._gap_rate_row(hold, self.u)
        M = self.bodies.mass_matrix(self.u)[np.ix_(free, free)]
        Minv_rows = np.linalg.solve(M, rows[:, free].T)
        correction = Minv_rows @ np.linalg.lstsq(rows[:, free] @ Minv_rows, rows @ self.du, rcond=None)[0]
        self.du[free] -= correction

    def _slip(self, grip: _Grip, u: np.ndarray, du: np.ndarray) -> float:
        """The contact's sliding velocity: the tangential speed of the second part's point on the first's."""
        return float(self._tangent(grip, u) @ du)

    def _tangent(self, grip: _Grip, u: np.ndarray) -> np.ndarray:
        if grip.at is not None and grip.at[0] == u.tobytes():
            return grip.at[1]
        frame = self.features.frame(grip.contact, u)
        moving = self.bodies.point_jacobian(grip.contact.part_b, frame.point, u) - \
            self.bodies.point_jacobian(grip.contact.part_a, frame.point, u)
        grip.normal = np.array([-frame.tangent[1], frame.tangent[0]]) @ moving
        tangent = frame.tangent @ moving
        grip.at = (u.tobytes(), tangent)
        return tangent

    def _cone(self, plan: _Plan, forces: np.ndarray) -> list[float]:
        """Per grip: how far inside the friction cone it holds (``mu`` times the normal force less
        the friction force, when it sticks) or how it keeps slipping (its sliding velocity times
        the direction it slips in); both must stay positive."""
        margins = []
        for grip in plan.grips:
            inside = self.features.frame(grip.contact, self.u_now).margins
            if grip.on:  # the exact contact's point leaves its features, or comes onto them
                margins.extend(inside)
            else:
                margins.extend(-inside[k] for k in grip.outside)
                continue
            if grip.stick:
                friction = forces[len(plan.G) + plan.sticking.index(grip)]
                bound = grip.mu * grip.scale * forces[grip.row]
                margins += [bound - friction, bound + friction]
            else:
                margins.append(grip.sign * self._slip(grip, self.u_now, self.du_now))
        return margins

    def _acceleration(self, u: np.ndarray, du: np.ndarray, plan: _Plan, complementary: bool = False):
        """The free coordinates' accelerations (driven ones have none) with the plan's rows held
        at zero slack acceleration and its sticking contacts at zero sliding acceleration, and the
        multipliers: the rows' (complementary: only pressing ones), then the sticking friction forces.
        A slipping contact's friction, ``mu`` times its normal force against its slip, rides on its row."""
        ddu, forces, _ = self._dynamics(u, du, plan, complementary)
        return ddu, forces

    def _inverse(self, M: np.ndarray) -> np.ndarray:
        """The inverse of the free coordinates' mass matrix: once, where the bodies' is constant."""
        if self.bodies.constant_mass and self._constant_inverse is not None:
            return self._constant_inverse
        free = self._free()
        inverse = np.linalg.inv(M if self.all_free else M[np.ix_(free, free)])
        if self.bodies.constant_mass:
            self._constant_inverse = inverse
        return inverse

    def _input_power(self, u: np.ndarray, du: np.ndarray, plan: _Plan) -> float:
        """The power the inputs put in: the generalized force that keeps each driven coordinate at
        its rate (what its motion's equation leaves over), times that rate."""
        if self.all_free:
            return 0.0
        return float(self._dynamics(u, du, plan)[2] @ du[~self._free()])

    def _dynamics(self, u: np.ndarray, du: np.ndarray, plan: _Plan, complementary: bool = False):
        """Accelerations, multipliers, and the forces the driven coordinates need (see above)."""
        M, f = self.bodies.terms(u, du, self.t)
        free = self._free()
        ddu = np.zeros(self.n)
        inverse = self._inverse(M)
        base = inverse @ f[free]
        if not len(plan.G):
            ddu[free] = base
            return ddu, np.zeros(0), (M @ ddu - f)[~free]
        kin = self.bodies.kinematics(u, du)
        N = -(plan.G @ kin.dq)
        kappa = -(plan.G @ kin.ddq)
        for hold in plan.holds:
            N[hold.row], kappa[hold.row] = self._exact_row(hold, u, du)
        D = N.copy()
        T = []
        for grip in plan.sticking + plan.slipping:
            tangent = self._tangent(grip, u)
            normal = grip.normal
            grip.scale = abs(N[grip.row] @ normal) / (normal @ normal)  # normal force per unit multiplier
            if grip.stick:
                T.append(tangent)
            else:
                D[grip.row] = N[grip.row] - grip.mu * grip.sign * grip.scale * tangent
        held = np.vstack([N] + T) if T else N
        pushed = np.vstack([D] + T) if T else D
        Minv_pushed = inverse @ pushed[:, free].T
        A, b = held[:, free] @ Minv_pushed, held[:, free] @ base + np.concatenate([kappa, np.zeros(len(T))])
        if complementary:
            forces = complementarity(A, b, self.still * max(1.0, float(np.abs(b).max(initial=0.0))))
        elif len(b) == 1 and A[0, 0] != 0:
            forces = -b / A[0, 0]
        else:
            forces = np.linalg.lstsq(A, -b, rcond=None)[0]
        ddu[free] = base + Minv_pushed @ forces
        return ddu, forces, (M @ ddu - f - pushed.T @ forces)[~free]

    # -- ledger, stretches, samples ----------------------------------------------------------

    def _accrue(self, dense, t0: float, t1: float, plan: _Plan) -> None:
        """Add the loads' and the inputs' work and the dampers' and slipping contacts' losses over
        ``[t0, t1]`` (Gauss-Legendre on the dense output)."""
        if t1 <= t0 or self.open is None or not (self.bodies.powered or plan.slipping or not self.all_free):
            return
        half = (t1 - t0) / 2
        for x, w in zip(*LEDGER_NODES):
            y = dense(t0 + half * (x + 1))
            work, loss = self.bodies.power(y[:self.n], y[self.n:])
            work += self._input_power(y[:self.n], y[self.n:], plan)
            if plan.slipping:
                forces = self._acceleration(y[:self.n], y[self.n:], plan)[1]
                loss += sum(g.mu * g.scale * forces[g.row] * abs(self._slip(g, y[:self.n], y[self.n:]))
                            for g in plan.slipping)
            self.open["work"] += w * half * work
            self.open["losses"] += w * half * loss

    def _open(self, mode: Mode, contacts: tuple[str, ...]) -> None:
        if self.open is not None and (self.open["mode"], self.open["contacts"]) == (mode, contacts):
            return
        self._close("contacts change" if self.open is not None else "")
        q, v = self._state()
        self.open = {"mode": mode, "contacts": contacts, "start": self.t, "q": q, "v": v, "work": 0.0,
                     "losses": 0.0, "energies": self.bodies.energies(self.u, self.du)}

    def _close(self, why: str) -> None:
        if self.open is None:
            return
        o, self.open = self.open, None
        q, v = self._state()
        self.stretches.append(Stretch(len(self.stretches) + 1, o["mode"], o["start"], self.t, o["contacts"], o["q"],
                                      q, o["v"], v, o["energies"], self.bodies.energies(self.u, self.du),
                                      o["work"], o["losses"], why))

    def _state(self) -> tuple[tuple[float, ...], tuple[float, ...]]:
        kin = self.bodies.kinematics(self.u, self.du)
        return tuple(kin.q.tolist()), tuple((kin.dq @ self.du).tolist())

    def _sample(self) -> None:
        q, v = self._state()
        energies = self.bodies.energies(self.u, self.du)
        self.samples.append((self.t, q, v, energies))

    def _sample_grid(self, dense, t0: float, t1: float) -> None:
        """Sample the path at the multiples of the sampling interval inside ``(t0, t1)``."""
        step = self.mechanism.dynamics.sampling
        k = math.floor(t0 / step) + 1
        while k * step < t1 - NOISE * step:
            if k * step > t0 + NOISE * step:
                y = dense(k * step)
                kin = self.bodies.kinematics(y[:self.n], y[self.n:])
                self.samples.append((k * step, tuple(kin.q.tolist()), tuple((kin.dq @ y[self.n:]).tolist()),
                                     self.bodies.energies(y[:self.n], y[self.n:])))
            k += 1

    def _arrays(self) -> tuple[np.ndarray, ...]:
        times = np.array([s[0] for s in self.samples])
        return (times, np.array([s[1] for s in self.samples]), np.array([s[2] for s in self.samples]),
                np.array([(s[3].kinetic, s[3].potential) for s in self.samples]))

    def _contacts(self, key: tuple[int, ...], rows: np.ndarray) -> tuple[str, ...]:
        """The names of the contacts (and stops) the region's ``rows`` stand for at the present state."""
        region = self.diagram.region(key)
        q = self.bodies.kinematics(self.u, self.du).q
        local = self.layout.local(q, key[len(self.pairs):])
        names: set[str] = set()
        for row in np.asarray(rows, int).tolist():
            owner = int(region.owners[row])
            if owner < 0:
                if region.stops[row] is not None:
                    names.add(str(region.stops[row]))
                continue
            pair = self.pairs[owner]
            point = pair.point(local[self.layout.columns[owner]])
            names.update(map(str, pair.contacts_in(key[owner], point, self.length)))
        return tuple(sorted(names))

    # -- inputs -------------------------------------------------------------------------------

    def _free(self) -> np.ndarray:
        return self.free_mask

    def _drives(self):
        """Which coordinates the inputs drive, and a function of time giving when the input motion
        in force ends and the driven coordinates' velocities (each input for its duration, in turn)."""
        bodies = self.bodies
        self.free_mask = np.ones(self.n, bool)
        spans = []
        start = 0.0
        for motion in self.mechanism.inputs:
            velocities = np.zeros(self.n)
            for name, rate in motion.velocities:
                velocities[bodies.column[name]] = rate
                self.free_mask[bodies.column[name]] = False
            end = math.inf if motion.duration is None else start + motion.duration
            spans.append((start, end, velocities))
            start = end
        self.all_free = bool(self.free_mask.all())

        def drive(t: float) -> tuple[float, np.ndarray]:
            for begin, end, velocities in spans:
                if begin <= t < end:
                    return end, velocities
            return math.inf, np.zeros(self.n)

        return drive


def _signature(plan: _Plan) -> tuple:
    """What a plan holds and how: its rows, each grip's contact and state, each exact contact."""
    return (plan.G.tobytes(), tuple((g.row, str(g.contact), g.on, g.outside, g.stick, g.sign) for g in plan.grips),
            tuple((h.row, str(h.contact), h.sign) for h in plan.holds))


def first_crossing(values, t0: float, t1: float, tight: float, depth: int = 0, rising: float = math.inf,
                   head=None) -> float | None:
    """The first time in ``(t0, t1]`` where a component of the smooth vector function ``values``
    falls below zero. Each component is fitted by a polynomial of degree ``DEGREE`` at Chebyshev
    points of the step (exactly, when it is one, as a row's slack on a DOP853 step of parts on
    fixed axes is; the fit's residual at the points says how far it is from one). A component
    whose fit stays clear of zero by more than its residual is passed over; where a component near
    zero is not such a polynomial (a corner's distance to a curve, with a dip narrower than the
    step), the step is halved and each half looked at in turn; otherwise every root of the fit
    and of its derivative is followed, so a crossing and a crossing back inside one step are
    seen, and the first crossing is refined on the function. A component that starts within
    ``tight`` of zero (the contact just made or left) counts if it starts rising faster than
    ``rising`` (a rebound, however small), or else from where it has risen above ``tight`` (the
    exact grid's step: far below any contact's tolerance, far above the rounding of a slack).

    ``values`` maps an array of instants to one row of the components per instant; ``head``, if
    given, to the first of them alone (cheaper: a component among them is refined on it).

    >>> round(first_crossing(lambda t: np.column_stack([(t - 0.5) ** 2 - 0.01, 1 - t]), 0.0, 1.0, 1e-9), 12)
    0.4
    >>> round(first_crossing(lambda t: np.column_stack([np.hypot(t - 0.7, 1e-4) - 2e-4]), 0.0, 1.0, 1e-12), 9)
    0.699826795
    """
    sampled = values(np.append(t0 + (t1 - t0) * NODES, t0))
    if not sampled.size:
        return None
    start, sampled = sampled[-1], sampled[:-1]
    x = 2 * NODES - 1
    coefficients = np.polynomial.chebyshev.chebfit(x, sampled, DEGREE).reshape(DEGREE + 1, -1)
    residual = np.abs(np.polynomial.chebyshev.chebval(x, coefficients).T - sampled).max(axis=0)
    clear = (coefficients[0] - np.abs(coefficients[1:]).sum(axis=0) - 2 * residual > tight) & (start > tight)
    if depth < MAX_HALVINGS and (residual[~clear] > tight).any():
        middle = (t0 + t1) / 2
        first = first_crossing(values, t0, middle, tight, depth + 1, rising, head)
        return first if first is not None else first_crossing(values, middle, t1, tight, depth + 1, rising, head)
    first = None
    slopes = np.polynomial.chebyshev.chebval(-1.0, np.polynomial.chebyshev.chebder(coefficients)) * 2 / (t1 - t0)
    known: dict[float, np.ndarray] = {t0: start}

    def value(t: float, k: int) -> float:  # a component of the function, each instant evaluated once
        row = known.get(t)
        if row is None and head is not None:
            row = head(np.array([t]))[0]
        if row is None or len(row) <= k:
            row = values(np.array([t]))[0]
        known[t] = row
        return float(row[k])

    least = _least(coefficients)
    for column in np.flatnonzero(~clear).tolist():
        if least[column] - residual[column] > tight and start[column] > tight:
            continue  # the fit stays above zero, by more than its error: no root of it to look for
        c = coefficients[:, column]
        points = [r.real for r in (*np.polynomial.chebyshev.chebroots(c),
                                   *np.polynomial.chebyshev.chebroots(np.polynomial.chebyshev.chebder(c)))
                  if abs(r.imag) < 1e-7 and -1 < r.real < 1]
        fitted = np.polynomial.chebyshev.chebval(np.array([-1.0, 1.0, *points]), c)
        armed = float(start[column]) > tight or float(np.atleast_1d(slopes)[column]) > rising
        if fitted.min() - residual[column] > tight and (armed or float(start[column]) > -tight):
            continue  # the fit stays above zero at its every extremum, by more than its error
        grid = [t0] + sorted(t0 + (t1 - t0) * (p + 1) / 2 for p in points) + [t1]
        root = _crossing(lambda t, k=column: value(t, k), grid, float(start[column]), tight, armed)
        if root is not None and (first is None or root < first):
            first = root
    return first


def _least(coefficients: np.ndarray) -> np.ndarray:
    """A lower bound of each column's Chebyshev series on [-1, 1]: its least value on a grid of
    ``BOUND_POINTS`` less how far its slope (at most sum k^2 |c_k|) can take it between points."""
    values = np.polynomial.chebyshev.chebval(BOUND_GRID, coefficients)
    slope = (np.arange(len(coefficients)) ** 2) @ np.abs(coefficients)
    return values.min(axis=-1) - slope / (BOUND_POINTS - 1)


def _crossing(function, grid: list[float], start: float, tight: float, armed: bool) -> float | None:
    """The first zero of ``function`` where it falls below zero between the points of ``grid``
    (its values there bracket it); from the start when ``armed``, else once above ``tight``."""
    previous_t, previous = grid[0], start
    for t in grid[1:]:
        value = function(t)
        if armed and previous >= 0 > value:
            return brentq(function, previous_t, t, xtol=1e-15 * max(1.0, abs(t)), rtol=4 * np.finfo(float).eps)
        armed = armed or value > tight
        previous_t, previous = t, value
    return None
