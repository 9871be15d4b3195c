#!/usr/bin/env python3
"""bench/python_auto_method.py — method='auto' vs 'FW' vs 'D' on issue 33's graphs (best of 3, seconds).

    PYTHONPATH=build/cpu-only/python python3 bench/python_auto_method.py
"""
import sys, time, numpy as np, scipy.sparse as sp
import apsp
def t(f):
    best = 1e9
    for _ in range(3):
        t0 = time.perf_counter(); f(); best = min(best, time.perf_counter() - t0)
    return best
def rnd(n):
    rng = np.random.default_rng(1)
    m = 10 * n
    src = rng.integers(0, n, m); dst = rng.integers(0, n, m)
    w = rng.integers(1, 1000, m).astype(float)
    return sp.csr_matrix((w, (src, dst)), shape=(n, n))
cases = [("grid 60x60", apsp.generate("grid", rows=60, cols=60))] + [(f"random V={n} E=10V", rnd(n)) for n in (2000, 3000, 4000)]
for name, g in cases:
    r = {m: t(lambda: apsp.shortest_path(g, method=m)) for m in ("auto", "FW", "D")}
    print(f"{name:22s} auto {r['auto']:.3f}  FW {r['FW']:.3f}  D {r['D']:.3f}  auto/min {r['auto']/min(r['FW'], r['D']):.2f}", flush=True)
