"""Graph metrics from one all-pairs solve, with NetworkX's names and definitions.

The distances stream from the solver into a reduction (``apsp._core.metrics``, C++
``apsp::compute_metrics``): no V x V matrix is returned or kept beyond the solver's own. Per-vertex
results are NumPy arrays indexed by vertex. Definitions (NetworkX's documentation):

* ``closeness_centrality``: incoming distances, ``(r / (n - 1)) * (r / sum)`` with r the vertices
  that reach u (Wasserman-Faust, ``wf_improved=True``) or ``r / sum``; 0 where the sum is 0.
* ``harmonic_centrality``: sum over v != u of ``1 / d(v, u)`` (pairs at distance 0 skipped).
* ``eccentricity``: the largest distance from v. It, ``diameter``, ``radius``,
  ``average_shortest_path_length``, ``center`` and ``periphery`` need every vertex to reach every
  other one; otherwise ValueError ("graph is not strongly connected"), as NetworkX raises, unless
  ``infinite_ok=True`` (then inf where a vertex misses some other one).
* ``wiener_index``: sum of distances over unordered (undirected) or ordered (directed) pairs; inf
  when not strongly connected.
* ``distance_histogram``: pairs per distance (same pairs as ``wiener_index``), integer distances
  only; ``effective_diameter``: the distance within which 90% of those pairs lie, interpolated.

``engine=`` picks how the distances are found: ``"auto"`` (a cost model), ``"fw"`` (one all-pairs
solve, V x V memory inside the solver), ``"bfs"`` (bit-parallel multi-source BFS: every weight
equal), ``"dijkstra"`` (one search per source), ``"bounds"`` (eccentricity bounds: diameter, radius,
center, periphery only; non-negative integer weights), ``"sparse"`` (the sparse direct engine's rows
reduced block by block, on a GPU when there is one: road networks, meshes and other graphs with
small separators, non-negative weights). The last four never hold V x V.

A NetworkX graph is read as apsp.networkx reads it, with NetworkX's keyword for the weight
(``distance=`` for the centralities, ``weight=`` for the others; None, NetworkX's default, counts
hops), and the results are keyed by node label: dicts for per-vertex values, lists of labels for
center and periphery.
"""
import numpy as np

from . import _core, _inputs

#: Names apsp.metrics() understands.
METRICS = ("closeness", "harmonic", "eccentricity", "reachable", "diameter", "radius",
           "average_shortest_path_length", "wiener_index", "center", "periphery")
#: Names metrics() also takes but does not compute by default (integer distances only).
EXTRA_METRICS = ("histogram", "effective_diameter")
_EXTREMES = {"diameter", "radius", "center", "periphery"}
_PER_VERTEX = {"closeness", "harmonic", "eccentricity", "reachable"}
_NEED_CONNECTED = {"eccentricity", "diameter", "radius", "average_shortest_path_length", "center",
                   "periphery"}


def _is_networkx(graph):
    return type(graph).__module__.split(".")[0] == "networkx"


def _from_networkx(G, weight):
    """(edge tuple, directed, node labels) for NetworkX graph G, weights from attribute `weight`
    (None: hop counts)."""
    from . import networkx as apsp_nx
    a = apsp_nx._convert(G, weight, weighted=weight is not None)
    edges = (a.src, a.dst) if a.weight is None else (a.src, a.dst, a.weight)
    return edges, G.is_directed(), a.nodes


def _weight_refusal(public, keyword):
    return (f"{public}() got an unexpected keyword argument {keyword!r}: it names the weight "
            f"attribute of a NetworkX graph (a matrix's or an edge list's weights are its values)")


def _keyed(value, name, nodes):
    """A result of the graph's index space in NetworkX's shape: per-vertex arrays as dicts by label,
    center and periphery as lists of labels."""
    if name in ("center", "periphery"):
        return [nodes[i] for i in value.tolist()]
    if name in _PER_VERTEX:
        return dict(zip(nodes, value.tolist()))
    return value


