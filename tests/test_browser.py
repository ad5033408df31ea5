"""The browser viewer (``cspace animate FILE -o OUT.html``, viz.web) in a real browser.

Headless Chromium from the system's packages, driven by Playwright pointed at that
binary: nothing here downloads a browser. Without Chromium every test here fails,
saying how to install it (Debian/Ubuntu: ``apt-get install chromium``).

Where a test checks where a part is drawn, the expected place comes from the trace
(the configuration at that time on the traced path, the part's pose from it) and the
page's own mapping from mechanism units to pixels, read back from its DOM (the
SVG's viewBox, preserveAspectRatio and rendered box; mechanism y up, screen y down),
never from viz.web's internals. The records shown are compared with ``describe``.
"""

from __future__ import annotations

import doctest
import io
import math
import os
import re
import shutil
from collections.abc import Sequence

import cspace.viz.web
import numpy as np
import pytest
from cspace.viz.colors import part_colors
from cspace.viz.notebook import trace_html
from cspace.viz.snapshots import part_poses
from cspace.viz.web import html_page, write_html
from PIL import Image
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import sync_playwright

from cspace import describe
from cspace.cli import main

from .common import ROOT, each, fixture_path, slow, traced

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
INSTALL = ("the browser tests need Chromium from the system's packages, driven headless through Playwright "
           "(never `playwright install`): on Debian or Ubuntu run `apt-get update && apt-get install -y chromium` "
           "(looked for `chromium` on PATH and at /usr/bin/chromium)")
VIEWPORT = {"width": 1400, "height": 1000}
# Times inside input segments of the feeder where the piston moves and, from the second on, pushes blocks:
# segment 1 (the piston retracts under the stack), 5 (it pushes block1 out), 12 (block1 and block2),
# 18 (block3).
TIMES = (0.3, 4.2, 11.2, 17.0)
MOVING = ("piston", "block1", "block2", "block3", "driver", "link")
PIXEL = 1.0


@pytest.fixture(scope="module")
def browser():
    if not (os.path.isfile(CHROMIUM) and os.access(CHROMIUM, os.X_OK)):
        pytest.fail(INSTALL, pytrace=False)
    playwright = sync_playwright().start()
    try:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, headless=True)
    except PlaywrightError as error:
        playwright.stop()
        pytest.fail(f"{INSTALL}; launching {CHROMIUM} failed: {error}", pytrace=False)
    yield chromium
    chromium.close()
    playwright.stop()


@pytest.fixture(scope="module")
def feeder():
    return traced("feeder")


@pytest.fixture(scope="module")
def feeder_html(feeder, tmp_path_factory):
    path = tmp_path_factory.mktemp("web") / "feeder.html"
    write_html(feeder, path)
    return path


class Loaded:
    """A page open in the browser, with what it logged and asked for since it was opened."""

    def __init__(self, page, url: str):
        self.page, self.url = page, url
        self.errors: list[str] = []
        self.requests: list[str] = []
        page.on("console", lambda message: message.type == "error" and self.errors.append(message.text))
        page.on("pageerror", lambda error: self.errors.append(f"uncaught: {error}"))
        page.on("request", lambda request: self.requests.append(request.url))
        page.on("requestfailed", lambda request: self.errors.append(f"request failed: {request.url}"))
        page.goto(url)
        page.wait_for_function("window.cspaceViewer !== undefined")

    def seek(self, t: float) -> float:
        return self.page.evaluate("t => window.cspaceViewer.seek(t)", t)

    def positions(self) -> dict[str, list[float]]:
        return self.page.evaluate("window.cspaceViewer.positions()")

    def points(self, part: str, local: Sequence[tuple[float, float]]) -> list[list[float]]:
        """Where points of the part's own frame are drawn, in CSS pixels of the viewport."""
        return self.page.evaluate("([name, points]) => points.map(p => window.cspaceViewer.point(name, p[0], p[1]))",
                                  [part, [list(p) for p in local]])

    def mapping(self) -> tuple[float, float, float]:
        """From the page's DOM: (scale, left, top) with pixel = (left + scale * x, top - scale * y)
        for a point (x, y) of the mechanism (y up)."""
        box, view, ratio = self.page.evaluate("""() => {
            const svg = document.getElementById("scene"), r = svg.getBoundingClientRect(), v = svg.viewBox.baseVal;
            return [[r.left, r.top, r.width, r.height], [v.x, v.y, v.width, v.height],
                    svg.getAttribute("preserveAspectRatio")];
        }""")
        assert ratio == "xMidYMid meet"
        left, top, width, height = box
        vx, vy, vw, vh = view
        scale = min(width / vw, height / vh)
        left += (width - scale * vw) / 2 - scale * vx
        top += (height - scale * vh) / 2 - scale * vy
        # viewBox y runs down: the mechanism's point (x, y) is at (x, -y) in it
        return scale, left, top


