"""``cspace draw`` (viz.drawing from viz.marks): the mechanism at its initial configuration.

The SVG is read back as a browser reads it (its groups' transforms applied, y up) and checked
against the file, never against viz's own numbers: each part's outline against shapely's
polygon of its profiles, placed by the file's initial values (turned about its pivot, moved
along its axes); a linkage member by its pins closing; each pivot where the file puts it;
each arrow along (or about) the coordinate its force or input moves, its way; each limit as far
from the other as the file's limits are. Every shipped example is drawn.
"""

from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ET

import numpy as np
import pytest
import shapely
import shapely.affinity
from cspace.viz.notebook import mechanism_html
from PIL import Image
from shapely.geometry import LineString, Point, Polygon

from cspace import load
from cspace.cli import main
from cspace.testing import material

from .common import ROOT, fixture_path

EXAMPLES = sorted(p.stem for p in (ROOT / "fixtures").glob("*.toml"))
NUMBER = re.compile(r"-?\d+(?:\.\d+)?")
ROUNDED = 1e-5  # numbers are written to a hundred-thousandth of the mechanism's size or finer


# ---- the SVG read back ----------------------------------------------------------------------------------------

def transform(text: str | None) -> np.ndarray:
    """A 3x3 matrix of an SVG ``transform`` of matrix, translate and scale steps."""
    result = np.eye(3)
    for name, args in re.findall(r"(\w+)\(([^)]*)\)", text or ""):
        v = [float(a) for a in args.replace(",", " ").split()]
        step = {"matrix": lambda: [[v[0], v[2], v[4]], [v[1], v[3], v[5]], [0, 0, 1]],
                "translate": lambda: [[1, 0, v[0]], [0, 1, v[1] if len(v) > 1 else 0], [0, 0, 1]],
                "scale": lambda: [[v[0], 0, 0], [0, v[1] if len(v) > 1 else v[0], 0], [0, 0, 1]]}[name]()
        result = result @ np.array(step, float)
    return result


def polylines(d: str) -> list[np.ndarray]:
    """The points of each subpath of path data made of M, L and Z."""
    return [np.array(NUMBER.findall(chunk), float).reshape(-1, 2) for chunk in re.findall(r"M[^M]*", d)]


class Drawn:
    """A drawing's SVG read back in the plane (y up): what each element draws, by its class."""

    def __init__(self, svg: str):
        self.root = ET.fromstring(svg)
        self.items: list[tuple[ET.Element, np.ndarray, list[ET.Element]]] = []
        self._walk(self.root, np.eye(3), [])
        x, y, width, height = (float(v) for v in self.root.get("viewBox").split())
        self.view = shapely.box(x, -y - height, x + width, -y)  # in the plane
        self.size = (int(self.root.get("width")), int(self.root.get("height")))

    def _walk(self, element: ET.Element, matrix: np.ndarray, groups: list[ET.Element]) -> None:
        matrix = matrix @ transform(element.get("transform"))
        self.items.append((element, matrix, groups))
        for child in element:
            self._walk(child, matrix, groups + [element])

    @staticmethod
    def plane(matrix: np.ndarray, points: np.ndarray) -> np.ndarray:
        """Points of an element's own coordinates in the plane (the SVG's y runs down)."""
        placed = np.c_[points, np.ones(len(points))] @ matrix.T
        return np.c_[placed[:, 0], -placed[:, 1]]

    def elements(self, cls: str, **data: str) -> list[tuple[ET.Element, np.ndarray, list[ET.Element]]]:
        """(element, its matrix, its groups) of the elements of class ``cls`` whose data attributes hold ``data``."""
        return [(e, m, g) for e, m, g in self.items if cls in (e.get("class") or "").split()
                and all(e.get(f"data-{k}") == v for k, v in data.items())]

    def part(self, name: str) -> tuple[shapely.Geometry, np.ndarray]:
        """A part's drawn material (its paths filled even-odd) and the matrix of its group."""
        [(group, matrix, _)] = self.elements("part", part=name)
        shape = shapely.Polygon()
        for path in group.iter():
            if path.tag.endswith("path"):
                loops = shapely.Polygon()
                for loop in polylines(path.get("d")):
                    loops = shapely.symmetric_difference(loops, Polygon(self.plane(matrix, loop)))
                shape = shape.union(loops)
        return shape, matrix

    def point(self, cls: str, **data: str) -> np.ndarray:
        """The centre of the one circle of class ``cls`` with ``data``, in the plane."""
        [(circle, matrix, _)] = self.elements(cls, **data)
        return self.plane(matrix, np.array([[float(circle.get("cx")), float(circle.get("cy"))]]))[0]

    def lines(self, cls: str, **data: str) -> list[np.ndarray]:
        """The polylines of every path of class ``cls`` with ``data``, in the plane."""
        return [self.plane(m, line) for e, m, _ in self.elements(cls, **data) for line in polylines(e.get("d"))]

    def arrows(self, kind: str, coordinate: str) -> list[np.ndarray]:
        """The shafts of the arrows of ``kind`` on ``coordinate``, in the plane."""
        return [self.plane(m, line) for e, m, groups in self.elements("shaft")
                if "arrow" in groups[-1].get("class") and kind in groups[-1].get("class").split()
                and groups[-1].get("data-coordinate") == coordinate for line in polylines(e.get("d"))]

    def texts(self, kind: str) -> list[str]:
        return [e.text for e, _, _ in self.elements("label", kind=kind)]


