"""Write fixtures/parts/dxf-cam.dxf, a cam plate drawn in a DXF file, and fixtures/dxf-cam.toml using it.

The cam plate (layer ``cam``, millimetres, its pivot at the drawing's origin) is a base
circle of radius 20 about the pivot and a rounded lobe, a circle of radius 12 about
(0, 16), joined by the two lines tangent to both (they touch the circles at 30 and 150
degrees, since cos 60 = (20 - 12) / 16). It is drawn as CAD programs draw, each outline
out of several entities, in no single direction:

* the base circle: an ARC from 150 to 30 degrees (ARCs run counterclockwise),
* the right flank: a LINE from the base circle up to the lobe,
* the lobe: an open LWPOLYLINE of one segment drawn clockwise, from 150 to 30 degrees
  over the top, bulge -tan 30 (a bulge is the tangent of a quarter of the sweep),
* the left flank: a LINE from the base circle up to the lobe;
* the bore: a closed LWPOLYLINE, a circle of radius 6 about the pivot with a keyway
  4 wide up to y = 8: one bulged segment clockwise the long way round (321 degrees),
  then three lines, the last the closing segment;
* a lightening hole: a CIRCLE of radius 4 about (0, -12).

Other layers hold what a real drawing holds and cspace must not read: a centre line and
a SPLINE sketch (layer ``sketch``), a TEXT title (layer ``notes``).

The mechanism turns the cam counterclockwise one turn under a flat-faced follower that
a spring presses down (the eccentric cam's arrangement). Closed form, the cam at angle
th: the follower's face rests on the lobe while |th| <= 60 degrees, at
``yf = 12 + 16 cos th``, and on the base circle otherwise, at ``yf = 20``: its lift is
the lobe's reach less the base circle's radius, 28 - 20 = 8. The bad-input corpus's
drawings (tests/data/bad/dxf/) are written here too.

    python tools/make_dxf_cam.py
"""

from __future__ import annotations

import math
from pathlib import Path

import ezdxf

ROOT = Path(__file__).resolve().parent.parent
DXF = ROOT / "fixtures" / "parts" / "dxf-cam.dxf"
TOML = ROOT / "fixtures" / "dxf-cam.toml"
BAD = ROOT / "tests" / "data" / "bad" / "dxf"

BASE_R = 20.0  # the base circle, about the pivot (the origin)
LOBE_C, LOBE_R = (0.0, 16.0), 12.0  # the lobe's circle
TANGENT = 30.0  # degrees: the flanks touch both circles at 30 and 150 degrees
BORE_R, KEY_HALF, KEY_TOP = 6.0, 2.0, 8.0  # the bore and its keyway
HOLE_C, HOLE_R = (0.0, -12.0), 4.0  # the lightening hole
LIFT = LOBE_C[1] + LOBE_R - BASE_R  # 8: the follower's rise over the base circle
FOLLOWER = (-25.0, 0.0, 25.0, 6.0)  # a flat-faced follower, its face at yf
START_GAP = 0.05  # the follower starts this far above the lobe (more than the turning gap)


def on(center: tuple[float, float], radius: float, degrees: float) -> tuple[float, float]:
    a = math.radians(degrees)
    return (center[0] + radius * math.cos(a), center[1] + radius * math.sin(a))


def key_corner(side: float) -> tuple[float, float]:
    """Where the keyway's side at x = side * KEY_HALF meets the bore."""
    return (side * KEY_HALF, math.sqrt(BORE_R ** 2 - KEY_HALF ** 2))


def bore_sweep() -> float:
    """Degrees of the bore left by the keyway."""
    return 360.0 - 2 * math.degrees(math.asin(KEY_HALF / BORE_R))


def new_drawing(units: int = 4) -> ezdxf.document.Drawing:
    ezdxf.options.write_fixed_meta_data_for_testing = True  # the same bytes every run
    doc = ezdxf.new("R2010", units=units)
    for name in ("cam", "sketch", "notes"):
        doc.layers.add(name)
    return doc


def draw_cam(msp, layer: str = "cam") -> None:
    """The cam plate's entities on ``layer``, in the order the module's docstring lists them."""
    cam = {"layer": layer}
    msp.add_arc((0, 0), BASE_R, 180 - TANGENT, TANGENT, dxfattribs=cam)
    msp.add_line(on((0, 0), BASE_R, TANGENT), on(LOBE_C, LOBE_R, TANGENT), dxfattribs=cam)
    lobe_sweep = 180 - 2 * TANGENT
    msp.add_lwpolyline([(*on(LOBE_C, LOBE_R, 180 - TANGENT), 0, 0, -math.tan(math.radians(lobe_sweep / 4))),
                        (*on(LOBE_C, LOBE_R, TANGENT), 0, 0, 0)], format="xyseb", dxfattribs=cam)
    msp.add_line(on((0, 0), BASE_R, 180 - TANGENT), on(LOBE_C, LOBE_R, 180 - TANGENT), dxfattribs=cam)
    right, left = key_corner(1), key_corner(-1)
    msp.add_lwpolyline([(*right, 0, 0, -math.tan(math.radians(bore_sweep() / 4))), (*left, 0, 0, 0),
                        (-KEY_HALF, KEY_TOP, 0, 0, 0), (KEY_HALF, KEY_TOP, 0, 0, 0)], format="xyseb", close=True,
                       dxfattribs=cam)
    msp.add_circle(HOLE_C, HOLE_R, dxfattribs=cam)