@pytest.fixture(scope="module")
def viewer(browser, feeder_html):
    page = browser.new_page(viewport=VIEWPORT)
    yield Loaded(page, feeder_html.as_uri())
    page.close()


def configuration(trace, t: float) -> np.ndarray:
    """The traced path's configuration at input time ``t`` (inside an input segment), from its own knots."""
    segment = next(s for s in trace.segments if s.phase == "input" and s.start_time < t < s.end_time)
    params, configs = segment.knots()
    return np.array([np.interp(t, params, configs[:, j]) for j in range(configs.shape[1])])


def check_drawn(loaded: Loaded, trace, t: float, parts: Sequence[str]) -> None:
    """Every part's local origin, and two points a few units off it along its own axes, are drawn within a
    pixel of where the traced path puts them at time ``t`` (the points off the origin catch a wrong angle)."""
    scale, left, top = loaded.mapping()
    poses = part_poses(trace, configuration(trace, t))
    origins = loaded.positions()
    reach = trace.mechanism.size / 10
    local = [(0.0, 0.0), (reach, 0.0), (0.0, reach)]
    for part in parts:
        drawn = loaded.points(part, local)
        assert drawn[0] == pytest.approx(origins[part], abs=1e-6)
        for (lx, ly), at in zip(local, drawn):
            x, y = (poses[part] @ (lx, ly, 1.0))[:2]
            assert at == pytest.approx((left + scale * x, top - scale * y), abs=PIXEL), (part, t, (lx, ly))


def records(trace) -> dict[int, str]:
    """``describe``'s record of each segment, by number."""
    found = {}
    for block in describe(trace).split("\n\n"):
        match = re.match(r"segment (\d+):\n", block)
        if match:
            found[int(match.group(1))] = block.rstrip("\n")
    return found


def holding(trace, t: float) -> int:
    return next(s.index for s in trace.segments if s.phase == "input" and s.start_time < t < s.end_time)


# ---- loading --------------------------------------------------------------------------------------------------

def test_the_page_loads_from_disk_without_errors_or_requests(viewer):
    assert viewer.url.startswith("file://")
    assert viewer.errors == []
    assert viewer.requests == [viewer.url]  # the page itself, nothing else: no script, style, font or data
    assert viewer.page.title() == "feeder: cspace viewer"


# ---- what is drawn where ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("t", TIMES)
def test_parts_are_drawn_where_the_trace_puts_them(viewer, feeder, t):
    assert viewer.seek(t) == pytest.approx(t, abs=1e-9)
    assert set(viewer.positions()) == {p.name for p in feeder.mechanism.parts}
    check_drawn(viewer, feeder, t, MOVING)


@slow
@pytest.mark.parametrize("name, times", [("lever", (0.6, 1.2)), ("four-bar", (2.0, 8.0))])
def test_turning_parts_and_linkage_members_are_drawn_where_the_trace_puts_them(browser, tmp_path, name, times):
    # the lever's bar turns about (0, 10) and sweeps a block; the four-bar's coupler is a linkage member and
    # its rocker turns about (4, 0)
    result = traced(name)
    path = tmp_path / f"{name}.html"
    write_html(result, path)
    page = browser.new_page(viewport=VIEWPORT)
    try:
        loaded = Loaded(page, path.as_uri())
        moving = [p.name for p in result.mechanism.parts if p.motion != "fixed"]
        for t in times:
            loaded.seek(t)
            check_drawn(loaded, result, t, moving)
        assert loaded.errors == []
    finally:
        page.close()


def test_the_parts_move_between_the_times(viewer):
    seen = {name: set() for name in ("piston", "block1", "block2", "block3")}
    for t in TIMES:
        viewer.seek(t)
        for name, (x, y) in viewer.positions().items():
            if name in seen:
                seen[name].add((round(x), round(y)))
    assert all(len(places) >= 3 for places in seen.values()), seen