def drawn(name: str, tmp_path, *extra: str) -> tuple[Drawn, str]:
    out = tmp_path / f"{name}.svg"
    assert main(["draw", str(fixture_path(name)), "-o", str(out), *extra]) == 0
    return Drawn(out.read_text()), str(out)


# ---- the file's own initial configuration ----------------------------------------------------------------------

def file_shape(mechanism, part, fine: float) -> shapely.Geometry:
    """A fixed or fixed-axes part's material placed by the file's initial values: turned about its pivot by its
    angle, then moved along its axes (a shift along z moves nothing in the plane)."""
    shape = shapely.union_all([material(s.profiles, fine) for s in part.slices])
    return file_placed(mechanism, part, shape)


def file_placed(mechanism, part, geometry):
    for coordinate in map(mechanism.coordinate, part.coordinates):
        if coordinate.is_angle:
            geometry = shapely.affinity.rotate(geometry, coordinate.initial, origin=coordinate.pivot, use_radians=True)
    for coordinate in map(mechanism.coordinate, part.coordinates):
        if not coordinate.is_angle and not coordinate.along_z:
            geometry = shapely.affinity.translate(geometry, coordinate.initial * coordinate.axis[0],
                                                  coordinate.initial * coordinate.axis[1])
    return geometry


def sense(points: np.ndarray, centre) -> int:
    """Which way a line runs about a centre: +1 counterclockwise, -1 clockwise."""
    turns = np.unwrap(np.arctan2(points[:, 1] - centre[1], points[:, 0] - centre[0]))
    return int(np.sign(turns[-1] - turns[0]))


def unit(vector) -> np.ndarray:
    return np.asarray(vector, float) / np.linalg.norm(vector)


def along(line: np.ndarray, direction, size: float) -> bool:
    """Whether a line runs from its start to its end along ``direction`` (up to its ends' rounding)."""
    run, (dx, dy) = line[-1] - line[0], unit(direction)
    across = abs(run[0] * dy - run[1] * dx)
    return bool(np.dot(run, direction) > 0 and across <= 2 * ROUNDED * size)


# ---- geometry against the file ---------------------------------------------------------------------------------

