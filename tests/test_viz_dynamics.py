"""The rendering of full-dynamics paths (cspace.kinetics.DynamicTrace): frames in real time,
the scene, the animations, the player, the browser viewer, pair plots and the commands.

Where a place is checked, the expected one comes from the closed form of the motion, not
from viz: the bouncing block (its bottom 1 above the floor, g = 9.81, e = 0.5) falls as
y = -g t^2 / 2 until t1 = sqrt(2 / g), leaves the floor at e g t1 and flies to its next impact
at t1 + 2 e t1. The four-bar's coupler is where its linkage's exact motion puts it.
"""

from __future__ import annotations

import json
import math
import re

import imageio_ffmpeg
import numpy as np
import pytest
import pyvista
import shapely
from cspace.viz.animation import animate
from cspace.viz.colors import part_colors
from cspace.viz.pair_plot import IMPACT, pair_figure
from cspace.viz.scene import Scene
from cspace.viz.snapshots import frames, part_poses, sample_stretches, snapshots
from cspace.viz.viewer import Player
from cspace.viz.web import html_page, write_html
from PIL import Image, ImageSequence
from shapely.geometry import LineString

from cspace import simulate
from cspace.cli import main
from cspace.kinetics.linkage_motion import LinkageMotion
from cspace.model.kinds import Mode
from cspace.model.poses import rigid

from .common import analyzed, fixture_path, slow
from .test_browser import VIEWPORT, Loaded, browser  # noqa: F401  (browser: the headless Chromium fixture)
from .test_viz import drawn_path, mask_of, parts_only, projected_box

pyvista.OFF_SCREEN = True

G = 9.81
E = 0.5
T1 = math.sqrt(2 / G)  # the first impact: the block's bottom falls from 1 to the floor's top at 0
V1 = E * G * T1  # the rate it leaves the floor with
T2 = T1 + 2 * V1 / G  # the second impact
BLOCK = str(fixture_path("bouncing-block"))
FOUR_BAR = str(fixture_path("kramer-four-bar"))
SMALL = (200, 150)


def height(t: float) -> float:
    """The block's y in its first two flights, by the closed form."""
    if t <= T1:
        return -G * t * t / 2
    assert t <= T2
    s = t - T1
    return -1 + V1 * s - G * s * s / 2


@pytest.fixture(scope="module")
def block():
    return simulate(analyzed("bouncing-block"))


@pytest.fixture(scope="module")
def four_bar():
    return simulate(analyzed("kramer-four-bar"), until=1.0)


def test_the_fixture_meets_the_closed_form(block):
    impacts = sorted({s.start for s in block.impacts})
    assert impacts[0] == pytest.approx(T1, abs=1e-9) and impacts[1] == pytest.approx(T2, abs=1e-9)


# ---- snapshots and frames -------------------------------------------------------------------------

def test_every_sample_is_a_snapshot_and_an_impact_is_two_at_one_time(block):
    shots = snapshots(block)
    assert [s.time for s in shots] == block.times.tolist()
    first = next(k for k, s in enumerate(shots) if s.time == pytest.approx(T1, abs=1e-9))
    before, after = shots[first], shots[first + 1]
    assert before.time == after.time and np.array_equal(before.values, after.values)
    assert block.stretches[before.segment - 1].mode == Mode.IMPACT
    assert block.stretches[after.segment - 1].mode == Mode.FLIGHT
    assert before.caption.startswith(f"t = 0.45 s   stretch {before.segment} of {len(block.stretches)}: impact")
    assert shots[first - 1].segment == 1 and shots[-1].segment == len(block.stretches)
    # every sample lies in its stretch
    for shot in shots:
        stretch = block.stretches[shot.segment - 1]
        assert stretch.start <= shot.time <= stretch.end


@pytest.mark.parametrize("fps, times", [(10, [k / 10 for k in range(21)]), (2.5, [0, 0.4, 0.8, 1.2, 1.6, 2.0]),
                                        (0.75, [0, 4 / 3, 2.0])])
