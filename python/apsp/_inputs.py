"""Argument checks and graph inputs of the apsp package (internal).

Every accepted input (dense array-like, masked array, any scipy.sparse matrix, an edge-list tuple,
an apsp.Graph) is first measured without reading its entries (:func:`inspect`: V and a memory
check), then scanned once (:func:`scan`: edge count, negative weights, SciPy's dense "no edge"
entries NaN / -inf), then made into an apsp.Graph for the solver (:func:`to_graph`).
"""

import numbers
import os
import sys

import numpy as np

from . import _core
from ._core import Graph, NegativeCycleError

_DTYPES = ("int32", "int64", "float32", "float64")
#: The largest tile edge accepted by block= (the backends use 32..256; beyond this the padding
#: alone could exhaust memory).
MAX_BLOCK = 4096
_INT64_EXACT = 2**62 - 1  # the solver's int64 bound on (V-1) * max|w|
_WEIGHT_EXACT = 2**53  # the largest |w| of an integer weight: beyond, float64 weights round it


# ---- argument checking -----------------------------------------------------------------------
def flag(value, name):
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, numbers.Integral) and value in (0, 1):
        return bool(value)
    raise TypeError(f"{name} must be True or False, got {value!r}")


def opt_int(value, name, minimum, maximum=None):
    if value is None:
        return None
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer or None, got {value!r}")
    value = int(value)
    if value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value}")
    if maximum is not None and value > maximum:
        raise ValueError(f"{name} must be <= {maximum}, got {value}")
    return value


def threads_arg(value):
    """None (all CPUs) or 1..max_threads(); more would only exhaust the thread stacks."""
    if value is None:
        return None
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise TypeError(f"threads must be an integer or None, got {value!r}")
    value, most = int(value), _core.max_threads()
    if value < 1:
        raise ValueError(f"threads must be >= 1 (or None for every CPU), got {value}")
    if value > most:
        raise ValueError(f"threads={value} is more than this machine can use (at most {most}: 4 per CPU); "
                         f"pass threads=None for every CPU")
    return value


def block_arg(value):
    return opt_int(value, "block", 1, MAX_BLOCK)


def dtype_name(dtype):
    """None, or one of int32/int64/float32/float64 for anything np.dtype() understands."""
    if dtype is None:
        return None
    try:
        name = np.dtype(dtype).name
    except TypeError:
        raise TypeError(f"dtype= must be None or one of {', '.join(_DTYPES)}, got {dtype!r}") from None
    if name not in _DTYPES:
        raise ValueError(f"unsupported dtype {name!r}: use dtype=None (float64 with inf, like SciPy) or one of "
                         f"{', '.join(_DTYPES)}")
    return name


def backend_name(backend):
    if not isinstance(backend, str):
        raise TypeError(f"backend= must be a string, got {backend!r}")
    return backend


def check_common(directed, unweighted, dtype, backend, block, threads, num_vertices):
    return (flag(directed, "directed"), flag(unweighted, "unweighted"), dtype_name(dtype),
            backend_name(backend), block_arg(block), threads_arg(threads),
            opt_int(num_vertices, "num_vertices", 0))


# ---- negative cycles: catchable as SciPy's class too -------------------------------------------
_COMPAT_CLASSES = {}


def _reduce_error(self):
    """__reduce__ of the exception classes made at run time (SciPy's / NetworkX's class too): they
    cannot be pickled by name, as no module attribute holds them, so an instance pickles as the
    recipe to make it again. The other side imports SciPy / NetworkX if it has not (they were
    importable where the exception was raised) and gets the same class, message and .cycle."""
    return (_rebuild_error, (type(self)._apsp_pickle_kind, self.args, dict(self.__dict__)))


def error_class(kind):
    """The exception class named by `kind`, importing what it needs: "scipy" (apsp's and SciPy's
    NegativeCycleError), "networkx" (networkx.NetworkXUnbounded and apsp's), "networkx+scipy" (all
    three). Where SciPy cannot be imported, the class is apsp's without SciPy's base."""
    if kind.endswith("scipy"):
        try:
            import scipy.sparse.csgraph  # noqa: F401  (the only way to name SciPy's class)
        except ImportError:
            pass
    apsp_cls = negative_cycle_class() if kind.endswith("scipy") else NegativeCycleError
    if kind.startswith("networkx"):
        return unbounded_class(apsp_cls)
    if kind != "scipy":
        raise ValueError(f"unknown apsp exception kind {kind!r}")
    return apsp_cls


