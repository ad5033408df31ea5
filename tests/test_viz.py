"""viz: meshes, poses, offscreen rendering, animations, pair-space figures, region tables, the commands.

Rendering is real (VTK offscreen, no display) and small. Where a picture is checked,
the expected place of a part comes from the fixture's own numbers (a piston is
``rect = [0, -1, 7, 1]`` placed at ``xp``) and the camera's projection, not from viz.
Regenerate the stored reference image with ``CSPACE_UPDATE_REFERENCE=1 pytest tests/test_viz.py``.
"""

from __future__ import annotations

import doctest
import html.parser
import importlib
import math
import os
import re
import subprocess
import sys

import imageio_ffmpeg
import numpy as np
import pytest
import pyvista
import shapely
from cspace.viz.animation import animate
from cspace.viz.colors import part_colors
from cspace.viz.mesh import mechanism_meshes, part_mesh, posed, with_mesh_counts
from cspace.viz.pair_plot import (
    BLOCKED,
    OUTLINE,
    PATH,
    SEAM,
    TURNING_BOUNDARY,
    _clear_corner,
    _clearance,
    _note,
    _wrapped,
    find_pair,
    pair_figure,
)
from cspace.viz.pins import PIN_COLOR, mechanism_pins
from cspace.viz.region_table import html_region_table, markdown_region_table
from cspace.viz.scene import Scene
from cspace.viz.snapshots import part_poses, snapshots
from cspace.viz.viewer import Player, add_controls, has_display
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from PIL import Image, ImageSequence
from shapely.geometry import LineString, Point, Polygon

from cspace import Part, Profile, Slice, analyze, load, loads, region_table, statistics, trace
from cspace.cli import main

from .common import FIXTURES, ROOT, analyzed, fixture_path, slow, traced

pyvista.OFF_SCREEN = True

FEEDER = str(fixture_path("feeder"))
SMALL = (200, 150)
REFERENCE = ROOT / "tests" / "data" / "viz" / "feeder-initial.png"
# The feeder's first revolution: the stack drops (segment 2) and block1 is pushed out.
ONE_TURN = 2 * np.pi
VIZ_MODULES = ["animation", "colors", "framing", "labels", "legend", "mesh", "notebook", "output", "pair_plot", "pins",
               "region_table", "scene", "snapshots", "text", "viewer"]


@pytest.fixture(scope="module")
def feeder():
    return traced("feeder", ONE_TURN)


@pytest.fixture(scope="module")
def shots(feeder):
    return snapshots(feeder)


@pytest.fixture(scope="module")
def plane(feeder, shots):
    """The feeder seen straight down z, framed to hold the whole first turn."""
    scene = Scene(feeder, size=SMALL, view="plane", framed=[s.values for s in shots])
    yield scene
    scene.close()


# ---- meshes ------------------------------------------------------------------------------

def slab_with_hole() -> Part:
    outline = Profile.rectangle(0, 0, 10, 6)
    hole = Profile.circle((5, 3), 2)
    return Part("plate", "fixed", (Slice((0, 1), (outline, hole)), Slice((1, 3), (Profile.rectangle(0, 0, 2, 2),))))


def volume(vertices, faces) -> float:
    """Signed volume by the divergence theorem (positive when faces point outwards)."""
    total = 0.0
    for face in faces:
        a = vertices[face[0]]
        for b, c in zip(vertices[face[1:-1]], vertices[face[2:]]):
            total += np.dot(a, np.cross(b, c)) / 6
    return total


def directed_edges(faces) -> list[tuple[int, int]]:
    return [(int(f[i]), int(f[(i + 1) % len(f)])) for f in faces for i in range(len(f))]


def every_part():
    cases = [pytest.param(slab_with_hole(), 1e-3, id="plate-with-hole")]
    for name in FIXTURES:
        mechanism = load(fixture_path(name))
        cases += [pytest.param(part, mechanism.tolerance.arc, id=f"{name}-{part.name}") for part in mechanism.parts]
    return cases


@pytest.mark.parametrize("part,tolerance", every_part())
def test_mesh_is_closed_outward_and_holds_the_slices(part, tolerance):
    mesh = part_mesh(part, tolerance)
    faces = list(mesh.triangles) + list(mesh.quads)
    edges = directed_edges(faces)
    assert len(set(edges)) == len(edges), "an edge is used twice the same way: faces disagree on orientation"
    assert set(edges) == {(b, a) for a, b in edges}, "an edge has no opposite face: the mesh is not closed"
    expected = 0.0
    for slice_ in part.slices:
        loops = [Polygon(p.polyline(tolerance).vertices) for p in slice_.oriented]
        area = shapely.union_all([p for p, o in zip(loops, slice_.oriented) if o.signed_area() > 0])
        for p, o in zip(loops, slice_.oriented):
            if o.signed_area() < 0:
                area = area.difference(p)
        expected += area.area * (slice_.z[1] - slice_.z[0])
    assert volume(mesh.vertices, faces) == pytest.approx(expected, rel=1e-9)


def test_a_hole_is_left_open():
    mesh = part_mesh(slab_with_hole(), 1e-3)
    top = mesh.vertices[mesh.triangles].mean(axis=1)
    caps = top[np.isclose(top[:, 2], 1.0) | np.isclose(top[:, 2], 0.0)]
    assert not np.any(np.hypot(caps[:, 0] - 5, caps[:, 1] - 3) < 1.9)


def test_mesh_counts_match_table_2(feeder):
    """The counts Table 2 reports are the meshes' own, and stand after the segments."""
    meshes = mechanism_meshes(feeder.mechanism)
    stats = with_mesh_counts(statistics(feeder), feeder.mechanism)
    assert sum(len(m.triangles) for m in meshes.values()) == stats["triangles"]
    assert sum(len(m.quads) for m in meshes.values()) == stats["quadrangles"]
    names = list(stats)
    assert names[names.index("segments") + 1:][:2] == ["triangles", "quadrangles"]


