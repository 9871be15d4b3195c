#!/usr/bin/env bash
# scripts/multigpu_check.sh — one call on a multi-GPU machine: build from scratch with CUDA + NCCL,
# run the multi-gpu tests, then the scaling benchmark; logs go under $OUT, a short table comes last.
#
#   OUT=/tmp/out scripts/multigpu_check.sh [tests|bench|all]     (default: all)
#   APSP_SCALING="32768:1,41285:2,..." overrides the benchmark list (V:GPUS pairs).
#   GTEST_FILTER='MultiGpu.Paths*' runs a subset of the tests (GoogleTest reads it).
#
# The device image has nvcc and NCCL (the nvidia-nccl wheel) but may lack GoogleTest and CLI11:
# if so they are taken from .devcarry/ (googletest sources, CLI11 headers; see docs/distributed.md).
# NVLink multicast stays off (NCCL_NVLS_ENABLE=0): see the device notes.
set -uo pipefail
what=${1:-all}
OUT=${OUT:-/tmp/multigpu-out}
mkdir -p "$OUT"
export NCCL_NVLS_ENABLE=0
root=$(cd "$(dirname "$0")/.." && pwd)
build=/tmp/build-multigpu
jobs=$(nproc)
say() { echo "== $*" | tee -a "$OUT/steps.log"; }

say "machine"
{ date -u; nvidia-smi -L; nvidia-smi topo -m; nvcc --version | tail -2; } > "$OUT/machine.txt" 2>&1
cat "$OUT/machine.txt" | head -12
gpus=$(nvidia-smi -L | wc -l)

extra=()
if ! ls /usr/include/gtest/gtest.h /usr/local/include/gtest/gtest.h >/dev/null 2>&1; then
  say "building GoogleTest from .devcarry"
  cmake -S "$root/.devcarry/googletest" -B /tmp/gtest-build -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DBUILD_GMOCK=OFF -DCMAKE_INSTALL_PREFIX=/tmp/gtest >"$OUT/gtest.log" 2>&1 &&
    cmake --build /tmp/gtest-build -j "$jobs" >>"$OUT/gtest.log" 2>&1 &&
    cmake --install /tmp/gtest-build >>"$OUT/gtest.log" 2>&1 || { tail -20 "$OUT/gtest.log"; exit 1; }
  extra+=(-DCMAKE_PREFIX_PATH=/tmp/gtest)
fi
if [ ! -e /usr/include/CLI/CLI.hpp ]; then extra+=(-DCLI11_INCLUDE_DIR="$root/.devcarry/cli11"); fi
if [ ! -e /usr/local/cuda/include/nccl.h ] && [ ! -e /usr/include/nccl.h ]; then
  nccl=$(python3 -c 'import nvidia.nccl, os; print(os.path.dirname(nvidia.nccl.__file__) or list(nvidia.nccl.__path__)[0])' 2>/dev/null ||
         python3 -c 'import nvidia.nccl; print(list(nvidia.nccl.__path__)[0])')
  lib=$(ls "$nccl"/lib/libnccl.so* | head -1)
  inc="$nccl/include"
  [ -e "$inc/nccl.h" ] || inc="$root/.devcarry/nccl/include"  # header of NCCL 2.28 from the dev machine
  extra+=(-DNCCL_INCLUDE_DIR="$inc" -DNCCL_LIBRARY="$lib")
  export LD_LIBRARY_PATH="$nccl/lib:${LD_LIBRARY_PATH:-}"
  echo "NCCL from the wheel: $nccl" | tee -a "$OUT/steps.log"
fi

say "configure + build (Release, CUDA + NCCL, -Werror)"
rm -rf "$build"
t0=$(date +%s)
cmake -S "$root" -B "$build" -G Ninja -DAPSP_WITH_CUDA=ON -DAPSP_WITH_NCCL=ON -DAPSP_WITH_MPI=OFF \
  -DAPSP_WITH_PYTHON=OFF -DAPSP_WERROR=ON "${extra[@]}" >"$OUT/configure.log" 2>&1 || { tail -30 "$OUT/configure.log"; exit 1; }
grep "apsp:" "$OUT/configure.log"
ninja -C "$build" -j "$jobs" apsp test_multigpu >"$OUT/build.log" 2>&1 || { grep -E "error|FAILED" -A3 "$OUT/build.log" | head -40; exit 1; }
echo "build: $(( $(date +%s) - t0 )) s"
"$build/apsp" info | head -8 | tee "$OUT/info.txt"

status=0
if [ "$what" = all ] || [ "$what" = tests ]; then
  say "multi-gpu tests ($gpus GPUs)"
  "$build/tests/test_multigpu" 2>&1 | tee "$OUT/tests.log" | grep -E "^\[ +(OK|FAILED|SKIPPED) +\]|Failure|got|PASSED|FAILED" | head -40
  [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
fi

if [ "$what" = all ] || [ "$what" = bench ]; then
  # Weak scaling from V1 = 32768: V_N = V1 * N^(1/3); strong scaling at V = 65536; V = 131072 on 4.
  list=${APSP_SCALING:-"32768:1,41285:2,52016:4,65536:4,65536:2,65536:1,131072:4"}
  say "scaling benchmark: $list"
  export APSP_HOST_MEMORY=$((400 << 30))  # MemTotal grows as memory is touched on these VMs
  APSP_SCALING="$list" "$build/tests/test_multigpu" --gtest_also_run_disabled_tests \
    --gtest_filter='MultiGpuBench.*' 2>&1 | tee "$OUT/bench.log" | grep -E "^scaling|Failure"
  [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
  say "table"
  python3 - "$OUT/bench.log" <<'EOF' | tee "$OUT/table.md"
import re, sys
rows = {}
for line in open(sys.argv[1]):
    if not line.startswith("scaling ") or "skipped" in line:
        continue
    f = dict(kv.split("=", 1) for kv in line.split()[1:])
    rows[(int(f["V"]), int(f["gpus"]))] = f
print("| V | GPUs | compute s | T updates/s | gather s | verify |")
print("|---|---|---|---|---|---|")
for (V, g), f in sorted(rows.items(), key=lambda x: (x[0][1] > 1, x[0])):
    print(f"| {V} | {g} | {float(f['compute_s']):.2f} | {float(f['T_updates_per_s']):.2f} | {float(f['gather_s']):.2f} | {f['verify']} |")
t = lambda V, g: float(rows[(V, g)]["compute_s"]) if (V, g) in rows else None
if t(32768, 1):
    for V, g in ((41285, 2), (52016, 4)):
        if t(V, g):
            print(f"weak scaling N={g}: T1(32768)/T{g}({V}) = {t(32768, 1) / t(V, g):.3f}")
if t(65536, 1):
    for g in (2, 4):
        if t(65536, g):
            print(f"strong scaling V=65536 N={g}: speed-up {t(65536, 1) / t(65536, g):.2f}x")
EOF
fi
exit $status
