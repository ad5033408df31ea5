"""The path tracer: kinematic simulation with simple dynamics (paper Figure 8).

::

    loop:
        if the time allotment is used up or no input motion remains: stop
        run every external motion to completion (together, taking no input time)
        apply the current input motion within the region to its exit;
        if it cannot move at all, it is blocked: go on with the next input motion

At a boundary configuration every potential region whose closure holds it is a
candidate; the tracer takes the one where motion occurs (the best velocity program).
Within the chosen region the motion follows its mode from knot to knot: a knot at
each linkage-table cell, the region exit found by a ratio test on the region's rows.
"""

from __future__ import annotations

import hashlib
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

import numpy as np

from ..kernels.constraints import ConstraintManager
from ..model.errors import LinkageError, TraceError
from ..model.kinds import EndReason
from ..model.tolerance import NOISE
from ..spaces.pairspace import Contact
from . import broad
from .analysis import Analysis
from .dynamics import EXTERNAL, INPUT, LinkageLink, Mode, SimpleDynamics, Undetermined, Velocity
from .friction import Friction, Grip
from .progress import time_bar
from .regions import Choices, MechanismRegion, RegionDiagram
from .trace import DriveLine, Piece, Trace, TraceStats

MAX_PIECES = 20000
MAX_REFINE = 40  # joint solves at most to place one event on the real linkage (it takes two or three)
SCAN = 64  # table nodes examined at a time when following a linkage (most pieces end sooner)


@dataclass
class _Followed:
    params: Sequence[float]
    configs: Sequence[np.ndarray]
    end: str


def trace(analysis: Analysis, *, until: float | None = None, max_pieces: int = MAX_PIECES,
          progress: bool = False) -> Trace:
    """Trace the mechanism's path under its input motions for its time allotment.

    ``max_pieces`` caps the pieces of path (region by region); passing it raises
    :class:`TraceError` rather than running without end. ``progress`` shows a bar of the
    input time traced on standard error.

    >>> from cspace.io.loader import load
    >>> from cspace.tracing.analysis import analyze
    >>> t = trace(analyze(load("fixtures/feeder.toml")), until=6.283185307179586)
    >>> len(t.segments)
    6
    """
    if analysis.mechanism.dynamics is not None:
        raise TraceError(f"{analysis.mechanism.name!r} has full dynamics: integrate it with cspace.simulate")
    allotment = analysis.mechanism.time if until is None else until
    with time_bar("trace", allotment, show=progress) as reached:
        return Tracer(analysis, max_pieces, reached).run(allotment)


