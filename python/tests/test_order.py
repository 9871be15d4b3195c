"""order= (issue 21, docs/sparse.md): nested dissection with tile skipping gives the dense rounds'
distances exactly, in the user's vertex order; info reports the order and the work fraction."""
import numpy as np
import pytest

from conftest import apsp


def grid_edges(rows, cols, seed):
    rng = np.random.default_rng(seed)
    v = np.arange(rows * cols).reshape(rows, cols)
    src = np.concatenate([v[:, :-1].ravel(), v[:-1, :].ravel()])
    dst = np.concatenate([v[:, 1:].ravel(), v[1:, :].ravel()])
    w = rng.integers(1, 10, size=src.size).astype(np.float64)
    perm = rng.permutation(rows * cols)  # user labels unrelated to the grid layout
    return perm[src], perm[dst], w


def test_nd_matches_none_with_paths():
    g = grid_edges(40, 50, 3)
    try:
        nd = apsp.solve(g, directed=False, dtype=np.int32, backend="cpu", block=64, paths=True, order="nd")
    except (apsp.Error, ValueError) as e:  # a build without METIS says so (a usage error)
        if "METIS" not in str(e):
            raise
        pytest.skip(str(e))
    none = apsp.solve(g, directed=False, dtype=np.int32, backend="cpu", block=64, paths=True, order="none")
    np.testing.assert_array_equal(nd.dist, none.dist)
    assert nd.order == "nd" and 0 < nd.work_fraction < 1
    assert none.order == "none"
    p = apsp.path(nd.next_hop, 0, 1999)
    assert p[0] == 0 and p[-1] == 1999


def test_bad_order_is_refused():
    with pytest.raises(ValueError, match="order"):
        apsp.solve(grid_edges(2, 2, 1), order="metis")
