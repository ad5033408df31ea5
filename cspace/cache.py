"""A disk cache of pair spaces, keyed by content: a second run of a mechanism is instant.

A pair space depends only on the two parts' shapes (slices, profiles, face names),
how their axes move one relative to the other, the tolerances that shape the exact
geometry, and the code that builds it. The key is a hash of all of these; "the code"
is the source of every module of the ``cspace`` package, so any change to cspace
misses the cache rather than read an entry an older builder wrote. Names of parts and
coordinates are not in it: an entry is relabelled for the pair that reads it.

The cache must never change an answer, so an entry is used only if it validates:

* it is a regular file (not a FIFO, a device, a symlink or a directory) of at most
  ``MAX_BYTES``, read without following links or blocking;
* it is JSON of the expected shape: every field present with the right type, sizes
  that agree (a region's rows, bounds and vertices over the pair's dimension, edges
  on rows it has), finite numbers, contacts between the pair's two parts;
* it was stored under the digest it is read for, and the SHA-256 of its content
  matches the checksum stored with it, so no edit, truncation or swap goes unseen.

Anything else is discarded (deleted), recomputed and rewritten, with one line on
standard error (``cspace: warning: discarded a damaged cache entry ...``). Entries are
JSON, never pickle: a cache file cannot run code. They are written to a temporary
file and renamed into place; temporary files a killed run left behind are removed
once they are a minute old (a concurrent writer's fresh one is left alone).

The cache lives in ``$CSPACE_CACHE``, else ``$XDG_CACHE_HOME/cspace``, else
``~/.cache/cspace``; ``CSPACE_CACHE=off`` disables it. A cache folder that cannot be
read or written is simply not used: it only ever saves time.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
import shutil
import stat
import sys
import tempfile
import time
from dataclasses import astuple
from itertools import chain
from pathlib import Path

import numpy as np

from .model import Slice
from .pairspace import Contact, PairSpace, Region, RegionEdge
from .tolerance import Tolerance

FORMAT = 5
_ENVELOPE = '{{"format": {format}, "key": "{key}", "checksum": "{checksum}", "space": {space}}}'
_ENTRY = re.compile(r'\{"format": (?P<format>[0-9]{1,9}), "key": "(?P<key>[0-9a-f]{64})", '
                    r'"checksum": "(?P<checksum>[0-9a-f]{64})", "space": (?P<space>.*)\}', re.DOTALL)
MAX_BYTES = 256 * 1024 * 1024  # no pair space of a valid mechanism comes near this
NUMBERS = {int, float}  # JSON numbers (a bool is not one)
STALE_SECONDS = 60.0  # a temporary file this old belongs to a run that was killed
_PACKAGE = Path(__file__).resolve().parent
_CODE = hashlib.sha256(b"".join(path.name.encode() + b"\0" + path.read_bytes()
                                for path in sorted(_PACKAGE.glob("*.py")))).hexdigest()


class Damaged(Exception):
    """A cache entry that must not be used; the message says why."""


def folder() -> Path | None:
    """Where pair spaces are cached, or None when caching is off."""
    setting = os.environ.get("CSPACE_CACHE")
    if setting is not None and setting.strip().lower() in ("", "0", "off", "no", "false"):
        return None
    if setting:
        return Path(setting)
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "cspace"


def key(slices_a: tuple[Slice, ...], slices_b: tuple[Slice, ...], columns: list, tolerance: Tolerance,
        origin: tuple[float, float] = (0.0, 0.0)) -> str:
    """Content hash of everything a pair space depends on: shapes, relative axes, tolerances,
    the origin the geometry is gridded from, code.

    Part and coordinate names are not in it (a space is relabelled for each pair);
    face names are. Built from the exact field values (``astuple``), never from
    display reprs, which abbreviate and round.
    """
    shapes = tuple(tuple(astuple(s) for s in slices) for slices in (slices_a, slices_b))
    text = repr((FORMAT, _CODE, shapes, [tuple(map(str, c)) for c in columns], tolerance.quantum, tolerance.arc,
                 origin))
    return hashlib.sha256(text.encode()).hexdigest()


def load(digest: str) -> PairSpace | None:
    """The cached pair space for ``digest``, if there is a valid one.

    A damaged entry is deleted, with one line on standard error, and None returned so
    the caller computes the space again and stores it.
    """
    where = folder()
    if where is None:
        return None
    path = where / "pairs" / f"{digest}.json"
    try:
        text = _read(path)
    except FileNotFoundError:
        return None
    except Damaged as damage:
        _discard(path, str(damage))
        return None
    except OSError:
        return None  # an unreadable folder: the cache is not used
    try:
        return _decode(_unwrap(text, digest))
    except Damaged as damage:
        _discard(path, str(damage))
        return None


def store(digest: str, space: PairSpace) -> None:
    """Keep a pair space for next time (atomically; silently not if the folder is unusable)."""
    where = folder()
    if where is None:
        return
    target = where / "pairs"
    try:
        target.mkdir(parents=True, exist_ok=True)
        _remove_stale(target)
        content = json.dumps(_encode(space))
        with tempfile.NamedTemporaryFile("w", dir=target, suffix=".tmp", delete=False) as handle:
            handle.write(_ENVELOPE.format(format=FORMAT, key=digest, checksum=_sha256(content), space=content))
        os.replace(handle.name, target / f"{digest}.json")
    except OSError:
        return


def _read(path: Path) -> str:
    """An entry's text: a regular file of bounded size, opened without following links or blocking."""
    info = os.lstat(path)
    if not stat.S_ISREG(info.st_mode):
        raise Damaged("not a regular file")
    if info.st_size > MAX_BYTES:
        raise Damaged(f"{info.st_size} bytes, more than any pair space")
    descriptor = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    with os.fdopen(descriptor, "rb") as handle:
        if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
            raise Damaged("not a regular file")
        data = handle.read(MAX_BYTES + 1)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise Damaged("not UTF-8 text") from None