class Tracer:
    """Traces one analysed mechanism; see :func:`trace`."""

    def __init__(self, analysis: Analysis, max_pieces: int = MAX_PIECES,
                 progress: Callable[[float], object] | None = None) -> None:
        self.analysis = analysis
        self.max_pieces = max_pieces
        self.progress = progress  # told the input time after each input step
        mechanism = analysis.mechanism
        self.mechanism = mechanism
        self.tolerance = mechanism.tolerance
        self.n = len(mechanism.coordinates)
        index = mechanism.coordinate_index
        self.manager = ConstraintManager(self.tolerance.lp)
        self.diagram = RegionDiagram(analysis)
        links = tuple(LinkageLink(t, index[t.linkage.input], index[t.linkage.output])
                      for t in analysis.linkage_tables.values())
        self.forces = {index[f.coordinate]: f for f in mechanism.forces}
        # Each step measures its motions against its own speeds: an input step the inputs'
        # (its clock is the input time), an external step the forces' (theirs only share out
        # its own clock). A force a billion times slower than the inputs, or an input a
        # billion times faster than the forces, still moves (or stands) as it should.
        factor = self.tolerance.velocity / mechanism.speed
        forces = {j: (f.direction, f.speed) for j, f in self.forces.items()}
        self.speeds = {INPUT: mechanism.input_speed, EXTERNAL: mechanism.force_speed}
        self.velocity_tolerance = {phase: factor * speed for phase, speed in self.speeds.items()}
        self.dynamics = {phase: SimpleDynamics(self.n, links, forces, self.manager,
                                               np.array(mechanism.scales_at(speed)), factor, self.tolerance.steepest)
                         for phase, speed in self.speeds.items()}
        self.is_angle = np.array([c.is_angle for c in mechanism.coordinates])
        self.friction = Friction(mechanism)
        self._pair_of = {(p.part_a, p.part_b): k for k, p in enumerate(self.diagram.pairs)}
        parts = {p.name: p for p in mechanism.parts}
        self._sticky_pairs = np.array([bool(parts[p.part_a].sticky and parts[p.part_b].sticky)
                                       for p in self.diagram.pairs], bool)
        self._involved: set[int] = set()  # coordinates the current step may move, for error messages
        # Rows this far from their bound cannot be tight: twice the rows' tolerance, the
        # slack found for all rows at once and a region's own differing by rounding only.
        self.margin = 2 * self.tolerance.length

    def run(self, allotment: float) -> Trace:
        start = time.perf_counter()
        q = self.analysis.initial.copy()
        now = 0.0
        motions = list(self.mechanism.inputs)
        current, motion_start = 0, 0.0
        pieces: list[Piece] = []
        while True:
            # External motions run to completion first, the input held (it wins): also at
            # the end, so a part released by the last input step is not left hovering. A
            # blocked last input still holds its coordinates (it pushes; it is not withdrawn):
            # a brake's lever stays where it stopped.
            held = {self.mechanism.coordinate_index[c]: 0.0 for c in motions[min(current, len(motions) - 1)]
                    .coordinates} if motions else {}
            clock = 0.0
            while True:
                piece = self.step(q, EXTERNAL, held, current, now, clock, 0.0, np.inf)
                if piece is None:
                    break
                pieces.append(piece)
                q, clock = piece.last, float(piece.params[-1])
                self.guard(pieces)
            if not motions:
                end = EndReason.NO_INPUT_MOTIONS
                break
            if now >= allotment * (1 - NOISE):  # relative: an allotment of microseconds is as exact
                end = EndReason.TIME_ALLOTMENT_USED
                break
            if current >= len(motions):
                end = pieces[-1].end if pieces and pieces[-1].end == EndReason.INPUT_DONE else EndReason.INPUT_BLOCKED
                break
            motion = motions[current]
            rates = {self.mechanism.coordinate_index[c]: v for c, v in motion.velocities}
            stop = allotment if motion.duration is None else min(allotment, motion_start + motion.duration)
            piece = None if now >= stop * (1 - NOISE) else \
                self.step(q, INPUT, rates, current, now, now, motion_start, stop)
            if piece is None:
                if pieces:
                    pieces[-1] = replace(pieces[-1], end=EndReason.INPUT_DONE if stop < allotment and
                                         now >= stop * (1 - NOISE) else EndReason.INPUT_BLOCKED)
                current, motion_start = current + 1, now
                continue
            pieces.append(piece)
            q, now = piece.last, float(piece.params[-1])
            self.guard(pieces)
            if self.progress is not None:
                self.progress(now)
        stats = TraceStats(
            pairs=len(self.analysis.pairs), constraining_pairs=len(self.diagram.pairs),
            pairwise_regions=sum(len(p.geometry) for p in self.diagram.pairs),
            potential_regions=self.diagram.potential,
            explored_regions=len(self.diagram.stats.explored),
            nonempty_regions=len(self.diagram.stats.explored),  # see RegionStats
            traversed_regions=traversed(pieces, len(self.diagram.pairs)),
            lp_solves=self.manager.solves, pieces=len(pieces), seconds=time.perf_counter() - start)
        return Trace.of(self.analysis, pieces, end, stats)

    def guard(self, pieces: list[Piece]) -> None:
        if len(pieces) > self.max_pieces:
            raise TraceError(f"the trace passed {self.max_pieces} pieces of path (region by region); "
                             "shorten the time allotment", file=self.mechanism.source,
                             time=pieces[-1].time)

    def step(self, q: np.ndarray, phase: str, fixed: dict[int, float], motion: int, now: float,
             param: float, origin: float, limit: float) -> Piece | None:
        """One piece of path from ``q``, or None if nothing can move.

        Only pairs among parts that can move in this step constrain it: what the input
        drives (input step) or the forces not surely stuck (external step), and what
        tight contacts and linkages connect to them. Every combination of the regions
        those pairs may be in is tried; the best velocity program wins. An error names
        the file, the time and the parts that could move.
        """
        self._involved = {j for j, rate in fixed.items() if rate} if phase == INPUT else set(self.forces)
        try:
            return self._step(q, phase, fixed, motion, now, param, origin, limit)
        except TraceError as error:
            parts = tuple(dict.fromkeys(self.mechanism.coordinates[j].part for j in sorted(self._involved)))
            raise error.located(file=self.mechanism.source, parts=parts, time=now) from None

    def _step(self, q: np.ndarray, phase: str, fixed: dict[int, float], motion: int, now: float,
              param: float, origin: float, limit: float) -> Piece | None:
        diagram, dynamics = self.diagram, self.dynamics[phase]
        here = diagram.choices(q)
        if phase == EXTERNAL:
            frozen = dynamics.frozen(fixed)
            # Forces stuck under the rows all candidate regions share are stuck in every one.
            if dynamics.stuck_forces(here.common_rows(), frozen) == set(dynamics.forces):
                return None
            start: set[int] = set()
            for key in here.candidates():
                start |= set(dynamics.forces) - dynamics.stuck_forces(here.tight_rows(key), frozen)
            if not start:
                return None
        else:
            start = {j for j, rate in fixed.items() if rate != 0}
        movable = dynamics.reach(self._linking_rows(here, q), start)
        self._involved = movable
        active = diagram.active(movable)
        near = broad.near(diagram.layout, here, active, self.margin) if active.sum() > broad.FROM_PAIRS else active
        choices = here.among(active)
        still = set(range(self.n)) - movable
        nonnegative = not any(j in dynamics.forces and j not in fixed for j in movable)
        best: Velocity | None = None
        best_key: tuple[int, ...] = ()
        for key in choices.candidates():
            region = diagram.region(key, near)
            grips = self.grips(region, q, here) if self.friction.any else ()
            found = Undetermined.PROGRAM if grips else dynamics.determined(region, q, phase, fixed, movable,
                                                                           choices.loose)
            if found is Undetermined.PROGRAM:
                found = dynamics.velocity(region, q, phase, fixed, choices.loose, still, grips)
            elif found is Undetermined.NO_MOTION:
                found = None
            if found is not None and (best is None or found.objective < best.objective - dynamics.floor):
                best, best_key = found, key
            if unbeatable(best, nonnegative):
                break
        if best is None:
            return None
        if phase == EXTERNAL and best.progress <= dynamics.floor:
            return None
        settled = diagram.settle(choices, best_key, best.v, active, self.velocity_tolerance[phase])
        best, followed = self._mode_and_path(settled, best, here, active, near, q, phase, fixed, param, limit)
        if self.friction.any:
            followed = self._until_grip(best, q, here, param, followed, dynamics.eps)
        if len(followed.params) < 2:
            # The program found a motion its own mode cannot follow: never loop on it.
            raise TraceError(f"no progress ({phase} step): the motion found at this configuration stops at once")
        configs = np.asarray(followed.configs)
        params = np.asarray(followed.params)
        middle = _at(params, configs, 0.5 * (params[0] + params[-1]))
        roots, lines = self.drive_lines(best, phase, q)
        sampling = self._sampling(phase, motion, roots)
        return Piece(phase, motion, Piece.packed(best.region.key), params, *Piece.compact(configs),
                     now, origin if phase == INPUT else 0.0, sampling, roots, lines,
                     diagram.contacts(best.region, middle, here),
                     tuple(int(s) for s in np.sign(best.velocity)), followed.end)

    def _mode_and_path(self, key: tuple[int, ...], velocity: Velocity, here: Choices, active: np.ndarray,
                       near: np.ndarray, q: np.ndarray, phase: str, fixed: dict[int, float], param: float,
                       limit: float) -> tuple[Mode, _Followed]:
        """The mode of ``velocity`` in region ``key`` and the path it follows from ``q``, the
        region holding the rows of the ``near`` pairs and of every active pair the path may
        bring to a bound (the broad phase, :mod:`cspace.tracing.broad`).

        The path is first followed on the near pairs' rows; the rows of the other active
        pairs that its motion changes, and that its length may bring within the margin of
        their bound, are then added, and the path followed again. More rows can only end
        the path sooner, so the rows left out stay clear of their bounds. A motion followed
        cell by cell (several linkages) changes its velocity at every cell: every active
        pair's rows.
        """
        diagram, dynamics = self.diagram, self.dynamics[phase]
        mode = dynamics.mode(diagram.region(key, near), q, phase, fixed, velocity)
        if not (active & ~near).any():  # no pair left out (a small mechanism: no broad phase)
            return mode, self.follow(mode, q, param, limit)
        directions = path_directions(mode)
        pairs = active
        if directions is not None:
            rows = broad.changing(diagram.layout, here, active, near, directions)
            if not len(rows):
                return mode, self.follow(mode, q, param, limit)
            try:
                followed = self.follow(mode, q, param, limit)
            except (TraceError, LinkageError):
                # The near rows alone never stop it (a part falling to a far floor), or it ran on
                # where the path with every row will not go: every changing row counts.
                followed = None
            path = None if followed is None else np.asarray(followed.configs)
            pairs = near | broad.meeting(diagram.layout, here, rows, path, self.margin)
            if followed is not None and not (pairs & ~near).any():
                return mode, followed
        mode = dynamics.mode(diagram.region(key, pairs), q, phase, fixed, velocity)
        return mode, self.follow(mode, q, param, limit)

    def _linking_rows(self, here: Choices, q: np.ndarray) -> np.ndarray:
        """Rows whose coordinates move together at ``here`` (at ``q``): the touching pairs'
        tight rows, for a touching pair with sticky faces on both parts one joining all its
        coordinates (a grip may carry the motion along the faces, across no row), and the
        rows of the grips no row records (:meth:`cspace.tracing.friction.Friction.rowless`)."""
        rows = here.touching_rows()
        gripping = np.flatnonzero(here.touching & self._sticky_pairs) if self.friction.any else []
        resting = self.friction.rowless(q) if self.friction.any else ()
        if not len(gripping) and not resting:
            return rows
        joined = np.zeros((len(gripping), self.n))
        for k, p in enumerate(gripping.tolist()):
            joined[k, self.diagram.layout.columns[p]] = 1.0
        return np.vstack([rows, joined] + [g.rows for g in resting])

    def grips(self, region: MechanismRegion, q: np.ndarray, here: Choices) -> tuple[Grip, ...]:
        """The grips of the sticky contacts holding at ``q``, and of the sticky faces touching
        there that no row records (:mod:`cspace.tracing.friction`)."""
        grips = []
        for contact in sorted(c for c in self.diagram.contacts(region, q, here) if isinstance(c, Contact)):
            pair = self._pair_of.get((contact.part_a, contact.part_b))
            if pair is not None and self.friction.sticky(contact):
                grip = self.friction.grip(contact, q, pair)
                if grip is not None:
                    grips.append(grip)
        return tuple(grips) + self.friction.rowless(q)

    def _until_grip(self, mode: Mode, q: np.ndarray, here: Choices, param: float,
                    followed: _Followed, eps: np.ndarray) -> _Followed:
        """The path followed up to where sticky faces first meet and grip inside the region
        (:meth:`cspace.tracing.friction.Friction.meeting`: no boundary stops the path there when a
        contact spans collinear faces of both parts, or no row records it); ``eps``: how
        fast a coordinate standing still may move. A linkage's curved motion is not cut
        there: refused."""
        contacts = [c for c in self.diagram.contacts(mode.region, q, here) if isinstance(c, Contact)]
        knots = list(zip(followed.params, followed.configs))
        at = self.friction.meeting(contacts, knots, eps)
        if at is None:
            return followed
        if mode.moving_linkages():
            raise TraceError("a linkage slides sticky faces onto each other where no boundary stops the path; "
                             "where their grip begins is not traced yet")
        return _Followed([param, at], [q.copy(), q + mode.velocity * (at - param)], "grip begins")

    def follow(self, mode: Mode, q: np.ndarray, param: float, limit: float) -> _Followed:
        """Move along the mode until the region exit or another event."""
        if not mode.moving_linkages():
            return self.follow_straight(mode, q, param, limit)
        sliding = self.diagram.sliding_in_z(mode.region.key, q, mode.velocity_at(q))
        if sliding:  # the tangent cannot tell where on the curved path a z face starts or stops touching
            raise TraceError(f"a linkage moves parts along a z face ({', '.join(sliding)}), where the slices "
                             "of a shifted part rest on another's; not supported yet: start the shift "
                             "clear of the other part's layer")
        affine = mode.along_one_linkage()
        if affine is not None:
            return self.follow_table(mode, q, param, limit, *affine)
        mode.check(mode.velocity_at(q))
        return self.follow_cells(mode, q, param, limit)

    def follow_straight(self, mode: Mode, q: np.ndarray, param: float, limit: float) -> _Followed:
        """No linkage moves: the velocity is constant up to the region's exit (a ratio test)."""
        region, v = mode.region, mode.velocity
        rate = region.G @ v
        slack = np.maximum(region.h - region.G @ q, 0.0)
        moving_in = rate > mode.row_eps
        dt, event = limit - param, EndReason.TIME_ALLOTMENT_USED
        if np.any(moving_in):
            ratios = slack[moving_in] / rate[moving_in]
            if ratios.min() < dt:
                dt, event = float(ratios.min()), "region exit"
        change = self.diagram.z_change(region.key, q, v, dt)
        if change < dt:
            dt, event = change, "contact in z changes"
        if not np.isfinite(dt):
            self.without_end(v, mode.eps)
        if dt <= 0:
            return _Followed([param], [q.copy()], event)
        return _Followed([param, param + dt], [q.copy(), q + v * dt], event)

    def without_end(self, v: np.ndarray, eps: np.ndarray) -> None:
        """Refuse a motion that nothing ever stops, naming what moves (faster than ``eps``)."""
        moving = [c for c, rate, tol in zip(self.mechanism.coordinates, v, eps) if abs(rate) > tol]
        verb = "moves" if len(moving) == 1 else "move"
        raise TraceError(f"{', '.join(c.name for c in moving)} {verb} without end: nothing ever stops this "
                         "motion (is a support missing?)", parts=tuple(dict.fromkeys(c.part for c in moving)))

    def follow_table(self, mode: Mode, q: np.ndarray, param: float, limit: float, link: LinkageLink,
                     v0: np.ndarray, w: np.ndarray) -> _Followed:
        """Follow a motion carried by one linkage across its table cells, many at a time.

        With velocity ``v0 + slope * w`` on every cell and the linkage input moving at
        rate r, the configuration at input x is ``q + ((x - x0) v0 + (f(x) - f(x0)) w) / r``,
        so every region row is affine in (x, f(x)) and is evaluated at a batch of table
        nodes at once. The piece ends at the first of: a row reaching its bound, the
        start of a cell where a coordinate would change direction, the time allotment.
        A region exit or a change of direction is then placed on the real linkage
        (:meth:`_exit_on_linkage`, :meth:`_turn_on_linkage`); f(x0) is the configuration's
        own output, so a piece that starts at such an exact point carries no offset.
        """
        region, eps = mode.region, mode.eps
        table, i = link.table, link.input
        rate = v0[i]
        direction = 1 if rate > 0 else -1
        along_x, along_f = region.G @ v0 / rate, region.G @ w / rate
        # Binding rows stay put: neither part of the motion moves them.
        watched = np.flatnonzero((np.abs(along_x * rate) > mode.row_eps) | (np.abs(along_f * rate) > mode.row_eps))
        along_x, along_f = along_x[watched], along_f[watched]
        excess0 = region.G[watched] @ q - region.h[watched]
        turning = np.flatnonzero(np.abs(w) > eps)  # only these change speed from cell to cell
        eps = eps[turning]
        expected = mode.signs(mode.velocity)[turning]
        resting = expected == 0
        x0, f0 = q[i], float(q[link.output])
        x_end = x0 + rate * (limit - param) if np.isfinite(limit) else direction * np.inf
        xs_kept, fs_kept = [np.array([x0])], [np.array([f0])]
        while True:
            nodes, outputs = table.ahead(xs_kept[-1][-1], direction, SCAN)
            if not len(nodes):
                return self._knots(xs_kept, fs_kept, q, v0, w, rate, param, "table cell")
            xs = np.concatenate([xs_kept[-1][-1:], nodes])
            fs = np.concatenate([fs_kept[-1][-1:], outputs])
            # Events in order of precedence where they coincide, as when following cell by cell:
            # the time allotment, then a region exit, then a change of motion at a node.
            events = []
            if (x_end - xs[-1]) * direction <= 0:
                events.append((x_end, EndReason.TIME_ALLOTMENT_USED, None))
            slopes = (fs[1:] - fs[:-1]) / (xs[1:] - xs[:-1])
            speeds = v0[turning] + slopes[:, None] * w[turning]
            # A coordinate keeps its direction while its speed stays beyond eps that way (or within eps of rest).
            kept = speeds * expected > eps
            if resting.any():
                kept |= resting & (np.abs(speeds) <= eps)
            turned = ~kept.all(axis=1)
            # Only rows the scan can take to their bound: the others' excess stays below
            # excess0 + |x - x0| |along_x| + |f - f0| |along_f| <= 0 (a stack's many rows).
            reach = np.abs(xs - x0).max() * np.abs(along_x) + np.abs(fs - f0).max() * np.abs(along_f)
            near = np.flatnonzero(excess0 + reach > 0)
            excess = excess0[near] + np.outer(xs - x0, along_x[near]) + np.outer(fs - f0, along_f[near])
            crossing = (excess[1:] > 0) & (excess[:-1] <= 0)
            hit = crossing.any(axis=1)
            if hit.any():
                cell = int(np.argmax(hit))
                rows = near[np.flatnonzero(crossing[cell])]
                exit_x, exit_f = self._exit_on_linkage(table, xs[cell], xs[cell + 1], excess0[rows], along_x[rows],
                                                       along_f[rows], x0, f0, direction)
                events.append((exit_x, "region exit", exit_f))
            if turned.any():
                c = int(np.argmax(turned))
                lo = xs[c - 1] if c > 0 else xs[0]
                turn_x, turn_f = self._turn_on_linkage(table, lo, xs[min(c + 1, len(xs) - 1)], v0[turning],
                                                       w[turning], expected, xs[c], direction)
                events.append((turn_x, "motion changes", turn_f))
            if not events:
                xs_kept.append(nodes)
                fs_kept.append(outputs)
                continue
            x_stop, event, f_stop = min(events, key=lambda e: e[0] * direction)  # the first of equals
            on_node = np.abs(nodes - x_stop) <= table.node_tolerance
            if on_node.any():
                f_stop = float(outputs[on_node][0])
            elif f_stop is None:  # the allotment ends between nodes: on the table, like the path
                f_stop = table.output(x_stop)
            before_stop = (x_stop - nodes) * direction > table.node_tolerance
            xs_kept += [nodes[before_stop], np.array([x_stop])]
            fs_kept += [outputs[before_stop], np.array([f_stop])]
            return self._knots(xs_kept, fs_kept, q, v0, w, rate, param, event)

    def _exit_on_linkage(self, table, a: float, b: float, excess0: np.ndarray, along_x: np.ndarray,
                         along_f: np.ndarray, x0: float, f0: float, direction: int) -> tuple[float, float]:
        """(input, output) where the first of these rows reaches its bound between inputs a and b
        on the real linkage.

        A row's excess is ``excess0 + (x - x0) along_x + (f(x) - f0) along_f``; at a and b
        (nodes, or x0) the table is exact, so it changes sign between them. The joints and
        the row are solved together from the table's linear estimate
        (:meth:`LinkageTable.exact_where`: a joint residual a step); where that fails, Newton's
        method on the solved output, first steered by the cell's slope, then by the secant of
        its last two steps, and kept inside [a, b], takes it to float precision in three or
        four joint solves.
        """
        fa = f0 if a == x0 else table.output(a)
        fb = table.output(b)
        best = (b, fb)
        crossing = np.flatnonzero(excess0 + (b - x0) * along_x + (fb - f0) * along_f > 0)
        # Rows that are one constraint (a piston's face against each block of a stack) cross once.
        distinct = {}
        for k in crossing.tolist():
            distinct.setdefault((float(excess0[k]), float(along_x[k]), float(along_f[k])), k)
        for k in distinct.values():
            def g(x: float, f: float) -> float:
                return float(excess0[k] + (x - x0) * along_x[k] + (f - f0) * along_f[k])

            lo, hi, g_lo, g_hi = a, b, g(a, fa), g(b, fb)
            x = lo + (hi - lo) * min(max(-g_lo / (g_hi - g_lo), 0.0), 1.0)
            found = table.exact_where(a, b, x, (float(excess0[k]), float(along_x[k]), float(along_f[k])), x0, f0)
            if found is not None:
                if (found[0] - best[0]) * direction < 0:
                    best = found
                continue
            moved = math.inf
            rate = float(along_x[k] + table.slope(a, direction) * along_f[k])  # the cell's: steers, exactness is g's
            previous = None
            for _ in range(MAX_REFINE):
                f = table.exact(x)
                value = g(x, f)
                if value > 0:
                    hi = x
                else:
                    lo = x
                if previous is not None and x != previous[0]:
                    rate = (value - previous[1]) / (x - previous[0])  # secant: superlinear, one solve a step
                previous = (x, value)
                following = x - value / rate if rate else (lo + hi) / 2
                if not lo < following < hi:
                    following = (lo + hi) / 2
                # Stop where floats stop: a step no smaller than the last one makes no more progress.
                if value == 0.0 or abs(following - x) >= moved or abs(following - x) <= math.ulp(x):
                    break
                moved, x = abs(following - x), following
            if (x - best[0]) * direction < 0:
                best = (x, f)
        return best

    def _turn_on_linkage(self, table, a: float, b: float, v0: np.ndarray, w: np.ndarray, expected: np.ndarray,
                         node: float, direction: int) -> tuple[float, float | None]:
        """(input, output or None for the table's) where a coordinate moving with velocity
        ``v0 + slope w`` stops or turns back between inputs a and b on the real linkage. The
        table shows it at a node; when the real linkage turns within the node tolerance of
        it (the feeder's piston at 0 and pi), that node is the answer."""
        moving = np.flatnonzero(expected != 0).tolist()
        _, slope = table.exact_with_slope(node)
        if all(abs(float(v0[j] + slope * w[j])) <= abs(float(w[j])) * table.node_tolerance for j in moving):
            return node, None
        best: tuple[float, float | None] = (node, None)
        for j in moving:
            def speed(x: float, j: int = j) -> float:
                return float(v0[j] + table.exact_with_slope(x)[1] * w[j]) * expected[j]
            lo, hi = min(a, b), max(a, b)
            if (speed(lo) > 0) != (speed(hi) > 0):
                from scipy.optimize import brentq  # scipy.optimize (40 ms to import) only where a root is sought
                root = brentq(speed, lo, hi, xtol=table.node_tolerance * NOISE)
                if (root - best[0]) * direction < 0 or best[0] == node:
                    best = (root, table.exact(root))
        return best

    @staticmethod
    def _knots(xs_kept: list, fs_kept: list, q: np.ndarray, v0: np.ndarray, w: np.ndarray, rate: float,
               param: float, event: str) -> _Followed:
        """Knots of a piece followed along a linkage table: parameters and configurations."""
        xs, fs = np.concatenate(xs_kept), np.concatenate(fs_kept)
        if np.any(xs[1:] == xs[:-1]):
            keep = np.concatenate([[True], xs[1:] != xs[:-1]])
            xs, fs = xs[keep], fs[keep]
        steps = (xs - xs[0]) / rate
        configs = q + np.outer(steps, v0) + np.outer((fs - fs[0]) / rate, w)
        return _Followed(param + steps, configs, event)

    def follow_cells(self, mode: Mode, q: np.ndarray, param: float, limit: float) -> _Followed:
        """Move along the mode cell by cell: several moving linkages, or one moved through its
        output (a spring on a crank-slider's piston turning a free crank). A region exit of
        one linkage's motion is placed on the real linkage (:meth:`_exit_in_cell`)."""
        region = mode.region
        params, configs = [param], [q.copy()]
        while True:
            v = mode.velocity_at(q)
            if v is None:
                return _Followed(params, configs, "motion changes")
            slack = region.h - region.G @ q
            rate = region.G @ v
            moving_in = rate > mode.row_eps
            tight = slack <= region.tolerances
            if np.any(moving_in & tight):
                return _Followed(params, configs, "motion changes")
            dt, event = limit - param, EndReason.TIME_ALLOTMENT_USED
            if np.any(moving_in):
                ratios = np.maximum(slack[moving_in], 0.0) / rate[moving_in]
                k = int(np.argmin(ratios))
                if ratios[k] < dt:
                    dt, event = float(ratios[k]), "region exit"
            for link in mode.linkages:
                rate_in = v[link.input]
                if abs(rate_in) > mode.eps[link.input]:
                    node = link.table.next_node(q[link.input], 1 if rate_in > 0 else -1)
                    to_node = (node - q[link.input]) / rate_in
                    if to_node < dt:
                        dt, event = to_node, "table cell"
            if not np.isfinite(dt):
                self.without_end(v, mode.eps)
            exact = self._exit_in_cell(mode, q, v, moving_in) if event == "region exit" else None
            if exact is not None:
                q, dt = exact
            else:
                q = q + v * dt
            param += dt
            params.append(param)
            configs.append(q.copy())
            if event != "table cell":
                return _Followed(params, configs, event)

    def _exit_in_cell(self, mode: Mode, q: np.ndarray, v: np.ndarray,
                      moving_in: np.ndarray) -> tuple[np.ndarray, float] | None:
        """(configuration, parameter step) of a region exit in this cell on the real linkage,
        when one linkage moves; None to keep the cell's straight line (several linkages).

        Along one linkage the motion is transmitted linearly from its input and output, so
        the velocity over the input's rate is affine in the slope: ``a + s b``, found from
        the mode at two slopes (and checked at a third). The path is then
        ``q + (x - x0) a + (f(x) - f0) b`` and the exit is found as in :meth:`follow_table`.
        """
        moving = mode.moving_linkages()
        if len(moving) != 1:
            return None
        k = moving[0]
        link = mode.linkages[k]
        table, i, o = link.table, link.input, link.output
        direction = 1 if v[i] > 0 else -1
        x0, f0 = float(q[i]), float(q[o])
        slope = table.slope(x0, direction, f0)
        change = table.slope_scale
        ratios = []
        for s in (slope, slope + change, slope - change):
            slopes = [0.0] * len(mode.linkages)
            slopes[k] = s
            solved, _ = mode.solve(slopes)
            if solved is None or abs(solved[i]) <= mode.eps[i]:
                return None
            ratios.append(solved / solved[i])
        b = (ratios[1] - ratios[0]) / change
        a = ratios[0] - slope * b
        if not np.allclose(ratios[2], a + (slope - change) * b, rtol=1e-9, atol=1e-9 * np.abs(ratios).max()):
            return None  # not affine in the slope: keep the cell's straight line
        region = mode.region
        rows = np.flatnonzero(moving_in)
        node = table.next_node(x0, direction)
        x, f = self._exit_on_linkage(table, x0, node, region.G[rows] @ q - region.h[rows], region.G[rows] @ a,
                                     region.G[rows] @ b, x0, f0, direction)
        return q + (x - x0) * a + (f - f0) * b, (x - x0) / v[i]

    def drive_lines(self, mode: Mode, phase: str, q: np.ndarray) -> tuple[tuple[int, ...], tuple[DriveLine, ...]]:
        """Driving motions and the driving relation, as the paper's Figure 4 prints them.

        Contacts transmit motion from the coordinate whose motion would push into the
        contact to the one whose motion relieves it; a grip (friction) carries it either
        way between the two coordinates it keeps in tandem; roots are moving coordinates
        nothing drives (the input always is one). Each root, and each linkage output
        it reaches, drives what its contacts reach, then its linkage outputs, then its
        grips' partners.
        """
        moving = {j for j in range(self.n) if abs(mode.velocity[j]) > mode.eps[j]}
        prescribed = {j for j in mode.rates if j in moving} if phase == INPUT else set()
        edges = [(a, b) for a, b in mode.transmissions(q) if b not in prescribed]
        # A linkage carries motion from its input to its output, unless the output is the one
        # driven (a spring on a piston turning a free crank): then from the output to the input.
        links = {(lk.output if lk.output in mode.rates and lk.input not in mode.rates else lk.input):
                 (lk.input if lk.output in mode.rates and lk.input not in mode.rates else lk.output)
                 for lk in mode.linkages if lk.input in moving and lk.output in moving}
        gripped: dict[int, list[int]] = {}
        for row in (mode.friction if mode.friction is not None else ()):
            pair = np.flatnonzero(row).tolist()
            if len(pair) == 2 and set(pair) <= moving:
                gripped.setdefault(pair[0], []).append(pair[1])
                gripped.setdefault(pair[1], []).append(pair[0])
        driven = {b for _, b in edges} | set(links.values()) | set(gripped)
        roots = sorted(prescribed | {j for j in moving if j not in driven})
        # Contacts can drive in a circle (a block sliding down a ramp while grazing a
        # face above it): nothing outside drives the circle, so a force-loaded member
        # of it is its root, else its first coordinate.
        edges_all = edges + [(a, b) for a, partners in gripped.items() for b in partners]
        unreached = moving - self._reached(roots, edges_all, links)
        while unreached:
            forced = sorted(j for j in unreached if j in self.forces)
            roots.append((forced or sorted(unreached))[0])
            unreached -= self._reached(roots, edges_all, links)
        roots = tuple(sorted(roots))
        lines: list[DriveLine] = []
        queue, seen = list(roots), set(roots)
        while queue:
            source = queue.pop(0)
            reached, frontier = [], [source]
            while frontier:
                node = frontier.pop(0)
                for a, b in edges:
                    if a == node and b not in seen:
                        seen.add(b)
                        reached.append(b)
                        frontier.append(b)
            if reached:
                lines.append(DriveLine(source, tuple(sorted(reached)), "contact"))
            for node in [source] + sorted(reached):
                if node in links and links[node] not in seen:
                    seen.add(links[node])
                    lines.append(DriveLine(node, (links[node],), "linkage"))
                    queue.append(links[node])
                partners = [j for j in gripped.get(node, ()) if j not in seen]
                if partners:
                    seen.update(partners)
                    lines.append(DriveLine(node, tuple(sorted(partners)), "friction"))
                    queue.extend(sorted(partners))
        return roots, tuple(lines)

    @staticmethod
    def _reached(roots: list[int], edges: list[tuple[int, int]], links: dict[int, int]) -> set[int]:
        """Coordinates the roots drive, through contacts and linkages, and the roots."""
        reached, frontier = set(roots), list(roots)
        while frontier:
            node = frontier.pop()
            for target in [b for a, b in edges if a == node] + ([links[node]] if node in links else []):
                if target not in reached:
                    reached.add(target)
                    frontier.append(target)
        return reached

    def _sampling(self, phase: str, motion: int, roots: tuple[int, ...]) -> float:
        if phase == INPUT:
            return self.mechanism.inputs[motion].sampling
        steps = [self.forces[j].sampling for j in roots if j in self.forces]
        return min(steps) if steps else min(f.sampling for f in self.mechanism.forces)


