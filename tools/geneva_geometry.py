"""The Geneva drive of ``fixtures/geneva.toml``: its closed form, checked on the real shapes.

The closed form is :func:`wheel_angle`: the wheel's coordinate w as a function of the
crank's a, the pin taken exactly on the slot's axis (see the fixture's header). The
checks pose the real shapes (shapely; arcs within 1e-7 of the mechanism's size, as
``cspace.testing`` does; the pin is a true circle where distances are measured from
it) at (a, wheel_angle(a)) for two full turns of the crank from its initial angle, in
steps of 0.002 rad and at every engagement boundary, and test:

1. overlap: the crank (pin and locking disk, the layer the wheel is in) and the wheel
   never overlap deeper than 1e-6 (area or depth); nor, during an engagement, with the
   wheel anywhere in the slot's play (the pin against either wall, turned
   asin(clearance / s) off the closed form, s the pin's distance from the wheel's
   centre), so any motion the pin allows is free of the locking disk (the closest
   approach of disk and wheel, with and without the play, is printed);
2. slot: while engaged, the pin's centre lies in the slot the closed form engages
   (slot1 first, then slot2, ...) and the pin is as far as the slot clearance from both
   its walls;
3. locking: in every dwell pose (the boundaries included), the wheel turned 0.01 rad
   either way from its dwell angle overlaps the crank's locking disk deeper than 1e-6;
4. outside the slots: the pin never comes within 1e-6 of the wheel's faces other than
   the slot walls and bottoms, nor of a slot's bottom.

It prints the design numbers read from the fixture, a line per check and, for the
record, the clearance-corrected first contact of the pin, the locking disk's play at a
few dwell poses, and the second engagement's start on the real walls (arcs within 4.7e-9,
the wheel held where the first engagement left it: where the pin's gap to it crosses
zero through the slot's mouth, how far it stands off in between); it exits with status
1 if a check fails.

    python tools/geneva_geometry.py
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
import shapely
from scipy.optimize import brentq, minimize_scalar
from shapely.affinity import affine_transform
from shapely.geometry import LineString, Point, Polygon
from shapely.geometry.base import BaseGeometry

import cspace
from cspace.model.checks import overlap_depth
from cspace.model.geometry import Arc, Line, Profile, orient, region_of
from cspace.model.mechanism import Mechanism
from cspace.model.poses import part_transform
from cspace.testing import FINE

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "fixtures" / "geneva.toml"
SLOTS = 4
LAMBDA = math.sin(math.pi / SLOTS)  # crank radius over centre distance
HALF = math.pi / SLOTS  # the crank turns 2 HALF while the pin is in a slot
STEP = 0.002  # crank angle between checked poses
TURNS = 2
DEPTH = 1e-6  # deepest overlap accepted, and the nearest approach that counts as touching
LOCK_TURN = 0.01  # the wheel turned this far from a dwell must hit the locking disk
EXACT_ARC = 1e-7  # [tolerance] arc of the shapes the second entry is measured on (their arcs within 4.7e-9)
ENTRY_STEP = 2e-6  # crank angle between the poses scanned through the second entry


def beta(alpha: float) -> float:
    """Angle of the engaged slot with the line of centres at crank angle ``alpha`` from it."""
    return math.atan2(LAMBDA * math.sin(alpha), 1.0 - LAMBDA * math.cos(alpha))


def turn_and_alpha(a: float) -> tuple[int, float]:
    """(k, alpha): a = alpha + 2 pi k with alpha in (-pi, pi], the crank angle from the line of centres."""
    k = math.ceil((a - math.pi) / (2 * math.pi))
    return k, a - 2 * math.pi * k


def wheel_angle(a: float) -> float:
    """The wheel's coordinate w at crank angle a (both unwrapped): dwell, engage, dwell, ...

    Engagement k (alpha in [-pi/4, pi/4]) turns the wheel clockwise from -(k - 1) pi/2
    to -k pi/2, w = -(2k - 1) pi/4 - beta(alpha); in between it dwells.
    """
    k, alpha = turn_and_alpha(a)
    if alpha < -HALF:
        return -(k - 1) * 2 * HALF
    if alpha > HALF:
        return -k * 2 * HALF
    return -(2 * k - 1) * HALF - beta(alpha)


def engaged(a: float) -> int:
    """The number of the engagement the pin is in at crank angle a (k of :func:`turn_and_alpha`), or 0."""
    k, alpha = turn_and_alpha(a)
    return k if abs(alpha) <= HALF else 0


def engagement_bounds(start: float, stop: float) -> list[tuple[float, float]]:
    """Crank angles (a) where the engagements within [start, stop] begin and end: -pi/4, pi/4 + 2 pi k."""
    first = math.ceil((start + HALF) / (2 * math.pi))
    return [(2 * math.pi * k - HALF, 2 * math.pi * k + HALF)
            for k in range(first, math.floor((stop + HALF) / (2 * math.pi)) + 1)]


def _face(element: Line | Arc, tolerance: float, origin: tuple[float, float]) -> LineString:
    """One face as a line string relative to ``origin``, an arc by chords within ``tolerance``."""
    points = element.points(tolerance, False) + [element.end]
    return LineString([(x - origin[0], y - origin[1]) for x, y in points])


def _named(profiles: list[Profile], face: str) -> Profile:
    return next(p for p in profiles if any(e.name == face for e in p.elements))


def _element(profile: Profile, face: str) -> Line | Arc:
    return next(e for e in profile.elements if e.name == face)


def _matrix(t: np.ndarray) -> list[float]:
    """A 3x3 transform as shapely's affine_transform wants it."""
    return [t[0, 0], t[0, 1], t[1, 0], t[1, 1], t[0, 2], t[1, 2]]


