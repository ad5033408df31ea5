"""Generated mechanisms where a force-loaded part is held by something that goes away.

The class of bug these exist for: a part left pressed against a face that has moved
out of its way. Each generator draws one kind of release and says, in closed form,
when the held part must start to move and where everything must end:

In every case the held coordinate's first free motion (an external segment in which
it moves) starts at ``release``.

* ``gate``: a spring pushes a block against a gate that lifts; sampled in steps far
  longer than the time to release, or so that the release falls exactly on a sample;
* ``diagonal``: the stop retracts along a slanted axis, so the block follows it (the
  spring keeps it pressed on) until the stop's bottom clears its top;
* ``steps``: the gate opens in two input motions: it slides to a stop, the block
  following, then lifts;
* ``shelf``: a block under gravity rests on a shelf that slides out sideways; it
  drops to the floor;
* ``ramp``: a block under gravity on a 3-4-5 ramp, held at its top corner by a finger
  that lifts; it slides down to the lip at the ramp's foot;
* ``slanted``: a spring along the ramp's direction holds a block against a stop that
  retracts along the ramp's normal; it slides up to the end wall.

Numbers have at most three decimals and contacts start exact, so every case is well
posed. Every random choice goes through a :class:`tests.support.draws.Draw`.

>>> from tests.support.draws import SeededDraw
>>> case = release(SeededDraw(1))
>>> case.kind in KINDS and case.release > 0
True
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .draws import Draw

KINDS = ("gate", "diagonal", "steps", "shelf", "ramp", "slanted")
U = (0.8, 0.6)  # up the 3-4-5 ramp
N = (-0.6, 0.8)  # its normal


@dataclass(frozen=True)
class ReleaseCase:
    """A generated mechanism and its closed-form outcome: the held coordinate ``held``
    starts to move at time ``release``; at the end every coordinate in ``final`` has
    that value."""

    kind: str
    text: str
    held: str
    release: float
    final: dict[str, float]

    def __repr__(self) -> str:
        return f"ReleaseCase({self.kind!r}, held={self.held!r}, release={self.release:g})"


def release(draw: Draw) -> ReleaseCase:
    """One release case of a kind drawn at random."""
    kind = draw.choice(KINDS)
    return GENERATORS[kind](draw)


def gate(draw: Draw) -> ReleaseCase:
    """A spring-loaded block on a table against a gate that lifts at speed v; the wall stops it."""
    w, h = draw.number(1.0, 3.0), draw.number(0.5, 2.0)
    v = draw.choice(("0.5", "1", "2"))
    wall = round(w + 1 + draw.number(0.5, 8.0), 3)
    release_time = h / float(v)
    if draw.choice(("long step", "on a sample")) == "long step":
        sampling = round(release_time * draw.number(2.0, 6.0), 3)  # the release falls inside one step
    else:
        sampling = release_time / draw.integer(1, 4)  # the release falls exactly on a sample
    lines = _frame(wall) + _block(("xb", (1, 0), 0.0), w, h) + _force("spring", "xb", 1)
    lines += _rect_part("gate", [("yg", (0, 1), 0.0, None)], (w, 0, w + 1, h + 3))
    lines += _input({"yg": v}, repr(sampling))
    time = round(release_time + 1.0, 3)
    return ReleaseCase("gate", _text("gate", time, lines), "xb", release_time,
                       {"xb": wall - w, "yg": float(v) * time})


def diagonal(draw: Draw) -> ReleaseCase:
    """The stop retracts up and away along a slanted axis; the block follows it until the stop's
    bottom clears its top, then goes to the wall."""
    w, h = draw.number(1.0, 3.0), draw.number(0.5, 2.0)
    ax, ay = draw.integer(1, 3), draw.integer(1, 3)
    norm = math.hypot(ax, ay)
    wall = round(w + 1 + draw.number(4.0, 10.0), 3)
    release_time = h * norm / ay  # the stop's bottom rises ay / norm per unit time
    followed = ax / norm * release_time
    lines = _frame(wall) + _block(("xb", (1, 0), 0.0), w, h) + _force("spring", "xb", 1)
    lines += _rect_part("stop", [("s", (ax, ay), 0.0, None)], (w, 0, w + 1, h + 3))
    lines += _input({"s": "1"}, "0.25")
    time = round(release_time + 0.5, 3)
    if followed >= wall - w:
        return diagonal(draw)  # the block would reach the wall before the stop clears it
    return ReleaseCase("diagonal", _text("diagonal", time, lines), "xb", release_time, {"xb": wall - w, "s": time})


def steps(draw: Draw) -> ReleaseCase:
    """The gate slides right to its stop (the block follows), then lifts until it clears."""
    w, h = draw.number(1.0, 3.0), draw.number(0.5, 2.0)
    slide = draw.number(0.5, 2.0)
    wall = round(w + slide + 1 + draw.number(1.0, 6.0), 3)
    release_time = slide + h  # both inputs at speed 1
    lines = _frame(wall) + _block(("xb", (1, 0), 0.0), w, h) + _force("spring", "xb", 1)
    lines += _rect_part("gate", [("xg", (1, 0), 0.0, (0, slide)), ("yg", (0, 1), 0.0, None)],
                        (w, 0, w + 1, h + 3))
    lines += _input({"xg": "1"}, "0.5") + _input({"yg": "1"}, "0.5")
    time = round(release_time + 0.5, 3)
    return ReleaseCase("steps", _text("steps", time, lines), "xb", release_time,
                       {"xb": wall - w, "xg": slide, "yg": time - slide})


def shelf(draw: Draw) -> ReleaseCase:
    """A block resting on a shelf that slides out sideways, left or right; it drops to the floor."""
    w, h = draw.number(1.0, 3.0), draw.number(0.5, 2.0)
    overlap = draw.number(0.2, w)  # how much of the block's bottom the shelf holds
    drop = draw.number(1.0, 3.0)  # from the shelf's top (y = 0) to the floor, below the shelf
    way = draw.choice(("left", "right"))
    length = round(overlap + draw.number(1.0, 4.0), 3)
    # The shelf's edge under the block; it slides away from the block.
    x0 = round(w - overlap, 3) if way == "right" else round(overlap - length, 3)
    speed = "1" if way == "right" else "-1"
    lines = _frame(None, floor=-drop - 2)
    lines += _block(("xb", (1, 0), 0.0), w, h, gravity_y=0.0)
    lines += _rect_part("shelf", [("xs", (1, 0), 0.0, None)], (x0, -0.5, round(x0 + length, 3), 0))
    lines += _input({"xs": speed}, "0.5")
    release_time = overlap
    time = round(release_time + 1.0, 3)
    return ReleaseCase("shelf", _text("shelf", time, lines), "yb", release_time,
                       {"xb": 0.0, "yb": -drop, "xs": time * float(speed)})


def ramp(draw: Draw) -> ReleaseCase:
    """A block on a 3-4-5 ramp, its downhill top corner held by a vertical finger that lifts."""
    s = draw.integer(1, 3)  # the block's side
    t0 = draw.integer(s + 4, s + 9)  # where its downhill face is, along the ramp
    lip = draw.integer(1, 3)  # where the lip's uphill face is, along the ramp
    gap = draw.number(0.05, 1.25 * s - 0.05)  # the finger's bottom below the corner it holds
    corner = _along(t0, s)
    top = _along(t0 + s, 0)
    lines = ["[[parts]]", 'name = "frame"', 'motion = "fixed"', "[[parts.slices]]", "z = [0, 1]",
             "profiles = [" + ", ".join([
                 _path([(0, 0), (top[0] + 8, 0), (top[0] + 8, 0.75 * (top[0] + 8))], "ramp"),
                 _path([_along(lip - 1, 0), _along(lip, 0), _along(lip, 2), _along(lip - 1, 2)], "lip"),
                 '{ name = "floor", rect = [-30, -2, 60, 0] }']) + "]", ""]
    block = [_along(t0, 0), _along(t0 + s, 0), _along(t0 + s, s), _along(t0, s)]
    lines += _part_lines("block", [("xb", (1, 0), 0.0, None), ("yb", (0, 1), 0.0, None)], _path(block))
    lines += _force("gravity", "yb", -1)
    finger = (round(corner[0] - 1, 3), round(corner[1] - gap, 3), corner[0], round(corner[1] + 3, 3))
    lines += _rect_part("finger", [("f", (0, 1), 0.0, None)], finger)
    lines += _input({"f": "1"}, "0.25")
    release_time = gap
    travel = t0 - lip
    time = round(release_time + 0.5, 3)
    return ReleaseCase("ramp", _text("ramp", time, lines), "yb", release_time,
                       {"xb": -U[0] * travel, "yb": -U[1] * travel, "f": time})


def slanted(draw: Draw) -> ReleaseCase:
    """A spring along the ramp's direction holds a block against a stop that retracts along
    the ramp's normal; it slides up to the end wall."""
    s = draw.integer(1, 3)
    t0 = draw.integer(1, 4)
    end = draw.integer(t0 + s + 2, t0 + s + 8)  # the end wall's downhill face, along the ramp
    lines = ["[[parts]]", 'name = "frame"', 'motion = "fixed"', "[[parts.slices]]", "z = [0, 1]",
             "profiles = [" + ", ".join([
                 _path([_along(-2, 0), _along(end + 2, 0), _along(end + 2, -1), _along(-2, -1)], "ramp"),
                 _path([_along(end, 0), _along(end + 1, 0), _along(end + 1, s + 2), _along(end, s + 2)], "end")])
             + "]", ""]
    block = [_along(t0, 0), _along(t0 + s, 0), _along(t0 + s, s), _along(t0, s)]
    lines += _part_lines("block", [("b", U, 0.0, None)], _path(block))
    lines += _force("spring", "b", 1)
    stop = [_along(t0 + s, 0), _along(t0 + s + 1, 0), _along(t0 + s + 1, s + 3), _along(t0 + s, s + 3)]
    lines += _part_lines("stop", [("r", N, 0.0, None)], _path(stop))
    lines += _input({"r": "1"}, "0.25")
    release_time = float(s)
    time = round(release_time + 0.5, 3)
    return ReleaseCase("slanted", _text("slanted", time, lines), "b", release_time,
                       {"b": float(end - t0 - s), "r": time})


