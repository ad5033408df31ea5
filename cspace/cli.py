"""The ``cspace`` command line.

Bad input (a malformed or impossible mechanism, a bad option) prints one line,
``cspace: error: <file>: <element>: <field>: <what is wrong>``, and exits with status 2.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from .analysis import analyze
from .describe import (
    describe,
    path_csv,
    path_json,
    region_table,
    statistics,
    statistics_table,
    to_json,
)
from .errors import CspaceError, ModelError
from .loader import load
from .tracer import trace

EXIT_BAD_INPUT = 2


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        return args.run(args)
    except CspaceError as error:
        print(f"cspace: error: {error}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        print("cspace: interrupted", file=sys.stderr)
        return 130


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="cspace", description="Configuration-space simulation of rigid-part mechanisms with simple dynamics.")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    run = commands.add_parser("trace", help="trace the path the mechanism follows under its input motions",
                              description="Trace the mechanism and report its behaviour. With no report "
                                          "option, prints the symbolic description (--describe).")
    run.add_argument("file", help="mechanism file (TOML)")
    run.add_argument("--describe", action="store_true", help="print the description of each segment (Figure 4)")
    run.add_argument("--json", action="store_true", help="print the description as JSON")
    run.add_argument("--path", metavar="OUT", help="write the sampled path to OUT (.csv or .json)")
    run.add_argument("--regions", action="store_true", help="print the regions each segment crossed (Figure 10)")
    run.add_argument("--stats", action="store_true", help="print statistics (Table 2)")
    run.add_argument("--until", type=_time, metavar="T", help="stop after T seconds of input motion "
                                                             "(default: the file's time allotment)")
    run.set_defaults(run=_trace)

    check = commands.add_parser("check", help="validate a mechanism file without tracing it",
                                description="Load the file, solve its linkages, check the initial "
                                            "configuration and build every pair space.")
    check.add_argument("file", help="mechanism file (TOML)")
    check.set_defaults(run=_check)
    return parser


def _time(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not value >= 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"must be a non-negative number of seconds, got {text}")
    return value


def _trace(args: argparse.Namespace) -> int:
    if args.path is not None:
        _check_output(args.path)
    start = time.perf_counter()
    mechanism = load(args.file)
    result = trace(analyze(mechanism), until=args.until)
    seconds = time.perf_counter() - start
    show_describe = args.describe or not (args.json or args.path or args.regions or args.stats)
    out = []
    if show_describe:
        out.append(describe(result))
    if args.regions:
        out.append(region_table(result))
    stats = statistics(result) if (args.stats or args.json) else {}
    if args.stats:
        out.append(statistics_table({**stats, "runtime (s)": round(seconds, 3)}))
    if args.json:
        out.append(to_json(result, statistics=stats))
    sys.stdout.write("\n".join(out))
    if args.path is not None:
        text = path_csv(result) if args.path.lower().endswith(".csv") else path_json(result)
        Path(args.path).write_text(text, encoding="utf-8")
    return 0


def _check(args: argparse.Namespace) -> int:
    mechanism = load(args.file)
    analysis = analyze(mechanism)
    regions = sum(len(p.regions) for p in analysis.constraining_pairs)
    print(f"{args.file}: ok: {len(mechanism.parts)} parts, {len(mechanism.coordinates)} coordinates, "
          f"{len(mechanism.linkages)} linkages, {len(analysis.pairs)} interacting pairs "
          f"({len(analysis.constraining_pairs)} constraining, {regions} regions)")
    return 0


def _check_output(path: str) -> None:
    target = Path(path)
    if target.suffix.lower() not in (".csv", ".json"):
        raise ModelError(f"unsupported extension {target.suffix or '(none)'!r}; use .csv or .json",
                         file=path, field="--path")
    if not target.parent.exists():
        raise ModelError(f"directory {str(target.parent)!r} does not exist", file=path, field="--path")


if __name__ == "__main__":
    sys.exit(main())