@pytest.mark.parametrize("name", EXAMPLES)
def test_every_example_is_drawn_where_its_file_puts_it(name, tmp_path):
    mechanism = load(fixture_path(name))
    picture, _ = drawn(name, tmp_path)
    arc, size = mechanism.tolerance.arc, mechanism.size
    near = 2 * arc + 1e-4 * size  # outlines are flattened outward within arc, numbers rounded to 1e-5 of the size
    for part in mechanism.parts:
        shape, matrix = picture.part(part.name)
        assert shape.area > 0 and picture.view.contains(shape), part.name
        if part.motion != "linkage":
            assert shape.hausdorff_distance(file_shape(mechanism, part, arc / 10)) < near, part.name
        else:  # posed by the drawing: its own outline, and pinned where its joints say
            own = shapely.union_all([material(s.profiles, arc / 10) for s in part.slices])
            pose = np.diag([1.0, -1.0, 1.0]) @ matrix  # its group's transform, in the plane
            placed = shapely.affinity.affine_transform(own, [*pose[0, :2], *pose[1, :2], pose[0, 2], pose[1, 2]])
            assert shape.hausdorff_distance(placed) < near, part.name
    for linkage in mechanism.linkages:
        for joint in linkage.joints:
            ends = [Drawn.plane(picture.part(p)[1], np.array([point]))[0]
                    for p, point in zip(joint.parts, joint.points)]
            assert math.dist(*ends) < near, joint
            if joint.kind == "pin":
                assert math.dist(picture.point("pin", name=f"pin {joint.parts[0]}/{joint.parts[1]}"), ends[0]) < near
    for coordinate in mechanism.coordinates:
        if coordinate.is_angle:
            pivot = file_placed(mechanism, mechanism.part(coordinate.part), Point(coordinate.pivot))
            assert math.dist(picture.point("pivot", name=coordinate.name), pivot.coords[0]) < near, coordinate.name
            [mark] = picture.lines("angle-mark", name=coordinate.name)
            assert math.dist(mark[0], pivot.coords[0]) < near
    assert sorted(picture.texts("part")) == sorted(p.name for p in mechanism.parts)


@pytest.mark.parametrize("name", EXAMPLES)
def test_forces_and_inputs_are_arrows_along_their_coordinates_their_way(name, tmp_path):
    mechanism = load(fixture_path(name))
    picture, _ = drawn(name, tmp_path)
    pushes = [(str(f.kind), f.coordinate, f.direction) for f in mechanism.forces]
    if mechanism.dynamics is not None:
        values = {c.name: c.initial for c in mechanism.coordinates}
        pushes += [("spring", s.coordinate, np.sign(s.rest - values[s.coordinate])) for s in mechanism.dynamics.springs
                   if s.rest != values[s.coordinate]]
        pushes += [("load", load_.coordinate, np.sign(load_.value)) for load_ in mechanism.dynamics.loads]
    pushes += [("input", c, np.sign(v)) for motion in mechanism.inputs for c, v in motion.velocities]
    for kind, name_, way in pushes:
        coordinate = mechanism.coordinate(name_)
        arrows = picture.arrows(kind, name_)
        if coordinate.along_z:
            assert arrows == []
            continue
        part = mechanism.part(coordinate.part)
        if coordinate.is_angle:
            pivot = file_placed(mechanism, part, Point(coordinate.pivot)).coords[0]
            assert way in [sense(a, pivot) for a in arrows], (kind, name_)
        else:
            wanted = way * unit(coordinate.axis)
            assert any(along(a, wanted, mechanism.size) for a in arrows), (kind, name_)
            shape = picture.part(part.name)[0]  # checked against the file above
            assert all(LineString([a[0], a[0] - (a[-1] - a[0])]).intersects(shape) for a in arrows)  # from the part
    assert len(picture.elements("arrow")) == len(pushes) - sum(mechanism.coordinate(c).along_z for _, c, _ in pushes) \
        + _gravities(mechanism)
    for k, motion in enumerate(mechanism.inputs):
        assert (motion.name or f"input {k + 1}") in " ".join(picture.texts("input"))


def _gravities(mechanism) -> int:
    """Full dynamics' gravity arrows: one at each moving part with a mass, where gravity pulls."""
    if mechanism.dynamics is None or not any(mechanism.dynamics.gravity):
        return 0
    return sum(1 for p in mechanism.parts if p.motion != "fixed" and p.mass is not None)


