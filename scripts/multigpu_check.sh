#!/usr/bin/env bash
# scripts/multigpu_check.sh — one call on a multi-GPU machine: build from scratch with CUDA + NCCL
# (+ MPI when found), run the tests and benchmarks asked for; logs go under $OUT, a short table
# comes last.
#
#   OUT=/tmp/out scripts/multigpu_check.sh [tests|bench|mpi|all]     (default: all)
#     tests  the multi-gpu tests (tests/test_multigpu: one process, all GPUs)
#     bench  the multi-gpu scaling benchmark; APSP_SCALING="32768:1,41285:2,..." overrides its list
#     mpi    the mpi backend on GPU ranks (one rank per GPU, NCCL): tests/test_mpi_gpu under
#            `mpirun -np 1`, `-np 2` and `-np 4` (with fewer than 4 GPUs, -np 4 checks the fall-back:
#            GPU tests skip, ranks that would share a GPU give CPU ranks or, forced, an error on
#            every rank), the CLI end to end on GPU ranks and the CPU-rank tests (ctest -L mpi),
#            tests/test_multigpu again (the two backends share the driver), then the comparison
#            mpi GPU ranks vs multi-gpu at V = APSP_MPI_BENCH_V (default 32768), compute time,
#            best of 2, on 2 GPUs (and 4 when there are 4)
#     diag   where the time goes, mpi GPU ranks vs multi-gpu at V = APSP_MPI_BENCH_V (default 32768):
#            APSP_MG_PROFILE=1 per-phase GPU times of every GPU (closure, broadcasts, panels, rest,
#            stream waits), on 2 and 4 GPUs, the default grid and APSP_GRID=1xN / Nx1, and the NCCL
#            transports (NCCL_DEBUG=INFO); prints a table of the mgprof lines
#     sparse the sparse rounds (--order nd, docs/sparse.md): tests/test_multigpu_sparse, then on a
#            grid of APSP_SPARSE_ROWS x APSP_SPARSE_ROWS (default 256: V = 65536) multi-gpu (and
#            mpi GPU ranks, one per GPU, when built) with --order nd vs --order none, output to
#            /dev/null, best of 2, and on a 96 x 96 grid the nd and none outputs compared with cmp
#     all    tests, bench and mpi (longer than one 10-minute device call on 4 GPUs: use one mode a call)
#   Modes combine with commas: `mpi,diag`.
#   GTEST_FILTER='MultiGpu.Paths*' runs a subset of the GoogleTest tests (GoogleTest reads it).
#   STEP_TIMEOUT (seconds, default 300) bounds each test run, so a hang cannot eat the whole call.
#
# The device image has nvcc and NCCL (the nvidia-nccl wheel) but may lack GoogleTest and CLI11:
# if so they are taken from .devcarry/ (googletest sources, CLI11 headers; see docs/distributed.md).
# MPI: mpirun / mpicxx on the PATH (or mpi.h beside mpirun's prefix); as root, OpenMPI needs
# OMPI_ALLOW_RUN_AS_ROOT(_CONFIRM), set below. NVLink multicast stays off (NCCL_NVLS_ENABLE=0,
# also for every rank mpirun starts): see the device notes.
set -uo pipefail
what=${1:-all}
OUT=${OUT:-/tmp/multigpu-out}
mkdir -p "$OUT"
export NCCL_NVLS_ENABLE=0
export NCCL_DEBUG=${NCCL_DEBUG:-WARN}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export GTEST_COLOR=no  # mpirun gives ranks a terminal, and colour codes would hide the result lines
root=$(cd "$(dirname "$0")/.." && pwd)
build=/tmp/build-multigpu
jobs=$(nproc)
step_timeout=${STEP_TIMEOUT:-300}
say() { echo "== $*" | tee -a "$OUT/steps.log"; }
summary=()  # "| step | result |" rows for the last table
note() { summary+=("| $1 | $2 |"); echo "   -> $2" | tee -a "$OUT/steps.log"; }
want() { { [ "$what" = all ] && [ "$1" != diag ]; } || [[ ",$what," == *",$1,"* ]]; }

say "machine"
{ date -u; nvidia-smi -L; nvidia-smi topo -m; nvcc --version | tail -2; df -h /dev/shm | tail -1; } > "$OUT/machine.txt" 2>&1
head -14 "$OUT/machine.txt"
gpus=$(nvidia-smi -L | grep -c '^GPU')

