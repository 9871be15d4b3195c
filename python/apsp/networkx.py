"""NetworkX-shaped all-pairs shortest paths for labelled graphs: ``apsp.networkx``.

The functions take a NetworkX graph (Graph, DiGraph, MultiGraph, MultiDiGraph) and return what the
NetworkX functions of the same name return, keyed by node labels, computed by apsp's solvers:

* :func:`floyd_warshall_numpy` (G, nodelist=None, weight='weight') -> float64 ndarray, inf = unreachable
* :func:`floyd_warshall_predecessor_and_distance` (G, weight='weight') -> (predecessors, distances)
* :func:`floyd_warshall` (G, weight='weight') -> distances: dict of ``defaultdict`` (default inf)
* :func:`all_pairs_shortest_path_length` (G, cutoff=None) -> generator of (node, {node: hops})
* :func:`all_pairs_dijkstra_path_length` (G, cutoff=None, weight='weight') -> generator of (node, {node: length})
* :func:`all_pairs_shortest_path` (G, cutoff=None) -> generator of (node, {node: [node, ..., node]})
* :func:`all_pairs_dijkstra_path` (G, cutoff=None, weight='weight') -> generator of (node, {node: path})
* :func:`all_pairs_dijkstra` (G, cutoff=None, weight='weight') -> generator of (node, (lengths, paths))

Paths are read from the solver's predecessors (one solve for the lengths and the paths); between
equally short paths the one returned may differ from NetworkX's.

The graph is converted once: a node -> index map and src/dst/weight NumPy arrays from one pass over
the edges (Graph / DiGraph: the adjacency rows, each a C-level ``list.extend``; multigraphs:
``G.edges(data=weight, default=1)``); the solve and the V x V results are NumPy/C++, and the
label-keyed dicts are built one row at a time (``dict(zip(...))``, no Python loop per pair).
Non-numeric weights (None, strings) raise TypeError, as NetworkX's comparisons do.

Conventions (NetworkX's):

* ``weight`` is an edge attribute name (an edge without it weighs 1) or a callable
  ``weight(u, v, data) -> number or None`` (None hides the edge; for multigraphs ``data`` is the
  dict of parallel edges keyed by edge key, as in NetworkX's Dijkstra functions). A callable is
  called once per adjacency entry (both directions of an undirected edge), in Python: that pass
  costs about a microsecond per call on top of the solve. NetworkX 2.8's Floyd-Warshall functions
  look a callable up as an attribute name (so every edge weighs 1); apsp applies it, everywhere.
* Parallel edges of a MultiGraph / MultiDiGraph: the lightest counts. Undirected edges go both ways.
* Self loops with weight >= 0 are ignored (d(v, v) = 0); :func:`floyd_warshall_numpy` ignores every
  self loop, as NetworkX's does (its diagonal is set to 0).
  :func:`floyd_warshall_predecessor_and_distance` reports ``pred[v][v] = v`` for a node with a self
  loop, as NetworkX does.
* Negative weights are solved exactly (Johnson reweighting), also by
  :func:`all_pairs_dijkstra_path_length` (NetworkX's Dijkstra raises "Contradictory paths" or is wrong
  there). A negative cycle (a negative self loop, a negative undirected edge) raises
  ``networkx.NetworkXUnbounded`` — where NetworkX's Floyd-Warshall returns negative d(v, v) and
  meaningless distances. The exception is also an :class:`apsp.NegativeCycleError`; its ``.cycle``
  lists the cycle's node labels.
* Distances are Python ints when every weight is an integer (as NetworkX's sums are), else floats.
  Ties between equally short paths may pick another predecessor than NetworkX's loop order does.

NetworkX is imported only when a function is called; ``import apsp.networkx`` works without it.
"""

import math
import numbers
import operator
from collections import defaultdict

import numpy as np

from . import _core, _csgraph, _inputs
from ._core import NegativeCycleError

__all__ = ["floyd_warshall_numpy", "floyd_warshall_predecessor_and_distance", "floyd_warshall",
           "all_pairs_shortest_path_length", "all_pairs_dijkstra_path_length", "all_pairs_shortest_path",
           "all_pairs_dijkstra_path", "all_pairs_dijkstra"]

# Above this V the generators solve rows in chunks (per-source Dijkstra) instead of one V x V matrix.
_WHOLE_MATRIX_MAX_V = 4096
_CHUNK_ROWS = 512
_FLOAT64_EXACT = 2**53  # integers beyond it are not all float64 values


