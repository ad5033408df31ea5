"""The exact kinematics of a linkage (cspace.kinetics.linkage_motion) against closed forms.

Oracles independent of the code: the feeder's crank-slider in closed form with its analytic
derivatives; a crank-rocker four-bar by circle-circle intersection (upper assembly), its
derivatives by central differences of that position solution; and the four-bar's reduced mass,
whose derivative from the second-derivative jets must match a central difference of itself.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from cspace import load, loads
from cspace.kinetics.linkage_motion import LinkageMotion
from cspace.spaces.linkage import JointSystem, solve_linkage

from .common import fixture_path

TWO_PI = 2 * math.pi

# The feeder's crank-slider (fixtures/feeder.toml): the crank pin is [3, 0] of the driver, which
# turns about (0, 0); the link is 8 from pin to pin; the piston's pin is [1, 0] of the piston, which
# slides along x on y = 0. So the pin sits at x = xp + 1, the crank's pivot is level with the pin's
# line (offset 0), and xp = r cos t + sqrt(l² - (r sin t + offset)²) - 1.
RADIUS, LINK, OFFSET, PIN_AHEAD = 3.0, 8.0, 0.0, 1.0


def crank_slider(t: float) -> tuple[float, float, float]:
    """xp and its first and second derivatives in the crank angle, in closed form."""
    g, dg, ddg = RADIUS * math.sin(t) + OFFSET, RADIUS * math.cos(t), -RADIUS * math.sin(t)
    s = math.sqrt(LINK ** 2 - g * g)
    return (RADIUS * math.cos(t) + s - PIN_AHEAD,
            -RADIUS * math.sin(t) - g * dg / s,
            -RADIUS * math.cos(t) - (dg * dg + g * ddg) / s - (g * dg) ** 2 / s ** 3)


# A crank-rocker: ground pivots O = (0, 0) and D = (4, 0), crank 1, coupler 3.5, rocker 3, assembled
# upper with the crank at 0 (the coupler-rocker pin at (3.041666667, 2.842815017)). In cspace's
# format the input is the crank's rotation t2, the output the rocker's rotation t4 (a rotation output
# is a coordinate like a translation one), the coupler the one member, and two pins close the loop.
PIN0 = (3.041666667, 2.842815017)
CRANK, COUPLER, ROCKER, GROUND = 1.0, 3.5, 3.0, 4.0
BAR = "[[parts.slices]]\nz = [{z}, {top}]\nprofiles = [ {{ rect = [{x0}, -0.1, {x1}, 0.1] }} ]\n"
FOUR_BAR = f"""
[mechanism]
name = "crank-rocker"
time = 1

[[parts]]
name = "ground"
motion = "fixed"
{BAR.format(z=-1, top=0, x0=-0.5, x1=4.5)}
[[parts]]
name = "crank"
motion = "fixed-axes"
coordinates = [ {{ name = "t2", pivot = [0, 0], initial = 0 }} ]
{BAR.format(z=0, top=1, x0=0, x1=CRANK)}
[[parts]]
name = "coupler"
motion = "linkage"
{BAR.format(z=1, top=2, x0=0, x1=COUPLER)}
[[parts]]
name = "rocker"
motion = "fixed-axes"
coordinates = [ {{ name = "t4", pivot = [4, 0], initial = {math.atan2(PIN0[1], PIN0[0] - GROUND)!r} }} ]
{BAR.format(z=2, top=3, x0=GROUND, x1=GROUND + ROCKER)}
[[linkages]]
name = "four-bar"
input = "t2"
output = "t4"
members = ["coupler"]
joints = [
  {{ kind = "pin", parts = ["crank", "coupler"], points = [[{CRANK}, 0], [0, 0]] }},
  {{ kind = "pin", parts = ["coupler", "rocker"], points = [[{COUPLER}, 0], [{GROUND + ROCKER}, 0]] }},
]
"""
# Each bar's centre in its local frame and its length (uniform bars of mass 1: I = l² / 12).
BARS = {"crank": ((CRANK / 2, 0.0), CRANK), "coupler": ((COUPLER / 2, 0.0), COUPLER),
        "rocker": ((GROUND + ROCKER / 2, 0.0), ROCKER)}


# A slotted arm driven by a crank (the quick-return's oscillating slot): a crank of radius 1 about
# (0, 0) carries a block that slides in the slot of an arm turning about Q = (0, -2). A slider joint
# on a turning part: the slot's line and the block's angle turn with the arm. The crank's angle has
# limits, so the input does not turn freely. The slot points from Q at the crank pin P, so
# psi = atan2(Py + 2, Px) - pi/2, and with rho² = 1 + 4 + 4 sin t:
# psi' = (1 + 2 sin t) / rho², psi'' = 2 cos t (4 - 1) / rho⁴.
SLOTTED = f"""
[mechanism]
name = "slotted-arm"
time = 1

