#!/usr/bin/env python3
"""bench/dense_input.py — a dense NumPy matrix into apsp.shortest_path: time and peak memory.

Each variant runs in a fresh Python process (so its peak RSS is its own): the V x V array is made,
then apsp.shortest_path(A, dtype=np.float32, backend=B) is timed (best of --trials after one
untimed call). Variants: the dense array read in place ("dense"), the same graph as a CSR matrix
("csr": the edge-list path, 12+ bytes per edge), per backend. Peak RSS growth = VmHWM after the
calls (reset with /proc/self/clear_refs once the input is made, so its temporaries do not count)
minus RSS then; the float32 result (4 V^2 bytes) is part of it.

  PYTHONPATH=build/python python3 bench/dense_input.py --sizes 4000,10000 --backends cpu,cuda
"""
import argparse
import json
import subprocess
import sys

CHILD = r"""
import json, sys, time
import numpy as np
import apsp
V, form, backend, trials = int(sys.argv[1]), sys.argv[2], sys.argv[3], int(sys.argv[4])
rng = np.random.default_rng(1)
A = np.empty((V, V), dtype=np.float32)   # every pair an edge, weights 1..100
for r0 in range(0, V, 256):                # in row blocks: no V x V int64 temporary
    A[r0:r0 + 256] = rng.integers(1, 101, size=(min(256, V - r0), V))
if form == "csr":
    import scipy.sparse
    A = scipy.sparse.csr_matrix(A)
def rss_kib():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4
def hwm_kib():
    with open("/proc/self/status") as f:
        return next(int(l.split()[1]) for l in f if l.startswith("VmHWM:"))
# The peak is measured from here: the making of the input (its temporaries) must not count.
with open("/proc/self/clear_refs", "w") as f:
    f.write("5")                           # resets VmHWM to the current RSS (Linux >= 4.0)
base = rss_kib()
apsp.shortest_path(A, dtype=np.float32, backend=backend)
best = float("inf")
for _ in range(trials):
    t = time.perf_counter()
    D = apsp.shortest_path(A, dtype=np.float32, backend=backend)
    best = min(best, time.perf_counter() - t)
    del D
peak = hwm_kib()
print(json.dumps({"V": V, "form": form, "backend": backend, "best_s": best,
                  "peak_growth_mib": (peak - base) / 1024, "result_mib": 4 * V * V / 2**20}))
"""


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="4000,10000")
    ap.add_argument("--backends", default="cpu,cuda")
    ap.add_argument("--forms", default="dense,csr")
    ap.add_argument("--trials", type=int, default=3)
    a = ap.parse_args()
    print("| V | backend | input | best s | peak RSS growth MiB | of which result MiB |")
    print("|---|---|---|---|---|---|")
    for V in (int(v) for v in a.sizes.split(",")):
        for b in a.backends.split(","):
            for form in a.forms.split(","):
                p = subprocess.run([sys.executable, "-c", CHILD, str(V), form, b, str(a.trials)],
                                   capture_output=True, text=True)
                if p.returncode != 0:
                    print(f"| {V} | {b} | {form} | failed: {p.stderr.strip().splitlines()[-1:]} | | |")
                    continue
                r = json.loads(p.stdout.strip().splitlines()[-1])
                print(f"| {V} | {b} | {form} | {r['best_s']:.3f} | {r['peak_growth_mib']:.0f} | {r['result_mib']:.0f} |",
                      flush=True)


if __name__ == "__main__":
    main()
