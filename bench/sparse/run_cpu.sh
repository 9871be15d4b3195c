#!/bin/bash
# bench/sparse/run_cpu.sh — issue 21 on the CPU: a V=16384 k=4 geometric graph with --order nd,
# --order none (dense, slow: minutes on 2 cores) and SciPy's all-pairs Dijkstra (checked against
# apsp's output), then a course-like random V=4096 graph and a 64 x 64 grid with auto vs none.
#   bench/sparse/run_cpu.sh [BUILD_DIR=build/release] [WORK_DIR=/tmp/apsp-sparse-bench] [dense=1]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
apsp=$root/${1:-build/release}/apsp
w=${2:-/tmp/apsp-sparse-bench}
dense=${3:-1}
mkdir -p "$w"
run() { echo "-- $* | load $(cut -d' ' -f1-3 /proc/loadavg)"; /usr/bin/time -f "wall %e s" "$apsp" solve "$@" --backend cpu --stats -q 2>&1 | grep -E "compute|total|order|wall"; }
echo "== $(date -u) $(git -C "$root" rev-parse --short HEAD)"
"$apsp" generate "$w/geo16k.bin" --kind geometric -V 16384 -k 4
for i in 1 2 3; do run "$w/geo16k.bin" "$w/nd.bin" --order nd; done
if [ "$dense" = 1 ]; then
  run "$w/geo16k.bin" "$w/none.bin" --order none
  cmp "$w/nd.bin" "$w/none.bin" && echo "nd.bin == none.bin (byte-identical)"
fi
/usr/bin/time -f "wall %e s" /usr/bin/python3 "$root/bench/sparse/scipy_dijkstra.py" "$w/geo16k.bin" --check "$w/nd.bin"
"$apsp" generate "$w/rand4k.bin" -V 4096
for i in 1 2 3; do for o in auto none; do run "$w/rand4k.bin" "$w/r_$o.bin" --order $o; done; done
cmp "$w/r_auto.bin" "$w/r_none.bin" && echo "random: auto == none"
"$apsp" generate "$w/grid64.bin" --kind grid --rows 64 --cols 64
for i in 1 2; do for o in auto none; do run "$w/grid64.bin" "$w/g_$o.bin" --order $o; done; done
cmp "$w/g_auto.bin" "$w/g_none.bin" && echo "grid: auto == none"
echo "== $(date -u) done"
