"""Random well-posed mechanisms, as TOML text, for property tests and the fuzz report.

Translating families: a *stack* of blocks resting on a piston that slides out from under it
(driven directly or by a crank-slider, whose table is sometimes drawn coarse, 3 to 12
entries: the piston must lie on the closed-form crank-slider all the same,
:class:`CrankSlider`), optionally inside a magazine that fits the
widest block exactly; a *row* of blocks on a table gathered by a pusher, optionally
against a stop wall (blocks are rectangles, convex polygons, L shapes, rounded
rectangles (arcs) or half disks (an arc on top), all under gravity); either smooth or
sticky (friction: an open stack's blocks ride the piston, a row's blocks grip the
table, so the pusher stops at the first); and a *release*,
a force-loaded part held by something that goes away (:mod:`tests.support.releases`: gates,
stops retracting askew, shelves, ramps), with its closed-form release time and end.

Families with a turning part (pairs (theta), (theta, x) and (theta1, theta2)): a *cam*
(an off-centre disk or a polygon with rounded corners) turning one to two turns against
one or two spring-loaded followers, flat-faced or pointed, along any direction; a
*lever*, a bar turned about a pivot sweeping one or two blocks along a table or pushing
one against a wall; a toothed *wheel* (3-8 sawtooth or trapezoid teeth) turned either
way or both against a pawl pressed on by a torque or a rack under a spring; and a
*released rotation*, a bar on a pivot loaded by a torque, held by a stop that slides
off, retracts askew or turns away (a latch), with its closed-form release time and end
(:class:`TurningRelease`). A part that shifts along z: a spring-loaded *pin* driven
under a plate with holes, rising into the first it fits (:class:`PinCase`). Nested
profiles: a block or a follower that must stop on the innermost material of a plate, a
pocket, an island in it and a well in that, up to three deep (:class:`NestCase`).
Friction: a slider with a sticky bottom (whole, or one of two collinear faces) driven
along a table whose top is a run of collinear faces, some sticky, drawn as abutting
profiles or one path: it must stop where sticky first meets sticky (:class:`PatchCase`). Each
generator's docstring gives its parameter ranges. Full dynamics has its own families, drawn here
by name (``DYNAMIC``, not among ``FAMILIES``): bouncing blocks, pendulums, a cam with inertia
(:mod:`tests.support.dynamic_draws`).

Every random choice goes through a :class:`Draw`, so hypothesis can drive the same
generator (and shrink its failures) as a seeded generator does in ``tools/fuzz_report.py``.

>>> text = mechanism(SeededDraw(3))
>>> text.startswith("# generated")
True
>>> generate(SeededDraw(3), ROTATING).family.split(":")[0] in ROTATING
True
"""

from __future__ import annotations

import math
import random
import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import numpy as np
import shapely
from shapely import affinity
from shapely.geometry import Polygon

from cspace.model.geometry import Arc, Line, Profile, region_of
from cspace.model.kinds import Motion
from cspace.model.mechanism import Mechanism, Part, Slice
from cspace.model.poses import initial_bounds
from cspace.model.tolerance import NOISE

from .draws import Draw, SeededDraw  # noqa: F401 (SeededDraw: the seeded draw, offered with the generators)
from .dynamic_draws import DYNAMIC, DynamicCase, dynamic
from .dynamic_draws import closed_form_errors as dynamic_errors
from .releases import ReleaseCase, release

SHAPES = ("rect", "convex", "ell", "rounded", "half-disk")


def hostile_inputs() -> dict[str, tuple[bytes, str]]:
    """Inputs too big to keep in a repository, with the message each must be rejected with."""
    part = ('[[parts]]\nname = "b{i}"\nmotion = "fixed-axes"\ncoordinates = [{{ name = "x{i}", axis = [1, 0] }}]\n'
            '[[parts.slices]]\nz = [0, 1]\nprofiles = [{{ rect = [{i}, 0, {j}, 1] }}]\n')
    many_parts = "".join(part.format(i=i, j=i + 1) for i in range(10_000))
    points = ", ".join(f"[{k}, {k % 2}]" for k in range(50_000)) + ", [50000, -5], [0, -5], [0, 0]"
    saw = ('[[parts]]\nname = "saw"\nmotion = "fixed"\n[[parts.slices]]\nz = [0, 1]\n'
           f"profiles = [{{ path = [{points}] }}]\n")
    return {
        "a 100 MB file": (b"# padding\n" * (10 * 1024 * 1024), "file is over 4 MB; mechanism files are limited to 4 MB"),
        "10,000 parts": (many_parts.encode(), "10000 parts; at most 500 are supported"),
        "a profile of 50,000 faces": (saw.encode(), "the mechanism has more than 20000 faces"),
        "deep nesting": (("x = " + "{ a = " * 100_000 + "1" + " }" * 100_000).encode(),
                         "invalid TOML: nested too deeply"),
    }


TRANSLATING = ("stack", "row", "release")
ROTATING = ("cam", "lever", "wheel", "released-rotation")
SHIFTING = ("pin",)
NESTED = ("nested",)
FRICTION = ("patch",)
FAMILIES = TRANSLATING + ROTATING + SHIFTING + NESTED + FRICTION


@dataclass(frozen=True)
class Generated:
    """A generated mechanism: its family (``family:variant``), its text, and for a release
    its closed-form outcome (see :func:`closed_form_errors`)."""

    family: str
    text: str
    expected: ReleaseCase | TurningRelease | PinCase | CrankSlider | NestCase | PatchCase | DynamicCase | None = None

    def __repr__(self) -> str:
        return f"Generated({self.family!r}, {self.expected!r})"


def generate(draw: Draw, families: Sequence[str] = FAMILIES) -> Generated:
    """A random mechanism of one of ``families`` (see the module docstring and :mod:`tests.support.releases`)."""
    family = draw.choice(families)
    if family in DYNAMIC:
        case = dynamic(draw, family)
        return Generated(case.family, case.text, case)
    if family == "release":
        case = release(draw)
        return Generated(f"release:{case.kind}", case.text, case)
    if family == "released-rotation":
        turning = released_rotation(draw)
        return Generated(f"released-rotation:{turning.kind}", turning.text, turning)
    if family == "pin":
        case = pin(draw)
        return Generated(f"pin:{case.shape}", case.text, case)
    if family == "patch":
        sticky_patch = patch(draw)
        return Generated(f"patch:{sticky_patch.kind}", sticky_patch.text, sticky_patch)
    if family == "nested":
        nest = nested(draw)
        return Generated(f"nested:{nest.kind}", nest.text, nest)
    if family in TURNING_GENERATORS:
        variant, text = TURNING_GENERATORS[family](draw)
        return Generated(f"{family}:{variant}", text)
    text = stack(draw) if family == "stack" else row(draw)
    expected = CrankSlider() if "[[linkages]]" in text else None
    return Generated(f"{family}:{'sticky' if 'sticky = ' in text else 'smooth'}", text, expected)


def mechanism(draw: Draw) -> str:
    """The text of a random mechanism of a translating family (the scale and fast-path tests
    draw these; the turning families, seconds per case, are drawn by :func:`generate`)."""
    return generate(draw, TRANSLATING).text


def stack(draw: Draw) -> str:
    """Blocks stacked on a piston that slides out from under them."""
    count = draw.integer(1, 4)
    shapes = [block_shape(draw) for _ in range(count)]
    width = max(w for w, _, _ in shapes)
    x0 = 10.0
    piston_height = draw.number(0.5, 2.0)
    piston_length = width + draw.number(1.0, 6.0)
    drive = draw.choice(("slide", "crank"))
    lines = [_header("stack", drive)]
    magazine = draw.choice(("magazine", "open")) == "magazine"
    lines += _frame(x0, width, piston_height, magazine=magazine, wall=None)
    # The piston starts under the stack, its right end past the stack's right side.
    piston_x = x0 + width + draw.number(0.0, 1.0) - piston_length
    lines += _part("piston", [("xp", (1, 0), piston_x)], f"{{ rect = [0, 0, {piston_length}, {piston_height}] }}")
    y = piston_height
    for i, (_, h, profile) in enumerate(shapes):
        y += draw.number(0.0, 1.0) if draw.choice(("touching", "gap")) == "gap" else 0.0
        lines += _part(f"block{i + 1}", [(f"x{i + 1}", (1, 0), x0), (f"y{i + 1}", (0, 1), round(y, 3))], profile)
        lines += _gravity(f"y{i + 1}")
        y += h
    if drive == "slide":
        travel = piston_length + 2.0
        lines.append(_input({"xp": -1.0}, 0.25))
        time = travel
    else:
        radius = round(piston_length / 2 + draw.number(0.5, 1.0), 3)
        link = round(radius + draw.number(2.0, 5.0), 3)
        # Crank pivot placed so the piston starts at its extreme right (crank angle 0).
        pivot_x = round(piston_x + piston_length - radius - link, 3)
        lines += _crank(pivot_x, radius, link, piston_length, piston_height)
        lines.append(_input({"c": 1.0}, 0.25))
        time = round(2 * math.pi * draw.integer(1, 2), 6)
    # Drawn last, so the smooth draws stay as they were. In a magazine, blocks gripping the
    # piston would hold it at once (the walls fit the widest block): nothing would happen.
    if draw.choice(("smooth", "sticky")) == "sticky" and not magazine:
        lines = _sticky(lines, {"piston"} | {f"block{i + 1}" for i in range(count)})
    if drive == "crank" and draw.choice(("default table", "coarse table")) == "coarse table":
        lines.insert(lines.index('members = ["rod"]') + 1, f"table = {draw.integer(3, 12)}")
    lines.insert(1, f"[mechanism]\ntime = {time}\n")
    return "\n".join(lines) + "\n"


def row(draw: Draw) -> str:
    """Blocks in a row on a table, gathered by a pusher (against a wall, or not)."""
    count = draw.integer(1, 4)
    lines = [_header("row", "push")]
    x = 2.0
    blocks = []
    for i in range(count):
        w, _, profile = block_shape(draw)
        x += draw.number(0.0, 3.0)
        blocks.append((i, x, profile))
        x += w
    wall = round(x + draw.number(0.5, 4.0), 3) if draw.choice(("wall", "open")) == "wall" else None
    lines += _frame(None, None, None, magazine=False, wall=wall)
    lines += _part("pusher", [("xp", (1, 0), 0.0)], "{ rect = [-2, 0, 0, 1.5] }")
    for i, bx, profile in blocks:
        lines += _part(f"block{i + 1}", [(f"x{i + 1}", (1, 0), round(bx, 3)), (f"y{i + 1}", (0, 1), 0.0)], profile)
        lines += _gravity(f"y{i + 1}")
    lines.append(_input({"xp": 1.0}, 0.5))
    if draw.choice(("smooth", "sticky")) == "sticky":  # drawn last, so the smooth draws stay as they were
        lines = _sticky(lines, {f"block{i + 1}" for i in range(count)})
        lines = [line.replace('{ name = "table", ', '{ name = "table", sticky = ["top"], ') for line in lines]
    lines.insert(1, f"[mechanism]\ntime = {round(x + 6.0, 3)}\n")
    return "\n".join(lines) + "\n"


def _sticky(lines: list[str], parts: set[str]) -> list[str]:
    """The lines with every profile of the named parts made sticky all round."""
    out, part = [], None
    for line in lines:
        if line.startswith("name = "):
            part = line.split('"')[1]
        if part in parts and line.startswith("profiles = [{ "):
            line = line.replace("profiles = [{ ", "profiles = [{ sticky = true, ", 1)
        out.append(line)
    return out


