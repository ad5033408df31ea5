"""Random full-dynamics mechanisms (``dynamics = "full"``, :func:`cspace.simulate`) with their
closed forms, for the fuzz report and ``tests/test_fuzz_dynamics.py``.

Three families, each drawn through a :class:`~tests.support.draws.Draw` (so a seed, or
hypothesis, makes the same mechanism):

* ``bouncing``: blocks of random mass and size dropped from a random height onto a floor at a
  random place, restitution 0 or in [0.05, 0.9], gravity of 2 to 20 within 30 degrees of -y.
  ``free``: one block, no wall: its impacts come at ``t1 = sqrt(2 h / g_y)`` and then after
  flights ``2 e^i v1 / g_y`` (to 1e-9 s), it rests on the floor from their accumulation point
  ``t1 (1 + e) / (1 - e)``, and its ``x`` (when it has one) follows ``g_x t^2 / 2`` at every
  sample, whatever the impacts (the floor is smooth). ``walls``: walls on one or both sides,
  at random distances; the first impact is on the floor at ``t1`` when no wall comes first.
  ``stack``: two blocks one above the other, each on its own x and y axes (or y alone): they fall
  together, so the lower one meets the floor first, at ``t1``.
* ``pendulum``: a bar of random length, thickness and mass on a pivot under gravity, let go
  from rest at up to 2.8 rad from hanging. ``stop``: it swings into one of its rotation's
  limits; ``block``: into a fixed block (tilted a little, so a corner may meet the bar first).
  Closed form (the physical pendulum, by elliptic integrals, independent of the engine): the
  first impact's time and rate, the rate after it (``-e`` times), and the second impact's time;
  at a block the contact angle is found by bisection on the real shapes (shapely) and the
  times are allowed what the turning pair's grown blocked space moves it (``turning_gap``).
* ``cam-inertia``: an eccentric disk driven at a constant rate under a flat-faced follower of
  random mass on a vertical translation, under gravity, the follower drawn a little above the
  disk at its lowest. ``follow``: the cam's acceleration ``e w^2`` stays under ``g``: once on
  the cam the follower rides its profile ``R + e sin(theta)``. ``fly``: ``e w^2 > g``: it rides
  it until ``sin(theta) = g / (e w^2)``, where the contact force falls to zero, and then flies
  clear of it (the ballistic flight's closed form says when it is ``FOLLOW`` clear).

:func:`check` runs a case: :func:`cspace.simulate`, :func:`cspace.testing.replay` (overlaps,
limits, the energy ledger) and the closed form; with ``twice`` it simulates again and compares.
``KNOWN_FAILING`` names the families the engine fails on almost every case, and why.

>>> from .draws import SeededDraw
>>> [dynamic(SeededDraw(3), family).family for family in DYNAMIC]
['bouncing:free', 'pendulum:stop', 'cam-inertia:follow']
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import shapely
from scipy.optimize import brentq
from scipy.special import ellipk, ellipkinc
from shapely import affinity

from .draws import Draw

DYNAMIC = ("bouncing", "pendulum", "cam-inertia")
# Families on which the engine fails (nearly) every case, with the reason: the fuzz report marks
# them, the tests expect the failure. Remove an entry when the engine is fixed.
KNOWN_FAILING: dict[str, str] = {}  # none since the exact contacts were held and the complementarity solved by active sets
FREE_FALL = 1e-9  # seconds: free-fall impact times against t1 = sqrt(2 h / g) and the flights after it
ACCUMULATION = 1e-6  # seconds: where the impacts accumulate and the block comes to rest (the fixture's bound)
PENDULUM_TIME = 1e-8  # seconds, relative to the time: a pendulum's impacts on a stop (elliptic integrals)
RATE = 1e-8  # relative: a rate before an impact against the closed form's
FOLLOW = 0.02  # of the eccentricity: how far above the cam's profile a follower in contact may be
CHECKED_IMPACTS = 8  # the first impacts checked against the closed form


@dataclass(frozen=True)
class DynamicCase:
    """A generated full-dynamics mechanism: its family (``family:variant``), its text, and what
    its closed form needs (``facts``, by name)."""

    family: str
    text: str
    facts: dict = field(default_factory=dict)

    def __repr__(self) -> str:
        return f"DynamicCase({self.family!r})"


def dynamic(draw: Draw, family: str) -> DynamicCase:
    """A random mechanism of one of :data:`DYNAMIC` (see the module docstring)."""
    return {"bouncing": bouncing, "pendulum": pendulum, "cam-inertia": cam_inertia}[family](draw)


# -- text ---------------------------------------------------------------------------------------------


def _n(value: float) -> str:
    """A number for the file, exactly (repr round-trips a double), no negative zero."""
    value = float(value)
    return "0" if value == 0 else repr(value)


def _p(point) -> str:
    return f"[{_n(point[0])}, {_n(point[1])}]"


def _rect(x0: float, y0: float, x1: float, y1: float, name: str | None = None) -> str:
    label = f'name = "{name}", ' if name else ""
    return f"{{ {label}rect = [{_n(x0)}, {_n(y0)}, {_n(x1)}, {_n(y1)}] }}"


def _path(points, name: str | None = None) -> str:
    label = f'name = "{name}", ' if name else ""
    return f"{{ {label}path = [{', '.join(_p(p) for p in [*points, points[0]])}] }}"


def _header(family: str, variant: str, time: float, gravity, restitution: float, notes: Sequence[str]) -> list[str]:
    return ([f"# generated by tests.support.dynamic_draws: {family}, {variant}"] + [f"# {n}" for n in notes]
            + ["[mechanism]", 'dynamics = "full"', f"time = {_n(time)}", "", "[dynamics]",
               f"gravity = {_p(gravity)}", f"restitution = {_n(restitution)}", ""])


def _fixed(name: str, profiles: list[str], z=(0, 1)) -> list[str]:
    return ["[[parts]]", f'name = "{name}"', 'motion = "fixed"', "[[parts.slices]]", f"z = [{z[0]}, {z[1]}]",
            f"profiles = [{', '.join(profiles)}]", ""]


def _moving(name: str, mass: float, inertia: float, coordinates: list[str], profiles: list[str],
            z=(0, 1)) -> list[str]:
    return ["[[parts]]", f'name = "{name}"', 'motion = "fixed-axes"', f"mass = {_n(mass)}",
            f"inertia = {_n(inertia)}", f"coordinates = [{', '.join(coordinates)}]", "[[parts.slices]]",
            f"z = [{z[0]}, {z[1]}]", f"profiles = [{', '.join(profiles)}]", ""]


def _restitution(draw: Draw) -> float:
    """Newton's e: plastic (0) one time in four, else 0.05 to 0.9."""
    return 0.0 if draw.integer(0, 3) == 0 else draw.number(0.05, 0.9)


