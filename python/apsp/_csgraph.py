"""SciPy-shaped entry points: shortest_path, floyd_warshall, dijkstra, bellman_ford, johnson.

The signatures, return shapes and dtypes, input conventions and errors are those of
``scipy.sparse.csgraph`` (SciPy 1.10); apsp's own options (dtype=, backend=, block=, threads=,
return_next_hop=, num_vertices=) are keyword-only. Two solvers answer:

* blocked Floyd-Warshall (apsp.solve: the CPU or GPU backends) for whole V x V matrices;
* per-source Dijkstra in C++ (python/src/dijkstra.cpp: sources over the CPU threads, ``limit``
  pruning, Johnson potentials for negative weights) for a few rows, ``limit`` and ``min_only``,
  in O(E + rows * V) memory.

``method`` names the algorithm SciPy would run: 'FW' runs Floyd-Warshall; 'D', 'BF' and 'J' run
the per-source solver (which is exact with negative weights too: it reweights them, where SciPy's
'D' warns and may be wrong); 'auto' picks whichever is predicted faster from rates measured once per machine (_cost.py).
"""

import math
import numbers

import numpy as np

from . import _core, _cost
from . import _inputs as inputs
from ._core import NegativeCycleError

NO_PREDECESSOR = -9999
_METHODS = ("auto", "FW", "D", "BF", "J")

_AUTO_GPU_MIN_V = 1024          # below: method='auto'/'FW' with backend='auto' solve on the cpu
_gpu_usable = None


def _gpu_is_usable():
    global _gpu_usable
    if _gpu_usable is None:
        _gpu_usable = any(b["usable"] and b["name"] == "cuda" for b in _core.backends())
    return _gpu_usable


def _check_method(method):
    if not isinstance(method, str) or method not in _METHODS:
        hint = ""
        if isinstance(method, (bool, np.bool_)):  # apsp < 0.2 took `directed` second
            hint = "; the second parameter is SciPy's method: pass directed= by keyword"
        raise ValueError(f"unrecognized method '{method}' (expected one of {', '.join(_METHODS)}){hint}")
    return method


def _indices(indices, n):
    """SciPy's reading of indices=: any integer-valued array-like; negative values count from the
    end; the result keeps its shape."""
    idx = np.asarray(indices)
    if idx.dtype.kind == "f":
        if not np.all(np.isfinite(idx)) or np.any(idx != np.floor(idx)):
            raise ValueError(f"indices must be whole numbers, got {indices!r}")
    elif idx.dtype.kind not in "biu":
        try:
            idx = idx.astype(np.int64)
        except (TypeError, ValueError):
            raise ValueError(f"indices must be integers, got {indices!r}") from None
    idx = idx.astype(np.int64)
    idx[idx < 0] += n
    if idx.size and (idx.min() < 0 or idx.max() >= n):
        raise ValueError(f"indices out of range 0...N (N = {n})")
    return idx


def _limit(limit):
    if isinstance(limit, (bool, np.bool_)) or not isinstance(limit, (numbers.Real, np.number)):
        raise TypeError(f"limit must be a number, got {limit!r}")
    limit = float(limit)
    if math.isnan(limit) or limit < 0:
        raise ValueError("limit must be >= 0")
    return limit


def _fw_on_gpu(n, backend):
    return backend in ("cuda", "multi-gpu") or (
        backend == "auto" and n >= _AUTO_GPU_MIN_V and _gpu_is_usable())


def _element_size(inp, n, dtype):
    """Bytes per element of the FW solve's type: dtype=None runs int32 for whole weights whose
    distances stay below 2**30 - 1, else an 8-byte type."""
    if dtype is not None:
        return np.dtype(dtype).itemsize
    whole = inp.whole_max
    return 4 if whole is not None and max(n - 1, 1) * whole < 2 ** 30 - 1 else 8


def _auto_choice(inp, n, k, directed, unweighted, dtype, backend, threads, num_vertices,
                 rates=None):
    """method='auto': ("FW" or "D", order for the FW solve, predicted seconds) by _cost's model."""
    nthreads = threads or _core.max_threads() // 4
    arcs = inp.edges * (1 if directed else 2)
    esize = _element_size(inp, n, dtype)
    gpu = _fw_on_gpu(n, backend)
    if rates is None:
        rates = _cost.calibrated(n, k, arcs, esize, nthreads)

    def nd_plan():
        g, _ = inputs.to_graph(inp, directed, unweighted, False, num_vertices)
        return _core.cpu_order_plan(g, "int32" if esize == 4 else "float64", 0)

    cpu = backend in ("auto", "cpu") and not gpu
    return _cost.choose(rates, n, k, arcs, esize, nthreads, gpu, nd_plan if cpu else None)


