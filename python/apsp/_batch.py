"""apsp.batch: shortest-path distances of many small graphs in one call (docs/batch.md).

The graphs come as a list (anything :func:`apsp.shortest_path` takes) or packed as learning code
holds them: ``edge_index`` (2 x E) with ``ptr`` (PyG's graph offsets) or ``batch`` (graph id per
node). The C++ engine (apsp/batch.hpp) closes each graph exactly as ``apsp.solve`` would and
writes the result straight into the output: padded (B, N, N) or flat, in the dtype asked, with
the unreachable value asked, clipped at ``max_dist``; ``return_paths=True`` adds edge ids along
one shortest path per pair in DGL's ``shortest_dist(..., return_paths=True)`` layout.
"""
import numbers

import numpy as np

from . import _core, _dlpack, _inputs

_OUT_TYPES = ("int8", "int16", "int32", "int64", "float32", "float64")


def _out_type(dtype):
    if dtype is None:
        return None
    try:
        name = np.dtype(dtype).name
    except TypeError:  # a torch dtype: torch.int16
        name = str(dtype).replace("torch.", "")
    if name not in _OUT_TYPES:
        raise ValueError(f"dtype must be one of {', '.join(_OUT_TYPES)} (or None), got {dtype!r}")
    return name


def _torch_index(device):
    """The CUDA ordinal of a device= argument ("cuda", "cuda:1", torch.device), else None."""
    if device is None:
        return None
    text = str(device)
    if not text.startswith("cuda"):
        return None
    return int(text.split(":")[1]) if ":" in text else 0


def _backend(name):
    if name not in ("auto", "cpu", "cuda"):
        raise ValueError(f"backend must be 'auto', 'cpu' or 'cuda', got {name!r}")
    return name


def _number(value, name, allow_none=True):
    if value is None and allow_none:
        return None
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a number, got {value!r}")
    return float(value)


def _count(value, name):
    if value is None:
        return -1
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral) or value < 0:
        raise ValueError(f"{name} must be a non-negative integer, got {value!r}")
    return int(value)


def _int_array(a, name, ndim):
    a = np.asarray(_dlpack.as_numpy(a, name, device_ok=True))
    if a.ndim != ndim:
        raise ValueError(f"{name} must have {ndim} dimension(s), got shape {a.shape}")
    if a.size and not np.issubdtype(a.dtype, np.integer):
        raise ValueError(f"{name} must hold integers, got dtype {a.dtype}")
    return a.astype(np.int64, copy=False)


def _graph_of(g, k, directed, unweighted):
    """One listed graph as an apsp.Graph (apsp.shortest_path's reading)."""
    inp = _inputs.inspect(_dlpack.as_numpy(g, device_ok=True) if not isinstance(g, tuple)
                          else tuple(_dlpack.as_numpy(x, "edge array", device_ok=True)
                                     for x in g),
                          None, "batch")
    return _inputs.read_graph(inp, directed, unweighted, False, None, f"graphs[{k}] has no vertices")[0]


def _ptr_from(ptr, batch, num_nodes, num_graphs):
    if (ptr is None) == (batch is None):
        raise ValueError("pass exactly one of ptr= (graph offsets) and batch= (graph id per node)")
    if ptr is not None:
        ptr = _int_array(ptr, "ptr", 1)
        if ptr.size == 0 or ptr[0] != 0:
            raise ValueError("ptr must start with 0 (ptr[b] = first node of graph b; B + 1 "
                             "entries)")
        drops = np.flatnonzero(np.diff(ptr) < 0)
        if drops.size:
            k = int(drops[0])
            raise ValueError(f"ptr decreases at {k + 1}: {ptr[k]} then {ptr[k + 1]}")
        return ptr
    batch = _int_array(batch, "batch", 1)
    if batch.size and (batch[0] < 0 or np.any(np.diff(batch) < 0)):
        raise ValueError("batch must be non-decreasing graph ids from 0 (PyG's Batch.batch)")
    b = 0 if batch.size == 0 else int(batch[-1]) + 1
    if num_graphs is not None:
        if num_graphs < b:
            raise ValueError(f"num_graphs={num_graphs} but batch names graph {b - 1}")
        b = num_graphs
    counts = np.bincount(batch, minlength=b)
    return np.concatenate(([0], np.cumsum(counts))).astype(np.int64)


