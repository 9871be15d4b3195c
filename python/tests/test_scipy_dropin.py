"""apsp as a drop-in for scipy.sparse.csgraph (issue 16): SciPy's signatures, the per-source
solver behind dijkstra / bellman_ford / johnson / indices=, method='auto', SciPy-catchable
negative cycles, Python-native errors, and the README's example."""
import os
import pathlib
import re
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from conftest import apsp, csgraph, sp, random_weights, edges_of, check_predecessors, effective_weights

ROOT = pathlib.Path(__file__).resolve().parents[2]


def seed_of(name):
    return sum(map(ord, name))


def random_csr(n, density, kind, seed):
    W, _ = random_weights(np.random.default_rng(seed), n, density, kind)
    src, dst, w = edges_of(W)
    return sp.csr_matrix((w, (src, dst)), shape=(n, n)), W


# ---- signatures --------------------------------------------------------------------------------
@pytest.mark.parametrize("module", ["apsp", "apsp.csgraph"])
@pytest.mark.parametrize("name", ["shortest_path", "floyd_warshall", "dijkstra", "bellman_ford", "johnson"])
def test_positional_parameters_are_scipys(name, module):
    import importlib
    import inspect
    ours = inspect.signature(getattr(importlib.import_module(module), name)).parameters
    positional = [p.name for p in ours.values() if p.kind == p.POSITIONAL_OR_KEYWORD]
    want = {"shortest_path": ["csgraph", "method", "directed", "return_predecessors", "unweighted", "overwrite",
                              "indices"],
            "floyd_warshall": ["csgraph", "directed", "return_predecessors", "unweighted", "overwrite"],
            "dijkstra": ["csgraph", "directed", "indices", "return_predecessors", "unweighted", "limit",
                         "min_only"],
            "bellman_ford": ["csgraph", "directed", "indices", "return_predecessors", "unweighted"],
            "johnson": ["csgraph", "directed", "indices", "return_predecessors", "unweighted"]}[name]
    assert positional == want
    defaults = {"method": "auto", "directed": True, "return_predecessors": False, "unweighted": False,
                "overwrite": False, "indices": None, "limit": np.inf, "min_only": False}  # SciPy's documented
    for p in want[1:]:
        assert ours[p].default == defaults[p], p
    extras = [p.name for p in ours.values() if p.kind == p.KEYWORD_ONLY]
    assert "threads" in extras  # apsp's own options exist only as keywords


def test_positional_calls_like_scipy():
    D = np.array([[0, 3, 0], [0, 0, 4], [1, 0, 0.0]])
    for method in ("auto", "FW", "D", "BF", "J"):
        want = csgraph.shortest_path(D, method, False, True)
        got = apsp.shortest_path(D, method, False, True)
        np.testing.assert_array_equal(got[0], want[0])
        np.testing.assert_array_equal(got[1], want[1])
    np.testing.assert_array_equal(apsp.dijkstra(D, True, [2, 0], False, False, 4.0),
                                  csgraph.dijkstra(D, True, [2, 0], False, False, 4.0))
    with pytest.raises(TypeError):
        apsp.shortest_path(D, "auto", True, False, False, False, None, np.int32)  # dtype is keyword-only


def test_method_and_indices_errors_like_scipy():
    D = np.ones((3, 3))
    for bad in ("x", "fw", "d", None, 3):
        with pytest.raises(ValueError, match="unrecognized method"):
            apsp.shortest_path(D, method=bad)
    with pytest.raises(ValueError, match="Cannot specify indices with method == 'FW'"):
        apsp.shortest_path(D, method="FW", indices=[0])
    with pytest.raises(ValueError, match="limit must be >= 0"):
        apsp.dijkstra(D, limit=-1)
    for bad in (3, -4):
        with pytest.raises(ValueError, match="indices out of range"):
            apsp.dijkstra(D, indices=bad)
    np.testing.assert_array_equal(apsp.dijkstra(D, indices=-1), csgraph.dijkstra(D, indices=-1))


@pytest.mark.parametrize("indices", [2, [2], [[0], [2]], np.array([[0, 1], [2, 2]])])
@pytest.mark.parametrize("func", ["shortest_path", "dijkstra", "bellman_ford", "johnson"])
def test_indices_shapes_like_scipy(func, indices):
    D = np.array([[0, 3, 0], [0, 0, 4], [1, 0, 0.0]])
    want_d, want_p = getattr(csgraph, func)(D, indices=indices, return_predecessors=True)
    got_d, got_p = getattr(apsp, func)(D, indices=indices, return_predecessors=True)
    assert got_d.shape == want_d.shape and got_d.dtype == np.float64
    assert got_p.shape == want_p.shape and got_p.dtype == np.int32
    np.testing.assert_array_equal(got_d, want_d)
    np.testing.assert_array_equal(got_p, want_p)