def networkx_module():
    """The networkx module, imported on first use (ImportError naming the package if missing)."""
    try:
        import networkx
    except ImportError as e:
        raise ImportError("apsp.networkx needs NetworkX, which is not installed (Debian: "
                          "apt-get install python3-networkx; else: pip install networkx)") from e
    return networkx


_UNBOUNDED_CLASSES = {}


def unbounded_class(apsp_cls):
    """The class raised for a negative cycle: networkx.NetworkXUnbounded and `apsp_cls` (apsp's
    NegativeCycleError, or the one that is SciPy's too), made here and not in apsp.networkx so that
    this module never imports that one. Its instances pickle (_reduce_error: the other side
    rebuilds the same class)."""
    base = networkx_module().NetworkXUnbounded
    cls = _UNBOUNDED_CLASSES.get((base, apsp_cls))
    if cls is None:
        kind = "networkx" if apsp_cls is NegativeCycleError else "networkx+scipy"
        cls = type("NegativeCycleError", (base, apsp_cls),
                   {"__module__": "apsp.networkx",
                    "__doc__": "A negative cycle: networkx.NetworkXUnbounded and "
                               "apsp.NegativeCycleError.",
                    "__reduce__": _reduce_error, "_apsp_pickle_kind": kind})
        _UNBOUNDED_CLASSES[(base, apsp_cls)] = cls
    return cls


def _rebuild_error(kind, args, state):
    cls = error_class(kind)
    err = cls(*args)
    err.__dict__.update(state)
    return err


def negative_cycle_class():
    """apsp.NegativeCycleError, or (when the caller has imported scipy.sparse.csgraph, the only way
    to name SciPy's class) a subclass of both apsp's and SciPy's NegativeCycleError. Its instances
    pickle (see _reduce_error)."""
    csgraph = sys.modules.get("scipy.sparse.csgraph")
    base = getattr(csgraph, "NegativeCycleError", None)
    if not isinstance(base, type) or not issubclass(base, BaseException) or issubclass(NegativeCycleError, base):
        return NegativeCycleError
    cls = _COMPAT_CLASSES.get(base)
    if cls is None:
        cls = type("NegativeCycleError", (NegativeCycleError, base),
                   {"__module__": "apsp", "__doc__": NegativeCycleError.__doc__,
                    "__reduce__": _reduce_error, "_apsp_pickle_kind": "scipy"})
        _COMPAT_CLASSES[base] = cls
    return cls


def negative_cycle(err, reverse=False):
    """The exception to raise for `err` (an apsp.NegativeCycleError): SciPy-catchable, and with the
    cycle in graph order when it was found on the reversed graph."""
    cycle = err.cycle
    if reverse and cycle is not None:
        cycle = list(reversed(cycle))
    new = negative_cycle_class()(str(err))
    new.cycle = cycle
    return new


# ---- inputs ------------------------------------------------------------------------------------
def numeric_array(a, name, allow_float=True):
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


def dense_array(a):
    """A dense graph as an ndarray the solver views in place (no copy for int32, int64, float32,
    float64 in native byte order, whatever the strides); other dtypes are converted, once: bool and
    integers up to 16 bits to int32, uint32 to int64, uint64 to float64 (exact: scan() first
    refuses entries beyond 2**53, or rounds them for SciPy's reading), float16 / longdouble to
    float64."""
    arr = numeric_array(a, "graph")
    if arr.dtype in _DENSE_IN_PLACE:
        return arr
    if arr.dtype.kind == "b" or arr.dtype.itemsize <= 2:
        return arr.astype(np.int32)
    if arr.dtype == np.uint32:
        return arr.astype(np.int64)
    return arr.astype(np.float64)


