"""Profiles from DXF drawings (cspace.io.dxf): the cam plate of fixtures/dxf-cam.toml against the
numbers its generator drew it with (tools/make_dxf_cam.py) and against ezdxf's own reading,
its trace against the closed form, units, mirrored entities, and every error."""

from __future__ import annotations

import math

import ezdxf
import numpy as np
import pytest
import shapely
from ezdxf.math import bulge_to_arc

from cspace import analyze, load, loads, trace
from cspace.io.dxf import MM_PER_UNIT, layer_profiles, mm_per_unit, read_profiles
from cspace.model.errors import DxfError, ModelError
from cspace.model.geometry import Arc, Line, region_of
from cspace.testing import replay

from .common import ROOT, fixture_path, slow, tool, traced

DRAWING = ROOT / "fixtures" / "parts" / "dxf-cam.dxf"


def make():
    return tool("make_dxf_cam")


def cam():
    return read_profiles(DRAWING, "cam")


def close(a, b, tol=1e-9) -> bool:
    return math.dist(a, b) <= tol


def drawing(units: int = 4):
    doc = ezdxf.new("R2010", units=units)
    return doc, doc.modelspace()


def write(doc, tmp_path, name: str = "part.dxf"):
    path = tmp_path / name
    doc.saveas(path)
    return path


# -- the cam plate, against the drawing's own numbers ---------------------------------------------

def test_the_cam_layer_is_three_loops_in_the_order_drawn_with_faces_named_in_chain_order():
    outline, bore, hole = cam()
    assert [[type(e).__name__ for e in p.elements] for p in (outline, bore, hole)] == [
        ["Arc", "Line", "Arc", "Line"], ["Arc", "Line", "Line", "Line"], ["Arc"]]
    assert [e.name for p in (outline, bore, hole) for e in p.elements] == [f"e{k}" for k in range(9)]
    for loop in (outline, bore):  # closed end to end, exactly (the joined ends are snapped)
        assert all(a.end == b.start for a, b in zip(loop.elements, loop.elements[1:] + loop.elements[:1]))


def test_the_lobe_and_the_base_circle_are_where_the_generator_drew_them():
    """The lobe is a clockwise-drawn bulge, chained backwards: a reader that gets the bulge's
    sign wrong puts its centre at (0, 28), above the chord, and the cam dips where it should rise."""
    g = make()
    base, right, lobe, left = cam()[0].elements
    assert close(base.center, (0, 0)) and base.radius == pytest.approx(g.BASE_R, abs=1e-12)
    assert close(lobe.center, g.LOBE_C) and lobe.radius == pytest.approx(g.LOBE_R, abs=1e-12)
    assert close(base.end, g.on((0, 0), g.BASE_R, g.TANGENT)) and close(base.start, g.on((0, 0), g.BASE_R, 150))
    assert close(lobe.start, g.on(g.LOBE_C, g.LOBE_R, g.TANGENT)) and close(lobe.end, g.on(g.LOBE_C, g.LOBE_R, 150))
    # Chained from the ARC (counterclockwise, as ARCs are), the whole loop runs counterclockwise:
    # the lobe over the top from 30 to 150 degrees (120 of them), the base under the bottom (240).
    assert base.ccw and lobe.ccw
    assert math.degrees(lobe.sweep) == pytest.approx(180 - 2 * g.TANGENT)
    assert math.degrees(base.sweep) == pytest.approx(180 + 2 * g.TANGENT)
    assert isinstance(right, Line) and isinstance(left, Line)
    assert close(right.start, base.end) and close(left.end, base.start)


def test_the_bore_and_the_hole_are_where_the_generator_drew_them():
    g = make()
    bore, hole = cam()[1:]
    arc = bore.elements[0]
    assert close(arc.center, (0, 0)) and arc.radius == pytest.approx(g.BORE_R, abs=1e-12) and not arc.ccw
    assert math.degrees(arc.sweep) == pytest.approx(g.bore_sweep())
    assert close(arc.start, g.key_corner(1)) and close(arc.end, g.key_corner(-1))
    # The closing segment of the closed polyline is there: back down from the keyway to the bore.
    assert bore.elements[-1] == Line((g.KEY_HALF, g.KEY_TOP), g.key_corner(1), "e7")
    (circle,) = hole.elements
    assert close(circle.center, g.HOLE_C) and circle.radius == g.HOLE_R and circle.start == circle.end


def test_every_arc_matches_ezdxf_reading_the_file_itself():
    """Read back independently: each ARC's, CIRCLE's and bulge's centre and radius by ezdxf
    (``bulge_to_arc``) is one of the profile's arcs'."""
    doc = ezdxf.readfile(DRAWING)
    expected = []
    for entity in doc.modelspace().query('*[layer=="cam"]'):
        if entity.dxftype() in ("ARC", "CIRCLE"):
            expected.append((tuple(entity.dxf.center)[:2], entity.dxf.radius))
        elif entity.dxftype() == "LWPOLYLINE":
            points = list(entity.get_points("xyb"))
            ends = list(zip(points, points[1:] + points[:1])) if entity.closed else list(zip(points, points[1:]))
            for (x0, y0, bulge), (x1, y1, _) in ends:
                if bulge:
                    center, _, _, radius = bulge_to_arc((x0, y0), (x1, y1), bulge)
                    expected.append(((center.x, center.y), radius))
    arcs = [(e.center, e.radius) for p in cam() for e in p.elements if isinstance(e, Arc)]
    assert len(arcs) == len(expected) == 4
    for center, radius in expected:
        assert any(close(center, c) and radius == pytest.approx(r, abs=1e-12) for c, r in arcs), (center, radius)


