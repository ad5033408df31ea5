"""Full dynamics (cspace.kinetics) against closed forms: the bouncing block (issue 25, fixture 3).

The oracle is free fall and Newton's restitution on paper: impacts at t1 = sqrt(2 h0 / g) and
after flights 2 e^i v1 / g, accumulating at t1 (1 + e) / (1 - e); the kinetic energy after impact
n is e^(2n) m g h0. The floor is checked with shapely: the parts may touch, never overlap.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from shapely.affinity import translate

from cspace import analyze, load, loads, simulate, trace
from cspace.kinetics.contact import complementarity
from cspace.kinetics.simulate import first_crossing
from cspace.model.errors import TraceError
from cspace.model.geometry import region_of
from cspace.model.kinds import Mode

from .common import DYNAMIC_FIXTURES, each, fixture_path, simulated, slow

G, E, H0 = 9.81, 0.5, 1.0
T1 = math.sqrt(2 * H0 / G)
T_INFINITY = T1 * (1 + E) / (1 - E)


def impact_time(n: int) -> float:
    """The n-th impact (from 1) of the block dropped from H0."""
    v1 = G * T1
    return T1 + sum(2 * E ** i * v1 / G for i in range(1, n))


@pytest.fixture(scope="module")
def bouncing():
    return simulated("bouncing-block")


def test_the_closed_form_is_the_papers():
    assert T1 == pytest.approx(0.451523640986, abs=1e-12)
    assert T_INFINITY == pytest.approx(1.354570922957, abs=1e-12)


def test_the_first_ten_impacts_are_on_time(bouncing):
    impacts = [s.start for s in bouncing.impacts if s.ended == "impact"]
    assert len(impacts) >= 10
    assert max(abs(t - impact_time(n + 1)) for n, t in enumerate(impacts[:10])) <= 1e-9


def test_each_impact_keeps_e_squared_of_the_energy(bouncing):
    impacts = [s for s in bouncing.impacts if s.ended == "impact"][:10]
    for n, impact in enumerate(impacts, start=1):
        assert impact.energies1.kinetic == pytest.approx(E ** (2 * n) * G * H0, abs=1e-9)


def test_the_contact_rests_at_the_accumulation_point(bouncing):
    resting = [s for s in bouncing.stretches if s.mode == Mode.CONTACT]
    assert len(resting) == 1
    assert resting[0].start == pytest.approx(T_INFINITY, abs=1e-6)
    assert resting[0].end == 2.0 and resting[0].v1 == (0.0,)
    assert len([s for s in bouncing.impacts if s.ended == "impact"]) <= 60
    accumulation = [s for s in bouncing.stretches if s.ended == "impacts accumulate"]
    assert len(accumulation) == 1 and accumulation[0].end == resting[0].start


def test_no_sample_sinks_into_the_floor(bouncing):
    mechanism = bouncing.mechanism
    floor = region_of(mechanism.part("floor").slices[0].profiles)
    block = region_of(mechanism.part("block").slices[0].profiles)
    for y in bouncing.configs[:, 0]:
        assert translate(block, 0, y).intersection(floor).area <= mechanism.tolerance.length
        assert y >= -1 - mechanism.tolerance.length


def test_energy_is_conserved_in_flight_and_lost_only_to_impacts(bouncing):
    total = bouncing.energies.sum(axis=1)
    for stretch in bouncing.stretches:
        assert abs(stretch.drift) <= 1e-9 * G * (H0 + 0.5)
        if stretch.mode == Mode.FLIGHT:
            inside = (bouncing.times > stretch.start) & (bouncing.times < stretch.end)
            assert np.abs(total[inside] - stretch.energies0.total).max(initial=0.0) <= 1e-9 * total[0]


def test_a_simple_trace_of_a_full_mechanism_is_refused():
    with pytest.raises(TraceError, match="full dynamics: integrate it with cspace.simulate"):
        trace(analyze(load(fixture_path("bouncing-block"))))


def test_the_same_input_gives_the_same_path():
    a = simulate(analyze(load(fixture_path("bouncing-block"))), until=1.0)
    b = simulate(analyze(load(fixture_path("bouncing-block"))), until=1.0)
    assert a.times.tobytes() == b.times.tobytes() and a.configs.tobytes() == b.configs.tobytes()


PENDULUM = """
[mechanism]
dynamics = "full"
time = 3.0
[dynamics]
gravity = [0, -9.81]
[[parts]]
name = "frame"
motion = "fixed"
[[parts.slices]]
z = [0, 1]
profiles = [{ rect = [-3, -3, 3, -2.9] }]
[[parts]]
name = "bob"
motion = "fixed-axes"
mass = 2
inertia = 0.01
centre = [1.5, 0]
coordinates = [{ name = "th", pivot = [0, 0], initial = %s }]
[[parts.slices]]
z = [2, 3]
profiles = [{ rect = [-0.1, -0.1, 1.6, 0.1] }]
"""


def test_a_pendulum_swings_with_its_closed_form_period():
    """A physical pendulum (no contact: the frame sits in another layer) from a small angle: its
    period is 2 pi sqrt(I_pivot / (m g d)); it comes back to its start after one period."""
    start = 1e-3
    mechanism = loads(PENDULUM % (-math.pi / 2 + start))
    i_pivot = 0.01 + 2 * 1.5 ** 2
    period = 2 * math.pi * math.sqrt(i_pivot / (2 * 9.81 * 1.5))
    result = simulate(analyze(mechanism), until=period)
    assert result.configs[-1, 0] == pytest.approx(-math.pi / 2 + start, abs=1e-9)
    assert np.ptp(result.energies.sum(axis=1)) <= 1e-10 * 2 * 9.81 * 1.5


def test_the_complementarity_solution_is_complementary():
    rng = np.random.default_rng(3)
    for _ in range(50):
        root = rng.normal(size=(4, 4))
        A, b = root @ root.T, rng.normal(size=4)
        x = complementarity(A, b, 1e-12)
        w = A @ x + b
        assert (x >= 0).all() and (w >= -1e-9).all() and abs(x @ w) <= 1e-9


def test_a_crossing_and_a_crossing_back_inside_one_step_is_found():
    """What scipy's event location misses (scipy #9228): a dip below zero between two points
    where the function is positive."""
    dip = lambda t: np.column_stack([(t - 0.5) ** 2 - 1e-6])  # noqa: E731
    assert first_crossing(dip, 0.0, 1.0, 1e-12) == pytest.approx(0.5 - 1e-3, abs=1e-12)


# -- Kramer's four-bar (issue 25, fixture 1) ---------------------------------------------------------
# The references, from three independent methods (the issue): the crank's angle and rate at 5 s
# and the energy; the link lengths and pivots are the fixture's.
THETA_5, RATE_5, ENERGY = 27.112220137374, 3.592065385782, 45.885700504270


@pytest.fixture(scope="module")
def four_bar():
    return simulated("kramer-four-bar")


def test_the_four_bar_meets_the_references(four_bar):
    assert four_bar.times[-1] == 5.0
    assert four_bar.configs[-1, 0] == pytest.approx(THETA_5, abs=1e-8)
    assert four_bar.rates[-1, 0] == pytest.approx(RATE_5, abs=1e-8)


def test_the_four_bar_keeps_its_energy(four_bar):
    total = four_bar.energies.sum(axis=1)
    assert total[0] == pytest.approx(ENERGY, abs=1e-9)
    assert np.abs(total - total[0]).max() <= 1e-9 * total[0]


def test_the_four_bar_loop_closes_at_every_sample(four_bar):
    """The crank's tip and the rocker's tip stay a coupler's length apart (closed-form positions
    from the two angles alone)."""
    theta, phi = four_bar.configs[:, 0], four_bar.configs[:, 1]
    crank_tip = np.stack([np.cos(theta), np.sin(theta)], axis=1)
    rocker_tip = np.stack([4 + 3 * np.cos(phi), 3 * np.sin(phi)], axis=1)
    gap = np.abs(np.linalg.norm(rocker_tip - crank_tip, axis=1) - 3.5)
    assert gap.max() <= four_bar.mechanism.tolerance.length
    assert (rocker_tip[:, 1] > 0).all()  # the upper assembly throughout


@slow
def test_kramers_printed_equation_misses_the_reference():
    """Kramer's M theta'' + M' theta'^2 + V' = 0 drops the half: it ends at 23.922027, not 27.112,
    so a fixture traced with it could not pass (M and V from the same bodies, M' and V' by differences)."""
    from scipy.integrate import solve_ivp

    from cspace.kinetics.bodies import Bodies

    bodies = Bodies(load(fixture_path("kramer-four-bar")))

    def mass(theta: float) -> float:
        return float(bodies.mass_matrix(np.array([theta]))[0, 0])

    def potential(theta: float) -> float:
        return bodies.energies(np.array([theta]), np.zeros(1)).potential

    def wrong(_t, y):
        h = 1e-5
        dm = (mass(y[0] + h) - mass(y[0] - h)) / (2 * h)
        dv = (potential(y[0] + h) - potential(y[0] - h)) / (2 * h)
        return [y[1], -(dm * y[1] ** 2 + dv) / mass(y[0])]

    end = solve_ivp(wrong, (0, 5), [0.0, 5.0], rtol=1e-10, atol=1e-10).y[0, -1]
    assert end == pytest.approx(23.922027, abs=1e-4)


# -- the command line ---------------------------------------------------------------------------------

def test_cspace_trace_prints_the_stretches_and_writes_the_path(tmp_path, capsys):
    from cspace.cli import main
    from cspace.report.motion import describe_motion, motion_json

    path = fixture_path("bouncing-block")
    assert main(["trace", str(path), "--describe", "--path", str(tmp_path / "path.csv")]) == 0
    expected = simulate(analyze(load(path)))
    assert capsys.readouterr().out == describe_motion(expected)
    rows = (tmp_path / "path.csv").read_text().splitlines()
    assert rows[0] == "time,y,dy,kinetic,potential" and len(rows) == len(expected.times) + 1
    assert main(["trace", str(path), "--json"]) == 0
    assert capsys.readouterr().out == motion_json(expected)


@pytest.mark.parametrize("command", [["stats"], ["trace", "--stats"]])
def test_a_command_that_shows_only_simple_dynamics_refuses_a_full_mechanism(command, tmp_path, capsys):
    from cspace.cli import main

    argv = [command[0], str(fixture_path("bouncing-block")), *[str(tmp_path / a) if a.endswith(".gif") else a
                                                                for a in command[1:]]]
    assert main(argv) == 2
    error = capsys.readouterr().err
    assert error.startswith("cspace: error: ") and error.count("\n") == 1 and "simple dynamics" in error


# -- a freely turning part across the seam of its turn -------------------------------------------------

ARM = """
[mechanism]
dynamics = "full"
time = 8.0
[[parts]]
name = "stop"
motion = "fixed"
[[parts.slices]]
z = [0, 1]
profiles = [{{ rect = [{x0}, {y0}, {x1}, {y1}] }}]
[[parts]]
name = "arm"
motion = "fixed-axes"
mass = 1
inertia = 0.4
centre = [1, 0]
coordinates = [{{ name = "th", pivot = [0, 0], initial = {start}, velocity = {rate} }}]
[[parts.slices]]
z = [0, 1]
profiles = [{{ rect = [-0.1, -0.05, 2, 0.05] }}]
"""


@pytest.mark.parametrize("degrees, rate, start", [(200, 1.0, 0.0), (160, -1.0, 0.0), (200, 1.0, 7.0)],
                         ids=["across +pi", "across -pi", "a turn on"])
def test_a_turning_arm_meets_a_stop_beyond_the_seam_of_its_turn(degrees, rate, start):
    """The pair spaces of a freely turning part cover one turn; the arm must find the stop that
    lies across +-pi (it passed through it while the seam was no event). The oracle turns the real
    arm with shapely until it first meets the stop."""
    from scipy.optimize import brentq
    from shapely.affinity import rotate
    from shapely.geometry import box

    a = math.radians(degrees)
    cx, cy = 1.5 * math.cos(a), 1.5 * math.sin(a)
    stop = box(cx - 0.2, cy - 0.2, cx + 0.2, cy + 0.2)
    arm = box(-0.1, -0.05, 2, 0.05)
    mechanism = loads(ARM.format(x0=cx - 0.2, y0=cy - 0.2, x1=cx + 0.2, y1=cy + 0.2, start=start, rate=rate))
    result = simulate(analyze(mechanism))
    impacts = result.impacts
    assert len(impacts) == 1

    def apart(theta: float) -> float:
        return rotate(arm, theta, origin=(0, 0), use_radians=True).distance(stop) - 1e-12

    turned = start + rate * 0.1
    while apart(turned) > 0:
        turned += rate * 0.1
    meets = brentq(apart, turned - rate * 0.1, turned, xtol=1e-13)
    # A turning pair stops short of touching by at most the turning gap (linearized arcs, grown
    # blocked space; see cspace.model.tolerance), at the contact's radius (above 1.2 here); never past it.
    short = (meets - impacts[0].q0[0]) * math.copysign(1, rate)
    assert -mechanism.tolerance.angle <= short <= mechanism.tolerance.turning_gap / 1.2
    assert impacts[0].start == pytest.approx((impacts[0].q0[0] - start) / rate, abs=1e-9)


# -- Gillespie's disk on a ramp (issue 25, fixture 2) ------------------------------------------------
# Closed form (paper 001, Table I, g = 9.8; "N = m g sin phi" there is a typo for cos phi).
SWITCHES = [0.365138054717, 1.719574967448, 4.157873615804, 6.125464535146]
PHI, MU, R, J = math.pi / 12, 0.2, 1.0, 0.5


def switches(result) -> list[float]:
    """The times the disk's mode changes (slide, roll, frictionless), in order."""
    modes = [(s.start, s.mode) for s in result.stretches]
    return [t for (t, mode), (_, before) in zip(modes[1:], modes[:-1]) if mode != before]