def sparse_module(obj):
    """scipy.sparse if obj is a SciPy sparse matrix/array (never imports SciPy itself)."""
    sp = sys.modules.get("scipy.sparse")
    if sp is not None and sp.issparse(obj):
        return sp
    return None


def _hint_for_non_graph(graph, caller):
    if isinstance(graph, (str, bytes, os.PathLike)):
        raise TypeError(f"{caller}() takes a graph, not a file name: read the file first, "
                        f"e.g. apsp.{caller}(apsp.read({os.fsdecode(graph)!r}))")
    if type(graph).__module__.split(".")[0] == "networkx":
        raise TypeError(f"{caller}() takes a matrix or an edge list, not a NetworkX graph: use "
                        f"apsp.networkx (e.g. apsp.networkx.floyd_warshall_numpy(G, nodelist=nodes)), or "
                        f"convert it, e.g. apsp.{caller}(nx.to_scipy_sparse_array(G, nodelist=nodes, weight='weight')) "
                        f"(row i is nodes[i])")


def exact_weights(w, exact, label):
    """The one check of integer weights: apsp's weights are float64, exact for integers up to
    2**53. An integer array holding one beyond +-2**53 raises ValueError naming it (label(k): the
    entry at flat index k) when exact, as the CLI refuses such a weight in a file; else (SciPy's
    reading of any input) it is returned as float64, rounded. Other arrays are returned as is."""
    w = np.asarray(w)
    if w.dtype.kind not in "iu" or w.dtype.itemsize < 8 or w.size == 0:
        return w
    if w.dtype.kind == "u":
        big = w > np.uint64(_WEIGHT_EXACT)
    else:
        big = (w > _WEIGHT_EXACT) | (w < -_WEIGHT_EXACT)
    if not big.any():
        return w
    if not exact:
        return w.astype(np.float64)
    k = int(np.argmax(big.reshape(-1)))
    value = int(w.reshape(-1)[k])
    sign = "-" if value < 0 else ""
    raise ValueError(f"{label(k)} = {value} is beyond {sign}2^53, which apsp holds exactly "
                     f"(integer weights are exact or refused): pass float64 weights, e.g. "
                     f"w.astype(np.float64), to have them rounded to the nearest double")


class Input:
    """A graph input measured but not yet scanned. kind: dense, masked, sparse, edges, graph."""

    def __init__(self, kind, obj, n):
        self.kind, self.obj, self.n = kind, obj, n
        self.exact = True        # integer weights beyond 2**53 refused (else rounded, as SciPy)
        self.scipy_null = False  # dense: |w| <= 1e-8 is no edge, as SciPy reads it (else only 0)
        self.edges = None        # number of edges (an estimate for a dense Graph: V * V)
        self.negative = False    # any negative weight
        self.whole_max = None    # all weights whole (integers too): their max |w|, else None
        self.whole_pending = None  # edge tuple, float weights: max |w|, whole-ness from the Graph
        self.exact_checked = False  # edge tuple: no integer weight beyond +-2**53 (min, max read)


def _reads_as_square_matrix(t):
    """True when np.asarray(t) would be a len(t) x len(t) matrix whose rows are not all NumPy
    arrays: a tuple that SciPy (and apsp.csgraph) read as a matrix and apsp's own functions as an
    edge list. Items that are all 1-D ndarrays are an edge list (rows of a matrix are not written
    so), and so is any other tuple: it cannot be a square matrix."""
    k = len(t)
    if all(isinstance(item, np.ndarray) for item in t):
        return False
    for item in t:
        if isinstance(item, (str, bytes)) or not hasattr(item, "__len__"):
            return False
        try:
            if len(item) != k or np.ndim(item) != 1:
                return False
        except (TypeError, ValueError):
            return False
    return True


