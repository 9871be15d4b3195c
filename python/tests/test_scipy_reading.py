"""apsp.csgraph reads its input exactly as SciPy 1.10 does, where apsp's own functions differ:

* a tuple is an array-like like any other (SciPy: ``((0, 1, 0), (0, 0, 1), (1, 0, 0))`` is a 3 x 3
  matrix), where apsp's own functions read (src, dst[, weight]) and refuse a tuple that would also
  read as a square matrix;
* in a dense matrix an entry with |w| <= 1e-8 is no edge (SciPy's np.ma.masked_values(graph, 0),
  atol=1e-8), where apsp's own functions keep every nonzero entry.

Every expectation is SciPy's own answer on the same input (found by a differential fuzzer)."""
import warnings

import numpy as np
import pytest

from conftest import apsp, csgraph, sp

import apsp.csgraph as ac

FUNCS = ("floyd_warshall", "dijkstra", "johnson", "bellman_ford")
METHODS = ("FW", "D", "J", "BF")


def scipy_answer(func, graph, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # SciPy's 'D' warns about negative weights
        return getattr(csgraph, func)(graph, **kw)


def agree(ours, func, graph, what, **kw):
    """ours() returns what SciPy's func returns, or raises NegativeCycleError where SciPy does.
    SciPy's Dijkstra does not look for negative cycles (it warns and answers): there SciPy's
    Johnson on the same graph says whether apsp must raise."""
    if func == "dijkstra" or kw.get("method") == "D":
        rest = {k: v for k, v in kw.items() if k in ("directed", "unweighted")}
        try:
            scipy_answer("johnson", graph, **rest)
        except csgraph.NegativeCycleError:
            with pytest.raises(csgraph.NegativeCycleError):
                ours()
            return
    try:
        want = scipy_answer(func, graph, **kw)
    except csgraph.NegativeCycleError:
        with pytest.raises(csgraph.NegativeCycleError):
            ours()
        return
    np.testing.assert_array_equal(ours(), want, err_msg=what)


def same_as_scipy(graph, **kw):
    """Every apsp.csgraph function (and shortest_path with every method) answers as SciPy does."""
    for f in FUNCS:
        agree(lambda: getattr(ac, f)(graph, **kw), f, graph, f, **kw)
    for m in METHODS:
        agree(lambda: ac.shortest_path(graph, method=m, **kw), "shortest_path", graph, m, method=m, **kw)


# ---- tuples ------------------------------------------------------------------------------------
ROWS = [((0, 1, 0), (0, 0, 1), (1, 0, 0)),            # the fuzzer's case: SciPy gives a 3 x 3 matrix
        ((0, 5), (2, 0)),                              # apsp gave 6 x 6 (ids up to 5)
        ([0, 1, 0], [0, 0, 1], [1, 0, 0]),             # a tuple of lists
        tuple(np.array([[0, 2.5, 0], [0, 0, 1], [4, 0, 0]])),  # a tuple of row arrays
        ((0, 1, 0, 0), (0, 0, 1, 0), (0, 0, 0, 1), (1, 0, 0, 0)),  # 4 rows: never an edge list
        ((0.0, 1e-9, 5.0), (0.0, 0.0, 1.0), (0.0, 0.0, 0.0))]  # rows, and a weight SciPy drops


@pytest.mark.parametrize("rows", ROWS, ids=range(len(ROWS)))
def test_csgraph_reads_a_tuple_as_a_matrix_like_scipy(rows):
    want = scipy_answer("floyd_warshall", rows)
    assert want.shape == (len(rows), len(rows))
    same_as_scipy(rows)
    same_as_scipy(rows, directed=False)
    np.testing.assert_array_equal(ac.shortest_path(rows), want)  # SciPy's 'auto' fails on a tuple (no .shape)
    d, p = ac.shortest_path(rows, method="FW", return_predecessors=True)
    ws, ps = csgraph.shortest_path(rows, method="FW", return_predecessors=True)
    np.testing.assert_array_equal(d, ws)
    np.testing.assert_array_equal(p, ps)
    np.testing.assert_array_equal(ac.dijkstra(rows, indices=[1]), csgraph.dijkstra(rows, indices=[1]))


def test_csgraph_refuses_an_edge_list_tuple_as_scipy_does_and_says_where_edge_lists_go():
    edges = (np.array([0, 1]), np.array([1, 2]), np.array([3.0, 4.0]))
    with pytest.raises(ValueError):
        csgraph.floyd_warshall(edges)
    for f in FUNCS + ("shortest_path",):
        with pytest.raises(ValueError, match=rf"square.*shape \(3, 2\).*edge list.*apsp\.{f}"):
            getattr(ac, f)(edges)
    # three edges with weights are a 3 x 3 matrix to SciPy: so they are to apsp.csgraph
    three = (np.array([0, 1, 2]), np.array([1, 2, 0]), np.array([7.0, 8.0, 9.0]))
    same_as_scipy(three)


@pytest.mark.parametrize("rows", ROWS[:4], ids=range(4))
def test_native_functions_refuse_a_tuple_that_also_reads_as_a_square_matrix(rows):
    k = len(rows)
    calls = [lambda t: apsp.shortest_path(t), lambda t: apsp.floyd_warshall(t), lambda t: apsp.dijkstra(t),
             lambda t: apsp.johnson(t), lambda t: apsp.bellman_ford(t), lambda t: apsp.solve(t),
             lambda t: apsp.next_hop(t), lambda t: apsp.closeness_centrality(t),
             lambda t: apsp.shortest_path(t, num_vertices=9)]
    if all(isinstance(r, np.ndarray) for r in rows):
        # NumPy arrays are an edge list, as documented: these (float "ids") are refused as ids
        with pytest.raises(TypeError, match="src must hold integer vertex ids"):
            apsp.shortest_path(rows)
        return
    for call in calls:
        with pytest.raises(ValueError, match=rf"ambiguous tuple: {k} items of length {k}.*{k} x {k} matrix.*"
                                             r"np\.asarray\(t\).*np\.array\(src\), np\.array\(dst\)"):
            call(rows)
    # what the message says works, both ways
    np.testing.assert_array_equal(apsp.shortest_path(np.asarray(rows)), ac.shortest_path(rows))
    edges = tuple(np.array(r) for r in rows)
    np.testing.assert_array_equal(apsp.shortest_path(edges), apsp.shortest_path(apsp.graph(*edges)))


def test_native_edge_list_tuples_that_cannot_be_square_matrices_are_read_as_before():
    # two or three items of another length, NumPy arrays of any length, a scalar weight
    d = apsp.shortest_path(([0, 1, 2], [1, 2, 3]))  # 2 lists of 3 ids: no 2 x 2 matrix
    assert d[0, 3] == 3 and d.shape == (4, 4)
    d = apsp.shortest_path(([0, 1], [1, 2], [3.0, 4.0]))  # 3 lists of 2
    assert d[0, 2] == 7 and d.shape == (3, 3)
    d = apsp.shortest_path((np.array([0, 1]), np.array([1, 0])))  # 2 arrays of 2: edges 0 <-> 1
    np.testing.assert_array_equal(d, [[0, 1], [1, 0]])
    d = apsp.shortest_path((np.array([0, 1, 2]), np.array([1, 2, 0]), np.array([1.0, 2.0, 4.0])))
    np.testing.assert_array_equal(d[0], [0, 1, 3])
    d = apsp.shortest_path(([0, 1], [1, 2], 2.5))  # scalar weight
    assert d[0, 2] == 5
    with pytest.raises(ValueError, match=r"\(src, dst\) or \(src, dst, weight\), got 4 items.*np\.asarray"):
        apsp.shortest_path(((0, 1, 0, 0),) * 4)


# ---- dense weights SciPy reads as "no edge" --------------------------------------------------
TINY = [1e-9, -1e-9, 1e-8, -1e-8, 9.9999999e-9, 1.00000001e-8, 1.0000001e-8, -1.1e-8, 2e-8, 6e-8, 5e-324]


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.float16, np.longdouble])
@pytest.mark.parametrize("v", TINY)
def test_csgraph_drops_dense_weights_scipy_masks(v, dtype):
    G = np.array([[0, v, 5], [0, 0, 1], [0, 0, 0]], dtype=dtype)
    before = G.copy()
    same_as_scipy(G)
    same_as_scipy(G, directed=False)
    same_as_scipy(G, unweighted=True)
    np.testing.assert_array_equal(ac.shortest_path(G), scipy_answer("shortest_path", G))
    for m in ("FW", "D", "J"):
        d, p = ac.shortest_path(G, method=m, return_predecessors=True)
        ws, ps = scipy_answer("shortest_path", G, method=m, return_predecessors=True)
        np.testing.assert_array_equal(d, ws)
        np.testing.assert_array_equal(p, ps)
    np.testing.assert_array_equal(G, before)  # the input is not modified
    # apsp's own functions: every nonzero entry is an edge
    w = G[0, 1]
    d = apsp.shortest_path(G)
    if w != 0:
        assert d[0, 1] == np.float64(w) and d[0, 2] == np.float64(w) + 1


