"""The feeder of tools/feeder_n.py built in pymunk, the 2D physics engine a user would reach for.

The model follows the issue: the crank is a kinematic body turning at exactly 1 rad/s
about the origin; the connecting rod is a dynamic body on two pivot joints (crank pin
and piston pin); the piston is a dynamic body on a groove joint along y = 0 with its
rotation locked (infinite moment) and collides only with the blocks; the blocks are
dynamic 4 x 2 boxes with rotation locked, under gravity; the table and the magazine
walls are static.

cspace's simple dynamics has no inertia: a pushed block stops when the piston stops.
pymunk reproduces that with table friction 1 (so a sliding block decelerates at
g = 10, faster than the piston ever does near its dead centre, about 4.1) and no
friction on the piston or the walls, so the piston slides out from under the stack
and the stack slides down the magazine freely. The collision slop is 1e-4 (pymunk's
default, 0.1, lets resting boxes sink 5 % of a block into each other).

Two ways to run it, so the timing is pure stepping and the measurements cost nothing
in it: :func:`run` steps and returns the final block positions; :func:`measure` also
detects the events every step and records the deepest interpenetration.

The model is built from a :func:`layout`: the feeder's numbers as plain data (JSON),
made from ``tools/feeder_n.py``. Run as a process, the peer reads a layout file,
builds, steps through the revolutions and prints the final block corners:

    python tools/peer_feeder.py LAYOUT.json --dt 0.001 [--iterations 10]
    python tools/peer_feeder.py --write-layout LAYOUT.json [--blocks 3]

Stepping from a layout imports pymunk alone: ``feeder_n`` (which imports scipy for the
exact event times) is imported only where a layout is made or events are measured, so
that the process, timed start to exit by ``tools/bench_peer.py``, pays only for what a
pymunk program of this feeder needs.
"""

from __future__ import annotations

import argparse
import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pymunk

if TYPE_CHECKING:
    from feeder_n import Feeder

GRAVITY = 10.0
TABLE_FRICTION = 1.0
BLOCK_FRICTION = 1.0
SLOP = 1e-4
BLOCK_MASS = 1.0
PISTON_MASS = 10.0
ROD_MASS = 10.0
FALLING = 0.5
SETTLE = 0.5
TOUCH_GAP = 1e-9
FRAME_CATEGORY = 0b01
PISTON_CATEGORY = 0b10


Layout = dict[str, Any]  # the feeder's numbers as plain data: see layout()


@dataclass
class Model:
    """A built pymunk space, the bodies the benchmark reads and the sizes it reads them with."""

    space: pymunk.Space
    piston: pymunk.Body
    blocks: list[pymunk.Body]
    block_size: tuple[float, float]
    piston_pin: float
    piston_length: float

    def block_corners(self) -> list[tuple[float, float]]:
        """Bottom-left corner of every block, in the frame of the cspace coordinates (xbi, ybi)."""
        width, height = self.block_size
        return [(b.position.x - width / 2, b.position.y - height / 2) for b in self.blocks]

    def piston_left(self) -> float:
        """The piston's left end, cspace's xp."""
        return self.piston.position.x - self.piston_pin


@dataclass
class Measurement:
    """Event times (drops and touches, in order of revolution), worst penetration, final corners."""

    drops: list[float]
    touches: list[float]
    penetration: float
    corners: list[tuple[float, float]]


def layout(feeder: Feeder) -> Layout:
    """The feeder's numbers (``tools/feeder_n.py``) as plain data, the input of :func:`build_layout`.

    Rectangles are [x0, y0, x1, y1]; ``blocks`` holds each block's initial bottom-left corner;
    ``duration`` is the seconds of input (one revolution per block at 1 rad/s).
    """
    from feeder_n import (  # imports scipy (for the exact event times): only where a layout is made
        BLOCK_HEIGHT,
        BLOCK_WIDTH,
        CRANK,
        LINK,
        MAGAZINE_LEFT,
        PISTON_LENGTH,
        PISTON_PIN,
        TABLE_START,
        TABLE_TOP,
        WALL_WIDTH,
    )
    return {
        "crank": CRANK, "link": LINK, "piston_length": PISTON_LENGTH, "piston_pin": PISTON_PIN,
        "block_size": [BLOCK_WIDTH, BLOCK_HEIGHT],
        "table": [TABLE_START, TABLE_TOP - 2, feeder.table_end, TABLE_TOP],
        "walls": [[x0, 1.0, x0 + WALL_WIDTH, feeder.wall_top]
                  for x0 in (MAGAZINE_LEFT - WALL_WIDTH, MAGAZINE_LEFT + BLOCK_WIDTH)],
        "blocks": [list(feeder.initial_block(i)) for i in range(1, feeder.blocks + 1)],
        "duration": feeder.duration,
    }