@pytest.mark.parametrize("integration", [1e-6] + [pytest.param(i, marks=slow) for i in (1e-8, 1e-10, 1e-12)])
def test_the_disk_switches_on_time_whatever_the_integration_tolerance(integration):
    """The event times come from the rows and cones on the dense output, not from the steps:
    the same to 1e-9 s from an integration tolerance of 1e-6 to 1e-12."""
    text = fixture_path("disk-on-ramp").read_text().replace("[dynamics]", f"[tolerance]\nintegration = {integration}\n"
                                                                          "[dynamics]", 1)
    found = switches(simulate(analyze(loads(text))))
    assert len(found) == 4
    assert max(abs(a - b) for a, b in zip(found, SWITCHES)) <= 1e-9


@pytest.fixture(scope="module")
def disk():
    return simulated("disk-on-ramp")


def test_the_disk_rolls_slides_and_rolls_again(disk):
    modes = [str(s.mode) for s in disk.stretches]
    compact = [m for k, m in enumerate(modes) if k == 0 or m != modes[k - 1]]
    assert compact == ["slip", "stick", "contact", "slip", "stick"]


def test_rolling_is_rolling_at_every_sample(disk):
    """While it sticks, the contact point stands still (s' = -r th') and the disk accelerates as
    a rolling disk does, -g sin phi / (1 + J / m r^2), which friction inside the cone allows
    (m g sin phi J / (J + m r^2) <= mu m g cos phi)."""
    g = 9.8
    assert g * math.sin(PHI) * J / (J + R ** 2) <= MU * g * math.cos(PHI)
    for stretch in disk.stretches:
        if stretch.mode != Mode.STICK:
            continue
        inside = (disk.times > stretch.start) & (disk.times < stretch.end)
        rates = disk.rates[inside]
        assert np.abs(rates[:, 0] + R * rates[:, 2]).max() <= 1e-9
        times = disk.times[inside]
        slope = np.polyfit(times, rates[:, 0], 1)[0]
        assert slope == pytest.approx(-g * math.sin(PHI) / (1 + J / R ** 2), abs=1e-8)


