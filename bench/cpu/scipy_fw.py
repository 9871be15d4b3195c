#!/usr/bin/env python3
"""SciPy's floyd_warshall on an NTHU binary graph, for `apsp bench --backend cpu`.

Usage: scipy_fw.py GRAPH.bin
Reads little-endian int32 V, E, then E (src, dst, w) triples, builds the dense matrix (minimum
weight per pair, 0 on the diagonal, inf elsewhere; zero weights stay edges), times
scipy.sparse.csgraph.floyd_warshall alone, and prints one JSON line:
  {"seconds": S, "finite_sum": N, "unreachable": U, "scipy": "1.10.1"}
finite_sum adds every finite off-diagonal distance (exact as a Python int) so the caller can check
the result against its own. Exit status 3 when NumPy or SciPy is missing.
"""
import json
import sys
import time

try:
    import numpy as np
    import scipy
    from scipy.sparse.csgraph import csgraph_from_dense, floyd_warshall
except ImportError as e:  # pragma: no cover - depends on the machine
    print(json.dumps({"error": f"SciPy not available: {e}"}))
    sys.exit(3)


def main() -> int:
    raw = np.fromfile(sys.argv[1], dtype="<i4")
    V, E = int(raw[0]), int(raw[1])
    e = raw[2:2 + 3 * E].reshape(E, 3)
    dense = np.full((V, V), np.inf)
    np.minimum.at(dense, (e[:, 0], e[:, 1]), e[:, 2].astype(np.float64))
    np.fill_diagonal(dense, 0.0)
    graph = csgraph_from_dense(dense, null_value=np.inf)  # keeps zero-weight edges as edges
    t0 = time.perf_counter()
    dist = floyd_warshall(graph, directed=True)
    seconds = time.perf_counter() - t0
    finite = np.isfinite(dist)
    np.fill_diagonal(finite, False)
    print(json.dumps({
        "seconds": seconds,
        "finite_sum": int(dist[finite].astype(np.int64).sum()),
        "unreachable": int((~np.isfinite(dist)).sum()),
        "scipy": scipy.__version__,
    }))
    return 0


if __name__ == "__main__":
    sys.exit(main())
