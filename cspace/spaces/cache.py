"""A disk cache of pair spaces, keyed by content: a second run of a mechanism is instant.

A pair space depends only on what its builder reads: the two parts' shapes (slices,
profiles, face names), how their coordinates move them one relative to the other, the
tolerances, the point the geometry is gridded from, and the code that builds it. The
key is a hash of all of these, taken structurally (:func:`key`): every field of every
dataclass in them enters it (``dataclasses.fields``: each of the ``Tolerance``'s, each
slice's, profile's and face's), so a field added later is in the key without anyone
listing it. "The code" is the source of every module of the ``cspace`` package, so
any change to cspace misses the cache rather than read an entry an older builder
wrote. Names of parts and coordinates are not in it (an entry is relabelled for the
pair that reads it), nor a coordinate's initial value (no builder reads it).

The cache must never change an answer, whoever else can write its folder, so an entry
is used only if it validates:

* it is a regular file (not a FIFO, a device, a symlink or a directory) of at most
  ``MAX_BYTES``, read without following links or blocking;
* it is signed: an HMAC-SHA256 under the cache's secret, over its format, the key it
  was stored under and its content's text; the key must be the one asked for. The
  secret is ``SECRET_BYTES`` random bytes in the file ``secret`` of the cache folder,
  made by cspace (mode 0600, created complete under a temporary name and linked into
  place, so no process ever reads half of one). A writer who cannot read the secret
  cannot make an entry that validates: an edited entry signed again with a plain hash,
  two entries swapped and their keys edited, and an entry signed with another secret
  are all rejected;
* it is JSON of the expected shape: every field present with the right type, sizes
  that agree (a region's rows, bounds and vertices over the pair's dimension, edges
  on rows it has), finite numbers, contacts between the pair's two parts.

Anything else is not used, with one warning (the ``cspace`` logger: ``discarded a
damaged cache entry ...``): the space is recomputed and its entry written over the
damaged one. Entries are JSON, never pickle: a cache file cannot run code.

Nothing inside the cache folder is reached through a link: the folder (which may
itself be a link, the user's choice) is opened once, and ``pairs``, ``secret`` and the
entries are opened relative to it without following links. A secret that is not a
regular file of this user with mode 0600 and of ``SECRET_BYTES`` bytes, or a
``pairs`` that is not a directory (a planted symlink), makes the cache unused for the
run, with one warning (``not using the cache ...``).
cspace deletes only files it made: entries (by their names, regular files of this user) when
evicting or clearing, and its temporary files (named ``.cspace-<32 hex
digits>.tmp``, created exclusively, written, then renamed into place) left behind by
a killed run, once they are a minute old, and only if they are regular files of this
user (a concurrent writer's fresh one is left alone). A damaged entry is replaced when its
pair is computed again, and otherwise deleted only as any entry is: least recently used.

The cache is bounded: after each store, entries another version of cspace wrote are removed
(each entry says which code wrote it: ``code``, the first 16 hex digits of the hash of
cspace's source that is in every key, written after its signature; an entry of an older
format has none, and counts as another version's), then the least recently used entries
until the rest hold at most the cache's ``limit`` bytes (``DEFAULT_LIMIT``, 500 MB). "Used" is
an entry's modification time, which every read sets (access times are often not kept). The
``code`` is not signed: it only decides what is evicted, and anyone who could forge it can
delete the file anyway. Evicting is safe beside other processes doing the same: an entry
that vanishes meanwhile is skipped, never an error. :func:`usage` counts what a cache
holds and :func:`clear` removes its entries (``cspace cache info`` and ``cspace cache clear``).

A cache is a folder given to :func:`cspace.analyze` (``cache=``; the command line's is
``$CSPACE_CACHE``, else ``$XDG_CACHE_HOME/cspace``, else ``~/.cache/cspace``). It is one
user's: another user running cspace on it finds a secret not theirs, and runs without
it. A cache folder that cannot be read or written is simply not used, silently: it only
ever saves time.
"""

from __future__ import annotations

