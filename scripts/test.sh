#!/usr/bin/env bash
# scripts/test.sh — build apsp with warnings as errors and run every test (C++ GoogleTest suites,
# CLI tests, the NTHU course cases when ../shared/nthu-testcases exists, MPI tests with mpirun,
# Python tests with pytest). GPU tests skip, and say so, where no GPU exists. Then the hip
# backend (AMD GPUs) is compiled, not run (no AMD GPU here), and its code objects are checked.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
cmake --preset ci | grep "apsp:"
cmake --build --preset ci
ctest --preset ci -j "$(nproc)" --timeout 900
scripts/test_hip_build.sh
