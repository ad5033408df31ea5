"""The paper's feeder (README, ``fixtures/feeder.toml``) with N blocks, as one geometry shared by cspace and the pymunk model.

Both simulators must see the same mechanism, so the numbers live here once: the
crank-slider (crank 3, link 8, piston 7 x 2 with its pin 1 from its left end), the
4 x 2 blocks stacked in the magazine from y = 1, the table top at y = -1 and the
magazine walls x in [8, 12] and [16, 20]. For N blocks the magazine is 2N + 14 high
and the table long enough for the train of N pushed blocks; N = 3 gives exactly
``fixtures/feeder.toml`` (walls to y = 20, table to x = 60, three revolutions).

The exact event times come from the closed form of the crank-slider,
``xp = 3 cos cd - 1 + sqrt(64 - 9 sin^2 cd)``, with the crank at 1 rad/s (time is the
crank angle): the stack drops when the piston's right end clears the magazine
(xp = 5 falling) and the piston touches the bottom block when it comes back
(xp = 5 rising), once each per revolution.

As a command, it writes the N-block feeder's mechanism file::

    python tools/feeder_n.py 50 > feeder-50.toml
    python tools/feeder_n.py 50 -o feeder-50.toml
"""

from __future__ import annotations

import argparse
import math
import sys
from dataclasses import dataclass
from pathlib import Path

from scipy.optimize import brentq

CRANK = 3.0
LINK = 8.0
PISTON_LENGTH = 7.0
PISTON_PIN = 1.0
BLOCK_WIDTH = 4.0
BLOCK_HEIGHT = 2.0
TABLE_TOP = -1.0
MAGAZINE_LEFT = 12.0
WALL_WIDTH = 4.0
TABLE_START = -10.0
CLEARED = MAGAZINE_LEFT - PISTON_LENGTH  # xp at which the piston's right end is at the magazine


@dataclass(frozen=True)
class Feeder:
    """Feeder geometry for ``blocks`` blocks, traced for as many revolutions of the crank."""

    blocks: int

    @property
    def revolutions(self) -> int:
        return self.blocks

    @property
    def duration(self) -> float:
        """Seconds of input: one revolution per block at 1 rad/s."""
        return 2 * math.pi * self.revolutions

    @property
    def wall_top(self) -> float:
        """Magazine height: the initial stack plus a margin (20 for three blocks, as in the fixture)."""
        return 2.0 * self.blocks + 14.0

    @property
    def table_end(self) -> float:
        """Table length: the train of pushed blocks ends at x = 4N + 17; 60 for up to 10 blocks."""
        return max(60.0, BLOCK_WIDTH * self.blocks + 40.0)

    def initial_block(self, i: int) -> tuple[float, float]:
        """Bottom-left corner of block i (1-based) at the start: stacked in the magazine."""
        return MAGAZINE_LEFT, 1.0 + BLOCK_HEIGHT * (i - 1)

    def final_block_x(self, i: int) -> float:
        """Where cspace's simple dynamics leaves block i: the train stops with the piston at xp = 10."""
        return 17.0 + BLOCK_WIDTH * (self.blocks - i)

    def drop_times(self) -> list[float]:
        """Exact times the stack starts to drop, one per revolution."""
        first = crank_angle_at_clearance()
        return [first + 2 * math.pi * k for k in range(self.revolutions)]

    def touch_times(self) -> list[float]:
        """Exact times the piston touches block i (i = 1..N), in revolution i."""
        first = 2 * math.pi - crank_angle_at_clearance()
        return [first + 2 * math.pi * k for k in range(self.revolutions)]

    def toml(self) -> str:
        """The cspace mechanism file for this feeder."""
        return _TOML_HEAD.format(name=f"feeder-{self.blocks}", time=repr(self.duration),
                                 table_end=_number(self.table_end), wall_top=_number(self.wall_top)) + \
            "".join(_block_toml(i, *self.initial_block(i)) for i in range(1, self.blocks + 1)) + \
            _TOML_LINKAGE + "".join(_gravity_toml(i) for i in range(1, self.blocks + 1)) + _TOML_INPUT


