"""Full dynamics against the project's independent checks: generated mechanisms
(tests.support.dynamic_draws: bouncing blocks, pendulums, a cam with inertia) simulated and
replayed through the real shapes (cspace.testing.replay: overlaps, limits, the energy ledger)
and their closed forms; and the replay shown to fail on broken paths.

tools/fuzz_report.py --families dynamic runs the same generators over hundreds of seeds; the
seeds here pass, each variant at least once, plastic and bouncy.
"""

from __future__ import annotations

import math
from dataclasses import replace
from types import SimpleNamespace

import numpy as np
import pytest
from scipy.integrate import solve_ivp

from cspace import analyze, load, loads, simulate
from cspace.kinetics.bodies import Energies
from cspace.model.kinds import Mode
from cspace.testing import ENERGY, LIMIT, OVERLAP, energy_bound, replay

from .common import fixture_path, slow, tool
from .support.draws import SeededDraw
from .support.dynamic_draws import (
    DYNAMIC,
    bouncing_errors,
    cam_errors,
    check,
    pendulum_errors,
    swing_time,
)
from .support.fuzz import generate

SEEDS = {"bouncing": (0, 2, 3, 5, 7, 18, 22), "pendulum": (0, 1, 3, 5, 10, 18)}


def case_of(family: str, seed: int):
    """The case tools/fuzz_report.py --families FAMILY draws for the seed."""
    return generate(SeededDraw(seed), (family,)).expected


@pytest.mark.parametrize("family, seed", [(f, s) if k < 2 else pytest.param(f, s, marks=slow)
                                          for f, seeds in SEEDS.items() for k, s in enumerate(seeds)])
def test_a_generated_mechanism_replays_clean_and_meets_its_closed_form(family, seed):
    case = case_of(family, seed)
    assert check(case) == {}, case.text


def test_the_seeds_cover_every_variant_plastic_and_bouncy():
    cases = [case_of(f, s) for f, seeds in SEEDS.items() for s in seeds]
    assert {c.family for c in cases} == {"bouncing:free", "bouncing:walls", "bouncing:stack", "pendulum:stop",
                                         "pendulum:block"}
    assert {c.facts["e"] == 0 for c in cases} == {True, False}
    assert any(c.facts.get("sideways") for c in cases) and not all(c.facts.get("sideways", True) for c in cases)


def test_a_cam_with_inertia_meets_its_closed_form():
    assert check(case_of("cam-inertia", 1)) == {}


# Seeds that found a class of bug in the engine, each fixed: a rebound below the exact grid step
# never watched again, so the block fell through (15, 16, 98); the motion along a contact frozen while
# its impacts accumulate (319); a resting stack creeping at what the last impacts left (14); Newton's
# impulses on two contacts at once gaining energy (359, 470, 552); a follower riding a turning cam
# (cam-inertia, every seed, 5 here).
FOUND = [("bouncing", 15), ("bouncing", 16), ("bouncing", 98), ("bouncing", 319), ("bouncing", 14),
         ("bouncing", 359), ("bouncing", 470), ("bouncing", 552), ("cam-inertia", 2), ("cam-inertia", 3),
         ("cam-inertia", 5), ("cam-inertia", 7), ("cam-inertia", 11)]


@pytest.mark.parametrize("family, seed", [pytest.param(f, seed, marks=slow) if f == "cam-inertia" else (f, seed)
                                          for f, seed in FOUND])  # a cam with inertia takes a second
def test_a_seed_that_found_a_bug_replays_clean_and_meets_its_closed_form(family, seed):
    case = case_of(family, seed)
    assert check(case) == {}, case.text


def test_the_fuzz_report_runs_the_dynamic_families():
    report = tool("fuzz_report")
    seed, family, failures, _, _, text = report.run_case((3, 60.0, ("pendulum",), False))
    assert (seed, family, failures) == (3, "pendulum:stop", set()) and 'dynamics = "full"' in text
    assert set(DYNAMIC) <= set(report.DYNAMIC)
    assert "limit" in report.table([(0, "bouncing:free", {"limit"}, 0.1, "", "")]).splitlines()[0]


# -- the closed forms are right: checked against the equations of motion, not the engine ------------