def build(feeder: Feeder, iterations: int) -> Model:
    """The feeder in a fresh pymunk space with the given solver iterations."""
    return build_layout(layout(feeder), iterations)


def build_layout(numbers: Layout, iterations: int) -> Model:
    """The feeder of a :func:`layout` in a fresh pymunk space with the given solver iterations."""
    space = pymunk.Space()
    space.gravity = (0.0, -GRAVITY)
    space.iterations = iterations
    space.collision_slop = SLOP
    _add_frame(space, numbers)
    crank_radius, link = numbers["crank"], numbers["link"]
    crank = pymunk.Body(body_type=pymunk.Body.KINEMATIC)
    crank.angular_velocity = 1.0
    rod = pymunk.Body(ROD_MASS, pymunk.moment_for_segment(ROD_MASS, (-link / 2, 0), (link / 2, 0), 0.3))
    rod.position = (crank_radius + link / 2, 0.0)
    piston = pymunk.Body(PISTON_MASS, math.inf)
    piston.position = (crank_radius + link, 0.0)
    left, length = -numbers["piston_pin"], numbers["piston_length"]
    shape = pymunk.Poly(piston, [(left, -1), (left + length, -1), (left + length, 1), (left, 1)])
    shape.friction = 0.0
    shape.filter = pymunk.ShapeFilter(categories=PISTON_CATEGORY, mask=pymunk.ShapeFilter.ALL_MASKS() ^ FRAME_CATEGORY)
    table_start, _, table_end, _ = numbers["table"]
    space.add(crank, rod, piston, shape,
              pymunk.PivotJoint(crank, rod, (crank_radius, 0), (-link / 2, 0)),
              pymunk.PivotJoint(rod, piston, (link / 2, 0), (0, 0)),
              pymunk.GrooveJoint(space.static_body, piston, (table_start, 0), (table_end, 0), (0, 0)))
    size = (numbers["block_size"][0], numbers["block_size"][1])
    blocks = [_add_block(space, x, y, size) for x, y in numbers["blocks"]]
    return Model(space, piston, blocks, size, numbers["piston_pin"], length)


def _rectangle(body: pymunk.Body, x0: float, y0: float, x1: float, y1: float) -> pymunk.Poly:
    return pymunk.Poly(body, [(x0, y0), (x1, y0), (x1, y1), (x0, y1)])


def _add_frame(space: pymunk.Space, numbers: Layout) -> None:
    """Static table and magazine walls; the piston ignores them (its groove holds it)."""
    body = space.static_body
    table = _rectangle(body, *numbers["table"])
    table.friction = TABLE_FRICTION
    table.filter = pymunk.ShapeFilter(categories=FRAME_CATEGORY)
    walls = []
    for rectangle in numbers["walls"]:
        wall = _rectangle(body, *rectangle)
        wall.friction = 0.0
        wall.filter = pymunk.ShapeFilter(categories=FRAME_CATEGORY)
        walls.append(wall)
    space.add(table, *walls)


def _add_block(space: pymunk.Space, x: float, y: float, size: tuple[float, float]) -> pymunk.Body:
    body = pymunk.Body(BLOCK_MASS, math.inf)
    body.position = (x + size[0] / 2, y + size[1] / 2)
    shape = pymunk.Poly.create_box(body, size)
    shape.friction = BLOCK_FRICTION
    space.add(body, shape)
    return body


def steps_for(feeder: Feeder, dt: float) -> int:
    """Number of steps of ``dt`` covering the feeder's revolutions (the last one ends on it)."""
    return steps(feeder.duration, dt)


