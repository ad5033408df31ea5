"""The feeder of Sacks & Joskowicz against the paper's published numbers (Figure 4, section 4.2)."""

from __future__ import annotations

import math
import subprocess
import sys
import tomllib

import pytest

from cspace.kernels.constraints import ConstraintManager
from cspace.report.describe import describe, path_rows
from cspace.tracing.tracer import Tracer

from .common import ROOT, analyzed, slow, traced

ONE_TURN = 2 * math.pi

# Figure 4 of the paper, transcribed.
FIGURE_4 = """\
segment 1:
(driving-motion (driver cd))
(drives (driver cd) ((piston xp)))
(driver rotates (cd 0 2.1268))
(piston translates (xp 10 5))
(block1 stationary (xb1 12) (yb1 1))
(block2 stationary (xb2 12) (yb2 3))
(block3 stationary (xb3 12) (yb3 5))

segment 2:
(driving-motion (block3 yb3))
(drives (block3 yb3) ((block1 yb1) (block2 yb2)))
(driver stationary (cd 2.1268))
(piston stationary (xp 5))
(block1 translates (yb1 1 -1) (xb1 12))
(block2 translates (yb2 3 1) (xb2 12))
(block3 translates (yb3 5 3) (xb3 12))

segment 3:
(driving-motion (driver cd))
(drives (driver cd) ((piston xp)))
(driver rotates (cd 2.1268 3.1416))
(piston translates (xp 5 4))
(block1 stationary (xb1 12) (yb1 -1))
(block2 stationary (xb2 12) (yb2 1))
(block3 stationary (xb3 12) (yb3 3))

segment 4:
(driving-motion (driver cd))
(drives (driver cd) ((piston xp)))
(driver rotates (cd -3.1416 -2.1268))
(piston translates (xp 4 5))
(block1 stationary (xb1 12) (yb1 -1))
(block2 stationary (xb2 12) (yb2 1))
(block3 stationary (xb3 12) (yb3 3))

segment 5:
(driving-motion (driver cd))
(drives (driver cd) ((piston xp)))
(drives (piston xp) ((block1 xb1)))
(driver rotates (cd -2.1268 -0.7227))
(piston translates (xp 5 9))
(block1 translates (xb1 12 16) (yb1 -1))
(block2 stationary (xb2 12) (yb2 1))
(block3 stationary (xb3 12) (yb3 3))

segment 6:
(driving-motion (driver cd))
(drives (driver cd) ((piston xp)))
(drives (piston xp) ((block1 xb1)))
(driver rotates (cd -0.7227 0))
(piston translates (xp 9 10))
(block1 translates (xb1 16 17) (yb1 -1))
(block2 stationary (xb2 12) (yb2 1))
(block3 stationary (xb3 12) (yb3 3))"""

# Section 4.2: x_p along segment 1, from the paper's 301-entry table.
XP_TABLE = {0.0: 10, 0.25: 9.8722, 0.5: 9.5023, 0.75: 8.9292, 1.0: 8.2121, 1.25: 7.4223,
            1.5: 6.6315, 1.75: 5.9008, 2.0: 5.2721}


# Why each segment of the first turn ends (section 4.1): the piston's right end passes block 1's
# left side, leaving it no support (it drops beside the piston); the stack lands on the table
# under the magazine's walls; the crank passes its dead point at pi; the piston comes back to
# block 1 and slides under block 2; block 1 is pushed out from under block 2; the turn is done.
FIRST_TURN_ENDS = [
    "contact made piston.right/block1.left; released piston.top/block1.bottom",
    "contact made frame.left-wall.bottom/block1.top; contact made frame.right-wall.bottom/block1.top; "
    "contact made frame.table.top/block1.bottom; released piston.right/block1.left",
    "xp reverses",
    "contact made piston.right/block1.left; contact made piston.top/block2.bottom; "
    "released frame.left-wall.bottom/block1.top; released frame.left-wall.right/block1.left; "
    "released frame.right-wall.left/block1.right",
    "released block1.top/block2.bottom",
    "time allotment used",
]


def test_first_turn_is_figure_4():
    """The records are the paper's, each closed by a comment line (``;``, as in Lisp) saying why
    its segment ended."""
    text = describe(traced("feeder", ONE_TURN))
    records = text.split("\n\n")
    figure = ["\n".join(line for line in r.split("\n") if not line.startswith("; ends: ")) for r in records[:6]]
    assert "\n\n".join(figure) == FIGURE_4
    assert [r.split("\n")[-1] for r in records[:6]] == [f"; ends: {end}" for end in FIRST_TURN_ENDS]
    assert len(records) == 7 and records[6].startswith("; end: time allotment used")


def test_first_turn_breakpoints_and_piston_positions():
    segments = traced("feeder", ONE_TURN).segments
    cd = [s.start[0] for s in segments] + [segments[-1].finish[0]]
    xp = [s.start[1] for s in segments] + [segments[-1].finish[1]]
    expected_cd = [0, 2.1268, 2.1268, math.pi, 2 * math.pi - 2.1268, 2 * math.pi - 0.7227, 2 * math.pi]
    assert cd == pytest.approx(expected_cd, abs=5e-5)
    assert xp == pytest.approx([10, 5, 5, 4, 5, 9, 10], abs=5e-5)


