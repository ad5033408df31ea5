"""Trace N generated mechanisms and report what went wrong, by kind of failure and family.

Each case (``tests.support.fuzz.generate`` with seed k: a stack, a row, a release of one of
the kinds in ``tests.support.releases``, one of the families with a turning part: a cam, a
lever, a toothed wheel, a released rotation; a pin shifting along z; a nest, islands in
holes up to three deep; or a slider with a sticky bottom driven onto sticky patches of a
table of collinear faces) is loaded, analysed and traced twice, and
the first trace is replayed through the real shapes. Failures are counted independently
(a case may both overlap and leave a part held by nothing):

* ``overlap``: two real parts overlap deeper than the length tolerance at a sample;
* ``held by nothing``: a force-loaded part at rest can move along its force touching
  nothing;
* ``slip``: two parts whose sticky faces grip at a sample and the next (sticky material
  touching sticky material, ``cspace.testing.grips``) moved against each other in
  between (friction holds them in tandem);
* ``not blocked``: a segment ended with its input blocked where the real shapes let the
  input on, the parts it drives moving out of its way (``cspace.testing.unblocked``);
* ``closed form``: a release case (or a released rotation) whose held part is not
  released when it must be, or does not end where it must (a released rotation also
  settles where it must at t = 0); a pin that does not rise into the first hole it fits;
  a block, a nest or a follower that does not stop on the nest's innermost material; a
  slider that does not stop where its sticky bottom first meets a sticky patch;
* ``metamorphic``: a change that cannot change what the mechanism does changed it
  (``tests.support.fuzz.metamorphic_errors``): geometry nothing meets added, random
  ``[tolerance]`` settings with the pair-space cache on and off, the mechanism scaled and
  moved, its force-loaded parts drawn touching and a tenth of a length tolerance apart
  (``--no-metamorphic`` leaves these out: they take about five times a case's trace);
* ``hang``: longer than ``--timeout`` seconds; ``crash``: anything raised (a generated
  mechanism is always well posed); ``nondeterministic``: the two traces' reports differ.

    python tools/fuzz_report.py --cases 500 [--first 0] [--workers 2] [--timeout 600]
                                [--families cam,lever,wheel,released-rotation|dynamic] [--save DIR]
                                [--no-metamorphic]

``--families`` draws from those families only (``rotating`` for the four with a turning
part, ``shifting`` for the pin, ``translating`` for the others; default all); ``--save DIR`` writes each failing
case's text to DIR/seed-N.toml.

Full dynamics (``--families dynamic``, or ``bouncing``, ``pendulum``, ``cam-inertia``: not in
``all``; :mod:`tests.support.dynamic_draws`) is simulated twice and the first path replayed
(``cspace.testing.replay``): ``overlap`` as above, ``limit`` (a coordinate past one of its
limits), ``energy`` (the energy ledger misses by more than ``cspace.testing.energy_bound``),
``closed form`` (free-fall impact times, a pendulum's impacts, a cam follower's lift-off),
``hang``, ``crash``, ``nondeterministic``. A family the engine fails on nearly every case is
marked ``*`` in the table, with the reason below it (``dynamic_draws.KNOWN_FAILING``).
"""

from __future__ import annotations

import argparse
import collections
import multiprocessing
import signal
import statistics
import sys
import time
import traceback
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the repository's root: the generators are test support

from cspace import analyze, loads, trace  # noqa: E402
from cspace.testing import HELD_BY_NOTHING, NOT_BLOCKED, OVERLAP, SLIP, assert_traces_equal, replay  # noqa: E402
from tests.support.dynamic_draws import DYNAMIC, KNOWN_FAILING, check  # noqa: E402
from tests.support.fuzz import (  # noqa: E402
    FAMILIES,
    ROTATING,
    SHIFTING,
    TRANSLATING,
    SeededDraw,
    closed_form_errors,
    generate,
    metamorphic_errors,
)

FAILURES = ("overlap", "held by nothing", "slip", "not blocked", "closed form", "metamorphic", "hang", "crash",
            "nondeterministic")
DYNAMIC_FAILURES = ("overlap", "limit", "energy", "closed form", "hang", "crash", "nondeterministic")


class Hang(Exception):
    pass


def _alarm(signum, frame):
    raise Hang()


