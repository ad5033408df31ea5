"""Build time of one pair space against edge count and arc tolerance, for each kind of pair.

What it measures: the wall time of ``cspace.spaces.builders.Builders(mechanism).space(request)``
(a fresh builder each run, no pair-space disk cache), which is
what ``cspace.analyze`` spends per pair: flattening the arcs, the shapes or convex pieces,
the symmetry of a turning part, the blocked space and its convex free regions. Loading the
TOML is not timed. Each build runs in a forked child process (so a case that runs away can
be stopped at ``--cap`` seconds without losing the rest); the time is measured inside it.

Pair types, each a mechanism written here as TOML and read with ``cspace.loads``:

* ``translation``: two meshing saws, A translating along x with N trapezoid teeth
  pointing up, B along y with N teeth pointing down into A's gaps (pair space (xa, yb));
* ``rotation``: a wheel of N trapezoid teeth turning freely about its centre against a
  fixed block that reaches into one of its tooth gaps (pair space (w), one axis);
* ``rotation-translation``: the same wheel turning against a rack of N teeth
  translating along x, meshed below it (pair space (w, x));
* ``rotation-rotation``: two such wheels of N teeth each, meshed (pair space (w1, w2));
  and ``gears``, pairs of involute spur gears of N and N teeth from
  ``tools/make_gears.py``'s functions (each flank five arcs: many edges per tooth).

Edges are the outline edges of both parts as the builder sees them: the polylines of the
profiles with arcs flattened at the tolerance the pair uses (``arc`` for a translating
pair, ``rotation_arc = arc / 10`` for a turning one; for a turning pair the count is of the
outline the sweep uses); ``space`` is the edges of the pair space's blocked polygons (a
translating pair's Minkowski sums; a turning pair's convex blocked pieces, every cell's).
The teeth are straight-sided ("flat" tips) in the main series;
"round" tips, a 90-degree arc domed on every tooth, are used in the tolerance rows, where
the arc tolerance also changes the edge count. Regions are the pair space's convex regions.
Time is the median of 3 builds, 1 when the first takes over 5 s. A series aims at 10, 20,
50, ..., 5,000 edges and stops after the first case over 60 s (``--limit``).

Tolerance rows: ``[tolerance] arc = 1e-4`` (the default) and ``1e-5``, flat and round tips,
at the series' case nearest 50 edges and at its largest case up to 200 edges that built
within 2 s (gears: at their two smallest pairs). A turning pair's ``curve`` budget is
``arc / 4``, so the tolerance changes its cost even with straight edges.

A translating pair's blocked space is the union of the Minkowski sums of every convex
piece of one part with every one of the other: two saws of N teeth have about N^2 sums,
so the saws' time grows with the product of the pieces, not with the edges alone. The
pair space's own edges (its sums' outlines, which the decomposition cuts) grow with the
edges where each part is one piece: the cam against a tip of ``fixtures/cam.toml``, its
bump flattened ever finer (arc tolerance 1e-4 down to 3e-8), is that series, printed
with its pair-space edges, and the 2,000-edge goal is read off it (``--cam-only`` runs
it alone).

At the end, per type: the growth exponent, the least-squares slope of log time against
log edges over the main series (and over its cases from 200 edges, and against regions
instead of edges), and the time at 2,000 edges interpolated in log-log between the
measured cases that bracket it (extrapolated from the last three, and said so, when the
series stopped short of it; the fitted power law's value beside it). Then the gear pair of ``python tools/make_gears.py
--teeth 25 36`` (350 faces on gear 1), cold: its pair build and a whole
``cspace.analyze`` with the disk cache off.

    python tools/bench_pairspace.py            # the full run (edges to ~5,000)
    python tools/bench_pairspace.py --quick    # small sizes only, a smoke run
    python tools/bench_pairspace.py --types rotation gears --max-edges 2000
    python tools/bench_pairspace.py --cam-only

A turning part's rotational symmetry (found up to order 96, ``cspace.kernels.symmetry``) decides
how much of it is swept; the tables give the order found (``sym``): a wheel of N teeth
has order N up to 96, and above that the largest divisor of N not above 96.
"""

from __future__ import annotations

import argparse
import datetime
import importlib.metadata
import math
import multiprocessing
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

