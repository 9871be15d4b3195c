#!/bin/bash
# bench/cpu/run_cpu_bench.sh — the CPU backend's benchmark record, in one run:
#   1. apsp bench --backend cpu (int32, V = 1024, 2048, 4096): ours on N threads and on 1 thread,
#      the baseline rungs (blocked + OpenMP rows, triple loop) and SciPy's floyd_warshall,
#      each checked against ours, with the min-plus ceiling measured in the same process;
#   2. the same for float32 (ours only) and int64 / float64 at V = 2048;
#   3. the whole `apsp solve` command (read, build, compute, write) on a V = 4096 course-like
#      graph, N threads and 1 thread.
# Usage: bench/cpu/run_cpu_bench.sh BUILD_DIR [OUT.md]   (default OUT: bench/results/cpu-DATE.md)
# Writes a markdown record with date, machine, commit, load and the exact commands.
set -euo pipefail
build=${1:?usage: run_cpu_bench.sh BUILD_DIR [OUT.md]}
out=${2:-bench/results/cpu-$(date -u +%F).md}
apsp="$build/apsp"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

run() {  # run CMD...: print the command and its output as a fenced block
  echo '```'
  echo "\$ $*"
  "$@" 2>&1
  echo '```'
  echo
}

{
  echo "# CPU backend benchmark — $(date -u '+%F %H:%M UTC')"
  echo
  echo "- machine: $(lscpu | sed -n 's/^Model name: *//p' | head -1), $(nproc) CPU(s); $(lscpu | sed -n 's/^L2 cache: *//p' | head -1) L2, $(lscpu | sed -n 's/^L3 cache: *//p' | head -1) L3"
  echo "- commit: $(git rev-parse --short HEAD)$(git diff --quiet -- src/cpu || echo ' (src/cpu modified)')"
  echo "- build: $(grep -m1 CMAKE_BUILD_TYPE:STRING "$build/CMakeCache.txt" | cut -d= -f2), $(c++ --version | head -1)"
  echo "- load at start: $(uptime | sed 's/.*load average/load average/')"
  echo "- command: bench/cpu/run_cpu_bench.sh $build $out"
  echo
  echo "## apsp bench --backend cpu (int32, baselines and SciPy in the same run)"
  echo
  run "$apsp" bench --backend cpu --csv "${out%.md}-int32.csv"
  echo "## float32, int64, float64 (ours only)"
  echo
  run "$apsp" bench --backend cpu --type float32 --no-baselines
  run "$apsp" bench --backend cpu --type int64 --sizes 2048 --no-baselines
  run "$apsp" bench --backend cpu --type float64 --sizes 2048 --no-baselines
  echo "## whole \`apsp solve\` (V = 4096, E = 4194304, weights 0..1000)"
  echo
  "$apsp" generate "$tmp/g4096.bin" -V 4096 -E 4194304 --seed 42 > /dev/null
  for i in 1 2 3; do run "$apsp" solve "$tmp/g4096.bin" "$tmp/out.bin" --backend cpu --stats; done
  run "$apsp" solve "$tmp/g4096.bin" "$tmp/out.bin" --backend cpu --stats --threads 1
  run "$apsp" solve "$tmp/g4096.bin" "$tmp/out.bin" --backend cpu --stats --paths
  echo "- load at end: $(uptime | sed 's/.*load average/load average/')"
} > "$out"
echo "wrote $out"
