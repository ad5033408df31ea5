"""Generate a pair of external involute spur gears as a cspace mechanism (``fixtures/gears.toml``).

    python tools/make_gears.py                                # fixtures/gears.toml: 12 and 18 teeth
    python tools/make_gears.py --teeth 25 36 --out big.toml   # a benchmark pair: 350 faces on gear 1

Module 2, pressure angle 25 degrees (12 teeth mesh with 18 without interference at 25
degrees, not at 20), addendum 1 module, dedendum 1.25 modules. The backlash
``BACKLASH`` is measured along the pitch circle and taken half from each gear's teeth.

Each flank is the involute of the base circle, from the base circle (or the root
circle, when that is larger) to the tip circle, drawn as ``ARCS`` circular arcs. Every
arc joins two points of the involute and is the most curved arc through them that
stays inside the true tooth, so a drawn tooth never sticks out of the involute tooth;
the largest gap between them, the *profile error*, is sampled and written into the
file. Below the base circle the flank is a radial line down to the root circle (the
mate's teeth stay clear of it: tools/check_rotating_fixtures.py checks the fixture).
Tip and root are arcs about the gear's centre.

Gear 1 (centre (0, 0), coordinate ``t1``) turns counterclockwise at 1 rad/s for two
turns; gear 2 (centre (a, 0), coordinate ``t2``) carries a resisting counterclockwise
torque that keeps its flanks on gear 1's. Drawn at t1 = t2 = 0, gear 1 has a tooth
centred on the +x axis and gear 2 a tooth space centred on its -x axis, so the mesh is
symmetric with half the backlash on either side. Both start there, the teeth apart by
more than cspace's arc linearization adds to them; at t = 0 the torque turns gear 2
by half the backlash, c, to where the true involutes touch on the driving side, and
from then on the involute law gives t2 = c - (N1/N2) t1 exactly; the arcs' profile
error lets gear 2 turn further by at most (e1 + e2) / (base radius of gear 2).
"""

from __future__ import annotations

import argparse
import math
import textwrap
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import numpy as np

import cspace

MODULE = 2.0
PRESSURE_ANGLE = math.radians(25.0)
BACKLASH = 0.1        # along the pitch circle, both sides together
ARCS = 5              # arcs per involute flank
SAMPLES = 4001        # involute points per arc when measuring the gap
ROOT = Path(__file__).resolve().parent.parent


def involute(base_radius: float, t: np.ndarray | float) -> np.ndarray:
    """Points of the involute of the base circle that starts at (base_radius, 0) and
    unwinds counterclockwise, at roll angles ``t`` (its radius is base_radius sqrt(1 + t^2))."""
    t = np.asarray(t, float)
    return base_radius * np.stack([np.cos(t) + t * np.sin(t), np.sin(t) - t * np.cos(t)], axis=-1)


def inv(angle: float) -> float:
    """The involute function tan(a) - a: the polar angle of the involute at pressure angle a."""
    return math.tan(angle) - angle


def rotate(points: np.ndarray, angle: float) -> np.ndarray:
    """Points turned counterclockwise by ``angle`` about the origin."""
    c, s = math.cos(angle), math.sin(angle)
    return np.asarray(points) @ np.array([[c, s], [-s, c]])


def mirror(points: np.ndarray) -> np.ndarray:
    """Points reflected in the x axis."""
    return np.asarray(points) * np.array([1.0, -1.0])


@dataclass(frozen=True)
class Arc:
    """One arc of a flank, in the frame of :func:`involute`: from roll angle ``t0`` to ``t1``
    about ``centre``; ``gap`` is how far inside the true involute it lies at most."""

    t0: float
    t1: float
    centre: np.ndarray
    gap: float


