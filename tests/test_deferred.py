"""What a pair space makes only when read: a repeated cell's copies' edges and a turning
pair's blocked pieces. Made late, each must be what making it at once made."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
import shapely
from shapely.geometry import Polygon

from cspace.spaces.convex_regions import repeated
from cspace.spaces.pairspace import Contact, Deferred, Region, RegionEdge

from .common import analyzed, slow


def _region(seed: int) -> Region:
    """A convex region of the plane with a contact on some of its edges."""
    rng = np.random.default_rng(seed)
    angles = np.sort(rng.uniform(0, 2 * np.pi, rng.integers(3, 9)))
    vertices = np.column_stack([np.cos(angles), np.sin(angles)]) * rng.uniform(0.1, 50) + rng.normal(0, 100, 2)
    n = len(vertices)
    edges = tuple(RegionEdge(k, tuple(vertices[k].tolist()), tuple(vertices[(k + 1) % n].tolist()),
                             (Contact("a", (f"f{k}",), "b", ("g",)),) if k % 2 else ()) for k in range(n))
    side = np.roll(vertices, -1, axis=0) - vertices
    rows = np.column_stack([side[:, 1], -side[:, 0]]) / np.hypot(side[:, 0], side[:, 1])[:, None]
    bounds = (rows * vertices).sum(axis=1)
    lo, hi = vertices.min(axis=0), vertices.max(axis=0)
    return Region("", rows, bounds, vertices, edges, 2, (*lo.tolist(), *hi.tolist()))


def _renamed(contacts: tuple[Contact, ...], i: int, j: int) -> tuple[Contact, ...]:
    return tuple(Contact(c.part_a, tuple(f"{f}+{i}" for f in c.faces_a), c.part_b, tuple(f"{f}+{j}" for f in c.faces_b))
                 for c in contacts)


@pytest.mark.parametrize("seed", range(20))
def test_a_copys_edges_are_the_cells_moved_and_renamed_bit_for_bit(seed):
    cell = [_region(seed), _region(seed + 100)]
    steps, counts, quantum = (7, 11), (3, 2), 0.37 + seed * 1e-3
    copies = repeated(cell, steps, counts, quantum, _renamed)
    moves = [(i, j) for i in range(counts[0]) for j in range(counts[1]) if i or j]
    assert len(copies) == len(cell) * (1 + len(moves))
    assert copies[:len(cell)] == cell
    for k, region in enumerate(cell):
        for m, (i, j) in enumerate(moves):
            copy = copies[len(cell) + k * len(moves) + m]
            assert "edges" not in copy.__dict__                       # not made until read
            shift = np.array([i * steps[0], j * steps[1]], float) * quantum
            assert copy.bounds.tobytes() == (region.bounds + region.rows @ shift).tobytes()
            assert copy.vertices.tobytes() == (region.vertices + shift).tobytes()
            for made, edge in zip(copy.edges, region.edges, strict=True):
                assert made.row == edge.row
                assert made.start == tuple((np.array(edge.start) + shift).tolist())
                assert made.end == tuple((np.array(edge.end) + shift).tolist())
                assert made.contacts == (_renamed(edge.contacts, i, j) if edge.contacts else ())


def test_deferred_edges_are_made_once_when_read_and_kept_by_renaming_and_pickling():
    made = []
    eager = _region(3)

    def make():
        made.append(1)
        return eager.edges

    region = Region.deferred(make, "r1", eager.rows, eager.bounds, eager.vertices, (), 2, eager.bbox)
    named = region.named("r9")
    assert not made and named.name == "r9" and named.bbox == eager.bbox
    assert named.edges == eager.edges and made == [1]
    assert region.edges == eager.edges and made == [1, 1]         # each region makes its own once
    assert region.edges is region.edges and made == [1, 1]
    later = Region.deferred(make, "r2", eager.rows, eager.bounds, eager.vertices, (), 2, eager.bbox)
    back = pickle.loads(pickle.dumps(later))                     # made to pickle: a maker may not pickle
    assert back.edges == eager.edges and "edges" in back.__dict__
    with pytest.raises(AttributeError):
        region.elsewhere  # noqa: B018


def test_a_deferred_tuple_is_made_once_and_behaves_as_the_tuple():
    calls = []

    def make():
        calls.append(1)
        return [np.zeros((3, 2)), np.ones((4, 2))]

    pieces = Deferred(make)
    assert not calls
    assert len(pieces) == 2 and calls == [1]
    assert [p.shape for p in pieces] == [(3, 2), (4, 2)] and pieces[1][0, 0] == 1 and calls == [1]
    assert pickle.loads(pickle.dumps(pieces))[0].shape == (3, 2)
    assert type(pickle.loads(pickle.dumps(pieces))) is tuple
    assert Deferred(list) == () and Deferred(list) == Deferred(tuple) and Deferred(make) != ()


@slow
def test_the_transmissions_copies_and_pieces_wait_to_be_read_and_are_its_space():
    spaces = [band.space for pair in analyzed("transmission").pairs for band in getattr(pair, "bands", ())
              if band.space is not None]
    assert len(spaces) == 2                                        # the two bands where the gears mesh
    for space in spaces:
        deferred = [r for r in space.geometry if "edges" not in r.__dict__]
        assert len(deferred) > len(space.geometry) // 2
        for region in deferred[::97]:
            for edge in region.edges:                      # each edge on its row's line, at the region's corners
                for end in (edge.start, edge.end):
                    assert abs(region.rows[edge.row] @ end - region.bounds[edge.row]) < 1e-9
                    assert np.abs(region.vertices - end).sum(axis=1).min() < 1e-9
        assert isinstance(space.blocked, Deferred)
        free = shapely.union_all([Polygon(r.vertices) for r in space.geometry if r.dimension == 2])
        blocked = shapely.union_all([Polygon(p) for p in space.blocked])
        assert blocked.intersection(free).area < 1e-6 * blocked.area