def _run(graph, directed, unweighted, dtype, backend, num_vertices, threads, closeness, harmonic,
         wf_improved, caller, names=(), engine="auto"):
    directed, unweighted, dtype, backend, block, threads, num_vertices = _inputs.check_common(
        directed, unweighted, dtype, backend, None, threads, num_vertices)
    wf_improved = _inputs.flag(wf_improved, "wf_improved")
    inp = _inputs.inspect(graph, num_vertices, caller)
    g, n = _inputs.read_graph(inp, directed, unweighted, False, num_vertices)
    dtype = _inputs.auto_dtype(inp, n, dtype)
    if not isinstance(engine, str):
        raise TypeError(f"engine must be a string, got {type(engine).__name__}")
    names = set(names)
    extremes = sorted(names) if names and names <= _EXTREMES else []
    histogram = bool(names & set(EXTRA_METRICS))
    try:
        return _core.metrics(g, backend, dtype, 0, 0 if threads is None else threads, closeness,
                             harmonic, wf_improved, histogram, engine, extremes)
    except _core.NegativeCycleError as err:  # SciPy-catchable, as solve() raises it
        raise _inputs.negative_cycle(err) from None


def _value(res, name, infinite_ok):
    if name in _NEED_CONNECTED and not res["strongly_connected"] and not infinite_ok:
        raise ValueError(f"{name}: {res['not_connected_reason']}; pass infinite_ok=True to get inf")
    if name == "reachable":
        return res["reachable_out"]
    if name in ("center", "periphery"):
        return np.asarray(res[name], dtype=np.int64)
    if name == "histogram":
        return res["histogram"]
    return res[name]


def metrics(graph, names=None, *, directed=True, unweighted=False, dtype=None, backend="auto",
            num_vertices=None, threads=None, wf_improved=True, infinite_ok=False, weight=None,
            engine="auto"):
    """Several metrics from one solve: a dict name -> value.

    ``names``: any of :data:`METRICS` (default: all). Per-vertex ones (closeness, harmonic,
    eccentricity, reachable: vertices v reaches, v excluded) are arrays indexed by vertex;
    diameter, radius, average_shortest_path_length, wiener_index are floats; center and
    periphery int64 arrays of vertices; histogram an int64 array by distance
    (:func:`distance_histogram`), effective_diameter a float (these two only when named: integer
    distances). The graph is any input :func:`apsp.shortest_path` takes
    (``directed``, ``unweighted``, ``num_vertices`` as there); ``dtype`` and ``backend`` choose the
    solver's type and backend, ``engine`` the engine (module docstring). Raises ValueError for a
    metric that needs strong connectivity on a
    graph without it, unless ``infinite_ok``. A NetworkX graph: ``weight`` names the edge
    attribute (None: hops), and the values are keyed by node label (module docstring).
    """
    if names is None:
        names = list(METRICS)
    elif isinstance(names, str):
        names = [names]
    names = list(names)
    for name in names:
        if name not in METRICS + EXTRA_METRICS:
            raise ValueError(f"unknown metric {name!r}; expected one of "
                             f"{', '.join(METRICS + EXTRA_METRICS)}")
    infinite_ok = _inputs.flag(infinite_ok, "infinite_ok")
    nodes = None
    if _is_networkx(graph):
        graph, directed, nodes = _from_networkx(graph, weight)
    elif weight is not None:
        raise TypeError(_weight_refusal("metrics", "weight"))
    res = _run(graph, directed, unweighted, dtype, backend, num_vertices, threads,
               "closeness" in names, "harmonic" in names, wf_improved, "metrics", names, engine)
    out = {name: _value(res, name, infinite_ok) for name in names}
    return out if nodes is None else {name: _keyed(v, name, nodes) for name, v in out.items()}


# The public name of each metric function, and NetworkX's keyword for its weight attribute.
_PUBLIC = {"closeness": ("closeness_centrality", "distance"),
           "harmonic": ("harmonic_centrality", "distance")}


