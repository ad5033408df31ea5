"""Profiles: outward arc linearization, orientation, and the checks on bad profiles."""

from __future__ import annotations

import math

import numpy as np
import pytest
from shapely.geometry import Point, Polygon

from cspace.model.errors import GeometryError
from cspace.model.geometry import Arc, Line, Profile, check_profile, orient


@pytest.mark.parametrize("radius, tolerance", [(3.5, 1e-2), (0.3, 1e-4), (50.0, 1e-3)])
def test_outward_circle_contains_the_true_circle_within_tolerance(radius, tolerance):
    polygon = Polygon(Profile.circle((1.0, -2.0), radius).polyline(tolerance).vertices)
    angles = np.linspace(0, 2 * math.pi, 2000, endpoint=False)
    boundary = [(1 + radius * math.cos(a), -2 + radius * math.sin(a)) for a in angles]
    assert all(polygon.buffer(1e-12).contains(Point(p)) for p in boundary)
    assert max(Point(1, -2).distance(Point(v)) for v in polygon.exterior.coords) <= radius + tolerance
    # Axis extremes are touch points: a disk on a flat face touches it exactly.
    assert polygon.bounds == pytest.approx((1 - radius, -2 - radius, 1 + radius, -2 + radius), abs=1e-12)


def test_concave_arc_is_linearized_by_chords_inside_the_hole():
    hole = Profile((Arc((1, 0), (-1, 0), (0, 0), False, "lower"), Arc((-1, 0), (1, 0), (0, 0), False, "upper")))
    vertices = hole.polyline(1e-3).vertices
    assert all(math.hypot(*v) == pytest.approx(1, abs=1e-12) for v in vertices)


def test_polyline_names_faces_and_corners():
    polyline = Profile.rectangle(0, 0, 4, 2).polyline(1e-3)
    assert [f.name for f in polyline.edge_features] == ["bottom", "right", "top", "left"]
    assert polyline.vertex_features[0].name == "left+bottom"


def test_holes_run_clockwise_and_outlines_counterclockwise():
    outer, hole = orient([Profile.rectangle(0, 0, 4, 4).reversed(), Profile.rectangle(1, 1, 2, 2)])
    assert outer.signed_area() > 0 > hole.signed_area()


@pytest.mark.parametrize("profile, message", [
    (Profile((Line((0, 0), (1, 0), "a"), Line((1, 0), (1, 1), "b"), Line((1, 1), (0, 1), "c"))), "open"),
    (Profile((Line((0, 0), (0, 0), "a"), Line((0, 0), (1, 1), "b"), Line((1, 1), (0, 0), "c"))), "zero length"),
    (Profile((Arc((1, 0), (-1, 0), (0, 0), True, "a"), Arc((-1, 0), (1.5, 0), (0, 0), True, "b"),
              Line((1.5, 0), (1, 0), "c"))), "radii"),
    (Profile((Line((0, 0), (2, 2), "a"), Line((2, 2), (2, 0), "b"), Line((2, 0), (0, 2), "c"),
              Line((0, 2), (0, 0), "d"))), "crosses itself"),
])
def test_bad_profiles_are_rejected(profile, message):
    with pytest.raises(GeometryError, match=message):
        check_profile(profile, 1e-9)
