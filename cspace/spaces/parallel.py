"""Independent pieces of work run at once in forked worker processes.

The pair spaces of turning pairs are the costly part of an analysis, and independent:
:func:`run` computes the first task here while worker processes forked from this one
(so they hold the mechanism already, nothing is sent but an index) compute the others,
and their results come back pickled. The answer does not depend on how many workers
there are: every task is computed by the same code on the same input.

The caller says how many processes share the work (this one included: a whole number
of at least 1; the command line's ``CSPACE_WORKERS``, default the processors it may run
on). Work is not shared where ``fork`` is not available, nor from a daemonic process
(which may not have children).
"""

from __future__ import annotations

import gc
import os
import pickle
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, TypeVar

from ..model.errors import WorkersError

if TYPE_CHECKING:
    from concurrent.futures import Future

T = TypeVar("T")
_TASKS: Sequence[Callable[[], object]] = ()  # what forked workers run, by index


def usable() -> int:
    """The processors this process may run on.

    >>> usable() >= 1
    True
    """
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def checked(workers: int) -> int:
    """``workers``, refused with :class:`WorkersError` unless a whole number of at least 1.

    >>> checked(2)
    2
    """
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise WorkersError(f"workers must be a whole number of at least 1, got {workers!r}")
    return workers


def run(tasks: Sequence[Callable[[], T]], workers: int) -> list[T | None]:
    """Each task's result: the first computed here, the others in forked workers. A task
    that raises in a worker gives None (run it again here to have its error where it is
    wanted), and so does every task a worker had not sent back when one died (killed by
    a signal, the OOM killer, ``os._exit``: the pool is then broken, and the caller builds
    those here). ``workers`` processes share them (this one included). With one worker,
    or no ``fork``, every task is computed here, in order.

    >>> run([lambda: 1, lambda: 2], 2)
    [1, 2]
    """
    global _TASKS
    count = min(workers, len(tasks)) - 1
    if count < 1:
        return [task() for task in tasks]
    import multiprocessing  # with concurrent.futures, 10 ms of a start: only where work is shared
    from concurrent.futures import ProcessPoolExecutor

    if "fork" not in multiprocessing.get_all_start_methods() or \
            multiprocessing.current_process().daemon:
        return [task() for task in tasks]
    _TASKS = tasks
    gc.freeze()  # the workers' collector leaves the objects they share with this process be
    try:
        with ProcessPoolExecutor(count, mp_context=multiprocessing.get_context("fork")) as pool:
            futures = [pool.submit(_run, index) for index in range(1, len(tasks))]
            first = tasks[0]()
            return [first] + [_result(future) for future in futures]
    finally:
        _TASKS = ()
        gc.unfreeze()


@contextmanager
def collector_paused() -> Iterator[None]:
    """Python's cyclic garbage collector paused for the block (as it was after): building
    or unpickling pair spaces makes many small objects and no cycles, and collecting as
    they come costs (a tenth of the transmission's analysis) and frees nothing.

    What the block made then joins the oldest generation unscanned (``gc.freeze`` and
    ``gc.unfreeze``: so does everything else the collector tracks), as if it had already
    survived two collections: else the first collection after the block scans all of it
    (the transmission's 170,000 objects: 50 ms) and the next one again, to promote
    objects that live as long as the analysis. Not where the program has frozen objects
    of its own (before forking workers): they stay frozen.

    >>> with collector_paused():
    ...     gc.isenabled()
    False
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            if not gc.get_freeze_count():
                gc.freeze()
                gc.unfreeze()
            gc.enable()


def _run(index: int) -> bytes | None:
    """Task ``index`` in a worker, pickled; None if it raised."""
    try:
        with collector_paused():
            return pickle.dumps(_TASKS[index](), protocol=pickle.HIGHEST_PROTOCOL)
    except Exception:  # the caller runs it again itself and gets the error there
        return None


def _result(future: Future) -> object:
    """A worker's result; None if its worker died before sending it back."""
    from concurrent.futures.process import BrokenProcessPool

    try:
        data = future.result()
    except BrokenProcessPool:
        return None
    return _loaded(data)


def _loaded(data: bytes | None) -> object:
    """A worker's result, unpickled with the collector paused."""
    if data is None:
        return None
    with collector_paused():
        return pickle.loads(data)