def exact_area() -> float:
    """The plate's area from the generator's numbers: base sector (240 degrees) + lobe sector (120)
    + two quadrilaterals (pivot, flank, lobe centre), less the keyed bore and the hole."""
    g = make()
    quad = [(0.0, 0.0), g.on((0, 0), g.BASE_R, g.TANGENT), g.on(g.LOBE_C, g.LOBE_R, g.TANGENT), g.LOBE_C]
    outline = (0.5 * g.BASE_R ** 2 * math.radians(180 + 2 * g.TANGENT)
               + 0.5 * g.LOBE_R ** 2 * math.radians(180 - 2 * g.TANGENT) + 2 * shapely.Polygon(quad).area)
    corner_y = g.key_corner(1)[1]
    bore = (0.5 * g.BORE_R ** 2 * math.radians(g.bore_sweep()) + g.KEY_HALF * corner_y
            + 2 * g.KEY_HALF * (g.KEY_TOP - corner_y))
    return outline - bore - math.pi * g.HOLE_R ** 2


def test_area_and_bounds_match_the_drawing_within_the_arc_tolerance():
    """Through the loader: shapely's area of the slice (holes nested in the outline) and its
    bounds (x within the base circle, y from the base circle's bottom to the lobe's top)."""
    mechanism = load(fixture_path("dxf-cam"))
    part = mechanism.part("cam")
    arc = mechanism.tolerance.arc
    material = region_of(part.slices[0].profiles)
    perimeter = material.boundary.length
    assert material.area == pytest.approx(exact_area(), abs=arc * perimeter)
    finely = region_of(part.slices[0].profiles, tolerance=1e-6)  # chords within 1e-6 of the arcs
    assert finely.area == pytest.approx(exact_area(), abs=1e-6 * perimeter)
    assert len(material.interiors) == 2
    g = make()
    assert material.bounds == pytest.approx((-g.BASE_R, -g.BASE_R, g.BASE_R, g.LOBE_C[1] + g.LOBE_R), abs=arc)


def test_a_fresh_drawing_from_the_tool_reads_as_the_committed_one(tmp_path):
    g = make()
    path = write(g.cam_drawing(), tmp_path)
    assert read_profiles(path, "cam") == cam()
    assert fixture_path("dxf-cam").read_text() == g.MECHANISM


# -- the fixture's motion -----------------------------------------------------------------------

def lift(th: np.ndarray) -> np.ndarray:
    """The follower's face height on the cam at angle th: on the lobe within 60 degrees of
    its top, on the base circle beyond."""
    th = np.remainder(th + np.pi, 2 * np.pi) - np.pi
    return np.where(np.abs(th) <= np.pi / 3, 12 + 16 * np.cos(th), 20.0)


def test_the_follower_rides_the_drawn_cam_and_lifts_by_the_lobe_less_the_base_circle():
    result = traced("dxf-cam")
    assert replay(result) == []
    mechanism = result.mechanism
    index = [mechanism.coordinate_index[n] for n in ("th", "yf")]
    th, yf = np.array([q[index] for _, _, q in result.samples()]).T
    landed = np.arange(len(th)) > 0  # the first sample is the start, 0.05 above the lobe
    arc, length = mechanism.tolerance.arc, mechanism.tolerance.length
    error = yf[landed] - lift(th[landed])
    # Outward linearization: never below the drawn cam, at most the arc tolerance above it.
    assert error.min() >= -length and error.max() <= arc
    assert abs(math.remainder(th[-1], 2 * np.pi)) <= 1e-9  # one whole turn
    assert yf[landed].max() - yf[landed].min() == pytest.approx(make().LIFT, abs=arc)  # 28 - 20
    assert yf[landed].min() == pytest.approx(20, abs=arc) and yf[landed].max() == pytest.approx(28, abs=arc)
    faces = {face for s in result.segments[1:] for c in s.first.contacts for face in c.faces_a}
    assert {"e0", "e2"} <= faces  # the base circle and the lobe (and corners with the flanks)
    assert all(s.first.contacts for s in result.segments[1:])  # it never leaves the cam


# -- units and mirrored entities ----------------------------------------------------------------

@pytest.mark.parametrize("units, per_mm", [(1, 1 / 25.4), (6, 1e-3), (5, 0.1), (0, 1.0), (4, 1.0)])
def test_a_drawing_in_other_units_reads_in_millimetres(units, per_mm, tmp_path):
    """The same plate drawn in inches, metres, centimetres or no unit (scaled by ezdxf itself)
    reads as the millimetre drawing: a reader that ignored $INSUNITS would read it 25.4 times
    too small (inches) or 1000 times (metres)."""
    g = make()
    doc = g.cam_drawing()
    for entity in doc.modelspace():
        entity.scale_uniform(per_mm)
    doc.units = units
    mine = read_profiles(write(doc, tmp_path), "cam")
    for theirs, ours in zip(mine, cam(), strict=True):
        for a, b in zip(theirs.elements, ours.elements, strict=True):
            assert type(a) is type(b) and a.name == b.name
            assert close(a.start, b.start, 1e-9) and close(a.end, b.end, 1e-9)
            if isinstance(a, Arc):
                assert close(a.center, b.center, 1e-9) and a.ccw == b.ccw