import cspace
from cspace.spaces.builders import Builders
from cspace.spaces.request import Request
from cspace.spaces.turning import Rotating

sys.path.insert(0, str(Path(__file__).resolve().parent))
import make_gears  # noqa: E402

TARGETS = (10, 20, 50, 100, 200, 500, 1000, 2000, 5000)  # edge counts aimed at (both parts)
QUICK_TARGETS = (10, 20, 50, 100, 200)
LIMIT = 60.0  # s: a series stops after the first case slower than this
CAP = 300.0  # s: a build still running after this is stopped and reported as such
SINGLE_RUN = 5.0  # s: a case whose first build takes longer is run once
RUNS = 3
FIT_FROM = 200  # edges: the second exponent fits only the cases from here
AT = 2000  # edges: where the time is interpolated
TOLERANCES = (1e-4, 1e-5)  # relative arc tolerances of the tolerance rows
TOLERANCE_SIZE = 50  # edges (flat tips): the tolerance rows are at the series' case nearest this,
TOLERANCE_LARGEST, TOLERANCE_FAST = 200, 2.0  # and at its largest case up to 200 edges built within 2 s
BIG_GEARS = (25, 36)  # the make_gears benchmark pair

PITCH = 2.0  # tooth pitch (on a wheel's root circle, along a saw or rack)
HEIGHT = 1.5  # tooth height
BASE = 0.5  # a tooth's half-width at its root (half the pitch: equal teeth and spaces)
TIP = 0.2  # a saw or rack tooth's half-width at its tip
DEPTH = 0.6  # how far into the other part's teeth a tooth reaches, in tooth heights
DOME = 1.0  # a round tip's arc centre lies this many half-chords inside its chord (a 90-degree arc)
BODY = 2.0  # thickness of a saw's or rack's bar under its teeth


# -- geometry ---------------------------------------------------------------------------------

Step = tuple  # ("point", x, y) or ("arc", x, y, cx, cy, turn)


def number(x: float) -> str:
    """A coordinate for the TOML: full precision, no negative zero."""
    return repr(float(x) + 0.0)


def path_text(steps: list[Step]) -> str:
    """A closed path as a TOML array-of-tables profile."""
    items = []
    for step in steps + [("point", *steps[0][1:3])]:
        if step[0] == "point":
            items.append(f"[{number(step[1])}, {number(step[2])}]")
        else:
            _, x, y, cx, cy, turn = step
            items.append(f'{{ arc = [{number(x)}, {number(y)}], center = [{number(cx)}, {number(cy)}], '
                         f'turn = "{turn}" }}')
    return "path = [\n  " + ",\n  ".join(items) + ",\n]"


def dome(start: tuple[float, float], end: tuple[float, float], turn: str) -> tuple[float, float]:
    """Centre of a round tip's arc from ``start`` to ``end``: DOME half-chords from the chord, on
    its left for a ccw arc (inside a ccw outline), so the minor arc bulges out to the right."""
    mx, my = (start[0] + end[0]) / 2, (start[1] + end[1]) / 2
    dx, dy = end[0] - start[0], end[1] - start[1]
    side = 1.0 if turn == "ccw" else -1.0
    return mx - side * DOME * dy / 2, my + side * DOME * dx / 2


def bar(centres: list[float], x0: float, x1: float, round_tips: bool) -> list[Step]:
    """A bar under y = 0 (BODY thick, from x0 to x1) with teeth pointing up at ``centres``,
    counterclockwise."""
    steps: list[Step] = [("point", x0, -BODY), ("point", x1, -BODY), ("point", x1, 0.0)]
    for c in sorted(centres, reverse=True):
        steps += [("point", c + BASE, 0.0), ("point", c + TIP, HEIGHT)]
        if round_tips:
            steps.append(("arc", c - TIP, HEIGHT, *dome((c + TIP, HEIGHT), (c - TIP, HEIGHT), "ccw"), "ccw"))
        else:
            steps.append(("point", c - TIP, HEIGHT))
        steps.append(("point", c - BASE, 0.0))
    steps.append(("point", x0, 0.0))
    return _deduplicated(steps)


