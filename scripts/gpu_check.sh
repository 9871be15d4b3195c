#!/usr/bin/env bash
# scripts/gpu_check.sh — everything the CUDA backend needs checked on a GPU machine, in one call:
# a from-scratch Release build with CUDA, the SASS check (VIADDMNMX in the min-plus GEMM), the GPU
# tests, compute-sanitizer memcheck + racecheck on a small case, the kernel lab, `apsp bench
# --backend cuda`, and whole-process `apsp IN OUT` timings on course-format graphs. Logs go to
# $OUT (or ./gpu-check-out); a short table is printed last.
#
# Usage: scripts/gpu_check.sh [--src DIR] [--deps DIR] [--steps build,sass,test,metrics,nthu,sanitize,sn,snmetrics,lab,bench,whole,types,startup,python,paths,io]
#                             [--sizes 5000,11000,30000] [--bench-sizes 1000,2048,...]
#   --src DIR   source tree to build (default: the repository root). Point it at a snapshot of
#               HEAD when the working tree holds other people's unfinished files.
#   steps startup, python and paths are not in the default list (python: PYTEST_ARGS picks the
#   test files; a python3 first on PATH, e.g. /opt/torch/.venv/bin's, builds the module for it): `paths` times --paths against
#               distances only (PATHS_SIZES, default 16384; issue 5's 1.6x), cuda best of 2 and cpu once (PATHS_CPU=0 skips); `startup` times a fresh process's CUDA
#               start-up step by step (dev/cuda/startup_probe) and `apsp --version`; `python` builds
#               the module (pybind11 from pip on the device image), runs the pytest suite (its cuda
#               tests included) and bench/profile.py with the GPU columns.
#   --deps DIR  a folder with include/{gtest,gmock,CLI} and lib/libgtest*.a, used when the machine
#               lacks GoogleTest / CLI11 (the device image has neither packaged), and
#               nthu-testcases/ (the course cases, which live outside the repository).
#
# Preparing a device call from the development machine (the device image has neither GoogleTest
# nor CLI11, and ../shared does not travel); both folders are in .git/info/exclude and go in the
# device tool's `carry`:
#   mkdir -p .gpu_deps/include .gpu_deps/lib && cp -r /usr/include/{gtest,gmock,CLI} .gpu_deps/include/
#   cp /usr/lib/x86_64-linux-gnu/libgtest*.a .gpu_deps/lib/ && cp -r ../shared/nthu-testcases .gpu_deps/
#   mkdir -p .gpu_deps/metis/include .gpu_deps/metis/lib && cp /usr/include/metis.h .gpu_deps/metis/include/
#   cp -a /usr/lib/x86_64-linux-gnu/libmetis.so* .gpu_deps/metis/lib/   # --order nd on the device
#   mkdir -p .gpu_deps/amd/include .gpu_deps/amd/lib && cp /usr/include/suitesparse/{amd,SuiteSparse_config}.h .gpu_deps/amd/include/
#   cp -a /usr/lib/x86_64-linux-gnu/lib{amd,suitesparseconfig}.so* .gpu_deps/amd/lib/   # --order sn's AMD
#   rm -rf .gpu_snapshot && mkdir .gpu_snapshot && git archive HEAD | tar -x -C .gpu_snapshot
# then run: OUT=$OUT scripts/gpu_check.sh --src .gpu_snapshot --deps .gpu_deps
# Env: PYTHON_BENCH=0 (step python: pytest only), SANITIZE_TIMEOUT (s, default 600), BUILD_DIR, LOGDIR, APSP_WITH_MPI / APSP_WITH_NCCL (AUTO).
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
SRC=$ROOT
DEPS=""
STEPS=build,sass,test,nthu,sanitize,sn,lab,bench,whole,types
SIZES=5000,11000,30000
BENCH_SIZES=""
while [ $# -gt 0 ]; do
  case "$1" in
    --src) SRC=$(cd "$2" && pwd); shift 2 ;;
    --deps) DEPS=$(cd "$2" && pwd); shift 2 ;;
    --steps) STEPS=$2; shift 2 ;;
    --sizes) SIZES=$2; shift 2 ;;
    --bench-sizes) BENCH_SIZES=$2; shift 2 ;;
    *) echo "unknown argument $1"; exit 2 ;;
  esac
done
# Logs are written to LOGDIR, and at the end packed into $OUT/logs.tgz with the summary, lab and
# bench logs beside it (the device tool brings back at most 8 files).
FINAL=${OUT:-$ROOT/gpu-check-out}
OUTDIR=${LOGDIR:-/tmp/apsp-gpu-logs}
rm -rf "$OUTDIR"
mkdir -p "$OUTDIR" "$FINAL"
BUILD=${BUILD_DIR:-/tmp/apsp-gpu-build}
export PATH=$PATH:/usr/local/cuda/bin
SUMMARY=$OUTDIR/summary.txt
: >"$SUMMARY"
note() { echo "$*" | tee -a "$SUMMARY"; }
has() { case ",$STEPS," in *",$1,"*) return 0 ;; *) return 1 ;; esac; }
T0=$(date +%s)

echo "== machine"
nvidia-smi --query-gpu=name,memory.total,clocks.sm,clocks.max.sm,driver_version --format=csv 2>&1 | tee "$OUTDIR/machine.txt"
{ nvcc --version | tail -1; cmake --version | head -1; ninja --version; nproc; } 2>&1 | tee -a "$OUTDIR/machine.txt"
note "device: $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)"
note "source: $SRC ($(cd "$SRC" && (cat .commit 2>/dev/null || git rev-parse --short HEAD 2>/dev/null || echo unknown)))"

