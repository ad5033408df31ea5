"""Tests never read or write the user's pair-space cache: each session gets its own."""

from __future__ import annotations

import os
import tempfile

os.environ["CSPACE_CACHE"] = tempfile.mkdtemp(prefix="cspace-test-cache-")
