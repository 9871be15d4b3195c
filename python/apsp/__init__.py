"""apsp — all-pairs shortest paths by blocked Floyd-Warshall, from NumPy and SciPy.

The main entry point, :func:`shortest_path`, follows ``scipy.sparse.csgraph.shortest_path``:
it takes a dense ndarray, any ``scipy.sparse`` matrix, an edge list ``(src, dst, weight)`` or an
:class:`apsp.Graph`, and returns a dense V x V ndarray of distances (plus SciPy-style
predecessors on request). Graphs with negative weights are solved through Johnson reweighting;
a negative cycle raises :class:`NegativeCycleError`, whose ``.cycle`` names its vertices.

Unreachable pairs
-----------------
With the default ``dtype=None`` the result is float64 and unreachable pairs are ``np.inf``,
exactly like SciPy. Integer-weighted graphs are still solved exactly in integers (int32, or
int64 when ``(V-1)*max|w|`` does not fit) and converted at the end. With ``dtype=np.int32`` or
``np.int64`` you get the solver's integer matrix itself, without a conversion copy; there an
unreachable pair holds the sentinel :data:`UNREACHABLE_INT32` (``2**30 - 1``, the NTHU course
format's value) or :data:`UNREACHABLE_INT64` (``2**62 - 1``). ``float32`` / ``float64`` results use
``inf``.

Memory
------
Inputs are read in place. A dense int32/int64/float32/float64 array is viewed as it is (any
strides) and the CPU backend builds its distance matrix straight from it; an edge-list copy (16
bytes per edge) is made only for negative weights, paths (predecessors, next hops) or a GPU/MPI
backend, and other dtypes are converted once. Edge arrays are copied once, straight into the
solver's graph (no temporary arrays). Results are NumPy views of the solver's own matrix: no copy is made except the
float64 conversion of an integer solve (``dtype=None``). A view may have a row stride larger than
V (the solver pads rows to its tile size); it is an ordinary ndarray.
"""

import numbers
import os
import sys

import numpy as np

from . import _core
from ._core import (BackendUnavailableError, Error, Graph, InputError, NegativeCycleError,
                    UNREACHABLE_INT32, UNREACHABLE_INT64)

__version__ = getattr(_core, "__version__", "unknown")

__all__ = [
    "shortest_path", "next_hop", "solve", "path", "path_from_predecessors", "Graph", "graph",
    "read", "read_matrix", "write", "generate", "backends",
    "NegativeCycleError", "InputError", "BackendUnavailableError", "Error",
    "UNREACHABLE_INT32", "UNREACHABLE_INT64", "NO_PREDECESSOR", "NO_NEXT_HOP",
]

#: SciPy's "no predecessor" value in predecessor matrices.
NO_PREDECESSOR = -9999
#: "No next hop" in next-hop matrices (j unreachable from i, or i == j).
NO_NEXT_HOP = -1

_DTYPES = ("int32", "int64", "float32", "float64")
_SCIPY_METHODS = ("auto", "FW", "D", "BF", "J")


# ---- argument checking -----------------------------------------------------------------------
def _flag(value, name):
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, numbers.Integral) and value in (0, 1):
        return bool(value)
    hint = ""
    if name == "directed" and isinstance(value, str):
        hint = " (apsp's second positional parameter is `directed`, not SciPy's `method`)"
    raise TypeError(f"{name} must be True or False, got {value!r}{hint}")


def _opt_int(value, name, minimum):
    if value is None:
        return None
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer or None, got {value!r}")
    value = int(value)
    if value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value}")
    return value


def _dtype_name(dtype):
    """None, or one of int32/int64/float32/float64 for anything np.dtype() understands."""
    if dtype is None:
        return None
    try:
        name = np.dtype(dtype).name
    except TypeError:
        raise TypeError(f"dtype must be None or one of {', '.join(_DTYPES)}, got {dtype!r}") from None
    if name not in _DTYPES:
        raise ValueError(f"unsupported dtype {name!r}: use None (float64 with inf, like SciPy) or one of "
                         f"{', '.join(_DTYPES)}")
    return name


