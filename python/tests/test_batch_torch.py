"""torch tensors in and out of apsp.batch and apsp.shortest_path (CPU, through DLPack).

Skipped where torch is not installed: Debian's python3-torch pulls in about 160 packages, so
scripts/deps.sh does not install it (test_batch.py checks DLPack with a plain producer instead).
"""
import numpy as np
import pytest

import apsp

torch = pytest.importorskip("torch", reason="torch not installed (Debian: python3-torch); "
                                            "the torch DLPack round trips are skipped")


def molecule_batch(seed=1, count=8):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(5, 30, count)
    ptr = np.concatenate(([0], np.cumsum(sizes)))
    cols = [np.stack([np.arange(n - 1), np.arange(1, n)]) + ptr[b] for b, n in enumerate(sizes)]
    ei = np.concatenate(cols, axis=1)
    return ptr, np.concatenate([ei, ei[::-1]], axis=1)


def test_tensors_in_tensors_out():
    ptr, ei = molecule_batch()
    want = apsp.batch(edge_index=ei, ptr=ptr, max_dist=20)
    got = apsp.batch(edge_index=torch.from_numpy(ei), ptr=torch.from_numpy(ptr), max_dist=20)
    assert isinstance(got, torch.Tensor) and got.dtype == torch.int32
    assert np.array_equal(got.numpy(), want) and want.max() > 5


def test_packed_torch_with_weights_paths_and_dtype():
    ptr, ei = molecule_batch(2)
    w = torch.ones(ei.shape[1], dtype=torch.float32, requires_grad=True)  # grad: detached
    dist, paths = apsp.batch(edge_index=torch.from_numpy(ei), ptr=torch.from_numpy(ptr),
                             edge_weight=w, dtype=torch.int64, return_paths=True, max_len=5)
    assert dist.dtype == torch.int64 and paths.dtype == torch.int64 and paths.shape[-1] == 5
    hops = (paths >= 0).sum(dim=-1)
    assert torch.equal(hops, torch.clamp(dist, min=0, max=5))


def test_out_tensor_is_filled_and_returned():
    ptr, ei = molecule_batch(3)
    n = int(np.diff(ptr).max())
    out = torch.full((len(ptr) - 1, n, n), 7, dtype=torch.int16)
    got = apsp.batch(edge_index=ei, ptr=ptr, dtype="int16", out=out)
    assert got is out
    assert np.array_equal(out.numpy(), apsp.batch(edge_index=ei, ptr=ptr, dtype="int16"))
    with pytest.raises(ValueError, match="dtype"):
        apsp.batch(edge_index=ei, ptr=ptr, dtype="int32", out=out)


def test_device_cpu_returns_torch_for_numpy_input():
    ptr, ei = molecule_batch(4)
    got = apsp.batch(edge_index=ei, ptr=ptr, device="cpu")
    assert isinstance(got, torch.Tensor) and got.device.type == "cpu"


def test_list_of_tensor_graphs_and_shortest_path():
    m = torch.tensor([[0, 3, 0], [0, 0, 4], [1, 0, 0]], dtype=torch.float64)
    d = apsp.shortest_path(m)
    assert isinstance(d, torch.Tensor)
    assert np.array_equal(d.numpy(), apsp.shortest_path(m.numpy()))
    d, pred = apsp.shortest_path(m, return_predecessors=True)
    assert isinstance(pred, torch.Tensor) and int(pred[0, 2]) == 1
    src, dst = torch.tensor([0, 1]), torch.tensor([1, 2])
    e = apsp.shortest_path((src, dst, torch.tensor([2.0, 5.0])))
    assert isinstance(e, torch.Tensor) and float(e[0, 2]) == 7.0
    b = apsp.batch([m, (src, dst)], dtype="float64", unreachable=float("inf"))
    assert isinstance(b, torch.Tensor) and b.shape == (2, 3, 3) and float(b[0, 0, 2]) == 7.0


def test_accepting_tensors_wraps_the_csgraph_dropin_and_the_metrics():
    # The csgraph drop-in and the metrics take tensors and give tensors (docs/batch.md).
    m = torch.tensor([[0, 3, 0, 0], [0, 0, 4, 0], [1, 0, 0, 2], [0, 0, 0, 0]],
                     dtype=torch.float64)
    sp = apsp.csgraph.shortest_path
    d, pred = sp(m, return_predecessors=True)
    assert isinstance(d, torch.Tensor) and isinstance(pred, torch.Tensor)
    want, want_pred = apsp.csgraph.shortest_path(m.numpy(), return_predecessors=True)
    assert np.array_equal(d.numpy(), want) and np.array_equal(pred.numpy(), want_pred)
    dj = apsp.csgraph.dijkstra(m, indices=[0, 2])
    assert isinstance(dj, torch.Tensor) and dj.shape == (2, 4)
    ecc = apsp.eccentricity(m, infinite_ok=True)
    assert isinstance(ecc, torch.Tensor)
    assert np.array_equal(ecc.numpy(), apsp.eccentricity(m.numpy(), infinite_ok=True))
    res = apsp.metrics(m, ["closeness", "diameter"], infinite_ok=True)
    assert isinstance(res["closeness"], torch.Tensor) and isinstance(res["diameter"], float)


def test_dgl_helper_tensors_in_tensors_out():
    src, dst = torch.tensor([0, 1, 2]), torch.tensor([1, 2, 3])
    dist, paths = apsp.batch.dgl_shortest_dist(src, dst, 5, return_paths=True)
    assert isinstance(dist, torch.Tensor) and dist.dtype == torch.int64
    assert int(dist[0, 3]) == 3 and int(dist[3, 0]) == -1 and paths.tolist()[0][3] == [0, 1, 2]
