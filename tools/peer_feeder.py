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
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import pymunk
from feeder_n import (
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
    Feeder,
)

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


@dataclass
class Model:
    """A built pymunk space and the bodies the benchmark reads."""

    space: pymunk.Space
    piston: pymunk.Body
    blocks: list[pymunk.Body]

    def block_corners(self) -> list[tuple[float, float]]:
        """Bottom-left corner of every block, in the frame of the cspace coordinates (xbi, ybi)."""
        return [(b.position.x - BLOCK_WIDTH / 2, b.position.y - BLOCK_HEIGHT / 2) for b in self.blocks]

    def piston_left(self) -> float:
        """The piston's left end, cspace's xp."""
        return self.piston.position.x - PISTON_PIN


@dataclass
class Measurement:
    """Event times (drops and touches, in order of revolution), worst penetration, final corners."""

    drops: list[float]
    touches: list[float]
    penetration: float
    corners: list[tuple[float, float]]


def build(feeder: Feeder, iterations: int) -> Model:
    """The feeder in a fresh pymunk space with the given solver iterations."""
    space = pymunk.Space()
    space.gravity = (0.0, -GRAVITY)
    space.iterations = iterations
    space.collision_slop = SLOP
    _add_frame(space, feeder)
    crank = pymunk.Body(body_type=pymunk.Body.KINEMATIC)
    crank.angular_velocity = 1.0
    rod = pymunk.Body(ROD_MASS, pymunk.moment_for_segment(ROD_MASS, (-LINK / 2, 0), (LINK / 2, 0), 0.3))
    rod.position = (CRANK + LINK / 2, 0.0)
    piston = pymunk.Body(PISTON_MASS, math.inf)
    piston.position = (CRANK + LINK, 0.0)
    left = -PISTON_PIN
    shape = pymunk.Poly(piston, [(left, -1), (left + PISTON_LENGTH, -1), (left + PISTON_LENGTH, 1), (left, 1)])
    shape.friction = 0.0
    shape.filter = pymunk.ShapeFilter(categories=PISTON_CATEGORY, mask=pymunk.ShapeFilter.ALL_MASKS() ^ FRAME_CATEGORY)
    space.add(crank, rod, piston, shape,
              pymunk.PivotJoint(crank, rod, (CRANK, 0), (-LINK / 2, 0)),
              pymunk.PivotJoint(rod, piston, (LINK / 2, 0), (0, 0)),
              pymunk.GrooveJoint(space.static_body, piston, (TABLE_START, 0), (feeder.table_end, 0), (0, 0)))
    blocks = [_add_block(space, *feeder.initial_block(i)) for i in range(1, feeder.blocks + 1)]
    return Model(space, piston, blocks)


def _add_frame(space: pymunk.Space, feeder: Feeder) -> None:
    """Static table and magazine walls; the piston ignores them (its groove holds it)."""
    body = space.static_body
    table = pymunk.Poly(body, [(TABLE_START, TABLE_TOP - 2), (feeder.table_end, TABLE_TOP - 2),
                               (feeder.table_end, TABLE_TOP), (TABLE_START, TABLE_TOP)])
    table.friction = TABLE_FRICTION
    table.filter = pymunk.ShapeFilter(categories=FRAME_CATEGORY)
    walls = []
    for x0 in (MAGAZINE_LEFT - WALL_WIDTH, MAGAZINE_LEFT + BLOCK_WIDTH):
        top = feeder.wall_top
        wall = pymunk.Poly(body, [(x0, 1), (x0 + WALL_WIDTH, 1), (x0 + WALL_WIDTH, top), (x0, top)])
        wall.friction = 0.0
        wall.filter = pymunk.ShapeFilter(categories=FRAME_CATEGORY)
        walls.append(wall)
    space.add(table, *walls)


def _add_block(space: pymunk.Space, x: float, y: float) -> pymunk.Body:
    body = pymunk.Body(BLOCK_MASS, math.inf)
    body.position = (x + BLOCK_WIDTH / 2, y + BLOCK_HEIGHT / 2)
    shape = pymunk.Poly.create_box(body, (BLOCK_WIDTH, BLOCK_HEIGHT))
    shape.friction = BLOCK_FRICTION
    space.add(body, shape)
    return body


def steps_for(feeder: Feeder, dt: float) -> int:
    """Number of steps of ``dt`` covering the feeder's revolutions (the last one ends on it)."""
    return math.ceil(feeder.duration / dt - 1e-9)


def run(feeder: Feeder, dt: float, iterations: int) -> list[tuple[float, float]]:
    """Build and step the feeder through its revolutions; the final block corners."""
    model = build(feeder, iterations)
    space = model.space
    for _ in range(steps_for(feeder, dt)):
        space.step(dt)
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
    for n in range(steps_for(feeder, dt)):
        k = min(int(n * dt / (2 * math.pi)), feeder.revolutions - 1)
        block = model.blocks[k]
        space.step(dt)
        t = (n + 1) * dt
        if t > SETTLE and len(drops) == k and block.velocity.y < falling:
            drops.append(t)
        right = model.piston_left() + PISTON_LENGTH
        if (len(touches) == k and len(drops) == k + 1 and model.piston.velocity.x > 0
                and right >= block.position.x - BLOCK_WIDTH / 2 - TOUCH_GAP):
            touches.append(t)
    return Measurement(drops, touches, deepest[0], model.block_corners())
