#!/usr/bin/env bash
# bench/cpu/whole_vs_compute.sh — whole `apsp` process vs its compute-only rate on the CPU path.
# Usage: bench/cpu/whole_vs_compute.sh GRAPH TRIALS APSP [APSP ...]
# Runs the binaries in turn (so a noisy, shared machine hits them alike), TRIALS times each:
# `apsp GRAPH OUT --backend cpu --stats`, wall clock from bash's $EPOCHREALTIME around the
# process, compute from --stats. Prints one line per run and the best of each binary:
# ratio = best compute s / best wall s (1.0 = read, build, write and process start/exit hidden).
set -euo pipefail
graph=$1 trials=$2
shift 2
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
declare -A best_wall best_comp
for t in $(seq "$trials"); do
  for b in "$@"; do
    rm -f "$out/d.bin"
    t0=$EPOCHREALTIME
    stats=$("$b" "$graph" "$out/d.bin" --backend cpu --stats 2>&1 >/dev/null)
    t1=$EPOCHREALTIME
    wall=$(echo "$t1 - $t0" | bc -l)
    comp=$(echo "$stats" | awk '/compute/ {print $2}')
    printf '%-45s trial %d  wall %.4f s  compute %.4f s  ratio %.3f\n' "$b" "$t" "$wall" "$comp" \
      "$(echo "$comp / $wall" | bc -l)"
    if [[ -z "${best_wall[$b]:-}" ]] || (( $(echo "$wall < ${best_wall[$b]}" | bc -l) )); then best_wall[$b]=$wall; fi
    if [[ -z "${best_comp[$b]:-}" ]] || (( $(echo "$comp < ${best_comp[$b]}" | bc -l) )); then best_comp[$b]=$comp; fi
  done
done
for b in "$@"; do
  printf 'best  %-45s wall %.4f s  compute %.4f s  ratio %.3f\n' "$b" "${best_wall[$b]}" "${best_comp[$b]}" \
    "$(echo "${best_comp[$b]} / ${best_wall[$b]}" | bc -l)"
done