def block_shape(draw: Draw) -> tuple[float, float, str]:
    """(width, height, profile TOML) of a block whose lowest points lie on y = 0."""
    kind = draw.choice(SHAPES)
    w = draw.number(1.0, 4.0)
    h = draw.number(0.6, 3.0)
    if kind == "rect":
        return w, h, f"{{ rect = [0, 0, {w}, {h}] }}"
    if kind == "convex":
        # A convex pentagon: flat base, apex somewhere above it.
        apex = draw.number(0.2 * w, 0.8 * w)
        left, right = draw.number(0.2, 0.8) * h, draw.number(0.2, 0.8) * h
        points = [[0, 0], [w, 0], [w, round(right, 3)], [apex, h], [0, round(left, 3)], [0, 0]]
        return w, h, f"{{ path = {points} }}"
    if kind == "ell":
        foot = draw.number(0.3, 0.7)
        points = [[0, 0], [w, 0], [w, round(foot * h, 3)], [round(foot * w, 3), round(foot * h, 3)],
                  [round(foot * w, 3), h], [0, h], [0, 0]]
        return w, h, f"{{ path = {points} }}"
    if kind == "rounded":
        r = round(min(w, h) * draw.number(0.1, 0.45), 3)
        points = (f"[[{r}, 0], [{w - r:.3f}, 0], {{ arc = [{w}, {r}], center = [{w - r:.3f}, {r}] }}, "
                  f"[{w}, {h - r:.3f}], {{ arc = [{w - r:.3f}, {h}], center = [{w - r:.3f}, {h - r:.3f}] }}, "
                  f"[{r}, {h}], {{ arc = [0, {h - r:.3f}], center = [{r}, {h - r:.3f}] }}, "
                  f"[0, {r}], {{ arc = [{r}, 0], center = [{r}, {r}] }}]")
        return w, h, f"{{ path = {points} }}"
    r = round(w / 2, 3)
    return 2 * r, r, f"{{ path = [[0, 0], [{2 * r}, 0], {{ arc = [0, 0], center = [{r}, 0] }}] }}"


def _header(family: str, drive: str) -> str:
    return f"# generated by tests.support.fuzz: {family}, {drive}"


def _frame(x0, width, piston_height, *, magazine: bool, wall: float | None) -> list[str]:
    profiles = ['{ name = "table", rect = [-60, -2, 80, 0] }']
    if magazine:
        bottom = round(piston_height, 3)
        profiles.append(f'{{ name = "left-wall", rect = [{x0 - 3}, {bottom}, {x0}, 40] }}')
        profiles.append(f'{{ name = "right-wall", rect = [{round(x0 + width, 3)}, {bottom}, '
                        f'{round(x0 + width + 3, 3)}, 40] }}')
    if wall is not None:
        profiles.append(f'{{ name = "wall", rect = [{wall}, 0, {wall + 2}, 10] }}')
    return ["[[parts]]", 'name = "frame"', 'motion = "fixed"', "[[parts.slices]]", "z = [0, 1]",
            "profiles = [" + ", ".join(profiles) + "]", ""]


def _part(name: str, coordinates: list, profile: str, z=(0, 1)) -> list[str]:
    coords = ", ".join(f'{{ name = "{c}", axis = [{a[0]}, {a[1]}], initial = {round(v, 3)} }}'
                       for c, a, v in coordinates)
    return ["[[parts]]", f'name = "{name}"', 'motion = "fixed-axes"', f"coordinates = [{coords}]",
            "[[parts.slices]]", f"z = [{z[0]}, {z[1]}]", f"profiles = [{profile}]", ""]


def _gravity(coordinate: str) -> list[str]:
    return ["[[forces]]", 'kind = "gravity"', f'coordinate = "{coordinate}"', "direction = -1",
            "sampling = 0.5", ""]


def _input(velocities: dict[str, float], sampling: float) -> str:
    table = ", ".join(f"{k} = {v}" for k, v in velocities.items())
    return f"[[inputs]]\nvelocities = {{ {table} }}\nsampling = {sampling}\n"


def _crank(pivot_x: float, radius: float, link: float, piston_length: float, piston_height: float) -> list[str]:
    pin = round(piston_length, 3)
    axle_y = round(piston_height / 2, 3)
    return [
        "[[parts]]", 'name = "crank"', 'motion = "fixed-axes"',
        f'coordinates = [{{ name = "c", pivot = [{pivot_x}, {axle_y}], initial = 0 }}]',
        "[[parts.slices]]", "z = [-2, -1]", f"profiles = [{{ circle = [{pivot_x}, {axle_y}], radius = {radius} }}]",
        "",
        "[[parts]]", 'name = "rod"', 'motion = "linkage"', "[[parts.slices]]", "z = [-1, -0.5]",
        f"profiles = [{{ rect = [0, -0.1, {link}, 0.1] }}]", "",
        "[[linkages]]", 'name = "crank-slider"', 'input = "c"', 'output = "xp"', 'members = ["rod"]',
        "joints = [",
        f'  {{ kind = "pin", parts = ["crank", "rod"], points = [[{round(pivot_x + radius, 3)}, {axle_y}], [0, 0]] }},',
        f'  {{ kind = "pin", parts = ["rod", "piston"], points = [[{link}, 0], [{pin}, {axle_y}]] }},',
        "]", "",
    ]


def moved(mechanism: Mechanism, offset: tuple[float, float] = (0.0, 0.0), scale: float = 1.0) -> Mechanism:
    """The same mechanism drawn ``scale`` times as large and moved by ``offset``.

    Lengths scale (profiles, slices' z-intervals, pivots, joint points, translations' and
    shifts' initial values, limits, input velocities and force speeds), so every event happens at the same time and
    every translation coordinate is ``scale`` times its old value; angles are unchanged.
    The offset moves only the drawing: coordinates are displacements from it. Linkage
    members are drawn in their own frames, so only scale applies to them.

    >>> from cspace.io.loader import load
    >>> far = moved(load("fixtures/pusher.toml"), offset=(1e6, -1e6), scale=10)
    >>> far.part("a").slices[0].profiles[0].elements[0].start, far.coordinate("xa").initial
    ((1000000.0, -1000000.0), 50.0)
    """
    members = {p.name for p in mechanism.parts if p.motion == Motion.LINKAGE}

    def point(p, member: bool = False) -> tuple[float, float]:
        x, y = p[0] * scale, p[1] * scale
        return (x, y) if member else (x + offset[0], y + offset[1])

    def profile(source: Profile, member: bool) -> Profile:
        elements = []
        for e in source.elements:
            if isinstance(e, Arc):
                elements.append(Arc(point(e.start, member), point(e.end, member), point(e.center, member), e.ccw, e.name))
            else:
                elements.append(Line(point(e.start, member), point(e.end, member), e.name))
        return Profile(tuple(elements))

    parts = tuple(replace(part, slices=tuple(replace(s, z=(s.z[0] * scale, s.z[1] * scale),
                                                     profiles=tuple(profile(p, part.name in members)
                                                                    for p in s.profiles))
                                             for s in part.slices)) for part in mechanism.parts)
    coordinates = tuple(
        replace(c, pivot=point(c.pivot)) if c.is_angle else
        replace(c, initial=c.initial * scale, limits=None if c.limits is None else
                (c.limits[0] * scale, c.limits[1] * scale)) for c in mechanism.coordinates)
    angles = {c.name for c in mechanism.coordinates if c.is_angle}
    linkages = tuple(replace(linkage, joints=tuple(replace(joint, points=tuple(
        point(p, part in members) for part, p in zip(joint.parts, joint.points))) for joint in linkage.joints))
        for linkage in mechanism.linkages)
    forces = tuple(replace(f, speed=f.speed if f.coordinate in angles else f.speed * scale) for f in mechanism.forces)
    inputs = tuple(replace(m, velocities=tuple((c, v if c in angles else v * scale) for c, v in m.velocities))
                   for m in mechanism.inputs)
    return replace(mechanism, parts=parts, coordinates=coordinates, linkages=linkages, forces=forces,
                   inputs=inputs)


def unreachable(mechanism: Mechanism) -> Mechanism:
    """The same mechanism with geometry nothing can ever meet: a small square hole deep in
    the material of every slice of every part (parts never overlap, so nothing enters it
    in the plane; a part that shifts along z may drop into one, so a mechanism with a
    shift gets none) and a fixed part above every slice's reach along z, inside the
    drawing's bounds (so the mechanism's size, and with it every tolerance, is
    unchanged). Its trace must read the same.

    >>> from cspace.io.loader import load
    >>> gate = unreachable(load("fixtures/spring-gate.toml"))
    >>> [len(s.profiles) for s in gate.part("block").slices], gate.parts[-1].name
    ([2], 'unreachable')
    """
    pivots = {c.part: c.pivot for c in mechanism.coordinates if c.is_angle}
    parts = mechanism.parts
    if not any(c.along_z for c in mechanism.coordinates):
        parts = tuple(replace(part, slices=tuple(replace(s, profiles=s.profiles + _inner_hole(s.profiles,
                                                                                            pivots.get(part.name)))
                                                 for s in part.slices)) for part in parts)
    x0, y0, x1, y1 = initial_bounds(mechanism)
    top = max(s.z[1] for part in parts for s in part.slices)
    lift = sum(max(abs(c.initial), *map(abs, c.limits or (0.0,))) for c in mechanism.coordinates if c.along_z)
    z = top + lift + 1.0
    cx, cy, half = (x0 + x1) / 2, (y0 + y1) / 2, min(x1 - x0, y1 - y0) / 10
    far = Part("unreachable", Motion.FIXED, slices=(Slice((z, z + 1.0), (Profile.rectangle(
        cx - half, cy - half, cx + half, cy + half, "unreachable."),)),))
    return replace(mechanism, parts=parts + (far,))


def _inner_hole(profiles: tuple[Profile, ...], pivot: tuple[float, float] | None) -> tuple[Profile, ...]:
    """A hole deep in the material, a fifth as wide as its distance from the nearest profile
    (profiles drawn abutting or nested included, so it crosses none): a circle about the
    pivot of a part that turns (where the pivot lies in its material), which keeps the
    part's rotational symmetry; else a square about the point farthest from every profile.
    None where the material is too thin to hold one apart."""
    material = region_of(profiles)
    rings = shapely.union_all([shapely.LinearRing(p.ring().coords) for p in profiles])
    if pivot is not None and material.contains(shapely.Point(pivot)):
        half = rings.distance(shapely.Point(pivot)) / 5
        return (Profile.circle(pivot, half, "unreachable.rim").reversed(),) if half > 0 else ()
    cells = material.difference(rings.buffer(1e-9 * max(math.sqrt(material.area), NOISE)))
    pieces = sorted(getattr(cells, "geoms", [cells]), key=lambda p: -p.area)
    if not pieces or pieces[0].is_empty:
        return ()
    circle = shapely.maximum_inscribed_circle(pieces[0])
    (cx, cy), (ex, ey) = circle.coords[0], circle.coords[1]
    half = math.hypot(ex - cx, ey - cy) / 5
    if half <= 0:
        return ()
    return (Profile.rectangle(cx - half, cy - half, cx + half, cy + half, "unreachable.").reversed(),)


# -- turning parts --------------------------------------------------------------------------
#
# Pairs with a turning part are built by sweeping the angle (cspace.spaces.rotation), about a
# second or more per pair for outlines of a few dozen vertices, more for many (a full
# circle flattens into a few hundred): the generators keep parts to few vertices and
# small arcs, at most two turning pairs per mechanism. A turning pair's blocked space is
# grown by up to the arc tolerance (about 1e-4 of the mechanism's size), so parts that
# must meet start apart, farther than that (``GAP``): the force closes the gap at t = 0.
# Numbers are written with 9 decimals (12 for toothed wheels, so that their symmetry is
# exact to the loader's tolerance): arcs' ends lie on their circles to far below the
# length tolerance.

GAP = 0.05  # smallest initial clearance between parts that are to meet (a few arc tolerances)
TURN = 2 * math.pi


