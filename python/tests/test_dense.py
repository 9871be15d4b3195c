"""Dense inputs are viewed in place: no copy of the array, no edge list, the same answers.

A dense int32/int64/float32/float64 array becomes an apsp.Graph that views it (any strides), and
the CPU backend builds its distance matrix straight from it; so does the cuda backend (stripes of
rows converted on the host and uploaded). These tests check the answers against SciPy for every
layout and dtype, that the view keeps its array alive, that the Graph object of a dense view
behaves like any other, and (by peak RSS in a fresh process) that a solve does not allocate the 16
bytes per entry an edge list would take. The cuda cases skip without a usable GPU.
"""
import gc
import os
import subprocess
import sys
import textwrap
import zlib

import numpy as np
import pytest

from conftest import (apsp, assert_nontrivial, check_next_hop, check_predecessors, effective_weights,
                      random_weights, scipy_reference)

_core = apsp._core

IN_PLACE = [np.float64, np.float32, np.int64, np.int32]
CONVERTED = [np.bool_, np.int8, np.uint8, np.int16, np.uint16, np.uint32, np.uint64, np.float16]


def seed_of(*params):
    seed = zlib.crc32(repr(params).encode())
    print("seed", seed, params)
    return seed


def layouts(D):
    """The same logical matrix D in several memory layouts (all views of one buffer each)."""
    n = D.shape[0]
    fortran = np.asfortranarray(D)
    transposed = np.ascontiguousarray(D.T).T  # a C array's transpose: strides (8, 8n)
    wide = np.zeros((2 * n + 1, 3 * n + 2), dtype=D.dtype)
    wide[1::2, 2::3] = D
    strided = wide[1::2, 2::3]
    rev = np.ascontiguousarray(D[::-1, ::-1])[::-1, ::-1]  # negative strides
    return {"C": np.ascontiguousarray(D), "F": fortran, "T": transposed, "strided": strided, "reversed": rev}


def dense_of(W, dtype):
    """W (inf = no edge) as a dense matrix of dtype with 0 = no edge."""
    D = np.where(np.isfinite(W), W, 0)
    return D.astype(dtype)


@pytest.mark.parametrize("directed", [True, False])
@pytest.mark.parametrize("layout", ["C", "F", "T", "strided", "reversed"])
@pytest.mark.parametrize("dtype", IN_PLACE)
def test_layouts_match_scipy(dtype, layout, directed):
    rng = np.random.default_rng(seed_of("layout", np.dtype(dtype).name, layout, directed))
    W, _ = random_weights(rng, 67, 0.08, "int")
    D = layouts(dense_of(W, dtype))[layout]
    assert _core.graph_from_dense(D, directed, False, False).is_dense
    assert apsp._dense_array(D) is D  # viewed as it is, whatever the strides
    want = scipy_reference(W, directed=directed)
    assert_nontrivial(want)
    np.testing.assert_array_equal(apsp.shortest_path(D, directed=directed), want)
    # predecessors solve the reversed (transposed) view, next hops the graph itself
    dist, pred, nxt = apsp.shortest_path(D, directed=directed, return_predecessors=True, return_next_hop=True)
    np.testing.assert_array_equal(dist, want)
    E = effective_weights(W, directed)
    check_predecessors(dist, pred, E)
    check_next_hop(dist, nxt, E)


@pytest.mark.parametrize("dtype", CONVERTED)
def test_other_dtypes_are_converted_and_agree(dtype):
    rng = np.random.default_rng(seed_of("converted", np.dtype(dtype).name))
    W, _ = random_weights(rng, 40, 0.1, "int")
    D = dense_of(W, dtype)
    arr = apsp._dense_array(D)
    assert arr.dtype in (np.int32, np.int64, np.float64)
    unweighted = dtype == np.bool_
    want = scipy_reference(W, unweighted=unweighted)
    assert_nontrivial(want)
    np.testing.assert_array_equal(apsp.shortest_path(D), want)
    np.testing.assert_array_equal(apsp.shortest_path(D.T.T[:, :]), want)


@pytest.mark.parametrize("dtype", IN_PLACE)
def test_unweighted_and_negative(dtype):
    rng = np.random.default_rng(seed_of("neg", np.dtype(dtype).name))
    W, _ = random_weights(rng, 50, 0.1, "neg")
    W[W == 0] = np.inf  # a dense 0 is "no edge"
    D = layouts(dense_of(W, dtype))["F"]
    want = scipy_reference(W)
    assert_nontrivial(want)
    np.testing.assert_array_equal(apsp.shortest_path(D), want)
    dist, pred = apsp.shortest_path(D, return_predecessors=True)
    np.testing.assert_array_equal(dist, want)
    check_predecessors(dist, pred, effective_weights(W))
    for directed in (True, False):
        np.testing.assert_array_equal(apsp.shortest_path(D, directed=directed, unweighted=True),
                                      scipy_reference(W, directed=directed, unweighted=True))


