"""pymunk and MuJoCo on three reference scenarios of rigid-body dynamics: the peer side of the dynamics race.

Each peer simulates each scenario at its best fair step: the largest step whose error
against the exact reference meets the scenario's target, or, where no step the time
budget allows meets it, the step of the best accuracy reached. ``tools/bench_dynamics.py``
puts cspace's column next to :func:`peer_table`'s rows.

The scenarios and their exact references:

* **four-bar** (Kramer): ground pivots O2 = (0, 0) and O4 = (4, 0); crank 1, coupler
  3.5, rocker 3, each a uniform bar of mass 1 (I = m l^2 / 12 about its centre); gravity
  9.81 in -y; crank angle 0 at 5 rad/s, upper assembly; no friction. Error: |theta(5) -
  ref| of the unwrapped crank angle; also the crank rate's error at 5 s, the relative
  energy drift max |E(t) - E0| / E0 and the joint separation (loop-closure error).
  :func:`reference_fourbar` confirms the stated values twice: the reduced Lagrangian
  M(theta) theta'' + M'(theta) theta'^2 / 2 + V'(theta) = 0 on the exact loop solution,
  integrated by DOP853 (rtol = atol = 1e-13), and energy quadrature (the period, and
  theta(5) and its rate from t(theta) = integral of sqrt(M / 2(E - V))).
* **disk** (Gillespie's disk on a ramp): ramp angle pi/12, Coulomb mu = 0.2 for s < 22
  and none beyond, disk m = 1, J = 1/2, r = 1, g = 9.8, from (s, theta, s', theta') =
  (14, 0, 7, -4). s is measured up the ramp and theta counterclockwise with the ramp
  rising to the right, so rolling up the ramp is s' = -r theta' and the contact point
  slips up the ramp at s' + r theta'. :func:`disk_switch_times` is the closed form
  (constant accelerations in each phase): slide -> roll, s reaches 22, back below 22,
  slide -> roll. Error: the largest deviation of the four times.
* **block**: bounces on the floor with restitution 0.5, dropped from its bottom face 1
  above it, g = 9.81, vertical only. :func:`block_impact_times`: t1 = sqrt(2 h0 / g),
  t_n = t1 + sum 2 e^i v1 / g, accumulating at t1 (1 + e) / (1 - e). Error: the largest
  deviation of the first ten impacts; also the deepest penetration to t = 2, the
  effective restitution of the first impact and the height at t = 2 (0: at rest).

How the peers see an event, the same for both: an impact is the bottom face reaching
the floor, extrapolated from the last sample above it along the free-flight parabola;
the rebound speed comes from the first sample above the floor after it. A zone crossing
is the root of the cubic Hermite interpolant of (s, s') between the samples around it. A
slide -> roll switch is where the slip's line through the last two samples with |slip| >
1e-6 reaches 0 (exact for a peer whose sliding phase is right; a soft contact's creep
towards rolling counts as late).

The race: starting from a step of duration / 16, halve until the target is met or the
next run would exceed the time budget, then bisect on a log scale between the last
failing and the first passing step. Steps are duration / n with n whole, so every run
ends on the reference time. Timing, by ``time.perf_counter``: "wall" is the median of
the runs of stepping alone (model built before the clock starts, nothing read back
during the run, as tools/bench_peer.py times pymunk); "cold" the median of build +
stepping. The errors come from a separate run that samples the state.

It prints the references' confirmation, the table, and what each peer can and cannot
represent (:data:`LIMITS`). ``--check`` checks the references and the peer models and
exits 1 if one is wrong.

    python tools/dynamics_peers.py [--quick] [--check]

pymunk and MuJoCo are benchmark-only dependencies (``pip install '.[bench]'``).
"""

from __future__ import annotations

import argparse
import itertools
import math
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass

import mujoco
import numpy as np
import pymunk
from scipy.integrate import quad, solve_ivp
from scipy.optimize import brentq

# Four-bar.
CRANK, COUPLER, ROCKER, GROUND = 1.0, 3.5, 3.0, 4.0
LINK_MASS = 1.0
FOURBAR_GRAVITY = 9.81
CRANK_RATE = 5.0
FOURBAR_DURATION = 5.0
FOURBAR_ENERGY = 45.885700504270
FOURBAR_ANGLE = 27.112220137374  # theta(5), unwrapped
FOURBAR_RATE = 3.592065385782  # theta'(5)
FOURBAR_PERIOD = 1.136579128522
FOURBAR_TARGET = 1e-8

# Disk on a ramp.
RAMP = math.pi / 12
FRICTION = 0.2
ZONE = 22.0  # friction for s < ZONE only
DISK_MASS, DISK_INERTIA, RADIUS = 1.0, 0.5, 1.0
DISK_GRAVITY = 9.8
DISK_START = (14.0, 0.0, 7.0, -4.0)  # s, theta, s', theta'
DISK_DURATION = 7.0
DISK_SWITCHES = (0.365138054717, 1.719574967448, 4.157873615804, 6.125464535146)
DISK_TARGET = 1e-9
SLIP_THRESHOLD = 1e-6  # m/s: below it the disk rolls

# Bouncing block.
BLOCK_GRAVITY = 9.81
RESTITUTION = 0.5
DROP = 1.0
BLOCK_SIZE = 1.0
BLOCK_DURATION = 2.0
IMPACTS = 10
ACCUMULATION = 1.354570922957  # t1 (1 + e) / (1 - e)
REST_FROM = 1.5  # the block should lie still on the floor from t1 (1 + e) / (1 - e) on
BLOCK_TARGET = 1e-9

SLOP = 1e-9  # pymunk's allowed overlap (its default, 0.1, lets a resting body sink 0.1)
STARTING_STEPS = 16  # the search's first step is duration / 16
SAMPLES = 2000  # four-bar energy and joint samples per run
CONSTRAINT_TIMECONST = 4  # MuJoCo's connect constraint: time constant, in steps
CONTACT_TIMECONST = 2  # MuJoCo's disk contact: time constant, in steps (its floor)
BOUNCE_TIMECONST = 100  # MuJoCo's block contact: time constant, in steps
STIFF = "0.9999 0.9999 0.001 0.5 2"  # MuJoCo solimp: the largest impedance it allows, flat


# ---------------------------------------------------------------- references


def _solve2(e1: tuple[float, float], e2: tuple[float, float], r1: float, r2: float) -> tuple[float, float]:
    """x with e1 . x = r1 and e2 . x = r2 (Cramer's rule)."""
    det = e1[0] * e2[1] - e1[1] * e2[0]
    return (r1 * e2[1] - e1[1] * r2) / det, (e1[0] * r2 - r1 * e2[0]) / det


