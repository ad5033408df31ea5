"""The text on a rendered picture: a caption that fits the frame, and a legend of the parts' colours.

Rendering is real (VTK offscreen) and small. The caption's pixels are found as the pixels that
are dark with the caption and not without it; where the legend's parts are drawn, the parts'
own pixels come from the test's projection of their meshes (shapely), not from the scene's
placement code. Text sizes are measured by :class:`~cspace.viz.text.TextMetrics`, the
renderer's own font metrics, and checked against the pixels drawn.
"""

from __future__ import annotations

import re
from functools import lru_cache

import numpy as np
import pytest
import pyvista
import shapely
from cspace.viz.animation import animate
from cspace.viz.colors import part_colors
from cspace.viz.legend import legend_entries
from cspace.viz.mesh import mechanism_meshes, posed
from cspace.viz.scene import SMALLEST_FONT, Scene
from cspace.viz.snapshots import frames, part_poses, snapshots
from cspace.viz.text import INDENT, wrapped
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image, ImageSequence

from cspace import analyze, loads, simulate

from .common import analyzed, tool, traced
from .test_viz import ONE_TURN, SMALL, to_pixels

pyvista.OFF_SCREEN = True

DARK = 100  # a channel below this is text (or an edge), never a part's face or the backing
# A caption of the bouncing block (full dynamics): its first line has no comma to break at.
BOUNCING = ("t = 1.00 s   stretch 5 of 26: flight   impact at t = 0.903 s\n"
            "energy: kinetic 0.01221, potential 5.506")
UNBROKEN = "t = 0.00 s   segment 1 of 1\n" + "supercalifragilisticexpialidocious" * 3
SIZES = [(160, 120), (200, 150), (320, 240), (1280, 960)]
# A plate as wide as the picture: no corner of it is clear, so the legend gets a band of its own.
PLATE = """
[mechanism]
name = "plate"
time = 1

[[parts]]
name = "plate"
motion = "fixed-axes"
coordinates = [ { name = "x", axis = [1, 0], initial = 0 } ]

[[parts.slices]]
z = [0, 1]
profiles = [ { rect = [0, 0, 40, 30] } ]

[[inputs]]
name = "plate slides"
velocities = { x = 1.0 }
sampling = 0.5
"""


@lru_cache(maxsize=None)
def simulated(name: str, until: float):
    """The first ``until`` seconds of a full-dynamics fixture's path."""
    return simulate(analyzed(name), until=until)


@pytest.fixture(scope="module")
def feeder():
    return traced("feeder", ONE_TURN)


# ---- wrapping ------------------------------------------------------------------------------

def by_length(width: int):
    return lambda line: len(line) <= width


@pytest.mark.parametrize("line, width, expected", [
    ("gravity: block1 yb1-, block2 yb2-, block3 yb3-", 26, ["gravity: block1 yb1-,", "  block2 yb2-, block3 yb3-"]),
    ("t = 1.00 s   stretch 5 of 26: flight   impact at t = 0.903 s", 40,
     ["t = 1.00 s   stretch 5 of 26: flight", "  impact at t = 0.903 s"]),
    ("driver rotates counterclockwise: driver cd ccw, piston xp-", 30,
     ["driver rotates", "  counterclockwise: driver cd", "  ccw, piston xp-"]),
    ("abcdefghij", 4, ["abcd", "  ef", "  gh", "  ij"]),
    ("fits as it is", 13, ["fits as it is"]),
])
def test_a_line_breaks_after_a_comma_then_at_a_gap_then_a_space_then_anywhere(line, width, expected):
    assert wrapped(line, by_length(width)) == expected


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="ab ,", max_size=60), st.integers(min_value=3, max_value=30))
def test_wrapping_keeps_every_character_and_each_line_fits(line, width):
    lines = wrapped(line, by_length(width))
    assert all(len(piece) <= width for piece in lines)
    assert re.sub(r"\s", "", "".join(lines)) == re.sub(r"\s", "", line)
    assert all(piece.startswith(INDENT) for piece in lines[1:])


# ---- the caption -------------------------------------------------------------------------------

def caption_pixels(scene, values, caption):
    """(rows, columns) of the pixels the caption makes dark."""
    scene.pose(values, "")
    without = scene.image().min(axis=2) < DARK
    scene.pose(values, caption)
    with_caption = scene.image().min(axis=2) < DARK
    return np.nonzero(with_caption & ~without)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("caption", [BOUNCING, UNBROKEN], ids=["bouncing", "unbroken"])