def _backend_name(backend):
    if not isinstance(backend, str):
        raise TypeError(f"backend must be a string, got {backend!r}")
    return backend


def _numeric_array(a, name, allow_float=True):
    """a as an ndarray the C++ side reads in place (native byte order, numeric kind)."""
    arr = np.asarray(a)
    kind = arr.dtype.kind
    if kind == "f" and allow_float and arr.dtype.itemsize not in (4, 8):
        return arr.astype(np.float64)  # float16, longdouble
    if kind not in ("biuf" if allow_float else "iu"):
        what = "numbers" if allow_float else "integer vertex ids"
        raise TypeError(f"{name} must hold {what}, got dtype {arr.dtype}")
    if not arr.dtype.isnative:
        arr = arr.astype(arr.dtype.newbyteorder("="))
    return arr


# Dense dtypes the solver reads in place, and what the others become (exactly the same weights).
_DENSE_IN_PLACE = (np.dtype(np.int32), np.dtype(np.int64), np.dtype(np.float32), np.dtype(np.float64))


def _dense_array(a):
    """A dense graph as an ndarray the solver views in place (no copy for int32, int64, float32,
    float64 in native byte order, whatever the strides); other dtypes are converted, once: bool and
    integers up to 16 bits to int32, uint32 to int64, uint64 to float64 (as the solver would read
    it), float16 / longdouble to float64."""
    arr = _numeric_array(a, "graph")
    if arr.dtype in _DENSE_IN_PLACE:
        return arr
    if arr.dtype.kind == "b" or arr.dtype.itemsize <= 2:
        return arr.astype(np.int32)
    if arr.dtype == np.uint32:
        return arr.astype(np.int64)
    return arr.astype(np.float64)


def _sparse_module(obj):
    """scipy.sparse if obj is a SciPy sparse matrix/array (never imports SciPy itself)."""
    sp = sys.modules.get("scipy.sparse")
    if sp is not None and sp.issparse(obj):
        return sp
    return None


# ---- inputs -> apsp.Graph --------------------------------------------------------------------
def _graph_from_edges(src, dst, weight, num_vertices, directed, reverse, unweighted):
    src = _numeric_array(src, "src", allow_float=False)
    dst = _numeric_array(dst, "dst", allow_float=False)
    if weight is not None:
        weight = _numeric_array(weight, "weight")
        if weight.ndim == 0:
            weight = np.broadcast_to(weight, src.shape)
    n = -1 if num_vertices is None else num_vertices
    return _core.graph_from_edges(src, dst, weight, n, directed, reverse, unweighted)


