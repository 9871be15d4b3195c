#!/usr/bin/env bash
# session 12 call 1: build + GPU tests from the snapshot (elimination-tree batches of the cuda
# sparse rounds), then nd batched vs in order (APSP_ND_BATCH=1/0) on the 256x256 grid and the
# geometric V=65536 graph (output /dev/null, alternated, 2 trials), and one dense run of each.
root=$(pwd); s0=$(date +%s)
APSP_WITH_MPI=OFF APSP_WITH_NCCL=OFF CXX=/usr/bin/g++ CC=/usr/bin/gcc PYTHON_BENCH=0 OUT=$OUT/cuda \
  timeout 330 scripts/gpu_check.sh --src .gpu_snapshot --deps .gpu_deps --steps build,test,nthu 2>&1 | tail -24
echo "check part: $(( $(date +%s) - s0 )) s"
b=/tmp/apsp-gpu-build/apsp
export LD_LIBRARY_PATH=$root/.gpu_deps/metis/lib:${LD_LIBRARY_PATH:-}
st() { python3 -c 'import json,sys; d=json.loads(open(sys.argv[1]).read().splitlines()[-1]); print("compute=%.4f d2h=%.2f unpermute=%.3f total=%.2f %s" % (d["compute_s"], d.get("d2h_s",0), d.get("unpermute_s",0), d.get("total_s",0), d.get("rounds","?")))' "$1"; }
run() { # label in batch order
  local t0 t1
  t0=$(date +%s.%N)
  APSP_ND_BATCH=$3 APSP_TRACE=1 timeout -k 5 120 $b solve "$2" /dev/null --backend cuda --order "$4" --stats /tmp/st.json -q > /tmp/run.log 2>&1; rc=$?
  t1=$(date +%s.%N)
  echo "$1 order=$4 batch=$3 rc=$rc wall=$(python3 -c "print('%.2f' % ($t1 - $t0))") $(st /tmp/st.json 2>/dev/null) | $(grep -o 'cuda: [0-9]* rounds in.*' /tmp/run.log)"
  [ $rc = 0 ] || tail -5 /tmp/run.log
}
$b generate /dev/shm/grid.bin --kind grid --rows 256 --cols 256 >/dev/null
$b generate /dev/shm/geo.bin --kind geometric -V 65536 -k 4 >/dev/null
for g in grid geo; do
  for trial in 1 2; do
    run $g /dev/shm/$g.bin 1 nd; run $g /dev/shm/$g.bin 0 nd
  done
done
for g in grid geo; do run $g /dev/shm/$g.bin 1 none; done
echo "total $(( $(date +%s) - s0 )) s"
