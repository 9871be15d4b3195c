"""apsp.metrics and friends against NetworkX (when it is installed), against each other across
dtypes and input kinds, the streaming MetricsReducer, and the `apsp metrics` command.

Random graphs have small integer weights (zeros included in some), a fixed seed in the test id,
and for the disconnected cases several components with no edges between them.
"""
import csv
import json
import os
import subprocess
from pathlib import Path

import numpy as np
import pytest

import apsp


def _networkx():
    try:
        import networkx
    except ImportError:
        pytest.skip("NetworkX is not installed (Debian: python3-networkx): no comparison against it")
    return networkx


def random_edges(seed, n, directed, components, zero=False):
    """Unique (src, dst, weight) arrays; vertex v is in component v % components (about 0.08 n^2
    arcs in all, whatever the split)."""
    rng = np.random.default_rng(seed)
    mask = rng.random((n, n)) < 0.08 * components * (1 if directed else 2)
    np.fill_diagonal(mask, False)
    comp = np.arange(n) % components
    mask &= comp[:, None] == comp[None, :]
    if not directed:
        mask = np.triu(mask)
    src, dst = np.nonzero(mask)
    w = rng.integers(0 if zero else 1, 10, src.size).astype(np.float64)
    if components == 1 and n > 1:  # a cycle through every vertex: strongly connected
        ring = np.arange(n)
        src = np.concatenate([src, ring])
        dst = np.concatenate([dst, (ring + 1) % n])
        w = np.concatenate([w, np.full(n, 25.0)])
        keep = np.unique(np.stack([src, dst]), axis=1, return_index=True)[1] if directed else None
        if directed:
            src, dst, w = src[keep], dst[keep], w[keep]
        else:
            a, b = np.minimum(src, dst), np.maximum(src, dst)
            _, keep = np.unique(np.stack([a, b]), axis=1, return_index=True)
            src, dst, w = a[keep], b[keep], w[keep]
    return src.astype(np.int64), dst.astype(np.int64), w


def nx_graph(nx, n, directed, src, dst, w):
    G = nx.DiGraph() if directed else nx.Graph()
    G.add_nodes_from(range(n))
    G.add_weighted_edges_from(zip(src.tolist(), dst.tolist(), w.tolist()))
    return G


def as_array(d, n):
    return np.array([d[v] for v in range(n)], dtype=np.float64)


CASES = [(seed, n, directed, components, zero)
         for seed, (n, directed, components, zero) in enumerate([
             (1, True, 1, False), (2, True, 1, False), (2, False, 2, False), (40, True, 1, False),
             (40, False, 1, False), (40, True, 3, False), (40, False, 3, True), (70, True, 1, True),
             (70, True, 2, True), (70, False, 1, True), (129, True, 1, False), (129, False, 4, False)])]


@pytest.mark.parametrize("seed,n,directed,components,zero", CASES)
def test_against_networkx(seed, n, directed, components, zero):
    nx = _networkx()
    src, dst, w = random_edges(seed, n, directed, components, zero)
    G = nx_graph(nx, n, directed, src, dst, w)
    if n > 2:
        assert G.number_of_edges() > n // 2, "trivial input"
    got = apsp.metrics((src, dst, w), num_vertices=n, directed=directed, infinite_ok=True)
    np.testing.assert_allclose(got["closeness"], as_array(nx.closeness_centrality(G, distance="weight"), n),
                               rtol=1e-12, atol=0)
    np.testing.assert_allclose(got["harmonic"], as_array(nx.harmonic_centrality(G, distance="weight"), n),
                               rtol=1e-12, atol=0)
    np.testing.assert_allclose(got["closeness"],
                               apsp.closeness_centrality((src, dst, w), num_vertices=n, directed=directed),
                               rtol=0, atol=0)
    np.testing.assert_array_equal(apsp.harmonic_centrality((src, dst, w), num_vertices=n, directed=directed),
                                  got["harmonic"])
    unscaled = apsp.closeness_centrality((src, dst, w), num_vertices=n, directed=directed, wf_improved=False)
    np.testing.assert_allclose(unscaled, as_array(nx.closeness_centrality(G, distance="weight", wf_improved=False), n),
                               rtol=1e-12, atol=0)
    sp = dict(nx.shortest_path_length(G, weight="weight"))
    np.testing.assert_array_equal(got["reachable"], [len(sp[v]) - 1 for v in range(n)])
    connected = nx.is_strongly_connected(G) if directed else nx.is_connected(G)
    assert (components == 1 or n == 1) == connected
    kw = dict(num_vertices=n, directed=directed)
    if connected:
        ecc = nx.eccentricity(G, sp=sp)
        np.testing.assert_array_equal(apsp.eccentricity((src, dst, w), **kw), as_array(ecc, n))
        assert apsp.diameter((src, dst, w), **kw) == nx.diameter(G, e=ecc)
        assert apsp.radius((src, dst, w), **kw) == nx.radius(G, e=ecc)
        assert apsp.average_shortest_path_length((src, dst, w), **kw) == pytest.approx(
            nx.average_shortest_path_length(G, weight="weight"), rel=1e-12)
        assert sorted(got["center"].tolist()) == sorted(nx.center(G, e=ecc))
        assert sorted(got["periphery"].tolist()) == sorted(nx.periphery(G, e=ecc))
        assert got["wiener_index"] == nx.wiener_index(G, weight="weight")
    else:
        with pytest.raises(nx.NetworkXError):
            nx.eccentricity(G, sp=sp)
        for f in (apsp.eccentricity, apsp.diameter, apsp.radius, apsp.average_shortest_path_length):
            with pytest.raises(ValueError, match="not (strongly )?connected"):
                f((src, dst, w), **kw)
        assert np.isinf(apsp.diameter((src, dst, w), infinite_ok=True, **kw))
        assert np.isinf(got["wiener_index"]) and nx.wiener_index(G, weight="weight") == float("inf")


