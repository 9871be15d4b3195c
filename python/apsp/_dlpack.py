"""Tensors in and out through DLPack (``__dlpack__``) and ``__cuda_array_interface__``: torch,
CuPy, JAX, ... on the CPU or a CUDA GPU.

:func:`as_numpy` views a CPU tensor as a NumPy array without a copy (a GPU tensor: refused, or
with ``device_ok=True`` copied to the host by its own library); :func:`like` hands a NumPy
result back as the caller's kind (a tensor of the library the input came from, zero-copy on the
CPU, one copy to a GPU tensor's device), or as a torch tensor on ``device=``.
:func:`device_output` makes an empty tensor of the caller's kind on its GPU for apsp.batch to
write in place. :func:`accepting_tensors` wraps a function of one graph (``apsp.shortest_path``)
so that a tensor in gives tensors out.
"""
import functools
import importlib

import numpy as np

_DL_CPU = 1  # DLPack's kDLCPU
_DL_CUDA = (2, 13)  # kDLCUDA, kDLCUDAManaged


def is_tensor(obj):
    """True for a DLPack-capable (or CUDA array interface) object that is not a NumPy array."""
    return ((hasattr(obj, "__dlpack__") or hasattr(obj, "__cuda_array_interface__"))
            and not isinstance(obj, np.ndarray))


def _dl_device(obj):
    if hasattr(obj, "__dlpack_device__"):
        kind, index = obj.__dlpack_device__()
        return int(kind), int(index)
    if hasattr(obj, "__cuda_array_interface__"):
        return _DL_CUDA[0], _cai_device(obj)
    return _DL_CPU, 0


def _cai_device(obj):
    """The CUDA ordinal of an object that has only __cuda_array_interface__ (numba, ...)."""
    dev = getattr(obj, "device", None)
    index = getattr(dev, "id", getattr(dev, "index", None))
    return int(index) if index is not None else 0


def cuda_device(obj):
    """The CUDA ordinal a tensor lives on, or None (host memory, not a tensor)."""
    if obj is None or not is_tensor(obj):
        return None
    kind, index = _dl_device(obj)
    return index if kind in _DL_CUDA else None


def to_host(obj, name="graph"):
    """A NumPy copy of a GPU tensor, made by its own library (torch, CuPy, numba, JAX)."""
    if hasattr(obj, "detach"):  # torch
        return obj.detach().cpu().numpy()
    for method in ("get", "copy_to_host"):  # CuPy, numba
        if callable(getattr(obj, method, None)):
            return np.asarray(getattr(obj, method)())
    if hasattr(obj, "__array__"):
        try:
            return np.asarray(obj)  # JAX and others that copy through __array__
        except Exception:  # noqa: BLE001 - any library's refusal
            pass
    raise ValueError(f"{name} is a tensor on a GPU that apsp cannot copy to the host; "
                     f"move it first (e.g. .cpu())")


def _library(obj):
    return type(obj).__module__.split(".")[0]


def as_numpy(obj, name="graph", device_ok=False):
    """A NumPy array over a CPU tensor's memory (no copy); anything else is returned as it is.
    A GPU tensor is refused, or with device_ok copied to the host (to_host)."""
    if not is_tensor(obj):
        return obj
    device = _dl_device(obj)
    if device[0] in _DL_CUDA and device_ok:
        return to_host(obj, name)
    if device[0] != _DL_CPU:
        raise ValueError(f"{name} is a tensor on a device (DLPack device {tuple(device)}): "
                         f"apsp reads host memory; move it first (e.g. .cpu())")
    if hasattr(obj, "detach"):  # torch refuses to export a tensor that requires grad
        obj = obj.detach()
    try:
        return np.from_dlpack(obj)
    except (TypeError, BufferError, RuntimeError, ValueError):
        return np.asarray(obj)  # a dtype NumPy's DLPack does not take (bool): through __array__


def writable_numpy(obj, name="out"):
    """A writable NumPy array over obj's memory (NumPy's DLPack import is read-only: the same
    memory through __array__, checked to be the same address), for out= arguments."""
    if not is_tensor(obj):
        arr = np.asarray(obj)
        if arr is not obj:
            raise ValueError(f"{name} must be a NumPy array or a CPU tensor apsp can fill in place")
        return arr
    view = as_numpy(obj, name)
    arr = np.asarray(obj.detach() if hasattr(obj, "detach") else obj)
    same = arr.__array_interface__["data"][0] == view.__array_interface__["data"][0]
    if not same or not arr.flags.writeable:
        raise ValueError(f"{name} must be writable memory apsp can fill in place")
    return arr


def first_tensor(*objs):
    """The first tensor among objs and the direct items of lists / tuples among them, else None
    (one level only: a list-of-lists matrix costs one look per row)."""
    for obj in objs:
        items = obj if isinstance(obj, (list, tuple)) else ()
        for x in (obj, *items):
            if is_tensor(x):
                return x
    return None


def _torch(device):
    try:
        return importlib.import_module("torch")
    except ImportError:
        raise ImportError(f"device={device!r} returns torch tensors, and torch is not installed "
                          f"(Debian: python3-torch)") from None


