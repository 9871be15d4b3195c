#!/usr/bin/env python3
"""bench/profile.py — apsp from Python: CPU vs naive GPU vs best GPU vs SciPy across V.

For each V it builds one course-like random graph (E = min(5M, V^2/4) distinct edges, integer
weights 0..1000, fixed seed; apsp.generate("uniform")), then times each backend:

  cpu         apsp.solve(g, backend="cpu")   whole call from Python (matrix build + rounds)
  cpu-1t      the same on one thread (threads=1): no barriers, steadier on a shared machine
  cuda        apsp.solve(g, backend="cuda")  whole call (build, H2D, rounds, D2H)
  cuda-naive  the course-style 64x64 kernels ("course 64x64" row of `apsp bench --backend cuda`):
              device time of the rounds only, measured by the CLI with CUDA events on its own
              random graph of the same V (Floyd-Warshall's work does not depend on the edges)
  scipy       scipy.sparse.csgraph.shortest_path(csr, method="FW"): SciPy's Floyd-Warshall
  scipy-d     the same with method="D" (Dijkstra from every vertex)

One warm-up, then the median of --trials runs (and the best run). Reported: total seconds (the Python call),
compute seconds (the solver's own compute timing; device time for GPU rows), G updates/s =
V^3 / total seconds, and a verification against SciPy's Dijkstra (every source up to
--verify-full, else 4 sampled sources). Backends that are not built or have no device are written as
rows with status "not available: <why>", so one script serves CPU-only and GPU machines.

Writes <out>.csv (with a '#' header naming machine, date, commit, load and --note) and
<out>_time.png, <out>_rate.png; by default <out> is bench/results/profile-HOST-DATE-TIME, a new
file, and an --out whose files git tracks is refused unless --overwrite. The plots draw
device-only times (cuda-naive) dashed, apart from the whole calls.

    PYTHONPATH=build/python python3 bench/profile.py --sizes 256,512,1024 \\
        --note "2 shared cores, other agents compiling"
    PYTHONPATH=build/python python3 bench/profile.py --backends cpu,cuda-naive,cuda,scipy \\
        --sizes 1000,2048,5000,10000 --out bench/results/profile_h100
"""
import argparse
import csv
import datetime
import io
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import numpy as np

ALL_BACKENDS = ("cpu", "cpu-1t", "cuda-naive", "cuda", "scipy", "scipy-d")
REPO = Path(__file__).resolve().parents[1]


def import_apsp(build):
    if build:
        sys.path.insert(0, str(Path(build) / "python"))
    try:
        import apsp  # noqa: F401
    except ImportError as e:
        sys.exit(f"cannot import apsp ({e}); build it and set PYTHONPATH=<build>/python (or pass --build <build>)")
    return sys.modules["apsp"]


def machine_header(apsp, args):
    cpu = platform.processor() or "?"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    try:
        if (REPO / ".commit").is_file():  # a `git archive` snapshot (scripts/gpu_check.sh) names its commit
            raise FileExistsError
        commit = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"], capture_output=True,
                                text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(REPO), "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True).stdout.strip()
        commit += " (working tree has uncommitted changes)" if dirty else ""
    except FileExistsError:
        commit = (REPO / ".commit").read_text().strip() + " (snapshot)"
    except (OSError, subprocess.CalledProcessError):
        commit = "unknown"
    import scipy
    lines = [
        f"apsp bench/profile.py, {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M UTC}",
        f"machine: {platform.node()}, {cpu}, {os.cpu_count()} logical CPUs, {platform.platform()}",
        f"commit: {commit}; module: {apsp.__file__}",
        f"python {platform.python_version()}, numpy {np.__version__}, scipy {scipy.__version__}",
        "backends: " + "; ".join(f"{b['name']}={'usable' if b['usable'] else 'no'} ({b['detail']})"
                                 for b in apsp.backends()),
        f"load average at start: {' '.join(f'{x:.2f}' for x in os.getloadavg())}",
        f"graph: uniform random, E = min(5M, V^2/4), weights {args.wmin}..{args.wmax}, seed {args.seed}; "
        f"dtype {args.dtype}; 1 warm-up + median of {args.trials}",
        "columns: total_s = median wall time of the Python call, best_total_s = its fastest run; compute_s = the solver's own compute timing "
        "(device time for cuda-naive); gupdates_per_s = V^3 / total_s (/ compute_s where there is no total)",
    ]
    if args.note:
        lines.append(f"note: {args.note}")
    return lines


