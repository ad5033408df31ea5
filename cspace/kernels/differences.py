"""Systems of differences as graphs: rows that each bound the difference of two
variables, or one variable, as a translating mechanism's regions' rows do.

Such a system is a weighted graph (an edge per row), and shortest paths answer what
would otherwise take a linear program per row: which rows are implied by the others,
which are implicit equalities, and the bounds on each variable.
:class:`DifferenceGraph` answers all three from one all-pairs search when every row is
a difference; :class:`Differences` settles the difference rows of a mixed system one
path at a time, for the programs of :mod:`cspace.kernels.constraints` to do the rest.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from scipy import sparse

SMALL_GRAPH = 40  # shortest paths over at most this many nodes are searched in numpy, more in scipy


class DifferenceGraph:
    """Rows of ``G @ x <= h`` that bound differences of two variables or one variable (every
    row of a translating mechanism's region), as a graph, all at once: edge u -> v for
    ``s x_v - s x_u <= b`` (node n, zero, stands in for a variable alone), weighted by the
    row's slack at ``point`` in the edge's units (negative rounding clipped to zero, which
    only lengthens paths: ``clipped`` bounds by how much). All shortest paths come from one
    search; ``complete`` says whether every row is an edge.

    A row is redundant when a path of other rows is no longer than its weight plus its
    ``margin`` (in its own units, as for a program), and an implicit equality when the
    shortest way back from v to u closes a cycle no longer than its tolerance: a system of
    differences answers both without a program.

    >>> G = np.array([[1.0, -1.0], [0.0, 1.0], [1.0, 0.0], [-1.0, 0.0]])  # x0 - x1 <= 1, x1 <= 2, 0 <= x0 <= 5
    >>> graph = DifferenceGraph(G, np.array([1.0, 2.0, 5.0, 0.0]), np.zeros(2), np.zeros(4))
    >>> graph.essential()                                                # x0 <= 3 already
    [0, 1, 3]
    """

    def __init__(self, G: np.ndarray, h: np.ndarray, point: np.ndarray, margins: np.ndarray) -> None:
        m, n = G.shape
        self.rows, self.heads, self.tails, self.scales = _differences(G)
        self.complete = len(self.rows) == m
        where = np.concatenate([point, [0.0]])
        weight = h[self.rows] / self.scales - (where[self.tails] - where[self.heads])
        self.clipped = float(np.sum(np.maximum(-weight[np.isfinite(weight)], 0.0)))
        self.point = np.asarray(point, float)
        self.weight = np.maximum(weight, 0.0)
        self.slop = margins[self.rows] / self.scales + self.clipped
        self.nodes = n + 1
        least = np.full((self.nodes, self.nodes), np.inf)
        np.minimum.at(least, (self.heads, self.tails), self.weight)
        np.fill_diagonal(least, 0.0)
        self.distance = _shortest_paths(least)

    def essential(self) -> list[int]:
        """The rows (positions in G) of an irredundant system equivalent to the edges.

        Nodes joined both ways by rows tight within their margin make one class, pinned
        to one another (the equalities): each class keeps rows joining it at zero length
        (:meth:`_pinning`). Between classes the graph has no cycle of zero length, so the
        least row from class A to class B (the first of equal ones) is needed exactly when
        no third class C lies on a path as short (Larsen et al., minimal constraint
        graphs); the others are implied. Among equal rows, one between the classes'
        representatives (the zero node, else the first variable) is preferred, so that
        a bound reads as one: ``xp >= 5`` rather than ``xp - xb1 >= -7`` when ``xb1 = 12``.
        """
        finite = np.isfinite(self.weight)
        zero = finite & (self.weight <= self.slop)
        adjacency = np.zeros((self.nodes, self.nodes), bool)
        adjacency[self.heads[zero], self.tails[zero]] = True
        classes, label = _strong_components(adjacency)
        kept = self._pinning(zero, classes, label)
        first = np.full(classes, self.nodes)
        np.minimum.at(first, label, np.arange(self.nodes))
        first[label[-1]] = self.nodes - 1
        a, b = label[self.heads], label[self.tails]
        between = finite & (a != b)
        least = np.full((classes, classes), np.inf)
        np.minimum.at(least, (a[between], b[between]), self.weight[between])
        candidates = np.flatnonzero(between & (self.weight <= least[a, b] + self.slop))
        others = (first[a[candidates]] != self.heads[candidates]).astype(int) + (first[b[candidates]] != self.tails[candidates])
        candidates = candidates[np.argsort(others, kind="stable")]      # rows between representatives first
        _, firsts = np.unique(a[candidates] * classes + b[candidates], return_index=True)
        chosen = candidates[firsts]
        if len(chosen):
            reps = self.distance[np.ix_(first, first)]
            ca, cb = a[chosen], b[chosen]
            through = reps[ca] + reps[:, cb].T
            through[np.arange(len(chosen)), ca] = np.inf
            through[np.arange(len(chosen)), cb] = np.inf
            needed = through.min(axis=1) > least[ca, cb] + self.slop[chosen]
            kept.extend(chosen[needed].tolist())
        return sorted(self.rows[kept].tolist())

    def _pinning(self, zero: np.ndarray, classes: int, label: np.ndarray) -> list[int]:
        """Rows that keep each class joined at zero length, none implied by the others
        (:func:`_pinned`); of the tight rows each way between two nodes only the first counts."""
        pairs: dict[tuple[int, int], int] = {}
        for e in np.flatnonzero(zero & (label[self.heads] == label[self.tails])).tolist():
            pairs.setdefault((int(self.heads[e]), int(self.tails[e])), e)
        by_class: dict[int, dict[tuple[int, int], int]] = {}
        for (u, v), e in pairs.items():
            by_class.setdefault(int(label[u]), {})[(u, v)] = e
        kept = []
        for c in sorted(by_class):
            members = np.flatnonzero(label == c).tolist()
            first = members[-1] if members[-1] == self.nodes - 1 else members[0]
            kept += _pinned([first] + members, by_class[c])
        return kept

    def bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """The least and greatest value of each variable over the system: the point less
        the shortest path to the zero node, and plus the shortest path from it (the
        clipping can only widen them)."""
        zero = self.nodes - 1
        return self.point - self.distance[:zero, zero], self.point + self.distance[zero, :zero]

    def equalities(self, tolerances: np.ndarray) -> np.ndarray:
        """Per row: 1 an implicit equality (no point leaves it more than its tolerance of
        slack), 0 not, -1 too close to tell (the clipping blurs it). A row's largest slack
        is its weight plus the shortest path back, times its scale."""
        back = self.distance[self.tails, self.heads]
        largest = (self.weight + back) * self.scales
        out = np.full(len(self.rows), -1)
        out[largest <= tolerances[self.rows]] = 1
        out[largest - 2 * self.clipped * self.scales > tolerances[self.rows]] = 0
        return out


class Differences:
    """The rows of ``G @ x <= h`` that bound the difference of two variables (``s x_v - s x_u
    <= b``) or one variable, as a graph: an edge u -> v of weight ``b / s`` (a variable
    alone is measured against node ``n``, zero). The others are implied to make
    ``x_v - x_u`` at most the length of any path from u to v, so a row is implied by the
    rows still in the graph when a path other than its own edge is no longer than its
    weight (plus its ``margin``, in its own units, as for a program). Weights are taken
    less the difference at ``point`` (a point of the system: what is left is each row's
    slack there, never negative beyond rounding, which is clipped, only lengthening
    paths), so Dijkstra's shortest paths apply. A row no path implies may still be implied
    with the system's other rows, so a program decides it (a system of differences alone
    goes to :class:`DifferenceGraph`).

    >>> G = np.array([[1.0, -1.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]])  # x0 - x1 <= 1, x1 <= 2, x0 <= 5,
    >>> paths = Differences(G, np.array([1.0, 2.0, 5.0, 9.0]), np.zeros(2), np.zeros(4))  # x0 + x1 <= 9
    >>> paths.settle(2), paths.settle(0), paths.settle(3)      # x0 <= 3 already; the rest take a program
    (False, None, None)
    """

    def __init__(self, G: np.ndarray, h: np.ndarray, point: np.ndarray, margins: np.ndarray) -> None:
        n = G.shape[1]
        self.nodes = n + 1
        where = np.concatenate([point, [0.0]])
        self.edges: dict[int, tuple[int, int, float, float]] = {}   # row -> (u, v, reduced weight, margin)
        parallel: dict[tuple[int, int], list[tuple[float, int]]] = {}
        self.clipped = 0.0                                          # how much clipping may lengthen a path
        rows, heads, tails, scales = _differences(G)
        weights = h[rows] / scales - (where[tails] - where[heads])
        for r, u, v, scale, weight in zip(rows.tolist(), heads.tolist(), tails.tolist(), scales.tolist(),
                                          weights.tolist()):
            self.edges[r] = (u, v, weight, margins[r] / scale)
            parallel.setdefault((u, v), []).append((max(weight, 0.0), r))
            self.clipped += max(-weight, 0.0)
        self.parallel = {pair: sorted(rows) for pair, rows in parallel.items()}
        pairs = sorted(self.parallel)                              # the graph's entries, row by row
        self.position = {pair: k for k, pair in enumerate(pairs)}
        heads = np.array([u for u, _ in pairs], dtype=np.int32).reshape(-1)
        starts = np.searchsorted(heads, np.arange(self.nodes + 1)).astype(np.int32)
        tails = np.array([v for _, v in pairs], dtype=np.int32).reshape(-1)
        data = np.array([self.parallel[pair][0][0] for pair in pairs], float).reshape(-1)
        from scipy import sparse  # 70 ms to import: only where a graph is searched

        self.graph = sparse.csr_array((data, tails, starts), shape=(self.nodes, self.nodes))
        self.dropped: set[int] = set()
        self.strict = self._strictly_implied()
        for r in self.strict:
            self.drop(r)

    def _strictly_implied(self) -> set[int]:
        """Rows a path of other rows undercuts by more than the clipping and a thousand
        margins, from one all-pairs search. Any order of tests drops them: were two such
        rows each needed for the other's path, the two paths would close a cycle shorter
        than zero, which no point satisfies. So they leave the graph at once, and a row
        tested later misses nothing by their going (what they imply, the paths do)."""
        if not self.edges:
            return set()
        from scipy.sparse.csgraph import dijkstra  # csgraph imports scipy.sparse.linalg: only where searched

        distances = dijkstra(self.graph)
        rows = np.array(list(self.edges))
        u, v, weight, margin = (np.array([self.edges[r][k] for r in rows]) for k in range(4))
        under = distances[u.astype(int), v.astype(int)] < weight - (self.clipped + 1000 * margin)
        return set(rows[under].tolist())

    def settle(self, r: int) -> bool | None:
        """Is row r implied by the difference rows still in the graph, itself left out
        (False), or is a program needed to tell (None)?"""
        if r in self.strict:
            return False
        if r not in self.edges:
            return None
        u, v, weight, margin = self.edges[r]
        at = self.position[(u, v)]
        kept = self.graph.data[at]
        others = [w for w, k in self.parallel[(u, v)] if k != r]
        self.graph.data[at] = others[0] if others else np.inf
        reach = max(weight + margin, 0.0) * (1 + 1e-9) + 1e-300  # longer paths settle nothing
        from scipy.sparse.csgraph import dijkstra  # csgraph imports scipy.sparse.linalg: only where searched

        length = dijkstra(self.graph, indices=u, limit=reach)[v]
        self.graph.data[at] = kept
        return False if length <= weight + margin else None

    def drop(self, r: int) -> None:
        """Row r is dropped: it no longer makes paths."""
        if r not in self.edges or r in self.dropped:
            return
        self.dropped.add(r)
        u, v = self.edges[r][:2]
        self.parallel[(u, v)] = [(w, k) for w, k in self.parallel[(u, v)] if k != r]
        rest = self.parallel[(u, v)]
        self.graph.data[self.position[(u, v)]] = rest[0][0] if rest else np.inf


def _pinned(members: list[int], pairs: dict[tuple[int, int], int]) -> list[int]:
    """Rows of ``pairs`` ((u, v) -> row, tight, joining ``members`` strongly) none implied by
    the others, which still join them: the rows each equality needs, read as ``x = c``
    where they can be.

    Nodes joined by opposite pairs make components, each spanned by a tree of them
    grown breadth first from its first member (``members`` lists the preferred root
    first: the zero node if it is one); each branch keeps its row each way, other pairs
    are implied. One-way rows inside a component are implied; between components they
    are dropped in order while the components stay joined. Last a branch is dropped
    if a way round it is left, which needs a one-way row out of the branch's near side
    and one into its far side.
    """
    opposite: dict[int, list[int]] = {}
    for u, v in pairs:
        if (v, u) in pairs:
            opposite.setdefault(u, []).append(v)
    component, parent, order = {}, {}, []
    for root in members:
        if root in component:
            continue
        component[root], parent[root] = root, root
        queue = [root]
        for u in queue:
            for v in opposite.get(u, []):
                if v not in component:
                    component[v], parent[v] = root, u
                    queue.append(v)
        order += queue
    roots = sorted(set(component.values()), key=members.index)
    at = {r: k for k, r in enumerate(roots)}
    one_way = sorted((e for e in pairs if (e[1], e[0]) not in pairs and component[e[0]] != component[e[1]]),
                     key=pairs.__getitem__)
    joins = np.zeros((len(roots), len(roots)), int)
    for u, v in one_way:
        joins[at[component[u]], at[component[v]]] += 1
    kept_one_way = []
    for u, v in one_way:
        a, b = at[component[u]], at[component[v]]
        joins[a, b] -= 1
        if joins[a, b] == 0 and _strong_components(joins > 0)[0] > 1:
            joins[a, b] += 1
            kept_one_way.append((u, v))
    branches = [(parent[v], v) for v in order if parent[v] != v]
    exits, entries = {v: 0 for v in order}, {v: 0 for v in order}
    for u, v in kept_one_way:
        exits[u] += 1
        entries[v] += 1
    for v in reversed(order):                     # counts over each subtree, leaves first
        if parent[v] != v:
            exits[parent[v]] += exits[v]
            entries[parent[v]] += entries[v]
    total_exits = {r: exits[r] for r in roots}
    total_entries = {r: entries[r] for r in roots}
    doubtful = []
    for p, c in branches:
        r = component[c]
        if total_exits[r] - exits[c] and entries[c]:
            doubtful.append((p, c))
        if exits[c] and total_entries[r] - entries[c]:
            doubtful.append((c, p))
    alive = set(kept_one_way) | {(p, c) for p, c in branches} | {(c, p) for p, c in branches}
    for u, v in sorted(doubtful, key=pairs.__getitem__):
        alive.discard((u, v))
        if not _reaches(alive, u, v):
            alive.add((u, v))
    return [pairs[e] for e in alive]


def _reaches(edges: set[tuple[int, int]], source: int, target: int) -> bool:
    """Does a path of ``edges`` lead from source to target?"""
    out: dict[int, list[int]] = {}
    for u, v in edges:
        out.setdefault(u, []).append(v)
    seen, queue = {source}, [source]
    for u in queue:
        for v in out.get(u, []):
            if v == target:
                return True
            if v not in seen:
                seen.add(v)
                queue.append(v)
    return False


def _shortest_paths(lengths: np.ndarray) -> np.ndarray:
    """All shortest paths over a dense matrix of edge lengths (inf: no edge; zero is an
    edge). scipy's checks cost more than Floyd and Warshall's whole search in numpy on a
    few dozen nodes, so that is used there."""
    if len(lengths) > SMALL_GRAPH:
        from scipy.sparse.csgraph import csgraph_from_dense, shortest_path  # as in Differences.implied

        return shortest_path(csgraph_from_dense(lengths, null_value=np.inf))
    distance = lengths.copy()
    for k in range(len(distance)):
        np.minimum(distance, distance[:, k, None] + distance[None, k, :], out=distance)
    return distance


def _strong_components(adjacency: np.ndarray) -> tuple[int, np.ndarray]:
    """Number of strongly connected components of a small dense graph, and each node's
    component (numbered by first node): reachability by repeated squaring."""
    reach = adjacency | np.eye(len(adjacency), dtype=bool)
    while True:
        wider = (reach.astype(np.float32) @ reach.astype(np.float32)) > 0
        if np.array_equal(wider, reach):
            break
        reach = wider
    same = reach & reach.T
    first = np.argmax(same, axis=1)
    _, label = np.unique(first, return_inverse=True)
    return int(label.max()) + 1 if len(label) else 0, label


def _differences(G: np.ndarray | sparse.csr_array) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The rows of G (dense or sparse) that are edges of :class:`Differences`: each row, its
    edge's head u and tail v, and its scale s (``s x_v - s x_u <= b``; node n, zero, stands
    for a variable alone)."""
    m, n = G.shape
    if not isinstance(G, np.ndarray):
        terms = G.tocoo()
        order = np.lexsort((terms.col, terms.row))
        kept = terms.data[order] != 0
        row, column, value = terms.row[order][kept], terms.col[order][kept], terms.data[order][kept]
    else:
        row, column = np.nonzero(G)
        value = G[row, column]
    count = np.bincount(row, minlength=m)
    ends = np.cumsum(count)
    first, last = np.clip(ends - count, 0, len(row) - 1), np.clip(ends - 1, 0, len(row) - 1)
    single = count == 1
    pair = (count == 2) & (value[first] == -value[last]) if len(row) else single
    rows = np.flatnonzero(single | pair)
    f, l, a, b = column[first[rows]], column[last[rows]], value[first[rows]], value[last[rows]]
    alone = single[rows]
    # a alone: a x_f <= h is x_f - 0 <= h / a (0 -> f) if a > 0, else 0 - x_f <= h / -a (f -> 0);
    # a pair: a x_f + b x_l <= h with b = -a is x_f - x_l <= h / a (l -> f) if a > 0, else f -> l.
    heads = np.where(alone, np.where(a > 0, n, f), np.where(a > 0, l, f))
    tails = np.where(alone, np.where(a > 0, f, n), np.where(a > 0, f, l))
    scales = np.where(a > 0, a, np.where(alone, -a, b))
    return rows, heads.astype(int), tails.astype(int), scales.astype(float)