extra=()
if [ -d "$root/.gpu_deps/include/gtest" ] && ! ls /usr/include/gtest/gtest.h /usr/local/include/gtest/gtest.h >/dev/null 2>&1; then
  # Prebuilt GoogleTest and CLI11 headers from the development machine (scripts/gpu_check.sh's --deps).
  extra+=(-DGTEST_ROOT="$root/.gpu_deps" -DGTest_DIR=/nonexistent -DCLI11_INCLUDE_DIR="$root/.gpu_deps/include"
          -DCLI11_DIR=/nonexistent)
elif ! ls /usr/include/gtest/gtest.h /usr/local/include/gtest/gtest.h >/dev/null 2>&1; then
  say "building GoogleTest from .devcarry"
  cmake -S "$root/.devcarry/googletest" -B /tmp/gtest-build -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DBUILD_GMOCK=OFF -DCMAKE_INSTALL_PREFIX=/tmp/gtest >"$OUT/gtest.log" 2>&1 &&
    cmake --build /tmp/gtest-build -j "$jobs" >>"$OUT/gtest.log" 2>&1 &&
    cmake --install /tmp/gtest-build >>"$OUT/gtest.log" 2>&1 || { tail -20 "$OUT/gtest.log"; exit 1; }
  extra+=(-DCMAKE_PREFIX_PATH=/tmp/gtest)
fi
if [ ! -e /usr/include/CLI/CLI.hpp ] && [ ! -d "$root/.gpu_deps/include/CLI" ]; then
  extra+=(-DCLI11_INCLUDE_DIR="$root/.devcarry/cli11")
fi
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

# METIS (--order nd, docs/sparse.md): the device image lacks libmetis-dev; .gpu_deps/metis may
# carry metis.h and libmetis.so* from the development machine (as for scripts/gpu_check.sh).
if [ ! -e /usr/include/metis.h ] && [ -e "$root/.gpu_deps/metis/include/metis.h" ]; then
  extra+=(-DAPSP_WITH_METIS=ON -DMETIS_INCLUDE_DIR="$root/.gpu_deps/metis/include"
          -DMETIS_LIBRARY="$root/.gpu_deps/metis/lib/libmetis.so")
  export LD_LIBRARY_PATH="$root/.gpu_deps/metis/lib:${LD_LIBRARY_PATH:-}"
fi

# MPI only where the mpi step runs: AUTO, so that a missing MPI leaves the other steps running.
mpi=OFF
mpirun_args=()
if want mpi || want diag || want sparse; then
  say "MPI"
  mpirun_bin=$(command -v mpirun || true)
  { echo "mpirun: ${mpirun_bin:-none}"; [ -n "$mpirun_bin" ] && mpirun --version 2>&1 | head -2
    echo "mpicxx: $(command -v mpicxx || echo none)"; } | tee "$OUT/mpi.txt"
  if [ -n "$mpirun_bin" ]; then
    mpi=AUTO
    prefix=$(dirname "$(dirname "$(readlink -f "$mpirun_bin")")")
    if ! command -v mpicxx >/dev/null && [ -e "$prefix/include/mpi.h" ]; then extra+=(-DMPI_HOME="$prefix"); fi
    if mpirun --version 2>&1 | grep -qi "open mpi"; then
      # --bind-to none: bound to one core each (the default for -np <= 2) GPU ranks ran 1.6x slower.
      mpirun_args=(--allow-run-as-root --oversubscribe --bind-to none -x NCCL_NVLS_ENABLE -x NCCL_DEBUG)
      # Shared-memory transport without cross-process memory attach (CMA), which VMs and
      # containers may forbid; the result gather is not what is timed.
      export OMPI_MCA_btl_vader_single_copy_mechanism=none OMPI_MCA_btl_sm_single_copy_mechanism=none
    fi
  else
    { echo "no mpirun on the PATH: the mpi step is skipped. Candidates:";
      find / -xdev \( -name mpi.h -o -name mpirun \) 2>/dev/null | head -10; } | tee -a "$OUT/mpi.txt"
  fi
fi