class Geneva:
    """The fixture's real shapes and the measurements the checks and the pymunk peer make on them.

    Everything is measured in the wheel's frame (relative to the mechanism's origin):
    the crank is posed there by its transform relative to the wheel's, so the wheel's
    geometry is built once. Read from the file: the pin (profile ``pin``), the locking
    disk (``lock``), the slots' walls and bottoms (``slotk.right``, ``.left``, ``.bottom``).
    """

    def __init__(self, mechanism: Mechanism) -> None:
        self.mechanism = mechanism
        self.crank, self.wheel = mechanism.part("crank"), mechanism.part("wheel")
        origin = mechanism.origin
        fine = mechanism.tolerance.arc * FINE
        layer = self.wheel.slices[0]
        profiles = [p for s in self.crank.slices if s.z[0] < layer.z[1] and layer.z[0] < s.z[1] for p in s.profiles]
        wheel = layer.profiles[0]
        self.crank_layer = region_of(profiles, fine, origin)
        self.lock_profile = orient([_named(profiles, "lock.rim")])[0]
        self.lock = region_of([self.lock_profile], fine, origin)
        self.material = region_of(layer.profiles, fine, origin)
        shapely.prepare(self.material)
        self.boundary = self.material.boundary
        pin = _element(_named(profiles, "pin.rim"), "pin.rim")
        self.pin_centre = np.array([pin.center[0] - origin[0], pin.center[1] - origin[1], 1.0])
        self.pin_radius = pin.radius
        faces = {e.name: _face(e, fine, origin) for e in wheel.elements}
        in_slot = {f"slot{k}.{side}" for k in range(1, SLOTS + 1) for side in ("right", "left", "bottom")}
        self.walls = [shapely.union(faces[f"slot{k}.right"], faces[f"slot{k}.left"]) for k in range(1, SLOTS + 1)]
        self.bottoms = shapely.union_all([faces[f"slot{k}.bottom"] for k in range(1, SLOTS + 1)])
        self.outside = shapely.union_all([line for name, line in faces.items() if name not in in_slot])
        self.slot_areas = [Polygon(list(faces[f"slot{k}.right"].coords) + list(faces[f"slot{k}.left"].coords))
                           for k in range(1, SLOTS + 1)]
        self.pushed = [self._inward(_element(wheel, f"slot{k}.right"), _element(wheel, f"slot{k}.left"))
                       for k in range(1, SLOTS + 1)]
        self.coordinates = {part.name: mechanism.coordinate(part.coordinates[0]) for part in (self.crank, self.wheel)}
        self.pivots = {name: coordinate.pivot for name, coordinate in self.coordinates.items()}
        self.centre_distance = math.dist(self.pivots["crank"], self.pivots["wheel"])
        self.crank_radius = math.dist(self.pivots["crank"], pin.center)
        right, left = (_element(wheel, f"slot1.{side}") for side in ("right", "left"))
        self.slot_clearance = LineString([right.start, right.end]).distance(Point(left.start)) / 2 - self.pin_radius
        rim, arc = _element(_named(profiles, "lock.rim"), "lock.rim"), _element(wheel, "lock-arc1")
        self.lock_radius = rim.radius
        self.lock_clearance = arc.radius - rim.radius
        relief = _element(_named(profiles, "lock.rim"), "lock.relief")
        self.relief = (relief.center, relief.radius, math.degrees(math.atan2(rim.start[1], rim.start[0])))

    def _inward(self, wall: Line, other: Line) -> tuple[np.ndarray, np.ndarray]:
        """A wall's start (relative to the origin) and its unit normal pointing into the slot."""
        start = np.subtract(wall.start, self.mechanism.origin)
        along = np.subtract(wall.end, wall.start) / math.dist(wall.start, wall.end)
        normal = np.array([-along[1], along[0]])
        return start, (normal if np.dot(np.subtract(other.start, wall.start), normal) > 0 else -normal)

    def relative(self, a: float, w: float) -> np.ndarray:
        """The crank's transform in the wheel's frame at (a, w)."""
        m, origin = self.mechanism, self.mechanism.origin
        crank = part_transform(m, self.crank, {self.coordinates["crank"].name: a}, origin)
        wheel = part_transform(m, self.wheel, {self.coordinates["wheel"].name: w}, origin)
        return np.linalg.solve(wheel, crank)

    def crank_shape(self, shape: BaseGeometry, a: float, w: float) -> BaseGeometry:
        """A crank shape posed in the wheel's frame."""
        return affine_transform(shape, _matrix(self.relative(a, w)))

    def pin_point(self, a: float, w: float) -> Point:
        """The pin's centre in the wheel's frame."""
        x, y, _ = self.relative(a, w) @ self.pin_centre
        return Point(x, y)

    def overlap(self, a: float, w: float) -> tuple[float, float]:
        """(area, depth) of the overlap of the crank's layer and the wheel."""
        crank = self.crank_shape(self.crank_layer, a, w)
        area = crank.intersection(self.material).area
        return area, (overlap_depth(crank, self.material) if area > 0 else 0.0)

    def lock_depth(self, a: float, w: float) -> float:
        """How deep the locking disk and the wheel overlap."""
        return overlap_depth(self.crank_shape(self.lock, a, w), self.material)

    def lock_gap(self, a: float, w: float) -> float:
        """Distance between the locking disk and the wheel (0 when they meet)."""
        return self.crank_shape(self.lock, a, w).distance(self.material)

    def pin_gap(self, a: float, w: float) -> float:
        """Distance from the pin to the wheel's material; negative: how deep it is in."""
        centre = self.pin_point(a, w)
        distance = centre.distance(self.boundary)
        return (-distance if self.material.contains(centre) else distance) - self.pin_radius

    def wall_distance(self, a: float, w: float, slot: int) -> float:
        """Distance from the pin to the nearer wall of slot ``slot`` (1-based)."""
        return self.pin_point(a, w).distance(self.walls[slot - 1]) - self.pin_radius

    def in_slot(self, a: float, w: float, slot: int) -> bool:
        """Is the pin's centre between the walls of slot ``slot``, mouth and bottom included?"""
        return self.slot_areas[slot - 1].buffer(DEPTH).contains(self.pin_point(a, w))

    def outside_distance(self, a: float, w: float) -> float:
        """Distance from the pin to the wheel's faces other than slot walls and bottoms."""
        return self.pin_point(a, w).distance(self.outside) - self.pin_radius

    def bottom_distance(self, a: float, w: float) -> float:
        """Distance from the pin to the nearest slot bottom."""
        return self.pin_point(a, w).distance(self.bottoms) - self.pin_radius

    def slot_play(self, a: float) -> float:
        """How far the wheel can turn either way off the closed form with the pin in a slot at a."""
        (cx, cy), (wx, wy) = self.pivots["crank"], self.pivots["wheel"]
        s = math.hypot(cx + self.crank_radius * math.cos(a) - wx, cy + self.crank_radius * math.sin(a) - wy)
        return math.asin(self.slot_clearance / s)

    def push_gap(self, a: float, w: float, slot: int) -> float:
        """How far the pin is from the wall of slot ``slot`` it pushes (``right``), measured
        across the slot; negative: how far it is past the wall's line."""
        start, normal = self.pushed[slot - 1]
        x, y = self.pin_point(a, w).coords[0]
        return float(np.dot((x, y) - start, normal)) - self.pin_radius

    def first_touch(self, low: float, high: float, w: float, slot: int) -> float:
        """The first crank angle in [low, high] at which the pin, coming from short of it, reaches
        the wall of the slot it pushes, the wheel held at w. The pin may start on the wall (a
        wheel left there by the last engagement): it leaves it before it pushes it."""
        short = None
        for a in np.arange(low, high, STEP / 2):
            gap = self.push_gap(a, w, slot)
            if gap > 0:
                short = a
            elif short is not None:
                return brentq(lambda x: self.push_gap(x, w, slot), short, a, xtol=1e-12)
        raise ValueError(f"the pin does not reach slot{slot}'s pushing wall between a = {low} and {high}")

    def lock_play(self, a: float, w: float, sign: int) -> float:
        """How far the wheel turns from w (clockwise for sign -1) before it meets the locking disk."""
        def hits(turn: float) -> bool:
            return self.crank_shape(self.lock, a, w + sign * turn).intersection(self.material).area > 0

        low, high = 0.0, LOCK_TURN
        while not hits(high):
            low, high = high, 2 * high
        for _ in range(40):
            middle = (low + high) / 2
            low, high = (low, middle) if hits(middle) else (middle, high)
        return high