def run_case(job: tuple[int, float, tuple[str, ...], bool]) -> tuple[int, str, set[str], float, str, str]:
    """(seed, family, failures, seconds, detail, text) for one generated mechanism."""
    seed, timeout, families, metamorphic = job
    case = generate(SeededDraw(seed), families)
    signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, timeout)
    start = time.perf_counter()
    failures: set[str] = set()
    details: list[str] = []
    try:
        if case.family.split(":")[0] in DYNAMIC:
            for kind, errors in check(case.expected, twice=True).items():
                failures.add(kind)
                details += errors
            return seed, case.family, failures, time.perf_counter() - start, "\n".join(details[:3]), case.text
        first = trace(analyze(loads(case.text, source=f"seed {seed}")))
        second = trace(analyze(loads(case.text, source=f"seed {seed}")))
        try:
            assert_traces_equal(first, second)
        except AssertionError as error:
            failures.add("nondeterministic")
            details.append(str(error))
        for violation in replay(first):
            failures.add({OVERLAP: "overlap", HELD_BY_NOTHING: "held by nothing", SLIP: "slip",
                          NOT_BLOCKED: "not blocked"}[violation.kind])
            details.append(str(violation))
        errors = closed_form_errors(first, case.expected)
        if errors:
            failures.add("closed form")
            details += errors
        if metamorphic:
            errors = metamorphic_errors(loads(case.text, source=f"seed {seed}"), first, seed)
            if errors:
                failures.add("metamorphic")
                details += errors
    except Hang:
        failures.add("hang")
        details.append(f"over {timeout:g} s")
    except Exception as error:  # the report counts every failure; none may escape uncounted
        failures.add("crash")
        details.append(f"{type(error).__name__}: {error}\n{traceback.format_exc(limit=3)}")
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
    return seed, case.family, failures, time.perf_counter() - start, "\n".join(details[:3]), case.text


def table(results: list) -> str:
    """Cases and failures per family, and in all, one column per kind of failure (full dynamics'
    columns for its families); a known-failing family is marked ``*``, its reason below."""
    families = sorted({r[1] for r in results})
    dynamic = {f.split(":")[0] in DYNAMIC for f in families}
    columns = DYNAMIC_FAILURES if dynamic == {True} else FAILURES if dynamic == {False} else \
        FAILURES[:1] + ("limit", "energy") + FAILURES[1:]
    header = ["family", "cases", "ok"] + list(columns)
    rows = []
    for family in families + ["all"]:
        mine = [r for r in results if family in ("all", r[1])]
        counts = collections.Counter(f for r in mine for f in r[2])
        label = family + (" *" if family.split(":")[0] in KNOWN_FAILING else "")
        rows.append([label, len(mine), sum(1 for r in mine if not r[2])] + [counts[f] for f in columns])
    widths = [max(len(str(row[k])) for row in rows + [header]) for k in range(len(header))]
    lines = ["  ".join(str(v).rjust(w) if k else str(v).ljust(w) for k, (v, w) in enumerate(zip(row, widths)))
             for row in [header] + rows]
    known = sorted({f.split(":")[0] for f in families} & set(KNOWN_FAILING))
    return "\n".join(lines + [f"* known failing: {f}: {KNOWN_FAILING[f]}" for f in known])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=500)
    parser.add_argument("--first", type=int, default=0, help="first seed")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds before a case counts as a hang")
    parser.add_argument("--no-metamorphic", dest="metamorphic", action="store_false",
                        help="leave out the metamorphic checks")
    parser.add_argument("--families", default="all",
                        help="comma-separated families to draw from, or all, rotating, translating, shifting, "
                             "dynamic")
    parser.add_argument("--save", type=Path, help="directory to write each failing case's text to")
    args = parser.parse_args()
    groups = {"all": FAMILIES, "rotating": ROTATING, "translating": TRANSLATING, "shifting": SHIFTING,
              "dynamic": DYNAMIC}
    families = groups.get(args.families) or tuple(args.families.split(","))
    unknown = set(families) - set(FAMILIES) - set(DYNAMIC)
    if unknown:
        parser.error(f"unknown families {sorted(unknown)}; they are {', '.join(FAMILIES + DYNAMIC)}")
    jobs = [(seed, args.timeout, families, args.metamorphic) for seed in range(args.first, args.first + args.cases)]
    start = time.perf_counter()
    with multiprocessing.Pool(args.workers) as pool:
        results = sorted(pool.imap_unordered(run_case, jobs, chunksize=1))
    seconds = [r[3] for r in results]
    print(f"cases tried: {len(results)} (seeds {args.first}..{args.first + args.cases - 1}; "
          f"families {', '.join(families)})\n")
    print(table(results))
    print(f"\nseconds per case: median {statistics.median(seconds):.2f}, max {max(seconds):.2f}; "
          f"wall {time.perf_counter() - start:.0f} s on {args.workers} workers")
    slowest = sorted(results, key=lambda r: -r[3])[:3]
    print("slowest: " + ", ".join(f"seed {r[0]} ({r[1]}) {r[3]:.1f} s" for r in slowest))
    if args.save:
        args.save.mkdir(parents=True, exist_ok=True)
    for seed, family, failures, _, detail, text in results:
        if failures:
            print(f"\nseed {seed} ({family}): {', '.join(sorted(failures))}\n{detail}")
            if args.save:
                (args.save / f"seed-{seed}.toml").write_text(text)


if __name__ == "__main__":
    main()
