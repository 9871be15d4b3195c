#!/bin/sh
# tests/mpi_compare.sh APSP MPIRUN NP WORKDIR V E [solve args...]
# Generates a random graph (seed = V, weights 1..100: positive, so next hops are identical too;
# tests/test_mpi.cpp covers zero weights), solves it with `--backend mpi` on NP ranks and with
# `--backend cpu`, and compares the outputs (and with --paths the .next files) byte for byte.
set -eu
apsp=$1 mpirun=$2 np=$3 work=$4 v=$5 e=$6
shift 6
rm -rf "$work" && mkdir -p "$work"
"$apsp" generate "$work/g.bin" -V "$v" -E "$e" --seed "$v" --wmin 1 --wmax 100
"$apsp" solve "$work/g.bin" "$work/cpu.out" --backend cpu -q "$@"
"$mpirun" -np "$np" "$apsp" solve "$work/g.bin" "$work/mpi.out" --backend mpi -q "$@"
cmp "$work/cpu.out" "$work/mpi.out"
if [ -e "$work/cpu.out.next" ]; then cmp "$work/cpu.out.next" "$work/mpi.out.next"; fi
size=$(wc -c < "$work/mpi.out")
test "$size" -eq $((v * v * 4)) || { echo "mpi output has $size bytes, want $((v * v * 4))"; exit 1; }
echo "np=$np V=$v $*: identical to --backend cpu"
rm -rf "$work"