# ---- the per-source solver ---------------------------------------------------------------------
@pytest.mark.parametrize("kind", ["int", "float", "zero", "neg"])
@pytest.mark.parametrize("directed", [True, False])
def test_per_source_matches_scipy(kind, directed):
    if kind == "neg" and not directed:
        pytest.skip("an undirected negative edge is a negative cycle")
    G, W = random_csr(120, 0.04, kind, seed_of("ps" + kind))
    idx = [0, 7, 7, 119, 60]
    method = "J" if kind == "neg" else "D"
    want_d, want_p = csgraph.shortest_path(G, method=method, directed=directed, indices=idx,
                                           return_predecessors=True)
    assert np.isfinite(want_d).sum() > 2 * len(idx)
    for func in (apsp.dijkstra, apsp.bellman_ford, apsp.johnson):
        d, p = func(G, directed=directed, indices=idx, return_predecessors=True)
        np.testing.assert_allclose(d, want_d, rtol=1e-12, atol=1e-12)
        # predecessors: tight (dist[p] + w(p, j) == dist[j]) and -9999 exactly where SciPy has it
        E = effective_weights(W, directed)
        for r, s in enumerate(idx):
            reach = np.isfinite(d[r]) & (np.arange(120) != s)
            np.testing.assert_array_equal(p[r] == -9999, want_p[r] == -9999)
            j = np.nonzero(reach)[0]
            np.testing.assert_allclose(d[r, p[r, j]] + E[p[r, j], j], d[r, j], rtol=1e-12, atol=1e-9)


def test_all_rows_per_source_equal_floyd_warshall():
    G, W = random_csr(90, 0.05, "neg", seed_of("rows"))
    d_fw, p_fw = apsp.shortest_path(G, method="FW", return_predecessors=True)
    d_d, p_d = apsp.shortest_path(G, method="D", return_predecessors=True)
    np.testing.assert_array_equal(d_fw, d_d)
    check_predecessors(d_d, p_d, effective_weights(W))


@pytest.mark.parametrize("limit", [0, 3, 7.5, np.inf])
@pytest.mark.parametrize("kind", ["int", "zero"])
def test_limit_like_scipy(limit, kind):
    G, _ = random_csr(80, 0.05, kind, seed_of("limit" + kind))
    for directed in (True, False):
        want_d, want_p = csgraph.dijkstra(G, directed=directed, indices=[0, 5, 9], limit=limit,
                                          return_predecessors=True)
        d, p = apsp.dijkstra(G, directed=directed, indices=[0, 5, 9], limit=limit, return_predecessors=True)
        np.testing.assert_array_equal(d, want_d)
        np.testing.assert_array_equal(p == -9999, want_p == -9999)


def test_limit_with_negative_weights_cuts_exact_distances_not_paths():
    # 0 -> 1 (10) -> 2 (-9): d(0, 2) = 1 <= limit although its path passes vertex 1 beyond it; the
    # limit cut vertex 2 too (with negative weights the exact distances are what apsp promises)
    g = sp.csr_matrix(([10.0, -9.0, 2.0], ([0, 1, 0], [1, 2, 3])), shape=(4, 4))
    d, p = apsp.dijkstra(g, indices=0, limit=5, return_predecessors=True)
    np.testing.assert_array_equal(d, [0, np.inf, 1, 2])
    # vertex 1 is beyond the limit but keeps its predecessor: 2's path reads back through it
    np.testing.assert_array_equal(p, [-9999, 0, 1, 0])
    assert apsp.path_from_predecessors(np.tile(p, (4, 1)), 0, 2) == [0, 1, 2]
    np.testing.assert_array_equal(apsp.dijkstra(g, indices=0), [0, 10, 1, 2])
    # the graph: 0 -> 2 (3) -> 1 (-2), limit 1 gave [0, inf, inf]
    g = sp.csr_matrix(([3.0, -2.0], ([0, 2], [2, 1])), shape=(3, 3))
    np.testing.assert_array_equal(apsp.dijkstra(g, indices=0), [0, 1, 3])
    for limit in (1, 2.5):
        np.testing.assert_array_equal(apsp.dijkstra(g, indices=0, limit=limit), [0, 1, np.inf])
        d, p, s = apsp.dijkstra(g, indices=[0], limit=limit, min_only=True,
                                return_predecessors=True)
        np.testing.assert_array_equal(d, [0, 1, np.inf])
        np.testing.assert_array_equal(p, [-9999, 2, 0])
        np.testing.assert_array_equal(s, [0, 0, 0])
    np.testing.assert_array_equal(apsp.dijkstra(g, indices=0, limit=3), [0, 1, 3])
    np.testing.assert_array_equal(apsp.dijkstra(g, indices=0, limit=0.5), [0, np.inf, np.inf])
    np.testing.assert_array_equal(apsp.dijkstra(g, indices=[0, 2], limit=1),
                                  [[0, 1, np.inf], [np.inf, -2, 0]])


