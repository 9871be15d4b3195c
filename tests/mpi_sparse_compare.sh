#!/bin/sh
# tests/mpi_sparse_compare.sh APSP MPIRUN NP WORKDIR "GENERATE ARGS" [solve args...]
# Sparse rounds through the CLI: `apsp generate` with the given arguments (a grid, a geometric
# graph), then `apsp solve --backend mpi --order nd` on NP ranks against `--backend cpu --order
# none`: the distance files must be identical byte for byte; with --paths the .next file must have
# the right size and `apsp path` must walk some pairs (next hops may break ties differently).
set -eu
apsp=$1 mpirun=$2 np=$3 work=$4 gen=$5
shift 5
rm -rf "$work" && mkdir -p "$work"
# shellcheck disable=SC2086 # the generate arguments are split on purpose
"$apsp" generate "$work/g.bin" $gen
"$apsp" solve "$work/g.bin" "$work/cpu.out" --backend cpu --order none -q "$@"
"$mpirun" -np "$np" "$apsp" solve "$work/g.bin" "$work/mpi.out" --backend mpi --order nd --stats \
  -q "$@" 2> "$work/stats.txt"
grep -q "order    nd:" "$work/stats.txt" || { cat "$work/stats.txt"; exit 1; }
cmp "$work/cpu.out" "$work/mpi.out"
if [ -e "$work/cpu.out.next" ]; then
  test "$(wc -c < "$work/mpi.out.next")" -eq "$(wc -c < "$work/cpu.out.next")"
  "$apsp" path "$work/mpi.out" 0 1 > /dev/null
fi
echo "np=$np $gen $*: --order nd identical to --backend cpu --order none"
rm -rf "$work"