def fourbar_loop(theta: float) -> tuple[tuple[float, float], ...]:
    """Crank tip A and coupler-rocker pin B (upper assembly) and their first and second
    derivatives with respect to the crank angle: (A, A', A'', B, B', B'').

    B is the intersection of the circles of radius coupler about A and rocker about
    O4; its derivatives come from differentiating |B - A|^2 and |B - O4|^2 twice.
    """
    c, s = math.cos(theta), math.sin(theta)
    a, ap, app = (CRANK * c, CRANK * s), (-CRANK * s, CRANK * c), (-CRANK * c, -CRANK * s)
    dx, dy = GROUND - a[0], -a[1]
    length = math.hypot(dx, dy)
    along = (COUPLER ** 2 - ROCKER ** 2 + length ** 2) / (2 * length)
    up = math.sqrt(COUPLER ** 2 - along ** 2)
    ux, uy = dx / length, dy / length
    b = (a[0] + along * ux - up * uy, a[1] + along * uy + up * ux)
    e1, e2 = (b[0] - a[0], b[1] - a[1]), (b[0] - GROUND, b[1])
    bp = _solve2(e1, e2, e1[0] * ap[0] + e1[1] * ap[1], 0.0)
    rel = (bp[0] - ap[0], bp[1] - ap[1])
    bpp = _solve2(e1, e2, -(rel[0] ** 2 + rel[1] ** 2) + e1[0] * app[0] + e1[1] * app[1],
                  -(bp[0] ** 2 + bp[1] ** 2))
    return a, ap, app, b, bp, bpp


def _cross(u: tuple[float, float], v: tuple[float, float]) -> float:
    return u[0] * v[1] - u[1] * v[0]


def _fourbar_terms(theta: float) -> tuple[float, float, float, float]:
    """Generalized mass M(theta), its derivative, potential V(theta) and its derivative."""
    a, ap, app, b, bp, bpp = fourbar_loop(theta)
    e1, e1p, e1pp = (b[0] - a[0], b[1] - a[1]), (bp[0] - ap[0], bp[1] - ap[1]), (bpp[0] - app[0], bpp[1] - app[1])
    e2 = (b[0] - GROUND, b[1])
    w3, w3p = _cross(e1, e1p) / COUPLER ** 2, _cross(e1, e1pp) / COUPLER ** 2
    w4, w4p = _cross(e2, bp) / ROCKER ** 2, _cross(e2, bpp) / ROCKER ** 2
    vc = ((ap[0] + bp[0]) / 2, (ap[1] + bp[1]) / 2)
    vcp = ((app[0] + bpp[0]) / 2, (app[1] + bpp[1]) / 2)
    i3, i4 = LINK_MASS * COUPLER ** 2 / 12, LINK_MASS * ROCKER ** 2 / 3
    mass = LINK_MASS * CRANK ** 2 / 3 + LINK_MASS * (vc[0] ** 2 + vc[1] ** 2) + i3 * w3 ** 2 + i4 * w4 ** 2
    dmass = 2 * LINK_MASS * (vc[0] * vcp[0] + vc[1] * vcp[1]) + 2 * i3 * w3 * w3p + 2 * i4 * w4 * w4p
    weight = LINK_MASS * FOURBAR_GRAVITY
    return mass, dmass, weight * (a[1] + b[1]), weight * (ap[1] + bp[1])


@dataclass(frozen=True)
class FourbarReference:
    """The four-bar's reference values by two methods, and the ODE's crank angle at any time."""

    energy: float
    angle: float  # theta(5) by the ODE
    rate: float  # theta'(5) by the ODE
    energy_error: float  # |E(5) - E(0)| along the ODE solution
    period: float  # by quadrature
    quadrature_angle: float  # theta(5) by inverting the quadrature t(theta)
    quadrature_rate: float  # theta'(5) from the energy at quadrature_angle
    angle_at: Callable[[float], float]


def reference_fourbar() -> FourbarReference:
    """Integrate the reduced 1-DOF Lagrangian (DOP853, rtol = atol = 1e-13) and, independently,
    invert the energy quadrature t(theta) = integral of sqrt(M / 2(E - V)), to confirm the
    stated E, theta(5), theta'(5) and period."""
    mass0, _, potential0, _ = _fourbar_terms(0.0)
    energy = mass0 * CRANK_RATE ** 2 / 2 + potential0

    def rhs(_t: float, y: np.ndarray) -> list[float]:
        mass, dmass, _, dpotential = _fourbar_terms(y[0])
        return [y[1], -(dmass * y[1] ** 2 / 2 + dpotential) / mass]

    solution = solve_ivp(rhs, (0.0, FOURBAR_DURATION), [0.0, CRANK_RATE], method="DOP853", rtol=1e-13,
                         atol=1e-13, dense_output=True)
    angle, rate = solution.y[:, -1]
    mass5, _, potential5, _ = _fourbar_terms(angle)

    def slowness(theta: float) -> float:
        mass, _, potential, _ = _fourbar_terms(theta)
        return math.sqrt(mass / (2 * (energy - potential)))

    def elapsed(theta: float) -> float:
        return quad(slowness, 0.0, theta, epsabs=1e-13, epsrel=1e-13, limit=400)[0]

    period = elapsed(2 * math.pi)
    turns = math.floor(FOURBAR_DURATION / period)
    rest = FOURBAR_DURATION - turns * period
    phase = brentq(lambda theta: elapsed(theta) - rest, 0.0, 2 * math.pi, xtol=1e-14, rtol=1e-15)
    return FourbarReference(
        energy=energy, angle=float(angle), rate=float(rate),
        energy_error=abs(mass5 * rate ** 2 / 2 + potential5 - energy), period=period,
        quadrature_angle=2 * math.pi * turns + phase, quadrature_rate=1 / slowness(phase),
        angle_at=lambda t: float(solution.sol(t)[0]))


def disk_switch_times() -> list[float]:
    """Closed form of Gillespie's disk: slide -> roll, s reaches ZONE, s back below ZONE, slide -> roll.

    Sliding with slip u = s' + r theta': s'' = -g sin(phi) - sign(u) mu g cos(phi) and
    theta'' = -sign(u) mu m g cos(phi) r / J, so u falls linearly to 0; rolling:
    s'' = -g sin(phi) / (1 + J / (m r^2)); beyond ZONE: s'' = -g sin(phi), theta' frozen.
    """
    along, normal = DISK_GRAVITY * math.sin(RAMP), DISK_GRAVITY * math.cos(RAMP)

    def stick(slip: float) -> float:
        """Time for a sliding slip to reach 0."""
        rate = along * math.copysign(1, slip) + FRICTION * normal * (1 + DISK_MASS * RADIUS ** 2 / DISK_INERTIA)
        return abs(slip) / rate

    s, _, v, w = DISK_START
    slip = v + RADIUS * w
    t1 = stick(slip)
    s += v * t1 - (along + FRICTION * normal) * t1 ** 2 / 2
    v -= (along + FRICTION * normal) * t1
    rolling = along / (1 + DISK_INERTIA / (DISK_MASS * RADIUS ** 2))
    climb = (v - math.sqrt(v * v - 2 * rolling * (ZONE - s))) / rolling
    v -= rolling * climb
    t2 = t1 + climb
    tb = t2 + 2 * v / along  # up and back down without friction, theta' = -v / r frozen
    return [t1, t2, tb, tb + stick(-2 * v)]  # back at ZONE: s' = -v, r theta' = -v