def _n(value: float, digits: int = 9) -> str:
    """A number for the file: ``digits`` decimals, no trailing zeros, no negative zero."""
    text = f"{round(float(value), digits):.{digits}f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def _p(point, digits: int = 9) -> str:
    return f"[{_n(point[0], digits)}, {_n(point[1], digits)}]"


def _path_text(steps: list, name: str | None = None, digits: int = 9) -> str:
    """A closed ``path`` profile: points, or ("arc", end, centre) steps (counterclockwise arcs)."""
    out = []
    for step in steps:
        if isinstance(step, tuple) and step and step[0] == "arc":
            out.append(f"{{ arc = {_p(step[1], digits)}, center = {_p(step[2], digits)} }}")
        else:
            out.append(_p(step, digits))
    first = steps[0]
    out.append(_p(first, digits))
    label = f'name = "{name}", ' if name else ""
    return f"{{ {label}path = [{', '.join(out)}] }}"


def _translation(name: str, axis, initial: float = 0.0, limits=None, digits: int = 9) -> str:
    limit = f", limits = [{_n(limits[0])}, {_n(limits[1])}]" if limits else ""
    return f'{{ name = "{name}", axis = {_p(axis, digits)}, initial = {_n(initial)}{limit} }}'


def _rotation(name: str, pivot, initial: float = 0.0, limits=None) -> str:
    limit = f", limits = [{_n(limits[0])}, {_n(limits[1])}]" if limits else ""
    return f'{{ name = "{name}", pivot = {_p(pivot)}, initial = {_n(initial)}{limit} }}'


def _moving(name: str, coordinates: list[str], slices: list[tuple[tuple[float, float], list[str]]]) -> list[str]:
    lines = ["[[parts]]", f'name = "{name}"', 'motion = "fixed-axes"', f"coordinates = [{', '.join(coordinates)}]"]
    for z, profiles in slices:
        lines += ["", "[[parts.slices]]", f"z = [{z[0]}, {z[1]}]", f"profiles = [{', '.join(profiles)}]"]
    return lines + [""]


def _fixed(name: str, profiles: list[str], z=(0, 1)) -> list[str]:
    return ["[[parts]]", f'name = "{name}"', 'motion = "fixed"', "", "[[parts.slices]]", f"z = [{z[0]}, {z[1]}]",
            f"profiles = [{', '.join(profiles)}]", ""]


def _force(kind: str, coordinate: str, direction: int, sampling: float | None = None) -> list[str]:
    lines = ["[[forces]]", f'kind = "{kind}"', f'coordinate = "{coordinate}"', f"direction = {direction}"]
    return lines + ([f"sampling = {_n(sampling)}"] if sampling else []) + [""]


def _inputs(motions: list[tuple[str, dict[str, float], float]]) -> list[str]:
    lines = []
    for name, velocities, sampling in motions:
        table = ", ".join(f"{k} = {_n(v)}" for k, v in velocities.items())
        lines += ["[[inputs]]", f'name = "{name}"', f"velocities = {{ {table} }}", f"sampling = {_n(sampling)}", ""]
    return lines


def _document(family: str, variant: str, time: float, lines: list[str], notes: list[str] = ()) -> str:
    head = [f"# generated by tests.support.fuzz: {family}, {variant}"] + [f"# {note}" for note in notes]
    return "\n".join(head + ["[mechanism]", f"time = {_n(time)}", ""] + lines) + "\n"


def _unit(angle: float) -> np.ndarray:
    return np.array([math.cos(angle), math.sin(angle)])


def _perp(v) -> np.ndarray:
    return np.array([-v[1], v[0]])


def _turned(v, angle: float) -> np.ndarray:
    c, s = math.cos(angle), math.sin(angle)
    return np.array([c * v[0] - s * v[1], s * v[0] + c * v[1]])


def _material(steps: list) -> Polygon:
    """The real shape of a path (arcs sampled every degree or finer), for clearances."""
    points = []
    previous = steps[-1] if not (isinstance(steps[-1], tuple) and steps[-1][0] == "arc") else steps[-1][1]
    for step in steps:
        if isinstance(step, tuple) and step and step[0] == "arc":
            end, centre = np.asarray(step[1], float), np.asarray(step[2], float)
            start = np.asarray(previous, float)
            a0 = math.atan2(*(start - centre)[::-1])
            a1 = math.atan2(*(end - centre)[::-1])
            sweep = (a1 - a0) % TURN
            r = float(np.hypot(*(start - centre)))
            for t in np.linspace(0, sweep, max(2, int(math.degrees(sweep)) + 2))[1:]:
                points.append(tuple(centre + r * _unit(a0 + t)))
            previous = end
        else:
            points.append(tuple(map(float, step)))
            previous = step
    return Polygon(points)


def _placed(shape: Polygon, angle: float = 0.0, pivot=(0.0, 0.0), shift=(0.0, 0.0)) -> Polygon:
    if angle:
        shape = affinity.rotate(shape, angle, origin=tuple(pivot), use_radians=True)
    return affinity.translate(shape, shift[0], shift[1])


# -- cam: a cam turning at constant speed against spring-loaded followers ---------------------

def cam(draw: Draw) -> str:
    """A cam turning one to two turns against one or two spring-loaded followers (see :func:`_cam`)."""
    return _cam(draw)[1]


def _cam(draw: Draw) -> tuple[str, str]:
    """A cam, an off-centre disk (radius 1.5-3, centre 0.2-0.5 radii off its pivot) or a
    convex polygon of 3-6 corners at 1.5-3 from the pivot, each corner sharp or rounded
    (radius 0.1-0.4), turning freely at 0.5-2 rad/s (either way) from any angle, for one to
    two turns; one or two followers (the second in a layer of its own) translating along any
    direction through or beside the pivot, flat-faced (face wider than the cam) or pointed
    (tip within 0.6 of the cam's inner radius off the pivot's line), starting 0.05-0.5 clear
    of the cam's reach and pushed onto it by a spring; each free or on a lower stop."""
    shape = draw.choice(("disk", "polygon"))
    if shape == "disk":
        rho = draw.number(1.5, 3.0)
        ecc = draw.number(0.2, 0.5) * rho
        psi = draw.number(0.0, TURN)
        centre = (round(ecc * math.cos(psi), 3), round(ecc * math.sin(psi), 3))
        profile = f"{{ circle = {_p(centre)}, radius = {_n(rho)} }}"
        material = shapely.Point(centre).buffer(rho, quad_segs=90)
        distance = math.hypot(*centre)
        reach, inner = distance + rho, rho - distance
    else:
        steps, material = _cam_polygon(draw)
        profile = _path_text(steps)
        boundary = material.exterior
        reach = float(shapely.Point(0, 0).hausdorff_distance(material))
        inner = float(boundary.distance(shapely.Point(0, 0)))
    omega = float(draw.choice(("-2", "-1", "-0.5", "0.5", "1", "2")))
    turns = draw.number(1.0, 2.0)
    initial = draw.number(-3.1, 3.1)
    count = draw.integer(1, 2)
    lines = _moving("cam", [_rotation("th", (0, 0), initial)], [((0, count), [profile])])
    kinds = []
    for i in range(count):
        name, coordinate = f"follower{i + 1}", f"s{i + 1}"
        phi = draw.number(0.0, TURN)
        u, n = _unit(phi), _perp(_unit(phi))
        kind = draw.choice(("flat", "pointed"))
        gap = draw.number(GAP, 0.5)
        start = reach + gap
        if kind == "flat":
            e = draw.number(-0.5, 0.5)
            half = reach + abs(e) + draw.number(0.2, 1.0)
            thick = draw.number(0.5, 1.5)
            points = [start * u + (e - half) * n, start * u + (e + half) * n,
                      (start + thick) * u + (e + half) * n, (start + thick) * u + (e - half) * n]
        else:
            e = draw.number(-0.6, 0.6) * inner
            tip = start * u + e * n
            taper, hw, body = draw.number(0.3, 1.0), draw.number(0.2, 0.6), draw.number(1.0, 2.5)
            points = [tip, tip + taper * u - hw * n, tip + (taper + body) * u - hw * n,
                      tip + (taper + body) * u + hw * n, tip + taper * u + hw * n]
        stop = draw.choice(("free", "stop"))
        limits = None
        if stop == "stop":  # a lower stop the follower may rest on where the cam falls away
            limits = (-round(gap + draw.number(0.0, 1.0) * (reach - inner), 3), 3.0)
        kinds.append(f"{kind}{'' if stop == 'free' else ' on a stop'}")
        lines += _moving(name, [_translation(coordinate, u, 0.0, limits)], [((i, i + 1), [_path_text(points)])])
        lines += _force("spring", coordinate, -1)
    lines += _inputs([("cam turns", {"th": omega}, draw.number(0.05, 0.25))])
    time = turns * TURN / abs(omega)
    variant = f"{shape}, {' and '.join(kinds)}"
    notes = [f"reach {reach:.4f}, inner radius {inner:.4f}; {turns} turns at {omega} rad/s"]
    return shape, _document("cam", variant, time, lines, notes)


def _cam_polygon(draw: Draw) -> tuple[list, Polygon]:
    """A convex polygon about the origin, corners sharp or rounded: path steps and material."""
    n = draw.integer(3, 6)
    base = draw.number(0.0, TURN)
    corners = []
    for k in range(n):
        angle = base + TURN * (k + draw.number(-0.15, 0.15)) / n
        corners.append(draw.number(1.5, 3.0) * _unit(angle))
    hull = shapely.MultiPoint([tuple(c) for c in corners]).convex_hull
    ring = shapely.geometry.polygon.orient(hull).exterior.coords[:-1]  # counterclockwise
    vertices = [np.array(v) for v in ring]
    radii = [draw.number(0.1, 0.4) if draw.choice(("sharp", "round")) == "round" else 0.0 for _ in vertices]
    steps: list = []
    for k, v in enumerate(vertices):
        before, after = vertices[k - 1], vertices[(k + 1) % len(vertices)]
        a, b = before - v, after - v
        la, lb = float(np.hypot(*a)), float(np.hypot(*b))
        a, b = a / la, b / lb
        half = math.acos(max(-1.0, min(1.0, float(a @ b)))) / 2
        r = min(radii[k], 0.45 * min(la, lb) * math.tan(half))
        if r < 0.05:
            steps.append(v)
            continue
        d = r / math.tan(half)
        bisector = (a + b) / float(np.hypot(*(a + b)))
        centre = v + r / math.sin(half) * bisector
        steps += [v + d * a, ("arc", v + d * b, centre)]
    # Start on a point, so the closing line is a line.
    first = next(i for i, s in enumerate(steps) if not isinstance(s, tuple))
    steps = steps[first:] + steps[:first]
    return steps, _material(steps)


# -- lever: a bar turned about a pivot sweeps blocks along a table ----------------------------

def lever(draw: Draw) -> str:
    """A lever sweeping blocks along a table, or pushing one against a wall (see :func:`_lever`)."""
    return _lever(draw)[1]


