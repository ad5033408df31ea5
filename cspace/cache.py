"""A disk cache of pair spaces, keyed by content: a second run of a mechanism is instant.

A pair space depends only on the two parts' shapes (slices, profiles, face names),
how their axes move one relative to the other, the tolerances that shape the exact
geometry, and the code that builds it; the key is a hash of all of these, so editing
a part, a tolerance or cspace itself misses the cache instead of reading a stale
entry. Names of parts and coordinates are not in it: an entry is relabelled for the
pair that reads it. Entries are JSON (never pickle: a cache file
cannot run code), written atomically.

The cache lives in ``$CSPACE_CACHE``, else ``$XDG_CACHE_HOME/cspace``, else
``~/.cache/cspace``; ``CSPACE_CACHE=off`` disables it. A cache that cannot be read or
written is simply not used: it only ever saves time.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from dataclasses import astuple
from pathlib import Path

import numpy as np

from . import decompose, geometry, minkowski, pairspace
from .model import Slice
from .pairspace import Contact, PairSpace, Region, RegionEdge
from .tolerance import Tolerance

FORMAT = 2
_CODE = hashlib.sha256(b"".join(Path(m.__file__).read_bytes()
                                for m in (geometry, minkowski, decompose, pairspace))).hexdigest()


def folder() -> Path | None:
    """Where pair spaces are cached, or None when caching is off."""
    setting = os.environ.get("CSPACE_CACHE")
    if setting is not None and setting.strip().lower() in ("", "0", "off", "no", "false"):
        return None
    if setting:
        return Path(setting)
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "cspace"


def key(slices_a: tuple[Slice, ...], slices_b: tuple[Slice, ...], columns: list, tolerance: Tolerance) -> str:
    """Content hash of everything a pair space depends on: shapes, relative axes, tolerances, code.

    Part and coordinate names are not in it (a space is relabelled for each pair);
    face names are. Built from the exact field values (``astuple``), never from
    display reprs, which abbreviate and round.
    """
    shapes = tuple(tuple(astuple(s) for s in slices) for slices in (slices_a, slices_b))
    text = repr((FORMAT, _CODE, shapes, [tuple(map(str, c)) for c in columns], tolerance.quantum, tolerance.arc))
    return hashlib.sha256(text.encode()).hexdigest()


def load(digest: str) -> PairSpace | None:
    """The cached pair space for ``digest``, if there is a readable one."""
    where = folder()
    if where is None:
        return None
    try:
        return _decode(json.loads((where / "pairs" / f"{digest}.json").read_text()))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def store(digest: str, space: PairSpace) -> None:
    """Keep a pair space for next time (atomically; silently not if the folder is unusable)."""
    where = folder()
    if where is None:
        return
    try:
        target = where / "pairs"
        target.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile("w", dir=target, suffix=".tmp", delete=False) as handle:
            json.dump(_encode(space), handle)
        os.replace(handle.name, target / f"{digest}.json")
    except OSError:
        return


def _encode(space: PairSpace) -> dict:
    return {
        "part_a": space.part_a, "part_b": space.part_b, "coordinates": list(space.coordinates),
        "matrix": space.matrix.tolist(), "blocked": [p.tolist() for p in space.blocked],
        "regions": [{
            "name": r.name, "rows": r.rows.tolist(), "bounds": r.bounds.tolist(), "vertices": r.vertices.tolist(),
            "dimension": r.dimension, "bbox": list(r.bbox),
            "edges": [[e.row, list(e.start), list(e.end),
                       [[c.part_a, list(c.faces_a), c.part_b, list(c.faces_b)] for c in e.contacts]]
                      for e in r.edges],
        } for r in space.regions],
    }


def _decode(data: dict) -> PairSpace:
    k = len(data["matrix"])
    regions = []
    for r in data["regions"]:
        edges = tuple(RegionEdge(row, tuple(start), tuple(end),
                                 tuple(Contact(pa, tuple(fa), pb, tuple(fb)) for pa, fa, pb, fb in contacts))
                      for row, start, end, contacts in r["edges"])
        regions.append(Region(r["name"], np.array(r["rows"], float).reshape(-1, k), np.array(r["bounds"], float),
                              np.array(r["vertices"], float).reshape(-1, k), edges, r["dimension"],
                              tuple(r["bbox"])))
    return PairSpace(data["part_a"], data["part_b"], tuple(data["coordinates"]),
                     np.array(data["matrix"], float), tuple(regions),
                     tuple(np.array(p, float) for p in data["blocked"]))
