"""Predecessors (SciPy convention) and next hops: every entry is consistent with the distances,
and walking them gives paths whose weights add up to the distance."""
import zlib

import numpy as np
import pytest

from conftest import (apsp, check_next_hop, check_predecessors, edges_of, effective_weights, random_weights,
                      scipy_reference, sp)

CASES = [(n, kind, directed) for n in (2, 9, 64, 97) for kind in ("int", "float", "neg", "zero")
         for directed in (True, False) if not (kind == "neg" and not directed)]


def rng_for(*params):
    seed = zlib.crc32(repr(params).encode())
    print("seed", seed, params)
    return np.random.default_rng(seed)


@pytest.mark.parametrize("n,kind,directed", CASES)
def test_predecessors_are_valid(n, kind, directed):
    W, _ = random_weights(rng_for("pred", n, kind, directed), n, 0.08 if n > 10 else 0.4, kind)
    src, dst, w = edges_of(W)
    G = sp.csr_matrix((w, (src, dst)), shape=(n, n))
    dist, pred = apsp.shortest_path(G, directed=directed, return_predecessors=True)
    np.testing.assert_array_equal(dist, scipy_reference(W, directed=directed))
    check_predecessors(dist, pred, effective_weights(W, directed))


@pytest.mark.parametrize("n,kind,directed", CASES)
def test_next_hops_are_valid(n, kind, directed):
    W, _ = random_weights(rng_for("next", n, kind, directed), n, 0.08 if n > 10 else 0.4, kind)
    src, dst, w = edges_of(W)
    dist, nxt = apsp.next_hop((src, dst, w), directed=directed, num_vertices=n)
    np.testing.assert_array_equal(dist, scipy_reference(W, directed=directed))
    check_next_hop(dist, nxt, effective_weights(W, directed))


@pytest.mark.parametrize("dtype", [None, np.int32, np.int64, np.float32, np.float64])
def test_predecessors_and_next_hops_for_every_dtype(dtype):
    W, _ = random_weights(rng_for("dtype", str(dtype)), 70, 0.06, "neg")
    W[W == 0] = np.inf  # dense input: 0 is "no edge"
    dist, pred, nxt = apsp.shortest_path(W, return_predecessors=True, return_next_hop=True, dtype=dtype)
    d = dist.astype(np.float64)
    if dtype in (np.int32, np.int64):
        d[dist == (apsp.UNREACHABLE_INT32 if dtype == np.int32 else apsp.UNREACHABLE_INT64)] = np.inf
    np.testing.assert_array_equal(d, scipy_reference(W))
    check_predecessors(d, pred, effective_weights(W))
    check_next_hop(d, nxt, effective_weights(W))


def test_predecessors_on_apsp_graph_and_unweighted():
    W, _ = random_weights(rng_for("graph"), 50, 0.08, "int")
    src, dst, w = edges_of(W)
    g = apsp.graph(src, dst, w, num_vertices=50)
    for directed in (True, False):
        for unweighted in (False, True):
            dist, pred = apsp.shortest_path(g, directed=directed, unweighted=unweighted, return_predecessors=True)
            np.testing.assert_array_equal(dist, scipy_reference(W, directed, unweighted))
            check_predecessors(dist, pred, effective_weights(W, directed, unweighted))
    assert g.directed  # the Graph object itself is left alone


def test_small_example_by_hand():
    # 0 -> 1 (1), 1 -> 2 (1), 0 -> 2 (5), 3 isolated
    g = (np.array([0, 1, 0]), np.array([1, 2, 2]), np.array([1.0, 1.0, 5.0]))
    dist, pred, nxt = apsp.shortest_path(g, num_vertices=4, return_predecessors=True, return_next_hop=True)
    assert dist[0, 2] == 2 and pred[0, 2] == 1 and pred[0, 1] == 0 and nxt[0, 2] == 1
    assert pred[2, 0] == apsp.NO_PREDECESSOR and nxt[2, 0] == apsp.NO_NEXT_HOP
    assert apsp.path(nxt, 0, 2) == [0, 1, 2]
    assert apsp.path_from_predecessors(pred, 0, 2) == [0, 1, 2]
    assert apsp.path(nxt, 3, 3) == [3] and apsp.path_from_predecessors(pred, 3, 3) == [3]
    assert apsp.path(nxt, 0, 3) == [] and apsp.path_from_predecessors(pred, 0, 3) == []


def test_path_rejects_bad_arguments():
    nxt = np.array([[-1, 1], [-1, -1]], dtype=np.int32)
    with pytest.raises(ValueError, match="out of range"):
        apsp.path(nxt, 0, 2)
    with pytest.raises(TypeError):
        apsp.path(nxt, 0.5, 1)
    with pytest.raises(ValueError, match="square"):
        apsp.path(np.zeros((2, 3), dtype=np.int32), 0, 1)
    cyclic = np.array([[-1, 2, 1], [-1, -1, -1], [-1, 0, -1]], dtype=np.int32)  # 0 -> 2 -> 0 -> ...
    with pytest.raises(ValueError, match="not a valid next-hop"):
        apsp.path(cyclic, 0, 1)