@pytest.mark.parametrize("limit", [0, 2, 5.5, 9])
def test_limit_with_negative_weights_equals_the_full_rows_cut(limit):
    G, _ = random_csr(120, 0.04, "neg", seed_of("limitneg"))
    idx = [0, 7, 31]
    full = apsp.dijkstra(G, indices=idx)
    assert np.isfinite(full).sum() > 3 * len(idx) and (G.data < 0).any()
    np.testing.assert_array_equal(apsp.dijkstra(G, indices=idx, limit=limit),
                                  np.where(full <= limit, full, np.inf))
    d, p = apsp.dijkstra(G, indices=idx, limit=limit, return_predecessors=True)
    for r, i in enumerate(idx):  # every vertex within the limit has its whole path back to i
        for j in np.flatnonzero(np.isfinite(d[r])):
            v, steps = j, 0
            while v != i:
                v, steps = p[r, v], steps + 1
                assert v >= 0 and steps <= 120


@pytest.mark.parametrize("kind", ["int", "zero", "neg"])
def test_min_only_like_scipy(kind):
    G, _ = random_csr(150, 0.03, kind, seed_of("min" + kind))
    idx = np.array([4, 100, 37, 4])
    full = csgraph.shortest_path(G, method="J", indices=idx)
    d, p, s = apsp.dijkstra(G, indices=idx, min_only=True, return_predecessors=True)
    assert d.shape == p.shape == s.shape == (150,)
    np.testing.assert_allclose(d, full.min(axis=0), rtol=1e-12)
    # the source listed first among the nearest ones, -9999 where none reaches
    first = idx[np.argmin(full, axis=0)]
    np.testing.assert_array_equal(s, np.where(np.isinf(d), -9999, first))
    for v in range(150):  # every predecessor walk stays with its source and ends there
        u, steps = v, 0
        while p[u] != -9999:
            assert s[p[u]] == s[v]
            u, steps = p[u], steps + 1
            assert steps <= 150
        assert u == s[v] or np.isinf(d[v])
    np.testing.assert_array_equal(apsp.dijkstra(G, indices=idx, min_only=True), d)


def test_per_source_negative_cycle_names_it_and_is_scipys_class():
    g = sp.csr_matrix(([1.0, -3.0, 1.0, 5.0], ([0, 1, 2, 3], [1, 2, 0, 4])), shape=(5, 5))
    for func in (apsp.dijkstra, apsp.bellman_ford, apsp.johnson):
        with pytest.raises(csgraph.NegativeCycleError) as err:
            func(g, indices=[3])
        assert isinstance(err.value, apsp.NegativeCycleError) and isinstance(err.value, ValueError)
        assert sorted(err.value.cycle) == [0, 1, 2]
    with pytest.raises(csgraph.NegativeCycleError):
        apsp.floyd_warshall(g)