@dataclass(frozen=True)
class Gear:
    """A spur gear of ``teeth`` teeth about ``centre``, tooth 0 centred at angle ``phase``."""

    teeth: int
    centre: tuple[float, float]
    phase: float

    @property
    def pitch_radius(self) -> float:
        return MODULE * self.teeth / 2

    @property
    def base_radius(self) -> float:
        return self.pitch_radius * math.cos(PRESSURE_ANGLE)

    @property
    def tip_radius(self) -> float:
        return self.pitch_radius + MODULE

    @property
    def root_radius(self) -> float:
        return self.pitch_radius - 1.25 * MODULE

    @property
    def flank_angle(self) -> float:
        """Polar angle of the ccw flank's involute start on the base circle, from the tooth's
        centre line: half the tooth's angular thickness at the pitch circle (thinned by half
        the backlash) plus the involute function of the pressure angle."""
        thickness = math.pi * MODULE / 2 - BACKLASH / 2
        return thickness / (2 * self.pitch_radius) + inv(PRESSURE_ANGLE)

    def roll_range(self) -> tuple[float, float]:
        """Roll angles of the involute flank: from the base (or root) circle to the tip circle."""
        rb = self.base_radius
        low = max(self.root_radius, rb)
        return math.sqrt((low / rb) ** 2 - 1), math.sqrt((self.tip_radius / rb) ** 2 - 1)

    @property
    def foot(self) -> np.ndarray:
        """The flank's lowest point, in the frame of :func:`involute`: on the root circle, below
        the involute's start when the root circle is inside the base circle."""
        if self.root_radius < self.base_radius:
            return np.array([self.root_radius, 0.0])
        return involute(self.base_radius, self.roll_range()[0])

    def on_flank(self, k: int, side: int, p: np.ndarray) -> np.ndarray:
        """A point of :func:`involute`'s frame placed on tooth k's flank facing clockwise
        (``side`` -1) or counterclockwise (+1, the mirror image), in the plane."""
        p = p if side < 0 else mirror(p)
        return rotate(rotate(p, side * self.flank_angle), self.phase + 2 * math.pi * k / self.teeth) + self.centre

    @cached_property
    def arcs(self) -> list[Arc]:
        """The flank's arcs, equal steps of roll angle (their gaps come out nearly equal)."""
        rolls = np.linspace(*self.roll_range(), ARCS + 1)
        return [inside_arc(self.base_radius, a, b) for a, b in zip(rolls, rolls[1:])]


def inside_arc(base_radius: float, t0: float, t1: float) -> Arc:
    """The most curved arc through the involute's points at ``t0`` and ``t1`` that stays
    inside the tooth (on the side of its centres of curvature), by bisection on the radius.

    The flattest involute point (at ``t1``, radius of curvature base_radius t1) gives an
    arc that is inside; more curved arcs bulge out toward the involute and leave it first
    near one end. The two ends are on every candidate arc, so only the points between
    them decide (the ends' gaps are rounding, which differs between numpy builds).
    """
    start, end = involute(base_radius, [t0, t1])
    curve = involute(base_radius, np.linspace(t0, t1, SAMPLES))
    half = np.linalg.norm(end - start) / 2
    normal = np.array([start[1] - end[1], end[0] - start[0]]) / (2 * half)  # left of start -> end

    def centre(radius: float) -> np.ndarray:
        return (start + end) / 2 + math.sqrt(max(radius ** 2 - half ** 2, 0.0)) * normal

    def gaps(radius: float) -> np.ndarray:
        return np.linalg.norm(curve - centre(radius), axis=1) - radius

    low, high = half, base_radius * t1
    for _ in range(60):
        middle = (low + high) / 2
        inside = gaps(middle)[1:-1].min() >= 0  # the ends lie on every such arc: their gaps are rounding
        low, high = (low, middle) if inside else (middle, high)
    return Arc(t0, t1, centre(high), float(gaps(high).max()))


def profile_error(gear: Gear) -> float:
    """Largest gap between the gear's drawn flank and its true involute."""
    return max(arc.gap for arc in gear.arcs)


def num(x: float) -> str:
    """A coordinate for the file: 12 decimals, no negative zero."""
    return repr(round(float(x), 12) + 0.0)


def point(p) -> str:
    """A point for the file."""
    return f"[{num(p[0])}, {num(p[1])}]"


def arc_step(end, centre) -> str:
    """A path step along a counterclockwise arc (every arc of a gear is convex)."""
    return f"{{ arc = {point(end)}, center = {point(centre)} }}"


def tooth_steps(gear: Gear, k: int, following: np.ndarray) -> tuple[list[str], list[str]]:
    """Path steps and face names of tooth ``k``, in the plane: from its foot on the cw side
    round the tooth and along the root to ``following``, the next tooth's start."""
    rb, arcs = gear.base_radius, gear.arcs
    radial = gear.root_radius < rb

    def cw(p):
        return gear.on_flank(k, -1, p)

    def ccw(p):
        return gear.on_flank(k, 1, p)

    steps = [point(cw(involute(rb, 0.0)))] if radial else []
    steps += [arc_step(cw(involute(rb, arc.t1)), cw(arc.centre)) for arc in arcs]
    steps += [arc_step(ccw(involute(rb, arcs[-1].t1)), gear.centre)]
    steps += [arc_step(ccw(involute(rb, arc.t0)), ccw(arc.centre)) for arc in reversed(arcs)]
    steps += [point(ccw(gear.foot))] if radial else []
    steps += [arc_step(following, gear.centre)]
    faces = ([f"t{k}-cw-radial"] if radial else []) + [f"t{k}-cw"] * len(arcs) + [f"t{k}-tip"]
    faces += [f"t{k}-ccw"] * len(arcs) + ([f"t{k}-ccw-radial"] if radial else [])
    return steps, faces + [f"t{k}-root"]


