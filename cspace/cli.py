"""The ``cspace`` command line.

Bad input (a malformed or impossible mechanism, a bad option) prints one line,
``cspace: error: <file>: <element>: <field>: <what is wrong>``, and exits with status 2.
A failure of the environment (an output that cannot be written: the disk full, standard
output closed or full) prints one line, ``cspace: error: <file>: cannot write: <why>``,
and exits with status 1; a reader that stops reading (``| head``) ends it with status 1
and nothing said. Standard output is flushed here, in a ``try``, not left to Python's
exit (where a failure is a traceback).

The command line is where the environment is read, and nowhere in the library:
``CSPACE_CACHE`` (the pair-space cache's folder, ``off`` for none; default
``$XDG_CACHE_HOME/cspace``, else ``~/.cache/cspace``), ``CSPACE_CACHE_MAX`` (its size cap;
default 500M) and ``CSPACE_WORKERS`` (how many
processes build pair spaces; default the processors this one may run on) become
:func:`cspace.analyze`'s ``cache`` and ``workers``. The library's warnings (the
``cspace`` logger) are printed here as ``cspace: warning: ...``.
"""

from __future__ import annotations

import argparse
import errno
import logging
import os
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from .io.outputs import check_output, flush_stdout, open_standard_streams, printable, say, write_stdout, write_text
from .model.errors import CspaceError, OutputError, WorkersError

EXIT_ENVIRONMENT = 1
EXIT_BAD_INPUT = 2
FILE_HELP = "mechanism file (TOML), or the name of an example (cspace examples lists them)"


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    open_standard_streams()
    try:
        args = _parsed(argv)
        with _warnings_said():
            status = args.run(args)
        flush_stdout()
        return status
    except OutputError as error:
        if error.errno != errno.EPIPE:
            say(f"cspace: error: {error}")
        return EXIT_ENVIRONMENT
    except CspaceError as error:
        say(f"cspace: error: {error}")
        return EXIT_BAD_INPUT
    except OSError as error:  # anything else the environment refused (a file vanished mid-read, ...)
        say(f"cspace: error: {error}")
        return EXIT_ENVIRONMENT
    except KeyboardInterrupt:
        say("cspace: interrupted")
        return 130