# NetworkX, imported on first use (apsp._inputs holds the import: it builds the exception classes
# too, so that _inputs never imports this module).
_nx = _inputs.networkx_module


def _inf():
    """The default of NetworkX's distance rows (a module function: the dicts pickle)."""
    return math.inf


unbounded_class = _inputs.unbounded_class  # networkx.NetworkXUnbounded + apsp's class


def _unbounded(err, nodes):
    """networkx.NetworkXUnbounded for apsp's NegativeCycleError `err`, with the cycle's labels."""
    # apsp's class, or the one that is SciPy's too when SciPy's csgraph is imported
    cls = unbounded_class(_inputs.negative_cycle_class())
    cycle = None if err.cycle is None else [nodes[i] for i in err.cycle]
    where = "" if cycle is None else ": " + " -> ".join(map(repr, cycle + cycle[:1]))
    new = cls(f"Negative cycle detected{where}")
    new.cycle = cycle
    return new


class _Arrays:
    """A graph as the solver takes it: nodes (list), src/dst (int64), weight (numbers or None),
    directed (arcs as given, or both ways), loops (bool per node: a self loop was dropped)."""

    def __init__(self, nodes, src, dst, weight, directed, loops):
        self.nodes, self.src, self.dst, self.weight = nodes, src, dst, weight
        self.directed, self.loops = directed, loops

    @property
    def integral(self):
        return self.weight is None or self.weight.dtype.kind in "biu"

    @property
    def needs_int64(self):
        """Integer weights whose sums may pass 2**53, where float64 distances would round."""
        if not self.integral or self.weight is None or not self.weight.size:
            return False
        w = max(abs(int(self.weight.max())), abs(int(self.weight.min())))
        return max(len(self.nodes) - 1, 1) * w >= _FLOAT64_EXACT


def _is_number(x):
    try:
        float(x)
    except (TypeError, ValueError):
        return False
    return True


def _weights(values):
    """The weights as a 1-D numeric array; TypeError naming the first that is not a number."""
    try:
        w = np.asarray(values)
    except (TypeError, ValueError):  # sequences among them
        w = None
    if w is None or w.ndim != 1 or w.dtype.kind not in "biuf":  # None, strings, Fraction, Decimal, ...
        bad = [x for x in values if x is None or isinstance(x, (str, bytes)) or not _is_number(x)][:1]
        if bad:
            raise TypeError(f"edge weights must be numbers, got {bad[0]!r}")
        w = np.fromiter(map(float, values), dtype=np.float64, count=len(values))
    return w


def _convert(G, weight, nodes=None, weighted=True, self_loops="keep-negative"):
    """One pass over G's edges into :class:`_Arrays`. self_loops: "keep-negative" (drop those with
    weight >= 0, keep negative ones: a negative cycle) or "drop" (floyd_warshall_numpy)."""
    nodes = list(G) if nodes is None else nodes
    index = dict(zip(nodes, range(len(nodes))))
    directed = G.is_directed()
    if weighted and callable(weight):
        # NetworkX's Dijkstra calls weight(u, v, G[u][v]) per adjacency entry (for multigraphs
        # G[u][v] is the key -> data dict): both directions of an undirected edge, arcs as given.
        us, vs, ws = [], [], []
        for u, nbrs in G.adjacency():
            for v, data in nbrs.items():
                c = weight(u, v, data)
                if c is not None:
                    us.append(u)
                    vs.append(v)
                    ws.append(c)
        directed = True
    elif G.is_multigraph():
        if weighted:
            triples = list(G.edges(data=weight, default=1))
            us, vs, ws = zip(*triples) if triples else ((), (), ())
        else:
            pairs = list(G.edges())
            us, vs = zip(*pairs) if pairs else ((), ())
            ws = None
    else:
        # Graph / DiGraph: the adjacency rows, each a C-level extend (3x faster than G.edges()).
        # An undirected edge is then two arcs, of the same weight.
        heads, counts, vs, ws = [], [], [], ([] if weighted else None)
        get = operator.methodcaller("get", weight, 1)
        for u, nbrs in G.adjacency():
            heads.append(u)
            counts.append(len(nbrs))
            vs.extend(nbrs)
            if weighted:
                ws.extend(map(get, nbrs.values()))
        us = None
        directed = True
    m = len(vs)
    if us is None:
        src = np.repeat(np.fromiter(map(index.__getitem__, heads), dtype=np.int64, count=len(heads)), counts)
    else:
        src = np.fromiter(map(index.__getitem__, us), dtype=np.int64, count=m)
    dst = np.fromiter(map(index.__getitem__, vs), dtype=np.int64, count=m)
    w = None if ws is None else _weights(ws) if m else np.zeros(0, dtype=np.int64)
    loop = src == dst
    loops = np.zeros(len(nodes), dtype=bool)
    if loop.any():
        drop = loop if (self_loops == "drop" or w is None) else loop & ~(w < 0)
        loops[src[drop]] = True
        keep = ~drop
        src, dst = src[keep], dst[keep]
        if w is not None:
            w = w[keep]
    return _Arrays(nodes, src, dst, w, directed, loops)