def _gravity(draw: Draw, low: float = 2.0, high: float = 20.0) -> tuple[float, float, float]:
    """Gravity of ``low`` to ``high`` within 30 degrees of -y: (g_x, g_y, tilt in radians)."""
    g, tilt = draw.number(low, high), math.radians(draw.number(-30, 30))
    return g * math.sin(tilt), -g * math.cos(tilt), tilt


# -- bouncing blocks ----------------------------------------------------------------------------------


def bouncing(draw: Draw) -> DynamicCase:
    """Blocks dropped on a floor (``free``, ``walls``, ``stack``): mass 0.1 to 10, sides 0.3 to 2,
    drop 0.1 to 3, floor top at -2 to 0, restitution 0 (one time in four) or
    0.05 to 0.9, 1 to 2.5 s."""
    variant = draw.choice(("free", "walls", "stack"))
    gx, gy, tilt = _gravity(draw)
    e, time = _restitution(draw), draw.number(1.0, 2.5)
    floor = draw.number(-2.0, 0.0)
    sideways = variant == "walls" or draw.choice(("x and y", "y")) == "x and y"
    travel = 0.5 * abs(gx) * time * time + 2.0 if sideways else 2.0  # how far a block may slide in the allotment
    blocks = []  # (name, x0, y0, width, height, mass)
    x0, bottom = draw.number(-1.0, 1.0), floor + draw.number(0.1, 3.0)
    for k in range(2 if variant == "stack" else 1):
        width, height, mass = draw.number(0.3, 2.0), draw.number(0.3, 2.0), draw.number(0.1, 10.0)
        if k:  # the upper block overlaps the lower one by at least a third of the narrower
            lower = blocks[0]
            least = min(width, lower[3]) / 3
            x0 = lower[1] + draw.number(least - width, lower[3] - least)
            bottom = lower[2] + lower[4] + draw.number(0.05, 1.5)
        blocks.append((f"block{k + 1}" if variant == "stack" else "block", x0, bottom, width, height, mass))
    left = min(b[1] for b in blocks) - travel
    right = max(b[1] + b[3] for b in blocks) + travel
    profiles = [_rect(left - 1, floor - 1, right + 1, floor, "floor")]
    walls = {}
    if variant == "walls":
        top = max(b[2] + b[4] for b in blocks) + 1.0
        towards = 1 if gx > 0 else -1
        sides = (towards,) if draw.choice(("one", "both")) == "one" else (-1, 1)
        for side in sides:
            gap = draw.number(0.05, 2.0)
            if side > 0:
                at = max(b[1] + b[3] for b in blocks) + gap
                profiles.append(_rect(at, floor, at + 0.5, top, "right-wall"))
            else:
                at = min(b[1] for b in blocks) - gap
                profiles.append(_rect(at - 0.5, floor, at, top, "left-wall"))
            walls[side] = gap
    notes = [f"gravity {math.hypot(gx, gy):.6g} at {math.degrees(tilt):.3f} deg off -y, restitution {e:g}"]
    lines = _header("bouncing", variant, time, (gx, gy), e, notes) + _fixed("frame", profiles)
    for name, bx, by, width, height, mass in blocks:
        suffix = name[-1] if variant == "stack" else ""
        coordinates = ([f'{{ name = "x{suffix}", axis = [1, 0] }}'] if sideways else []) + \
            [f'{{ name = "y{suffix}", axis = [0, 1] }}']
        lines += _moving(name, mass, mass * (width ** 2 + height ** 2) / 12, coordinates,
                         [_rect(bx, by, bx + width, by + height)])
    drop = blocks[0][2] - floor
    facts = {"gx": gx, "gy": gy, "e": e, "drop": drop, "sideways": sideways, "walls": walls, "time": time,
             "blocks": [b[0] for b in blocks]}
    return DynamicCase(f"bouncing:{variant}", "\n".join(lines) + "\n", facts)


