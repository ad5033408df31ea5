"""Write fixtures/rim-lock.toml: the paper's rim lock (section 5, Figure 11) drawn for cspace.

Three moving parts over a fixed back plate, in three layers:

* the key turns about the origin (coordinate ``k``, limits keep it from wrapping): a bar
  1 wide whose tip is an arc about the pivot through (+-0.5, 4), drawn pointing up (its
  bit's direction is 90 + k degrees), spanning z [1, 3];
* the rim (the bolt, coordinate ``xr``) slides along x: its body, in z [0, 1], carries the
  top contour the latch rides on (a locking notch, a flat, and a shallow detent at the
  unlocked place); its talon, in z [1, 2], hangs into the key's sweep as two stumps with a
  gap between them;
* the latch (coordinate ``yl``) slides along y, pushed down by a spring: its tooth, in
  z [0, 1], sits in the rim's notch; its leg, in z [2, 3], is a bar across the key's sweep
  that the key lifts.

The key starts with its bit in the talon's gap. Turned counterclockwise it lifts the leg
(the tooth leaves the notch, whose vertical right wall otherwise blocks the rim's way
back), pushes the gap's left wall and with it the rim back, lowers the latch onto the rim's
flat as it goes over, and leaves the wall below the stump; the latch's tooth, riding the
flat, reaches the detent's slope and the spring drives latch and rim down it to the
detent's floor: the rim is back by TRAVEL. Turned clockwise the key lifts the latch again,
crosses the gap and pushes the right wall out; the tooth drops into the locking notch,
whose left wall is a 45-degree slope matching the tooth's. The key pushes the rim a little
past its locked place (OVERSHOOT, up the slope), and when it has gone by, the spring drives
the tooth down the slope, pulling the rim back to xr = 0: locked.

Every length the trace's ends depend on is a translation contact (exact): the detent's
floor and slope set the unlocked place, the notch's floor and slope the locked one; the
key's pushes (a turning pair, within cspace's turning gap) only need to reach them.

    python tools/make_rim_lock.py
"""

from __future__ import annotations

import math
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "fixtures" / "rim-lock.toml"

PLATE = (-8.5, -4.5, 8.0, 9.5)  # the frame: the lock case's back plate, in its own layer

# Key: a bar pointing up at k = 0, turning about the origin.
KEY_HALF, KEY_BACK, KEY_REACH = 0.5, 0.3, 4.0
KEY_START = math.radians(-55)  # bit at 35 degrees: inside the talon's gap, below the leg
KEY_LIMITS = (math.radians(-110), math.radians(170))  # bit from -20 to 260 degrees
KEY_SPEED = 1.0  # rad/s, each way

# Latch: tooth (bottom from TOOTH_A to TOOTH_B, left side a 45-degree slope) and leg.
TOOTH_A, TOOTH_B = -0.4, 0.4
LEG_Y, LEG_HALF, LEG_THICK = 3.0, 4.3, 0.5  # the leg's bottom face, at yl = 0
LATCH_LIMITS = (-0.5, 2.0)  # never reached

# Rim: body top, notch and detent (all 45-degree slopes on the sides the tooth meets).
TOP = 6.0  # the rim's flat, at xr = 0
BODY_BOTTOM, BODY_LEFT, BODY_RIGHT = 4.6, -4.0, 10.0  # the bolt sticks out of the case when locked
NOTCH_DEPTH = 0.6  # the tooth's depth in the locking notch
NOTCH_CLEAR = 0.3  # between the tooth's right side and the notch's vertical wall
DETENT_DEPTH = 0.4
TRAVEL = 3.9  # the rim's travel: it is unlocked at xr = -TRAVEL (the detent's floor)
DETENT_FLOOR = 1.0  # the detent's floor is this much wider than the tooth's bottom

# Talon: two stumps (z [1, 2]) hanging down to different heights, the gap between them.
WALL_LEFT, LEFT_BOTTOM = 0.0, 1.5  # the gap's left wall (the key pushes it back)
WALL_RIGHT, RIGHT_BOTTOM = 3.8, 1.0  # the gap's right wall (the key pushes it out)
STUMP_WIDTH, GAP_TOP, TALON_TOP = 0.6, 4.4, 5.0

# The key's tip is an arc about the pivot through its corners (radius KEY_CORNER): it pushes
# the right wall out to where the arc crosses the right stump's bottom,
# x = sqrt(KEY_CORNER^2 - RIGHT_BOTTOM^2), past the locked place by
KEY_CORNER = math.hypot(KEY_HALF, KEY_REACH)
OVERSHOOT = math.sqrt(KEY_CORNER ** 2 - RIGHT_BOTTOM ** 2) - WALL_RIGHT

