"""Check the rotating-part fixtures against their closed forms, on the real part shapes.

    python tools/check_rotating_fixtures.py

For ``fixtures/eccentric-cam.toml``, ``lever.toml``, ``ratchet.toml`` and ``gears.toml``
(cspace cannot trace rotating pairs yet, so nothing here is traced): every part's
real shape is built with shapely (``cspace.model.geometry.region_of``, as ``cspace.testing``
does, with arcs within ``FINE`` of the mechanism's size) and placed by
``cspace.model.poses.part_transform`` at the coordinates the file's header claims, at many
input values over the whole run. The checks: the initial configuration has no
overlap; parts never overlap deeper than ``OVERLAP``; the contacts the closed form
claims touch (``TOUCH``) where it says they do and nowhere else it says they do not;
and each fixture's own events (the ratchet's drops and lock, the lever's first and
last contact, the gears' backlash). Prints a table per fixture; exits 1 on any
failure.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import shapely
from make_gears import Pair
from shapely.affinity import affine_transform
from shapely.geometry import LineString, Point
from shapely.geometry.base import BaseGeometry
from shapely.ops import nearest_points

import cspace
from cspace.model.checks import overlap_depth
from cspace.model.geometry import Line, region_of
from cspace.model.poses import part_transform

ROOT = Path(__file__).resolve().parent.parent
FINE = 1e-8       # arc sampling of the real shapes, relative to the mechanism's size
OVERLAP = 1e-6    # deepest overlap allowed (in the file's length unit)
TOUCH = 1e-6      # largest distance that counts as touching


class Fixture:
    """A fixture's parts as fine shapely shapes, placed at coordinate values.

    These fixtures are drawn about the origin (cspace computes their geometry relative to
    (0, 0) too), and every part has one slice, z = [0, 1], so all parts can touch."""

    def __init__(self, name: str) -> None:
        self.mechanism = cspace.load(ROOT / "fixtures" / f"{name}.toml")
        assert self.mechanism.origin == (0.0, 0.0), f"{name} is drawn far from the origin"
        fine = FINE * self.mechanism.size
        self.shapes = {part.name: region_of([p for s in part.slices for p in s.profiles], fine)
                       for part in self.mechanism.parts}

    def transform(self, part: str, values: dict[str, float]) -> np.ndarray:
        return part_transform(self.mechanism, self.mechanism.part(part), values)

    def shape(self, part: str, values: dict[str, float]) -> BaseGeometry:
        """The part's material placed at ``values``."""
        t = self.transform(part, values)
        return affine_transform(self.shapes[part], [t[0, 0], t[0, 1], t[1, 0], t[1, 1], t[0, 2], t[1, 2]])

    def point(self, part: str, local: Iterable[float], values: dict[str, float]) -> Point:
        """A point of the part's local frame, placed at ``values``."""
        x, y = local
        return Point(self.transform(part, values) @ [x, y, 1.0])

    def face(self, part: str, name: str, values: dict[str, float]) -> LineString:
        """The part's straight face ``name``, placed at ``values``."""
        line = next(e for s in self.mechanism.part(part).slices for p in s.profiles for e in p.elements
                    if isinstance(e, Line) and e.name == name)
        return LineString([self.point(part, end, values) for end in (line.start, line.end)])

    def initial(self) -> dict[str, float]:
        return {c.name: c.initial for c in self.mechanism.coordinates}

    def deepest_overlap(self, values: dict[str, float]) -> float:
        """The deepest overlap of any two parts at ``values``."""
        placed = {name: self.shape(name, values) for name in self.shapes}
        names = sorted(placed)
        return max((overlap_depth(placed[a], placed[b]) for i, a in enumerate(names) for b in names[i + 1:]),
                   default=0.0)

    def distance(self, a: str, b: str, values: dict[str, float]) -> float:
        return self.shape(a, values).distance(self.shape(b, values))

    def gap(self, values: dict[str, float]) -> float:
        """The smallest distance between any two parts at ``values``."""
        names = sorted(self.shapes)
        return min(self.distance(a, b, values) for i, a in enumerate(names) for b in names[i + 1:])