def test_undirected_takes_the_lighter_direction():
    D = np.array([[0, 5, 0], [2, 0, 7], [0, 1, 0]], dtype=np.float64)
    got = apsp.shortest_path(D, directed=False)
    np.testing.assert_array_equal(got, [[0, 2, 3], [2, 0, 1], [3, 1, 0]])
    np.testing.assert_array_equal(apsp.shortest_path(D.T, directed=False), got)


def test_view_keeps_its_array_alive():
    rng = np.random.default_rng(seed_of("alive"))
    W, _ = random_weights(rng, 300, 0.02, "int")
    want = scipy_reference(W)
    # The only reference to the array (and to its transposed view) is the Graph's.
    g = _core.graph_from_dense(np.asfortranarray(dense_of(W, np.float64)), True, False, False)
    g_rev = _core.graph_from_dense(dense_of(W, np.int32).T, True, True, False)  # reversed twice
    gc.collect()
    junk = [np.full((300, 300), 7.0) for _ in range(8)]  # reuse any freed memory
    assert g.is_dense and g_rev.is_dense
    np.testing.assert_array_equal(apsp.shortest_path(g), want)
    np.testing.assert_array_equal(apsp.shortest_path(g_rev), want)
    del junk


def test_dense_graph_object_behaves_like_an_edge_list():
    rng = np.random.default_rng(seed_of("object"))
    W, _ = random_weights(rng, 30, 0.15, "float")
    D = dense_of(W, np.float64)
    g = _core.graph_from_dense(D, True, False, False)
    src, dst = np.nonzero(D)
    assert g.num_vertices == 30 and g.num_edges == len(src) and not g.integer_weights
    assert "dense=True" in repr(g)
    np.testing.assert_array_equal(g.src, src)
    np.testing.assert_array_equal(g.dst, dst)
    np.testing.assert_array_equal(g.weight, D[src, dst])
    # transformed() (undirected / reversed / unweighted) keeps viewing the same array
    np.testing.assert_array_equal(apsp.shortest_path(g, directed=False), scipy_reference(W, directed=False))
    np.testing.assert_array_equal(apsp.shortest_path(g, unweighted=True), scipy_reference(W, unweighted=True))
    dist, pred = apsp.shortest_path(g, return_predecessors=True)
    np.testing.assert_array_equal(dist, scipy_reference(W))
    check_predecessors(dist, pred, effective_weights(W))


def test_dense_graph_can_be_written(tmp_path):
    D = np.array([[0, 3, 0], [0, 0, 4], [1, 0, 0]], dtype=np.int64)
    g = _core.graph_from_dense(D, True, False, False)
    apsp.write(tmp_path / "g.txt", g)
    back = apsp.read(tmp_path / "g.txt")
    assert back.num_edges == 3
    np.testing.assert_array_equal(apsp.shortest_path(back, num_vertices=None), apsp.shortest_path(D))


def test_notes_say_when_a_dense_input_is_copied():
    rng = np.random.default_rng(seed_of("notes"))
    W, _ = random_weights(rng, 40, 0.1, "int")
    D = dense_of(W, np.float64)

    def copied(r):
        return any("copied into an edge list" in note for note in r.notes)

    assert not copied(apsp.solve(D, backend="cpu"))
    assert not copied(apsp.solve(D.T, backend="cpu", directed=False))
    assert not copied(apsp.solve(D, backend="cpu", paths=True))  # next hops read the view's arcs
    r = apsp.shortest_path(D, return_predecessors=True, backend="cpu")  # the reversed view, paths
    assert r[1].shape == D.shape
    N = D.copy()
    N[0, 1] = -1
    assert copied(apsp.solve(N, backend="cpu"))
    if _usable("cuda"):
        assert not copied(apsp.solve(D, backend="cuda"))
        assert not copied(apsp.solve(D.T, backend="cuda", directed=False))
        assert not copied(apsp.solve(D, backend="cuda", paths=True))
        assert copied(apsp.solve(N, backend="cuda"))


def test_nan_and_minus_inf_are_no_edge_in_every_orientation_like_scipy():
    # SciPy reads a dense NaN or -inf entry as "no edge" (issue 16); the orientation of the view
    # (C, Fortran, transposed, the reversed view behind predecessors) must not matter.
    from scipy.sparse.csgraph import shortest_path as scipy_sp
    d = np.array([[0, np.nan, 2], [1, 0, -np.inf], [0, 3, 0]])
    clean = np.where(np.isfinite(d), d, 0)
    for a in (d, np.asfortranarray(d), d.T.copy().T):
        want = scipy_sp(clean)
        assert np.isfinite(want).sum() > 3
        np.testing.assert_array_equal(apsp.shortest_path(a), want)
        dist, pred = apsp.shortest_path(a, return_predecessors=True)
        np.testing.assert_array_equal(dist, want)
        np.testing.assert_array_equal(pred, scipy_sp(clean, return_predecessors=True)[1])
    np.testing.assert_array_equal(apsp.shortest_path(d.T), scipy_sp(np.ascontiguousarray(clean.T)))
    np.testing.assert_array_equal(apsp.shortest_path(d.astype(np.float32), unweighted=True),
                                  scipy_sp(clean, unweighted=True))
    assert np.isnan(d[0, 1]) and np.isneginf(d[1, 2])