@pytest.mark.parametrize("name", ["bouncing-block", "kramer-four-bar", "disk-on-ramp"])
def test_full_dynamics_gravity_pulls_from_each_centre_of_mass(name, tmp_path):
    mechanism = load(fixture_path(name))
    picture, _ = drawn(name, tmp_path)
    shafts = picture.arrows("gravity", "")
    centres = []
    for part in mechanism.parts:
        if part.motion != "fixed" and part.mass is not None:
            centres.append(Drawn.plane(picture.part(part.name)[1], np.array([part.mass.centre]))[0])
    assert len(shafts) == len(centres) > 0
    for shaft in shafts:
        assert along(shaft, mechanism.dynamics.gravity, mechanism.size)
        back = LineString([shaft[0], shaft[0] - 2 * (shaft[-1] - shaft[0])])
        assert min(back.distance(Point(c)) for c in centres) < 1e-4 * mechanism.size


@pytest.mark.parametrize("name", ["conveyor", "wedge", "rim-lock", "eccentric-cam", "ratchet", "lever", "shoe-brake"])
def test_limits_are_as_far_apart_as_the_files(name, tmp_path):
    mechanism = load(fixture_path(name))
    picture, _ = drawn(name, tmp_path)
    limited = [c for c in mechanism.coordinates if c.limits is not None and not c.along_z]
    assert limited
    for coordinate in limited:
        lines = picture.lines("limit", coordinate=coordinate.name)
        lo, hi = coordinate.limits
        if coordinate.is_angle:  # the arc the angle mark sweeps, about the pivot, then a tick at each end
            pivot = file_placed(mechanism, mechanism.part(coordinate.part), Point(coordinate.pivot)).coords[0]
            turned = np.unwrap(np.arctan2(lines[0][:, 1] - pivot[1], lines[0][:, 0] - pivot[0]))
            assert turned[-1] - turned[0] == pytest.approx(min(hi - lo, 2 * math.pi), abs=1e-4)
        else:  # a bar across the axis at each limit
            axis = unit(coordinate.axis)
            assert len(lines) == 2
            for bar in lines:
                assert along(bar, (-axis[1], axis[0]), mechanism.size)
            apart = np.dot(lines[1].mean(axis=0) - lines[0].mean(axis=0), axis)
            assert apart == pytest.approx(hi - lo, abs=1e-4 * mechanism.size)
            # where a point of the part is at each limit: inside the span the part covers along the axis, moved there
            span = shapely.get_coordinates(picture.part(coordinate.part)[0]) @ axis
            for bar, limit in zip(lines, (lo, hi)):
                moved = np.dot(bar.mean(axis=0), axis) - (limit - coordinate.initial)
                assert span.min() <= moved <= span.max(), (coordinate.name, limit)


def test_a_parameter_set_moves_what_it_sets(tmp_path):
    """``--set`` as every command has it: the sweep's feeder with a crank of 2 has its crank pin at (2, 0)."""
    out = tmp_path / "f.svg"
    assert main(["draw", str(ROOT / "fixtures" / "sweeps" / "feeder.toml"), "-o", str(out), "--set", "crank=2"]) == 0
    assert Drawn(out.read_text()).point("pin", name="pin driver/link") == pytest.approx((2, 0), abs=1e-6)


# ---- the files ------------------------------------------------------------------------------------------------

def test_the_command_says_what_it_drew_and_draws_the_same_every_time(tmp_path, capsys):
    picture, out = drawn("feeder", tmp_path)
    width, height = picture.size
    assert capsys.readouterr().out == f"{out}: feeder at its initial configuration, {width}x{height}\n"
    assert width == 800 and height <= 600  # as large as fits in the default 800x600 at the feeder's shape
    first = (tmp_path / "feeder.svg").read_bytes()
    for suffix in (".svg", ".html", ".png"):
        again = [tmp_path / f"a{suffix}", tmp_path / f"b{suffix}"]
        for path in again:
            assert main(["draw", "feeder", "-o", str(path), "--size", "640x640"]) == 0
        assert again[0].read_bytes() == again[1].read_bytes(), suffix
    assert main(["draw", "feeder", "-o", str(tmp_path / "c.svg")]) == 0
    assert (tmp_path / "c.svg").read_bytes() == first


