"""method='auto''s cost model: predicted seconds of Floyd-Warshall (dense or nested-dissection
rounds) and of per-source Dijkstra, from rates measured once per machine.

Floyd-Warshall's dense rounds make n_pad^3 min-plus updates (4-byte and 8-byte types have their
own rate); with order 'nd' a work fraction of them (the cpu backend's plan, from
``_core.cpu_order_plan``), plus ordering, and per result element the unpermute and copies.
Per-source Dijkstra costs, per source, thread-seconds per arc and per heap step (V log2 V).
Rates are processor time (other processes' load does not skew them), spread over the threads.
``rates()`` measures these on small generated graphs (about half a second), keeps them in memory
and in ``$XDG_CACHE_HOME/apsp/rates.json`` (``~/.cache``), keyed by this machine's CPU and thread
count; a cache that cannot be read or written is measured again or kept in memory only. Problems
small enough that either method takes milliseconds by the built-in rates never measure.
"""
import json
import math
import os
import time

import numpy as np

from . import _core

# Built-in rates (the 2-core AVX-512 development VM; updates per thread-second, thread-seconds
# per element, arc and heap step): for problems too small to measure for.
DEFAULT_RATES = {"fw4": 5.0e10, "fw8": 2.5e10, "nd_per_element": 2.0e-8,
                 "arc": 1.0e-8, "heap": 5.0e-9, "threads": 2}
# Predicted differences below this keep Floyd-Warshall, auto's answer on small graphs (their
# refusals and tie rules are the ones python/README.md describes for 'auto').
_TIE_S = 1e-3
_CALIBRATE_ABOVE_S = 0.02   # predicted seconds of the cheaper method before rates are measured
_FW_UPDATES_GPU = 2e12      # a floor: float64 on an H100 (docs/cuda-notes.md); not measured here
_CACHE_FORMAT = 1
_rates = None


def _cpu_model():
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown"


def _machine_key():
    return {"format": _CACHE_FORMAT, "version": getattr(_core, "__version__", "?"),
            "cpu": _cpu_model(), "threads": _threads()}


def cache_path():
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "apsp", "rates.json")


