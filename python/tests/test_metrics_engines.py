"""The per-source metrics engines (issue 34): engine="bfs" (bit-parallel multi-source BFS),
"dijkstra", "bounds" and "sparse" (the sparse direct engine's row blocks, issue 31) against NetworkX's own functions on graphs of odd sizes, directed and
undirected, connected and not, unweighted and weighted; distance_histogram against a count of
NetworkX's distances; the engine errors. Fixed seeds."""
import math

import numpy as np
import pytest

import apsp

nx = pytest.importorskip("networkx")


def random_graph(n, p, directed, seed, weighted=False, parts=1):
    """gnp within `parts` id ranges (no edge between them); integer weights 1..9 when weighted."""
    rng = np.random.default_rng(seed)
    G = nx.DiGraph() if directed else nx.Graph()
    G.add_nodes_from(range(n))
    for u in range(n):
        for v in range(n):
            if u == v or (not directed and v < u) or u * parts // n != v * parts // n:
                continue
            if rng.random() < p:
                G.add_edge(u, v, weight=int(rng.integers(1, 10)) if weighted else 1)
    return G


def sparse_available():
    """The sparse engine needs a supernode tree (AMD or METIS in the build)."""
    try:
        apsp.plan((np.array([0]), np.array([1])))
        return True
    except ValueError:
        return False


def need_engine(engine):
    if engine == "sparse" and not sparse_available():
        pytest.skip("no AMD or METIS in this build: no sparse engine")


CASES = [(n, directed, parts) for n in (5, 67, 131, 263) for directed in (False, True)
         for parts in (1, 3) if parts <= max(1, n)]


def assert_close(got, want):
    assert list(got) == list(want)
    for k in want:
        assert got[k] == pytest.approx(want[k], rel=1e-12, abs=0), k


@pytest.mark.parametrize("n,directed,parts", CASES)
@pytest.mark.parametrize("engine", ["bfs", "dijkstra", "sparse"])
def test_centralities_equal_networkx(n, directed, parts, engine):
    need_engine(engine)
    G = random_graph(n, 4.0 / max(n, 1), directed, seed=n * 10 + parts + directed)
    if n > 2:
        assert G.number_of_edges() > n  # non-trivial
    assert_close(apsp.closeness_centrality(G, engine=engine), nx.closeness_centrality(G))
    assert_close(apsp.closeness_centrality(G, engine=engine, wf_improved=False),
                 nx.closeness_centrality(G, wf_improved=False))
    assert_close(apsp.harmonic_centrality(G, engine=engine), nx.harmonic_centrality(G))
    m = apsp.metrics(G, ["reachable", "eccentricity"], engine=engine, infinite_ok=True)
    for u in G:
        reach = nx.single_source_shortest_path_length(G, u)
        assert m["reachable"][u] == len(reach) - 1
        want = max(reach.values()) if len(reach) == n else math.inf
        assert m["eccentricity"][u] == want


@pytest.mark.parametrize("engine", ["bfs", "dijkstra", "bounds", "sparse"])
@pytest.mark.parametrize("n", [2, 45, 160])
def test_extremes_equal_networkx(engine, n):
    need_engine(engine)
    G = random_graph(n, 3.0 / n, False, seed=n)
    G.add_edges_from((v, v + 1, {"weight": 1}) for v in range(n - 1))  # connected
    ecc = nx.eccentricity(G)
    names = ["diameter", "radius", "center", "periphery"]
    m = apsp.metrics(G, names, engine=engine)
    assert m["diameter"] == nx.diameter(G, e=ecc)
    assert m["radius"] == nx.radius(G, e=ecc)
    assert sorted(m["center"]) == sorted(nx.center(G, e=ecc))
    assert sorted(m["periphery"]) == sorted(nx.periphery(G, e=ecc))
    assert apsp.diameter(G, engine=engine) == nx.diameter(G, e=ecc)
    if engine != "bounds":
        assert apsp.average_shortest_path_length(G, engine=engine) == pytest.approx(
            nx.average_shortest_path_length(G), rel=1e-12)


@pytest.mark.parametrize("weight", [None, "weight"])
@pytest.mark.parametrize("n", [2, 45, 160])
def test_directed_extremes_by_bounds_equal_networkx(n, weight):
    G = random_graph(n, 2.0 / n, True, seed=n + 7, weighted=True)
    G.add_edges_from((v, (v + 1) % n, {"weight": 3}) for v in range(n))  # strongly connected
    ecc = nx.eccentricity(G, sp=dict(nx.all_pairs_dijkstra_path_length(G, weight=weight or (
        lambda *a: 1))))
    m = apsp.metrics(G, ["diameter", "radius", "center", "periphery"], weight=weight)
    assert m["diameter"] == nx.diameter(G, e=ecc)
    assert m["radius"] == nx.radius(G, e=ecc)
    assert sorted(m["center"]) == sorted(nx.center(G, e=ecc))
    assert sorted(m["periphery"]) == sorted(nx.periphery(G, e=ecc))
    G.remove_edge(n - 1, 0)  # vertex n - 1 may now miss some other one
    if not nx.is_strongly_connected(G):
        with pytest.raises(ValueError, match="not strongly connected"):
            apsp.diameter(G, weight=weight)
        assert apsp.diameter(G, weight=weight, infinite_ok=True) == math.inf