def _unwrap(text: str, digest: str) -> dict:
    """The pair space's content from an entry, once its format, key and checksum match.

    An entry is one JSON object, its fields in a fixed order; the checksum is that of the
    content's text as it stands in the file, so it is checked before that text is parsed
    (and without writing the content out again)."""
    match = _ENTRY.fullmatch(text)
    if match is None:
        raise Damaged("not a cache entry (format, key, checksum and space, in that order)")
    if int(match["format"]) != FORMAT:
        raise Damaged(f"format {match['format']}, expected {FORMAT}")
    if match["key"] != digest:
        raise Damaged("stored under another key")
    if match["checksum"] != _sha256(match["space"]):
        raise Damaged("checksum does not match its content")
    try:
        content = json.loads(match["space"])
    except (ValueError, RecursionError):
        raise Damaged("not valid JSON") from None
    if not isinstance(content, dict):
        raise Damaged("space is not an object")
    return content


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def _discard(path: Path, reason: str) -> None:
    """Delete a damaged entry (a directory in its place too) and say so on one line."""
    print(f"cspace: warning: discarded a damaged cache entry {path} ({reason}); recomputing it",
          file=sys.stderr)
    try:
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        else:
            path.unlink()
    except OSError:
        return


def _remove_stale(target: Path) -> None:
    """Remove temporary files that a killed run left behind."""
    now = time.time()
    for leftover in target.glob("*.tmp"):
        try:
            if now - leftover.lstat().st_mtime > STALE_SECONDS:
                leftover.unlink()
        except OSError:
            continue