# ---- build ----
if has build; then
  EXTRA=()
  if [ -n "$DEPS" ] && [ ! -e /usr/include/gtest/gtest.h ]; then
    EXTRA+=(-DGTEST_ROOT="$DEPS" -DGTest_DIR=/nonexistent)
  fi
  if [ -n "$DEPS" ] && [ ! -e /usr/include/CLI/CLI.hpp ]; then
    EXTRA+=(-DCLI11_INCLUDE_DIR="$DEPS/include" -DCLI11_DIR=/nonexistent)
  fi
  # METIS (--order nd, docs/sparse.md): the device image lacks libmetis-dev; --deps may carry
  # metis/include/metis.h and metis/lib/libmetis.so* from the development machine.
  if [ -n "$DEPS" ] && [ ! -e /usr/include/metis.h ] && [ -e "$DEPS/metis/include/metis.h" ]; then
    EXTRA+=(-DAPSP_WITH_METIS=ON -DMETIS_INCLUDE_DIR="$DEPS/metis/include" -DMETIS_LIBRARY="$DEPS/metis/lib/libmetis.so")
    export LD_LIBRARY_PATH="$DEPS/metis/lib:${LD_LIBRARY_PATH:-}"
  fi
  # SuiteSparse AMD (--order sn's minimum-degree tree): likewise amd/include and amd/lib.
  if [ -n "$DEPS" ] && [ ! -e /usr/include/suitesparse/amd.h ] && [ -e "$DEPS/amd/include/amd.h" ]; then
    EXTRA+=(-DAPSP_WITH_AMD=ON -DAMD_INCLUDE_DIR="$DEPS/amd/include" -DAMD_LIBRARY="$DEPS/amd/lib/libamd.so")
    export LD_LIBRARY_PATH="$DEPS/amd/lib:${LD_LIBRARY_PATH:-}"
  fi
  TARGETS=(apsp fw_lab test_cuda test_ladder test_dense test_paths test_cli_paths test_metrics test_sparse_gpu test_supernodal test_supernode_tree test_supernodal_gpu test_batch_gpu test_batch_gpu_plan test_metrics_gpu test_metrics_sparse test_negative sn_bench startup_probe)
  [ -n "${BUILD_TARGETS:-}" ] && read -r -a TARGETS <<<"$BUILD_TARGETS"  # a short call: only these
  has io && TARGETS+=(write_probe)
  PY=(-DAPSP_WITH_PYTHON=OFF)
  if has python && PYB=$(python3 -m pybind11 --cmakedir 2>/dev/null); then
    PY=(-DAPSP_WITH_PYTHON=ON -DPython_EXECUTABLE="$(command -v python3)" -Dpybind11_DIR="$PYB")
    TARGETS+=(apsp_python)
  fi
  # The device image's CXX=/opt/gcc/bin/g++ is a wrapper around the system GCC 13 that links
  # libstdc++ statically: a Python module built with it holds a second libstdc++ beside the shared
  # one that CUDA, NCCL and MPI load, and crashed in iostreams (2026-11-21). Use the plain GCC.
  if [ -x /usr/bin/g++ ] && [ "${CXX:-}" != /usr/bin/g++ ] && [ -z "${APSP_KEEP_CXX:-}" ]; then
    export CXX=/usr/bin/g++ CC=/usr/bin/gcc
  fi
  rm -rf "$BUILD"
  echo "== configure"
  cmake -S "$SRC" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DAPSP_WITH_CUDA=ON -DAPSP_WITH_MPI=${APSP_WITH_MPI:-AUTO} -DAPSP_WITH_NCCL=${APSP_WITH_NCCL:-AUTO} \
    "${PY[@]}" "${EXTRA[@]}" >"$OUTDIR/configure.log" 2>&1
  rc=$?; grep "apsp:" "$OUTDIR/configure.log"
  [ $rc -eq 0 ] || { tail -30 "$OUTDIR/configure.log"; note "configure: FAIL"; exit 1; }
  echo "== build"
  ninja -C "$BUILD" "${TARGETS[@]}" >"$OUTDIR/build.log" 2>&1
  rc=$?
  [ $rc -eq 0 ] || { grep -E "error|FAILED" "$OUTDIR/build.log" | head -30; note "build: FAIL"; exit 1; }
  note "build: ok ($(( $(date +%s) - T0 )) s)"
fi
APSP=$BUILD/apsp

# ---- SASS: the inner loop must be VIADDMNMX ----
if has sass; then
  OBJ=$(find "$BUILD" -name 'cuda_backend.cu.o' | head -1)
  cuobjdump -sass "$OBJ" >"$OUTDIR/cuda_backend.sass" 2>&1
  # The rest-update GEMM (GemmMode::Rest = 1) for int32 (Ii), float32 (If), int16x2 words (Ij),
  # int64 (Il) and float64 (Id).
  for k in Ii If Ij Il Id; do
    awk -v k="minplus_gemm_128x128${k}LNS" '/Function : /{f = index($0, k) > 0 && index($0, "GemmModeE1E") > 0} f' \
      "$OUTDIR/cuda_backend.sass" >"$OUTDIR/rest_$k.sass"
    echo "-- rest $k: top opcodes"
    grep -oE '^\s+/\*[0-9a-f]{4}\*/\s+[A-Z0-9_.]+' "$OUTDIR/rest_$k.sass" | awk '{print $2}' | sort | uniq -c | sort -rn | head -6 |
      tee "$OUTDIR/rest_$k.ops"
    note "sass rest $k: $(head -3 "$OUTDIR/rest_$k.ops" | tr -s ' ' | tr '\n' ';') local ld/st: $(grep -cE ' (LDL|STL)' "$OUTDIR/rest_$k.sass")"
  done
fi

