"""Reports of a full-dynamics path (:class:`cspace.kinetics.result.DynamicTrace`): the stretches
as records in the manner of the paper's Figure 4, with their mode and energy ledger; JSON; and
the sampled path, rates and energies as CSV. Formatting only.
"""

from __future__ import annotations

import csv
import io
import json

from ..kinetics.result import DynamicTrace, Stretch
from ..model.kinds import Mode

DIGITS = 10  # significant digits of a number in a report: far below the integration's error


def describe_motion(result: DynamicTrace) -> str:
    """One record per stretch: its mode and time span, its contacts, how each moving part's
    coordinates and rates change, and its energies (kinetic, potential, the loads' work, the
    losses).

    >>> from cspace import analyze, load, simulate
    >>> print(describe_motion(simulate(analyze(load("fixtures/bouncing-block.toml")), until=0.5)).split("\\n\\n")[1])
    stretch 2: impact at t = 0.451523641
    (contact floor.top/block.bottom)
    (block moves (y -1) (rate -4.429446918 2.214723459))
    (energy (kinetic 9.81 2.4525) (potential 4.905 4.905) (lost 7.3575))
    ends: impact
    """
    return "\n\n".join(_record(result, stretch) for stretch in result.stretches) + f"\n\nend: {result.end}\n"


def _record(result: DynamicTrace, stretch: Stretch) -> str:
    span = (f"at t = {_n(stretch.start)}" if stretch.start == stretch.end
            else f"from t = {_n(stretch.start)} to t = {_n(stretch.end)}")
    lines = [f"stretch {stretch.index}: {stretch.mode} {span}"]
    lines += [f"(contact {name})" for name in stretch.contacts]
    index = {c.name: i for i, c in enumerate(result.mechanism.coordinates)}
    for part in result.mechanism.parts:
        names = [name for name in part.coordinates if name in index]
        if not names:
            continue
        moved = any(stretch.q0[index[n]] != stretch.q1[index[n]] or stretch.v0[index[n]] != stretch.v1[index[n]]
                    for n in names)
        still = all(stretch.v0[index[n]] == 0 == stretch.v1[index[n]] for n in names)
        verb = "stationary" if still else "moves" if moved else "moves steadily"
        values = " ".join(_change(n, stretch.q0[index[n]], stretch.q1[index[n]], stretch.v0[index[n]],
                                  stretch.v1[index[n]], stretch.mode == Mode.IMPACT) for n in names)
        lines.append(f"({part.name} {verb} {values})")
    e0, e1 = stretch.energies0, stretch.energies1
    ledger = f"(kinetic {_n(e0.kinetic)} {_n(e1.kinetic)}) (potential {_n(e0.potential)} {_n(e1.potential)})"
    if stretch.work:
        ledger += f" (work {_n(stretch.work)})"
    if stretch.losses:
        ledger += f" (lost {_n(stretch.losses)})"
    lines.append(f"(energy {ledger})")
    lines.append(f"ends: {stretch.ended}")
    return "\n".join(lines)


def _change(name: str, q0: float, q1: float, v0: float, v1: float, instant: bool) -> str:
    where = f"({name} {_n(q0)})" if instant or q0 == q1 else f"({name} {_n(q0)} {_n(q1)})"
    rate = f"(rate {_n(v0)})" if v0 == v1 else f"(rate {_n(v0)} {_n(v1)})"
    return f"{where} {rate}"


def motion_json(result: DynamicTrace) -> str:
    """The stretches and the path's size as one JSON document (numbers as computed)."""
    names = [c.name for c in result.mechanism.coordinates]
    stretches = [{"index": s.index, "mode": str(s.mode), "start": s.start, "end": s.end, "contacts": list(s.contacts),
                  "from": dict(zip(names, s.q0)), "to": dict(zip(names, s.q1)),
                  "rates from": dict(zip(names, s.v0)), "rates to": dict(zip(names, s.v1)),
                  "kinetic": [s.energies0.kinetic, s.energies1.kinetic],
                  "potential": [s.energies0.potential, s.energies1.potential],
                  "work": s.work, "losses": s.losses, "ends": s.ended} for s in result.stretches]
    document = {"mechanism": result.mechanism.name, "dynamics": "full", "end": result.end,
                "samples": len(result.times), "stretches": stretches}
    return json.dumps(document, indent=1) + "\n"


def motion_csv(result: DynamicTrace, poses: bool = False) -> str:
    """The sampled path: time, every coordinate, every rate (``d`` + its name), kinetic and potential
    energy; with ``poses``, then each moving part's pose (:mod:`cspace.report.poses`)."""
    from .poses import pose_columns, pose_rows

    names = [c.name for c in result.mechanism.coordinates]
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    columns = pose_columns(result.mechanism) if poses else []
    writer.writerow(["time"] + names + [f"d{n}" for n in names] + ["kinetic", "potential"] + columns)
    placed = pose_rows(result, result.configs) if poses else [[] for _ in result.times]
    for t, q, v, e, p in zip(result.times, result.configs, result.rates, result.energies, placed):
        writer.writerow([repr(float(x)) for x in (t, *q, *v, *e, *p)])
    return out.getvalue()


def _n(value: float) -> str:
    text = f"{value:.{DIGITS}g}"
    return "0" if text == "-0" else text