def _impacts(result) -> list:
    return [s for s in result.stretches if str(s.mode) == "impact" and s.ended == "impact"]


def bouncing_errors(case: DynamicCase, result) -> list[str]:
    """How a bouncing case misses its closed form (see the module docstring)."""
    f = case.facts
    g, e, h = -f["gy"], f["e"], f["drop"]
    t1 = math.sqrt(2 * h / g)
    v1 = g * t1
    variant = case.family.split(":")[1]
    # The first wall in the way: reached at sqrt(2 d / |g_x|) sliding from rest.
    wall = min((math.sqrt(2 * d / abs(f["gx"])) for side, d in f["walls"].items() if side * f["gx"] > 0),
               default=math.inf)
    errors = []
    impacts = _impacts(result)
    tol = result.mechanism.tolerance
    if t1 < min(wall, f["time"]) - FREE_FALL:
        lower = f["blocks"][0]
        if not impacts:
            return [f"no impact, where the first is due at t1 = {t1:.12g}"]
        first = impacts[0]
        if abs(first.start - t1) > FREE_FALL:
            errors.append(f"first impact at {first.start:.12g}, not t1 = sqrt(2 h / g) = {t1:.12g} "
                          f"(off {first.start - t1:.3g})")
        if not any(lower in c and "floor" in c for c in first.contacts):
            errors.append(f"the first impact is {first.contacts}, not {lower} on the floor")
    if variant != "free":
        return errors
    # One block, no wall: a bouncing ball in y, a parabola in x.
    expected = [t1 + sum(2 * e ** i * v1 / g for i in range(1, n)) for n in range(1, CHECKED_IMPACTS + 1)]
    expected = [t for t in expected if t < f["time"]] if e > 0 else expected[:1]
    # A rebound slower than the velocity tolerance is rest (the tolerance policy): no impact after it.
    expected = [t for n, t in enumerate(expected) if n == 0 or e ** n * v1 > tol.velocity]
    for n, (t, stretch) in enumerate(zip(expected, impacts), start=1):
        if abs(stretch.start - t) > FREE_FALL:
            errors.append(f"impact {n} at {stretch.start:.12g}, not {t:.12g} (off {stretch.start - t:.3g})")
            break
    if len(impacts) < len(expected) and not any(s.ended == "impacts accumulate" for s in result.stretches):
        errors.append(f"{len(impacts)} impacts, where the closed form has {len(expected)} before "
                      f"t = {f['time']:g}")
    rest = t1 if e == 0 else t1 * (1 + e) / (1 - e)
    if rest < f["time"] - ACCUMULATION:
        resting = [s for s in result.stretches if str(s.mode) == "contact"]
        if not resting or abs(resting[0].start - rest) > ACCUMULATION:
            errors.append(f"comes to rest at {resting[0].start if resting else None}, not where the impacts "
                          f"accumulate, {rest:.12g}")
    names = [c.name for c in result.mechanism.coordinates]
    y = result.configs[:, names.index("y")]
    before = result.times < t1
    fall = np.abs(y[before] + 0.5 * g * result.times[before] ** 2)
    if fall.size and fall.max() > tol.length:
        errors.append(f"falls off the closed form y = -g t^2 / 2 by {fall.max():.3g} before t1")
    if (y < -h - tol.length).any():
        errors.append(f"sinks {-h - y.min():.3g} below the floor")
    if f["sideways"]:
        x = result.configs[:, names.index("x")]
        slide = np.abs(x - 0.5 * f["gx"] * result.times ** 2)
        k = int(np.argmax(slide))
        if slide[k] > FREE_FALL * (1 + abs(f["gx"]) * f["time"] ** 2):
            errors.append(f"x is {slide[k]:.3g} off g_x t^2 / 2 at t = {result.times[k]:.9g} "
                          f"(a smooth floor leaves x a parabola)")
    return errors