def _edge_graphs(edge_index, ptr):
    """Each edge's graph, checking that both ends are nodes of it (one-line ValueErrors)."""
    src, dst = edge_index
    n = int(ptr[-1])
    out = np.flatnonzero((src < 0) | (src >= n) | (dst < 0) | (dst >= n))
    if out.size:
        k = int(out[0])
        raise ValueError(f"edge_index column {k} ({src[k]} -> {dst[k]}) is out of range: "
                         f"the batch has nodes 0..{n - 1}")
    gs = np.searchsorted(ptr, src, side="right") - 1
    gd = np.searchsorted(ptr, dst, side="right") - 1
    cross = np.flatnonzero(gs != gd)
    if cross.size:
        k = int(cross[0])
        raise ValueError(f"edge_index column {k} joins node {src[k]} of graph {gs[k]} and node "
                         f"{dst[k]} of graph {gd[k]}")
    return gs


def _packed(edge_index, ptr, batch, edge_weight, num_nodes, num_graphs, directed, unweighted,
            paths):
    ptr = _ptr_from(ptr, batch, num_nodes, num_graphs)
    if num_nodes is not None and num_nodes != int(ptr[-1]):
        raise ValueError(f"num_nodes={num_nodes} but ptr / batch say {int(ptr[-1])} nodes")
    edge_index = _int_array(edge_index, "edge_index", 2)
    if edge_index.shape[0] != 2:
        raise ValueError(f"edge_index must be shape (2, E), got {edge_index.shape}")
    src, dst = np.ascontiguousarray(edge_index[0]), np.ascontiguousarray(edge_index[1])
    edge_ptr = _grouped_edge_ptr(src, dst, ptr)
    gs = _edge_graphs(edge_index, ptr) if edge_ptr is None else None
    weight = None
    if edge_weight is not None and not unweighted:
        weight = np.asarray(_dlpack.as_numpy(edge_weight, "edge_weight", device_ok=True))
        if weight.ndim == 2 and weight.shape[1] == 1:
            weight = weight[:, 0]
        if weight.shape != (edge_index.shape[1],):
            raise ValueError(f"edge_weight must have one entry per edge ({edge_index.shape[1]}), "
                             f"got shape {weight.shape}")
        weight = _inputs.exact_weights(_inputs.numeric_array(weight, "edge_weight"), True,
                                       lambda k: f"edge_weight[{k}]").astype(np.float64, copy=False)
    order = None
    if edge_ptr is None:
        if gs.size > 1 and np.any(np.diff(gs) < 0):  # PyG keeps each graph's edges together
            order = np.argsort(gs, kind="stable")
            gs, src, dst = gs[order], src[order], dst[order]
            weight = None if weight is None else weight[order]
        counts = np.bincount(gs, minlength=len(ptr) - 1)
        edge_ptr = np.concatenate(([0], np.cumsum(counts))).astype(np.int64)
    ids = np.arange(src.size, dtype=np.int64) if order is None else order
    return (ptr, edge_ptr, src, dst, weight, bool(directed), ids if paths else None)


def _grouped_edge_ptr(src, dst, ptr):
    """edge_ptr without a per-edge search where each graph's edges are contiguous and in graph
    order (PyG's layout): a binary search of the graphs' first nodes in src (whose "src >=
    ptr[b]" is then monotone), checked edge by edge in C++ (threads); None otherwise (then
    _edge_graphs finds each edge's graph and names a bad one)."""
    if src.size == 0 or len(ptr) < 2:
        return None
    edge_ptr = np.searchsorted(src, ptr, side="left").astype(np.int64)
    edge_ptr[0], edge_ptr[-1] = 0, src.size
    if np.any(np.diff(edge_ptr) < 0):
        return None
    return edge_ptr if _core.batch_packed_ok(ptr, edge_ptr, src, dst) else None