# The key's arc tip (about the pivot) reaches the gap's left wall, below which the left
# stump ends, out to x = -sqrt(KEY_CORNER^2 - LEFT_BOTTOM^2): it could push the rim back by
KEY_PUSH_BACK = WALL_LEFT + math.sqrt(KEY_CORNER ** 2 - LEFT_BOTTOM ** 2)
# but the tooth reaches the detent's slope when the rim is back by TRAVEL - DETENT_DEPTH, and
# from there the spring takes latch and rim to the detent's floor, away from the key.
assert TRAVEL - DETENT_DEPTH < KEY_PUSH_BACK < TRAVEL
assert 0 < OVERSHOOT < NOTCH_DEPTH

# Values of the trace's states, from the geometry.
LOCKED = {"xr": 0.0, "yl": 0.0}
UNLOCKED = {"xr": -TRAVEL, "yl": NOTCH_DEPTH - DETENT_DEPTH}
ON_FLAT = NOTCH_DEPTH  # yl with the tooth on the rim's flat
INPUT_TIME = (KEY_LIMITS[1] - KEY_START) / KEY_SPEED + (KEY_LIMITS[1] - KEY_LIMITS[0]) / KEY_SPEED


def key_path() -> str:
    """The key's outline: a bar whose tip is an arc about the pivot (radius KEY_CORNER)."""
    h, b, r = num(KEY_HALF), num(KEY_BACK), num(KEY_REACH)
    return (f"[[-{h}, -{b}], [{h}, -{b}], [{h}, {r}], {{ arc = [-{h}, {r}], center = [0, 0] }}, [-{h}, -{b}]]")


def rim_body() -> list[list[float]]:
    """The rim's body at xr = 0, anticlockwise from its bottom left; the top runs right to left:
    the detent (45-degree walls, floor DETENT_FLOOR wider than the tooth), the flat, the
    locking notch (vertical right wall, floor, 45-degree left wall matching the tooth)."""
    d, d2 = NOTCH_DEPTH, DETENT_DEPTH
    floor_left = TOOTH_A + TRAVEL  # the tooth's bottom-left corner at xr = -TRAVEL
    floor_right = TOOTH_B + TRAVEL + DETENT_FLOOR
    return [[BODY_LEFT, BODY_BOTTOM], [BODY_RIGHT, BODY_BOTTOM], [BODY_RIGHT, TOP],
            [floor_right + d2, TOP], [floor_right, TOP - d2], [floor_left, TOP - d2], [floor_left - d2, TOP],
            [TOOTH_B + NOTCH_CLEAR, TOP], [TOOTH_B + NOTCH_CLEAR, TOP - d], [TOOTH_A, TOP - d],
            [TOOTH_A - d, TOP], [BODY_LEFT, TOP]]


BODY_FACES = ["bottom", "end", "top-out", "detent-out", "detent-floor", "detent-in", "flat",
              "notch-wall", "notch-floor", "notch-slope", "top-in", "back"]


def talon() -> list[list[float]]:
    return [[WALL_LEFT - STUMP_WIDTH, LEFT_BOTTOM], [WALL_LEFT, LEFT_BOTTOM], [WALL_LEFT, GAP_TOP],
            [WALL_RIGHT, GAP_TOP], [WALL_RIGHT, RIGHT_BOTTOM], [WALL_RIGHT + STUMP_WIDTH, RIGHT_BOTTOM],
            [WALL_RIGHT + STUMP_WIDTH, TALON_TOP], [WALL_LEFT - STUMP_WIDTH, TALON_TOP]]


TALON_FACES = ["left-stump-bottom", "left-wall", "gap-top", "right-wall", "right-stump-bottom",
               "right-stump-side", "talon-top", "left-stump-side"]


def tooth() -> list[list[float]]:
    d = NOTCH_DEPTH
    return [[TOOTH_A, TOP - d], [TOOTH_B, TOP - d], [TOOTH_B, TOP + 3], [TOOTH_A - d, TOP + 3], [TOOTH_A - d, TOP]]


TOOTH_FACES = ["tooth-bottom", "tooth-right", "head", "back", "tooth-slope"]


def leg() -> list[list[float]]:
    y, h, t = LEG_Y, LEG_HALF, LEG_THICK
    return [[-h, y], [h, y], [h, y + t], [0.3, y + t], [0.3, TOP + 3], [-0.3, TOP + 3], [-0.3, y + t], [-h, y + t]]