def _parsed(argv: list[str] | None) -> argparse.Namespace:
    """The arguments; ``--help`` or a usage error exits as argparse has it, once what it
    printed is flushed (a failure to print it is this command's failure)."""
    try:
        return _parser().parse_args(argv)
    except SystemExit:
        flush_stdout()
        raise


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="cspace", description="Configuration-space simulation of rigid-part mechanisms with simple dynamics.")
    parser.add_argument("--version", action=_Version)
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    run = commands.add_parser("trace", help="trace the path the mechanism follows under its input motions",
                              description="Trace the mechanism and report its behaviour. With no report "
                                          "option, prints the symbolic description (--describe).")
    run.add_argument("file", help=FILE_HELP)
    run.add_argument("--describe", action="store_true", help="print the description of each segment (Figure 4)")
    run.add_argument("--json", action="store_true",
                     help="print one JSON document holding everything: the description, each segment's "
                          "regions and the statistics (with --json, --describe, --regions and --stats "
                          "add nothing to it and print nothing else)")
    run.add_argument("--path", metavar="OUT", help="write the sampled path to OUT (.csv or .json; - for CSV on "
                                                   "standard output); says what it wrote on standard error")
    run.add_argument("--poses", action="store_true",
                     help="with --path: each moving part's pose after the coordinates, as columns PART.x, "
                          "PART.y, PART.angle (where its drawing's origin is, how far it turned)")
    run.add_argument("--regions", action="store_true", help="print the regions each segment crossed (Figure 10)")
    run.add_argument("--stats", action="store_true", help="print statistics (Table 2)")
    run.add_argument("--until", type=_time, metavar="T", help="stop after T seconds of input motion "
                                                             "(default: the file's time allotment)")
    run.set_defaults(run=_trace)
    _budget(run)
    _settings(run)

    check = commands.add_parser("check", help="validate a mechanism file: analyse and trace it as a dry run",
                                description="Load the file, solve its linkages, check the initial "
                                            "configuration, build every pair space and trace the mechanism "
                                            "(integrate it, for full dynamics) as a dry run, so that no file "
                                            "trace would refuse passes; print a one-line summary.")
    check.add_argument("file", help=FILE_HELP)
    check.set_defaults(run=_check)
    _budget(check)
    _settings(check)

    animate = commands.add_parser("animate", help="render the traced path as a 3D animation (.gif or .mp4) or a "
                                                   "browser viewer (.html)",
                                  description="Trace the mechanism and render one frame per path snapshot, "
                                              "offscreen, external motions included; or, with OUT.html, write "
                                              "one self-contained page that plays the path in the plane with "
                                              "play/pause, speed, a time scrubber and each segment's description.")
    animate.add_argument("file", help=FILE_HELP)
    animate.add_argument("-o", "--output", required=True, metavar="OUT",
                         help="animation to write (.gif or .mp4), or the browser viewer (.html)")
    animate.add_argument("--until", type=_time, metavar="T", help="stop after T seconds of input motion")
    animate.add_argument("--size", type=_size, default=(800, 600), metavar="WxH",
                         help="frame size in pixels; for .html the drawing's size in CSS pixels (default: 800x600)")
    animate.add_argument("--view", choices=("3d", "plane"), default="3d",
                         help="3d: from the front and above; plane: straight down the z axis (both parallel "
                              "projections); .html is always the plane")
    animate.add_argument("--fps", type=_fps, default=10.0,
                         help="frames per second (default: 10); unused for .html, which plays in real time "
                              "at the display's frame rate (its speed control scales it)")
    animate.set_defaults(run=_animate)
    _budget(animate)
    _settings(animate)

    show = commands.add_parser("show", help="play the traced path in an interactive 3D window",
                               description="Open a window with play/pause and a snapshot slider "
                                           "(needs a display).")
    show.add_argument("file", help=FILE_HELP)
    show.add_argument("--until", type=_time, metavar="T", help="stop after T seconds of input motion")
    show.add_argument("--size", type=_size, default=(1024, 768), metavar="WxH",
                      help="window size in pixels (default: 1024x768)")
    show.set_defaults(run=_show)
    _budget(show)
    _settings(show)

    plot_pair = commands.add_parser("plot-pair", help="draw a pair's configuration space and the path (Figure 5)",
                                    description="Draw the configuration space of two parts: blocked space "
                                                "shaded, region boundaries dashed, regions labelled, the "
                                                "traced path over it.")
    plot_pair.add_argument("file", help=FILE_HELP)
    plot_pair.add_argument("part_a", metavar="PART_A", help="a part")
    plot_pair.add_argument("part_b", metavar="PART_B", help="another part it can touch")
    plot_pair.add_argument("-o", "--output", required=True, metavar="OUT", help="figure to write (.png, .svg or .pdf)")
    plot_pair.add_argument("--until", type=_time, metavar="T", help="stop after T seconds of input motion")
    plot_pair.set_defaults(run=_plot_pair)
    _budget(plot_pair)
    _settings(plot_pair)

    draw = commands.add_parser("draw", help="draw the mechanism at its initial configuration (.svg, .html or .png), "
                                             "before any analysis",
                               description="Draw the mechanism at its initial configuration, without analysing "
                                           "or tracing it: the parts named, pivots and angle marks, axes, limits, "
                                           "forces and input motions as arrows, each named. SVG and HTML need "
                                           "nothing more than cspace; PNG needs the viz extra.")
    draw.add_argument("file", help=FILE_HELP)
    draw.add_argument("-o", "--output", required=True, metavar="OUT", help="drawing to write (.svg, .html or .png)")
    draw.add_argument("--size", type=_size, default=(800, 600), metavar="WxH",
                      help="the box the drawing fits in, in pixels, at the mechanism's shape (default: 800x600)")
    draw.set_defaults(run=_draw)
    _settings(draw)

    stats = commands.add_parser("stats", help="print the statistics of several mechanisms side by side (Table 2)",
                                description="Trace each mechanism and print its statistics (the rows of "
                                            "the paper's Table 2 and more) in one column per mechanism.")
    stats.add_argument("files", nargs="+", metavar="FILE", help="mechanism files (TOML), or names of examples")
    stats.add_argument("--format", choices=("text", "md"), default="text", help="text (default) or md (Markdown)")
    stats.add_argument("--until", type=_time, metavar="T", help="stop each after T seconds of input motion")
    stats.set_defaults(run=_stats)
    _budget(stats)
    _settings(stats)

    regions = commands.add_parser("regions", help="print the regions each segment crossed (Figure 10) as a document",
                                  description="Print the region table of Figure 10 as Markdown or HTML.")
    regions.add_argument("file", help=FILE_HELP)
    regions.add_argument("--format", choices=("md", "html"), default="md", help="md (default) or html")
    regions.add_argument("--until", type=_time, metavar="T", help="stop after T seconds of input motion")
    regions.set_defaults(run=_regions)
    _budget(regions)
    _settings(regions)

    examples = commands.add_parser("examples", help="list the example mechanisms cspace ships: a name works "
                                                     "wherever a file does (cspace trace feeder)",
                                   description="List the example mechanisms installed with cspace, one a line: "
                                               "its name and the first sentence of its description. A command "
                                               "takes an example's name wherever it takes a mechanism file; "
                                               "a file of that name in the current folder wins.")
    examples.set_defaults(run=_examples)
    _cache_command(commands)
    _sweep_commands(commands)
    return parser


