"""apsp — all-pairs shortest paths by blocked Floyd-Warshall, from NumPy and SciPy.

The entry points are those of ``scipy.sparse.csgraph``, with SciPy's signatures:
:func:`shortest_path`, :func:`floyd_warshall`, :func:`dijkstra`, :func:`bellman_ford`,
:func:`johnson` (``apsp.csgraph`` has the same names reading every input as SciPy does: a tuple
as a matrix, dense ``|w| <= 1e-8`` as no edge). They take a dense ndarray, a masked array, any
``scipy.sparse`` matrix, an edge list ``(src, dst, weight)`` or an :class:`apsp.Graph`. Whole
V x V matrices come from apsp's blocked Floyd-Warshall (CPU or GPU); a few rows (``indices=``),
``limit=`` and ``min_only=`` from a per-source Dijkstra over the CPU threads. Negative weights are
solved through Johnson reweighting; a negative cycle raises :class:`NegativeCycleError` (also
catchable as SciPy's), whose ``.cycle`` names its vertices. apsp's own options (``dtype=``,
``backend=``, ``block=``, ``threads=``, ...) are keyword-only.

Graph metrics with NetworkX's names and definitions (:func:`closeness_centrality`,
:func:`harmonic_centrality`, :func:`eccentricity`, :func:`diameter`, :func:`radius`,
:func:`average_shortest_path_length`, and :func:`metrics` for several from one solve) reduce the
distances as the solver produces them, without returning the V x V matrix (docs/metrics.md).

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
solver's graph (no temporary arrays). Results are C-contiguous NumPy arrays over the solver's own
matrix (its padded rows moved together in place): no copy is made except the float64 conversion of
an integer solve (``dtype=None``).
"""

import numbers
import os

import numpy as np

from . import _core, _csgraph, _inputs
from ._core import (BackendUnavailableError, DeviceArray, Error, Graph, InputError,
                    NegativeCycleError, UNREACHABLE_INT32, UNREACHABLE_INT64)
from ._csgraph import (NO_PREDECESSOR, bellman_ford, dijkstra, floyd_warshall, johnson,
                       shortest_path)
from ._metrics import (average_shortest_path_length, closeness_centrality, diameter, eccentricity,
                       harmonic_centrality, metrics, radius)
from ._metrics import distance_histogram  # noqa: E402 (issue 34)
from ._inputs import dense_array as _dense_array  # noqa: F401 (tests look at it)
from ._batch import batch  # noqa: E402  (many graphs at once: docs/batch.md)
from ._explain import explain  # noqa: E402  (the solver's plan, without the rounds)
from ._dlpack import accepting_tensors as _accepting_tensors
shortest_path = _accepting_tensors(shortest_path)  # tensors in, tensors out (docs/batch.md)
from . import csgraph  # noqa: E402  (apsp.csgraph: SciPy's names)

__version__ = getattr(_core, "__version__", "unknown")

__all__ = [
    "shortest_path", "floyd_warshall", "dijkstra", "bellman_ford", "johnson", "batch",
    "next_hop", "solve", "plan", "explain", "solve_file", "SolveResult", "path", "path_from_predecessors", "Graph", "graph",
    "read", "read_matrix", "write", "generate", "backends", "DeviceArray",
    "metrics", "closeness_centrality", "harmonic_centrality", "eccentricity", "diameter", "radius",
    "average_shortest_path_length", "distance_histogram",
    "NegativeCycleError", "InputError", "BackendUnavailableError", "Error",
    "UNREACHABLE_INT32", "UNREACHABLE_INT64", "NO_PREDECESSOR", "NO_NEXT_HOP",
]


def __dir__():
    """dir(apsp): the API (``__all__``), the version and the csgraph namespace; no helpers."""
    return sorted(__all__ + ["__version__", "csgraph"])


#: "No next hop" in next-hop matrices (j unreachable from i, or i == j).
NO_NEXT_HOP = -1