def test_sliding_loses_what_friction_takes_and_nothing_else(disk):
    for stretch in disk.stretches:
        assert abs(stretch.drift) <= 1e-8 * disk.energies[0].sum()
        if stretch.mode in (Mode.STICK, Mode.CONTACT):
            assert stretch.losses == pytest.approx(0.0, abs=1e-12)
        if stretch.mode == Mode.SLIP:
            assert stretch.losses > 0


def test_the_linkage_table_is_the_exact_linkage_to_rounding():
    """The four-bar's reduced mass, its derivative, gravity's force and potential and the rocker's
    angle with two derivatives, from the table, against the joints solved exactly at 200 inputs
    over three turns (none of them a table node)."""
    from cspace.kinetics.linkage_terms import LinkageTerms

    mechanism = load(fixture_path("kramer-four-bar"))
    table = LinkageTerms.of(mechanism, mechanism.linkages[0])
    for x in np.random.default_rng(5).uniform(-3 * math.pi, 3 * math.pi, 200):
        exact = table.exact(x)
        assert np.abs(table.at(x) - exact).max() <= 1e-12 * np.abs(exact).max()


# -- the ratchet under a driving torque (issue 25, fixture 4) ---------------------------------------

@pytest.fixture(scope="module")
def ratchet():
    return simulated("ratchet-torque")