def _encode(space: PairSpace) -> dict:
    return {
        "part_a": space.part_a, "part_b": space.part_b, "coordinates": list(space.coordinates),
        "matrix": space.matrix.tolist(), "blocked": [p.tolist() for p in space.blocked],
        "periods": list(space.periods),
        "regions": [{
            "name": r.name, "rows": r.rows.tolist(), "bounds": r.bounds.tolist(), "vertices": r.vertices.tolist(),
            "dimension": r.dimension, "bbox": list(r.bbox),
            "edges": [[e.row, list(e.start), list(e.end),
                       [[c.part_a, list(c.faces_a), c.part_b, list(c.faces_b)] for c in e.contacts]]
                      for e in r.edges],
        } for r in space.regions],
    }


def _decode(data: dict) -> PairSpace:
    """A pair space from validated content; raises Damaged at the first thing out of shape."""
    _fields(data, "space", {"part_a": str, "part_b": str, "coordinates": list, "matrix": list, "blocked": list,
                            "periods": list, "regions": list})
    parts = (data["part_a"], data["part_b"])
    if not all(isinstance(c, str) for c in data["coordinates"]):
        raise Damaged("coordinates are not names")
    matrix = _matrix(data["matrix"], "matrix", len(data["coordinates"]))
    k = matrix.shape[0]
    if k not in (1, 2):
        raise Damaged(f"a pair space of dimension {k}")
    if not all(isinstance(piece, list) for piece in data["blocked"]):
        raise Damaged("blocked is not rows of 2 numbers")
    blocked = tuple(_split(_matrix([point for piece in data["blocked"] for point in piece], "blocked", 2),
                           np.array([len(piece) for piece in data["blocked"]], int)))
    periods = _vector(data["periods"], "periods")
    if len(periods) not in (0, k) or any(p < 0 for p in periods):
        raise Damaged(f"periods {periods!r} for a space of dimension {k}")
    regions = _regions(data["regions"], k, parts)
    if not regions:
        raise Damaged("no regions")
    return PairSpace(parts[0], parts[1], tuple(data["coordinates"]), matrix, regions, blocked,
                     tuple(float(p) for p in periods))


REGION_FIELDS = {"name": str, "rows": list, "bounds": list, "vertices": list, "dimension": int, "bbox": list,
                 "edges": list}


def _regions(data: list, k: int, parts: tuple[str, str]) -> tuple[Region, ...]:
    """Every region, checked together: each one's fields and sizes, then all their numbers
    at once (a gear pair's thousands of regions), each contact once."""
    for region in data:
        _fields(region, "region", REGION_FIELDS)
    sizes = {name: np.array([len(region[name]) for region in data], int) for name in ("rows", "bounds", "vertices")}
    for region, rows, bounds in zip(data, sizes["rows"].tolist(), sizes["bounds"].tolist()):
        if rows != bounds:
            raise Damaged(f"region {region['name']!r} has {rows} rows and {bounds} bounds")
        if region["dimension"] not in (0, 1, 2) or region["dimension"] > k:
            raise Damaged(f"region {region['name']!r} of dimension {region['dimension']}")
        if len(region["bbox"]) != 2 * k:
            raise Damaged(f"region {region['name']!r} has a box of {len(region['bbox'])} numbers")
    rows = _split(_matrix([r for region in data for r in region["rows"]], "rows", k), sizes["rows"])
    bounds = _split(np.array(_vector([b for region in data for b in region["bounds"]], "bounds"), float),
                    sizes["bounds"])
    vertices = _split(_matrix([v for region in data for v in region["vertices"]], "vertices", k), sizes["vertices"])
    boxes = _vector([x for region in data for x in region["bbox"]], "bbox")
    edges = _edges([region["edges"] for region in data], sizes["rows"], k, parts)
    return tuple(Region(region["name"], rows[i], bounds[i], vertices[i], edges[i], region["dimension"],
                        tuple(float(v) for v in boxes[2 * k * i:2 * k * (i + 1)]))
                 for i, region in enumerate(data))


def _split(values: np.ndarray, sizes: np.ndarray) -> list[np.ndarray]:
    """``values`` cut into consecutive pieces of ``sizes`` rows."""
    return np.split(values, np.cumsum(sizes)[:-1]) if len(sizes) else []


