"""Times apsp.solve(..., backend="cuda", device_result=True) from Python as PATHPACK.jl's users time
its GPU solve (issue 31): a cold call (the process's first solve after the CUDA start-up) and warm
ones, the distances left in GPU memory, then torch.from_dlpack on them (no copy). Usage:
    python3 bench/sparse/device_result.py [ROWS] [TRIALS]     (grid ROWS x ROWS, weights 1..1000)
Prints one line per trial and whether torch saw the same memory.
"""
import sys
import time

import numpy as np

import apsp

rows = int(sys.argv[1]) if len(sys.argv) > 1 else 355
trials = int(sys.argv[2]) if len(sys.argv) > 2 else 3
g = apsp.generate("grid", rows=rows, cols=rows, wmin=1, wmax=1000, seed=1)
for dtype in (np.int32, np.float32):
    for trial in range(trials):
        t0 = time.perf_counter()
        r = apsp.solve(g, backend="cuda", order="sn", dtype=dtype, device_result=True)
        s = time.perf_counter() - t0
        t = r.timings
        print(f"grid {rows}x{rows} V={rows * rows} {np.dtype(dtype).name} trial {trial}: {s:.4f} s "
              f"(build {t['build']:.4f} incl. ordering, h2d {t['h2d']:.4f}, compute "
              f"{t['compute']:.4f}) -> {r.dist!r}", flush=True)
        del r
try:
    import torch
    r = apsp.solve(g, backend="cuda", order="sn", device_result=True)
    x = torch.from_dlpack(r.dist)
    print(f"torch.from_dlpack: {x.device} {x.dtype} {tuple(x.shape)} same memory "
          f"{x.data_ptr() == r.dist.__cuda_array_interface__['data'][0]}; d[0, -1] = {int(x[0, -1])}")
except ImportError:
    print("torch not installed here: from_dlpack not tried")
