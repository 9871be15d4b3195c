#!/bin/bash
# bench/cpu/paths_edges_bench.sh — what --paths costs on the cpu backend, by next-hop method.
#
# For each graph and thread count (1, then 2), TRIALS rounds; each round runs, in this order,
#   dist     apsp solve G OUT --backend cpu --threads T -q --stats S
#   edges    the same with --paths and APSP_CPU_NEXT=edges
#   tracked  the same with --paths and APSP_CPU_NEXT=tracked
# so the modes alternate and share the machine's load. Each run is wrapped in /usr/bin/time
# (wall, user, sys seconds) and writes its --stats JSON (compute_s = the backend's run(), which
# for the edges method includes the pass); the 1-minute load average is taken before each run.
# One extra --paths run per graph with APSP_CPU_NEXT_TRACE=1 records what the cost model picks
# and the edges pass's parts.
#
# Usage: bench/cpu/paths_edges_bench.sh BUILD_DIR WORK_DIR [TRIALS] [GRAPH...]
#   GRAPH: NAME=GENERATE_ARGS, e.g. g4096="-V 4096 --seed 1" (generated into WORK_DIR if absent).
#   Default graphs: the issue's V = 2048 and 4096 course-like graphs, a complete graph (weights
#   1..1000: no zero-weight cycles, see docs/paths.md) and a sparse one (E = 16 V), V = 4096.
# Output: WORK_DIR/runs.csv (one line per run) and WORK_DIR/trace.txt; then
#   python3 bench/cpu/paths_edges_summary.py WORK_DIR/runs.csv   prints the median table.
set -euo pipefail
build=${1:?usage: paths_edges_bench.sh BUILD_DIR WORK_DIR [TRIALS] [GRAPH...]}
work=${2:?usage: paths_edges_bench.sh BUILD_DIR WORK_DIR [TRIALS] [GRAPH...]}
trials=${3:-5}
shift $(( $# < 3 ? $# : 3 ))
apsp="$build/apsp"
mkdir -p "$work"
graphs=("$@")
if [ ${#graphs[@]} -eq 0 ]; then
  graphs=("g2048=-V 2048 --seed 1" "g4096=-V 4096 --seed 1"
          "complete4096=-V 4096 -E 16773120 --wmin 1 --seed 1" "sparse4096=-V 4096 -E 65536 --seed 1")
fi

csv="$work/runs.csv"
[ -e "$csv" ] || echo "graph,threads,mode,trial,wall_s,user_s,sys_s,compute_s,total_s,load1" > "$csv"
for spec in "${graphs[@]}"; do
  name=${spec%%=*}
  args=${spec#*=}
  g="$work/$name.bin"
  # shellcheck disable=SC2086
  [ -e "$g" ] || "$apsp" generate "$g" $args > /dev/null
  echo "$name ($args): $(APSP_CPU_NEXT_TRACE=1 "$apsp" solve "$g" "$work/out.bin" --backend cpu --paths -q 2>&1)" \
    | tee -a "$work/trace.txt"
  for threads in 1 2; do
    for trial in $(seq 1 "$trials"); do
      for mode in dist edges tracked; do
        extra=()
        env=()
        if [ "$mode" != dist ]; then extra=(--paths); env=(APSP_CPU_NEXT="$mode"); fi
        load=$(cut -d' ' -f1 /proc/loadavg)
        rm -f "$work/stats.json"
        t=$( { env "${env[@]}" /usr/bin/time -f "%e %U %S" "$apsp" solve "$g" "$work/out.bin" --backend cpu \
               --threads "$threads" -q --stats "$work/stats.json" "${extra[@]}" > /dev/null; } 2>&1 | tail -1)
        read -r wall user sys <<< "$t"
        compute=$(sed -n 's/.*"compute_s": \([0-9.e+-]*\).*/\1/p' "$work/stats.json")
        total=$(sed -n 's/.*"total_s": \([0-9.e+-]*\).*/\1/p' "$work/stats.json")
        echo "$name,$threads,$mode,$trial,$wall,$user,$sys,$compute,$total,$load" | tee -a "$csv"
      done
    done
  done
done
rm -f "$work/out.bin" "$work/out.bin.next" "$work/stats.json"