say "configure + build (Release, CUDA + NCCL, MPI $mpi, -Werror)"
# SKIP_BUILD=1 reuses the build of an earlier call on the same (still warm) machine.
[ "${SKIP_BUILD:-0}" = 1 ] && [ -x "$build/tests/test_multigpu" ] || rm -rf "$build"
t0=$(date +%s)
cmake -S "$root" -B "$build" -G Ninja -DAPSP_WITH_CUDA=ON -DAPSP_WITH_NCCL=ON -DAPSP_WITH_MPI=$mpi \
  -DAPSP_WITH_PYTHON=OFF -DAPSP_WERROR=${APSP_WERROR:-ON} "${extra[@]}" >"$OUT/configure.log" 2>&1 || { tail -30 "$OUT/configure.log"; exit 1; }
grep "apsp:" "$OUT/configure.log"
have_mpi=0
grep -q "MPI backend \.* ON" "$OUT/configure.log" && have_mpi=1
targets=(apsp test_multigpu test_multigpu_sparse test_dense test_ladder test_metrics)
if [ "$have_mpi" = 1 ]; then targets+=(test_mpi test_mpi_gpu); fi
if want mpi && [ "$mpi" != OFF ] && [ "$have_mpi" = 0 ]; then
  echo "mpirun exists but CMake found no MPI to build with (mpi.h / mpicxx): see $OUT/configure.log" | tee -a "$OUT/mpi.txt"
  grep -i "mpi" "$OUT/configure.log" | head -5
fi
ninja -C "$build" -j "$jobs" "${targets[@]}" >"$OUT/build.log" 2>&1 || { grep -E "error|FAILED" -A3 "$OUT/build.log" | head -40; exit 1; }
echo "build: $(( $(date +%s) - t0 )) s"
"$build/apsp" info | head -8 | tee "$OUT/info.txt"

status=0

# gtest_result NAME LOG RC: one summary row from a GoogleTest log (skips are not passes).
gtest_result() {
  local name=$1 log=$2 rc=$3
  local failed skipped why
  local text
  text=$(sed 's/\x1b\[[0-9;]*m//g' "$log")
  failed=$(grep -E "^\[  FAILED  \] [A-Za-z]" <<<"$text" | sed 's/.*\] //; s/ (.*//' | sort -u | tr '\n' ' ')
  skipped=$(grep -E "^\[  SKIPPED \] [A-Za-z]" <<<"$text" | sed 's/.*\] //; s/ (.*//' | sort -u | wc -l)
  why=$(grep -m1 -oE "(GPU ranks cannot run here|needs [0-9]+ GPUs|not usable)[^\"]*" <<<"$text" | head -1)
  if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then note "$name" "TIMEOUT after ${step_timeout} s (hang?) — $log"; status=1
  elif [ "$rc" -ne 0 ]; then note "$name" "FAIL (rc $rc): ${failed:-see $(basename "$log")}"; status=1
  elif [ "$skipped" -gt 0 ]; then note "$name" "pass, $skipped skipped: ${why:-see log}"
  else note "$name" "PASS"; fi
}

if want tests; then
  say "multi-gpu tests ($gpus GPUs)"
  timeout -k 10 "$step_timeout" "$build/tests/test_multigpu" > "$OUT/tests.log" 2>&1
  rc=$?
  grep -E "^\[ +(OK|FAILED|SKIPPED) +\]|Failure|got|PASSED|FAILED" "$OUT/tests.log" | head -40
  gtest_result "multi-gpu tests (test_multigpu, $gpus GPUs)" "$OUT/tests.log" $rc
  # Dense views uploaded straight into each GPU's tiles (vs cpu on the view, vs the edge list).
  timeout -k 10 "$step_timeout" "$build/tests/test_dense" --gtest_filter='Dense.MultiGpu*:Dense.GpuBackends*' \
    > "$OUT/tests_dense.log" 2>&1
  rc=$?
  grep -E "^\[ +(OK|FAILED|SKIPPED) +\]|Failure" "$OUT/tests_dense.log" | head -10
  gtest_result "dense views on multi-gpu (test_dense, $gpus GPUs)" "$OUT/tests_dense.log" $rc
  # The type ladder and the metrics reductions on every GPU backend (multi-gpu over all GPUs).
  for t in test_ladder test_metrics; do
    timeout -k 10 "$step_timeout" "$build/tests/$t" > "$OUT/$t.log" 2>&1
    rc=$?
    grep -E "^\[ +(FAILED|SKIPPED) +\]|Failure" "$OUT/$t.log" | head -10
    gtest_result "$t ($gpus GPUs)" "$OUT/$t.log" $rc
  done
fi

