#!/usr/bin/env bash
# session 11 final single-GPU check: cuda build/SASS/tests/NTHU from the snapshot; multi-gpu +
# mpi GPU ranks sparse suites (1 GPU); compute-sanitizer memcheck + racecheck of the multi-gpu
# user-order gather and listed next-hop kernels on a small grid in many stripes.
root=$(pwd); s0=$(date +%s)
mkdir -p $OUT/cuda $OUT/mg
APSP_WITH_MPI=OFF APSP_WITH_NCCL=OFF CXX=/usr/bin/g++ CC=/usr/bin/gcc PYTHON_BENCH=0 OUT=$OUT/cuda \
  timeout 290 scripts/gpu_check.sh --src .gpu_snapshot --deps .gpu_deps --steps build,sass,test,nthu 2>&1 | tail -22
echo "cuda part: $(( $(date +%s) - s0 )) s"
OUT=$OUT/mg APSP_WERROR=OFF STEP_TIMEOUT=120 APSP_SPARSE_ROWS=64 timeout 240 scripts/multigpu_check.sh sparse 2>&1 | tail -14
echo "multi-gpu part: $(( $(date +%s) - s0 )) s"
b=/tmp/build-multigpu/apsp
export LD_LIBRARY_PATH=$root/.gpu_deps/metis/lib:${LD_LIBRARY_PATH:-}
$b generate /dev/shm/g40.bin --kind grid --rows 40 --cols 40 >/dev/null
$b solve /dev/shm/g40.bin /dev/shm/ref.bin --backend cpu --order none -q
for tool in memcheck racecheck; do
  APSP_GATHER_STRIPE=20000 timeout 100 compute-sanitizer --tool $tool --error-exitcode 9 \
    $b solve /dev/shm/g40.bin /dev/shm/o.bin --backend multi-gpu --order nd --paths -q > $OUT/san_$tool.log 2>&1
  rc=$?
  echo "compute-sanitizer $tool (multi-gpu nd --paths, 40x40 grid, stripes of ~5 rows): rc=$rc $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $OUT/san_$tool.log | tail -1)"
  cmp /dev/shm/o.bin /dev/shm/ref.bin && echo "  distances identical to cpu (cmp)"
done
rm -f /dev/shm/g40.bin /dev/shm/*.bin*
echo "total $(( $(date +%s) - s0 )) s"
