"""apsp.batch on a GPU: backend="cuda" against backend="cpu" byte for byte, and CUDA tensors in
and out (torch; the result is written by the GPU engine into a tensor on the input's device).

Runs where apsp's cuda backend is usable; the tensor tests need torch with CUDA (the device
image's /opt/torch/.venv). Everything else skips, saying why.
"""
import numpy as np
import pytest

import apsp

GPU = any(b["name"] == "cuda" and b["usable"] for b in apsp.backends())
pytestmark = pytest.mark.skipif(not GPU, reason="apsp's cuda backend is not usable here "
                                                "(no GPU, or a build without CUDA)")


def torch_cuda():
    torch = pytest.importorskip("torch", reason="torch not installed (/opt/torch/.venv has it)")
    if not torch.cuda.is_available():
        pytest.skip("torch has no CUDA device here")
    return torch


def molecules(rng, count, lo=10, hi=60, weighted=False):
    """PyG-style packed batch: chains plus random chords, both directions listed."""
    sizes = rng.integers(lo, hi + 1, count)
    ptr = np.concatenate(([0], np.cumsum(sizes))).astype(np.int64)
    cols = []
    for b, n in enumerate(sizes):
        chain = np.stack([np.arange(n - 1), np.arange(1, n)])
        chords = rng.integers(0, n, (2, max(n // 4, 1)))
        cols.append(np.concatenate([chain, chords], axis=1) + ptr[b])
    ei = np.concatenate(cols, axis=1)
    ei = np.concatenate([ei, ei[::-1]], axis=1)
    w = rng.integers(0, 9, ei.shape[1]).astype(np.float64) if weighted else None
    return ptr, ei, w


def mixed(rng, directed):
    """Sizes across the GPU's caps (64, 128 for int32) and beyond, a lone vertex, an empty graph."""
    sizes = [1, 2, 3, 17, 63, 64, 65, 127, 128, 129, 200, 0, 40]
    ptr = np.concatenate(([0], np.cumsum(sizes))).astype(np.int64)
    cols = []
    for b, n in enumerate(sizes):
        if n < 2:
            continue
        m = 3 * n
        cols.append(np.stack([rng.integers(0, n, m), rng.integers(0, n, m)]) + ptr[b])
    ei = np.concatenate(cols, axis=1)
    w = rng.integers(0, 9, ei.shape[1]).astype(np.float64)
    return ptr, ei, w


@pytest.mark.parametrize("directed", [True, False])
@pytest.mark.parametrize("dtype", [None, "int8", "int16", "int32", "int64", "float32",
                                   "float64"])
def test_cuda_equals_cpu(directed, dtype):
    rng = np.random.default_rng(5)
    ptr, ei, w = mixed(rng, directed)
    kw = dict(edge_index=ei, ptr=ptr, edge_weight=w, directed=directed, dtype=dtype,
              max_dist=100 if dtype == "int8" else None)
    want = apsp.batch(backend="cpu", **kw)
    got = apsp.batch(backend="cuda", **kw)
    assert got.dtype == want.dtype and np.array_equal(got, want)
    flat, off = apsp.batch(backend="cuda", layout="flat", **kw)
    assert np.array_equal(flat, apsp.batch(backend="cpu", layout="flat", **kw)[0])
    assert (want[want >= 0] > 0).sum() > 10000


def test_fractional_weights_and_paths_equal_cpu():
    rng = np.random.default_rng(6)
    ptr, ei, w = mixed(rng, True)
    w = w / 3.0 + 0.25
    for dtype in (None, "float32"):
        want = apsp.batch(edge_index=ei, ptr=ptr, edge_weight=w, dtype=dtype, backend="cpu")
        got = apsp.batch(edge_index=ei, ptr=ptr, edge_weight=w, dtype=dtype, backend="cuda")
        assert got.tobytes() == want.tobytes()
    want = apsp.batch(edge_index=ei, ptr=ptr, edge_weight=w, return_paths=True, backend="cpu")
    got = apsp.batch(edge_index=ei, ptr=ptr, edge_weight=w, return_paths=True, backend="cuda")
    assert all(np.array_equal(a, b) for a, b in zip(got, want))


def test_many_molecules_auto_takes_the_gpu_and_equals_cpu():
    rng = np.random.default_rng(7)
    ptr, ei, _ = molecules(rng, 5000)
    want = apsp.batch(edge_index=ei, ptr=ptr, max_dist=20, dtype="int8", backend="cpu")
    got = apsp.batch(edge_index=ei, ptr=ptr, max_dist=20, dtype="int8")  # auto
    assert np.array_equal(got, want) and want.max() == 20
    d, p = apsp.batch(edge_index=ei, ptr=ptr, return_paths=True, max_len=5)
    dc, pc = apsp.batch(edge_index=ei, ptr=ptr, return_paths=True, max_len=5, backend="cpu")
    assert np.array_equal(d, dc) and np.array_equal(p, pc)


def test_a_distance_the_dtype_cannot_hold_is_named():
    n = 120  # a path of 119 hops of weight 3: 357 does not fit int8
    src = np.arange(n - 1)
    ei = np.stack([src, src + 1])
    with pytest.raises(ValueError, match=r"graph 0: distance \d+ does not fit int8"):
        apsp.batch(edge_index=ei, ptr=[0, n], edge_weight=np.full(n - 1, 3.0), dtype="int8",
                   backend="cuda")


def test_torch_cuda_in_torch_cuda_out():
    torch = torch_cuda()
    rng = np.random.default_rng(8)
    ptr, ei, w = molecules(rng, 3000, weighted=True)
    want = apsp.batch(edge_index=ei, ptr=ptr, edge_weight=w, max_dist=20, dtype="int16",
                      unreachable=510, backend="cpu")
    dev = torch.device("cuda", 0)
    got = apsp.batch(edge_index=torch.from_numpy(ei).to(dev), ptr=torch.from_numpy(ptr).to(dev),
                     edge_weight=torch.from_numpy(w).to(dev), max_dist=20, dtype=torch.int16,
                     unreachable=510)
    assert isinstance(got, torch.Tensor) and got.device == dev and got.dtype == torch.int16
    assert np.array_equal(got.cpu().numpy(), want)
    flat, off = apsp.batch(edge_index=torch.from_numpy(ei).to(dev),
                           ptr=torch.from_numpy(ptr).to(dev), layout="flat")
    assert flat.device == dev and off.device == dev
    assert np.array_equal(flat.cpu().numpy(),
                          apsp.batch(edge_index=ei, ptr=ptr, layout="flat", backend="cpu")[0])


def test_torch_cuda_small_batch_cpu_engine_still_returns_on_the_device():
    torch = torch_cuda()
    rng = np.random.default_rng(9)
    ptr, ei, _ = molecules(rng, 5)  # below auto's threshold: solved on the host, copied over
    dev = torch.device("cuda", 0)
    got = apsp.batch(edge_index=torch.from_numpy(ei).to(dev), ptr=torch.from_numpy(ptr).to(dev))
    assert got.device == dev
    assert np.array_equal(got.cpu().numpy(), apsp.batch(edge_index=ei, ptr=ptr, backend="cpu"))


def test_torch_cuda_paths_out_on_the_device():
    torch = torch_cuda()
    rng = np.random.default_rng(10)
    ptr, ei, _ = molecules(rng, 50)
    dev = torch.device("cuda", 0)
    d, p = apsp.batch(edge_index=torch.from_numpy(ei).to(dev), ptr=torch.from_numpy(ptr).to(dev),
                      return_paths=True, max_len=5)
    assert d.device == dev and p.device == dev
    dc, pc = apsp.batch(edge_index=ei, ptr=ptr, return_paths=True, max_len=5, backend="cpu")
    assert np.array_equal(d.cpu().numpy(), dc) and np.array_equal(p.cpu().numpy(), pc)


def test_out_tensor_on_the_gpu_is_filled_in_place():
    torch = torch_cuda()
    rng = np.random.default_rng(11)
    ptr, ei, _ = molecules(rng, 2000)
    n = int(np.diff(ptr).max())
    out = torch.full((len(ptr) - 1, n, n), 7, dtype=torch.int8, device="cuda")
    got = apsp.batch(edge_index=ei, ptr=ptr, dtype="int8", max_dist=20, out=out)
    assert got is out
    assert np.array_equal(out.cpu().numpy(),
                          apsp.batch(edge_index=ei, ptr=ptr, dtype="int8", max_dist=20,
                                     backend="cpu"))
    with pytest.raises(ValueError, match="dtype"):
        apsp.batch(edge_index=ei, ptr=ptr, dtype="int16", out=out)


def test_device_cuda_for_numpy_input():
    torch = torch_cuda()
    rng = np.random.default_rng(12)
    ptr, ei, _ = molecules(rng, 1500)
    got = apsp.batch(edge_index=ei, ptr=ptr, device="cuda:0", dtype="int32")
    assert isinstance(got, torch.Tensor) and got.device.type == "cuda"
    assert np.array_equal(got.cpu().numpy(), apsp.batch(edge_index=ei, ptr=ptr, backend="cpu"))