def _solve(csgraph, method, directed, return_predecessors, unweighted, indices, limit=np.inf, min_only=False, *,
           dtype=None, backend="auto", block=None, threads=None, return_next_hop=False, num_vertices=None,
           overwrite=False, caller="shortest_path", native=False, scipy=False):
    method = _check_method(method)
    directed, unweighted, dtype, backend, block, threads, num_vertices = inputs.check_common(
        directed, unweighted, dtype, backend, block, threads, num_vertices)
    want_pred = inputs.flag(return_predecessors, "return_predecessors")
    want_next = inputs.flag(return_next_hop, "return_next_hop")
    inputs.flag(overwrite, "overwrite")  # accepted; inputs are never modified
    min_only = inputs.flag(min_only, "min_only")
    limit = _limit(limit)
    if method == "FW" and indices is not None:
        raise ValueError("Cannot specify indices with method == 'FW'.")

    # What the per-source solver cannot give: then only Floyd-Warshall can answer.
    fw_only = []
    if want_next:
        fw_only.append("return_next_hop=True")
    if dtype not in (None, "float64"):
        fw_only.append(f"dtype=np.{dtype}")
    if backend not in ("auto", "cpu"):
        fw_only.append(f"backend={backend!r}")
    per_source_only = min_only or limit < np.inf
    if method in ("D", "BF", "J") and fw_only:
        raise ValueError(f"{', '.join(fw_only)} needs method='FW' or 'auto' "
                         f"(method={method!r} solves per source in float64 on the CPU)")
    if per_source_only and fw_only:
        raise ValueError(f"limit= and min_only= are per-source options: they do not combine with {', '.join(fw_only)}")

    # scipy=True (apsp.csgraph): SciPy's reading of the input, a tuple being a matrix like any
    # array-like and dense entries with |w| <= 1e-8 no edge; else a tuple is an edge list and
    # every nonzero dense entry an edge.
    inp = inputs.inspect(csgraph, num_vertices, caller, scipy=scipy)
    inp.scipy_null = scipy
    # SciPy reads every input as float64, rounding integer weights beyond 2**53; so do the
    # SciPy-named functions. apsp's own entry points (native) and integer dtype= results refuse them.
    inp.exact = (native or dtype in ("int32", "int64")) and not unweighted
    if inp.kind == "edges":  # V comes from the ids: build the graph now (that checks them too)
        g_fwd, n = inputs.to_graph(inp, directed, unweighted, False, num_vertices)
        inp = inputs.Input("graph", g_fwd, n)
        unweighted = False  # done
    n = inp.n
    idx = None if indices is None else _indices(indices, n)
    k = n if idx is None else int(idx.size)

    # Memory, before any entry is read (a huge zero-stride array must not be scanned first).
    esize = np.dtype(dtype).itemsize if dtype else 4
    needs = []
    if method in ("auto", "FW") and not per_source_only:
        needs.append(n * n * esize)
    if method != "FW" and not fw_only:
        needs.append((n if min_only else k * n) * (8 + 4 * want_pred))
    inputs.check_memory(min(needs), f"V = {n}: the result")

    inputs.scan(inp)
    if n == 0:
        return _empty(idx, dtype, want_pred, want_next, min_only)

    order = "auto"
    if method == "FW":
        per_source = False
    elif method != "auto" or per_source_only:
        per_source = True
    elif fw_only:
        per_source = False
    elif n * n * esize > _core.host_memory_limit():
        per_source = True
    else:
        choice, order, _ = _auto_choice(inp, n, k, directed, unweighted, dtype, backend, threads,
                                        num_vertices)
        per_source = choice == "D"

    if per_source:
        return _per_source(inp, idx, n, directed, unweighted, want_pred, limit, min_only, threads)
    dtype = inputs.auto_dtype(inp, n, dtype)
    out = _floyd_warshall(inp, n, directed, unweighted, want_pred, want_next, dtype, backend, block, threads,
                          num_vertices, order)
    if idx is not None:
        out = [a[idx] for a in out]
    return out[0] if len(out) == 1 else tuple(out)


def _empty(idx, dtype, want_pred, want_next, min_only):
    shape = (0,) if min_only else (0, 0) if idx is None else idx.shape + (0,)
    out = [np.zeros(shape, dtype=np.float64 if dtype is None else dtype)]
    out += [np.zeros(shape, dtype=np.int32)] * (want_pred * (2 if min_only else 1) + want_next)
    return out[0] if len(out) == 1 else tuple(out)