def test_unit_factors_are_exact_definitions():
    assert mm_per_unit(1) == 25.4 and mm_per_unit(2) == 304.8 and mm_per_unit(9) == 0.0254
    assert mm_per_unit(21) == pytest.approx(1200 / 3937 * 1000, rel=1e-15)  # the US survey foot
    assert mm_per_unit(0) == mm_per_unit(4) == 1.0
    assert sorted(MM_PER_UNIT) == list(range(25))
    with pytest.raises(DxfError, match=r"unknown \$INSUNITS 99"):
        mm_per_unit(99)


def test_an_unknown_unit_is_an_error(tmp_path):
    doc, msp = drawing()
    msp.add_circle((0, 0), 1, dxfattribs={"layer": "plate"})
    doc.header["$INSUNITS"] = 99
    with pytest.raises(DxfError, match=r"part\.dxf: unknown \$INSUNITS 99"):
        read_profiles(write(doc, tmp_path), "plate", shown="part.dxf")


def test_an_arc_and_a_bulge_seen_from_below_are_mirrored_as_cad_shows_them():
    """Extrusion -z (an entity mirrored in CAD): the OCS x axis is the world's -x, and a
    counterclockwise arc or bulge runs clockwise. Both D shapes bulge to +x; a reader that
    ignores the extrusion draws them bulging to -x."""
    for kind in ("ARC", "LWPOLYLINE"):
        doc, msp = drawing()
        down = {"layer": "d", "extrusion": (0, 0, -1)}
        if kind == "ARC":
            msp.add_arc((0, 0), 5, 90, 270, dxfattribs=down)  # in its own frame: over the left
            msp.add_line((0, -5), (0, 5), dxfattribs={"layer": "d"})
        else:
            msp.add_lwpolyline([(0, 5, 0, 0, 1), (0, -5, 0, 0, 0)], format="xyseb", close=True, dxfattribs=down)
        (profile,) = layer_profiles(doc, "d")
        assert region_of([profile]).bounds == pytest.approx((0, -5, 5, 5), abs=1e-3), kind


def test_layer_names_match_without_regard_to_case():
    assert read_profiles(DRAWING, "CAM") == cam()


# -- what a drawing may leave open, and the tolerance --------------------------------------------

def square(msp, gap: float, size: float, layer: str = "sq"):
    """A square of side ``size`` from four LINEs, the last stopping ``gap`` short of the first corner."""
    corners = [(0, 0), (size, 0), (size, size), (0, size), (0, gap)]
    for a, b in zip(corners, corners[1:]):
        msp.add_line(a, b, dxfattribs={"layer": layer})


@pytest.mark.parametrize("size", [10.0, 1e-3, 1e4])
def test_ends_join_within_the_length_tolerance_of_the_drawings_size(size):
    """The tolerance is 1e-7 of the drawing's longer side (cspace.model.tolerance's length factor): a
    gap of a tenth of it joins (snapped: the profile closes exactly), ten times it is open, at
    any scale."""
    tolerance = 1e-7 * size
    doc, msp = drawing(0)
    square(msp, 0.1 * tolerance, size)
    (profile,) = layer_profiles(doc, "sq")
    assert profile.elements[-1].end == profile.elements[0].start  # snapped to one point
    assert close(profile.elements[0].start, (0, 0), tolerance)
    doc, msp = drawing(0)
    square(msp, 10 * tolerance, size)
    with pytest.raises(DxfError, match=r"the outline is open: a gap of \S+ between \(0, 0\) and \(0, \S+\)"):
        layer_profiles(doc, "sq")


def test_an_open_chain_names_the_gap_in_the_drawings_own_coordinates():
    doc, msp = drawing(1)  # inches: the message speaks the drawing's numbers, not millimetres
    square(msp, 0.25, 2.0)
    with pytest.raises(DxfError) as caught:
        layer_profiles(doc, "sq", shown="parts/sq.dxf")
    assert str(caught.value) == ("parts/sq.dxf: layer 'sq': the outline is open: a gap of 0.25 between (0, 0) and "
                                 "(0, 0.25); ends closer than the length tolerance join")


def test_a_branch_is_named_where_three_ends_meet():
    doc, msp = drawing()
    square(msp, 0, 10)
    msp.add_line((10, 0), (5, 5), dxfattribs={"layer": "sq"})
    msp.add_line((5, 5), (0, 0), dxfattribs={"layer": "sq"})
    with pytest.raises(DxfError, match=r"layer 'sq': 3 ends meet at \(0, 0\): a loop may not branch"):
        layer_profiles(doc, "sq")


def test_a_closed_polyline_needs_its_closed_flag():
    doc, msp = drawing()
    msp.add_lwpolyline([(0, 0), (4, 0), (4, 3)], dxfattribs={"layer": "t"})
    with pytest.raises(DxfError, match=r"a gap of 5 between \(0, 0\) and \(4, 3\)"):
        layer_profiles(doc, "t")
    doc, msp = drawing()
    msp.add_lwpolyline([(0, 0), (4, 0), (4, 4), (4, 4), (0, 4)], close=True, dxfattribs={"layer": "t"})
    (profile,) = layer_profiles(doc, "t")  # the repeated vertex is a point, not a face
    assert [e.end for e in profile.elements] == [(4, 0), (4, 4), (0, 4), (0, 0)]