def gear_path(gear: Gear) -> tuple[list[str], list[str]]:
    """The gear's whole profile: path steps (starting and ending at tooth 0's start) and faces."""
    starts = [gear.on_flank(k, -1, gear.foot) for k in range(gear.teeth)]
    steps, faces = [point(starts[0])], []
    for k in range(gear.teeth):
        more_steps, more_faces = tooth_steps(gear, k, starts[(k + 1) % gear.teeth])
        steps += more_steps
        faces += more_faces
    return steps, faces


def gear_slice(gear: Gear, z: tuple[float, float] = (0.0, 1.0), prefix: str = "") -> list[str]:
    """The TOML lines of a gear as one slice of a part, its faces named ``prefix`` + face."""
    steps, faces = gear_path(gear)
    return [
        "[[parts.slices]]",
        f"z = [{z[0]:g}, {z[1]:g}]",
        "",
        "[[parts.slices.profiles]]",
        "path = [",
        *(f"  {step}," for step in steps),
        "]",
        "faces = [",
        *(f'  "{prefix}{face}",' for face in faces),
        "]",
    ]


def gear_part(name: str, coordinate: str, gear: Gear, initial: float) -> str:
    """The TOML of one gear part, turning about its centre."""
    lines = [
        "[[parts]]",
        f'name = "{name}"',
        'motion = "fixed-axes"',
        f'coordinates = [ {{ name = "{coordinate}", pivot = {point(gear.centre)}, initial = {num(initial)} }} ]',
        "",
        *gear_slice(gear),
    ]
    return "\n".join(lines)


@dataclass(frozen=True)
class Pair:
    """Gear 1 of ``n1`` teeth at the origin driving gear 2 of ``n2`` teeth at (a, 0)."""

    n1: int
    n2: int

    @property
    def distance(self) -> float:
        return MODULE * (self.n1 + self.n2) / 2

    @cached_property
    def gear1(self) -> Gear:
        return Gear(self.n1, (0.0, 0.0), 0.0)

    @cached_property
    def gear2(self) -> Gear:
        """Tooth spaces of gear 2 centred on its -x axis: its teeth sit half a pitch off it."""
        return Gear(self.n2, (self.distance, 0.0), math.pi + math.pi / self.n2)

    @property
    def start(self) -> float:
        """c: gear 2's angle once the torque has turned it counterclockwise by half the
        backlash from the symmetric start, so its true involute flanks touch gear 1's
        driving ones."""
        return BACKLASH / 2 / self.gear2.pitch_radius

    @property
    def angular_backlash(self) -> float:
        """The backlash as an angle of gear 2 (gear 1 held)."""
        return BACKLASH / self.gear2.pitch_radius

    def law_bound(self) -> float:
        """How far past the involute law gear 2 may turn against gear 1 (radians): the two
        profile errors, closed along the line of action at gear 2's base radius."""
        return (profile_error(self.gear1) + profile_error(self.gear2)) / self.gear2.base_radius