GENERATORS = {"gate": gate, "diagonal": diagonal, "steps": steps, "shelf": shelf, "ramp": ramp,
              "slanted": slanted}


def _along(t: float, h: float) -> tuple[float, float]:
    """The point t along the 3-4-5 ramp and h above it (exact in three decimals)."""
    return (round(t * U[0] + h * N[0], 3), round(t * U[1] + h * N[1], 3))


def _text(kind: str, time: float, lines: list[str]) -> str:
    return f"# generated by tests.support.releases: {kind}\n[mechanism]\ntime = {time}\n\n" + "\n".join(lines) + "\n"


def _frame(wall: float | None, floor: float = -2) -> list[str]:
    profiles = [f'{{ name = "table", rect = [-30, {floor}, 60, {floor + 2}] }}']
    if wall is not None:
        profiles.append(f'{{ name = "wall", rect = [{wall}, 0, {round(wall + 2, 3)}, 8] }}')
    return ["[[parts]]", 'name = "frame"', 'motion = "fixed"', "[[parts.slices]]", "z = [0, 1]",
            "profiles = [" + ", ".join(profiles) + "]", ""]


def _block(coordinate: tuple, w: float, h: float, gravity_y: float | None = None) -> list[str]:
    """A w x h block drawn at the origin; with ``gravity_y`` it also has y and gravity on it."""
    coordinates = [coordinate + (None,)]
    if gravity_y is not None:
        coordinates.append(("yb", (0, 1), gravity_y, None))
    lines = _rect_part("block", coordinates, (0, 0, w, h))
    return lines + (_force("gravity", "yb", -1) if gravity_y is not None else [])