# -- errors, each one line naming the drawing and the layer --------------------------------------

def test_a_missing_file_a_folder_and_a_file_ezdxf_cannot_read(tmp_path):
    with pytest.raises(DxfError, match=r"^parts/none\.dxf: no such file \(a dxf path is relative to the mechanism"):
        read_profiles(tmp_path / "none.dxf", "cam", shown="parts/none.dxf")
    with pytest.raises(DxfError, match=r"is a directory, not a DXF file$"):
        read_profiles(tmp_path, "cam")
    text = tmp_path / "text.dxf"
    text.write_text("a cam, honest\n")
    with pytest.raises(DxfError, match=r"^text\.dxf: not a DXF file ezdxf can read$"):
        read_profiles(text, "cam", shown="text.dxf")
    broken = tmp_path / "broken.dxf"  # a DXF whose LINE has a coordinate that is not a number
    broken.write_text("0\nSECTION\n2\nENTITIES\n0\nLINE\n8\ncam\n10\nabc\n0\nENDSEC\n0\nEOF\n")
    with pytest.raises(DxfError, match=r"^broken\.dxf: not a DXF file ezdxf can read \(.+\)$"):
        read_profiles(broken, "cam", shown="broken.dxf")


def test_a_layer_without_entities_lists_the_layers_that_have_some():
    with pytest.raises(DxfError) as caught:
        read_profiles(DRAWING, "cams", shown="parts/dxf-cam.dxf")
    assert str(caught.value) == ("parts/dxf-cam.dxf: layer 'cams': no entities on this layer (did you mean 'cam'?); "
                                 "the layers with entities are 'cam' (6), 'notes' (1), 'sketch' (2)")


def test_entities_cspace_does_not_read_are_listed_by_type_with_counts():
    """Only on the layer read: the fixture's own drawing has a SPLINE and a TEXT on other layers."""
    doc, msp = drawing()
    square(msp, 0, 10)
    for _ in range(2):
        msp.add_point((5, 5), dxfattribs={"layer": "sq"})
    msp.add_hatch(dxfattribs={"layer": "sq"})
    msp.add_text("A", dxfattribs={"layer": "sq"})
    msp.add_text("B", dxfattribs={"layer": "sq"})
    msp.add_text("C", dxfattribs={"layer": "sq"})
    with pytest.raises(DxfError, match=r"layer 'sq': entities cspace does not read: TEXT x3, POINT x2, HATCH x1; "):
        layer_profiles(doc, "sq")
    doc, msp = drawing()
    msp.add_circle((0, 0), 3, dxfattribs={"layer": "disk"})
    msp.add_point((5, 5), dxfattribs={"layer": "sketch"})
    assert len(layer_profiles(doc, "disk")) == 1


def test_an_entity_drawn_in_a_tilted_plane_is_an_error():
    doc, msp = drawing()
    msp.add_circle((0, 0), 3, dxfattribs={"layer": "disk", "extrusion": (0, 1, 1)})
    with pytest.raises(DxfError, match=r"CIRCLE #\w+ is drawn in a plane other than XY \(extrusion \(0, 1, 1\)\)"):
        layer_profiles(doc, "disk")


def test_too_many_segments_and_too_large_a_drawing_are_errors():
    doc, msp = drawing()
    msp.add_lwpolyline([(math.cos(k / 100), math.sin(k / 100)) for k in range(629)], close=True,
                       dxfattribs={"layer": "ring"})
    with pytest.raises(DxfError, match=r"layer 'ring': 629 segments; a mechanism has at most 600 faces"):
        layer_profiles(doc, "ring", max_faces=600)
    doc, msp = drawing(7)  # kilometres: 2,000 km is 2e9 mm
    msp.add_circle((0, 0), 2000, dxfattribs={"layer": "disk"})
    with pytest.raises(DxfError, match=r"it reaches 2e\+09 mm from the origin; numbers in a mechanism are at most"):
        layer_profiles(doc, "disk", max_magnitude=1e9)


# -- through the loader ---------------------------------------------------------------------------

PLATE = """
[[parts]]
name = "plate"
motion = "fixed"

[[parts.slices]]
z = [0, 1]
profiles = [ {profiles} ]
"""


def test_a_loader_error_is_one_line_naming_file_part_field_drawing_and_layer(tmp_path):
    mechanism = tmp_path / "m.toml"
    mechanism.write_text(PLATE.format(profiles='{ rect = [50, 50, 60, 60] }, { dxf = "none.dxf", layer = "cam" }'))
    with pytest.raises(DxfError) as caught:
        load(mechanism)
    assert isinstance(caught.value, ModelError)
    assert str(caught.value) == (f"{mechanism}: part 'plate': slices[0].profiles[1]: none.dxf: no such file (a dxf "
                                 "path is relative to the mechanism file's folder)")


def test_the_path_is_relative_to_the_mechanism_files_folder(tmp_path, monkeypatch):
    (tmp_path / "parts").mkdir()
    write(make().cam_drawing(), tmp_path / "parts", "cam.dxf")
    mechanism = tmp_path / "m.toml"
    mechanism.write_text(PLATE.format(profiles='{ dxf = "parts/cam.dxf", layer = "cam" }'))
    monkeypatch.chdir(ROOT / "tests")
    (part,) = load(mechanism).parts
    assert part.slices[0].profiles == cam()