def test_the_caption_stays_inside_the_frame_and_its_band(feeder, size, caption):
    scene = Scene(feeder, size=size, captions=[caption])
    try:
        rows, cols = caption_pixels(scene, feeder.initial, caption)
        shown = scene.caption
        width, height = scene.caption_metrics.size(shown.text, shown.font)  # its backing's box
    finally:
        scene.close()
    assert len(cols), "the caption is drawn"
    assert cols.min() >= scene.margin - 1 and cols.max() <= size[0] - scene.margin, "inside the frame across"
    assert rows.max() < scene.band, "inside its band: the camera keeps the parts below it"
    assert width <= size[0] - 2 * scene.margin and height <= scene.band - scene.margin
    backing = scene.margin - 2  # the backing's box, as the metrics give it, starts 2 pixels before the text
    assert backing <= cols.min() and cols.max() < backing + width, "the ink lies in the box the metrics give"
    assert cols.max() + 1 - cols.min() > width / 2
    assert re.sub(r"\s", "", shown.text) == re.sub(r"\s", "", caption), "every character is shown"


def test_a_caption_too_long_for_the_band_is_drawn_smaller(feeder):
    """Twelve comma-separated pieces need more than the band's three lines at 320 pixels wide."""
    caption = "t = 0.00 s   segment 1 of 1\nmotion: " + ", ".join(f"block{k} yb{k}-" for k in range(12))
    scene = Scene(feeder, size=(320, 240), captions=[caption])
    plain = Scene(feeder, size=(320, 240))
    try:
        assert scene.caption_font < plain.caption_font, "smaller than a short caption's"
        rows, cols = caption_pixels(scene, feeder.initial, caption)
        assert rows.max() < scene.band and cols.max() <= 320 - scene.margin
    finally:
        scene.close()
        plain.close()


def test_an_animations_captions_share_one_size(feeder):
    shots = snapshots(feeder)
    scene = Scene(feeder, size=(200, 150), captions=[s.caption for s in shots])
    try:
        sizes = set()
        for shot in shots[::7]:
            scene.pose(shot.values, shot.caption)
            sizes.add(scene.caption.font)
        assert sizes == {scene.caption_font} and scene.caption_font >= SMALLEST_FONT
    finally:
        scene.close()


@pytest.mark.parametrize("name, size", [("bouncing-block", (160, 120)), ("bouncing-block", (320, 240)),
                                        ("feeder", (200, 150))])
def test_a_gifs_captions_fit_its_frames(tmp_path, name, size):
    """From the GIF's pixels: in every frame the caption's text (the dark pixels in the band at
    the top, where no moving part goes) keeps off the frame's edges."""
    result = simulated(name, 1.0) if name == "bouncing-block" else traced(name, 2.5)
    path = tmp_path / f"{name}.gif"
    animate(result, path, size=size)
    shots = frames(result, 10)
    scene = Scene(result, size=size, framed=[s.values for s in shots], captions=[s.caption for s in shots])
    band, margin = scene.band, scene.margin
    scene.close()
    with Image.open(path) as gif:
        pictures = [np.asarray(frame.convert("RGB")) for frame in ImageSequence.Iterator(gif)]
    assert len(pictures) == len(shots)
    for picture in pictures:
        cols = np.nonzero(picture[:band].min(axis=2) < DARK)[1]
        assert len(cols) and cols.min() >= margin - 1 and cols.max() <= size[0] - margin


# ---- the legend ---------------------------------------------------------------------------------

def test_each_colour_has_one_entry_naming_its_parts():
    """A 12-block feeder has more moving parts than the palette has colours: parts that share a
    colour share an entry; every part is named once, beside its own colour."""
    mechanism = loads(tool("feeder_n").Feeder(12).toml())
    colors = part_colors(mechanism)
    entries = legend_entries(mechanism)
    assert len({e.color for e in entries}) == len(entries) == len(set(colors.values())) < len(colors)
    named = {name: e.color for e in entries for name in e.label.split(", ")}
    assert named == colors


def swatch_interiors(scene):
    """Each legend entry's colour and its swatch's pixels one pixel in from its edge."""
    image = scene.image()
    return [(entry.color, image[top + 1:bottom - 1, left + 1:right - 1])
            for entry, (left, top, right, bottom) in zip(scene.legend.layout.entries, scene.legend.swatch_boxes())]


def rgb(color):
    return np.array([int(color[k:k + 2], 16) for k in (1, 3, 5)])