if want mpi && [ "$have_mpi" = 1 ]; then
  for np in 1 2 4; do
    say "mpi GPU ranks: mpirun -np $np test_mpi_gpu ($gpus GPUs)"
    log="$OUT/mpi_gpu_np$np.log"
    timeout -k 10 "$step_timeout" mpirun "${mpirun_args[@]}" -np "$np" "$build/tests/test_mpi_gpu" > "$log" 2>&1
    rc=$?
    grep -E "^\[ +(OK|FAILED) +\]|Failure|got |GPU ranks cannot" "$log" | sort | uniq -c | head -30
    label="mpi GPU ranks, test_mpi_gpu -np $np"
    [ "$np" -gt "$gpus" ] && label="$label (> $gpus GPUs: fall-back checks)"
    gtest_result "$label" "$log" $rc
  done

  say "ctest -L mpi: CPU-rank tests, then the CLI on GPU ranks"
  (cd "$build" && timeout -k 10 "$step_timeout" ctest -L mpi -LE gpu -j 8 --output-on-failure) > "$OUT/ctest_mpi_cpu.log" 2>&1
  rc=$?
  tail -3 "$OUT/ctest_mpi_cpu.log"
  res=$(grep -E "tests passed" "$OUT/ctest_mpi_cpu.log" | tail -1)
  [ $rc -eq 0 ] && note "mpi CPU ranks (ctest -L mpi -LE gpu)" "PASS: $res" || { note "mpi CPU ranks (ctest -L mpi -LE gpu)" "FAIL: $res"; status=1; }
  (cd "$build" && timeout -k 10 "$step_timeout" ctest -L gpu -E mpi_gpu_lib --output-on-failure) > "$OUT/ctest_mpi_gpu.log" 2>&1
  rc=$?
  grep -E "Test +#|tests passed" "$OUT/ctest_mpi_gpu.log" | tail -8
  res=$(grep -E "tests passed" "$OUT/ctest_mpi_gpu.log" | tail -1)
  skipped=$(grep -c '\*\*\*Skipped' "$OUT/ctest_mpi_gpu.log")
  [ $rc -eq 0 ] && note "mpi GPU ranks, CLI vs cpu (ctest -L gpu)" "PASS: $res; $skipped skipped (need more GPUs than $gpus)" ||
    { note "mpi GPU ranks, CLI vs cpu (ctest -L gpu)" "FAIL: $res"; status=1; }

  if ! want tests && [ "${MG_RERUN:-1}" = 1 ]; then  # MG_RERUN=0: a call that already ran them
    say "multi-gpu tests again (the driver is shared with GPU ranks)"
    timeout -k 10 "$step_timeout" "$build/tests/test_multigpu" > "$OUT/tests.log" 2>&1
    rc=$?
    grep -E "^\[ +(OK|FAILED|SKIPPED) +\]|Failure" "$OUT/tests.log" | head -20
    gtest_result "multi-gpu tests (test_multigpu, $gpus GPUs)" "$OUT/tests.log" $rc
  fi

  V=${APSP_MPI_BENCH_V:-32768}
  sizes=(2)
  [ "$gpus" -ge 4 ] && sizes+=(4)
  say "mpi GPU ranks vs multi-gpu at V=$V (${sizes[*]} GPUs, best of 2)"
  export APSP_HOST_MEMORY=$((200 << 30))
  list=""
  for g in "${sizes[@]}"; do list="$list${list:+,}$V:$g,$V:$g"; done
  APSP_SCALING="$list" timeout -k 10 "$step_timeout" "$build/tests/test_multigpu" --gtest_also_run_disabled_tests \
    --gtest_filter='MultiGpuBench.*' > "$OUT/cmp_multigpu.log" 2>&1 || status=1
  grep -E "^scaling|Failure" "$OUT/cmp_multigpu.log"
  for g in "${sizes[@]}"; do
    # Local ranks inherit this environment (APSP_MPI_BENCH, NCCL_NVLS_ENABLE=0).
    APSP_MPI_BENCH="$V,$V" timeout -k 10 "$step_timeout" mpirun "${mpirun_args[@]}" -np "$g" \
      "$build/tests/test_mpi_gpu" --gtest_also_run_disabled_tests --gtest_filter='MpiGpuBench.*' \
      > "$OUT/cmp_mpi_np$g.log" 2>&1 || status=1
    grep -E "^mpibench|Failure|SKIPPED \]" "$OUT/cmp_mpi_np$g.log" | head -5
  done
  python3 - "$OUT"/cmp_multigpu.log "$OUT"/cmp_mpi_np*.log <<'EOF' > "$OUT/mpi_compare.md"
