"""Tests never read or write the user's pair-space cache: each session gets its own. The fast
subset (pytest -m "not slow") checks properties on fewer examples (tests/common.py, examples)."""

from __future__ import annotations

import os
import tempfile

os.environ["CSPACE_CACHE"] = tempfile.mkdtemp(prefix="cspace-test-cache-")


def pytest_configure(config) -> None:
    from . import common
    common.FAST_SUBSET = "not slow" in (config.option.markexpr or "")
