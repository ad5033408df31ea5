"""The fast subset a contributor runs while working, ``pytest -m "not slow"``: it leaves out
the tests marked slow (setup.cfg registers the marker), still exercises every part of the
code, and CI runs everything."""

from __future__ import annotations

import configparser
import re
import subprocess
import sys

from .common import ROOT, slow


def collected(*options: str) -> set[str]:
    """The test modules (and doctest modules) pytest collects from the checkout with ``options``."""
    done = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", *options],
                          cwd=ROOT, capture_output=True, text=True, check=True, timeout=600)
    return {line.split("::")[0] for line in done.stdout.splitlines() if "::" in line}


def test_the_slow_marker_is_registered_and_checked():
    """A misspelt marker (``@pytest.mark.slwo``) would leave its test in the fast subset unseen."""
    config = configparser.ConfigParser()
    config.read(ROOT / "setup.cfg")
    pytest_section = config["tool:pytest"]
    assert re.search(r"^slow:", pytest_section["markers"].strip(), re.M)
    assert "--strict-markers" in pytest_section["addopts"].split()


def test_ci_runs_every_test():
    """``.ci/run`` selects no marker: the slow tests run there."""
    run = (ROOT / ".ci" / "run").read_text()
    assert "python3 -m pytest" in run and "-m " not in run.split("python3 -m pytest", 1)[1]


@slow
def test_every_test_module_keeps_tests_in_the_fast_subset():
    everything, fast = collected(), collected("-m", "not slow")
    assert len(everything) >= 90
    assert sorted(everything - fast) == []
