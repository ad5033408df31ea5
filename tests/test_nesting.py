"""Nesting alternates: a profile in an outline is a hole, one in that hole an island of
material, one in the island a hole again, to any depth (the even-odd rule, as the viewer
fills them). Every place a part's material is computed must agree: the translating
pairs' convex pieces, the turning pairs' outlines and contact curves, the pair finder,
the loader's checks, the mesh, and the replay's oracle (which builds its own material
from the raw profiles).

Closed forms: a spring-loaded pin in a pocket stops against the island in it; a follower
in a turning disk's slot rides the eccentric island in the slot; a block falls into a
well cut in an island in a pocket and lands on the well's floor. The bug as it was is
put back by :func:`parity_only` (a profile is material or a hole by its orientation
alone, as the old code had it: an island in a hole was subtracted with the hole).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import shapely
from cspace.viz.mesh import part_mesh
from shapely import affinity
from shapely.geometry import Polygon, box

from cspace import analyze, loads, trace
from cspace.kernels import contact_curves, minkowski
from cspace.kernels.contact_curves import Shape, place, rotation_intervals
from cspace.model import geometry
from cspace.model.errors import GeometryError
from cspace.model.geometry import Profile, nesting_depths, region_of
from cspace.model.mechanism import Part, Slice
from cspace.model.tolerance import GRID_ROUNDING
from cspace.testing import OVERLAP, material, replay

from .common import seeds, slow
from .support.edits import with_configs
from .support.fuzz import SeededDraw, closed_form_errors, generate
from .support.shapes import agree, blocked_at, random_polygon


def parity_only(polygons):
    """The old rule: counterclockwise is material, clockwise a hole, whatever the depth."""
    return [0 if polygon.exterior.is_ccw else 1 for polygon in polygons]


def holes_subtracted(polygons, depths):
    """The old region_of: every outline and island together, less every hole."""
    solid = shapely.union_all([p for p, depth in zip(polygons, depths) if depth % 2 == 0])
    return solid.difference(shapely.union_all([p for p, depth in zip(polygons, depths) if depth % 2]))


@pytest.fixture
def old_rule(monkeypatch):
    """The physics as it was (an island in a hole was empty), the oracle left as it is."""
    for module in (minkowski, contact_curves):
        monkeypatch.setattr(module, "nesting_depths", parity_only)


def final(result, name: str) -> float:
    return float(result.segments[-1].finish[result.mechanism.coordinate_index[name]])


# -- a pin in a pocket stops against the island -----------------------------------------------------

PIN = """
[mechanism]
name = "island-pin"
time = 10

[[parts]]
name = "frame"
motion = "fixed"

[[parts.slices]]
z = [0, 1]
profiles = [ {{ name = "plate", rect = [-20, -10, 20, 10] }},
             {{ name = "pocket", rect = [-15, -5, 15, 5] }},
             {{ name = "island", rect = [-10, -2, -5, 2] }} ]

[[parts]]
name = "pin"
motion = "fixed-axes"
coordinates = [ {{ name = "xb", axis = [1, 0], initial = 0 }} ]

[[parts.slices]]
z = [0, 1]
profiles = [ {{ rect = [-4, -1, -2, 1] }} ]