def _to_graph(graph, directed, unweighted, reverse, num_vertices):
    """(apsp.Graph, V) for any accepted input; reverse=True builds the reversed graph."""
    if isinstance(graph, Graph):
        if num_vertices is not None and num_vertices != graph.num_vertices:
            raise ValueError(f"num_vertices={num_vertices} but the graph has {graph.num_vertices} vertices")
        if (graph.directed and not directed) or (reverse and graph.directed) or unweighted:
            graph = _core.transformed(graph, directed, reverse, unweighted)
        return graph, graph.num_vertices

    if isinstance(graph, tuple):
        if len(graph) not in (2, 3):
            raise ValueError(f"an edge-list tuple is (src, dst) or (src, dst, weight), got {len(graph)} items")
        src, dst = graph[0], graph[1]
        weight = graph[2] if len(graph) == 3 else None
        g = _graph_from_edges(src, dst, weight, num_vertices, directed, reverse, unweighted)
        return g, g.num_vertices

    sp = _sparse_module(graph)
    if sp is not None:
        rows, cols = graph.shape
        if rows != cols:
            raise ValueError(f"a sparse graph must be square, got shape {graph.shape}")
        if num_vertices is not None and num_vertices != rows:
            raise ValueError(f"num_vertices={num_vertices} but the matrix is {rows} x {cols}")
        if graph.format == "coo" and not getattr(graph, "has_canonical_format", False):
            # A COO matrix's duplicate entries add up (as SciPy reads them); other formats keep
            # duplicates as parallel edges, where the lightest wins (also as SciPy does).
            graph = graph.tocsr()
        coo = graph.tocoo(copy=False)  # keeps explicit zeros: they are zero-weight edges
        g = _graph_from_edges(coo.row, coo.col, coo.data, rows, directed, reverse, unweighted)
        return g, rows

    if isinstance(graph, np.ma.MaskedArray):
        # SciPy's reading: every unmasked entry is an edge, zeros included
        if graph.ndim != 2 or graph.shape[0] != graph.shape[1]:
            raise ValueError(f"a dense graph must be a square 2-D array, got shape {graph.shape}")
        src, dst = np.nonzero(~np.ma.getmaskarray(graph))
        n = graph.shape[0]
        if num_vertices is not None and num_vertices != n:
            raise ValueError(f"num_vertices={num_vertices} but the matrix is {n} x {n}")
        if n == 0:
            return None, 0
        g = _graph_from_edges(src, dst, np.ma.getdata(graph)[src, dst], n, directed, reverse, unweighted)
        return g, n

    arr = np.asarray(graph)
    if arr.ndim != 2 or arr.shape[0] != arr.shape[1]:
        raise ValueError(f"a dense graph must be a square 2-D array, got shape {arr.shape}")
    if num_vertices is not None and num_vertices != arr.shape[0]:
        raise ValueError(f"num_vertices={num_vertices} but the matrix is {arr.shape[0]} x {arr.shape[1]}")
    if arr.shape[0] == 0:
        return None, 0
    arr = _dense_array(arr)
    # Made only to be solved: solve() scans the matrix itself (NaN, range, integer-ness), so the
    # Graph skips from_dense's scan (scan=False).
    return _core.graph_from_dense(arr, directed, reverse, unweighted, False), arr.shape[0]


# ---- solving ---------------------------------------------------------------------------------
class SolveResult:
    """What :func:`solve` returns: the solver's raw output.

    Attributes: ``dist`` (V x V, the solver's dtype; integer sentinels for unreachable),
    ``next_hop`` (int32 V x V or None), ``backend``, ``block``, ``dtype`` (str), ``timings``
    (dict of seconds: build, h2d, compute, d2h), ``notes`` (list of str).
    """

    def __init__(self, dist, next_hop, info):
        self.dist = dist
        self.next_hop = next_hop
        self.backend = info["backend"]
        self.block = info["block"]
        self.dtype = info["dtype"]
        self.timings = info["timings"]
        self.notes = info["notes"]

    def __repr__(self):
        return (f"SolveResult(V={self.dist.shape[0]}, dtype={self.dtype}, backend={self.backend!r}, "
                f"block={self.block}, compute={self.timings['compute']:.6f}s)")


def _run(g, backend, dtype, block, threads, paths):
    dist, nxt, info = _core.solve(g, backend, dtype, 0 if block is None else block,
                                  0 if threads is None else threads, paths)
    return dist, nxt, info


def _check_common(directed, unweighted, dtype, backend, block, threads, num_vertices):
    return (_flag(directed, "directed"), _flag(unweighted, "unweighted"), _dtype_name(dtype),
            _backend_name(backend), _opt_int(block, "block", 1), _opt_int(threads, "threads", 0),
            _opt_int(num_vertices, "num_vertices", 0))


def solve(graph, directed=True, unweighted=False, dtype=None, backend="auto", block=None, *,
          paths=False, num_vertices=None, threads=None):
    """Runs the solver and returns a :class:`SolveResult` with its raw output and timings.

    Takes the same inputs as :func:`shortest_path`. ``dtype=None`` lets the solver choose (int32
    for integer weights, int64 if int32 cannot be exact, float64 for fractional weights); the
    distances are NOT converted, so integer results hold the unreachable sentinel.
    """
    directed, unweighted, dtype, backend, block, threads, num_vertices = _check_common(
        directed, unweighted, dtype, backend, block, threads, num_vertices)
    g, n = _to_graph(graph, directed, unweighted, False, num_vertices)
    if n == 0:
        raise ValueError("the graph has no vertices")
    return SolveResult(*_run(g, backend, dtype, block, threads, _flag(paths, "paths")))


