"""Tensors in and out through DLPack (``__dlpack__``): torch, CuPy, JAX, ... on the CPU.

:func:`as_numpy` views a CPU tensor as a NumPy array without a copy; :func:`like` hands a NumPy
result back as the caller's kind (a tensor of the library the input came from, zero-copy), or
as a torch tensor on ``device=``. :func:`accepting_tensors` wraps a function of one graph
(``apsp.shortest_path``) so that a tensor in gives tensors out. Tensors on a GPU are refused with
a message (apsp reads host memory; the batched GPU engine is not built yet).
"""
import functools
import importlib

import numpy as np

_DL_CPU = 1  # DLPack's kDLCPU


def is_tensor(obj):
    """True for a DLPack-capable object that is not a NumPy array."""
    return hasattr(obj, "__dlpack__") and not isinstance(obj, np.ndarray)


def _library(obj):
    return type(obj).__module__.split(".")[0]


def as_numpy(obj, name="graph"):
    """A NumPy array over a CPU tensor's memory (no copy); anything else is returned as it is."""
    if not is_tensor(obj):
        return obj
    device = obj.__dlpack_device__() if hasattr(obj, "__dlpack_device__") else (_DL_CPU, 0)
    if int(device[0]) != _DL_CPU:
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
    """arr as the caller's kind: NumPy for NumPy callers, else a tensor of template's library (on
    template's device, the CPU here); with device=, a torch tensor there."""
    if not isinstance(arr, np.ndarray):
        return arr
    if device is not None:
        torch = _torch(device)
        return torch.from_dlpack(arr).to(device)
    if template is None or not is_tensor(template):
        return arr
    lib = importlib.import_module(_library(template))
    from_dlpack = getattr(lib, "from_dlpack", None)
    return from_dlpack(arr) if from_dlpack is not None else arr


def convert_result(template, result, device=None):
    """like() applied to a result or to each item of a tuple of results."""
    if isinstance(result, tuple):
        return tuple(like(template, r, device) for r in result)
    return like(template, result, device)


def _unpacked(graph):
    if isinstance(graph, tuple):
        return tuple(as_numpy(x, "edge array") for x in graph)
    return as_numpy(graph)


def accepting_tensors(func):
    """func(graph, ...) that also takes tensors (the graph, or the arrays of an edge tuple) and
    then returns tensors of the same library; other inputs go through untouched."""
    @functools.wraps(func)
    def wrapper(csgraph, *args, **kwargs):
        template = first_tensor(csgraph)
        if template is None:
            return func(csgraph, *args, **kwargs)
        return convert_result(template, func(_unpacked(csgraph), *args, **kwargs))
    return wrapper