@dataclass
class Table:
    """One fixture's checks: each row the worst value over its samples against a limit."""

    fixture: str
    rows: list[tuple[str, int, float, str, float, bool]] = field(default_factory=list)

    def at_most(self, what: str, values: Iterable[float], limit: float) -> None:
        values = list(values)
        worst = max(values)
        self.rows.append((what, len(values), worst, "<=", limit, worst <= limit))

    def at_least(self, what: str, values: Iterable[float], limit: float) -> None:
        values = list(values)
        worst = min(values)
        self.rows.append((what, len(values), worst, ">=", limit, worst >= limit))

    def ok(self) -> bool:
        return all(row[-1] for row in self.rows)

    def print(self) -> None:
        print(f"\n{self.fixture}")
        print(f"  {'check':<58} {'samples':>7}  {'worst':>10}      {'limit':>9}  ok")
        for what, count, worst, sense, limit, ok in self.rows:
            print(f"  {what:<58} {count:>7}  {worst:>10.3e}  {sense}  {limit:>9.3e}  {'ok' if ok else 'FAIL'}")


def check_start(table: Table, fixture: Fixture, start: dict[str, float]) -> None:
    """The initial configuration has no overlap, and is the closed form's ``start`` but for
    force-loaded coordinates drawn apart from it (so that the linearized shapes start
    apart): those settle there at once along their force, touching nothing on the way."""
    initial = fixture.initial()
    table.at_most("initial configuration: no overlap", [fixture.deepest_overlap(initial)], OVERLAP)
    forces = {f.coordinate: f.direction for f in fixture.mechanism.forces}
    moved = [c for c in start if abs(initial[c] - start[c]) > 1e-12]
    astray = [c for c in moved if forces.get(c, 0) * (start[c] - initial[c]) <= 0]
    table.at_most("initial = closed form's start, or short of it along a force", [len(astray)], 0)
    if moved:
        way = [{**initial, **{c: initial[c] + s * (start[c] - initial[c]) for c in moved}}
               for s in np.linspace(0, 1, 26)[:-1]]
        table.at_least(f"settling ({', '.join(moved)}): free until the start", (fixture.gap(v) for v in way), TOUCH)


# --- eccentric cam ---------------------------------------------------------------------------

def eccentric_cam() -> Table:
    """Disk of radius 3 centred 1 from its pivot; flat follower face at yf = 3 + sin th."""
    fixture, table = Fixture("eccentric-cam"), Table("eccentric-cam: yf = 3 + sin th, two turns")
    poses = [{"th": th, "yf": 3 + math.sin(th)} for th in np.linspace(0, 4 * math.pi, 2001)]
    check_start(table, fixture, poses[0])
    table.at_most("no overlap (cam, follower)", (fixture.deepest_overlap(v) for v in poses), OVERLAP)
    table.at_most("follower face touches the cam", (fixture.distance("cam", "follower", v) for v in poses), TOUCH)
    contact_x = [abs(nearest_points(fixture.shape("cam", v), fixture.shape("follower", v))[0].x)
                 for v in poses[::10]]
    table.at_most("contact |x| (= |cos th|) within the face (half width 4.5)", contact_x, 4.5)
    table.at_least("follower clear of its limits [0, 6]", (min(v["yf"], 6 - v["yf"]) for v in poses), 1.0)
    return table


# --- lever -------------------------------------------------------------------------------------

LEVER_START, LEVER_END = math.atan(7 / 24), math.atan(4 / 3)   # the tip corner meets / leaves the block


def lever_xb(a: float) -> float:
    """The block's x: pushed by the bar's tip corner between the two contact angles, still
    before and after."""
    a = min(max(a, LEVER_START), LEVER_END)
    return 9 * math.sin(a) + 0.5 * math.cos(a)


