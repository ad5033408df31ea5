"""One-degree-of-freedom linkages: solved by continuation, tabulated, interpolated.

The joint equations are solved at evenly spaced input values (``table_size`` nodes
over the input range; for a freely turning input, over [-pi, pi]) by continuation:
every eighth node starts from a linear prediction off the two before it and is corrected
by Newton's method; the nodes between are then corrected all at once in numpy. The
table is the linkage between events, as in the paper (section 4.1): between nodes the
output and every member pose are interpolated linearly. Events are exact: :meth:`LinkageTable.exact` and :meth:`LinkageTable.exact_slope`
solve the joint equations at any input, so the tracer places a region exit or a
reversal of the output where the real linkage has it, and the path runs through it.

:meth:`LinkageTable.image` and :meth:`LinkageTable.preimage` are the forward and
inverse interval maps of section 4.2.1.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from ..model.errors import LinkageError
from ..model.geometry import Arc
from ..model.kinds import Motion
from ..model.limits import MAX_TABLE
from ..model.mechanism import Linkage, Mechanism, Part
from ..model.poses import part_pose, rigid
from ..model.tolerance import NOISE

TWO_PI = 2.0 * math.pi
MAX_HALVINGS = 12
DIFFERENCE = 6e-6  # central-difference step in units of the variable: near cbrt(float epsilon), the most exact
FORWARD = 1.5e-8  # forward-difference step: near sqrt(float epsilon)
FIT_STEPS = 100  # Gauss-Newton or Newton steps at most, far more than a start near a solution needs
SOLVE_MEMO = 64  # exact solves of a table kept, by input (LinkageTable._solve)
POSE_MEMO = 4096  # poses of a linkage's non-member parts kept, by their coordinates' values
# Most entries a table may have, given or refined: the table and its check cost about 0.3 ms
# an entry (a turn at 10,000 in about 3 s); a file asking for more is refused when loaded.
BRANCH_JUMP = 1e3  # a solution moving this many times its input's step (in units) has jumped to another branch
STRIDE = 8  # a continuation steps to every 8th node and solves the nodes between at once
REFINE_MARGIN = 0.8  # a refined table aims this far under the bound, so one refinement is enough


@dataclass(frozen=True)
class LinkageTable:
    """A solved linkage: ``output = f(input)`` and member poses at evenly spaced inputs.

    ``inputs`` are increasing; for a ``periodic`` input they span [-pi, pi] and the
    first and last entries describe the same assembly. The mechanism starts at ``assembled``,
    the exact output at its initial input (between nodes too), so a trace starts where the
    file puts the linkage and runs from there by the chord to the next node.
    """

    linkage: Linkage
    inputs: np.ndarray
    outputs: np.ndarray
    poses: dict[str, np.ndarray]
    periodic: bool
    node_tolerance: float
    assembled: float  # the output at the initial input, on the real linkage (its assembly): the start
    solutions: np.ndarray = field(repr=False, compare=False)  # every unknown at every node (start points)
    system: JointSystem | None = field(default=None, repr=False, compare=False)
    _jacobians: dict[int, np.ndarray] = field(default_factory=dict, repr=False, compare=False)
    _input_columns: dict[int, np.ndarray] = field(default_factory=dict, repr=False, compare=False)
    _solved: dict[float, np.ndarray] = field(default_factory=dict, repr=False, compare=False)

    @cached_property
    def step(self) -> float:
        """Input spacing of the table's nodes."""
        return float(self.inputs[1] - self.inputs[0])

    @cached_property
    def slope_scale(self) -> float:
        """A typical size of d output / d input (the mean of the cells'): what a change of slope
        is measured against, in the output's and input's units."""
        scale = float(np.mean(np.abs(np.diff(self.outputs)))) / self.step
        return scale if scale > 0 else 1.0

    @cached_property
    def _first(self) -> float:
        return float(self.inputs[0])

    def reduce(self, x: float) -> tuple[float, float]:
        """Split an input value into (value in the table range, offset added to it)."""
        if not self.periodic:
            return x, 0.0
        turns = math.floor((x + math.pi) / TWO_PI)
        reduced = x - turns * TWO_PI
        if reduced >= math.pi:
            reduced -= TWO_PI
            turns += 1
        return reduced, turns * TWO_PI

    def cell(self, x: float, direction: int = 1) -> int:
        """Index k of the table cell [inputs[k], inputs[k+1]] the input moves through.

        At a node the direction of motion decides between the two neighbouring cells.
        """
        reduced, _ = self.reduce(float(x))
        position = (reduced - self._first) / self.step
        nearest = round(position)
        if abs(position - nearest) * self.step <= self.node_tolerance:
            k = nearest if direction >= 0 else nearest - 1
        else:
            k = math.floor(position)
        last = len(self.inputs) - 2
        if self.periodic:
            return k % (last + 1)
        return min(max(k, 0), last)

    def slope(self, x: float, direction: int = 1, y: float | None = None) -> float:
        """d output / d input on the way from (x, y) to the next node in ``direction``.

        Without ``y`` (or with the table's own value there) that is the slope of the cell
        the input moves through; from an exact point between nodes (an event) it is the
        chord to the next node, so the path runs from the event on to the table.
        """
        k = self.cell(x, direction)
        if y is None:
            return float((self.outputs[k + 1] - self.outputs[k]) / self.step)
        nodes, outputs = self.ahead(x, direction, 1)
        if not len(nodes) or abs(float(nodes[0]) - x) <= self.node_tolerance:
            return float((self.outputs[k + 1] - self.outputs[k]) / self.step)
        return float((float(outputs[0]) - y) / (float(nodes[0]) - x))

    def exact(self, x: float) -> float:
        """The output at input ``x`` solved from the joint equations (the table only starts it).

        >>> from cspace.io.loader import load
        >>> from cspace.tracing.analysis import analyze
        >>> table = analyze(load("fixtures/feeder.toml")).linkage_tables["crank-slider"]
        >>> round(table.exact(1.0), 6), round(3 * math.cos(1) - 1 + math.sqrt(64 - 9 * math.sin(1) ** 2), 6)
        (8.212174, 8.212174)
        """
        return float(self._solve(x)[-1])

    def exact_with_slope(self, x: float) -> tuple[float, float]:
        """The output at ``x`` and d output / d input there, on the real linkage (the slope by
        the implicit function theorem on the joints, from the solve's own Jacobian)."""
        reduced, _ = self.reduce(float(x))
        u = self._solve(x)
        return float(u[-1]), self.system.slope(u, reduced, self.system.jacobian(u, reduced))

    def exact_where(self, a: float, b: float, start: float, row: tuple[float, float, float], x0: float,
                    f0: float) -> tuple[float, float] | None:
        """(input, output) between inputs a and b where ``c + (x - x0) along_x + (f(x) - f0) along_f``
        (``row`` is c, along_x, along_f) vanishes on the real linkage, found from input ``start``.

        Newton's method on the joint equations and that condition together, steered by the
        Jacobian interpolated between the cell's nodes (chord steps: one joint residual each,
        four or five), until its steps stop shrinking (float precision). None where it lands
        outside [a, b] or off the joints (near a dead point): the caller then brackets the
        root with exact solves.
        """
        c, along_x, along_f = row
        system = self.system
        lo, hi = min(a, b), max(a, b)
        k = self.cell((lo + hi) / 2)
        reduced, shift = self.reduce((lo + hi) / 2)
        w = min(max((reduced - float(self.inputs[k])) / self.step, 0.0), 1.0)
        steer = np.zeros((system.size + 1, system.size + 1))
        steer[:-1, :-1] = (1.0 - w) * self._jacobian(k) + w * self._jacobian(k + 1)
        steer[:-1, -1] = (1.0 - w) * self._input_column(k) + w * self._input_column(k + 1)
        steer[-1, -1], steer[-1, -2] = along_x, along_f
        try:
            inverse = np.linalg.inv(steer)
        except np.linalg.LinAlgError:
            return None
        u, x = self._interpolate(self.solutions, start), start - shift
        units = np.append(system.units, system.input_unit)
        moved = math.inf
        for _ in range(FIT_STEPS):
            value = c + (x + shift - x0) * along_x + (float(u[-1]) - f0) * along_f
            change = inverse @ np.append(system.residual(u, x), value)
            u, x = u - change[:-1], x - float(change[-1])
            size = float(np.max(np.abs(change) / units))
            if size == 0.0 or size >= moved:
                break
            moved = size
        x += shift
        if not lo <= x <= hi or float(np.max(np.abs(system.residual(u, x - shift)))) * system.scale > system.joint:
            return None
        return x, float(u[-1])

    def _jacobian(self, k: int) -> np.ndarray:
        """The joint Jacobian at node k (forward differences): it steers Newton's method from cell k."""
        if k not in self._jacobians:
            self._jacobians[k] = self.system.jacobian(self.solutions[k], float(self.inputs[k]), central=False)
        return self._jacobians[k]

    def _input_column(self, k: int) -> np.ndarray:
        """dR/dx at node k (a forward difference): the input's column of the Jacobian steering an event's solve."""
        if k not in self._input_columns:
            system, x = self.system, float(self.inputs[k])
            step = system.input_unit * FORWARD
            u = self.solutions[k]
            self._input_columns[k] = (system.residual(u, x + step) - system.residual(u, x)) / step
        return self._input_columns[k]

    def _solve(self, x: float) -> np.ndarray:
        """Every unknown at input ``x``, by Newton's method from the table's interpolation,
        steered by the joint Jacobian at the cell's first node (kept: events cluster in cells).
        The last ``SOLVE_MEMO`` solves are kept (read-only): a step whose path is followed
        again with more rows (the tracer's broad phase) asks for the same inputs."""
        held = self._solved.get(float(x))
        if held is not None:
            return held
        reduced, _ = self.reduce(float(x))
        solved = self.system.newton(self._interpolate(self.solutions, x), reduced, self._jacobian(self.cell(x)))
        if solved is None:
            raise LinkageError(f"the joints do not close at {self.linkage.input} = {_num(x)} between table "
                               "nodes", where=f"linkage {self.linkage.name!r}", field="joints")
        solved.flags.writeable = False
        if len(self._solved) >= SOLVE_MEMO:
            self._solved.pop(next(iter(self._solved)))
        self._solved[float(x)] = solved
        return solved

    def next_node(self, x: float, direction: int) -> float:
        """The next node the input reaches moving in ``direction`` (same unwrapping as x)."""
        inputs, _ = self.ahead(x, direction, 1)
        return float(inputs[0]) if len(inputs) else float(self.inputs[-1] if direction > 0 else self.inputs[0])

    def ahead(self, x: float, direction: int, count: int | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Inputs (unwrapped like ``x``) and outputs of the next nodes moving in ``direction``.

        A freely turning input yields ``count`` nodes (default: one full turn); a
        bounded one stops at the end of its range.
        """
        k = self.cell(x, direction)
        period = len(self.inputs) - 1
        if self.periodic:
            count = period if count is None else count
            # Node k is the low end of x's cell: put it on x's turn, then step along the grid.
            low = self.inputs[k] + TWO_PI * round((x - self.inputs[k] - self.step / 2) / TWO_PI)
            steps = np.arange(1, count + 1) if direction > 0 else -np.arange(count)
            return low + steps * self.step, self.outputs[(k + steps) % period]
        index = np.arange(k + 1, period + 1) if direction > 0 else np.arange(k, -1, -1)
        if count is not None:
            index = index[:count]
        return self.inputs[index].astype(float), self.outputs[index]

    def output(self, x: float) -> float:
        """Interpolated output at input ``x``.

        >>> from cspace.io.loader import load
        >>> from cspace.tracing.analysis import analyze
        >>> table = analyze(load("fixtures/feeder.toml")).linkage_tables["crank-slider"]
        >>> round(table.output(0.25), 4)
        9.8722
        """
        return float(self._interpolate(self.outputs, x))

    def pose(self, member: str, x: float) -> np.ndarray:
        """Transform of a member part at input ``x``."""
        px, py, angle = self._interpolate(self.poses[member], x)
        return rigid(angle, px, py)

    def image(self, lo: float, hi: float) -> tuple[float, float]:
        """Forward map: the range of the output while the input sweeps [lo, hi]."""
        if self.periodic and not hi - lo < TWO_PI:
            return float(self.outputs.min()), float(self.outputs.max())
        if not self.periodic:
            lo, hi = max(lo, float(self.inputs[0])), min(hi, float(self.inputs[-1]))
        reduced_lo, _ = self.reduce(lo)
        shifted = self.inputs if not self.periodic else np.concatenate([self.inputs, self.inputs + TWO_PI])
        values = self.outputs if not self.periodic else np.concatenate([self.outputs, self.outputs])
        inside = (shifted > reduced_lo) & (shifted < reduced_lo + (hi - lo))
        candidates = np.concatenate([[self.output(lo), self.output(hi)], values[inside]])
        return float(candidates.min()), float(candidates.max())

    def preimage(self, x0: float, lo: float, hi: float) -> tuple[float, float]:
        """Inverse map: the widest input interval around ``x0`` whose outputs stay in [lo, hi].

        Returns (-inf, inf) when a freely turning input can go all the way round.
        """
        upper = self._reach(x0, lo, hi, +1)
        lower = self._reach(x0, lo, hi, -1)
        if self.periodic and upper - lower >= TWO_PI:
            return -math.inf, math.inf
        return lower, upper

    def _reach(self, x0: float, lo: float, hi: float, direction: int) -> float:
        """How far the input can move from x0 in ``direction`` with the output in [lo, hi]."""
        xs, ys = self.ahead(x0, direction)
        outside = (ys > hi) | (ys < lo)
        if not outside.any():
            if self.periodic:
                return x0 + direction * TWO_PI
            return float(self.inputs[-1] if direction > 0 else self.inputs[0])
        k = int(np.argmax(outside))
        x, y = (x0, self.output(x0)) if k == 0 else (float(xs[k - 1]), float(ys[k - 1]))
        bound = hi if ys[k] > hi else lo
        return x + (bound - y) / (float(ys[k]) - y) * (float(xs[k]) - x)

    def interpolation_error(self, reaches: dict[str, float]) -> float:
        """The largest distance linear interpolation puts a point of the output's part or of a
        member from where the real linkage has it, at the cells' midpoints (inf where the joints
        cannot be closed there from the interpolation).

        A pose error is a length: a translation's error plus an angle's times the part's reach
        from its pivot or frame origin (``reaches``), so it bounds how far any point of the part
        is off. The bound it is held to is ``Tolerance.curve``, the budget of a turning pair's
        contact curves: those are the same kind of approximation (a curve of configuration space
        flattened into chords), measured the same way (angles scaled by reach).

        Between two nodes the error of linear interpolation is (x - a)(b - x) f''/2 for some f''
        in the cell, so it peaks at the midpoint wherever the curve is near a parabola over one
        cell; the table is refined until that holds well (``tests/test_linkage.py`` checks the
        accepted tables densely against the exact solution and the closed form).
        """
        system = self.system
        middles = (self.inputs[:-1] + self.inputs[1:]) / 2
        # The Jacobians at the nodes steer Newton's method from each cell: here and in the trace.
        jacobians = system.jacobians(self.solutions[:-1], self.inputs[:-1].astype(float))
        self._jacobians.update(enumerate(jacobians))
        position = (middles - self._first) / self.step
        w = (position - np.clip(np.floor(position), 0, len(self.inputs) - 2))[:, None]
        guesses = self.solutions[:-1] * (1.0 - w) + self.solutions[1:] * w
        exact, closed = system.correct_many(guesses, middles.astype(float), jacobians)
        if not closed.all():
            return math.inf
        # Each unknown's error to a length: member x, y as they are, angles times their part's reach.
        scale = np.array([r for m in self.linkage.members for r in (1.0, 1.0, reaches[m])] + [reaches[""]])
        lengths = np.abs(guesses - exact) * scale
        poses = lengths[:, :3 * len(self.linkage.members)].reshape(len(middles), -1, 3)
        return float(max(np.max(np.hypot(poses[..., 0], poses[..., 1]) + poses[..., 2], initial=0.0),
                         np.max(lengths[:, -1])))

    def _interpolate(self, values: np.ndarray, x: float) -> np.ndarray:
        reduced, _ = self.reduce(float(x))
        if not self.periodic:
            reduced = min(max(reduced, self._first), float(self.inputs[-1]))
        position = (reduced - self._first) / self.step
        k = min(max(math.floor(position), 0), len(self.inputs) - 2)
        w = position - k
        return values[k] * (1.0 - w) + values[k + 1] * w

    def __repr__(self) -> str:
        return (f"LinkageTable({self.linkage.name!r}, entries={len(self.inputs)}, "
                f"input=[{self.inputs[0]:.4g}, {self.inputs[-1]:.4g}], "
                f"output=[{self.outputs.min():.4g}, {self.outputs.max():.4g}])")


def assembly(mechanism: Mechanism, linkage: Linkage) -> tuple[float, dict[str, np.ndarray]]:
    """The linkage assembled at its input's initial value, as its table starts, without the table:
    the output's value there and each member's transform (3x3, by name).

    >>> from cspace.io.loader import load
    >>> m = load("fixtures/feeder.toml")
    >>> output, poses = assembly(m, m.linkages[0])
    >>> output, poses["link"][:2, 2].tolist()
    (10.0, [3.0, 0.0])
    """
    start = JointSystem(mechanism, linkage).assemble(mechanism.coordinate(linkage.input).initial,
                                                     mechanism.coordinate(linkage.output).initial,
                                                     mechanism.tolerance.assembly)
    placed = {member: start[3 * i:3 * i + 3] + (*mechanism.origin, 0.0) for i, member in enumerate(linkage.members)}
    return float(start[-1]), {member: rigid(angle, x, y) for member, (x, y, angle) in placed.items()}


def solve_linkage(mechanism: Mechanism, linkage: Linkage) -> LinkageTable:
    """Assemble ``linkage`` at the initial input and tabulate it over its input range, with
    at least ``linkage.table_size`` entries and as many more as linear interpolation needs to
    stay within the ``curve`` tolerance of the real linkage (:meth:`LinkageTable.interpolation_error`).

    The entries stay evenly spaced, so a cell is found by one division and the tracer reads
    nodes in batches: a table that misses the bound is solved again with every cell cut into
    ``k`` equal cells, ``k`` from the error's fall with the square of the step. A linkage
    that needs more than ``MAX_TABLE`` entries (one bending sharply near a dead point) is
    refused, naming the error reached.

    >>> from cspace.io.loader import load
    >>> from dataclasses import replace
    >>> m = load("fixtures/feeder.toml")
    >>> len(solve_linkage(m, replace(m.linkages[0], table_size=4)).inputs) > 4
    True
    """
    system = JointSystem(mechanism, linkage)
    bound = mechanism.tolerance.curve
    reaches = _reaches(mechanism, linkage)
    count = linkage.table_size
    while True:
        table = _tabulate(mechanism, linkage, system, count)
        error = table.interpolation_error(reaches)
        if error <= bound:
            return table
        if count >= MAX_TABLE:
            raise LinkageError(f"between {count} table entries linear interpolation is still {_num(error)} "
                               f"from the real linkage, more than the curve tolerance {_num(bound)}: the "
                               "linkage bends too sharply (near a dead point?); keep its input's limits "
                               "away from where the joints line up, or raise [tolerance] arc",
                               where=system.where, field="table")
        count = min(_refined(count, error, bound), MAX_TABLE)


def _refined(count: int, error: float, bound: float) -> int:
    """Entries for cells cut ``k`` times finer, enough if the error falls with the step squared
    (linear interpolation of a smooth curve), with a margin; at least twice as fine."""
    factor = 4 if not math.isfinite(error) else max(2, math.ceil(math.sqrt(error / (REFINE_MARGIN * bound))))
    return (count - 1) * factor + 1


def _reaches(mechanism: Mechanism, linkage: Linkage) -> dict[str, float]:
    """How far each member's points (outline and joint points) reach from its frame origin,
    and (key "") the output part's from its pivot when the output is an angle: the length an
    error of one radian in its angle moves them at most."""
    points: dict[str, list] = {m: [] for m in linkage.members}
    for joint in linkage.joints:
        for part, point in zip(joint.parts, joint.points):
            points.setdefault(part, []).append(point)
    output = mechanism.coordinate(linkage.output)
    reaches = {m: _reach(mechanism.part(m), points[m], (0.0, 0.0)) for m in linkage.members}
    reaches[""] = _reach(mechanism.part(output.part), points.get(output.part, []), output.pivot) \
        if output.is_angle else 1.0
    return reaches


def _reach(part: Part, joint_points: list, about: tuple[float, float]) -> float:
    """Farthest distance from ``about`` of a part's outline (an arc by its centre plus radius)
    and of the given points, all in its local frame."""
    far = [math.dist(p, about) for p in joint_points]
    for piece in part.slices:
        for profile in piece.profiles:
            for element in profile.elements:
                if isinstance(element, Arc):
                    far.append(math.dist(element.center, about) + element.radius)
                else:
                    far += [math.dist(element.start, about), math.dist(element.end, about)]
    return max(far, default=0.0)


def _tabulate(mechanism: Mechanism, linkage: Linkage, system: JointSystem, count: int) -> LinkageTable:
    """The linkage solved at ``count`` evenly spaced inputs by continuation from its assembly."""
    tol = mechanism.tolerance
    x_in = mechanism.coordinate(linkage.input)
    y_out = mechanism.coordinate(linkage.output)
    periodic = x_in.periodic
    if periodic:
        nodes = np.linspace(-math.pi, math.pi, count)
    elif x_in.limits is None:
        raise LinkageError(f"input {x_in.name!r} needs limits (or must be a freely turning rotation) "
                           "to give the linkage a range", where=f"linkage {linkage.name!r}", field="input")
    else:
        nodes = np.linspace(x_in.limits[0], x_in.limits[1], count)
    start = system.assemble(x_in.initial, y_out.initial, tol.assembly)
    x0 = x_in.initial
    solutions = np.empty((len(nodes), system.size))
    if periodic:
        # Go once round from x0, meeting the nodes in the order they come up.
        reduced = x0 - TWO_PI * math.floor((x0 + math.pi) / TWO_PI)
        ahead = np.mod(nodes[:-1] - reduced, TWO_PI)
        ahead[ahead > TWO_PI - NOISE] = 0.0  # a node a rounding error below x0 is x0 itself
        order = np.argsort(ahead, kind="stable")
        path = system.continue_to(x0, start, [x0 + ahead[k] for k in order] + [x0 + TWO_PI])
        turn = system.turn(start, path[-1])
        first = order[0]
        for k, u in zip(order, path):
            solutions[k] = u - turn if k < first else u
        solutions[-1] = solutions[0] + turn
    else:
        for targets in ([x for x in nodes if x > x0], [x for x in nodes[::-1] if x < x0]):
            for x, u in zip(targets, system.continue_to(x0, start, targets)):
                solutions[int(np.argmin(np.abs(nodes - x)))] = u
        solutions[nodes == x0] = start
    poses = {m: solutions[:, 3 * i:3 * i + 3] + (*mechanism.origin, 0.0) for i, m in enumerate(linkage.members)}
    node_tolerance = tol.angle if x_in.is_angle else tol.length
    return LinkageTable(linkage, nodes, solutions[:, -1].copy(), poses, periodic, node_tolerance, float(start[-1]),
                        solutions, system)


class JointSystem:
    """The joint equations of one linkage as a function of (member poses, output; input).

    Everything is relative to the mechanism's origin (members' positions too), so a
    linkage drawn far out closes its joints as exactly as one at the origin.
    """

    def __init__(self, mechanism: Mechanism, linkage: Linkage) -> None:
        self.mechanism = mechanism
        self.linkage = linkage
        self.members = {m: i for i, m in enumerate(linkage.members)}
        self.size = 3 * len(linkage.members) + 1
        self.scale = mechanism.tolerance.size
        self.joint = mechanism.tolerance.joint
        self.length = mechanism.tolerance.length
        self.where = f"linkage {linkage.name!r}"
        self.parts = sorted({p for joint in linkage.joints for p in joint.parts})
        self.origin = mechanism.origin
        self._poses: dict[tuple, tuple[float, float, float, float]] = {}
        # The unit of each unknown (member x, y, angle ..., output) and of the input: a length
        # is measured against the size, an angle against a radian, so checks hold at any size.
        angle = self.mechanism.coordinate(linkage.output).is_angle
        self.units = np.array([self.scale, self.scale, 1.0] * len(linkage.members) + [1.0 if angle else self.scale])
        self.input_unit = 1.0 if mechanism.coordinate(linkage.input).is_angle else self.scale
        self.tolerances = np.where(self.units == 1.0, mechanism.tolerance.angle, self.length)
        # Joint points in their parts' frames, a non-member's relative to the origin.
        self.points = [tuple(self._relative(part, point) for part, point in zip(joint.parts, joint.points))
                       for joint in linkage.joints]
        # What the equations read, looked up once: each non-member part and its coordinates.
        self._owners = {part: self.mechanism.part(part) for part in self.parts if part not in self.members}
        self._joints = [(joint, *joint.parts, *points) for joint, points in zip(linkage.joints, self.points)]

    def _relative(self, part: str, point) -> tuple[float, float]:
        if part in self.members:
            return (float(point[0]), float(point[1]))
        return (point[0] - self.origin[0], point[1] - self.origin[1])

    def poses(self, u: np.ndarray, x: float | np.ndarray) -> dict[str, tuple]:
        """Pose (cos, sin, x, y) of every part a joint touches, for member poses and output ``u`` and input ``x``.

        Plain floats for one solution (the solvers ask for them thousands of times per
        table); for many, ``u`` of shape (m, size) and ``x`` of shape (m,), arrays of m.
        """
        unknowns = u.tolist() if u.ndim == 1 else list(u.T)
        values = {self.linkage.input: x, self.linkage.output: unknowns[-1]}
        trig = (math.cos, math.sin) if u.ndim == 1 else (np.cos, np.sin)
        out = {}
        for part in self.parts:
            i = self.members.get(part)
            if i is not None:
                angle = unknowns[3 * i + 2]
                out[part] = (trig[0](angle), trig[1](angle), unknowns[3 * i], unknowns[3 * i + 1])
            elif u.ndim == 1:
                out[part] = self._placed_part(part, values)
            else:
                out[part] = self._pose_of(part, values)
        return out

    def _placed_part(self, part: str, values: dict[str, float]) -> tuple[float, float, float, float]:
        """Pose of a non-member part, remembered by the coordinate values it depends on (a
        Jacobian asks for the same input and output again and again)."""
        memo = (part, *[values.get(c) for c in self._owners[part].coordinates])
        pose = self._poses.get(memo)
        if pose is None:
            pose = self._pose_of(part, values)
            if len(self._poses) >= POSE_MEMO:
                self._poses.clear()
            self._poses[memo] = pose
        return pose

    def _pose_of(self, part: str, values: dict) -> tuple:
        """Pose of a non-member part at coordinate values (floats, or arrays of one shape)."""
        owner = self._owners[part]
        if owner.motion == Motion.FIXED:
            return (1.0, 0.0, 0.0, 0.0)
        return part_pose(self.mechanism, owner, values, self.origin)

    def world(self, part: str, point, u: np.ndarray, x: float) -> np.ndarray:
        """A point of a part (a non-member's given relative to the origin) in the plane, relative to the origin."""
        return np.array(_placed(self.poses(u, x)[part], point))

    def residual(self, u: np.ndarray, x: float | np.ndarray) -> np.ndarray:
        """How far each joint is from closing (lengths over the mechanism's size, angles).

        For many solutions at once (``u`` of shape (m, size), ``x`` of shape (m,)), one row
        each: the same equations in numpy, whose sine and cosine may differ from math's in
        the last bit.
        """
        out = []
        placed = self.poses(u, x)
        for joint, a, b, point_a, point_b in self._joints:
            ax, ay = _placed(placed[a], point_a)
            bx, by = _placed(placed[b], point_b)
            if joint.kind == "pin":
                out += [(ax - bx) / self.scale, (ay - by) / self.scale]
            else:
                axis_x, axis_y = self.direction(a, joint.axis, u, x)
                out.append(((bx - ax) * axis_y - (by - ay) * axis_x) / self.scale)
                out.append(self.angle(b, u, x) - self.angle(a, u, x))
        return np.array(out) if u.ndim == 1 else np.stack(np.broadcast_arrays(*out), axis=-1)

    def slope(self, u: np.ndarray, x: float, jacobian: np.ndarray) -> float:
        """d output / d input at a solution u with joint Jacobian ``jacobian`` there:
        -J_u^-1 dR/dx, last component (implicit function theorem)."""
        h = self.input_unit * DIFFERENCE
        dx = (self.residual(u, x + h) - self.residual(u, x - h)) / (2 * h)
        return float(-np.linalg.solve(jacobian, dx)[-1])

    def jacobian(self, u: np.ndarray, x: float, central: bool = True) -> np.ndarray:
        """dR/du by differences of the residual (which is exact in floats), one step per unit:
        central for a slope that must be exact, forward (half the work) to steer Newton's method."""
        columns = []
        base = None if central else self.residual(u, x)
        for k in range(len(u)):
            step = self.units[k] * (DIFFERENCE if central else FORWARD)
            up = u.copy()
            up[k] += step
            if central:
                down = u.copy()
                down[k] -= step
                columns.append((self.residual(up, x) - self.residual(down, x)) / (2 * step))
            else:
                columns.append((self.residual(up, x) - base) / step)
        return np.column_stack(columns)

    def jacobians(self, u: np.ndarray, x: np.ndarray) -> np.ndarray:
        """dR/du at many solutions at once (``u`` of shape (m, size), ``x`` of shape (m,)):
        forward differences, as :meth:`jacobian` takes them to steer Newton's method; shape (m, rows, size)."""
        m, n = u.shape
        steps = self.units * FORWARD
        shifted = np.repeat(u[:, None, :], n + 1, axis=1)
        shifted[:, 1:, :] += np.diag(steps)
        r = self.residual(shifted.reshape(-1, n), np.repeat(x, n + 1)).reshape(m, n + 1, -1)
        return ((r[:, 1:, :] - r[:, :1, :]) / steps[None, :, None]).transpose(0, 2, 1)

    def correct_many(self, guesses: np.ndarray, x: np.ndarray,
                     jacobians: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`correct` (or, given ``jacobians`` to steer every step, :meth:`newton`) at many
        inputs at once, each row from its own guess and stopped on its own where floats stop
        it improving. Returns the solutions and which of them close the joints."""
        u = np.array(guesses, float)
        r = self.residual(u, x)
        error = np.max(np.abs(r), axis=1)
        active = error > 0.0
        for _ in range(FIT_STEPS):
            rows = np.flatnonzero(active)
            if not len(rows):
                break
            steer = self.jacobians(u[rows], x[rows]) if jacobians is None else jacobians[rows]
            solvable = np.abs(np.linalg.det(steer)) > 0.0
            active[rows[~solvable]] = False
            error[rows[~solvable]] = np.inf
            rows, steer = rows[solvable], steer[solvable]
            if not len(rows):
                break
            trial = u[rows] - np.linalg.solve(steer, r[rows][..., None])[..., 0]
            trial_r = self.residual(trial, x[rows])
            trial_error = np.max(np.abs(trial_r), axis=1)
            better = trial_error < error[rows]
            kept = rows[better]
            u[kept], r[kept], error[kept] = trial[better], trial_r[better], trial_error[better]
            active[rows[~better]] = False
            active[kept[trial_error[better] == 0.0]] = False
        return u, error * self.scale <= self.joint

    def newton(self, guess: np.ndarray, x: float, jacobian: np.ndarray, steps: int = 12) -> np.ndarray | None:
        """The solution at x by Newton's method from a close guess (a table's neighbour), taken
        to float precision so the answer does not depend on the guess; None if it does not
        close the joints. ``jacobian`` (at a point near the guess) steers every step (chord
        steps): from a close guess they converge nearly as fast, for a fraction of the work."""
        u = np.array(guess, float)
        error = math.inf
        for _ in range(steps):
            r = self.residual(u, x)
            previous, error = error, float(np.max(np.abs(r)))
            if error == 0.0 or error >= previous:  # converged as far as floats go
                break
            try:
                u = u - np.linalg.solve(jacobian, r)
            except np.linalg.LinAlgError:
                return None
        else:  # every step taken: the last one's result is not yet measured
            error = float(np.max(np.abs(self.residual(u, x))))
        if error * self.scale > self.joint:
            return None
        return u

    def direction(self, part: str, axis, u: np.ndarray, x: float | np.ndarray) -> tuple:
        """The unit vector along a part's ``axis`` (in its frame) in the plane (floats, or arrays for many)."""
        angle = self.angle(part, u, x)
        many = isinstance(angle, np.ndarray)
        c, s = (np.cos(angle), np.sin(angle)) if many else (math.cos(angle), math.sin(angle))
        vx, vy = c * axis[0] - s * axis[1], s * axis[0] + c * axis[1]
        norm = np.sqrt(vx * vx + vy * vy) if many else math.sqrt(vx * vx + vy * vy)
        return vx / norm, vy / norm

    def angle(self, part: str, u: np.ndarray, x: float | np.ndarray) -> float | np.ndarray:
        """A part's angle: a member's unknown, the input's or output's value, or 0 for a part that does not turn."""
        if part in self.members:
            return u[..., 3 * self.members[part] + 2]
        owner = self.mechanism.part(part)
        for name in owner.coordinates:
            if self.mechanism.coordinate(name).is_angle:
                return x if name == self.linkage.input else u[..., -1]
        return 0.0

    def assemble(self, x: float, y_hint: float, tolerance: float) -> np.ndarray:
        """Member poses at input x with the output near its hint, then the exact output.

        Members start at 16 angles round the circle in turn; the first start that closes
        every joint (to the joint tolerance) is taken, else the closest of all 16.
        """
        best, best_cost = None, math.inf
        for k in range(16):
            fit, cost = self.fit(self.guess(x, y_hint, TWO_PI * k / 16), x)
            if cost < best_cost:
                best, best_cost = fit, cost
            if math.sqrt(2 * best_cost) * self.scale <= self.joint:
                break
        if best is None or math.sqrt(2 * best_cost) * self.scale > tolerance:
            raise LinkageError(f"cannot assemble at {self.linkage.input} = {_num(x)} with "
                               f"{self.linkage.output} = {_num(y_hint)}", where=self.where, field="joints")
        exact = self.correct(best, x)
        if exact is None or abs(exact[-1] - y_hint) > tolerance:
            raise LinkageError(f"cannot assemble at {self.linkage.input} = {_num(x)}: the joints put "
                               f"{self.linkage.output} at {_num(best[-1])}", where=self.where, field="joints")
        return exact

    def guess(self, x: float, y: float, angle: float) -> np.ndarray:
        """Each member placed on a joint it shares with a part whose pose is known."""
        u = np.zeros(self.size)
        u[-1] = y
        for member, i in self.members.items():
            u[3 * i + 2] = angle
            for joint, points in zip(self.linkage.joints, self.points):
                if member not in joint.parts:
                    continue
                other = joint.parts[1] if joint.parts[0] == member else joint.parts[0]
                if other in self.members:
                    continue
                mine = points[0] if joint.parts[0] == member else points[1]
                theirs = points[1] if joint.parts[0] == member else points[0]
                anchor = self.world(other, theirs, u, x)
                c, s = math.cos(angle), math.sin(angle)
                u[3 * i] = anchor[0] - (c * mine[0] - s * mine[1])
                u[3 * i + 1] = anchor[1] - (s * mine[0] + c * mine[1])
                break
        return u

    def fit(self, guess: np.ndarray, x: float) -> tuple[np.ndarray, float]:
        """The member poses from ``guess`` that close the joints best at input x, the output
        held at ``guess``'s: Gauss-Newton steps (the least-squares step of the differenced
        Jacobian), each halved until the misfit falls, until none does. Returns the poses and
        half the squared misfit. Written out rather than scipy.optimize's, whose import alone
        costs a trace more than the whole assembly (about 80 ms)."""
        u = np.array(guess, float)
        r = self.residual(u, x)
        cost = 0.5 * float(r @ r)
        for _ in range(FIT_STEPS):
            if cost == 0.0:
                break
            jacobian = self.jacobian(u, x, central=False)[:, :-1]
            step = np.append(np.linalg.lstsq(jacobian, -r, rcond=None)[0], 0.0)
            for _ in range(MAX_HALVINGS + 1):
                trial = u + step
                trial_r = self.residual(trial, x)
                trial_cost = 0.5 * float(trial_r @ trial_r)
                if trial_cost < cost:
                    break
                step = step / 2
            else:
                break
            u, r, cost = trial, trial_r, trial_cost
        return u, cost

    def correct(self, guess: np.ndarray, x: float) -> np.ndarray | None:
        """The solution at x by Newton's method from ``guess``, the Jacobian differenced afresh at
        every step, taken to float precision; None if it does not close the joints."""
        u = np.array(guess, float)
        r = self.residual(u, x)
        error = float(np.max(np.abs(r)))
        for _ in range(FIT_STEPS):
            if error == 0.0:
                break
            try:
                trial = u - np.linalg.solve(self.jacobian(u, x, central=False), r)
            except np.linalg.LinAlgError:
                return None
            trial_r = self.residual(trial, x)
            trial_error = float(np.max(np.abs(trial_r)))
            if not trial_error < error:  # converged as far as floats go (or diverging: judged below)
                break
            u, r, error = trial, trial_r, trial_error
        if error * self.scale > self.joint:
            return None
        return u

    def continue_to(self, x0: float, u0: np.ndarray, targets: list[float]) -> list[np.ndarray]:
        """Solutions at each target input (in order, moving away from x0), by continuation.

        Every ``STRIDE``-th target (and the last) is reached from the one before
        (:meth:`continue_each`); the targets between are then solved all at once, each from
        the line between its two neighbours, and kept if each lands where that line's error
        bound puts it (:meth:`_near_lines`) and on the branch of the one before by the rule
        the steps keep (:meth:`same_branch`). Otherwise every target is reached in turn. A
        table of 301 entries is solved about ten times as fast.
        """
        if len(targets) <= STRIDE:
            return self.continue_each(x0, u0, targets)
        knots = list(range(STRIDE - 1, len(targets), STRIDE))
        if knots[-1] != len(targets) - 1:
            knots.append(len(targets) - 1)
        try:
            coarse = self.continue_each(x0, u0, [targets[k] for k in knots])
        except LinkageError:  # a dead point: each target in turn meets it too, and says nearer where
            return self.continue_each(x0, u0, targets)
        x = np.array(targets, float)
        known_x, known_u = np.array([x0, *x[knots]]), np.vstack([u0, *coarse])
        if known_x[-1] < known_x[0]:
            known_x, known_u = known_x[::-1], known_u[::-1]
        guesses = np.column_stack([np.interp(x, known_x, column) for column in known_u.T])
        solved, closed = self.correct_many(guesses, x)
        solved[knots] = coarse
        previous_x = np.concatenate([[x0], x[:-1]])
        same = np.abs(x - previous_x) <= NOISE * np.maximum(self.input_unit, np.abs(previous_x))
        for k in np.flatnonzero(same):  # no step at all: the solution before, as :meth:`step` keeps it
            solved[k] = solved[k - 1] if k else u0
        previous = np.vstack([u0, solved[:-1]])
        jump = np.max(np.abs(solved - previous) / self.units, axis=1) / np.maximum(
            np.abs(x - previous_x) / self.input_unit, 1e-300)
        kept = (closed & (jump < BRANCH_JUMP) & self._near_lines(known_x, known_u, x, guesses, solved)) | same
        if np.all(kept):
            return list(solved)
        return self.continue_each(x0, u0, targets)

    def _near_lines(self, known_x: np.ndarray, known_u: np.ndarray, x: np.ndarray, guesses: np.ndarray,
                    solved: np.ndarray) -> np.ndarray:
        """Which solutions lie within the error bound of the line they started from.

        Between known solutions H apart, a line is off the curve by at most H^2 |u''| / 8; u''
        is estimated by the second differences of the known solutions on either side, and
        allowed four times over (plus ten tolerances). A solution the other assembly of the
        linkage (the link flipped over its pin) is off by the distance between the two, far more.
        """
        widths = np.diff(known_x)
        slopes = np.diff(known_u, axis=0) / widths[:, None]
        bends = np.abs(np.diff(slopes, axis=0)) / ((widths[:-1] + widths[1:]) / 2)[:, None]
        bends = np.vstack([bends[:1], bends, bends[-1:]])  # at every known solution, the ends as their neighbours
        cells = np.clip(np.searchsorted(known_x, x) - 1, 0, len(widths) - 1)
        bound = 0.5 * widths[cells, None] ** 2 * np.maximum(bends[cells], bends[cells + 1]) + 10 * self.tolerances
        return np.all(np.abs(solved - guesses) <= bound, axis=1)

    def continue_each(self, x0: float, u0: np.ndarray, targets: list[float]) -> list[np.ndarray]:
        """Solutions at each target input, each reached from the one before (:meth:`step`)."""
        path = []
        prev_x, prev_u = x0, u0
        older: tuple[float, np.ndarray] | None = None
        for target in targets:
            u = self.step(prev_x, prev_u, older, target)
            older = (prev_x, prev_u)
            prev_x, prev_u = target, u
            path.append(u)
        return path

    def step(self, x: float, u: np.ndarray, older, target: float) -> np.ndarray:
        """Move the solution from x to target, halving the step where the corrector fails."""
        if abs(target - x) <= NOISE * max(self.input_unit, abs(x)):
            return u
        goal = target
        for _ in range(MAX_HALVINGS + 1):
            predicted = u.copy()
            if older is not None and older[0] != x:
                predicted = u + (u - older[1]) * (goal - x) / (x - older[0])
            solved = self.correct(predicted, goal)
            if solved is not None and self.same_branch(u, solved, x, goal):
                if goal == target:
                    return solved
                older, x, u, goal = (x, u), goal, solved, target
                continue
            goal = x + (goal - x) / 2
        raise LinkageError(f"meets a dead point at {self.linkage.input} = {_num(x)}: its joints line up and "
                           "the linkage cannot be driven past it", where=self.where, field="joints")

    def same_branch(self, u: np.ndarray, solved: np.ndarray, x: float, goal: float) -> bool:
        """Reject corrector jumps to another assembly branch (large moves for a small step)."""
        jump = np.max(np.abs(solved - u) / self.units) / max(abs(goal - x) / self.input_unit, 1e-300)
        return jump < BRANCH_JUMP

    def turn(self, start: np.ndarray, end: np.ndarray) -> np.ndarray:
        """Whole turns each angle made in one revolution of the input; fails off-branch."""
        angles = [3 * i + 2 for i in range(len(self.members))]
        if self.mechanism.coordinate(self.linkage.output).is_angle:
            angles.append(self.size - 1)
        turn = np.zeros(self.size)
        turn[angles] = TWO_PI * np.round((end[angles] - start[angles]) / TWO_PI)
        if np.any(np.abs(end - turn - start) > 10 * self.tolerances):
            raise LinkageError(f"does not return to its initial assembly after a full turn of "
                               f"{self.linkage.input}", where=self.where, field="joints")
        return turn


def _placed(pose: tuple[float, float, float, float], point) -> tuple[float, float]:
    """A part's point in the plane, for its pose as (cos, sin, x, y)."""
    c, s, tx, ty = pose
    return c * point[0] - s * point[1] + tx, s * point[0] + c * point[1] + ty


def _num(value: float) -> str:
    return f"{value:.6g}"