@pytest.mark.parametrize("cd, xp", sorted(XP_TABLE.items()))
def test_piston_samples_match_section_4_2(cd, xp):
    rows = [r for r in path_rows(traced("feeder", ONE_TURN)) if r[1] == 1]
    sample = next(r for r in rows if abs(r[2] - cd) < 1e-9)
    assert sample[3] == pytest.approx(xp, abs=2e-4)


def test_samples_every_quarter_second_and_at_boundaries():
    rows = path_rows(traced("feeder", ONE_TURN))
    times = sorted({round(r[0], 9) for r in rows})
    quarters = [round(k * 0.25, 9) for k in range(26)]
    assert set(quarters) <= set(times)
    boundaries = [round(s.end_time, 9) for s in traced("feeder", ONE_TURN).segments]
    assert set(boundaries) <= set(times)


def test_three_turns_leave_blocks_on_the_table():
    final = traced("feeder").segments[-1].finish
    assert final[2:] == pytest.approx([25, -1, 21, -1, 17, -1], abs=1e-9)
    assert traced("feeder").end_reason == "time allotment used"
    # The allotment ends exactly where the piston turns back (cd = 6 pi): the allotment is what ended it.
    assert traced("feeder").segments[-1].end == "time allotment used"


def test_each_turn_drops_one_stack_and_pushes_one_block():
    segments = traced("feeder").segments
    drops = [s for s in segments if s.phase == "external"]
    assert [s.start_time for s in drops] == pytest.approx([2.1268, 2.1268 + ONE_TURN, 2.1268 + 2 * ONE_TURN],
                                                          abs=5e-5)


def test_a_corner_on_a_corner_touches_with_both_face_pairs():
    """After the first drop block1 lies on the table under the magazine's walls: its top
    corners touch the walls' bottom corners (block x 12..16, y -1..1; walls above y = 1
    from x = 12 leftward and x = 16 rightward). At a corner on a corner both face pairs
    meeting there touch, whichever region of the pair the path is in."""
    segment = traced("feeder", ONE_TURN).segments[2]
    contacts = {str(c) for piece in segment.pieces for c in piece.contacts}
    assert {"frame.left-wall.bottom/block1.top", "frame.left-wall.right/block1.left",
            "frame.right-wall.bottom/block1.top", "frame.right-wall.left/block1.right"} <= contacts
    assert "frame.table.top/block1.bottom" in contacts


def test_every_explored_region_is_nonempty():
    """Table 2's nonempty count equals the explored one because each region is built around a
    configuration its closure holds; checked here by a feasibility program per explored region."""
    analysis = analyzed("feeder")
    tracer = Tracer(analysis)
    built, region = set(), tracer.diagram.region
    tracer.diagram.region = lambda key, active=None: built.add(key) or region(key, active)
    result = tracer.run(analysis.mechanism.time)
    manager = ConstraintManager(analysis.mechanism.tolerance.lp)
    for key in built:
        assert manager.feasible(region(key).rows(), region(key).h), key
    assert {piece.key for piece in result.pieces} <= built
    assert result.stats.nonempty_regions == result.stats.explored_regions == len(built)


def _feeder_n(*argv: str, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(ROOT / "tools" / "feeder_n.py"), *argv],
                          capture_output=True, text=True, check=False, cwd=cwd)


def test_feeder_n_with_three_blocks_writes_the_fixture_but_its_name():
    """``python tools/feeder_n.py 3`` is fixtures/feeder.toml, the mechanism the tool's geometry
    was taken from (the README's N-block feeders are made this way)."""
    done = _feeder_n("3")
    written, fixture = tomllib.loads(done.stdout), tomllib.loads((ROOT / "fixtures" / "feeder.toml").read_text())
    assert (done.returncode, done.stderr) == (0, "")
    assert written["mechanism"].pop("name") == "feeder-3"
    fixture["mechanism"].pop("name")
    assert written == fixture


@slow
def test_feeder_n_writes_a_file_with_its_blocks(tmp_path):
    """``-o FILE`` writes the same text; N blocks are N parts more, each under gravity, for N turns."""
    assert _feeder_n("7", "-o", "feeder-7.toml", cwd=tmp_path).returncode == 0
    written = tomllib.loads((tmp_path / "feeder-7.toml").read_text())
    blocks = [p["name"] for p in written["parts"] if p["name"].startswith("block")]
    assert blocks == [f"block{i}" for i in range(1, 8)]
    assert [f["coordinate"] for f in written["forces"]] == [f"yb{i}" for i in range(1, 8)]
    assert written["mechanism"]["time"] == pytest.approx(7 * 2 * math.pi)
    assert (tmp_path / "feeder-7.toml").read_text() == _feeder_n("7").stdout


@slow
@pytest.mark.parametrize("blocks", ["0", "-2", "three"])
def test_feeder_n_refuses_a_count_that_is_not_a_number_of_blocks(blocks):
    done = _feeder_n(blocks)
    assert done.returncode == 2 and done.stdout == ""
    assert "whole number of at least 1" in done.stderr
