"""Issue 36's Python findings: malformed sparse matrices SciPy's constructor accepts (a crash in
C++ before), and apsp.networkx's integer sums past 2**53 and Dijkstra's negative cutoff."""
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import apsp
import apsp.csgraph

sp = pytest.importorskip("scipy.sparse")


def _valid():
    return sp.csr_matrix(np.array([[0, 1.0, 0], [0, 0, 2.0], [3.0, 0, 0]]))


def _malformed():
    """(label, matrix) pairs whose index arrays are inconsistent."""
    neg = sp.csr_matrix((np.ones(2), np.array([1, 0]), np.array([0, -3, 2])), shape=(2, 2))
    past = _valid()
    past.indptr[3] = 50
    down = _valid()
    down.indptr[1] = 3
    col = _valid()
    col.indices[0] = 7
    negcol = _valid()
    negcol.indices[1] = -1
    csc = _valid().tocsc()
    csc.indptr = csc.indptr[:3]
    coo = _valid().tocoo()
    coo.row[0] = 9
    return [("negative indptr", neg), ("indptr past the end", past), ("indptr decreases", down),
            ("index past the shape", col), ("negative index", negcol), ("short csc indptr", csc),
            ("coo row past the shape", coo)]


CALLS = [
    ("shortest_path", lambda m: apsp.shortest_path(m)),
    ("csgraph.shortest_path", lambda m: apsp.csgraph.shortest_path(m)),
    ("csgraph.dijkstra", lambda m: apsp.csgraph.dijkstra(m, indices=[0])),
    ("closeness_centrality", lambda m: apsp.closeness_centrality(m)),
]


@pytest.mark.parametrize("label,matrix", _malformed(), ids=[c[0] for c in _malformed()])
@pytest.mark.parametrize("name,call", CALLS, ids=[c[0] for c in CALLS])
def test_malformed_sparse_raises_value_error(label, matrix, name, call):
    with pytest.raises(ValueError, match="malformed"):
        call(matrix)


def test_valid_sparse_still_solves():
    d = apsp.shortest_path(_valid())
    np.testing.assert_array_equal(d, [[0, 1, 3], [5, 0, 2], [3, 4, 0]])


def test_malformed_sparse_does_not_crash_the_process():
    # Before the fix this died of "free(): invalid next size" (SIGABRT) or SIGSEGV: run it in a
    # child so a crash fails this test instead of ending the suite.
    code = textwrap.dedent("""
        import numpy as np, scipy.sparse as sp, apsp
        m = sp.csr_matrix((np.ones(2), np.array([1, 0]), np.array([0, -3, 2])), shape=(2, 2))
        try:
            apsp.shortest_path(m)
        except ValueError:
            print("ValueError")
    """)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "ValueError"


nx = pytest.importorskip("networkx")
import apsp.networkx as anx  # noqa: E402


def _big_chain():
    G = nx.DiGraph()
    G.add_edge("a", "b", weight=2**53)
    G.add_edge("b", "c", weight=3)
    return G


def test_networkx_integer_sums_past_2_53_are_exact():
    G = _big_chain()
    want = 2**53 + 3  # float64 rounds it to 2**53 + 4
    assert nx.floyd_warshall(G)["a"]["c"] == want
    assert anx.floyd_warshall(G)["a"]["c"] == want
    pred, dist = anx.floyd_warshall_predecessor_and_distance(G)
    assert dist["a"]["c"] == want and pred["a"]["c"] == "b"
    assert dist["c"]["a"] == float("inf")
    lengths = dict(anx.all_pairs_dijkstra_path_length(G))
    assert lengths["a"] == {"a": 0, "b": 2**53, "c": want}
    assert lengths["c"] == {"c": 0}
    assert type(lengths["a"]["c"]) is int


def test_networkx_negative_cutoff_keeps_the_source():
    G = _big_chain()
    for cutoff in (-1, -0.5):
        got = dict(anx.all_pairs_dijkstra_path_length(G, cutoff=cutoff))
        assert got == dict(nx.all_pairs_dijkstra_path_length(G, cutoff=cutoff))
        assert got == {"a": {"a": 0}, "b": {"b": 0}, "c": {"c": 0}}
    assert dict(anx.all_pairs_shortest_path_length(G, cutoff=-1)) == \
        dict(nx.all_pairs_shortest_path_length(G, cutoff=-1))
