"""Rotational symmetry of parts about their pivots (cspace.symmetry.order), against shapes
whose order is known by construction."""

from __future__ import annotations

import pytest
from shapely.geometry import Point, box

from cspace.geometry import region_of
from cspace.loader import load
from cspace.symmetry import MOST, order

from .common import fixture_path


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