# ---- the segment record -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("t", TIMES)
def test_the_record_shown_is_describes_for_the_segment_at_that_time(viewer, feeder, t):
    viewer.seek(t)
    number = holding(feeder, t)
    assert viewer.page.evaluate("window.cspaceViewer.segment()") == number
    assert viewer.page.text_content("#record") == records(feeder)[number]
    assert viewer.page.text_content("#heading").startswith(f"segment {number} of {len(feeder.segments)} (input)")
    assert viewer.page.text_content("#time").startswith(f"t = {t:.3f} s")


def test_the_scrubber_moves_the_parts_the_clock_and_the_record_together(viewer, feeder):
    readings = []
    for fraction in (0.15, 0.55, 0.9):
        viewer.page.evaluate("""f => {
            const scrub = document.getElementById("scrub");
            scrub.value = String(Number(scrub.max) * f);
            scrub.dispatchEvent(new Event("input", {bubbles: true}));
        }""", fraction)
        t = viewer.page.evaluate("window.cspaceViewer.time()")
        readings.append(t)
        number = holding(feeder, t)
        assert viewer.page.text_content("#record") == records(feeder)[number]
        assert viewer.page.text_content("#time").startswith(f"t = {t:.3f} s")
        check_drawn(viewer, feeder, t, ("piston", "block1"))
    assert readings == sorted(readings) and readings[0] > 0 and readings[-1] < feeder.segments[-1].end_time


def test_an_external_motion_plays_while_the_clock_stands_still(viewer, feeder):
    drop = feeder.segments[1]  # segment 2: the stack drops when the piston has left from under it
    assert drop.phase == "external" and drop.start_time == drop.end_time
    page = viewer.page
    before, after = (page.evaluate("t => { window.cspaceViewer.seek(t); return Number(document.getElementById('scrub').value); }", t)
                     for t in (drop.start_time - 0.05, drop.start_time + 0.05))
    scale, left, top = viewer.mapping()
    heights, seen = [], set()
    for u in np.linspace(before, after, 25):
        page.evaluate("""u => {
            const scrub = document.getElementById("scrub");
            scrub.value = String(u);
            scrub.dispatchEvent(new Event("input", {bubbles: true}));
        }""", float(u))
        if page.evaluate("window.cspaceViewer.segment()") == 2:
            assert page.evaluate("window.cspaceViewer.time()") == pytest.approx(drop.start_time, abs=1e-6)
            assert "external motion" in page.text_content("#time")
            assert page.text_content("#record") == records(feeder)[2]
            heights.append((top - viewer.positions()["block3"][1]) / scale)  # block3's y, mechanism units
        seen.add(page.evaluate("window.cspaceViewer.segment()"))
    assert seen == {1, 2, 3}
    # it falls from 5 to 3 through the frames between: seen dropping, not jumping
    assert len(heights) >= 5 and heights == sorted(heights, reverse=True)
    assert any(3.2 < h < 4.8 for h in heights) and 3 - 1e-3 < min(heights) and max(heights) < 5 + 1e-3


def test_play_runs_the_clock_at_the_chosen_speed_and_pause_stops_it(viewer):
    page = viewer.page
    viewer.seek(0.0)
    page.select_option("#speed", "4")
    started = page.evaluate("performance.now()")
    page.click("#play")
    assert page.evaluate("window.cspaceViewer.playing()")
    page.wait_for_timeout(400)
    page.click("#play")
    wall = (page.evaluate("performance.now()") - started) / 1000
    assert not page.evaluate("window.cspaceViewer.playing()")
    stopped = page.evaluate("window.cspaceViewer.time()")
    # the feeder's first 2.1 s are input time: the clock runs 4 s a second, less a frame or two to start
    assert 4 * (wall - 0.3) < stopped <= 4 * wall
    page.wait_for_timeout(100)
    assert page.evaluate("window.cspaceViewer.time()") == stopped
    page.select_option("#speed", "1")


# ---- the marks (viz.marks, the drawing of cspace draw) ------------------------------------------------------------