def test_a_movie_has_a_frame_per_tick_of_real_time_and_one_at_the_end(block, fps, times):
    assert [f.time for f in frames(block, fps)] == pytest.approx(times, abs=1e-12)


def test_frames_between_samples_follow_the_closed_form(block):
    # 7 frames a second fall between the samples (every 0.01 s and every event): linear interpolation
    # between them misses the parabola by at most g h^2 / 8 for a gap h
    gap = float(np.diff(block.times).max())
    shown = [f for f in frames(block, 7) if f.time < T2]
    assert len(shown) == 7 and any(f.time > T1 for f in shown)
    for frame in shown:
        assert frame.values[0] == pytest.approx(height(frame.time), abs=G * gap * gap / 8 + 1e-12)
        assert ": flight" in frame.caption.splitlines()[0]


def test_the_caption_gives_the_energies_and_the_impact_since_the_frame_before(block):
    shown = frames(block, 10)
    kinetic, potential = re.match(r"energy: kinetic (\S+), potential (\S+)$", shown[3].caption.splitlines()[1]).groups()
    assert float(kinetic) == pytest.approx((G * 0.3) ** 2 / 2, rel=1e-3)  # m = 1
    assert float(potential) == pytest.approx(G * (1.5 + height(0.3)), rel=1e-3)  # its centre is 1.5 above y
    said = [f for f in shown if "impact" in f.caption]
    assert said[0].time == 0.5 and "impact at t = 0.452 s" in said[0].caption
    assert said[1].time == 1.0 and "impact at t = 0.903 s" in said[1].caption
    assert all(f.time != pytest.approx(T1, abs=1e-3) for f in shown), "an impact is an instant: no frame of its own"
    assert shown[-1].caption.startswith(f"t = 2.00 s   stretch {len(block.stretches)} of {len(block.stretches)}: "
                                        "contact")


# ---- poses ----------------------------------------------------------------------------------------

def test_the_scene_moves_the_block_by_the_closed_form(block):
    scene = Scene(block, size=SMALL, view="plane", framed=[f.values for f in frames(block, 10)])
    try:
        actor = scene.plotter.actors["block"]
        checked = 0
        for shot in snapshots(block):
            if 0 < shot.time < T2 and abs(shot.time - T1) > 1e-9:
                scene.pose(shot.values, shot.caption)
                assert actor.user_matrix[1, 3] == pytest.approx(height(shot.time), abs=1e-9)
                assert actor.user_matrix[0, 3] == 0
                checked += 1
        assert checked > 80
    finally:
        scene.close()


@pytest.mark.parametrize("t", [0.3, 0.7])
def test_a_rendered_frame_shows_the_block_where_free_fall_puts_it(block, t):
    shown = frames(block, 10)
    frame = shown[round(t * 10)]
    assert frame.time == pytest.approx(t)
    scene = Scene(block, size=SMALL, view="plane", framed=[f.values for f in shown], antialias=False)
    try:
        color = part_colors(block.mechanism)["block"]
        drawn = {}
        for when, shot in (("start", shown[0]), ("now", frame)):
            scene.pose(shot.values, shot.caption)
            rows, cols = np.nonzero(mask_of(parts_only(scene), color))
            drawn[when] = rows
        y = height(t)
        left, right, top, bottom = projected_box(scene, -0.5, y + 1, 0.5, y + 2)  # the block's rect, moved by y
        rows = drawn["now"]
        assert abs(rows.min() - top) <= 1.5 and abs(rows.max() + 1 - bottom) <= 1.5
        scale = SMALL[1] / (2 * scene.plotter.camera.parallel_scale)
        assert rows.min() - drawn["start"].min() == pytest.approx(-y * scale, abs=1.5)
        assert -y * scale > 5, "far enough from the start to tell"
    finally:
        scene.close()


def exact(mechanism, values) -> np.ndarray:
    linkage = mechanism.linkages[0]
    jet = LinkageMotion(mechanism, linkage).jet(values[mechanism.coordinate_index[linkage.input]])
    return rigid(*jet.poses["coupler"].value)