# ---- the metrics' sparse engine (issue 31 item 3): its suite, then whole-process `apsp metrics`
# (closeness, harmonic, eccentricity, ...) on road-like graphs: V = SN_SIZE beside the fw engine
# over nd rounds (the baseline), and V = SN_METRICS_BIG (default 1,000,000: grid and geometric;
# 0 skips) alone; wall time, host peak and the GPU's peak memory ----
if has snmetrics; then
  t=test_metrics_sparse
  (cd "$BUILD/tests" && "./$t" --gtest_brief=1) >"$OUTDIR/$t.log" 2>&1
  rc=$?
  tail -3 "$OUTDIR/$t.log"
  note "$t: $([ $rc -eq 0 ] && echo PASS || echo FAIL) ($(grep -E '^\[  PASSED  \]|^\[  FAILED  \]|SKIPPED' "$OUTDIR/$t.log" | head -3 | tr '\n' ' '))"
  for tool in memcheck racecheck; do  # the sums' kernels, one GPU and two shares of it
    timeout "${SANITIZE_TIMEOUT:-600}" compute-sanitizer --tool $tool --error-exitcode 9 "$BUILD/tests/$t" \
      --gtest_filter='MetricsSparse.RowsSplitOverTwoSharesOfOneGpuGiveTheSameSums' >"$OUTDIR/sanitize_snm_$tool.log" 2>&1
    rc=$?
    note "compute-sanitizer $tool sparse metrics sums: $([ $rc -eq 0 ] && echo clean || echo "FAIL rc=$rc") ($(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUTDIR/sanitize_snm_$tool.log" | tail -1))"
  done
  SG=/tmp/apsp-snm
  mkdir -p "$SG"
  gpu_peak() {  # runs "$@", prints the GPU's largest memory.used (MiB) seen every 100 ms
    nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits -lms 100 >"$SG/smi.log" 2>/dev/null &
    local smi=$!
    "$@"
    local rc=$?
    kill $smi 2>/dev/null; wait $smi 2>/dev/null
    echo "gpu peak $(sort -n "$SG/smi.log" | tail -1) MiB"
    return $rc
  }
  for N in ${SN_SIZE:-126146} ${SN_METRICS_BIG:-1000000}; do
    [ "$N" = 0 ] && continue
    SIDE=$(python3 -c "import math;print(math.isqrt($N))")
    "$APSP" generate "$SG/grid$N.gr" --kind grid --rows "$SIDE" --cols "$SIDE" --wmin 1 --wmax 1000 >/dev/null 2>&1
    "$APSP" generate "$SG/geo$N.gr" --kind geometric -V "$N" -k 3 >/dev/null 2>&1
    for g in grid geo; do
      engines="auto"
      [ "$N" -le 200000 ] && engines="auto fw"
      for e in $engines; do
        extra=""
        [ "$e" = fw ] && extra="--order nd"
        log="$OUTDIR/snm_${g}${N}_$e.log"
        gpu_peak /usr/bin/time -f "%e s wall, %M KB host peak" "$APSP" metrics "$SG/$g$N.gr" "$SG/$g$N.$e.csv" \
          --backend cuda --engine "$e" $extra -q >"$log" 2>&1
        note "metrics $g V=$N --engine $e $extra (cuda): $(grep -E 'wall' "$log" | tail -1); $(grep -E 'gpu peak' "$log"); $(grep -oE '"plan": "[^"]*' "$log" | head -1 | cut -c1-220)"
      done
      if [ -f "$SG/$g$N.fw.csv" ]; then
        python3 - "$SG/$g$N.auto.csv" "$SG/$g$N.fw.csv" >"$OUTDIR/snm_cmp_$g$N.log" 2>&1 <<'PY'
import csv, sys
a = list(csv.reader(open(sys.argv[1]))); b = list(csv.reader(open(sys.argv[2])))
assert a[0] == b[0] and len(a) == len(b), "shapes differ"
worst = 0.0
for ra, rb in zip(a[1:], b[1:]):
    for x, y in zip(ra, rb):
        if x != y:
            worst = max(worst, abs(float(x) - float(y)) / max(abs(float(y)), 1e-300))
print("max relative difference %.3g over %d rows" % (worst, len(a) - 1))
sys.exit(0 if worst <= 1e-12 else 1)
PY
        note "metrics $g V=$N auto vs fw: $(cat "$OUTDIR/snm_cmp_$g$N.log" | tail -1)"
      fi
    done
  done
fi

# ---- the sparse direct engine (--order sn, docs/sparse.md): its GPU suite, the sanitizers on a
# small case, and in-process timings with the distances left on the GPU (sn_bench) beside the
# nd rounds of the same graphs (whole process to /dev/null, --stats), V = SN_SIZE (126146) ----
if has sn; then
  for t in test_supernodal_gpu test_supernodal test_supernode_tree; do
    (cd "$BUILD/tests" && "./$t" --gtest_brief=1) >"$OUTDIR/$t.log" 2>&1
    rc=$?
    tail -3 "$OUTDIR/$t.log"
    note "$t: $([ $rc -eq 0 ] && echo PASS || echo FAIL) ($(grep -E '^\[  PASSED  \]|^\[  FAILED  \]|SKIPPED' "$OUTDIR/$t.log" | head -3 | tr '\n' ' '))"
  done
  for tool in memcheck racecheck; do
    timeout "${SANITIZE_TIMEOUT:-600}" compute-sanitizer --tool $tool --error-exitcode 9 \
      "$BUILD/tests/test_supernodal_gpu" --gtest_filter='SupernodalGpu.KeepsTheResultOnTheDevice' \
      >"$OUTDIR/sanitize_sn_$tool.log" 2>&1
    rc=$?
    note "compute-sanitizer $tool sn (37 x 41 grid): $([ $rc -eq 0 ] && echo clean || echo "FAIL rc=$rc") ($(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUTDIR/sanitize_sn_$tool.log" | tail -1))"
  done
  N=${SN_SIZE:-126146}
  for spec in "grid int32 auto" "grid float32 auto" "geometric int32 auto" "geometric float32 auto" \
              "grid int32 metis" "geometric int32 metis"; do
    set -- $spec
    "$BUILD/bench/sn_bench" "$1" "$N" cuda "$2" 3 "$3" >"$OUTDIR/sn_bench_$1_$2_$3.log" 2>&1
    cat "$OUTDIR/sn_bench_$1_$2_$3.log"
    note "sn_bench $1 V=$N $2 $3 cuda: $(grep -E 'trial 0' "$OUTDIR/sn_bench_$1_$2_$3.log" | grep -oE 'total [0-9.]+ s' | head -1) cold; $(tail -1 "$OUTDIR/sn_bench_$1_$2_$3.log")"
  done
  SG=/tmp/apsp-sn
  mkdir -p "$SG"
  SIDE=$(python3 -c "import math;print(math.isqrt($N))")
  "$APSP" generate "$SG/grid.gr" --kind grid --rows "$SIDE" --cols "$SIDE" --wmin 1 --wmax 1000 >/dev/null 2>&1
  "$APSP" generate "$SG/geo.gr" --kind geometric -V "$N" -k 3 >/dev/null 2>&1
  for g in grid geo; do
    for order in nd sn; do
      /usr/bin/time -f "%e s wall, %M KB" "$APSP" solve "$SG/$g.gr" /dev/null --backend cuda --order $order --stats \
        >"$OUTDIR/sn_whole_${g}_$order.log" 2>&1
      note "whole $g V=$N cuda --order $order to /dev/null: $(tail -1 "$OUTDIR/sn_whole_${g}_$order.log"); $(grep -E 'compute|order ' "$OUTDIR/sn_whole_${g}_$order.log" | tr -s ' ' | tr '\n' ';')"
    done
  done
fi

# ---- tests ----
if has test; then
  echo "== test_cuda"
  (cd "$BUILD/tests" && ./test_cuda --gtest_brief=1) >"$OUTDIR/test_cuda.log" 2>&1
  rc=$?
  tail -5 "$OUTDIR/test_cuda.log"
  note "test_cuda: $([ $rc -eq 0 ] && echo PASS || echo FAIL) ($(grep -E '^\[  PASSED  \]|^\[  FAILED  \]|SKIPPED' "$OUTDIR/test_cuda.log" | head -3 | tr '\n' ' '))"
  # The suites whose cases also run on the GPU where one exists: dense views (cuda, multi-gpu),
  # paths on every backend, the CLI's --paths, metrics (every dtype on each GPU backend).
  for t in test_ladder test_dense test_paths test_cli_paths test_metrics test_sparse_gpu test_batch_gpu test_batch_gpu_plan test_metrics_gpu test_negative; do
    [ -x "$BUILD/tests/$t" ] || continue
    (cd "$BUILD/tests" && "./$t" --gtest_brief=1) >"$OUTDIR/$t.log" 2>&1
    rc=$?
    tail -3 "$OUTDIR/$t.log"
    note "$t: $([ $rc -eq 0 ] && echo PASS || echo FAIL) ($(grep -E '^\[  PASSED  \]|^\[  FAILED  \]|SKIPPED \]' "$OUTDIR/$t.log" | head -3 | tr '\n' ' '))"
  done
fi