# -- pendulums ----------------------------------------------------------------------------------------


def pendulum(draw: Draw) -> DynamicCase:
    """A bar (length 1 to 3, half thickness 0.05 to 0.2, mass 0.2 to 5, pivot anywhere within 2 of
    the origin) let go from rest 0.3 to 2.8 rad from hanging, either side, into a stop (``stop``)
    or a fixed block (``block``) a fraction 0.15 to 0.85 of the way to the far end of its swing."""
    variant = draw.choice(("stop", "block"))
    gx, gy, tilt = _gravity(draw)
    e, time = _restitution(draw), draw.number(1.0, 3.0)
    length, half, mass = draw.number(1.0, 3.0), draw.number(0.05, 0.2), draw.number(0.2, 5.0)
    pivot = (draw.number(-2.0, 2.0), draw.number(-2.0, 2.0))
    amplitude = draw.number(0.3, 2.8)
    side = 1 if draw.choice(("ccw", "cw")) == "ccw" else -1
    down = math.atan2(gy, gx)
    start = down + side * amplitude
    fraction = draw.number(max(0.15, 0.3 / (2 * amplitude)), 0.85)
    meet = start - side * 2 * fraction * amplitude  # where the stop or the block is met
    inertia = mass * ((length + half) ** 2 + (2 * half) ** 2) / 12
    bar = (pivot[0] - half, pivot[1] - half, pivot[0] + length, pivot[1] + half)
    margin = draw.number(0.05, 0.5)
    facts = {"g": math.hypot(gx, gy), "down": down, "amplitude": amplitude, "side": side, "start": start,
             "e": e, "time": time, "mass": mass, "arm": (length - half) / 2,
             "inertia": inertia + mass * ((length - half) / 2) ** 2, "reach": math.hypot(length, half)}
    if variant == "stop":
        limits = (meet, start + margin) if side > 0 else (start - margin, meet)
        frame = _fixed("frame", [_rect(pivot[0] - 0.3, pivot[1] - 0.3, pivot[0] + 0.3, pivot[1] + 0.3)], (2, 3))
        rotation = (f'{{ name = "th", pivot = {_p(pivot)}, initial = {_n(start)}, '
                    f'limits = [{_n(limits[0])}, {_n(limits[1])}] }}')
        facts["meet"] = meet
    else:
        # A block against the bar's leading face at ``meet``, turned by up to 0.3 rad about its inner
        # corner on that face; the bar's first contact with it is found by bisection on the real shapes.
        inner, outer = draw.number(0.3, 0.6) * length, draw.number(0.7, 1.0) * length
        depth, turn = draw.number(0.2, 1.0), draw.number(-0.3, 0.3)
        face = -side * half  # the leading face: y = -half turning clockwise, +half counterclockwise
        local = [(inner, face), (outer, face), (outer, face - side * depth), (inner, face - side * depth)]
        local = [_turned(p, turn, local[0]) for p in local]
        corners = [tuple(np.add(_turned(p, meet), pivot)) for p in local]
        block = shapely.Polygon(corners)
        shape = shapely.Polygon([(bar[0], bar[1]), (bar[2], bar[1]), (bar[2], bar[3]), (bar[0], bar[3])])

        def posed(angle: float):
            return affinity.rotate(shape, angle, origin=pivot, use_radians=True)

        if posed(start).intersection(block).area > 0:  # the turn brought it into the bar's start: none
            corners = [tuple(np.add(_turned(p, meet), pivot)) for p in
                       [(inner, face), (outer, face), (outer, face - side * depth), (inner, face - side * depth)]]
            block = shapely.Polygon(corners)
        lo, hi = start, meet  # clear at lo; at hi touching or overlapping
        if posed(hi).intersection(block).area <= 0:
            hi = meet - side * 0.2
        for _ in range(80):
            mid = 0.5 * (lo + hi)
            lo, hi = (lo, mid) if posed(mid).intersection(block).area > 0 else (mid, hi)
        facts["meet"] = lo
        frame = _fixed("frame", [_path(corners, "block")])
        rotation = f'{{ name = "th", pivot = {_p(pivot)}, initial = {_n(start)} }}'
        facts["block"] = True
    notes = [f"gravity {facts['g']:.6g} at {math.degrees(tilt):.3f} deg off -y; let go {amplitude:g} rad from "
             f"hanging; meets the {variant} at th = {facts['meet']:.9g}"]
    lines = _header("pendulum", variant, time, (gx, gy), e, notes) + frame
    lines += _moving("bar", mass, inertia, [rotation], [_rect(*bar)])
    return DynamicCase(f"pendulum:{variant}", "\n".join(lines) + "\n", facts)


