"""A mechanism of fixed parts only: nothing can move, so every command answers that.

Every command used to end in ``ValueError: cannot reshape array of size 0`` (the
coordinate limits of a mechanism with no coordinates). The oracle is the closed form:
no coordinates, no pairs, no segments, nothing moves; and the replay finds nothing wrong.
"""

from __future__ import annotations

import csv
import io
import json

import pytest

from cspace import analyze, load, trace
from cspace.cli import main
from cspace.testing import replay

FRAMES = """\
[mechanism]
name = "fixed only"
time = 1
[[parts]]
name = "frame"
motion = "fixed"
[[parts.slices]]
z = [0, 1]
profiles = [ { rect = [0, 0, 1, 1] } ]
[[parts]]
name = "frame2"
motion = "fixed"
[[parts.slices]]
z = [0, 1]
profiles = [ { rect = [%s, 0, %s, 1] } ]
"""


@pytest.fixture(params=["apart", "touching"])
def frames(request, tmp_path):
    left = 3 if request.param == "apart" else 1  # two frames side by side, or sharing an edge
    path = tmp_path / "frames.toml"
    path.write_text(FRAMES % (left, left + 1))
    return str(path)


def test_fixed_parts_trace_to_nothing_moving(frames):
    result = trace(analyze(load(frames)))
    assert len(result.mechanism.coordinates) == 0 and len(result.segments) == 0
    assert result.end_reason == "no input motions"
    assert replay(result) == []


def _run(argv, capsys):
    status = main(argv)
    out = capsys.readouterr()
    return status, out.out, out.err


def test_every_report_of_fixed_parts_is_empty_and_valid(frames, tmp_path, capsys):
    status, out, err = _run(["trace", frames], capsys)
    assert (status, err) == (0, "") and out == "; end: no input motions at t = 0\n"
    status, out, _ = _run(["trace", frames, "--json"], capsys)
    document = json.loads(out)
    assert status == 0 and document["coordinates"] == [] and document["segments"] == []
    stats = document["statistics"]
    assert (stats["moving parts"], stats["CS dimension"], stats["interacting pairs"], stats["segments"]) == (0, 0, 0, 0)
    status, out, _ = _run(["trace", frames, "--regions", "--stats"], capsys)
    assert status == 0 and out.splitlines()[0].split() == ["segment", "motion"]
    path = tmp_path / "path.csv"
    assert _run(["trace", frames, "--path", str(path)], capsys)[0] == 0
    assert list(csv.reader(io.StringIO(path.read_text()))) == [["time", "segment"]]
    status, out, _ = _run(["check", frames], capsys)
    assert status == 0 and "ok: 2 parts, 0 coordinates" in out
    status, out, _ = _run(["stats", frames], capsys)
    assert status == 0 and "moving parts" in out
    for form in ("md", "html"):
        assert _run(["regions", frames, "--format", form], capsys)[0] == 0