def _lever(draw: Draw) -> tuple[str, str]:
    """A bar (width 0.6-1.2, 5-8 long) hanging from a pivot 0.3-1 above where its leading
    corner clears the table (its bottom slants 0.2-0.5 up behind that corner, so the corner
    is its farthest point), turned by the input (0.5-2 rad/s, either way) by 1-2 radians,
    up to its limit or for the time allotment. One or two blocks (polygons: rectangles,
    convex pentagons, L shapes) stand on the table, translating along it only, with no
    force: the first where the corner meets its near face (at least 0.3 below its top),
    0.1 or more clear of the bar; the second up to 2 beyond it (touching or not). Or one
    block and a wall 10-80 % of the way to where the corner would leave the block: the
    input is then blocked."""
    width, length = draw.number(0.6, 1.2), draw.number(5.0, 8.0)
    slant, clear = draw.number(0.2, 0.5), draw.number(0.3, 1.0)
    height = length + clear  # of the pivot above the table
    reach = math.hypot(width / 2, length)
    bar = [(width / 2, height - length), (width / 2, height + 0.8), (-width / 2, height + 0.8),
           (-width / 2, height - length + slant)]
    mode = draw.choice(("sweep", "wall"))
    count = 1 if mode == "wall" else draw.integer(1, 2)
    blocks = []
    w1, h1, profile1 = _polygon_block(draw, clear + 0.8, clear + 3.0)
    low = width / 2 + 0.1
    high = math.sqrt(reach ** 2 - (height - h1 + 0.3) ** 2)
    x1 = round(low + draw.number(0.0, 1.0) * (high - low), 3)
    blocks.append((x1, profile1))
    leave = math.sqrt(reach ** 2 - (height - h1) ** 2)  # where the corner leaves the block's top
    frame = ['{ name = "table", rect = [-30, -2, 30, 0] }']
    if mode == "wall":
        wall = round(x1 + w1 + draw.number(0.1, 0.8) * (leave - x1), 3)
        frame.append(f'{{ name = "wall", rect = [{_n(wall)}, 0, {_n(wall + 1)}, {_n(draw.number(0.5, h1))}] }}')
    elif count == 2:
        w2, _, profile2 = _polygon_block(draw, 0.6, clear + 4.0)
        blocks.append((round(x1 + w1 + draw.number(0.0, 2.0), 3), profile2))
    sense = draw.choice(("ccw", "cw"))
    omega = float(draw.choice(("0.5", "1", "2")))
    end = draw.number(1.0, 2.0)
    stop = draw.choice(("limits", "time"))
    mirror = -1 if sense == "cw" else 1

    def m(points):
        return [(mirror * x, y) for x, y in points]

    limits = None
    if stop == "limits":
        limits = (-0.3, end) if mirror == 1 else (-end, 0.3)
        time = end / omega + 0.5
    else:
        time = end / omega
    lines = _fixed("frame", frame if mirror == 1 else [_mirrored_rect(f) for f in frame])
    lines += _moving("bar", [_rotation("a", (0, height), 0.0, limits)], [((0, 1), [_path_text(m(bar))])])
    for i, (x, points) in enumerate(blocks):
        lines += _moving(f"block{i + 1}", [_translation(f"x{i + 1}", (1, 0))],
                         [((0, 1), [_path_text(m([(x + px, py) for px, py in points]))])])
    lines += _inputs([(f"bar turns {sense}", {"a": mirror * omega}, draw.number(0.05, 0.2))])
    notes = [f"the bar's corner reaches {reach:.4f} from the pivot; block1's near face at {x1}, "
             f"the corner leaves its top at {leave:.4f}"]
    return mode, _document("lever", f"{mode}, {count} block(s), {sense}, {stop}", time, lines, notes)


def _mirrored_rect(profile: str) -> str:
    """A frame rectangle ``{ name = "...", rect = [x0, y0, x1, y1] }`` mirrored in x."""
    head, numbers = profile.split("rect = [")
    x0, y0, x1, y1 = (float(v) for v in numbers.split("]")[0].split(","))
    return f"{head}rect = [{_n(-x1)}, {_n(y0)}, {_n(-x0)}, {_n(y1)}] }}"


def _polygon_block(draw: Draw, low: float, high: float) -> tuple[float, float, list]:
    """(width, height, points) of a polygonal block standing on y = 0 at x = 0..width: a
    rectangle, a convex pentagon (its near face vertical up to at least 60 %) or an L."""
    kind = draw.choice(("rect", "convex", "ell"))
    w, h = draw.number(1.0, 3.0), draw.number(low, high)
    if kind == "rect":
        return w, h, [(0, 0), (w, 0), (w, h), (0, h)]
    if kind == "convex":
        apex = draw.number(0.0, 0.6 * w)
        return w, h, [(0, 0), (w, 0), (w, round(draw.number(0.3, 0.8) * h, 3)), (round(apex, 3), h), (0, h)]
    foot = draw.number(0.3, 0.7)
    return w, h, [(0, 0), (w, 0), (w, round(foot * h, 3)), (round(foot * w, 3), round(foot * h, 3)),
                  (round(foot * w, 3), h), (0, h)]


# -- wheel: a toothed wheel against a pawl or a rack ------------------------------------------

def wheel(draw: Draw) -> str:
    """A toothed wheel turned by the input against a pawl or a rack (see :func:`_wheel`)."""
    return _wheel(draw)[1]


def _wheel(draw: Draw) -> tuple[str, str]:
    """A wheel of 3-8 straight-sided teeth (sawtooth, the locking face radial or leaning
    up to a quarter pitch; or trapezoids), tips at radius 3-5, 0.5 to 35 % of that deep,
    turned by the input at 0.5 or 1 rad/s counterclockwise or clockwise (half a turn to
    1.2 turns, turning freely), or both ways (forward to a limit 0.5-2.5, then back to
    -0.5 to -2). Against it either a pawl on its own pivot (1.5-2 tip radii out, anywhere
    around) whose tip reaches inside the root circle, pressed on by a torque, limited both
    ways, starting 0.05-0.3 (or more, until clear) above the tips; or a rack of 2-5
    triangular or trapezoid teeth reaching between the wheel's root and tip circles,
    translating along a tangent under a spring either way, limited to 0.5-2.5 either side,
    starting at the offset along the tangent where it is clearest of the teeth."""
    count = draw.integer(3, 8)
    tip = draw.number(3.0, 5.0)
    root = round(tip - draw.number(0.5, 0.35 * tip), 3)
    teeth = draw.choice(("sawtooth", "trapezoid"))
    pitch = TURN / count
    phase = draw.number(0.0, 1.0) * pitch
    points = []
    if teeth == "sawtooth":
        lean = draw.number(0.0, 0.25)
        for k in range(count):
            points.append(tip * _unit(phase + k * pitch))
            points.append(root * _unit(phase + (k + 1 - lean) * pitch))
    else:
        f1, land = draw.number(0.1, 0.3), draw.number(0.1, 0.3)
        f3 = f1 + land + draw.number(0.1, 0.3)
        for k in range(count):
            a = phase + k * pitch
            points += [root * _unit(a), tip * _unit(a + f1 * pitch), tip * _unit(a + (f1 + land) * pitch),
                       root * _unit(a + f3 * pitch)]
    wheel_shape = Polygon([tuple(p) for p in points])
    partner = draw.choice(("pawl", "rack"))
    sense = draw.choice(("ccw", "cw", "both"))
    omega = float(draw.choice(("0.5", "1")))
    limits = None
    if sense == "both":
        limits = (-draw.number(0.5, 2.0), draw.number(0.5, 2.5))
        motions = [("wheel turns forward", {"w": omega}, 0.05), ("wheel turns back", {"w": -omega}, 0.05)]
        time = (2 * limits[1] - limits[0]) / omega + 0.5
    else:
        turns = draw.number(0.5, 1.2)
        motions = [(f"wheel turns {sense}", {"w": omega if sense == "ccw" else -omega}, 0.05)]
        time = turns * TURN / omega
    lines = _moving("wheel", [_rotation("w", (0, 0), 0.0, limits)], [((0, 1), [_path_text(points, digits=12)])])
    if partner == "pawl":
        lines += _pawl(draw, tip, root, wheel_shape)
    else:
        lines += _rack(draw, tip, root, count, wheel_shape)
    lines += _inputs(motions)
    return partner, _document("wheel", f"{count} {teeth} teeth, {partner}, {sense}", time, lines,
                              [f"tip radius {tip}, root radius {root}"])


def _pawl(draw: Draw, tip: float, root: float, wheel_shape: Polygon) -> list[str]:
    beta = draw.number(0.0, TURN)
    distance = draw.number(1.5, 2.0) * tip
    pivot = distance * _unit(beta)
    start = tip + draw.number(GAP, 0.3)  # the tip's radius as drawn
    # The tip's circle about the pivot comes within ``nearest`` of the wheel's centre: inside
    # the root circle, so the wheel always stops it; and the pawl meets its tip point moving
    # inward (nearest >= distance - sqrt(distance^2 - start^2)), so the tip is its innermost part.
    low = distance - math.sqrt(distance ** 2 - start ** 2) + 0.1
    high = root - 0.3
    nearest = low + draw.number(0.0, 1.0) * (high - low) if high > low else high
    length = distance - nearest
    cosine = (distance ** 2 + start ** 2 - length ** 2) / (2 * distance * start)
    delta = math.acos(max(-1.0, min(1.0, cosine))) * (1 if draw.choice(("left", "right")) == "left" else -1)
    point = start * _unit(beta + delta)
    d = (point - pivot) / float(np.hypot(*(point - pivot)))
    n = _perp(d)
    width, taper = draw.number(0.3, 0.6), draw.number(0.3, 0.8)
    outline = [point, point - taper * d + width / 2 * n, pivot - 0.4 * d + width / 2 * n,
               pivot - 0.4 * d - width / 2 * n, point - taper * d - width / 2 * n]
    inward = 1 if float(_perp(point - pivot) @ (-point)) > 0 else -1
    shape = Polygon([tuple(p) for p in outline])
    lift = 0.0
    while _placed(shape, lift, pivot).distance(wheel_shape) < GAP and abs(lift) < 1.0:
        lift -= inward * 0.02
    press, back = draw.number(0.3, 0.8), abs(lift) + draw.number(0.15, 0.6)
    limits = sorted((inward * press, -inward * back))
    lines = _moving("pawl", [_rotation("p", pivot, lift, limits)], [((0, 1), [_path_text(outline)])])
    return lines + _force("torque", "p", inward)


def _rack(draw: Draw, tip: float, root: float, count: int, wheel_shape: Polygon) -> list[str]:
    beta = draw.number(0.0, TURN)
    normal, tangent = _unit(beta), _perp(_unit(beta))
    depth = root + 0.15 + draw.number(0.0, 1.0) * (tip - root - 0.35)  # the rack's tips, from the centre
    height = tip - depth + draw.number(0.2, 0.6)  # its teeth: the wheel's tips clear its base
    spacing = TURN * (root + tip) / 2 / count * draw.number(0.9, 1.3)
    number = draw.integer(2, 5)
    half = spacing * draw.number(0.25, 0.45)
    flat = draw.choice(("triangle", "trapezoid"))
    top = half * draw.number(0.2, 0.5) if flat == "trapezoid" else 0.0
    thick = draw.number(0.5, 1.0)
    spring = 1 if draw.choice(("forward", "back")) == "forward" else -1
    bound = draw.number(0.5, 2.5)

    def outline(offset: float, half: float, top: float) -> list:
        base, back = depth + height, depth + height + thick
        centres = [offset + (j - (number - 1) / 2) * spacing for j in range(number)]
        local = [(centres[0] - half - 0.3, back), (centres[0] - half - 0.3, base)]
        for c in centres:
            local += [(c - half, base), (c - top, depth)] + ([(c + top, depth)] if top else []) + [(c + half, base)]
        local += [(centres[-1] + half + 0.3, base), (centres[-1] + half + 0.3, back)]
        return [x * tangent + y * normal for x, y in local]

    best = None
    for _ in range(4):  # narrower teeth until they fit between the wheel's
        for k in range(41):
            offset = spacing * (k / 40 - 0.5)
            points = outline(offset, half, top)
            clearance = Polygon([tuple(p) for p in points]).distance(wheel_shape)
            if best is None or clearance > best[0] + 1e-12:
                best = (clearance, points)
        if best[0] >= GAP:
            break
        half, top = half * 0.7, top * 0.7
    if best[0] < GAP:  # no offset fits: start out of mesh, beside the wheel
        offset = tip + GAP + half + 0.3 + (number - 1) / 2 * spacing
        best = (None, outline(offset, half, top))
    lines = _moving("rack", [_translation("r", tangent, 0.0, (-bound, bound))], [((0, 1), [_path_text(best[1])])])
    return lines + _force("spring", "r", spring)


