"""apsp.solve(..., device_result=True): the sparse direct engine's distances left in the GPU's
memory (issue 31 item 2), handed out as apsp.DeviceArray through DLPack and the CUDA array
interface without a copy. The refusals run everywhere; the GPU tests where apsp's cuda backend is
usable, the torch ones where torch has CUDA (the device image's /opt/torch/.venv).
"""
import gc

import numpy as np
import pytest

import apsp

GPU = any(b["name"] == "cuda" and b["usable"] for b in apsp.backends())
needs_gpu = pytest.mark.skipif(not GPU, reason="apsp's cuda backend is not usable here (no GPU, "
                                               "or a build without CUDA)")


def grid(rows, cols, seed=3):
    rng = np.random.default_rng(seed)
    v = np.arange(rows * cols).reshape(rows, cols)
    src = np.concatenate([v[:, :-1].ravel(), v[:-1, :].ravel()])
    dst = np.concatenate([v[:, 1:].ravel(), v[1:, :].ravel()])
    w = rng.integers(0, 20, src.size).astype(np.float64)
    return (src, dst, w)


def torch_cuda():
    torch = pytest.importorskip("torch", reason="torch not installed (/opt/torch/.venv has it)")
    if not torch.cuda.is_available():
        pytest.skip("torch has no CUDA device here")
    return torch


def test_refused_where_the_distances_cannot_stay_on_a_gpu():
    with pytest.raises(ValueError, match=r"device_result=True: .*cuda backend.*cpu"):
        apsp.solve(grid(5, 6), directed=False, backend="cpu", device_result=True)
    with pytest.raises(TypeError, match="device_result must be"):
        apsp.solve(grid(5, 6), backend="cpu", device_result="yes")


@needs_gpu
@pytest.mark.parametrize("dtype", [np.int32, np.float32, np.float64])
def test_device_array_holds_the_distances(dtype):
    g = grid(37, 41)
    want = apsp.solve(g, directed=False, backend="cpu", dtype=dtype).dist
    r = apsp.solve(g, directed=False, backend="cuda", dtype=dtype, device_result=True)
    d = r.dist
    assert isinstance(d, apsp.DeviceArray)
    assert d.shape == (37 * 41, 37 * 41) and d.dtype == np.dtype(dtype) and d.ndim == 2
    assert d.__dlpack_device__() == (2, d.device)
    cai = d.__cuda_array_interface__
    assert cai["shape"] == d.shape and cai["typestr"] == np.dtype(dtype).str and cai["data"][0] != 0
    got = d.numpy()
    if np.issubdtype(dtype, np.integer):
        np.testing.assert_array_equal(got, want)
    else:
        np.testing.assert_allclose(got, want, rtol=1e-5 if dtype == np.float32 else 1e-12)
    assert "cuda" in repr(d)


@needs_gpu
def test_unconsumed_capsules_are_freed():
    d = apsp.solve(grid(9, 10), directed=False, backend="cuda", device_result=True).dist
    for _ in range(50):
        cap = d.__dlpack__()
        del cap
    gc.collect()
    assert d.numpy().shape == (90, 90)


@needs_gpu
def test_torch_takes_the_distances_without_a_copy():
    torch = torch_cuda()
    g = grid(30, 33)
    want = apsp.solve(g, directed=False, backend="cpu").dist
    r = apsp.solve(g, directed=False, backend="cuda", device_result=True)
    t = torch.from_dlpack(r.dist)
    assert t.is_cuda and t.dtype == torch.int32 and tuple(t.shape) == want.shape
    cai = r.dist.__cuda_array_interface__
    assert t.data_ptr() == cai["data"][0]  # the same memory
    del r
    gc.collect()  # the tensor keeps the memory alive
    np.testing.assert_array_equal(t.cpu().numpy(), want)
    t2 = torch.as_tensor(apsp.solve(g, directed=False, backend="cuda", device_result=True).dist,
                         device="cuda")
    np.testing.assert_array_equal(t2.cpu().numpy(), want)
