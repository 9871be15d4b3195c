#!/usr/bin/env bash
# bench/sparse/run_gpu.sh — sparse rounds on one GPU (issue 21): --order nd against --order none
# on the cuda backend, same GPU, same run, outputs compared byte for byte (cmp) and deleted.
# Graphs: a 256 x 256 grid and a geometric graph (V = 65536, k = 4), and a course-like random
# graph (V = 16384, 5M edges: auto must keep the dense rounds). Prints compute and wall time per
# run. Usage: bench/sparse/run_gpu.sh [path/to/apsp]; APSP_BENCH_OUT = where the outputs go
# (default /tmp; the dense V = 65536 outputs are 16 GiB each).
set -euo pipefail
APSP=${1:-build/release/apsp}
OUT=${APSP_BENCH_OUT:-/tmp}/apsp_sparse_bench.$$
mkdir -p "$OUT"
trap 'rm -rf "$OUT"' EXIT
"$APSP" info | head -5 || true

"$APSP" generate "$OUT/grid.bin" --kind grid --rows 256 --cols 256
"$APSP" generate "$OUT/geo.bin" --kind geometric -V 65536 -k 4
"$APSP" generate "$OUT/random.bin" --kind uniform -V 16384

# run NAME GRAPH OUT ORDER: one solve, its --stats (JSON) kept in $OUT/NAME.json.
run() {
  local name=$1 graph=$2 out=$3 order=$4
  local t0 t1
  t0=$(date +%s.%N)
  "$APSP" solve "$graph" "$out" --backend cuda --order "$order" --stats "$OUT/$name.json" -q
  t1=$(date +%s.%N)
  python3 - "$OUT/$name.json" "$name" "$t0" "$t1" <<'PY'
import json, sys
s = json.loads(open(sys.argv[1]).read().strip().splitlines()[-1])
wall = float(sys.argv[4]) - float(sys.argv[3])
print(f"{sys.argv[2]:<16} order={s['order']:<28} compute {s['compute_s']:8.3f} s  wall {wall:8.2f} s  "
      f"(h2d {s['h2d_s']:.3f}, d2h {s['d2h_s']:.3f}, write {s['write_s']:.3f}, ordering {s['order_s']:.3f}, "
      f"symbolic {s['symbolic_s']:.4f}, unpermute {s['unpermute_s']:.3f}, work {100 * s['work_fraction']:.2f}%, "
      f"rounds {s['rounds']})")
PY
}

for g in grid geo; do
  run "$g-nd" "$OUT/$g.bin" "$OUT/$g-nd.out" nd
  run "$g-none" "$OUT/$g.bin" "$OUT/$g-none.out" none
  if cmp -s "$OUT/$g-nd.out" "$OUT/$g-none.out"; then echo "$g: nd output identical to none"
  else echo "$g: OUTPUTS DIFFER"; exit 1; fi
  rm -f "$OUT/$g-nd.out" "$OUT/$g-none.out"
done
run random-auto "$OUT/random.bin" "$OUT/random-auto.out" auto
run random-none "$OUT/random.bin" "$OUT/random-none.out" none
if cmp -s "$OUT/random-auto.out" "$OUT/random-none.out"; then echo "random: auto output identical to none"
else echo "random: OUTPUTS DIFFER"; exit 1; fi
