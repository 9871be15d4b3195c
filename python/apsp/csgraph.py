"""apsp.csgraph — the ``scipy.sparse.csgraph`` shortest-path names, answered by apsp.

``import apsp.csgraph as csgraph`` (or ``from apsp.csgraph import shortest_path``) in place of
SciPy's module: same signatures, results and exceptions, and the input read as SciPy reads it:

* a tuple is an array-like like any other (``((0, 1), (1, 0))`` is a 2 x 2 matrix), never an
  edge list;
* in a dense matrix (ndarray, nested lists or tuples) an entry with ``|w| <= 1e-8`` is no edge,
  like 0, NaN and +-inf: SciPy reads it through ``np.ma.masked_values(graph, 0)``, whose default
  ``atol=1e-8`` masks it (compared in the array's float dtype; integer arrays: only 0).

apsp's own functions (``apsp.shortest_path`` etc.) take the same arguments but read a tuple
``(src, dst[, weight])`` as an edge list and every nonzero dense entry as an edge. Everything
else (dtype=, backend=, ... keyword-only) is described at ``apsp.shortest_path``.
"""

import numpy as np

from . import _csgraph
from ._core import NegativeCycleError
from ._csgraph import NO_PREDECESSOR

__all__ = ["shortest_path", "floyd_warshall", "dijkstra", "bellman_ford", "johnson", "NegativeCycleError",
           "NO_PREDECESSOR"]


def shortest_path(csgraph, method="auto", directed=True, return_predecessors=False, unweighted=False,
                  overwrite=False, indices=None, *, dtype=None, backend="auto", block=None, threads=None,
                  return_next_hop=False, num_vertices=None):
    """``scipy.sparse.csgraph.shortest_path``, input read as SciPy reads it (module docstring);
    the arguments and results are those of ``apsp.shortest_path``."""
    return _csgraph._solve(csgraph, method, directed, return_predecessors, unweighted, indices, dtype=dtype,
                           backend=backend, block=block, threads=threads, return_next_hop=return_next_hop,
                           num_vertices=num_vertices, overwrite=overwrite, scipy=True)


def floyd_warshall(csgraph, directed=True, return_predecessors=False, unweighted=False, overwrite=False, *,
                   dtype=None, backend="auto", block=None, threads=None, return_next_hop=False, num_vertices=None):
    """``scipy.sparse.csgraph.floyd_warshall``, input read as SciPy reads it (module docstring):
    all pairs by apsp's blocked Floyd-Warshall."""
    return _csgraph._solve(csgraph, "FW", directed, return_predecessors, unweighted, None, dtype=dtype,
                           backend=backend, block=block, threads=threads, return_next_hop=return_next_hop,
                           num_vertices=num_vertices, overwrite=overwrite, caller="floyd_warshall", scipy=True)


def dijkstra(csgraph, directed=True, indices=None, return_predecessors=False, unweighted=False, limit=np.inf,
             min_only=False, *, threads=None, num_vertices=None):
    """``scipy.sparse.csgraph.dijkstra``, input read as SciPy reads it (module docstring); limit=
    and min_only= as described at ``apsp.dijkstra``."""
    return _csgraph._solve(csgraph, "D", directed, return_predecessors, unweighted, indices, limit, min_only,
                           threads=threads, num_vertices=num_vertices, caller="dijkstra", scipy=True)


def bellman_ford(csgraph, directed=True, indices=None, return_predecessors=False, unweighted=False, *,
                 threads=None, num_vertices=None):
    """``scipy.sparse.csgraph.bellman_ford``, input read as SciPy reads it (module docstring)."""
    return _csgraph._solve(csgraph, "BF", directed, return_predecessors, unweighted, indices, threads=threads,
                           num_vertices=num_vertices, caller="bellman_ford", scipy=True)


def johnson(csgraph, directed=True, indices=None, return_predecessors=False, unweighted=False, *,
            threads=None, num_vertices=None):
    """``scipy.sparse.csgraph.johnson``, input read as SciPy reads it (module docstring)."""
    return _csgraph._solve(csgraph, "J", directed, return_predecessors, unweighted, indices, threads=threads,
                           num_vertices=num_vertices, caller="johnson", scipy=True)


# Tensors in, tensors out (torch, CuPy, JAX: docs/batch.md); NumPy and SciPy inputs untouched.
from ._dlpack import accepting_tensors as _accepting_tensors  # noqa: E402

shortest_path = _accepting_tensors(shortest_path)
floyd_warshall = _accepting_tensors(floyd_warshall)
dijkstra = _accepting_tensors(dijkstra)
bellman_ford = _accepting_tensors(bellman_ford)
johnson = _accepting_tensors(johnson)