def _per_source(inp, idx, n, directed, unweighted, want_pred, limit, min_only, threads):
    g, _ = inputs.to_graph(inp, directed, unweighted, False, n)
    sources = np.arange(n) if idx is None else idx
    flat = np.ascontiguousarray(sources.reshape(-1), dtype=np.int32)
    try:
        dist, pred, src = _core.per_source(g, flat, limit, min_only, want_pred, threads or 0)
    except NegativeCycleError as err:
        raise inputs.negative_cycle(err) from None
    if min_only:
        return (dist, pred, src) if want_pred else dist
    shape = sources.shape + (n,)
    dist = dist.reshape(shape)
    return (dist, pred.reshape(shape)) if want_pred else dist


def _floyd_warshall(inp, n, directed, unweighted, want_pred, want_next, dtype, backend, block, threads,
                    num_vertices, order="auto"):
    """[dist] (+ [pred]) (+ [next]) for every pair, from apsp's blocked Floyd-Warshall."""
    # Small graphs stay on the cpu under backend='auto': a GPU call's fixed costs (context,
    # upload) outweigh V^3 < 1.1e9 updates, and the cpu's tie rule is SciPy's on its test graphs.
    if backend == "auto" and n < _AUTO_GPU_MIN_V:
        backend = "cpu"
    # Predecessors are the next hops of the reversed graph, transposed. Solving the reversed
    # graph gives the transposed distances too, so one solve answers both.
    g, _ = inputs.to_graph(inp, directed, unweighted, want_pred, num_vertices)
    pred = nxt = None
    if want_pred:
        dist, pred = run(g, backend, dtype, block, threads, True, reverse=True, order=order)
        if g.directed:  # undirected distances are symmetric already
            _core.transpose_square(dist)
        _core.predecessors_from_reversed_next(pred)
        if want_next:
            g_fwd, _ = inputs.to_graph(inp, directed, unweighted, False, num_vertices)
            _, nxt = run(g_fwd, backend, dtype, block, threads, True, order=order)
    else:
        dist, nxt = run(g, backend, dtype, block, threads, want_next, order=order)
    if dtype is None and dist.dtype != np.float64:
        dist = _core.to_float64(dist)
    out = [dist]
    if want_pred:
        out.append(pred)
    if want_next:
        out.append(nxt)
    return out


def run(g, backend, dtype, block, threads, paths, reverse=False, info=False, order="auto", plan=None,
        keep_on_device=False):
    """_core.solve -> (dist, next or None[, info]); a negative cycle is raised SciPy-catchable.
    With keep_on_device dist is a _core.DeviceArray (the distances left on the GPU)."""
    try:
        dist, nxt, details = _core.solve(g, backend, dtype, 0 if block is None else block,
                                         0 if threads is None else threads, paths, order, plan,
                                         keep_on_device)
    except NegativeCycleError as err:
        raise inputs.negative_cycle(err, reverse) from None
    return (dist, nxt, details) if info else (dist, nxt)


# ---- the public functions ------------------------------------------------------------------------
def shortest_path(csgraph, method="auto", directed=True, return_predecessors=False, unweighted=False,
                  overwrite=False, indices=None, *, dtype=None, backend="auto", block=None, threads=None,
                  return_next_hop=False, num_vertices=None):
    """Shortest path lengths, as ``scipy.sparse.csgraph.shortest_path`` (same arguments and results),
    with apsp's reading of tuples and tiny dense weights (``apsp.csgraph.shortest_path`` reads
    them as SciPy does).

    Parameters
    ----------
    csgraph : ndarray, numpy.ma masked array, scipy.sparse matrix, (src, dst[, weight]) tuple or apsp.Graph
        Dense: entry (i, j) is the weight of edge i -> j; **0, NaN and +-inf mean "no edge"** (as
        in SciPy) and every other entry is an edge, however small (SciPy, and apsp.csgraph, also
        drop ``|w| <= 1e-8``). Sparse: every stored entry is an edge, **explicit zeros are
        zero-weight edges** (COO duplicates add up; other formats' parallel entries keep the
        lightest). Masked: every unmasked entry is an edge. Tuple: an edge list, edge k is
        src[k] -> dst[k] (V is ``num_vertices`` or max id + 1; +inf weight = no edge); a tuple
        that would also read as a square matrix (2 or 3 items, each a list or tuple of that
        length, not all NumPy arrays) raises ValueError. Negative weights are fine (Johnson
        reweighting) unless they close a negative cycle.
    method : 'auto', 'FW', 'D', 'BF' or 'J'
        'FW': apsp's blocked Floyd-Warshall; 'D', 'BF', 'J': per-source Dijkstra (Johnson
        potentials for negative weights); 'auto': whichever is estimated faster.
    directed, return_predecessors, unweighted, overwrite, indices
        As in SciPy: ``indices`` (not with 'FW') selects source rows (shape ``indices.shape + (V,)``);
        predecessors are int32 with -9999 for none; ``overwrite`` is accepted (inputs are never
        modified).

    Keyword-only (apsp)
    -------------------
    dtype : None (float64, inf = unreachable, like SciPy) or int32/int64/float32/float64: the
        Floyd-Warshall solver's own type, returned as is (integer types mark unreachable with
        apsp.UNREACHABLE_INT32 / UNREACHABLE_INT64).
    backend : "auto", "cpu", "cuda", "multi-gpu", "mpi" (Floyd-Warshall; "auto" keeps graphs under
    1024 vertices on the cpu, larger ones go to a usable GPU); block : the cpu backend's tile
    size (1..4096, rounded up to a multiple of 32; the GPU backends use their own tile);
    threads : CPU threads (None = all); return_next_hop : also the int32 next-hop matrix (-1 = none);
    num_vertices : V for an edge-list tuple.

    Returns
    -------
    dist (float64 unless dtype=), and predecessors / next hops when asked, in that order.

    Raises
    ------
    apsp.NegativeCycleError (a ValueError, and SciPy's NegativeCycleError when SciPy's csgraph is
    imported) with ``.cycle``; ValueError / TypeError for bad arguments; MemoryError when the
    result does not fit; apsp.BackendUnavailableError.
    """
    return _solve(csgraph, method, directed, return_predecessors, unweighted, indices, dtype=dtype,
                  backend=backend, block=block, threads=threads, return_next_hop=return_next_hop,
                  num_vertices=num_vertices, overwrite=overwrite)