import sys
best = {}  # (backend, gpus, V) -> fields of the fastest run
for path in sys.argv[1:]:
    for line in open(path):
        if line.startswith("scaling ") and "skipped" not in line:
            kind, key = "multi-gpu (1 process)", "gpus"
        elif line.startswith("mpibench "):
            kind, key = "mpi GPU ranks", "ranks"
        else:
            continue
        f = dict(kv.split("=", 1) for kv in line.split()[1:])
        k = (kind, int(f[key]), int(f["V"]))
        f["runs"] = best.get(k, {}).get("runs", 0) + 1
        f["verify_all"] = "PASS" if f["verify"] == "PASS" and best.get(k, {}).get("verify_all", "PASS") == "PASS" else "FAIL"
        if k not in best or float(f["compute_s"]) < float(best[k]["compute_s"]):
            best[k] = f
        else:
            best[k]["runs"], best[k]["verify_all"] = f["runs"], f["verify_all"]
print("| backend | GPUs | V | compute s (best) | runs | T updates/s | gather s | verify |")
print("|---|---|---|---|---|---|---|---|")
for (kind, g, V), f in sorted(best.items(), key=lambda x: (x[0][1], x[0][0])):
    print(f"| {kind} | {g} | {V} | {float(f['compute_s']):.3f} | {f['runs']} | {float(f['T_updates_per_s']):.2f} | "
          f"{float(f['gather_s']):.2f} | {f['verify_all']} (all runs) |")
for (kind, g, V), f in sorted(best.items()):
    if kind == "mpi GPU ranks" and ("multi-gpu (1 process)", g, V) in best:
        m = float(best[("multi-gpu (1 process)", g, V)]["compute_s"])
        print(f"{g} GPUs, V={V}: mpi GPU ranks compute / multi-gpu compute = {float(f['compute_s']) / m:.3f}")
if not best:
    print("(no benchmark lines: see cmp_*.log)")
EOF
elif want mpi; then
  note "mpi GPU ranks" "NOT RUN: no MPI to build with (see $OUT/mpi.txt)"
  status=1
fi

if want diag && [ "$have_mpi" = 1 ]; then
  V=${APSP_MPI_BENCH_V:-32768}
  export APSP_HOST_MEMORY=$((200 << 30)) APSP_MG_PROFILE=1
  diag=$OUT/diag
  mkdir -p "$diag"
  # run_diag NAME GPUS GRID(or "") -- one multi-gpu run and one mpi run, both profiled
  run_diag() {
    local name=$1 g=$2 grid=$3
    say "diag: $name ($g GPUs${grid:+, APSP_GRID=$grid})"
    APSP_GRID=$grid APSP_SCALING="$V:$g" timeout -k 10 "$step_timeout" "$build/tests/test_multigpu" \
      --gtest_also_run_disabled_tests --gtest_filter='MultiGpuBench.*' > "$diag/mg_$name.log" 2>&1
    APSP_GRID=$grid APSP_MPI_BENCH="$V" timeout -k 10 "$step_timeout" mpirun "${mpirun_args[@]}" -x APSP_GRID \
      -x APSP_MG_PROFILE -np "$g" "$build/tests/test_mpi_gpu" --gtest_also_run_disabled_tests \
      --gtest_filter='MpiGpuBench.*' > "$diag/mpi_$name.log" 2>&1
    grep -hE "^scaling|^mpibench|^mgprof|Failure|rror" "$diag/mg_$name.log" "$diag/mpi_$name.log" | head -20
  }
  run_diag g2 2 ""
  run_diag g2_2x1 2 2x1
  if [ "$gpus" -ge 4 ]; then
    run_diag g4 4 ""
    run_diag g4_1x4 4 1x4
    run_diag g4_4x1 4 4x1
  fi
  say "diag: NCCL transports of mpi GPU ranks (NCCL_DEBUG=INFO, V=4096)"
  np=$(( gpus >= 4 ? 4 : 2 ))
  NCCL_DEBUG=INFO APSP_MPI_BENCH=4096 timeout -k 10 "$step_timeout" mpirun "${mpirun_args[@]}" -np "$np" \
    "$build/tests/test_mpi_gpu" --gtest_also_run_disabled_tests --gtest_filter='MpiGpuBench.*' > "$diag/nccl_info.log" 2>&1
  grep -oE "Channel [0-9]+/[0-9]+ : [0-9]+\[[0-9]+\] -> [0-9]+\[[0-9]+\] via [A-Za-z0-9/_]+" "$diag/nccl_info.log" |
    sed 's/Channel [0-9]*\/[0-9]* : //' | sort | uniq -c | head -20 | tee "$diag/transports.txt"
  grep -hE "NCCL INFO (comm .* nRanks|Using network|NCCL_)" "$diag/nccl_info.log" | sort | uniq | head -20
  unset APSP_MG_PROFILE
  python3 - "$diag"/mg_*.log "$diag"/mpi_*.log <<'EOF' | tee "$OUT/diag.md"