def test_names_prefixes_faces_and_sticky_apply_to_every_loop():
    text = PLATE.format(profiles=f'{{ dxf = "{DRAWING}", layer = "cam", name = "plate", sticky = ["e2"] }}')
    (part,) = loads(text).parts
    assert [e.name for p in part.slices[0].profiles for e in p.elements][:4] == [
        "plate.e0", "plate.e1", "plate.e2", "plate.e3"]
    assert part.sticky == {"plate.e2"}
    text = PLATE.format(profiles=f'{{ dxf = "{DRAWING}", layer = "cam" }}, {{ rect = [30, 30, 31, 31] }}')
    (part,) = loads(text).parts
    assert len(part.slices[0].profiles) == 4
    assert part.slices[0].profiles[0].elements[0].name == "p0.e0"
    assert part.slices[0].profiles[3].elements[0].name == "p1.bottom"
    faces = ["base", "flank", "lobe", "flank2", "bore", "key", "key", "key", "hole"]
    listed = ", ".join(f'"{f}"' for f in faces)
    (part,) = loads(PLATE.format(profiles=f'{{ dxf = "{DRAWING}", layer = "cam", faces = [{listed}] }}')).parts
    assert [e.name for p in part.slices[0].profiles for e in p.elements] == faces
    with pytest.raises(ModelError, match=r"profiles\[0\].faces: 2 names for 9 faces \(the layer's 3 loops together\)"):
        loads(PLATE.format(profiles=f'{{ dxf = "{DRAWING}", layer = "cam", faces = ["a", "b"] }}'))
    with pytest.raises(ModelError, match=r"profiles\[0\]: give exactly one of 'rect', 'circle', 'path' or 'dxf'"):
        loads(PLATE.format(profiles=f'{{ dxf = "{DRAWING}", layer = "cam", rect = [0, 0, 1, 1] }}'))
    with pytest.raises(ModelError, match=r"profiles\[0\].layer: missing"):
        loads(PLATE.format(profiles=f'{{ dxf = "{DRAWING}" }}'))


def test_hostile_drawings_fail_fast():
    """A thousand lines through one point and ten thousand loose ones: each an error found in
    linear time (a cell of the join grid holding more than 8 ends is a branch; the nearest loose
    ends by a k-d tree), not a quadratic search."""
    doc, msp = drawing()
    for k in range(1000):
        msp.add_line((0, 0), (math.cos(k), math.sin(k)), dxfattribs={"layer": "star"})
    with pytest.raises(DxfError, match=r"layer 'star': more than 8 ends meet at \(0, 0\): a loop may not branch"):
        layer_profiles(doc, "star")
    doc, msp = drawing()
    for k in range(10000):
        msp.add_line((3 * k, 0), (3 * k + 1, 0), dxfattribs={"layer": "dashes"})
    msp.add_line((30000, 0), (30000.5, 0), dxfattribs={"layer": "dashes"})
    gap = r"a gap of 0.5 between \(30000, 0\) and \(30000.5, 0\) \(20002 loose ends in all\)"
    with pytest.raises(DxfError, match=gap):
        layer_profiles(doc, "dashes")


# -- bulges far from 1 in size --------------------------------------------------------------------

def bulged_square(tmp_path, bulge: float):
    """A 10 mm square whose right side is bulged by ``bulge``, as the profile of a fixed part."""
    doc, msp = drawing()
    msp.add_lwpolyline([(0, 0, 0), (10, 0, bulge), (10, 10, 0), (0, 10, 0)], format="xyb", close=True,
                       dxfattribs={"layer": "plate"})
    write(doc, tmp_path, "plate.dxf")
    mechanism = tmp_path / "m.toml"
    mechanism.write_text(PLATE.format(profiles='{ dxf = "plate.dxf", layer = "plate" }'))
    return mechanism


@pytest.mark.parametrize("bulge", [1e-6, -0.01, 0.5, 1.0, -3.0, 1e3, -1e6])
def test_a_bulge_of_any_reasonable_size_is_the_arc_ezdxf_reads(tmp_path, bulge):
    (part,) = load(bulged_square(tmp_path, bulge)).parts
    (arc,) = [e for e in part.slices[0].profiles[0].elements if isinstance(e, Arc)]
    center, _, _, radius = bulge_to_arc((10, 0), (10, 10), bulge)
    assert close(arc.center, (center.x, center.y), 1e-9 * radius) and arc.radius == pytest.approx(radius, rel=1e-12)


