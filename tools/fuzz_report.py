"""Trace N generated mechanisms and report what went wrong.

Each case (``cspace.fuzz.mechanism`` with seed k) is loaded, analysed and traced
twice, and the first trace is replayed through the real shapes. It counts as

* a *hang* if it takes longer than ``--timeout`` seconds,
* a *crash* if anything raises (a generated mechanism is always well posed),
* *nondeterministic* if the two traces' reports differ,
* an *overlap* or *unsupported* case if the shapely replay finds one.

    python tools/fuzz_report.py --cases 500 [--first 0] [--workers 2] [--timeout 120]
"""

from __future__ import annotations

import argparse
import collections
import multiprocessing
import signal
import statistics
import time
import traceback

from cspace import analyze, loads, trace
from cspace.fuzz import SeededDraw, mechanism
from cspace.testing import assert_traces_equal, replay

OUTCOMES = ("ok", "overlap", "unsupported", "hang", "crash", "nondeterministic")


class Hang(Exception):
    pass


def _alarm(signum, frame):
    raise Hang()


def run_case(job: tuple[int, float]) -> tuple[int, str, float, str]:
    """(seed, outcome, seconds, detail) for one generated mechanism."""
    seed, timeout = job
    text = mechanism(SeededDraw(seed))
    signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, timeout)
    start = time.perf_counter()
    try:
        first = trace(analyze(loads(text, source=f"seed {seed}")))
        second = trace(analyze(loads(text, source=f"seed {seed}")))
        try:
            assert_traces_equal(first, second)
        except AssertionError as error:
            return seed, "nondeterministic", time.perf_counter() - start, str(error)
        violations = replay(first)
        if violations:
            kind = "overlap" if any(v.kind == "overlap" for v in violations) else "unsupported"
            return seed, kind, time.perf_counter() - start, str(violations[0])
        return seed, "ok", time.perf_counter() - start, ""
    except Hang:
        return seed, "hang", time.perf_counter() - start, f"over {timeout:g} s"
    except Exception as error:  # the report counts every failure; none may escape uncounted
        detail = f"{type(error).__name__}: {error}\n{traceback.format_exc(limit=3)}"
        return seed, "crash", time.perf_counter() - start, detail
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=500)
    parser.add_argument("--first", type=int, default=0, help="first seed")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds before a case counts as a hang")
    args = parser.parse_args()
    jobs = [(seed, args.timeout) for seed in range(args.first, args.first + args.cases)]
    start = time.perf_counter()
    with multiprocessing.Pool(args.workers) as pool:
        results = sorted(pool.imap_unordered(run_case, jobs, chunksize=1))
    counts = collections.Counter(outcome for _, outcome, _, _ in results)
    seconds = [s for _, _, s, _ in results]
    print(f"cases tried       {len(results)} (seeds {args.first}..{args.first + args.cases - 1})")
    for outcome in OUTCOMES:
        print(f"{outcome:<18}{counts[outcome]}")
    print(f"seconds per case  median {statistics.median(seconds):.2f}, max {max(seconds):.2f}; "
          f"wall {time.perf_counter() - start:.0f} s on {args.workers} workers")
    for seed, outcome, _, detail in results:
        if outcome != "ok":
            print(f"\nseed {seed}: {outcome}\n{detail}")


if __name__ == "__main__":
    main()