@dataclass
class Extreme:
    """The smallest or largest value seen and the crank angle where."""

    largest: bool
    value: float = math.nan
    where: float = math.nan

    def see(self, value: float, a: float) -> None:
        if math.isnan(self.value) or (value > self.value if self.largest else value < self.value):
            self.value, self.where = value, a


@dataclass
class Report:
    """Everything the sweep measures."""

    area: Extreme = field(default_factory=lambda: Extreme(True))
    depth: Extreme = field(default_factory=lambda: Extreme(True))
    play_lock: Extreme = field(default_factory=lambda: Extreme(True))
    play_pin: Extreme = field(default_factory=lambda: Extreme(True))
    lock_gap: Extreme = field(default_factory=lambda: Extreme(False))
    lock_gap_play: Extreme = field(default_factory=lambda: Extreme(False))
    wall_low: Extreme = field(default_factory=lambda: Extreme(False))
    wall_high: Extreme = field(default_factory=lambda: Extreme(True))
    outside_slot: list[float] = field(default_factory=list)
    lock_ccw: Extreme = field(default_factory=lambda: Extreme(False))
    lock_cw: Extreme = field(default_factory=lambda: Extreme(False))
    outside: Extreme = field(default_factory=lambda: Extreme(False))
    bottom: Extreme = field(default_factory=lambda: Extreme(False))
    engaged_poses: int = 0
    dwell_poses: int = 0