# -- released rotation: a torque-loaded bar held by something that goes away -------------------

ROTATION_RELEASES = ("slide", "lift", "latch")


@dataclass(frozen=True)
class TurningRelease:
    """A generated mechanism in which a bar on a pivot, loaded by a torque, is held by a stop
    that goes away, and its closed-form outcome. The held angle ``held`` first turns freely
    (an external segment after any settling at t = 0) at time ``release``, and ends with
    every coordinate in ``final`` at that value. ``settle`` is the held angle once the torque
    has closed the initial gap at t = 0.
    ``slip`` is the speed at which the holding contact slides off its end at the release,
    ``reach`` the bar's reach from its pivot: a turning pair is exact to the arc tolerance,
    so the release time is checked to twice that over ``slip``, the settled angle to twice
    that over ``reach``."""

    kind: str
    text: str
    held: str
    release: float
    final: dict[str, float]
    settle: float
    slip: float
    reach: float
    geometry: dict = field(default_factory=dict, compare=False)

    def __repr__(self) -> str:
        return f"TurningRelease({self.kind!r}, held={self.held!r}, release={self.release:g})"


def released_rotation(draw: Draw, kind: str | None = None) -> TurningRelease:
    """A released rotation of a kind drawn at random (``ROTATION_RELEASE_GENERATORS`` draws one
    kind): a bar (4-8 long, 0.6-1.5 wide, on a pivot at its near end) pressed by a torque
    against a stop that goes away, drawn turned by a quarter turn 0-3 times and mirrored or
    not. It starts 0.05-0.3 clear of the stop (the torque closes the gap at t = 0: a turning
    pair cannot start touching, see ``Tolerance.turning_gap``). Kinds:

    * ``slide``: the stop's flat bottom holds the bar's far top corner, 0.2-1.5 in from the
      stop's edge; the stop slides off along its face at 0.5-2: released after
      overlap / speed, the bar turns to its limit (0.6-1.4 rad);
    * ``lift``: the same stop retracts askew, along (1-3, 1-3): the bar follows its face
      up until the stop's corner passes its own (a quadratic's root), then turns to its
      limit 0.3-0.8 rad further;
    * ``latch``: the stop is a latch, a wedge (0.2-0.4 rad, thin end towards the bar's
      pivot), turning about its own pivot (0.6-1.2 behind its face, 0.1-0.5 past its thin
      end) at 0.5 or 1 rad/s, its face tilted 0.1-0.4 rad beyond the bar's top face, the
      bar's corner meeting it 0.2-0.6 from its end at 0.03-0.2 rad: the face retreats as
      it turns and the bar follows, until the corner slips off the end (solved
      numerically); then the bar turns to its limit, 0.3-0.8 rad further, and the latch
      stops at its own, 0.1-0.5 rad later.
    """
    kind = kind or draw.choice(ROTATION_RELEASES)
    return ROTATION_RELEASE_GENERATORS[kind](draw)


def _bar(draw: Draw) -> tuple[float, float, float]:
    return draw.number(4.0, 8.0), draw.number(0.3, 0.75), draw.number(0.5, 1.0)


def _corner(length: float, half: float, angle: float) -> np.ndarray:
    """The bar's far top corner, (length, half) in its frame, turned by ``angle``."""
    return np.array([length * math.cos(angle) - half * math.sin(angle),
                     length * math.sin(angle) + half * math.cos(angle)])


class _Frame:
    """The drawing turned by ``quarter`` quarter turns and mirrored (y -> -y) or not: exact
    on the numbers; a mirrored angle changes sign."""

    def __init__(self, draw: Draw) -> None:
        self.quarter = draw.integer(0, 3)
        self.sign = -1 if draw.choice(("as drawn", "mirrored")) == "mirrored" else 1
        c, s = [(1, 0), (0, 1), (-1, 0), (0, -1)][self.quarter]
        self.matrix = np.array([[c, -s], [s, c]]) @ np.array([[1, 0], [0, self.sign]])

    def __call__(self, points) -> list:
        return [self.matrix @ np.asarray(p, float) for p in points]

    def angle_limits(self, low: float, high: float) -> tuple[float, float]:
        return (low, high) if self.sign == 1 else (-high, -low)


def _release_text(kind: str, frame: _Frame, time: float, bar_lines: list[str], holder_lines: list[str],
                  motions: list, notes: list[str]) -> str:
    variant = f"{kind}, quarter turns {frame.quarter}{', mirrored' if frame.sign == -1 else ''}"
    return _document("released rotation", variant, time, bar_lines + holder_lines + _inputs(motions), notes)


def _bar_lines(frame: _Frame, length: float, half: float, back: float, initial: float,
               limits: tuple[float, float]) -> list[str]:
    outline = frame([(-back, -half), (length, -half), (length, half), (-back, half)])
    lines = _moving("bar", [_rotation("t", (0, 0), frame.sign * initial, frame.angle_limits(*limits))],
                    [((0, 1), [_path_text(outline)])])
    return lines + _force("torque", "t", frame.sign)


def _slide_release(draw: Draw, lift: bool = False) -> TurningRelease:
    length, half, back = _bar(draw)
    frame = _Frame(draw)
    gap = draw.number(GAP, 0.3)
    face = half + gap  # the stop's bottom face, above the pivot
    reach, rise = math.hypot(length, half), math.atan2(half, length)
    settle = math.asin(face / reach) - rise
    corner_x = math.sqrt(reach ** 2 - face ** 2)
    overlap = draw.number(0.2, 1.5)
    left = round(corner_x - overlap, 9)
    width, tall = overlap + draw.number(0.5, 2.0), draw.number(0.5, 2.0)
    speed = float(draw.choice(("0.5", "1", "2")))
    if lift:
        ax, ay = draw.integer(1, 3), draw.integer(1, 3)
        axis = np.array([ax, ay]) / math.hypot(ax, ay)
        b = left * axis[0] + face * axis[1]
        travel = -b + math.sqrt(b * b - (left ** 2 + face ** 2 - reach ** 2))
        turned = math.atan2(face + travel * axis[1], left + travel * axis[0]) - rise
        end = turned + draw.number(0.3, 0.8)

        def off(s: float) -> float:  # the bar's corner less the stop's, along the face
            return math.sqrt(reach ** 2 - (face + s * axis[1]) ** 2) - (left + s * axis[0])

        slip = abs(off(travel) - off(travel - 1e-6)) / 1e-6 * speed
    else:
        axis, travel, turned = np.array([1.0, 0.0]), corner_x - left, settle
        end = draw.number(0.6, 1.4)
        slip = speed
    release_time = travel / speed
    time = round(release_time + draw.number(0.3, 1.0), 3)
    stop = frame([(left, face), (left + width, face), (left + width, face + tall), (left, face + tall)])
    holder = _moving("stop", [_translation("s", frame([axis])[0])], [((0, 1), [_path_text(stop)])])
    bar = _bar_lines(frame, length, half, back, 0.0, (-0.3, end))
    kind = "lift" if lift else "slide"
    notes = [f"released at t = {release_time:.9g} (the bar at {frame.sign * turned:.9g}); "
             f"ends at t = {frame.sign * end:.9g}"]
    text = _release_text(kind, frame, time, bar, holder, [("stop moves away", {"s": speed}, 0.25)], notes)
    geometry = {"length": length, "half": half, "back": back, "frame": frame, "stop": stop, "axis": axis,
                "turned": turned, "travel": travel, "end": end, "speed": speed}
    return TurningRelease(kind, text, "t", release_time, {"t": frame.sign * end, "s": speed * time},
                          frame.sign * settle, slip, reach, geometry)


def _lift_release(draw: Draw) -> TurningRelease:
    return _slide_release(draw, lift=True)


def _latch_release(draw: Draw) -> TurningRelease:
    from scipy.optimize import brentq

    length, half, back = _bar(draw)
    frame = _Frame(draw)
    reach, rise = math.hypot(length, half), math.atan2(half, length)
    meet = draw.number(0.03, 0.2)  # the bar's angle where its corner meets the latch's face
    touch = _corner(length, half, meet)
    moving = _perp(touch) / reach  # the corner's direction of motion there
    tilt = -(rise + draw.number(0.1, 0.4))  # the face leans away from the bar's top face
    into = _turned(moving, tilt)  # the face's normal, into the latch
    along = _perp(into)  # along the face, towards the bar's pivot side
    slack = draw.number(0.2, 0.6)  # from the corner to the face's end, where it slips off
    end_point = touch + slack * along
    span, wedge = slack + draw.number(0.5, 1.5), draw.number(0.2, 0.4)
    depth, beyond = draw.number(0.6, 1.2), slack + draw.number(0.1, 0.5)
    omega = float(draw.choice(("0.5", "1")))
    # A wedge, thin at the end the corner slips off: there the corner, turning on, moves
    # out of the face's line at an angle far wider than the wedge's, even with the latch
    # turned a radian.
    far = end_point - span * along
    latch = [end_point, far, far + span * math.tan(wedge) * into]

    def corner_in_latch(angle: float, latch_angle: float, pivot: np.ndarray) -> np.ndarray:
        return pivot + _turned(_corner(length, half, angle) - pivot, -latch_angle)

    def following(latch_angle: float, pivot: np.ndarray) -> float:
        """The bar's angle with its corner on the latch's face, the latch turned by ``latch_angle``."""
        return brentq(lambda a: float(into @ (corner_in_latch(a, latch_angle, pivot) - touch)), meet - 1e-9,
                      meet + 1.5, xtol=1e-15)

    def slipped(latch_angle: float, pivot: np.ndarray) -> float:
        return float(along @ (corner_in_latch(following(latch_angle, pivot), latch_angle, pivot) - touch)) - slack

    # The pivot lies ``depth`` behind the face and ``beyond`` past its end: turning, the latch
    # moves its face away from the bar (which follows) and its end towards the bar's corner.
    # Far past the end (beyond >> depth) the bar would follow faster than the end comes, and
    # never slip off: then the pivot is drawn nearer.
    for depth, beyond in ((depth, beyond), (max(depth, 1.0), slack + 0.1)):
        pivot = touch + depth * into + beyond * along
        step = 0.05  # the latch's angle at release: bracketed by steps, then solved
        while step < 1.5 and slipped(step, pivot) < 0:
            step += 0.05
        if step < 1.5:
            break
    turn = brentq(slipped, step - 0.05 if step > 0.05 else 1e-9, step, args=(pivot,), xtol=1e-15)
    turned = following(turn, pivot)
    slip = (slipped(turn, pivot) - slipped(turn - 1e-6, pivot)) / 1e-6 * omega
    end = turned + draw.number(0.3, 0.8)
    stop_at = turn + draw.number(0.1, 0.5)
    time = round(stop_at / omega + draw.number(0.2, 0.5), 3)
    bar = _bar_lines(frame, length, half, back, 0.0, (-0.3, end))
    holder = _moving("latch", [_rotation("l", frame([pivot])[0], 0.0, frame.angle_limits(-0.3, stop_at))],
                     [((0, 1), [_path_text(frame(latch))])])
    release_time = turn / omega
    notes = [f"released at t = {release_time:.9g} (latch at {frame.sign * turn:.9g}, bar at "
             f"{frame.sign * turned:.9g}); the latch stops at {frame.sign * stop_at:.9g}"]
    text = _release_text("latch", frame, time, bar, holder,
                         [("latch turns away", {"l": frame.sign * omega}, 0.25)], notes)
    geometry = {"length": length, "half": half, "back": back, "frame": frame, "latch": latch, "pivot": pivot,
                "turned": turned, "turn": turn, "end": end, "stop_at": stop_at, "meet": meet}
    return TurningRelease("latch", text, "t", release_time, {"t": frame.sign * end, "l": frame.sign * stop_at},
                          frame.sign * meet, slip, reach, geometry)