def _edges(a):
    return (a.src, a.dst) if a.weight is None else (a.src, a.dst, a.weight)


def _solve(a, return_predecessors=False, indices=None, exact=False):
    """float64 distances (inf = unreachable); exact=True and integer sums past 2**53: int64
    distances (apsp.UNREACHABLE_INT64 = unreachable), the whole matrix (indices ignored)."""
    kwargs = {}
    if exact and a.needs_int64:
        kwargs, indices = {"dtype": np.int64, "method": "FW"}, None
    try:
        return _csgraph.native_shortest_path(_edges(a), directed=a.directed,
                                             return_predecessors=return_predecessors,
                                             unweighted=a.weight is None, indices=indices,
                                             num_vertices=len(a.nodes), **kwargs)
    except NegativeCycleError as err:
        raise _unbounded(err, a.nodes) from None


def _finite(dist):
    """Where dist (float64 with inf, or int64 with apsp.UNREACHABLE_INT64) has a path."""
    if dist.dtype.kind == "f":
        return np.isfinite(dist)
    return dist != _core.UNREACHABLE_INT64


def _values(dist, integral):
    """dist as an array whose .tolist() gives NetworkX's numbers: ints for integer weights, inf floats."""
    if not integral:
        return dist
    finite = _finite(dist)
    out = np.where(finite, dist, 0).astype(np.int64).astype(object)
    out[~finite] = math.inf
    return out


def _rows(a, paths=False):
    """(i, float64 distance row) for every node, whole matrix when it is small, else in chunks;
    paths=True: (i, distance row, predecessor row)."""
    n = len(a.nodes)
    if n <= _WHOLE_MATRIX_MAX_V or a.needs_int64:
        out = _solve(a, return_predecessors=paths, exact=True)
        yield from (zip(range(n), *out) if paths else enumerate(out))
        return
    for start in range(0, n, _CHUNK_ROWS):
        out = _solve(a, return_predecessors=paths, indices=np.arange(start, min(start + _CHUNK_ROWS, n)))
        yield from (zip(range(start, n), *out) if paths else enumerate(out, start))


_hops_past_cutoff = {}


def _hop_cutoff_is_exclusive(function="single_source_shortest_path_length"):
    """How the installed NetworkX's `function` reads a hop cutoff: h <= cutoff (2.x's lengths),
    or the source and every h with h - 1 < cutoff (2.x's paths, 3.x's both: the same for whole
    cutoffs, one hop more for 2.5). Asked once of NetworkX itself on a two-node path with
    cutoff 0.5."""
    if function not in _hops_past_cutoff:
        nx = _nx()
        _hops_past_cutoff[function] = 1 in getattr(nx, function)(nx.path_graph(2), 0, cutoff=0.5)
    return _hops_past_cutoff[function]


def _cutoff(cutoff):
    """None or a real number; TypeError / ValueError (NaN) otherwise, before any work."""
    if cutoff is None:
        return None
    if isinstance(cutoff, (bool, np.bool_)) or not isinstance(cutoff, (numbers.Real, np.number)):
        raise TypeError(f"cutoff must be a number or None, got {cutoff!r}")
    if math.isnan(cutoff):
        raise ValueError("cutoff must be a number or None, got nan")
    return cutoff