def block_impact_times(count: int = IMPACTS) -> list[float]:
    """The first ``count`` impact times of the block: t1 + sum of the flights 2 e^i v1 / g."""
    first = math.sqrt(2 * DROP / BLOCK_GRAVITY)
    speed = BLOCK_GRAVITY * first
    return [first + sum(2 * RESTITUTION ** i * speed / BLOCK_GRAVITY for i in range(1, n)) for n in range(1, count + 1)]


def bounce_dampratio(restitution: float = RESTITUTION) -> float:
    """Damping ratio of a unilateral spring-damper contact (force k x + b x' >= 0, released
    when it would pull) whose rebound speed is ``restitution`` times the impact speed.

    MuJoCo's soft contact with solimp flat at d is this spring-damper with natural
    frequency 1 / (timeconst dampratio) and damping ratio ``dampratio``; the closed form
    of the damped oscillator gives the release speed, independent of the frequency.
    """
    def rebound(zeta: float) -> float:
        wd = math.sqrt(1 - zeta * zeta)

        def state(t: float) -> tuple[float, float]:
            decay = math.exp(-zeta * t)
            x = decay * math.sin(wd * t) / wd
            v = decay * (math.cos(wd * t) - zeta / wd * math.sin(wd * t))
            return 2 * zeta * v + x, v

        release = brentq(lambda t: state(t)[0], 1e-12, math.pi / wd, xtol=1e-15)
        return -state(release)[1]

    return brentq(lambda zeta: rebound(zeta) - restitution, 1e-3, 0.99, xtol=1e-15)


# ---------------------------------------------------------------- measurements


@dataclass(frozen=True)
class Outcome:
    """One sampled run: the scenario's error, its worst constraint violation (joint
    separation or contact depth), relative energy drift (nan where energy is not
    conserved), the other measures as text, and the run's wall time (for the budget)."""

    error: float
    penetration: float
    energy_drift: float
    detail: str
    seconds: float


def _fourbar_outcome(angle: float, rate: float, energies: list[float], separations: list[float],
                     seconds: float) -> Outcome:
    drift = max(abs(e - FOURBAR_ENERGY) for e in energies) / FOURBAR_ENERGY
    error = abs(angle - FOURBAR_ANGLE) if math.isfinite(angle) else math.inf
    return Outcome(error, max(separations), drift, f"rate err {abs(rate - FOURBAR_RATE):.1e}", seconds)


def disk_events(dt: float, s: np.ndarray, rate: np.ndarray, slip: np.ndarray) -> tuple[list[float], list[float]]:
    """A sampled disk's slide -> roll switches and ZONE crossings (times, in order).

    Samples are k dt; ``rate`` is s'. A switch: the first sample with |slip| <= 1e-6
    after one above, at the zero of the slip's line through the two samples before it.
    A crossing: the root of the cubic Hermite interpolant of (s - ZONE, s') between the
    samples around a change of sign.
    """
    big = np.abs(slip) > SLIP_THRESHOLD
    switches = [(k - 1) * dt + slip[k - 1] * dt / (slip[k - 2] - slip[k - 1])
                for k in np.flatnonzero(big[1:-1] & ~big[2:]) + 2]
    off = s - ZONE
    crossings = [k * dt + _hermite_root(off[k], off[k + 1], rate[k] * dt, rate[k + 1] * dt) * dt
                 for k in np.flatnonzero(np.sign(off[:-1]) != np.sign(off[1:]))]
    return switches, crossings


def _hermite_root(y0: float, y1: float, d0: float, d1: float) -> float:
    """Root in [0, 1] of the cubic Hermite with values y0, y1 and scaled slopes d0, d1 (y0, y1 of opposite signs)."""
    def value(u: float) -> float:
        return (((2 * u - 3) * u * u + 1) * y0 + ((u - 2) * u + 1) * u * d0 + (3 - 2 * u) * u * u * y1
                + (u - 1) * u * u * d1)
    return brentq(value, 0.0, 1.0, xtol=1e-15)


def _disk_outcome(dt: float, samples: np.ndarray, seconds: float) -> Outcome:
    """Samples: rows (s, height of the centre, s', theta')."""
    if not np.all(np.isfinite(samples)):
        return Outcome(math.inf, math.nan, math.nan, "diverged", seconds)
    s, height, rate, spin = samples.T
    switches, crossings = disk_events(dt, s, rate, rate + RADIUS * spin)
    if len(switches) == 2 and len(crossings) == 2:
        found = [switches[0], crossings[0], crossings[1], switches[1]]
        error = max(abs(a - b) for a, b in zip(found, DISK_SWITCHES, strict=True))
        detail = "times " + " ".join(f"{t - r:+.1e}" for t, r in zip(found, DISK_SWITCHES, strict=True))
    else:
        error = math.inf
        detail = f"{len(switches)} switches, {len(crossings)} crossings (2 and 2 expected)"
    return Outcome(error, float(RADIUS - np.min(height)), math.nan, detail, seconds)


def block_impacts(dt: float, height: np.ndarray, rate: np.ndarray) -> tuple[list[float], list[float], list[float]]:
    """A sampled block's impact times and speeds and its rebound speeds (samples k dt).

    An impact: the bottom reaches the floor between two samples, at the time and speed
    the free-flight parabola from the sample above the floor gives; a rebound: the
    speed at the floor of the free flight through the first sample above it.
    """
    above = height > 0
    down = np.flatnonzero(above[:-1] & ~above[1:])
    up = np.flatnonzero(~above[:-1] & above[1:]) + 1
    speeds = [math.sqrt(rate[k] ** 2 + 2 * BLOCK_GRAVITY * height[k]) for k in down]
    times = [k * dt + (w + rate[k]) / BLOCK_GRAVITY for k, w in zip(down, speeds, strict=True)]
    rebounds = [math.sqrt(rate[k] ** 2 + 2 * BLOCK_GRAVITY * height[k]) for k in up]
    return times, speeds, rebounds


