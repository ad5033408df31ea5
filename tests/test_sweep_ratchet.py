"""The ratchet example sweep (fixtures/sweeps/ratchet.toml) over its pawl's pivot position, against
the geometry alone: where the pawl tip's circle about the pivot meets the wheel's outline.

The oracle below knows the wheel and the pawl from their description (tooth tips at radius 10,
roots at 8.5, the pawl's outline as offsets from its pivot), not from cspace: it computes, in
closed form, the pawl angles at which the tip first touches the wheel as the pawl falls
(circles against the outline's segments), and checks with shapely that nothing but the tip
touches on the way. Each variant's drop count (``--measure drops:p``) must be what it predicts.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd
import pytest
from scipy.optimize import brentq
from shapely.geometry import Point, Polygon

import cspace
from cspace.sweeps.measures import Drops, MeasureError, parse

from .common import ROOT, slow

RATCHET = ROOT / "fixtures" / "sweeps" / "ratchet.toml"
LIFTED, DROPPED = -0.3, 0.2  # the pawl's stops (p), on its mount
OUTLINE = [(-7.768237254219, -3.2027272242695), (-6.2, -1.0), (1.0, -1.0), (1.0, 1.0), (-7.2, 1.0), (-7.2, -1.0)]
TIP = np.array(OUTLINE[0])  # the pawl's outline from its pivot at p = 0, the tip first
L, BETA0 = float(np.hypot(*TIP)), math.atan2(TIP[1], TIP[0])
PITCH = 2 * math.pi / 10
ROOTS = 10  # a turn passes every root once
DISTANCES = [13.5, 14.5, 15.5, 16.5, 17.5]  # nearer, the nose's face meets the tooth tips (see the fixture)
ANGLES = [32.0, 40.0, 48.0, 56.0, 64.0, 72.0]


def polar(radius: float, angle: float) -> np.ndarray:
    return np.array([radius * math.cos(angle), radius * math.sin(angle)])


def wheel_corners(w: float) -> list[np.ndarray]:
    """The wheel's outline at angle w: tooth k's tip at radius 10, 72 + 36k degrees, then the root
    its flank falls to, at radius 8.5 and 36 degrees on, where the next tooth's locking face rises."""
    return [corner for k in range(10) for corner in (polar(10, math.radians(72 + 36 * k) + w),
                                                     polar(8.5, math.radians(108 + 36 * k) + w))]


def wheel(w: float) -> Polygon:
    return Polygon(wheel_corners(w))


def pivot(distance: float, angle: float) -> np.ndarray:
    return polar(distance, math.radians(angle))


def pawl(at: np.ndarray, p: float) -> Polygon:
    c, s = math.cos(p), math.sin(p)
    return Polygon([at + np.array([c * x - s * y, s * x + c * y]) for x, y in OUTLINE])


def first_touch(at: np.ndarray, w: float, start: float) -> float:
    """The least pawl angle from ``start`` on (counterclockwise, the way the torque turns it) at
    which the tip's circle about the pivot ``at`` meets the wheel's outline at angle w."""
    corners = wheel_corners(w)
    least = math.inf
    for a, b in zip(corners, corners[1:] + corners[:1]):
        u, f = b - a, a - at
        qa, qb, qc = u @ u, 2 * f @ u, f @ f - L * L
        disc = qb * qb - 4 * qa * qc
        if disc < 0:
            continue
        for s in ((-qb - math.sqrt(disc)) / (2 * qa), (-qb + math.sqrt(disc)) / (2 * qa)):
            if 0 <= s <= 1:
                x = a + s * u
                p = math.atan2(x[1] - at[1], x[0] - at[0]) - BETA0
                least = min(least, start + (p - start) % (2 * math.pi))
    return least


def tooth_tip(at: np.ndarray) -> tuple[float, float]:
    """``(p_d, w_d)``: the pawl's angle where its tip reaches a tooth's tip (the circles of
    radius L about the pivot and 10 about the centre meet; of the two points, the one the
    pawl's range is about), and a wheel angle that puts a tooth's tip there."""
    distance, bearing = float(np.hypot(*at)), math.atan2(at[1], at[0])
    cosine = (distance ** 2 + 100 - L * L) / (20 * distance)
    meets = []
    for side in (1, -1):
        x = polar(10, bearing + side * math.acos(cosine))
        p = math.remainder(math.atan2(x[1] - at[1], x[0] - at[0]) - BETA0, 2 * math.pi)
        meets.append((abs(p), p, math.atan2(x[1], x[0]) - math.radians(72)))
    _, p, w = min(meets)
    return p, w