def _within(row, i, cutoff, hops, exclusive):
    """The targets of source i that NetworkX lists, nearest first: reachable, within cutoff."""
    finite = _finite(row)
    if cutoff is None:
        within = finite
    elif hops and exclusive:
        within = finite & ((row <= 0) | (row - 1 < cutoff))
    else:
        within = finite & (row <= cutoff)
        if not hops:
            within[i] = True  # Dijkstra's source is in its dict whatever the cutoff (NetworkX)
    js = np.flatnonzero(within)
    return js[np.argsort(row[js], kind="stable")]


def _length_dicts(a, cutoff, hops=False):
    """NetworkX's single-source length dicts: reachable nodes within cutoff, nearest first."""
    nodes, integral = a.nodes, a.integral
    labels = _label_array(nodes)
    exclusive = hops and cutoff is not None and _hop_cutoff_is_exclusive()
    for i, row in _rows(a):
        js = _within(row, i, cutoff, hops, exclusive)
        d = row[js]
        vals = d.astype(np.int64).tolist() if integral else d.tolist()
        yield nodes[i], dict(zip(labels[js].tolist(), vals))


def _path_dicts(a, cutoff, hops=False, lengths=False):
    """(node, {target: [node, ..., target]}) per source, from the solver's predecessors; with
    lengths=True (node, ({target: length}, {target: path})), as all_pairs_dijkstra yields."""
    nodes, integral = a.nodes, a.integral
    labels = _label_array(nodes)
    exclusive = hops and cutoff is not None and _hop_cutoff_is_exclusive("single_source_shortest_path")
    for i, row, pred in _rows(a, paths=True):
        js = _within(row, i, cutoff, hops, exclusive)
        pred = pred.tolist()
        found = {i: [nodes[i]]}  # index -> path; a target's path is its predecessor's plus itself
        for j in js.tolist():
            if j in found:
                continue
            chain = [j]
            while pred[chain[-1]] not in found:
                chain.append(pred[chain[-1]])
            path = found[pred[chain[-1]]]
            for k in reversed(chain):
                path = path + [nodes[k]]
                found[k] = path
        targets = labels[js].tolist()
        paths = dict(zip(targets, map(found.__getitem__, js.tolist())))
        if not lengths:
            yield nodes[i], paths
            continue
        d = row[js]
        yield nodes[i], (dict(zip(targets, d.astype(np.int64).tolist() if integral else d.tolist())), paths)


# ---- the public functions ------------------------------------------------------------------------
def floyd_warshall_numpy(G, nodelist=None, weight="weight"):
    """``networkx.floyd_warshall_numpy``: shortest path lengths as a float64 ndarray.

    ``distance[i, j]`` is the length of a shortest path from ``nodelist[i]`` to ``nodelist[j]``
    (``nodelist`` defaults to ``list(G)``), ``inf`` when there is none. Every self loop is ignored
    (the diagonal is 0), as in NetworkX.

    Raises networkx.NetworkXError when nodelist is not every node of G exactly once,
    networkx.NetworkXUnbounded (also apsp.NegativeCycleError) for a negative cycle.
    """
    nx = _nx()
    if nodelist is not None:
        if not (len(nodelist) == len(G) == len(set(nodelist))):
            raise nx.NetworkXError("nodelist must contain every node in G with no repeats. "
                                   "If you wanted a subgraph of G use G.subgraph(nodelist)")
        foreign = set(nodelist) - set(G)
        if foreign:
            raise nx.NetworkXError(f"Nodes {foreign} in nodelist is not in G")
        nodelist = list(nodelist)
    a = _convert(G, weight, nodelist, self_loops="drop")
    if not a.nodes:
        return np.zeros((0, 0))
    return _solve(a)


def floyd_warshall_predecessor_and_distance(G, weight="weight"):
    """``networkx.floyd_warshall_predecessor_and_distance``: ``(predecessor, distance)``.

    ``distance[u]`` is a ``defaultdict`` (default inf) over every node: ``distance[u][v]`` is the
    length of a shortest u -> v path, inf when there is none. ``predecessor[u][v]`` is the node
    before v on such a path, for every v reachable from u (v != u; and ``predecessor[u][u] = u``
    for a node with a self loop, as NetworkX has it); nodes that reach nothing have no entry.
    ``networkx.reconstruct_path(u, v, predecessor)`` walks it. Raises networkx.NetworkXUnbounded
    (also apsp.NegativeCycleError) for a negative cycle.
    """
    _nx()
    a = _convert(G, weight)
    nodes = a.nodes
    if not nodes:
        return {}, {}
    dist, pred = _solve(a, return_predecessors=True, exact=True)
    distance = _distance_dicts(nodes, dist, a.integral)
    labels = _label_array(nodes)
    has = pred >= 0
    predecessor = {}
    for i in np.flatnonzero(has.any(axis=1) | a.loops).tolist():
        js = np.flatnonzero(has[i])
        row = dict(zip(labels[js].tolist(), labels[pred[i, js]].tolist()))
        if a.loops[i]:
            row[nodes[i]] = nodes[i]
        predecessor[nodes[i]] = row
    return predecessor, distance


