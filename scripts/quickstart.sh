#!/usr/bin/env bash
# scripts/quickstart.sh — build apsp (GPU backends when nvcc exists, else CPU-only) and solve a
# sample graph: a course-like random graph, V=2000, E=200000, weights 0..1000, with --verify.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
cmake --preset release | grep "apsp:"   # what was found and built (CUDA, NCCL, MPI, Python)
cmake --build --preset release
mkdir -p build/sample
build/release/apsp generate build/sample/graph.bin -V 2000 -E 200000 --wmin 0 --wmax 1000 --seed 1
build/release/apsp info
build/release/apsp solve build/sample/graph.bin build/sample/dist.bin --verify --stats
echo "apsp: wrote build/sample/dist.bin ($(stat -c %s build/sample/dist.bin) bytes = 2000 x 2000 int32)"