def _finish_dist(dist, dtype):
    if dtype is None and dist.dtype != np.float64:
        return _core.to_float64(dist)
    return dist


def _with_reversed_cycle(err):
    """A NegativeCycleError from the reversed graph, re-raised with the cycle in graph order."""
    if err.cycle is not None:
        cycle = list(reversed(err.cycle))
        new = NegativeCycleError(str(err))
        new.cycle = cycle
        return new
    return err


def shortest_path(graph, directed=True, unweighted=False, return_predecessors=False, dtype=None,
                  backend="auto", block=None, *, return_next_hop=False, num_vertices=None,
                  indices=None, threads=None, method=None, overwrite=False):
    """All-pairs shortest path lengths, in the manner of ``scipy.sparse.csgraph.shortest_path``.

    Parameters
    ----------
    graph : ndarray, scipy.sparse matrix, tuple or apsp.Graph
        * dense array-like, V x V: ``graph[i, j]`` is the weight of edge i -> j; **0 and inf mean
          "no edge"** (as in SciPy; a zero-weight edge needs one of the other forms). An int32,
          int64, float32 or float64 array is read in place, any strides (the cpu backend fills its
          matrix from it, cuda and multi-gpu upload its rows, next hops read its edges in place);
          it is copied into an edge list only for negative weights and the mpi backend.
        * any ``scipy.sparse`` matrix or array: every stored entry is an edge, **explicit zeros are
          zero-weight edges**; duplicates of a COO matrix add up, parallel entries of other formats
          keep the lightest (both as SciPy reads them).
        * ``(src, dst, weight)`` or ``(src, dst)`` tuple of 1-D arrays: edge i goes src[i] -> dst[i];
          duplicate edges keep the lightest; V is ``num_vertices`` or ``max(id) + 1``. Weight +inf
          means "no edge".
        * a ``numpy.ma`` masked array: every unmasked entry is an edge, zeros included (as SciPy).
        * an :class:`apsp.Graph` (from :func:`read`, :func:`generate` or :func:`graph`); one read
          or generated as undirected stays undirected whatever ``directed`` says.
        NaN weights are refused (ValueError). Negative weights are fine (Johnson reweighting)
        unless they close a negative cycle.
    directed : bool
        False: every edge can be walked both ways (a negative edge is then a negative cycle).
    unweighted : bool
        True: count edges (every edge has weight 1).
    return_predecessors : bool
        Also return the V x V int32 predecessor matrix: ``pred[i, j]`` is the vertex before j on
        a shortest i -> j path, -9999 (:data:`NO_PREDECESSOR`) when there is none or i == j.
    dtype : None, np.int32, np.int64, np.float32 or np.float64 (or their names)
        None (default): float64 with ``np.inf`` for unreachable, like SciPy, computed exactly in
        integers when the weights are integers. An explicit type returns the solver's matrix as is:
        integer types mark unreachable with :data:`UNREACHABLE_INT32` (2**30-1) or
        :data:`UNREACHABLE_INT64` (2**62-1). int32 is refused when ``(V-1)*max|w|`` could reach
        2**30-1, integer types when a weight is fractional.
    backend : str
        "auto" (a GPU when usable, else the CPU), "cpu", "cuda", "multi-gpu", "mpi"; see
        :func:`backends`.
    block : int or None
        Tile size; None lets the backend choose.
    return_next_hop : bool (keyword)
        Also return the int32 next-hop matrix: ``next[i, j]`` is the vertex after i on a shortest
        i -> j path, -1 when there is none or i == j. Walk it with :func:`path`.
    num_vertices : int (keyword)
        V for an edge-list tuple (needed when the highest vertices have no edges).
    indices : int or array of ints (keyword)
        Return only these rows (like SciPy; all pairs are still solved).
    threads : int (keyword)
        CPU threads; None = all.
    method, overwrite : (keyword)
        Accepted for SciPy compatibility and ignored (method: "auto", "FW", "D", "BF", "J"); the
        input is never modified.

    Returns
    -------
    dist : ndarray, V x V (or rows of ``indices``)
    predecessors : int32 ndarray, if ``return_predecessors``
    next_hop : int32 ndarray, if ``return_next_hop`` (after predecessors when both)

    Raises
    ------
    NegativeCycleError (a ValueError) with ``.cycle``; ValueError / TypeError for bad arguments;
    MemoryError when the V x V matrix does not fit; BackendUnavailableError (a RuntimeError).
    """
    directed, unweighted, dtype, backend, block, threads, num_vertices = _check_common(
        directed, unweighted, dtype, backend, block, threads, num_vertices)
    want_pred = _flag(return_predecessors, "return_predecessors")
    want_next = _flag(return_next_hop, "return_next_hop")
    if method is not None and method not in _SCIPY_METHODS:
        raise ValueError(f"unknown method {method!r} (accepted for SciPy compatibility: {', '.join(_SCIPY_METHODS)})")

    # Predecessors are the next hops of the reversed graph, transposed. Solving the reversed
    # graph gives the transposed distances too, so one solve answers both.
    g, n = _to_graph(graph, directed, unweighted, want_pred, num_vertices)
    if n == 0:
        out = [np.zeros((0, 0), dtype=np.float64 if dtype is None else dtype)]
        out += [np.zeros((0, 0), dtype=np.int32)] * (want_pred + want_next)
        return out[0] if len(out) == 1 else tuple(out)

    rows = None
    if indices is not None:
        rows = np.asarray(indices)
        if rows.dtype.kind not in "iu":
            raise TypeError(f"indices must be integers, got dtype {rows.dtype}")
        if rows.size and (rows.min() < 0 or rows.max() >= n):
            raise ValueError(f"indices must be in 0..{n - 1}")

    pred = nxt = None
    if want_pred:
        try:
            dist, pred, _ = _run(g, backend, dtype, block, threads, True)
        except NegativeCycleError as err:
            raise _with_reversed_cycle(err) from None
        if g.directed:  # undirected distances are symmetric already
            _core.transpose_square(dist)
        _core.predecessors_from_reversed_next(pred)
        if want_next:
            g_fwd, _ = _to_graph(graph, directed, unweighted, False, num_vertices)
            _, nxt, _ = _run(g_fwd, backend, dtype, block, threads, True)
    else:
        dist, nxt, _ = _run(g, backend, dtype, block, threads, want_next)
    dist = _finish_dist(dist, dtype)

    out = [dist]
    if want_pred:
        out.append(pred)
    if want_next:
        out.append(nxt)
    if rows is not None:
        out = [a[rows] for a in out]
    return out[0] if len(out) == 1 else tuple(out)