import os, sys
print("| run | process | gpu | grid | span ms | rest | main_wait | look_wait | closure | pivot_bcast | panels | panel_bcast | compute s |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
for path in sys.argv[1:]:
    name = os.path.basename(path)[:-4]
    compute = ""
    for line in open(path):
        if line.startswith(("scaling ", "mpibench ")) and "compute_s=" in line:
            compute = dict(kv.split("=", 1) for kv in line.split()[1:])["compute_s"]
    for line in open(path):
        if line.startswith("mgprof "):
            f = dict(kv.split("=", 1) for kv in line.split()[1:])
            print(f"| {name} | {'mpi rank' if name.startswith('mpi') else 'one process'} | {f['gpu']} | {f['grid']} | "
                  f"{f['span_ms']} | {f['rest_ms']} | {f['main_wait_ms']} | {f['look_wait_ms']} | {f['closure_ms']} | "
                  f"{f['pivot_bcast_ms']} | {f['panels_ms']} | {f['panel_bcast_ms']} | {compute} |")
EOF
fi

if want bench; then
  # Weak scaling from V1 = 32768: V_N = V1 * N^(1/3); strong scaling at V = 65536; V = 131072 on 4.
  list=${APSP_SCALING:-"32768:c,32768:1,32768:2,41285:2,52016:4,65536:4,65536:2,65536:1,131072:4"}
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
    g = 0 if f.get("backend") == "cuda" else int(f["gpus"])  # 0: the cuda backend on one GPU
    rows[(int(f["V"]), g)] = f
print("| V | backend | GPUs | rounds | compute s | T updates/s | gather s | verify |")
print("|---|---|---|---|---|---|---|---|")
for (V, g), f in sorted(rows.items(), key=lambda x: (x[0][1] > 1, x[0])):
    print(f"| {V} | {f.get('backend', 'multi-gpu')} | {max(g, 1)} | {f.get('rounds', '')} | {float(f['compute_s']):.2f} | "
          f"{float(f['T_updates_per_s']):.2f} | {float(f['gather_s']):.2f} | {f['verify']} |")
t = lambda V, g: float(rows[(V, g)]["compute_s"]) if (V, g) in rows else None
if t(32768, 0) and t(32768, 2):
    print(f"multi-gpu on 2 GPUs vs cuda on one, V=32768: compute {t(32768, 2) / t(32768, 0):.3f}x")
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

if want sparse; then
  say "sparse rounds: test_multigpu_sparse ($gpus GPUs)"
  timeout -k 10 "$step_timeout" "$build/tests/test_multigpu_sparse" > "$OUT/tests_sparse.log" 2>&1
  rc=$?
  grep -E "^\[ +(OK|FAILED|SKIPPED) +\]|Failure" "$OUT/tests_sparse.log" | head -20
  gtest_result "sparse rounds (test_multigpu_sparse, $gpus GPUs)" "$OUT/tests_sparse.log" $rc
  if [ "$have_mpi" = 1 ]; then
    log="$OUT/mpi_gpu_sparse.log"
    timeout -k 10 "$step_timeout" mpirun "${mpirun_args[@]}" -np "$gpus" "$build/tests/test_mpi_gpu" \
      --gtest_filter='*OrderNd*' > "$log" 2>&1
    rc=$?
    grep -E "^\[ +(OK|FAILED|SKIPPED) +\]|Failure" "$log" | sort | uniq -c | head -10
    gtest_result "sparse rounds on mpi GPU ranks (-np $gpus)" "$log" $rc
  fi
  # stats FILE: "compute_s wall_s" of an `apsp solve --stats FILE` run (JSON lines, the last one)
  stats() { python3 -c 'import json,sys; d=json.loads(open(sys.argv[1]).read().splitlines()[-1]); print("%.3f %s build=%.2f d2h=%.2f unpermute=%.2f total=%.2f %s" % (d["compute_s"], d.get("order", "?"), d.get("build_s", 0) + d.get("h2d_s", 0), d.get("d2h_s", 0), d.get("unpermute_s", 0), d.get("total_s", 0), d.get("rounds", "?")))' "$1"; }
  solve_on() {  # BACKEND ORDER IN OUT: prints "wall compute order rounds"
    local b=$1 o=$2 in=$3 outf=$4 run=()
    [ "$b" = mpi ] && run=(mpirun "${mpirun_args[@]}" -np "$gpus" -x APSP_MPI_GPU=1)
    local t0 t1
    t0=$(date +%s.%N)
    timeout -k 10 "$step_timeout" "${run[@]}" "$build/apsp" solve "$in" "$outf" --backend "$b" --order "$o" \
      --stats "$OUT/st.json" -q >>"$OUT/sparse_runs.log" 2>&1 || { echo "FAIL"; return 1; }
    t1=$(date +%s.%N)
    echo "$(python3 -c "print('%.2f' % ($t1 - $t0))") $(stats "$OUT/st.json")"
  }
  backends=(multi-gpu)
  [ "$have_mpi" = 1 ] && backends+=(mpi)
  small=/dev/shm/apsp_grid96.bin
  "$build/apsp" generate "$small" --kind grid --rows 96 --cols 96 >/dev/null
  for b in "${backends[@]}"; do
    solve_on "$b" nd "$small" /dev/shm/apsp_nd.bin >/dev/null && solve_on "$b" none "$small" /dev/shm/apsp_none.bin >/dev/null &&
      cmp -s /dev/shm/apsp_nd.bin /dev/shm/apsp_none.bin && note "$b nd vs none, 96x96 grid" "identical (cmp)" ||
      { note "$b nd vs none, 96x96 grid" "FAIL (differ or error: sparse_runs.log)"; status=1; }
    rm -f /dev/shm/apsp_nd.bin /dev/shm/apsp_none.bin
  done
  rows=${APSP_SPARSE_ROWS:-256}
  big=/dev/shm/apsp_grid$rows.bin
  "$build/apsp" generate "$big" --kind grid --rows "$rows" --cols "$rows" >/dev/null
  for b in "${backends[@]}"; do
    for o in nd none nd none; do
      r=$(solve_on "$b" "$o" "$big" /dev/null) || status=1
      echo "sparse $b $gpus GPUs grid ${rows}x$rows order=$o: wall/compute/order/rounds $r" | tee -a "$OUT/sparse.txt"
    done
  done
  python3 - "$OUT/sparse.txt" <<'PY' | tee -a "$OUT/sparse.txt"
import sys, collections
best = collections.defaultdict(lambda: [1e9, 1e9])
for line in open(sys.argv[1]):
    if not line.startswith("sparse ") or "FAIL" in line:
        continue
    head, vals = line.split(": wall/compute/order/rounds ")
    w, c = vals.split()[:2]
    key = (head.split(" order=")[0], head.split(" order=")[1])
    best[key] = [min(best[key][0], float(w)), min(best[key][1], float(c))]
for (what, o), (w, c) in sorted(best.items()):
    if o == "nd" and (what, "none") in best:
        W, C = best[(what, "none")]
        print(f"{what}: nd vs none best of 2: compute {c:.3f} vs {C:.3f} s = {C / c:.1f}x, "
              f"whole process (to /dev/null) {w:.2f} vs {W:.2f} s = {W / w:.1f}x")
PY
  grep -E "x, whole" "$OUT/sparse.txt" | while read -r l; do note "sparse ${l%%:*}" "${l#*: }"; done
  rm -f "$small" "$big"
fi

say "summary ($gpus GPUs, mode $what, exit $status)"
{ echo "| step | result |"; echo "|---|---|"; printf '%s\n' "${summary[@]}"; } | tee "$OUT/summary.md"
if [ -s "$OUT/mpi_compare.md" ]; then echo; tee -a "$OUT/summary.md" < "$OUT/mpi_compare.md"; fi
exit $status