def _turned(point, angle: float, about=(0.0, 0.0)) -> tuple[float, float]:
    c, s = math.cos(angle), math.sin(angle)
    x, y = point[0] - about[0], point[1] - about[1]
    return (about[0] + c * x - s * y, about[1] + s * x + c * y)


def swing_time(f: dict, frm: float, amplitude: float) -> float:
    """Seconds for the pendulum from angle ``frm`` (from hanging, positive toward where it is
    going) to the amplitude ``amplitude`` it is at rest at: sqrt(I / (m g d)) (K(k) - F(psi, k)),
    ``k = sin(amplitude / 2)``, ``sin(psi) = sin(frm / 2) / k`` (the time is the same both ways)."""
    k = math.sin(amplitude / 2)
    c = math.sqrt(f["inertia"] / (f["mass"] * f["g"] * f["arm"]))
    psi = math.asin(max(-1.0, min(1.0, math.sin(frm / 2) / k)))
    return c * (float(ellipk(k * k)) - float(ellipkinc(psi, k * k)))


def pendulum_errors(case: DynamicCase, result) -> list[str]:
    """How a pendulum misses its closed form: the first impact's time and rates, the second's time."""
    f = case.facts
    a0, met = f["amplitude"], f["side"] * (f["meet"] - f["down"])  # angles from hanging, positive toward the start
    t1 = swing_time(f, met, a0)
    rate = math.sqrt(2 * f["mass"] * f["g"] * f["arm"] * (math.cos(met) - math.cos(a0)) / f["inertia"])
    after = math.cos(met) - f["e"] ** 2 * (math.cos(met) - math.cos(a0))  # cos of the amplitude after the bounce
    t2 = t1 + 2 * swing_time(f, met, math.acos(after)) if f["e"] > 0 else math.inf
    tol = result.mechanism.tolerance
    if f.get("block"):  # the turning pair's grown blocked space moves the contact by up to turning_gap
        moved = 2 * (tol.turning_gap + tol.length) / f["reach"]  # radians
        slack = moved / rate
        # The bounce comes back to a contact moved by that at e times the rate, both ways.
        later = slack + 2 * moved / (f["e"] * rate) if f["e"] > 0 else math.inf
        # d(rate)/d(angle) = m g d sin / (I rate): the rate moves with the contact angle
        rates = RATE + moved * f["mass"] * f["g"] * f["arm"] / f["inertia"] / rate ** 2
    else:
        slack, rates = PENDULUM_TIME * max(1.0, t1), RATE
        later = 2 * slack
    errors = []
    impacts = _impacts(result)
    if t1 >= f["time"]:
        return [f"impact at {impacts[0].start:.9g}, before the closed form's first at {t1:.9g}"] if impacts else []
    if not impacts:
        return [f"no impact, where the first is due at {t1:.12g}"]
    first = impacts[0]
    if abs(first.start - t1) > slack:
        errors.append(f"first impact at {first.start:.12g}, not {t1:.12g} (off {first.start - t1:.3g}, "
                      f"allowed {slack:.3g})")
    before, bounced = -f["side"] * first.v0[0], f["side"] * first.v1[0]
    if abs(before - rate) > rates * rate:
        errors.append(f"meets it at {before:.12g} rad/s, not {rate:.12g}")
    if abs(bounced - f["e"] * before) > 1e-9 * rate:
        errors.append(f"leaves it at {bounced:.12g} rad/s, not e times the rate it met it at ({f['e'] * before:.12g})")
    if t2 < f["time"]:
        if len(impacts) < 2:
            errors.append(f"one impact, where the second is due at {t2:.12g}")
        elif abs(impacts[1].start - t2) > later:
            errors.append(f"second impact at {impacts[1].start:.12g}, not {t2:.12g} (off {impacts[1].start - t2:.3g})")
    return errors


