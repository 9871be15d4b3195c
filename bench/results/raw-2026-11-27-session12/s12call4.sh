#!/usr/bin/env bash
# session 12 call 4 (final cuda check after the merges): gpu_check build,test,nthu,sanitize.
s0=$(date +%s)
APSP_WITH_MPI=OFF APSP_WITH_NCCL=OFF CXX=/usr/bin/g++ CC=/usr/bin/gcc PYTHON_BENCH=0 SANITIZE_TIMEOUT=120 OUT=$OUT/cuda \
  timeout 560 scripts/gpu_check.sh --src .gpu_snapshot --deps .gpu_deps --steps build,test,nthu,sanitize 2>&1 | tail -18
echo "total $(( $(date +%s) - s0 )) s"