def _cache_command(commands) -> None:
    """``cache info`` and ``cache clear``: the pair-space cache seen and emptied."""
    cache = commands.add_parser("cache", help="show (info) or empty (clear) the pair-space cache",
                                description="The pair-space cache: CSPACE_CACHE is its folder, CSPACE_CACHE_MAX "
                                            "its size cap (default 500M; the least recently used entries are "
                                            "evicted past it).")
    actions = cache.add_subparsers(dest="action", required=True, metavar="ACTION")
    actions.add_parser("info", help="where the cache is, its entries and their size, its cap").set_defaults(
        run=_cache_info)
    actions.add_parser("clear", help="remove every entry, saying how many and how much").set_defaults(
        run=_cache_clear)


def _sweep_commands(commands) -> None:
    """``sweep`` and ``sweep-plot`` (:mod:`cspace.sweeps.commands`)."""
    from .sweeps.commands import add_commands

    add_commands(commands, cache_folder)


class _Version(argparse.Action):
    """``--version``: the installed distribution's version (setup.cfg's metadata, which
    ``cspace.__version__`` reads too), looked up only when asked: start-up does not pay for it."""

    def __init__(self, option_strings: list[str], dest: str, **kwargs) -> None:
        super().__init__(option_strings, dest, nargs=0, help="print cspace's version and exit")

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        from .io.version import installed_version

        write_stdout(f"cspace {installed_version()}\n")
        parser.exit()


def _number(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None


def _time(text: str) -> float:
    value = _number(text)
    if not value >= 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"must be a non-negative number of seconds, got {text}")
    return value


# The picture options are checked by viz's own checks (viz.output imports no renderer).
def _size(text: str) -> tuple[int, int]:
    from cspace.viz.output import check_size

    width, _, height = text.lower().partition("x")
    if not (width.isdigit() and height.isdigit()):
        raise argparse.ArgumentTypeError(f"expected WIDTHxHEIGHT in pixels, e.g. 800x600, got {text!r}")
    size = (int(width), int(height))
    try:
        check_size(size)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None
    return size