_PEAK_SCRIPT = textwrap.dedent("""
    import resource, sys
    import numpy as np
    import apsp
    V, backend = int(sys.argv[1]), sys.argv[2]
    # thread team (and a GPU backend's CUDA context) started outside the peak
    apsp.shortest_path(np.ones((64, 64)), dtype=np.int32, backend=backend)
    a = np.full((V, V), 3.0)  # every entry an edge: the old edge list would be 16 * V * V bytes
    a[0, 1] = 1.0
    kib = lambda: resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    before = kib()
    d = apsp.shortest_path(a, dtype=np.int32, backend=backend)
    mid = kib()
    assert d[0, 1] == 1 and d[1, 0] == 3, "wrong answer"
    del d
    d = apsp.shortest_path(a.T, dtype=np.int32, backend=backend)  # a transposed view: no copy either
    after = kib()
    assert d[1, 0] == 1 and d[0, 1] == 3, "wrong answer (transposed)"
    print(before, mid, after)
""")


@pytest.mark.skipif("asan" in os.environ.get("LD_PRELOAD", ""),
                    reason="peak RSS means little under AddressSanitizer (quarantine, shadow memory)")
@pytest.mark.parametrize("backend", ["cpu", "cuda"])
def test_dense_solve_builds_no_edge_list(backend):
    # V = 3000 float64 (72 MB): the old path copied it into a 144 MB edge list (16 B per entry)
    # and bucketed that again (12 B per entry) before building the matrix. Now the only large
    # allocation is the int32 distance matrix (about 4 B per entry, padded). The cuda backend
    # adds its pinned stripes (two 8 MiB buffers up, two down: about 3.7 B per entry at this V),
    # still far below the 16 B per entry of an edge list.
    if not _usable(backend):
        pytest.skip(f"backend {backend} is not usable here")
    V = 3000
    out = subprocess.run([sys.executable, "-c", _PEAK_SCRIPT, str(V), backend], capture_output=True, text=True,
                         env=os.environ.copy(), timeout=600)
    assert out.returncode == 0, out.stderr
    before, mid, after = (int(x) * 1024 for x in out.stdout.split())
    per_entry = (after - before) / (V * V)
    print(f"{backend}: peak grew by {per_entry:.2f} bytes per entry (first solve {(mid - before) / V / V:.2f})")
    limit = 6 if backend == "cpu" else 12
    assert per_entry < limit, f"dense solve allocated {per_entry:.1f} bytes per entry beyond the array"


def _usable(name):
    return any(b["name"] == name and b["usable"] for b in apsp.backends())


@pytest.mark.parametrize("directed", [True, False])
@pytest.mark.parametrize("layout", ["C", "F", "T", "strided", "reversed"])
@pytest.mark.parametrize("dtype", IN_PLACE)
@pytest.mark.parametrize("n", [1, 2, 63, 65, 129, 1000])
def test_cuda_builds_from_the_view(n, dtype, layout, directed):
    # The cuda backend's device matrix straight from the view: the same answer as the cpu backend
    # on the same view (and SciPy for small n), and no edge list made.
    if not _usable("cuda"):
        pytest.skip("backend cuda is not usable here")
    rng = np.random.default_rng(seed_of("cuda", n, np.dtype(dtype).name, layout, directed))
    W, _ = random_weights(rng, n, 0.05 if n > 100 else 0.15, "int")
    D = layouts(dense_of(W, dtype))[layout]
    want = apsp.shortest_path(D, directed=directed, backend="cpu")
    if n <= 129:
        np.testing.assert_array_equal(want, scipy_reference(W, directed=directed))
    assert_nontrivial(want)
    np.testing.assert_array_equal(apsp.shortest_path(D, directed=directed, backend="cuda"), want)
    r = apsp.solve(D, directed=directed, backend="cuda", dtype=np.float32)
    assert r.backend == "cuda"
    assert not any("copied into an edge list" in note for note in r.notes), r.notes
    np.testing.assert_array_equal(r.dist.astype(np.float64), want)  # float32 with inf for unreachable


def test_unscanned_float_views_still_know_fractions():
    # shortest_path makes its dense Graph without from_dense's scan (solve() scans): integer-ness
    # and the refusal of fractional weights for integer dtypes must come from solve()'s own scan.
    d = np.array([[0, 2.5, 0], [0, 0, 1], [4, 0, 0]], dtype=np.float64)
    with pytest.raises(ValueError, match="fractional"):
        apsp.shortest_path(d, dtype=np.int32, backend="cpu")
    np.testing.assert_array_equal(apsp.shortest_path(d, backend="cpu")[0], [0, 2.5, 3.5])
    whole = np.array([[0, 2, 0], [0, 0, 1], [4, 0, 0]], dtype=np.float32)
    r = apsp.solve(whole, backend="cpu")
    assert r.dtype == "int32", r.dtype  # integer-valued floats are solved exactly in int32
