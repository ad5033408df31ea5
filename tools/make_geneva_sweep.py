"""Write ``fixtures/sweeps/geneva.toml``: the Geneva drive of ``fixtures/geneva.toml`` with its pin
clearance ``c`` (a side) as a parameter, every number of the wheel that depends on it an expression.

    python tools/make_geneva_sweep.py            # fixtures/sweeps/geneva.toml

The slots' walls are ``h = 0.5 + c`` either side of the slot's axis (the pin's radius is 0.5) and
run from 2.3 out to 5 sqrt(2) along it, where the pin enters; the rim between the slots is the
circle through the walls' ends, radius sqrt(50 + h^2); the locking arcs (radius 6.02 about where
the crank's pivot is when the arc faces it) end where they meet that rim, at
x0 = (86.2404 - h^2) / 20, y0 = sqrt(6.02^2 - x0^2) for lock-arc1 (about (0, 0)). Slot k is
slot 1 turned 90 (k - 1) degrees counterclockwise about the wheel's centre (10, 0). At the
default c = 0.01 the numbers are those of fixtures/geneva.toml (tests/test_sweep_examples.py
compares them).
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "fixtures" / "sweeps" / "geneva.toml"
TERMS = {
    "h": "(0.5 + c) * sqrt(0.5)",  # a wall's offset from the axis, along either diagonal
    "x": "(86.2404 - (0.5 + c)^2) / 20",  # lock-arc1's ends: (x, +-y)
    "y": "sqrt(36.2404 - ((86.2404 - (0.5 + c)^2) / 20)^2)",
}
DEPTH = "2.3 * sqrt(0.5)"  # the slot's bottom along either diagonal

Term = dict[str, float]  # a linear combination: {"1": constant, "h": ..., "x": ..., "y": ..., "d": ...}


def text(term: Term) -> str:
    """A linear combination as an expression string (a plain number where it is one)."""
    names = {**TERMS, "d": DEPTH}
    if all(name == "1" for name, value in term.items() if value):
        return f"{term.get('1', 0.0):.12g}"
    parts = [f"{value:.12g}" for name, value in term.items() if name == "1" and value]
    for name, value in term.items():
        if name != "1" and value:
            factor = "" if abs(value) == 1 else f"{abs(value):g} * "
            parts.append(f"{'- ' if value < 0 else '+ ' if parts else ''}{factor}{names[name]}")
    return '"' + " ".join(parts) + '"'


def add(a: Term, b: Term) -> Term:
    return {name: a.get(name, 0.0) + b.get(name, 0.0) for name in dict.fromkeys([*a, *b])}


def scaled(a: Term, k: float) -> Term:
    return {name: k * value for name, value in a.items()}


def turned(point: tuple[Term, Term], quarters: int) -> tuple[Term, Term]:
    """A point relative to the wheel's centre turned ``quarters`` quarter turns counterclockwise."""
    x, y = point
    for _ in range(quarters % 4):
        x, y = scaled(y, -1), x
    return x, y


def world(point: tuple[Term, Term]) -> str:
    x, y = point
    return f"[{text(add(x, {'1': 10.0}))}, {text(y)}]"


def wheel_path() -> list[str]:
    """The wheel's outline from lock-arc1's upper end, counterclockwise round the slots."""
    one, h, d = {"1": 1.0}, {"h": 1.0}, {"d": 1.0}
    lock_start = ({"x": 1.0, "1": -10.0}, {"y": 1.0})
    lock_end = ({"x": 1.0, "1": -10.0}, {"y": -1.0})
    right = (add(scaled(one, -5), scaled(h, -1)), add(scaled(one, -5), h))
    bottom_right = (add(scaled(d, -1), scaled(h, -1)), add(scaled(d, -1), h))
    bottom_left = (add(scaled(d, -1), h), add(scaled(d, -1), scaled(h, -1)))
    left = (add(scaled(one, -5), h), add(scaled(one, -5), scaled(h, -1)))
    path = [world(lock_start)]
    for k in range(4):
        centre = turned(({"1": -10.0}, {}), k)
        path.append(f"{{ arc = {world(turned(lock_end, k))}, center = {world(centre)}, turn = \"cw\" }}")
        path.append(f"{{ arc = {world(turned(right, k))}, center = [10, 0] }}")
        path += [world(turned(p, k)) for p in (bottom_right, bottom_left, left)]
        path.append(f"{{ arc = {world(turned(lock_start, k + 1))}, center = [10, 0] }}")
    return path


