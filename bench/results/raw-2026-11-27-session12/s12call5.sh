#!/usr/bin/env bash
# session 12 call 5: the multi-gpu sparse suite on 1 GPU and compute-sanitizer racecheck of the
# multi-gpu user-order gather and listed next-hop kernels (pending since session 11).
root=$(pwd); s0=$(date +%s)
OUT=$OUT/mg APSP_WERROR=OFF STEP_TIMEOUT=150 APSP_SPARSE_ROWS=64 timeout 300 scripts/multigpu_check.sh sparse 2>&1 | tail -8
echo "multi-gpu part: $(( $(date +%s) - s0 )) s"
b=/tmp/build-multigpu/apsp
export LD_LIBRARY_PATH=$root/.gpu_deps/metis/lib:${LD_LIBRARY_PATH:-}
$b generate /dev/shm/g30.bin --kind grid --rows 30 --cols 30 >/dev/null
$b solve /dev/shm/g30.bin /dev/shm/ref.bin --backend cpu --order none -q
left=$(( 570 - ($(date +%s) - s0) ))
APSP_GATHER_STRIPE=20000 timeout $(( left > 30 ? left : 30 )) compute-sanitizer --tool racecheck --error-exitcode 9 \
  $b solve /dev/shm/g30.bin /dev/shm/o.bin --backend multi-gpu --order nd --paths -q > $OUT/san_racecheck.log 2>&1
rc=$?
echo "compute-sanitizer racecheck (multi-gpu nd --paths, 30x30 grid, stripes of a few rows, ${left} s allowed): rc=$rc $(grep -E 'RACECHECK SUMMARY' $OUT/san_racecheck.log | tail -1)"
cmp /dev/shm/o.bin /dev/shm/ref.bin && echo "  distances identical to cpu (cmp)"
rm -f /dev/shm/*.bin*
echo "total $(( $(date +%s) - s0 )) s"
