"""The metric functions take NetworkX graphs (issue 33, defect 2): results keyed by node label,
NetworkX's weight keywords and defaults (None: hops), equal to NetworkX's own functions; and the
hints for inputs they cannot take name functions that exist."""
import math

import numpy as np
import pytest

import apsp

nx = pytest.importorskip("networkx")


def labelled_digraph():
    G = nx.DiGraph()
    G.add_weighted_edges_from([("a", "b", 2), ("b", "c", 3), ("c", "a", 1), ("a", "c", 7),
                               ("c", "d", 4), ("d", "b", 1)])
    return G


def assert_close_dicts(got, want):
    assert isinstance(got, dict) and list(got) == list(want)
    for k in want:
        assert got[k] == pytest.approx(want[k], rel=1e-12), k


@pytest.mark.parametrize("distance", [None, "weight"])
def test_karate_club_centralities_match_networkx(distance):
    G = nx.karate_club_graph()  # before: TypeError suggesting apsp.closeness(...), not a function
    assert_close_dicts(apsp.closeness_centrality(G, distance=distance),
                       nx.closeness_centrality(G, distance=distance))
    assert_close_dicts(apsp.harmonic_centrality(G, distance=distance),
                       nx.harmonic_centrality(G, distance=distance))
    assert_close_dicts(apsp.closeness_centrality(G, distance=distance, wf_improved=False),
                       nx.closeness_centrality(G, distance=distance, wf_improved=False))


@pytest.mark.parametrize("weight", [None, "weight"])
def test_labelled_digraph_distances_match_networkx(weight):
    G = labelled_digraph()
    # NetworkX < 3.2 has no weight= in eccentricity: give it the distances
    ecc = nx.eccentricity(G, sp=dict(nx.shortest_path_length(G, weight=weight)))
    assert_close_dicts(apsp.eccentricity(G, weight=weight), ecc)
    assert apsp.diameter(G, weight=weight) == nx.diameter(G, e=ecc)
    assert apsp.radius(G, weight=weight) == nx.radius(G, e=ecc)
    assert apsp.average_shortest_path_length(G, weight=weight) == pytest.approx(
        nx.average_shortest_path_length(G, weight=weight), rel=1e-12)
    assert_close_dicts(apsp.closeness_centrality(G, distance=weight),
                       nx.closeness_centrality(G, distance=weight))


def test_weighted_values_are_the_weights():
    G = labelled_digraph()
    ecc = apsp.eccentricity(G, weight="weight")
    assert ecc == {"a": 9.0, "b": 7.0, "c": 4.0, "d": 5.0}  # a->b->c->d = 2+3+4
    assert apsp.eccentricity(G) == {"a": 2.0, "b": 2.0, "c": 2.0, "d": 3.0}  # hops: d->b->c->a


def test_metrics_keyed_by_label():
    G = nx.path_graph(["x", "y", "z"])
    got = apsp.metrics(G, ["eccentricity", "center", "periphery", "reachable", "diameter",
                           "wiener_index"])
    assert got["eccentricity"] == {"x": 2.0, "y": 1.0, "z": 2.0}
    assert got["center"] == ["y"] == nx.center(G)
    assert got["periphery"] == ["x", "z"] == nx.periphery(G)
    assert got["reachable"] == {"x": 2, "y": 2, "z": 2}
    assert got["diameter"] == 2
    assert got["wiener_index"] == nx.wiener_index(G) == 4  # unordered pairs of an undirected graph


def test_not_connected_networkx_graph():
    G = nx.DiGraph([(1, 2)])
    with pytest.raises(ValueError, match="not strongly connected"):
        apsp.eccentricity(G)
    assert apsp.eccentricity(G, infinite_ok=True) == {1: 1.0, 2: math.inf}


def test_weight_keyword_is_for_networkx_graphs_only():
    m = np.array([[0, 1], [1, 0]])
    with pytest.raises(TypeError, match=r"closeness_centrality\(\) got an unexpected keyword "
                                        r"argument 'distance': it names the weight attribute"):
        apsp.closeness_centrality(m, distance="weight")
    with pytest.raises(TypeError, match=r"metrics\(\) got an unexpected keyword argument 'weight'"):
        apsp.metrics(m, weight="weight")


@pytest.mark.parametrize("fn", ["closeness_centrality", "harmonic_centrality", "eccentricity",
                                "diameter", "metrics"])
def test_file_name_hint_names_a_function_that_exists(fn):
    with pytest.raises(TypeError) as err:
        getattr(apsp, fn)("g.gr")
    msg = str(err.value)
    named = msg.split("e.g. apsp.", 1)[1].split("(", 1)[0]
    assert named == fn and hasattr(apsp, named), msg
