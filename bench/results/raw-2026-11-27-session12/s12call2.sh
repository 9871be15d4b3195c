#!/usr/bin/env bash
# session 12 call 2: gpu_check build,sass,test,nthu,sanitize (with the nd batches under
# memcheck / racecheck), then the traced schedule times of the 256x256 grid and geometric V=65536.
root=$(pwd); s0=$(date +%s)
APSP_WITH_MPI=OFF APSP_WITH_NCCL=OFF CXX=/usr/bin/g++ CC=/usr/bin/gcc PYTHON_BENCH=0 SANITIZE_TIMEOUT=200 OUT=$OUT/cuda \
  timeout 520 scripts/gpu_check.sh --src .gpu_snapshot --deps .gpu_deps --steps build,sass,test,nthu,sanitize 2>&1 | tail -16
echo "check part: $(( $(date +%s) - s0 )) s"
b=/tmp/apsp-gpu-build/apsp
export LD_LIBRARY_PATH=$root/.gpu_deps/metis/lib:${LD_LIBRARY_PATH:-}
$b generate /dev/shm/grid.bin --kind grid --rows 256 --cols 256 >/dev/null
$b generate /dev/shm/geo.bin --kind geometric -V 65536 -k 4 >/dev/null
for g in grid geo; do
  APSP_TRACE=1 timeout 60 $b solve /dev/shm/$g.bin /dev/null --backend cuda --order nd --stats /tmp/$g.json -q > /tmp/$g.log 2>&1
  echo "$g rc=$?"; grep -E "schedule GPU time|rounds in|compute|ordering" /tmp/$g.log | cut -c1-400
  cp /tmp/$g.log $OUT/trace_$g.log; tail -1 /tmp/$g.json | cut -c1-600
done
echo "total $(( $(date +%s) - s0 )) s"