def lever() -> Table:
    """A bar about (0, 10) sweeps to a = 1.5; its tip corner pushes the block from 3 to 7.5."""
    fixture, table = Fixture("lever"), Table("lever: xb = 9 sin a + 0.5 cos a in [atan 7/24, atan 4/3]")
    angles = np.union1d(np.linspace(0, 1.5, 1501), [LEVER_START, LEVER_END])
    poses = [{"a": a, "xb": lever_xb(a)} for a in angles]
    check_start(table, fixture, poses[0])
    table.at_most("no overlap (bar, block, table)", (fixture.deepest_overlap(v) for v in poses), OVERLAP)
    pushing = [v for v in poses if LEVER_START <= v["a"] <= LEVER_END]
    table.at_most("pushing: bar touches the block", (fixture.distance("bar", "block", v) for v in pushing), TOUCH)
    tips = [(fixture.point("bar", (0.5, 1), v), v) for v in pushing]
    table.at_most("pushing: tip corner on the block's left face (|x - xb|)", (abs(p.x - v["xb"]) for p, v in tips),
                  TOUCH)
    table.at_most("pushing: tip corner within the face's height (0..5)", (max(-p.y, p.y - 5) for p, _ in tips), TOUCH)
    apart = [v for v in poses if v["a"] < LEVER_START - 1e-3 or v["a"] > LEVER_END + 1e-3]
    table.at_least("before and after: bar clear of the block", (fixture.distance("bar", "block", v) for v in apart),
                   TOUCH)
    start, end = (fixture.point("bar", (0.5, 1), {"a": a}) for a in (LEVER_START, LEVER_END))
    table.at_most("contact starts with the tip at (3, 1.5)", [start.distance(Point(3, 1.5))], TOUCH)
    table.at_most("contact ends with the tip at (7.5, 5), the block's corner", [end.distance(Point(7.5, 5))], TOUCH)
    return table


# --- ratchet -----------------------------------------------------------------------------------

TEETH, TIP_RADIUS, ROOT_RADIUS, FIRST_TIP = 10, 10.0, 8.5, math.radians(72)
PITCH = 2 * math.pi / TEETH
PIVOT = np.array([8.0, 12.0])


def polar(radius: float, angle: float) -> np.ndarray:
    return radius * np.array([math.cos(angle), math.sin(angle)])


def angle_of(v: np.ndarray) -> float:
    return math.atan2(v[1], v[0])


class Ratchet:
    """The ratchet's closed form: flank k runs from tooth k's tip (radius 10, angle 72 + 36 k
    degrees) to the root at the next tooth; the pawl's tip C0 (the middle of flank 0) turns
    about PIVOT. Angles: wheel w, pawl p, both counterclockwise from the drawing."""

    def __init__(self) -> None:
        tip, root = polar(TIP_RADIUS, FIRST_TIP), polar(ROOT_RADIUS, FIRST_TIP + PITCH)
        self.tip = (tip + root) / 2                          # C0
        self.reach = float(np.linalg.norm(self.tip - PIVOT))  # L
        self.beta0 = angle_of(self.tip - PIVOT)               # direction of C0 seen from the pivot
        self.normal0 = angle_of(tip - root) + math.pi / 2     # nu_0: flank 0's outward normal
        self.flank_distance = float(tip @ polar(1.0, self.normal0))  # d, the same for every flank

    def pawl_on_flank(self, w: float, k: int) -> float:
        """p with the pawl's tip on flank k at wheel angle w: P.n + L cos(beta0 + p - nu) = d."""
        nu = self.normal0 + k * PITCH + w
        cosine = (self.flank_distance - float(PIVOT @ polar(1.0, nu))) / self.reach
        return math.remainder(nu + math.acos(cosine) - self.beta0, 2 * math.pi)

    def on_wheel_circle(self, radius: float) -> np.ndarray:
        """Where the pawl tip's circle crosses the wheel's circle of ``radius`` (near C0)."""
        d = float(np.linalg.norm(PIVOT))
        along = (radius ** 2 - self.reach ** 2 + d ** 2) / (2 * d)
        u = PIVOT / d
        points = [along * u + s * math.sqrt(radius ** 2 - along ** 2) * np.array([-u[1], u[0]]) for s in (1, -1)]
        return min(points, key=lambda x: np.linalg.norm(x - self.tip))

    def pawl_at(self, x: np.ndarray) -> float:
        """The pawl angle putting its tip at x (on its circle)."""
        return math.remainder(angle_of(x - PIVOT) - self.beta0, 2 * math.pi)

    def drops(self) -> list[float]:
        """Wheel angles of the forward turn's drops: drop j when tooth -j's tip reaches the pawl's tip."""
        first = angle_of(self.on_wheel_circle(TIP_RADIUS)) - FIRST_TIP
        return [first + j * PITCH for j in range(TEETH)]

    def lock(self) -> float:
        """Wheel angle, on the way back from 2 pi, at which flank 0's root corner (the foot of
        lock1) reaches the pawl's tip."""
        return 2 * math.pi + angle_of(self.on_wheel_circle(ROOT_RADIUS)) - (FIRST_TIP + PITCH)

    def forward(self, w: float) -> tuple[int, float]:
        """(flank, pawl angle) at wheel angle w of the forward turn: after j drops, flank -j."""
        drops = sum(1 for drop in self.drops() if drop < w)
        return -drops, self.pawl_on_flank(w, -drops)


