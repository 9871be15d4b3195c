"""apsp.shortest_path agrees with scipy.sparse.csgraph.shortest_path on many graph shapes."""
import zlib

import numpy as np
import pytest

from conftest import apsp, assert_nontrivial, edges_of, random_weights, scipy_reference, sp

SIZES = [1, 2, 7, 65, 100]
KINDS = ["int", "float", "neg", "zero"]
FORMS = ["dense0", "denseinf", "csr", "csc", "coo", "lil", "tuple", "graph"]


def seed_of(*params):
    seed = zlib.crc32(repr(params).encode())
    print("seed", seed, params)
    return seed


def as_input(W, form):
    """W (inf = no edge) in one of the accepted input forms."""
    n = W.shape[0]
    src, dst, w = edges_of(W)
    if form == "dense0":
        return np.where(np.isfinite(W), W, 0.0)
    if form == "denseinf":
        return W
    if form == "tuple":
        return (src, dst, w)
    if form == "graph":
        return apsp.graph(src, dst, w, num_vertices=n)
    coo = sp.coo_matrix((w, (src, dst)), shape=(n, n))
    return {"csr": coo.tocsr, "csc": coo.tocsc, "coo": lambda: coo, "lil": coo.tolil}[form]()


def extra(W, form):
    """An edge-list tuple needs V when the highest vertices have no edges."""
    return {"num_vertices": W.shape[0]} if form == "tuple" else {}


def density_for(n):
    return 0.5 if n < 10 else 0.06


@pytest.mark.parametrize("directed", [True, False])
@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("n", SIZES)
def test_matches_scipy(n, kind, form, directed):
    if kind == "zero" and form.startswith("dense"):
        pytest.skip("a dense 0 means 'no edge'; zero-weight edges need another form")
    if kind == "neg" and not directed:
        pytest.skip("an undirected negative edge is a negative cycle (tested in test_errors)")
    rng = np.random.default_rng(seed_of(n, kind, form, directed))
    W, _ = random_weights(rng, n, density_for(n), kind)
    if form.startswith("dense"):
        W[W == 0] = np.inf  # a dense 0 is "no edge" (as in SciPy)
    want = scipy_reference(W, directed=directed)
    got = apsp.shortest_path(as_input(W, form), directed=directed, **extra(W, form))
    assert got.shape == (n, n) and got.dtype == np.float64
    assert_nontrivial(want)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("form", ["dense0", "csr", "coo", "tuple", "graph"])
@pytest.mark.parametrize("directed", [True, False])
def test_unweighted_matches_scipy(form, directed):
    rng = np.random.default_rng(seed_of("unweighted", form, directed))
    W, _ = random_weights(rng, 60, 0.05, "int")
    want = scipy_reference(W, directed=directed, unweighted=True)
    got = apsp.shortest_path(as_input(W, form), directed=directed, unweighted=True, **extra(W, form))
    assert_nontrivial(want)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("block", [16, 17, 64])
@pytest.mark.parametrize("n", [15, 16, 17, 33, 131])
def test_block_sizes(n, block):
    rng = np.random.default_rng(seed_of("block", n, block))
    W, _ = random_weights(rng, n, 0.1, "int")
    want = scipy_reference(W)
    assert_nontrivial(want)
    np.testing.assert_array_equal(apsp.shortest_path(W, block=block), want)


def test_explicit_zeros_are_edges():
    # 0 -> 1 (explicit 0), 1 -> 2 (5): SciPy and apsp both keep the stored zero.
    G = sp.csr_matrix((np.array([0.0, 5.0]), (np.array([0, 1]), np.array([1, 2]))), shape=(3, 3))
    assert G.nnz == 2
    from scipy.sparse.csgraph import shortest_path as scipy_sp
    want = scipy_sp(G, method="FW")
    got = apsp.shortest_path(G)
    np.testing.assert_array_equal(got, want)
    assert got[0, 1] == 0 and got[0, 2] == 5 and np.isinf(got[1, 0])
    # the same zero in a dense matrix is "no edge"
    D = G.toarray()
    assert np.isinf(apsp.shortest_path(D)[0, 1])


