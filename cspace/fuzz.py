"""Random well-posed mechanisms, as TOML text, for property tests and the fuzz report.

Three families: a *stack* of blocks resting on a piston that slides out from under it
(driven directly or by a crank-slider), optionally inside a magazine that fits the
widest block exactly; a *row* of blocks on a table gathered by a pusher, optionally
against a stop wall (blocks are rectangles, convex polygons, L shapes, rounded
rectangles (arcs) or half disks (an arc on top), all under gravity); and a *release*,
a force-loaded part held by something that goes away (:mod:`cspace.releases`: gates,
stops retracting askew, shelves, ramps), with its closed-form release time and end.

Every random choice goes through a :class:`Draw`, so hypothesis can drive the same
generator (and shrink its failures) as a seeded generator does in ``tools/fuzz_report.py``.

>>> text = mechanism(SeededDraw(3))
>>> text.startswith("# generated")
True
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Protocol

from .geometry import Arc, Line, Profile
from .model import LINKAGE, Mechanism
from .releases import ReleaseCase, release


class Draw(Protocol):
    """The random choices a generator makes."""

    def integer(self, low: int, high: int) -> int: ...

    def number(self, low: float, high: float) -> float: ...

    def choice(self, options: Sequence[str]) -> str: ...


class SeededDraw:
    """Draws from Python's seeded generator: the same seed gives the same mechanism."""

    def __init__(self, seed: int) -> None:
        self._random = random.Random(seed)
        self.seed = seed

    def integer(self, low: int, high: int) -> int:
        return self._random.randint(low, high)

    def number(self, low: float, high: float) -> float:
        return round(self._random.uniform(low, high), 3)

    def choice(self, options: Sequence[str]) -> str:
        return options[self._random.randrange(len(options))]

    def __repr__(self) -> str:
        return f"SeededDraw({self.seed})"


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
        "a 100 MB file": (b"# padding\n" * (10 * 1024 * 1024), "file is 104.9 MB; mechanism files are limited to 4 MB"),
        "10,000 parts": (many_parts.encode(), "10000 parts; at most 500 are supported"),
        "a profile of 50,000 faces": (saw.encode(), "the mechanism has more than 20000 faces"),
        "deep nesting": (("x = " + "{ a = " * 100_000 + "1" + " }" * 100_000).encode(),
                         "invalid TOML: nested too deeply"),
    }


FAMILIES = ("stack", "row", "release")


@dataclass(frozen=True)
class Generated:
    """A generated mechanism: its family, its text, and for a release its closed-form outcome."""

    family: str
    text: str
    expected: ReleaseCase | None = None

    def __repr__(self) -> str:
        return f"Generated({self.family!r}, {self.expected!r})"


def generate(draw: Draw) -> Generated:
    """A random mechanism of any family (see the module docstring and :mod:`cspace.releases`)."""
    family = draw.choice(FAMILIES)
    if family == "release":
        case = release(draw)
        return Generated(f"release:{case.kind}", case.text, case)
    return Generated(family, stack(draw) if family == "stack" else row(draw))


def mechanism(draw: Draw) -> str:
    """The text of a random mechanism of any family."""
    return generate(draw).text


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
    lines += _frame(x0, width, piston_height, magazine=draw.choice(("magazine", "open")) == "magazine",
                    wall=None)
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
    lines.insert(1, f"[mechanism]\ntime = {round(x + 6.0, 3)}\n")
    return "\n".join(lines) + "\n"


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
    return f"# generated by cspace.fuzz: {family}, {drive}"


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

    Lengths scale (profiles, pivots, joint points, translations' initial values, limits,
    input velocities and force speeds), so every event happens at the same time and
    every translation coordinate is ``scale`` times its old value; angles are unchanged.
    The offset moves only the drawing: coordinates are displacements from it. Linkage
    members are drawn in their own frames, so only scale applies to them.

    >>> from cspace.loader import load
    >>> far = moved(load("fixtures/pusher.toml"), offset=(1e6, -1e6), scale=10)
    >>> far.part("a").slices[0].profiles[0].elements[0].start, far.coordinate("xa").initial
    ((1000000.0, -1000000.0), 50.0)
    """
    members = {p.name for p in mechanism.parts if p.motion == LINKAGE}

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

    parts = tuple(replace(part, slices=tuple(replace(s, profiles=tuple(profile(p, part.name in members)
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
