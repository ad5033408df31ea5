"""The command line's ``sweep`` and ``sweep-plot`` (registered by :mod:`cspace.cli`).

``cspace sweep FILE --vary NAME=LOW:HIGH:COUNT ... --out RESULTS.csv|.parquet`` runs the full
grid (or, with ``--lhs N --seed S``, a Latin hypercube in the ranges) on a Dask
``LocalCluster`` of one worker per core (``--workers N``; 1 runs in this process, without
Dask), saying the cluster's dashboard address on standard error as it starts, or on an
existing cluster (``--scheduler ADDRESS``, whose dashboard is its own), and prints one
line saying what it wrote. ``cspace sweep-plot RESULTS --x A --y B --color end_reason|COLUMN -o MAP.png``
draws the design map.
"""

from __future__ import annotations

import argparse

from ..io.outputs import say, write_stdout


def add_commands(commands, cache_folder) -> None:
    """Register ``sweep`` and ``sweep-plot`` on the command line's subcommands; ``cache_folder()``
    is the pair-space cache's folder the variants share (the command line reads it from the environment)."""
    sweep = commands.add_parser("sweep", help="trace a parametric mechanism at many parameter values, on Dask",
                                description="Trace every variant of a design (a full grid over --vary ranges, or "
                                            "a Latin hypercube with --lhs) and write one row per variant: its "
                                            "parameters, how it ended, where it was blocked, each coordinate's "
                                            "final value and range, the measures, or its one-line error.")
    sweep.add_argument("file", help="parametric mechanism file (TOML with [parameters])")
    sweep.add_argument("--vary", action="append", default=[], metavar="NAME=LOW:HIGH:COUNT", required=True,
                       help="a parameter's range: COUNT values from LOW to HIGH (a hypercube needs only "
                            "NAME=LOW:HIGH); repeat for each parameter varied")
    sweep.add_argument("--lhs", type=int, metavar="N", help="N variants of a Latin hypercube in the ranges "
                                                            "instead of the full grid")
    sweep.add_argument("--seed", type=int, default=0, help="the hypercube's seed (default: 0)")
    sweep.add_argument("--measure", action="append", default=[],
                       metavar="PART_A/PART_B|play:COORDINATE|drops:COORDINATE",
                       help="the least clearance between two parts along the path, the largest free travel "
                            "of a coordinate, the others held, while it is driven, or how many times the "
                            "forces alone move a coordinate until its part lands on another (repeatable)")
    sweep.add_argument("--out", required=True, metavar="RESULTS", help="results table to write (.csv or .parquet)")
    sweep.add_argument("--resume", action="store_true", help="keep the rows already in RESULTS (and its journal) "
                                                            "and run only the variants missing")
    sweep.add_argument("--workers", type=_workers, metavar="N",
                       help="Dask workers on this machine (default: one per core; 1: run here, without Dask)")
    sweep.add_argument("--scheduler", metavar="ADDRESS",
                       help="run on an existing Dask cluster, e.g. tcp://10.0.0.5:8786 (its workers need cspace)")
    shown = sweep.add_mutually_exclusive_group()
    shown.add_argument("--progress", action="store_true",
                       help="show a progress bar on standard error (the default when it is a terminal)")
    shown.add_argument("--quiet", action="store_true", help="show no progress")
    sweep.set_defaults(run=run_sweep, cache_folder=cache_folder)

    plot = commands.add_parser("sweep-plot", help="draw a sweep's design map",
                               description="Plot each variant of a sweep's results at (--x, --y), coloured by "
                                           "how it ended (end_reason; failed variants as 'error') or by a "
                                           "numeric column such as a measure.")
    plot.add_argument("results", help="a sweep's results (.csv or .parquet)")
    plot.add_argument("--x", required=True, help="the column across")
    plot.add_argument("--y", required=True, help="the column up")
    plot.add_argument("--color", default="end_reason", help="end_reason (default) or a numeric column, e.g. a measure")
    plot.add_argument("-o", "--output", required=True, metavar="OUT", help="figure to write (.png or .svg)")
    plot.set_defaults(run=run_plot)


def _workers(text: str) -> int:
    if not text.strip().isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number of at least 1, got {text!r}")
    return int(text)


def run_sweep(args: argparse.Namespace) -> int:
    """``cspace sweep``: the design laid out, run, written; one line on standard output."""
    import os
    import sys

    from .design import Axis, grid, hypercube
    from .measures import parse
    from .results import check_format
    from .source import FileSource

    check_format(args.out)
    axes = [Axis.parse(text) for text in args.vary]
    design = hypercube(axes, args.lhs, args.seed) if args.lhs is not None else grid(axes)
    measures = [parse(text) for text in args.measure]
    source = FileSource.read(args.file)
    progress = not args.quiet and (args.progress or sys.stderr.isatty())
    client = _client(args)
    try:
        from .runner import sweep

        rows = sweep(source, design, measures, client, out=args.out, resume=args.resume, cache=args.cache_folder(),
                     progress=progress)
    finally:
        if client is not None:
            _close(client, args.scheduler is None)
    failed = int((rows["error"] != "").sum())
    lookups = int(rows["cache_lookups"].fillna(0).sum()) if "cache_lookups" in rows else 0
    if lookups:
        say(f"cspace: note: pair-space cache: {int(rows['cache_hits'].fillna(0).sum())} of {lookups} "
            "pair spaces reused")
    write_stdout(f"{os.fspath(args.out)}: {len(rows)} variants, {len(rows) - failed} traced, {failed} failed\n")
    return 0


def _client(args: argparse.Namespace):
    """The Dask client the sweep runs on: the given scheduler's, a new LocalCluster's, or none (one worker)."""
    if args.scheduler is None and args.workers == 1:
        return None
    try:
        from distributed import Client
    except ImportError:
        from ..model.errors import CspaceError

        raise CspaceError("a sweep on Dask needs dask.distributed: pip install 'cspace[sweep]' (or run it "
                          "here with --workers 1)") from None
    if args.scheduler is not None:
        return Client(args.scheduler, timeout="20s")
    from ..spaces.parallel import usable
    from .runner import local_client

    client = local_client(args.workers or usable())
    say(f"cspace: note: Dask dashboard: {client.dashboard_link}{_dashboard_needs()}")
    return client


def _dashboard_needs() -> str:
    """What the dashboard's page needs that is not installed (bokeh), said after its address."""
    from importlib.util import find_spec

    return "" if find_spec("bokeh") else " (it shows only a note until bokeh is installed: pip install 'bokeh>=3.1')"


def _close(client, local: bool) -> None:
    cluster = client.cluster if local else None
    client.close()
    if cluster is not None:
        cluster.close()


def run_plot(args: argparse.Namespace) -> int:
    """``cspace sweep-plot``: the design map written; one line on standard output."""
    from .plot import design_map
    from .results import read

    count = design_map(read(args.results), args.x, args.y, args.color, args.output)
    write_stdout(f"{args.output}: design map of {count} variants, {args.y} against {args.x} by {args.color}\n")
    return 0