def test_negative_cycle_class_without_scipy_stays_apsps():
    code = textwrap.dedent("""
        import sys, numpy as np, apsp
        try:
            apsp.shortest_path(np.array([[0, -1.0], [0, 0]]), directed=False)
        except apsp.NegativeCycleError as e:
            assert type(e) is apsp.NegativeCycleError and e.cycle == [0, 1], (type(e), e.cycle)
        assert not any(m.startswith("scipy") for m in sys.modules)
        print("ok")
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=os.environ)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr


def test_indices_on_a_large_sparse_graph_do_not_need_v_squared():
    # V = 200000: a V x V float64 matrix would be 320 GB. With 256 MiB allowed, two rows must
    # still come back, from the per-source solver, equal to SciPy's.
    code = textwrap.dedent("""
        import resource, numpy as np, scipy.sparse as sp, apsp
        from scipy.sparse.csgraph import dijkstra
        n, m = 200000, 600000
        rng = np.random.default_rng(5)
        G = sp.csr_matrix((rng.integers(1, 100, m).astype(float), (rng.integers(0, n, m), rng.integers(0, n, m))),
                          shape=(n, n))
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        d = apsp.shortest_path(G, indices=[0, 17])
        grew = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
        assert d.shape == (2, n) and np.isfinite(d).sum() > n, np.isfinite(d).sum()
        assert np.array_equal(d, dijkstra(G, indices=[0, 17]))
        print(grew)
    """)
    env = dict(os.environ, APSP_HOST_MEMORY=str(256 << 20))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)
    assert out.returncode == 0, out.stderr
    assert int(out.stdout) < 200 * 1024, f"peak RSS grew by {out.stdout.strip()} KiB"


def test_auto_picks_by_estimated_cost():
    from apsp import _cost
    r = _cost.DEFAULT_RATES
    # whole matrix of a dense graph: Floyd-Warshall; a few rows of a sparse one: per source
    assert _cost.fw_seconds(r, 1500, 8, 2, False) < _cost.per_source_seconds(r, 1500, 1500, 1500 * 1500, 2)
    assert _cost.per_source_seconds(r, 20000, 3, 100000, 2) < _cost.fw_seconds(r, 20000, 8, 2, False)
    # observable: a V = 3000 graph's two rows come back under a memory limit that FW's matrix
    # (36 MB of int32) would exceed
    code = textwrap.dedent("""
        import numpy as np, scipy.sparse as sp, apsp
        n = 3000
        G = sp.random(n, n, density=0.001, format="csr", random_state=3) * 10
        print(apsp.shortest_path(G, indices=[1, 2]).shape)
    """)
    env = dict(os.environ, APSP_HOST_MEMORY=str(20 << 20))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert out.returncode == 0 and out.stdout.strip() == "(2, 3000)", out.stderr
    fw = subprocess.run([sys.executable, "-c", code.replace("indices=[1, 2]", "method='FW'")], env=env,
                        capture_output=True, text=True, timeout=120)
    assert fw.returncode != 0 and "MemoryError" in fw.stderr, fw.stderr  # ... where method='FW' cannot


# ---- inputs ------------------------------------------------------------------------------------
def test_masked_and_nan_inputs_like_scipy():
    data = np.array([[0.0, 0.0, 9.0], [np.nan, 0.0, 1.0], [2.0, -np.inf, 0.0]])
    clean = np.where(np.isfinite(data), data, 0)
    for method in ("auto", "FW", "D", "J", "BF"):
        np.testing.assert_array_equal(apsp.shortest_path(data, method=method),
                                      csgraph.shortest_path(clean, method=method))
    m = np.ma.masked_array(clean, mask=clean == 9.0)
    for method in ("FW", "D", "J"):
        np.testing.assert_array_equal(apsp.shortest_path(m, method=method), csgraph.shortest_path(m, method="D"))


def test_sparse_explicit_zero_is_an_edge_for_every_method():
    g = sp.csr_matrix(([0.0, 2.0], ([0, 1], [1, 2])), shape=(3, 3))
    for method in ("auto", "FW", "D", "BF", "J"):
        assert apsp.shortest_path(g, method=method)[0, 2] == 2


# ---- Python-native errors and results (issue 16, item 4) --------------------------------------
def test_messages_name_python_keywords_not_cli_flags():
    big = (np.array([0, 1]), np.array([1, 2]), np.array([2**29, 2**29]))
    with pytest.raises(ValueError) as err:
        apsp.shortest_path(big, dtype=np.int32)
    assert "dtype=np.int64" in str(err.value) and "--" not in str(err.value)
    with pytest.raises(ValueError, match="dtype=np.int32 needs method='FW'"):
        apsp.shortest_path(np.ones((3, 3)), method="D", dtype=np.int32)
    with pytest.raises(TypeError, match="backend="):
        apsp.shortest_path(np.ones((3, 3)), backend=3)


def test_whole_floats_too_large_for_int64_fall_back_to_float64():
    w = 3e18  # whole numbers; (V-1) * w passes int64's exact range
    D = np.array([[0, w, 0], [0, 0, w], [0, 0, 0]])
    want = csgraph.shortest_path(D)
    for g in (D, sp.csr_matrix(D), (np.array([0, 1]), np.array([1, 2]), np.array([w, w]))):
        d = apsp.shortest_path(g)
        assert d.dtype == np.float64
        np.testing.assert_array_equal(d, want)
    assert apsp.solve(D).dtype == "float64"
    with pytest.raises(ValueError, match="int64 cannot be exact"):
        apsp.shortest_path(D, dtype=np.int64)  # asked for explicitly: still refused


def test_integer_weights_too_large_for_int64_fall_back_to_float64():
    # int64 weights whose (V-1)*max|w| reaches 2**62 raised "use dtype=np.float64"; SciPy converts
    # any input to float64 and returns that
    w = 3 * 10**18
    D = np.array([[0, w, 0], [0, 0, w], [0, 0, 0]], dtype=np.int64)
    want = csgraph.shortest_path(D)
    assert want.dtype == np.float64
    for g in (D, sp.csr_matrix(D), (np.array([0, 1]), np.array([1, 2]), np.array([w, w])),
              np.ma.masked_equal(D, 0)):
        d = apsp.shortest_path(g)
        assert d.dtype == np.float64
        np.testing.assert_array_equal(d, want)
    np.testing.assert_array_equal(apsp.floyd_warshall(D), want)
    # apsp's own entry points and integer dtype= refuse integer weights beyond 2**53
    with pytest.raises(ValueError, match=r"graph\[0, 1\] = 3000000000000000000 is beyond 2\^53"):
        apsp.solve(D)
    with pytest.raises(ValueError, match=r"beyond 2\^53"):
        apsp.shortest_path(D, dtype=np.int64)  # asked for explicitly: still refused


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.float32, np.float64, None])
def test_results_are_contiguous(dtype):
    D = np.random.default_rng(2).integers(0, 9, (70, 70))  # 70: the solver pads rows to 96
    d = apsp.shortest_path(D, dtype=dtype)
    assert d.flags.c_contiguous and d.strides == (70 * d.itemsize, d.itemsize)
    d, p, nxt = apsp.shortest_path(D, dtype=dtype, return_predecessors=True, return_next_hop=True)
    assert d.flags.c_contiguous and p.flags.c_contiguous and nxt.flags.c_contiguous
    np.testing.assert_array_equal(np.asarray(d, dtype=np.float64)[D.astype(bool)].max() > 0, True)


def test_file_name_and_networkx_graph_get_a_hint(tmp_path):
    with pytest.raises(TypeError, match=r"not a file name.*apsp.read\("):
        apsp.shortest_path("graph.mtx")
    with pytest.raises(TypeError, match="not a file name"):
        apsp.dijkstra(tmp_path / "g.txt")

    class DiGraph:  # what a NetworkX graph looks like to us: its class's module
        pass
    DiGraph.__module__ = "networkx.classes.digraph"
    with pytest.raises(TypeError, match="NetworkX graph.*to_scipy_sparse_array"):
        apsp.shortest_path(DiGraph())


def test_dir_shows_the_api_only():
    names = dir(apsp)
    assert set(apsp.__all__) <= set(names)
    assert not [n for n in names if n.startswith("_") and n != "__version__"]
    assert "np" not in names and "numbers" not in names and "os" not in names
    import inspect
    import apsp.csgraph as cg
    assert cg.NegativeCycleError is apsp.NegativeCycleError and cg.NO_PREDECESSOR == apsp.NO_PREDECESSOR
    # apsp.csgraph's functions read the input as SciPy does (tuples, tiny dense weights), apsp's
    # as apsp does; the signatures are the same
    for name in ("shortest_path", "floyd_warshall", "dijkstra", "bellman_ford", "johnson"):
        assert getattr(cg, name) is not getattr(apsp, name)
        assert inspect.signature(getattr(cg, name)) == inspect.signature(getattr(apsp, name))


def test_readme_python_example_runs_verbatim():
    text = (ROOT / "README.md").read_text()
    section = text[text.index("\n## Python\n"):]
    section = section[:section.index("\n## ", 1)]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=os.environ, timeout=60)
    assert out.returncode == 0, out.stderr
    expected = re.search(r"#\s*(.*)$", code.strip().splitlines()[-1]).group(1)
    assert out.stdout.strip() == expected.strip()


def test_small_graphs_stay_on_the_cpu_under_auto(monkeypatch):
    # backend='auto' below 1024 vertices: the cpu solves (ties as SciPy's), whatever GPU exists.
    from apsp import _csgraph
    seen = []
    real = _csgraph.run
    monkeypatch.setattr(_csgraph, "run", lambda g, backend, *a, **k: seen.append(backend) or real(g, backend, *a, **k))
    D = np.array([[0, 3, 0], [0, 0, 4], [1, 0, 0.0]])
    apsp.shortest_path(D, "FW", False, True)
    assert seen and set(seen) == {"cpu"}