def test_the_pendulums_closed_form_is_the_equation_of_motion():
    """swing_time (elliptic integrals) against the pendulum's equation I a'' = -m g d sin a, integrated
    from rest at the amplitude to the angle met."""
    f = {"inertia": 0.9, "mass": 1.3, "g": 9.0, "arm": 0.7}
    for amplitude, met in ((2.5, -1.9), (0.4, 0.1), (1.7, -0.2)):
        hit = lambda _t, y, met=met: y[0] - met  # noqa: E731
        hit.terminal, hit.direction = True, -1
        rate = f["mass"] * f["g"] * f["arm"] / f["inertia"]
        solved = solve_ivp(lambda _t, y: [y[1], -rate * math.sin(y[0])], (0, 10), [amplitude, 0.0],
                           events=hit, rtol=1e-12, atol=1e-12)
        assert swing_time(f, met, amplitude) == pytest.approx(solved.t_events[0][0], abs=1e-9)


def _cam_path(case, lifts: bool = True, hover: float = 0.0):
    """The cam case's closed form as a result cam_errors reads (the mechanism and the samples): the
    follower lands at once (plastic), rides the profile, and flies from the contact force's zero;
    or never lifts off (not ``lifts``), or hovers ``hover`` eccentricities above the profile from
    a third of the way to the lift-off."""
    f = case.facts
    mechanism = loads(case.text)
    w, e, g = f["rate"], f["ecc"], f["g"]
    times = np.linspace(0.0, f["time"], 4000)
    theta = f["start"] + w * times
    profile = e * np.sin(theta)
    lift = math.asin(g / (e * w * w)) if e * w * w > g and lifts else math.inf
    leave = (lift - f["start"]) / w
    y = profile.copy()
    flying = times > leave
    if flying.any():
        tau = times[flying] - leave
        y[flying] = np.maximum(e * math.sin(lift) + e * w * math.cos(lift) * tau - 0.5 * g * tau ** 2,
                               profile[flying])
    y[times > min(leave, f["time"]) / 3] += hover * e
    configs = np.stack([theta, y + f["radius"] - f["bottom"]], axis=1)
    impact = SimpleNamespace(mode=Mode.IMPACT, ended="impact", start=0.0)
    return SimpleNamespace(mechanism=mechanism, times=times, configs=configs, stretches=(impact,))


@pytest.mark.parametrize("seed", range(6))
def test_the_cams_closed_form_passes_its_own_path_and_fails_others(seed):
    case = case_of("cam-inertia", seed)
    assert cam_errors(case, _cam_path(case)) == []
    assert any("above the cam's profile" in e for e in cam_errors(case, _cam_path(case, hover=0.05)))
    if case.family == "cam-inertia:fly":
        assert any("clear of the cam" in e for e in cam_errors(case, _cam_path(case, lifts=False)))


def test_the_free_fall_closed_form_fails_a_late_impact():
    case = case_of("bouncing", 7)  # free, plastic
    result = simulate(analyze(loads(case.text)))
    assert bouncing_errors(case, result) == []
    impacts = [k for k, s in enumerate(result.stretches) if s.mode == Mode.IMPACT]
    late = replace(result, stretches=tuple(replace(s, start=s.start + 1e-8, end=s.end + 1e-8)
                                           if k == impacts[0] else s for k, s in enumerate(result.stretches)))
    assert any("first impact at" in e for e in bouncing_errors(case, late))


def test_the_pendulums_closed_form_fails_a_rate_not_reversed_by_e():
    case = case_of("pendulum", 1)  # a stop, e = 0.451
    result = simulate(analyze(loads(case.text)))
    first = next(k for k, s in enumerate(result.stretches) if s.mode == Mode.IMPACT)
    plastic = replace(result, stretches=tuple(replace(s, v1=(0.0,)) if k == first else s
                                              for k, s in enumerate(result.stretches)))
    assert any("leaves it at" in e for e in pendulum_errors(case, plastic))


# -- the replay catches broken paths (copies made with dataclasses.replace: results are frozen) ------

@pytest.fixture(scope="module")
def bouncing():
    return simulate(analyze(load(fixture_path("bouncing-block"))))


def test_the_fixtures_replay_clean(bouncing):
    assert replay(bouncing) == []
    assert replay(simulate(analyze(load(fixture_path("kramer-four-bar"))), until=0.5)) == []


def test_the_replay_catches_a_block_shifted_into_the_floor(bouncing):
    sunk = bouncing.configs - 0.25  # y: a quarter into the floor once the block lies on it
    violations = replay(replace(bouncing, configs=sunk))
    assert OVERLAP in {v.kind for v in violations}
    assert any("overlap of floor and block" in str(v) or "overlap of block and floor" in str(v)
               for v in violations if v.kind == OVERLAP)
    assert "stretch" in str(next(v for v in violations if v.kind == OVERLAP))