def steps(duration: float, dt: float) -> int:
    """Number of steps of ``dt`` covering ``duration`` seconds (the last one ends on it)."""
    return math.ceil(duration / dt - 1e-9)


def step(model: Model, dt: float, count: int) -> None:
    """Step the space ``count`` times: the loop the benchmark times."""
    space = model.space
    for _ in range(count):
        space.step(dt)


def run(feeder: Feeder, dt: float, iterations: int) -> list[tuple[float, float]]:
    """Build and step the feeder through its revolutions; the final block corners."""
    model = build(feeder, iterations)
    step(model, dt, steps_for(feeder, dt))
    return model.block_corners()


def run_file(path: str | Path, dt: float, iterations: int) -> list[tuple[float, float]]:
    """Read a layout file, build and step through its duration: the peer as a program. The final corners."""
    numbers = json.loads(Path(path).read_text())
    model = build_layout(numbers, iterations)
    step(model, dt, steps(numbers["duration"], dt))
    return model.block_corners()


def measure(feeder: Feeder, dt: float, iterations: int, penetration: bool = True) -> Measurement:
    """Step like :func:`run`, detecting events (and, if asked, the deepest contact penetration) each step.

    Tracking penetration reads every contact every step from Python, which costs far
    more than the step itself for many blocks; without it the returned depth is nan.

    Drop of revolution k: the first step at which block k+1 (the bottom of the
    stack) falls faster than ``FALLING`` times the speed gravity adds in one step.
    (A threshold on its descent, 1e-7, fires early under a tall stack: the bottom of
    100 blocks jitters by 1e-5 at 5e-4 units/s on its support with 10 iterations.)
    Nothing counts in the first ``SETTLE`` seconds, where the stack, which starts
    exactly touching, settles. Touch of block k+1: the first step after that drop at
    which the piston moves right and its right face is within ``TOUCH_GAP`` of the
    block's left face. Both are step times, not interpolated within a step.
    """
    model = build(feeder, iterations)
    space = model.space
    deepest = [0.0 if penetration else math.nan]

    def track(arbiter: pymunk.Arbiter, _space: pymunk.Space, _data) -> None:
        for point in arbiter.contact_point_set.points:
            deepest[0] = min(deepest[0], point.distance)

    if penetration:
        space.on_collision(post_solve=track)
    drops: list[float] = []
    touches: list[float] = []
    falling = -FALLING * GRAVITY * dt
    width = model.block_size[0]
    for n in range(steps_for(feeder, dt)):
        k = min(int(n * dt / (2 * math.pi)), feeder.revolutions - 1)
        block = model.blocks[k]
        space.step(dt)
        t = (n + 1) * dt
        if t > SETTLE and len(drops) == k and block.velocity.y < falling:
            drops.append(t)
        right = model.piston_left() + model.piston_length
        if (len(touches) == k and len(drops) == k + 1 and model.piston.velocity.x > 0
                and right >= block.position.x - width / 2 - TOUCH_GAP):
            touches.append(t)
    return Measurement(drops, touches, deepest[0], model.block_corners())


def main() -> None:
    """Run the peer as a program on a layout file, or write one."""
    parser = argparse.ArgumentParser(description="The feeder in pymunk, stepped from a layout file.")
    parser.add_argument("layout", nargs="?", help="layout file (JSON) to step")
    parser.add_argument("--dt", type=float, default=1e-3, help="time step (default 0.001)")
    parser.add_argument("--iterations", type=int, default=10, help="solver iterations (default 10)")
    parser.add_argument("--write-layout", metavar="OUT", help="write the layout of --blocks blocks to OUT and exit")
    parser.add_argument("--blocks", type=int, default=3, help="blocks of the layout written (default 3)")
    args = parser.parse_args()
    if args.write_layout:
        from feeder_n import Feeder
        Path(args.write_layout).write_text(json.dumps(layout(Feeder(args.blocks))))
    elif args.layout:
        for x, y in run_file(args.layout, args.dt, args.iterations):
            print(f"{x!r} {y!r}")
    else:
        parser.error("give a layout file to step, or --write-layout OUT")


if __name__ == "__main__":
    main()
