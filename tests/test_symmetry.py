"""Rotational symmetry of parts about their pivots (cspace.kernels.symmetry.order), against shapes
whose order is known by construction."""

from __future__ import annotations

import math

import numpy as np
import pytest
from shapely.geometry import Point, box

from cspace.io.loader import load
from cspace.kernels import symmetry
from cspace.kernels.symmetry import MOST, drawn_order, order
from cspace.model.geometry import Line, Profile, region_of

from .common import fixture_path, seeds


def test_a_body_of_revolution_has_the_largest_order():
    """A ring about its pivot (a drum), drawn finer than MATCH, is unchanged by any turn."""
    ring = Point(0, 0).buffer(11, quad_segs=2048).difference(Point(0, 0).buffer(10, quad_segs=2048))
    assert order([ring], (0.0, 0.0)) == MOST


def test_a_ring_off_its_pivot_has_none():
    ring = Point(0.1, 0).buffer(11, quad_segs=2048).difference(Point(0.1, 0).buffer(10, quad_segs=2048))
    assert order([ring], (0.0, 0.0)) == 1


@pytest.mark.parametrize("width, height, expected", [(3.2, 0.6, 2), (2.0, 2.0, 4)])
def test_a_rectangle_centred_on_its_pivot_has_its_own_order(width, height, expected):
    """Its corners lie on a circle about the pivot, its edges do not: not a body of revolution."""
    assert order([box(-width / 2, 7 - height / 2, width / 2, 7 + height / 2)], (0.0, 7.0)) == expected


def test_a_gear_has_its_tooth_count():
    mechanism = load(fixture_path("gears"))
    for part, teeth in (("gear1", 12), ("gear2", 18)):
        turn = mechanism.coordinate(mechanism.part(part).coordinates[0])
        shape = region_of(mechanism.part(part).slices[0].profiles, mechanism.tolerance.length)
        assert order([shape], turn.pivot) == teeth


def _star(teeth: int, split: bool = False) -> Profile:
    """A star of ``teeth`` points about (1, 2), each drawn as two lines; ``split`` draws one
    of its lines as two (the outline is the same, its drawing no longer repeats)."""
    points = []
    for k in range(2 * teeth):
        radius = 5.0 if k % 2 == 0 else 3.0
        angle = math.pi * k / teeth + 0.1
        points.append((1 + radius * math.cos(angle), 2 + radius * math.sin(angle)))
    lines = [Line(points[k], points[(k + 1) % len(points)], f"f{k}") for k in range(len(points))]
    if split:
        (x0, y0), (x1, y1) = lines[0].start, lines[0].end
        middle = ((x0 + x1) / 2, (y0 + y1) / 2)
        lines[0:1] = [Line((x0, y0), middle, "f0"), Line(middle, (x1, y1), "f0")]
    return Profile(tuple(lines))


@pytest.mark.parametrize("teeth", [2, 3, 7, 12, 40])
def test_a_drawing_that_repeats_gives_the_outlines_order(teeth):
    star = _star(teeth)
    assert drawn_order([(star,)], (1.0, 2.0), 1e-9) == teeth
    assert order([region_of([star], 1e-3)], (1.0, 2.0)) == teeth


def test_a_drawing_that_does_not_repeat_is_left_to_the_outline():
    star = _star(6, split=True)
    assert drawn_order([(star,)], (1.0, 2.0), 1e-9) == 1
    assert order([region_of([star], 1e-3)], (1.0, 2.0)) == 6


def test_a_drawing_turned_about_another_point_does_not_repeat():
    assert drawn_order([(_star(6),)], (1.0, 2.1), 1e-6) == 1


def test_a_hole_off_the_pivot_breaks_the_drawings_repeat():
    """A star with one round hole near a point: the drawing repeats only as the outline does."""
    holed = (_star(6), Profile.circle((5.0, 2.0), 0.5).reversed())
    assert drawn_order([holed], (1.0, 2.0), 1e-9) == 1
    bored = (_star(6), Profile.circle((1.0, 2.0), 0.5).reversed())
    assert drawn_order([bored], (1.0, 2.0), 1e-9) == 6


def test_every_fixture_parts_drawn_order_is_its_outlines():
    """Where the drawing repeats, the outline does so the same way; the drawing of each
    toothed fixture part repeats."""
    found = {}
    for name in ("gears", "ratchet", "geneva", "transmission", "shoe-brake", "rim-lock", "lever"):
        mechanism = load(fixture_path(name))
        for part in mechanism.parts:
            angle = next((mechanism.coordinate(c) for c in part.coordinates
                          if mechanism.coordinate(c).is_angle and mechanism.coordinate(c).periodic), None)
            if angle is None:
                continue
            fine = mechanism.tolerance.length
            drawn = drawn_order([s.oriented for s in part.slices], angle.pivot, fine)
            outline = order([region_of(s.profiles, fine) for s in part.slices], angle.pivot)
            assert drawn in (1, outline), (name, part.name)
            found[f"{name}.{part.name}"] = drawn
    assert found["gears.gear1"] == 12 and found["transmission.cluster"] == math.gcd(18, 14)
    mechanism = load(fixture_path("transmission"))
    pivot = mechanism.coordinate("t2").pivot
    assert [drawn_order([s.oriented], pivot, 1e-9) for s in mechanism.part("cluster").slices] == [18, 14]


def _maps_onto_one_by_one(points, angle, near):
    """Each turned row's nearest row, among all of them (the first of equals), less than
    ``near`` away, and no two alike."""
    c, s = math.cos(angle), math.sin(angle)
    turned = (points.reshape(-1, 3, 2) @ np.array([[c, s], [-s, c]])).reshape(-1, 6)
    nearest = []
    for row in turned:
        distance = np.sqrt(((points - row) ** 2).sum(axis=1))
        k = int(np.argmin(distance))
        if not distance[k] < near:
            return False
        nearest.append(k)
    return len(set(nearest)) == len(nearest)


@pytest.mark.parametrize("seed", seeds(40, 4))
def test_drawn_elements_map_onto_each_other_as_their_nearest_do(seed):
    """Rows of elements turned by a whole number of sectors onto the rows, against every row
    searched: copies turned exactly, a few nudged off by about ``near``, some repeated (two
    rows for one), some missing."""
    rng = np.random.default_rng(seed)
    n, near = int(rng.integers(2, 9)), 1e-6
    base = rng.uniform(-5, 5, (int(rng.integers(1, 6)), 6))
    angle = 2 * math.pi / n
    copies = []
    for j in range(n):
        c, s = math.cos(j * angle), math.sin(j * angle)
        copies.append((base.reshape(-1, 3, 2) @ np.array([[c, s], [-s, c]])).reshape(-1, 6))
    points = np.vstack(copies)
    if seed % 3 == 1:
        points[rng.integers(len(points))] += rng.choice([-1, 1], 6) * near * rng.uniform(0.1, 1.5)
    elif seed % 3 == 2:
        points = np.vstack([points, points[rng.integers(len(points))]]) if rng.random() < 0.5 else points[1:]
    order = np.argsort(points[:, 0], kind="stable")
    for turn in (angle, 2 * angle, angle / 2):
        assert symmetry._maps_onto(points, order, turn, near) == _maps_onto_one_by_one(points, turn, near)