def _fps(text: str) -> float:
    from cspace.viz.output import check_fps

    value = _number(text)
    try:
        check_fps(value)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None
    return value


def _traced(path: str, until: float | None, options: argparse.Namespace, full: bool = False):
    """The trace of a mechanism file: the library (numpy, scipy, shapely) is imported here,
    when a command needs it, so that ``cspace --help`` starts as fast as Python does. A
    full-dynamics mechanism is integrated where the command reports it (``full``), and
    refused by name where it does not yet."""
    analysis = _simple_or_refused(path, options, full)
    if analysis.mechanism.dynamics is not None:
        from .kinetics.simulate import simulate  # the integrator (scipy.integrate) only where it is used
        return simulate(analysis, until=until, progress=_progress(options))
    from .tracing.tracer import trace
    return trace(analysis, until=until, progress=_progress(options))


def _simple_or_refused(path: str, options: argparse.Namespace, full: bool = False):
    """The analysis of a mechanism file; one with full dynamics only where the command reports it."""
    analysis = _analyzed(path, options)
    if analysis.mechanism.dynamics is not None and not full:
        raise OptionError(f"{path}: dynamics: this command shows the paper's simple dynamics; a full-dynamics "
                          "mechanism is reported by cspace trace (its stretches, --json, --path) and cspace check")
    return analysis


def _budget(command: argparse.ArgumentParser) -> None:
    """The options of a command that analyses a mechanism: its memory bound and progress."""
    command.add_argument("--max-memory", type=_memory, metavar="SIZE",
                         help="refuse (exit 2), before building anything, a mechanism whose estimated peak "
                              "memory is larger: 4G, 512M, 8e9 (bytes), or none (default: 8G or half this "
                              "machine's memory, the smaller)")
    shown = command.add_mutually_exclusive_group()
    shown.add_argument("--progress", action="store_true",
                       help="show progress on standard error (the default when it is a terminal)")
    shown.add_argument("--quiet", action="store_true", help="show no progress")


def _settings(command: argparse.ArgumentParser) -> None:
    """The option that sets a parametric mechanism's ``[parameters]``: ``--set NAME=VALUE``, repeated
    (every command that takes a mechanism file has it; ``stats`` sets them in each file)."""
    command.add_argument("--set", action="append", type=_setting, default=[], metavar="NAME=VALUE",
                         help="set a parameter of the file's [parameters] (repeat for several; a value may be "
                              "an expression of constants such as pi/4)")


def _setting(text: str) -> tuple[str, float]:
    """A ``NAME=VALUE`` of ``--set``: the value a number or an expression of the constants (``pi / 4``)."""
    from .model.expressions import ExpressionError, evaluate

    name, equals, value = text.partition("=")
    if not equals or not name.strip():
        raise argparse.ArgumentTypeError(f"expected NAME=VALUE, e.g. crank=2.5, got {text!r}")
    try:
        return name.strip(), evaluate(value, {})
    except ExpressionError as error:
        raise argparse.ArgumentTypeError(f"{name.strip()}: {value!r}: {error}") from None


