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


def _usable(name):
    return any(b["name"] == name and b["usable"] for b in apsp.backends())


@pytest.mark.parametrize("backend", ["cuda", "hip", "multi-gpu", "mpi"])
def test_nd_on_other_backends_matches_cpu(backend):
    """Every backend runs the sparse rounds: the cpu backend's dense distances, and next hops whose
    walks have those lengths (GPU backends skip where no GPU is usable; mpi runs as one rank)."""
    if not _usable(backend):
        pytest.skip(f"backend {backend} is not usable here")
    rows, cols = 61, 70  # V = 4270: 34 tiles of 128 a side
    src, dst, w = grid_edges(rows, cols, 5)
    V = rows * cols
    weight = {}
    for u, v, x in zip(src.tolist(), dst.tolist(), w.tolist()):
        weight[(u, v)] = weight[(v, u)] = min(x, weight.get((u, v), x))
    for dtype in (np.int32, np.float64):
        want = apsp.solve((src, dst, w), directed=False, dtype=dtype, backend="cpu", order="none")
        try:
            got = apsp.solve((src, dst, w), directed=False, dtype=dtype, backend=backend, order="nd",
                             paths=True)
        except (apsp.Error, ValueError) as e:  # a build without METIS says so
            if backend == "multi-gpu" and dtype == np.float64 and "not float64" in str(e):
                continue  # multi-gpu --paths runs int32 and float32 only (docs/paths.md)
            if "METIS" not in str(e):
                raise
            pytest.skip(str(e))
        assert got.order == "nd" and 0 < got.work_fraction < 1
        np.testing.assert_array_equal(got.dist, want.dist)
        rng = np.random.default_rng(11)
        for s, t in zip(rng.integers(0, V, 40).tolist(), rng.integers(0, V, 40).tolist()):
            p = apsp.path(got.next_hop, s, t)
            assert p[0] == s and p[-1] == t
            assert sum(weight[(a, b)] for a, b in zip(p[:-1], p[1:])) == want.dist[s, t]


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.float32, np.float64])
def test_sn_matches_none(dtype):
    """order='sn' (the sparse direct engine, issue 31): the dense rounds' distances, every dtype,
    in the user's vertex order; next hops that walk."""
    g = grid_edges(23, 37, 5)
    try:
        sn = apsp.solve(g, directed=False, dtype=dtype, backend="cpu", paths=True, order="sn")
    except (apsp.Error, ValueError) as e:
        if "METIS" not in str(e):
            raise
        pytest.skip(str(e))
    none = apsp.solve(g, directed=False, dtype=dtype, backend="cpu", order="none")
    assert (none.dist > 0).sum() == 851 * 850
    if dtype in (np.float32, np.float64):
        np.testing.assert_allclose(sn.dist, none.dist, rtol=1e-6)
    else:
        np.testing.assert_array_equal(sn.dist, none.dist)
    assert sn.order == "sn" and 0 < sn.work_fraction < 0.5
    p = apsp.path(sn.next_hop, 3, 800)
    assert p[0] == 3 and p[-1] == 800
    assert sum(sn.dist[a, b] for a, b in zip(p[:-1], p[1:])) == sn.dist[3, 800]


def test_plan_reused_for_new_weights():
    """apsp.plan (issue 31, PATHPACK's apsp_plan): one ordering, solves with new weights on the
    same arcs; a graph with an arc outside the plan is refused."""
    src, dst, w = grid_edges(17, 23, 8)
    try:
        p = apsp.plan((src, dst, w), directed=False)
    except (apsp.Error, ValueError) as e:
        if "METIS" not in str(e):
            raise
        pytest.skip(str(e))
    assert p.vertices == 17 * 23 and p.supernodes > 4 and 0 < p.work_fraction < 1
    for weights in (w, (w * 3) % 11 + 1):
        got = apsp.solve((src, dst, weights), directed=False, dtype=np.int32, backend="cpu", plan=p)
        want = apsp.solve((src, dst, weights), directed=False, dtype=np.int32, backend="cpu", order="none")
        np.testing.assert_array_equal(got.dist, want.dist)
        assert got.order == "sn (plan)"
    # An arc between opposite corners of the grid joins two leaves of the dissection: no factor
    # block of the plan holds it.
    rng = np.random.default_rng(8)
    rng.integers(1, 10, size=src.size)
    perm = rng.permutation(17 * 23)  # grid_edges' labels
    extra = (np.append(src, perm[0]), np.append(dst, perm[17 * 23 - 1]), np.append(w, 1.0))
    with pytest.raises((apsp.Error, ValueError), match="plan"):
        apsp.solve(extra, directed=False, backend="cpu", plan=p)
    with pytest.raises(TypeError, match="apsp.plan"):
        apsp.solve((src, dst, w), plan="p")