def next_hop(graph, directed=True, unweighted=False, dtype=None, backend="auto", block=None, **kwargs):
    """``shortest_path(..., return_next_hop=True)``: returns ``(dist, next_hop)``.

    ``next_hop[i, j]`` is the vertex after i on a shortest i -> j path, -1 when j is unreachable
    from i or i == j. ``path(next_hop, i, j)`` lists the vertices of that path.
    """
    return shortest_path(graph, directed, unweighted, False, dtype, backend, block,
                         return_next_hop=True, **kwargs)


# ---- paths -----------------------------------------------------------------------------------
def _vertex(v, n, name):
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, numbers.Integral):
        raise TypeError(f"{name} must be an integer vertex id, got {v!r}")
    v = int(v)
    if not 0 <= v < n:
        raise ValueError(f"{name} = {v} is out of range 0..{n - 1}")
    return v


def _square(m, name):
    m = np.asarray(m)
    if m.ndim != 2 or m.shape[0] != m.shape[1]:
        raise ValueError(f"{name} must be a square matrix, got shape {m.shape}")
    if m.dtype.kind not in "iu":
        raise TypeError(f"{name} must be an integer matrix, got dtype {m.dtype}")
    return m


def path(next_hop, i, j):
    """Vertices of a shortest i -> j path read from a next-hop matrix: ``[i, ..., j]``;
    ``[i]`` when i == j; ``[]`` when j is unreachable from i."""
    nh = _square(next_hop, "next_hop")
    n = nh.shape[0]
    i, j = _vertex(i, n, "i"), _vertex(j, n, "j")
    p = [i]
    v = i
    while v != j:
        v = int(nh[v, j])
        if v < 0:
            return []
        if v >= n or len(p) > n:
            raise ValueError(f"next_hop is not a valid next-hop matrix (walking {i} -> {j} does not reach {j})")
        p.append(v)
    return p