def test_the_fuzzers_case():
    G = np.array([[0, 1e-9, 5], [0, 0, 1], [0, 0, 0]])
    np.testing.assert_array_equal(csgraph.shortest_path(G)[0], [0, np.inf, 5])
    np.testing.assert_array_equal(ac.shortest_path(G)[0], [0, np.inf, 5])
    np.testing.assert_array_equal(ac.floyd_warshall(G.tolist())[0], [0, np.inf, 5])  # nested lists too
    np.testing.assert_array_equal(apsp.shortest_path(G)[0], [0, 1e-9, 1 + 1e-9])  # apsp: exact


def test_a_tiny_negative_self_loop_is_no_edge_to_scipy():
    G = np.array([[-1e-9, 2.0], [0.0, 0.0]])
    same_as_scipy(G)
    with pytest.raises(apsp.NegativeCycleError):
        apsp.shortest_path(G)  # apsp's own functions: a negative self loop is a negative cycle


@pytest.mark.parametrize("seed", range(6))
def test_random_dense_graphs_with_tiny_weights_agree_with_scipy(seed):
    rng = np.random.default_rng(seed)
    n = 12
    choices = np.array([0.0, 0.0, 1e-9, -1e-9, 1e-8, -1e-8, 2e-8, 3e-7, np.nan, np.inf, -np.inf,
                        1.0, 2.5, 3.0, 7.0])
    G = rng.choice(choices, (n, n))
    same_as_scipy(G)
    same_as_scipy(G, directed=False)
    same_as_scipy(G, unweighted=True)
    same_as_scipy(G.astype(np.float32))
    idx = [0, n - 1]
    np.testing.assert_array_equal(ac.dijkstra(G, indices=idx, limit=3.0),
                                  csgraph.dijkstra(G, indices=idx, limit=3.0))
    got = ac.dijkstra(G, indices=idx, min_only=True)
    np.testing.assert_array_equal(got, csgraph.dijkstra(G, indices=idx, min_only=True))