import dataclasses
import errno
import functools
import hashlib
import hmac
import json
import logging
import math
import os
import re
import secrets
import stat
import time
from collections.abc import Iterator
from contextlib import contextmanager
from fractions import Fraction
from itertools import chain
from pathlib import Path

import numpy as np

from ..model.mechanism import Slice
from ..model.tolerance import Tolerance
from .pairspace import Contact, PairSpace, Region, RegionEdge

FORMAT = 7
_ENVELOPE = '{{"format": {format}, "key": "{key}", "mac": "{mac}", "code": "{code}", "space": {space}}}'
_ENTRY = re.compile(r'\{"format": (?P<format>[0-9]{1,9}), "key": "(?P<key>[0-9a-f]{64})", '
                    r'"mac": "(?P<mac>[0-9a-f]{64})", "code": "[0-9a-f]{16}", "space": (?P<space>.*)\}', re.DOTALL)
_HEAD = re.compile(rb'\{"format": (?P<format>[0-9]{1,9}), "key": "[0-9a-f]{64}", "mac": "[0-9a-f]{64}", '
                   rb'(?:"code": "(?P<code>[0-9a-f]{16})", )?')  # the start of an entry of any format since 6
HEAD_BYTES = 256
ENTRY_NAME = re.compile(r"[0-9a-f]{64}\.json")  # the only entry names cspace reads, evicts or clears
DEFAULT_LIMIT = 500_000_000  # bytes of entries a cache keeps by default (500 MB)
MAX_BYTES = 256 * 1024 * 1024  # no pair space of a valid mechanism comes near this
NUMBERS = {int, float}  # JSON numbers (a bool is not one)
STALE_SECONDS = 60.0  # a temporary file this old belongs to a run that was killed
SECRET = "secret"  # the file of the cache folder that holds its HMAC key
SECRET_BYTES = 32
PAIRS = "pairs"  # the folder of entries, in the cache folder
TEMPORARY = re.compile(r"\.cspace-[0-9a-f]{32}\.tmp")  # the only names cspace ever deletes
_DIRECTORY = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_NONBLOCK
_READ = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK
_CREATE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
_PACKAGE = Path(__file__).resolve().parent.parent
_CODE = hashlib.sha256(b"".join(str(path.relative_to(_PACKAGE)).encode() + b"\0" + path.read_bytes()
                                for path in sorted(_PACKAGE.rglob("*.py"))
                                if path.relative_to(_PACKAGE).parts[0] != "viz")).hexdigest()  # rendering builds nothing
CODE = _CODE[:16]  # the code's mark written in each entry: an entry with another was written by another version
_WARNED: set[str] = set()  # cache folders already refused, with their one warning
LOG = logging.getLogger("cspace")


class Damaged(Exception):
    """A cache entry that must not be used; the message says why."""


class _Refused(Exception):
    """A cache folder that must not be used (its secret or its ``pairs`` tampered with); the message says why."""


def key(slices_a: tuple[Slice, ...], slices_b: tuple[Slice, ...], motion: list, tolerance: Tolerance,
        origin: tuple[float, float] = (0.0, 0.0)) -> str:
    """Content hash of everything a pair space's builder reads: both parts' slices, how the
    pair's coordinates move them (``motion``: the exact relative axes of a translating pair,
    the coordinates of a turning one with their names taken out), the whole tolerance,
    the origin the geometry is gridded from, and the code.

    Taken structurally (:func:`_plain`): every field of every dataclass, at its exact
    value (never a display repr, which abbreviates and rounds).
    """
    text = repr(_plain((FORMAT, _CODE, slices_a, slices_b, motion, tolerance, origin)))
    return hashlib.sha256(text.encode()).hexdigest()