class RatchetScene:
    """The ratchet fixture posed at wheel and pawl angles, with the points the checks name."""

    def __init__(self) -> None:
        self.fixture, self.closed = Fixture("ratchet"), Ratchet()

    def tip(self, w: float, p: float) -> Point:
        return self.fixture.point("pawl", self.closed.tip, {"w": w, "p": p})

    def off_flank(self, w: float, k: int, p: float) -> float:
        """How far the pawl's tip is from flank k."""
        return self.tip(w, p).distance(self.fixture.face("wheel", f"flank{k % TEETH}", {"w": w, "p": p}))

    def wheel_point(self, radius: float, angle: float, w: float) -> Point:
        """The wheel's point drawn at (radius, angle) in polar coordinates, at wheel angle w."""
        return self.fixture.point("wheel", polar(radius, angle), {"w": w})

    def overlap(self, w: float, p: float) -> float:
        return self.fixture.deepest_overlap({"w": w, "p": p})

    def gap(self, w: float, p: float) -> float:
        return self.fixture.distance("wheel", "pawl", {"w": w, "p": p})


def ratchet() -> Table:
    """Forward turn: tip on the flanks, ten drops; backward: slides into the root and locks."""
    scene, table = RatchetScene(), Table("ratchet: pawl on the flanks, 10 drops, lock")
    r = scene.closed
    check_start(table, scene.fixture, {"w": 0.0, "p": r.forward(0.0)[1]})
    stated = {"first drop": (r.drops()[0], 0.330235), "lock": (r.lock(), 5.926109),
              "pawl at the tooth tip": (r.pawl_at(r.on_wheel_circle(TIP_RADIUS)), -0.150564),
              "landing": (r.pawl_on_flank(r.drops()[0], -1), 0.042315),
              "pawl at the lock": (r.pawl_at(r.on_wheel_circle(ROOT_RADIUS)), 0.039609),
              "p at w = 0.2": (r.pawl_on_flank(0.2, 0), -0.076131)}
    table.at_most(f"closed form = the header's numbers ({len(stated)} values, 6 decimals)",
                  (abs(got - want) for got, want in stated.values()), 1e-6)
    forward = [(w, *r.forward(w)) for w in np.union1d(np.linspace(0, 2 * math.pi, 2001), r.drops())]
    table.at_most("forward: no overlap", (scene.overlap(w, p) for w, _, p in forward), OVERLAP)
    table.at_most("forward: pawl touches the wheel", (scene.gap(w, p) for w, _, p in forward), TOUCH)
    table.at_most("forward: pawl tip on its flank (0, 9, 8, ... 1, 0)",
                  (scene.off_flank(w, k, p) for w, k, p in forward), TOUCH)
    ratchet_drops(table, scene)
    ratchet_back(table, scene)
    landings = [r.pawl_on_flank(w, -j - 1) for j, w in enumerate(r.drops())]
    table.at_least("pawl clear of its limits [-0.3, 0.2] (forward)",
                   (min(p + 0.3, 0.2 - p) for p in [p for _, _, p in forward] + landings), 0.1)
    return table


def ratchet_drops(table: Table, scene: RatchetScene) -> None:
    """At each drop the tip is at a tooth's tip, falls touching nothing, and lands on the next flank."""
    r = scene.closed
    drops = r.drops()
    table.at_least("drops in the turn", [sum(1 for w in drops if 0 < w < 2 * math.pi)], TEETH)
    table.at_most("drops: pawl tip at the tooth's tip (tooth 0, 9, 8, ...)",
                  (scene.tip(w, r.forward(w)[1]).distance(scene.wheel_point(TIP_RADIUS, FIRST_TIP - j * PITCH, w))
                   for j, w in enumerate(drops)), TOUCH)
    falls = [(w, p) for j, w in enumerate(drops)
             for p in np.linspace(r.forward(w)[1], r.pawl_on_flank(w, -j - 1), 52)[1:-1]]
    table.at_least("drops: the pawl falls touching nothing", (scene.gap(w, p) for w, p in falls), TOUCH)
    table.at_most("drops: lands on the next flank",
                  (scene.off_flank(w, -j - 1, r.pawl_on_flank(w, -j - 1)) for j, w in enumerate(drops)), TOUCH)