def ratchet_events(result) -> list[tuple[str, float]]:
    """When the pawl leaves a flank at a tooth's tip (a ride ends) and lands on the next (an impact)."""
    events = []
    for before, after in zip(result.stretches, result.stretches[1:]):
        if before.mode == Mode.CONTACT and after.mode == Mode.FLIGHT:
            events.append(("drop", after.start))
        if after.mode == Mode.IMPACT and any("flank" in c for c in after.contacts):
            events.append(("land", after.start))
    return events


@slow
def test_the_ratchet_ticks_as_a_second_formulation_does(ratchet):
    """Every drop and landing over 15 s against the reduced one-coordinate ride of
    tests/support/ratchet_reference.py (exact geometry, no configuration space). cspace's turning
    pair meets the flank on its grown, flattened space, up to the turning gap (0.0024 here)
    before the exact parts touch: at the tip's 8 to 9 per second, 3e-4 s; measured below 1e-4 s."""
    from .support.ratchet_reference import simulate as reference

    expected = [(kind, t) for kind, t, *_ in reference(until=15.0)]
    found = ratchet_events(ratchet)
    assert [kind for kind, _ in found] == [kind for kind, _ in expected]
    gap = ratchet.mechanism.tolerance.turning_gap
    assert max(abs(a - b) for (_, a), (_, b) in zip(found, expected)) <= gap / 8.0