# ---- solving ---------------------------------------------------------------------------------
class SolveResult:
    """What :func:`solve` returns: the solver's raw output.

    Attributes: ``dist`` (V x V, the solver's dtype; integer sentinels for unreachable),
    ``next_hop`` (int32 V x V or None), ``backend``, ``block``, ``dtype`` (str), ``rounds`` (str:
    the type the rounds ran in, e.g. "int32 (checked; bound asked int64)" for an int64 result
    proven exact in int32 rounds), ``timings`` (dict of seconds: build, h2d, compute, d2h),
    ``notes`` (list of str).
    """

    def __init__(self, dist, next_hop, info):
        self.dist = dist
        self.next_hop = next_hop
        self.backend = info["backend"]
        self.block = info["block"]
        self.dtype = info["dtype"]
        self.rounds = info["rounds"]
        self.timings = info["timings"]
        self.notes = info["notes"]
        self.order = info["order"]  # "none", "nd", or for auto "none (auto: why)" / "nd (auto)"
        self.work_fraction = info["work_fraction"]  # updates run / the dense rounds' n^3

    def __repr__(self):
        return (f"SolveResult(V={self.dist.shape[0]}, dtype={self.dtype}, rounds={self.rounds!r}, backend={self.backend!r}, "
                f"block={self.block}, compute={self.timings['compute']:.6f}s)")


def solve(graph, directed=True, unweighted=False, dtype=None, backend="auto", block=None, *,
          paths=False, num_vertices=None, threads=None, order="auto", plan=None,
          device_result=False):
    """Runs the Floyd-Warshall solver and returns a :class:`SolveResult` with its raw output.

    Takes the same inputs as :func:`shortest_path`. ``dtype=None`` lets the solver choose (int32
    for integer weights, int64 if int32 cannot be exact, float64 for fractional weights or whole
    numbers too large for int64); the distances are NOT converted, so integer results hold the
    unreachable sentinel. ``order`` is the vertex order of the rounds: "auto", "none", "nd"
    (nested dissection with tile skipping, for sparse graphs) or "sn" (the sparse direct engine:
    supernodal factorization, then every row; cpu and cuda backends; docs/sparse.md). ``plan``
    (from :func:`plan`) runs that engine with a plan made earlier for the same vertices and arcs
    (new weights: no ordering again). ``device_result=True`` leaves the distances in the GPU's
    memory (``backend="cuda"``, the sparse direct engine, non-negative weights, no paths), as
    PATHPACK.jl's GPU results: ``result.dist`` is then an ``apsp.DeviceArray`` that
    ``torch.from_dlpack``, ``cupy.from_dlpack`` or ``cupy.asarray`` take without a copy, and
    ``result.dist.numpy()`` downloads.
    """
    if order not in ("auto", "none", "nd", "sn"):
        raise ValueError(f"order must be 'auto', 'none', 'nd' or 'sn', got {order!r}")
    directed, unweighted, dtype, backend, block, threads, num_vertices = _inputs.check_common(
        directed, unweighted, dtype, backend, block, threads, num_vertices)
    paths = _inputs.flag(paths, "paths")
    inp = _inputs.inspect(graph, num_vertices, "solve")
    device_result = _inputs.flag(device_result, "device_result")
    if inp.n is not None and not device_result:
        _inputs.check_memory(inp.n * inp.n * (np.dtype(dtype).itemsize if dtype else 4), f"V = {inp.n}: the result")
    g, n = _inputs.read_graph(inp, directed, unweighted, False, num_vertices)
    dtype = _inputs.auto_dtype(inp, n, dtype)
    if plan is not None and not isinstance(plan, _core.SparsePlan):
        raise TypeError(f"plan must come from apsp.plan(), got {type(plan).__name__}")
    return SolveResult(*_csgraph.run(g, backend, dtype, block, threads, paths, info=True, order=order,
                                     plan=plan, keep_on_device=device_result))


def plan(graph, directed=True, unweighted=False, *, num_vertices=None):
    """The sparse direct engine's plan for ``graph``'s structure (minimum-degree ordering, its
    supernodes and symbolic analysis; weights ignored), for ``solve(..., plan=p)`` on graphs with the same vertices and
    arcs and any weights, as PATHPACK.jl's ``apsp_plan`` (docs/sparse.md). The object says its
    ``vertices``, ``supernodes``, ``work_fraction`` (of V^3) and ``seconds``."""
    directed, unweighted, _, _, _, _, num_vertices = _inputs.check_common(
        directed, unweighted, None, "auto", None, None, num_vertices)
    inp = _inputs.inspect(graph, num_vertices, "plan")
    g, _ = _inputs.read_graph(inp, directed, unweighted, False, num_vertices)
    return _core.plan_sparse(g)