def test_dtypes_and_inputs_agree():
    n = 90
    src, dst, w = random_edges(7, n, True, 2)
    W = np.zeros((n, n))
    W[src, dst] = w
    ref = apsp.metrics((src, dst, w), num_vertices=n, names=["closeness", "harmonic", "reachable", "wiener_index"])
    assert np.count_nonzero(ref["closeness"]) > n // 2
    for dtype in (np.int32, np.int64, np.float32, np.float64):
        got = apsp.metrics((src, dst, w), num_vertices=n, dtype=dtype,
                           names=["closeness", "harmonic", "reachable", "wiener_index"])
        for k in ("closeness", "harmonic", "reachable"):
            np.testing.assert_allclose(got[k], ref[k], rtol=1e-13, err_msg=f"{k} {dtype}")
    sparse = pytest.importorskip("scipy.sparse")
    for graph in (W, sparse.csr_matrix(W), apsp.graph(src, dst, w, num_vertices=n)):
        got = apsp.metrics(graph, names=["closeness", "harmonic"])
        np.testing.assert_array_equal(got["closeness"], ref["closeness"])
        np.testing.assert_allclose(got["harmonic"], ref["harmonic"], rtol=1e-14)


def test_refusals_and_bad_arguments():
    src, dst, w = random_edges(3, 20, True, 2)
    with pytest.raises(ValueError, match=r"eccentricity: graph is not strongly connected \(vertex 0 reaches \d+ of the 19 others\)"):
        apsp.metrics((src, dst, w), num_vertices=20)
    with pytest.raises(ValueError, match="unknown metric 'closenes'"):
        apsp.metrics((src, dst, w), names=["closenes"])
    with pytest.raises(TypeError, match="unexpected keyword argument 'weight'"):
        apsp.diameter((src, dst, w), weight="weight")
    r = apsp.metrics((src, dst, w), num_vertices=20, names=["eccentricity", "radius"], infinite_ok=True)
    assert np.isinf(r["eccentricity"]).all() and np.isinf(r["radius"])
    with pytest.raises(ValueError):
        apsp.metrics(np.zeros((0, 0)))


def test_one_vertex():
    r = apsp.metrics((np.array([], np.int64), np.array([], np.int64), np.array([])), num_vertices=1)
    assert r["diameter"] == 0 and r["radius"] == 0 and r["average_shortest_path_length"] == 0
    assert r["closeness"].tolist() == [0.0] and r["harmonic"].tolist() == [0.0]
    assert r["center"].tolist() == [0] and r["periphery"].tolist() == [0]


def test_reducer_streams_rows():
    n = 77
    src, dst, w = random_edges(11, n, True, 1)
    D = apsp.shortest_path((src, dst, w), num_vertices=n, dtype=np.int32)
    red = apsp._core.MetricsReducer(n, True)
    for r0 in range(0, n, 10):
        red.add(D[r0:r0 + 10], r0)
    got = red.finish()
    ref = apsp.metrics((src, dst, w), num_vertices=n)
    for k in ("closeness", "eccentricity"):
        np.testing.assert_array_equal(got[k], ref[k])
    # 1/d summed per stripe in double: the stripes' split moves the last bits.
    np.testing.assert_allclose(got["harmonic"], ref["harmonic"], rtol=1e-14)
    assert got["diameter"] == ref["diameter"] and got["diameter"] == D.max()
    red = apsp._core.MetricsReducer(n, True)
    with pytest.raises(ValueError, match="does not continue"):
        red.add(D[10:20], 10)


