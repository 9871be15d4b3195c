"""dtype handling: None = float64 with inf (exact integer solve underneath); explicit integer
dtypes return the solver's matrix with the documented unreachable sentinel; results are views of
the solver's memory, not copies."""
import numpy as np
import pytest

from conftest import apsp, random_weights, scipy_reference

CHAIN = (np.array([0, 1]), np.array([1, 2]), np.array([3, 4]))  # 0 -> 1 -> 2, nothing back


def test_default_is_float64_with_inf_like_scipy():
    d = apsp.shortest_path(CHAIN)
    assert d.dtype == np.float64
    np.testing.assert_array_equal(d, [[0, 3, 7], [np.inf, 0, 4], [np.inf, np.inf, 0]])


@pytest.mark.parametrize("dtype,sentinel", [(np.int32, 2**30 - 1), (np.int64, 2**62 - 1), ("int32", 2**30 - 1)])
def test_integer_dtypes_use_the_sentinel(dtype, sentinel):
    d = apsp.shortest_path(CHAIN, dtype=dtype)
    assert d.dtype == np.dtype(dtype)
    assert d[1, 0] == sentinel and d[0, 2] == 7
    assert sentinel == (apsp.UNREACHABLE_INT32 if np.dtype(dtype) == np.int32 else apsp.UNREACHABLE_INT64)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, "float32"])
def test_float_dtypes_use_inf(dtype):
    d = apsp.shortest_path(CHAIN, dtype=dtype)
    assert d.dtype == np.dtype(dtype) and np.isinf(d[1, 0]) and d[0, 2] == 7


def test_fractional_weights():
    g = (np.array([0, 1]), np.array([1, 2]), np.array([0.25, 0.5]))
    assert apsp.shortest_path(g)[0, 2] == 0.75
    assert apsp.shortest_path(g, dtype=np.float32).dtype == np.float32
    r = apsp.solve(g)
    assert r.dtype == "float64"  # every backend, GPUs included: fractional weights are never narrowed
    assert not any("float32" in note for note in r.notes)
    assert apsp.solve(g, backend="cpu").dtype == "float64"
    assert apsp.solve(g, dtype=np.float32).dtype == "float32"  # only when asked


def test_int32_overflow_is_avoided_by_promotion():
    # (V-1) * max|w| reaches 2^30: the default solve switches to int64 and stays exact
    w = 2**29 + 1
    g = (np.array([0, 1, 2]), np.array([1, 2, 3]), np.array([w, w, w]))
    r = apsp.solve(g)
    assert r.dtype == "int64" and any("int64" in note for note in r.notes)
    d = apsp.shortest_path(g)
    assert d[0, 3] == 3 * w and d.dtype == np.float64
    assert apsp.shortest_path(g, dtype=np.int64)[0, 3] == 3 * w


@pytest.mark.parametrize("dtype", [None, np.int32, np.int64, np.float32, np.float64])
def test_every_dtype_matches_scipy(dtype):
    rng = np.random.default_rng(7)
    W, _ = random_weights(rng, 90, 0.05, "int")
    want = scipy_reference(W)
    d = apsp.shortest_path(W, dtype=dtype)
    assert d.dtype == np.dtype(dtype or np.float64)
    got = d.astype(np.float64)
    if d.dtype.kind == "i":
        got[d == (apsp.UNREACHABLE_INT32 if d.dtype == np.int32 else apsp.UNREACHABLE_INT64)] = np.inf
    np.testing.assert_array_equal(got, want)


def test_results_are_views_of_solver_memory():
    rng = np.random.default_rng(3)
    W, _ = random_weights(rng, 100, 0.05, "int")
    d = apsp.shortest_path(W, dtype=np.int32)
    # the array does not own its data: a capsule holding the solver's matrix does
    assert not d.flags.owndata and type(d.base).__name__ == "PyCapsule"
    # the solver pads rows to its tile multiple, so the view may be strided
    assert d.strides[1] == 4 and d.strides[0] >= 4 * 100
    assert d.flags.writeable
    r = apsp.solve(W, paths=True)
    assert type(r.dist.base).__name__ == "PyCapsule" and type(r.next_hop.base).__name__ == "PyCapsule"
    # predecessors are converted in place, not copied
    _, pred = apsp.shortest_path(W, return_predecessors=True, dtype=np.int32)
    assert type(pred.base).__name__ == "PyCapsule"
    # default float64 output is one fresh conversion, also owned by a capsule
    f = apsp.shortest_path(W)
    assert type(f.base).__name__ == "PyCapsule" and f.flags.c_contiguous
    # the memory outlives every other reference to the solve
    del r
    assert d.sum() > 0 and np.isfinite(f).any()


def test_solve_reports_backend_and_timings():
    r = apsp.solve(np.ones((10, 10)), backend="cpu", block=32)
    assert r.backend == "cpu" and r.block == 32 and r.dtype == "int32"
    assert set(r.timings) >= {"build", "compute"} and r.timings["compute"] >= 0
    assert r.next_hop is None
    assert "SolveResult" in repr(r)


def test_import_does_not_import_scipy():
    import subprocess
    import sys
    code = ("import sys, numpy as np, apsp; apsp.shortest_path(np.ones((3, 3))); "
            "assert not any(m == 'scipy' or m.startswith('scipy.') for m in sys.modules), 'scipy was imported'")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_rounds_report_the_ladder():
    # w = 2^29 + 1: the bound asks int64, and d(0, 3) = 3w > 2^30 - 1 is found by the sampled
    # Dijkstra from vertex 0, so int64 rounds run; a short graph with the same weights (bound
    # still asks int64) keeps checked int32 rounds, exactly.
    w = 2**29 + 1
    far = apsp.solve((np.array([0, 1, 2]), np.array([1, 2, 3]), np.array([w, w, w])), backend="cpu")
    assert far.dtype == "int64" and far.rounds.startswith("int64 (")
    assert far.dist[0, 3] == 3 * w
    # (with weights below 2^29: an edge of w >= (2^30-1)/2 lies in the band [2^30-1 - w, 2^30-1)
    # itself, and the rung is given up)
    v = 2**28
    near = apsp.solve((np.array([0, 2, 4]), np.array([1, 3, 5]), np.array([v, 7, v])), backend="cpu",
                      num_vertices=200)
    assert near.dtype == "int64" and near.rounds == "int32 (checked; bound asked int64)"
    assert near.dist[0, 1] == v and near.dist[2, 3] == 7 and near.dist[0, 3] == apsp.UNREACHABLE_INT64
    frac = apsp.solve(np.array([[0, 0.5], [0.25, 0]]))
    assert frac.dtype == "float64" and frac.rounds == "float64"
