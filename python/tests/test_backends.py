"""Every backend usable on this machine gives SciPy's answer through the Python API
(on a CPU-only machine: cpu, and mpi as a single rank when built; on a GPU machine also cuda)."""
import numpy as np
import pytest

from conftest import (apsp, check_next_hop, check_predecessors, edges_of, effective_weights, random_weights,
                      scipy_reference, sp)

BACKENDS = ["cpu", "cuda", "multi-gpu", "mpi"]


def usable(name):
    info = {b["name"]: b for b in apsp.backends()}
    return name in info and info[name]["usable"]


def test_backends_listing():
    info = apsp.backends()
    names = [b["name"] for b in info]
    assert "cpu" in names and usable("cpu")
    for b in info:
        assert set(b) == {"name", "built", "usable", "detail"}
        assert not b["usable"] or b["built"]


@pytest.mark.parametrize("dtype", [None, np.int32, np.float32])
@pytest.mark.parametrize("backend", BACKENDS)
def test_backend_matches_scipy(backend, dtype):
    if not usable(backend):
        pytest.skip(f"backend {backend} is not usable here")
    rng = np.random.default_rng(1234)
    W, _ = random_weights(rng, 150, 0.04, "neg")
    src, dst, w = edges_of(W)
    G = sp.csr_matrix((w, (src, dst)), shape=W.shape)
    want = scipy_reference(W)
    r = apsp.solve(G, backend=backend, dtype=dtype)
    assert r.backend == backend
    d = apsp.shortest_path(G, backend=backend, dtype=dtype)
    got = d.astype(np.float64)
    if d.dtype == np.int32:
        got[d == apsp.UNREACHABLE_INT32] = np.inf
    np.testing.assert_array_equal(got, want)
    d, pred, nxt = apsp.shortest_path(G, backend=backend, return_predecessors=True, return_next_hop=True)
    check_predecessors(d, pred, effective_weights(W))
    check_next_hop(d, nxt, effective_weights(W))


@pytest.mark.parametrize("backend", BACKENDS)
def test_auto_agrees_with_backend(backend):
    if not usable(backend):
        pytest.skip(f"backend {backend} is not usable here")
    g = apsp.generate("uniform", n=300, m=3000, seed=5)
    np.testing.assert_array_equal(apsp.shortest_path(g, backend=backend), apsp.shortest_path(g))
