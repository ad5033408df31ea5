"""Outputs held fixed while the code is restructured (issue 24): every fixture's and the
30-block feeder's description, JSON, sampled path and statistics, byte for byte as
``tools/record_goldens.py`` recorded them. A change of output that is right is its own
commit, recorded again there, saying why."""

from __future__ import annotations

import pytest

from .common import each
from .golden_outputs import NAMES, outputs, recorded

SUFFIXES = ("describe.txt", "json", "path.csv", "stats.txt")


@pytest.mark.parametrize("suffix", SUFFIXES)
@pytest.mark.parametrize("name", each(NAMES))
def test_the_output_is_the_golden_one(name, suffix):
    assert outputs(name)[suffix] == recorded(name, suffix)