def turning_release_errors(trace, case: TurningRelease) -> list[str]:
    """How a trace of a :class:`TurningRelease` misses its closed form: the bar settles where
    it must at t = 0, first turns freely (an external segment moving it after t = 0) at the
    release time, and every coordinate in ``final`` ends at its value."""
    mechanism = trace.mechanism
    tolerance = mechanism.tolerance
    j = mechanism.coordinate_index[case.held]
    instant = tolerance.length / mechanism.speed
    errors = []
    first_input = next((s for s in trace.segments if s.phase == "input"), None)
    if first_input is not None:
        got = float(first_input.start[j])
        if abs(got - case.settle) > 2 * tolerance.arc / case.reach + 10 * tolerance.angle:
            errors.append(f"{case.held} settles at {got:.9g}, due at {case.settle:.9g}")
    free = [s for s in trace.segments if s.phase == "external" and s.first.signs[j] and s.start_time > instant]
    if not free:
        errors.append(f"{case.held} is never released (due at t = {case.release:.6g})")
    elif abs(free[0].start_time - case.release) > 2 * tolerance.arc / case.slip + instant + NOISE * case.release:
        errors.append(f"{case.held} released at t = {free[0].start_time:.9g}, due at {case.release:.9g}")
    final = trace.segments[-1].finish if trace.segments else []
    for name, value in case.final.items():
        got = float(final[mechanism.coordinate_index[name]])
        allowed = 10 * (tolerance.angle if mechanism.coordinate(name).is_angle else tolerance.length)
        if abs(got - value) > allowed:
            errors.append(f"{name} ends at {got:.9g}, due at {value:.9g}")
    return errors


def closed_form_errors(trace, case) -> list[str]:
    """How a trace misses its case's closed form (a :class:`tests.support.releases.ReleaseCase` or a
    :class:`TurningRelease`); none for a case without one."""
    if case is None:
        return []
    if isinstance(case, TurningRelease):
        return turning_release_errors(trace, case)
    if isinstance(case, PinCase):
        return pin_errors(trace, case)
    if isinstance(case, CrankSlider):
        return crank_slider_errors(trace)
    if isinstance(case, PatchCase):
        return patch_errors(trace, case)
    if isinstance(case, NestCase):
        return nested_errors(trace, case)
    if isinstance(case, DynamicCase):
        return dynamic_errors(case, trace)
    from .oracles import release_errors

    return release_errors(trace, case)


@dataclass(frozen=True)
class CrankSlider:
    """A stack driven by a crank-slider: its piston must be where the closed form puts it
    (:func:`crank_slider_errors`), whatever the linkage's ``table``."""


def crank_slider_errors(trace) -> list[str]:
    """How a trace's piston misses the closed-form crank-slider, from the file's joints alone: the
    crank pin A turns about the crank's pivot, the rod's two pins are its length L apart, and
    the piston's pin B = (xp + bx, by) lies L from A on the far side: xp = A_x - bx +
    sqrt(L^2 - (by - A_y)^2). The piston must start on it (the assembly, to the length
    tolerance) and stay within the curve tolerance of it at every sample (the table's bound)."""
    from cspace.report.describe import path_rows

    mechanism = trace.mechanism
    (linkage,) = mechanism.linkages
    crank, piston = mechanism.coordinate(linkage.input), mechanism.coordinate(linkage.output)
    to_crank, to_piston = linkage.joints
    pin_a = np.array(to_crank.points[0], float)  # in the crank's frame: where it is at angle 0
    rod = math.dist(to_crank.points[1], to_piston.points[0])  # both in the rod's frame
    bx, by = to_piston.points[1]
    pivot = np.array(crank.pivot, float)
    tolerance = mechanism.tolerance
    i, o = mechanism.coordinate_index[crank.name], mechanism.coordinate_index[piston.name]
    errors = []
    for k, (_, _, *q) in enumerate(path_rows(trace)):
        ax, ay = pivot + _turned(pin_a - pivot, q[i])
        due = ax - bx + math.sqrt(rod * rod - (by - ay) ** 2)
        allowed = tolerance.length if k == 0 else tolerance.curve + tolerance.length
        if abs(q[o] - due) > allowed:
            errors.append(f"piston at {piston.name} = {q[o]:.9g} with {crank.name} = {q[i]:.9g}: the crank-slider "
                          f"puts it at {due:.9g} ({'start' if k == 0 else f'sample {k}'})")
    return errors[:3]


TURNING_GENERATORS = {"cam": _cam, "lever": _lever, "wheel": _wheel}
ROTATION_RELEASE_GENERATORS = {"slide": _slide_release, "lift": _lift_release, "latch": _latch_release}


# -- shifts along z ------------------------------------------------------------------------


@dataclass(frozen=True)
class PinCase:
    """A spring-loaded pin sliding under a plate (a shift along z, :mod:`cspace.spaces.layers`):
    where it rises into the first hole it fits (``rise``, None if none) and where that
    hole's far wall stops it (``stop``); the text of the mechanism."""

    text: str
    shape: str
    direction: int
    rise: float | None
    stop: float | None
    lift: float

    def __repr__(self) -> str:
        return f"PinCase({self.shape!r}, direction={self.direction}, rise={self.rise!r}, stop={self.stop!r})"


def pin(draw: Draw) -> PinCase:
    """A pin (a square or a disk, half-width 0.3 to 1) on an axis along x, pressed up along z
    by a spring (its travel 0.2 to 1.5, against a plate 1 thick over it) and driven either
    way under a plate with two or three holes, some narrower than the pin: it rises into
    the first it fits, as soon as it is wholly under it, and the hole's far wall stops it."""
    half = draw.number(0.3, 1.0)
    shape = draw.choice(("square", "disk"))
    lift = draw.number(0.2, 1.5)
    direction = 1 if draw.choice(("right", "left")) == "right" else -1
    holes, x = [], 2.0
    for _ in range(draw.integer(2, 3)):
        x += draw.number(1.0, 3.0)
        width = draw.number(0.5, 3.0) * half
        holes.append((x, x + width))
        x += width
    start = -3.0 if direction > 0 else x + 3.0
    fits = [h for h in (holes if direction > 0 else holes[::-1]) if h[1] - h[0] >= 2 * half + 1e-3]
    rise = stop = None
    if fits:
        lo, hi = fits[0]
        rise, stop = (lo + half, hi - half) if direction > 0 else (hi - half, lo + half)
    profile = (f"rect = [{-half}, {-half}, {half}, {half}]" if shape == "square"
               else f"circle = [0, 0], radius = {half}")
    plate = ", ".join([f'{{ name = "plate", rect = [-6, -4, {x + 6}, 4] }}'] +
                      [f'{{ name = "hole{k}", rect = [{lo}, -3, {hi}, 3] }}' for k, (lo, hi) in enumerate(holes)])
    time = abs((stop if stop is not None else (x + 4 if direction > 0 else -4)) - start) + 1.0
    text = (f"# generated by tests.support.fuzz: pin {shape}\n[mechanism]\nname = \"pin\"\ntime = {time:.3f}\n\n"
            f"[[parts]]\nname = \"frame\"\nmotion = \"fixed\"\n\n[[parts.slices]]\nz = [1, 2]\n"
            f"profiles = [{plate}]\n\n"
            f"[[parts]]\nname = \"pin\"\nmotion = \"fixed-axes\"\n"
            f"coordinates = [{{ name = \"x\", axis = [1, 0], initial = {start} }}, "
            f"{{ name = \"s\", axis = \"z\", limits = [0, {lift}] }}]\n\n"
            f"[[parts.slices]]\nz = [0, 1]\nprofiles = [{{ {profile} }}]\n\n"
            f"[[forces]]\nkind = \"spring\"\ncoordinate = \"s\"\ndirection = 1\n\n"
            f"[[inputs]]\nvelocities = {{ x = {direction} }}\nsampling = 0.25\n")
    return PinCase(text, shape, direction, rise, stop, lift)


def pin_errors(trace, case: PinCase) -> list[str]:
    """How a trace misses the pin's closed form: down (s = 0) until it is wholly under the
    first hole it fits, up (s = its travel) from there, stopped by that hole's far wall."""
    tolerance = trace.mechanism.tolerance
    near = tolerance.length + tolerance.arc  # a disk's flattened outline may stop it an arc short
    errors = []
    for time, _, (x, s) in trace.samples():
        before = case.rise is None or (x - case.rise) * case.direction < -near
        if before and s > tolerance.length:
            errors.append(f"the pin rose at x = {x:.6g}, before the hole it fits")
            break
        if not before and (x - case.rise) * case.direction > near and abs(s - case.lift) > tolerance.length:
            errors.append(f"the pin is at s = {s:.6g} past x = {case.rise:.6g}, inside the hole")
            break
    final = trace.samples()[-1][2] if trace.pieces else None
    if case.stop is not None and (final is None or abs(final[0] - case.stop) > near):
        where = "where it began" if final is None else f"at x = {final[0]:.6g}"
        errors.append(f"the pin ended {where}, not against the hole's wall at {case.stop:.6g}")
    if case.stop is not None and trace.end_reason != "input blocked":
        errors.append(f"the trace ended {trace.end_reason!r}, not blocked by the hole's wall")
    return errors


# -- nesting: islands in holes, holes in islands ------------------------------------------------


@dataclass(frozen=True)
class NestCase:
    """A part that must stop against the innermost material of a nest: a plate, a pocket
    in it (a hole), an island in the pocket (material again) and, three deep, a well in
    the island (a hole again, open at the island's face or closed inside it).

    ``kind`` is ``block`` (a block moves onto the fixed nest), ``nest`` (the nest moves
    onto a fixed block: its own island meets it) or ``cam`` (a disk turns, the nest in it:
    a slot, an off-centre circular island in the slot; a follower rides the island). For
    a translation ``final`` is where ``coordinate`` ends; for the cam the island (its
    ``centre`` and ``radius`` at th = 0) turns under a follower moving along ``axis``,
    whose face starts at ``face`` along it (:func:`nested_errors`)."""

    text: str
    kind: str
    depth: int
    coordinate: str
    final: float = 0.0
    centre: tuple[float, float] = (0.0, 0.0)
    axis: tuple[float, float] = (1.0, 0.0)
    radius: float = 0.0
    face: float = 0.0

    def __repr__(self) -> str:
        return f"NestCase({self.kind!r}, depth={self.depth}, final={self.final!r})"


def nested(draw: Draw) -> NestCase:
    """A nest three or four profiles deep (:class:`NestCase`), a translating block or nest
    (three in four) or a turning disk (:func:`_nested_cam`)."""
    if draw.integer(0, 3) == 0:
        return _nested_cam(draw)
    return _nested_block(draw)


