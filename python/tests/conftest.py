"""Shared helpers for the apsp Python tests: seeded random graphs, SciPy references, checkers.

Every random graph comes from a fixed seed that appears in the test id, so a failure is
reproducible. Weights are small integers (or floats holding small integers / halves) so apsp and
SciPy agree exactly; each graph is checked to be non-trivial (it has finite off-diagonal
distances), so an all-inf answer cannot pass.
"""
import numpy as np
import pytest

try:
    import apsp
except ImportError as e:  # fail loudly: a suite of skips would hide a broken build
    raise ImportError(f"cannot import apsp ({e}): build it and run with PYTHONPATH=<build>/python") from e
sp = pytest.importorskip("scipy.sparse")
csgraph = pytest.importorskip("scipy.sparse.csgraph")


def random_weights(rng, n, density, kind):
    """Dense V x V weight matrix with np.inf for "no edge" (diagonal inf) and a mask of edges.

    kind: "int" (1..9), "float" (halves in 0.5..9.5), "neg" (integers, some negative, no negative
    cycle: w = base + h[u] - h[v] with base >= 0), "zero" (integers 0..5, zeros included).
    """
    mask = rng.random((n, n)) < density
    np.fill_diagonal(mask, False)
    if n > 1:
        mask[0, 1] = True  # never an edgeless graph
    if kind == "int":
        w = rng.integers(1, 10, (n, n)).astype(np.float64)
    elif kind == "float":
        w = rng.integers(1, 20, (n, n)) / 2.0
    elif kind == "neg":
        h = rng.integers(0, 6, n)
        w = (rng.integers(0, 5, (n, n)) + h[:, None] - h[None, :]).astype(np.float64)
    elif kind == "zero":
        w = rng.integers(0, 6, (n, n)).astype(np.float64)
    else:
        raise ValueError(kind)
    if n > 1 and w[0, 1] == 0 and kind != "zero":
        w[0, 1] = 1  # raising a weight never makes a negative cycle
    return np.where(mask, w, np.inf), mask


def edges_of(W):
    """(src, dst, weight) arrays of the finite entries of W (no diagonal)."""
    m = np.isfinite(W)
    np.fill_diagonal(m, False)
    src, dst = np.nonzero(m)
    return src, dst, W[src, dst]


def scipy_reference(W, directed=True, unweighted=False):
    """SciPy's distances for the edge matrix W (inf = no edge; zero weights kept as edges)."""
    src, dst, w = edges_of(W)
    n = W.shape[0]
    G = sp.csr_matrix((w, (src, dst)), shape=(n, n))  # explicit zeros stay stored
    if G.nnz != len(w):  # csr_matrix() must not have dropped any zero entries
        raise AssertionError("reference graph lost entries")
    method = "J" if (w < 0).any() else "FW"
    return csgraph.shortest_path(G, method=method, directed=directed, unweighted=unweighted)


def effective_weights(W, directed=True, unweighted=False):
    """The weight of the lightest edge u -> v as the solver sees it (inf = none)."""
    E = np.where(np.isfinite(W), 1.0, np.inf) if unweighted else W.copy()
    np.fill_diagonal(E, np.inf)
    if not directed:
        E = np.minimum(E, E.T)
    return E


def assert_nontrivial(dist):
    n = dist.shape[0]
    if n > 1:
        off = ~np.eye(n, dtype=bool)
        assert np.isfinite(dist[off]).any(), "test graph has no finite off-diagonal distance"


def assert_walks_end(step, n, reach_off, toward_rows):
    """Every walk along `step` ends: for next hops (toward_rows=False) i, nxt[i, j], ... reaches j;
    for predecessors (toward_rows=True) j, pred[i, j], ... reaches i. All pairs at once, at most
    n hops each; a pair still walking after n hops is on a cycle."""
    idx = np.arange(n)
    goal = np.broadcast_to(idx[:, None] if toward_rows else idx[None, :], (n, n))
    other = np.broadcast_to(idx[:, None], (n, n))  # the row index, to look up pred[i, cur]
    cur = step.astype(np.int64)
    for _ in range(n):
        active = reach_off & (cur >= 0) & (cur != goal)
        if not active.any():
            break
        if toward_rows:
            cur[active] = step[other[active], cur[active]]
        else:
            cur[active] = step[cur[active], goal[active]]
    stuck = reach_off & (cur != goal)
    assert not stuck.any(), f"{int(stuck.sum())} walks never end, e.g. pair {tuple(np.argwhere(stuck)[0])}"


def check_predecessors(dist, pred, E, samples=200, seed=0):
    """pred is SciPy-style and consistent with dist over the edge weights E."""
    n = dist.shape[0]
    assert pred.shape == (n, n) and pred.dtype == np.int32
    reach = np.isfinite(dist)
    off = ~np.eye(n, dtype=bool)
    assert (pred[~reach] == -9999).all()
    assert (np.diag(pred) == -9999).all()
    i, j = np.nonzero(reach & off)
    p = pred[i, j]
    assert ((p >= 0) & (p < n)).all(), "reachable pair without a predecessor"
    # local rule: dist[i, p] + w(p, j) == dist[i, j] for every reachable pair
    np.testing.assert_allclose(dist[i, p] + E[p, j], dist[i, j], rtol=1e-12, atol=1e-9)
    # tight hops + every walk ends = every walk is a shortest path
    assert_walks_end(pred, n, reach & off, toward_rows=True)
    # and whole paths, for a sample of pairs, walk back to i without a cycle
    rng = np.random.default_rng(seed)
    for k in rng.choice(len(i), size=min(samples, len(i)), replace=False) if len(i) else []:
        path = apsp.path_from_predecessors(pred, int(i[k]), int(j[k]))
        assert path[0] == i[k] and path[-1] == j[k] and len(set(path)) == len(path)
        total = sum(E[a, b] for a, b in zip(path, path[1:]))
        assert total == pytest.approx(dist[i[k], j[k]], rel=1e-12, abs=1e-9)


def check_next_hop(dist, nxt, E, samples=200, seed=0):
    """nxt is a valid next-hop matrix for dist over the edge weights E."""
    n = dist.shape[0]
    assert nxt.shape == (n, n) and nxt.dtype == np.int32
    reach = np.isfinite(dist)
    off = ~np.eye(n, dtype=bool)
    assert (nxt[~reach] == -1).all()
    assert (np.diag(nxt) == -1).all()
    i, j = np.nonzero(reach & off)
    k = nxt[i, j]
    assert ((k >= 0) & (k < n)).all(), "reachable pair without a next hop"
    np.testing.assert_allclose(E[i, k] + dist[k, j], dist[i, j], rtol=1e-12, atol=1e-9)
    assert_walks_end(nxt, n, reach & off, toward_rows=False)
    rng = np.random.default_rng(seed)
    for t in rng.choice(len(i), size=min(samples, len(i)), replace=False) if len(i) else []:
        path = apsp.path(nxt, int(i[t]), int(j[t]))
        assert path[0] == i[t] and path[-1] == j[t] and len(set(path)) == len(path)
        total = sum(E[a, b] for a, b in zip(path, path[1:]))
        assert total == pytest.approx(dist[i[t], j[t]], rel=1e-12, abs=1e-9)