def ratchet_back(table: Table, scene: RatchetScene) -> None:
    """Backward from 2 pi the tip slides down flank 0 into its root corner, where the wheel is
    blocked: turned a little further back, it overlaps the pawl at every nearby pawl angle."""
    r = scene.closed
    lock = r.lock()
    back = [(w, r.pawl_on_flank(w, 0)) for w in np.linspace(lock, 2 * math.pi, 201)]
    table.at_most("backward: no overlap", (scene.overlap(w, p) for w, p in back), OVERLAP)
    table.at_most("backward: pawl touches the wheel", (scene.gap(w, p) for w, p in back), TOUCH)
    table.at_most("backward: pawl tip on flank 0", (scene.off_flank(w, 0, p) for w, p in back), TOUCH)
    locked = r.pawl_on_flank(lock, 0)
    table.at_most("lock: pawl tip in the root corner at the foot of lock1",
                  [scene.tip(lock, locked).distance(scene.wheel_point(ROOT_RADIUS, FIRST_TIP + PITCH, lock))], TOUCH)
    table.at_least("lock: 1e-3 further back every pawl angle within 0.1 overlaps",
                   (scene.overlap(lock - 1e-3, p) for p in np.linspace(locked - 0.1, locked + 0.1, 201)), OVERLAP)
    table.at_least("pawl clear of its limits [-0.3, 0.2] (backward)", (min(p + 0.3, 0.2 - p) for _, p in back), 0.1)


# --- gears -------------------------------------------------------------------------------------

def gears() -> Table:
    """t2 = c - (N1/N2) t1 over two turns: driving flanks within the profile errors, never
    overlapping; turned back by the backlash, the coast flanks touch instead."""
    pair = Pair(12, 18)
    fixture, table = Fixture("gears"), Table(f"gears: t2 = {pair.start:.9f} - (12/18) t1, two turns")
    check_start(table, fixture, {"t1": 0.0, "t2": pair.start})
    bound = pair.law_bound() * pair.gear2.base_radius  # e1 + e2: the gap the arcs may leave
    window = shapely.intersection(Point(0, 0).buffer(pair.gear1.tip_radius + 1),
                                  Point(pair.distance, 0).buffer(pair.gear2.tip_radius + 1))

    def mesh(t1: float, t2: float) -> tuple[BaseGeometry, BaseGeometry]:
        """Both gears near the mesh (where they could meet), placed at t1, t2."""
        values = {"t1": t1, "t2": t2}
        return (fixture.shape("gear1", values).intersection(window),
                fixture.shape("gear2", values).intersection(window))

    def law(t1: float) -> float:
        return pair.start - pair.n1 / pair.n2 * t1

    drive = [mesh(t1, law(t1)) for t1 in np.linspace(0, 4 * math.pi, 961)]
    table.at_most("teeth never overlap", (overlap_depth(a, b) for a, b in drive), OVERLAP)
    table.at_most("driven flank touches the driver's (gap <= e1 + e2)", (a.distance(b) for a, b in drive),
                  bound + TOUCH)
    coast = [mesh(t1, law(t1) - pair.angular_backlash) for t1 in np.linspace(0, 4 * math.pi, 241)]
    table.at_most("turned back by the backlash: no overlap", (overlap_depth(a, b) for a, b in coast), OVERLAP)
    table.at_most("turned back by the backlash: coast flanks touch", (a.distance(b) for a, b in coast), bound + TOUCH)
    return table


def main() -> None:
    tables = [check() for check in (eccentric_cam, lever, ratchet, gears)]
    for table in tables:
        table.print()
    failed = [t.fixture for t in tables if not t.ok()]
    print("\nall checks pass" if not failed else f"\nFAILED: {', '.join(failed)}")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
