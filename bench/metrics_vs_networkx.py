"""apsp.closeness_centrality / apsp.metrics against NetworkX's closeness_centrality(G, distance='weight').

Usage: PYTHONPATH=build/cpu-only/python python3 bench/metrics_vs_networkx.py [V] [E] [seed]
Random directed graph (uniform endpoints, integer weights 1..100, duplicates dropped), the same
graph for both. Prints one line per method (best of 3 for apsp, one run for NetworkX) and checks
that the two closeness vectors agree (rtol 1e-12).
"""
import os
import sys
import time

import networkx as nx
import numpy as np

import apsp

V = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
E = int(sys.argv[2]) if len(sys.argv) > 2 else 20000
seed = int(sys.argv[3]) if len(sys.argv) > 3 else 1
rng = np.random.default_rng(seed)
src, dst = rng.integers(0, V, E), rng.integers(0, V, E)
keep = src != dst
pairs, idx = np.unique(np.stack([src[keep], dst[keep]]), axis=1, return_index=True)
src, dst = pairs
w = rng.integers(1, 101, src.size).astype(np.float64)
G = nx.DiGraph()
G.add_nodes_from(range(V))
G.add_weighted_edges_from(zip(src.tolist(), dst.tolist(), w.tolist()))
print(f"V={V} E={src.size} (after dropping self loops and duplicates) seed={seed} cpus={os.cpu_count()}")

times = []
for _ in range(3):
    t0 = time.perf_counter()
    c = apsp.closeness_centrality((src, dst, w), num_vertices=V, backend="cpu")
    times.append(time.perf_counter() - t0)
print(f"apsp.closeness_centrality            best {min(times):8.3f} s  (runs: {', '.join(f'{t:.3f}' for t in times)})")
solve_times = []
for _ in range(3):
    t0 = time.perf_counter()
    apsp.solve((src, dst, w), num_vertices=V, backend="cpu")
    solve_times.append(time.perf_counter() - t0)
print(f"apsp.solve (V x V int32 matrix only)  best {min(solve_times):8.3f} s")
t0 = time.perf_counter()
m = apsp.metrics((src, dst, w), num_vertices=V, backend="cpu", infinite_ok=True)
print(f"apsp.metrics (all, one solve)              {time.perf_counter() - t0:8.3f} s")
t0 = time.perf_counter()
ref = nx.closeness_centrality(G, distance="weight")
t_nx = time.perf_counter() - t0
print(f"networkx.closeness_centrality              {t_nx:8.3f} s")
ref = np.array([ref[v] for v in range(V)])
np.testing.assert_allclose(c, ref, rtol=1e-12, atol=0)
np.testing.assert_array_equal(m["closeness"], c)
print(f"agree (rtol 1e-12); speed-up {t_nx / min(times):.1f}x")