def check_edge_tuple(t):
    """The rule for a tuple given to apsp's own functions: (src, dst) or (src, dst, weight) of 1-D
    arrays; one that would also read as a square matrix (see _reads_as_square_matrix) is refused,
    so that neither reading is ever taken silently."""
    if len(t) not in (2, 3):
        raise ValueError(f"an edge-list tuple is (src, dst) or (src, dst, weight), got {len(t)} items; "
                         f"for a matrix pass an array, e.g. np.asarray(t)")
    if _reads_as_square_matrix(t):
        k = len(t)
        names = "np.array(src), np.array(dst)" + (", np.array(weight)" if k == 3 else "")
        raise ValueError(f"ambiguous tuple: {k} items of length {k} read as an edge list "
                         f"(src, dst{', weight' if k == 3 else ''}) here but as a {k} x {k} matrix in "
                         f"SciPy (and apsp.csgraph): pass np.asarray(t) for a matrix, or NumPy "
                         f"arrays ({names}) for an edge list")


def _index_array(m, name):
    a = getattr(m, name)
    if not isinstance(a, np.ndarray) or a.ndim != 1 or a.dtype.kind not in "iu":
        raise ValueError(f"malformed {m.format} matrix: {name} must be a 1-D integer array")
    return a


def _check_compressed(m, major, minor):
    """indptr / indices of a CSR, CSC or BSR matrix: what SciPy's constructor does not check, and
    what its conversions (and the solver) read without bounds checks."""
    indptr, indices = _index_array(m, "indptr"), _index_array(m, "indices")
    if indptr.size != major + 1:
        raise ValueError(f"malformed {m.format} matrix: indptr has {indptr.size} entries, "
                         f"expected {major + 1}")
    if indptr[0] != 0:
        raise ValueError(f"malformed {m.format} matrix: indptr[0] = {indptr[0]}, expected 0")
    steps = np.diff(indptr)
    if steps.size and steps.min() < 0:
        k = int(np.argmax(steps < 0))
        raise ValueError(f"malformed {m.format} matrix: indptr decreases at {k + 1} "
                         f"({indptr[k]} then {indptr[k + 1]})")
    nnz = int(indptr[-1])
    data_len = m.data.shape[0] if np.ndim(m.data) else 0
    if nnz > indices.size or nnz > data_len:
        raise ValueError(f"malformed {m.format} matrix: indptr[-1] = {nnz} but indices has "
                         f"{indices.size} and data {data_len} entries")
    used = indices[:nnz]
    if used.size and (used.min() < 0 or used.max() >= minor):
        bad = int(used[(used < 0) | (used >= minor)][0])
        raise ValueError(f"malformed {m.format} matrix: index {bad} in indices is outside "
                         f"0..{minor - 1}")


def _check_coordinates(m, n):
    for name in ("row", "col"):
        a = _index_array(m, name)
        if a.size and (a.min() < 0 or a.max() >= n):
            bad = int(a[(a < 0) | (a >= n)][0])
            raise ValueError(f"malformed coo matrix: {name} index {bad} is outside 0..{n - 1}")
    if m.row.size != m.col.size or m.row.size != np.shape(m.data)[0]:
        raise ValueError("malformed coo matrix: row, col and data differ in length")


