#!/usr/bin/env python3
"""bench/batch_small_graphs.py — apsp.batch on a molecule-like dataset vs per-graph loops.

The dataset (seeded): GRAPHS graphs of 10..60 nodes, a chain backbone plus n/6 ring bonds
(mean degree ~2.3), unweighted, both directions in a PyG-style edge_index + ptr. Timed (wall
seconds, median of TRIALS after one warm-up; the loops once, on a SUBSET, scaled per graph):
  apsp.batch distances (max_dist=20), int32 and int8; with return_paths=True, max_len=5 in the
  flat layout (int64 ids: 5.6 GB for this set; padded (B, 60, 60, 5) would be 14.4 GB);
  SciPy's shortest_path per graph (what dgl.shortest_dist does: CSR, unweighted, directed);
  Floyd-Warshall per graph written as Graphormer's algos.pyx loop (k outer; the i, j loops as
  one NumPy broadcast per k, unreachable 510) — NumPy, not Cython (no Cython here);
  apsp.shortest_path per graph (the per-call cost apsp.batch removes).
Verification: apsp.batch equals SciPy on the subset (unreachable -1, clipped at 20).

    PYTHONPATH=build/cpu-only/python python3 bench/batch_small_graphs.py [GRAPHS [SUBSET]]
        [--backend auto|cpu|cuda] [--torch-cuda] [--no-loops]

--backend picks apsp.batch's engine (default auto: the GPU where one is usable and the batch is
large). --torch-cuda adds rows with the packed arrays already on the GPU as torch tensors and the
result left there (needs torch with CUDA: the device image's /opt/torch/.venv). --no-loops skips
the per-graph loops and the verification against SciPy (then SciPy need not be installed).
Every row also says graphs/s.
"""
import argparse
import os
import statistics
import time

import numpy as np

import apsp

TRIALS = 3