def path_directions(mode: Mode) -> list[np.ndarray] | None:
    """The velocities whose combinations make the path of ``mode``: its velocity, or
    ``v0`` and ``w`` along one linkage (velocity ``v0 + slope w``); None for a path
    followed cell by cell, whose velocity changes at every cell."""
    if not mode.moving_linkages():
        return [mode.velocity]
    affine = mode.along_one_linkage()
    return None if affine is None else [affine[1], affine[2]]


def traversed(pieces: list[Piece], pairs: int) -> int:
    """How many regions the pieces crossed: distinct keys over the ``pairs`` pairs (turns
    aside), told apart by digest: a large mechanism's keys, as tuples, would take
    hundreds of megabytes at once."""
    return len({hashlib.blake2b(piece.key_array()[:pairs].astype(np.int64).tobytes(), digest_size=16).digest()
                for piece in pieces})


def unbeatable(best: Velocity | None, nonnegative: bool) -> bool:
    """Can no other candidate region beat ``best``? So when objectives are ``nonnegative``
    (no force-loaded coordinate is free to move: the objective only counts how much
    unforced coordinates move) and nothing moves beyond the prescribed motion."""
    return nonnegative and best is not None and best.objective <= 0.0


def _at(params: np.ndarray, configs: np.ndarray, value: float) -> np.ndarray:
    """The configuration at parameter ``value`` on the piecewise-linear path through the knots."""
    k = min(max(int(np.searchsorted(params, value)), 1), len(params) - 1)
    span = params[k] - params[k - 1]
    weight = 0.0 if span == 0 else (value - params[k - 1]) / span
    return configs[k - 1] + weight * (configs[k] - configs[k - 1])
