#!/usr/bin/env python3
"""bench/python_auto_method.py — method='auto' vs 'FW' vs 'D' on issue 33's graphs (seconds, best
of 3): a 60 x 60 grid and random graphs with E = 10 V.

    PYTHONPATH=build/cpu-only/python python3 bench/python_auto_method.py
"""
import time

import numpy as np
import scipy.sparse as sp

import apsp


def best_of_3(f):
    best = 1e9
    for _ in range(3):
        t0 = time.perf_counter()
        f()
        best = min(best, time.perf_counter() - t0)
    return best


def random_csr(n):
    rng = np.random.default_rng(1)
    m = 10 * n
    w = rng.integers(1, 1000, m).astype(float)
    return sp.csr_matrix((w, (rng.integers(0, n, m), rng.integers(0, n, m))), shape=(n, n))


def main():
    cases = [("grid 60x60", apsp.generate("grid", rows=60, cols=60))]
    cases += [(f"random V={n} E=10V", random_csr(n)) for n in (2000, 3000, 4000)]
    for name, g in cases:
        r = {m: best_of_3(lambda: apsp.shortest_path(g, method=m)) for m in ("auto", "FW", "D")}
        print(f"{name:22s} auto {r['auto']:.3f}  FW {r['FW']:.3f}  D {r['D']:.3f}  "
              f"auto/min {r['auto'] / min(r['FW'], r['D']):.2f}", flush=True)


if __name__ == "__main__":
    main()
