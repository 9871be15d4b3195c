"""apsp.networkx against NetworkX itself: same results, keyed by the same node labels.

Random graphs come from fixed seeds (in the test ids); weights are small integers or halves so
both sides agree exactly. Labels are strings and tuples, graphs are disconnected on purpose.
"""
import math
import os
import pickle
import subprocess
import sys
import time
from collections import defaultdict

import numpy as np
import pytest

try:
    import networkx as nx
except ImportError:
    pytest.skip("NetworkX is not installed (Debian: python3-networkx); apsp.networkx is checked against it",
                allow_module_level=True)

import apsp
import apsp.networkx as anx

CLASSES = [nx.Graph, nx.DiGraph, nx.MultiGraph, nx.MultiDiGraph]


def label(i):
    return f"v{i}" if i % 2 else (i, "t")


def random_graph(cls, seed, n=30, p=0.08, kind="int", missing=0.1, loops=True):
    """A graph of n labelled nodes in two groups with no edge between them (so disconnected), plus
    one isolated node; multigraphs get parallel edges. kind: "int" (1..9), "half" (0.5..9.5),
    "neg" (directed only: negative weights, no negative cycle: w = base + h[u] - h[v])."""
    rng = np.random.default_rng(seed)
    G = cls()
    nodes = [label(i) for i in rng.permutation(n)]
    G.add_nodes_from(nodes)
    h = rng.integers(0, 6, n)
    half = n // 2
    for i in range(n):
        for j in range(n):
            if i == j or (i < half) != (j < half) or rng.random() >= p:
                continue
            for _ in range(1 + (G.is_multigraph() and rng.random() < 0.3)):
                if kind == "int":
                    w = int(rng.integers(1, 10))
                elif kind == "half":
                    w = float(rng.integers(1, 20)) / 2
                else:
                    w = int(rng.integers(0, 5) + h[i] - h[j])
                if kind != "neg" and rng.random() < missing:
                    G.add_edge(nodes[i], nodes[j], other=5)  # no weight attribute: weighs 1
                else:
                    G.add_edge(nodes[i], nodes[j], weight=w)
    if loops:
        G.add_edge(nodes[1], nodes[1], weight=3)
    G.add_node(("isolated",))
    return G


def ids(cls):
    return cls.__name__


def edge_weight(G, weight="weight"):
    """(u, v) -> the lightest weight of an edge u -> v as NetworkX reads it (both ways if undirected)."""
    best = {}
    for u, v, w in G.edges(data=weight, default=1):
        for a, b in ((u, v), (v, u)) if not G.is_directed() else ((u, v),):
            best[a, b] = min(w, best.get((a, b), math.inf))
    return best


def assert_nontrivial(dist):
    assert any(0 < d < math.inf for row in dist.values() for d in row.values()), "no finite distance to compare"


def check_predecessors(G, pred, dist, ref_pred):
    """pred has NetworkX's keys and every hop is on a shortest path (ties may differ from NetworkX)."""
    assert type(pred) is dict
    assert set(pred) == set(ref_pred)
    w = edge_weight(G)
    for u, row in pred.items():
        assert type(row) is dict
        assert set(row) == set(ref_pred[u]), u
        for v, p in row.items():
            if v == u:
                assert p == u  # NetworkX's entry for a self loop
                continue
            assert dist[u][p] + w[p, v] == dist[u][v], (u, v, p)
            path = nx.reconstruct_path(u, v, pred)
            assert path[0] == u and path[-1] == v
            assert sum(w[a, b] for a, b in zip(path, path[1:])) == dist[u][v]


# ---- floyd_warshall_numpy ------------------------------------------------------------------------
@pytest.mark.parametrize("cls", CLASSES, ids=ids)
@pytest.mark.parametrize("kind", ["int", "half"])
@pytest.mark.parametrize("seed", [1, 2])
def test_numpy_matches_networkx(cls, kind, seed):
    G = random_graph(cls, seed, kind=kind)
    ref = nx.floyd_warshall_numpy(G)
    got = anx.floyd_warshall_numpy(G)
    assert got.dtype == np.float64 and got.shape == ref.shape == (len(G), len(G))
    assert np.isinf(got).any() and (np.isfinite(got) & (got > 0)).any()
    np.testing.assert_array_equal(got, ref)