[[forces]]
kind = "spring"
coordinate = "xb"
direction = {direction}
"""


@pytest.mark.parametrize("direction, stop", [(-1, -1.0), (1, 17.0)])
def test_a_pin_stops_against_the_island_in_its_pocket(direction, stop):
    """Pushed left, the pin's left face (x = -4) meets the island's right face (x = -5):
    xb = -1 (it went on to the pocket's wall, xb = -11, when the island was empty).
    Pushed right its right face (x = -2) meets the pocket's wall at x = 15: xb = 17."""
    result = trace(analyze(loads(PIN.format(direction=direction))))
    assert final(result, "xb") == pytest.approx(stop, abs=result.mechanism.tolerance.length)
    assert replay(result) == []


def test_the_pin_passed_through_the_island_under_the_old_rule(old_rule):
    result = trace(analyze(loads(PIN.format(direction=-1))))
    assert final(result, "xb") == pytest.approx(-11.0)
    assert OVERLAP in {v.kind for v in replay(result)}


# -- the oracle builds its own material -------------------------------------------------------------

def test_the_oracle_sees_an_island_without_the_code_under_test(monkeypatch):
    """A trace whose pin sinks into the island is an overlap to the replay, even with the
    simulator's material back to the old rule (region_of subtracting islands with their
    holes): the oracle's material is the profiles' own symmetric difference. (Its shapes
    were region_of's, and this sunk pin replayed clean.)"""
    result = trace(analyze(loads(PIN.format(direction=-1))))
    sunk = result.pieces[-1].configs.copy()
    sunk[:, 0] = -3.0  # the pin's left face at x = -7, two deep in the island
    monkeypatch.setattr(geometry, "even_odd", holes_subtracted)
    assert geometry.region_of(result.mechanism.part("frame").slices[0].profiles).area == 40 * 20 - 30 * 10
    overlaps = [v for v in replay(with_configs(result, -1, sunk)) if v.kind == OVERLAP]
    assert overlaps and {v.parts for v in overlaps} == {("frame", "pin")}
    assert max(v.amount for v in overlaps) == pytest.approx(2.0, rel=1e-3)


def test_the_oracles_material_alternates_by_depth():
    squares = [Profile.rectangle(-h, -h, h, h) for h in (8, 6, 4, 2)]
    for k in range(1, 5):
        expected = sum((-1) ** j * (2 * h) ** 2 for j, h in enumerate((8, 6, 4, 2)[:k]))
        assert material(squares[:k]).area == pytest.approx(expected)
        assert material([s.reversed() for s in squares[:k]][::-1]).area == pytest.approx(expected)


# -- three deep: a hole in an island in a hole --------------------------------------------------------

DEPTHS = (20, 15, 10, 5, 2)  # half-sides of concentric squares: outline, hole, island, hole, island


def nested(count: int, reverse: tuple[int, ...] = ()) -> tuple[Profile, ...]:
    """``count`` concentric squares, those listed in ``reverse`` drawn clockwise, innermost first."""
    squares = [Profile.rectangle(-h, -h, h, h, f"s{k}.") for k, h in enumerate(DEPTHS[:count])]
    return tuple((s.reversed() if k in reverse else s) for k, s in enumerate(squares))[::-1]


def alternating_area(count: int) -> float:
    return sum((-1) ** k * (2 * h) ** 2 for k, h in enumerate(DEPTHS[:count]))


@pytest.mark.parametrize("count", [1, 2, 3, 4, 5])
def test_material_alternates_with_depth_wherever_it_is_computed(count):
    """The area of concentric squares, material and holes by turns, from every builder: the
    profiles' region, the convex pieces and the outlines of the translating and turning
    pairs, the contact curves' material, the mesh's caps (and the oracle, above)."""
    profiles = nested(count, reverse=(1, 2))  # drawn either way round: orientation does not matter
    expected = alternating_area(count)
    assert nesting_depths([Polygon(p.ring()) for p in profiles]) == list(range(count))[::-1]
    assert region_of(profiles).area == pytest.approx(expected)
    slice_ = Slice((0.0, 1.0), profiles)
    polylines = [p.polyline(1e-3) for p in slice_.oriented]
    quantum = 1e-4
    pieces = minkowski.convex_pieces(polylines, quantum, GRID_ROUNDING)
    assert sum(Polygon(p.vertices).area for p in pieces) * quantum ** 2 == pytest.approx(expected)
    rings = [(np.array(r.vertices, float) * quantum, r.vertex_features, r.edge_faces)
             for r in minkowski.outlines(polylines, quantum, GRID_ROUNDING)]
    assert Shape.of(rings).material.area == pytest.approx(expected)
    mesh = part_mesh(Part("nest", "fixed", slices=(slice_,)), 1e-3)
    top = mesh.vertices[mesh.triangles[len(mesh.triangles) // 2:]][:, :, :2]
    a, b = top[:, 1] - top[:, 0], top[:, 2] - top[:, 0]
    assert 0.5 * float(np.sum(a[:, 0] * b[:, 1] - a[:, 1] * b[:, 0])) == pytest.approx(expected)


WELL = """
[mechanism]
name = "well"
time = 5

[[parts]]
name = "frame"
motion = "fixed"

[[parts.slices]]
z = [0, 1]
profiles = [ {{ name = "plate", rect = [-20, -30, 20, 20] }},
             {{ name = "pocket", rect = [-15, -25, 15, 15] }},
             {{ name = "island", path = [[-8, -15], [-8, -5], [8, -5], [8, -15], [-8, -15]] }},
             {{ name = "well", rect = [{well}, -12, 3, -5] }} ]

[[parts]]
name = "block"
motion = "fixed-axes"
coordinates = [ {{ name = "yb", axis = [0, 1], initial = 0 }} ]

[[parts.slices]]
z = [0, 1]
profiles = [ {{ rect = [-1, 0, 1, 2] }} ]

[[forces]]
kind = "gravity"
coordinate = "yb"
direction = -1
"""


@pytest.mark.parametrize("well, floor", [(-3, -12.0), (-0.5, -5.0)])
def test_a_block_lands_in_the_well_of_an_island_in_a_pocket(well, floor):
    """Plate (material), pocket (a hole, floor -25), island (material again, top -5, drawn
    clockwise) and a well cut down from the island's top (a hole again, floor -12). The
    block (x from -1 to 1) falls into a well from -3 to 3 and lands on its floor; over a
    well from -0.5 to 3 its left end rests on the island's top. It went to the pocket's
    floor, -25, when the island was empty, and would stop on the island's top, -5, if the
    well were material."""
    result = trace(analyze(loads(WELL.format(well=well))))
    assert final(result, "yb") == pytest.approx(floor, abs=result.mechanism.tolerance.length)
    assert replay(result) == []


NOTCH = """
[mechanism]
name = "notch"
time = 5

[[parts]]
name = "frame"
motion = "fixed"

[[parts.slices]]
z = [0, 1]
profiles = [ { name = "plate", rect = [-10, -10, 10, 0] }, { name = "notch", rect = [-2, -4, 2, 0] } ]

[[parts]]
name = "block"
motion = "fixed-axes"
coordinates = [ { name = "yb", axis = [0, 1], initial = 0 } ]

[[parts.slices]]
z = [0, 1]
profiles = [ { rect = [-1, 1, 1, 2] } ]

[[forces]]
kind = "gravity"
coordinate = "yb"
direction = -1
"""


def test_a_hole_open_to_the_outside_is_not_filled():
    """A notch drawn as a hole touching the plate's top (it holds nothing at the start, but
    it is open): the block falls into it, to its floor at y = -4 (yb = -5). Holes no part
    can enter are filled before pair spaces are built (cspace.spaces.holes); this one was, and
    the block stopped on the plate's top (yb = -1), as it did over the open well above."""
    result = trace(analyze(loads(NOTCH)))
    assert final(result, "yb") == pytest.approx(-5.0, abs=result.mechanism.tolerance.length)
    assert replay(result) == []


def test_the_block_fell_through_the_island_under_the_old_rule(old_rule):
    result = trace(analyze(loads(WELL.format(well=-3))))
    assert final(result, "yb") == pytest.approx(-25.0)
    assert OVERLAP in {v.kind for v in replay(result)}


# -- a turning disk whose slot holds an island ----------------------------------------------------------

ISLAND_CAM = """
[mechanism]
name = "island-cam"
time = 6.283185307179586

[[parts]]
name = "disk"
motion = "fixed-axes"
coordinates = [ { name = "th", pivot = [0, 0], initial = 0 } ]

[[parts.slices]]
z = [0, 1]
profiles = [ { name = "rim", circle = [0, 0], radius = 14 },
             { name = "slot", circle = [0, 0], radius = 11 },
             { name = "island", circle = [1, 0], radius = 4 } ]

[[parts]]
name = "follower"
motion = "fixed-axes"
coordinates = [ { name = "xf", axis = [1, 0], initial = 0.1 } ]

[[parts.slices]]
z = [0, 1]
profiles = [ { rect = [5, -1.5, 8, 1.5] } ]

[[forces]]
kind = "spring"
coordinate = "xf"
direction = -1

[[inputs]]
name = "disk turns"
velocities = { th = 1.0 }
sampling = 0.25
"""


def island_cam_errors(result) -> float:
    """Largest gap from the closed form once the follower has landed: the island (radius 4
    about (1, 0)) turned by th has its rightmost point at x = cos th + 4, where the
    follower's flat face (x = 5 + xf, 3 tall, the contact's y = sin th on it) rests:
    xf = cos th - 1."""
    index = [result.mechanism.coordinate_index[n] for n in ("th", "xf")]
    th, xf = np.array([q[index] for _, _, q in result.samples()]).T
    turning = th != th[0]
    return float(np.abs(xf[turning] - (np.cos(th[turning]) - 1)).max())


@slow
def test_a_follower_rides_the_island_in_a_turning_disks_slot():
    """The disk is a rim, a slot (a hole) and an eccentric island in the slot; the spring
    pushes the follower in from the right onto the island. It fell through the island to
    the slot's far wall (xf = -15.9) when the island was empty."""
    result = trace(analyze(loads(ISLAND_CAM)))
    assert island_cam_errors(result) <= result.mechanism.tolerance.arc
    assert all(s.first.contacts for s in result.segments[1:])
    assert replay(result) == []


def test_the_follower_fell_through_the_island_under_the_old_rule(old_rule):
    result = trace(analyze(loads(ISLAND_CAM)))
    assert final(result, "xf") < -15


def shape_of(material) -> Shape:
    """A contact-curve shape of a shapely material: every polygon's rings, oriented."""
    rings = []
    for polygon in getattr(material, "geoms", [material]):
        polygon = shapely.geometry.polygon.orient(polygon)
        rings += [np.array(polygon.exterior.coords[:-1])] + [np.array(h.coords[:-1]) for h in polygon.interiors]
    return Shape.of([(ring, ("v",) * len(ring), (("e",),) * len(ring)) for ring in rings])


def _island_turns(seed: int) -> bool:
    """Do the contact curves of a part turning over an island in a hole (a square frame, its
    hole, a concave island in it) give the blocked angles shapely finds? The turning part
    is small and turns near the island, often wholly inside it at the start of the count."""
    rng = np.random.default_rng(seed)
    middle = rng.uniform(-1, 1, 2)
    island = random_polygon(rng, int(rng.integers(3, 9)), middle, 3.0)
    a = box(-6, -6, 6, 6).difference(box(-5, -5, 5, 5)).union(island)
    b = random_polygon(rng, int(rng.integers(3, 9)), (0, 0), rng.uniform(0.3, 1.5))
    angle, offset = np.array([rng.uniform(-3, 3)]), (middle + rng.uniform(-1, 1, 2))[None]
    placed = Polygon(place(np.array(b.exterior.coords[:-1]), angle, offset)[0])
    centre, sign = (middle + rng.uniform(-1, 1, 2))[None], int(rng.choice([-1, 1]))
    found = rotation_intervals(shape_of(a), shape_of(b), angle, offset, centre, sign)
    vs = np.linspace(-np.pi, np.pi, 1001, endpoint=False)
    truth = np.array([a.intersection(affinity.rotate(placed, sign * v, origin=tuple(centre[0]), use_radians=True)).area
                      > 1e-9 for v in vs])
    return agree(truth, blocked_at(found, 0, vs, True), vs, found, 0.01)


@pytest.mark.parametrize("seed", seeds(20, 5))
def test_contact_curves_of_a_part_turning_over_an_island(seed):
    assert _island_turns(seed)


@slow
def test_the_contact_curves_counted_from_no_island_under_the_old_rule(monkeypatch):
    """The count starts from a direct overlap test on the shape's material: with the island
    left out of it, a part turning inside the island is free (6 of these 20 seeds)."""
    monkeypatch.setattr(contact_curves, "nesting_depths", parity_only)
    assert sum(not _island_turns(seed) for seed in range(20)) >= 5


# -- the pair finder: profiles of different slices never nest ------------------------------------

SHELF = """
[mechanism]
name = "shelf"
time = 1

[[parts]]
name = "shelf"
motion = "fixed"

[[parts.slices]]
z = [0, 1]
profiles = [ { rect = [-10, 0, 10, 4] } ]

[[parts.slices]]
z = [1, 2]
profiles = [ { rect = [-10, 0, 10, 2] } ]

[[parts]]
name = "lever"
motion = "fixed-axes"
coordinates = [ { name = "th", pivot = [0, -6], initial = 0 } ]

[[parts.slices]]
z = [0, 2]
profiles = [ { rect = [-0.5, -6.5, 7, -5.5] } ]

[[forces]]
kind = "torque"
coordinate = "th"
direction = 1
"""


def test_a_lever_turns_up_against_a_shelf_of_two_slices():
    """A shelf of two slices sharing its bottom face (4 tall below, 2 tall above) and a lever
    under it turned up by a torque: its corner (7, 0.5) from the pivot, 6 below the shelf,
    meets the bottom face at th = asin(6 / |(7, 0.5)|) - atan(0.5 / 7). The pair finder
    took the profiles of both slices for one slice, the upper nested in the lower (a hole),
    so the shelf's material began 2 above its bottom face, the lever's swept annulus never
    came near it and no pair was made: the lever turned through the shelf ("move without
    end")."""
    result = trace(analyze(loads(SHELF)))
    due = math.asin(6 / math.hypot(7, 0.5)) - math.atan2(0.5, 7)
    tolerance = result.mechanism.tolerance
    assert final(result, "th") == pytest.approx(due, abs=tolerance.arc / 7)
    assert replay(result) == []


# -- the loader --------------------------------------------------------------------------------------

def test_profiles_that_coincide_are_refused():
    """Is the second a hole the size of the first (nothing left), or the same outline twice?"""
    with pytest.raises(GeometryError, match=r"part 'frame': slices\[0\].profiles: profiles 1 and 2 coincide"):
        loads(PIN.format(direction=-1).replace('{ name = "island", rect = [-10, -2, -5, 2] }',
                                               '{ name = "twice", rect = [-15, -5, 15, 5] }'))


def test_an_island_that_crosses_its_hole_is_refused():
    with pytest.raises(GeometryError, match=r"profiles 1 and 2 cross near"):
        loads(PIN.format(direction=-1).replace("rect = [-10, -2, -5, 2]", "rect = [-16, -2, -5, 2]"))


# -- the fuzz family -----------------------------------------------------------------------------------

@pytest.mark.parametrize("seed", seeds(12, 1))
def test_generated_nests_stop_on_their_innermost_material(seed):
    """tests.support.fuzz's nested family: a block or a nest moved by a spring along any quarter
    turn, or a follower on a turning disk's island, against its closed form and the replay."""
    case = generate(SeededDraw(seed), ("nested",))
    result = trace(analyze(loads(case.text)))
    assert closed_form_errors(result, case.expected) == [], case.text
    assert replay(result) == [], case.text


def test_the_nested_family_fails_under_the_old_rule(old_rule):
    """Every case's closed form is missed when an island in a hole is empty (all of seeds
    0-99 in the closed form and the replay alike)."""
    failing = 0
    for seed in range(12):
        case = generate(SeededDraw(seed), ("nested",))
        result = trace(analyze(loads(case.text)))
        failing += bool(closed_form_errors(result, case.expected))
    assert failing >= 10