def _edges(data: list[list], rows: np.ndarray, k: int, parts: tuple[str, str]) -> list[tuple[RegionEdge, ...]]:
    """Each region's edges (``data[i]`` those of region i, which has ``rows[i]`` rows),
    checked together: the numbers in bulk, each contact once per space."""
    flat = [edge for edges in data for edge in edges]
    if not all(type(e) is list and len(e) == 4 for e in flat):
        raise Damaged("an edge is not [row, start, end, contacts]")
    if not flat:
        return [() for _ in data]
    numbers, starts, ends, labels = zip(*flat)
    owner = np.repeat(np.arange(len(data)), [len(edges) for edges in data])
    if not set(map(type, numbers)) <= {int} or min(numbers) < 0 or \
            any(n >= r for n, r in zip(numbers, rows[owner].tolist())):
        raise Damaged("an edge on a row outside its region")
    starts = _matrix(list(starts), "edge start", k).tolist()
    ends = _matrix(list(ends), "edge end", k).tolist()
    if not all(type(c) is list for c in labels):
        raise Damaged("an edge of the wrong dimension")
    contacts: dict[tuple, Contact] = {}
    made = [RegionEdge(row, tuple(start), tuple(end), tuple(_contact(c, parts, contacts) for c in label))
            for row, start, end, label in zip(numbers, starts, ends, labels)]
    out, first = [], 0
    for edges in data:
        out.append(tuple(made[first:first + len(edges)]))
        first += len(edges)
    return out


def _contact(data, parts: tuple[str, str], seen: dict) -> Contact:
    """A contact, checked the first time it is met (``seen`` keeps it)."""
    if not (type(data) is list and len(data) == 4 and type(data[1]) is list and type(data[3]) is list):
        raise Damaged("a contact is not [part, faces, part, faces]")
    key = (data[0], tuple(data[1]), data[2], tuple(data[3]))
    try:
        if key in seen:
            return seen[key]
    except TypeError:  # a part or face that is not a name
        raise Damaged("a contact's parts and faces are not names") from None
    part_a, faces_a, part_b, faces_b = data
    if (part_a, part_b) != parts:
        raise Damaged(f"a contact between {part_a!r} and {part_b!r} in the space of {parts[0]!r}/{parts[1]!r}")
    for faces in (faces_a, faces_b):
        if not (isinstance(faces, list) and faces and all(isinstance(f, str) for f in faces)):
            raise Damaged("a contact's faces are not names")
    seen[key] = Contact(part_a, tuple(faces_a), part_b, tuple(faces_b))
    return seen[key]


def _fields(data, what: str, expected: dict[str, type]) -> None:
    """``data`` is a dict with exactly these fields, of these types (bool is not an int here)."""
    if not isinstance(data, dict) or set(data) != set(expected):
        raise Damaged(f"{what} does not have the fields {sorted(expected)}")
    for name, kind in expected.items():
        if not isinstance(data[name], kind) or (kind is int and isinstance(data[name], bool)):
            raise Damaged(f"{what} field {name!r} is not a {kind.__name__}")


def _vector(values, what: str) -> list[float]:
    try:
        if isinstance(values, list) and set(map(type, values)) <= NUMBERS and all(map(math.isfinite, values)):
            return values
    except OverflowError:  # an integer too large for a float
        pass
    raise Damaged(f"{what} is not a list of finite numbers")


def _matrix(values, what: str, width: int) -> np.ndarray:
    """A list of rows of ``width`` finite numbers, as an array of shape (rows, width)."""
    if not isinstance(values, list) or not all(type(r) is list and len(r) == width for r in values):
        raise Damaged(f"{what} is not rows of {width} numbers")
    _vector(list(chain.from_iterable(values)), what)
    return np.array(values, float).reshape(-1, width)