HEADER = """\
# The Geneva drive of fixtures/geneva.toml with its pin clearance c (a side) as a parameter
# (written by tools/make_geneva_sweep.py): the slots are 1 + 2c wide, so the wheel's rim,
# the walls' ends and the locking arcs' ends move with c; at the default c = 0.01 it is the
# fixture itself. `cspace sweep fixtures/sweeps/geneva.toml --vary c=0.005:0.04:8` sweeps it.
#
# The wheel's play. With the crank held while the pin is in a slot, the wheel turns freely
# until the pin meets either wall: asin(c / d) either way off the angle that centres the pin
# in the slot, 2 asin(c / d) in all, d the pin centre's distance from the wheel's centre
# (from 10 - 5 sqrt(2) = 2.93 at mid-engagement to 5 sqrt(2) = 7.07 at the mouth). Under
# simple dynamics the wheel moves only where the pin pushes it, so it rides the driving wall
# and trails the zero-clearance drive by the one side's play, asin(c / d); the pin leaves it
# there at the mouth and the locking disk holds it through the dwell. So each row's final:w,
# the dwell the second engagement leaves the wheel in, is -pi + asin(c / (5 sqrt(2))), less
# what the arc linearization takes off the clearance (at most the turning gap, 0.81 arc over
# d: [tolerance] arc below is 1e-5 of the size, 4.7e-4, to keep that a small part of the
# play). tests/test_sweep_examples.py checks it, and the lag along the engagement, against
# asin(c / d).

[parameters]
c = { default = 0.01, min = 0.001, max = 0.1 }

[mechanism]
name = "geneva"
time = 12.6                          # two turns of the crank, and a bit

[tolerance]
arc = 1e-5

[[parts]]
name = "crank"
motion = "fixed-axes"
coordinates = [ { name = "a", pivot = [0, 0], initial = 3.141592653589793 } ]

[[parts.slices]]                     # the pin and the locking disk, in the wheel's layer
z = [0, 1]

[[parts.slices.profiles]]
name = "pin"
circle = [7.071067811865, 0]         # 10 sin(pi/4)
radius = 0.5

[[parts.slices.profiles]]
name = "lock"
path = [[5.1, 3.160696125856], { arc = [5.1, -3.160696125856], center = [0, 0] },
        { arc = [5.1, 3.160696125856], center = [5.6, 0], turn = "cw" }]
faces = ["rim", "relief"]

[[parts.slices]]                     # the arm carrying the pin, under the wheel
z = [-1, 0]
profiles = [ { name = "arm", rect = [-1, -0.4, 7.071067811865, 0.4] } ]

[[parts]]
name = "wheel"
motion = "fixed-axes"
coordinates = [ { name = "w", pivot = [10, 0], initial = 0 } ]

[[parts.slices]]
z = [0, 1]

[[parts.slices.profiles]]
"""

FOOTER = """\
faces = ["lock-arc1", "slot1.right-tip", "slot1.right", "slot1.bottom", "slot1.left", "slot1.left-tip",
         "lock-arc2", "slot2.right-tip", "slot2.right", "slot2.bottom", "slot2.left", "slot2.left-tip",
         "lock-arc3", "slot3.right-tip", "slot3.right", "slot3.bottom", "slot3.left", "slot3.left-tip",
         "lock-arc4", "slot4.right-tip", "slot4.right", "slot4.bottom", "slot4.left", "slot4.left-tip"]

[[inputs]]
name = "crank turns counterclockwise"
velocities = { a = 1.0 }
sampling = 0.05
"""


def mechanism() -> str:
    """The parametric file's text."""
    return HEADER + "path = [" + ",\n        ".join(wheel_path()) + "]\n" + FOOTER


def main() -> int:
    OUT.write_text(mechanism(), encoding="utf-8")
    print(f"wrote {OUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