@dataclass(frozen=True)
class Expected:
    """What the geometry says of a pivot position: ``overlaps`` (the lifted pawl is in the wheel
    at the start), else the angle ``p0`` at which the falling pawl first lands at w = 0, the
    angle ``pd`` at a tooth's tip (wheel angle ``wd``) and ``pl`` where it lands from there."""

    at: np.ndarray
    overlaps: bool
    p0: float = math.nan
    pd: float = math.nan
    wd: float = math.nan
    pl: float = math.nan

    @property
    def jams(self) -> bool:
        """The pawl cannot lift its tip over a tooth: the forward input is blocked."""
        return self.pd < LIFTED

    @property
    def every_root(self) -> bool:
        return not self.overlaps and not self.jams and self.pl <= DROPPED

    @property
    def drops(self) -> int:
        """The landing at the start, if the stop does not hold the pawl short of the wheel, and one
        a root if every drop off a tooth's tip lands."""
        return int(self.p0 <= DROPPED) + (ROOTS if self.every_root else 0)

    def margin(self) -> float:
        """How far, in pawl angle, the pivot is from changing any of that."""
        nearest = [abs(self.p0 - DROPPED), abs(self.pd - LIFTED)]
        return min(nearest if self.jams else [*nearest, abs(self.pl - DROPPED)])


def expected(distance: float, angle: float) -> Expected:
    at = pivot(distance, angle)
    if pawl(at, LIFTED).intersection(wheel(0.0)).area > 0:
        return Expected(at, True)
    pd, wd = tooth_tip(at)
    return Expected(at, False, first_touch(at, 0.0, LIFTED), pd, wd, first_touch(at, wd, pd + 1e-9))


def touches_with_its_tip_only(at: np.ndarray, w: float, p: float) -> bool:
    """Nothing of the pawl but the tip's corner reaches into the wheel (shapely, the outlines
    pulled in by 1e-6: a tip on an edge is clear of it)."""
    return not pawl(at, p).buffer(-1e-6).intersects(wheel(w))


def resting(at: np.ndarray, w: float) -> float:
    """The pawl's angle resting on the wheel at angle w, lowered onto it from well above."""
    return min(first_touch(at, w, LIFTED - 0.5), DROPPED)


def outcome(row: dict) -> int | str:
    return "overlaps at the start" if "overlap" in row["error"] else int(row["drops:p"])


@pytest.fixture(scope="module")
def grid() -> pd.DataFrame:
    return cspace.sweep(RATCHET, {"distance": DISTANCES, "angle": ANGLES}, measures=["drops:p"])


def test_the_files_outlines_are_the_ones_the_check_assumes():
    for distance, angle in ((14.422205101855956, 56.309932474020215), (16.5, 36.0), (12.5, 76.0)):
        mechanism = cspace.loads(RATCHET.read_text(), parameters={"distance": distance, "angle": angle})
        at = pivot(distance, angle)
        [p] = mechanism.coordinates[1:]
        assert p.pivot == pytest.approx(tuple(at), abs=1e-12) and (p.initial, p.limits) == (LIFTED, (LIFTED, DROPPED))
        for part, corners in (("wheel", wheel_corners(0.0)), ("pawl", [at + np.array(o) for o in OUTLINE])):
            [profile] = mechanism.part(part).slices[0].profiles
            starts = np.array([e.start for e in profile.elements])
            assert np.abs(starts - np.array(corners)).max() <= 1e-9, part


def test_at_the_default_pivot_the_pawl_is_the_fixtures_and_the_closed_form_its_header_gives():
    """fixtures/ratchet.toml derives the same events another way (the tip on a flank's line):
    the tip reaches a tooth's tip at p = -0.150564 and lands near the next root at 0.042315."""
    ours, fixture = (cspace.load(path).part("pawl") for path in (RATCHET, ROOT / "fixtures" / "ratchet.toml"))
    [mine], [theirs] = ours.slices[0].profiles, fixture.slices[0].profiles
    assert [e.name for e in mine.elements] == [e.name for e in theirs.elements]
    assert np.abs(np.array([e.start for e in mine.elements]) - [e.start for e in theirs.elements]).max() <= 1e-9
    shipped = expected(math.sqrt(208), math.degrees(math.atan2(12, 8)))
    assert (shipped.pd, shipped.pl) == pytest.approx((-0.150564, 0.042315), abs=1e-6)
    assert shipped.every_root and shipped.drops == 11


