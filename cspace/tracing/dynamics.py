"""Simple dynamics: how every coordinate moves at a configuration (DESIGN, 'Simple dynamics').

At a configuration inside a mechanism region, one small linear program gives the
velocity of every coordinate:

* prescribed rates are fixed: the input coordinates during an input step; during
  the external step the input coordinates are held still (the input wins);
* tight constraints may not be violated: ``g @ v <= 0`` for every tight row;
* linkages carry their output: ``v_out = slope * v_in`` on the table cell in use;
* touching sticky faces move in tandem (:mod:`cspace.tracing.friction`): ``grip @ v = 0``
  while the parts do not draw apart;
* forced coordinates move as far along their force as they can (up to their speed
  in the external step; following a retreating blocker at any speed in an input
  step), while every other coordinate moves as little as it must (L1 norm).

Velocities are measured against each coordinate's speed scale (the mechanism's
speed for a translation, that over its size for a rotation): tolerances, the
program's variables and its objective, so a mechanism behaves the same at any size
and in any units, and the solver's absolute tolerance means the same everywhere.

The solution fixes a *mode*: which coordinates stand still, which have prescribed
rates, and which tight rows carry motion (a pushed part, a follower). Within one
region the mode stays valid across linkage-table cells, so the path is followed by
solving the mode's small linear system per cell instead of a new program.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import Enum
from functools import cached_property

import numpy as np

from ..kernels.constraints import ConstraintManager
from ..kernels.propagation import reachable, stuck_motions
from ..model.errors import TraceError
from ..model.kinds import Phase
from ..spaces.linkage import LinkageTable
from .friction import Grip
from .regions import MechanismRegion

INPUT, EXTERNAL = Phase.INPUT, Phase.EXTERNAL
UNFORCED_WEIGHT = 1e-3  # per unit of a coordinate's speed scale
SPARSE_SOLVE = 64  # unknowns beyond which a mode's system is solved sparse
JAM = 10.0  # a motion this many times the steepest transmission (Tolerance.steepest) is a jam
PROGRAM_MEMO = 1024  # velocity programs kept: a part turning across free strips meets the same one again


@dataclass(frozen=True)
class LinkageLink:
    """A linkage as the dynamics sees it: table and coordinate indices."""

    table: LinkageTable
    input: int
    output: int


@dataclass
class Mode:
    """A motion valid until an event: rates, still coordinates, binding rows, directions."""

    phase: str
    region: MechanismRegion
    velocity: np.ndarray
    rates: dict[int, float]
    still: frozenset[int]
    binding: tuple[int, ...]
    directions: tuple[int, ...]
    linkages: tuple[LinkageLink, ...]
    eps: np.ndarray  # per coordinate: slower than this stands still
    anchor: np.ndarray  # the configuration the mode was found at
    objective: float = 0.0
    friction: np.ndarray | None = None  # rows ``f @ v = 0`` of the grips holding (cspace.tracing.friction)

    @cached_property
    def row_eps(self) -> np.ndarray:
        """Per row of the region: a rate below this is no rate (the coordinates' tolerances through the row)."""
        return abs(self.region.G) @ self.eps

    def velocity_at(self, q: np.ndarray) -> np.ndarray | None:
        """Velocity on the table cells at ``q``, or None if the mode no longer holds."""
        slopes = [link.table.slope(q[link.input], d, q[link.output]) for link, d in zip(self.linkages, self.directions)]
        v, _ = self.solve(slopes)
        if v is None or np.any(self.signs(v) != self.signs(self.velocity)):
            return None
        return v

    def signs(self, v: np.ndarray) -> np.ndarray:
        """Direction of each coordinate (-1, 0, +1), speeds below the tolerance counting as 0."""
        return np.sign(np.where(np.abs(v) > self.eps, v, 0.0))

    def moving_linkages(self) -> list[int]:
        """Indices of the linkages whose input moves in this mode."""
        return [k for k, link in enumerate(self.linkages) if abs(self.velocity[link.input]) > self.eps[link.input]]

    def check(self, v: np.ndarray | None) -> np.ndarray:
        """``v`` if it is the program's velocity (the contacts determine the motion), else fail."""
        if v is None or np.any(np.abs(v - self.velocity) > 10 * self.eps):
            raise TraceError("the motion at this configuration is not determined by its contacts "
                             "(an underdetermined mode)")
        return v

    def along_one_linkage(self) -> tuple[LinkageLink, np.ndarray, np.ndarray] | None:
        """(linkage, v0, w) with velocity ``v0 + slope * w`` on every table cell, if that holds.

        It holds when exactly one linkage moves and its input's rate does not depend on
        the linkage's slope (the input has a prescribed rate, or is pushed by one):
        then the path is an affine image of the linkage's table and can be followed
        across all its cells at once.
        """
        moving = self.moving_linkages()
        if len(moving) != 1:
            return None
        k = moving[0]
        link = self.linkages[k]
        slope = link.table.slope(self.anchor[link.input], self.directions[k], self.anchor[link.output])
        change = link.table.slope_scale  # a change of slope in the linkage's own units
        slopes = [0.0] * len(self.linkages)
        slopes[k] = slope + change
        tilted, unique = self.solve(slopes)
        if tilted is None:
            return None
        if unique:
            # A square nonsingular system: its solution at the current slope is the
            # program's velocity, so one more solve gives the change per unit slope.
            w = (tilted - self.velocity) / change
            v0 = self.velocity - slope * w
        else:
            slopes[k] = slope
            at_slope, _ = self.solve(slopes)
            if at_slope is None:
                return None
            w = (tilted - at_slope) / change
            v0 = at_slope - slope * w
            self.check(at_slope)
        if abs(w[link.input]) > self.eps[link.input]:
            return None
        return link, v0, w

    def solve(self, slopes: list[float]) -> tuple[np.ndarray | None, bool]:
        """Velocity with the given linkage slopes: prescribed rates, still coordinates, binding rows.

        Also says whether the system was square and nonsingular (the velocity unique).
        Coordinates with known velocity (still or prescribed) are substituted, so the
        system is only as large as the motion's free coordinates.
        """
        n = len(self.velocity)
        known = np.zeros(n)
        for j, rate in self.rates.items():
            known[j] = rate
        fixed = self.still | set(self.rates)
        unknown = [j for j in range(n) if j not in fixed]
        rows = []
        for link, slope in zip(self.linkages, slopes):
            row = np.zeros(n)
            row[link.output] = 1.0
            row[link.input] = -slope
            rows.append(row)
        if self.binding:
            rows.extend(self.region.rows(list(self.binding)))
        if self.friction is not None:
            rows.extend(self.friction)
        v = known.copy()
        if not rows:
            return v, not unknown
        A = np.array(rows)
        b = -(A @ known)
        tolerance = np.abs(A) @ self.eps
        A = A[:, unknown]
        unique = A.shape[0] == A.shape[1]
        x = _square_solution(A, b) if unique else None
        if x is None:
            unique = False
            x = np.linalg.lstsq(A, b, rcond=None)[0]
        if np.any(np.abs(A @ x - b) > tolerance):
            return None, False
        v[unknown] = x
        return v, unique

    def transmissions(self, q: np.ndarray) -> list[tuple[int, int]]:
        """(pusher, pushed) coordinate pairs across contacts that stay tight while moving.

        Along a tight contact row ``g @ q <= h`` with ``g @ v = 0``, coordinate k pushes
        when its own motion would violate the row (``g[k] v[k] > 0``) and is pushed when
        its motion relieves it (``g[k] v[k] < 0``).
        """
        region, v = self.region, self.velocity
        rows = region.rows(region.tight(q) & (region.owners >= 0))
        rows = rows[np.abs(rows @ v) <= np.abs(rows) @ self.eps]
        effect, noise = rows * v, np.abs(rows) * self.eps
        pushers: dict[int, list[int]] = {}
        pushed: dict[int, list[int]] = {}
        for side, (r, k) in ((pushers, np.nonzero(effect > noise)), (pushed, np.nonzero(effect < -noise))):
            for row, j in zip(r.tolist(), k.tolist()):
                side.setdefault(row, []).append(j)
        return sorted({(a, b) for row, sources in pushers.items() for a in sources for b in pushed.get(row, ())})


@dataclass(frozen=True)
class Velocity:
    """A solved velocity program: objective, velocity, linkage directions, forced progress,
    and the rows of the grips it kept (friction)."""

    objective: float
    v: np.ndarray
    directions: tuple[int, ...]
    progress: float
    friction: np.ndarray | None = None

    def __repr__(self) -> str:
        return f"Velocity(objective={self.objective:.6g}, progress={self.progress:.6g})"


class Undetermined(Enum):
    """What :meth:`SimpleDynamics.determined` says when the velocity is not clear without a program."""

    NO_MOTION = "no motion"  # a tight row is violated and nothing can relieve it
    PROGRAM = "program"  # a velocity program must decide


class Relation(Enum):
    """What became of an equality on the velocities a program was to hold."""

    ADDED = "added"  # a row of the program
    KEPT = "kept"  # the known velocities alone keep it
    BROKEN = "broken"  # the known velocities alone break it: no motion


class SimpleDynamics:
    """Velocity programs for one mechanism.

    ``scales`` holds each coordinate's speed scale; ``tolerance`` is the fraction of it
    below which a coordinate stands still (the velocity tolerance factor), also the
    least difference between two objectives, which are measured in speed scales;
    ``steepest`` the largest speed ratio a contact transmits (:attr:`Tolerance.steepest`):
    a motion ``JAM`` times faster (in speed scales) is a jam.
    """

    def __init__(self, n: int, linkages: tuple[LinkageLink, ...], forces: dict[int, tuple[int, float]],
                 manager: ConstraintManager, scales: np.ndarray, tolerance: float, steepest: float) -> None:
        self.n = n
        self.linkages = linkages
        self.forces = forces
        self.manager = manager
        self.scales = np.asarray(scales, float)
        self.eps = tolerance * self.scales
        self.floor = tolerance
        self.speed_limit = JAM * steepest
        self.limit = self.speed_limit * self.scales
        # A linkage's input and output move together (either drives the other).
        self._partners = np.array([(lk.input, lk.output) for lk in linkages], np.intp).reshape(-1, 2)
        self._programs: dict[tuple, Velocity | None] = {}
        self._column_memo: dict[tuple, tuple[np.ndarray, ...]] = {}

    def velocity(self, region: MechanismRegion, q: np.ndarray, phase: str, fixed: dict[int, float],
                 ignore: np.ndarray, still: set[int] = frozenset(), grips: tuple[Grip, ...] = ()) -> Velocity | None:
        """Best velocity inside ``region`` at ``q``, or None when the fixed rates are infeasible.

        Rows of the constraining pairs flagged in ``ignore`` (pairs that touch nothing
        here) do not constrain it. Coordinates in ``still`` are held at zero (nothing can
        move them). Each of the ``grips`` (sticky contacts holding at ``q``) holds its
        parts in tandem, unless they draw apart (or, for sticky faces meeting end to
        end, slide apart along the faces: :meth:`cspace.tracing.friction.Grip.lets_go`): in the
        motion found without any grip (a spring pulling a part off), or in the motion
        found with it; then the motion is found again without it (friction acts between
        touching faces only).
        """
        rows = region.tight_except(q, ignore).nonzero()[0]
        if still:
            fixed = {**{j: 0.0 for j in still}, **fixed}
        grips = list(grips)
        if grips:
            loose = self._best(region, rows, q, phase, fixed, None)
            grips = [g for g in grips if loose is None or not self._letting_go(region, q, g, loose.v)]
        while True:
            friction = np.vstack([g.rows for g in grips]) if grips else None
            best = self._best(region, rows, q, phase, fixed, friction)
            parting = [g for g in grips if best is not None and self._letting_go(region, q, g, best.v)]
            if not parting:
                return best if best is None else replace(best, friction=friction)
            grips = [g for g in grips if g not in parting]

    def _best(self, region: MechanismRegion, rows: np.ndarray, q: np.ndarray, phase: str, fixed: dict[int, float],
              friction: np.ndarray | None) -> Velocity | None:
        """The best of the programs over the linkages' possible directions."""
        best: Velocity | None = None
        for directions in self._direction_choices(q, fixed):
            found = self.velocity_program(region, rows, q, phase, fixed, directions, friction)
            if found is not None and (best is None or found.objective < best.objective - self.floor):
                best = found
        return best

    def _letting_go(self, region: MechanismRegion, q: np.ndarray, grip: Grip, v: np.ndarray) -> bool:
        """Does ``v`` end the grip's touch: its parts drawing apart, or its sticky faces
        sliding apart end to end? A touch no row records (pair None) draws apart never."""
        parting = grip.pair is not None and self._parting(region, q, grip.pair, v)
        return parting or grip.lets_go(v, self.eps)

    def _parting(self, region: MechanismRegion, q: np.ndarray, pair: int, v: np.ndarray) -> bool:
        """Does ``v`` draw the parts of constraining pair ``pair`` apart (every tight row of
        the pair left at once)? A pair without tight rows in the region cannot tell: no."""
        mine = region.tight(q) & (region.owners == pair)
        if not mine.any():
            return False
        rows = region.rows(mine)
        return bool(np.all(rows @ v < -(np.abs(rows) @ self.eps)))

    def mode(self, region: MechanismRegion, q: np.ndarray, phase: str, fixed: dict[int, float],
             velocity: Velocity) -> Mode:
        """The mode of ``velocity`` inside ``region`` (which must hold the motion)."""
        tight = region.tight(q).nonzero()[0]
        mode = self._mode(region, tight, q, phase, fixed, velocity.v, velocity.directions)
        mode.objective = velocity.objective
        mode.friction = velocity.friction
        return mode

    def stuck_forces(self, rows: np.ndarray, frozen: set[int]) -> set[int]:
        """Forced coordinates that surely cannot move along their force, given tight ``rows``.

        Coordinate k cannot move in direction s if some tight row would be violated by
        that motion unless another coordinate of the row moved the way that relieves
        it, and each such coordinate cannot move that way either (frozen coordinates
        cannot move at all). Sound: a velocity program never moves a force it calls stuck.
        Propagated from each newly stuck motion to the rows it appears in, so the work is
        linear in the rows' entries, compiled (:func:`cspace.kernels.propagation.stuck_motions`):
        cheaper than remembering answers by a digest of the rows, as it once did.
        """
        flags = np.zeros(self.n, np.uint8)
        flags[list(frozen)] = 1
        stuck = stuck_motions(np.ascontiguousarray(rows, float).reshape(len(rows), self.n), flags)
        return {j for j, (d, _) in self.forces.items() if stuck[j, 0 if d > 0 else 1]}

    def reach(self, rows: np.ndarray, start: set[int]) -> set[int]:
        """Coordinates that may move when ``start`` moves: linked to it by tight rows or linkages."""
        flags = np.zeros(self.n, np.uint8)
        flags[list(start)] = 1
        movable = reachable(np.ascontiguousarray(rows, float).reshape(len(rows), self.n), flags, self._partners)
        return set(np.flatnonzero(movable).tolist())

    def determined(self, region: MechanismRegion, q: np.ndarray, phase: str, fixed: dict[int, float],
                   movable: set[int], ignore: np.ndarray) -> Velocity | Undetermined:
        """The velocity without a program, when it is clear what it must be.

        Prescribed rates and linkages fix some coordinates. In the external step a
        force-loaded coordinate moves at its full speed along its force unless the
        tight rows surely stop it (:meth:`stuck_forces`); if nothing is violated so,
        no program could do better. Every other movable coordinate is unforced, so the
        program would move each as little as it must. Start them at rest; while a tight
        row is violated and exactly one of them can relieve it, move that one just
        enough (a push passed along a chain of contacts). A coordinate already moved
        cannot relieve a row by moving back: its move was forced. Each move is forced,
        so the result is the program's optimum (and its only one). Returns it;
        ``Undetermined.NO_MOTION`` when no motion can (a violated row nothing relieves);
        ``Undetermined.PROGRAM`` when a program must decide (a row two coordinates could
        relieve, a force-loaded coordinate that might move less than its full speed, or any
        during an input step).
        """
        v = np.zeros(self.n)
        known = set(fixed)
        for j, rate in fixed.items():
            v[j] = rate
        directions = []
        for link in self.linkages:
            if link.input not in known:
                return Undetermined.PROGRAM
            direction = 1 if v[link.input] >= 0 else -1
            v[link.output] = link.table.slope(q[link.input], direction, q[link.output]) * v[link.input]
            known.add(link.output)
            directions.append(direction)
        free = movable - known
        forced = [j for j in free if j in self.forces]
        rows = region.rows(region.tight_except(q, ignore))
        if forced:
            return self._falling(rows, v, free, forced, tuple(directions)) if phase == EXTERNAL else \
                Undetermined.PROGRAM
        moved: dict[int, float] = {}
        free_mask = np.zeros(self.n, bool)
        free_mask[list(free)] = True
        allowed = np.abs(rows) @ self.eps
        for _ in range(2 * len(rows) + 1):
            excess = rows @ v
            violated = (excess > allowed).nonzero()[0]
            if not len(violated):
                objective = UNFORCED_WEIGHT * sum(abs(v[j]) / self.scales[j] for j in moved)
                return Velocity(objective, v, tuple(directions), self.progress(v))
            r = int(violated[0])
            relievers = [j for j in np.flatnonzero((rows[r] != 0) & free_mask).tolist()
                         if not (j in moved and rows[r, j] * moved[j] > 0)]
            if not relievers:
                return Undetermined.NO_MOTION
            if len(relievers) > 1:
                return Undetermined.PROGRAM
            j = relievers[0]
            change = -excess[r] / rows[r, j]
            moved[j] = moved.get(j, 0.0) + change
            v[j] += change
        return Undetermined.PROGRAM

    def _falling(self, rows: np.ndarray, v: np.ndarray, free: set[int], forced: list[int],
                 directions: tuple[int, ...]) -> Velocity | Undetermined:
        """External step: every forced coordinate the rows do not stop at its full speed, if that violates nothing.

        Everything else is at rest (held inputs, their linkage outputs, what cannot
        move). Each forced coordinate then makes the most progress it can and nothing
        unforced moves, so this is the program's optimum; a program decides if a row
        forbids it.
        """
        if np.any(v != 0):
            return Undetermined.PROGRAM  # something prescribed moves: not the external step this reasoning is for
        stuck = self.stuck_forces(rows, set(range(self.n)) - free)
        for j in forced:
            if j not in stuck:
                direction, speed = self.forces[j]
                v[j] = direction * speed
        if np.any(rows @ v > np.abs(rows) @ self.eps):
            return Undetermined.PROGRAM
        progress = self.progress(v)
        return Velocity(-progress, v, directions, progress)

    def frozen(self, fixed: dict[int, float]) -> set[int]:
        """Coordinates held still: zero prescribed rates, and linkage outputs of held inputs."""
        held = {j for j, rate in fixed.items() if rate == 0}
        return held | {lk.output for lk in self.linkages if lk.input in held}

    def progress(self, v: np.ndarray) -> float:
        """How far forced coordinates move along their forces, as fractions of their full speeds."""
        return float(sum(d * v[j] / speed for j, (d, speed) in self.forces.items()))

    def _direction_choices(self, q: np.ndarray, fixed: dict[int, float]) -> list[tuple[int, ...]]:
        """Input directions to try for each linkage: known, or both at a table node."""
        choices = [()]
        for link in self.linkages:
            if link.input in fixed:
                options = [1 if fixed[link.input] >= 0 else -1]
            elif link.table.slope(q[link.input], 1, q[link.output]) == link.table.slope(q[link.input], -1, q[link.output]):
                options = [1]
            else:
                options = [1, -1]
            choices = [c + (o,) for c in choices for o in options]
        return choices

    def velocity_program(self, region: MechanismRegion, tight: np.ndarray, q: np.ndarray, phase: str,
                 fixed: dict[int, float], directions: tuple[int, ...],
                 friction: np.ndarray | None = None) -> Velocity | None:
        """The velocity program over the free coordinates.

        Coordinates with known velocity (prescribed or held) are substituted, which
        keeps the program as small as the motion's real freedom. A forced coordinate is
        one column; an unforced one is split into forward and backward parts
        ``v = p - m`` (p, m >= 0) so that minimizing p + m minimizes |v|. Columns are in
        units of their coordinates' speed scales and rows are normalized, so the
        solver's tolerance is relative whatever the mechanism's size or units.
        ``friction`` rows are equalities ``f @ v = 0``, as a linkage's relation is.

        A program is remembered by everything it is made of (the tight rows, the known
        rates, the phase, the linkages' slopes and directions, the friction rows): the
        pieces of a path across regions that differ only where nothing touches pose the
        same one, and its answer is the same.
        """
        G = region.rows(tight)
        slopes = tuple(link.table.slope(q[link.input], direction, q[link.output])
                       for link, direction in zip(self.linkages, directions))
        memo = (phase, tuple(sorted(fixed.items())), directions, slopes, G.shape, G.tobytes(),
                None if friction is None else (friction.shape, friction.tobytes()))
        if memo not in self._programs:
            if len(self._programs) >= PROGRAM_MEMO:
                self._programs.clear()
            self._programs[memo] = self._solved(G, phase, fixed, directions, slopes, friction)
        found = self._programs[memo]
        return None if found is None else replace(found, v=found.v.copy())

    def _solved(self, G: np.ndarray, phase: str, fixed: dict[int, float], directions: tuple[int, ...],
                slopes: tuple[float, ...], friction: np.ndarray | None) -> Velocity | None:
        """The velocity program of :meth:`velocity_program` over the tight rows ``G``, solved."""
        relations = [] if friction is None else list(friction)
        known, spread, cost, lower, upper = self._columns(phase, fixed)
        if not spread.shape[1]:
            # Every velocity known: still, a tight row they push into blocks the motion.
            if np.any(G @ known > np.abs(G) @ self.eps):
                return None
            if any(abs(f @ known) > np.abs(f) @ self.eps for f in relations):
                return None
            return Velocity(0.0, known.copy(), directions, self.progress(known))
        rows = G @ spread
        rhs = -(G @ known)
        touches = np.any(rows != 0, axis=1)
        if np.any(rhs[~touches] < -(np.abs(G) @ self.eps)[~touches]):
            return None  # a tight row the known velocities alone violate
        norms = np.abs(rows[touches]).max(axis=1, initial=0.0)
        blocks = [rows[touches] / norms[:, None]]
        row_lo, row_hi = [np.full(int(touches.sum()), -np.inf)], [rhs[touches] / norms]

        def equality(relation: np.ndarray) -> Relation:
            """Add ``relation @ v = 0`` to the program, unless the known velocities alone keep
            it or break it: which of the three."""
            row = relation @ spread
            value = -(relation @ known)
            if not row.any():
                return Relation.KEPT if abs(value) <= np.abs(relation) @ self.eps else Relation.BROKEN
            norm = np.abs(row).max()
            blocks.append(row[None, :] / norm)
            row_lo.append([value / norm])
            row_hi.append([value / norm])
            return Relation.ADDED

        for link, direction, slope in zip(self.linkages, directions, slopes):
            relation = np.zeros(self.n)
            relation[link.output] = 1.0
            relation[link.input] -= slope
            added = equality(relation)
            if added is Relation.BROKEN:
                return None
            if added is Relation.ADDED and link.input not in fixed:
                blocks.append(direction * spread[link.input][None, :] / self.scales[link.input])
                row_lo.append([0.0])
                row_hi.append([np.inf])
        if any(equality(relation) is Relation.BROKEN for relation in relations):
            return None
        result = self.manager.solve(cost, np.vstack(blocks), np.concatenate(row_lo), np.concatenate(row_hi),
                                    lower, upper)
        if not result.ok:
            return None
        v = known + spread @ result.x
        return Velocity(result.objective, v, directions, self.progress(v))

    def _columns(self, phase: str, fixed: dict[int, float]) -> tuple[np.ndarray, ...]:
        """The velocity program's columns for the ``fixed`` rates in ``phase``, which no row
        changes: ``(known, spread, cost, lower, upper)``, the known velocities, what each
        column adds to the velocities (in speed scales) and its cost and bounds. Remembered
        (read-only): a path's steps pose programs of other rows over the same columns."""
        memo = (phase, tuple(sorted(fixed.items())))
        found = self._column_memo.get(memo)
        if found is not None:
            return found
        n = self.n
        known = np.zeros(n)
        for j, value in fixed.items():
            known[j] = value
        free = [j for j in range(n) if j not in fixed]
        forced = [j for j in free if j in self.forces]
        unforced = [j for j in free if j not in self.forces]
        # Column c of the program adds ``spread[:, c]`` (in speed scales) to the free coordinates' velocities.
        columns = forced + unforced + unforced
        spread = np.zeros((n, len(columns)))
        spread[columns[:len(forced) + len(unforced)], np.arange(len(forced) + len(unforced))] = 1.0
        spread[unforced, np.arange(len(forced) + len(unforced), len(columns))] = -1.0
        spread *= self.scales[:, None]
        cost = np.full(len(columns), UNFORCED_WEIGHT)
        lower = np.zeros(len(columns))
        upper = np.full(len(columns), self.speed_limit)
        for c, j in enumerate(forced):
            direction, speed = self.forces[j]
            # Progress as a fraction of the force's full speed. In an input step forces act
            # infinitely faster than the input: a force faster than the step's speed scale
            # weighs one per speed scale, so following what retreats always outweighs the
            # unforced motion it pushes (UNFORCED_WEIGHT).
            weight = self.scales[j] / speed if phase == EXTERNAL else max(self.scales[j] / speed, 1.0)
            cost[c] = -direction * weight
            cap = speed / self.scales[j] if phase == EXTERNAL else self.speed_limit
            lower[c], upper[c] = (-self.speed_limit, cap) if direction > 0 else (-cap, self.speed_limit)
        found = (known, spread, cost, lower, upper)
        for array in found:
            array.flags.writeable = False
        if len(self._column_memo) >= PROGRAM_MEMO:
            self._column_memo.clear()
        self._column_memo[memo] = found
        return found

    def _mode(self, region, tight, q, phase, fixed, v, directions) -> Mode:
        eps = self.eps
        moving = {j for j in range(self.n) if abs(v[j]) > eps[j]}
        rates = dict(fixed)
        if phase == EXTERNAL:
            for j, (direction, speed) in self.forces.items():
                if j not in fixed and direction * v[j] >= speed - eps[j]:
                    rates[j] = direction * speed
        for j in self.forces:
            if phase == INPUT and j not in fixed and abs(v[j]) >= self.limit[j] * (1 - 1e-9):
                raise TraceError("a force meets no resistance during an input step; the external step "
                                 "should have moved it")
        dependent = moving - set(rates)
        for j in dependent:
            if abs(v[j]) >= self.limit[j] * (1 - 1e-9):
                raise TraceError("a motion needs unbounded speed (the mechanism jams at a singular contact)")
        still = frozenset(j for j in range(self.n) if j not in moving and j not in rates)
        rows = region.rows(tight)
        holds = np.abs(rows @ v) <= np.abs(rows) @ eps
        if dependent:
            holds &= np.any(rows[:, sorted(dependent)] != 0, axis=1)
        else:
            holds[:] = False
        clean = np.where(np.abs(v) > eps, v, 0.0)
        for j, rate in rates.items():
            clean[j] = rate
        return Mode(phase, region, clean, rates, still, tuple(int(r) for r in tight[holds]), directions,
                    self.linkages, eps, q.copy())


def _square_solution(A: np.ndarray, b: np.ndarray) -> np.ndarray | None:
    """The solution of the square system ``A x = b``, None if ``A`` is singular. A large system
    (a stack of blocks moving together: a row or two per contact) is solved sparse, in time
    near its nonzeros: dense, the 120-block feeder's spent a quarter of its trace in LU."""
    if len(A) <= SPARSE_SOLVE:
        try:
            return np.linalg.solve(A, b)
        except np.linalg.LinAlgError:
            return None
    import warnings

    from scipy.sparse import csc_array
    from scipy.sparse.linalg import MatrixRankWarning, spsolve  # imported by the large systems alone

    with warnings.catch_warnings():
        warnings.simplefilter("error", MatrixRankWarning)
        try:
            x = spsolve(csc_array(A), b)
        except (MatrixRankWarning, RuntimeError):
            return None
    return x if np.all(np.isfinite(x)) else None