def test_the_replay_catches_doctored_energies(bouncing):
    violations = replay(replace(bouncing, energies=bouncing.energies + [1e-6, 0.0]))
    assert {v.kind for v in violations} == {ENERGY}
    assert any("not what its masses hold" in str(v) for v in violations)
    assert 1e-6 > energy_bound(bouncing)  # what is caught is more than the ledger may miss


def test_the_replay_catches_a_stretch_whose_ledger_drifts(bouncing):
    stretches = list(bouncing.stretches)
    k = next(i for i, s in enumerate(stretches) if s.mode == Mode.FLIGHT)
    stretches[k] = replace(stretches[k], work=1e-3)
    messages = [str(v) for v in replay(replace(bouncing, stretches=tuple(stretches)))]
    assert any("ledger drifts" in m for m in messages)


def test_the_replay_catches_an_impact_that_gains_energy(bouncing):
    stretches = list(bouncing.stretches)
    k = next(i for i, s in enumerate(stretches) if s.mode == Mode.IMPACT)
    s = stretches[k]
    gained = Energies(s.energies0.kinetic * 1.1, s.energies1.potential)
    stretches[k] = replace(s, energies1=gained, losses=s.energies0.kinetic - gained.kinetic)
    messages = [str(v) for v in replay(replace(bouncing, stretches=tuple(stretches)))]
    assert any("the impact gains energy" in m for m in messages)


def test_the_replay_catches_energy_that_changes_inside_a_flight(bouncing):
    """The samples' energies and the masses agree (both moved), the ledger balances (no stretch
    touched), yet a flight's sampled energy is not its start's: kinetic energy taken from the
    samples by slowing them."""
    inside = (bouncing.times > 0.1) & (bouncing.times < 0.3)
    rates = bouncing.rates.copy()
    rates[inside] *= 0.99
    energies = bouncing.energies.copy()
    energies[inside, 0] = 0.5 * rates[inside, 0] ** 2  # the block's mass is 1
    messages = [str(v) for v in replay(replace(bouncing, rates=rates, energies=energies))]
    assert any("the energy changes inside a flight stretch" in m for m in messages)
    assert not any("not what its masses hold" in m for m in messages)


def test_the_replay_catches_a_coordinate_past_its_limit():
    case = case_of("pendulum", 3)  # a stop, plastic: the bar rests on it
    result = simulate(analyze(loads(case.text)))
    low, high = result.mechanism.coordinate("th").limits
    past = result.configs.copy()
    past[-1, 0] = (low - 1e-4) if case.facts["side"] > 0 else (high + 1e-4)
    violations = [v for v in replay(replace(result, configs=past)) if v.kind == LIMIT]
    assert len(violations) == 1 and violations[0].amount == pytest.approx(1e-4, rel=1e-6)
    assert "th of bar" in str(violations[0]) and "limit" in str(violations[0])


FOUR_BAR_ON_THE_GROUND = fixture_path("kramer-four-bar").read_text().replace(
    'name = "ground"\nmotion = "fixed"\n[[parts.slices]]\nz = [-1, 0]',
    'name = "ground"\nmotion = "fixed"\n[[parts.slices]]\nz = [1, 2]')


def test_the_replay_poses_linkage_members_by_the_linkage():
    """The four-bar with its ground moved into the coupler's layer, just below where the crank
    tip passes (at th = -pi/2 the coupler's end would reach y = -1.05): clean over its first
    0.2 s, and an overlap of the coupler and the ground when the samples are moved there."""
    assert FOUR_BAR_ON_THE_GROUND != fixture_path("kramer-four-bar").read_text()
    result = simulate(analyze(loads(FOUR_BAR_ON_THE_GROUND)), until=0.2)
    assert replay(result) == []
    from cspace.kinetics.linkage_motion import LinkageMotion

    motion = LinkageMotion(result.mechanism, result.mechanism.linkages[0])
    moved = result.configs.copy()
    moved[:, 0] = -math.pi / 2
    moved[:, 1] = motion.jet(-math.pi / 2).output[0]
    overlaps = [v for v in replay(replace(result, configs=moved)) if v.kind == OVERLAP]
    assert overlaps and {tuple(sorted(v.parts)) for v in overlaps} == {("coupler", "ground")}
    assert 0.02 < max(v.amount for v in overlaps) < 0.1  # the coupler's end, 0.05 round its pin, pokes in