def _plain(value: object) -> object:
    """``value`` as nested tuples of exact plain values, tagged with their types: a
    dataclass as its class and every field (``dataclasses.fields``), sequences and sets
    element by element. A value of any other type is refused rather than hashed by its
    repr, which might leave something out."""
    if type(value) in (str, int, float, bool, Fraction) or value is None:
        return value
    if isinstance(value, (tuple, list)):
        return (type(value).__name__,) + tuple(map(_plain, value))
    names = _field_names(type(value))
    if names is not None:
        return (type(value).__qualname__,) + tuple((name, _plain(getattr(value, name))) for name in names)
    if isinstance(value, (set, frozenset)):
        return ("set",) + tuple(sorted((_plain(v) for v in value), key=repr))
    if isinstance(value, np.generic):
        return _plain(value.item())
    if isinstance(value, np.ndarray):
        return ("ndarray", value.dtype.str, value.shape, _plain(value.tolist()))
    raise TypeError(f"cannot key a {type(value).__name__}: add it to cache._plain")


@functools.cache
def _field_names(kind: type) -> tuple[str, ...] | None:
    """The fields of a dataclass, in order (None for any other type): looked up once per type,
    as a gear's slices make thousands of lines and arcs to key."""
    return tuple(f.name for f in dataclasses.fields(kind)) if dataclasses.is_dataclass(kind) else None


class PairCache:
    """Pair spaces kept on disk in ``folder`` (see the module): read with :meth:`load`,
    kept with :meth:`store`, never trusted unless signed by this user's secret.

    >>> import tempfile
    >>> PairCache(tempfile.mkdtemp()).load("0" * 64) is None
    True
    """

    def __init__(self, folder: str | os.PathLike, limit: float = DEFAULT_LIMIT) -> None:
        self.folder = Path(folder)
        self.limit = limit  # bytes of entries kept; past it the least recently used are evicted

    def load(self, digest: str) -> PairSpace | None:
        """The cached pair space for ``digest``, if there is a valid one.

        A damaged entry is reported in one warning and None returned, so the caller
        computes the space again and stores it (over the damaged entry).
        """
        with self._opened(create=False) as opened:
            if opened is None:
                return None
            pairs, secret = opened
            name = f"{digest}.json"
            try:
                space = _decode(_unwrap(_read(pairs, name), digest, secret))
                _touch(pairs, name)
                return space
            except FileNotFoundError:
                return None
            except Damaged as damage:
                LOG.warning(f"discarded a damaged cache entry {self.folder / PAIRS / name} ({damage}); recomputing it")
                return None
            except OSError:
                return None  # an unreadable entry: the cache is not used

    def store(self, digest: str, space: PairSpace) -> None:
        """Keep a pair space for next time (atomically; silently not if the folder is unusable)."""
        with self._opened(create=True) as opened:
            if opened is None:
                return
            pairs, secret = opened
            _remove_stale(pairs)
            content = json.dumps(_encode(space))
            text = _ENVELOPE.format(format=FORMAT, key=digest, mac=entry_mac(secret, digest, content), code=CODE,
                                    space=content)
            try:
                _write(pairs, f"{digest}.json", text.encode())
            except OSError:
                return
            _tidy(pairs, self.limit)

    @contextmanager
    def _opened(self, create: bool) -> Iterator[tuple[int, bytes] | None]:
        """The cache's ``pairs`` folder (a descriptor, opened without following links) and its
        secret; None where the cache is not used. ``create``: make the folders and the secret
        where missing (a reader has nothing to read without them)."""
        descriptors: list[int] = []
        try:
            try:
                root = _root(self.folder, create)
                descriptors.append(root)
                secret = _secret(root, create)
                pairs = _pairs(root, create) if secret is not None else None
            except _Refused as refusal:
                _refuse(self.folder, str(refusal))
                yield None
                return
            except OSError:
                yield None  # a folder that cannot be read or written: not used
                return
            if pairs is None:
                yield None
                return
            descriptors.append(pairs)
            yield pairs, secret
        finally:
            for descriptor in descriptors:
                os.close(descriptor)

    def __repr__(self) -> str:
        return f"PairCache({str(self.folder)!r})"


