"""Pair-space builders behind one interface, and the one function that builds every pair a
mechanism needs (:func:`build_pairs`), owning the cache and the worker processes for all.

A builder (:class:`Builder`) says whether it ``accepts`` a pair (:class:`Request`), the
``cache_key`` of the space it would build (None: not kept whole, as a shifting pair,
whose bands are), and ``build``s it. A ``costly`` one also builds a ``part`` a worker
process sends back and ``assemble``s it here (a turning pair's first cell); a composite one
says what it ``needs`` built first (a shifting pair's bands). The first builder of
:data:`REGISTRY` that accepts a pair builds it; a fourth kind of pair is one new module
and one line there.

Spaces are shared: pairs of the same shapes moving alike have one key and one space,
relabelled for each; a space found in the cache (:class:`~cspace.spaces.cache.PairCache`)
is not built.

>>> from cspace.io.loader import load
>>> feeder = load("fixtures/feeder.toml")
>>> [type(b).__name__ for b in Builders(feeder).builders]
['Shifting', 'Rotating', 'Translating']
>>> build_pairs(feeder, [("piston", "block1"), ("block1", "block2")])[1].name
'block1/block2'
"""

from __future__ import annotations

import sys
from typing import Protocol

from tqdm import tqdm

from ..model.errors import CspaceError
from ..model.mechanism import Mechanism, Part
from . import parallel
from .cache import PairCache
from .pairspace import PairSpace
from .request import Request
from .shifting import Shifting
from .translating import Translating
from .turning import Rotating

REGISTRY = (Shifting, Rotating, Translating)  # the first that accepts a pair builds its space


class Builder(Protocol):
    """What builds the spaces of one kind of pair (see the module)."""

    costly: bool

    def accepts(self, request: Request) -> bool: ...

    def cache_key(self, request: Request) -> str | None: ...

    def build(self, request: Request) -> PairSpace: ...


class Builders:
    """The builders of one mechanism's pairs, each keeping what it made once (a part's pieces,
    a slice's outline), and the spaces made so far by key.

    ``cache`` keeps spaces on disk for the next run; ``workers`` processes build costly
    spaces at once (:meth:`prefetch`).
    """

    def __init__(self, mechanism: Mechanism, cache: PairCache | None = None, workers: int = 1) -> None:
        self.mechanism = mechanism
        self.cache = cache
        self.workers = parallel.checked(workers)
        self.builders: tuple[Builder, ...] = tuple(kind(mechanism, self) for kind in REGISTRY)
        self._spaces: dict[str, PairSpace] = {}
        self._keys: dict[tuple, tuple[Builder, str | None, Request]] = {}

    def builder(self, request: Request) -> Builder:
        """The builder of the request's kind of pair: the first that accepts it."""
        return next(b for b in self.builders if b.accepts(request))

    def space(self, request: Request) -> PairSpace:
        """The pair's space: shared with pairs alike, from the cache when there, named for this pair."""
        builder, key = self._keyed(request)
        if key is None:
            return builder.build(request)
        space = self._spaces.get(key)
        if space is None:
            space = self.cache.load(key) if self.cache else None
            if space is None:
                space = builder.build(request)
                if self.cache:
                    self.cache.store(key, space)
            self._spaces[key] = space
        return space.relabeled(request.a.name, request.b.name, request.coordinates)

    def prefetch(self, requests: list[Request]) -> None:
        """Build at once, in worker processes (:mod:`cspace.spaces.parallel`), the costly spaces
        the requests need (theirs, or what they are composed of) and no cache holds; :meth:`space`
        then finds them. A space whose worker failed is left for :meth:`space`, which raises its
        error here."""
        jobs: dict[str, tuple[Builder, Request]] = {}
        pending = list(requests)
        while pending:
            request = pending.pop(0)
            try:
                builder, key = self._keyed(request)
            except CspaceError:
                continue  # space raises it, in its turn
            pending.extend(getattr(builder, "needs", lambda r: [])(request))
            if not builder.costly or key is None or key in self._spaces or key in jobs:
                continue
            cached = self.cache.load(key) if self.cache else None
            if cached is not None:
                self._spaces[key] = cached
            else:
                jobs[key] = (builder, request)
        if len(jobs) < 2:
            return
        # The costliest first: it is built here, whole; the workers send back parts, assembled here.
        order = sorted(jobs, key=lambda key: -_faces(jobs[key][1].a) * _faces(jobs[key][1].b))
        tasks = [lambda job=jobs[key], whole=k == 0: _attempt(*job, whole) for k, key in enumerate(order)]
        for key, made in zip(order, parallel.run(tasks, self.workers)):
            if made is not None:
                builder = jobs[key][0]
                space = made if isinstance(made, PairSpace) else builder.assemble(made)
                if self.cache:
                    self.cache.store(key, space)
                self._spaces[key] = space

    def _keyed(self, request: Request) -> tuple[Builder, str | None]:
        """The request's builder and key, found once per pair of parts (a gear's slices take a
        while to hash); the parts are kept with them, so their ids stay theirs."""
        memo = (id(request.a), id(request.b), request.coordinates)
        if memo not in self._keys:
            builder = self.builder(request)
            self._keys[memo] = (builder, builder.cache_key(request), request)
        return self._keys[memo][:2]

    def __repr__(self) -> str:
        return f"Builders({self.mechanism.name!r}, spaces={len(self._spaces)}, workers={self.workers})"


def build_pairs(mechanism: Mechanism, pairs: list[tuple[str, str]], *, cache: PairCache | None = None,
                workers: int = 1, progress: bool = False) -> tuple[PairSpace, ...]:
    """The space of every pair (by part names), costly ones built at once in ``workers``
    processes, each read from ``cache`` where it holds one and kept there; ``progress``
    shows a bar on standard error: the spaces built of how many, and the pair being built."""
    builders = Builders(mechanism, cache, workers)
    requests = [Request.of(mechanism, a, b) for a, b in pairs]
    with parallel.collector_paused(), tqdm(total=len(requests), desc="pair spaces", unit="pair", disable=not progress,
                                           file=sys.stderr, leave=False) as bar:
        if builders.workers > 1:
            bar.set_postfix_str(f"the costly ones in {builders.workers} processes")
        builders.prefetch(requests)
        spaces = []
        for request in requests:
            bar.set_postfix_str(f"{request.a.name}/{request.b.name}")
            spaces.append(builders.space(request))
            bar.update()
        return tuple(spaces)


def _attempt(builder: Builder, request: Request, whole: bool) -> PairSpace | object | None:
    """The space (``whole``) or the part a worker sends back, or None where it cannot be built
    (:meth:`Builders.space` says why, building it again here)."""
    try:
        return builder.build(request) if whole else builder.part(request)
    except CspaceError:
        return None


def _faces(part: Part) -> int:
    """How many lines and arcs a part is drawn with: what its pair spaces' cost grows with."""
    return sum(len(profile.elements) for piece in part.slices for profile in piece.profiles)
