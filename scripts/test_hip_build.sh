#!/usr/bin/env bash
# scripts/test_hip_build.sh — the hip backend (AMD GPUs), compile only: the cuda backend's source
# and the kernel test built by hipcc (preset ci-hip: no CPU library, no CUDA), then roc-obj-ls must
# find a gfx908 (MI100) and a gfx90a (MI200) code object in each. Nothing runs: no AMD GPU here.
# Needs Debian's hipcc and libamdhip64-dev (scripts/deps.sh installs them).
set -euo pipefail
cd "$(dirname "$0")/.."
start=$SECONDS
cmake --preset ci-hip | grep "apsp:"
cmake --build --preset ci-hip
for f in build/ci-hip/apsp_hip_backend.o build/ci-hip/apsp_hip_kernels_test; do
  # roc-obj-ls asks rocm_agent_enumerator for GPUs first, which fails (a Python traceback on
  # stderr) where none exists: stderr is shown only if the listing itself fails.
  if ! objs=$(roc-obj-ls "$f" 2>/tmp/apsp-roc-obj-ls.err); then
    cat /tmp/apsp-roc-obj-ls.err >&2
    echo "apsp: roc-obj-ls $f failed" >&2
    exit 1
  fi
  for arch in gfx908 gfx90a; do
    if ! grep -q "amdgcn-amd-amdhsa--$arch\$\|amdgcn-amd-amdhsa--$arch[[:space:]]" <<<"$objs"; then
      echo "$objs" >&2
      echo "apsp: $f holds no $arch code object" >&2
      exit 1
    fi
  done
  echo "apsp: $f: gfx908 and gfx90a code objects"
done
echo "apsp: hip backend compiled (not run: no AMD GPU) in $((SECONDS - start)) s"