# ---- `apsp metrics`: the cuda backend's per-vertex CSV and JSON summary against the cpu backend's
# (integer weights: equal; fractional: float64 rounds on both, within 1e-12 relative) ----
if has metrics; then
  MD=/tmp/apsp-metrics-check
  mkdir -p "$MD"
  for spec in "int 2500 60000 1000" "big 2000 40000 1000000" "frac 2000 40000 1000"; do
    set -- $spec
    IN=$MD/$1.txt
    "$APSP" generate "$MD/$1.raw" -V "$2" -E "$3" --wmin 0 --wmax "$4" --seed 5 --format edgelist >/dev/null 2>&1
    if [ "$1" = frac ]; then  # weights w/7: fractional, float64 by default
      awk '/^[0-9]/ && NF == 3 { printf "%s %s %.6f\n", $1, $2, $3 / 7; next } { print }' "$MD/$1.raw" >"$IN"
    else
      mv "$MD/$1.raw" "$IN"
    fi
    ok=PASS
    for u in "" "--undirected"; do
      for b in cpu cuda; do
        for ext in csv json; do
          "$APSP" metrics "$IN" "$MD/$1${u:+_u}.$b.$ext" --backend $b $u -q >>"$MD/$1${u:+_u}.$b.log" 2>&1 || ok="FAIL($b $u rc)"
        done
      done
      python3 - "$MD/$1${u:+_u}" >>"$MD/compare.log" 2>&1 <<'PY' || ok="FAIL(compare $u)"
import csv, json, math, sys
stem = sys.argv[1]
def near(a, b):
    try:
        x, y = float(a), float(b)
    except ValueError:
        return a == b
    return x == y or (math.isfinite(x) and abs(x - y) <= 1e-12 * max(1.0, abs(y)))
rows = [list(csv.reader(open(f"{stem}.{b}.csv"))) for b in ("cpu", "cuda")]
assert len(rows[0]) == len(rows[1]) > 1, "row counts"
bad = [(r0, r1) for r0, r1 in zip(*rows) if len(r0) != len(r1) or not all(map(near, r0, r1))]
assert not bad, f"{len(bad)} csv rows differ, first {bad[0]}"
js = [json.load(open(f"{stem}.{b}.json")) for b in ("cpu", "cuda")]
def walk(a, b, where):
    if isinstance(a, dict):
        for k in a:
            if k in ("backend",) or "time" in k or k.endswith("_s") or "seconds" in k:
                continue
            walk(a[k], b[k], where + "." + k)
    elif isinstance(a, list):
        assert len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b)):
            walk(x, y, f"{where}[{i}]")
    else:
        assert near(a, b) if not isinstance(a, str) else a == b, f"{where}: {a} vs {b}"
walk(js[0], js[1], "json")
print(stem, "ok", len(rows[0]) - 1, "vertices")
PY
    done
    note "metrics cli $1 V=$2 E=$3 cuda vs cpu (csv, json; directed, undirected): $ok"
  done
  cp "$MD"/*.log "$OUTDIR/" 2>/dev/null
fi

# ---- the course cases, byte for byte, through the cuda backend ----
if has nthu; then
  CASES=""
  for d in "$DEPS/nthu-testcases" "$SRC/../shared/nthu-testcases" "$ROOT/../shared/nthu-testcases"; do
    [ -n "$d" ] && [ -d "$d" ] && { CASES=$d; break; }
  done
  if [ -z "$CASES" ]; then
    note "nthu cases: SKIPPED (no nthu-testcases folder)"
  else
    pass=0; fail=0
    for out in "$CASES"/*.out; do
      in=${out%.out}
      if "$APSP" solve "$in" /tmp/nthu.bin --backend cuda -q >/dev/null 2>>"$OUTDIR/nthu.log" && cmp -s /tmp/nthu.bin "$out"; then
        pass=$((pass + 1))
      else
        fail=$((fail + 1)); echo "FAIL $in" >>"$OUTDIR/nthu.log"
      fi
    done
    note "nthu cases via --backend cuda: $pass byte-exact, $fail failed"
  fi
fi

# ---- compute-sanitizer on a small case ----
if has sanitize; then
  for tool in memcheck racecheck; do
    echo "== compute-sanitizer $tool"
    timeout "${SANITIZE_TIMEOUT:-600}" compute-sanitizer --tool $tool --error-exitcode 9 "$BUILD/tests/test_cuda" \
      --gtest_filter='TileEdges/CudaSizes.*/7:Cuda.DuplicatesAndSelfLoops:Cuda.Int16SmallForSanitizers:Cuda.PathsWalkToShortestDistances' >"$OUTDIR/sanitize_$tool.log" 2>&1
    rc=$?
    tail -3 "$OUTDIR/sanitize_$tool.log"
    note "compute-sanitizer $tool (V=129 every dtype, graph path; V=200 dups/loops; V=300 int16x2 kept + fallback; paths V<=300 every dtype): $([ $rc -eq 0 ] && echo clean || echo "FAIL rc=$rc") ($(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUTDIR/sanitize_$tool.log" | tail -1))"
  done
  # The sparse rounds' elimination-tree batches (docs/sparse.md): a geometric graph whose leaves'
  # rounds run in batches (int32 rounds), and a grid whose distances fit the int16x2 rounds
  # (batches over word tiles), against the cpu backend's bytes.
  SD=/tmp/apsp-sanitize-nd
  mkdir -p "$SD"
  if "$APSP" generate "$SD/geo.bin" --kind geometric -V 1500 -k 4 >"$OUTDIR/sanitize_nd_setup.log" 2>&1 &&
    "$APSP" generate "$SD/grid.bin" --kind grid --rows 40 --cols 40 >>"$OUTDIR/sanitize_nd_setup.log" 2>&1 &&
    "$APSP" solve "$SD/geo.bin" "$SD/geo_cpu.bin" --backend cpu --order none -q 2>>"$OUTDIR/sanitize_nd_setup.log" &&
    "$APSP" solve "$SD/grid.bin" "$SD/grid_cpu.bin" --backend cpu --order none -q 2>>"$OUTDIR/sanitize_nd_setup.log" &&
    "$APSP" solve "$SD/grid.bin" /dev/null --backend cpu --order nd -q 2>>"$OUTDIR/sanitize_nd_setup.log"; then
    for spec in "geo 0 int32" "grid 1 int16x2"; do
      set -- $spec
      for tool in memcheck racecheck; do
        log=$OUTDIR/sanitize_nd_$1_$tool.log
        APSP_CUDA_INT16=$2 APSP_TRACE=1 timeout "${SANITIZE_TIMEOUT:-600}" compute-sanitizer \
          --tool $tool --error-exitcode 9 "$APSP" solve "$SD/$1.bin" "$SD/nd.bin" --backend cuda \
          --order nd --stats -q >"$log" 2>&1
        rc=$?
        same=$(cmp -s "$SD/nd.bin" "$SD/${1}_cpu.bin" && echo "output == cpu" || echo "OUTPUT DIFFERS")
        note "compute-sanitizer $tool (--order nd, $1 V=1500-1600, $3 rounds: $(grep -o '[0-9]* in [0-9]* batches' "$log" | head -1); ran $(grep -oE 'int16x2|int32' "$log" | tail -1)): $([ $rc -eq 0 ] && echo clean || echo "FAIL rc=$rc") ($(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$log" | tail -1)); $same"
        rm -f "$SD/nd.bin"
      done
    done
  else
    note "compute-sanitizer --order nd: skipped ($(tail -1 "$OUTDIR/sanitize_nd_setup.log"))"
  fi