def placed(steps: list[Step], dx: float, dy: float, flip: bool = False) -> list[Step]:
    """Steps moved by (dx, dy), after mirroring in y = 0 if ``flip`` (arcs change their turn)."""
    out = []
    sign = -1.0 if flip else 1.0
    for step in steps:
        if step[0] == "point":
            out.append(("point", step[1] + dx, sign * step[2] + dy))
        else:
            _, x, y, cx, cy, turn = step
            turn = {"ccw": "cw", "cw": "ccw"}[turn] if flip else turn
            out.append(("arc", x + dx, sign * y + dy, cx + dx, sign * cy + dy, turn))
    return out


def wheel_radius(teeth: int) -> float:
    """Root radius of a wheel of ``teeth`` teeth: PITCH apart on it, at least 1.5."""
    return max(teeth * PITCH / (2 * math.pi), 1.5)


def wheel(teeth: int, round_tips: bool) -> list[Step]:
    """A wheel about (0, 0), tooth k centred at angle 2 pi k / teeth, counterclockwise. A tooth
    spans half the pitch angle at the root and 0.3 of it at the tip."""
    r = wheel_radius(teeth)
    tip = r + HEIGHT
    root_half, tip_half = math.pi / (2 * teeth), 0.3 * math.pi / teeth
    steps: list[Step] = []
    for k in range(teeth):
        a = 2 * math.pi * k / teeth
        start = (tip * math.cos(a - tip_half), tip * math.sin(a - tip_half))
        end = (tip * math.cos(a + tip_half), tip * math.sin(a + tip_half))
        steps += [("point", r * math.cos(a - root_half), r * math.sin(a - root_half)), ("point", *start)]
        steps.append(("arc", *end, *dome(start, end, "ccw"), "ccw") if round_tips else ("point", *end))
        steps.append(("point", r * math.cos(a + root_half), r * math.sin(a + root_half)))
    return _deduplicated(steps)


def _deduplicated(steps: list[Step]) -> list[Step]:
    """Without consecutive points at the same place (a wheel's teeth share root corners when
    the root circle is no longer than the pitch allows)."""
    out: list[Step] = []
    for step in steps:
        if out and step[0] == "point" and math.dist(step[1:3], out[-1][1:3]) < 1e-9:
            continue
        out.append(step)
    if len(out) > 1 and math.dist(out[0][1:3], out[-1][1:3]) < 1e-9 and out[-1][0] == "point":
        out.pop()
    return out


def part_text(name: str, motion: str, coordinates: str, steps: list[Step], z: str = "[0, 1]") -> str:
    lines = ["[[parts]]", f'name = "{name}"', f'motion = "{motion}"']
    if coordinates:
        lines.append(f"coordinates = [ {coordinates} ]")
    lines += ["", "[[parts.slices]]", f"z = {z}", "", "[[parts.slices.profiles]]", path_text(steps), ""]
    return "\n".join(lines)


def tolerance_text(arc: float) -> str:
    return f"[tolerance]\narc = {arc!r}\n"


def saws(teeth: int, round_tips: bool, arc: float) -> str:
    """Two saws: A along x, teeth up at x = 1, 3, ...; B along y above it, teeth down at
    x = 2, 4, ... reaching DEPTH of a tooth height into A's gaps."""
    a = bar([1.0 + PITCH * k for k in range(teeth)], 0.0, PITCH * teeth, round_tips)
    b = bar([PITCH * (k + 1) for k in range(teeth)], 1.0, PITCH * teeth + 1.0, round_tips)
    b = placed(b, 0.0, HEIGHT * (2 - DEPTH), flip=True)  # tips at (1 - DEPTH) HEIGHT
    return "\n".join([f'[mechanism]\nname = "saws-{teeth}"\n', tolerance_text(arc),
                      part_text("a", "fixed-axes", '{ name = "xa", axis = [1, 0] }', a),
                      part_text("b", "fixed-axes", '{ name = "yb", axis = [0, 1] }', b)])


def wheel_part(name: str, coordinate: str, teeth: int, round_tips: bool, centre: tuple[float, float],
               initial: float) -> str:
    steps = placed(wheel(teeth, round_tips), *centre)
    return part_text(name, "fixed-axes",
                     f'{{ name = "{coordinate}", pivot = [{number(centre[0])}, {number(centre[1])}], '
                     f'initial = {number(initial)} }}', steps)


