"""apsp.networkx's path-returning all-pairs functions against NetworkX's: all_pairs_shortest_path,
all_pairs_dijkstra_path, all_pairs_dijkstra. Seeded random graphs with string labels, directed
and undirected, multigraphs, disconnected, weighted (integers, halves, negative), with cutoffs.
Where several shortest paths exist the returned one may differ from NetworkX's, so each path is
checked to walk edges of G from the source to the target with NetworkX's length."""
import inspect
import math
import zlib

import numpy as np
import pytest

nx = pytest.importorskip("networkx")

import apsp  # noqa: E402
import apsp.networkx as anx  # noqa: E402

CLASSES = [nx.Graph, nx.DiGraph, nx.MultiGraph, nx.MultiDiGraph]


def rng_for(*params):
    seed = zlib.crc32(repr(params).encode())
    print("seed", seed, params)
    return np.random.default_rng(seed)


def random_graph(cls, rng, n=40, p=0.07, kind="int"):
    """String-labelled nodes in two groups with no edge between them, one isolated node, a self
    loop; weights 1..9 ("int"), 0.5..9.5 ("half"), with negative ones ("neg", directed: no
    negative cycle), some edges without a weight attribute (they weigh 1), multigraphs parallel
    edges; many equally short paths (small weights), so ties are common."""
    G = cls()
    names = [f"n{i:02d}" for i in rng.permutation(n)]
    G.add_nodes_from(names)
    h = rng.integers(0, 4, n)
    half = n // 2
    for i in range(n):
        for j in range(n):
            if i == j or (i < half) != (j < half) or rng.random() >= p:
                continue
            for _ in range(1 + (G.is_multigraph() and rng.random() < 0.3)):
                if kind == "int":
                    w = int(rng.integers(1, 4))
                elif kind == "half":
                    w = float(rng.integers(1, 8)) / 2
                else:
                    w = int(rng.integers(0, 4) + h[i] - h[j])
                if kind != "neg" and rng.random() < 0.1:
                    G.add_edge(names[i], names[j], other=5)
                else:
                    G.add_edge(names[i], names[j], weight=w)
    if kind != "neg":
        G.add_edge(names[1], names[1], weight=2)
    G.add_node("isolated")
    return G


def arc_weight(G, u, v, weight="weight"):
    """The lightest u -> v edge's weight (missing attribute: 1), as NetworkX's Dijkstra reads it."""
    data = G[u][v]
    if G.is_multigraph():
        return min(d.get(weight, 1) for d in data.values())
    return data.get(weight, 1)


def check_paths(G, got, want_lengths, weight="weight", hops=False, nontrivial=True):
    """Every path starts at its source, ends at its target and walks edges of G; its length
    (hops, or the sum of the lightest edge weights) is NetworkX's."""
    assert inspect.isgenerator(got) or isinstance(got, dict)
    got = dict(got)
    assert set(got) == set(want_lengths)
    long_paths = 0
    for s, paths in got.items():
        assert set(paths) == set(want_lengths[s]), s
        for t, path in paths.items():
            assert isinstance(path, list) and path[0] == s and path[-1] == t, (s, t, path)
            assert all(G.has_edge(u, v) for u, v in zip(path, path[1:])), (s, t, path)
            if hops:
                length = len(path) - 1
            else:
                length = sum(arc_weight(G, u, v, weight) for u, v in zip(path, path[1:]))
            assert length == want_lengths[s][t], (s, t, path, length, want_lengths[s][t])
            long_paths += len(path) > 2
    assert long_paths > 0 or not nontrivial  # paths of two edges or more were checked


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
@pytest.mark.parametrize("kind", ["int", "half"])
@pytest.mark.parametrize("cutoff", [None, 3, 4.5])
def test_dijkstra_path_matches_networkx(cls, kind, cutoff):
    G = random_graph(cls, rng_for("dijkstra", cls.__name__, kind, cutoff), kind=kind)
    want = dict(nx.all_pairs_dijkstra_path_length(G, cutoff=cutoff))
    check_paths(G, anx.all_pairs_dijkstra_path(G, cutoff=cutoff), want)


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
@pytest.mark.parametrize("cutoff", [None, 0, 2, 2.5])
def test_shortest_path_matches_networkx(cls, cutoff):
    G = random_graph(cls, rng_for("bfs", cls.__name__, cutoff), p=0.1)
    want = {s: {t: len(path) - 1 for t, path in paths.items()}
            for s, paths in nx.all_pairs_shortest_path(G, cutoff=cutoff)}
    check_paths(G, anx.all_pairs_shortest_path(G, cutoff=cutoff), want, hops=True, nontrivial=cutoff != 0)


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
@pytest.mark.parametrize("cutoff", [None, 5])
def test_all_pairs_dijkstra_matches_networkx(cls, cutoff):
    G = random_graph(cls, rng_for("both", cls.__name__, cutoff), kind="half")
    got = anx.all_pairs_dijkstra(G, cutoff=cutoff)
    assert inspect.isgenerator(got)
    got = dict(got)
    want = dict(nx.all_pairs_dijkstra(G, cutoff=cutoff))
    assert set(got) == set(want)
    for s, (lengths, paths) in got.items():
        assert isinstance(lengths, dict) and isinstance(paths, dict)
        assert lengths == want[s][0], s
        assert list(lengths) == list(paths)
    check_paths(G, {s: paths for s, (_, paths) in got.items()}, {s: w[0] for s, w in want.items()})