def test_coo_duplicates_add_like_scipy_and_csr_duplicates_keep_the_lightest():
    from scipy.sparse.csgraph import shortest_path as scipy_sp
    row, col, val = np.array([0, 0, 1]), np.array([1, 1, 2]), np.array([5.0, 1.0, 2.0])
    coo = sp.coo_matrix((val, (row, col)), shape=(3, 3))
    np.testing.assert_array_equal(apsp.shortest_path(coo), scipy_sp(coo, method="D"))
    assert apsp.shortest_path(coo)[0, 1] == 6
    csr = sp.csr_matrix((val, col, np.array([0, 2, 3, 3])), shape=(3, 3))  # non-canonical, duplicates
    np.testing.assert_array_equal(apsp.shortest_path(csr), scipy_sp(csr, method="FW"))
    assert apsp.shortest_path(csr)[0, 1] == 1
    # edge lists: duplicate edges, the lightest wins
    assert apsp.shortest_path((row, col, val))[0, 1] == 1


def test_disconnected_components():
    rng = np.random.default_rng(seed_of("disconnected"))
    W1, _ = random_weights(rng, 30, 0.2, "int")
    W2, _ = random_weights(rng, 20, 0.2, "float")
    W = np.full((50, 50), np.inf)
    W[:30, :30], W[30:, 30:] = W1, W2
    got = apsp.shortest_path(W)
    np.testing.assert_array_equal(got, scipy_reference(W))
    assert np.isinf(got[:30, 30:]).all() and np.isinf(got[30:, :30]).all()
    assert np.isfinite(got[:30, :30]).any()


def test_isolated_high_vertices_need_num_vertices():
    src, dst, w = np.array([0, 1]), np.array([1, 2]), np.array([3, 4])
    d = apsp.shortest_path((src, dst, w), num_vertices=5)
    assert d.shape == (5, 5) and d[0, 2] == 7 and np.isinf(d[0, 4]) and d[4, 4] == 0
    assert apsp.shortest_path((src, dst, w)).shape == (3, 3)


@pytest.mark.filterwarnings("ignore::PendingDeprecationWarning")  # np.matrix
def test_scipy_sparse_arrays_and_matrix_inputs():
    rng = np.random.default_rng(seed_of("sparray"))
    W, _ = random_weights(rng, 40, 0.1, "int")
    want = scipy_reference(W)
    src, dst, w = edges_of(W)
    if hasattr(sp, "csr_array"):
        np.testing.assert_array_equal(apsp.shortest_path(sp.csr_array((w, (src, dst)), shape=W.shape)), want)
    D = np.where(np.isfinite(W), W, 0)
    np.testing.assert_array_equal(apsp.shortest_path(np.asmatrix(D)), want)
    np.testing.assert_array_equal(apsp.shortest_path(D.tolist()), want)
    np.testing.assert_array_equal(apsp.shortest_path(sp.dok_matrix(D)), want)
    np.testing.assert_array_equal(apsp.shortest_path(sp.bsr_matrix(D)), want)


def test_input_dtypes_and_layouts():
    rng = np.random.default_rng(seed_of("layouts"))
    W, _ = random_weights(rng, 40, 0.1, "int")
    want = scipy_reference(W)
    D = np.where(np.isfinite(W), W, 0)
    for t in (np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint32, np.float32, np.float64, np.float16):
        np.testing.assert_array_equal(apsp.shortest_path(D.astype(t)), want, err_msg=str(t))
    np.testing.assert_array_equal(apsp.shortest_path(np.asfortranarray(D)), want)
    np.testing.assert_array_equal(apsp.shortest_path(D.astype(">f8")), want)  # big-endian
    big = np.zeros((80, 80))
    big[::2, ::2] = D
    np.testing.assert_array_equal(apsp.shortest_path(big[::2, ::2]), want)  # strided view
    src, dst, w = edges_of(W)
    for it in (np.int32, np.int64, np.uint16):
        got = apsp.shortest_path((src.astype(it), dst.astype(it), w.astype(np.int32)), num_vertices=40)
        np.testing.assert_array_equal(got, want)
    wide = np.zeros(3 * len(w))
    wide[::3] = w
    np.testing.assert_array_equal(apsp.shortest_path((src, dst, wide[::3]), num_vertices=40), want)
    # bool dense: True = an edge of weight 1
    np.testing.assert_array_equal(apsp.shortest_path(np.isfinite(W)), scipy_reference(W, unweighted=True))