@slow
def test_meshes_need_no_renderer():
    code = ("import sys; sys.modules['pyvista'] = sys.modules['matplotlib'] = sys.modules['vtk'] = None\n"
            "import cspace.viz, cspace\n"
            "from cspace.viz.mesh import mechanism_meshes\n"
            f"print(len(mechanism_meshes(cspace.load({FEEDER!r}))))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "7"


def test_rendering_names_load_on_first_use():
    import cspace.viz as viz
    from cspace.viz import animation, pair_plot

    assert (viz.animate, viz.plot_pair) == (animation.animate, pair_plot.plot_pair)
    with pytest.raises(AttributeError, match="no attribute 'draw'"):
        _ = viz.draw


def test_the_library_never_imports_viz():
    code = ("import sys, cspace, cspace.cli\n"
            "print(sorted({m if m.startswith('cspace.viz') else m.split('.')[0] for m in sys.modules}\n"
            "             & {'cspace.viz', 'viz', 'pyvista', 'vtk', 'matplotlib'}))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert result.stdout.strip() == "[]", result.stderr


# ---- snapshots and poses -------------------------------------------------------------------

def test_every_sample_is_a_snapshot_external_motions_included(feeder, shots):
    assert len(shots) == len(feeder.samples())
    dropping = [s for s in shots if s.segment == 2]
    assert len({s.time for s in dropping}) == 1, "the drop takes no input time"
    assert len({tuple(s.values) for s in dropping}) == len(dropping) > 2, "yet every drop snapshot is distinct"
    assert dropping[0].caption.splitlines() == ["t = 2.13 s   segment 2 of 6",
                                                "gravity: block1 yb1-, block2 yb2-, block3 yb3-"]


def test_linkage_members_are_posed_on_their_joints(feeder, shots):
    # Member poses come from the linkage table, interpolated linearly between its 301 entries.
    for shot in shots:
        poses = part_poses(feeder, shot.values)
        crank_pin = poses["driver"] @ [3.0, 0.0, 1.0]
        piston_pin = poses["piston"] @ [1.0, 0.0, 1.0]
        assert np.allclose(poses["link"] @ [0.0, 0.0, 1.0], crank_pin, atol=1e-3)
        assert np.allclose(poses["link"] @ [8.0, 0.0, 1.0], piston_pin, atol=1e-3)


def test_posed_vertices_follow_the_coordinates(feeder, shots):
    mesh = mechanism_meshes(feeder.mechanism)["block1"]
    shot = shots[-1]
    index = feeder.mechanism.coordinate_index
    x0, y0 = shot.values[index["xb1"]], shot.values[index["yb1"]]
    placed = posed(mesh, part_poses(feeder, shot.values)["block1"])
    assert placed[:, :2].min(axis=0) == pytest.approx([x0, y0])
    assert placed[:, :2].max(axis=0) == pytest.approx([x0 + 4, y0 + 2])


def test_pins_sit_on_their_joints_and_pivots(feeder, shots):
    pins = {pin.mesh.part: pin for pin in mechanism_pins(feeder.mechanism)}
    assert sorted(pins) == ["pin driver/link", "pin link/piston", "pivot driver"]
    for shot in shots[::5]:
        poses = part_poses(feeder, shot.values)

        def centre(name, poses=poses):
            pin = pins[name]
            return posed(pin.mesh, poses[pin.part])[:, :2].mean(axis=0)

        # The fixture's joints: crank pin (3, 0) on the driver, piston pin (1, 0) on the piston.
        assert np.allclose(centre("pin driver/link"), (poses["driver"] @ [3.0, 0.0, 1.0])[:2], atol=1e-9)
        assert np.allclose(centre("pin link/piston"), (poses["piston"] @ [1.0, 0.0, 1.0])[:2], atol=1e-3)
        assert np.allclose(centre("pivot driver"), (0.0, 0.0), atol=1e-9)
    # Through the driver (z -2..-1) and the link (-1..-0.5), standing a little proud of both.
    z = pins["pin driver/link"].mesh.vertices[:, 2]
    assert z.min() < -2 and -0.5 < z.max() < 0


# ---- rendering -------------------------------------------------------------------------------

def to_pixels(scene, points):
    """(column, row) in the picture of world points, from the scene's own camera (any view)."""
    width, height = scene.size
    matrix = scene.plotter.camera.GetCompositeProjectionTransformMatrix(width / height, -1, 1)
    project = np.array([[matrix.GetElement(i, j) for j in range(4)] for i in range(4)])
    homogeneous = np.column_stack([points, np.ones(len(points))]) @ project.T
    ndc = homogeneous[:, :3] / homogeneous[:, 3:]
    return np.column_stack([(ndc[:, 0] + 1) / 2 * width, (1 - ndc[:, 1]) / 2 * height])


def projected_box(scene, x0, y0, x1, y1, z=1.0):
    """Pixel columns and rows (of pixel edges) covered by a plane rectangle at height z."""
    corners = to_pixels(scene, np.array([(x0, y0, z), (x1, y0, z), (x1, y1, z), (x0, y1, z)]))
    (left, top), (right, bottom) = corners.min(axis=0), corners.max(axis=0)
    return left, right, top, bottom


def parts_only(scene):
    """The scene's picture with its legend blanked out: the legend's swatches have the parts' colours."""
    image = scene.image()
    if scene.legend is not None:
        left, top, right, bottom = scene.legend.box
        image[top:bottom, left:right] = 255
    return image


def mask_of(image, color):
    """Pixels of exactly ``#rrggbb``: faces square to the headlight show their part's colour unshaded."""
    rgb = [int(color[k:k + 2], 16) for k in (1, 3, 5)]
    return np.all(image == np.array(rgb, np.uint8), axis=2)


def fixture_boxes(feeder, values):
    """The piston's and blocks' rectangles from the fixture's numbers: piston [0, -1, 7, 1], blocks 4 x 2."""
    at = feeder.mechanism.coordinate_index
    boxes = {"piston": (values[at["xp"]], -1, values[at["xp"]] + 7, 1)}
    for block in ("1", "2", "3"):
        x, y = values[at["xb" + block]], values[at["yb" + block]]
        boxes["block" + block] = (x, y, x + 4, y + 2)
    return boxes


@pytest.mark.parametrize("index", [0, 4, 12, 30])
def test_a_part_is_drawn_where_its_configuration_says(feeder, shots, plane, index):
    shot = shots[index]
    plane.pose(shot.values)
    image = parts_only(plane)
    colors = part_colors(feeder.mechanism)
    for part, box in fixture_boxes(feeder, shot.values).items():
        rows, cols = np.nonzero(mask_of(image, colors[part]))
        left, right, top, bottom = projected_box(plane, *box)
        # The pixels of the part's colour span the box to within a pixel or so (its outline is black).
        assert abs(cols.min() - left) <= 1.5 and abs(cols.max() + 1 - right) <= 1.5, part
        assert abs(rows.min() - top) <= 1.5 and abs(rows.max() + 1 - bottom) <= 1.5, part


def test_the_piston_moves_by_its_coordinate_on_screen(feeder, shots, plane):
    color = part_colors(feeder.mechanism)["piston"]
    at = feeder.mechanism.coordinate_index["xp"]
    scale = plane.size[1] / (2 * plane.plotter.camera.parallel_scale)
    centres = []
    for shot in (shots[0], shots[8]):
        plane.pose(shot.values)
        cols = np.nonzero(mask_of(parts_only(plane), color))[1]
        centres.append((cols.min() + cols.max()) / 2)
    moved = (shots[8].values[at] - shots[0].values[at]) * scale
    assert abs(moved) > 5
    assert centres[1] - centres[0] == pytest.approx(moved, abs=1.0)


def changed_pixels(scene, before, after):
    images = []
    for values in (before, after):
        scene.pose(values)
        images.append(scene.image().astype(int))
    return np.any(images[0] != images[1], axis=2)


def around(scene, boxes, z=1.0):
    """Pixels within one pixel of the projections of plane rectangles."""
    near = np.zeros((scene.size[1], scene.size[0]), bool)
    for x0, y0, x1, y1 in boxes:
        left, right, top, bottom = projected_box(scene, x0, y0, x1, y1, z)
        near[max(int(top) - 1, 0):int(bottom) + 2, max(int(left) - 1, 0):int(right) + 2] = True
    return near


def test_frames_differ_only_where_parts_move(feeder, shots, plane):
    dropping = [k for k, s in enumerate(shots) if s.segment == 2]
    before, after = shots[dropping[1]].values, shots[dropping[2]].values
    changed = changed_pixels(plane, before, after)
    blocks = [box for values in (before, after) for part, box in fixture_boxes(feeder, values).items()
              if part != "piston"]
    assert changed.sum() > 50, "the blocks dropped half a unit: their pixels must change"
    assert not np.any(changed & ~around(plane, blocks)), "pixels changed outside the moving blocks"


def test_a_turning_disc_shows_its_turn(feeder):
    """The driver is a plain disc: only the crank pin on it shows it turn, leaving blue for pin and back."""
    at = feeder.mechanism.coordinate_index["cd"]
    turned = feeder.initial.copy()
    turned[at] = 0.5
    scene = Scene(feeder, size=(480, 360), view="plane")  # large enough for a pin's face
    blue, pin = [], []
    for values in (feeder.initial, turned):
        scene.pose(values)
        image = parts_only(scene)
        blue.append(mask_of(image, part_colors(feeder.mechanism)["driver"]))
        pin.append(mask_of(image, PIN_COLOR))
    scene.close()
    assert np.any(blue[0] & pin[1]) and np.any(pin[0] & blue[1])


def test_the_camera_holds_every_moving_part_below_the_caption(feeder, shots):
    scene = Scene(feeder, size=SMALL, framed=[s.values for s in shots])
    meshes = mechanism_meshes(feeder.mechanism)
    band = scene.band / SMALL[1]
    moving = [p.name for p in feeder.mechanism.parts if p.motion != "fixed"]
    spans = []
    for shot in shots:
        poses = part_poses(feeder, shot.values)
        pixels = to_pixels(scene, np.vstack([posed(meshes[name], poses[name]) for name in moving]))
        assert pixels[:, 0].min() >= 0 and pixels[:, 0].max() <= SMALL[0]
        assert pixels[:, 1].min() >= band * SMALL[1] and pixels[:, 1].max() <= SMALL[1]
        spans.append(pixels.max(axis=0) - pixels.min(axis=0))
    table = to_pixels(scene, np.array([(-10.0, -1.0, 1.0), (60.0, -1.0, 1.0)]))  # the fixture's table: x -10 to 60
    scene.close()
    assert np.max(spans, axis=0)[0] > 0.5 * SMALL[0], "the parts that move fill the picture across"
    assert table[1, 0] > 1.5 * SMALL[0], "the long table runs out of the picture"


def test_frames_are_not_blank(feeder, shots):
    scene = Scene(feeder, size=SMALL, framed=[s.values for s in shots])
    scene.pose(shots[20].values, shots[20].caption)
    image = scene.image()
    scene.close()
    background = np.all(image == 255, axis=2)
    assert 0.05 < 1 - background.mean() < 0.9
    colours = {tuple(c) for c in image.reshape(-1, 3)}
    assert len(colours) > 20
    assert np.any(image[:10].min(axis=2) < 100), "the caption is written at the top"


# Stored reference: the feeder at rest, drawn without antialiasing (whose sample patterns differ
# between renderers). A pixel matches if a pixel within one pixel of it in the other picture has
# nearly its colour: edges may move by a pixel, shades by a few levels.
COLOUR_TOLERANCE = 24
STRAY_PIXELS = 20


def stray_pixels(image, reference):
    """Pixels with no pixel of nearly the same colour within one pixel in the other image (either way)."""
    def one_way(a, b):
        height, width, _ = b.shape
        padded = np.pad(b, ((1, 1), (1, 1), (0, 0)), mode="edge")
        best = np.full((height, width), 1 << 20)
        for dy in range(3):
            for dx in range(3):
                best = np.minimum(best, np.abs(a - padded[dy:dy + height, dx:dx + width]).max(axis=2))
        return int((best > COLOUR_TOLERANCE).sum())

    a, b = image.astype(int), reference.astype(int)
    return max(one_way(a, b), one_way(b, a))


def reference_render(analysis, values=None, nudge=0.0):
    """The reference picture, optionally at other coordinate values or with the camera moved ``nudge`` pixels."""
    scene = Scene(analysis, size=SMALL, antialias=False)
    if nudge:
        camera = scene.plotter.camera
        step = np.array([nudge * 2 * camera.parallel_scale / SMALL[1], 0.0, 0.0])
        camera.focal_point = tuple(camera.focal_point + step)
        camera.position = tuple(camera.position + step)
    if values is not None:
        scene.pose(values)
    image = scene.image()
    scene.close()
    return image


@pytest.fixture(scope="module")
def reference():
    if os.environ.get("CSPACE_UPDATE_REFERENCE"):
        REFERENCE.parent.mkdir(parents=True, exist_ok=True)
        Image.fromarray(reference_render(traced("feeder", ONE_TURN))).save(REFERENCE, optimize=True)
    return np.asarray(Image.open(REFERENCE).convert("RGB"))


def test_matches_the_reference_image(feeder, reference):
    image = reference_render(feeder)
    assert image.shape == reference.shape
    assert stray_pixels(image, reference) <= STRAY_PIXELS


def test_the_reference_comparison_allows_a_renderer_a_fraction_of_a_pixel(feeder, reference):
    for nudge in (0.2, 0.5):
        assert stray_pixels(reference_render(feeder, nudge=nudge), reference) <= STRAY_PIXELS


def shifted(feeder, **moves):
    values = feeder.initial.copy()
    for name, step in moves.items():
        values[feeder.mechanism.coordinate_index[name]] += step
    return values


def shade(color, step):
    return "#" + "".join(f"{min(max(int(color[k:k + 2], 16) + step, 0), 255):02x}" for k in (1, 3, 5))


@pytest.mark.parametrize("change", ["piston back one unit", "block3 up half a unit", "driver turned 0.3 rad",
                                    "block1 in block2's colour", "block1 30 levels darker"])
def test_the_reference_comparison_catches_a_real_change(feeder, reference, monkeypatch, change):
    values = None
    if change.startswith("piston"):
        values = shifted(feeder, xp=-1.0)
    elif change.startswith("block3"):
        values = shifted(feeder, yb3=0.5)
    elif change.startswith("driver"):
        values = shifted(feeder, cd=0.3)
    else:
        colors = part_colors(feeder.mechanism)
        colors["block1"] = colors["block2"] if "colour" in change else shade(colors["block1"], -30)
        monkeypatch.setattr("cspace.viz.scene.part_colors", lambda mechanism: colors)
    assert stray_pixels(reference_render(feeder, values), reference) > STRAY_PIXELS


def test_rendering_is_deterministic(feeder, shots):
    pictures = []
    for _ in range(2):
        scene = Scene(feeder, size=SMALL, framed=[s.values for s in shots])
        scene.pose(shots[7].values, shots[7].caption)
        pictures.append(scene.image())
        scene.close()
    assert np.array_equal(*pictures)


# ---- animations ----------------------------------------------------------------------------

def test_gif_has_a_frame_per_snapshot_and_is_deterministic(tmp_path):
    result = traced("feeder", 2.5)
    count = len(snapshots(result))
    paths = [tmp_path / "a.gif", tmp_path / "b.gif"]
    for path in paths:
        assert animate(result, path, size=(160, 120)) == count
    with Image.open(paths[0]) as gif:
        frames = [np.asarray(f.convert("RGB")) for f in ImageSequence.Iterator(gif)]
    assert len(frames) == count
    assert frames[0].shape == (120, 160, 3)
    assert paths[0].read_bytes() == paths[1].read_bytes()
    drop = [k for k, s in enumerate(snapshots(result)) if s.segment == 2]
    assert not np.array_equal(frames[drop[1]], frames[drop[2]]), "the drop is visible frame by frame"


def test_mp4_holds_every_frame(tmp_path):
    result = traced("feeder", 1.0)
    path = tmp_path / "feeder.mp4"
    assert animate(result, path, size=(160, 120)) == 5
    reader = imageio_ffmpeg.read_frames(str(path))
    meta = next(reader)
    assert tuple(meta["size"]) == (160, 120)
    assert sum(1 for _ in reader) == 5


def test_an_empty_trace_animates_its_initial_configuration(tmp_path):
    result = traced("feeder", 0.0)
    assert animate(result, tmp_path / "still.gif", size=(64, 48)) == 1


# ---- the interactive player, offscreen ----------------------------------------------------------

def test_player_steps_through_the_snapshots():
    result = traced("feeder", 1.0)
    player = Player(result, size=(96, 72))
    player.tick()
    assert player.index == 0, "paused: a tick does nothing"
    player.play(True)
    for _ in range(4):
        player.tick()
    assert player.index == 4
    player.tick()
    assert player.index == 0, "playing wraps round to the start"
    player.go_to(99)
    assert player.index == 4
    shown = player.scene.image()
    player.close()
    scene = Scene(result, size=(96, 72), framed=[s.values for s in snapshots(result)])
    last = snapshots(result)[4]
    scene.pose(last.values, last.caption)
    assert np.array_equal(shown, scene.image())
    scene.close()


def test_controls_drive_the_player():
    """The window's widgets, offscreen: the slider picks a snapshot, the button plays, the clock advances."""
    player = Player(traced("feeder", 1.0), size=(240, 180))
    tick = add_controls(player)
    plotter = player.scene.plotter
    slider, button = plotter.widgets.slider_widgets[0], plotter.widgets.button_widgets[0]
    slider.GetRepresentation().SetValue(3)
    slider.InvokeEvent("InteractionEvent")
    assert player.index == 3
    tick(0)
    assert player.index == 3, "paused: the clock does nothing"
    button.GetRepresentation().SetState(1)
    button.InvokeEvent("StateChangedEvent")
    assert player.playing
    tick(0)
    assert player.index == 4 and slider.GetRepresentation().GetValue() == 4, "the slider follows the clock"
    player.close()


@pytest.mark.parametrize("environ,platform,expected", [
    ({}, "linux", False),
    ({"DISPLAY": ""}, "linux", False),
    ({"DISPLAY": ":99"}, "linux", True),
    ({"WAYLAND_DISPLAY": "wayland-0"}, "linux", True),
    ({}, "darwin", True),
    ({}, "win32", True),
])
def test_display_detection(environ, platform, expected):
    assert has_display(environ, platform) is expected


# ---- pair-space figures ----------------------------------------------------------------------

def drawn_path(axes):
    """The path as drawn: every line piece after the one labelled 'path', up to the start marker."""
    lines = list(axes.lines)
    first = next(k for k, line in enumerate(lines) if line.get_label() == "path")
    last = next(k for k, line in enumerate(lines) if line.get_label() == "start")
    return shapely.union_all([LineString(np.column_stack(line.get_data())) for line in lines[first:last]])


def region_labels(axes):
    return {t.get_text(): t for t in axes.texts if re.fullmatch(r"r\d+", t.get_text())}


def assert_labels_readable(figure, axes):
    """Labels do not overlap one another or the path."""
    figure.draw_without_rendering()
    boxes = [shapely.box(*t.get_window_extent().extents) for t in region_labels(axes).values()]
    assert all(not a.intersects(b) for k, a in enumerate(boxes) for b in boxes[k + 1:])
    trail = shapely.transform(drawn_path(axes), axes.transData.transform)
    assert not any(trail.intersects(b) for b in boxes)


def test_pair_figure_draws_figure_5(feeder):
    figure = pair_figure(analyzed("feeder"), feeder, "piston", "block1")
    axes = figure.axes[0]
    pair = find_pair(analyzed("feeder"), "piston", "block1")
    assert (axes.get_xlabel(), axes.get_ylabel()) == ("xb1 - xp", "yb1")
    assert len(axes.patches) == len(pair.blocked) == 1
    assert np.allclose(axes.patches[0].get_xy()[:4], pair.blocked[0])
    outline = [line for line in axes.lines if line.get_label() == "contact"]
    assert len(outline) == 1 and Polygon(np.column_stack(outline[0].get_data())).equals(Polygon(pair.blocked[0]))
    dashed = [line for line in axes.lines if line.get_linestyle() == "--"]
    free = {tuple(sorted((e.start, e.end))) for r in pair.regions for e in r.edges if not e.contacts}
    # From each corner of the blocked box: a slab line and a cut where a side's contact ends.
    assert len(dashed) == len(free) == 8
    labels = region_labels(axes)
    assert sorted(labels) == [f"r{i}" for i in range(1, 9)]
    for region in pair.regions:
        assert Polygon(region.vertices).contains(shapely.Point(labels[region.name].get_position()))
    assert_labels_readable(figure, axes)
    at = [feeder.mechanism.coordinate_index[c] for c in pair.coordinates]
    expected = LineString([pair.matrix @ q[at] for _, _, q in feeder.samples()])
    assert drawn_path(axes).equals(shapely.union_all(expected))
    assert [t.get_text() for t in figure.legends[0].get_texts()] == [
        "blocked", "contact", "region boundary", "path", "start", "end"]


def test_a_one_dimensional_pair_is_drawn_against_time():
    result = traced("pusher")
    figure = pair_figure(analyzed("pusher"), result, "frame", "pusher")
    axes = figure.axes[0]
    assert (axes.get_xlabel(), axes.get_ylabel()) == ("xp", "time (s)")
    # The pusher's space is cut at 36 and 40 (the wall): blocked between, contacts at both ends, solid.
    assert sorted(float(line.get_xdata()[0]) for line in axes.lines if line.get_color() == OUTLINE) == [36, 40]
    assert not [line for line in axes.lines if line.get_linestyle() == "--"], "no free boundaries here"
    assert [(patch.get_x(), patch.get_x() + patch.get_width()) for patch in axes.patches] == [(36, 40)]
    assert sorted(region_labels(axes)) == ["r1", "r2"]
    samples = result.samples()
    expected = LineString([(q[result.mechanism.coordinate_index["xp"]], time) for time, _, q in samples])
    assert drawn_path(axes).equals(shapely.union_all(expected))


def test_a_pair_that_never_blocks_says_so(feeder):
    axes = pair_figure(analyzed("feeder"), feeder, "frame", "piston").axes[0]
    assert "one region: these parts never block each other" in [t.get_text() for t in axes.texts]
    assert list(region_labels(axes)) == ["r1"]


def test_regions_too_narrow_to_label_are_counted():
    result = traced("cam")
    figure = pair_figure(analyzed("cam"), result, "cam", "follower")
    axes = figure.axes[0]
    pair = find_pair(analyzed("cam"), "cam", "follower")
    notes = [t.get_text() for t in axes.texts if "too narrow" in t.get_text()]
    assert notes == [f"{len(pair.regions) - len(region_labels(axes))} regions too narrow to label here"]
    assert 3 <= len(region_labels(axes)) < len(pair.regions)
    assert_labels_readable(figure, axes)


def test_parts_are_found_in_either_order(feeder):
    assert find_pair(analyzed("feeder"), "block1", "piston") is find_pair(analyzed("feeder"), "piston", "block1")


# ---- pair-space figures of pairs in which a part turns ---------------------------------------------

QUARTER_TURNS = ["\u2212\u03c0", "\u2212\u03c0/2", "0", "\u03c0/2", "\u03c0"]  # -pi, -pi/2, 0, pi/2, pi
# A bar on a pivot turning counterclockwise into a fixed stop (tests/test_rotation.py turns it the
# other way). The stop [-1, 1] x [-3, -2] blocks the bar (half-width 0.25) where the bar's side
# touches the corners (+-1, -2), sqrt 5 from the pivot: a in [atan2(-2, -1) - d, atan2(-2, 1) + d],
# d = asin(0.25 / sqrt 5), i.e. [-2.1465, -0.9951]. From a = 0 the bar passes the seam (a = pi, at
# t = pi) and meets the stop at a = 2 pi - 2.1465 = 4.1367, drawn at -2.1465.
STOP = """
[mechanism]
name = "stop"
time = 5
[[parts]]
name = "stop"
motion = "fixed"
[[parts.slices]]
z = [0, 1]
profiles = [{ rect = [-1, -3, 1, -2] }]
[[parts]]
name = "bar"
motion = "fixed-axes"
coordinates = [{ name = "a", pivot = [0, 0] }]
[[parts.slices]]
z = [0, 1]
profiles = [{ rect = [0, -0.25, 4, 0.25] }]
[[inputs]]
velocities = { a = 1.0 }
sampling = 0.1
"""
STOP_SIDE = math.asin(0.25 / math.sqrt(5))
STOP_BLOCKED = (math.atan2(-2, -1) - STOP_SIDE, math.atan2(-2, 1) + STOP_SIDE)


@pytest.fixture(scope="module")
def cam():
    """The eccentric cam's trace and its figure (two turns of th)."""
    result = traced("eccentric-cam")
    return result, pair_figure(analyzed("eccentric-cam"), result, "cam", "follower")


def path_lines(axes):
    """The lines :func:`drawn_path` unites, each an (n, 2) array."""
    lines = list(axes.lines)
    first = next(k for k, line in enumerate(lines) if line.get_label() == "path")
    last = next(k for k, line in enumerate(lines) if line.get_label() == "start")
    return [np.column_stack(line.get_data()) for line in lines[first:last]]


def marker(axes, label):
    line = next(line for line in axes.lines if line.get_label() == label)
    return np.array([line.get_xdata()[0], line.get_ydata()[0]], float)


def seam_lines(axes):
    return [line for line in axes.lines if line.get_color() == SEAM["color"]]


def assert_path_in_window_and_unbroken_across(axes):
    """Every drawn point within the axes' limits, and no stretch across half the picture."""
    (x0, x1), (y0, y1) = axes.get_xlim(), axes.get_ylim()
    lines = path_lines(axes)
    points = np.vstack(lines)
    assert np.all((points[:, 0] >= x0) & (points[:, 0] <= x1) & (points[:, 1] >= y0) & (points[:, 1] <= y1))
    widest = max(np.abs(np.diff(line[:, 0])).max() for line in lines if len(line) > 1)
    assert widest < (x1 - x0) / 2, "a line across the picture: the path was not broken at the seam"
    return points


@slow
def test_a_wrapping_angle_is_drawn_over_one_turn_in_radians(cam):
    _, figure = cam
    axes = figure.axes[0]
    assert (axes.get_xlabel(), axes.get_ylabel()) == ("th (rad)", "yf")
    assert axes.get_xlim() == pytest.approx((-np.pi, np.pi), abs=1e-9)
    assert [label.get_text() for label in axes.get_xticklabels()] == QUARTER_TURNS
    assert axes.get_xticks() == pytest.approx(np.pi / 2 * np.arange(-2, 3))
    # The seam is a thin line at both ends of the turn, in place of the frame there.
    seams = seam_lines(axes)
    assert sorted(float(line.get_xdata()[0]) for line in seams) == pytest.approx([-np.pi, np.pi], abs=1e-12)
    assert all(line.get_linewidth() < 1 for line in seams)
    assert not axes.spines["left"].get_visible() and not axes.spines["right"].get_visible()
    assert axes.spines["bottom"].get_visible() and axes.spines["top"].get_visible()
    assert [t.get_text() for t in figure.legends[0].get_texts()][3].startswith("seam")


@slow
def test_the_cam_path_is_wrapped_into_the_turn_and_broken_at_the_seam(cam):
    _, figure = cam
    axes = figure.axes[0]
    points = assert_path_in_window_and_unbroken_across(axes)
    # Two turns: the path runs to the seam and on from its other side, twice over ...
    assert np.isclose(points[:, 0], np.pi, atol=1e-12).any() and np.isclose(points[:, 0], -np.pi, atol=1e-12).any()
    # ... on the closed form of fixtures/eccentric-cam.toml, yf = 3 + sin th with th in radians
    # (the spring lowers the follower from 3.01 at the start; the disk is drawn within its arc tolerance).
    assert np.abs(points[:, 1] - (3 + np.sin(points[:, 0]))).max() < 0.015
    assert marker(axes, "start") == pytest.approx([0, 3.01], abs=1e-9)
    assert marker(axes, "end") == pytest.approx([0, 3], abs=0.002), "4 pi is drawn at 0"


@slow
def test_no_region_is_drawn_past_the_seam(cam):
    result, figure = cam
    axes = figure.axes[0]
    pair = find_pair(analyzed("eccentric-cam"), "cam", "follower")
    half, scale = pair.periods[0] / 2, pair.matrix[0, 0]
    inside = [r for r in pair.regions
              if r.vertices[:, 0].max() > -half + 1e-9 and r.vertices[:, 0].min() < half - 1e-9]
    assert len(inside) < len(pair.regions), "the pair holds copies of regions a turn past the seam"
    labels = [t for t in axes.texts if re.fullmatch(r"r\d+", t.get_text())]
    assert len({t.get_text() for t in labels}) == len(labels), "a region labelled twice"
    for text in labels:
        region = next(r for r in inside if r.name == text.get_text())
        assert Polygon(region.vertices / [scale, 1.0]).contains(Point(text.get_position()))
    notes = [t.get_text() for t in axes.texts if "too narrow" in t.get_text()]
    assert notes == [f"{len(inside) - len(labels)} regions too narrow to label here"]
    for patch in axes.patches:
        assert np.all(np.abs(patch.get_xy()[:, 0]) <= np.pi + 1e-9)
    boundaries = [line for line in axes.lines if line.get_color() == TURNING_BOUNDARY["color"]]
    assert len(boundaries) > 100
    for line in boundaries:
        assert np.all(np.abs(line.get_xdata()) <= np.pi + 1e-9)
        assert not any(np.allclose(line.get_xdata(), x) for x in (-np.pi, np.pi)), "a region boundary along the seam"
    # The outline of blocked space is where the parts touch: never along the seam, where it is only cut.
    for line in axes.lines:
        if line.get_color() == OUTLINE:
            x = np.asarray(line.get_xdata())
            assert not np.any(np.isclose(x[:-1], x[1:]) & np.isclose(np.abs(x[1:]), np.pi))
    assert_labels_readable(figure, axes)


@slow
def test_the_cam_picture_is_not_blank(cam):
    _, figure = cam
    canvas = FigureCanvasAgg(figure)
    canvas.draw()
    image = np.asarray(canvas.buffer_rgba())[:, :, :3]

    def share(color):
        return np.all(image == [int(color[k:k + 2], 16) for k in (1, 3, 5)], axis=2).mean()

    # The band of blocked space fills about half the axes, and the path is drawn along its top.
    assert 0.15 < share(BLOCKED) < 0.5
    assert share(PATH) > 0.002
    assert share("#ffffff") < 0.8


@slow
def test_a_limited_angle_is_drawn_over_its_limits():
    result = traced("lever")
    figure = pair_figure(analyzed("lever"), result, "bar", "block")
    axes = figure.axes[0]
    assert (axes.get_xlabel(), axes.get_ylabel()) == ("a (rad)", "xb")
    x0, x1 = axes.get_xlim()
    assert x0 <= 0 and x1 >= 1.5 and x1 - x0 < 2, "the limits [0, 1.5] and a little beyond"
    assert not seam_lines(axes) and axes.spines["left"].get_visible(), "a limited angle does not wrap"
    assert not any("\u03c0" in label.get_text() for label in axes.get_xticklabels())
    points = assert_path_in_window_and_unbroken_across(axes)
    # The closed form of fixtures/lever.toml: xb = 3 until the bar's corner meets the block at
    # a = atan(7/24); xb = 9 sin a + 0.5 cos a while it pushes, to a = atan(4/3); 7.5 after.
    a, xb = points.T
    pushing = (a > math.atan(7 / 24) + 0.01) & (a < math.atan(4 / 3) - 0.01)
    assert pushing.sum() > 3
    assert np.abs(xb[pushing] - (9 * np.sin(a[pushing]) + 0.5 * np.cos(a[pushing]))).max() < 0.01
    assert marker(axes, "start") == pytest.approx([0, 3], abs=1e-9)
    assert marker(axes, "end") == pytest.approx([1.5, 7.5], abs=0.01)
    # Blocked space reaches the end of the angle's range: it is cut there, not touched.
    for line in axes.lines:
        if line.get_color() == OUTLINE:
            x = np.asarray(line.get_xdata())
            assert not np.any(np.isclose(x[:-1], x0) & np.isclose(x[1:], x0))


def test_a_one_dimensional_turning_pair_is_drawn_in_radians_against_time():
    analysis = analyze(loads(STOP, source="stop.toml"))
    figure = pair_figure(analysis, trace(analysis), "stop", "bar")
    axes = figure.axes[0]
    assert (axes.get_xlabel(), axes.get_ylabel()) == ("a (rad)", "time (s)")
    assert axes.get_xlim() == pytest.approx((-np.pi, np.pi), abs=1e-9)
    assert [label.get_text() for label in axes.get_xticklabels()] == QUARTER_TURNS
    spans = [(patch.get_x(), patch.get_x() + patch.get_width()) for patch in axes.patches]
    assert len(spans) == 1 and spans[0] == pytest.approx(STOP_BLOCKED, abs=0.01)
    contacts = sorted(float(line.get_xdata()[0]) for line in axes.lines if line.get_color() == OUTLINE)
    assert contacts == pytest.approx(spans[0], abs=1e-9)
    assert sorted(float(line.get_xdata()[0]) for line in seam_lines(axes)) == pytest.approx([-np.pi, np.pi])
    assert not [line for line in axes.lines if line.get_linestyle() == "--" and line not in seam_lines(axes)], \
        "the regions' ends at the seam are the seam, not region boundaries"
    assert sorted(t.get_text() for t in axes.texts if re.fullmatch(r"r\d+", t.get_text())) == ["r1", "r2"]
    points = assert_path_in_window_and_unbroken_across(axes)
    # a = t: the path leaves the turn at (pi, pi) and comes back in at (-pi, pi).
    for x in (np.pi, -np.pi):
        assert np.min(np.hypot(points[:, 0] - x, points[:, 1] - np.pi)) < 1e-9
    assert marker(axes, "start") == pytest.approx([0, 0])
    assert marker(axes, "end") == pytest.approx([STOP_BLOCKED[0], 2 * np.pi + STOP_BLOCKED[0]], abs=0.01)


def test_the_note_moves_to_a_corner_clear_of_the_path():
    """A turning pair's path may run along the window's edge (a wheel dwelling at -pi): the note
    of regions left unlabelled moves off it."""
    figure = Figure(figsize=(7.2, 4.8), dpi=150, layout="constrained")
    axes = figure.add_subplot()
    axes.set(xlim=(-np.pi, np.pi), ylim=(-np.pi, np.pi))
    along_the_bottom = np.array([[-np.pi, -np.pi + 0.01], [np.pi, -np.pi + 0.01]])
    axes.plot(*along_the_bottom.T)
    figure.draw_without_rendering()
    note = _note(axes, "")
    _clear_corner(axes, note, along_the_bottom, 12)
    assert note.get_position()[1] > 0.5, "moved to the top"
    trail = LineString(axes.transData.transform(along_the_bottom)).buffer(6)
    assert not trail.intersects(shapely.box(*note.get_window_extent().extents))


def test_wrapping_breaks_a_path_at_each_seam_it_crosses():
    # Across a turn and a half (seams at pi and 3 pi), still, then back over the seam at 3 pi.
    points = np.array([[-3.0, -1.0], [10.0, 2.5], [10.0, 2.5], [9.0, 3.0]])
    pieces = _wrapped(points, [2 * np.pi, 0.0])
    assert len(pieces) == 4
    whole = LineString(points)
    for piece in pieces:
        assert np.all(np.abs(piece[:, 0]) <= np.pi)
        for x, y in piece:
            assert min(whole.distance(Point(x + 2 * np.pi * k, y)) for k in range(-2, 3)) < 1e-9
    for before, after in zip(pieces, pieces[1:]):
        assert abs(before[-1][0]) == pytest.approx(np.pi) and after[0][0] == pytest.approx(-before[-1][0])
        assert after[0][1] == pytest.approx(before[-1][1])
    # Through a corner of the turn: both seams at once, one break.
    corner = _wrapped(np.array([[3.0, 3.0], [3.5, 3.5]]), [2 * np.pi, 2 * np.pi])
    assert len(corner) == 2 and corner[1][0] == pytest.approx([-np.pi, -np.pi])
    # The line labels keep clear of joins the pieces round the outside of the window, never across it.
    window = shapely.box(-np.pi, -5, np.pi, 5)
    clearance = LineString(_clearance(pieces, (-np.pi, np.pi, -5, 5)))
    joins = clearance.difference(shapely.MultiLineString([piece for piece in pieces if len(piece) > 1]))
    assert joins.length > 0 and joins.intersection(window).length < 1e-9


# ---- pair-space figures of pairs of which a part shifts along z -----------------------------------

# A wheel turning on its shaft, with a square at z [0, 1] and a bar at z [2.5, 3.5]; a dog that
# shifts along z (s, 0 to 2.5) with one slice at z [0, 1] + s. The drawing says: the square
# meets the dog for s < 1 (band 1), nothing meets for 1 < s < 1.5 (band 2), the bar meets it
# for s > 1.5 (band 3). The wheel turns 1 rad, the dog shifts to 2.5, the wheel turns on until
# the bar meets the dog.
SHAFT = """
[mechanism]
name = "shaft"
time = 5

[[parts]]
name = "wheel"
motion = "fixed-axes"
coordinates = [ { name = "t1", pivot = [0, 0] } ]

[[parts.slices]]
z = [0, 1]
profiles = [ { rect = [-1, -1, 1, 1] } ]

[[parts.slices]]
z = [2.5, 3.5]
profiles = [ { rect = [-1.6, -0.5, 1.6, 0.5] } ]

[[parts]]
name = "dog"
motion = "fixed-axes"
coordinates = [ { name = "s", axis = "z", limits = [0, 2.5] } ]

[[parts.slices]]
z = [0, 1]
profiles = [ { rect = [1.5, -1.2, 3.9, 1.2] } ]

[[inputs]]
velocities = { t1 = 1 }
sampling = 0.25
duration = 1

[[inputs]]
velocities = { s = 1 }
sampling = 0.25
duration = 2.5

[[inputs]]
velocities = { t1 = 1 }
sampling = 0.25
"""


def _path_pieces(axes):
    """The path's lines in a panel, each an (n, 2) array (whether or not the panel has the start marker)."""
    return [np.column_stack(line.get_data()) for line in axes.lines
            if line.get_color() == PATH and line.get_marker() in ("None", "", None)]


def _on_path(axes, points, tolerance=1e-9):
    """Does every point lie on the path as drawn in ``axes``?"""
    path = shapely.union_all([LineString(piece) for piece in _path_pieces(axes)])
    return all(path.distance(Point(p)) <= tolerance for p in points)


@slow
def test_a_pair_of_which_a_part_shifts_is_drawn_band_by_band():
    """plot-pair on a shifting pair (the transmission's input and cluster) crashed in
    ``_clearance``: its space has the shift as a third axis. It is drawn as the shift against
    time, then the planar space of each band in which slices meet, with the path's stretches
    in that band: the samples against the drawing's own bands, not the code's."""
    analysis = analyze(loads(SHAFT, source="shaft.toml"))
    result = trace(analysis)
    figure = pair_figure(analysis, result, "wheel", "dog")
    shift, first, third = figure.axes
    assert [a.get_title() for a in figure.axes] == [
        "the shift, band by band", "band 1: 0 \u2264 s \u2264 1\nwheel slices[0] / dog slices[0]",
        "band 3: 1.5 \u2264 s \u2264 2.5\nwheel slices[1] / dog slices[0]"]
    bands = sorted(t.get_text() for t in shift.texts if t.get_text().startswith("band"))
    assert bands == ["band 1", "band 2", "band 3"]
    index = result.mechanism.coordinate_index
    samples = [(time, float(q[index["t1"]]), float(q[index["s"]])) for time, _, q in result.samples()]
    assert shift.get_xlabel() == "s" and _on_path(shift, [(s, time) for time, _, s in samples])
    near = result.mechanism.tolerance.length
    for axes, (lo, hi) in ((first, (0.0, 1.0)), (third, (1.5, 2.5))):
        assert (axes.get_xlabel(), axes.get_ylabel()) == ("t1 (rad)", "time (s)")
        within = [(math.remainder(t1, 2 * math.pi), time) for time, t1, s in samples if lo + near < s < hi - near]
        assert within and _on_path(axes, within)
        # Nothing drawn from outside the band: the samples in it, its ends included, span the times drawn.
        times = [time for time, _, s in samples if lo - near <= s <= hi + near]
        drawn = np.vstack(_path_pieces(axes))
        assert min(times) - 1e-9 <= drawn[:, 1].min() and drawn[:, 1].max() <= max(times) + 1e-9
    assert marker(first, "start") == pytest.approx([0, 0])
    assert marker(third, "end") == pytest.approx([math.remainder(samples[-1][1], 2 * math.pi), samples[-1][0]])
    assert "end" not in [line.get_label() for line in first.lines]
    assert "start" not in [line.get_label() for line in third.lines]


def test_a_pin_under_a_plate_is_drawn_in_the_band_where_it_meets_the_plate():
    """The pin slides under the plate at s = 0 (the z faces touch: no band's planar space
    holds there) and rises into the hole at x = 2.5: in the band where it meets the plate its
    path starts at the hole, never across the plate's blocked space."""
    from .test_layers import PIN

    analysis = analyze(loads(PIN, source="pin.toml"))
    result = trace(analysis)
    figure = pair_figure(analysis, result, "frame", "pin")
    shift, band = figure.axes
    assert band.get_title() == "band 1: 0 \u2264 s \u2264 1\nframe slices[0] / pin slices[0]"
    near = result.mechanism.tolerance.length
    drawn = np.vstack(_path_pieces(band))
    assert drawn[:, 0].min() == pytest.approx(2.5, abs=near) and drawn[:, 0].max() == pytest.approx(3.5, abs=near)
    without = PIN.replace('{ name = "x", axis = [1, 0], initial = -5 }, ', "").replace(
        "rect = [-0.5, -0.5, 0.5, 0.5]", "rect = [2.5, -0.5, 3.5, 0.5]")
    analysis = analyze(loads(without[:without.index("[[inputs]]")], source="pin.toml"))
    (shift,) = pair_figure(analysis, trace(analysis), "frame", "pin").axes  # no planar coordinate: the shift alone
    assert shapely.union_all([LineString(p) for p in _path_pieces(shift)]).equals(LineString([(0, 0), (1, 0)]))


@slow
def test_plot_pair_of_a_shifting_pair_command(tmp_path, capsys):
    mechanism = tmp_path / "shaft.toml"
    mechanism.write_text(SHAFT)
    out = tmp_path / "pair.png"
    status, stdout, err = run(["plot-pair", str(mechanism), "wheel", "dog", "-o", str(out)], capsys)
    assert (status, stdout, err) == (0, f"{out}: configuration space of wheel/dog\n", "")
    assert Image.open(out).size[0] > Image.open(out).size[1] * 2, "three panels side by side"


# ---- region tables ---------------------------------------------------------------------------

def text_cells(feeder):
    """The cells of ``trace --regions``, the text table cspace prints itself."""
    lines = region_table(feeder).splitlines()
    return [re.split(r"\s{2,}", line.strip()) for line in lines]


def test_markdown_region_table_matches_the_text_one(feeder):
    rows = [[c.strip() for c in line.strip("|").split("|")] for line in markdown_region_table(feeder).splitlines()]
    expected = text_cells(feeder)
    assert rows[0] == expected[0]
    assert set(rows[1]) <= {"---", "---:"}
    assert rows[2:] == expected[1:]


def test_html_region_table_matches_the_text_one(feeder):
    class Cells(html.parser.HTMLParser):
        def __init__(self):
            super().__init__()
            self.rows, self.inside = [], False

        def handle_starttag(self, tag, attrs):
            if tag == "tr":
                self.rows.append([])
            self.inside = tag in ("td", "th")

        def handle_endtag(self, tag):
            self.inside = False

        def handle_data(self, data):
            if self.inside:
                self.rows[-1].append(data)

    parser = Cells()
    parser.feed(html_region_table(feeder))
    assert parser.rows == text_cells(feeder)


# ---- the commands --------------------------------------------------------------------------

def run(argv, capsys):
    status = main(argv)
    out = capsys.readouterr()
    return status, out.out, out.err


def test_animate_command(tmp_path, capsys):
    out = tmp_path / "feeder.gif"
    status, stdout, err = run(["animate", FEEDER, "-o", str(out), "--until", "0.5", "--size", "96x72"], capsys)
    assert status == 0 and err == ""
    assert stdout == f"{out}: 3 frames, 96x72\n"
    with Image.open(out) as gif:
        assert (gif.n_frames, gif.size) == (3, (96, 72))


def test_plot_pair_command(tmp_path, capsys):
    out = tmp_path / "pair.svg"
    status, stdout, err = run(["plot-pair", FEEDER, "piston", "block1", "-o", str(out), "--until", "3"], capsys)
    assert (status, stdout, err) == (0, f"{out}: configuration space of piston/block1\n", "")
    first = out.read_text()
    run(["plot-pair", FEEDER, "piston", "block1", "-o", str(out), "--until", "3"], capsys)
    assert out.read_text() == first, "the same input gives the same file"
    assert "configuration space of piston/block1" in first


@pytest.mark.parametrize("form,marker", [("md", "| segment | motion |"), ("html", "<th>segment</th>")])
def test_regions_command(capsys, form, marker):
    status, stdout, _ = run(["regions", FEEDER, "--format", form, "--until", "3"], capsys)
    assert status == 0 and marker in stdout


@pytest.mark.parametrize("argv,message", [
    (["plot-pair", FEEDER, "pistn", "block1", "-o", "{tmp}/p.png"],
     "PART_A: unknown part 'pistn' (did you mean 'piston'?)"),
    (["plot-pair", FEEDER, "driver", "block1", "-o", "{tmp}/p.png"],
     "PART_B: parts 'driver' and 'block1' never touch, so they have no configuration space"),
    (["plot-pair", FEEDER, "piston", "block1", "-o", "{tmp}/missing/p.png"], "-o: directory '{tmp}/missing' does not exist"),
    (["plot-pair", FEEDER, "piston", "block1", "-o", "{tmp}/p.jpg"], "-o: unsupported extension '.jpg'; use .png, .svg or .pdf"),
    (["animate", FEEDER, "-o", "{tmp}/missing/a.gif"], "-o: directory '{tmp}/missing' does not exist"),
    (["animate", FEEDER, "-o", "{tmp}/a.avi"], "-o: unsupported extension '.avi'; use .gif, .mp4 or .html"),
    (["animate", FEEDER, "-o", "{tmp}/a"], "-o: unsupported extension '(none)'; use .gif, .mp4 or .html"),
    (["animate", FEEDER, "-o", "{tmp}/a.mp4", "--size", "161x120"], "-o: an MP4 needs an even width and height"),
])
def test_bad_input_is_one_clear_line(tmp_path, capsys, argv, message):
    argv = [a.replace("{tmp}", str(tmp_path)) for a in argv]
    status, stdout, err = run(argv, capsys)
    assert status == 2 and stdout == ""
    assert err.startswith("cspace: error: ") and err.count("\n") == 1
    assert message.replace("{tmp}", str(tmp_path)) in err


def test_show_without_a_display_says_so(monkeypatch, capsys):
    monkeypatch.setattr(sys, "platform", "linux")
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    status, stdout, err = run(["show", FEEDER], capsys)
    assert status == 2 and stdout == ""
    assert err == ("cspace: error: no display available for an interactive window (neither DISPLAY nor "
                   "WAYLAND_DISPLAY is set); use `cspace animate` instead\n")


@pytest.mark.parametrize("argv", [["animate", FEEDER, "-o", "x.gif", "--size", "80"],
                                  ["animate", FEEDER, "-o", "x.gif", "--size", "8x6"],
                                  ["animate", FEEDER, "-o", "x.gif", "--fps", "0"],
                                  ["regions", FEEDER, "--format", "txt"]])
def test_bad_options_are_usage_errors(capsys, argv):
    with pytest.raises(SystemExit) as stop:
        main(argv)
    assert stop.value.code == 2
    assert "error: argument" in capsys.readouterr().err


# ---- documentation examples -------------------------------------------------------------------

@pytest.mark.parametrize("name", VIZ_MODULES)
def test_doctests(name, monkeypatch):
    monkeypatch.chdir(ROOT)
    result = doctest.testmod(importlib.import_module(f"cspace.viz.{name}"))
    assert result.attempted > 0 and result.failed == 0
