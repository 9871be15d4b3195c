#!/usr/bin/env python3
"""bench/cpu/paths_edges_summary.py RUNS.csv — medians of paths_edges_bench.sh's runs.

One row per (graph, threads): median compute_s and whole-process wall / CPU (user + sys) seconds
of the distances-only solve and of --paths by each method, and the --paths / distances ratios.
"""
import csv
import statistics
import sys
from collections import defaultdict


def main(path):
    runs = defaultdict(list)
    loads = defaultdict(list)
    for r in csv.DictReader(open(path)):
        runs[(r["graph"], int(r["threads"]), r["mode"])].append(r)
        loads[(r["graph"], int(r["threads"]))].append(float(r["load1"]))

    def med(key, field):
        rows = runs.get(key, [])
        if not rows:
            return float("nan")
        if field == "cpu":
            return statistics.median(float(x["user_s"]) + float(x["sys_s"]) for x in rows)
        return statistics.median(float(x[field]) for x in rows)

    print("| graph | threads | trials | load | compute s: dist / edges / tracked | compute ratio edges / tracked "
          "| wall s: dist / edges / tracked | wall ratio edges / tracked | CPU s: dist / edges / tracked "
          "| CPU ratio edges / tracked |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for graph, threads in sorted(loads, key=lambda k: (k[0], k[1])):
        k = lambda m: (graph, threads, m)
        n = min(len(runs[k(m)]) for m in ("dist", "edges", "tracked"))
        cells = []
        for field in ("compute_s", "wall_s", "cpu"):
            d, e, t = (med(k(m), field) for m in ("dist", "edges", "tracked"))
            cells.append(f"{d:.3f} / {e:.3f} / {t:.3f}")
            cells.append(f"**{e / d:.2f}x** / {t / d:.2f}x")
        load = loads[(graph, threads)]
        print(f"| {graph} | {threads} | {n} | {min(load):.1f}-{max(load):.1f} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main(sys.argv[1])