@pytest.mark.parametrize("engine", ["dijkstra", "sparse"])
@pytest.mark.parametrize("directed", [False, True])
def test_weighted_search_engines_equal_networkx(directed, engine):
    need_engine(engine)
    G = random_graph(97, 0.05, directed, seed=5, weighted=True, parts=2)
    assert_close(apsp.closeness_centrality(G, distance="weight", engine=engine),
                 nx.closeness_centrality(G, distance="weight"))
    assert_close(apsp.harmonic_centrality(G, distance="weight", engine=engine),
                 nx.harmonic_centrality(G, distance="weight"))


@pytest.mark.parametrize("directed,weight", [(False, None), (True, None), (False, "weight"),
                                             (True, "weight")])
def test_distance_histogram_counts_networkx_distances(directed, weight):
    G = random_graph(73, 0.06, directed, seed=3, weighted=True, parts=2)
    want = {}
    for u, dist in nx.all_pairs_dijkstra_path_length(G, weight=weight or (lambda *a: 1)):
        for v, d in dist.items():
            if u != v and (directed or u < v):
                want[int(d)] = want.get(int(d), 0) + 1
    h = apsp.distance_histogram(G, weight=weight)
    assert h.dtype == np.int64 and h.sum() == sum(want.values()) > 0
    assert {d: int(c) for d, c in enumerate(h) if c} == want
    for engine in ("fw", "dijkstra"):
        assert np.array_equal(apsp.distance_histogram(G, weight=weight, engine=engine), h)
    m = apsp.metrics(G, ["histogram", "effective_diameter"], weight=weight)
    cum = np.cumsum(h) / h.sum()
    d = int(np.argmax(cum >= 0.9))
    assert d - 1 < m["effective_diameter"] <= d


def test_engine_errors_are_one_line():
    G = random_graph(30, 0.2, True, seed=1, weighted=True)
    with pytest.raises(ValueError, match="unknown metrics engine 'fast'"):
        apsp.closeness_centrality(G, engine="fast")
    with pytest.raises(ValueError, match="--engine bfs: needs every weight equal"):
        apsp.closeness_centrality(G, distance="weight", engine="bfs")
    with pytest.raises(ValueError, match="--engine bounds: needs non-negative integer weights"):
        apsp.diameter(np.array([[0, 0.5], [0.5, 0]]), engine="bounds")
    with pytest.raises(ValueError, match="histogram: needs integer distances"):
        apsp.distance_histogram(np.array([[0, 0.5], [0.5, 0]]))


def test_auto_picks_a_search_engine_past_the_memory_wall(monkeypatch):
    n = 3001
    src = np.arange(n - 1)
    edges = (src, src + 1)
    # V^2 int32 distances (36 MB) do not fit 20 MB: fw would be refused, bfs runs.
    monkeypatch.setenv("APSP_HOST_MEMORY", str(20 << 20))
    m = apsp.metrics(edges, ["closeness", "eccentricity"], directed=False, num_vertices=n)
    assert m["eccentricity"][0] == n - 1 and m["eccentricity"][n // 2] == n // 2
    assert m["closeness"][0] == pytest.approx((n - 1) / ((n - 1) * n / 2), rel=1e-12)


@pytest.mark.parametrize("engine,names", [("bfs", ["closeness"]), ("dijkstra", ["closeness"]),
                                          ("bounds", ["center", "periphery"])])
def test_long_metrics_runs_stop_on_ctrl_c(engine, names):
    # A cycle of 200,000 vertices: minutes of searches (bounds: every vertex is in the center and
    # the periphery, so 3,125 searches, then the full engine); SIGINT after 0.5 s must end the
    # call promptly with KeyboardInterrupt.
    import os
    import subprocess
    import sys
    import textwrap
    code = f"""
        import os, signal, threading, time, numpy as np, apsp
        n = 200000
        src = np.arange(n)
        edges = (src, (src + 1) % n, np.full(n, 2.0 if {engine!r} == "dijkstra" else 1.0))
        threading.Timer(0.5, lambda: os.kill(os.getpid(), signal.SIGINT)).start()
        t = time.monotonic()
        try:
            apsp.metrics(edges, {names!r}, directed=False, num_vertices=n, engine={engine!r})
        except KeyboardInterrupt:
            print("interrupted after %.2f s" % (time.monotonic() - t))
        else:
            print("finished")
    """
    out = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                         text=True, timeout=300, env=dict(os.environ))
    assert out.returncode == 0 and out.stdout.startswith("interrupted"), (out.stdout,
                                                                          out.stderr[-2000:])
    assert float(out.stdout.split()[2]) < 3.0, out.stdout