def solve_file(input, output, *, format=None, output_format=None, undirected=False, num_vertices=None,
               dtype=None, backend="auto", block=None, threads=None, paths=False):
    """Reads the graph file ``input``, solves it and writes the distance matrix to ``output``.

    The pipeline of ``apsp solve IN OUT`` (docs/architecture.md): GPU start-up overlaps the read,
    the result streams to the file as the backend hands it out, and the file appears only when
    complete. ``format``: the input's (as :func:`read`); ``output_format``: None (by the name:
    .npy, .txt/.csv/.tsv, else NTHU binary int32), "nthu", "npy" or "text". ``paths=True`` also
    writes the next hops beside it (OUT.next, or STEM.next.npy), both with one modification time
    (``apsp path`` checks it); without it, the next-hop file of the OUT being replaced (the one with
    OUT's time to the nanosecond) is removed (docs/paths.md). Returns a dict: backend, dtype,
    block, rounds, vertices, edges, notes and timings (read, build, h2d, compute, d2h, write).
    """
    input, output = _path_arg(input), _path_arg(output)
    if format is not None and format not in _INPUT_FORMATS:
        raise ValueError(f"unknown graph format {format!r} (expected one of {', '.join(_INPUT_FORMATS)})")
    if output_format is not None and output_format not in ("nthu", "npy", "text"):
        raise ValueError(f"unknown output format {output_format!r} (expected nthu, npy or text)")
    if not os.path.exists(input):
        raise FileNotFoundError(f"no such file: {input!r}")
    _, _, dtype, backend, block, threads, num_vertices = _inputs.check_common(
        True, False, dtype, backend, block, threads, num_vertices)
    try:
        return _core.solve_file(_fs(input), _fs(output), backend, dtype, 0 if block is None else block,
                                0 if threads is None else threads, _inputs.flag(paths, "paths"),
                                format or "auto", output_format or "auto",
                                _inputs.flag(undirected, "undirected"), num_vertices or 0)
    except NegativeCycleError as err:  # SciPy-catchable, as solve() raises it
        raise _inputs.negative_cycle(err) from None


def next_hop(graph, directed=True, unweighted=False, dtype=None, backend="auto", block=None, **kwargs):
    """``shortest_path(..., return_next_hop=True)``: returns ``(dist, next_hop)``.

    ``next_hop[i, j]`` is the vertex after i on a shortest i -> j path, -1 when j is unreachable
    from i or i == j. ``path(next_hop, i, j)`` lists the vertices of that path.
    """
    return _csgraph.native_shortest_path(graph, "auto", directed, False, unweighted, dtype=dtype,
                                         backend=backend, block=block, return_next_hop=True,
                                         **kwargs)


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
    num_vertices = _inputs.opt_int(num_vertices, "num_vertices", 1)
    return _inputs.graph_from_edges(src, dst, weight, num_vertices, _inputs.flag(directed, "directed"))


_INPUT_FORMATS = ("nthu", "dimacs", "mtx", "edgelist")
_MATRIX_FORMATS = ("nthu", "npy", "text")
_GRAPH_FORMATS = ("nthu", "dimacs", "mtx", "edgelist")


def _path_arg(path):
    return os.fspath(path)


def _fs(path):
    """A path as the native layer takes it: bytes in the file system's encoding, so that names
    that are not UTF-8 (Python holds their bytes as surrogate escapes) reach the files they name."""
    return os.fsencode(path)


def read(path, format=None, undirected=False, *, num_vertices=None):
    """Reads a graph file into an :class:`apsp.Graph`.

    ``format``: None (by name: .gr DIMACS, .mtx Matrix Market, .txt/.csv/.tsv/.el/.wel edge
    list, each also .gz; any other name by content, docs/io.md) or one of "nthu", "dimacs",
    "mtx", "edgelist". ``num_vertices``: the vertex count when the file cannot tell it (an edge
    list whose highest-numbered vertices are isolated); None = from the file.
    ``g.src``, ``g.dst``, ``g.weight``, ``g.num_vertices`` give the edges as arrays.
    Raises FileNotFoundError, or :class:`InputError` (a ValueError) naming the file and the offset
    or line of malformed content.
    """
    path = _path_arg(path)
    if format is not None and format not in _INPUT_FORMATS:
        raise ValueError(f"unknown graph format {format!r} (expected one of {', '.join(_INPUT_FORMATS)})")
    if not os.path.exists(path):
        raise FileNotFoundError(f"no such file: {path!r}")
    if num_vertices is not None and (isinstance(num_vertices, bool) or int(num_vertices) != num_vertices
                                     or num_vertices < 1):
        raise ValueError(f"num_vertices={num_vertices!r}: expected a positive integer or None")
    return _core.read_graph(_fs(path), format or "auto", _inputs.flag(undirected, "undirected"),
                            0 if num_vertices is None else int(num_vertices))