@pytest.mark.parametrize("cls", [nx.Graph, nx.MultiDiGraph], ids=ids)
def test_numpy_nodelist_order(cls):
    G = random_graph(cls, 3)
    nodelist = list(G)
    np.random.default_rng(0).shuffle(nodelist)
    got = anx.floyd_warshall_numpy(G, nodelist=nodelist)
    np.testing.assert_array_equal(got, nx.floyd_warshall_numpy(G, nodelist=nodelist))
    # and it is the default order's matrix, permuted
    pos = {v: i for i, v in enumerate(G)}
    perm = [pos[v] for v in nodelist]
    np.testing.assert_array_equal(got, anx.floyd_warshall_numpy(G)[np.ix_(perm, perm)])


@pytest.mark.parametrize("nodelist", [
    ["a", "b", "c", "a"],        # a repeat
    ["a", "b"],                  # a node missing
    ["a", "a", "b", "c"],        # right length, a repeat
    ["a", "b", "zz"],            # a node that is not in G
], ids=["repeat", "missing", "repeat-same-length", "foreign"])
def test_numpy_bad_nodelist_raises_networkx_error(nodelist):
    G = nx.DiGraph([("a", "b"), ("b", "c")])
    with pytest.raises(nx.NetworkXError):
        nx.floyd_warshall_numpy(G, nodelist=nodelist)
    with pytest.raises(nx.NetworkXError, match="nodelist|not in G"):
        anx.floyd_warshall_numpy(G, nodelist=nodelist)


def test_numpy_ignores_every_self_loop_as_networkx():
    G = nx.DiGraph()
    G.add_weighted_edges_from([("a", "b", 2), ("b", "b", -4), ("a", "a", 1)])
    ref = nx.floyd_warshall_numpy(G)
    np.testing.assert_array_equal(anx.floyd_warshall_numpy(G), ref)
    np.testing.assert_array_equal(ref, [[0, 2], [np.inf, 0]])


def test_numpy_empty_and_single():
    assert anx.floyd_warshall_numpy(nx.Graph()).shape == (0, 0)
    G = nx.Graph()
    G.add_node("x")
    np.testing.assert_array_equal(anx.floyd_warshall_numpy(G), [[0.0]])


# ---- floyd_warshall / floyd_warshall_predecessor_and_distance ---------------------------------------
@pytest.mark.parametrize("cls", CLASSES, ids=ids)
@pytest.mark.parametrize("kind", ["int", "half"])
def test_predecessor_and_distance_match_networkx(cls, kind):
    G = random_graph(cls, 4, kind=kind)
    ref_pred, ref_dist = nx.floyd_warshall_predecessor_and_distance(G)
    pred, dist = anx.floyd_warshall_predecessor_and_distance(G)
    assert type(dist) is dict and list(dist) == list(G)
    assert_nontrivial(dist)
    for u in G:
        assert isinstance(dist[u], defaultdict)
        assert dict(dist[u]) == dict(ref_dist[u])  # every node a key, inf where unreachable
        assert dist[u]["not a node"] == math.inf
    check_predecessors(G, pred, dist, ref_pred)
    loop_node = list(G)[1]  # random_graph put a self loop there
    assert pred[loop_node][loop_node] == loop_node == ref_pred[loop_node][loop_node]


def test_distance_values_are_ints_for_integer_weights():
    G = random_graph(nx.DiGraph, 5, missing=0)
    dist = anx.floyd_warshall(G)
    finite = [d for row in dist.values() for d in row.values() if d != math.inf]
    assert finite and all(type(d) is int for d in finite)
    H = random_graph(nx.DiGraph, 5, kind="half", missing=0)
    assert all(type(d) is float for row in anx.floyd_warshall(H).values() for d in row.values())


@pytest.mark.parametrize("cls", CLASSES, ids=ids)
def test_floyd_warshall_matches_networkx(cls):
    G = random_graph(cls, 6)
    got, ref = anx.floyd_warshall(G), nx.floyd_warshall(G)
    assert_nontrivial(got)
    assert set(got) == set(ref) and all(dict(got[u]) == dict(ref[u]) for u in ref)
    assert pickle.loads(pickle.dumps(got)) == got


def test_weight_attribute_name_and_none():
    G = nx.DiGraph()
    G.add_edge("a", "b", weight=1, cost=10)
    G.add_edge("b", "c", weight=1, cost=10)
    G.add_edge("a", "c", weight=5, cost=1)
    G.add_edge("c", "d")  # neither attribute: 1
    for weight in ("weight", "cost", None, "absent"):
        got = anx.floyd_warshall(G, weight=weight)
        assert got == nx.floyd_warshall(G, weight=weight), weight
        np.testing.assert_array_equal(anx.floyd_warshall_numpy(G, weight=weight),
                                      nx.floyd_warshall_numpy(G, weight=weight))
    assert anx.floyd_warshall(G, weight="cost")["a"]["d"] == 2
    assert anx.floyd_warshall(G, weight=None)["a"]["d"] == 2
    assert anx.floyd_warshall(G)["a"]["d"] == 3