def test_the_readmes_drawing_is_what_the_command_draws(tmp_path):
    """The README's picture of the rim lock cannot go stale: drawn again, it is the same bytes."""
    out = tmp_path / "rim-lock.svg"
    assert main(["draw", str(fixture_path("rim-lock")), "-o", str(out), "--size", "640x480"]) == 0
    assert "viz/gallery/rim-lock.svg" in (ROOT / "README.md").read_text()
    assert out.read_bytes() == (ROOT / "viz" / "gallery" / "rim-lock.svg").read_bytes()


def test_the_page_holds_the_drawing_and_names_every_force_and_input(tmp_path):
    out = tmp_path / "shoe.html"
    assert main(["draw", "shoe-brake", "-o", str(out)]) == 0
    page = out.read_text()
    assert page.startswith("<!DOCTYPE html>") and "://" not in page  # self-contained: nothing fetched
    svg = re.search(r"<svg.*?</svg>", page, re.S).group(0)
    mechanism = load(fixture_path("shoe-brake"))
    assert sorted(Drawn(svg).texts("part")) == sorted(p.name for p in mechanism.parts)
    for force in mechanism.forces:
        assert f"<li>{force.kind} on {force.coordinate}</li>" in page
    assert mechanism.inputs[0].name in page


@pytest.mark.parametrize("name", ["feeder", "escapement"])
def test_the_png_is_the_size_said_and_shows_every_part_in_its_colour(name, tmp_path, capsys):
    out = tmp_path / f"{name}.png"
    assert main(["draw", name, "-o", str(out)]) == 0
    width, height = (int(v) for v in capsys.readouterr().out.rsplit(", ", 1)[1].strip().split("x"))
    svg, _ = drawn(name, tmp_path)
    image = np.asarray(Image.open(out).convert("RGB")).astype(int)
    assert image.shape[:2] == (height, width) and svg.size == (width, height)
    for element, _, _ in svg.elements("part"):
        fill = np.array([int(element.get("fill")[k:k + 2], 16) for k in (1, 3, 5)])
        seen = 0.85 * fill + 0.15 * 0xfc  # over the background
        assert (np.abs(image - seen).max(axis=2) < 12).sum() > 20, element.get("data-part")


def test_the_notebook_shows_a_mechanism_drawn():
    mechanism = load(fixture_path("geneva"))
    svg = re.search(r"<svg.*?</svg>", mechanism_html(mechanism), re.S).group(0)
    picture = Drawn(svg)
    assert sorted(e.get("data-part") for e, _, _ in picture.elements("part")) == sorted(p.name for p in mechanism.parts)
    assert len(picture.elements("pivot")) == 2  # the crank and the wheel turn


# ---- bad input --------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("argv, line", [
    (["draw", "feeder", "-o", "{tmp}/f.txt"], "{tmp}/f.txt: -o: unsupported extension '.txt'; use .svg, .html or .png"),
    (["draw", "feeder", "-o", "{tmp}/no/f.svg"], "{tmp}/no/f.svg: -o: directory '{tmp}/no' does not exist"),
    (["draw", "{tmp}/missing.toml", "-o", "{tmp}/f.svg"], "{tmp}/missing.toml: no such file"),
    (["draw", "fedder", "-o", "{tmp}/f.svg"], "fedder: no such file (did you mean the example 'feeder'?)"),
    (["draw", str(ROOT / "tests/data/bad/open-profile.toml"), "-o", "{tmp}/f.svg"],
     f"{ROOT}/tests/data/bad/open-profile.toml: part 'block': slices[0].profiles[0]: profile is open: it ends at "
     "(0, 1) but starts at (0, 0)"),
])
def test_bad_input_is_one_line_and_status_2(argv, line, tmp_path, capsys):
    tmp = str(tmp_path)
    assert main([a.format(tmp=tmp) for a in argv]) == 2
    out = capsys.readouterr()
    assert (out.out, out.err) == ("", f"cspace: error: {line.format(tmp=tmp)}\n")
    assert not any(p.suffix in (".svg", ".txt") for p in tmp_path.iterdir())
