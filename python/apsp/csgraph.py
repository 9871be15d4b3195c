"""apsp.csgraph — the ``scipy.sparse.csgraph`` shortest-path names, answered by apsp.

``import apsp.csgraph as csgraph`` (or ``from apsp.csgraph import shortest_path``) in place of
SciPy's module: same signatures, results and exceptions (see ``apsp.shortest_path``).
"""

from ._core import NegativeCycleError
from ._csgraph import NO_PREDECESSOR, bellman_ford, dijkstra, floyd_warshall, johnson, shortest_path

__all__ = ["shortest_path", "floyd_warshall", "dijkstra", "bellman_ford", "johnson", "NegativeCycleError",
           "NO_PREDECESSOR"]