@pytest.mark.parametrize("bulge", [1e300, -1e300, 1e200, 1e10, 1e-300, 1e-320])
def test_a_bulge_whose_arc_no_mechanism_holds_is_one_line_naming_the_entity(tmp_path, bulge, capsys):
    """A bulge of 1e300 crashed in geometry.py (``NaN to integer``): squaring it overflowed and the
    arc's centre was not a number. Its arc (or, near 0, a nearly straight one) has a centre
    beyond any number a mechanism holds: refused, naming the drawing, the layer and the entity."""
    from cspace.cli import main

    mechanism = bulged_square(tmp_path, bulge)
    assert main(["check", str(mechanism)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and len(err.splitlines()) == 1
    assert err.startswith(f"cspace: error: {mechanism}: part 'plate': slices[0].profiles[0]: plate.dxf: layer "
                          "'plate': LWPOLYLINE #")
    assert " segment 1 (bulge " in err and "is an arc " in err


# -- loops nested in loops -------------------------------------------------------------------------

POCKET = """
[mechanism]
name = "pocket"
time = 5

[[parts]]
name = "plate"
motion = "fixed"

[[parts.slices]]
z = [0, 1]
profiles = [ { dxf = "plate.dxf", layer = "plate" } ]

[[parts]]
name = "block"
motion = "fixed-axes"
coordinates = [ { name = "y", axis = [0, 1], initial = 0 } ]

[[parts.slices]]
z = [0, 1]
profiles = [ { rect = [-2, 0, 2, 3] } ]

[[forces]]
kind = "gravity"
coordinate = "y"
direction = -1
"""


def test_a_block_lands_on_an_island_drawn_in_a_pocket(tmp_path):
    """A plate drawn as three loops on one layer: its outline (LINEs), a pocket inside it (a
    closed LWPOLYLINE, floor at y = -20) and an island inside the pocket (a closed
    LWPOLYLINE drawn clockwise, its top at y = -5). Nesting alternates, so the island is
    material: the block falling from y = 0 lands on it at y = -5 (it fell to the pocket's
    floor, -20, when a loop in a hole was a hole too); the replay, which builds the
    material from the loops itself, finds no overlap."""
    doc, msp = drawing()
    outline = [(-30, -25), (30, -25), (30, 20), (-30, 20)]
    for start, end in zip(outline, outline[1:] + outline[:1]):
        msp.add_line(start, end, dxfattribs={"layer": "plate"})
    msp.add_lwpolyline([(-20, -20), (20, -20), (20, 15), (-20, 15)], close=True, dxfattribs={"layer": "plate"})
    msp.add_lwpolyline([(-10, -12), (-10, -5), (10, -5), (10, -12)], close=True, dxfattribs={"layer": "plate"})
    write(doc, tmp_path, "plate.dxf")
    mechanism = tmp_path / "m.toml"
    mechanism.write_text(POCKET)
    loaded = load(mechanism)
    assert len(loaded.part("plate").slices[0].profiles) == 3
    assert region_of(loaded.part("plate").slices[0].profiles).area == pytest.approx(60 * 45 - 40 * 35 + 20 * 7)
    result = trace(analyze(loaded))
    assert result.segments[-1].finish[0] == pytest.approx(-5.0, abs=loaded.tolerance.length)
    assert replay(result) == []


# -- entities as CAD programs export them: POLYLINE, ELLIPSE, SPLINE, INSERT ---------------------

def arc_tolerance(loops) -> float:
    """The arc tolerance the drawing's curves are flattened within: the default factor times the
    longer side of the outline's bounding box (at most the part's, so at most the mechanism's)."""
    x0, y0, x1, y1 = region_of(loops).bounds
    return 1e-4 * max(x1 - x0, y1 - y0)


def outline(loop) -> shapely.LineString:
    """A loop of lines only (a flattened curve's), as a closed line string of its vertices."""
    assert all(isinstance(e, Line) for e in loop.elements)
    return shapely.LineString([e.start for e in loop.elements] + [loop.elements[0].start])


def ellipse_points(a: float, b: float, rotation: float = 0.0, center=(0.0, 0.0), n: int = 100_000) -> np.ndarray:
    t = np.linspace(0, 2 * np.pi, n)
    x, y = a * np.cos(t), b * np.sin(t)
    c, s = math.cos(rotation), math.sin(rotation)
    return np.c_[center[0] + c * x - s * y, center[1] + s * x + c * y]


def ellipse_perimeter(a: float, b: float) -> float:
    h = ((a - b) / (a + b)) ** 2
    return math.pi * (a + b) * (1 + 3 * h / (10 + math.sqrt(4 - 3 * h)))  # Ramanujan's, far closer than needed


@pytest.mark.parametrize("bulge", [1.0, -0.5])
def test_a_classic_polyline_square_with_a_bulged_edge_is_the_closed_forms_shape(bulge):
    """A closed 2D POLYLINE (the R12 entity, vertices as sub-entities): a 10 x 10 square whose
    right edge is bulged; the arc subtends 4 atan(bulge), its radius is chord / (2 sin(half the
    sweep)); a positive bulge swells the square by the circle's segment, a negative one cuts it."""
    doc = ezdxf.new("R12", units=4)
    doc.modelspace().add_polyline2d([(0, 0, 0, 0, 0), (10, 0, 0, 0, bulge), (10, 10, 0, 0, 0), (0, 10, 0, 0, 0)],
                                    format="xyseb", close=True, dxfattribs={"layer": "plate"})
    (loop,) = layer_profiles(doc, "plate")
    assert [type(e).__name__ for e in loop.elements] == ["Line", "Arc", "Line", "Line"]
    sweep = 4 * math.atan(abs(bulge))
    radius = 5 / math.sin(sweep / 2)
    arc = loop.elements[1]
    offset = math.sqrt(radius ** 2 - 25) * (1 if abs(bulge) < 1 else -1) * (1 if bulge > 0 else -1)
    assert arc.radius == pytest.approx(radius, rel=1e-12) and arc.ccw == (bulge > 0)
    assert close(arc.center, (10 - offset, 5), 1e-9) and arc.start == (10, 0) and arc.end == (10, 10)
    segment = radius ** 2 / 2 * (sweep - math.sin(sweep))
    area = 100 + segment * (1 if bulge > 0 else -1)
    assert region_of((loop,)).area == pytest.approx(area, abs=2 * math.pi * radius * 1e-4 * 15)


@pytest.mark.parametrize("a, b, rotation", [(20.0, 2.0, 0.0), (10.0, 6.0, 0.7), (5.0, 5.0, 2.0)])
def test_an_ellipse_is_flattened_within_the_arc_tolerance_of_the_true_ellipse(a, b, rotation):
    """The Hausdorff distance from the flattened outline to the parametric ellipse, densely
    sampled, is within the arc tolerance; its area is short of pi a b (the chords lie inside)
    by at most the perimeter times that tolerance."""
    doc, msp = drawing()
    major = (a * math.cos(rotation), a * math.sin(rotation))
    msp.add_ellipse((3, -4), major_axis=major, ratio=b / a, dxfattribs={"layer": "disk"})
    (loop,) = layer_profiles(doc, "disk")
    tolerance = arc_tolerance((loop,))
    true = shapely.LineString(ellipse_points(a, b, rotation, (3, -4)))
    assert outline(loop).hausdorff_distance(true) <= tolerance
    shortfall = math.pi * a * b - region_of((loop,)).area
    assert 0 <= shortfall <= ellipse_perimeter(a, b) * tolerance


def test_a_half_ellipse_closed_by_its_diameter_chains_with_the_line():
    """An elliptical arc (the upper half, 0 to pi) and the LINE across its ends: one loop, the
    line's stated ends kept where the two meet; the area is half of pi a b, within the bound."""
    doc, msp = drawing()
    msp.add_line((-8, 0), (8, 0), dxfattribs={"layer": "d"})
    msp.add_ellipse((0, 0), major_axis=(8, 0), ratio=0.5, start_param=0, end_param=math.pi,
                    dxfattribs={"layer": "d"})
    (loop,) = layer_profiles(doc, "d")
    assert loop.elements[0].start == (-8, 0) and loop.elements[0].end == (8, 0)
    assert all(x.end == y.start for x, y in zip(loop.elements, loop.elements[1:]))
    shortfall = math.pi * 8 * 4 / 2 - region_of((loop,)).area
    assert 0 <= shortfall <= ellipse_perimeter(8, 4) / 2 * arc_tolerance((loop,))


def test_a_spline_is_within_the_arc_tolerance_of_ezdxfs_fine_flattening():
    """A cubic SPLINE from control points, closed by a LINE between its ends (a clamped spline
    passes through its first and last control points), against ezdxf's flattening of the same
    spline at a millionth of the tolerance."""
    doc, msp = drawing()
    spline = msp.add_open_spline([(0, 0), (4, 9), (12, -3), (17, 10), (20, 0)], degree=3,
                                 dxfattribs={"layer": "s"})
    msp.add_line((20, 0), (0, 0), dxfattribs={"layer": "s"})
    (loop,) = layer_profiles(doc, "s")
    tolerance = arc_tolerance((loop,))
    fine = [(v.x, v.y) for v in spline.flattening(tolerance * 1e-6)]
    assert len(fine) > 10 * len(loop.elements)
    true = shapely.LineString(fine + [fine[0]])
    assert outline(loop).hausdorff_distance(true) <= tolerance
    assert region_of((loop,)).area == pytest.approx(abs(shapely.Polygon(fine).area), abs=25 * tolerance)


def l_shape(block) -> list[tuple[float, float]]:
    """An L-shaped plate in a block, its bore a nested block; the outline, as drawn, in the block's frame."""
    points = [(0, 0), (6, 0), (6, 2), (2, 2), (2, 5), (0, 5)]
    block.add_lwpolyline(points, close=True)
    return points


@pytest.mark.parametrize("scale", [(2.0, 2.0), (-1.5, 1.5), (2.0, 1.0)])
def test_an_insert_is_exploded_with_its_transform_nested_blocks_too(scale):
    """An L-shaped plate in block 'plate', with a bore (a CIRCLE of radius 0.5 in block 'bore',
    inserted at (1, 1) in 'plate'), inserted rotated by 30 degrees, scaled and moved: its
    outline is shapely's affine transform of the block's own. Uniform scale keeps the bore a
    circle; a mirrored one too; a non-uniform one makes it an ellipse, flattened."""
    doc, msp = drawing()
    bore = doc.blocks.new("bore")
    bore.add_circle((0, 0), 0.5)
    plate = doc.blocks.new("plate")
    points = l_shape(plate)
    plate.add_blockref("bore", (1, 1))
    msp.add_blockref("plate", (30, -5), dxfattribs={"layer": "cam", "rotation": 30, "xscale": scale[0],
                                                      "yscale": scale[1]})
    loops = layer_profiles(doc, "cam")
    assert len(loops) == 2

    def placed(geometry):
        scaled = shapely.affinity.scale(geometry, scale[0], scale[1], origin=(0, 0))
        return shapely.affinity.translate(shapely.affinity.rotate(scaled, 30, origin=(0, 0)), 30, -5)

    expected = placed(shapely.Polygon(points))
    corners = [e.start for e in loops[0].elements]
    assert len(corners) == 6 and all(min(math.dist(c, q) for q in expected.exterior.coords) < 1e-9 for c in corners)
    hole = placed(shapely.Point(1, 1).buffer(0.5, 4096))
    if scale[0] == -scale[1] or scale[0] == scale[1]:
        (circle,) = loops[1].elements
        assert close(circle.center, placed(shapely.Point(1, 1)).coords[0], 1e-9)
        assert circle.radius == pytest.approx(0.5 * abs(scale[0]), rel=1e-12)
    else:
        assert outline(loops[1]).hausdorff_distance(hole.exterior) <= arc_tolerance(loops) + 1e-4
    difference = region_of(loops).symmetric_difference(expected.difference(hole)).area
    assert difference <= hole.length * arc_tolerance(loops)  # the L's corners are exact; the bore's within tolerance


def test_a_blocks_entities_on_layer_0_show_on_the_references_layer_others_on_their_own():
    """As CAD programs show them: the block's square, on layer 0, is on the INSERT's layer
    ('cam'); its circle, drawn on layer 'holes', is on 'holes' wherever the block is inserted."""
    doc, msp = drawing()
    block = doc.blocks.new("part")
    block.add_lwpolyline([(0, 0), (4, 0), (4, 4), (0, 4)], close=True)
    block.add_circle((2, 2), 1, dxfattribs={"layer": "holes"})
    msp.add_blockref("part", (10, 0), dxfattribs={"layer": "cam"})
    (square,) = layer_profiles(doc, "cam")
    assert [e.start for e in square.elements] == [(10, 0), (14, 0), (14, 4), (10, 4)]
    (hole,) = layer_profiles(doc, "holes")
    assert hole.elements[0].center == (12, 2)


def test_a_block_inserted_within_itself_and_a_mesh_are_one_line_errors_naming_the_entity():
    doc, msp = drawing()
    loop = doc.blocks.new("loop")
    loop.add_line((0, 0), (1, 0))
    inner = loop.add_blockref("loop", (1, 1))
    insert = msp.add_blockref("loop", (0, 0), dxfattribs={"layer": "cam"})
    with pytest.raises(DxfError) as caught:
        layer_profiles(doc, "cam")
    assert str(caught.value) == (f"<drawing>: layer 'cam': INSERT #{inner.dxf.handle} in block 'loop' of INSERT "
                                 f"#{insert.dxf.handle} inserts block 'loop' within itself")
    doc, msp = drawing()
    mesh = msp.add_polymesh((2, 2), dxfattribs={"layer": "m"})
    with pytest.raises(DxfError, match=rf"^<drawing>: layer 'm': POLYLINE #{mesh.dxf.handle} is a mesh "):
        layer_profiles(doc, "m")


DROP = POCKET.replace('name = "pocket"', 'name = "drop"').replace("initial = 0", "initial = 12")


@pytest.mark.parametrize("kind, top", [("ellipse", 4.0), ("polyline", 5.0)])
def test_a_block_falls_onto_a_drawn_ellipse_or_bulged_polyline_and_rests_on_its_top(tmp_path, kind, top):
    """A block 4 wide, centred over the origin, falls from y = 12 onto a fixed plate drawn as an
    ELLIPSE (semi-axes 10 and 4: its top at y = 4) or as a classic POLYLINE whose top edge is
    a half circle of radius 5 about the origin (bulge 1: its top at y = 5). It rests on the
    top, within the mechanism's arc tolerance; the replay finds no overlap."""
    doc, msp = drawing()
    if kind == "ellipse":
        msp.add_ellipse((0, 0), major_axis=(10, 0), ratio=0.4, dxfattribs={"layer": "plate"})
    else:
        msp.add_polyline2d([(-5, -10, 0, 0, 0), (5, -10, 0, 0, 0), (5, 0, 0, 0, 1), (-5, 0, 0, 0, 0)],
                           format="xyseb", close=True, dxfattribs={"layer": "plate"})
    write(doc, tmp_path, "plate.dxf")
    mechanism = tmp_path / "m.toml"
    mechanism.write_text(DROP)
    loaded = load(mechanism)
    result = trace(analyze(loaded))
    assert result.segments[0].start[0] == 12
    assert result.segments[-1].finish[0] == pytest.approx(top, abs=loaded.tolerance.arc)
    assert replay(result) == []


@slow
def test_a_files_arc_tolerance_is_the_one_its_ellipses_are_flattened_within(tmp_path):
    """``[tolerance] arc = 1e-6`` (read before the parts): the ellipse keeps within 1e-6 of
    its size (20), nearer than the default 1e-4 leaves it."""
    doc, msp = drawing()
    msp.add_ellipse((0, 0), major_axis=(10, 0), ratio=0.4, dxfattribs={"layer": "plate"})
    write(doc, tmp_path, "plate.dxf")
    mechanism = tmp_path / "m.toml"
    true = shapely.LineString(ellipse_points(10, 4))
    deviations = []
    for factor in (None, 1e-6):
        mechanism.write_text(DROP + (f"\n[tolerance]\narc = {factor}\n" if factor else ""))
        (loop,) = load(mechanism).part("plate").slices[0].profiles
        deviations.append(outline(loop).hausdorff_distance(true))
    assert deviations[1] <= 1e-6 * 20 < deviations[0] <= 1e-4 * 20