[[parts]]
name = "crank"
motion = "fixed-axes"
coordinates = [ {{ name = "t", pivot = [0, 0], initial = 0, limits = [-1, 2.5] }} ]
{BAR.format(z=0, top=1, x0=0, x1=1)}
[[parts]]
name = "block"
motion = "linkage"
{BAR.format(z=1, top=2, x0=-0.2, x1=0.2)}
[[parts]]
name = "arm"
motion = "fixed-axes"
coordinates = [ {{ name = "psi", pivot = [0, -2], initial = {math.atan2(2, 1) - math.pi / 2!r} }} ]

[[parts.slices]]
z = [2, 3]
profiles = [ {{ rect = [-0.1, -2, 0.1, 2] }} ]

[[linkages]]
name = "slotted-arm"
input = "t"
output = "psi"
members = ["block"]
joints = [
  {{ kind = "pin", parts = ["crank", "block"], points = [[1, 0], [0, 0]] }},
  {{ kind = "slider", parts = ["arm", "block"], points = [[0, -2], [0, 0]], axis = [0, 1] }},
]
"""


def slotted_arm(t: float) -> tuple[float, float, float]:
    """The arm's angle and its first and second derivatives in the crank angle, in closed form."""
    rho2 = 5 + 4 * math.sin(t)
    return (math.atan2(math.sin(t) + 2, math.cos(t)) - math.pi / 2, (1 + 2 * math.sin(t)) / rho2,
            6 * math.cos(t) / rho2 ** 2)


def four_bar_pin(t: float) -> np.ndarray:
    """The coupler-rocker pin B in closed form: the intersection of the circles of radius 3.5 about
    the crank pin A and 3 about D on the left of A -> D (the upper assembly)."""
    a = np.array([CRANK * math.cos(t), CRANK * math.sin(t)])
    d = np.array([GROUND, 0.0])
    distance = float(np.linalg.norm(d - a))
    along = (COUPLER ** 2 - ROCKER ** 2 + distance ** 2) / (2 * distance)
    unit = (d - a) / distance
    return a + along * unit + math.sqrt(COUPLER ** 2 - along ** 2) * np.array([-unit[1], unit[0]])


def four_bar_angles(t: float) -> tuple[float, float]:
    """The coupler's and the rocker's angles in closed form (wrapped)."""
    pin = four_bar_pin(t)
    return (math.atan2(pin[1] - CRANK * math.sin(t), pin[0] - CRANK * math.cos(t)),
            math.atan2(pin[1], pin[0] - GROUND))


def wrapped(angle: float) -> float:
    return math.remainder(angle, TWO_PI)


@pytest.fixture(scope="module")
def feeder() -> LinkageMotion:
    mechanism = load(fixture_path("feeder"))
    return LinkageMotion(mechanism, mechanism.linkages[0])


@pytest.fixture(scope="module")
def four_bar() -> LinkageMotion:
    mechanism = loads(FOUR_BAR)
    return LinkageMotion(mechanism, mechanism.linkages[0])


def reduced_mass(motion: LinkageMotion, t: float) -> tuple[float, float]:
    """M = sum m |dc/dt|² + I (dphi/dt)² over the three bars, and dM/dt from the second derivatives."""
    mass = slope = 0.0
    for part, (centre, length) in BARS.items():
        _, dc, ddc = motion.point_jet(part, centre, t)
        _, dphi, ddphi = motion.angle_jet(part, t)
        inertia = length ** 2 / 12
        mass += float(dc @ dc) + inertia * dphi ** 2
        slope += 2 * float(dc @ ddc) + 2 * inertia * dphi * ddphi
    return mass, slope


# -- the feeder's crank-slider -------------------------------------------------------------------------

def test_the_feeder_fixture_is_the_crank_slider_of_the_closed_form():
    linkage = load(fixture_path("feeder")).linkages[0]
    crank, piston = linkage.joints
    assert crank.points == ((RADIUS, 0), (0, 0)) and piston.points == ((LINK, 0), (PIN_AHEAD, 0))


def test_piston_and_its_derivatives_match_the_closed_form_over_more_than_a_turn(feeder):
    for t in np.linspace(-4.0, 9.0, 50):
        assert feeder.jet(t).output == pytest.approx(crank_slider(float(t)), rel=0, abs=1e-9)


def test_piston_part_moves_with_the_output(feeder):
    jet = feeder.jet(2.0)
    assert jet.poses["piston"].value == (0.0, jet.output[0], 0.0)
    assert jet.poses["piston"].first == (0.0, jet.output[1], 0.0)
    assert jet.poses["piston"].second == (0.0, jet.output[2], 0.0)


def test_the_tables_joint_system_closes_the_jets_joints(feeder):
    system = JointSystem(feeder.mechanism, feeder.linkage)
    origin = feeder.mechanism.origin
    for t in np.linspace(-7.0, 7.0, 15):
        jet = feeder.jet(t)
        angle, tx, ty = jet.poses["link"].value
        u = np.array([tx - origin[0], ty - origin[1], angle, jet.output[0]])
        assert np.max(np.abs(system.residual(u, float(t)))) <= 1e-13


def test_answers_depend_on_the_input_alone():
    """Anchors are continued from the start outward, so the order of the questions changes nothing."""
    mechanism = load(fixture_path("feeder"))
    inputs = [0.3, -5.0, 12.0, 2.9, -0.01]
    forward, backward = (LinkageMotion(mechanism, mechanism.linkages[0]) for _ in range(2))
    answers = {t: forward.jet(t) for t in inputs}
    assert all(backward.jet(t) == answers[t] for t in reversed(inputs))