def piston_position(crank_angle: float) -> float:
    """Exact crank-slider output: the piston's left end xp at crank angle ``cd``."""
    return CRANK * math.cos(crank_angle) - PISTON_PIN + math.sqrt(LINK ** 2 - (CRANK * math.sin(crank_angle)) ** 2)


def crank_angle_at_clearance() -> float:
    """Crank angle in (0, pi) where the piston's right end clears the magazine (xp = 5)."""
    return brentq(lambda c: piston_position(c) - CLEARED, 0.0, math.pi, xtol=1e-14)


def _number(value: float) -> str:
    return f"{value:g}"


_TOML_HEAD = """\
[mechanism]
name = "{name}"
time = {time}

[[parts]]
name = "frame"
motion = "fixed"

[[parts.slices]]
z = [0, 1]
profiles = [
  {{ name = "table", rect = [-10, -3, {table_end}, -1] }},
  {{ name = "left-wall", rect = [8, 1, 12, {wall_top}] }},
  {{ name = "right-wall", rect = [16, 1, 20, {wall_top}] }},
]

[[parts]]
name = "driver"
motion = "fixed-axes"
coordinates = [ {{ name = "cd", pivot = [0, 0], initial = 0 }} ]

[[parts.slices]]
z = [-2, -1]
profiles = [ {{ circle = [0, 0], radius = 3.5 }} ]

[[parts]]
name = "link"
motion = "linkage"

[[parts.slices]]
z = [-1, -0.5]

[[parts.slices.profiles]]
path = [[0, -0.3], [8, -0.3], {{ arc = [8, 0.3], center = [8, 0] }}, [0, 0.3],
        {{ arc = [0, -0.3], center = [0, 0] }}]
faces = ["lower", "far-end", "upper", "near-end"]

[[parts]]
name = "piston"
motion = "fixed-axes"
coordinates = [ {{ name = "xp", axis = [1, 0], initial = 10 }} ]

[[parts.slices]]
z = [0, 1]
profiles = [ {{ rect = [0, -1, 7, 1] }} ]
"""

_TOML_LINKAGE = """
[[linkages]]
name = "crank-slider"
input = "cd"
output = "xp"
members = ["link"]
joints = [
  { kind = "pin", parts = ["driver", "link"], points = [[3, 0], [0, 0]] },
  { kind = "pin", parts = ["link", "piston"], points = [[8, 0], [1, 0]] },
]
"""

_TOML_INPUT = """
[[inputs]]
name = "driver rotates counterclockwise"
velocities = { cd = 1.0 }
sampling = 0.25
"""


def _block_toml(i: int, x: float, y: float) -> str:
    return f"""
[[parts]]
name = "block{i}"
motion = "fixed-axes"
coordinates = [
  {{ name = "xb{i}", axis = [1, 0], initial = {_number(x)} }},
  {{ name = "yb{i}", axis = [0, 1], initial = {_number(y)} }},
]

[[parts.slices]]
z = [0, 1]
profiles = [ {{ rect = [0, 0, 4, 2] }} ]
"""


def _gravity_toml(i: int) -> str:
    return f"""
[[forces]]
kind = "gravity"
coordinate = "yb{i}"
direction = -1
sampling = 0.5
"""


def _blocks(text: str) -> int:
    """A block count from the command line: a whole number of at least 1."""
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"the number of blocks is a whole number of at least 1, got {text!r}")
    return int(text)


def main(argv: list[str] | None = None) -> int:
    """Write the N-block feeder's mechanism file on standard output, or to ``-o FILE``."""
    parser = argparse.ArgumentParser(description="Write the mechanism file of the feeder with N blocks "
                                                 "(N = 3 is fixtures/feeder.toml).")
    parser.add_argument("blocks", type=_blocks, metavar="N", help="number of blocks in the magazine")
    parser.add_argument("-o", "--output", type=Path, help="write the file here instead of standard output")
    args = parser.parse_args(argv)
    text = Feeder(args.blocks).toml()
    if args.output is None:
        sys.stdout.write(text)
    else:
        args.output.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
