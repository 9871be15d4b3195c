#!/usr/bin/env python3
"""scripts/frac_check.py — fractional-weight check for scripts/gpu_check.sh (step types).

  frac_check.py make FILE         writes a V=3000, E=30000 edge list with weights in [0.001, 100)
  frac_check.py check FILE DIR    compares DIR/fg.npy (cuda), fc.npy (cpu), fa.npy (auto) with each
                                  other and with scipy.sparse.csgraph.shortest_path (max relative)
"""
import sys

import numpy as np

V, E = 3000, 30000


def make(path):
    rng = np.random.default_rng(5)
    u = rng.integers(0, V, E)
    v = rng.integers(0, V, E)
    w = rng.uniform(0.001, 100.0, E)
    u[0], v[0] = V - 1, 0  # the largest id appears, so V is 3000
    with open(path, "w") as f:
        for a, b, c in zip(u, v, w):
            f.write("%d %d %.17g\n" % (a, b, c))


def check(path, d):
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import shortest_path

    e = np.loadtxt(path)
    u, v, w = e[:, 0].astype(np.int64), e[:, 1].astype(np.int64), e[:, 2]
    keep = u != v
    u, v, w = u[keep], v[keep], w[keep]
    # Duplicates: the minimum weight wins (a sparse matrix would add them up).
    order = np.lexsort((w, v, u))
    u, v, w = u[order], v[order], w[order]
    first = np.ones(len(u), bool)
    first[1:] = (u[1:] != u[:-1]) | (v[1:] != v[:-1])
    g = coo_matrix((w[first], (u[first], v[first])), shape=(V, V)).tocsr()
    ref = shortest_path(g, method="D")
    got = {k: np.load("%s/%s.npy" % (d, k)) for k in ("fg", "fc", "fa")}

    def rel(x, y):
        fin = np.isfinite(y)
        assert (np.isfinite(x) == fin).all(), "unreachable pairs differ"
        return float(np.max(np.abs(x[fin] - y[fin]) / np.maximum(np.abs(y[fin]), 1e-300)))

    print("dtypes", got["fg"].dtype, got["fc"].dtype, got["fa"].dtype, "finite", int(np.isfinite(ref).sum()))
    print("max rel cuda-cpu %.3g cuda-scipy %.3g cpu-scipy %.3g auto-cuda %.3g"
          % (rel(got["fg"], got["fc"]), rel(got["fg"], ref), rel(got["fc"], ref), rel(got["fa"], got["fg"])))


if __name__ == "__main__":
    if sys.argv[1] == "make":
        make(sys.argv[2])
    else:
        check(sys.argv[2], sys.argv[3])
