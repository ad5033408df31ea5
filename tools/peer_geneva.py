"""The Geneva drive of fixtures/geneva.toml built in pymunk: event times, wheel angle and interpenetration.

The model: the crank is a kinematic body turning at exactly 1 rad/s about (0, 0) (its
angular velocity set once; pymunk integrates it, exact to float rounding), carrying the
pin as a pymunk Circle and the locking disk as convex polygons
(``cspace.kernels.minkowski.convex_pieces``); the wheel is a dynamic body (mass 1, the moment of
a uniform plate of its shape, from the same convex pieces) on a pivot joint at (10, 0).
The wheel collides through its outline, a closed chain of pymunk Segments with their
neighbours set: as convex pieces, several pieces share each slot's mouth corner and the
pin, leaving the slot 3e-4 deep in its wall, hits the corners of the pieces that do not
hold the wall and kicks the wheel back at 0.03 rad/s. Arcs are flattened outward (the
polygons contain the true shapes) within 1e-4 of the centre distance. No gravity,
friction 0, elasticity 0, collision slop 1e-4, 10 solver iterations.

Two ways to run the wheel. Simple dynamics (the default, and cspace's physics): the
space's damping is 0, so the wheel's velocity is cleared before every step and it moves
only as far as the pin pushes it in that step. Where the wheel decelerates, the step's
constant speed carries it a little ahead of the pin; when that loses the contact, the
wheel stands still for a step and the pin sinks into the wall (7e-3 deep at dt = 1/960),
which pymunk's bias then works off slowly. With inertia (damping 1, nothing cleared):
pymunk's own physics, shown for comparison; there the wheel coasts ahead of the pin onto
the braking wall from mid-engagement, is pushed back by it as the pin leaves, and drifts
through the dwell into the locking disk, whose polygon, turning, knocks it about: it
never comes to rest, so its events are never those of the closed form.

What it measures, at each time step dt, over two turns of the crank (time = crank
angle - pi):

* wall time of the stepping loop (building the space excluded; reading the two angles
  and the wheel's angular velocity after each step included);
* the event times: the wheel starts moving (its angular speed rises above 5e-4 rad/s)
  and stops (falls below it), at each engagement, counted when the new state lasts 0.05 s
  (the single still steps above are not stops); step times, not interpolated;
* their largest error against the closed form. Two references: the engagement
  boundaries (a = -pi/4, pi/4 + 2 pi k), and the clearance-corrected times, which are
  used to pick dt. With 0.01 of clearance the pin reaches the wall it pushes
  (slotk.right) 0.053 rad after the first boundary (it enters along the wall, so the gap
  closes with the square of the angle), so no step gets within 1e-3 s of the
  boundaries. Corrected, for simple dynamics: the wheel starts when the pin reaches
  slotk.right with the wheel where the last engagement left it (found with shapely,
  :meth:`geneva_geometry.Geneva.first_touch`), it lags the closed form by the slot's
  play, w = wheel_angle(a) + asin(c / s) (c the slot clearance, s the pin's distance
  from the wheel's centre), and it stops when the pin leaves, at the boundary (its
  slowest pushed speed, at the boundaries, is c / (10 sin(pi/4)) = 1.4e-3 rad/s, above
  the threshold);
* the wheel angle's largest deviation from ``geneva_geometry.wheel_angle`` while the pin
  is in a slot and while the wheel dwells (the clearance alone allows asin(c / s): 0.0034
  rad mid-engagement, 0.0014 at the mouth), and its largest angular speed while dwelling
  (0.25 rad of crank clear of the engagements);
* the deepest interpenetration of the real shapes (geneva_geometry's, arcs within 1e-7 of
  the mechanism's size) posed at every step with pymunk's angles: the pin's depth into the
  wheel exactly (from its centre's distance to the wheel's outline), the locking disk's
  by shapely where they meet at all; whether the pin's centre ever enters the wheel's
  material (it has passed through a wall), and whether the wheel ever skips a slot (it is
  a quarter turn or more off the closed form while dwelling).

The largest dt whose event error (simple dynamics, corrected times) is at most 1e-3 s is
named at the end.

    python tools/peer_geneva.py

The model is built from a :func:`layout`: the shapes as pymunk takes them (the crank's pin
and convex pieces of its locking disk, the wheel's outlines, its moment), plain data (JSON)
made once from the fixture with cspace's geometry. Run on a layout file, the peer is a
program of its own: it builds, steps (simple dynamics, reading both angles and the wheel's
speed every step) through the file's turns of the crank and prints the final crank and
wheel angles:

    python tools/peer_geneva.py LAYOUT.json --dt 0.001 [--iterations 10]
    python tools/peer_geneva.py --write-layout LAYOUT.json

Stepping from a layout imports pymunk alone: numpy, shapely and cspace are imported only
where a layout is made or a run is measured, so that the process, timed start to exit by
``tools/bench_peer.py``, pays only for what a pymunk program of this drive needs.

pymunk is a benchmark-only dependency (``pip install '.[bench]'``); cspace never imports it.
"""