def _nested_block(draw: Draw) -> NestCase:
    """Drawn upright, then turned a quarter turn 0-3 times: a pocket 20-32 wide (floor
    2-4 below the island), an island 6 or more wide with its top 4-10 above its bottom,
    in two of three cases a well in it 1.5-6 wide (open at the island's top, or closed
    inside it), and a block 0.8-3 wide and 1-3 tall, 0.5-5 above the island, at least half
    over it (often wholly over the well when it fits). The block falls (a spring along the
    axis) and lands on the island's top or the well's floor; or the nest rises onto the
    fixed block. Profiles are drawn either way round, in any order."""
    half = draw.number(10.0, 16.0)
    floor = round(-25.0 + draw.number(0.0, 3.0), 3)
    top = 15.0
    left, right = draw.number(-half + 2, -3.0), draw.number(3.0, half - 2)
    bottom = round(floor + draw.number(2.0, 4.0), 3)
    summit = round(bottom + draw.number(4.0, 10.0), 3)
    profiles = [("plate", (-half - 4, floor - 4, half + 4, top + 4)), ("pocket", (-half, floor, half, top)),
                ("island", (left, bottom, right, summit))]
    well = None
    if draw.integer(0, 2):
        width = min(draw.number(1.5, 6.0), right - left - 2)
        start = draw.number(left + 1, right - 1 - width)
        opening = draw.choice(("open", "closed"))
        depth = draw.number(1.0, summit - bottom - 1.5)
        well = (round(start, 3), round(summit - depth, 3), round(start + width, 3),
                summit if opening == "open" else round(summit - 0.5, 3))
        profiles.append(("well", well))
    width = draw.number(0.8, 3.0)
    into = well is not None and well[3] == summit and well[2] - well[0] >= width + 0.4 and draw.integer(0, 1)
    if into:
        x0 = draw.number(well[0] + 0.2, well[2] - 0.2 - width)
    else:
        x0 = draw.number(max(left - width / 2, -half + 0.2), min(right - width / 2, half - 0.2 - width))
        x0 = _clear(x0, width, [left, right] + ([well[0], well[2]] if well else []))
    x1 = round(x0 + width, 3)
    base = round(summit + draw.number(0.5, 5.0), 3)
    block = (x0, base, x1, round(base + draw.number(1.0, 3.0), 3))
    inside = well is not None and well[3] == summit and well[0] < x0 and x1 < well[2]
    travel = round(base - (well[1] if inside else summit), 3)
    turn = draw.integer(0, 3)
    kind = draw.choice(("block", "nest"))
    axis = _quarter((0.0, 1.0), turn)
    nest = [_rect_path(name, _quarter_box(box, turn), draw.choice(("ccw", "cw"))) for name, box in profiles]
    order = sorted(range(len(nest)), key=lambda k: (draw.integer(0, 99), k))
    nest = [nest[k] for k in order]
    piece = _rect_path(None, _quarter_box(block, turn), "ccw")
    coordinate = _translation("s", axis)
    if kind == "block":
        lines = _fixed("frame", nest) + _moving("block", [coordinate], [((0, 1), [piece])]) + _force("spring", "s", -1)
        final = -travel
    else:
        lines = _fixed("block", [piece]) + _moving("frame", [coordinate], [((0, 1), nest)]) + _force("spring", "s", 1)
        final = travel
    notes = [f"{kind} moves {_n(abs(final))} along {_p(axis)}: onto the "
             f"{'floor of the well' if inside else 'island'}"]
    text = _document("nested", f"{kind} {len(profiles)} deep", 5.0, lines, notes)
    return NestCase(text, kind, len(profiles), "s", final)


def _clear(x0: float, width: float, walls: list[float]) -> float:
    """``x0`` moved off any wall its block's sides would lie within 0.2 of (a side flush with
    a wall is a legal but needless degeneracy here)."""
    for wall in walls:
        for side in (x0, x0 + width):
            if abs(side - wall) < 0.2:
                x0 = round(x0 + (0.4 if side <= wall else -0.4), 3)
    return x0


def _quarter(point, turns: int) -> tuple[float, float]:
    x, y = point
    for _ in range(turns % 4):
        x, y = -y, x
    return (x, y)


def _quarter_box(box, turns: int) -> list[tuple[float, float]]:
    """The box's corners (counterclockwise from its lower left) turned a quarter ``turns`` times."""
    x0, y0, x1, y1 = box
    return [_quarter(p, turns) for p in ((x0, y0), (x1, y0), (x1, y1), (x0, y1))]


def _rect_path(name: str | None, corners: list, way: str) -> str:
    return _path_text(corners if way == "ccw" else corners[::-1], name, 3)


def _nested_cam(draw: Draw) -> NestCase:
    """A disk turning about the origin: a rim (radius 12-15), a slot in it (a hole about the
    pivot, 1-3 narrower), an island in the slot (a circle of radius 2.5-5, its centre
    0.3-2 off the pivot) and, in half the cases, a bore in the island (a hole again, that
    nothing meets). A flat-faced follower 1.5-2.5 each side of its axis (along any
    direction) starts 0.05 (``GAP``) off the island and is pushed onto it by a spring; the
    disk turns a quarter to a whole turn either way. Its face rides the island: at disk
    angle th the face is at ``R(th) c . u + r`` along the axis ``u``."""
    rim = draw.number(12.0, 15.0)
    slot = rim - draw.number(1.0, 3.0)
    radius = draw.number(2.5, 5.0)
    offset = draw.number(0.3, 2.0)
    centre = offset * _unit(draw.number(-math.pi, math.pi))
    axis = _unit(draw.number(-math.pi, math.pi))
    across = draw.number(max(1.5, offset + 0.3), 2.5)
    face = float(centre @ axis) + radius + GAP
    length = min(draw.number(1.0, 3.0), math.sqrt((slot - 0.5) ** 2 - across ** 2) - (offset + radius + GAP))
    corners = [face * axis + a * _perp(axis) + b * axis for a, b in
               ((-across, 0.0), (across, 0.0), (across, length), (-across, length))]
    disk = [f'{{ name = "rim", circle = [0, 0], radius = {_n(rim)} }}',
            f'{{ name = "slot", circle = [0, 0], radius = {_n(slot)} }}',
            f'{{ name = "island", circle = {_p(centre)}, radius = {_n(radius)} }}']
    if draw.integer(0, 1):
        disk.append(f'{{ name = "bore", circle = {_p(centre)}, radius = {_n(radius / 3)} }}')
    turn = draw.number(math.pi / 2, TURN) * (1 if draw.choice(("ccw", "cw")) == "ccw" else -1)
    lines = (_moving("disk", [_rotation("th", (0.0, 0.0))], [((0, 1), disk)])
             + _moving("follower", [_translation("s", axis)], [((0, 1), [_path_text(corners)])])
             + _force("spring", "s", -1) + _inputs([("disk turns", {"th": 1.0 if turn > 0 else -1.0}, 0.25)]))
    text = _document("nested", f"cam {len(disk)} deep", abs(turn), lines,
                     [f"the follower's face rides the island: R(th) {_p(centre)} . {_p(axis)} + {_n(radius)}"])
    return NestCase(text, "cam", len(disk), "s", centre=(float(centre[0]), float(centre[1])),
                    axis=(float(axis[0]), float(axis[1])), radius=radius, face=face)


def nested_errors(trace, case: NestCase) -> list[str]:
    """How a trace misses a :class:`NestCase`'s closed form: a translation must end where it
    lands on the innermost material (within ten length tolerances); a follower's face must
    ride the turning island at every sample once it has landed (within twice the arc
    tolerance: the island is flattened outward)."""
    mechanism = trace.mechanism
    tolerance = mechanism.tolerance
    j = mechanism.coordinate_index[case.coordinate]
    if case.kind != "cam":
        final = trace.segments[-1].finish if trace.segments else None
        got = float(final[j]) if final is not None else 0.0
        if abs(got - case.final) > 10 * tolerance.length:
            return [f"{case.coordinate} ends at {got:.9g}, due at {case.final:.9g} (on the innermost material)"]
        return []
    th_index = mechanism.coordinate_index["th"]
    centre, axis = np.array(case.centre), np.array(case.axis)
    errors = []
    for time, _, q in trace.samples():
        th = float(q[th_index])
        if th == 0.0:
            continue
        due = float(_turned(centre, th) @ axis) + case.radius - case.face
        if abs(float(q[j]) - due) > 2 * tolerance.arc:
            errors.append(f"at t = {time:.6g} (th = {th:.6g}) the follower is at s = {float(q[j]):.9g}, "
                          f"due at {due:.9g} on the island")
            break
    return errors


# -- metamorphic checks: changes that cannot change what a mechanism does ------------------------
#
# Each generated mechanism, traced, is changed in ways that must leave its behaviour alone,
# and traced again: (a) geometry nothing can meet added (:func:`unreachable`): the same
# description, to the byte; (b) random [tolerance] settings, traced with the pair-space
# cache on (each setting's spaces stored, then read back) and off: the same --json; (c)
# the whole mechanism scaled and moved: the same behaviour, times and scaled positions;
# (d) drawn with every force-loaded part touching what it will rest on, and drawn a
# tenth of the length tolerance apart (:func:`drawn_touching`): the same behaviour.

METAMORPHIC = ("unreachable", "cache", "scaled", "touching")
TOLERANCES = {"length": (1e-8, 1e-6), "arc": (3e-5, 3e-4)}  # log-uniform ranges of the factors drawn


def metamorphic_errors(mechanism: Mechanism, result, seed: int, checks: Sequence[str] = METAMORPHIC) -> list[str]:
    """How the mechanism's trace ``result`` changes where it must not, one line per check
    failed (see the comment above); ``seed`` draws the tolerance settings, the scale and
    the move."""
    from cspace.report.describe import describe
    from cspace.testing import replay
    from cspace.tracing.analysis import analyze
    from cspace.tracing.tracer import trace

    chance = random.Random(seed)
    errors = []
    if "unreachable" in checks and describe(trace(analyze(unreachable(mechanism)))) != describe(result):
        errors.append("(a) geometry nothing meets changed the description")
    if "cache" in checks:
        errors += _cache_errors(mechanism, chance)
    if "scaled" in checks:
        scale = 10.0 ** chance.choice((-6, -3, 3))
        offset = tuple(chance.uniform(-100, 100) * mechanism.size * scale for _ in range(2))
        other = trace(analyze(moved(mechanism, offset, scale)))
        errors += [f"(c) scaled by {scale:g} and moved: {e}" for e in _behaviour_errors(result, other, scale)]
    if "touching" in checks:
        touching = drawn_touching(mechanism)
        if touching is not mechanism:
            apart = drawn_touching(mechanism, apart=0.1 * mechanism.tolerance.length)
            first, second = trace(analyze(touching)), trace(analyze(apart))
            errors += [f"(d) drawn touching and a tenth of the length tolerance apart: {e}"
                       for e in _behaviour_errors(first, second, 1.0)]
            errors += [f"(d) drawn touching: {v}" for v in replay(first)]
    return errors


def _cache_errors(mechanism: Mechanism, chance: random.Random) -> list[str]:
    """(b): two random [tolerance] settings, traced with the cache on (the first setting
    again last, to read its own entries back) and off; every --json must agree."""
    from cspace.report.describe import to_json
    from cspace.tracing.analysis import analyze
    from cspace.tracing.tracer import trace

    from .oracles import cached_and_uncached

    settings = [tuple((name, 10.0 ** chance.uniform(math.log10(lo), math.log10(hi)))
                      for name, (lo, hi) in TOLERANCES.items()) for _ in range(2)]
    variants = [replace(mechanism, tolerance_factors=s) for s in settings + settings[:1]]
    pairs = cached_and_uncached(variants, lambda m: to_json(trace(analyze(m))))
    return [f"(b) the cache changed the answer under [tolerance] {dict(s)}"
            for s, (cached, uncached) in zip(settings + settings[:1], pairs) if cached != uncached]


def behaviour(result) -> list[tuple]:
    """Each segment's driving motions and relations, contacts (a stop by coordinate and side),
    signs and end (the value of a limit reached left out): what a mechanism does, whatever
    its size and units."""
    from cspace.tracing.layout import Stop

    return [(s.first.roots, s.first.lines, tuple(sorted(f"{c.coordinate} at {c.side} limit" if isinstance(c, Stop)
                                                        else str(c) for c in s.first.contacts)), s.first.signs,
             re.sub(r"(limit) \S+?(;|$)", r"\1\2", s.end)) for s in result.segments]