fi

# ---- kernel lab ----
if has lab; then
  echo "== fw_lab"
  "$BUILD/dev/cuda/fw_lab" >"$OUTDIR/lab.log" 2>&1
  rc=$?
  cat "$OUTDIR/lab.log"
  note "lab: $([ $rc -eq 0 ] && echo PASS || echo FAIL)"
fi

# ---- apsp bench ----
if has bench; then
  echo "== apsp bench --backend cuda"
  BARGS=(bench --backend cuda --trials 3 --csv "$OUTDIR/bench_cuda.csv")
  [ -n "$BENCH_SIZES" ] && BARGS+=(--sizes "$BENCH_SIZES")
  "$APSP" "${BARGS[@]}" >"$OUTDIR/bench_cuda.log" 2>&1
  rc=$?
  cat "$OUTDIR/bench_cuda.log"
  note "bench: rc=$rc"
fi

# ---- whole process: apsp IN OUT on course-format graphs ----
if has whole; then
  echo "== whole process"
  DATA=/tmp/apsp-gpu-data
  mkdir -p "$DATA"
  IFS=, read -ra VS <<<"$SIZES"
  for V in "${VS[@]}"; do
    IN=$DATA/c$V.in
    if [ ! -s "$IN" ]; then
      "$APSP" generate "$IN" -V "$V" -E 5000000 --wmin 0 --wmax 1000 --seed 1 >/dev/null 2>&1 ||
        python3 - "$IN" "$V" <<'EOF'