from __future__ import annotations

import argparse
import json
import math
import time
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pymunk

if TYPE_CHECKING:
    import numpy as np
    from geneva_geometry import Geneva

    from cspace.model.geometry import Profile

ARC = 1e-4  # arcs flattened within this fraction of the centre distance
SLOP = 1e-4
ITERATIONS = 10
WHEEL_MASS = 1.0
SIMPLE = 0.0  # space damping: the wheel's velocity is cleared before every step
INERTIA = 1.0  # space damping: none
MOVING = 5e-4  # rad/s: the wheel moves when it turns faster than this
HOLD = 0.05  # s: a start or stop counts when the wheel stays moving or still this long
SETTLED = 0.25  # crank angle (rad) clear of the engagements where the dwelling wheel's speed is read
SLOPE_STEP = 1e-7  # crank angle of the central differences of the pushed wheel's angle
STEPS_PER_SECOND = (60, 120, 240, 480, 960, 1920, 3840)
MATCHED_ACCURACY = 1e-3

Point = tuple[float, float]
Layout = dict[str, Any]  # the drive's shapes as plain data: see layout()


@dataclass
class Model:
    """A built pymunk space and its two bodies."""

    space: pymunk.Space
    crank: pymunk.Body
    wheel: pymunk.Body


@cache
def geneva() -> Geneva:
    """The fixture's shapes, loaded once."""
    from geneva_geometry import FIXTURE, Geneva

    import cspace
    return Geneva(cspace.load(FIXTURE))


def flattened(geneva: Geneva, profile: Profile, pivot: Point) -> list[Point]:
    """A profile's outline, arcs flattened outward, relative to ``pivot``."""
    return [(x - pivot[0], y - pivot[1]) for x, y in profile.polyline(ARC * geneva.centre_distance).vertices]


def pieces(geneva: Geneva, profiles: list[Profile], pivot: Point) -> list[list[Point]]:
    """Convex pieces of the profiles' material, arcs flattened outward, relative to ``pivot``."""
    from cspace.kernels.minkowski import convex_pieces
    from cspace.model.tolerance import GRID_ROUNDING
    quantum = geneva.mechanism.tolerance.quantum
    polylines = [profile.polyline(ARC * geneva.centre_distance) for profile in profiles]
    return [[(x * quantum - pivot[0], y * quantum - pivot[1]) for x, y in piece.vertices]
            for piece in convex_pieces(polylines, quantum, GRID_ROUNDING)]


def outline(body: pymunk.Body, vertices: list[Point]) -> list[pymunk.Segment]:
    """A closed chain of segments through the vertices, each told its neighbours."""
    n = len(vertices)
    segments = []
    for i in range(n):
        segment = pymunk.Segment(body, vertices[i], vertices[(i + 1) % n], 0.0)
        segment.set_neighbors(vertices[i - 1], vertices[(i + 2) % n])
        segments.append(segment)
    return segments