@dataclasses.dataclass(frozen=True)
class Entry:
    """A file of the cache named as an entry: its name, size in bytes, when it was last used
    (its modification time, set on every read), and whether this version of cspace wrote it
    (None: its start is not an entry's)."""

    name: str
    size: int
    used: float
    current: bool | None


@dataclasses.dataclass(frozen=True)
class Usage:
    """What a cache folder holds (:func:`usage`) or what was removed from it (:func:`clear`)."""

    entries: int = 0
    size: int = 0
    other_entries: int = 0  # of ``entries``, those written by another version of cspace
    other_size: int = 0


def usage(folder: str | os.PathLike) -> Usage:
    """The entries of a cache folder, counted (none if it has no ``pairs`` folder yet)."""
    with _entries_folder(Path(folder)) as pairs:
        return _summed(_entries(pairs)) if pairs is not None else Usage()


def clear(folder: str | os.PathLike) -> Usage:
    """Remove every entry of a cache folder (its secret stays); what was removed."""
    with _entries_folder(Path(folder)) as pairs:
        if pairs is None:
            return Usage()
        return _summed([entry for entry in _entries(pairs) if _remove(pairs, entry.name)])


@contextmanager
def _entries_folder(folder: Path) -> Iterator[int | None]:
    """The cache's ``pairs`` folder, opened without following a link; None if there is none.
    A ``pairs`` that is not a folder is refused (:class:`CacheError`)."""
    try:
        root = _root(folder, create=False)
    except FileNotFoundError:
        yield None
        return
    try:
        pairs = _pairs(root, create=False)
    except _Refused as refusal:
        raise CacheError(f"{folder}: {refusal}") from None
    finally:
        os.close(root)
    try:
        yield pairs
    finally:
        if pairs is not None:
            os.close(pairs)


class CacheError(OSError):
    """A cache folder that cannot be looked at or cleared; the message says why."""


def _summed(entries: list[Entry]) -> Usage:
    others = [entry for entry in entries if entry.current is False]
    return Usage(len(entries), sum(e.size for e in entries), len(others), sum(e.size for e in others))


def _entries(pairs: int) -> list[Entry]:
    """Every regular file of this user named as an entry, with its size, last use and version;
    one that vanishes while being looked at (another process evicted it) is left out."""
    with os.scandir(pairs) as found:
        names = [item.name for item in found if ENTRY_NAME.fullmatch(item.name)]
    entries = []
    for name in names:
        try:
            entries.append(_entry(pairs, name))
        except (OSError, Damaged):
            continue
    return entries


def _entry(pairs: int, name: str) -> Entry:
    """One entry, looked at: raises Damaged unless it is a regular file of this user."""
    descriptor = os.open(name, _READ, dir_fd=pairs)
    try:
        info = os.fstat(descriptor)
        if not stat.S_ISREG(info.st_mode) or info.st_uid != os.geteuid():
            raise Damaged("not a regular file of this user")
        head = _HEAD.match(os.read(descriptor, HEAD_BYTES))
    finally:
        os.close(descriptor)
    current = None if head is None else int(head["format"]) == FORMAT and head["code"] == CODE.encode()
    return Entry(name, info.st_size, info.st_mtime, current)


def _tidy(pairs: int, limit: float) -> None:
    """Remove the entries another version of cspace wrote, then the least recently used
    until the rest hold at most ``limit`` bytes. Safe beside another process doing the same:
    an entry that vanished meanwhile is simply gone."""
    entries = _entries(pairs)
    for entry in entries:
        if entry.current is False:
            _remove(pairs, entry.name)
    entries = [entry for entry in entries if entry.current is not False]
    total = sum(entry.size for entry in entries)
    for entry in sorted(entries, key=lambda e: e.used):
        if total <= limit:
            break
        _remove(pairs, entry.name)
        total -= entry.size


def _remove(pairs: int, name: str) -> bool:
    """Unlink an entry; False if it could not be (already gone, or not allowed)."""
    try:
        os.unlink(name, dir_fd=pairs)
        return True
    except OSError:
        return False


