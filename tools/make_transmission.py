"""Write fixtures/transmission.toml: a two-speed sliding-mesh transmission (the paper's
section 5 transmission, reduced to its gear shift).

The input shaft (coordinate ``t1``, about the origin) carries gear A1 (12 teeth, z [0, 1])
and gear A2 (16 teeth, z [3.5, 4.5]). The output shaft (``t2``, about (30, 0)) carries
a cluster that slides along it (``s``, a shift along z, 0 to 2.5): gear B1 (18 teeth,
z [0, 1] at s = 0) and gear B2 (14 teeth, z [1, 2] at s = 0). Both pairs have the same
centre distance (12 + 18 = 16 + 14 teeth of module 2). At s = 0 B1 meshes A1 (first
speed, t2 = -(12/18) t1); for s in [1, 1.5] nothing meshes (neutral); at s = 2.5 B2
meshes A2 (second speed, t2 = -(16/14) t1). Between 0 and 1 B1 slides out of A1, and
between 1.5 and 2.5 B2 slides into A2 (the pair space's bands, cspace.spaces.layers).

Three input motions, one after another: the input turns counterclockwise by 3 pi / 2
(the output, pushed, turns clockwise by about pi); the cluster shifts from 0 to 2.5;
the input turns again by 3 pi / 2. After the first turn A2 and B2 stand where their
teeth line up: the input has turned 12 of A2's tooth pitches and the output 7 of B2's,
and both pairs are drawn in a symmetric mesh at t1 = t2 = 0. So the shift passes. With
``--misaligned`` the first turn is half an A2 pitch longer: B2's teeth meet A2's faces
and the shift is blocked at s = 1.5.

    python tools/make_transmission.py                  # fixtures/transmission.toml
    python tools/make_transmission.py --misaligned --out blocked.toml
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path

from make_gears import MODULE, Gear, gear_slice, num, point

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "fixtures" / "transmission.toml"
A1, B1, A2, B2 = 12, 18, 16, 14
DISTANCE = MODULE * (A1 + B1) / 2
LAYERS = {"A1": (0.0, 1.0), "A2": (3.5, 4.5), "B1": (0.0, 1.0), "B2": (1.0, 2.0)}
SHIFT = (0.0, 2.5)
TURN = 1.5 * math.pi  # 12 pitches of A2 and (times 12/18) 7 pitches of B2
SPEED = 1.0  # rad/s of the input, and the shift's speed


def mechanism(misaligned: bool) -> str:
    """The file's text."""
    first = TURN + (math.pi / A2 if misaligned else 0.0)
    input_gears = [(Gear(A1, (0.0, 0.0), 0.0), "A1"), (Gear(A2, (0.0, 0.0), 0.0), "A2")]
    output_gears = [(Gear(B1, (DISTANCE, 0.0), math.pi + math.pi / B1), "B1"),
                    (Gear(B2, (DISTANCE, 0.0), math.pi + math.pi / B2), "B2")]
    lines = [
        f"# A two-speed sliding-mesh transmission, written by tools/make_transmission.py"
        f"{' --misaligned' if misaligned else ''}.",
        f"# Input shaft (t1, about the origin): A1 ({A1} teeth, z {list(LAYERS['A1'])}) and A2 ({A2} teeth, "
        f"z {list(LAYERS['A2'])}).",
        f"# Output shaft (t2, about ({num(DISTANCE)}, 0)): a cluster sliding along it (s, along z, "
        f"{SHIFT[0]:g} to {SHIFT[1]:g}),",
        f"# B1 ({B1} teeth, z {list(LAYERS['B1'])} + s) and B2 ({B2} teeth, z {list(LAYERS['B2'])} + s).",
        f"# s = 0: A1 drives B1, t2 = -({A1}/{B1}) t1; s in [1, 1.5]: neutral; s = 2.5: A2 drives B2, "
        f"t2 = -({A2}/{B2}) t1.",
        f"# The input turns {num(first)} rad, the cluster shifts, the input turns {num(TURN)} rad again.",
        "# Module 2, pressure angle 25 degrees, backlash 0.1: see tools/make_gears.py.",
        "[mechanism]",
        'name = "transmission"',
        f"time = {num(first / SPEED + (SHIFT[1] - SHIFT[0]) / SPEED + TURN / SPEED)}",
        "",
        "[[parts]]",
        'name = "input"',
        'motion = "fixed-axes"',
        'coordinates = [ { name = "t1", pivot = [0.0, 0.0] } ]',
        "",
    ]
    for gear, name in input_gears:
        lines += gear_slice(gear, LAYERS[name], f"{name}-") + [""]
    lines += [
        "[[parts]]",
        'name = "cluster"',
        'motion = "fixed-axes"',
        f'coordinates = [ {{ name = "t2", pivot = {point((DISTANCE, 0.0))} }}, '
        f'{{ name = "s", axis = "z", limits = [{num(SHIFT[0])}, {num(SHIFT[1])}] }} ]',
        "",
    ]
    for gear, name in output_gears:
        lines += gear_slice(gear, LAYERS[name], f"{name}-") + [""]
    lines += [
        "[[inputs]]",
        'name = "first speed"',
        f"velocities = {{ t1 = {num(SPEED)} }}",
        "sampling = 0.1",
        f"duration = {num(first / SPEED)}",
        "",
        "[[inputs]]                       # runs until the cluster reaches its limit (or is blocked)",
        'name = "shift"',
        f"velocities = {{ s = {num(SPEED)} }}",
        "sampling = 0.1",
        "",
        "[[inputs]]",
        'name = "second speed"',
        f"velocities = {{ t1 = {num(SPEED)} }}",
        "sampling = 0.1",
        f"duration = {num(TURN / SPEED)}",
    ]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--misaligned", action="store_true", help="turn half an A2 pitch further before the shift")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    args.out.write_text(mechanism(args.misaligned))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