def plate_moment(shape: list[list[Point]], mass: float) -> float:
    """Moment of inertia about the origin of a uniform plate made of convex pieces."""
    areas = [pymunk.area_for_poly(piece) for piece in shape]
    return sum(pymunk.moment_for_poly(mass * area / sum(areas), piece)
               for piece, area in zip(shape, areas, strict=True))


def layout(geneva: Geneva) -> Layout:
    """The drive's shapes as pymunk takes them, plain data: the input of :func:`build_layout`.

    Points are relative to the body's pivot; ``lock`` holds the locking disk's convex pieces,
    ``outlines`` the wheel's closed outlines; ``turns`` is the fixture's time allotment in
    turns of the crank (1 rad/s).
    """
    profiles = list(geneva.wheel.slices[0].oriented)
    crank_pivot, wheel_pivot = geneva.pivots["crank"], geneva.pivots["wheel"]
    return {
        "crank": {"pivot": list(crank_pivot), "angle": geneva.coordinates["crank"].initial,
                  "pin": {"radius": geneva.pin_radius, "offset": [geneva.crank_radius, 0.0]},
                  "lock": pieces(geneva, [geneva.lock_profile], crank_pivot)},
        "wheel": {"pivot": list(wheel_pivot), "angle": geneva.coordinates["wheel"].initial, "mass": WHEEL_MASS,
                  "moment": plate_moment(pieces(geneva, profiles, wheel_pivot), WHEEL_MASS),
                  "outlines": [flattened(geneva, profile, wheel_pivot) for profile in profiles]},
        "turns": geneva.mechanism.time / (2 * math.pi),
    }


def build(geneva: Geneva, iterations: int = ITERATIONS, damping: float = SIMPLE) -> Model:
    """The drive in a fresh pymunk space, at the fixture's initial configuration."""
    return build_layout(layout(geneva), iterations, damping)


def build_layout(shapes: Layout, iterations: int = ITERATIONS, damping: float = SIMPLE) -> Model:
    """The drive of a :func:`layout` in a fresh pymunk space, at its initial configuration."""
    space = pymunk.Space()
    space.iterations = iterations
    space.collision_slop = SLOP
    space.damping = damping
    arm, disk = shapes["crank"], shapes["wheel"]
    crank = pymunk.Body(body_type=pymunk.Body.KINEMATIC)
    crank.position = tuple(arm["pivot"])
    crank.angle = arm["angle"]
    crank.angular_velocity = 1.0
    parts: list[pymunk.Shape] = [pymunk.Circle(crank, arm["pin"]["radius"], tuple(arm["pin"]["offset"]))]
    parts += [pymunk.Poly(crank, [tuple(p) for p in piece]) for piece in arm["lock"]]
    wheel = pymunk.Body(disk["mass"], disk["moment"])
    wheel.position = tuple(disk["pivot"])
    wheel.angle = disk["angle"]
    parts += [segment for vertices in disk["outlines"] for segment in outline(wheel, [tuple(p) for p in vertices])]
    for shape in parts:
        shape.friction = 0.0
        shape.elasticity = 0.0
    space.add(crank, wheel, *parts, pymunk.PivotJoint(space.static_body, wheel, tuple(disk["pivot"])))
    return Model(space, crank, wheel)


def steps_for(dt: float, turns: float) -> int:
    """Number of steps of ``dt`` covering ``turns`` turns of the crank at 1 rad/s."""
    return math.ceil(turns * 2 * math.pi / dt - 1e-9)


def step(model: Model, dt: float, count: int) -> list[tuple[float, float, float]]:
    """Step ``count`` times, reading (crank angle, wheel angle, wheel speed) after each: the loop timed."""
    space, crank, wheel = model.space, model.crank, model.wheel
    samples = []
    for _ in range(count):
        space.step(dt)
        samples.append((crank.angle, wheel.angle, wheel.angular_velocity))
    return samples