def opened(browser, name: str, tmp_path) -> Loaded:
    """The viewer of an example's trace, open in the browser."""
    path = tmp_path / f"{name}.html"
    write_html(traced(name), path)
    return Loaded(browser.new_page(viewport=VIEWPORT), path.as_uri())


def screen(loaded: Loaded, points) -> np.ndarray:
    """Where points of the plane are on the screen, by the page's own mapping."""
    scale, left, top = loaded.mapping()
    return np.array([(left + scale * x, top - scale * y) for x, y in points])


def shown_box(loaded: Loaded, selector: str) -> np.ndarray:
    """The centre of what the one element ``selector`` draws, in CSS pixels."""
    return np.array(loaded.page.evaluate("""selector => {
        const r = document.querySelector(selector).getBoundingClientRect();
        return [r.left + r.width / 2, r.top + r.height / 2];
    }""", selector))


def test_pointing_at_a_part_names_it(viewer, feeder):
    viewer.seek(TIMES[0])
    poses = part_poses(feeder, configuration(feeder, TIMES[0]))
    hover = viewer.page.locator("#hover")
    # points of the parts' own frames inside their material and under no other part: the piston's far end,
    # the driver's disk opposite its crank pin, a block's middle, the table
    for name, local in (("piston", (5.5, 0.0)), ("driver", (-2.0, 2.0)), ("block3", (2.0, 1.0)),
                        ("frame", (40.0, -2.0))):
        [(x, y)] = screen(viewer, [(poses[name] @ (*local, 1.0))[:2]])
        viewer.page.mouse.move(x, y)
        assert hover.is_visible() and hover.text_content() == name
    viewer.page.mouse.move(*screen(viewer, [(40.0, 15.0)])[0])  # above the table, right of the magazine: nothing
    assert not hover.is_visible()


@slow
def test_a_turning_part_has_its_pivot_and_an_angle_mark_that_turns_with_it(browser, tmp_path):
    """The lever's bar turns about (0, 10): its pivot stays there, its angle mark turns as far as the bar."""
    lever = traced("lever")
    loaded = opened(browser, "lever", tmp_path)
    try:
        directions = []
        for t in (0.0, 0.6, 1.2):
            loaded.seek(t)
            [pivot] = screen(loaded, [(0.0, 10.0)])
            assert shown_box(loaded, 'circle.pivot[data-name="a"]') == pytest.approx(pivot, abs=PIXEL)
            start, end = loaded.page.evaluate("""() => {
                const path = document.querySelector('path.angle-mark[data-name="a"]'), m = path.getScreenCTM();
                return [0, path.getTotalLength()].map(length => {
                    const p = path.getPointAtLength(length);
                    return [m.a * p.x + m.c * p.y + m.e, m.b * p.x + m.d * p.y + m.f];
                });
            }""")
            assert start == pytest.approx(pivot, abs=PIXEL)
            directions.append(math.atan2(start[1] - end[1], end[0] - start[0]))  # the screen's y runs down
        index = lever.mechanism.coordinate_index["a"]
        angles = [configuration(lever, t)[index] if t else lever.initial[index] for t in (0.0, 0.6, 1.2)]
        assert np.diff(directions) == pytest.approx(np.diff(angles), abs=1e-3)
        assert angles[-1] - angles[0] > 0.5  # it did turn
        assert loaded.errors == []
    finally:
        loaded.page.close()


def test_force_arrows_go_with_their_parts_and_axes_only_with_the_parts_other_coordinates(viewer, feeder):
    """Block1's gravity arrow moves as block1 does; its x axis only as it drops, its y axis only as it slides."""
    viewer.seek(0.0)
    marks = {"arrow": 'g.arrow.gravity[data-coordinate="yb1"]', "x axis": 'path.axis[data-coordinate="xb1"]',
             "y axis": 'path.axis[data-coordinate="yb1"]'}
    before = {name: shown_box(viewer, selector) for name, selector in marks.items()}
    poses = [part_poses(feeder, values) for values in (feeder.initial, configuration(feeder, TIMES[2]))]
    viewer.seek(TIMES[2])
    scale = viewer.mapping()[0]
    dx, dy = (poses[1]["block1"][:2, 2] - poses[0]["block1"][:2, 2]) * (scale, -scale)
    assert abs(dx) > 20 and abs(dy) > 10  # block1 has dropped and been pushed out
    moved = {name: shown_box(viewer, selector) - before[name] for name, selector in marks.items()}
    assert moved["arrow"] == pytest.approx((dx, dy), abs=PIXEL)
    assert moved["x axis"] == pytest.approx((0, dy), abs=PIXEL)
    assert moved["y axis"] == pytest.approx((dx, 0), abs=PIXEL)