def test_only_the_linkages_parts_have_jets(feeder):
    assert feeder.parts == ("driver", "link", "piston")
    with pytest.raises(KeyError, match="block1"):
        feeder.point_jet("block1", (0, 0), 0.0)


# -- the four-bar ----------------------------------------------------------------------------------------

def test_four_bar_closes_its_loop_and_its_derivatives(four_bar):
    for t in np.linspace(-3.0, 9.0, 37):
        for (a, near), (b, far) in ((("crank", (CRANK, 0)), ("coupler", (0, 0))),
                                    (("coupler", (COUPLER, 0)), ("rocker", (GROUND + ROCKER, 0)))):
            for one, other in zip(four_bar.point_jet(a, near, t), four_bar.point_jet(b, far, t)):
                assert np.max(np.abs(one - other)) <= 1e-12


def test_four_bar_positions_match_the_circle_intersection(four_bar):
    for t in np.linspace(-3.0, 9.0, 37):
        coupler, rocker = four_bar_angles(float(t))
        assert abs(wrapped(four_bar.angle_jet("coupler", t)[0] - coupler)) <= 1e-10
        assert abs(wrapped(four_bar.jet(t).output[0] - rocker)) <= 1e-10
        assert four_bar.angle_jet("crank", t)[0] == t


def test_four_bar_derivatives_match_differences_of_the_closed_form(four_bar):
    first, second = 1e-4, 1e-3
    for t in np.linspace(-3.0, 9.0, 37):
        t = float(t)
        for k, part in enumerate(("coupler", "rocker")):
            def angle(s: float, k: int = k) -> float:
                return four_bar_angles(s)[k]
            slope = wrapped(angle(t + first) - angle(t - first)) / (2 * first)
            bend = (wrapped(angle(t + second) - angle(t)) - wrapped(angle(t) - angle(t - second))) / second ** 2
            _, d_angle, dd_angle = four_bar.angle_jet(part, t)
            assert abs(d_angle - slope) <= 1e-7
            assert abs(dd_angle - bend) <= 1e-5


def test_four_bar_stays_on_its_upper_branch_for_two_turns(four_bar):
    for t in np.linspace(0.0, 2 * TWO_PI, 401):
        pin = four_bar.point_jet("rocker", (GROUND + ROCKER, 0), t)[0]
        (ax, ay), (bx, by) = (math.cos(t), math.sin(t)), pin
        assert by > 0
        assert (GROUND - ax) * (by - ay) - (0 - ay) * (bx - ax) > 0  # left of crank pin -> D: the upper assembly
        assert np.max(np.abs(pin - four_bar_pin(float(t)))) <= 1e-10
    assert four_bar.jet(2 * TWO_PI).output == pytest.approx(four_bar.jet(0.0).output, abs=1e-12)


# -- a slider on a turning part --------------------------------------------------------------------------

def test_slotted_arm_and_its_derivatives_match_the_closed_form():
    mechanism = loads(SLOTTED)
    motion = LinkageMotion(mechanism, mechanism.linkages[0])
    for t in np.linspace(-1.0, 2.5, 36):
        t = float(t)
        assert motion.jet(t).output == pytest.approx(slotted_arm(t), rel=0, abs=1e-10)
        assert motion.angle_jet("block", t) == pytest.approx(slotted_arm(t), rel=0, abs=1e-10)
        for one, other in zip(motion.point_jet("block", (0, 0), t), motion.point_jet("crank", (1, 0), t)):
            assert np.max(np.abs(one - other)) <= 1e-12


# -- the four-bar's reduced mass -------------------------------------------------------------------------

def test_reduced_mass_slope_from_the_jets_matches_its_central_difference(four_bar):
    h = 1e-5  # the difference's error is 3e-10 here (2.8e-8 at 1e-4: its h² term, M''' h² / 6)
    for t in np.linspace(-math.pi, math.pi, 100):
        t = float(t)
        _, slope = reduced_mass(four_bar, t)
        difference = (reduced_mass(four_bar, t + h)[0] - reduced_mass(four_bar, t - h)[0]) / (2 * h)
        assert abs(slope - difference) <= 1e-7


def test_reduced_mass_is_smooth_across_the_tables_nodes(four_bar):
    """Where the table's linear interpolation turns a corner (its chord slopes jump), the exact
    reduced mass runs straight through: its change over a node is its slope times the step."""
    table = solve_linkage(four_bar.mechanism, four_bar.linkage)
    chords = np.diff(table.outputs) / table.step
    assert np.median(np.abs(np.diff(chords))) > 1e-3  # the table's rocker slope does jump at its nodes
    delta = 1e-7
    for node in table.inputs[::3]:
        node = float(node)
        below, above = reduced_mass(four_bar, node - delta)[0], reduced_mass(four_bar, node + delta)[0]
        assert abs(above - below - 2 * delta * reduced_mass(four_bar, node)[1]) <= 1e-10