LEG_FACES = ["leg-bottom", "leg-right", "leg-top-right", "stem-right", "stem-top", "stem-left", "leg-top-left", "leg-left"]


def num(x: float) -> str:
    text = f"{x:.12g}"
    return text if any(c in text for c in ".e") else text + ".0"


def path(points: list[list[float]]) -> str:
    closed = points + [points[0]]
    return "[" + ", ".join(f"[{num(x)}, {num(y)}]" for x, y in closed) + "]"


def faces(names: list[str]) -> str:
    return "[" + ", ".join(f'"{n}"' for n in names) + "]"


TEXT = f'''# The paper's rim lock (section 5, Figure 11): a key draws back a latched bolt.
# Written by tools/make_rim_lock.py: a key, a rim (the bolt) and a latch pushed down by a
# spring, in three layers over a back plate.
# z [0, 1]: the rim's body and the latch's tooth; z [1, 2]: the rim's talon (two stumps with
# a gap) and the key; z [2, 3]: the latch's leg and the key.
#
# Locked: xr = 0, the tooth in the rim's notch (depth {num(NOTCH_DEPTH)}), whose vertical wall blocks
# the rim's way back. The key's bit starts in the talon's gap. Turned counterclockwise it
# lifts the leg (the tooth out of the notch), pushes the gap's left wall and the rim back,
# and lowers the latch onto the rim's flat; past the left stump it lets the rim go, and the
# spring drives the tooth down the detent's slope, taking the rim to xr = -{num(TRAVEL)} (unlocked,
# yl = {num(UNLOCKED["yl"])}). Turned clockwise the key lifts the latch again, crosses the gap and
# pushes the right wall out, about {OVERSHOOT:.3f} past the locked place (the tooth, dropped into
# the notch, rides up its sloped wall); when the key has gone by, the spring drives the
# tooth down the slope and the rim back to xr = 0: locked again (yl = 0).
# Key: k = 0 points its bit up; k runs from {math.degrees(KEY_START):.0f} to {math.degrees(KEY_LIMITS[1]):.0f} degrees and back to {math.degrees(KEY_LIMITS[0]):.0f}, each
# input ending at a limit.
[mechanism]
name = "rim-lock"
time = {num(round(INPUT_TIME, 6) + 0.001)}

[[parts]]
name = "frame"
motion = "fixed"

[[parts.slices]]                 # the lock's back plate, touching nothing
z = [-0.5, 0]
profiles = [{{ name = "plate", rect = [{", ".join(map(num, PLATE))}] }}]

[[parts]]
name = "key"
motion = "fixed-axes"
coordinates = [{{ name = "k", pivot = [0, 0], initial = {num(KEY_START)}, limits = [{num(KEY_LIMITS[0])}, {num(KEY_LIMITS[1])}] }}]

[[parts.slices]]
z = [1, 3]

[[parts.slices.profiles]]
path = {key_path()}
faces = ["back", "right", "tip", "left"]

[[parts]]
name = "rim"
motion = "fixed-axes"
coordinates = [{{ name = "xr", axis = [1, 0], initial = 0 }}]

[[parts.slices]]                 # the body, with the contour the latch rides on
z = [0, 1]

[[parts.slices.profiles]]
path = {path(rim_body())}
faces = {faces(BODY_FACES)}

[[parts.slices]]                 # the talon, hanging into the key's sweep
z = [1, 2]

[[parts.slices.profiles]]
path = {path(talon())}
faces = {faces(TALON_FACES)}

[[parts]]
name = "latch"
motion = "fixed-axes"
coordinates = [{{ name = "yl", axis = [0, 1], initial = 0, limits = [{num(LATCH_LIMITS[0])}, {num(LATCH_LIMITS[1])}] }}]

[[parts.slices]]                 # the tooth, in the rim's notch
z = [0, 1]

[[parts.slices.profiles]]
path = {path(tooth())}
faces = {faces(TOOTH_FACES)}

[[parts.slices]]                 # the leg the key lifts
z = [2, 3]

[[parts.slices.profiles]]
path = {path(leg())}
faces = {faces(LEG_FACES)}

[[forces]]
kind = "spring"
coordinate = "yl"
direction = -1

[[inputs]]
name = "the key turns counterclockwise: the rim goes back"
velocities = {{ k = {num(KEY_SPEED)} }}
sampling = 0.05

[[inputs]]
name = "the key turns clockwise: the rim goes out"
velocities = {{ k = {num(-KEY_SPEED)} }}
sampling = 0.05
'''


if __name__ == "__main__":
    OUT.write_text(TEXT)
    print(f"{OUT}: {len(TEXT.splitlines())} lines")