@slow
def test_the_coupler_is_posed_by_the_linkages_exact_motion(four_bar):
    mechanism = four_bar.mechanism
    scene = Scene(four_bar, size=SMALL)
    try:
        for shot in snapshots(four_bar)[::40] + frames(four_bar, 10)[1::3]:
            pose = exact(mechanism, shot.values)
            assert np.allclose(part_poses(four_bar, shot.values)["coupler"], pose, rtol=0, atol=1e-12)
            scene.pose(shot.values, shot.caption)
            matrix = scene.plotter.actors["coupler"].user_matrix
            assert np.allclose(matrix[:2, :2], pose[:2, :2], rtol=0, atol=1e-12)
            assert np.allclose(matrix[:2, 3], pose[:2, 2], rtol=0, atol=1e-12)
        # at a sample the joints close: the crank's pin (1, 0) on the coupler's (0, 0), the coupler's (3.5, 0)
        # on the rocker's (7, 0)
        for shot in snapshots(four_bar)[::25]:
            poses = part_poses(four_bar, shot.values)
            assert np.allclose(poses["coupler"] @ [0, 0, 1], poses["crank"] @ [1, 0, 1], rtol=0, atol=1e-9)
            assert np.allclose(poses["coupler"] @ [3.5, 0, 1], poses["rocker"] @ [7, 0, 1], rtol=0, atol=1e-8)
    finally:
        scene.close()


def test_no_linkage_table_is_asked_for_a_dynamic_path(four_bar, monkeypatch):
    def refused(*args, **kwargs):
        raise AssertionError("a dynamic path's linkage members come from the exact motion, not a table")

    monkeypatch.setattr("cspace.spaces.linkage.LinkageTable.pose", refused)
    shot = snapshots(four_bar)[100]
    assert np.allclose(part_poses(four_bar, shot.values)["coupler"], exact(four_bar.mechanism, shot.values))


# ---- animations and the player --------------------------------------------------------------------

def test_the_bouncing_block_animates_in_real_time(block, tmp_path):
    gif = tmp_path / "block.gif"
    assert animate(block, gif, size=(96, 72), fps=10) == 21  # 2 s at 10 frames a second, both ends
    with Image.open(gif) as image:
        durations = [f.info["duration"] for f in ImageSequence.Iterator(image)]
    assert sum(durations) == 21 * 100  # a picture repeated is one frame shown for longer
    mp4 = tmp_path / "block.mp4"
    assert animate(block, mp4, size=(96, 72), fps=5) == 11
    reader = imageio_ffmpeg.read_frames(str(mp4))
    next(reader)
    assert sum(1 for _ in reader) == 11


def test_the_player_steps_through_a_dynamic_path_a_tick_apart(block):
    player = Player(block, size=(96, 72))
    try:
        assert len(player.shots) == 21 and [s.time for s in player.shots[:3]] == pytest.approx([0, 0.1, 0.2])
        player.play(True)
        for _ in range(5):
            player.tick()
        assert player.index == 5 and "impact at t = 0.452 s" in player.shots[player.index].caption
    finally:
        player.close()


# ---- the browser viewer ---------------------------------------------------------------------------

def page_data(page: str) -> dict:
    return json.loads(re.search(r'<script type="application/json" id="cspace-data">(.*?)</script>', page).group(1))


def test_the_viewer_page_holds_every_sample_and_stretch(block):
    page = html_page(block, size=(400, 300))
    data = page_data(page)
    assert data["t"] == pytest.approx(block.times.tolist(), abs=1e-9) and len(data["t"]) == len(block.times)
    assert data["segment"] == sample_stretches(block)
    assert [s["phase"] for s in data["segments"]] == [str(s.mode) for s in block.stretches]
    assert data["segments"][1]["record"].startswith("stretch 2: impact at t = 0.451523641")
    assert np.allclose(data["energy"], block.energies, atol=1e-9)
    # the playback clock: real time, and a moment across each impact's two samples
    clock = np.diff(data["u"])
    steps = np.diff(block.times)
    assert np.allclose(clock[steps > 0], steps[steps > 0], atol=2e-9) and np.all(clock[steps == 0] > 0)
    hint = re.search(r'<p class="hint">(.*?)</p>', page, re.S).group(1)
    assert "Full dynamics, in real time" in hint and "external motion" not in hint