def like(template, arr, device=None):
    """arr as the caller's kind: NumPy for NumPy callers, else a tensor of template's library on
    template's device (zero-copy on the CPU, one copy to a GPU); with device=, a torch tensor
    there."""
    if not isinstance(arr, np.ndarray):
        return arr
    if device is not None:
        torch = _torch(device)
        return torch.from_dlpack(arr).to(device)
    if template is None or not is_tensor(template):
        return arr
    lib = importlib.import_module(_library(template))
    index = cuda_device(template)
    if index is not None:
        return _to_gpu(lib, template, arr, index)
    from_dlpack = getattr(lib, "from_dlpack", None)
    return from_dlpack(arr) if from_dlpack is not None else arr


def _to_gpu(lib, template, arr, index):
    """arr copied to GPU `index` as a tensor of lib (torch, CuPy, JAX)."""
    name = lib.__name__
    if name == "torch":
        return lib.from_numpy(np.ascontiguousarray(arr)).to(template.device)
    if name == "cupy":
        with lib.cuda.Device(index):
            return lib.asarray(arr)
    if name == "jax":
        return lib.device_put(arr, next(iter(template.devices())))
    raise ValueError(f"apsp cannot make a {name} array on a GPU; pass NumPy or torch inputs")


def _torch_dtype(torch, name):
    return getattr(torch, name)


def device_output(template, device, shape_check=None, out=None):
    """out_alloc for apsp._core.batch: a function (type name, shape) -> (tensor, address, ordinal)
    making an empty tensor of the caller's kind on its GPU (torch for device='cuda:K', torch or
    CuPy for a template), or checking and returning `out`, a GPU tensor. None where the output
    is not a GPU tensor apsp can write (then the result goes through host memory)."""
    if out is not None:
        if cuda_device(out) is None:
            return None
        return lambda name, shape: _checked_out(out, name, shape)
    if device is not None:
        torch = _torch(device)
        dev = torch.device(device)
        if dev.type != "cuda":
            return None
        return lambda name, shape: _made(torch.empty(tuple(shape), dtype=_torch_dtype(torch, name),
                                                     device=dev))
    index = cuda_device(template)
    if index is None:
        return None
    lib = importlib.import_module(_library(template))
    if lib.__name__ == "torch":
        return lambda name, shape: _made(lib.empty(tuple(shape), dtype=_torch_dtype(lib, name),
                                                   device=template.device))
    if lib.__name__ == "cupy":
        def alloc(name, shape):
            with lib.cuda.Device(index):
                return _made(lib.empty(tuple(shape), dtype=name))
        return alloc
    return None


def _address(t):
    cai = t.__cuda_array_interface__
    if cai.get("strides") is not None and not _c_contiguous(t):
        raise ValueError("out must be a C-contiguous tensor")
    return int(cai["data"][0])


def _c_contiguous(t):
    is_contiguous = getattr(t, "is_contiguous", None)
    if callable(is_contiguous):
        return bool(is_contiguous())
    flags = getattr(t, "flags", None)
    return bool(getattr(flags, "c_contiguous", True))


def _sync_current_stream(t):
    """Work queued on the tensor's library's current stream ends before apsp writes (apsp runs
    on the default stream and synchronizes before it returns)."""
    lib = _library(t)
    if lib == "torch":
        importlib.import_module("torch").cuda.current_stream(t.device).synchronize()
    elif lib == "cupy":
        importlib.import_module("cupy").cuda.get_current_stream().synchronize()


def _made(t):
    _sync_current_stream(t)
    return t, _address(t), cuda_device(t)


def _checked_out(out, name, shape):
    got = str(getattr(out, "dtype", "")).replace("torch.", "")
    if got != name:
        raise ValueError(f"out has dtype {got}, expected {name}")
    if tuple(out.shape) != tuple(shape):
        raise ValueError("out has the wrong shape for this batch")
    if hasattr(out, "requires_grad") and out.requires_grad:
        raise ValueError("out must not require grad")
    return _made(out)


def convert_result(template, result, device=None):
    """like() applied to a result, to each item of a tuple of results, or to each value of a
    dict of results (the metrics)."""
    if isinstance(result, tuple):
        return tuple(like(template, r, device) for r in result)
    if isinstance(result, dict):
        return {k: like(template, v, device) for k, v in result.items()}
    return like(template, result, device)


def _unpacked(graph):
    if isinstance(graph, tuple):
        return tuple(as_numpy(x, "edge array", device_ok=True) for x in graph)
    return as_numpy(graph, device_ok=True)


def accepting_tensors(func):
    """func(graph, ...) that also takes tensors (the graph, or the arrays of an edge tuple) and
    then returns tensors of the same library, on the same device (a GPU tensor is read through
    the host and its results copied back); other inputs go through untouched. For the
    csgraph drop-in and the metrics too: ``f = accepting_tensors(f)``."""
    @functools.wraps(func)
    def wrapper(csgraph, *args, **kwargs):
        template = first_tensor(csgraph)
        if template is None:
            return func(csgraph, *args, **kwargs)
        return convert_result(template, func(_unpacked(csgraph), *args, **kwargs))
    return wrapper