def _touch(pairs: int, name: str) -> None:
    """Mark an entry used now (its modification time, which eviction reads: access times are
    often not kept), without following a link; silently not if it cannot be."""
    try:
        os.utime(name, dir_fd=pairs, follow_symlinks=False)
    except OSError:
        pass


def _root(where: Path, create: bool) -> int:
    """The cache folder, opened (a link to it is followed: where the cache is, is the user's choice)."""
    if create:
        where.mkdir(mode=0o700, parents=True, exist_ok=True)
    return os.open(where, os.O_RDONLY | os.O_DIRECTORY)


def _pairs(root: int, create: bool) -> int | None:
    """The entries' folder, opened without following a link; None if there is none yet."""
    try:
        info = os.stat(PAIRS, dir_fd=root, follow_symlinks=False)
    except FileNotFoundError:
        if not create:
            return None
        try:
            os.mkdir(PAIRS, 0o700, dir_fd=root)
        except FileExistsError:
            pass  # another process made it first
        info = os.stat(PAIRS, dir_fd=root, follow_symlinks=False)
    if not stat.S_ISDIR(info.st_mode):
        raise _Refused(f"its {PAIRS!r} is {_kind(info.st_mode)}, not a folder")
    return os.open(PAIRS, _DIRECTORY, dir_fd=root)


def _secret(root: int, create: bool) -> bytes | None:
    """The cache's HMAC key; made when missing if ``create``, else None. Refused (the cache
    is not used) unless it is a regular file of this user, mode 0600, of ``SECRET_BYTES`` bytes."""
    try:
        descriptor = os.open(SECRET, _READ, dir_fd=root)
    except FileNotFoundError:
        return _new_secret(root) if create else None
    except OSError as error:
        if error.errno == errno.ELOOP:
            raise _Refused(f"its {SECRET!r} is a symbolic link") from None
        raise
    try:
        info = os.fstat(descriptor)
        if not stat.S_ISREG(info.st_mode):
            raise _Refused(f"its {SECRET!r} is {_kind(info.st_mode)}, not a regular file")
        if info.st_uid != os.geteuid():
            raise _Refused(f"its {SECRET!r} belongs to user {info.st_uid}, not to this user ({os.geteuid()})")
        if stat.S_IMODE(info.st_mode) != 0o600:
            raise _Refused(f"its {SECRET!r} has mode {stat.S_IMODE(info.st_mode):04o}, not 0600")
        data = os.read(descriptor, SECRET_BYTES + 1)
    finally:
        os.close(descriptor)
    if len(data) != SECRET_BYTES:
        raise _Refused(f"its {SECRET!r} holds {len(data)} bytes, not {SECRET_BYTES}")
    return data


def _new_secret(root: int) -> bytes:
    """Make the cache's secret: written whole under a temporary name, then linked into place
    (never replacing one another process made first), then read back like any other."""
    _remove_stale(root)
    temporary = _write_temporary(root, secrets.token_bytes(SECRET_BYTES))
    try:
        os.link(temporary, SECRET, src_dir_fd=root, dst_dir_fd=root, follow_symlinks=False)
    except FileExistsError:
        pass  # another process's secret is the cache's
    finally:
        os.unlink(temporary, dir_fd=root)
    secret = _secret(root, create=False)
    if secret is None:
        raise FileNotFoundError(SECRET)  # removed as soon as made: not used this time
    return secret


def _refuse(where: Path, reason: str) -> None:
    """Say once per folder and run why the cache is not used."""
    if str(where) not in _WARNED:
        _WARNED.add(str(where))
        LOG.warning(f"not using the cache {where}: {reason}")