def check_sparse_structure(m):
    """Raises ValueError for a compressed-sparse matrix whose index arrays are inconsistent (a
    decreasing or out-of-range indptr, an index outside the shape): SciPy's constructor accepts
    them, and reading one would touch memory outside its arrays."""
    n = m.shape[0]
    if m.format in ("csr", "csc"):
        _check_compressed(m, n, n)
    elif m.format == "bsr":
        r, c = m.blocksize
        _check_compressed(m, n // r, n // c)
    elif m.format == "coo":
        _check_coordinates(m, n)


def inspect(graph, num_vertices, caller="shortest_path", scipy=False):
    """An :class:`Input` with V, without reading any entry (shape errors are raised here).
    scipy=True: SciPy's reading (apsp.csgraph), where a tuple is an array-like like any other."""
    _hint_for_non_graph(graph, caller)
    if isinstance(graph, Graph):
        if num_vertices is not None and num_vertices != graph.num_vertices:
            raise ValueError(f"num_vertices={num_vertices} but the graph has {graph.num_vertices} vertices")
        return Input("graph", graph, graph.num_vertices)
    if isinstance(graph, tuple) and not scipy:
        check_edge_tuple(graph)
        return Input("edges", graph, None)  # V is known once the ids are read
    obj = graph
    sp = sparse_module(graph)
    if sp is not None:
        if graph.ndim != 2 or graph.shape[0] != graph.shape[1]:
            raise ValueError(f"compressed-sparse graph must be shape (N, N) (square), got {graph.shape}")
        kind, n = "sparse", graph.shape[0]
        check_sparse_structure(graph)
    elif isinstance(graph, np.ma.MaskedArray):
        kind, n = "masked", None
    else:
        kind, n = "dense", None
        graph = np.asarray(graph)
    if n is None:
        if graph.ndim != 2:
            raise ValueError(f"graph should have two dimensions (a square V x V matrix), got shape {graph.shape}")
        if graph.shape[0] != graph.shape[1]:
            hint = ""
            if scipy and isinstance(obj, tuple):
                hint = (f"; apsp.csgraph reads a tuple as SciPy does, as a matrix: for an edge list "
                        f"(src, dst[, weight]) call apsp.{caller}")
            raise ValueError(f"graph should be a square array, got shape {graph.shape}{hint}")
        n = graph.shape[0]
    if num_vertices is not None and num_vertices != n:
        raise ValueError(f"num_vertices={num_vertices} but the matrix is {n} x {n}")
    return Input(kind, graph, n)


def check_memory(need, what):
    have = _core.host_memory_limit()
    if need > have:
        raise MemoryError(f"{what} needs {need:.0f} bytes ({need / 2**30:.1f} GiB), more than this machine's "
                          f"{have} bytes of memory (set APSP_HOST_MEMORY to override)")


def _edge_weights_stats(inp, w, whole_later):
    """The weights of an edge tuple: their smallest and largest value (two passes, no temporary
    array) give the negative flag and max |w|, and for integer arrays of 8 bytes whether
    exact_weights can find anything (inp.exact_checked). NaN or an infinity among float weights
    takes _weights_stats' way. Whether float weights are whole: checked here, or with whole_later
    left to the Graph that graph_from_edges builds from them (it reads every weight anyway:
    read_graph settles inp.whole_pending from Graph.integer_weights)."""
    if w.ndim == 0:  # one weight for every edge (broadcast by _graph_from_edges)
        _weights_stats(inp, w.reshape(1))
        inp.edges = int(np.size(inp.obj[0]))
        return
    inp.edges = int(w.size)
    if w.size == 0:
        return
    lo, hi = w.min(), w.max()
    if w.dtype.kind == "f" and not (np.isfinite(lo) and np.isfinite(hi)):
        _weights_stats(inp, w)
        return
    inp.negative = bool(w.dtype.kind in "if" and lo < 0)
    most = max(abs(float(lo)), abs(float(hi)))
    if w.dtype.kind in "iub":
        inp.whole_max = most
        inp.exact_checked = w.dtype.kind == "b" or -_WEIGHT_EXACT <= int(lo) <= int(hi) <= _WEIGHT_EXACT
    elif whole_later:
        inp.whole_pending = most
    elif np.array_equal(w, np.floor(w)):
        inp.whole_max = most


def _weights_stats(inp, w):
    w = np.asarray(w)
    inp.edges = int(w.size)
    if w.size == 0:
        return
    if w.dtype.kind in "iub":
        inp.negative = bool(w.dtype.kind == "i" and w.min() < 0)
        inp.whole_max = max(abs(float(w.max())), abs(float(w.min())))
        return
    finite = w[np.isfinite(w)]
    inp.negative = bool(finite.size and finite.min() < 0)
    if finite.size and np.all(finite == np.floor(finite)):
        inp.whole_max = float(np.abs(finite).max())


#: SciPy reads a dense matrix through np.ma.masked_values(graph, 0) (csgraph_masked_from_dense,
#: null_value=0), whose default atol=1e-8 (and rtol * 0) masks every entry with |w| <= 1e-8, compared
#: in the array's own float dtype: no edge, like 0. Integer arrays are compared with == 0.
_SCIPY_NULL_ATOL = 1e-8
_SCAN_CHUNK = 1 << 20  # entries per chunk of the scan below


def scipy_null_entries(a, diagonal_only=False):
    """The nonzero entries of the float matrix `a` that SciPy's dense reading masks (no edge), as
    [(row slice, boolean mask of those rows)], or None when there are none. Rows are scanned in
    chunks (no V x V temporary); a cheap bound finds candidates, np.isclose (what masked_values
    calls) decides them. diagonal_only: only the diagonal's entries."""
    n = a.shape[0]
    if diagonal_only:
        d = np.diagonal(a)
        mask = (d != 0) & np.isclose(d, np.float64(0), rtol=1e-5, atol=_SCIPY_NULL_ATOL)
        return [(slice(i, i + 1), np.eye(1, n, i, dtype=bool)) for i in np.flatnonzero(mask)] or None
    step = max(1, _SCAN_CHUNK // max(a.shape[1], 1))
    bound = 2 * _SCIPY_NULL_ATOL  # above any rounding of atol to a.dtype
    found = []
    for start in range(0, n, step):
        rows = slice(start, min(start + step, n))
        chunk = a[rows]
        near = (chunk <= bound) & (chunk >= -bound) & (chunk != 0)
        if not near.any():
            continue
        mask = near & np.isclose(chunk, np.float64(0), rtol=1e-5, atol=_SCIPY_NULL_ATOL)
        if mask.any():
            found.append((rows, mask))
    return found or None


def scan(inp, whole_later=False, unweighted=False):
    """Reads the entries once: edge count, negative weights, whole floats. A dense matrix with NaN
    or -inf entries (SciPy: no edge) is replaced by a copy where they are 0, and so is one with
    entries |w| <= 1e-8 when inp.scipy_null (SciPy's reading, apsp.csgraph); a COO matrix with
    duplicates by its CSR (duplicates add up, as SciPy reads them). An edge tuple's weights are
    converted to an array once (kept in inp.obj) and read in two passes (_edge_weights_stats;
    whole_later: see there); with unweighted they are not read at all (every weight counts 1)."""
    kind, obj = inp.kind, inp.obj
    if kind == "dense":
        if inp.n == 0:
            inp.edges = 0
            return inp
        # The diagonal is no edge: an entry there is not a weight.
        off_diagonal = lambda a: np.where(np.eye(inp.n, dtype=bool), 0, a)  # noqa: E731
        dense_label = lambda k: f"graph[{k // inp.n}, {k % inp.n}]"  # noqa: E731
        if np.asarray(obj).dtype == np.uint64:  # dense_array makes it float64: check first
            obj = exact_weights(off_diagonal(obj), inp.exact, dense_label)
        original = np.asarray(obj)
        arr = dense_array(obj)
        s = _core.dense_scan(arr)
        if s["beyond_exact"]:  # int64 entries beyond 2**53 off the diagonal
            arr = exact_weights(off_diagonal(arr), inp.exact, dense_label)
        if inp.scipy_null and original.dtype.kind == "f":
            # whole numbers off the diagonal (dense_scan does not read it) cannot be tiny
            tiny = scipy_null_entries(original, diagonal_only=bool(s["integral"]))
            if tiny is not None:  # a copy where they are 0 (no edge); counts again without them
                arr = np.array(arr)
                for rows, mask in tiny:
                    arr[rows][mask] = 0
                s = _core.dense_scan(arr)
        if s["specials"]:
            arr = np.where(np.isnan(arr) | np.isneginf(arr), arr.dtype.type(0), arr)
        inp.obj, inp.edges, inp.negative = arr, s["edges"], s["negatives"] > 0
        if s["integral"]:
            inp.whole_max = s["max_abs"]
    elif kind == "sparse":
        if obj.format == "coo" and not getattr(obj, "has_canonical_format", False):
            obj = inp.obj = obj.tocsr()
        _weights_stats(inp, obj.tocoo(copy=False).data)
    elif kind == "masked":
        _weights_stats(inp, np.ma.getdata(obj)[~np.ma.getmaskarray(obj)])
    elif kind == "edges":
        if len(obj) == 3 and not unweighted:
            w = numeric_array(obj[2], "weight")
            inp.obj = (obj[0], obj[1], w)
            _edge_weights_stats(inp, w, whole_later)
        else:  # (src, dst): every weight 1, what a scan of ones would find, without the array
            inp.edges = int(np.size(obj[0]))
            if inp.edges:
                inp.whole_max = 1.0
    else:  # apsp.Graph
        g = obj
        if g.is_dense:
            inp.edges = g.num_vertices ** 2  # not scanned here; the solver checks it
            inp.negative = True  # unknown: per-source solves then run Bellman-Ford first
        else:
            _weights_stats(inp, g.weight)
    return inp


def _graph_from_edges(src, dst, weight, num_vertices, directed, reverse, unweighted, exact=True,
                      label=lambda k: f"weight[{k}]", exact_checked=False):
    """exact_checked: the weights are known to hold no integer beyond +-2**53 (no exact_weights
    pass)."""
    src = numeric_array(src, "src", allow_float=False)
    dst = numeric_array(dst, "dst", allow_float=False)
    if weight is not None:
        weight = numeric_array(weight, "weight")
        if weight.ndim == 0:
            weight = np.broadcast_to(weight, src.shape)
        if not unweighted and not exact_checked:
            weight = exact_weights(weight, exact, label)
    n = -1 if num_vertices is None else num_vertices
    return _core.graph_from_edges(src, dst, weight, n, directed, reverse, unweighted)


def graph_from_edges(src, dst, weight, num_vertices, directed):
    return _graph_from_edges(src, dst, weight, num_vertices, directed, False, False)


def read_graph(inp, directed, unweighted, reverse, num_vertices, empty="the graph has no vertices"):
    """The inspected input's weights scanned (an edge tuple's not at all when unweighted) and its
    apsp.Graph, with its vertex count; ValueError(empty) when it has no vertices. Nothing the
    Graph's construction reads is read twice: whether an edge tuple's float weights are whole
    comes from the Graph."""
    inp.exact = not unweighted
    scan(inp, whole_later=True, unweighted=unweighted)
    g, n = to_graph(inp, directed, unweighted, reverse, num_vertices)
    if inp.whole_pending is not None:
        inp.whole_max = inp.whole_pending if g.integer_weights else None
        inp.whole_pending = None
    if n == 0:
        raise ValueError(empty)
    return g, n


def to_graph(inp, directed, unweighted, reverse, num_vertices):
    """(apsp.Graph or None for V = 0, V) of a scanned input; reverse=True: the reversed graph."""
    kind, obj = inp.kind, inp.obj
    if kind == "graph":
        g = obj
        if (g.directed and not directed) or (reverse and g.directed) or unweighted:
            g = _core.transformed(g, directed, reverse, unweighted)
        return g, g.num_vertices
    if kind == "edges":
        weight = obj[2] if len(obj) == 3 else None
        g = _graph_from_edges(obj[0], obj[1], weight, num_vertices, directed, reverse, unweighted,
                              inp.exact, exact_checked=inp.exact_checked)
        return g, g.num_vertices
    n = inp.n
    if n == 0:
        return None, 0
    if kind == "sparse":
        coo = obj.tocoo(copy=False)  # keeps explicit zeros: they are zero-weight edges
        return _graph_from_edges(coo.row, coo.col, coo.data, n, directed, reverse, unweighted,
                                 inp.exact, lambda k: f"graph[{coo.row[k]}, {coo.col[k]}]"), n
    if kind == "masked":
        # SciPy's reading: every unmasked entry is an edge, zeros included
        src, dst = np.nonzero(~np.ma.getmaskarray(obj))
        weight = np.ma.getdata(obj)[src, dst]
        return _graph_from_edges(src, dst, weight, n, directed, reverse, unweighted, inp.exact,
                                 lambda k: f"graph[{src[k]}, {dst[k]}]"), n
    # Made only to be solved: solve() scans the matrix itself (range, integer-ness), so the
    # Graph skips from_dense's scan (scan=False).
    return _core.graph_from_dense(obj, directed, reverse, unweighted, False), n


def auto_dtype(inp, n, dtype):
    """dtype=None for whole-number weights (integer arrays too) too large for exact int64
    distances: float64 (what SciPy returns for any input), instead of the solver's refusal."""
    whole = inp.whole_max
    if dtype is None and whole is not None and max(n - 1, 1) * whole >= _INT64_EXACT:
        return "float64"
    return dtype