def test_empty_graph():
    assert anx.floyd_warshall(nx.DiGraph()) == {}
    assert anx.floyd_warshall_predecessor_and_distance(nx.DiGraph()) == ({}, {})
    assert list(anx.all_pairs_shortest_path_length(nx.Graph())) == []


# ---- negative weights and cycles -------------------------------------------------------------------
@pytest.mark.parametrize("cls", [nx.DiGraph, nx.MultiDiGraph], ids=ids)
@pytest.mark.parametrize("seed", [7, 8])
def test_negative_weights_match_networkx(cls, seed):
    G = random_graph(cls, seed, kind="neg", p=0.12, loops=False)
    assert any(w < 0 for _, _, w in G.edges(data="weight"))
    ref_pred, ref = nx.floyd_warshall_predecessor_and_distance(G)
    pred, got = anx.floyd_warshall_predecessor_and_distance(G)
    assert all(dict(got[u]) == dict(ref[u]) for u in G)
    check_predecessors(G, pred, got, ref_pred)
    np.testing.assert_array_equal(anx.floyd_warshall_numpy(G), nx.floyd_warshall_numpy(G))
    # Dijkstra-shaped too, exact with negative weights (NetworkX's Dijkstra is not: compare to FW)
    lengths = dict(anx.all_pairs_dijkstra_path_length(G))
    assert lengths == {u: {v: d for v, d in ref[u].items() if d < math.inf} for u in G}


def negative_cycle_graphs():
    g1 = nx.DiGraph()
    g1.add_weighted_edges_from([("a", "b", 2), (("t", 1), "c", 1), ("b", ("t", 1), -1), ("c", "a", -3)])
    g2 = nx.MultiDiGraph()
    g2.add_weighted_edges_from([("a", "b", 1), ("b", "a", 5), ("b", "a", -2)])  # the parallel -2 closes it
    g3 = nx.Graph()
    g3.add_weighted_edges_from([("a", "b", 3), ("b", "c", -1)])  # undirected: b-c-b is a negative cycle
    g4 = nx.DiGraph()
    g4.add_weighted_edges_from([("a", "b", 3), ("b", "b", -1)])  # negative self loop
    return [g1, g2, g3, g4]


@pytest.mark.parametrize("G", negative_cycle_graphs(), ids=["digraph", "multi-parallel", "undirected", "self-loop"])
def test_negative_cycle_raises_networkx_unbounded(G):
    calls = [lambda: anx.floyd_warshall(G), lambda: anx.floyd_warshall_predecessor_and_distance(G),
             lambda: list(anx.all_pairs_dijkstra_path_length(G))]
    if not nx.is_directed(G) or nx.number_of_selfloops(G) == 0:
        calls.append(lambda: anx.floyd_warshall_numpy(G))  # it ignores self loops, as NetworkX's does
    for call in calls:
        with pytest.raises(nx.NetworkXUnbounded, match="Negative cycle") as info:
            call()
        err = info.value
        assert isinstance(err, apsp.NegativeCycleError)
        cycle = err.cycle
        assert cycle and all(v in G for v in cycle)
        w = edge_weight(G)
        assert sum(w[a, b] for a, b in zip(cycle, cycle[1:] + cycle[:1])) < 0
    # NetworkX's own Floyd-Warshall returns a negative d(v, v) there instead
    assert any(nx.floyd_warshall(G)[v][v] < 0 for v in G)


def test_negative_self_loop_ignored_by_numpy_only():
    G = negative_cycle_graphs()[3]
    np.testing.assert_array_equal(anx.floyd_warshall_numpy(G), nx.floyd_warshall_numpy(G))


