"""The same input gives byte-identical output, in process and across interpreters."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from cspace import analyze, load, trace
from cspace.testing import assert_traces_equal

from .common import FIXTURES, each, fixture_path, slow
from .support.edits import with_configs


@pytest.mark.parametrize("name", each(FIXTURES))
def test_tracing_twice_gives_identical_reports(name):
    first = trace(analyze(load(fixture_path(name))))
    second = trace(analyze(load(fixture_path(name))))
    assert_traces_equal(first, second)


@slow
def test_cli_output_does_not_depend_on_hash_seed(tmp_path):
    outputs = []
    for seed in ("1", "12345"):
        env = dict(os.environ, PYTHONHASHSEED=seed)
        csv = tmp_path / f"path-{seed}.csv"
        done = subprocess.run([sys.executable, "-m", "cspace.cli", "trace", str(fixture_path("feeder")),
                               "--describe", "--regions", "--json", "--path", str(csv)],
                              capture_output=True, text=True, env=env, check=True)
        outputs.append((done.stdout, csv.read_text()))
    assert outputs[0] == outputs[1]


def test_the_comparison_fails_on_a_shorter_trace_and_on_a_changed_value():
    """assert_traces_equal is an oracle too: a prefix of a trace, or one moved value, is not equal."""
    full = trace(analyze(load(fixture_path("pusher"))))
    shorter = trace(analyze(load(fixture_path("pusher"))), until=20)
    with pytest.raises(AssertionError, match="differs at line"):
        assert_traces_equal(full, shorter)
    with pytest.raises(AssertionError, match="differs at line"):
        assert_traces_equal(shorter, full)
    moved = with_configs(full, -1, full.pieces[-1].configs + 1e-3)
    with pytest.raises(AssertionError, match="differs at line"):
        assert_traces_equal(full, moved)