# -- a cam with inertia -------------------------------------------------------------------------------


def cam_inertia(draw: Draw) -> DynamicCase:
    """An eccentric disk (radius 1 to 3, eccentricity 0.2 to 1) driven at a constant rate from its
    lowest under a flat follower (mass 0.1 to 5) on a vertical translation, gravity 5 to 15 along
    -y, plastic contact: ``follow`` (``e w^2`` a fraction 0.2 to 0.8 of ``g``) or ``fly`` (1.5 to 4
    times ``g``); one turn and a half."""
    variant = draw.choice(("follow", "fly"))
    radius, ecc = draw.number(1.0, 3.0), draw.number(0.2, 1.0)
    g, mass = draw.number(5.0, 15.0), draw.number(0.1, 5.0)
    ratio = draw.number(0.2, 0.8) if variant == "follow" else draw.number(1.5, 4.0)
    rate = math.sqrt(ratio * g / ecc)
    start = -math.pi / 2
    gap = 0.002 * radius  # drawn clear of the disk (a turning pair drawn touching starts inside it)
    bottom = radius - ecc + gap
    width = radius + ecc + 0.5
    time = 1.5 * 2 * math.pi / rate
    notes = [f"e w^2 = {ratio:g} g: {'never lifts off' if ratio < 1 else 'lifts off at sin(theta) = g / (e w^2)'}"]
    lines = _header("cam-inertia", variant, time, (0.0, -g), 0.0, notes)
    lines += _moving("cam", 1.0, 0.5, [f'{{ name = "th", pivot = [0, 0], initial = {_n(start)} }}'],
                     [f"{{ circle = [{_n(ecc)}, 0], radius = {_n(radius)} }}"])
    lines += _moving("follower", mass, mass * (4 * width ** 2 + 0.25) / 12, ['{ name = "y", axis = [0, 1] }'],
                     [_rect(-width, bottom, width, bottom + 0.5)])
    lines += ["[[inputs]]", f"velocities = {{ th = {_n(rate)} }}", "sampling = 0.01", ""]
    facts = {"radius": radius, "ecc": ecc, "g": g, "rate": rate, "start": start, "bottom": bottom, "time": time}
    return DynamicCase(f"cam-inertia:{variant}", "\n".join(lines) + "\n", facts)