def _rect_part(name: str, coordinates: list, rect: tuple) -> list[str]:
    return _part_lines(name, coordinates, "{ rect = [" + ", ".join(repr(round(v, 3)) for v in rect) + "] }")


def _part_lines(name: str, coordinates: list, profile: str) -> list[str]:
    entries = []
    for c, axis, initial, limits in coordinates:
        limit = f", limits = [{limits[0]}, {limits[1]}]" if limits else ""
        entries.append(f'{{ name = "{c}", axis = [{axis[0]}, {axis[1]}], initial = {initial}{limit} }}')
    return ["[[parts]]", f'name = "{name}"', 'motion = "fixed-axes"', f"coordinates = [{', '.join(entries)}]",
            "[[parts.slices]]", "z = [0, 1]", f"profiles = [{profile}]", ""]


def _path(points: list[tuple[float, float]], name: str | None = None) -> str:
    closed = [list(p) for p in points] + [list(points[0])]
    label = f'name = "{name}", ' if name else ""
    return f"{{ {label}path = {closed} }}"


def _force(kind: str, coordinate: str, direction: int) -> list[str]:
    return ["[[forces]]", f'kind = "{kind}"', f'coordinate = "{coordinate}"', f"direction = {direction}",
            "sampling = 0.5", ""]


def _input(velocities: dict[str, str], sampling: str) -> list[str]:
    table = ", ".join(f"{k} = {v}" for k, v in velocities.items())
    return ["[[inputs]]", f"velocities = {{ {table} }}", f"sampling = {sampling}", ""]