def test_the_oracle_sees_each_outcome_on_the_grid_clear_of_its_boundaries():
    """Every pivot of the test's grid is at least five times the arc linearization's reach in
    pawl angle (its turning gap over the pawl's length) from a boundary of the outcome, or the
    lifted pawl is at least 0.01 in the wheel; the grid holds every outcome. Along the falls and
    the rides the oracle assumes, only the tip touches the wheel (shapely)."""
    gap = cspace.load(RATCHET).tolerance.turning_gap
    seen = set()
    for distance in DISTANCES:
        for angle in ANGLES:
            e = expected(distance, angle)
            if e.overlaps:
                assert pawl(e.at, LIFTED).buffer(-0.01).intersects(wheel(0.0)), (distance, angle)
                seen.add("overlaps")
                continue
            assert e.margin() >= 5 * gap / L, (distance, angle)
            assert pawl(e.at, LIFTED).distance(wheel(0.0)) >= 0.01
            seen.add("jams" if e.jams else "every root" if e.every_root else f"short, {e.drops}")
            falls = [(0.0, p) for p in np.linspace(LIFTED, min(e.p0, DROPPED), 40)]
            if not e.jams:
                falls += [(e.wd, p) for p in np.linspace(e.pd, min(e.pl, DROPPED), 40)]
            if e.every_root:
                falls += [(w, resting(e.at, w)) for w in np.linspace(e.wd, e.wd + PITCH, 80)]
            assert all(touches_with_its_tip_only(e.at, w, p) for w, p in falls), (distance, angle)
    assert seen == {"overlaps", "jams", "every root", "short, 0", "short, 1"}


def test_one_variant_of_each_outcome_drops_as_the_geometry_says():
    """Overlapping at the start, jammed, dropping into every root, held short of the wheel by its
    stop after landing once at the start, and never landing."""
    pivots = [(13.5, 32.0), (15.5, 32.0), (14.5, 56.0), (16.5, 56.0), (16.5, 48.0)]
    rows = cspace.sweep(RATCHET, [{"distance": d, "angle": a} for d, a in pivots], measures=["drops:p"])
    assert [outcome(row) for row in rows.to_dict("records")] == ["overlaps at the start", 1, 11, 1, 0]
    assert [expected(d, a).drops for d, a in pivots[1:]] == [1, 11, 1, 0]


@slow
def test_every_variant_of_the_grid_drops_as_the_geometry_says(grid):
    rows = grid.to_dict("records")
    got = {(r["distance"], r["angle"]): outcome(r) for r in rows}
    want = {(d, a): "overlaps at the start" if e.overlaps else e.drops
            for d in DISTANCES for a in ANGLES for e in [expected(d, a)]}
    assert got == want


@slow
def test_a_jammed_pawl_stops_the_wheel_where_the_flank_lifts_it_onto_its_stop(grid):
    """Forward, the wheel stops where the flank has lifted the pawl onto its stop at p = -0.3:
    the tip on its circle at that angle touches the wheel's outline (by the oracle, the first
    wheel angle it does), or is short of it by at most the turning gap (shapely)."""
    gap = cspace.load(RATCHET).tolerance.turning_gap
    jammed = 0
    for row in grid.to_dict("records"):
        e = expected(row["distance"], row["angle"])
        if e.overlaps or not e.jams:
            continue
        jammed += 1
        ws = np.linspace(0, PITCH, 200)
        lifted = [resting(e.at, w) - LIFTED for w in ws]
        k = next(k for k, v in enumerate(lifted) if v <= 0)
        stop = brentq(lambda w: first_touch(e.at, w, LIFTED - 0.5) - LIFTED, ws[k - 1], ws[k], xtol=1e-12)
        blocked = float(row["blocked_at"].split("; ")[0].removeprefix("wheel turns forward at t = "))
        tip = Point(e.at + polar(L, BETA0 + LIFTED))
        assert blocked <= stop + 1e-9
        assert tip.distance(wheel(blocked).exterior) <= gap
    assert jammed >= 2


@slow
def test_a_pawl_that_drops_into_every_root_holds_the_wheel_backward(grid):
    """Where the pawl drops into every root, the wheel turns its whole turn forward (to its stop
    at 2 pi) and, driven back, is blocked within a tooth's pitch and what the pawl's tip rode
    forward of the root: the pivot lies outward of the tangent at every root it catches, so the
    locking face turns the pawl into the wheel, not out of it."""
    held = 0
    for row in grid.to_dict("records"):
        e = expected(row["distance"], row["angle"])
        if e.overlaps or not e.every_root:
            continue
        held += 1
        forward, backward = row["blocked_at"].split("; ")
        assert forward == f"wheel turns forward at t = {round(2 * math.pi, 10)}"
        assert backward.startswith("wheel turns backward at t = ")
        assert 0 < row["end_time"] - 2 * math.pi <= 2 * PITCH
        root = e.at + polar(L, BETA0 + e.pl)  # where it landed, by a root
        assert e.at @ (root / np.hypot(*root)) > np.hypot(*root)
    assert held >= 5


def test_drops_names_a_coordinate_the_mechanism_has():
    assert parse("drops: p") == Drops("p")
    with pytest.raises(MeasureError, match="expected drops:COORDINATE"):
        Drops.parse("drops:")
    with pytest.raises(MeasureError, match="no coordinate named 'q'; the coordinates are w, p"):
        Drops("q").check(cspace.load(RATCHET))