def simulate(dt: float, turns: float, iterations: int, damping: float) -> tuple[float, np.ndarray]:
    """Step the drive: the loop's wall time and, after each step, (time, crank angle, wheel angle, wheel speed)."""
    import numpy as np
    model = build(geneva(), iterations, damping)
    n = steps_for(dt, turns)
    start = time.perf_counter()
    read = step(model, dt, n)
    seconds = time.perf_counter() - start
    samples = np.empty((n, 4))
    samples[:, 1:] = read
    samples[:, 0] = dt * np.arange(1, n + 1)
    return seconds, samples


def run_file(path: str | Path, dt: float, iterations: int = ITERATIONS) -> tuple[float, float]:
    """Read a layout file, build and step (simple dynamics) through its turns: the peer as a program.
    The final crank and wheel angles."""
    shapes = json.loads(Path(path).read_text())
    samples = step(build_layout(shapes, iterations), dt, steps_for(dt, shapes["turns"]))
    return samples[-1][0], samples[-1][1]


def wheel_events(times: np.ndarray, speeds: np.ndarray) -> tuple[list[float], list[float]]:
    """Step times at which the wheel starts moving (faster than MOVING) and stops (slower again),
    each counted when the new state lasts HOLD: a wheel pushed without inertia stands still for
    single steps where the pin, a step behind it, has lost contact."""
    import numpy as np
    moving = np.abs(speeds) > MOVING
    starts: list[float] = []
    stops: list[float] = []
    state = False
    for i in np.flatnonzero(np.diff(moving, prepend=False)):
        lasting = moving[i:np.searchsorted(times, times[i] + HOLD)]
        if moving[i] != state and (lasting == moving[i]).all():
            state = bool(moving[i])
            (starts if state else stops).append(float(times[i]))
    return starts, stops


def pushed(geneva: Geneva, a: float) -> float:
    """The wheel's angle with the pin on the wall it pushes: it lags the closed form by the slot's play."""
    from geneva_geometry import wheel_angle
    return wheel_angle(a) + geneva.slot_play(a)


def pushed_speed(geneva: Geneva, a: float) -> float:
    """The wheel's angular speed along :func:`pushed` (the crank turns at 1 rad/s)."""
    return abs(pushed(geneva, a + SLOPE_STEP) - pushed(geneva, a - SLOPE_STEP)) / (2 * SLOPE_STEP)


@dataclass(frozen=True)
class Reference:
    """Event times (s from the start): the engagement boundaries, and corrected for the clearance."""

    ideal_starts: tuple[float, ...]
    ideal_stops: tuple[float, ...]
    starts: tuple[float, ...]
    stops: tuple[float, ...]
    slowest: float  # the pushed wheel's angular speed at the corrected events, the slowest


@cache
def reference_events(turns: float) -> Reference:
    """The events of simple dynamics: the wheel starts when the pin reaches the pushing wall with
    the wheel where the last engagement left it (:func:`pushed` at its end), and stops at the
    end of the engagement, where the pin leaves."""
    from geneva_geometry import SLOTS, engaged, engagement_bounds
    g = geneva()
    a0 = g.coordinates["crank"].initial
    bounds = engagement_bounds(a0, a0 + turns * 2 * math.pi)
    dwell = g.coordinates["wheel"].initial
    starts, speeds = [], []
    for low, high in bounds:
        touch = g.first_touch(low, high, dwell, (engaged((low + high) / 2) - 1) % SLOTS + 1)
        starts.append(touch - a0)
        speeds += [pushed_speed(g, touch + 2 * SLOPE_STEP), pushed_speed(g, high - 2 * SLOPE_STEP)]
        dwell = pushed(g, high)
    ends = tuple(high - a0 for _, high in bounds)
    return Reference(tuple(low - a0 for low, _ in bounds), ends, tuple(starts), ends, min(speeds, default=math.inf))


