"""The file format of full dynamics (issue 25): masses, [dynamics], initial velocities, and the
one-line refusals of what is wrong with them."""

from __future__ import annotations

import math

import pytest

from cspace import Mass, ModelError, loads
from cspace.model.dynamics import mass_of
from cspace.model.geometry import Profile

BLOCK = """
[mechanism]
dynamics = "full"
time = 1
{dynamics}
[[parts]]
name = "floor"
motion = "fixed"
[[parts.slices]]
z = [0, 1]
profiles = [{{ rect = [-3, -1, 3, 0] }}]
[[parts]]
name = "block"
motion = "fixed-axes"
{mass}
coordinates = [{{ name = "y", axis = [0, 1], velocity = 2 }}, {{ name = "th", pivot = [0, 1.5] }}]
[[parts.slices]]
z = [0, 1]
profiles = [{{ rect = [-0.5, 1, 0.5, 2] }}]
"""


def block(dynamics: str = "[dynamics]\ngravity = [0, -9.81]", mass: str = "mass = 2\ninertia = 0.5") -> str:
    return BLOCK.format(dynamics=dynamics, mass=mass)


def test_a_full_mechanism_reads_its_masses_velocities_and_dynamics():
    mechanism = loads(block("[dynamics]\ngravity = [0, -9.81]\nrestitution = 0.25\nfriction = 0.1\n"
                            "springs = [{ coordinate = \"th\", stiffness = 3, rest = 0.5 }]\n"
                            "dampers = [{ coordinate = \"y\", coefficient = 0.6 }]\n"
                            "loads = [{ coordinate = \"th\", value = 1 }]\n"
                            "contacts = [{ parts = [\"block\", \"floor\"], restitution = 0 }]"))
    dynamics = mechanism.dynamics
    assert dynamics.gravity == (0.0, -9.81) and dynamics.law("floor", "block") == (0.0, 0.1)
    assert mechanism.part("block").mass == Mass(2.0, 0.5, (0.0, 1.5))  # the centre: the profile's centroid
    assert mechanism.coordinate("y").velocity == 2.0
    assert [s.stiffness for s in dynamics.springs] == [3.0] and dynamics.loads[0].value == 1.0


def test_a_density_weighs_the_profiles():
    mechanism = loads(block(mass="density = 3"))
    mass = mechanism.part("block").mass
    assert mass.mass == pytest.approx(3.0) and mass.centre == pytest.approx((0.0, 1.5))
    assert mass.inertia == pytest.approx(3.0 * (1 + 1) / 12)  # m (a^2 + b^2) / 12 of a unit square


def test_an_inertia_about_the_pivot_is_taken_about_the_centre():
    mechanism = loads(block(mass="mass = 2\ninertia = 1.5\ncentre = [0, 2]\ninertia-about = \"pivot\""))
    assert mechanism.part("block").mass.inertia == pytest.approx(1.5 - 2 * 0.5 ** 2)


def test_the_moments_of_an_arc_bounded_shape_are_exact():
    """A disk with a square hole: area, centroid and polar moment against their closed forms."""
    disk, hole = Profile.circle((1.0, 2.0), 2.0), Profile.rectangle(0.5, 1.5, 1.5, 2.5).reversed()
    mass = mass_of([(1.0, [disk, hole])], 1.0)
    area = math.pi * 4 - 1
    assert mass.mass == pytest.approx(area, rel=1e-13)
    assert mass.centre == pytest.approx((1.0, 2.0), abs=1e-13)
    assert mass.inertia == pytest.approx(math.pi * 2 ** 4 / 2 - (1 + 1) / 12, rel=1e-13)


@pytest.mark.parametrize("text, message", [
    (block().replace('dynamics = "full"', 'dynamics = "fast"'),
     "mechanism: dynamics: dynamics is \"simple\" (the paper's) or \"full\" (masses), got 'fast'"),
    (block().replace('dynamics = "full"\n', ""),
     "dynamics: [dynamics] is for full dynamics: set dynamics = \"full\" in [mechanism]"),
    (block(dynamics="").replace('dynamics = "full"\n', ""),
     "part 'block': mass: mass is for full dynamics: set dynamics = \"full\" in [mechanism]"),
    (block(mass=""), "part 'block': mass: a moving part needs a mass (or a density) in full dynamics"),
    (block(mass="mass = 2"), "part 'block': inertia: must be positive: the part turns, got 0"),
    (block(mass="mass = -2\ninertia = 1"), "part 'block': mass: must be positive, got -2"),
    (block(mass="density = 1\nmass = 1"), "part 'block': density: give a density or a mass (with inertia and centre), "
                                          "not both"),
    (block(mass="mass = 1\ninertia = 0.1\ncentre = [0, 2]\ninertia-about = \"pivot\""),
     "part 'block': inertia: smaller than the mass times the squared distance from the pivot to the centre: "
     "no body has that inertia about its pivot"),
    (block("[dynamics]\nrestitution = 1.5"), "dynamics: restitution: must be in [0, 1], got 1.5"),
    (block("[dynamics]\nfriction = -0.1"), "dynamics: friction: must be at least 0, got -0.1"),
    (block("[dynamics]\nsprings = [{ coordinate = \"yy\", stiffness = 1 }]"),
     "dynamics.springs[0]: coordinate: unknown coordinate 'yy' (did you mean 'y'?)"),
    (block("[dynamics]\ndampers = [{ coordinate = \"y\", coefficient = -1 }]"),
     "dynamics.dampers[0]: coefficient: must not be negative, got -1"),
    (block("[dynamics]\ncontacts = [{ parts = [\"block\", \"floor\"], faces = [\"bottom\", \"tpo\"] }]"),
     "dynamics.contacts[0]: faces[1]: unknown face of part 'floor' 'tpo' (did you mean 'top'?)"),
    (block("[dynamics]\ngravity = 9.81"), "dynamics: gravity: expected a point [x, y], got number 9.81"),
    (block() + "[[forces]]\nkind = \"gravity\"\ncoordinate = \"y\"\ndirection = -1\n",
     "forces[0]: kind: simple-dynamics forces do not act in full dynamics: use [dynamics] gravity, springs and loads"),
])
def test_a_wrong_dynamics_field_is_named(text, message):
    with pytest.raises(ModelError) as caught:
        loads(text)
    assert str(caught.value) == f"<string>: {message}"