# ---- callable weights ------------------------------------------------------------------------------
@pytest.mark.parametrize("cls", CLASSES, ids=ids)
def test_callable_weight_matches_networkx_dijkstra(cls):
    G = random_graph(cls, 9, p=0.15)

    def cost(u, v, data):
        ws = [d.get("weight", 1) for d in data.values()] if G.is_multigraph() else [data.get("weight", 1)]
        w = min(ws)
        if w == 4:
            return None  # hidden
        return w + (1 if str(u) < str(v) else 3)  # asymmetric: undirected edges cost by direction

    ref = dict(nx.all_pairs_dijkstra_path_length(G, weight=cost))
    got = dict(anx.all_pairs_dijkstra_path_length(G, weight=cost))
    assert got == ref
    assert any(len(row) > 2 for row in got.values())
    dist = anx.floyd_warshall(G, weight=cost)
    assert {u: {v: d for v, d in row.items() if d < math.inf} for u, row in dist.items()} == ref
    mat = anx.floyd_warshall_numpy(G, weight=cost)
    nodes = list(G)
    expected = np.array([[dist[u][v] for v in nodes] for u in nodes], dtype=float)
    np.testing.assert_array_equal(mat, expected)


def test_callable_weight_is_the_attribute_graph():
    """A callable that reads an attribute gives what NetworkX's Floyd-Warshall gives for that attribute."""
    G = random_graph(nx.Graph, 10, kind="half")
    for u, v, d in G.edges(data=True):
        d["w2"] = d.get("weight", 1) * 2
    got = anx.floyd_warshall_numpy(G, weight=lambda u, v, d: d["w2"])
    np.testing.assert_array_equal(got, nx.floyd_warshall_numpy(G, weight="w2"))


# ---- unweighted and Dijkstra lengths -----------------------------------------------------------------
@pytest.mark.parametrize("cls", CLASSES, ids=ids)
@pytest.mark.parametrize("cutoff", [None, 0, 2, 2.5])
def test_all_pairs_shortest_path_length_matches_networkx(cls, cutoff):
    G = random_graph(cls, 11, p=0.1)
    gen = anx.all_pairs_shortest_path_length(G, cutoff=cutoff)
    assert iter(gen) is gen  # a generator, as NetworkX's
    got = list(gen)
    ref = list(nx.all_pairs_shortest_path_length(G, cutoff=cutoff))
    assert [u for u, _ in got] == list(G)
    assert dict(got) == dict(ref)
    for u, row in got:
        assert row[u] == 0
        assert all(type(d) is int for d in row.values())
        assert list(row.values()) == sorted(row.values())  # nearest first
    if cutoff is None:
        assert any(max(row.values()) >= 3 for _, row in got)


@pytest.mark.parametrize("cls", CLASSES, ids=ids)
@pytest.mark.parametrize("cutoff", [None, 4, 6.5])
@pytest.mark.parametrize("kind", ["int", "half"])
def test_all_pairs_dijkstra_path_length_matches_networkx(cls, cutoff, kind):
    G = random_graph(cls, 12, p=0.1, kind=kind)
    got = list(anx.all_pairs_dijkstra_path_length(G, cutoff=cutoff))
    ref = dict(nx.all_pairs_dijkstra_path_length(G, cutoff=cutoff))
    assert [u for u, _ in got] == list(G)
    assert dict(got) == ref
    assert any(len(row) > 1 for _, row in got)
    for _, row in got:
        assert list(row.values()) == sorted(row.values())


def test_generators_solve_in_chunks_for_large_graphs(monkeypatch):
    """Above the whole-matrix size the rows come from per-source solves, same answers."""
    G = random_graph(nx.DiGraph, 13, n=60, p=0.08)
    whole = dict(anx.all_pairs_dijkstra_path_length(G))
    hops = dict(anx.all_pairs_shortest_path_length(G))
    monkeypatch.setattr(anx, "_WHOLE_MATRIX_MAX_V", 10)
    monkeypatch.setattr(anx, "_CHUNK_ROWS", 7)
    assert dict(anx.all_pairs_dijkstra_path_length(G)) == whole == dict(nx.all_pairs_dijkstra_path_length(G))
    assert dict(anx.all_pairs_shortest_path_length(G)) == hops