def median_time(fn, trials):
    """(median seconds, best seconds, last result) over `trials` runs after one warm-up."""
    fn()  # warm-up
    times, out = [], None
    for _ in range(trials):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), min(times), out


def as_float(dist, apsp):
    d = np.asarray(dist, dtype=np.float64)
    if dist.dtype == np.int32:
        d[dist == apsp.UNREACHABLE_INT32] = np.inf
    elif dist.dtype == np.int64:
        d[dist == apsp.UNREACHABLE_INT64] = np.inf
    return d


class Reference:
    """SciPy distances for one graph, computed lazily (full matrix or sampled sources)."""

    def __init__(self, csr, full_limit, seed):
        self.csr, self.full_limit = csr, full_limit
        n = csr.shape[0]
        rng = np.random.default_rng(seed)
        self.rows = np.arange(n) if n <= full_limit else np.sort(rng.choice(n, size=min(4, n), replace=False))
        self._want = None

    def check(self, dist, apsp):
        from scipy.sparse.csgraph import shortest_path
        if self._want is None:
            self._want = shortest_path(self.csr, method="D", indices=self.rows)
        got = as_float(np.asarray(dist)[self.rows], apsp)
        bad = int(np.sum(got != self._want))
        what = "full" if len(self.rows) == self.csr.shape[0] else f"{len(self.rows)} sampled rows"
        return f"PASS ({what})" if bad == 0 else f"FAIL ({bad} mismatches, {what})"


def cli_for(apsp, args):
    if args.cli:
        return Path(args.cli)
    return Path(apsp.__file__).resolve().parents[2] / "apsp"  # <build>/python/apsp/__init__.py -> <build>/apsp


def cuda_naive_rows(apsp, args, sizes):
    """{V: (seconds, status)} from `apsp bench --backend cuda`'s baseline row, or a reason."""
    usable = {b["name"]: b for b in apsp.backends()}
    cuda = usable.get("cuda")
    if not cuda or not cuda["usable"]:
        why = cuda["detail"] if cuda else "no cuda backend in this build"
        return {v: (None, f"not available: {why}") for v in sizes}
    cli = cli_for(apsp, args)
    if not cli.exists():
        return {v: (None, f"not available: CLI {cli} not found (pass --cli)") for v in sizes}
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "bench.csv"
        cmd = [str(cli), "bench", "--backend", "cuda", "--sizes", ",".join(map(str, sizes)), "--type", args.dtype,
               "--trials", str(args.trials), "--seed", str(args.seed), "--csv", str(out)]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0 or not out.exists():
            msg = (proc.stderr or proc.stdout).strip().splitlines()[-1:] or ["?"]
            return {v: (None, f"not available: `apsp bench` failed: {msg[0]}") for v in sizes}
        rows = {}
        for r in csv.DictReader(io.StringIO(out.read_text())):
            if r["variant"] == args.naive_variant:
                rows[int(r["V"])] = (float(r["seconds"]), r["verification"] + " (device time; apsp bench)")
    return {v: rows.get(v, (None, f"not available: no '{args.naive_variant}' row")) for v in sizes}