def event_error(found: list[float], expected: tuple[float, ...]) -> float:
    """Largest deviation of found event times from the expected ones; inf if one is missing or extra."""
    if len(found) != len(expected):
        return math.inf
    return max((abs(f - e) for f, e in zip(found, expected, strict=True)), default=0.0)


def depths(geneva: Geneva, crank: np.ndarray, wheel: np.ndarray) -> tuple[float, bool]:
    """Deepest overlap of the real shapes posed at each (crank, wheel), and whether the pin's centre
    ever entered the wheel's material."""
    from cspace.model.checks import overlap_depth
    deepest, through = 0.0, False
    for a, w in zip(crank, wheel, strict=True):
        gap = geneva.pin_gap(a, w)
        deepest = max(deepest, -gap)
        through |= gap < -geneva.pin_radius
        lock = geneva.crank_shape(geneva.lock, a, w)
        if geneva.material.intersects(lock):
            deepest = max(deepest, overlap_depth(lock, geneva.material))
    return deepest, through


def run_pymunk(dt: float, turns: float = 2.0, iterations: int = ITERATIONS, damping: float = SIMPLE) -> dict:
    """pymunk at time step ``dt`` for ``turns`` turns of the crank: wall time, samples, events and errors.

    Keys: ``dt``, ``damping``, ``steps``, ``seconds`` (the stepping loop), ``time``,
    ``crank``, ``wheel``, ``speed`` (arrays, after each step), ``starts``, ``stops``
    (event times, s), ``starts_expected``, ``stops_expected`` (clearance-corrected),
    ``ideal_starts``, ``ideal_stops`` (boundaries), ``event_error`` (against the corrected
    times), ``ideal_event_error``, ``engaged_error``, ``dwell_error`` (largest
    |w - wheel_angle|, rad), ``dwell_speed``, ``dwell_speed_median`` (the wheel's angular
    speed while it dwells, SETTLED clear of the engagements, rad/s), ``penetration`` (deepest
    overlap of the real shapes), ``pass_through``, ``skipped``.
    """
    import numpy as np
    from geneva_geometry import HALF, turn_and_alpha, wheel_angle
    g = geneva()
    seconds, samples = simulate(dt, turns, iterations, damping)
    times, crank, wheel, speed = samples.T
    starts, stops = wheel_events(times, speed)
    reference = reference_events(turns)
    error = np.abs(wheel - np.array([wheel_angle(a) for a in crank]))
    alpha = np.abs(np.array([turn_and_alpha(a)[1] for a in crank]))
    inside = alpha <= HALF
    dwell_error = float(error[~inside].max(initial=0.0))
    dwell_speed = np.abs(speed[alpha >= HALF + SETTLED])
    penetration, through = depths(g, crank, wheel)
    return {
        "dt": dt, "damping": damping, "steps": len(times), "seconds": seconds,
        "time": times, "crank": crank, "wheel": wheel, "speed": speed,
        "starts": starts, "stops": stops, "starts_expected": reference.starts, "stops_expected": reference.stops,
        "ideal_starts": reference.ideal_starts, "ideal_stops": reference.ideal_stops,
        "event_error": max(event_error(starts, reference.starts), event_error(stops, reference.stops)),
        "ideal_event_error": max(event_error(starts, reference.ideal_starts),
                                 event_error(stops, reference.ideal_stops)),
        "engaged_error": float(error[inside].max(initial=0.0)), "dwell_error": dwell_error,
        "dwell_speed": float(dwell_speed.max(initial=0.0)), "dwell_speed_median": float(np.median(dwell_speed)),
        "penetration": penetration, "pass_through": bool(through), "skipped": dwell_error >= HALF,
    }


def error_text(value: float) -> str:
    return "miss/extra" if math.isinf(value) else f"{value:.2e}"


def times_text(values: list[float] | tuple[float, ...]) -> str:
    return " ".join(f"{t:.6f}" for t in values)