def path_from_predecessors(predecessors, i, j):
    """Vertices of the shortest i -> j path read from a SciPy-style predecessor matrix."""
    pr = _square(predecessors, "predecessors")
    n = pr.shape[0]
    i, j = _vertex(i, n, "i"), _vertex(j, n, "j")
    p = [j]
    v = j
    while v != i:
        v = int(pr[i, v])
        if v < 0:
            return []
        if v >= n or len(p) > n:
            raise ValueError(f"predecessors is not a valid predecessor matrix (walking back from {j} does not reach {i})")
        p.append(v)
    return p[::-1]


# ---- graphs, files, generators -------------------------------------------------------------
def graph(src, dst, weight=None, num_vertices=None, directed=True):
    """An :class:`apsp.Graph` from edge arrays (copied once into the graph's int32/float64 vectors)."""
    num_vertices = _opt_int(num_vertices, "num_vertices", 1)
    return _graph_from_edges(src, dst, weight, num_vertices, _flag(directed, "directed"), False, False)


_INPUT_FORMATS = ("nthu", "dimacs", "mtx", "edgelist")
_MATRIX_FORMATS = ("nthu", "npy", "text")
_GRAPH_FORMATS = ("nthu", "edgelist")


def _path_arg(path):
    return os.fspath(path)


def read(path, format=None, undirected=False):
    """Reads a graph file into an :class:`apsp.Graph`.

    ``format``: None (by extension: .gr DIMACS, .mtx Matrix Market, .txt/.csv/.tsv/.el edge
    list, anything else NTHU binary) or one of "nthu", "dimacs", "mtx", "edgelist".
    ``g.src``, ``g.dst``, ``g.weight``, ``g.num_vertices`` give the edges as arrays.
    Raises FileNotFoundError, or :class:`InputError` (a ValueError) naming the file and the offset
    or line of malformed content.
    """
    path = _path_arg(path)
    if format is not None and format not in _INPUT_FORMATS:
        raise ValueError(f"unknown graph format {format!r} (expected one of {', '.join(_INPUT_FORMATS)})")
    if not os.path.exists(path):
        raise FileNotFoundError(f"no such file: {path!r}")
    return _core.read_graph(path, format or "auto", _flag(undirected, "undirected"))


def read_matrix(path, format=None):
    """Reads a result matrix written by :func:`write` / the CLI (NTHU int32 V*V, or .npy)."""
    path = _path_arg(path)
    if format is not None and format not in ("nthu", "npy"):
        raise ValueError(f"unknown matrix format {format!r} (expected nthu or npy)")
    if not os.path.exists(path):
        raise FileNotFoundError(f"no such file: {path!r}")
    return _core.read_matrix(path, format or "auto")