def cam_drawing() -> ezdxf.document.Drawing:
    doc = new_drawing()
    msp = doc.modelspace()
    draw_cam(msp)
    msp.add_line((0, -30), (0, 35), dxfattribs={"layer": "sketch"})
    msp.add_spline([(-20, 30), (0, 34), (20, 30)], dxfattribs={"layer": "sketch"})
    msp.add_text("DXF CAM", dxfattribs={"layer": "notes", "height": 3, "insert": (-10, -30)})
    return doc


def bad_drawing() -> ezdxf.document.Drawing:
    """The bad-input corpus's drawing, a layer per fault: ``open`` (a square whose last side
    stops 0.5 short), ``unread`` (two TEXTs, a POINT and a LINE), ``branch`` (a square
    with a line drawn twice)."""
    doc = new_drawing()
    for name in ("open", "unread", "branch"):
        doc.layers.add(name)
    msp = doc.modelspace()
    msp.add_lwpolyline([(0, 0), (10, 0), (10, 10), (0, 10), (0, 0.5)], dxfattribs={"layer": "open"})
    msp.add_text("A", dxfattribs={"layer": "unread"})
    msp.add_text("B", dxfattribs={"layer": "unread"})
    msp.add_point((20, 0), dxfattribs={"layer": "unread"})
    msp.add_line((0, 0), (10, 0), dxfattribs={"layer": "unread"})
    msp.add_lwpolyline([(0, 0), (10, 0), (10, 10), (0, 10)], close=True, dxfattribs={"layer": "branch"})
    msp.add_line((10, 0), (10, 10), dxfattribs={"layer": "branch"})
    return doc


MECHANISM = f'''# A cam plate read from a DXF drawing lifts a flat-faced follower against a spring.
# The drawing, parts/dxf-cam.dxf (layer "cam", millimetres), is written by
# tools/make_dxf_cam.py: a base circle of radius {BASE_R:g} about the pivot and a
# lobe of radius {LOBE_R:g} about (0, {LOBE_C[1]:g}) joined by tangent lines, drawn from an ARC,
# two LINEs and a bulged LWPOLYLINE; a keyed bore (a closed LWPOLYLINE) and a lightening
# hole (a CIRCLE) are the plate's holes. It turns counterclockwise one turn under a
# flat-faced follower pressed down by a spring.
#
# Closed form, the cam at angle th: the follower's face rests on the lobe while
# |th| <= pi/3, at yf = 12 + 16 cos th, and on the base circle otherwise, at yf = 20.
# Its lift is 28 - 20 = {LIFT:g}. It starts {START_GAP:g} above the lobe's top (more than the
# turning gap); at t = 0, in no input time, the spring lowers it onto the cam.

[mechanism]
name = "dxf-cam"
time = {2 * math.pi!r}         # one turn of the cam

[[parts]]
name = "cam"
motion = "fixed-axes"
coordinates = [ {{ name = "th", pivot = [0, 0], initial = 0 }} ]

[[parts.slices]]
z = [0, 5]
profiles = [ {{ dxf = "parts/dxf-cam.dxf", layer = "cam" }} ]

[[parts]]
name = "follower"
motion = "fixed-axes"
coordinates = [ {{ name = "yf", axis = [0, 1], initial = {LOBE_C[1] + LOBE_R + START_GAP!r}, limits = [0, 40] }} ]

[[parts.slices]]
z = [0, 5]
profiles = [ {{ rect = [{", ".join(f"{v:g}" for v in FOLLOWER)}] }} ]     # face (bottom) at height yf

[[forces]]
kind = "spring"
coordinate = "yf"
direction = -1

[[inputs]]
name = "cam turns counterclockwise"
velocities = {{ th = 1.0 }}
sampling = 0.25
'''

NOT_A_DXF = "This is a cam plate, honest.\nBut it is a text file, not a DXF drawing.\n"


def main() -> None:
    DXF.parent.mkdir(parents=True, exist_ok=True)
    cam_drawing().saveas(DXF)
    TOML.write_text(MECHANISM)
    BAD.mkdir(parents=True, exist_ok=True)
    bad_drawing().saveas(BAD / "faults.dxf")
    (BAD / "not-a-dxf.dxf").write_text(NOT_A_DXF)


if __name__ == "__main__":
    main()