@pytest.fixture(scope="module")
def block_viewer(browser, block, tmp_path_factory):  # noqa: F811
    path = tmp_path_factory.mktemp("dynamic-web") / "block.html"
    write_html(block, path, size=(400, 300))
    page = browser.new_page(viewport=VIEWPORT)
    yield Loaded(page, path.as_uri())
    page.close()


def block_height(loaded: Loaded) -> float:
    """The block's y as drawn, read back through the page's own mapping (its local (0, 1) is y + 1)."""
    scale, left, top = loaded.mapping()
    (_, row), = loaded.points("block", [(0.0, 1.0)])
    return (top - row) / scale - 1


def test_the_page_of_a_dynamic_path_loads_without_errors_or_requests(block_viewer):
    assert block_viewer.errors == [] and block_viewer.requests == [block_viewer.url]
    assert block_viewer.page.title() == "bouncing block: cspace viewer"


@pytest.mark.parametrize("t, number, mode", [(0.3, 1, "flight"), (0.6, 3, "flight"), (1.8, None, "contact")])
def test_the_viewer_shows_the_stretch_its_mode_and_the_block_where_it_is(block_viewer, block, t, number, mode):
    number = number or len(block.stretches)  # resting after the impacts' accumulation: the last stretch
    page = block_viewer.page
    assert block_viewer.seek(t) == pytest.approx(t, abs=1e-9)
    assert page.evaluate("window.cspaceViewer.segment()") == number
    assert page.evaluate("window.cspaceViewer.phase()") == mode
    assert page.text_content("#heading").startswith(f"stretch {number} of {len(block.stretches)} ({mode})")
    assert page.text_content("#record").startswith(f"stretch {number}: {mode} from t = ")
    expected = height(t) if t < T2 else -1.0
    assert block_height(block_viewer) == pytest.approx(expected, abs=2e-3)
    kinetic, potential = page.evaluate("window.cspaceViewer.energies()")
    assert potential == pytest.approx(G * (1.5 + expected), abs=2e-2)
    assert "energy: kinetic" in page.text_content("#time")


def test_the_viewer_holds_an_impact_while_the_clock_stands_still(block_viewer, block):
    page = block_viewer.page
    before, after = (page.evaluate("t => { window.cspaceViewer.seek(t); return Number(document.getElementById('scrub')"
                                   ".value); }", t) for t in (T1 - 0.01, T1 + 0.01))
    seen = []
    for u in np.linspace(before, after, 41):
        page.evaluate("""u => {
            const scrub = document.getElementById("scrub");
            scrub.value = String(u);
            scrub.dispatchEvent(new Event("input", {bubbles: true}));
        }""", float(u))
        seen.append(page.evaluate("window.cspaceViewer.segment()"))
        if seen[-1] == 2:
            assert page.evaluate("window.cspaceViewer.time()") == pytest.approx(T1, abs=1e-9)
            assert page.evaluate("window.cspaceViewer.phase()") == "impact"
            assert "impact: no time passes" in page.text_content("#time")
            assert block_height(block_viewer) == pytest.approx(-1, abs=1e-6)
    assert seen[0] == 1 and seen[-1] == 3 and seen.count(2) >= 5, seen
    assert block_viewer.errors == []