def test_tiny_weights_in_every_chunk_of_a_large_matrix():
    # V = 1600: the scan reads rows in chunks (about 655 rows each); a tiny weight in each chunk
    n = 1600
    rng = np.random.default_rng(7)
    G = np.where(rng.random((n, n)) < 0.004, rng.integers(1, 10, (n, n)) + 0.5, 0.0)
    for i in range(0, n - 1, 97):
        G[i, i + 1] = 1e-9  # SciPy: no edge
        G[i + 1, i] = 5e-9 if i % 2 else -5e-9
    idx = [0, 700, 1500]
    want = csgraph.johnson(G, indices=idx)
    np.testing.assert_array_equal(ac.dijkstra(G, indices=idx), want)
    np.testing.assert_array_equal(ac.shortest_path(G, indices=idx), want)
    np.testing.assert_array_equal(ac.johnson(G, indices=idx), want)
    with pytest.raises(apsp.NegativeCycleError):  # apsp's own: 1e-9 and -5e-9 close a cycle
        apsp.dijkstra(G, indices=idx)


def test_masked_sparse_and_integer_inputs_keep_their_small_weights_as_scipy_does():
    D = np.array([[0, 1e-9, 5], [0, 0, 1], [0, 0, 0]])
    m = np.ma.masked_equal(D, 0)  # unmasked: an edge, however small (csgraph_from_masked)
    s = sp.csr_matrix(D)          # stored: an edge
    for g in (m, s):
        same_as_scipy(g)
        assert ac.shortest_path(g)[0, 1] == 1e-9
    I = np.array([[0, 1, 0], [0, 0, 1], [1, 0, 0]], dtype=np.int64)
    same_as_scipy(I)


# ---- the known differences python/README.md lists (refused by apsp, answered by SciPy) -------
def test_known_differences_listed_in_the_readme_still_hold():
    # a huge non-negative self loop: refused by auto / FW, answered per source and with float64
    A = np.array([[1e19, 1.0], [0.0, 0.0]])
    for call in (lambda: ac.shortest_path(A), lambda: ac.floyd_warshall(A), lambda: apsp.shortest_path(A)):
        with pytest.raises(ValueError, match="too large for exact integer distances"):
            call()
    want = csgraph.shortest_path(A)
    np.testing.assert_array_equal(ac.floyd_warshall(A, dtype=np.float64), want)
    for m in ("D", "J", "BF"):
        np.testing.assert_array_equal(ac.shortest_path(A, method=m), want)
    # float64 sums that could overflow: (V-1) * max|w| reaches 1.8e308
    B = np.array([[0, 9e307, 0], [0, 0, 1.0], [0, 0, 0]])
    with pytest.raises(ValueError, match="float64 cannot hold this graph's distances"):
        ac.shortest_path(B)
    np.testing.assert_array_equal(ac.shortest_path(B, method="D"), csgraph.shortest_path(B))
    # whole-number weights whose Johnson potentials reach 2**53
    for dtype in (np.int64, np.float64):
        C = np.array([[0, -10**16, 0], [0, 0, 1], [0, 0, 0]], dtype=dtype)
        assert csgraph.johnson(C)[1, 2] == 0  # SciPy's rounded answer (the edge weighs 1)
        for m in ("auto", "FW", "D", "J", "BF"):
            with pytest.raises(ValueError, match="too large for exact Johnson reweighting"):
                ac.shortest_path(C, method=m)
    C = np.array([[0, -1e16, 0], [0, 0, 1.5], [0, 0, 0]])  # fractional: rounded, as SciPy
    np.testing.assert_array_equal(ac.johnson(C), csgraph.johnson(C))
    # a negative self loop: a negative cycle for every method (SciPy: johnson and bellman_ford
    # too; its floyd_warshall and dijkstra ignore it)
    L = np.array([[-1.0, 2.0], [0.0, 0.0]])
    for f in ("johnson", "bellman_ford"):
        with pytest.raises(csgraph.NegativeCycleError):
            getattr(csgraph, f)(L)
    np.testing.assert_array_equal(csgraph.floyd_warshall(L), [[0, 2], [np.inf, 0]])
    for f in FUNCS:
        with pytest.raises(csgraph.NegativeCycleError):
            getattr(ac, f)(L)