def wheel_and_block(teeth: int, round_tips: bool, arc: float) -> str:
    """A wheel turned so a tooth gap faces +x, and a fixed block reaching into that gap."""
    r = wheel_radius(teeth)
    block = [("point", r + 0.4 * HEIGHT, -0.25), ("point", r + HEIGHT + 2.0, -0.25),
             ("point", r + HEIGHT + 2.0, 0.25), ("point", r + 0.4 * HEIGHT, 0.25)]
    return "\n".join([f'[mechanism]\nname = "wheel-block-{teeth}"\n', tolerance_text(arc),
                      wheel_part("wheel", "w", teeth, round_tips, (0.0, 0.0), math.pi / teeth),
                      part_text("block", "fixed", "", block)])


def wheel_and_rack(teeth: int, round_tips: bool, arc: float) -> str:
    """A wheel turned so a tooth gap faces -y, and a rack of as many teeth under it, along x,
    its middle tooth reaching DEPTH of a tooth height into that gap; the rack's pitch is the
    wheel's halfway down the mesh."""
    r = wheel_radius(teeth)
    pitch = 2 * math.pi * (r + (1 - DEPTH / 2) * HEIGHT) / teeth  # the wheel's, halfway down the mesh
    centres = [pitch * (k - teeth // 2) for k in range(teeth)]
    rack = placed(bar(centres, centres[0] - pitch / 2, centres[-1] + pitch / 2, round_tips),
                  0.0, -(r + (1 - DEPTH) * HEIGHT) - HEIGHT)
    return "\n".join([f'[mechanism]\nname = "wheel-rack-{teeth}"\n', tolerance_text(arc),
                      wheel_part("wheel", "w", teeth, round_tips, (0.0, 0.0), -math.pi / 2 - math.pi / teeth),
                      part_text("rack", "fixed-axes", '{ name = "x", axis = [1, 0] }', rack)])


def two_wheels(teeth: int, round_tips: bool, arc: float) -> str:
    """Two wheels of ``teeth`` teeth: wheel 1 at (0, 0) with a tooth on +x, wheel 2 to its right
    with a gap facing it, the teeth reaching DEPTH... of a tooth height past each other's tips."""
    r = wheel_radius(teeth)
    distance = 2 * r + (2 - DEPTH) * HEIGHT
    return "\n".join([f'[mechanism]\nname = "wheels-{teeth}"\n', tolerance_text(arc),
                      wheel_part("wheel1", "w1", teeth, round_tips, (0.0, 0.0), 0.0),
                      wheel_part("wheel2", "w2", teeth, round_tips, (distance, 0.0), math.pi - math.pi / teeth)])


def gears(teeth: int, round_tips: bool, arc: float, other: int | None = None) -> str:
    """Involute gears of ``teeth`` and ``other`` (default as many) teeth from make_gears, with
    the given arc tolerance (their tips are arcs whatever ``round_tips`` says)."""
    pair = make_gears.Pair(teeth, other or teeth)
    return "\n".join(['[mechanism]\nname = "gears"\n', tolerance_text(arc),
                      make_gears.gear_part("gear1", "t1", pair.gear1, 0.0), "",
                      make_gears.gear_part("gear2", "t2", pair.gear2, 0.0), ""])


@dataclass(frozen=True)
class Kind:
    """A pair type: its generator, its two parts, and edges as a function of teeth (flat tips)."""

    name: str
    label: str
    make: Callable[[int, bool, float], str]
    parts: tuple[str, str]
    edges: Callable[[int], int]
    smallest: int = 1
    teeth: tuple[int, ...] = ()  # the series' tooth counts when edges do not follow teeth simply


KINDS = {k.name: k for k in (
    Kind("translation", "translation: two meshing saws (xa, yb)", saws, ("a", "b"), lambda n: 8 * n + 8),
    Kind("rotation", "rotation, one axis: wheel against a fixed block (w)", wheel_and_block,
         ("wheel", "block"), lambda n: 4 * n + 4, 2),
    Kind("rotation-translation", "rotation against translation: wheel and rack (w, x)", wheel_and_rack,
         ("wheel", "rack"), lambda n: 8 * n + 4, 2),
    Kind("rotation-rotation", "rotation against rotation: two wheels, straight teeth (w1, w2)", two_wheels,
         ("wheel1", "wheel2"), lambda n: 8 * n, 2),
    Kind("gears", "rotation against rotation: involute gears from make_gears, N and N teeth (t1, t2)", gears,
         ("gear1", "gear2"), lambda n: 130 * n, 8, (8, 12, 18, 27, 40, 60)),
)}


def teeth_for(kind: Kind, target: int) -> int:
    """The tooth count whose edge count (flat tips) comes nearest the target."""
    return min(range(kind.smallest, 4000), key=lambda n: (abs(kind.edges(n) - target), n))


# -- measuring --------------------------------------------------------------------------------

@dataclass
class Row:
    """One measured case."""

    kind: str
    teeth: int
    round_tips: bool
    arc: float
    edges: int = 0
    space: int = 0  # edges of the pair space's blocked polygons
    regions: int = 0
    symmetry: str = ""
    times: list[float] = field(default_factory=list)
    failure: str = ""
    note: str = ""

    @property
    def seconds(self) -> float:
        return statistics.median(self.times) if self.times else math.nan


def counts(mechanism: cspace.Mechanism, a: str, b: str) -> tuple[int, str]:
    """Edges of both parts' outlines as the pair's builder flattens them, and the rotational
    symmetry orders found of the turning parts ("-" for a part that does not turn)."""
    builder = Rotating(mechanism)
    rotating = any(c.is_angle for c in mechanism.coordinates)
    arc = mechanism.tolerance.rotation_arc if rotating else mechanism.tolerance.arc
    edges, orders = 0, []
    for name in (a, b):
        part = mechanism.part(name)
        if rotating:
            shapes = [builder.shape(part, i) for i in range(len(part.slices))]
            edges += sum(len(s.vertices) for s in shapes)
            found = builder.symmetry(part, list(range(len(part.slices))), shapes, builder.reach(part, shapes))
            if any(mechanism.coordinate(c).is_angle for c in part.coordinates):
                orders.append(str(found[0].order if found else 1))
        else:
            edges += sum(len(p.polyline(arc).vertices) for s in part.slices for p in s.oriented)
    return edges, "/".join(orders) or "-"


def _child(text: str, a: str, b: str, connection) -> None:
    """One build in a forked process: send back (seconds, regions) or an error message."""
    try:
        mechanism = cspace.loads(text)
        start = time.perf_counter()
        space = Builders(mechanism).space(Request.of(mechanism, a, b))
        seconds = time.perf_counter() - start
        connection.send((seconds, len(space.regions), sum(len(b) for b in space.blocked)))
    except BaseException as error:  # noqa: BLE001 - reported, not raised
        connection.send(f"{type(error).__name__}: {error}")
    finally:
        connection.close()


def build_once(text: str, a: str, b: str, cap: float) -> tuple[float, int, int] | str:
    """One build in a child process, stopped after ``cap`` seconds: (seconds, regions, edges of
    the pair space's blocked polygons), or what went wrong."""
    context = multiprocessing.get_context("fork")
    receiver, sender = context.Pipe(duplex=False)
    child = context.Process(target=_child, args=(text, a, b, sender))
    child.start()
    sender.close()
    if receiver.poll(cap):
        result = receiver.recv()
    else:
        result = f"stopped after {cap:.0f} s"
    child.join(5)
    if child.is_alive():
        child.kill()  # only ever the child this function started
        child.join()
    return result


def measure(kind: Kind, teeth: int, round_tips: bool, arc: float, cap: float) -> Row:
    """Build one case 3 times (once when slow); its edges, regions, symmetry and times."""
    row = Row(kind.name, teeth, round_tips, arc)
    text = kind.make(teeth, round_tips, arc)
    mechanism = cspace.loads(text)
    row.edges, row.symmetry = counts(mechanism, *kind.parts)
    gap = make_gears.BACKLASH / 2 * math.cos(make_gears.PRESSURE_ANGLE)  # between the gears' flanks at the start
    if kind.name == "gears" and gap <= 2 * mechanism.tolerance.arc:
        row.note = "flanks start closer than 2 x arc: the mesh is jammed by the linearization"
    for run in range(RUNS):
        result = build_once(text, *kind.parts, cap)
        if isinstance(result, str):
            row.failure = result
            break
        seconds, row.regions, row.space = result
        row.times.append(seconds)
        if run == 0 and seconds > SINGLE_RUN:
            break
    return row


def row_text(row: Row) -> str:
    tips = "round" if row.round_tips else "flat"
    time_text = f"> {row.failure.split()[-2]} s" if row.failure.startswith("stopped") else (
        "failed" if row.failure else seconds_text(row.seconds))
    return (f"{row.teeth:>6}{tips:>7}{row.arc:>8.0e}{row.edges:>8}{row.space or '-':>8}{row.regions:>9}{row.symmetry:>8}"
            f"{time_text:>11}{len(row.times):>6}" + (f"  {row.failure[:120]}" if row.failure else "")
            + (f"  ({row.note})" if row.note else ""))


HEADER = f"{'teeth':>6}{'tips':>7}{'arc':>8}{'edges':>8}{'space':>8}{'regions':>9}{'sym':>8}{'time':>11}{'runs':>6}"


def seconds_text(value: float) -> str:
    if math.isnan(value):
        return "-"
    if value < 1:
        return f"{value * 1e3:.3g} ms"
    return f"{value:.3g} s"


def exponent(points: list[tuple[int, float]]) -> float:
    """Least-squares slope of log time against log edges."""
    if len(points) < 2:
        return math.nan
    xs = np.log([e for e, _ in points])
    ys = np.log([t for _, t in points])
    return float(np.polyfit(xs, ys, 1)[0])


def at_edges(points: list[tuple[int, float]], edges: int) -> tuple[float, str]:
    """The time at ``edges``, interpolated in log-log between the bracketing cases (or, outside
    the measured range, extrapolated along the fit over the last cases), and how."""
    points = sorted(points)
    near = [(e, t) for e, t in points if abs(e - edges) <= 0.02 * edges]
    if near:
        e, t = near[0]
        return t, f"the case at {e} edges"
    for (e0, t0), (e1, t1) in zip(points, points[1:]):
        if e0 <= edges <= e1:
            w = math.log(edges / e0) / math.log(e1 / e0)
            return math.exp((1 - w) * math.log(t0) + w * math.log(t1)), f"between {e0} and {e1} edges"
    if len(points) < 2:
        return math.nan, "too few cases"
    last = points[-3:]
    slope = exponent(last)
    e, t = last[-1]
    return t * (edges / e) ** slope, f"EXTRAPOLATED from {e} edges with slope {slope:.2f}"


def fitted(points: list[tuple[int, float]], edges: int) -> float:
    """The least-squares power law's time at ``edges``."""
    if len(points) < 2:
        return math.nan
    slope, intercept = np.polyfit(np.log([e for e, _ in points]), np.log([t for _, t in points]), 1)
    return float(math.exp(intercept + slope * math.log(edges)))


def series(kind: Kind, targets: tuple[int, ...], limit: float, cap: float, max_edges: int) -> list[Row]:
    """The main series (flat tips, default tolerance) at growing sizes, printed as it goes."""
    rows: list[Row] = []
    if kind.teeth:
        sizes = kind.teeth[:2] if targets == QUICK_TARGETS else kind.teeth
    else:
        sizes = list(dict.fromkeys(teeth_for(kind, target) for target in targets if target <= max_edges))
    for teeth in sizes:
        if rows and rows[-1].edges > max_edges:
            break
        row = measure(kind, teeth, kind.name == "gears", TOLERANCES[0], cap)
        rows.append(row)
        print(row_text(row), flush=True)
        if row.failure or row.seconds > limit:
            reason = row.failure or f"{seconds_text(row.seconds)} > {limit:.0f} s"
            print(f"  series stopped here ({reason})", flush=True)
            break
    return rows


def tolerance_rows(kind: Kind, rows: list[Row], quick: bool, cap: float) -> list[Row]:
    """Arc tolerance 1e-4 and 1e-5, flat and round tips, at one or two sizes of the series."""
    done = [r for r in rows if r.times and not r.failure]
    if kind.teeth:
        sizes = [r.teeth for r in done if r.teeth in kind.teeth[:1 if quick else 2]]
    else:
        sizes = [r.teeth for r in done if r.teeth == teeth_for(kind, 20 if quick else TOLERANCE_SIZE)]
        fast = [r for r in done if r.edges <= TOLERANCE_LARGEST and r.seconds <= TOLERANCE_FAST]
        if not quick and fast and fast[-1].teeth not in sizes:
            sizes = sorted(sizes + [fast[-1].teeth])
    out = []
    tips_options = (True,) if kind.name == "gears" else (False, True)
    for teeth in sizes:
        for round_tips in tips_options:
            for arc in TOLERANCES:
                existing = next((r for r in rows if r.teeth == teeth and r.round_tips == round_tips
                                 and r.arc == arc), None)
                row = existing or measure(kind, teeth, round_tips, arc, cap)
                out.append(row)
                print(row_text(row) + ("   (from the series)" if existing else ""), flush=True)
    return out


def big_gear_pair(cap: float) -> None:
    """The make_gears benchmark pair, cold: its pair build and a whole analyze with the cache off."""
    n1, n2 = BIG_GEARS
    pair = make_gears.Pair(n1, n2)
    faces = [len(make_gears.gear_path(g)[1]) for g in (pair.gear1, pair.gear2)]
    text = make_gears.mechanism(pair)  # the file `python tools/make_gears.py --teeth 25 36` writes
    mechanism = cspace.loads(text)
    edges, symmetry = counts(mechanism, "gear1", "gear2")
    print(f"\ngear pair of `python tools/make_gears.py --teeth {n1} {n2}`: {faces[0]} and {faces[1]} faces, "
          f"{edges} edges flattened, symmetry {symmetry}, {mechanism.tolerance}")
    result = build_once(text, "gear1", "gear2", cap)
    if isinstance(result, str):
        print(f"  pair build: {result}")
    else:
        print(f"  pair build, cold: {seconds_text(result[0])}, {result[1]} regions (1 run)")
    start = time.perf_counter()
    analysis = cspace.analyze(mechanism)
    total = time.perf_counter() - start
    print(f"  cspace.analyze, no cache: {seconds_text(total)} "
          f"(pair spaces {seconds_text(analysis.timings['pair spaces'])}), 1 run, in this process", flush=True)


CAM_ARCS = (1e-4, 3e-5, 1e-5, 3e-6, 1e-6, 3e-7, 1e-7, 3e-8)  # relative arc tolerances of the cam rows


def cam_and_tip(cap: float) -> None:
    """The translating cam against a tip (``fixtures/cam.toml``) as its arc tolerance shrinks:
    one convex piece on each side, so the pair space's edges (the outlines of its Minkowski
    sums, which the decomposition cuts and the facets are labelled along) grow as the
    cam's flattened bump does. The 2,000-edge goal is read off this series."""
    fixture = (Path(__file__).resolve().parent.parent / "fixtures" / "cam.toml").read_text()
    print("\ntranslation, one cam against a tip (fixtures/cam.toml): pair-space edges by arc tolerance")
    print(f"{'arc':>8}{'space edges':>13}{'regions':>9}{'time':>11}{'runs':>6}")
    points = []
    for arc in CAM_ARCS:
        text = fixture.replace("[mechanism]", f"[tolerance]\narc = {arc:g}\n\n[mechanism]", 1)
        times, result = [], None
        for _ in range(RUNS):
            result = build_once(text, "cam", "follower", cap)
            if isinstance(result, str):
                break
            times.append(result[0])
        if isinstance(result, str):
            print(f"{arc:>8.0e}  {result}")
            break
        seconds = statistics.median(times)
        points.append((result[2], seconds))
        print(f"{arc:>8.0e}{result[2]:>13}{result[1]:>9}{seconds_text(seconds):>11}{len(times):>6}", flush=True)
    value, how = at_edges(points, AT)
    print(f"growth exponent (time on space edges): {exponent(points):.2f}; at {AT} space edges: "
          f"{seconds_text(value)} ({how})")


def code_provenance() -> str:
    """Where the cspace measured comes from: its folder, the digest of its sources (the one the
    disk cache keys on) and, in a git work tree, the commit and whether its sources differ from it."""
    import subprocess

    from cspace.spaces import cache

    folder = Path(cspace.__file__).resolve().parent
    text = f"{folder}, sources sha256 {cache._CODE[:12]}"
    try:
        head = subprocess.run(["git", "-C", str(folder), "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(folder), "status", "--porcelain", "--", "."], capture_output=True,
                               text=True, check=True).stdout.strip()
        return text + f", git {head}" + (" with uncommitted changes" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return text + " (not in a git work tree)"


def warm_up() -> None:
    """First uses (lazy imports, HiGHS, pyclipper) in the parent, so no child pays for them."""
    for kind in KINDS.values():
        text = kind.make(max(kind.smallest, 2) if kind.name != "gears" else 12, False, TOLERANCES[0])
        mechanism = cspace.loads(text)
        Builders(mechanism).space(Request.of(mechanism, *kind.parts))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes only (to 200 edges), a smoke run")
    parser.add_argument("--types", nargs="*", default=list(KINDS), choices=list(KINDS), help="pair types to run")
    parser.add_argument("--max-edges", type=int, default=10 ** 9, help="skip targets above this edge count")
    parser.add_argument("--limit", type=float, default=LIMIT, help="stop a series after a case slower than this (s)")
    parser.add_argument("--cap", type=float, default=CAP, help="stop a build still running after this (s)")
    parser.add_argument("--no-big-gears", action="store_true", help="skip the 25/36 gear pair")
    parser.add_argument("--cam-only", action="store_true", help="only the cam against a tip, by arc tolerance")
    args = parser.parse_args()
    started = time.perf_counter()
    print(f"pair-space build times -- {datetime.datetime.now().isoformat(timespec='seconds')}")
    print(f"machine: {platform.platform()}, {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f} at start; "
          f"Python {platform.python_version()}, cspace {importlib.metadata.version('cspace')}; no cache")
    print(f"cspace: {code_provenance()}")
    print(f"time: median of {RUNS} builds (1 when the first takes over {SINGLE_RUN:g} s), each in a forked child; "
          f"a series stops after a case over {args.limit:g} s; builds are stopped at {args.cap:g} s")
    warm_up()
    if args.cam_only:
        cam_and_tip(args.cap)
        return
    targets = QUICK_TARGETS if args.quick else TARGETS
    results: dict[str, tuple[list[Row], list[Row]]] = {}
    for name in args.types:
        kind = KINDS[name]
        print(f"\n{kind.label}")
        print(HEADER)
        rows = series(kind, targets, args.limit, args.cap, args.max_edges)
        print("  arc tolerance:")
        results[name] = rows, tolerance_rows(kind, rows, args.quick, args.cap)
    print(f"\ngrowth of the build time with edges (main series: flat tips, arc {TOLERANCES[0]:g}; gears: their "
          f"involute arcs; exponent: least-squares slope of log time on log edges, over all cases and from "
          f"{FIT_FROM} edges)")
    print(f"{'type':<22}{'cases':>6}{'edges':>13}{'exponent':>10}{'from ' + str(FIT_FROM):>10}{'vs regions':>11}"
          f"{'vs space':>10}{'at ' + str(AT) + ' edges':>16}{'fit there':>11}  how")
    for name, (rows, _) in results.items():
        done = [r for r in rows if r.times and not r.failure]
        points = [(r.edges, r.seconds) for r in done]
        upper = [p for p in points if p[0] >= FIT_FROM]
        value, how = at_edges(points, AT)
        span = f"{points[0][0]}-{points[-1][0]}" if points else "-"
        upper_text = f"{exponent(upper):.2f}" if len(upper) >= 2 else "-"
        space = [(r.space, r.seconds) for r in done if r.space]
        print(f"{name:<22}{len(points):>6}{span:>13}{exponent(points):>10.2f}{upper_text:>10}"
              f"{exponent([(r.regions, r.seconds) for r in done]):>11.2f}{exponent(space):>10.2f}"
              f"{seconds_text(value):>16}{seconds_text(fitted(points, AT)):>11}  {how}")
        if space:
            low = min(space)
            if low[0] > AT:
                said = f"its smallest case already has {low[0]}, built in {seconds_text(low[1])}"
            else:
                value, how = at_edges(space, AT)
                said = f"{seconds_text(value)} at {AT} ({how})"
            print(f"{'':<22}{'':>6}{f'{low[0]}-{max(space)[0]}':>13}  in the pair space's own edges: {said}")
    print("vs regions, vs space: the same slope against the pair space's regions, and its blocked polygons' edges")
    if not args.quick:
        cam_and_tip(args.cap)
    if not args.quick and not args.no_big_gears:
        big_gear_pair(args.cap)
    print(f"\nbenchmark took {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