def crank_angles(start: float) -> list[float]:
    """Two full turns of the crank from ``start`` in steps of STEP, with every engagement boundary."""
    stop = start + TURNS * 2 * math.pi
    grid = [start + STEP * i for i in range(int((stop - start) / STEP) + 1)] + [stop]
    return sorted(set(grid + [a for bounds in engagement_bounds(start, stop) for a in bounds]))


def sweep(geneva: Geneva, angles: list[float]) -> Report:
    """Pose the parts at every crank angle and measure what the four checks need."""
    report = Report()
    for a in angles:
        w = wheel_angle(a)
        area, depth = geneva.overlap(a, w)
        report.area.see(area, a)
        report.depth.see(depth, a)
        report.outside.see(geneva.outside_distance(a, w), a)
        report.bottom.see(geneva.bottom_distance(a, w), a)
        k = engaged(a)
        if k:
            report.engaged_poses += 1
            slot = (k - 1) % SLOTS + 1
            distance = geneva.wall_distance(a, w, slot)
            report.wall_low.see(distance, a)
            report.wall_high.see(distance, a)
            if not geneva.in_slot(a, w, slot):
                report.outside_slot.append(a)
            play = geneva.slot_play(a)
            report.lock_gap.see(geneva.lock_gap(a, w), a)
            for turned in (w - play, w + play):
                report.play_lock.see(geneva.lock_depth(a, turned), a)
                report.play_pin.see(-geneva.pin_gap(a, turned), a)
                report.lock_gap_play.see(geneva.lock_gap(a, turned), a)
        if abs(turn_and_alpha(a)[1]) >= HALF:
            report.dwell_poses += 1
            report.lock_ccw.see(geneva.lock_depth(a, w + LOCK_TURN), a)
            report.lock_cw.see(geneva.lock_depth(a, w - LOCK_TURN), a)
    return report


