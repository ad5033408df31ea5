"""The bounds on a mechanism: how many parts and faces, how large a number, how many samples,
what a name may be. Whoever builds a mechanism meets them (:mod:`cspace.model.validation`); the
reader applies the counts early, so a hostile file is stopped before the work.
"""

from __future__ import annotations

import re

MAX_PARTS = 500
MAX_FACES = 20000
MAX_MAGNITUDE = 1e9  # no length, angle, time or speed in a mechanism is larger
MAX_SAMPLES = 1_000_000  # samples one input motion may take over the time allotment
MAX_TABLE = 10_000  # the most entries a linkage's table may have (its ``table`` and the refinement it needs)
NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.\-]*")  # the whole name (fullmatch: "$" let a newline end one)