@slow
def test_the_four_bars_page_draws_the_coupler_where_the_exact_motion_puts_it(browser, four_bar, tmp_path):  # noqa: F811
    path = tmp_path / "four-bar.html"
    write_html(four_bar, path)
    page = browser.new_page(viewport=VIEWPORT)
    try:
        loaded = Loaded(page, path.as_uri())
        scale, left, top = loaded.mapping()
        shots = snapshots(four_bar)
        for shot in shots[50::150]:
            loaded.seek(shot.time)
            pose = exact(four_bar.mechanism, shot.values)
            for (x, y), (column, row) in zip([(0, 0), (3.5, 0)], loaded.points("coupler", [(0, 0), (3.5, 0)])):
                px, py = (pose @ (x, y, 1.0))[:2]
                assert (column, row) == pytest.approx((left + scale * px, top - scale * py), abs=1.0)
        assert loaded.errors == [] and loaded.requests == [loaded.url]
    finally:
        page.close()


# ---- pair plots -----------------------------------------------------------------------------------

def test_the_pair_figure_draws_the_dynamic_path_and_marks_its_impacts(block):
    figure = pair_figure(analyzed("bouncing-block"), block, "floor", "block")
    axes = figure.axes[0]
    assert axes.get_xlabel() == "y" and axes.get_ylabel() == "time (s)"
    crosses = [line for line in axes.lines if line.get_label() == "impact"]
    assert len(crosses) == 1 and crosses[0].get_color() == IMPACT
    x, t = crosses[0].get_data()
    impacts = sorted({s.start for s in block.impacts})
    assert np.allclose(x, -1, atol=1e-9) and np.allclose(t, impacts)
    # the path is the samples, y across and time up
    expected = LineString(np.column_stack([block.configs[:, 0], block.times]))
    assert drawn_path(axes).equals(shapely.union_all(expected))
    assert [t.get_text() for t in figure.legends[0].get_texts()][-1] == "impact"


# ---- the commands ---------------------------------------------------------------------------------

def test_animate_a_full_mechanism(tmp_path, capsys):
    out = tmp_path / "block.gif"
    assert main(["animate", BLOCK, "-o", str(out), "--size", "96x72", "--until", "0.5"]) == 0
    assert capsys.readouterr().out == f"{out}: 6 frames, 96x72\n"
    with Image.open(out) as gif:
        assert (gif.n_frames, gif.size) == (6, (96, 72))


def test_animate_a_full_mechanism_as_a_page(tmp_path, capsys):
    out = tmp_path / "four-bar.html"
    assert main(["animate", FOUR_BAR, "-o", str(out), "--until", "0.5"]) == 0
    expected = simulate(analyzed("kramer-four-bar"), until=0.5)
    assert capsys.readouterr().out == f"{out}: browser viewer, {len(expected.times)} samples, 800x600\n"
    assert page_data(out.read_text())["t"] == pytest.approx(expected.times.tolist(), abs=1e-9)


def test_show_takes_a_full_mechanism(monkeypatch, capsys):
    shown = []
    monkeypatch.setattr("cspace.viz.viewer.check_display", lambda environ: None)
    monkeypatch.setattr("cspace.viz.viewer.show", lambda trace, size: shown.append((trace, size)))
    assert main(["show", BLOCK, "--until", "0.5", "--size", "320x240"]) == 0
    (trace, size), = shown
    assert type(trace).__name__ == "DynamicTrace" and size == (320, 240) and trace.times[-1] == 0.5


def test_plot_pair_on_the_bouncing_block_writes_a_png(tmp_path, capsys):
    out = tmp_path / "pair.png"
    assert main(["plot-pair", BLOCK, "floor", "block", "-o", str(out), "--until", "1"]) == 0
    assert capsys.readouterr().out == f"{out}: configuration space of floor/block\n"
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    with Image.open(out) as image:
        assert image.size[0] > 500


@pytest.mark.parametrize("command", [["regions"], ["regions", "--format", "html"]])
def test_the_region_table_still_refuses_a_full_mechanism(command, capsys):
    assert main([command[0], BLOCK, *command[1:]]) == 2
    error = capsys.readouterr().err
    assert error.startswith("cspace: error: ") and error.count("\n") == 1 and "simple dynamics" in error