def native_shortest_path(csgraph, method="auto", directed=True, return_predecessors=False,
                         unweighted=False, indices=None, **kwargs):
    """shortest_path for apsp's own entry points (next_hop, apsp.networkx): integer weights
    beyond 2**53 raise ValueError instead of being rounded as SciPy's float64 reading would."""
    return _solve(csgraph, method, directed, return_predecessors, unweighted, indices, native=True,
                  **kwargs)


def floyd_warshall(csgraph, directed=True, return_predecessors=False, unweighted=False, overwrite=False, *,
                   dtype=None, backend="auto", block=None, threads=None, return_next_hop=False, num_vertices=None):
    """``scipy.sparse.csgraph.floyd_warshall``: all pairs by apsp's blocked Floyd-Warshall."""
    return _solve(csgraph, "FW", directed, return_predecessors, unweighted, None, dtype=dtype, backend=backend,
                  block=block, threads=threads, return_next_hop=return_next_hop, num_vertices=num_vertices,
                  overwrite=overwrite, caller="floyd_warshall")


def dijkstra(csgraph, directed=True, indices=None, return_predecessors=False, unweighted=False, limit=np.inf,
             min_only=False, *, threads=None, num_vertices=None):
    """``scipy.sparse.csgraph.dijkstra``: Dijkstra from each of ``indices`` (all vertices if None).

    ``limit``: distances above it are inf (with non-negative weights not explored, as in SciPy;
    with negative weights the exact distances are cut, never a path: a vertex beyond the limit
    keeps its predecessor where one within it is reached through it).
    ``min_only=True``: one multi-source
    run; returns the distance to each vertex from its nearest source (ties: the source listed
    first), and with ``return_predecessors`` also the predecessors and that source (each V
    entries, -9999 for none). Negative weights are solved exactly (Johnson potentials) rather than
    warned about; a negative cycle raises NegativeCycleError.
    """
    return _solve(csgraph, "D", directed, return_predecessors, unweighted, indices, limit, min_only,
                  threads=threads, num_vertices=num_vertices, caller="dijkstra")


def bellman_ford(csgraph, directed=True, indices=None, return_predecessors=False, unweighted=False, *,
                 threads=None, num_vertices=None):
    """``scipy.sparse.csgraph.bellman_ford``: one Bellman-Ford (SPFA) over the whole graph for
    potentials and negative cycles, then Dijkstra from each of ``indices``; same results."""
    return _solve(csgraph, "BF", directed, return_predecessors, unweighted, indices, threads=threads,
                  num_vertices=num_vertices, caller="bellman_ford")


def johnson(csgraph, directed=True, indices=None, return_predecessors=False, unweighted=False, *,
            threads=None, num_vertices=None):
    """``scipy.sparse.csgraph.johnson``: Johnson's algorithm (Bellman-Ford potentials, then
    Dijkstra from each of ``indices``)."""
    return _solve(csgraph, "J", directed, return_predecessors, unweighted, indices, threads=threads,
                  num_vertices=num_vertices, caller="johnson")