def verdicts(geneva: Geneva, report: Report) -> list[tuple[str, bool, str]]:
    """(check, passed, what was measured) for the four checks."""
    c = geneva.slot_clearance
    return [
        ("1 overlap", report.depth.value <= DEPTH and report.area.value <= DEPTH,
         f"crank/wheel overlap: largest area {report.area.value:.3g}, depth {report.depth.value:.3g}"),
        ("1 overlap, slot play", report.play_lock.value <= DEPTH and report.play_pin.value <= DEPTH,
         f"wheel anywhere in the slot's play: locking disk overlap depth {report.play_lock.value:.3g}, "
         f"pin in a wall by {max(report.play_pin.value, 0.0):.3g} (deepest); the locking disk comes within "
         f"{report.lock_gap.value:.4f} of the wheel (a = {report.lock_gap.where:.4f}), "
         f"{report.lock_gap_play.value:.4f} in the play (a = {report.lock_gap_play.where:.4f})"),
        ("2 slot", not report.outside_slot and abs(report.wall_low.value - c) <= 10 * DEPTH
         and abs(report.wall_high.value - c) <= 10 * DEPTH,
         f"pin in the engaged slot at {report.engaged_poses - len(report.outside_slot)} of {report.engaged_poses} "
         f"engaged poses; pin to nearer wall {report.wall_low.value:.9f} to {report.wall_high.value:.9f} "
         f"(slot clearance {c:.9f})"),
        ("3 locking", min(report.lock_ccw.value, report.lock_cw.value) > DEPTH,
         f"{report.dwell_poses} dwell poses, wheel turned {LOCK_TURN} rad: shallowest overlap with the locking disk "
         f"{report.lock_ccw.value:.4f} counterclockwise (a = {report.lock_ccw.where:.4f}), "
         f"{report.lock_cw.value:.4f} clockwise (a = {report.lock_cw.where:.4f})"),
        ("4 outside the slots", report.outside.value > DEPTH and report.bottom.value > DEPTH,
         f"pin to the wheel's other faces: nearest {report.outside.value:.9f} (a = {report.outside.where:.4f}); "
         f"to a slot bottom: nearest {report.bottom.value:.4f}"),
    ]


def print_design(geneva: Geneva) -> None:
    """The design numbers as read from the fixture."""
    (rx, ry), radius, angle = geneva.relief
    print(f"{FIXTURE.relative_to(ROOT)}: centre distance {geneva.centre_distance:g}, crank radius "
          f"{geneva.crank_radius:.6f} (lambda {geneva.crank_radius / geneva.centre_distance:.9f}), "
          f"pin radius {geneva.pin_radius:g}, slot clearance {geneva.slot_clearance:.6f} a side")
    print(f"  locking disk radius {geneva.lock_radius:g}, locking-arc clearance {geneva.lock_clearance:.6f}; relief: "
          f"arc of radius {radius:g} about ({rx:g}, {ry:g}), meeting the rim at +-{angle:.3f} deg")


