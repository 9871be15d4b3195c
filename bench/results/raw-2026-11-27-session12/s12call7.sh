#!/usr/bin/env bash
# session 12 call 7: the evidence asked before the packed rung for sparse orders: gpu_check
# build,test,nthu, then nd solves of the 256x256 grid and geometric V=65536 to /dev/null, traced.
root=$(pwd); s0=$(date +%s)
APSP_WITH_MPI=OFF APSP_WITH_NCCL=OFF CXX=/usr/bin/g++ CC=/usr/bin/gcc PYTHON_BENCH=0 OUT=$OUT/cuda \
  timeout 330 scripts/gpu_check.sh --src .gpu_snapshot --deps .gpu_deps --steps build,test,nthu 2>&1 | tail -11
echo "check part: $(( $(date +%s) - s0 )) s"
b=/tmp/apsp-gpu-build/apsp
export LD_LIBRARY_PATH=$root/.gpu_deps/metis/lib:${LD_LIBRARY_PATH:-}
$b generate /dev/shm/grid.bin --kind grid --rows 256 --cols 256 >/dev/null
$b generate /dev/shm/geo.bin --kind geometric -V 65536 -k 4 >/dev/null
for g in grid geo grid geo; do
  t0=$(date +%s.%N)
  APSP_TRACE=1 timeout 60 $b solve /dev/shm/$g.bin /dev/null --backend cuda --order nd --stats /tmp/s.json -q > /tmp/r.log 2>&1
  rc=$?; t1=$(date +%s.%N)
  echo "$g nd rc=$rc wall=$(python3 -c "print('%.2f' % ($t1 - $t0))") $(python3 -c 'import json; d=json.loads(open("/tmp/s.json").read().splitlines()[-1]); print("compute=%.4f order=%.3f d2h=%.3f rounds=%s" % (d["compute_s"], d["order_s"], d["d2h_s"], d["rounds"]))')"
  grep -E "int16x2|schedule GPU" /tmp/r.log | cut -c1-200
done
echo "total $(( $(date +%s) - s0 )) s"