def _memory(text: str) -> float:
    """Bytes of a --max-memory: a size, or none (no bound)."""
    if text.strip().lower() == "none":
        return float("inf")
    from .spaces.budget import parse_size

    try:
        return parse_size(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def cache_folder() -> Path | None:
    """The pair-space cache's folder: ``CSPACE_CACHE`` (``off``, ``no``, ``0`` or empty: none),
    else ``$XDG_CACHE_HOME/cspace``, else ``~/.cache/cspace``."""
    setting = os.environ.get("CSPACE_CACHE")
    if setting is not None and setting.strip().lower() in ("", "0", "off", "no", "false"):
        return None
    if setting:
        return Path(setting)
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "cspace"


def cache_limit() -> float:
    """The pair-space cache's size cap in bytes: ``CSPACE_CACHE_MAX`` (a size such as 500M or 2G,
    or none for no cap), else 500 MB."""
    from .spaces.budget import parse_size
    from .spaces.cache import DEFAULT_LIMIT

    setting = os.environ.get("CSPACE_CACHE_MAX", "").strip()
    if not setting:
        return DEFAULT_LIMIT
    if setting.lower() == "none":
        return float("inf")
    try:
        return parse_size(setting)
    except ValueError as error:
        raise CacheSettingError(f"CSPACE_CACHE_MAX: {error}") from None


def pair_cache():
    """The command line's pair-space cache (:class:`~cspace.spaces.cache.PairCache`), None when it is off."""
    from .spaces.cache import PairCache

    folder = cache_folder()
    return None if folder is None else PairCache(folder, cache_limit())


class CacheSettingError(CspaceError, ValueError):
    """``CSPACE_CACHE_MAX`` is not a size (exit status 2)."""


def workers() -> int:
    """How many processes build pair spaces: ``CSPACE_WORKERS``, else the usable processors."""
    from .spaces.parallel import usable

    setting = os.environ.get("CSPACE_WORKERS", "").strip()
    if not setting:
        return usable()
    if not setting.isdigit() or int(setting) < 1:
        raise WorkersError(f"CSPACE_WORKERS must be a whole number of at least 1, got {setting!r}")
    return int(setting)


class _Said(logging.Handler):
    """The library's warnings as the command line's own lines: ``cspace: warning: ...``."""

    def emit(self, record: logging.LogRecord) -> None:
        say(f"cspace: {record.levelname.lower()}: {record.getMessage()}")


@contextmanager
def _warnings_said() -> Iterator[None]:
    """The ``cspace`` logger's warnings printed on standard error (and only there) while a
    command runs; as it was after."""
    logger = logging.getLogger("cspace")
    handler, propagate = _Said(logging.WARNING), logger.propagate
    logger.addHandler(handler)
    logger.propagate = False
    try:
        yield
    finally:
        logger.removeHandler(handler)
        logger.propagate = propagate


def _progress(options: argparse.Namespace) -> bool:
    """Whether to show progress on standard error: when it is a terminal (or asked), unless ``--quiet``."""
    return not options.quiet and (options.progress or sys.stderr.isatty())


@contextmanager
def _stages(command: str, count: int, options: argparse.Namespace) -> Iterator[Callable[[str], None]]:
    """A line on standard error, while progress is shown, naming the stage a command is at
    (``plot-pair: 2 of 3, tracing``); the function it gives begins the next stage."""
    from tqdm import tqdm

    with tqdm(total=count, desc=command, disable=not _progress(options), file=sys.stderr, leave=False,
              bar_format="{desc}") as bar:
        def begin(stage: str) -> None:
            bar.update()
            bar.set_description_str(f"{command}: {bar.n} of {count}, {stage}")  # shown at once
        yield begin


def _analyzed(path: str, options: argparse.Namespace, parts: dict[str, str] | None = None):
    """The analysis of a mechanism file (or of the example a bare name names), saying on
    standard error where a part drawn touching was moved to start (:mod:`cspace.tracing.start`).
    ``parts`` (argument: part name), the parts the command's arguments name, are checked once
    the file is loaded, before any analysis."""
    from .model.validation import check_part_names
    from .spaces.budget import laptop_bound
    from .tracing.analysis import analyze

    bound = laptop_bound() if options.max_memory is None else options.max_memory
    mechanism = _loaded(path, options)
    check_part_names(mechanism, parts or {})
    analysis = analyze(mechanism, cache=pair_cache(), workers=workers(), max_memory=bound,
                       progress=_progress(options))
    for settled in analysis.settled:
        say(f"cspace: note: {path}: {settled}")
    return analysis


def _loaded(path: str, options: argparse.Namespace):
    """The mechanism of a file, or of the example a bare name names, its parameters set by ``--set``."""
    from .io.examples import mechanism_file
    from .io.loader import load

    return load(mechanism_file(path), dict(getattr(options, "set", ())))


def _trace(args: argparse.Namespace) -> int:
    from .report.describe import describe, path_csv, path_json, region_table, statistics_table, to_json

    _check_path(args)
    start = time.perf_counter()
    result = _traced(args.file, args.until, args, full=True)
    if result.mechanism.dynamics is not None:
        return _report_motion(result, args)
    if args.path == STDOUT:
        write_stdout(path_csv(result, poses=args.poses))
        return 0
    # With --json, standard output is one JSON document holding every report (it parses
    # whatever else is asked for); without, the text reports follow one another.
    if args.json:
        write_stdout(to_json(result, statistics=_statistics(result)))
    else:
        out = []
        if args.describe or not (args.path or args.regions or args.stats):
            out.append(describe(result))
        if args.regions:
            out.append(region_table(result))
        if args.stats:
            stats = _statistics(result)
            # The runtime is the work the report reports: loading, analysing, tracing and
            # the statistics (their degrees of freedom too).
            out.append(statistics_table({**stats, "runtime (s)": round(time.perf_counter() - start, 3)}))
        write_stdout("\n".join(out))
    if args.path is not None:
        csv = args.path.lower().endswith(".csv")
        write_text(args.path, path_csv(result, poses=args.poses) if csv else path_json(result, poses=args.poses))
        say(f"cspace: wrote {args.path}: the path sampled at {len(result.samples())} configurations "
            f"({'CSV' if csv else 'JSON'})")
    return 0


class OptionError(CspaceError):
    """An option the command cannot honour for this mechanism (exit status 2)."""


STDOUT = "-"  # --path -: the path's CSV is standard output


def _check_path(args: argparse.Namespace) -> None:
    """Refuse, before any work, a --path that cannot be written, --poses without --path, and
    --path - beside another report (standard output holds the path alone)."""
    if args.poses and args.path is None:
        raise OptionError("--poses: the poses are columns of the path: add --path OUT")
    if args.path == STDOUT:
        if args.describe or args.json or args.regions or args.stats:
            raise OptionError("--path -: standard output holds the path alone; write it to a file (--path OUT.csv) "
                              "beside --describe, --json, --regions or --stats")
    elif args.path is not None:
        check_output(args.path, (".csv", ".json"), field="--path")


def _report_motion(result, args: argparse.Namespace) -> int:
    """The reports of a full-dynamics path: its stretches (text or JSON) and the sampled path."""
    from .report.motion import describe_motion, motion_csv, motion_json

    if args.regions or args.stats:
        raise OptionError("--regions and --stats report the paper's simple dynamics; a full-dynamics path has "
                       "its stretches (--describe, --json) and its path (--path)")
    if args.path is not None and args.path != STDOUT and not args.path.lower().endswith(".csv"):
        raise OptionError(f"--path {args.path}: a full-dynamics path is written as CSV")
    if args.path == STDOUT:
        write_stdout(motion_csv(result, poses=args.poses))
        return 0
    if args.json:
        write_stdout(motion_json(result))
    elif args.describe or not args.path:
        write_stdout(describe_motion(result))
    if args.path is not None:
        write_text(args.path, motion_csv(result, poses=args.poses))
        say(f"cspace: wrote {args.path}: the path sampled at {len(result.times)} instants (CSV)")
    return 0


def _statistics(result) -> dict:
    """A trace's statistics (Table 2), the rendering's mesh counts among them."""
    from .report.describe import statistics
    from .viz.mesh import with_mesh_counts

    return with_mesh_counts(statistics(result), result.mechanism)


def _stats(args: argparse.Namespace) -> int:
    from .report.describe import statistics_columns

    columns: list[tuple[str, dict]] = []
    for path in args.files:
        start = time.perf_counter()
        result = _traced(path, args.until, args)
        values = _statistics(result)
        columns.append((result.mechanism.name, {**values, "runtime (s)": round(time.perf_counter() - start, 3)}))
    names = _column_names([name for name, _ in columns], args.files)
    write_stdout(statistics_columns(list(zip(names, (values for _, values in columns))),
                                    markdown=args.format == "md"))
    return 0


def _column_names(names: list[str], paths: list[str]) -> list[str]:
    """One distinct name per file argument, in order: the mechanism's own; one taken already
    gives way to its file's path, and that too (the same file given again) to the path and
    the argument's number among those naming that file.

    >>> _column_names(["lever", "lever", "lever", "feeder"], ["a.toml", "a.toml", "a.toml", "f.toml"])
    ['lever', 'a.toml', 'a.toml (3)', 'feeder']
    """
    taken: list[str] = []
    for k, (name, path) in enumerate(zip(names, paths)):
        choice, count = name, paths[:k + 1].count(path)
        if choice in taken:
            choice = path
        while choice in taken:
            choice = f"{path} ({count})"
            count += 1
        taken.append(choice)
    return taken


def _check(args: argparse.Namespace) -> int:
    from .tracing.tracer import trace

    analysis = _analyzed(args.file, args)
    mechanism = analysis.mechanism
    if mechanism.dynamics is not None:
        from .kinetics.simulate import simulate

        motion = simulate(analysis, progress=_progress(args))  # a dry run of the integration
        write_stdout(f"{printable(args.file)}: ok: {len(mechanism.parts)} parts, {len(mechanism.coordinates)} "
                     f"coordinates, full dynamics; integrated {len(motion.stretches)} stretches ({motion.end})\n")
        return 0
    result = trace(analysis, progress=_progress(args))  # a dry run: nothing that trace would refuse passes
    regions = sum(len(p.geometry) for p in analysis.constraining_pairs)
    write_stdout(f"{printable(args.file)}: ok: {len(mechanism.parts)} parts, {len(mechanism.coordinates)} coordinates, "
                 f"{len(mechanism.linkages)} linkages, {len(analysis.pairs)} interacting pairs "
                 f"({len(analysis.constraining_pairs)} constraining, {regions} regions); traced "
                 f"{len(result.segments)} segments ({result.end_reason})\n")
    return 0


# The rendering commands below import viz (pyvista, matplotlib) in their handlers: the library never imports it.
# What each imports that the core install does not hold: the rendering extra, cspace[viz], installs it
# (by module, with its distribution's name). The browser viewer (animate -o OUT.html) and draw's SVG and HTML
# need none of it.
RENDERING = {"animate": ("pyvista", "PIL", "imageio_ffmpeg"), "show": ("pyvista",), "plot-pair": ("matplotlib",),
             "draw": ("matplotlib",)}
DISTRIBUTIONS = {"PIL": "pillow", "imageio_ffmpeg": "imageio-ffmpeg"}


class ExtraError(CspaceError, ImportError):
    """A rendering command run without the rendering extra installed (exit status 2): the message
    says what to install."""


def _require_rendering(command: str) -> None:
    """Raise ExtraError, before any work, unless every module ``command`` renders with is installed."""
    from importlib.util import find_spec

    missing = [DISTRIBUTIONS.get(m, m) for m in RENDERING[command] if find_spec(m) is None]
    if missing:
        names = " and ".join(", ".join(missing).rsplit(", ", 1))
        raise ExtraError(f"{command}: {names} {'is' if len(missing) == 1 else 'are'} not installed; rendering "
                         "needs the viz extra: pip install 'cspace[viz]'")


def _animate(args: argparse.Namespace) -> int:
    if args.output.lower().endswith(".html"):  # the browser viewer: --size is the drawing's, --fps and --view unused
        from cspace.viz.web import check_page, write_html

        check_page(args.output, size=args.size, field="-o")
        samples = write_html(_traced(args.file, args.until, args, full=True), args.output, size=args.size)
        write_stdout(f"{printable(args.output)}: browser viewer, {samples} samples, {args.size[0]}x{args.size[1]}\n")
        return 0
    _require_rendering("animate")
    from cspace.viz.animation import animate, check_animation

    check_animation(args.output, size=args.size, fps=args.fps, field="-o")
    with _stages("animate", 2, args) as stage:
        stage("tracing")
        result = _traced(args.file, args.until, args, full=True)
        stage("rendering the frames")
        frames = animate(result, args.output, size=args.size, view=args.view, fps=args.fps,
                         progress=_progress(args))
    write_stdout(f"{printable(args.output)}: {frames} frames, {args.size[0]}x{args.size[1]}\n")
    return 0


def _draw(args: argparse.Namespace) -> int:
    if args.output.lower().endswith(".png"):
        _require_rendering("draw")
    from cspace.viz.drawing import check_drawing, write_drawing

    check_drawing(args.output, size=args.size, field="-o")
    mechanism = _loaded(args.file, args)
    width, height = write_drawing(mechanism, args.output, size=args.size)
    write_stdout(f"{printable(args.output)}: {printable(mechanism.name)} at its initial configuration, "
                 f"{width}x{height}\n")
    return 0


def _show(args: argparse.Namespace) -> int:
    _require_rendering("show")
    from cspace.viz.viewer import check_display, show

    check_display(os.environ)
    show(_traced(args.file, args.until, args, full=True), size=args.size)
    return 0


def _plot_pair(args: argparse.Namespace) -> int:
    _require_rendering("plot-pair")
    from cspace.viz.output import check_output
    from cspace.viz.pair_plot import FORMATS, find_pair, plot_pair

    check_output(args.output, FORMATS, field="-o")
    with _stages("plot-pair", 3, args) as stage:
        stage("analysing")
        analysis = _analyzed(args.file, args, parts={"PART_A": args.part_a, "PART_B": args.part_b})
        find_pair(analysis, args.part_a, args.part_b)
        stage("tracing")
        if analysis.mechanism.dynamics is not None:  # the dynamic path over the same space
            from .kinetics.simulate import simulate
            result = simulate(analysis, until=args.until, progress=_progress(args))
        else:
            from .tracing.tracer import trace
            result = trace(analysis, until=args.until, progress=_progress(args))
        stage("plotting")
        plot_pair(analysis, result, args.part_a, args.part_b, args.output)
    write_stdout(f"{printable(args.output)}: configuration space of {args.part_a}/{args.part_b}\n")
    return 0


def _cache_info(args: argparse.Namespace) -> int:
    from .spaces.budget import size_text
    from .spaces.cache import usage

    folder, limit = cache_folder(), cache_limit()
    if folder is None:
        write_stdout("cache: off (CSPACE_CACHE)\n")
        return 0
    held = usage(folder)
    lines = [f"location: {printable(str(folder))}", f"entries: {held.entries} ({size_text(held.size)})"]
    if held.other_entries:
        lines.append(f"from other versions of cspace: {held.other_entries} ({size_text(held.other_size)}), "
                     "removed at the next store")
    lines.append(f"cap: {'none' if limit == float('inf') else size_text(limit)} (CSPACE_CACHE_MAX), "
                 "least recently used evicted first")
    write_stdout("\n".join(lines) + "\n")
    return 0


def _cache_clear(args: argparse.Namespace) -> int:
    from .spaces.budget import size_text
    from .spaces.cache import clear

    folder = cache_folder()
    if folder is None:
        write_stdout("cache: off (CSPACE_CACHE)\n")
        return 0
    removed = clear(folder)
    write_stdout(f"{printable(str(folder))}: removed {removed.entries} entries ({size_text(removed.size)})\n")
    return 0


def _examples(args: argparse.Namespace) -> int:
    from .io.examples import listing

    write_stdout(listing())
    return 0


def _regions(args: argparse.Namespace) -> int:
    from cspace.viz.region_table import html_region_table, markdown_region_table

    result = _traced(args.file, args.until, args)
    write_stdout(html_region_table(result) if args.format == "html" else markdown_region_table(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