def _read_cache(key):
    try:
        with open(cache_path(), encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("key") != key:
        return None
    rates = data.get("rates")
    ok = isinstance(rates, dict) and all(
        isinstance(rates.get(k), (int, float)) and rates[k] > 0 for k in DEFAULT_RATES)
    return rates if ok else None


def _write_cache(key, rates):
    path = cache_path()
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        tmp = f"{path}.tmp.{os.getpid()}"
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump({"key": key, "rates": rates}, f, indent=1)
        os.replace(tmp, path)
    except OSError:
        pass  # a read-only home: the rates stay in memory for this process


def _cpu_seconds(fn, trials=2):
    """The least processor time (all threads) of `trials` calls: other processes on the machine
    slow the wall clock, not this."""
    best = math.inf
    for _ in range(trials):
        t0 = time.process_time()
        fn()
        best = min(best, time.process_time() - t0)
    return max(best, 1e-6)


def _measure_fw(dtype, n):
    """Updates per thread-second of the dense rounds."""
    g = _core.generate_uniform(n, 8 * n, 1, 1000, 7)
    return n ** 3 / _cpu_seconds(lambda: _core.solve(g, "cpu", dtype, 0, 0, False, "none"))


def _measure_per_source(n, m, k):
    """Thread-seconds per source, from k sources on all threads."""
    g = _core.generate_uniform(n, m, 1, 1000, 11)
    src = np.arange(k, dtype=np.int32)
    return _cpu_seconds(lambda: _core.per_source(g, src, math.inf, False, False, 0)) / k


def _measure_nd(fw8):
    """Thread-seconds per result element of nd rounds beyond their updates and ordering
    (unpermuting, copies)."""
    g = _core.generate_grid(40, 40, 1, 1000, 13)
    n = g.num_vertices
    order_s = _cpu_seconds(lambda: _core.cpu_order_plan(g, "float64", 0), 1)
    info = []
    t = _cpu_seconds(lambda: info.append(_core.solve(g, "cpu", "float64", 0, 0, False, "nd")[2]))
    rounds = info[0]["work_fraction"] * n ** 3 / fw8
    return max(t - order_s - rounds, 0.0) / n ** 2 + 1e-10


def _threads():
    return _core.max_threads() // 4  # the processors this process may run on


def measure():
    """This machine's rates (a fraction of a second): dense rounds at V = 768 in both element
    sizes, Dijkstra on V = 4096 with 2 and 24 arcs a vertex, and nd rounds on a 40 x 40 grid."""
    fw4, fw8 = _measure_fw("int32", 768), _measure_fw("float64", 768)
    n, few, many = 4096, 2 * 4096, 24 * 4096
    t_few, t_many = _measure_per_source(n, few, 96), _measure_per_source(n, many, 96)
    floor = 1e-11  # a noisy difference must not give a free arc or heap step
    arc = max((t_many - t_few) / (many - few), floor)
    heap = max((t_few - arc * few) / (n * math.log2(n + 2)), floor)
    return {"fw4": fw4, "fw8": fw8, "nd_per_element": _measure_nd(fw8), "arc": arc,
            "heap": heap, "threads": _threads()}


def rates():
    """The measured rates: from memory, else the cache file, else measured (and cached)."""
    global _rates
    if _rates is None:
        key = _machine_key()
        found = _read_cache(key)
        if found is None:
            found = measure()
            _write_cache(key, found)
        _rates = found
    return _rates


def fw_seconds(r, n, esize, threads, gpu, plan=None):
    """Floyd-Warshall on n vertices in esize-byte elements; plan = (work fraction, ordering
    seconds) for nd rounds on the cpu, None for dense rounds."""
    if gpu:
        return n ** 3 / _FW_UPDATES_GPU
    n_pad = -(-n // 32) * 32
    rate = r["fw4" if esize == 4 else "fw8"] * max(1, min(threads, r["threads"]))
    if plan is None:
        return n_pad ** 3 / rate
    wf, order_s = plan
    per_element = r["nd_per_element"] / max(1, min(threads, r["threads"]))
    return order_s + wf * n_pad ** 3 / rate + per_element * n * n


def per_source_seconds(r, n, k, arcs, threads):
    """Per-source Dijkstra from k sources: each reads every arc and pops every vertex."""
    per_source = arcs * r["arc"] + n * math.log2(n + 2) * r["heap"]
    return k * per_source / max(1, min(threads, k, r["threads"]))


def calibrated(n, k, arcs, esize, threads):
    """The rates for this problem: the built-in ones where both methods are quick by them."""
    if _rates is not None:
        return _rates
    d = DEFAULT_RATES
    quick = min(fw_seconds(d, n, esize, threads, False), per_source_seconds(d, n, k, arcs, threads))
    return d if quick < _CALIBRATE_ABOVE_S else rates()


def choose(r, n, k, arcs, esize, threads, gpu, nd_plan=None):
    """method='auto''s choice -> ("FW" or "D", the order for the FW solve, predicted seconds
    {"FW": s, "D": s}). nd_plan(): _core.cpu_order_plan's answer for the graph (None: FW would not
    run on the cpu). Its ordering is the one the solve's order='auto' would make: where it keeps
    the dense rounds, the solve gets order 'none' and does not make it again."""
    t_d = per_source_seconds(r, n, k, arcs, threads)
    order, plan = "auto", None
    if not gpu and nd_plan is not None:
        _, wf, order_s = nd_plan()
        if wf < 1:
            plan = (wf, order_s)
        else:
            order = "none"
    t_fw = fw_seconds(r, n, esize, threads, gpu, plan)
    return ("D" if t_d < t_fw - _TIE_S else "FW"), order, {"FW": t_fw, "D": t_d}