def header(pair: Pair, arc_tolerance: float) -> str:
    """The file's header comment: the design and its closed form, with numbers.
    ``arc_tolerance`` is cspace's arc linearization for the file (1e-4 of its size)."""
    g1, g2 = pair.gear1, pair.gear2
    e1, e2 = profile_error(g1), profile_error(g2)
    c, ratio = pair.start, pair.n1 / pair.n2
    samples = ", ".join(f"{math.remainder(c - ratio * t, 2 * math.pi):.6f} at t1 = {label}"
                        for t, label in [(0, "0"), (math.pi / 2, "pi/2"), (2 * math.pi, "2 pi"),
                                         (4 * math.pi, "4 pi")])
    paragraphs = [
        [f"A pair of external involute spur gears of {pair.n1} and {pair.n2} teeth in mesh.",
         f"Generated by tools/make_gears.py --teeth {pair.n1} {pair.n2}. Gear 1 ({pair.n1} teeth, "
         f"centre (0, 0)) turns counterclockwise at 1 rad/s for two turns; gear 2 ({pair.n2} teeth, centre ({num(pair.distance)}, 0)) carries "
         "a light resisting torque (counterclockwise) that keeps its flanks on gear 1's driving ones."],
        [f"Module {MODULE:g}, pressure angle {math.degrees(PRESSURE_ANGLE):g} degrees, addendum 1 "
         f"and dedendum 1.25 modules: pitch radii {g1.pitch_radius:g} and {g2.pitch_radius:g}, base "
         f"radii {g1.base_radius:.6f} and {g2.base_radius:.6f}, tip radii {g1.tip_radius:g} and "
         f"{g2.tip_radius:g}, root radii {g1.root_radius:g} and {g2.root_radius:g}. Backlash "
         f"{BACKLASH:g} along the pitch circle, half from each gear's teeth: "
         f"{pair.angular_backlash:.6f} rad of gear 2. Each involute flank is {ARCS} circular arcs "
         "lying inside the true tooth; the profile error (largest gap to the involute) is "
         f"e1 = {e1:.3e} on gear 1 and e2 = {e2:.3e} on gear 2. Below the base circle the flanks "
         "are radial lines. Faces are named by tooth and side (t3-ccw: tooth 3's "
         "counterclockwise-facing flank, its arcs one face); gear 1 drives with its ccw flanks "
         "and gear 2 is driven on its ccw flanks."],
        ["Start: at t1 = t2 = 0 the mesh is symmetric (gear 1's tooth 0 on the +x axis, a space "
         "of gear 2 on its -x axis), with half the backlash on either side: the flanks are "
         f"{BACKLASH / 2 * math.cos(PRESSURE_ANGLE):.4f} apart (backlash / 2 x cos of the pressure "
         "angle), more than cspace's outward arc linearization adds to the two gears "
         f"(2 x {arc_tolerance:.3e}). At t = 0, in no input time, the torque turns gear 2 "
         f"counterclockwise by c = backlash / (2 r2) = {c:.9f}, where the true involutes touch "
         "on the driving side."],
        ["Closed form: from then on",
         f"  t2 = c - ({pair.n1}/{pair.n2}) t1   (mod 2 pi; reported in (-pi, pi])",
         f"t2 = {samples}. With the drawn arcs gear 2 may turn past this law (counterclockwise, "
         f"the torque's way) by at most (e1 + e2) / rb2 = {pair.law_bound():.3e} rad, well within "
         "the backlash; cspace's outward arc linearization may hold it short by up to about "
         f"2 arc / rb2 = {2 * arc_tolerance / g2.base_radius:.3e} rad."],
    ]
    lines = []
    for paragraph in paragraphs:
        lines += ["#"] if lines else []
        for piece in paragraph:  # formulas (indented) stay on their own line
            lines += (["# " + piece] if piece.startswith("  ")
                      else textwrap.wrap(piece, 86, initial_indent="# ", subsequent_indent="# "))
    return "\n".join(lines) + "\n"


def mechanism(pair: Pair) -> str:
    """The whole TOML file for the pair: its header, then the body (loaded by cspace once
    to learn its arc tolerance for the header)."""
    body = "\n".join([
        "[mechanism]",
        'name = "gears"',
        f"time = {4 * math.pi!r}         # two turns of gear 1",
        "",
        gear_part("gear1", "t1", pair.gear1, 0.0),
        "",
        gear_part("gear2", "t2", pair.gear2, 0.0),
        "",
        "[[forces]]",
        'kind = "torque"',
        'coordinate = "t2"',
        "direction = 1",
        "",
        "[[inputs]]",
        'name = "gear 1 turns counterclockwise"',
        "velocities = { t1 = 1.0 }",
        "sampling = 0.05",
        "",
    ])
    arc = cspace.loads(body).tolerance.arc
    if BACKLASH / 2 * math.cos(PRESSURE_ANGLE) <= 2 * arc:
        raise SystemExit(f"gears of {pair.n1} and {pair.n2} teeth start closer than cspace's arc linearization "
                         f"adds to them (2 x {arc:.3g}): raise BACKLASH")
    return header(pair, arc) + "\n" + body


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--teeth", nargs=2, type=int, default=[12, 18], metavar=("N1", "N2"))
    parser.add_argument("--out", type=Path, default=ROOT / "fixtures" / "gears.toml")
    args = parser.parse_args()
    pair = Pair(*args.teeth)
    args.out.write_text(mechanism(pair))
    faces = [len(gear_path(g)[1]) for g in (pair.gear1, pair.gear2)]
    print(f"{args.out}: {pair.n1} and {pair.n2} teeth, {faces[0]} and {faces[1]} faces; "
          f"profile error {profile_error(pair.gear1):.3e} and {profile_error(pair.gear2):.3e}; "
          f"backlash {pair.angular_backlash:.6f} rad of gear 2")


if __name__ == "__main__":
    main()