def sweep(damping: float) -> list[dict]:
    """pymunk at every step size tried, with a table row printed for each."""
    print(f"{'dt':>8}{'steps':>7}{'time':>10}{'event err':>12}{'vs bounds':>12}{'engaged err':>13}"
          f"{'dwell err':>11}{'dwell speed':>13}{'penetration':>13}{'pass-through':>14}{'skipped':>9}")
    rows = []
    for rate in STEPS_PER_SECOND:
        row = run_pymunk(1.0 / rate, damping=damping)
        rows.append(row)
        print(f"{'1/' + str(rate):>8}{row['steps']:>7}{row['seconds'] * 1e3:>8.1f}ms"
              f"{error_text(row['event_error']):>12}"
              f"{error_text(row['ideal_event_error']):>12}{row['engaged_error']:>13.1e}{row['dwell_error']:>11.1e}"
              f"{row['dwell_speed']:>13.1e}{row['penetration']:>13.1e}{'yes' if row['pass_through'] else 'no':>14}"
              f"{'yes' if row['skipped'] else 'no':>9}")
    return rows


def main() -> None:
    """Run the peer as a program on a layout file, write one, or (with neither) sweep the time step."""
    parser = argparse.ArgumentParser(description="The Geneva drive in pymunk: a time-step sweep, or one run "
                                     "from a layout file.")
    parser.add_argument("layout", nargs="?", help="layout file (JSON) to step; without one, sweep the time step")
    parser.add_argument("--dt", type=float, default=1e-3, help="time step of a run from a layout (default 0.001)")
    parser.add_argument("--iterations", type=int, default=ITERATIONS, help=f"solver iterations (default {ITERATIONS})")
    parser.add_argument("--write-layout", metavar="OUT", help="write the fixture's layout to OUT and exit")
    args = parser.parse_args()
    if args.write_layout:
        Path(args.write_layout).write_text(json.dumps(layout(geneva())))
    elif args.layout:
        crank, wheel = run_file(args.layout, args.dt, args.iterations)
        print(f"{crank!r} {wheel!r}")
    else:
        sweep_report()


def sweep_report() -> None:
    """Sweep the time step both ways, print the tables and the largest step with events within 1e-3 s."""
    g = geneva()
    reference = reference_events(2.0)
    print("pymunk Geneva drive (fixtures/geneva.toml), two turns of the crank; times in s from the start (a = pi)")
    print(f"  engagement boundaries:       starts {times_text(reference.ideal_starts)}  "
          f"stops {times_text(reference.ideal_stops)}")
    print(f"  clearance-corrected (used):  starts {times_text(reference.starts)}  stops {times_text(reference.stops)}")
    print(f"  slowest pushed wheel speed at these events {reference.slowest:.2e} rad/s (threshold {MOVING:g}); "
          f"slot play "
          f"{g.slot_play(math.pi / 4):.5f} rad at the mouth, {g.slot_play(0.0):.5f} mid-engagement")
    print("simple dynamics (damping 0: the wheel's velocity cleared before every step):")
    rows = sweep(SIMPLE)
    good = [r for r in rows if r["event_error"] <= MATCHED_ACCURACY]
    print("with inertia (damping 1), for comparison:")
    inertia = sweep(INERTIA)
    finest = inertia[-1]
    print(f"  with inertia at dt = 1/{round(1 / finest['dt'])}: starts {times_text(finest['starts']) or 'none'}; "
          f"stops {times_text(finest['stops']) or 'none'}; wheel speed while dwelling: median "
          f"{finest['dwell_speed_median']:.1e}, largest {finest['dwell_speed']:.1e} rad/s")
    if good:
        best = max(good, key=lambda r: r["dt"])
        print(f"largest dt with event error <= {MATCHED_ACCURACY:g} s (simple dynamics): 1/{round(1 / best['dt'])}: "
              f"starts {times_text(best['starts'])}; stops {times_text(best['stops'])}")
    else:
        print(f"no dt tried has event error <= {MATCHED_ACCURACY:g} s")


if __name__ == "__main__":
    main()