@slow
def test_limits_are_drawn_and_go_with_the_parts_other_coordinates(browser, tmp_path):
    """The conveyor's block slides 5 along x on its plate; the bars of its y limits (-5 and 5, 10 apart) go along."""
    loaded = opened(browser, "conveyor", tmp_path)
    try:
        bars = 'path.limit[data-coordinate="yb"]'
        loaded.seek(0.0)
        scale = loaded.mapping()[0]
        height = loaded.page.evaluate("s => document.querySelector(s).getBoundingClientRect().height", bars)
        assert height == pytest.approx(10 * scale, abs=PIXEL)
        before = shown_box(loaded, bars)
        loaded.seek(5.0)
        assert shown_box(loaded, bars) - before == pytest.approx((5 * scale, 0), abs=PIXEL)
        assert loaded.errors == []
    finally:
        loaded.page.close()


# ---- the picture -------------------------------------------------------------------------------------------------

def test_the_drawing_is_not_blank_and_parts_have_their_colours(viewer, feeder):
    viewer.seek(TIMES[0])
    picture = np.asarray(Image.open(io.BytesIO(viewer.page.locator("#scene").screenshot())).convert("RGB"))
    assert len(np.unique(picture.reshape(-1, 3), axis=0)) > 8
    assert picture.std() > 10
    whole = np.asarray(Image.open(io.BytesIO(viewer.page.screenshot())).convert("RGB"))
    box = viewer.page.locator("#scene").bounding_box()
    colors = part_colors(feeder.mechanism)
    for name in ("piston", "block1", "block2", "block3"):
        left, top, right, bottom = viewer.page.evaluate("""name => {
            const r = document.querySelector(`g.part[data-part="${name}"]`).getBoundingClientRect();
            return [r.left + r.width / 4, r.top + r.height / 4, r.right - r.width / 4, r.bottom - r.height / 4];
        }""", name)
        assert box["x"] < left < right < box["x"] + box["width"] and box["y"] < top < bottom < box["y"] + box["height"]
        # the commonest colour of the middle of the part's box (its marks, an axis or an arrow, cross it)
        middle = whole[round(top):round(bottom), round(left):round(right)].reshape(-1, 3)
        colours, counts = np.unique(middle, axis=0, return_counts=True)
        pixel = colours[np.argmax(counts)].astype(int)
        wanted = np.array([int(colors[name][k:k + 2], 16) for k in (1, 3, 5)])
        assert np.abs(pixel - wanted).max() < 40, (name, pixel, colors[name])


def test_no_errors_after_all_of_it(viewer):
    assert viewer.errors == []
    assert viewer.requests == [viewer.url]


# ---- the file ----------------------------------------------------------------------------------------------------

def test_the_feeder_page_is_small_self_contained_and_the_same_every_time(feeder, feeder_html, tmp_path):
    data = feeder_html.read_bytes()
    assert len(data) < 1_000_000
    again = tmp_path / "again.html"
    write_html(feeder, again)
    assert again.read_bytes() == data
    text = data.decode("utf-8")
    assert "://" not in text and not re.search(r"\b(src|href)\s*=", text) and "@import" not in text
    assert text == html_page(traced("feeder"))


def test_the_command_line_writes_the_page(feeder_html, tmp_path, capsys):
    out = tmp_path / "feeder.html"
    assert main(["animate", str(fixture_path("feeder")), "-o", str(out), "--fps", "25"]) == 0
    assert capsys.readouterr().out == f"{out}: browser viewer, 124 samples, 800x600\n"
    assert out.read_bytes() == feeder_html.read_bytes()
    assert main(["animate", str(fixture_path("feeder")), "-o", str(tmp_path / "f.htm")]) == 2
    assert "use .gif, .mp4 or .html" in capsys.readouterr().err
    missing = tmp_path / "missing" / "f.html"
    assert main(["animate", str(fixture_path("feeder")), "-o", str(missing)]) == 2
    assert capsys.readouterr().err == f"cspace: error: {missing}: -o: directory '{missing.parent}' does not exist\n"


