#!/usr/bin/python3
"""bench/sparse/scipy_dijkstra.py — SciPy's all-pairs Dijkstra on an NTHU binary graph, the
baseline of issue 21: prints read and solve seconds; with --check OUT, compares with apsp's
int32 output (unreachable 2^30-1) and prints PASS/FAIL.

  /usr/bin/python3 bench/sparse/scipy_dijkstra.py GRAPH.bin [--check apsp_out.bin]
"""
import sys
import time

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import shortest_path


def main():
    path = sys.argv[1]
    t0 = time.perf_counter()
    raw = np.fromfile(path, dtype="<i4")
    V, E = int(raw[0]), int(raw[1])
    e = raw[2:2 + 3 * E].reshape(E, 3)
    # Duplicates: keep the lightest (csr_matrix would add them up).
    order = np.lexsort((e[:, 2], e[:, 1], e[:, 0]))
    e = e[order]
    keep = np.ones(E, bool)
    keep[1:] = (e[1:, 0] != e[:-1, 0]) | (e[1:, 1] != e[:-1, 1])
    e = e[keep & (e[:, 0] != e[:, 1])]
    w = e[:, 2].astype(np.float64)
    # Zero weights would vanish from a sparse matrix: SciPy reads explicit zeros as edges only in
    # csr with stored zeros, which csgraph keeps; keep them stored.
    g = sp.csr_matrix((w, (e[:, 0], e[:, 1])), shape=(V, V))
    t1 = time.perf_counter()
    d = shortest_path(g, method="D", directed=True)
    t2 = time.perf_counter()
    print(f"scipy shortest_path(method='D'): V={V} E={E} read {t1 - t0:.3f} s solve {t2 - t1:.3f} s")
    if len(sys.argv) >= 4 and sys.argv[2] == "--check":
        got = np.fromfile(sys.argv[3], dtype="<i4").reshape(V, V).astype(np.float64)
        got[got == 1073741823] = np.inf
        ok = np.array_equal(got, d)
        print("Verification:", "PASS" if ok else f"FAIL ({int(np.sum(got != d))} entries differ)")


if __name__ == "__main__":
    main()