# ---- the command line ------------------------------------------------------------------------------
def _cli():
    path = os.environ.get("APSP_CLI") or str(Path(apsp.__file__).resolve().parents[2] / "apsp")
    if not os.access(path, os.X_OK):
        pytest.skip(f"the apsp command was not found at {path} (set APSP_CLI)")
    return path


def test_cli_metrics(tmp_path):
    cli = _cli()
    n = 60
    src, dst, w = random_edges(5, n, False, 1)
    inp = tmp_path / "g.txt"
    inp.write_text("".join(f"{a} {b} {int(c)}\n" for a, b, c in zip(src, dst, w)))
    ref = apsp.metrics((src, dst, w), num_vertices=n, directed=False, backend="cpu")
    out = tmp_path / "m.csv"
    p = subprocess.run([cli, "metrics", str(inp), str(out), "--undirected", "--vertices", str(n), "-q",
                        "--backend", "cpu"], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    summary = json.loads(p.stdout)
    assert summary["diameter"] == ref["diameter"] and summary["radius"] == ref["radius"]
    assert summary["average_shortest_path_length"] == pytest.approx(ref["average_shortest_path_length"], rel=1e-15)
    assert summary["wiener_index"] == ref["wiener_index"] and summary["center"] == ref["center"].tolist()
    rows = list(csv.DictReader(out.open()))
    assert [int(r["vertex"]) for r in rows] == list(range(n))
    np.testing.assert_array_equal([float(r["closeness"]) for r in rows], ref["closeness"])
    np.testing.assert_array_equal([float(r["harmonic"]) for r in rows], ref["harmonic"])
    np.testing.assert_array_equal([float(r["eccentricity"]) for r in rows], ref["eccentricity"])
    np.testing.assert_array_equal([int(r["reachable"]) for r in rows], ref["reachable"])

    js = tmp_path / "m.json"
    p = subprocess.run([cli, "metrics", str(inp), str(js), "--undirected", "--vertices", str(n), "-q",
                        "--backend", "cpu", "--metrics", "closeness,diameter"], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    doc = json.loads(js.read_text())
    assert doc["diameter"] == ref["diameter"] and "radius" not in doc and "harmonic" not in doc
    np.testing.assert_array_equal(doc["closeness"], ref["closeness"])


def test_cli_metrics_refusals(tmp_path):
    cli = _cli()
    src, dst, w = random_edges(6, 30, True, 2)
    inp = tmp_path / "g.txt"
    inp.write_text("".join(f"{a} {b} {int(c)}\n" for a, b, c in zip(src, dst, w)))
    # Default: per-vertex values, and the summary says why the graph-wide ones are missing.
    p = subprocess.run([cli, "metrics", str(inp), "-q", "--backend", "cpu"], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    summary = json.loads(p.stdout)
    assert summary["strongly_connected"] is False and "not strongly connected" in summary["refused"]
    assert "diameter" not in summary and summary["wiener_index"] is None
    # Named: an error, and no output file.
    out = tmp_path / "m.csv"
    p = subprocess.run([cli, "metrics", str(inp), str(out), "-q", "--metrics", "closeness,diameter"],
                       capture_output=True, text=True)
    assert p.returncode == 2 and "diameter: graph is not strongly connected" in p.stderr, p.stderr
    assert p.stderr.count("\n") == 1 and not out.exists()
    assert list(tmp_path.iterdir()) == [inp]
    # --infinite: null (JSON has no inf).
    p = subprocess.run([cli, "metrics", str(inp), "-q", "--metrics", "diameter,radius", "--infinite"],
                       capture_output=True, text=True)
    assert p.returncode == 0 and json.loads(p.stdout)["diameter"] is None, p.stderr
    for bad, msg in ((["--metrics", "nope"], "unknown metric 'nope'"), ([str(tmp_path / "m.npy")], ".csv"),
                     (["--type", "int8"], "int8")):
        p = subprocess.run([cli, "metrics", str(inp), "-q", *bad], capture_output=True, text=True)
        assert p.returncode == 2 and msg in p.stderr and p.stderr.startswith("apsp: error:"), p.stderr
    assert list(tmp_path.iterdir()) == [inp]