def cam_errors(case: DynamicCase, result) -> list[str]:
    """How a cam case misses its closed form: on the profile ``R + e sin(theta)`` (within
    ``FOLLOW`` of the eccentricity) from the first contact until the contact force's closed-form
    zero ``sin(theta*) = g / (e w^2)``, and clear of it by more than that once the ballistic
    flight from there is (within a twentieth of a turn)."""
    f = case.facts
    names = [c.name for c in result.mechanism.coordinates]
    theta, y = result.configs[:, names.index("th")], result.configs[:, names.index("y")]
    clearance = f["bottom"] + y - (f["radius"] + f["ecc"] * np.sin(theta))
    allowed = FOLLOW * f["ecc"]
    impacts = _impacts(result)
    if not impacts:
        return ["the follower never meets the cam"]
    touched = impacts[0].start
    w, e, g = f["rate"], f["ecc"], f["g"]
    ratio = e * w * w / g
    slack = 0.05 * 2 * math.pi / w
    if ratio < 1:
        leave, clear = math.inf, math.inf
    else:
        lift = math.asin(1 / ratio)
        leave = (lift - f["start"]) / w
        y0, v0 = e * math.sin(lift), e * w * math.cos(lift)

        def gap(t: float) -> float:  # the closed-form flight's clearance above the profile, less the allowance
            return y0 + v0 * (t - leave) - 0.5 * g * (t - leave) ** 2 - e * math.sin(f["start"] + w * t) - allowed

        grid = np.linspace(leave + 1e-9, leave + 2 * math.pi / w, 400)
        signs = np.array([gap(t) for t in grid]) > 0
        clear = brentq(gap, grid[int(np.argmax(signs)) - 1], grid[int(np.argmax(signs))]) if signs.any() else math.inf
    errors = []
    riding = (result.times > touched + slack) & (result.times < leave - slack)
    if riding.any() and clearance[riding].max() > allowed:
        k = int(np.flatnonzero(riding)[np.argmax(clearance[riding])])
        errors.append(f"{clearance[k]:.3g} above the cam's profile at t = {result.times[k]:.6g}, before the contact "
                      f"force's zero at {leave:.6g} (allowed {allowed:.3g})")
    if clear < f["time"] - slack:
        away = np.flatnonzero((result.times > touched + slack) & (clearance > allowed))
        if not len(away) or abs(result.times[away[0]] - clear) > slack:
            errors.append(f"clear of the cam by {allowed:.3g} from t = "
                          f"{result.times[away[0]] if len(away) else None}, not {clear:.6g} (the flight's closed form)")
    return errors


# -- running a case -----------------------------------------------------------------------------------

CLOSED_FORMS = {"bouncing": bouncing_errors, "pendulum": pendulum_errors, "cam-inertia": cam_errors}


def closed_form_errors(case: DynamicCase, result) -> list[str]:
    return CLOSED_FORMS[case.family.split(":")[0]](case, result)


def check(case: DynamicCase, twice: bool = False) -> dict[str, list[str]]:
    """Simulate a case and check it: ``{column: [what went wrong, ...]}`` over the fuzz report's
    columns ``overlap``, ``limit``, ``energy`` (:func:`cspace.testing.replay`), ``closed form``
    and, with ``twice``, ``nondeterministic`` (a second simulation's samples differ). Exceptions
    propagate (the report counts them as crashes)."""
    from cspace import analyze, loads, simulate
    from cspace.testing import replay

    result = simulate(analyze(loads(case.text, source=case.family)))
    found: dict[str, list[str]] = {}
    for violation in replay(result):
        found.setdefault(violation.kind, []).append(str(violation))
    errors = closed_form_errors(case, result)
    if errors:
        found["closed form"] = errors
    if twice:
        again = simulate(analyze(loads(case.text, source=case.family)))
        if any(a.tobytes() != b.tobytes() for a, b in ((result.times, again.times), (result.configs, again.configs),
                                                        (result.rates, again.rates))):
            found["nondeterministic"] = ["a second simulation's samples differ"]
    return found
