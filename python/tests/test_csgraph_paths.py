"""apsp.csgraph.reconstruct_path and construct_dist_matrix against SciPy's, on the same
predecessors (apsp's and SciPy's own): seeded random graphs, directed and undirected,
disconnected, float weights (sums compared bit for bit), dense / CSR / COO / list inputs; the
errors on bad predecessors; the names apsp.csgraph leaves to SciPy."""
import zlib

import numpy as np
import pytest

from conftest import apsp, csgraph, sp
import apsp.csgraph as acs


def rng_for(*params):
    seed = zlib.crc32(repr(params).encode())
    print("seed", seed, params)
    return np.random.default_rng(seed)


def random_graph(rng, n, kind, directed):
    """Dense float64 V x V, 0 = no edge, in two components and an isolated last vertex."""
    mask = rng.random((n, n)) < min(1.0, 3.0 / n)
    np.fill_diagonal(mask, False)
    half = n // 2
    mask[:half, half:] = mask[half:, :half] = False  # two components
    mask[-1, :] = mask[:, -1] = False                # and an isolated vertex
    mask[0, 1] = True                                # never edgeless
    if kind == "float":
        w = rng.uniform(0.1, 10.0, (n, n))
    elif kind == "int":
        w = rng.integers(1, 10, (n, n)).astype(np.float64)
    else:  # "neg": potentials keep it free of negative cycles
        h = rng.uniform(0, 5, n)
        w = rng.uniform(0.1, 5, (n, n)) + h[:, None] - h[None, :]
        w[w == 0] = 0.5
    W = np.where(mask, w, 0.0)
    if not directed:
        W = np.triu(W)  # each edge stored once: the undirected reading takes either way round
    assert np.count_nonzero(W) > 0
    return W


def as_input(W, form):
    if form == "dense":
        return W
    if form == "csr":
        return sp.csr_matrix(W)
    if form == "list":
        return W.tolist()
    # COO with every edge split into a duplicate pair (they add up, in SciPy and apsp alike)
    r, c = np.nonzero(W)
    return sp.coo_matrix((np.concatenate([W[r, c] / 2, W[r, c] / 2]),
                          (np.concatenate([r, r]), np.concatenate([c, c]))), shape=W.shape)


CASES = [(n, kind, directed, form) for n in (4, 7, 40, 97)
         for kind in ("float", "int", "neg") for directed in (True, False)
         for form in ("dense", "csr", "coo", "list")
         if not (kind == "neg" and not directed) and not (form == "list" and n > 40)]


def same_tree(got, want):
    assert isinstance(got, sp.csr_matrix)
    assert got.dtype == np.float64 and got.shape == want.shape
    g, w = got.tocoo(), want.tocoo()
    assert sorted(zip(g.row, g.col, g.data)) == sorted(zip(w.row, w.col, w.data))