def _behaviour_errors(first, second, scale: float) -> list[str]:
    """How ``second`` (the mechanism scaled by ``scale``) does other than ``first``: its
    behaviour, its segments' end times (within the velocity tolerance's share of the
    allotment) and its final configuration (lengths scaled; within the length tolerance)."""
    mechanism = first.mechanism
    if behaviour(second) != behaviour(first):
        count = next((k for k, (a, b) in enumerate(zip(behaviour(first), behaviour(second))) if a != b),
                     min(len(first.segments), len(second.segments)))
        return [f"behaves otherwise from segment {count + 1} ({len(first.segments)} and {len(second.segments)} "
                "segments)"]
    errors = []
    allotment = max(mechanism.time, NOISE)
    apart = max((abs(a.end_time - b.end_time) for a, b in zip(first.segments, second.segments)), default=0.0)
    if apart > 1e-4 * allotment:
        errors.append(f"a segment ends {apart:.3g} s apart")
    if first.segments:
        angle = np.array([c.is_angle for c in mechanism.coordinates])
        unit = np.where(angle, mechanism.tolerance.angle / mechanism.tolerance.length * mechanism.size, scale)
        expected = np.where(angle, first.segments[-1].finish, first.segments[-1].finish * scale)
        off = float(np.max(np.abs(second.segments[-1].finish - expected) / unit))
        if off > 10 * mechanism.tolerance.length + mechanism.tolerance.arc:
            errors.append(f"ends {off:.3g} away (in lengths at the original size)")
    return errors


def drawn_touching(mechanism: Mechanism, apart: float = 0.0) -> Mechanism:
    """The mechanism with each force-loaded coordinate no input drives moved along its force
    until its part's real shape touches another's (then ``apart`` back, a length, an angle
    as the length its reach moves), by bisection on the shapes' overlap; the mechanism
    itself when nothing moves. Parts resting on parts are settled in turn, twice round.
    """
    from cspace.model.checks import overlap_depth, posed
    from cspace.model.poses import initial_values

    driven = {name for motion in mechanism.inputs for name, _ in motion.velocities}
    members = {c for linkage in mechanism.linkages for c in (linkage.input, linkage.output)}
    forces = [f for f in mechanism.forces if f.coordinate not in driven | members]
    values = initial_values(mechanism)
    tolerance = mechanism.tolerance
    moved_any = False
    for _ in range(2):
        for force in forces:
            coordinate = mechanism.coordinate(force.coordinate)
            part = mechanism.part(coordinate.part)
            reach = _reach_of(mechanism, part) if coordinate.is_angle else 1.0

            def overlaps(value: float) -> bool:
                at = {**values, coordinate.name: value}
                return any(overlap_depth(posed(mechanism, part, i, at), posed(mechanism, other, j, at),
                                         tolerance.quantum) > 0
                           for other in mechanism.parts if other is not part and other.motion != Motion.LINKAGE
                           for i, s in enumerate(part.slices) for j, t in enumerate(other.slices)
                           if s.z[0] < t.z[1] and t.z[0] < s.z[1])

            start = values[coordinate.name]
            step = force.direction * mechanism.size / reach
            if coordinate.limits is not None:
                bound = coordinate.limits[1] if force.direction > 0 else coordinate.limits[0]
                step = bound - start if abs(bound - start) < abs(step) else step
            if not step or not overlaps(start + step):
                continue  # nothing met within a size, or first its own limit
            free, met = 0.0, 1.0
            while (met - free) * abs(step) * reach > 1e-3 * tolerance.length:
                middle = (free + met) / 2
                free, met = (free, middle) if overlaps(start + middle * step) else (middle, met)
            touching = start + free * step - force.direction * apart / reach
            if abs(touching - start) * reach > tolerance.length:
                values[coordinate.name] = touching
                moved_any = True
    if not moved_any:
        return mechanism
    return replace(mechanism, coordinates=tuple(replace(c, initial=values[c.name]) if c.name in values else c
                                                for c in mechanism.coordinates))


def _reach_of(mechanism: Mechanism, part: Part) -> float:
    """How far the part's material reaches from its pivot: the length per radian of its turn."""
    pivot = next(mechanism.coordinate(c).pivot for c in part.coordinates if mechanism.coordinate(c).is_angle)
    material = shapely.union_all([region_of(s.profiles) for s in part.slices])
    return max(float(shapely.Point(pivot).hausdorff_distance(material)), mechanism.tolerance.length)


# -- sticky patches: grips across faces ----------------------------------------------------


@dataclass(frozen=True)
class PatchCase:
    """A slider under gravity on a table whose top is a run of collinear faces, some sticky:
    it must stop where sticky material of its bottom first meets sticky material of the top
    along its way (at once if it already lies on some), or at the far wall: ``final`` for
    its ``coordinate`` and, driven by an input, the ``time`` the input is blocked there."""

    text: str
    kind: str
    coordinate: str
    final: float
    time: float | None  # None: a spring drives it (a motion of no duration)

    def __repr__(self) -> str:
        return f"PatchCase({self.kind!r}, final={self.final!r}, time={self.time!r})"


def patch(draw: Draw) -> PatchCase:
    """A table whose top is 2-5 stretches 1-6 long (each sticky or smooth, at least one
    sticky) between smooth ends and walls, drawn as one profile per stretch (their tops
    meeting at corners) or as one path (collinear faces); a slider 1-4 wide resting on it,
    its bottom sticky whole or split in two collinear faces one of which is sticky, starting
    anywhere between the walls and driven either way by an input or a spring. The contacts
    on the way name corners and several faces on both sides; the slider must stop where
    sticky first meets sticky (:func:`patch_errors`)."""
    widths = [draw.number(1.0, 6.0) for _ in range(draw.integer(2, 5))]
    sticky = [draw.choice(("sticky", "smooth")) == "sticky" for _ in widths]
    sticky[draw.integer(0, len(widths) - 1)] = True
    edges = [10.0]
    for w in widths:
        edges.append(round(edges[-1] + w, 3))
    left, right = 0.0, round(edges[-1] + 10.0, 3)
    table = draw.choice(("profiles", "path"))
    width, height = draw.number(1.0, 4.0), draw.number(0.5, 2.0)
    split = draw.choice(("whole", "split"))
    if split == "whole":
        slider, reach = f'{{ rect = [0, 0, {width}, {height}], sticky = ["bottom"] }}', (0.0, width)
    else:
        cut = round(width * draw.number(0.2, 0.8), 3)
        first = draw.choice(("b1", "b2"))
        slider = (f'{{ path = [[0, 0], [{cut}, 0], [{width}, 0], [{width}, {height}], [0, {height}], [0, 0]], '
                  f'faces = ["b1", "b2", "right", "top", "left"], sticky = ["{first}"] }}')
        reach = (0.0, cut) if first == "b1" else (cut, width)
    x0 = round(draw.number(left + 1.0, right - 1.0 - width), 3)
    rate = 1 if draw.choice(("right", "left")) == "right" else -1
    drive = draw.choice(("input", "spring"))
    final = _patch_stop([(a, b) for a, b, s in zip(edges, edges[1:], sticky) if s], reach, x0, rate,
                        (left + 1.0, right - 1.0 - width))
    lines = [_header("patch", f"{table} table, {split} bottom, {drive}"),
             f"[mechanism]\ntime = {right + 2.0}\n"]
    lines += _patch_table(table, edges, sticky, left, right)
    lines += _part("slider", [("xs", (1, 0), x0), ("ys", (0, 1), 0.0)], slider)
    lines += _gravity("ys")
    if drive == "input":
        lines.append(_input({"xs": float(rate)}, 0.5))
    else:
        lines += ["[[forces]]", 'kind = "spring"', 'coordinate = "xs"', f"direction = {rate}", ""]
    kind = f"{table}-{split}-{drive}"
    return PatchCase("\n".join(lines) + "\n", kind, "xs", final, abs(final - x0) if drive == "input" else None)


def _patch_table(kind: str, edges: list[float], sticky: list[bool], left: float, right: float) -> list[str]:
    """The frame: the table from ``left`` to ``right`` (top at y = 0), its stretches between
    ``edges`` sticky as flagged, and a wall standing on each end."""
    walls = [f'{{ name = "left-wall", rect = [{left}, 0, {left + 1.0}, 4] }}',
             f'{{ name = "right-wall", rect = [{right - 1.0}, 0, {right}, 4] }}']
    if kind == "profiles":
        cuts, flags = [left] + edges + [right], [False] + sticky + [False]
        marks = [', sticky = ["top"]' if flag else "" for flag in flags]
        profiles = [f'{{ name = "s{k}", rect = [{a}, -2, {b}, 0]{mark} }}'
                    for k, (a, b, mark) in enumerate(zip(cuts, cuts[1:], marks))]
    else:
        tops = [right] + edges[::-1] + [left]  # the top runs right to left, counterclockwise
        names = [f"s{k}" for k in range(len(edges), -1, -1)]
        flags = [False] + sticky[::-1] + [False]
        points = [[left, -2], [right, -2]] + [[x, 0] for x in tops] + [[left, -2]]
        faces = ", ".join(f'"{name}"' for name in ["bottom", "right"] + names + ["left"])
        marked = ", ".join(f'"{name}"' for name, flag in zip(names, flags) if flag)
        profiles = [f'{{ name = "table", path = {points}, faces = [{faces}], sticky = [{marked}] }}']
    return ["[[parts]]", 'name = "frame"', 'motion = "fixed"', "[[parts.slices]]", "z = [0, 1]",
            "profiles = [" + ", ".join(profiles + walls) + "]", ""]


def _patch_stop(patches: list[tuple[float, float]], reach: tuple[float, float], x0: float, rate: int,
                travel: tuple[float, float]) -> float:
    """Where a slider whose sticky bottom spans ``reach`` (from its reference x), starting at
    ``x0`` and moving the way of ``rate``, stops: where its sticky stretch first meets a
    sticky patch ahead (at once if it overlaps one, or meets one end to end the way it
    goes), else at the end of its ``travel``. Adjacent patches are one."""
    merged: list[list[float]] = []
    for a, b in patches:
        if merged and abs(merged[-1][1] - a) <= NOISE * max(1.0, abs(a)):
            merged[-1][1] = b
        else:
            merged.append([a, b])
    lo, hi = reach
    if rate > 0:
        ahead = [max(x0, a - hi) for a, b in merged if b > x0 + lo]
        return min(ahead + [travel[1]])
    behind = [min(x0, b - lo) for a, b in merged if a < x0 + hi]
    return max(behind + [travel[0]])


def patch_errors(trace, case: PatchCase) -> list[str]:
    """How a trace misses a :class:`PatchCase`: the slider must end at ``final`` (within ten
    length tolerances) having never passed it, resting on the table, and an input must be
    blocked there at ``time``."""
    mechanism = trace.mechanism
    tolerance = mechanism.tolerance
    j = mechanism.coordinate_index[case.coordinate]
    x0 = mechanism.coordinate(case.coordinate).initial
    end = float(trace.segments[-1].finish[j]) if trace.segments else x0
    errors = []
    if abs(end - case.final) > 10 * tolerance.length:
        errors.append(f"{case.coordinate} ends at {end:.9g}, due to stop at {case.final:.9g}")
    passed = [float(q[j]) for _, _, q in trace.samples() if (q[j] - case.final) * (case.final - x0) > 10 * tolerance.length]
    if passed:
        errors.append(f"{case.coordinate} passes {case.final:.9g} (reaches {passed[0]:.9g})")
    if case.time is not None:
        if trace.end_reason != "input blocked":
            errors.append(f"the input is not blocked ({trace.end_reason})")
        elif trace.segments and abs(trace.segments[-1].end_time - case.time) > 10 * tolerance.length:
            errors.append(f"the input is blocked at t = {trace.segments[-1].end_time:.9g}, due at {case.time:.9g}")
    return errors
