"""Run a sweep: every variant of a design traced, serially or on a Dask cluster, one row each.

Serially, the variants run one after another in this process. With a
``dask.distributed.Client`` (a :class:`~dask.distributed.LocalCluster` of one single-threaded
worker per core, or an existing cluster's scheduler) the variants go to the cluster in
batches, largest first (:func:`batches`), each one task, so a worker runs one variant at a
time; a worker lost mid-sweep has its batch run again elsewhere (the scheduler's own retry),
and a variant that still fails is a row with its error. The rows are the same either way, in
the design's order (:mod:`.variant`).
"""

from __future__ import annotations

import difflib
import math
import os
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from ..model.errors import CspaceError
from ..model.mechanism import Mechanism
from .design import DesignError, variants
from .measures import Measure, parse
from .results import Results, table
from .source import FileSource, Source, source_of
from .variant import RESULT_COLUMNS, run, run_batch, variant_id

SHARE = 1 / 8  # of the variants left over the workers, a cluster's next task takes this share


def sweep(mechanism: str | os.PathLike | Callable[..., Mechanism] | Source,
          grid: Mapping[str, Sequence[float]] | Sequence[Mapping[str, float]],
          measures: Sequence[str | Measure] = (), client: Any = None, *, out: str | os.PathLike | None = None,
          resume: bool = False, cache: str | os.PathLike | None = None, progress: bool = False):
    """Trace ``mechanism`` (a parametric file's path, or a function of the parameters returning a
    Mechanism) at every variant of ``grid`` (values by parameter, every combination taken; or the
    variants as a list of dicts) and return one row per variant as a pandas DataFrame, in the
    design's order. ``measures`` are clearances ``"PART_A/PART_B"``, plays ``"play:COORDINATE"``
    and drops ``"drops:COORDINATE"``. With a ``dask.distributed.Client`` the variants run on its
    cluster; ``out`` (.csv or .parquet) streams the rows to disk as they finish, ``resume``
    skips the variants already there; ``cache`` is a pair-space cache folder shared by the
    variants.

    >>> rows = sweep("fixtures/sweeps/feeder.toml", {"crank": [2, 3], "link": [8]})
    >>> list(rows["end_reason"]), list(rows["final:xb3"])  # the last block fed ends at crank + link + 6
    (['time allotment used', 'time allotment used'], [16.0, 17.0])
    """
    source = source_of(mechanism)
    chosen = [parse(m) if isinstance(m, str) else m for m in measures]
    design = variants(grid)
    _check_names(source, design)
    _check_measures(source, design, chosen)
    ids = [variant_id(source.digest, values) for values in design]
    results = Results(out, resume) if out is not None else None
    done = set(results.rows) if results is not None else set()
    todo = [(i, values) for i, values in zip(ids, design) if i not in done]
    rows: dict[str, dict[str, Any]] = {}
    runs = _on_cluster(client, source, todo, chosen, cache) if client is not None else \
        (run(source, values, chosen, cache) for _, values in todo)
    with _bar(len(todo), progress) as bar:
        for row in runs:
            rows[row["id"]] = row
            if results is not None:
                results.add(row)
            bar.update(1)
    if results is not None:
        return results.finish(ids)
    return table(rows[i] for i in dict.fromkeys(ids) if i in rows)


def _check_names(source: Source, design: Sequence[Mapping[str, float]]) -> None:
    """Every parameter the design varies is one the source takes (a file's are checked with
    did-you-mean, as the loader does)."""
    known = source.parameters()
    if not isinstance(source, FileSource) and not known:
        return
    for name in dict.fromkeys(name for values in design for name in values):
        if name in RESULT_COLUMNS:
            raise DesignError(f"{source.path}: parameters: {name}: a parameter named {name!r} would hide the "
                              "result column of that name; rename it")
        if name not in known:
            close = difflib.get_close_matches(name, known, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else f"; the parameters are {', '.join(known) or 'none'}"
            raise DesignError(f"{source.path}: parameters: {name}: unknown parameter {name!r}{hint}")


def _check_measures(source: Source, design: Sequence[Mapping[str, float]], measures: Sequence[Measure]) -> None:
    """The measures name parts of the mechanism (checked on the first variant, when it loads)."""
    if not measures or not design:
        return
    try:
        mechanism = source.mechanism(design[0])
    except CspaceError:
        return  # the variant's own row says what is wrong with it
    for measure in measures:
        measure.check(mechanism)


def _on_cluster(client: Any, source: Source, todo: Sequence[tuple[str, Mapping[str, float]]],
                measures: Sequence[Measure], cache: str | os.PathLike | None) -> Iterator[dict[str, Any]]:
    """The variants' rows as the cluster finishes them, a batch of variants a task
    (:func:`batches`); a task the cluster gives up on is each of its variants' row with the error."""
    from distributed import as_completed

    workers = max(1, len(client.scheduler_info().get("workers", {})))
    futures = {client.submit(run_batch, source, [values for _, values in batch], measures, cache,
                             key=f"cspace-variants-{batch[0][0]}-{len(batch)}", pure=False): batch
               for batch in batches(todo, workers)}
    try:
        for future in as_completed(futures):
            try:
                yield from future.result()
            except Exception as error:  # the cluster's failure (a worker killed too often), not the variants'
                message = f"{type(error).__name__}: {' '.join(str(error).split())}"
                yield from ({"id": i, **values, "error": message} for i, values in futures[future])
    finally:
        client.cancel(list(futures))


def batches(todo: Sequence, workers: int) -> list[list]:
    """``todo`` cut into the tasks a cluster of ``workers`` runs, in order, largest first: each
    takes a share (:data:`SHARE`) of what is left over the workers, at least one variant
    (guided self-scheduling). A cluster then schedules tens of tasks rather than a task a
    variant (each costs the scheduler, in the command's own process, and the worker a few
    milliseconds: as much as a tenth of a variant of a second), and the last tasks are single
    variants, which keep every worker busy to the end.

    >>> [len(b) for b in batches(range(60), 2)]
    [4, 4, 4, 3, 3, 3, 3, 3, 3, 2, 2, 2, 2, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]
    """
    todo, cut, start = list(todo), [], 0
    while start < len(todo):
        size = max(1, math.ceil((len(todo) - start) * SHARE / workers))
        cut.append(todo[start:start + size])
        start += size
    return cut


class _NoBar:
    def __enter__(self) -> _NoBar:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def update(self, count: int) -> None:
        return None


def _bar(total: int, shown: bool):
    """A tqdm bar on standard error, or nothing."""
    if not shown:
        return _NoBar()
    from tqdm import tqdm

    return tqdm(total=total, unit="variant", file=sys.stderr, dynamic_ncols=True)


def local_client(workers: int):
    """A client of a new :class:`~dask.distributed.LocalCluster`: ``workers`` processes of one
    thread each (so each runs one variant at a time), its logs quiet, its workers' statistical
    profiler off (it samples the running task's stack every 10 ms: 3 % of a feeder variant's
    time, measured; the dashboard keeps its task stream and progress, not its profile)."""
    import logging

    import dask
    from distributed import Client, LocalCluster

    with dask.config.set({"distributed.worker.profile.enabled": False}):  # the workers take it as they start
        cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=":0",
                               silence_logs=logging.ERROR)
    return Client(cluster)