def batch(graphs=None, *, edge_index=None, ptr=None, batch=None, edge_weight=None, num_nodes=None,
          num_graphs=None, directed=True, unweighted=False, dtype=None, unreachable=-1,
          max_dist=None, return_paths=False, max_len=None, layout="padded", n_max=None, pad=None,
          backend="auto", threads=None, out=None, device=None):
    """All-pairs shortest-path distances of many graphs in one call.

    Inputs: ``graphs``, a list of graphs (anything :func:`apsp.shortest_path` takes: arrays,
    sparse matrices, ``(src, dst[, weight])`` tuples, apsp.Graph, CPU tensors), or the packed
    form: ``edge_index`` (2 x E, global node ids) with ``ptr`` (B + 1 graph offsets, PyG) or
    ``batch`` (graph id per node; ``num_graphs=`` keeps trailing empty graphs), and optional
    ``edge_weight`` (E). ``directed=False`` reads each edge both ways; ``unweighted=True``
    counts hops. Duplicate edges: the lightest; self loops >= 0 ignored; negative weights are
    solved exactly (Johnson) and a negative cycle raises NegativeCycleError naming the graph.

    Output: ``layout="padded"``: (B, N, N) with N = ``n_max`` or the largest graph, cells
    beyond a graph's size holding ``pad`` (default: ``unreachable``); ``layout="flat"``: the
    graphs' n_b x n_b matrices concatenated row-major, and ``offsets`` (B + 1 element offsets).
    ``dtype``: int8, int16, int32, int64, float32, float64, or None for the solver's own type
    (int32 / int64 for whole weights, float64 otherwise); every value must fit it exactly
    (ValueError otherwise). Unreachable pairs hold ``unreachable`` (-1 as DGL; 510 as Graphormer;
    ``np.inf`` in a float type); finite distances above ``max_dist`` are written as ``max_dist``.

    ``return_paths=True`` adds int64 edge ids along one shortest path per pair: (B, N, N, L)
    (flat: (total, L)), ``-1`` padded, ``L = max_len`` (longer paths cut) or the longest path's
    hop count; an id is the edge's column in ``edge_index``, or for a listed graph its position
    in that graph's edge list (row-major entry order for a dense matrix). The path follows the
    graph's next hops (apsp.next_hop's, the lightest of parallel edges).

    ``backend``: ``"cpu"``; ``"cuda"`` (graphs of up to 64 vertices, 128 for int32, closed on a
    GPU one thread block each, the others on the host; the same bytes); ``"auto"`` (default):
    cuda where a GPU is usable and the batch has at least 1024 such graphs, else cpu.

    Returns ``dist`` (padded) or ``(dist, offsets)`` (flat), with ``paths`` appended when asked.
    Tensors in give tensors of the same library out, on the same device: zero-copy on the CPU;
    for a CUDA tensor (torch, CuPy) the GPU engine writes the distances straight into a new
    tensor on its GPU (inputs, which are small, are read through the host). ``device=`` returns
    torch tensors there (``"cuda:K"``: written in place too); ``out=`` (an array or tensor, CPU
    or GPU, of the exact dtype and shape, C-contiguous) is filled and returned.
    """
    if layout not in ("padded", "flat"):
        raise ValueError(f"layout must be 'padded' or 'flat', got {layout!r}")
    directed = _inputs.flag(directed, "directed")
    unweighted = _inputs.flag(unweighted, "unweighted")
    paths = _inputs.flag(return_paths, "return_paths")
    threads = 0 if threads is None else _inputs.threads_arg(threads)
    template = _dlpack.first_tensor(graphs, edge_index, edge_weight)
    if graphs is not None:
        if edge_index is not None or ptr is not None or batch is not None:
            raise ValueError("pass either graphs or edge_index with ptr= / batch=, not both")
        if not isinstance(graphs, (list, tuple)):
            raise TypeError(f"graphs must be a list of graphs, got {type(graphs).__name__}")
        listed = [_graph_of(g, k, directed, unweighted) for k, g in enumerate(graphs)]
        packed, sizes = None, [g.num_vertices for g in listed]
    elif edge_index is not None:
        listed = None
        packed = _packed(edge_index, ptr, batch, edge_weight, num_nodes, num_graphs, directed,
                         unweighted, paths)
        sizes = np.diff(packed[0])
    else:
        raise ValueError("no graphs: pass graphs=[...] or edge_index= with ptr= or batch=")
    largest = int(max(sizes, default=0))
    width = largest if n_max is None else _count(n_max, "n_max")
    if width < largest:
        raise ValueError(f"n_max={width} but a graph has {largest} vertices")
    width = 0 if layout == "flat" else max(width, 1)  # 0 tells _core.batch "flat"
    unreachable = _number(unreachable, "unreachable", allow_none=False)
    pad = _number(pad, "pad")
    max_dist = _number(max_dist, "max_dist")
    # A GPU output (a GPU tensor in, device="cuda:K", or out= on a GPU) is written in place by
    # the GPU engine; with paths it is made on the host and copied (like()).
    out_alloc = None if paths else _dlpack.device_output(template, device, out=out)
    on_gpu = _dlpack.cuda_device(out) if out is not None else None
    if on_gpu is not None and out_alloc is None:
        raise ValueError("out= on a GPU takes distances only (return_paths=False)")
    target = None if out is None or on_gpu is not None else _dlpack.writable_numpy(out)
    gpu = next((d for d in (on_gpu, _dlpack.cuda_device(template), _torch_index(device))
                if d is not None), 0)
    dist, offsets, path_ids, _ = _core.batch(
        listed, packed, _out_type(dtype), threads, width, unreachable, pad, max_dist, paths,
        _count(max_len, "max_len"), target, _backend(backend), gpu, out_alloc)
    if out is not None:
        dist = out
    result = (dist,) if layout == "padded" else (dist, offsets)
    if paths:
        result += (path_ids,)
    result = _dlpack.convert_result(template, result, device)
    return result[0] if len(result) == 1 else result


