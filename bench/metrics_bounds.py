"""Diameter by eccentricity bounds against the full metrics run (issue 34's bounds target).

Usage: PYTHONPATH=build/cpu-only/python python3 bench/metrics_bounds.py GRAPH.bin [--trials K]
       [--no-full] [--directed] [--weights float64|int32|int64]
GRAPH.bin: an NTHU binary graph (`apsp generate G.bin --kind rmat --scale S --wmin 1 --wmax 1`).
Keeps the largest (weakly) connected component (ids renumbered; undirected unless --directed:
then the largest strongly connected one) so that diameter is defined, then times in memory, in
one process, alternating: apsp.metrics(e, ["diameter"]) (engine auto = bounds) and the full run
closeness + harmonic + eccentricity (engine auto = bfs), from the edge arrays (what a user times)
and on a graph converted once (apsp._core.metrics: the engines alone); prints every trial, the
medians and their ratios, and checks that the diameters agree. --weights: the edge tuple carries
a weight array of ones of that dtype, (src, dst, w), instead of (src, dst).
"""
import os
import statistics
import sys
import time

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components

import apsp
from apsp import _core, _inputs


def read_nthu(path):
    raw = np.fromfile(path, dtype=np.int32)
    v, e = int(raw[0]), int(raw[1])
    t = raw[2:2 + 3 * e].reshape(e, 3)
    return v, t[:, 0].astype(np.int64), t[:, 1].astype(np.int64)


def largest_component(v, src, dst, directed):
    a = sp.coo_matrix((np.ones(len(src), dtype=np.int8), (src, dst)), shape=(v, v)).tocsr()
    _, label = connected_components(a, directed=directed, connection="strong")
    big = np.bincount(label).argmax()
    keep = label == big
    new = np.cumsum(keep) - 1
    m = keep[src] & keep[dst] & (src != dst)
    return int(keep.sum()), new[src[m]], new[dst[m]]


def main():
    args = sys.argv[1:]
    trials = int(args[args.index("--trials") + 1]) if "--trials" in args else 3
    directed = "--directed" in args
    v0, s0, d0 = read_nthu(args[0])
    n, src, dst = largest_component(v0, s0, d0, directed)
    e = (src.astype(np.int32), dst.astype(np.int32))
    if "--weights" in args:
        e += (np.ones(len(src), dtype=args[args.index("--weights") + 1]),)
    kind = "directed, strongly" if directed else "undirected,"
    print(f"{args[0]}: V={v0} E={len(s0)}; largest {kind} connected component V={n} "
          f"edges={len(src)}; cpus={os.cpu_count()} threads=all; "
          f"weights {e[2].dtype if len(e) == 3 else 'none (src, dst)'}")
    full = ["closeness", "harmonic", "eccentricity"]
    inp = _inputs.inspect(e, n, "bench")
    inp.exact = True
    _inputs.scan(inp)
    g, _ = _inputs.to_graph(inp, directed, False, False, n)
    tb, tf, cb, cf, pb, pf = [], [], [], [], [], []  # p: CPU time of the process (all threads)
    for _ in range(trials):
        t0 = time.perf_counter()
        r = _core.metrics(g, "auto", None, 0, 0, False, False, True, False, "auto", ["diameter"])
        cb.append(time.perf_counter() - t0)
        if "--no-full" not in args:
            t0 = time.perf_counter()
            _core.metrics(g, "auto", None, 0, 0, True, True, True, False, "auto", [])
            cf.append(time.perf_counter() - t0)
        t0, p0 = time.perf_counter(), time.process_time()
        b = apsp.metrics(e, ["diameter"], directed=directed, num_vertices=n)
        tb.append(time.perf_counter() - t0)
        pb.append(time.process_time() - p0)
        if "--no-full" in args:
            continue
        t0, p0 = time.perf_counter(), time.process_time()
        f = apsp.metrics(e, full, directed=directed, num_vertices=n)
        tf.append(time.perf_counter() - t0)
        pf.append(time.process_time() - p0)
        assert f["eccentricity"].max() == b["diameter"], (f["eccentricity"].max(), b["diameter"])
    print(f"engines alone: bounds ({r['engine']}, {r.get('searches')} searches) trials",
          " ".join(f"{x:.3f}" for x in cb), f"median {statistics.median(cb):.3f} s")
    if cf:
        print("engines alone: full trials", " ".join(f"{x:.3f}" for x in cf),
              f"median {statistics.median(cf):.3f} s; full / bounds = "
              f"{statistics.median(cf) / statistics.median(cb):.1f}x")
    print("from the edge arrays: bounds diameter", b["diameter"], "trials", " ".join(f"{x:.3f}" for x in tb),
          f"median {statistics.median(tb):.3f} s")
    if tf:
        print("from the edge arrays: full (closeness, harmonic, eccentricity) trials", " ".join(f"{x:.3f}" for x in tf),
              f"median {statistics.median(tf):.3f} s")
        print(f"full / bounds = {statistics.median(tf) / statistics.median(tb):.1f}x; "
              "diameters agree")
        print(f"CPU time from the edge arrays: bounds median {statistics.median(pb):.3f} s, full "
              f"{statistics.median(pf):.3f} s: {statistics.median(pf) / statistics.median(pb):.1f}x")


if __name__ == "__main__":
    main()