# ---- without NetworkX --------------------------------------------------------------------------------
def test_module_imports_without_networkx():
    code = (
        "import sys\n"
        "class Block:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name == 'networkx' or name.startswith('networkx.'):\n"
        "            raise ImportError('blocked for the test')\n"
        "sys.meta_path.insert(0, Block())\n"
        "import apsp, apsp.networkx as anx\n"
        "assert apsp.networkx is anx\n"
        "try:\n"
        "    anx.floyd_warshall(object())\n"
        "except ImportError as e:\n"
        "    assert 'NetworkX' in str(e) and 'python3-networkx' in str(e), e\n"
        "    print('ok')\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=os.environ, timeout=60)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr


# ---- speed -------------------------------------------------------------------------------------------
def best_of(fn, runs=3):
    best = math.inf
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def test_speed_v1000_close_to_shortest_path():
    n = 1000
    rng = np.random.default_rng(14)
    W = np.where(rng.random((n, n)) < 0.05, rng.integers(1, 100, (n, n)), 0)
    np.fill_diagonal(W, 0)
    G = nx.from_numpy_array(W, create_using=nx.DiGraph)
    G = nx.relabel_nodes(G, {i: f"node-{i}" for i in range(n)})
    base = best_of(lambda: apsp.shortest_path(W))
    t_numpy = best_of(lambda: anx.floyd_warshall_numpy(G))
    t_dict = best_of(lambda: anx.floyd_warshall(G), runs=2)
    mat = anx.floyd_warshall_numpy(G)
    np.testing.assert_array_equal(mat, apsp.shortest_path(W))
    print(f"V={n}: shortest_path {base:.3f}s, floyd_warshall_numpy {t_numpy:.3f}s, floyd_warshall {t_dict:.3f}s")
    assert t_numpy <= 3 * base + 0.1, (base, t_numpy)
    assert t_dict <= 6 * base + 0.3, (base, t_dict)


def test_readme_networkx_example_runs_verbatim():
    import pathlib
    import re
    text = (pathlib.Path(__file__).resolve().parents[1] / "README.md").read_text()
    section = text[text.index("\n## NetworkX\n"):]
    section = section[:section.index("\n## ", 1)]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    ns = {}
    exec(compile(code, "README NetworkX example", "exec"), ns)
    assert nx.reconstruct_path("s", "u", ns["pred"]) == ["s", "x", "u"]
    assert ns["dist"]["s"]["u"] == 8 and ns["dist"]["u"]["s"] == math.inf


@pytest.mark.parametrize("bad", [None, "abc", [1], 1j])
def test_non_numeric_weight_raises_type_error_as_networkx(bad):
    G = nx.DiGraph()
    G.add_edge("a", "b", weight=bad)
    G.add_edge("b", "c", weight=2)
    with pytest.raises(TypeError):
        nx.floyd_warshall(G)
    for call in (anx.floyd_warshall, anx.floyd_warshall_numpy, lambda g: list(anx.all_pairs_dijkstra_path_length(g))):
        with pytest.raises(TypeError, match="edge weights must be numbers"):
            call(G)


def test_other_number_types_as_weights():
    from fractions import Fraction
    G = nx.DiGraph()
    G.add_edge("a", "b", weight=Fraction(1, 2))
    G.add_edge("b", "c", weight=np.float32(1.5))
    G.add_edge("c", "d", weight=True)
    assert anx.floyd_warshall(G)["a"]["d"] == nx.floyd_warshall(G)["a"]["d"] == 3


def test_graph_views_and_array_nodelist():
    G = nx.path_graph(6, create_using=nx.DiGraph)
    for H in (G.reverse(copy=False), G.subgraph([1, 2, 3, 5])):
        np.testing.assert_array_equal(anx.floyd_warshall_numpy(H), nx.floyd_warshall_numpy(H))
        assert dict(anx.all_pairs_shortest_path_length(H)) == dict(nx.all_pairs_shortest_path_length(H))
    order = np.array([5, 4, 3, 2, 1, 0])
    np.testing.assert_array_equal(anx.floyd_warshall_numpy(G, nodelist=order),
                                  nx.floyd_warshall_numpy(G, nodelist=list(order)))


@pytest.mark.parametrize("exclusive,want", [(False, {0: 0, 1: 1, 2: 2}), (True, {0: 0, 1: 1, 2: 2, 3: 3})])
def test_fractional_hop_cutoff_follows_the_installed_networkx(monkeypatch, exclusive, want):
    # NetworkX 2.x keeps hops h <= 2.5; 3.x keeps h - 1 < 2.5. apsp asks the installed version once.
    monkeypatch.setattr(anx, "_hops_past_cutoff", {"single_source_shortest_path_length": exclusive})
    got = dict(anx.all_pairs_shortest_path_length(nx.path_graph(5), cutoff=2.5))
    assert got[0] == want
    assert dict(anx.all_pairs_shortest_path_length(nx.path_graph(5), cutoff=2))[0] == {0: 0, 1: 1, 2: 2}
    assert dict(anx.all_pairs_shortest_path_length(nx.path_graph(5), cutoff=0))[0] == {0: 0}
