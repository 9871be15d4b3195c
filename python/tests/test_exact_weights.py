"""Integer weights are exact or refused, as in the CLI: apsp's own entry points raise ValueError
for an integer weight beyond +-2**53 (float64 weights would round it, and an int64 result would
then look exact); the SciPy stand-ins read every input as float64, as SciPy does. Also: every
apsp.NegativeCycleError is SciPy's class when SciPy's csgraph is imported."""
import re

import numpy as np
import pytest

from conftest import apsp, csgraph, sp

BIG = 2**53 + 1  # the nearest double is 2**53
SRC, DST = np.array([0, 1]), np.array([1, 2])


def edges(w0, dtype=np.int64):
    return (SRC, DST, np.array([w0, 1], dtype=dtype))


def dense(w0, dtype=np.int64):
    D = np.zeros((3, 3), dtype=dtype)
    D[0, 1], D[1, 2] = w0, 1
    return D


def inputs(w0=BIG):
    """(input, the entry its message names) in every integer form apsp reads."""
    D = dense(w0)
    return [(edges(w0), "weight[0]"), (D, "graph[0, 1]"), (np.asfortranarray(D), "graph[0, 1]"),
            (sp.csr_matrix(D), "graph[0, 1]"), (sp.coo_matrix(D), "graph[0, 1]"),
            (np.ma.masked_equal(D, 0), "graph[0, 1]"), (edges(w0, np.uint64), "weight[0]"),
            (D.astype(np.uint64), "graph[0, 1]")]


def refused(where, value=BIG):
    """pytest.raises for the refusal of `value` at `where` (its text up to the closing ']')."""
    sign, entry = "-" if value < 0 else "", re.escape(where)
    return pytest.raises(ValueError, match=rf"{entry}\] = {value} is beyond {sign}2\^53, which "
                                           rf"apsp holds exactly.*float64")


@pytest.mark.parametrize("dtype", [None, np.int64, np.float64])
def test_solve_refuses_integer_weights_beyond_2_to_53(dtype):
    # gave [0, 9007199254740992, 9007199254740993] as an exact int64 result (want ...993, ...994)
    for g, where in inputs():
        with refused(where.split("]")[0]):
            apsp.solve(g, dtype=dtype)
    with refused("weight[0", -BIG):
        apsp.solve(edges(-BIG))
    with refused("graph[2, 0", 2**63 - 1):
        apsp.solve(np.array([[0, 1, 0], [0, 0, 1], [2**63 - 1, 0, 0]]))


def test_up_to_2_to_53_is_exact_and_float64_weights_are_the_callers_rounding():
    d = apsp.solve(edges(2**53), dtype=np.int64).dist
    assert d[0].tolist() == [0, 2**53, 2**53 + 1]
    assert apsp.solve(edges(-(2**52))).dist[0].tolist() == [0, -(2**52), 1 - 2**52]
    # the diagonal is never an edge: a big entry there is not a weight
    D = dense(5)
    D[1, 1] = 2**60
    assert apsp.solve(D).dist[0].tolist() == [0, 5, 6]
    assert apsp.solve(D.astype(np.uint64)).dist[0].tolist() == [0, 5, 6]
    d = apsp.solve(edges(float(BIG), np.float64)).dist  # float64 asked for: rounded by the caller
    assert d[0].tolist() == [0, 2**53, 2**53 + 1]
    for g, _ in inputs():  # unweighted: no weight is read
        assert apsp.solve(g, unweighted=True).dist[0].tolist() == [0, 1, 2]
        assert apsp.harmonic_centrality(g, unweighted=True).tolist() == [0, 1, 1.5]
        assert apsp.next_hop(g, unweighted=True)[0][0].tolist() == [0, 1, 2]


def test_every_native_entry_point_refuses():
    for g, where in inputs():
        for call in (lambda: apsp.next_hop(g), lambda: apsp.metrics(g),
                     lambda: apsp.closeness_centrality(g), lambda: apsp.harmonic_centrality(g),
                     lambda: apsp.diameter(g, infinite_ok=True),
                     lambda: apsp.eccentricity(g, infinite_ok=True)):
            with refused(where.split("]")[0]):
                call()
    for w in (edges(BIG), edges(BIG, np.uint64)):
        with refused("weight[0"):
            apsp.graph(*w)
    g = apsp.graph(SRC, DST, np.array([2**53, -(2**53)]))
    assert g.weight.tolist() == [2.0**53, -(2.0**53)]


def test_networkx_adapter_refuses():
    nx = pytest.importorskip("networkx")
    import apsp.networkx as anx
    G = nx.DiGraph()
    G.add_edge("a", "b", weight=2**61 + 1)
    G.add_edge("b", "c", weight=1)
    for call in (anx.floyd_warshall, anx.floyd_warshall_numpy,
                 anx.floyd_warshall_predecessor_and_distance):
        with pytest.raises(ValueError, match=r"= 2305843009213693953 is beyond 2\^53.*float64"):
            call(G)
    G["a"]["b"]["weight"] = 2**52
    assert anx.floyd_warshall(G)["a"]["c"] == 2**52 + 1


@pytest.mark.parametrize("func", ["shortest_path", "floyd_warshall", "dijkstra", "bellman_ford",
                                  "johnson"])
def test_scipy_stand_ins_read_integer_weights_as_float64_like_scipy(func):
    # SciPy converts any input to float64 (rounding 2**53 + 1) and returns float64: no new error
    for w0 in (BIG, 2**61 + 1):
        want = getattr(csgraph, func)(sp.csr_matrix(dense(w0)))
        assert want.dtype == np.float64
        for g, _ in inputs(w0):
            got = getattr(apsp, func)(g, num_vertices=3)
            assert got.dtype == np.float64
            np.testing.assert_array_equal(got, want, err_msg=f"{func} {type(g)} {w0}")


def test_scipy_stand_ins_refuse_only_an_integer_dtype_asked_for():
    assert apsp.shortest_path(edges(BIG), dtype=np.float64)[0, 2] == 2.0**53
    for dtype in (np.int64, np.int32):
        with refused("weight[0"):
            apsp.shortest_path(edges(BIG), dtype=dtype)


def test_metrics_negative_cycle_is_scipys_class_too():
    # apsp.metrics raised a plain apsp.NegativeCycleError while solve / shortest_path raise one
    # that SciPy code catches
    g = np.array([[0, -1], [-1, 0]])
    for call in (lambda: apsp.metrics(g), lambda: apsp.closeness_centrality(g),
                 lambda: apsp.diameter(g), lambda: apsp.solve(g), lambda: apsp.shortest_path(g)):
        with pytest.raises(csgraph.NegativeCycleError) as err:
            call()
        assert isinstance(err.value, apsp.NegativeCycleError) and sorted(err.value.cycle) == [0, 1]


def test_networkx_and_solve_file_negative_cycles_are_scipys_class_too(tmp_path):
    nx = pytest.importorskip("networkx")
    import apsp.networkx as anx
    G = nx.DiGraph([("a", "b", {"weight": -1}), ("b", "a", {"weight": -1})])
    with pytest.raises(csgraph.NegativeCycleError) as err:
        anx.floyd_warshall(G)
    assert isinstance(err.value, nx.NetworkXUnbounded)
    assert isinstance(err.value, apsp.NegativeCycleError)
    (tmp_path / "g.txt").write_text("0 1 -1\n1 0 -1\n")
    with pytest.raises(csgraph.NegativeCycleError):
        apsp.solve_file(str(tmp_path / "g.txt"), str(tmp_path / "out.txt"))