# ---- framework-shaped helpers (issue 35 item 4): apsp.batch.dgl_shortest_dist, .graphormer ----

def dgl_shortest_dist(src, dst, num_nodes, *, return_paths=False, backend="auto"):
    """``dgl.shortest_dist(g, root=None, return_paths=...)`` for a graph given by its arrays:
    ``src, dst = g.edges()`` (edge ids in order), ``num_nodes = g.num_nodes()``.

    Returns ``dist`` (N, N) int64, hop counts, -1 where unreachable; with ``return_paths=True``
    also ``paths`` (N, N, L) int64 edge ids along one shortest path per pair, -1 padded, L the
    longest path's hop count (DGL's layout; ties follow apsp's next hops, which may pick another
    of several shortest paths than DGL). Tensors in give tensors out::

        dist, paths = apsp.batch.dgl_shortest_dist(*g.edges(), g.num_nodes(), return_paths=True)
    """
    template = _dlpack.first_tensor(src, dst)
    n = _count(num_nodes, "num_nodes")
    result = batch(edge_index=_edge_pair(src, dst), ptr=[0, n], unweighted=True, dtype="int64",
                   unreachable=-1, return_paths=return_paths, backend=backend, n_max=max(n, 1))
    if not return_paths:
        return _dlpack.like(template, result[0])
    return tuple(_dlpack.like(template, x[0]) for x in result)


def graphormer(edge_index, num_nodes, edge_attr=None, *, multi_hop_max_dist=20, backend="auto"):
    """Graphormer's per-graph inputs (``preprocess_item`` then the collator's clipping) for one
    graph: ``edge_index`` (2 x E, both directions listed as PyG does), ``num_nodes``, optional
    ``edge_attr`` (E x F integers, already as Graphormer embeds them: its
    ``convert_to_single_emb(edge_attr) + 1``).

    Returns ``spatial_pos`` (N, N) int64: hop counts, 510 where unreachable (algos.pyx's value);
    with ``edge_attr`` also ``edge_input`` (N, N, multi_hop_max_dist, F) int64: the attributes
    of the edges along one shortest path per pair (hop k at [i, j, k]), -1 beyond the path, as
    ``gen_edge_input`` writes them and the collator cuts them::

        spatial_pos, edge_input = apsp.batch.graphormer(ei, n, attr, multi_hop_max_dist=20)
    """
    ei = _int_array(edge_index, "edge_index", 2)
    n = _count(num_nodes, "num_nodes")
    max_len = _count(multi_hop_max_dist, "multi_hop_max_dist")
    template = _dlpack.first_tensor(edge_index, edge_attr)
    common = dict(edge_index=ei, ptr=[0, n], unweighted=True, dtype="int64", unreachable=510,
                  backend=backend, n_max=max(n, 1))
    if edge_attr is None:
        return _dlpack.like(template, batch(**common)[0])
    attr = np.asarray(_dlpack.as_numpy(edge_attr, "edge_attr", device_ok=True))
    if attr.ndim == 1:
        attr = attr[:, None]
    if attr.shape[0] != ei.shape[1]:
        raise ValueError(f"edge_attr must have one row per edge ({ei.shape[1]}), got shape "
                         f"{attr.shape}")
    dist, paths = batch(return_paths=True, max_len=max_len, **common)
    ids = paths[0]
    edge_input = np.where(ids[..., None] >= 0, attr.astype(np.int64)[np.maximum(ids, 0)], -1)
    return (_dlpack.like(template, dist[0]), _dlpack.like(template, edge_input))


def _edge_pair(src, dst):
    s = _int_array(src, "src", 1)
    d = _int_array(dst, "dst", 1)
    if s.shape != d.shape:
        raise ValueError(f"src and dst must have the same length, got {s.size} and {d.size}")
    return np.stack([s, d])


batch.dgl_shortest_dist = dgl_shortest_dist
batch.graphormer = graphormer