import sys, numpy as np
path, V = sys.argv[1], int(sys.argv[2]); E = min(5_000_000, V * (V - 1) // 4)
rng = np.random.default_rng(1); k = rng.choice(V * V, size=int(E * 1.1), replace=False)
k = k[(k // V) != (k % V)][:E]; e = np.empty((E, 3), np.int32)
e[:, 0], e[:, 1], e[:, 2] = k // V, k % V, rng.integers(0, 1001, E)
with open(path, 'wb') as f: np.array([V, E], np.int32).tofile(f); e.tofile(f)
EOF
    fi
    sync
    # Warm the page cache for the input like a repeated course run would; one untimed run first.
    # The previous output is deleted before each timed run (freeing its page cache is not this
    # run's cost), and the dirty pages are flushed so each run starts alike.
    "$APSP" "$IN" "$DATA/out$V.bin" >/dev/null 2>&1
    best=""
    # Each timed run starts on an idle GPU: the previous process's CUDA teardown (which may go on
    # after it returned, see split_off_teardown in apps/apsp.cpp) is given a second to finish.
    for r in 1 2 3; do
      rm -f "$DATA/out$V.bin"; sync; sleep 1
      s=$(date +%s%N)
      "$APSP" "$IN" "$DATA/out$V.bin" >"$OUTDIR/whole_$V.log" 2>&1
      rc=$?
      t=$(( ($(date +%s%N) - s) / 1000000 ))
      [ $rc -eq 0 ] || { note "whole V=$V: FAIL rc=$rc $(tail -1 "$OUTDIR/whole_$V.log")"; break; }
      if [ -z "$best" ] || [ "$t" -lt "$best" ]; then best=$t; fi
    done
    rm -f "$DATA/out${V}s.bin"; sync
    "$APSP" solve "$IN" "$DATA/out${V}s.bin" --backend cuda --stats -q >"$OUTDIR/stats_$V.log" 2>&1
    cmp -s "$DATA/out$V.bin" "$DATA/out${V}s.bin" && same=same || same=DIFFERENT
    [ -n "$best" ] && note "whole V=$V: best of 3 $best ms; stats: $(tr '\n' ' ' <"$OUTDIR/stats_$V.log" | cut -c1-300) (outputs $same)"
    rm -f "$DATA/out${V}s.bin"
    # Where the time goes: one traced run (APSP_TRACE=1, stage timestamps) and the CPU backend.
    rm -f "$DATA/out${V}t.bin"; sync; sleep 1
    s=$(date +%s%N); APSP_TRACE=1 "$APSP" "$IN" "$DATA/out${V}t.bin" >"$OUTDIR/trace_$V.log" 2>&1
    echo "wall $(( ($(date +%s%N) - s) / 1000000 )) ms" >>"$OUTDIR/trace_$V.log"
    cat "$OUTDIR/trace_$V.log"
    # The same without returning before the CUDA teardown (apps/apsp.cpp, split_off_teardown).
    bestk=""
    for r in 1 2 3; do
      rm -f "$DATA/out${V}k.bin"; sync; sleep 1
      s=$(date +%s%N); APSP_DETACH_EXIT=0 "$APSP" "$IN" "$DATA/out${V}k.bin" >/dev/null 2>&1
      t=$(( ($(date +%s%N) - s) / 1000000 ))
      if [ -z "$bestk" ] || [ "$t" -lt "$bestk" ]; then bestk=$t; fi
    done
    cmp -s "$DATA/out$V.bin" "$DATA/out${V}k.bin" && same=same || same=DIFFERENT
    note "whole V=$V with APSP_DETACH_EXIT=0 (process waits for the CUDA teardown): best of 3 $bestk ms (outputs $same)"
    rm -f "$DATA/out${V}t.bin" "$DATA/out${V}c.bin" "$DATA/out${V}k.bin"; sync
    [ "$V" -le "${CPU_MAX_V:-11000}" ] || continue
    s=$(date +%s%N); "$APSP" solve "$IN" "$DATA/out${V}c.bin" --backend cpu --stats -q >"$OUTDIR/cpu_$V.log" 2>&1
    t=$(( ($(date +%s%N) - s) / 1000000 ))
    cmp -s "$DATA/out$V.bin" "$DATA/out${V}c.bin" && same=same || same=DIFFERENT
    note "whole V=$V --backend cpu: $t ms; stats: $(tr '\n' ' ' <"$OUTDIR/cpu_$V.log" | cut -c1-300) (outputs $same)"
    rm -f "$DATA/out${V}c.bin"
  done
fi

# ---- weight types (issue 14): whole process with large integer weights against 0..1000 (same
# graphs otherwise), the grid whose distances pass the int16x2 cap, fractional float64 against
# the CPU backend and SciPy. TYPES_SIZES (default 11000,30000), GRID (default 256: 256 x 256).
if has types; then
  echo "== weight types"
  DATA=/tmp/apsp-gpu-data
  mkdir -p "$DATA"
  best_of3() {  # best_of3 IN OUT [args]: best wall ms of 3 runs of apsp solve IN OUT args
    local in=$1 out=$2 b="" t s; shift 2
    for r in 1 2 3; do
      rm -f "$out"; sync; sleep 1
      s=$(date +%s%N); "$APSP" solve "$in" "$out" -q "$@" >/dev/null 2>&1 || { echo FAIL; return; }
      t=$(( ($(date +%s%N) - s) / 1000000 ))
      if [ -z "$b" ] || [ "$t" -lt "$b" ]; then b=$t; fi
    done
    echo "$b"
  }
  declare -A ms cp st
  IFS=, read -ra TV <<<"${TYPES_SIZES:-11000,30000}"
  for V in "${TV[@]}"; do
    for W in 1000 1000000; do
      IN=$DATA/w${W}_$V.in
      [ -s "$IN" ] || "$APSP" generate "$IN" -V "$V" -E 5000000 --wmin 0 --wmax $W --seed 1 >/dev/null 2>&1
      "$APSP" solve "$IN" "$DATA/t.bin" -q >/dev/null 2>&1  # warm the page cache
      ms[$W]=$(best_of3 "$IN" "$DATA/t$W.bin")
      rm -f "$DATA/t.bin"; sync
      "$APSP" solve "$IN" "$DATA/t.bin" -q --backend cuda --stats >"$OUTDIR/types_stats_${W}_$V.log" 2>&1
      st[$W]=$(head -1 "$OUTDIR/types_stats_${W}_$V.log" | sed 's/apsp stats: //')
      cp[$W]=$(grep compute "$OUTDIR/types_stats_${W}_$V.log" | awk '{print $2}')
      rm -f "$DATA/t.bin"
    done
    note "types V=$V E=5M: whole w 0..1000 ${ms[1000]} ms (compute ${cp[1000]} s; ${st[1000]}), w 0..1e6 ${ms[1000000]} ms (compute ${cp[1000000]} s; ${st[1000000]}): ratio $(python3 -c "print('%.2f' % (${ms[1000000]} / ${ms[1000]}))" 2>/dev/null)"
    # The cpu backend on the 1e6 graph at V <= 11000: same bytes (it runs the checked int32 rung too).
    if [ "$V" -le 11000 ]; then
      s=$(date +%s%N); "$APSP" solve "$DATA/w1000000_$V.in" "$DATA/c.bin" -q --backend cpu --stats >"$OUTDIR/types_cpu_$V.log" 2>&1
      t=$(( ($(date +%s%N) - s) / 1000000 ))
      cmp -s "$DATA/c.bin" "$DATA/t1000000.bin" && same=same || same=DIFFERENT
      note "types V=$V w 0..1e6 --backend cpu: $t ms, output $same as cuda ($(head -1 "$OUTDIR/types_cpu_$V.log" | sed 's/apsp stats: //'))"
      rm -f "$DATA/c.bin"
    fi
    rm -f "$DATA"/t*.bin
  done
  G=${GRID:-256}  # GRID=0: no grid run
  [ "$G" = 0 ] || {
  GIN=$DATA/grid$G.txt
  [ -s "$GIN" ] || "$APSP" generate "$GIN" --kind grid --rows "$G" --cols "$G" --wmin 1 --wmax 1000 --seed 1 --format edgelist >/dev/null 2>&1
  for mode in default int32; do
    env=(); [ $mode = int32 ] && env=(APSP_CUDA_INT16=0)
    rm -f "$DATA/g.npy"; sync
    env "${env[@]}" "$APSP" solve "$GIN" "$DATA/g.npy" -q --backend cuda --stats >"$OUTDIR/grid_${mode}.log" 2>&1
    note "grid ${G}x$G w 1..1000 ($mode): $(head -1 "$OUTDIR/grid_${mode}.log" | sed 's/apsp stats: //') $(grep compute "$OUTDIR/grid_${mode}.log" | tr -s ' ')"
    rm -f "$DATA/g.npy"
  done
  }
  # Fractional weights, V = 3000: cuda float64 against the cpu backend and SciPy (max relative).
  FIN=$DATA/frac3000.txt
  python3 "$SRC/scripts/frac_check.py" make "$FIN"
  "$APSP" solve "$FIN" "$DATA/fg.npy" -q --backend cuda --stats >"$OUTDIR/frac_cuda.log" 2>&1
  "$APSP" solve "$FIN" "$DATA/fc.npy" -q --backend cpu >/dev/null 2>&1
  "$APSP" solve "$FIN" "$DATA/fa.npy" -q --stats >"$OUTDIR/frac_auto.log" 2>&1
  python3 "$SRC/scripts/frac_check.py" check "$FIN" "$DATA" >"$OUTDIR/frac.log" 2>&1
  note "fractional V=3000 E=30000: $(tr '\n' ' ' <"$OUTDIR/frac.log" | cut -c1-300); cuda stats: $(head -1 "$OUTDIR/frac_cuda.log" | sed 's/apsp stats: //'); auto: $(head -1 "$OUTDIR/frac_auto.log" | sed 's/apsp stats: //')"
  rm -f "$DATA"/f?.npy
fi

# ---- output writing: dev/io/write_probe on the data directory's file system, then the whole
# process under the OutputFile switches (docs/io.md). Step `io` (not in the default list); needs
# the inputs of step `whole` (same SIZES; made here when missing is not supported: run whole first).
if has io; then
  echo "== output writing"
  DATA=/tmp/apsp-gpu-data
  mkdir -p "$DATA"
  { df -hT "$DATA"; } 2>&1 | tee "$OUTDIR/io_fs.txt"
  if [ "${IO_PROBE:-}" = none ]; then
    note "write_probe: skipped (IO_PROBE=none)"
  elif [ -x "$BUILD/dev/io/write_probe" ]; then
    # IO_PROBE: the probe's arguments (default: the page-cache prefill rows, cold, the CLI's sizes).
    read -ra probe_args <<<"${IO_PROBE:---only prefill --sizes 100M,484M,3.6G --threads 8,14 --cold 2 --budget 110}"
    timeout 150 "$BUILD/dev/io/write_probe" "$DATA" "${probe_args[@]}" >"$OUTDIR/write_probe.log" 2>&1
    note "write_probe ${probe_args[*]}: rc=$? (write_probe.log)"; cat "$OUTDIR/write_probe.log"
  else
    note "write_probe: not built"
  fi
  IFS=, read -ra VS <<<"$SIZES"
  for V in "${VS[@]}"; do
    IN=$DATA/c$V.in
    [ -s "$IN" ] || { note "io V=$V: no input (run step whole first)"; continue; }
    line="io V=$V best of 3 (ms):"
    # IO_VARIANTS: ';'-separated environment settings to compare ("default": none).
    IFS=';' read -ra variants <<<"${IO_VARIANTS:-APSP_WRITE_PREFILL=0;default;APSP_WRITE_PREFILL=mmap}"
    for variant in "${variants[@]}"; do
      envs=(); [ "$variant" != default ] && read -ra envs <<<"$variant"
      best=""
      for r in 1 2 3; do
        rm -f "$DATA/io$V.bin"; sync; sleep 1
        s=$(date +%s%N)
        env "${envs[@]}" "$APSP" "$IN" "$DATA/io$V.bin" >>"$OUTDIR/io_runs.log" 2>&1 || { best="FAIL"; break; }
        t=$(( ($(date +%s%N) - s) / 1000000 ))
        echo "V=$V $variant trial $r: $t ms" >>"$OUTDIR/io_runs.log"
        if [ -z "$best" ] || [ "$t" -lt "$best" ]; then best=$t; fi
      done
      if [ -s "$DATA/out$V.bin" ]; then cmp -s "$DATA/io$V.bin" "$DATA/out$V.bin" || best="$best (DIFFERENT output)"; fi
      line="$line $variant $best;"
    done
    note "$line"
    rm -f "$DATA/io$V.bin"
    for variant in "${variants[@]}"; do  # one traced run of each: where the time went
      envs=(); [ "$variant" != default ] && read -ra envs <<<"$variant"
      rm -f "$DATA/io${V}t.bin"; sync; sleep 1
      echo "-- trace V=$V $variant" >>"$OUTDIR/io_trace_$V.log"
      env "${envs[@]}" APSP_TRACE=1 "$APSP" "$IN" "$DATA/io${V}t.bin" >>"$OUTDIR/io_trace_$V.log" 2>&1
    done
    grep -E "^--|prefill|context created|run starts|allocated|stage|built|rounds done|downloaded|committed" "$OUTDIR/io_trace_$V.log"
    rm -f "$DATA/io${V}t.bin"
  done
fi

# ---- --paths cost: the same solve with and without the next-hop matrix ----
# Issue 5's GPU target: --paths <= 1.6x the distances-only time at V=16384. Graphs: E=5M,
# weights 0..1000 (zero-weight edges, as the course's) and 1..1000. Each variant twice,
# alternating, best wall time of the whole process (read .. write, the host's next-hop repair
# included, which --stats' total leaves out) and --stats' compute.
if has paths; then
  echo "== --paths cost (PATHS_SIZES=${PATHS_SIZES:=16384})"
  DATA=/tmp/apsp-gpu-data
  mkdir -p "$DATA"
  IFS=, read -ra PVS <<<"$PATHS_SIZES"
  for V in "${PVS[@]}"; do
    for wmin in 0 1; do
      IN=$DATA/p${V}w$wmin.bin
      [ -s "$IN" ] || "$APSP" generate "$IN" -V "$V" -E 5000000 --wmin "$wmin" --wmax 1000 --seed 3 >/dev/null
      declare -A best=() comp=()
      same16="not compared"; rm -f "$DATA/ref.bin" "$DATA/ref.next"
      for trial in 1 2; do
        # paths: the default --paths (int16x2 rounds where tried, widened for the next hops);
        # paths32: --paths on int32 rounds (APSP_CUDA_INT16_PATHS=0), whose outputs must be the same
        # paths8: the default --paths with CUDA's own 8 hardware queues (the CLI asks for 2)
        for mode in dist paths paths32 paths8; do
          extra=(); [ $mode != dist ] && extra=(--paths)
          p16=1; [ $mode = paths32 ] && p16=0
          conn=(); [ $mode = paths8 ] && conn=(CUDA_DEVICE_MAX_CONNECTIONS=8)
          rm -f "$DATA/pout.bin" "$DATA/pout.bin.next"; sync; sleep 1
          s=$(date +%s%N)
          env "${conn[@]}" APSP_CUDA_INT16_PATHS=$p16 "$APSP" solve "$IN" "$DATA/pout.bin" --backend cuda -q --stats "$OUTDIR/pstats.json" "${extra[@]}" \
            >>"$OUTDIR/paths.log" 2>&1 || { note "paths V=$V wmin=$wmin $mode: FAIL"; continue; }
          t=$(( ($(date +%s%N) - s) / 1000000 ))
          c=$(python3 -c 'import json,sys; print("%.1f" % (1000 * json.loads(open(sys.argv[1]).read().splitlines()[-1])["compute_s"]))' "$OUTDIR/pstats.json")
          echo "V=$V wmin=$wmin $mode trial $trial: wall $t ms, compute $c ms" | tee -a "$OUTDIR/paths.log"
          if [ $mode = paths ]; then cp "$DATA/pout.bin" "$DATA/ref.bin"; cp "$DATA/pout.bin.next" "$DATA/ref.next"; fi
          if [ $mode = paths32 ] || [ $mode = paths8 ]; then
            if cmp -s "$DATA/pout.bin" "$DATA/ref.bin" && cmp -s "$DATA/pout.bin.next" "$DATA/ref.next"; then :; else same16=DIFFERENT; fi
            [ "$same16" = "not compared" ] && same16=same
          fi
          if [ -z "${best[$mode]:-}" ] || [ "$t" -lt "${best[$mode]}" ]; then best[$mode]=$t; comp[$mode]=$c; fi
        done
      done
      [ $wmin = 0 ] && { APSP_TRACE=1 "$APSP" solve "$IN" "$DATA/pout.bin" --backend cuda -q --paths >"$OUTDIR/paths_trace_$V.log" 2>&1; cat "$OUTDIR/paths_trace_$V.log"; }
      note "paths V=$V E=5M w $wmin..1000 (cuda): wall ${best[dist]} -> ${best[paths]} ms ($(python3 -c "print('%.2f' % (${best[paths]} / ${best[dist]}))")x), compute ${comp[dist]} -> ${comp[paths]} ms; int32-round paths (APSP_CUDA_INT16_PATHS=0): ${best[paths32]} ms ($(python3 -c "print('%.2f' % (${best[paths32]} / ${best[dist]}))")x), compute ${comp[paths32]} ms; with 8 hardware queues ${best[paths8]:-?} ms (compute ${comp[paths8]:-?} ms); outputs ${same16:-?} as the default --paths run"
      unset best comp
      # The cpu backend on the same graph and the host's cores (issue 5's CPU 1.8x at this V):
      # one run each (about 10 s each at V=16384 on 16 cores); PATHS_CPU=0 skips.
      if [ "${PATHS_CPU:-1}" = 1 ]; then
        declare -A cw=() cc=()
        for mode in dist paths; do
          extra=(); [ $mode = paths ] && extra=(--paths)
          rm -f "$DATA/pout.bin" "$DATA/pout.bin.next"; sync; sleep 1
          s=$(date +%s%N)
          "$APSP" solve "$IN" "$DATA/pout.bin" --backend cpu -q --stats "$OUTDIR/pstats.json" "${extra[@]}" \
            >>"$OUTDIR/paths.log" 2>&1 || { note "paths cpu V=$V wmin=$wmin $mode: FAIL"; continue; }
          cw[$mode]=$(( ($(date +%s%N) - s) / 1000000 ))
          cc[$mode]=$(python3 -c 'import json,sys; print("%.1f" % (1000 * json.loads(open(sys.argv[1]).read().splitlines()[-1])["compute_s"]))' "$OUTDIR/pstats.json")
          echo "V=$V wmin=$wmin cpu $mode: wall ${cw[$mode]} ms, compute ${cc[$mode]} ms" | tee -a "$OUTDIR/paths.log"
        done
        [ -n "${cw[paths]:-}" ] && [ -n "${cw[dist]:-}" ] && note "paths V=$V E=5M w $wmin..1000 (cpu, $(nproc) cores, 1 run): wall ${cw[dist]} -> ${cw[paths]} ms ($(python3 -c "print('%.2f' % (${cw[paths]} / ${cw[dist]}))")x), compute ${cc[dist]} -> ${cc[paths]} ms"
        unset cw cc
      fi
      rm -f "$DATA/pout.bin" "$DATA/pout.bin.next" "$DATA/ref.bin" "$DATA/ref.next"
    done
  done
fi

# ---- start-up: what a fresh process pays before the first kernel ----
if has startup; then
  echo "== start-up"
  { echo "ldd apsp:"; ldd "$APSP"; } >"$OUTDIR/startup.log" 2>&1
  for r in 1 2 3; do
    s=$(date +%s%N); "$APSP" --version >/dev/null 2>&1; t1=$(( ($(date +%s%N) - s) / 1000 ))
    s=$(date +%s%N); /bin/true; t0=$(( ($(date +%s%N) - s) / 1000 ))
    echo "run $r: apsp --version $t1 us, /bin/true $t0 us" >>"$OUTDIR/startup.log"
  done
  for r in 1 2 3; do
    echo "-- startup_probe run $r" >>"$OUTDIR/startup.log"
    "$BUILD/dev/cuda/startup_probe" 100 >>"$OUTDIR/startup.log" 2>&1
  done
  CUDA_MODULE_LOADING=EAGER "$BUILD/dev/cuda/startup_probe" 100 >"$OUTDIR/startup_eager.log" 2>&1
  # Settings that might shorten cuInit / the context (read-only: the card is left as it is).
  for v in CUDA_DEVICE_MAX_CONNECTIONS=1 CUDA_DEVICE_MAX_CONNECTIONS=2 CUDA_DEVICE_MAX_CONNECTIONS=4 \
           CUDA_DEVICE_MAX_CONNECTIONS=8; do
    for r in 1 2; do
      echo "-- startup_probe with $v, run $r" >>"$OUTDIR/startup_env.log"
      env "$v" "$BUILD/dev/cuda/startup_probe" 100 >>"$OUTDIR/startup_env.log" 2>&1
    done
  done
  grep -E "^--|^cuInit|^cuDevicePrimaryCtxRetain" "$OUTDIR/startup_env.log"
  { echo "tools: $(command -v strace perf ltrace | tr '\n' ' ')"; uname -r; nproc; free -g | head -2;
    nvidia-smi -q 2>/dev/null | grep -iE "persistence|driver version|addressing|MIG mode" | head; } >>"$OUTDIR/startup.log" 2>&1
  if command -v strace >/dev/null; then  # which system calls cuInit and the context spend their time in
    strace -f -c -o "$OUTDIR/startup_strace.txt" "$BUILD/dev/cuda/startup_probe" 100 >/dev/null 2>&1
    head -25 "$OUTDIR/startup_strace.txt"
    strace -f -tt -T -e trace=ioctl,mmap,munmap,openat,mlock,madvise -o "$OUTDIR/startup_strace_tt.txt" \
      "$BUILD/dev/cuda/startup_probe" 100 >/dev/null 2>&1
    sort -t'<' -k2 -g "$OUTDIR/startup_strace_tt.txt" 2>/dev/null | tail -15
  fi
  cat "$OUTDIR/startup.log"
  note "start-up (last probe run): $(grep -E '^(cuInit|cuDevicePrimaryCtxRetain|cudaMallocHost|first kernel)' "$OUTDIR/startup.log" | tail -4 | awk '{printf "%s %s ms; ", $1, $(NF-3)}')"
fi

# ---- Python: the module's tests (cuda ones included) and bench/profile.py's GPU columns ----
if has python; then
  echo "== python"
  if [ ! -d "$BUILD/python/apsp" ]; then
    note "python: SKIPPED (module not built: no pybind11 for $(command -v python3))"
  else
    (cd "$SRC" && PYTHONPATH="$BUILD/python" timeout 900 python3 -m pytest -q -p no:cacheprovider ${PYTEST_ARGS:-python/tests}) >"$OUTDIR/pytest.log" 2>&1
    rc=$?
    tail -3 "$OUTDIR/pytest.log"
    note "pytest (all, cuda included): rc=$rc $(tail -1 "$OUTDIR/pytest.log")"
  fi
  if [ -d "$BUILD/python/apsp" ] && [ "${PYTHON_BENCH:-1}" != 0 ]; then
    (cd "$SRC" && PYTHONPATH="$BUILD/python" PYTHONUNBUFFERED=1 timeout 900 python3 bench/profile.py --build "$BUILD" --cli "$APSP" \
      --backends cpu,cuda-naive,cuda,scipy --sizes ${PROFILE_SIZES:-1000,2048,5000,10000} --scipy-max-v 2048 \
      --out "$OUTDIR/profile_gpu" --note "scripts/gpu_check.sh --steps python") >"$OUTDIR/profile.log" 2>&1
    rc=$?
    tail -25 "$OUTDIR/profile.log"
    note "profile.py: rc=$rc (profile_gpu.csv + png in logs.tgz)"
    # Dense NumPy input: read in place (cpu fills its matrix, cuda uploads rows) vs a CSR copy.
    (cd "$SRC" && PYTHONPATH="$BUILD/python" timeout 600 python3 bench/dense_input.py \
      --sizes ${DENSE_SIZES:-4000,10000} --backends cpu,cuda) >"$OUTDIR/dense_input.md" 2>&1
    cat "$OUTDIR/dense_input.md"
    note "dense_input.py: $(grep -c '^| [0-9]' "$OUTDIR/dense_input.md") rows (dense_input.md in logs.tgz)"
  fi
fi

tar czf "$FINAL/logs.tgz" -C "$OUTDIR" . 2>/dev/null
for f in summary.txt lab.log bench_cuda.log bench_cuda.csv test_cuda.log; do [ -f "$OUTDIR/$f" ] && cp "$OUTDIR/$f" "$FINAL/"; done
echo
echo "================ summary ($(( $(date +%s) - T0 )) s) ================"
cat "$SUMMARY"