@slow
def test_the_size_option_sizes_the_drawing(browser, tmp_path):
    out = tmp_path / "small.html"
    assert main(["animate", str(fixture_path("feeder")), "-o", str(out), "--size", "400x300", "--until", "1"]) == 0
    page = browser.new_page(viewport=VIEWPORT)
    try:
        small = Loaded(page, out.as_uri())
        box = page.locator("#scene").bounding_box()
        assert (box["width"], box["height"]) == (400, 300)
        assert small.errors == []
    finally:
        page.close()


@slow
def test_the_gallery_page_opens(browser):
    path = ROOT / "viz" / "gallery" / "feeder.html"
    page = browser.new_page(viewport=VIEWPORT)
    try:
        gallery = Loaded(page, path.as_uri())
        assert gallery.errors == [] and gallery.requests == [gallery.url]
        assert path.stat().st_size < 1_000_000
    finally:
        page.close()


def test_doctests(monkeypatch):
    monkeypatch.chdir(ROOT)
    result = doctest.testmod(cspace.viz.web)
    assert result.attempted > 0 and result.failed == 0


# ---- the notebook's viewer ---------------------------------------------------------------------------------------

CELL_WIDTHS = (600, 900, 1200)
SCRIPT_TAG = re.compile(r"<script>.*?</script>", re.S)
CLIPPED = """() => {
    const page = document.documentElement, out = [];
    if (page.scrollHeight > innerHeight) out.push(`page ${page.scrollHeight} px tall in ${innerHeight}`);
    if (page.scrollWidth > innerWidth) out.push(`page ${page.scrollWidth} px wide in ${innerWidth}`);
    for (const selector of ["#controls", "#scene", "#record", "#end", "#legend", ".hint"]) {
        const box = document.querySelector(selector).getBoundingClientRect();
        if (box.bottom > innerHeight || box.right > innerWidth) out.push(`${selector} ends at ${box.right}, ${box.bottom}`);
    }
    return out;
}"""


def notebook_frame(browser, html: str, width: int):
    """A page as wide as a notebook cell of ``width`` pixels holding ``html``, and the viewer's frame in it."""
    page = browser.new_page(viewport={"width": width, "height": 800})
    page.set_content(f'<!DOCTYPE html><html><body style="margin:0">{html}</body></html>')
    page.wait_for_function("document.querySelector('iframe').contentWindow.cspaceViewer !== undefined")
    return page, page.frames[1]


def clipped_anywhere(page, frame, feeder, settle: bool) -> list[str]:
    """What the frame hides at the start, in every segment and at the end (``settle``: after the frame has
    had time to be resized)."""
    times = [0.0] + [(s.start_time + s.end_time) / 2 for s in feeder.segments] + [feeder.segments[-1].end_time]
    found = []
    for t in times:
        frame.evaluate("t => window.cspaceViewer.seek(t)", t)
        if settle:
            page.wait_for_timeout(50)
        found += [f"t = {t:g}: {what}" for what in frame.evaluate(CLIPPED)]
    return found


@pytest.mark.parametrize("width", each(CELL_WIDTHS, fast={CELL_WIDTHS[0]}))
def test_the_notebook_viewer_takes_its_pages_height(browser, feeder, width):
    """The frame is resized to the page in it (postMessage), whatever the segment shown: nothing clipped,
    and no more than a pixel of blank below."""
    page, frame = notebook_frame(browser, trace_html(feeder), width)
    try:
        assert clipped_anywhere(page, frame, feeder, settle=True) == []
        tall = frame.evaluate("document.documentElement.getBoundingClientRect().height")
        assert page.evaluate("document.querySelector('iframe').clientHeight") == pytest.approx(tall, abs=1)
    finally:
        page.close()


@pytest.mark.parametrize("width", CELL_WIDTHS)
def test_the_notebook_viewer_fits_without_the_notebooks_script(browser, feeder, width):
    """Where the notebook runs no script of its output (an untrusted notebook), the height computed when
    the view was written holds the page at every segment."""
    page, frame = notebook_frame(browser, SCRIPT_TAG.sub("", trace_html(feeder)), width)
    try:
        assert clipped_anywhere(page, frame, feeder, settle=False) == []
    finally:
        page.close()
