#!/usr/bin/env bash
# session 12 call 3: gpu_check build,test,nthu,sanitize (int32 and int16x2 batches under
# memcheck / racecheck), then nd int16x2 rounds (256x256 grid, weights 1..3) batched vs in order.
root=$(pwd); s0=$(date +%s)
APSP_WITH_MPI=OFF APSP_WITH_NCCL=OFF CXX=/usr/bin/g++ CC=/usr/bin/gcc PYTHON_BENCH=0 SANITIZE_TIMEOUT=150 OUT=$OUT/cuda \
  timeout 480 scripts/gpu_check.sh --src .gpu_snapshot --deps .gpu_deps --steps build,test,nthu,sanitize 2>&1 | tail -16
echo "check part: $(( $(date +%s) - s0 )) s"
b=/tmp/apsp-gpu-build/apsp
export LD_LIBRARY_PATH=$root/.gpu_deps/metis/lib:${LD_LIBRARY_PATH:-}
$b generate /dev/shm/g1.bin --kind grid --rows 256 --cols 256 --wmin 1 --wmax 3 >/dev/null || echo "generate failed"
for trial in 1 2; do
  for batch in 1 0; do
    t0=$(date +%s.%N)
    APSP_ND_BATCH=$batch APSP_TRACE=1 timeout 60 $b solve /dev/shm/g1.bin /dev/null --backend cuda --order nd --stats /tmp/s.json -q > /tmp/r.log 2>&1
    rc=$?; t1=$(date +%s.%N)
    echo "grid w1..3 nd batch=$batch rc=$rc wall=$(python3 -c "print('%.2f' % ($t1 - $t0))") $(python3 -c 'import json; d=json.loads(open("/tmp/s.json").read().splitlines()[-1]); print("compute=%.4f rounds=%s" % (d["compute_s"], d["rounds"]))') | $(grep -o 'schedule GPU time.*' /tmp/r.log | cut -c1-250)"
  done
done
echo "total $(( $(date +%s) - s0 )) s"