def print_record(geneva: Geneva, start: float) -> None:
    """Numbers for the record: the first contact with clearance, the locking disk's play."""
    low, high = engagement_bounds(start, start + 2 * math.pi)[0]
    touch = geneva.first_touch(low, low + 2 * HALF, wheel_angle(low), 1)
    print(f"with clearance the pin reaches slot1.right (the wheel held at its dwell) at a = {touch:.9f}, "
          f"{touch - low:.6f} after the engagement boundary {low:.9f}; the slot's play: "
          f"{geneva.slot_play(low):.6f} rad at the mouth, {geneva.slot_play((low + high) / 2):.6f} at mid-engagement")
    plays = []
    for fraction in (0.0, 0.05, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 1.0):
        a = high + fraction * (2 * math.pi - 2 * HALF)
        w = wheel_angle(a)
        plays.append(f"{fraction:.2f}: {geneva.lock_play(a, w, 1):.5f}/{geneva.lock_play(a, w, -1):.5f}")
    print("locking disk's play (rad, ccw/cw) at fractions of the dwell: " + ", ".join(plays))


def pushed_angle(geneva: Geneva, a: float, near: float) -> float:
    """The wheel angle, within 0.001 of ``near``, at which the pin at crank angle ``a`` just
    touches the wall it pushes (or its end at the rim)."""
    return brentq(lambda w: geneva.pin_gap(a, w), near - 0.001, near + 0.001, xtol=1e-15)


def print_second_entry(geneva: Geneva, start: float) -> None:
    """The second engagement's start on the real walls: the wheel held where the first leaves it
    (the lowest angle the pin pushes it to), the pin's gap to it through the slot's mouth."""
    (_, end), (low, _) = engagement_bounds(start, start + TURNS * 2 * math.pi)[:2]
    left = minimize_scalar(lambda a: pushed_angle(geneva, a, wheel_angle(end) + geneva.slot_play(end)),
                           bounds=(end - 5e-4, end + 5e-4), method="bounded", options={"xatol": 1e-12})
    w = left.fun
    angles = np.arange(low - 1e-3, low + 5e-3, ENTRY_STEP)
    gaps = np.array([geneva.pin_gap(a, w) for a in angles])
    crossings = [brentq(lambda a: geneva.pin_gap(a, w), angles[i], angles[i + 1], xtol=1e-14)
                 for i in np.flatnonzero(np.diff(np.sign(gaps)) != 0)]
    push = crossings[-1]
    before = angles < push
    between = before & (angles > crossings[-2]) if len(crossings) > 1 else before
    deepest = angles[before][int(np.argmin(gaps[before]))]
    stand = angles[between][int(np.argmax(gaps[between]))]
    print(f"on the real walls (arcs within {geneva.mechanism.tolerance.arc * FINE:.2g}) the first engagement leaves "
          f"the wheel at w = {w:.10f} (pushed until t = {left.x - start:.6f}); held there, the pin's gap to it "
          f"crosses zero at t = {', '.join(f'{a - start:.6f}' for a in crossings)} (the mouth: t = {low - start:.6f}): "
          f"before the last, it is {max(-gaps[before].min(), 0.0):.2g} deep at the most (the wheel pushed "
          f"{w - min(w, pushed_angle(geneva, deepest, w)):.2g} rad), then {gaps[between].max():.3g} off at t = "
          f"{stand - start:.4f}; it pushes from t = {push - start:.6f}")


def main() -> int:
    """Run the four checks on the fixture; 1 if any fails."""
    geneva = Geneva(cspace.load(FIXTURE))
    start, initial = geneva.coordinates["crank"].initial, geneva.coordinates["wheel"].initial
    print_design(geneva)
    if abs(initial - wheel_angle(start)) > 1e-12:
        print(f"FAIL: the fixture starts the wheel at {initial}, the closed form at {wheel_angle(start)}")
        return 1
    angles = crank_angles(start)
    report = sweep(geneva, angles)
    print(f"{len(angles)} poses over {TURNS} turns from a = {start:.6f}, step {STEP}, engagement boundaries included")
    results = verdicts(geneva, report)
    for name, passed, text in results:
        print(f"  {'pass' if passed else 'FAIL'}  {name}: {text}")
    print_record(geneva, start)
    print_second_entry(Geneva(replace(geneva.mechanism, tolerance_factors=(("arc", EXACT_ARC),))), start)
    return 0 if all(passed for _, passed, _ in results) else 1


if __name__ == "__main__":
    sys.exit(main())