def dataset(count, seed=2026):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(10, 61, count)
    ptr = np.concatenate(([0], np.cumsum(sizes))).astype(np.int64)
    cols = []
    for b, n in enumerate(sizes):
        chain = np.stack([np.arange(n - 1), np.arange(1, n)])
        ring = rng.integers(0, n, (2, n // 6))
        e = np.concatenate([chain, ring], axis=1) + ptr[b]
        cols.append(np.concatenate([e, e[::-1]], axis=1))
    return ptr, np.concatenate(cols, axis=1).astype(np.int64)


def split(ptr, ei, count):
    """Per-graph (src, dst, n) for the first `count` graphs (edges are grouped by graph)."""
    bounds = np.searchsorted(ei[0], ptr[:count + 1])
    return [(ei[0, bounds[b]:bounds[b + 1]] - ptr[b], ei[1, bounds[b]:bounds[b + 1]] - ptr[b],
             int(ptr[b + 1] - ptr[b])) for b in range(count)]


def median_time(f):
    f()
    times = []
    for _ in range(TRIALS):
        t0 = time.perf_counter()
        f()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def once(f):
    t0 = time.perf_counter()
    out = f()
    return time.perf_counter() - t0, out


def scipy_loop(graphs):
    import scipy.sparse as sp  # only for the loops: --no-loops runs without SciPy
    from scipy.sparse import csgraph
    out = []
    for s, d, n in graphs:
        m = sp.csr_matrix((np.ones(len(s)), (s, d)), shape=(n, n))
        out.append(csgraph.shortest_path(m, unweighted=True, directed=True))
    return out


def graphormer_fw_loop(graphs):
    """Graphormer's floyd_warshall shape: M = adjacency (510 = none, 0 diagonal), then for k,
    M[i, j] = min(M[i, j], M[i, k] + M[k, j]); here the i, j loops are one NumPy step per k."""
    out = []
    for s, d, n in graphs:
        m = np.full((n, n), 510, dtype=np.int64)
        m[s, d] = 1
        np.fill_diagonal(m, 0)
        for k in range(n):
            np.minimum(m, m[:, k, None] + m[None, k, :], out=m)
        out.append(m)
    return out


def apsp_loop(graphs):
    return [apsp.shortest_path((s, d), num_vertices=n, unweighted=True, method="FW")
            for s, d, n in graphs]


def verify(dist, ref):
    for b, r in enumerate(ref):
        n = r.shape[0]
        want = np.where(np.isinf(r), -1, np.minimum(r, 20))
        if not np.array_equal(dist[b, :n, :n], want):
            return f"FAIL (graph {b})"
    return "PASS"


def torch_cuda_rows(ptr, ei, count, backend):
    """apsp.batch with the packed arrays on the GPU as torch tensors, the result left there."""
    import torch
    dev = torch.device("cuda", 0)
    t_ei, t_ptr = torch.from_numpy(ei).to(dev), torch.from_numpy(ptr).to(dev)

    def run(**kw):
        out = apsp.batch(edge_index=t_ei, ptr=t_ptr, max_dist=20, backend=backend, **kw)
        torch.cuda.synchronize()
        return out
    return [("apsp.batch int8, torch CUDA in and out", median_time(lambda: run(dtype="int8")),
             count),
            ("apsp.batch int32, torch CUDA in and out", median_time(lambda: run()), count)]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("graphs", type=int, nargs="?", default=100_000)
    ap.add_argument("subset", type=int, nargs="?", default=10_000)
    ap.add_argument("--backend", default="auto", choices=["auto", "cpu", "cuda"])
    ap.add_argument("--torch-cuda", action="store_true")
    ap.add_argument("--no-loops", action="store_true")
    args = ap.parse_args()
    count, subset = args.graphs, min(args.subset, args.graphs)
    t0 = time.perf_counter()
    ptr, ei = dataset(count)
    print(f"dataset: {count} graphs, {int(ptr[-1])} nodes, {ei.shape[1]} directed edges, "
          f"made in {time.perf_counter() - t0:.2f} s; load average {os.getloadavg()}")
    print(f"backend={args.backend}; apsp backends: "
          + ", ".join(f"{b['name']}={'usable' if b['usable'] else 'no'}"
                      for b in apsp.backends()))
    run = lambda **kw: apsp.batch(edge_index=ei, ptr=ptr, max_dist=20,  # noqa: E731
                                  backend=args.backend, **kw)
    rows = [("apsp.batch int32", median_time(lambda: run()), count),
            ("apsp.batch int8", median_time(lambda: run(dtype="int8")), count),
            ("apsp.batch int8 + paths (max_len 5), flat",
             median_time(lambda: run(dtype="int8", return_paths=True, max_len=5, layout="flat")),
             count)]
    if args.torch_cuda:
        rows += torch_cuda_rows(ptr, ei, count, args.backend)
    if not args.no_loops:
        graphs = split(ptr, ei, subset)
        t_scipy, ref = once(lambda: scipy_loop(graphs))
        rows.append(("SciPy shortest_path per graph (DGL)", t_scipy, subset))
        t_fw = once(lambda: graphormer_fw_loop(graphs))[0]
        rows.append(("Graphormer-style FW per graph (NumPy)", t_fw, subset))
        small = min(subset, 2000)
        rows.append(("apsp.shortest_path per graph", once(lambda: apsp_loop(graphs[:small]))[0],
                     small))
        print(f"Verification: {verify(run(dtype='int8')[:subset], ref)}")
    batch_rate = rows[0][1] / count
    print(f"{'what':42} {'graphs':>8} {'seconds':>9} {'us/graph':>9} {'graphs/s':>10} "
          f"{'x apsp.batch int32':>19}")
    for name, secs, n in rows:
        per = secs / n
        print(f"{name:42} {n:8d} {secs:9.3f} {per * 1e6:9.1f} {1 / per:10.0f} "
              f"{per / batch_rate:19.1f}")
    print(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