def write(path, obj, format=None):
    """Writes a distance matrix (2-D array) or an :class:`apsp.Graph` to ``path``.

    Matrices: ``format`` None (by extension: .npy NumPy, .txt text, else NTHU binary) or "nthu",
    "npy", "text". NTHU output is V*V int32 with 1073741823 for unreachable: a float matrix is
    converted (inf -> 1073741823) when every finite value is an integer below that, else refused.
    Graphs: "nthu" (default) or "edgelist" (default for .txt/.el/.csv/.tsv).
    The file is written to a temporary name and renamed only on success.
    """
    path = _path_arg(path)
    if isinstance(obj, Graph):
        if format is None:
            format = "edgelist" if os.path.splitext(path)[1].lower() in (".txt", ".el", ".csv", ".tsv") else "nthu"
        if format not in _GRAPH_FORMATS:
            raise ValueError(f"unknown graph format {format!r} (expected one of {', '.join(_GRAPH_FORMATS)})")
        _core.write_graph(path, obj, format)
        return
    if format is not None and format not in _MATRIX_FORMATS:
        raise ValueError(f"unknown matrix format {format!r} (expected one of {', '.join(_MATRIX_FORMATS)})")
    m = np.asarray(obj)
    if m.ndim != 2:
        raise ValueError(f"matrix must be 2-D, got shape {m.shape}")
    fmt = format
    if fmt is None:
        ext = os.path.splitext(path)[1].lower()
        fmt = "npy" if ext == ".npy" else "text" if ext == ".txt" else "nthu"
    if fmt == "nthu" and m.dtype.kind == "f":
        m = _float_to_nthu(m)
    elif m.dtype.kind in "biu" and m.dtype not in (np.int32, np.int64):
        m = m.astype(np.int64)
    elif m.dtype.kind == "f" and m.dtype not in (np.float32, np.float64):
        m = m.astype(np.float64)
    elif m.dtype.kind not in "iuf":
        raise TypeError(f"matrix must hold numbers, got dtype {m.dtype}")
    _core.write_matrix(path, m, fmt)


def _float_to_nthu(m):
    finite = np.isfinite(m)
    vals = m[finite]
    if np.isnan(m).any() or (vals.size and (np.any(vals != np.floor(vals)) or vals.max() >= UNREACHABLE_INT32
                                            or vals.min() <= -2**31)):
        raise ValueError("NTHU output holds int32 distances: the matrix has NaN, fractional or too large values")
    out = np.where(finite, m, UNREACHABLE_INT32).astype(np.int32)
    out[np.isneginf(m)] = UNREACHABLE_INT32  # not reachable either way; -inf never comes from a solve
    return out


def generate(kind, *, n=None, m=None, scale=None, rows=None, cols=None, wmin=0, wmax=1000, seed=1):
    """A deterministic random graph (same seed -> same graph) as an :class:`apsp.Graph`.

    * ``generate("uniform", n=V, m=E)``: course-like directed graph, E distinct pairs, no self loops.
    * ``generate("rmat", scale=S, m=E)``: R-MAT graph with 2**S vertices.
    * ``generate("grid", rows=R, cols=C)``: 4-neighbour grid, both directions.
    Weights are uniform integers in [wmin, wmax].
    """
    def need(value, name):
        if value is None:
            raise TypeError(f"generate({kind!r}) needs {name}=")
        return _opt_int(value, name, 0)

    wmin = _opt_int(wmin, "wmin", -2**31)
    wmax = _opt_int(wmax, "wmax", -2**31)
    if wmin > wmax:
        raise ValueError(f"wmin = {wmin} > wmax = {wmax}")
    seed = _opt_int(seed, "seed", 0)
    if kind == "uniform":
        return _core.generate_uniform(need(n, "n"), need(m, "m"), wmin, wmax, seed)
    if kind == "rmat":
        return _core.generate_rmat(need(scale, "scale"), need(m, "m"), wmin, wmax, seed)
    if kind == "grid":
        return _core.generate_grid(need(rows, "rows"), need(cols, "cols"), wmin, wmax, seed)
    raise ValueError(f"unknown generator {kind!r} (expected uniform, rmat or grid)")


def backends():
    """The backends of this build: a list of dicts with name, built, usable, detail."""
    return _core.backends()
