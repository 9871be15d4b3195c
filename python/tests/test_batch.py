"""apsp.batch against apsp.solve and SciPy per graph: lists and packed (PyG) inputs, every output
dtype and layout, unreachable / max_dist / pad values, edge-id paths walked to their lengths, and
one-line errors for malformed input. Seeds are fixed; every batch has finite distances."""
import numpy as np
import pytest
import scipy.sparse as sp
from scipy.sparse import csgraph

import apsp

SIZES = [1, 2, 3, 17, 63, 64, 65, 130, 257]


def edge_list(rng, n, zero=True, fractional=False):
    """(src, dst, w): ~2n edges, duplicates and self loops included, two components."""
    m = 2 * n + 1
    half = max(n // 2, 1)
    src = rng.integers(0, n, m)
    other = rng.integers(half, n, m) if n > half else 0
    dst = np.where(src < half, rng.integers(0, half, m), other)
    src[-1] = dst[-1] = n - 1  # a self loop (ignored) that makes V = n
    w = rng.integers(0 if zero else 1, 10, m).astype(np.float64)
    if fractional:
        w = w / 3.0 + 0.1
    return src, dst, w


def solo(graph, directed=True, unweighted=False, dtype=None, paths=False):
    return apsp.solve(graph, directed=directed, unweighted=unweighted, dtype=dtype, paths=paths,
                      backend="cpu")


def scipy_dist(src, dst, w, n, directed=True, unweighted=False):
    """SciPy on the lightest edge of each pair (self loops dropped; zero weights stay edges)."""
    best = {}
    for u, v, x in zip(src, dst, np.ones_like(w) if unweighted else w):
        if u != v and ((u, v) not in best or x < best[(u, v)]):
            best[(u, v)] = x
    a = sp.csr_matrix((n, n))
    if best:
        k = np.array(list(best.keys()))
        a = sp.csr_matrix((list(best.values()), (k[:, 0], k[:, 1])), shape=(n, n))
    return csgraph.shortest_path(a, directed=directed)


@pytest.mark.parametrize("directed", [True, False])
@pytest.mark.parametrize("dtype", ["int32", "int64", "float32", "float64"])
def test_list_equals_solve_per_graph(directed, dtype):
    rng = np.random.default_rng(7)
    frac = dtype.startswith("float")
    graphs = [edge_list(rng, n, fractional=frac) for n in SIZES]
    dist = apsp.batch(graphs, directed=directed, dtype=dtype, unreachable=np.inf if frac else -1)
    assert dist.shape == (len(SIZES), max(SIZES), max(SIZES)) and dist.dtype == np.dtype(dtype)
    finite = 0
    for b, (g, n) in enumerate(zip(graphs, SIZES)):
        want = solo(g, directed, dtype=dtype).dist
        got = dist[b, :n, :n]
        if not frac:
            sentinel = apsp.UNREACHABLE_INT32 if dtype == "int32" else apsp.UNREACHABLE_INT64
            want = np.where(want == sentinel, -1, want)
        assert np.array_equal(got, want), f"graph {b} (n={n})"
        assert np.all(dist[b, n:, :] == (np.inf if frac else -1))
        finite += int(np.sum(np.isfinite(got) & (got > 0)))
    assert finite > 5000


@pytest.mark.parametrize("directed", [True, False])
def test_list_against_scipy(directed):
    rng = np.random.default_rng(11)
    graphs = [edge_list(rng, n) for n in SIZES]
    dist = apsp.batch(graphs, directed=directed, dtype="float64", unreachable=np.inf)
    for b, ((s, d, w), n) in enumerate(zip(graphs, SIZES)):
        assert np.array_equal(dist[b, :n, :n], scipy_dist(s, d, w, n, directed)), f"graph {b}"


def molecules(rng, count, lo=10, hi=60):
    """PyG-style packed batch: ptr, edge_index (both directions), integer bond weights."""
    sizes = rng.integers(lo, hi + 1, count)
    ptr = np.concatenate(([0], np.cumsum(sizes)))
    cols = []
    for b, n in enumerate(sizes):
        chain = np.stack([np.arange(n - 1), np.arange(1, n)])  # a backbone, then rings
        extra = rng.integers(0, n, (2, n // 4))
        e = np.concatenate([chain, extra], axis=1) + ptr[b]
        if b % 5 == 0:
            e = e[:, (e != ptr[b] + n - 1).all(axis=0)]  # an isolated last atom: disconnected
        cols.append(np.concatenate([e, e[::-1]], axis=1))
    edge_index = np.concatenate(cols, axis=1)
    return ptr, edge_index, rng.integers(1, 4, edge_index.shape[1])


def per_graph(ptr, edge_index, b):
    lo, hi = ptr[b], ptr[b + 1]
    keep = (edge_index[0] >= lo) & (edge_index[0] < hi)
    return np.flatnonzero(keep), edge_index[0, keep] - lo, edge_index[1, keep] - lo, hi - lo


@pytest.mark.parametrize("weighted", [False, True])
def test_packed_against_scipy(weighted):
    rng = np.random.default_rng(3)
    ptr, ei, w = molecules(rng, 40)
    kw = {"edge_weight": w} if weighted else {}
    dist = apsp.batch(edge_index=ei, ptr=ptr, dtype=np.int16, **kw)
    batch = np.repeat(np.arange(40), np.diff(ptr))
    assert np.array_equal(dist, apsp.batch(edge_index=ei, batch=batch, dtype=np.int16, **kw))
    perm = rng.permutation(ei.shape[1])  # columns in any order
    kw2 = {"edge_weight": w[perm]} if weighted else {}
    assert np.array_equal(dist, apsp.batch(edge_index=ei[:, perm], ptr=ptr, dtype=np.int16, **kw2))
    unreachable = 0
    for b in range(40):
        idx, s, d, n = per_graph(ptr, ei, b)
        want = scipy_dist(s, d, w[idx].astype(float), n, unweighted=not weighted)
        want = np.where(np.isinf(want), -1, want)
        assert np.array_equal(dist[b, :n, :n], want), f"graph {b}"
        unreachable += int(np.sum(want < 0))
    assert unreachable > 0 and dist.max() > 5


def test_unreachable_max_dist_pad_and_dtypes():
    # path 0 -> 1 -> ... -> 29 (weights 1), n_max 32 (pad 0 beyond); a second graph of 2 vertices
    src, dst = np.arange(29), np.arange(1, 30)
    g1 = (src, dst, np.ones(29))
    g2 = (np.array([0]), np.array([1]), np.array([1.0]))
    d = apsp.batch([(src, dst, np.ones(29)), g2], unreachable=510, max_dist=20, dtype="int16",
                   n_max=32, pad=0)
    assert d.shape == (2, 32, 32) and d.dtype == np.int16
    assert d[0, 0, 5] == 5 and d[0, 0, 25] == 20 and d[0, 5, 0] == 510 and d[0, 0, 30] == 0
    assert d[0, 31, 0] == 0 and d[1, 0, 1] == 1 and d[1, 1, 0] == 510 and d[1, 2, 2] == 0
    for t in ("int8", "int32", "int64", "float32", "float64"):
        e = apsp.batch([g1, g2], dtype=t, max_dist=20)
        assert e.dtype == np.dtype(t) and e[0, 0, 25] == 20 and e[0, 5, 0] == -1
    with pytest.raises(ValueError, match="does not fit int8"):
        apsp.batch([g1], dtype="int8", unreachable=510)
    with pytest.raises(ValueError, match=r"graph 0: distance \d+ does not fit int8"):
        apsp.batch([(src, dst, np.full(29, 10.0))], dtype="int8")


def test_fractional_into_float32_and_int_refused():
    g = (np.array([0, 1]), np.array([1, 2]), np.array([0.1, 0.2]))
    want = solo(g, dtype="float32").dist
    assert np.array_equal(apsp.batch([g], dtype="float32", unreachable=np.inf)[0], want)
    with pytest.raises(ValueError, match="does not fit int32"):
        apsp.batch([g], dtype="int32")


def test_flat_layout_matches_padded():
    rng = np.random.default_rng(5)
    graphs = [edge_list(rng, n) for n in SIZES]
    padded = apsp.batch(graphs)
    flat, offsets = apsp.batch(graphs, layout="flat")
    assert offsets.tolist() == np.concatenate(([0], np.cumsum(np.square(SIZES)))).tolist()
    for b, n in enumerate(SIZES):
        assert np.array_equal(flat[offsets[b]:offsets[b + 1]].reshape(n, n), padded[b, :n, :n])


def walk(paths_ij, src, dst, w, i, directed):
    at, total = i, 0.0
    for e in paths_ij[paths_ij >= 0]:
        if src[e] == at:
            at = dst[e]
        else:
            assert not directed and dst[e] == at, "edge does not leave the vertex"
            at = src[e]
        total += w[e]
    assert np.all(paths_ij[np.argmin(paths_ij >= 0):] < 0) or np.all(paths_ij >= 0)
    return at, total


@pytest.mark.parametrize("directed", [True, False])
def test_paths_walk_to_the_distance(directed):
    rng = np.random.default_rng(9)
    sizes = [1, 2, 3, 17, 40, 65]
    graphs = [edge_list(rng, n) for n in sizes]
    dist, paths = apsp.batch(graphs, directed=directed, return_paths=True, dtype="int64")
    B, N = len(sizes), max(sizes)
    assert paths.shape[:3] == (B, N, N) and paths.dtype == np.int64 and paths.shape[3] > 2
    walked = 0
    for b, ((s, d, w), n) in enumerate(zip(graphs, sizes)):
        nxt = solo((s, d, w), directed, paths=True).next_hop
        for i in range(n):
            for j in range(n):
                p = paths[b, i, j]
                if i == j or dist[b, i, j] < 0:
                    assert np.all(p == -1)
                    continue
                end, total = walk(p, s, d, w, i, directed)
                assert end == j and total == dist[b, i, j], (b, i, j)
                first = (s[p[0]], d[p[0]])
                assert first == (i, nxt[i, j]) or first == (nxt[i, j], i)
                walked += 1
    assert walked > 1500
    _, cut = apsp.batch(graphs, directed=directed, return_paths=True, max_len=2)
    assert cut.shape[3] == 2 and np.array_equal(cut, paths[..., :2])


def test_packed_paths_are_edge_index_columns():
    rng = np.random.default_rng(4)
    ptr, ei, w = molecules(rng, 12)
    perm = rng.permutation(ei.shape[1])
    ei, w = ei[:, perm], w[perm]
    dist, offsets, paths = apsp.batch(edge_index=ei, ptr=ptr, return_paths=True, layout="flat",
                                      unweighted=True)
    hops = (paths >= 0).sum(axis=1)
    finite = dist >= 0
    assert np.array_equal(hops[finite], dist[finite]) and hops.max() > 4
    for b in range(12):  # each edge on a path leaves where the last one ended
        n = ptr[b + 1] - ptr[b]
        pb = paths[offsets[b]:offsets[b + 1]].reshape(n, n, -1)
        for i in range(0, n, 7):
            for j in range(n):
                at = ptr[b] + i
                for e in pb[i, j][pb[i, j] >= 0]:
                    assert ei[0, e] == at
                    at = ei[1, e]
                assert dist[offsets[b] + i * n + j] < 0 or at == ptr[b] + j


@pytest.mark.parametrize("kw, msg", [
    ({"ptr": [0, 3, 2]}, "ptr decreases at 2"),
    ({"ptr": [1, 3, 5]}, "ptr must start with 0"),
    ({"ptr": [0, 2, 4], "edge_index": [[0, 1], [1, 9]]}, "column 1 .* out of range"),
    ({"ptr": [0, 2, 4], "edge_index": [[0, 1], [1, 2]]}, "column 1 joins node 1 of graph 0"),
    ({"batch": [0, 1, 0, 1]}, "batch must be non-decreasing"),
    ({"ptr": [0, 2, 4], "edge_weight": [1.0]}, "one entry per edge"),
    ({"ptr": [0, 2, 4], "edge_index": [[0, 1, 2]]}, r"shape \(2, E\)"),
    ({"ptr": [0, 2, 4], "edge_weight": [1.0, np.nan]}, "NaN|not finite|finite"),
    ({"ptr": [0, 2, 4], "n_max": 1}, "n_max=1"),
    ({"ptr": [0, 2, 4], "dtype": "uint8"}, "dtype must be one of"),
    ({"ptr": [0, 2, 4], "layout": "ragged"}, "layout must be"),
])
def test_malformed_input_is_a_value_error(kw, msg):
    args = {"edge_index": [[0, 2], [1, 3]]}
    args.update(kw)
    with pytest.raises(ValueError, match=msg):
        apsp.batch(**args)


def test_negative_cycle_names_the_graph():
    ok = (np.array([0]), np.array([1]), np.array([2.0]))
    bad = (np.array([0, 1]), np.array([1, 0]), np.array([1.0, -3.0]))
    with pytest.raises(apsp.NegativeCycleError, match="graph 1: "):
        apsp.batch([ok, bad, ok])
    neg = (np.array([0, 1]), np.array([1, 2]), np.array([4.0, -3.0]))
    assert apsp.batch([neg])[0, 0, 2] == 1


class Capsule:
    """A minimal DLPack producer that is not NumPy (what any tensor library hands over)."""

    def __init__(self, a):
        self.a = a

    def __dlpack__(self, stream=None):
        return self.a.__dlpack__()

    def __dlpack_device__(self):
        return self.a.__dlpack_device__()


def test_dlpack_objects_are_read_in_place():
    rng = np.random.default_rng(2)
    ptr, ei, _ = molecules(rng, 6)
    want = apsp.batch(edge_index=ei, ptr=ptr)
    got = apsp.batch(edge_index=Capsule(ei), ptr=Capsule(ptr))
    assert isinstance(got, np.ndarray) and np.array_equal(got, want)  # no library to return to
    m = np.array([[0, 3, 0], [0, 0, 4], [1, 0, 0]], dtype=np.float64)
    assert np.array_equal(apsp.shortest_path(Capsule(m)), apsp.shortest_path(m))


class OtherDevice(Capsule):
    def __dlpack_device__(self):
        return (2, 0)  # kDLCUDA


def test_gpu_tensor_apsp_cannot_copy_is_refused_with_a_message():
    # A GPU tensor's library copies it to the host; an unknown one that cannot is named.
    with pytest.raises(ValueError, match="on a GPU"):
        apsp.batch(edge_index=OtherDevice(np.zeros((2, 0), np.int64)), ptr=[0, 1])
    with pytest.raises(ValueError, match="on a GPU"):
        apsp.shortest_path(OtherDevice(np.zeros((2, 2))))


def test_backend_choice():
    rng = np.random.default_rng(12)
    graphs = [edge_list(rng, n) for n in (5, 9, 70)]
    want = apsp.batch(graphs, backend="cpu")
    assert np.array_equal(apsp.batch(graphs, backend="auto"), want)  # 3 graphs: the cpu
    with pytest.raises(ValueError, match="backend must be"):
        apsp.batch(graphs, backend="mpi")
    if not any(b["name"] == "cuda" and b["usable"] for b in apsp.backends()):
        with pytest.raises(apsp.BackendUnavailableError, match="cuda"):
            apsp.batch(graphs, backend="cuda")


def test_out_array_is_filled_and_checked():
    rng = np.random.default_rng(8)
    graphs = [edge_list(rng, n) for n in (5, 9)]
    out = np.full((2, 9, 9), 99, dtype=np.int16)
    assert apsp.batch(graphs, dtype="int16", out=out) is out
    assert np.array_equal(out, apsp.batch(graphs, dtype="int16")) and out.max() < 99
    with pytest.raises(ValueError, match="wrong shape"):
        apsp.batch(graphs, dtype="int16", out=np.zeros((2, 8, 8), np.int16))
    with pytest.raises(ValueError, match="dtype"):
        apsp.batch(graphs, dtype="int16", out=np.zeros((2, 9, 9), np.int32))
    with pytest.raises(ValueError, match="writable C-contiguous"):
        apsp.batch(graphs, dtype="int16", out=np.zeros((2, 9, 9), np.int16, order="F"))


def test_dgl_shortest_dist_helper():
    rng = np.random.default_rng(21)
    n = 30
    src, dst = rng.integers(0, n, 70), rng.integers(0, n, 70)
    dist = apsp.batch.dgl_shortest_dist(src, dst, n)
    ref = scipy_dist(src, dst, np.ones(70), n, unweighted=True)
    assert dist.dtype == np.int64 and dist.shape == (n, n)
    assert np.array_equal(dist, np.where(np.isinf(ref), -1, ref)) and dist.max() > 2
    d2, paths = apsp.batch.dgl_shortest_dist(src, dst, n, return_paths=True)
    assert np.array_equal(d2, dist) and paths.shape == (n, n, dist.max())
    for i in range(n):
        for j in range(n):
            hops = paths[i, j][paths[i, j] >= 0]
            assert len(hops) == max(dist[i, j], 0)
            at = i
            for e in hops:
                assert src[e] == at
                at = dst[e]
            assert len(hops) == 0 or at == j


def test_graphormer_helper():
    rng = np.random.default_rng(22)
    n = 25
    s, d = rng.integers(0, n, 40), rng.integers(0, n, 40)
    ei = np.concatenate([np.stack([s, d]), np.stack([d, s])], axis=1)
    attr = rng.integers(1, 9, (ei.shape[1], 3))
    spatial_pos = apsp.batch.graphormer(ei, n)
    ref = scipy_dist(ei[0], ei[1], np.ones(ei.shape[1]), n, unweighted=True)
    assert np.array_equal(spatial_pos, np.where(np.isinf(ref), 510, ref))
    sp2, edge_input = apsp.batch.graphormer(ei, n, attr, multi_hop_max_dist=4)
    assert np.array_equal(sp2, spatial_pos) and edge_input.shape == (n, n, 4, 3)
    _, paths = apsp.batch(edge_index=ei, ptr=[0, n], unweighted=True, return_paths=True,
                          max_len=4)
    want = np.where(paths[0][..., None] >= 0, attr[np.maximum(paths[0], 0)], -1)
    assert np.array_equal(edge_input, want)
    hops = (edge_input[..., 0] >= 0).sum(-1)
    assert np.array_equal(hops, np.where(spatial_pos == 510, 0, np.minimum(spatial_pos, 4)))
