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

Provided: shortest_path, floyd_warshall, dijkstra, bellman_ford, johnson, reconstruct_path,
construct_dist_matrix, NegativeCycleError. **Not provided** (use ``scipy.sparse.csgraph``'s;
``apsp.csgraph.NAME`` raises an AttributeError saying so): the traversals
(breadth_first_order, depth_first_order, breadth_first_tree, depth_first_tree),
connected_components, minimum_spanning_tree, laplacian, reverse_cuthill_mckee, maximum_flow,
maximum_bipartite_matching, min_weight_full_bipartite_matching, structural_rank, yen and the
conversions (csgraph_from_dense, csgraph_to_dense, csgraph_masked_from_dense,
csgraph_from_masked, csgraph_to_masked).
"""

import numpy as np

from . import _csgraph, _csgraph_tools
from ._core import NegativeCycleError
from ._csgraph import NO_PREDECESSOR

__all__ = ["shortest_path", "floyd_warshall", "dijkstra", "bellman_ford", "johnson", "reconstruct_path",
           "construct_dist_matrix", "NegativeCycleError", "NO_PREDECESSOR"]

# scipy.sparse.csgraph's public names (SciPy 1.10-1.14) that apsp.csgraph does not answer.
_SCIPY_ONLY = ("breadth_first_order", "depth_first_order", "breadth_first_tree", "depth_first_tree",
               "connected_components", "minimum_spanning_tree", "laplacian", "reverse_cuthill_mckee",
               "maximum_flow", "maximum_bipartite_matching", "min_weight_full_bipartite_matching",
               "structural_rank", "yen", "csgraph_from_dense", "csgraph_to_dense",
               "csgraph_masked_from_dense", "csgraph_from_masked", "csgraph_to_masked")


def __getattr__(name):
    if name in _SCIPY_ONLY:
        raise AttributeError(f"apsp.csgraph does not provide {name}: use scipy.sparse.csgraph.{name} "
                             f"(apsp.csgraph answers {', '.join(__all__[:7])})", name=name, obj=None)
    raise AttributeError(f"module 'apsp.csgraph' has no attribute {name!r}", name=name, obj=None)


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


def reconstruct_path(csgraph, predecessors, directed=True):
    """``scipy.sparse.csgraph.reconstruct_path``: the tree the 1-D ``predecessors`` encode, as an
    N x N float64 ``csr_matrix`` with entry (predecessors[j], j) = that edge's weight for every j
    that has a predecessor (negative: none, e.g. -9999), column indices sorted.

    ``csgraph`` is read as :func:`shortest_path` reads it (dense, masked, sparse, tensors on the
    CPU or a GPU); parallel edges: the lightest. ``directed=False``: the edge may be stored either
    way round (the lighter of the two). Raises ValueError (one line) when ``predecessors`` is not
    N entries of vertex ids, or names a predecessor with no edge to its vertex (SciPy stores 0
    there). An undirected zero-weight edge is stored as 0 (SciPy 1.10: inf).
    """
    return _csgraph_tools.reconstruct_path(csgraph, predecessors, directed)


def construct_dist_matrix(graph, predecessors, directed=True, null_value=np.inf):
    """``scipy.sparse.csgraph.construct_dist_matrix``: the N x N float64 lengths of the paths the
    N x N ``predecessors`` encode (row i: the shortest-path tree from i, as ``shortest_path(...,
    return_predecessors=True)`` returns it); 0 on the diagonal, ``null_value`` where the
    predecessors reach no path. Each length adds the edge weights from j back to i, in SciPy's
    order, so float sums equal SciPy's bit for bit.

    ``graph`` as :func:`reconstruct_path` reads it; a tensor graph (or predecessors) gives a
    tensor of its library back. Raises ValueError (one line) for a wrong shape, an id outside
    0..N-1, a predecessor with no edge to its vertex (SciPy: inf) or predecessors that go round a
    cycle (SciPy never returns). An undirected zero-weight edge weighs 0 (SciPy 1.10: inf).
    """
    return _csgraph_tools.construct_dist_matrix(graph, predecessors, directed, null_value)


# Tensors in, tensors out (torch, CuPy, JAX: docs/batch.md); NumPy and SciPy inputs untouched.
from ._dlpack import accepting_tensors as _accepting_tensors  # noqa: E402

shortest_path = _accepting_tensors(shortest_path)
floyd_warshall = _accepting_tensors(floyd_warshall)
dijkstra = _accepting_tensors(dijkstra)
bellman_ford = _accepting_tensors(bellman_ford)
johnson = _accepting_tensors(johnson)