def _one(name, graph, infinite_ok=False, wf_improved=True, **kwargs):
    public, weight_kw = _PUBLIC.get(name, (name, "weight"))
    nodes, weight = None, kwargs.pop(weight_kw, None)
    if _is_networkx(graph):
        graph, kwargs["directed"], nodes = _from_networkx(graph, weight)
    elif weight is not None:
        raise TypeError(_weight_refusal(public, weight_kw))
    res = _run(graph, kwargs.pop("directed", True), kwargs.pop("unweighted", False),
               kwargs.pop("dtype", None), kwargs.pop("backend", "auto"),
               kwargs.pop("num_vertices", None), kwargs.pop("threads", None),
               name == "closeness", name == "harmonic", wf_improved, public, [name],
               kwargs.pop("engine", "auto"))
    if kwargs:
        raise TypeError(f"{public}() got an unexpected keyword argument {next(iter(kwargs))!r}")
    value = _value(res, name, _inputs.flag(infinite_ok, "infinite_ok"))
    return value if nodes is None else _keyed(value, name, nodes)


def closeness_centrality(graph, *, wf_improved=True, **kwargs):
    """NetworkX's ``closeness_centrality(G, distance='weight', wf_improved=...)`` for every vertex
    (incoming distances), as a float64 array. Keywords as :func:`metrics`."""
    return _one("closeness", graph, wf_improved=wf_improved, **kwargs)


def harmonic_centrality(graph, **kwargs):
    """NetworkX's ``harmonic_centrality(G, distance='weight')`` (sum of 1 / d(v, u) over v != u),
    as a float64 array. Keywords as :func:`metrics`."""
    return _one("harmonic", graph, **kwargs)


def eccentricity(graph, *, infinite_ok=False, **kwargs):
    """NetworkX's ``eccentricity(G, weight='weight')``: the largest distance from each vertex, as a
    float64 array. ValueError when not strongly connected, unless ``infinite_ok``."""
    return _one("eccentricity", graph, infinite_ok=infinite_ok, **kwargs)


def diameter(graph, *, infinite_ok=False, **kwargs):
    """The largest eccentricity (NetworkX's ``diameter(G, weight='weight')``), a float."""
    return float(_one("diameter", graph, infinite_ok=infinite_ok, **kwargs))


def radius(graph, *, infinite_ok=False, **kwargs):
    """The smallest eccentricity (NetworkX's ``radius(G, weight='weight')``), a float."""
    return float(_one("radius", graph, infinite_ok=infinite_ok, **kwargs))


def average_shortest_path_length(graph, *, infinite_ok=False, **kwargs):
    """Mean distance over ordered pairs u != v (NetworkX's
    ``average_shortest_path_length(G, weight='weight')``; 0 for one vertex), a float."""
    return float(_one("average_shortest_path_length", graph, infinite_ok=infinite_ok, **kwargs))


def distance_histogram(graph, **kwargs):
    """Pairs per distance: an int64 array ``h`` with ``h[d]`` the pairs u != v at distance d
    (unordered pairs for an undirected graph, ordered for a directed one; unreachable pairs not
    counted; ``np.bincount`` style, so ``(h * arange(len(h))).sum()`` is the Wiener index of a
    connected graph). Integer distances only (unweighted or integer weights). Keywords as
    :func:`metrics` (``weight=`` for a NetworkX graph)."""
    return _one("histogram", graph, **kwargs)


# Tensors in, tensors out (torch, CuPy, JAX: docs/batch.md); other inputs untouched.
from ._dlpack import accepting_tensors as _accepting_tensors  # noqa: E402

metrics = _accepting_tensors(metrics)
closeness_centrality = _accepting_tensors(closeness_centrality)
harmonic_centrality = _accepting_tensors(harmonic_centrality)
eccentricity = _accepting_tensors(eccentricity)
diameter = _accepting_tensors(diameter)
radius = _accepting_tensors(radius)
average_shortest_path_length = _accepting_tensors(average_shortest_path_length)
distance_histogram = _accepting_tensors(distance_histogram)