@slow
def test_the_ratchets_tooth_period_converges(ratchet):
    drops = [t for kind, t in ratchet_events(ratchet) if kind == "drop"]
    periods = np.diff(drops)
    assert len(periods) >= 18
    assert abs(periods[-1] - periods[-2]) <= 1e-4 and abs(periods[2] - periods[1]) > 10 * abs(periods[-1] - periods[-2])


@slow
def test_the_ratchet_pawl_never_sinks_into_the_wheel(ratchet):
    """The real shapes (shapely, arcs aside: both parts are polygons) turned to every sample: they
    may touch, never overlap by more than the length tolerance across."""
    from shapely.affinity import rotate

    mechanism = ratchet.mechanism
    wheel = region_of(mechanism.part("wheel").slices[0].profiles)
    pawl = region_of(mechanism.part("pawl").slices[0].profiles)
    for w, p in ratchet.configs[::5]:
        overlap = rotate(wheel, w, origin=(0, 0), use_radians=True).intersection(
            rotate(pawl, p, origin=(8, 12), use_radians=True))
        assert overlap.area <= mechanism.tolerance.length * 1.0


@slow
def test_an_undamped_ratchet_skips_teeth_and_says_so():
    """Without damping the wheel outruns the pawl's flight: it hits its stop and lands two
    flanks on, every time, and the contacts say which flank it lands on."""
    text = fixture_path("ratchet-torque").read_text().replace(
        'dampers = [{ coordinate = "w", coefficient = 0.6 }]', "dampers = []")
    result = simulate(analyze(loads(text)))
    landed = [int(c.split("flank")[1].split("/")[0]) for s in result.impacts for c in s.contacts if "flank" in c]
    steps = [(a - b) % 10 for a, b in zip(landed, landed[1:])]
    assert steps[-10:] == [2] * 10
    assert any("p at lower limit" in c for s in result.impacts for c in s.contacts)