def _kind(mode: int) -> str:
    """What a file of this mode is, in words."""
    kinds = ((stat.S_ISLNK, "a symbolic link"), (stat.S_ISDIR, "a folder"), (stat.S_ISREG, "a regular file"),
             (stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket"))
    return next((words for test, words in kinds if test(mode)), "a device")


def _write(folder_fd: int, name: str, data: bytes) -> None:
    """``data`` as the file ``name`` of the folder, atomically: a temporary file renamed into place."""
    temporary = _write_temporary(folder_fd, data)
    try:
        os.replace(temporary, name, src_dir_fd=folder_fd, dst_dir_fd=folder_fd)
    except OSError:
        os.unlink(temporary, dir_fd=folder_fd)
        raise


def _write_temporary(folder_fd: int, data: bytes) -> str:
    """A new temporary file of the folder holding ``data``, mode 0600; its name. Removed again if writing fails."""
    name = f".cspace-{secrets.token_hex(16)}.tmp"
    descriptor = os.open(name, _CREATE, 0o600, dir_fd=folder_fd)
    try:
        os.fchmod(descriptor, 0o600)  # whatever the umask
        with os.fdopen(descriptor, "wb", closefd=False) as handle:
            handle.write(data)
    except OSError:
        os.unlink(name, dir_fd=folder_fd)
        raise
    finally:
        os.close(descriptor)
    return name


def _read(pairs: int, name: str) -> str:
    """An entry's text: a regular file of bounded size, opened without following links or blocking."""
    info = os.stat(name, dir_fd=pairs, follow_symlinks=False)
    if not stat.S_ISREG(info.st_mode):
        raise Damaged(f"{_kind(info.st_mode)}, not a regular file")
    if info.st_size > MAX_BYTES:
        raise Damaged(f"{info.st_size} bytes, more than any pair space")
    try:
        descriptor = os.open(name, _READ, dir_fd=pairs)
    except OSError as error:
        if error.errno == errno.ELOOP:  # made a link since
            raise Damaged("a symbolic link, not a regular file") from None
        raise
    try:
        if not stat.S_ISREG(os.fstat(descriptor).st_mode):
            raise Damaged("not a regular file")
        with os.fdopen(descriptor, "rb", closefd=False) as handle:
            data = handle.read(MAX_BYTES + 1)
    finally:
        os.close(descriptor)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise Damaged("not UTF-8 text") from None


def _unwrap(text: str, digest: str, secret: bytes) -> dict:
    """The pair space's content from an entry, once its format, key and signature match.

    An entry is one JSON object, its fields in a fixed order; the signature is that of the
    content's text as it stands in the file, so it is checked before that text is parsed
    (and without writing the content out again)."""
    match = _ENTRY.fullmatch(text)
    if match is None:
        raise Damaged("not a cache entry (format, key, mac and space, in that order)")
    if int(match["format"]) != FORMAT:
        raise Damaged(f"format {match['format']}, expected {FORMAT}")
    if match["key"] != digest:
        raise Damaged("stored under another key")
    if not hmac.compare_digest(match["mac"], entry_mac(secret, digest, match["space"])):
        raise Damaged("not signed with this cache's secret: edited, or written by someone else")
    try:
        content = json.loads(match["space"])
    except (ValueError, RecursionError):
        raise Damaged("not valid JSON") from None
    if not isinstance(content, dict):
        raise Damaged("space is not an object")
    return content


def entry_mac(secret: bytes, digest: str, content: str) -> str:
    """The signature of an entry: HMAC-SHA256 under the secret over the format, key and content."""
    signature = hmac.new(secret, f"cspace {FORMAT} {digest}\n".encode(), hashlib.sha256)
    signature.update(content.encode())
    return signature.hexdigest()


def _remove_stale(folder_fd: int) -> None:
    """Remove temporary files a killed run left behind: cspace's names only, regular files
    of this user a minute old, in a folder opened without following links."""
    now = time.time()
    with os.scandir(folder_fd) as entries:
        leftovers = [entry.name for entry in entries if TEMPORARY.fullmatch(entry.name)]
    for name in leftovers:
        try:
            info = os.stat(name, dir_fd=folder_fd, follow_symlinks=False)
            if stat.S_ISREG(info.st_mode) and info.st_uid == os.geteuid() and now - info.st_mtime > STALE_SECONDS:
                os.unlink(name, dir_fd=folder_fd)
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