@pytest.mark.parametrize("size", [(320, 240), (640, 480)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_the_legends_swatches_have_the_parts_colours_and_its_names_are_drawn(feeder, size):
    scene = Scene(feeder, size=size, framed=[s.values for s in snapshots(feeder)])
    try:
        assert {e.label for e in scene.legend.layout.entries} == {p.name for p in feeder.mechanism.parts}
        for color, pixels in swatch_interiors(scene):
            assert pixels.size and np.all(pixels == rgb(color)), color
        image, (left, top, right, bottom) = scene.image(), scene.legend.box
        assert 0 <= left < right <= size[0] and scene.band <= top < bottom <= size[1]
        layout = scene.legend.layout
        for entry, (x, y) in zip(layout.entries, layout.labels):
            width, height = scene.metrics.size(entry.label, layout.font)
            x0, y0 = left + x, top + y
            assert x0 + width <= right and y0 + height <= bottom, "the names fit the legend"
            ink = image[top:bottom, left:right].min(axis=2) < DARK
            cols = np.nonzero(ink[y:y + height, x - 2:x + width + 2])[1]  # clear of the swatches
            cols += x - 2
            assert len(cols), entry.label
            assert x <= cols.min() and cols.max() < x + width, f"{entry.label}: in the box the metrics give"
            assert cols.max() + 1 - cols.min() > width / 2, entry.label
    finally:
        scene.close()


def test_a_gifs_legend_has_the_parts_colours(tmp_path, feeder):
    """From the GIF's pixels (its palette holds each colour within a few levels)."""
    path = tmp_path / "feeder.gif"
    animate(feeder, path, size=(320, 240))
    shots = snapshots(feeder)
    scene = Scene(feeder, size=(320, 240), framed=[s.values for s in shots], captions=[s.caption for s in shots])
    boxes = list(zip(scene.legend.layout.entries, scene.legend.swatch_boxes()))
    scene.close()
    with Image.open(path) as gif:
        picture = np.asarray(next(ImageSequence.Iterator(gif)).convert("RGB")).astype(int)
    for entry, (left, top, right, bottom) in boxes:
        pixels = picture[top + 1:bottom - 1, left + 1:right - 1]
        assert pixels.size and np.abs(pixels - rgb(entry.color)).max() <= 8, entry.label


def moving_outlines(scene, result, values):
    """The moving parts as drawn at ``values``: the hull of each one's projected mesh, in pixels."""
    meshes = mechanism_meshes(result.mechanism)
    poses = part_poses(result, values)
    return [shapely.MultiPoint(to_pixels(scene, posed(meshes[p.name], poses[p.name]))).convex_hull
            for p in result.mechanism.parts if p.motion != "fixed"]


@pytest.mark.parametrize("name", ["feeder", "lever", "four-bar", "ratchet-torque", "bouncing-block"])
@pytest.mark.parametrize("size", [SMALL, (320, 240)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_the_legend_covers_no_moving_part_in_any_frame(name, size):
    result = simulated(name, 2.0) if name in ("ratchet-torque", "bouncing-block") else traced(name)
    shots = frames(result, 10)
    scene = Scene(result, size=size, framed=[s.values for s in shots], captions=[s.caption for s in shots])
    try:
        legend = shapely.box(*scene.legend.box).buffer(-0.5)
        for shot in shots:
            for outline in moving_outlines(scene, result, shot.values):
                assert not outline.intersects(legend), shot
    finally:
        scene.close()


def test_where_a_corner_is_clear_the_legend_covers_nothing(feeder):
    """The feeder at 640 x 480 leaves the top right clear (the walls stop below it): the legend
    covers no face of the frame either."""
    scene = Scene(feeder, size=(640, 480), framed=[s.values for s in snapshots(feeder)])
    try:
        mesh = mechanism_meshes(feeder.mechanism)["frame"]
        points = to_pixels(scene, posed(mesh, part_poses(feeder, feeder.initial)["frame"]))
        faces = [shapely.Polygon(points[f]) for f in list(mesh.triangles) + list(mesh.quads)]
        legend = shapely.box(*scene.legend.box).buffer(-0.5)
        assert not any(face.intersects(legend) for face in faces if face.area > 0)
    finally:
        scene.close()


@pytest.mark.parametrize("size", [(320, 240), (200, 150)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_a_mechanism_filling_the_picture_leaves_the_legend_a_band(size):
    """A plate as wide as the picture's shape leaves no corner clear: the camera draws it smaller,
    out of a band along the right edge that holds the legend."""
    analysis = analyze(loads(PLATE))
    scene = Scene(analysis, size=size)
    try:
        left, top, right, bottom = scene.legend.box
        plate = moving_outlines(scene, analysis, analysis.initial)[0]
        assert not plate.intersects(shapely.box(left, top, right, bottom).buffer(-0.5))
        x0, y0, x1, _ = plate.bounds
        assert x1 <= left and x0 >= 0 and y0 >= scene.band, "the plate is left of the legend, below the caption"
        assert x1 - x0 > 0.6 * size[0], "and no smaller than the band makes it"
        for color, pixels in swatch_interiors(scene):
            assert np.all(pixels == rgb(color))
    finally:
        scene.close()


def test_a_picture_too_small_for_a_legend_has_none(feeder):
    scene = Scene(feeder, size=(32, 24))
    try:
        assert scene.legend is None and scene.image().shape == (24, 32, 3)
    finally:
        scene.close()