def _block_outcome(dt: float, samples: np.ndarray, seconds: float) -> Outcome:
    """Samples: rows (height of the bottom face, its rate)."""
    if not np.all(np.isfinite(samples)):
        return Outcome(math.inf, math.nan, math.nan, "diverged", seconds)
    height, rate = samples.T
    times, speeds, rebounds = block_impacts(dt, height, rate)
    exact = block_impact_times()
    error = max(abs(a - b) for a, b in zip(times, exact, strict=False)) if len(times) >= IMPACTS else math.inf
    restitution = rebounds[0] / speeds[0] if rebounds and speeds else math.nan
    settled = np.max(np.abs(height[round(REST_FROM / dt):]))
    detail = f"e_eff {restitution:.4f}, y(2) {height[-1]:.1e}, max |y| from t={REST_FROM} {settled:.1e}"
    return Outcome(error, float(max(0.0, -np.min(height))), math.nan, detail, seconds)


# ---------------------------------------------------------------- models


def _fourbar_start() -> list[tuple[float, tuple[float, float], float, tuple[float, float], float]]:
    """Each link (crank, coupler, rocker) at t = 0: length, centre, angle, centre velocity, angular velocity."""
    a, ap, _, b, bp, _ = fourbar_loop(0.0)
    e1, e2 = (b[0] - a[0], b[1] - a[1]), (b[0] - GROUND, b[1])
    w3 = CRANK_RATE * _cross(e1, (bp[0] - ap[0], bp[1] - ap[1])) / COUPLER ** 2
    w4 = CRANK_RATE * _cross(e2, bp) / ROCKER ** 2
    half = CRANK_RATE / 2
    return [(CRANK, (a[0] / 2, a[1] / 2), 0.0, (half * ap[0], half * ap[1]), CRANK_RATE),
            (COUPLER, ((a[0] + b[0]) / 2, (a[1] + b[1]) / 2), math.atan2(e1[1], e1[0]),
             (half * (ap[0] + bp[0]), half * (ap[1] + bp[1])), w3),
            (ROCKER, ((b[0] + GROUND) / 2, b[1] / 2), math.atan2(e2[1], e2[0]), (half * bp[0], half * bp[1]), w4)]