@pytest.mark.parametrize("n,kind,directed,form", CASES)
def test_equal_to_scipy(n, kind, directed, form):
    W = random_graph(rng_for(n, kind, directed, form), n, kind, directed)
    G = as_input(W, form)
    S = W if form == "list" else G.tocsr() if form == "coo" else G  # SciPy 1.10 takes neither
    method = "J" if kind == "neg" else "auto"
    _, pred_scipy = csgraph.shortest_path(S, method=method, directed=directed, return_predecessors=True)
    dist, pred_apsp = acs.shortest_path(G, directed=directed, return_predecessors=True)
    assert np.isinf(dist).any()  # disconnected
    for pred in (pred_apsp, pred_scipy):
        got = acs.construct_dist_matrix(G, pred, directed=directed)
        want = csgraph.construct_dist_matrix(S, pred, directed=directed)
        np.testing.assert_array_equal(got, want)  # float sums: the same order, the same bits
        np.testing.assert_array_equal(acs.construct_dist_matrix(G, pred, directed, null_value=-1),
                                      csgraph.construct_dist_matrix(S, pred, directed, null_value=-1))
        for i in sorted({0, n // 2, n - 1}):
            same_tree(acs.reconstruct_path(G, pred[i], directed=directed),
                      csgraph.reconstruct_path(S, pred[i], directed=directed))
    if kind == "int":  # the paths are shortest: their lengths are the distances
        np.testing.assert_array_equal(acs.construct_dist_matrix(G, pred_apsp, directed), dist)


def test_apsp_own_functions_predecessors_and_integer_types():
    W = random_graph(rng_for("own"), 30, "int", True)
    W_int = W.astype(np.int64)  # before SciPy's call, which leaves the FPU's invalid flag set
    for pred_dtype in (np.int32, np.int64, np.float64):
        _, pred = apsp.shortest_path(sp.csr_matrix(W), return_predecessors=True)
        pred = pred.astype(pred_dtype)
        np.testing.assert_array_equal(acs.construct_dist_matrix(W_int, pred),
                                      csgraph.construct_dist_matrix(W, pred.astype(np.int32)))


def test_empty_and_single_vertex():
    assert acs.construct_dist_matrix(np.zeros((0, 0)), np.zeros((0, 0), np.int32)).shape == (0, 0)
    assert acs.reconstruct_path(np.zeros((0, 0)), np.zeros(0, np.int32)).shape == (0, 0)
    np.testing.assert_array_equal(acs.construct_dist_matrix([[0]], [[-9999]]), [[0.0]])


def test_zero_weight_edges_weigh_zero():
    # SciPy 1.10 reads an undirected zero-weight edge as inf here; apsp weighs it 0
    G = sp.csr_matrix((np.array([0.0, 1.0]), (np.array([0, 1]), np.array([1, 2]))), shape=(3, 3))
    dist, pred = acs.shortest_path(G, directed=False, return_predecessors=True)
    np.testing.assert_array_equal(acs.construct_dist_matrix(G, pred, directed=False), dist)
    tree = acs.reconstruct_path(G, pred[0], directed=False)
    assert tree.nnz == 2 and tree[0, 1] == 0 and tree[1, 2] == 1


def test_tiny_dense_entries_are_no_edge_as_in_scipy():
    W = np.array([[0, 1e-9, 5], [0, 0, 1], [0, 0, 0]])
    with pytest.raises(ValueError, match=r"no edge 0 -> 1"):
        acs.reconstruct_path(W, [-9999, 0, 1])


def one_line(excinfo):
    assert "\n" not in str(excinfo.value)
    return str(excinfo.value)


@pytest.mark.parametrize("pred,match", [
    (np.array([-9999, 0]), r"must have shape \(3,\)"),
    (np.zeros((3, 3), np.int32), r"must have shape \(3,\)"),
    (np.array([-9999, 0, 3]), r"predecessors\[2\] = 3 is not a vertex"),
    (np.array([-9999, 0.5, 1]), "whole numbers"),
    (np.array(["a", "b", "c"]), "integers"),
    (np.array([-9999, 0, 0]), r"predecessors\[2\] = 0, but the graph has no edge 0 -> 2"),
    (np.array([-9999, 0, 2]), "its own predecessor"),
])
def test_reconstruct_path_errors(pred, match):
    W = np.array([[0, 1, 0], [0, 0, 1], [0, 0, 0]])
    with pytest.raises(ValueError, match=match) as e:
        acs.reconstruct_path(W, pred)
    one_line(e)


def test_construct_dist_matrix_errors():
    W = np.array([[0, 1, 0], [0, 0, 1], [1, 0, 0]])
    _, pred = acs.shortest_path(W, return_predecessors=True)
    with pytest.raises(ValueError, match=r"must have shape \(3, 3\)") as e:
        acs.construct_dist_matrix(W, pred[0])
    one_line(e)
    bad = pred.copy()
    bad[0, 2] = 0  # 0 -> 2 is no edge (2 -> 0 is)
    with pytest.raises(ValueError, match=r"predecessors\[0, 2\] = 0, but the graph has no edge 0 -> 2"
                                         r" \(directed=True: pass directed=False") as e:
        acs.construct_dist_matrix(W, bad)
    one_line(e)
    np.testing.assert_array_equal(acs.construct_dist_matrix(W, bad, directed=False)[0], [0, 1, 1])
    cyc = np.full((3, 3), -9999)
    cyc[0, 1], cyc[0, 2] = 2, 1  # 1 <- 2 <- 1: never back at 0 (SciPy loops forever)
    with pytest.raises(ValueError, match="cycle") as e:
        acs.construct_dist_matrix(np.ones((3, 3)), cyc)
    one_line(e)
    with pytest.raises(ValueError, match="square"):
        acs.construct_dist_matrix(np.ones((2, 3)), np.zeros((2, 3)))


def test_names_left_to_scipy():
    with pytest.raises(AttributeError, match=r"apsp.csgraph does not provide connected_components: use "
                                             r"scipy.sparse.csgraph.connected_components"):
        acs.connected_components  # noqa: B018
    with pytest.raises(AttributeError, match="has no attribute 'no_such_name'"):
        acs.no_such_name  # noqa: B018
    assert not hasattr(acs, "laplacian")
    for name in ("reconstruct_path", "construct_dist_matrix"):
        assert name in acs.__all__ and name in acs.__doc__
    assert "Not provided" in acs.__doc__ and "minimum_spanning_tree" in acs.__doc__


def test_tensors():
    torch = pytest.importorskip("torch")
    W = random_graph(rng_for("torch"), 20, "int", True)
    _, pred = acs.shortest_path(torch.from_numpy(W), return_predecessors=True)
    got = acs.construct_dist_matrix(torch.from_numpy(W), pred)
    assert isinstance(got, torch.Tensor)
    np.testing.assert_array_equal(got.numpy(), csgraph.construct_dist_matrix(W, pred.numpy()))
    same_tree(acs.reconstruct_path(torch.from_numpy(W), pred[0]),
              csgraph.reconstruct_path(W, pred[0].numpy()))


def test_masked_and_apsp_graph_inputs():
    W = random_graph(rng_for("masked"), 30, "float", True)
    M = np.ma.masked_equal(W, 0)
    _, pred = acs.shortest_path(M, return_predecessors=True)
    want = csgraph.construct_dist_matrix(M, pred)
    np.testing.assert_array_equal(acs.construct_dist_matrix(M, pred), want)
    src, dst = np.nonzero(W)
    g = apsp.graph(src, dst, W[src, dst], num_vertices=30)
    np.testing.assert_array_equal(acs.construct_dist_matrix(g, pred), want)
    for i in (0, 7):
        same_tree(acs.reconstruct_path(M, pred[i]), csgraph.reconstruct_path(M, pred[i]))
        same_tree(acs.reconstruct_path(g, pred[i]), csgraph.reconstruct_path(M, pred[i]))