def run(args):
    apsp = import_apsp(args.build)
    import scipy.sparse as sp
    from scipy.sparse.csgraph import shortest_path

    sizes = [int(s) for s in args.sizes.split(",")]
    backends = [b.strip() for b in args.backends.split(",")]
    for b in backends:
        if b not in ALL_BACKENDS:
            sys.exit(f"unknown backend {b!r} (choose from {', '.join(ALL_BACKENDS)})")
    header = machine_header(apsp, args)
    for line in header:
        print("#", line)
    info = {b["name"]: b for b in apsp.backends()}
    naive = cuda_naive_rows(apsp, args, sizes) if "cuda-naive" in backends else {}

    rows = []
    for V in sizes:
        E = min(5_000_000, V * V // 4, V * (V - 1))
        g = apsp.generate("uniform", n=V, m=max(E, 1) if V > 1 else 0, wmin=args.wmin, wmax=args.wmax,
                          seed=args.seed + V)
        csr = sp.csr_matrix((g.weight, (g.src, g.dst)), shape=(V, V))
        ref = Reference(csr, args.verify_full, args.seed)
        updates = float(V) ** 3
        for b in backends:
            row = {"V": V, "E": g.num_edges, "backend": b, "total_s": "", "best_total_s": "", "compute_s": "",
                   "gupdates_per_s": "", "status": ""}
            try:
                if b in ("cpu", "cpu-1t", "cuda"):
                    name, threads = ("cpu", 1) if b == "cpu-1t" else (b, None)
                    if not info.get(name, {}).get("usable"):
                        row["status"] = f"not available: {info.get(name, {}).get('detail', 'not in this build')}"
                    else:
                        sec, best, r = median_time(
                            lambda: apsp.solve(g, backend=name, dtype=args.dtype, threads=threads), args.trials)
                        row.update(total_s=sec, best_total_s=best, compute_s=r.timings["compute"],
                                   gupdates_per_s=updates / sec / 1e9, status=ref.check(r.dist, apsp))
                elif b == "cuda-naive":
                    sec, status = naive[V]
                    if sec is not None:
                        row.update(compute_s=sec, gupdates_per_s=updates / sec / 1e9)
                    row["status"] = status
                else:
                    method = "FW" if b == "scipy" else "D"
                    if V > args.scipy_max_v:
                        row["status"] = f"skipped: V > --scipy-max-v {args.scipy_max_v}"
                    else:
                        sec, best, d = median_time(lambda: shortest_path(csr, method=method), args.trials)
                        row.update(total_s=sec, best_total_s=best, gupdates_per_s=updates / sec / 1e9,
                                   status=ref.check(d, apsp))
            except Exception as e:  # keep going: one failing backend should not lose the table
                row["status"] = f"error: {type(e).__name__}: {e}"
            rows.append(row)
            print(f"V={V:6d} {b:10s} total={fmt(row['total_s'])} compute={fmt(row['compute_s'])} "
                  f"G updates/s={fmt(row['gupdates_per_s'], '.2f')} {row['status']}", flush=True)
    header.append(f"load average at end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    write_outputs(Path(args.out), header, rows)


def default_out():
    """A prefix no earlier run wrote: bench/results/profile-HOST-YYYYmmdd-HHMMSS (UTC)."""
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%d-%H%M%S")
    host = "".join(c if c.isalnum() or c in "-_" else "_" for c in platform.node()) or "host"
    return str(REPO / "bench" / "results" / f"profile-{host}-{stamp}")


def output_paths(out):
    out = Path(out)
    return [out.with_suffix(".csv")] + [out.parent / f"{out.name}_{k}.png" for k in ("time", "rate")]


def tracked(paths):
    """The paths among `paths` that git tracks (none outside a git checkout)."""
    found = []
    for path in paths:
        proc = subprocess.run(["git", "-C", str(path.parent), "ls-files", "--error-unmatch", path.name],
                              capture_output=True, text=True) if path.parent.is_dir() else None
        if proc is not None and proc.returncode == 0:
            found.append(path)
    return found


def fmt(x, spec=".5f"):
    return "-" if x == "" else format(x, spec)


def write_outputs(out, header, rows, csv_too=True):
    out.parent.mkdir(parents=True, exist_ok=True)
    if csv_too:
        with open(out.with_suffix(".csv"), "w", newline="") as f:
            for line in header:
                f.write(f"# {line}\n")
            w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
            w.writeheader()
            for r in rows:
                w.writerow({k: (f"{v:.6g}" if isinstance(v, float) else v) for k, v in r.items()})
        print(f"wrote {out.with_suffix('.csv')}")

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    series = {}
    for r in rows:
        y_time = r["total_s"] if r["total_s"] != "" else r["compute_s"]
        if y_time != "":
            series.setdefault(r["backend"], []).append((r["V"], y_time, r["gupdates_per_s"]))
    missing = sorted({r["backend"] for r in rows} - set(series))
    keep = [h for h in header if h.startswith(("apsp bench", "machine", "commit", "load", "note"))]
    keep += [f"no timings (not available / not run): {', '.join(missing)}"] if missing else []
    subtitle = "\n".join(textwrap.fill(h, 150, subsequent_indent="    ") for h in keep)
    bottom = 0.02 + 0.022 * (subtitle.count("\n") + 1)
    for kind, col, ylabel, log in (("time", 1, "seconds (median)", True), ("rate", 2, "G updates/s = V^3 / s", True)):
        fig, ax = plt.subplots(figsize=(8, 6))
        for name, pts in series.items():
            pts.sort()
            device_only = name == "cuda-naive"
            label = name + (" (device time of the rounds only, not a whole call)" if device_only else "")
            ax.plot([p[0] for p in pts], [p[col] for p in pts], marker="o", label=label,
                    linestyle="--" if device_only else "-", fillstyle="none" if device_only else "full")
        ax.set_xlabel("V (vertices)")
        ax.set_ylabel(ylabel)
        ax.set_xscale("log")
        if log:
            ax.set_yscale("log")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend()
        ax.set_title("apsp: all-pairs shortest paths from Python", fontsize=11)
        fig.text(0.01, 0.005, subtitle, fontsize=6.5, va="bottom")
        fig.tight_layout(rect=(0, bottom, 1, 1))
        path = out.parent / f"{out.name}_{kind}.png"
        fig.savefig(path, dpi=110)
        plt.close(fig)
        print(f"wrote {path}")


def replot(path):
    """Redraws <stem>_time.png and <stem>_rate.png from a CSV this script wrote."""
    text = Path(path).read_text().splitlines()
    header = [line[2:] for line in text if line.startswith("# ")]
    rows = list(csv.DictReader(line for line in text if not line.startswith("#")))
    for r in rows:
        r["V"] = int(r["V"])
        for k in ("total_s", "best_total_s", "compute_s", "gupdates_per_s"):
            r[k] = float(r[k]) if r.get(k) else ""
    write_outputs(Path(path).with_suffix(""), header, rows, csv_too=False)


def parse(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    p.add_argument("--backends", default="cpu,cuda-naive,cuda,scipy",
                   help=f"comma separated, from {', '.join(ALL_BACKENDS)} (default: %(default)s)")
    p.add_argument("--sizes", default="128,256,512,1024", help="V values, comma separated (default: %(default)s)")
    p.add_argument("--trials", type=int, default=3, help="timed runs per point after one warm-up (median)")
    p.add_argument("--dtype", default="int32", choices=("int32", "int64", "float32", "float64"))
    p.add_argument("--wmin", type=int, default=0)
    p.add_argument("--wmax", type=int, default=1000)
    p.add_argument("--seed", type=int, default=42)
    p.add_argument("--scipy-max-v", type=int, default=3000, help="skip SciPy above this V (default: %(default)s)")
    p.add_argument("--verify-full", type=int, default=1024, help="compare whole matrices up to this V")
    p.add_argument("--naive-variant", default="course 64x64", help="`apsp bench` variant for cuda-naive")
    p.add_argument("--build", help="build directory (adds <build>/python to sys.path; default: PYTHONPATH)")
    p.add_argument("--cli", help="the apsp CLI for cuda-naive (default: <build>/apsp next to the module)")
    p.add_argument("--out", default=None,
                   help="output prefix: <out>.csv, <out>_time.png, <out>_rate.png (default: "
                        "bench/results/profile-HOST-DATE-TIME)")
    p.add_argument("--overwrite", action="store_true", help="let --out replace files git tracks")
    p.add_argument("--note", default="", help="free text for the header (machine load, what else ran)")
    p.add_argument("--replot", metavar="CSV", help="only redraw the PNGs of a CSV this script wrote")
    args = p.parse_args(argv)
    if args.replot:
        return args
    if args.trials < 1:
        p.error("--trials must be >= 1")
    args.out = args.out or default_out()
    kept = [] if args.overwrite else tracked(output_paths(args.out))
    if kept:
        p.error(f"--out {args.out} would overwrite {', '.join(str(k) for k in kept)}, tracked by git "
                f"(shipped results): choose another --out, or pass --overwrite")
    return args


def main():
    args = parse()
    if args.replot:
        return replot(args.replot)
    run(args)


if __name__ == "__main__":
    main()