def _chunks(steps: int, size: int) -> list[int]:
    """``steps`` split into runs of ``size`` and a remainder."""
    return [size] * (steps // size) + ([steps % size] if steps % size else [])


def _pymunk_fourbar() -> tuple[pymunk.Space, list[pymunk.Body], list[pymunk.PivotJoint]]:
    """Three free bars pinned by four pivot joints (two to the ground); no shapes, so no contacts."""
    space = pymunk.Space()
    space.gravity = (0.0, -FOURBAR_GRAVITY)
    bodies = []
    for length, centre, angle, velocity, spin in _fourbar_start():
        body = pymunk.Body(LINK_MASS, LINK_MASS * length ** 2 / 12)
        body.position, body.angle, body.velocity, body.angular_velocity = centre, angle, velocity, spin
        bodies.append(body)
    crank, coupler, rocker = bodies
    ground = space.static_body
    joints = [pymunk.PivotJoint(ground, crank, (0, 0), (-CRANK / 2, 0)),
              pymunk.PivotJoint(crank, coupler, (CRANK / 2, 0), (-COUPLER / 2, 0)),
              pymunk.PivotJoint(coupler, rocker, (COUPLER / 2, 0), (ROCKER / 2, 0)),
              pymunk.PivotJoint(ground, rocker, (GROUND, 0), (-ROCKER / 2, 0))]
    space.add(*bodies, *joints)
    return space, bodies, joints


def _pymunk_stepper(space: pymunk.Space, dt: float) -> Callable[[int], None]:
    step = space.step

    def advance(steps: int) -> None:
        for _ in range(steps):
            step(dt)
    return advance


def _pymunk_energy(bodies: list[pymunk.Body]) -> float:
    return sum(b.mass * b.velocity.length_squared / 2 + b.moment * b.angular_velocity ** 2 / 2
               + b.mass * FOURBAR_GRAVITY * b.position.y for b in bodies)


def _pymunk_fourbar_measure(dt: float, steps: int) -> Outcome:
    start = time.perf_counter()
    space, bodies, joints = _pymunk_fourbar()
    energies, separations = [], []
    for chunk in _chunks(steps, max(1, steps // SAMPLES)):
        for _ in range(chunk):
            space.step(dt)
        energies.append(_pymunk_energy(bodies))
        separations.append(max((j.a.local_to_world(j.anchor_a) - j.b.local_to_world(j.anchor_b)).length
                               for j in joints))
    crank = bodies[0]
    return _fourbar_outcome(crank.angle, crank.angular_velocity, energies, separations, time.perf_counter() - start)


def _mujoco_fourbar(dt: float) -> tuple[mujoco.MjModel, mujoco.MjData, float, float]:
    """Crank and coupler in a chain of hinges from O2, rocker hinged at O4, the loop closed by a
    connect equality between the coupler's and the rocker's tips; RK4; contacts off.

    Returns the model, its data at the start, and the coupler's and rocker's angles at
    qpos = 0 (the model's reference configuration is the assembled start).
    """
    _, (_, _, phi3, _, w3), (_, _, phi4, _, w4) = _fourbar_start()

    def inertial(length: float) -> str:
        spin = LINK_MASS * length ** 2 / 12
        return f'<inertial pos="{length / 2} 0 0" mass="{LINK_MASS}" diaginertia="1e-9 {spin} {spin}"/>'

    xml = f"""<mujoco><compiler angle="radian"/>
<option timestep="{dt}" gravity="0 {-FOURBAR_GRAVITY} 0" integrator="RK4"><flag contact="disable"/></option>
<worldbody>
 <body name="crank"><joint type="hinge" axis="0 0 1"/>{inertial(CRANK)}
  <body name="coupler" pos="{CRANK} 0 0" euler="0 0 {phi3!r}"><joint type="hinge" axis="0 0 1"/>{inertial(COUPLER)}
   <site name="coupler_tip" pos="{COUPLER} 0 0"/></body></body>
 <body name="rocker" pos="{GROUND} 0 0" euler="0 0 {phi4!r}"><joint type="hinge" axis="0 0 1"/>{inertial(ROCKER)}
  <site name="rocker_tip" pos="{ROCKER} 0 0"/></body>
</worldbody>
<equality>
 <connect site1="coupler_tip" site2="rocker_tip" solref="{CONSTRAINT_TIMECONST * dt!r} 1" solimp="{STIFF}"/>
</equality>
</mujoco>"""
    model = mujoco.MjModel.from_xml_string(xml)
    data = mujoco.MjData(model)
    data.qvel[:] = (CRANK_RATE, w3 - CRANK_RATE, w4)
    return model, data, phi3, phi4


def _mujoco_stepper(model: mujoco.MjModel, data: mujoco.MjData) -> Callable[[int], None]:
    def advance(steps: int) -> None:
        mujoco.mj_step(model, data, steps)
    return advance


def _diverged(data: mujoco.MjData) -> bool:
    """MuJoCo met a bad acceleration (and reset the state)."""
    return data.warning[mujoco.mjtWarning.mjWARN_BADQACC].number > 0


def _mujoco_fourbar_measure(dt: float, steps: int) -> Outcome:
    start = time.perf_counter()
    model, data, phi3, phi4 = _mujoco_fourbar(dt)
    energies, separations = [], []
    half3, spin3, weight = COUPLER / 2, LINK_MASS * COUPLER ** 2 / 12, LINK_MASS * FOURBAR_GRAVITY
    for chunk in _chunks(steps, max(1, steps // SAMPLES)):
        mujoco.mj_step(model, data, chunk)
        (q1, q2, q3), (u1, u2, u3) = data.qpos, data.qvel
        coupler, rocker, spin = phi3 + q1 + q2, phi4 + q3, u1 + u2
        ax, ay = CRANK * math.cos(q1), CRANK * math.sin(q1)
        vx = -ay * u1 - half3 * math.sin(coupler) * spin
        vy = ax * u1 + half3 * math.cos(coupler) * spin
        kinetic = (LINK_MASS * CRANK ** 2 / 3 * u1 ** 2 + LINK_MASS * (vx * vx + vy * vy) + spin3 * spin ** 2
                   + LINK_MASS * ROCKER ** 2 / 3 * u3 ** 2) / 2
        heights = ay / 2 + ay + half3 * math.sin(coupler) + ROCKER / 2 * math.sin(rocker)
        energies.append(kinetic + weight * heights)
        separations.append(math.hypot(ax + COUPLER * math.cos(coupler) - GROUND - ROCKER * math.cos(rocker),
                                      ay + COUPLER * math.sin(coupler) - ROCKER * math.sin(rocker)))
    angle = math.inf if _diverged(data) else float(data.qpos[0])
    return _fourbar_outcome(angle, float(data.qvel[0]), energies, separations, time.perf_counter() - start)


def _pymunk_disk() -> tuple[pymunk.Space, pymunk.Body]:
    """The ramp is the line y = 0 and gravity is tilted by phi: s = x. Two segments: friction
    0.2 up to x = ZONE, 0 beyond (pymunk multiplies the two shapes' frictions; the disk's is 1)."""
    space = pymunk.Space()
    space.gravity = (-DISK_GRAVITY * math.sin(RAMP), -DISK_GRAVITY * math.cos(RAMP))
    space.collision_slop = SLOP
    s, theta, rate, spin = DISK_START
    disk = pymunk.Body(DISK_MASS, DISK_INERTIA)
    disk.position, disk.angle, disk.velocity, disk.angular_velocity = (s, RADIUS), theta, (rate, 0.0), spin
    shape = pymunk.Circle(disk, RADIUS)
    shape.friction = 1.0
    rough = pymunk.Segment(space.static_body, (-60.0, 0.0), (ZONE, 0.0), 0.0)
    rough.friction = FRICTION
    smooth = pymunk.Segment(space.static_body, (ZONE, 0.0), (80.0, 0.0), 0.0)
    smooth.friction = 0.0
    space.add(disk, shape, rough, smooth)
    return space, disk


def _pymunk_disk_samples(dt: float, steps: int) -> np.ndarray:
    """Rows (s, centre height, s', theta') at every step."""
    space, disk = _pymunk_disk()
    samples = [(DISK_START[0], RADIUS, DISK_START[2], DISK_START[3])]
    record, step = samples.append, space.step
    for _ in range(steps):
        step(dt)
        p, v = disk.position, disk.velocity
        record((p.x, p.y, v.x, disk.angular_velocity))
    return np.array(samples)


def _mujoco_disk(dt: float) -> tuple[mujoco.MjModel, mujoco.MjData]:
    """The ramp is the top z = 0 of two boxes (friction 0.2 for x < ZONE, 0 beyond; MuJoCo takes
    the larger of two geoms' frictions, the disk's is 0) and gravity is tilted by phi: s = x.

    The disk is a sphere of radius 1 with the disk's inertia, on slide x, slide z and a
    hinge about -y (so the hinge angle is theta): in the plane its contact is the disk's,
    and sphere-box contact is exact where a cylinder's is not. Semi-implicit Euler
    (RK4 is no more accurate here and costs three times as much), elliptic friction
    cone, the contact as stiff as MuJoCo allows: solref (2 dt, 1), solimp flat at
    0.9999. So stiff, a rolling disk creeps below the 1e-6 m/s that counts as rolling
    (with MuJoCo's default contact it creeps at mm/s and never rolls by that measure;
    the noslip solver changes nothing once the contact is this stiff).
    """
    contact = f'solref="{CONTACT_TIMECONST * dt!r} 1" solimp="{STIFF}"'
    gx, gz = -DISK_GRAVITY * math.sin(RAMP), -DISK_GRAVITY * math.cos(RAMP)
    xml = f"""<mujoco><option timestep="{dt!r}" gravity="{gx!r} 0 {gz!r}" integrator="Euler" cone="elliptic"/>
<worldbody>
 <geom type="box" pos="{(ZONE - 60) / 2} 0 -1" size="{(ZONE + 60) / 2} 5 1" friction="{FRICTION} 0 0" {contact}/>
 <geom type="box" pos="{(ZONE + 80) / 2} 0 -1" size="{(80 - ZONE) / 2} 5 1" friction="0 0 0" {contact}/>
 <body><joint type="slide" axis="1 0 0"/><joint type="slide" axis="0 0 1"/><joint type="hinge" axis="0 -1 0"/>
  <geom type="sphere" size="{RADIUS}" friction="0 0 0" condim="3" {contact}/>
  <inertial pos="0 0 0" mass="{DISK_MASS}" diaginertia="{DISK_INERTIA} {DISK_INERTIA} {DISK_INERTIA}"/></body>
</worldbody></mujoco>"""
    model = mujoco.MjModel.from_xml_string(xml)
    data = mujoco.MjData(model)
    s, theta, rate, spin = DISK_START
    data.qpos[:] = (s, RADIUS, theta)
    data.qvel[:] = (rate, 0.0, spin)
    return model, data


def _mujoco_disk_samples(dt: float, steps: int) -> np.ndarray:
    """Rows (s, centre height, s', theta') at every step; the last row nan if MuJoCo diverged."""
    model, data = _mujoco_disk(dt)
    samples = np.empty((steps + 1, 4))
    samples[0] = (DISK_START[0], RADIUS, DISK_START[2], DISK_START[3])
    qpos, qvel, step = data.qpos, data.qvel, mujoco.mj_step
    for k in range(1, steps + 1):
        step(model, data)
        samples[k] = (qpos[0], qpos[1], qvel[0], qvel[2])
    if _diverged(data):
        samples[-1] = math.nan
    return samples


def _pymunk_block() -> tuple[pymunk.Space, pymunk.Body]:
    """A 1 x 1 box that cannot turn (infinite moment) over a floor segment; restitution 0.5 x 1.0
    (pymunk multiplies the shapes' elasticities); no friction, so it stays vertical."""
    space = pymunk.Space()
    space.gravity = (0.0, -BLOCK_GRAVITY)
    space.collision_slop = SLOP
    block = pymunk.Body(1.0, math.inf)
    block.position = (0.0, DROP + BLOCK_SIZE / 2)
    shape = pymunk.Poly.create_box(block, (BLOCK_SIZE, BLOCK_SIZE))
    shape.elasticity, shape.friction = RESTITUTION, 0.0
    floor = pymunk.Segment(space.static_body, (-5.0, 0.0), (5.0, 0.0), 0.0)
    floor.elasticity, floor.friction = 1.0, 0.0
    space.add(block, shape, floor)
    return space, block


def _pymunk_block_samples(dt: float, steps: int) -> np.ndarray:
    """Rows (bottom face height, its rate) at every step."""
    space, block = _pymunk_block()
    samples = [(DROP, 0.0)]
    record, step, bottom = samples.append, space.step, BLOCK_SIZE / 2
    for _ in range(steps):
        step(dt)
        record((block.position.y - bottom, block.velocity.y))
    return np.array(samples)


def _mujoco_block(dt: float) -> tuple[mujoco.MjModel, mujoco.MjData]:
    """A box on a vertical slide joint over a plane, frictionless contacts (condim 1).

    MuJoCo has no restitution: its contact is a spring-damper (solref timeconst,
    dampratio; solimp flat at 0.9999), so the damping ratio that restitutes 0.5 is that
    of :func:`bounce_dampratio` (0.2553), and the time constant is 100 steps: shorter
    contacts are integrated too coarsely to restitute 0.5 (at 2 to 10 steps the
    rebound is 0.35 to 0.45), longer ones delay every bounce more. Semi-implicit Euler:
    RK4 is no more accurate here and costs four times as much.
    """
    contact = f'condim="1" solref="{BOUNCE_TIMECONST * dt!r} {bounce_dampratio()!r}" solimp="{STIFF}"'
    half = BLOCK_SIZE / 2
    xml = f"""<mujoco><option timestep="{dt!r}" gravity="0 0 {-BLOCK_GRAVITY}" integrator="Euler"/>
<worldbody><geom type="plane" size="5 5 0.1" {contact}/>
 <body pos="0 0 {half}"><joint type="slide" axis="0 0 1"/>
  <geom type="box" size="{half} {half} {half}" mass="1" {contact}/></body>
</worldbody></mujoco>"""
    model = mujoco.MjModel.from_xml_string(xml)
    data = mujoco.MjData(model)
    data.qpos[0] = DROP
    return model, data


def _mujoco_block_samples(dt: float, steps: int) -> np.ndarray:
    """Rows (bottom face height, its rate) at every step; the last row nan if MuJoCo diverged."""
    model, data = _mujoco_block(dt)
    samples = np.empty((steps + 1, 2))
    samples[0] = (DROP, 0.0)
    qpos, qvel, step = data.qpos, data.qvel, mujoco.mj_step
    for k in range(1, steps + 1):
        step(model, data)
        samples[k] = (qpos[0], qvel[0])
    if _diverged(data):
        samples[-1] = math.nan
    return samples


# ---------------------------------------------------------------- the race


@dataclass(frozen=True)
class Case:
    """One peer on one scenario: how to build it ready to step (for timing) and to measure a run."""

    peer: str
    scenario: str
    duration: float
    target: float
    build: Callable[[float], Callable[[int], None]]
    measure: Callable[[float, int], Outcome]
    report_steps: tuple[float, ...] = ()  # steps reported besides the best one


def _sampled(samples: Callable[[float, int], np.ndarray],
             outcome: Callable[[float, np.ndarray, float], Outcome]) -> Callable[[float, int], Outcome]:
    """A measure from a sampler (dt, steps) -> rows and the scenario's outcome of the rows."""
    def measure(dt: float, steps: int) -> Outcome:
        start = time.perf_counter()
        rows = samples(dt, steps)
        return outcome(dt, rows, time.perf_counter() - start)
    return measure


def _pymunk_fourbar_build(dt: float) -> Callable[[int], None]:
    return _pymunk_stepper(_pymunk_fourbar()[0], dt)


def _pymunk_disk_build(dt: float) -> Callable[[int], None]:
    return _pymunk_stepper(_pymunk_disk()[0], dt)


def _pymunk_block_build(dt: float) -> Callable[[int], None]:
    return _pymunk_stepper(_pymunk_block()[0], dt)


CASES = (
    Case("pymunk", "four-bar", FOURBAR_DURATION, FOURBAR_TARGET, _pymunk_fourbar_build, _pymunk_fourbar_measure,
         (1e-4, 1e-5, 1e-6)),
    Case("MuJoCo", "four-bar", FOURBAR_DURATION, FOURBAR_TARGET,
         lambda dt: _mujoco_stepper(*_mujoco_fourbar(dt)[:2]), _mujoco_fourbar_measure),
    Case("pymunk", "disk", DISK_DURATION, DISK_TARGET, _pymunk_disk_build,
         _sampled(_pymunk_disk_samples, _disk_outcome), (3.6e-4,)),
    Case("MuJoCo", "disk", DISK_DURATION, DISK_TARGET, lambda dt: _mujoco_stepper(*_mujoco_disk(dt)),
         _sampled(_mujoco_disk_samples, _disk_outcome)),
    Case("pymunk", "block", BLOCK_DURATION, BLOCK_TARGET, _pymunk_block_build,
         _sampled(_pymunk_block_samples, _block_outcome)),
    Case("MuJoCo", "block", BLOCK_DURATION, BLOCK_TARGET, lambda dt: _mujoco_stepper(*_mujoco_block(dt)),
         _sampled(_mujoco_block_samples, _block_outcome)),
)

SETUP = {
    ("pymunk", "four-bar"): "3 bodies, 4 PivotJoints, 10 iterations",
    ("MuJoCo", "four-bar"): f"RK4, hinge chain + connect solref ({CONSTRAINT_TIMECONST} dt, 1) solimp 0.9999",
    ("pymunk", "disk"): "circle on 2 segments (mu 0.2 | 0), tilted gravity",
    ("MuJoCo", "disk"): f"Euler, sphere on 2 boxes, elliptic cone, solref ({CONTACT_TIMECONST} dt, 1) solimp 0.9999",
    ("pymunk", "block"): "box (no rotation) on a segment, elasticity 0.5 x 1",
    ("MuJoCo", "block"): f"Euler, box on plane, solref ({BOUNCE_TIMECONST} dt, 0.2553) solimp 0.9999",
}


LIMITS = (
    ("pymunk: semi-implicit Euler, so every error falls as dt; joints and contacts are impulses iterated with a "
     "position bias, so the four-bar's pins separate by ~2 dt; restitution is a coefficient (the product of the "
     "shapes'); Coulomb friction sticks exactly; a friction zone is a separate shape, its seam under the disk's "
     "centre."),
    ("MuJoCo: a closed loop only through a soft equality (connect), stiff at timeconst 4 dt: the four-bar's pins "
     "separate by ~1e-9 at dt 1e-4, and RK4 makes its error fall as dt^2; contacts are soft spring-dampers: no "
     "restitution coefficient (a damping ratio stands for it, 0.2553 for e = 0.5), a bounce lasts ~70 steps and "
     "delays the next, the block rests on a nanometre chatter; friction is soft too (a rolling disk creeps, below 1e-6 "
     "m/s with the stiffest contact); it is 3D: the disk is a sphere held in the plane by its joints."),
)


@dataclass(frozen=True)
class Budget:
    """How hard to search: the longest single measured run, the bisections, the timed runs."""

    run_seconds: float
    bisections: int
    runs: int


FULL = Budget(run_seconds=10.0, bisections=8, runs=5)
QUICK = Budget(run_seconds=1.0, bisections=3, runs=3)


def search(case: Case, budget: Budget) -> tuple[int, Outcome, dict[int, Outcome]]:
    """The largest step duration / n meeting the target, or the most accurate one tried.

    Halves the step from duration / 16 until the target is met or the next run would
    take longer than the budget, then bisects n on a log scale between the last
    failing and the first passing step. Returns n, its outcome and every run by n.
    """
    tried: dict[int, Outcome] = {}

    def run(n: int) -> Outcome:
        if n not in tried:
            tried[n] = case.measure(case.duration / n, n)
        return tried[n]

    n = STARTING_STEPS
    while run(n).error > case.target:
        if 2 * tried[n].seconds > budget.run_seconds:
            best = min(tried, key=lambda k: tried[k].error)
            return best, tried[best], tried
        n *= 2
    failing, passing = n // 2, n
    for _ in range(budget.bisections):
        middle = round(math.sqrt(failing * passing))
        if middle in (failing, passing):
            break
        if run(middle).error <= case.target:
            passing = middle
        else:
            failing = middle
    return passing, tried[passing], tried


def wall_times(case: Case, steps: int, runs: int) -> tuple[float, float]:
    """Median seconds of stepping alone, and of build + stepping, over ``runs`` runs."""
    dt = case.duration / steps
    trace, cold = [], []
    for _ in range(runs):
        start = time.perf_counter()
        advance = case.build(dt)
        built = time.perf_counter()
        advance(steps)
        end = time.perf_counter()
        trace.append(end - built)
        cold.append(end - start)
    return statistics.median(trace), statistics.median(cold)


def _convergence(case: Case, tried: dict[int, Outcome]) -> str:
    """The error's order in the step over the last four halvings and the step the target
    would need at that order, if the error fell at each of them."""
    halvings = sorted((n, o.error) for n, o in tried.items() if n & (n - 1) == 0 and 0 < o.error < math.inf)[-4:]
    errors = [e for _, e in halvings]
    if len(halvings) < 2 or any(later >= earlier for earlier, later in itertools.pairwise(errors)):
        return "; the error does not fall steadily with the step: no extrapolation"
    (n0, e0), (n1, e1) = halvings[0], halvings[-1]
    order = math.log(e0 / e1) / math.log(n1 / n0)
    return f"; error ~ dt^{order:.1f}: target needs dt ~{case.duration / n1 * (case.target / e1) ** (1 / order):.0e} s"


def _row(case: Case, steps: int, outcome: Outcome, budget: Budget, note: str) -> dict:
    wall, cold = wall_times(case, steps, budget.runs)
    return {"peer": case.peer, "scenario": case.scenario, "step": case.duration / steps, "wall_median_s": wall,
            "cold_s": cold, "error": outcome.error, "penetration": outcome.penetration,
            "energy_drift": outcome.energy_drift,
            "note": f"{note}; {outcome.detail}; {SETUP[(case.peer, case.scenario)]}"}


def peer_table(quick: bool = False) -> list[dict]:
    """Rows (peer, scenario, step, wall_median_s, cold_s, error, penetration, energy_drift, note):
    each peer's best fair step on each scenario, then its runs at the case's report steps.

    ``penetration`` is the worst constraint violation: the largest joint separation for
    the four-bar, the deepest contact for the disk and the block. ``quick`` searches
    coarsely (a smoke run, under a minute).
    """
    budget = QUICK if quick else FULL
    warn = mujoco.get_mju_user_warning()
    mujoco.set_mju_user_warning(lambda _message: None)  # divergence at coarse steps is read from the data
    try:
        rows = [row for case in CASES for row in _case_rows(case, budget)]
    finally:
        mujoco.set_mju_user_warning(warn)
    return rows


def _case_rows(case: Case, budget: Budget) -> list[dict]:
    """The best row of one case, then its rows at the report steps the budget allows."""
    steps, outcome, tried = search(case, budget)
    if outcome.error <= case.target:
        note = f"target {case.target:.0e} met"
    else:
        note = (f"target {case.target:.0e} not met: best of the steps down to {case.duration / max(tried):.1e} s "
                f"(time budget){_convergence(case, tried)}")
    rows = [_row(case, steps, outcome, budget, note)]
    seconds_per_step = tried[max(tried)].seconds / max(tried)
    for dt in case.report_steps:
        n = round(case.duration / dt)
        if n in tried or n * seconds_per_step <= 2 * budget.run_seconds:
            rows.append(_row(case, n, tried.get(n) or case.measure(case.duration / n, n), budget, "fixed step"))
    return rows


def _cell(value: float, digits: int = 2) -> str:
    return "-" if math.isnan(value) else f"{value:.{digits}e}"


def markdown(rows: list[dict]) -> str:
    """The rows as a Markdown table."""
    lines = ["| peer | scenario | step (s) | wall median (s) | cold (s) | error | penetration | energy drift | note |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for r in rows:
        lines.append(f"| {r['peer']} | {r['scenario']} | {r['step']:.3e} | {r['wall_median_s']:.3g} "
                     f"| {r['cold_s']:.3g} | {_cell(r['error'])} | {_cell(r['penetration'])} "
                     f"| {_cell(r['energy_drift'])} | {r['note']} |")
    return "\n".join(lines)


# ---------------------------------------------------------------- checks


def checks() -> list[tuple[str, float, float]]:
    """(what, value, bound), each passing when value <= bound: the references against the
    stated values, and each peer model at a step where a wrong model would miss."""
    ref = reference_fourbar()
    first = block_impact_times()[0]
    found = [
        ("four-bar ODE: E0 - stated", abs(ref.energy - FOURBAR_ENERGY), 1e-10),
        ("four-bar ODE: theta(5) - stated", abs(ref.angle - FOURBAR_ANGLE), 1e-9),
        ("four-bar ODE: theta'(5) - stated", abs(ref.rate - FOURBAR_RATE), 1e-9),
        ("four-bar ODE: |E(5) - E0|", ref.energy_error, 1e-9),
        ("four-bar quadrature: period - stated", abs(ref.period - FOURBAR_PERIOD), 1e-10),
        ("four-bar quadrature: theta(5) - stated", abs(ref.quadrature_angle - FOURBAR_ANGLE), 1e-9),
        ("four-bar quadrature: theta'(5) - stated", abs(ref.quadrature_rate - FOURBAR_RATE), 1e-9),
        ("disk closed form: switch times - stated",
         max(abs(a - b) for a, b in zip(disk_switch_times(), DISK_SWITCHES, strict=True)), 1e-9),
        ("block closed form: t1 - stated", abs(first - 0.451523640986), 1e-11),
        ("block closed form: accumulation - stated",
         abs(first + 2 * RESTITUTION * first / (1 - RESTITUTION) - ACCUMULATION), 1e-11),
        ("MuJoCo dampratio for e = 0.5 - 0.2552756376", abs(bounce_dampratio() - 0.2552756376), 1e-9),
    ]
    space, bodies, _ = _pymunk_fourbar()
    energies = []
    for _ in range(100):  # 1 s at 1e-5
        for _ in range(1000):
            space.step(1e-5)
        energies.append(_pymunk_energy(bodies))
    found += [("pymunk four-bar, dt 1e-5: energy drift to 1 s",
               max(abs(e - FOURBAR_ENERGY) for e in energies) / FOURBAR_ENERGY, 1e-3),
              ("pymunk four-bar, dt 1e-5: |theta(1) - ODE|", abs(bodies[0].angle - ref.angle_at(1.0)), 1e-2)]
    mujoco_fourbar = _mujoco_fourbar_measure(FOURBAR_DURATION / 50000, 50000)
    found += [("MuJoCo four-bar, dt 1e-4: |theta(5) - stated|", mujoco_fourbar.error, 1e-7),
              ("MuJoCo four-bar, dt 1e-4: energy drift", mujoco_fourbar.energy_drift, 1e-8)]
    for peer, samples in (("pymunk", _pymunk_disk_samples), ("MuJoCo", _mujoco_disk_samples)):
        error = _disk_outcome(1e-4, samples(1e-4, 70000), 0).error
        found.append((f"{peer} disk, dt 1e-4: switch-time error", error, 2e-3))
    for peer, samples in (("pymunk", _pymunk_block_samples), ("MuJoCo", _mujoco_block_samples)):
        rows = samples(1e-5, 200000)
        times, speeds, rebounds = block_impacts(1e-5, *rows.T)
        found += [(f"{peer} block, dt 1e-5: first impact - closed form", abs(times[0] - first) if times else math.inf,
                   1e-3),
                  (f"{peer} block, dt 1e-5: |e_eff - 0.5| at the first impact",
                   abs(rebounds[0] / speeds[0] - RESTITUTION) if rebounds else math.inf, 1e-2),
                  (f"{peer} block, dt 1e-5: error of the first 10 impacts", _block_outcome(1e-5, rows, 0).error, 2e-2)]
    return found


# ---------------------------------------------------------------- main


def _reference_report() -> list[str]:
    ref = reference_fourbar()
    switches = disk_switch_times()
    return [
        "Four-bar reference (stated; scipy DOP853 on the reduced Lagrangian; energy quadrature):",
        f"  E0        {FOURBAR_ENERGY:.12f}  {ref.energy:.12f}  (|E(5) - E0| along the ODE {ref.energy_error:.1e})",
        f"  theta(5)  {FOURBAR_ANGLE:.12f}  {ref.angle:.12f}  {ref.quadrature_angle:.12f}",
        f"  theta'(5) {FOURBAR_RATE:.12f}  {ref.rate:.12f}  {ref.quadrature_rate:.12f}",
        f"  period    {FOURBAR_PERIOD:.12f}  {'':14}  {ref.period:.12f}",
        "Disk switch times (stated; closed form): "
        + ", ".join(f"{a:.12f} {b:.12f}" for a, b in zip(DISK_SWITCHES, switches, strict=True)),
        (f"Block impacts (closed form): t1 {block_impact_times()[0]:.12f}, t10 {block_impact_times()[-1]:.12f}, "
         f"accumulation {block_impact_times(1)[0] * (1 + RESTITUTION) / (1 - RESTITUTION):.12f}"),
    ]


def main(argv: list[str] | None = None) -> int:
    """Print the reference confirmation and the peers' table (or, with --check, check the models)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="coarse search: a smoke run under a minute")
    parser.add_argument("--check", action="store_true",
                        help="check the references and the peer models; exit 1 if one is wrong")
    args = parser.parse_args(argv)
    if args.check:
        failures = 0
        for what, value, bound in checks():
            ok = value <= bound
            failures += not ok
            print(f"{'ok  ' if ok else 'FAIL'} {what}: {value:.2e} (bound {bound:.0e})")
        return 1 if failures else 0
    print("\n".join(_reference_report()))
    print(f"\npymunk {pymunk.version}, MuJoCo {mujoco.__version__}; "
          f"{'quick' if args.quick else 'full'} search\n")
    print(markdown(peer_table(quick=args.quick)))
    budget = QUICK if args.quick else FULL
    print("\n" + "\n".join(f"* {line}" for line in LIMITS))
    print(f"\nWall: median of {budget.runs} runs of stepping alone; cold: build + stepping, median of the same runs. "
          "The machine is shared (2 cores): single timings move by tens of per cent; compare within a run, "
          "not across runs.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