@pytest.mark.parametrize("cls", [nx.DiGraph, nx.MultiDiGraph], ids=lambda c: c.__name__)
def test_negative_weights_against_bellman_ford(cls):
    G = random_graph(cls, rng_for("neg", cls.__name__), kind="neg")
    assert any(d.get("weight", 1) < 0 for _, _, d in G.edges(data=True))
    want = dict(nx.all_pairs_bellman_ford_path_length(G))
    check_paths(G, anx.all_pairs_dijkstra_path(G), want)
    for s, (lengths, _) in anx.all_pairs_dijkstra(G):
        assert lengths == want[s]


def test_lengths_are_ints_for_integer_weights_and_the_path_length_functions_agree():
    G = random_graph(nx.Graph, rng_for("ints"), kind="int")
    for s, (lengths, _) in anx.all_pairs_dijkstra(G):
        assert all(type(d) is int for d in lengths.values())
        assert lengths == dict(anx.all_pairs_dijkstra_path_length(G))[s]
    assert dict(anx.all_pairs_shortest_path_length(G)) == dict(nx.all_pairs_shortest_path_length(G))


def test_weight_name_none_and_callable():
    G = random_graph(nx.DiGraph, rng_for("weights"), kind="int")
    for u, v, d in G.edges(data=True):
        d["cost"] = 10 - d.get("weight", 1)
    check_paths(G, anx.all_pairs_dijkstra_path(G, weight="cost"),
                dict(nx.all_pairs_dijkstra_path_length(G, weight="cost")), weight="cost")
    hidden = lambda u, v, d: None if d.get("weight", 1) == 3 else d.get("weight", 1)  # noqa: E731
    want = dict(nx.all_pairs_dijkstra_path_length(G, weight=hidden))
    got = dict(anx.all_pairs_dijkstra_path(G, weight=hidden))
    for s, paths in got.items():
        assert set(paths) == set(want[s])
        for t, path in paths.items():
            ws = [hidden(u, v, G[u][v]) for u, v in zip(path, path[1:])]
            assert None not in ws and sum(ws) == want[s][t]


def test_small_cases():
    assert dict(anx.all_pairs_dijkstra_path(nx.Graph())) == {}
    assert dict(anx.all_pairs_dijkstra(nx.empty_graph(["a"]))) == {"a": ({"a": 0}, {"a": ["a"]})}
    G = nx.DiGraph([("a", "b", {"weight": 2}), ("b", "c", {"weight": 2}), ("a", "c", {"weight": 5})])
    assert dict(anx.all_pairs_dijkstra_path(G)) == {"a": {"a": ["a"], "b": ["a", "b"], "c": ["a", "b", "c"]},
                                                    "b": {"b": ["b"], "c": ["b", "c"]}, "c": {"c": ["c"]}}
    assert dict(anx.all_pairs_dijkstra_path(G, cutoff=-1)) == dict(nx.all_pairs_dijkstra_path(G, cutoff=-1))
    assert dict(anx.all_pairs_shortest_path(G)) == dict(nx.all_pairs_shortest_path(G))
    P = nx.path_graph(["x", "y", "z", "w"])  # a single shortest path each: equal to NetworkX's
    for c in (None, 0, 1, 1.5, 2.5):
        assert dict(anx.all_pairs_shortest_path(P, cutoff=c)) == dict(nx.all_pairs_shortest_path(P, cutoff=c))
        assert dict(anx.all_pairs_dijkstra(P, cutoff=c)) == dict(nx.all_pairs_dijkstra(P, cutoff=c))


def test_negative_cycle_and_bad_cutoff_raise():
    G = nx.DiGraph([("a", "b", {"weight": 1}), ("b", "a", {"weight": -2})])
    with pytest.raises(nx.NetworkXUnbounded) as e:
        next(anx.all_pairs_dijkstra_path(G))
    assert isinstance(e.value, apsp.NegativeCycleError) and set(e.value.cycle) == {"a", "b"}
    for fn in (anx.all_pairs_dijkstra_path, anx.all_pairs_dijkstra, anx.all_pairs_shortest_path):
        with pytest.raises(TypeError, match="cutoff must be a number or None, got 'x'"):
            next(fn(nx.path_graph(2), cutoff="x"))
        with pytest.raises(ValueError, match="cutoff must be a number or None, got nan"):
            next(fn(nx.path_graph(2), cutoff=math.nan))


def test_chunked_solve_for_large_graphs(monkeypatch):
    G = random_graph(nx.Graph, rng_for("chunks"), n=60, kind="half")
    want = dict(anx.all_pairs_dijkstra(G))
    monkeypatch.setattr(anx, "_WHOLE_MATRIX_MAX_V", 10)
    monkeypatch.setattr(anx, "_CHUNK_ROWS", 7)
    got = dict(anx.all_pairs_dijkstra(G))
    assert {s: d for s, (d, _) in got.items()} == {s: d for s, (d, _) in want.items()}
    check_paths(G, {s: p for s, (_, p) in got.items()}, {s: d for s, (d, _) in want.items()})


@pytest.mark.parametrize("exclusive,want", [(False, [0, 1, 2]), (True, [0, 1, 2, 3])])
def test_fractional_hop_cutoff_follows_the_installed_networkx(monkeypatch, exclusive, want):
    # NetworkX 2.8's single_source_shortest_path (and 3.x's) keeps h - 1 < 2.5, where 2.8's
    # lengths keep h <= 2.5; apsp asks the installed version once per function.
    monkeypatch.setattr(anx, "_hops_past_cutoff", {"single_source_shortest_path": exclusive})
    got = dict(anx.all_pairs_shortest_path(nx.path_graph(5), cutoff=2.5))
    assert sorted(got[0]) == want and got[0][2] == [0, 1, 2]
    assert sorted(dict(anx.all_pairs_shortest_path(nx.path_graph(5), cutoff=2))[0]) == [0, 1, 2]
