"""apsp's metrics engines (issue 34) against NetworkX's closeness_centrality on one unweighted graph.

Usage: PYTHONPATH=build/cpu-only/python python3 bench/metrics_engines.py EDGES.el [--no-fw]
EDGES.el: `u v [w]` lines (weights ignored: hop counts), read as an undirected graph. Times
apsp.closeness_centrality with engine="auto" (and "fw" unless --no-fw), best of 3, then NetworkX's
closeness_centrality(G) once, checks the vectors agree (rtol 1e-12) and prints the ratio.
"""
import os
import sys
import time

import networkx as nx
import numpy as np

import apsp


def best_of(k, f):
    times, out = [], None
    for _ in range(k):
        t0 = time.perf_counter()
        out = f()
        times.append(time.perf_counter() - t0)
    return min(times), times, out


def main():
    path = sys.argv[1]
    a = np.loadtxt(path, dtype=np.int64, comments="#", usecols=(0, 1), ndmin=2)
    n = int(a.max()) + 1
    src, dst = a[:, 0], a[:, 1]
    print(f"{path}: V={n} edges={len(a)} undirected, unweighted; cpus={os.cpu_count()}")
    engines = ["auto"] + ([] if "--no-fw" in sys.argv else ["fw"])
    c = None
    for engine in engines:
        t, times, c = best_of(3, lambda: apsp.closeness_centrality(
            (src, dst), directed=False, num_vertices=n, engine=engine))
        runs = ", ".join(f"{x:.3f}" for x in times)
        print(f"apsp.closeness_centrality engine={engine:5s} best {t:8.3f} s  (runs: {runs})")
    t_apsp = t if len(engines) == 1 else None
    if t_apsp is None:
        t_apsp, _, c = best_of(1, lambda: apsp.closeness_centrality(
            (src, dst), directed=False, num_vertices=n, engine="auto"))
    G = nx.Graph()
    G.add_nodes_from(range(n))
    G.add_edges_from(zip(src.tolist(), dst.tolist()))
    t0 = time.perf_counter()
    ref = nx.closeness_centrality(G)
    t_nx = time.perf_counter() - t0
    print(f"networkx.closeness_centrality              {t_nx:8.3f} s")
    ref = np.array([ref[v] for v in range(n)])
    ok = np.allclose(c, ref, rtol=1e-12, atol=0)
    print(f"agree (rtol 1e-12): {ok}; NetworkX / apsp (auto) = {t_nx / t_apsp:.1f}x")


if __name__ == "__main__":
    main()