def _label_array(nodes):
    """The labels as a 1-D object array (tuples stay elements), for C-level fancy indexing."""
    labels = np.empty(len(nodes), dtype=object)
    for i, v in enumerate(nodes):
        labels[i] = v
    return labels


def _distance_dicts(nodes, dist, integral):
    return {u: defaultdict(_inf, zip(nodes, row)) for u, row in zip(nodes, _values(dist, integral).tolist())}


def floyd_warshall(G, weight="weight"):
    """``networkx.floyd_warshall``: ``distance[u][v]``, a dict of ``defaultdict`` (default inf) over
    every pair of nodes; see :func:`floyd_warshall_predecessor_and_distance`. No predecessors are
    computed."""
    _nx()
    a = _convert(G, weight)
    if not a.nodes:
        return {}
    return _distance_dicts(a.nodes, _solve(a, exact=True), a.integral)


def all_pairs_shortest_path_length(G, cutoff=None):
    """``networkx.all_pairs_shortest_path_length``: a generator of ``(node, {target: hops})``.

    Each dict holds the nodes reachable within ``cutoff`` hops (all when None; a fractional cutoff
    is read as the installed NetworkX reads it: 2.x floors it, 3.x keeps one hop more), the node itself
    with 0 included, nearest first. Edge weights are not read. The solve runs at the first
    ``next()``: one V x V matrix up to V = 4096, above that 512 sources at a time.
    """
    _nx()
    yield from _length_dicts(_convert(G, None, weighted=False), _cutoff(cutoff), hops=True)


def all_pairs_dijkstra_path_length(G, cutoff=None, weight="weight"):
    """``networkx.all_pairs_dijkstra_path_length``: a generator of ``(node, {target: length})``.

    Each dict holds the nodes within length ``cutoff`` (all reachable when None), nearest first.
    Negative weights are solved exactly (Johnson); a negative cycle raises
    networkx.NetworkXUnbounded (also apsp.NegativeCycleError) at the first ``next()``.
    """
    _nx()
    yield from _length_dicts(_convert(G, weight), _cutoff(cutoff))


def all_pairs_shortest_path(G, cutoff=None):
    """``networkx.all_pairs_shortest_path``: a generator of ``(node, {target: path})``.

    ``path`` is a list of node labels from ``node`` to ``target`` with the fewest edges (edge
    weights are not read), for every target within ``cutoff`` hops (all reachable when None; a
    fractional cutoff as the installed NetworkX's single_source_shortest_path reads it: 2.8 and
    3.x keep one hop more for 2.5), ``node: [node]`` included, nearest first. The solve runs at
    the first ``next()``.
    """
    _nx()
    yield from _path_dicts(_convert(G, None, weighted=False), _cutoff(cutoff), hops=True)


def all_pairs_dijkstra_path(G, cutoff=None, weight="weight"):
    """``networkx.all_pairs_dijkstra_path``: a generator of ``(node, {target: path})``.

    ``path`` is a list of node labels along a shortest path by ``weight`` (see the module
    docstring), for every target whose length is within ``cutoff`` (all reachable when None), the
    node itself (``[node]``) always included, nearest first. Negative weights are solved exactly;
    a negative cycle raises networkx.NetworkXUnbounded (also apsp.NegativeCycleError) at the
    first ``next()``.
    """
    _nx()
    yield from _path_dicts(_convert(G, weight), _cutoff(cutoff))


def all_pairs_dijkstra(G, cutoff=None, weight="weight"):
    """``networkx.all_pairs_dijkstra``: a generator of ``(node, (lengths, paths))``, the dicts of
    :func:`all_pairs_dijkstra_path_length` and :func:`all_pairs_dijkstra_path` for that node, from
    one solve."""
    _nx()
    yield from _path_dicts(_convert(G, weight), _cutoff(cutoff), lengths=True)
