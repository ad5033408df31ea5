"""Write fixtures/shoe-brake.toml: the paper's shoe brake (section 5, Figure 12) drawn for cspace.

A hollow drum (inner radius 10, a sticky face) turns about the origin; two shoes,
each a band of 20-degree chords inside the drum with a 0.12 gap and sticky all round,
are pinned at (0, -8.5) and held on their stops by springs; a lever (a bar 3.2 long)
turns about (0, 7) between tabs at the shoes' upper ends. The drum and the lever turn
on one clock; the lever opens the shoes, and when one touches the drum friction holds
both (they turn about different axes: the paper's u = constant), so the input is
blocked. The numbers are chosen so that the lever reaches the tabs after about a
second and a shoe closes its gap before the lever lies flat.

    python tools/make_shoe_brake.py
"""

from __future__ import annotations

import math
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "fixtures" / "shoe-brake.toml"
R_IN, R_OUT = 10.0, 11.0  # the drum's faces
GAP, BAND = 0.12, 1.0  # a shoe's outer chords to the drum, and its thickness
PIN = (0.0, -8.5)  # both shoes turn about it
CAM_PIVOT, CAM_HALF, CAM_THICK, CAM_START = (0.0, 7.0), 1.6, 0.3, 1.4  # the lever: a bar, tilted at first
TAB_X, TAB_Y = -1.3, (5.6, 8.4)  # the left shoe's tab face, which the lever pushes


def polar(r: float, degrees: float) -> list[float]:
    return [round(r * math.cos(math.radians(degrees)), 6), round(r * math.sin(math.radians(degrees)), 6)]


def left_shoe() -> list[list[float]]:
    """The left shoe's outline: chords on the outer radius from 100 to 260 degrees, back up
    the inner radius to 140 degrees, then the tab reaching in towards the lever."""
    outer_r, inner_r = R_IN - GAP, R_IN - GAP - BAND
    outer = [polar(outer_r, a) for a in range(100, 261, 20)]
    inner = [polar(inner_r, a) for a in range(260, 139, -10)]
    tab = [[TAB_X, TAB_Y[0]], [TAB_X, TAB_Y[1]], polar(inner_r, 100)]
    points = outer + inner + tab
    return points + [points[0]]


def path(points: list[list[float]]) -> str:
    return "[" + ", ".join(f"[{x}, {y}]" for x, y in points) + "]"


LEFT = left_shoe()
RIGHT = [[-x, y] for x, y in LEFT][::-1]  # the mirror image
TEXT = f'''# The paper's shoe brake (section 5, Figure 12): a cam presses two shoes on a drum.
# Written by tools/make_shoe_brake.py: a hollow drum turning about its centre, two
# spring-loaded shoes pinned at their lower ends, and a cam lever between tabs at their
# upper ends. Drum and cam turn on one clock
# (two simultaneous inputs); the cam opens the shoes, and when a shoe's sticky lining
# touches the drum's sticky inner face, friction holds both: the input is blocked.
[mechanism]
name = "shoe-brake"
time = 3

[[parts]]
name = "frame"
motion = "fixed"

[[parts.slices]]
z = [2, 3]
profiles = [{{ name = "base", rect = [-12, -14, 12, -13] }}]

[[parts]]
name = "drum"
motion = "fixed-axes"
coordinates = [{{ name = "d", pivot = [0, 0] }}]

[[parts.slices]]
z = [0, 1]
profiles = [
  {{ name = "outer", circle = [0, 0], radius = {R_OUT} }},
  {{ name = "inner", circle = [0, 0], radius = {R_IN}, sticky = true }},
]

[[parts.slices]]                 # a lug above the others' layer, to see the drum turn
z = [1, 1.5]
profiles = [{{ name = "lug", rect = [{R_OUT - 0.8}, -0.5, {R_OUT + 0.8}, 0.5] }}]

[[parts]]
name = "left-shoe"
motion = "fixed-axes"
coordinates = [{{ name = "l", pivot = [{PIN[0]}, {PIN[1]}], limits = [0, 0.3] }}]

[[parts.slices]]
z = [0, 1]

[[parts.slices.profiles]]
sticky = true
path = {path(LEFT)}

[[parts]]
name = "right-shoe"
motion = "fixed-axes"
coordinates = [{{ name = "r", pivot = [{PIN[0]}, {PIN[1]}], limits = [-0.3, 0] }}]

[[parts.slices]]
z = [0, 1]

[[parts.slices.profiles]]
sticky = true
path = {path(RIGHT)}

[[parts]]
name = "cam"
motion = "fixed-axes"
coordinates = [{{ name = "c", pivot = [{CAM_PIVOT[0]}, {CAM_PIVOT[1]}], initial = {CAM_START} }}]

[[parts.slices]]
z = [0, 1]
profiles = [{{ name = "lever", rect = [{CAM_PIVOT[0] - CAM_HALF}, {CAM_PIVOT[1] - CAM_THICK}, {CAM_PIVOT[0] + CAM_HALF}, {CAM_PIVOT[1] + CAM_THICK}] }}]

[[forces]]
kind = "spring"
coordinate = "l"
direction = -1

[[forces]]
kind = "spring"
coordinate = "r"
direction = 1

[[inputs]]
name = "the drum turns and the lever opens the shoes"
velocities = {{ d = 1.0, c = -0.5 }}
sampling = 0.05
'''


if __name__ == "__main__":
    OUT.write_text(TEXT)
    print(f"{OUT}: {len(TEXT.splitlines())} lines")