def read_matrix(path, format=None):
    """Reads a result matrix written by :func:`write` / the CLI (NTHU int32 V*V, or .npy)."""
    path = _path_arg(path)
    if format is not None and format not in ("nthu", "npy"):
        raise ValueError(f"unknown matrix format {format!r} (expected nthu or npy)")
    if not os.path.exists(path):
        raise FileNotFoundError(f"no such file: {path!r}")
    return _core.read_matrix(_fs(path), format or "auto")


def write(path, obj, format=None):
    """Writes a distance matrix (2-D array) or an :class:`apsp.Graph` to ``path``.

    Matrices: ``format`` None (by extension, as ``apsp solve IN OUT`` names its output: .npy
    NumPy; .txt/.csv/.tsv text, values separated by a space, a comma, a tab; .bin, .out, .nthu,
    .next, numeric extensions and none NTHU binary; any other extension is a ValueError) or
    "nthu", "npy", "text" under any name. NTHU output is V*V int32 (square matrices only) with
    1073741823 for unreachable: a float matrix is converted (inf -> 1073741823) when every
    finite value is an integer below that, else refused.
    Graphs: ``format`` None (by name, as ``apsp generate``: .gr DIMACS, .mtx Matrix Market,
    .txt/.el/.wel/.csv/.tsv edge list, each also .gz; NTHU binary otherwise) or "nthu", "dimacs",
    "mtx", "edgelist".
    The file is written to a temporary name and renamed only on success.
    """
    path = _path_arg(path)
    if isinstance(obj, Graph):
        if format is None and os.path.splitext(path)[1].lower() in (".npy", ".npz"):
            raise ValueError(f"{path}: a Graph is written as NTHU binary or an edge list (.bin, .txt, .csv, ...), "
                             f"not .npy; for a .npy file write its distances: "
                             f"apsp.write({path!r}, apsp.shortest_path(graph))")
        if format is None:
            named = _core.graph_format_named(_fs(path))
            format = "nthu" if named == "auto" else named
        if format not in _GRAPH_FORMATS:
            raise ValueError(f"unknown graph format {format!r} (expected one of {', '.join(_GRAPH_FORMATS)})")
        _core.write_graph(_fs(path), obj, format)
        return
    if format is not None and format not in _MATRIX_FORMATS:
        raise ValueError(f"unknown matrix format {format!r} (expected one of {', '.join(_MATRIX_FORMATS)})")
    m = np.asarray(obj)
    if m.ndim != 2:
        raise ValueError(f"matrix must be 2-D, got shape {m.shape}")
    fmt = format
    if fmt is None:
        try:
            fmt = _core.output_format_for(_fs(path))  # the CLI's rule for OUT
        except ValueError as e:
            raise ValueError(str(e).replace("use --output-format nthu|npy|text",
                                            "pass format='nthu', 'npy' or 'text'")) from None
    if fmt == "nthu" and m.shape[0] != m.shape[1]:
        raise ValueError(f"{path}: NTHU output is a V x V matrix (its size tells V), got shape "
                         f"{m.shape}; write other shapes as .npy or text")
    if fmt == "nthu" and m.dtype.kind == "f":
        m = _float_to_nthu(m)
    elif m.dtype.kind in "biu" and m.dtype not in (np.int32, np.int64):
        m = m.astype(np.int64)
    elif m.dtype.kind == "f" and m.dtype not in (np.float32, np.float64):
        m = m.astype(np.float64)
    elif m.dtype.kind not in "iuf":
        raise TypeError(f"matrix must hold numbers, got dtype {m.dtype}")
    _core.write_matrix(_fs(path), m, fmt)


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
        return _inputs.opt_int(value, name, 0)

    wmin = _inputs.opt_int(wmin, "wmin", -2**31)
    wmax = _inputs.opt_int(wmax, "wmax", -2**31)
    if wmin > wmax:
        raise ValueError(f"wmin = {wmin} > wmax = {wmax}")
    seed = _inputs.opt_int(seed, "seed", 0)
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

from . import networkx  # noqa: E402,F401  (apsp.networkx: NetworkX-shaped functions; imports NetworkX lazily)
