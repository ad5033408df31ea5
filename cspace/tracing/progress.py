"""The bar of time reached that a trace or a full-dynamics integration shows while it works.

One bar for both, on standard error (tqdm), left behind by nothing when done: ``trace: 33%|...|
t = 6.2 of 18.85 [...]`` says how far along its allotment the path has got. It is off unless
asked for (the command line asks where standard error is a terminal); nothing of it reaches
what a command writes.

    >>> with time_bar("trace", 2.0, show=False) as reached:
    ...     reached(0.5)
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from tqdm import tqdm

FORMAT = "{desc}: {percentage:3.0f}%|{bar}| t = {n:.4g} of {total:.4g} [{elapsed}<{remaining}]"


@contextmanager
def time_bar(name: str, allotment: float, *, show: bool) -> Iterator[Callable[[float], None]]:
    """A bar named ``name`` of the time reached out of ``allotment`` seconds, shown on standard
    error if ``show``; the function it gives is told each time reached (never less than the last)."""
    with tqdm(total=allotment, desc=name, unit="s", disable=not show, file=sys.stderr, leave=False,
              bar_format=FORMAT) as bar:
        yield lambda now: bar.update(now - bar.n)