def test_inputs_are_not_modified():
    rng = np.random.default_rng(seed_of("untouched"))
    W, _ = random_weights(rng, 30, 0.2, "neg")
    D = np.where(np.isfinite(W), W, 0)
    D0 = D.copy()
    src, dst, w = edges_of(W)
    copies = (src.copy(), dst.copy(), w.copy())
    apsp.shortest_path(D, return_predecessors=True)
    apsp.shortest_path((src, dst, w), return_predecessors=True, return_next_hop=True, num_vertices=30)
    np.testing.assert_array_equal(D, D0)
    for a, b in zip((src, dst, w), copies):
        np.testing.assert_array_equal(a, b)


def test_indices_like_scipy():
    from scipy.sparse.csgraph import shortest_path as scipy_sp
    rng = np.random.default_rng(seed_of("indices"))
    W, _ = random_weights(rng, 30, 0.2, "int")
    D = np.where(np.isfinite(W), W, 0)
    for idx in (3, [0, 5, 7], np.array([29, 0])):
        d, p = apsp.shortest_path(D, indices=idx, return_predecessors=True)
        wd, wp = scipy_sp(D, indices=idx, return_predecessors=True)
        assert d.shape == wd.shape and p.shape == wp.shape
        np.testing.assert_array_equal(d, wd)


def test_empty_graph():
    d = apsp.shortest_path(np.zeros((0, 0)))
    assert d.shape == (0, 0) and d.dtype == np.float64
    d, p = apsp.shortest_path(np.zeros((0, 0)), return_predecessors=True)
    assert p.shape == (0, 0) and p.dtype == np.int32


def test_method_argument_is_accepted_and_ignored():
    D = np.array([[0, 1], [0, 0]])
    for m in ("auto", "FW", "D", "BF", "J"):
        np.testing.assert_array_equal(apsp.shortest_path(D, method=m), [[0, 1], [np.inf, 0]])


def test_masked_array_unmasked_entries_are_edges_like_scipy():
    from scipy.sparse.csgraph import shortest_path as scipy_sp
    data = np.array([[0.0, 0.0, 9.0], [0.0, 0.0, 1.0], [2.0, 0.0, 0.0]])
    mask = np.array([[True, False, False], [True, True, False], [False, True, True]])
    m = np.ma.masked_array(data, mask=mask)  # 0 -> 1 is an unmasked zero: a zero-weight edge
    # (as csgraph_from_masked and SciPy's D/BF/J read it; SciPy 1.10's FW path drops the zero)
    np.testing.assert_array_equal(apsp.shortest_path(m), scipy_sp(m, method="D"))
    assert apsp.shortest_path(m)[0, 2] == 1
    np.testing.assert_array_equal(apsp.shortest_path(m, overwrite=True), scipy_sp(m, method="J"))


@pytest.mark.parametrize("directed", [True, False])
@pytest.mark.parametrize("kind", ["uniform", "rmat", "grid"])
def test_generated_graphs_match_scipy(kind, directed):
    # several default-size tiles (V > 256), skewed degrees (R-MAT), long paths (grid)
    g = {"uniform": lambda: apsp.generate("uniform", n=300, m=1500, wmin=0, wmax=50, seed=9),
         "rmat": lambda: apsp.generate("rmat", scale=9, m=3000, wmin=1, wmax=20, seed=9),
         "grid": lambda: apsp.generate("grid", rows=15, cols=21, wmin=0, wmax=9, seed=9)}[kind]()
    n = g.num_vertices
    from scipy.sparse.csgraph import shortest_path as scipy_sp
    # an edge list's duplicates keep the lightest; so do a CSR matrix's parallel entries in SciPy
    order = np.argsort(g.src, kind="stable")
    indptr = np.concatenate([[0], np.cumsum(np.bincount(g.src, minlength=n))])
    G = sp.csr_matrix((g.weight[order], g.dst[order], indptr), shape=(n, n))
    want = scipy_sp(G, method="D", directed=directed)
    got = apsp.shortest_path(g, directed=directed)
    assert_nontrivial(want)
    np.testing.assert_array_equal(got, want)