# -- Gelsey's escapement (issue 25, fixture 5) -------------------------------------------------------

@pytest.fixture(scope="module")
def escapement():
    return simulated("escapement")


def swings(result) -> list[int]:
    """The samples where the balance passes its hairspring's rest (90 degrees) counterclockwise."""
    b = result.configs[:, 2]
    return [i for i in range(1, len(b)) if b[i - 1] < math.pi / 2 <= b[i]]


@slow
def test_the_escapement_ticks_with_the_balances_period(escapement):
    """After the first swing, the balance's period lies in 7.0 to 7.8 and repeats to 1e-3 (its
    free period, 2 pi sqrt(20 / 15), is 7.26; damped, 7.37)."""
    times = escapement.times[swings(escapement)]
    periods = np.diff(times)[1:]
    assert len(periods) >= 3 and ((7.0 < periods) & (periods < 7.8)).all()
    assert np.ptp(periods) <= 1e-3


@slow
def test_the_escape_wheel_advances_a_tooth_per_swing(escapement):
    wheel = np.degrees(escapement.configs[swings(escapement), 0])
    assert np.abs(np.diff(wheel)[1:] + 36.0).max() <= 0.05


@slow
def test_the_escapement_stops_twice_a_swing(escapement):
    """Two kinetic-energy minima per cycle, near zero (below a thousandth of the peak), at the
    balance's extremes."""
    kinetic, t = escapement.energies[:, 0], escapement.times
    minima = [t[i] for i in range(1, len(t) - 1) if kinetic[i] < kinetic[i - 1] and kinetic[i] <= kinetic[i + 1]
              and kinetic[i] < 1e-3 * kinetic.max() and t[i] > 2.0]
    b = escapement.configs[:, 2]
    extremes = [t[i] for i in range(1, len(b) - 1) if (b[i] - b[i - 1]) * (b[i + 1] - b[i]) < 0]
    period = float(np.diff(escapement.times[swings(escapement)])[-1])
    assert len(minima) >= 8 and np.abs(np.diff(minima) - period / 2).max() <= 0.05  # two a cycle, no more
    assert max(min(abs(m - e) for e in extremes) for m in minima) <= 0.05


def test_a_block_slides_on_while_its_bounces_accumulate():
    """Gravity tilted along a smooth floor: the block's x follows g_x t^2 / 2 exactly through its
    bounces, their accumulation and its rest (x was held still while the impacts accumulated)."""
    text = fixture_path("bouncing-block").read_text().replace("gravity = [0, -9.81]", "gravity = [3, -9.81]")
    text = text.replace('coordinates = [{ name = "y", axis = [0, 1] }]',
                        'coordinates = [{ name = "x", axis = [1, 0] }, { name = "y", axis = [0, 1] }]')
    result = simulate(analyze(loads(text)))
    assert any(s.ended == "impacts accumulate" for s in result.stretches)
    assert np.abs(result.configs[:, 0] - 1.5 * result.times ** 2).max() <= 1e-9


def test_an_inputs_work_is_in_the_ledger():
    """A wheel driven at a constant rate lifts a follower: the work the input does is what the
    follower gains, stretch by stretch (it was left out, and the start's energies were taken
    before the input's rate was set)."""
    text = PENDULUM.replace('initial = %s }', 'initial = %s, velocity = 0 }') % 0.0
    text = text.replace("[dynamics]", "[[inputs]]\nvelocities = { th = 1.0 }\nsampling = 0.1\n\n[dynamics]")
    result = simulate(analyze(loads(text)), until=1.0)
    for stretch in result.stretches:
        assert abs(stretch.drift) <= 1e-9 * abs(stretch.work) + 1e-12
    assert sum(s.work for s in result.stretches) == pytest.approx(
        result.energies[-1].sum() - result.energies[0].sum(), abs=1e-9)


@pytest.mark.parametrize("name", each(DYNAMIC_FIXTURES, fast={"bouncing-block", "disk-on-ramp"}))
def test_the_replay_finds_nothing_wrong_with_any_dynamic_fixture(name):
    """The real shapes at every sample (no overlap), the limits, the energy ledger."""
    from cspace.testing import replay

    assert replay(simulated(name)) == []
