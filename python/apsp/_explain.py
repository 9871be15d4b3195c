"""apsp.explain: the plan apsp's solver would follow for a graph, without running the rounds.

The C++ solve() decides its plan once (backend, dtype and the rungs it may try, Johnson
reweighting, engine and vertex order, memory, sinks, next hops) and then only runs it;
``apsp.explain`` returns that plan as a dict, readable as text with ``str()``. The same plan is
printed by ``apsp solve IN OUT --stats --verbose``.
"""

import numpy as np

from . import _core, _inputs

_ORDERS = ("auto", "none", "nd", "sn")


class Plan(dict):
    """solve()'s plan: decision name -> what was decided and why, in the order the solver
    decides them ("input", "johnson", "backend", "dtype", "rungs", "engine", "order", "matrix",
    "memory", "sinks", "paths"; notes as "note", "note 2", ...). ``str(plan)`` gives one line
    per decision."""

    def __str__(self):
        width = max((len(k) for k in self), default=0)
        return "\n".join(f"{k.ljust(width)}  {v}" for k, v in self.items())


def _method_text(method, indices, limit, min_only):
    """What shortest_path's method= and per-source options mean for the plan, or None."""
    if method is None and indices is None and limit == np.inf and not min_only:
        return None
    if method not in (None, "auto", "FW") or indices is not None or limit < np.inf or min_only:
        return ("per-source Dijkstra on the CPU threads (float64); the Floyd-Warshall plan "
                "below is what method='FW' would run")
    if method == "auto":
        return ("auto: shortest_path picks Floyd-Warshall or per-source Dijkstra by its cost "
                "model; the plan below is Floyd-Warshall's")
    return "FW: apsp's Floyd-Warshall solver"


def explain(graph, directed=True, unweighted=False, dtype=None, backend="auto", block=None, *,
            paths=False, num_vertices=None, threads=None, order="auto", plan=None, method=None,
            return_predecessors=False, return_next_hop=False, overwrite=False, indices=None,
            limit=np.inf, min_only=False):
    """The plan :func:`apsp.solve` (and :func:`apsp.shortest_path`'s Floyd-Warshall) would follow
    for ``graph`` with these keywords, as a :class:`Plan` (a dict; ``str()`` reads as text).

    Takes the keywords of :func:`apsp.solve` and of :func:`apsp.shortest_path`
    (``return_predecessors`` and ``return_next_hop`` mean next hops, predecessors those of the
    reversed graph; ``method``, ``indices``, ``limit`` and ``min_only`` add a "method" entry saying
    which solver shortest_path would run). Runs the solver's validation and planning (Johnson's
    potentials, the vertex order where one is tried), not its rounds: it raises what solve()
    would raise before them (a negative cycle, a refused type or size). Under ``backend="mpi"``
    every rank must call it, as solve().
    """
    if order not in _ORDERS:
        raise ValueError(f"order must be 'auto', 'none', 'nd' or 'sn', got {order!r}")
    directed, unweighted, dtype, backend, block, threads, num_vertices = _inputs.check_common(
        directed, unweighted, dtype, backend, block, threads, num_vertices)
    want_pred = _inputs.flag(return_predecessors, "return_predecessors")
    paths = (_inputs.flag(paths, "paths") or want_pred
             or _inputs.flag(return_next_hop, "return_next_hop"))
    _inputs.flag(overwrite, "overwrite")
    if plan is not None and not isinstance(plan, _core.SparsePlan):
        raise TypeError(f"plan must come from apsp.plan(), got {type(plan).__name__}")
    inp = _inputs.inspect(graph, num_vertices, "explain")
    g, n = _inputs.read_graph(inp, directed, unweighted, want_pred, num_vertices)
    dtype = _inputs.auto_dtype(inp, n, dtype)
    items = []
    how = _method_text(method, indices, limit, _inputs.flag(min_only, "min_only"))
    if how:
        items.append(("method", how))
    if want_pred:
        items.append(("predecessors", "next hops of the reversed graph, transposed"))
    try:
        items += _core.explain(g, backend, dtype, 0 if block is None else block,
                               0 if threads is None else threads, paths, order, plan)
    except _core.NegativeCycleError as err:
        raise _inputs.negative_cycle(err, want_pred) from None
    out = Plan()
    for key, value in items:
        name, k = key, 1
        while name in out:
            k += 1
            name = f"{key} {k}"
        out[name] = value
    return out
