#!/usr/bin/env bash
# session 11 x2 call: multigpu_check tests,sparse (user-order gather, listed next-hop rounds), then
# --paths nd vs none on a 128x128 grid (multi-gpu, mpi GPU ranks) and the 256x256 grid's 16 GiB
# output written to ext4 (multi-gpu nd vs none, writeback drained before each run).
root=$(pwd); s0=$(date +%s)
OUT=$OUT APSP_WERROR=OFF STEP_TIMEOUT=240 scripts/multigpu_check.sh tests,sparse 2>&1 | tail -32
b=/tmp/build-multigpu/apsp
export LD_LIBRARY_PATH=$root/.gpu_deps/metis/lib:${LD_LIBRARY_PATH:-}
export OMPI_MCA_btl_vader_single_copy_mechanism=none OMPI_MCA_btl_sm_single_copy_mechanism=none
gpus=$(nvidia-smi -L | grep -c '^GPU')
st() { python3 -c 'import json,sys; d=json.loads(open(sys.argv[1]).read().splitlines()[-1]); print("compute=%.3f build=%.2f d2h=%.2f unpermute=%.2f write=%.2f total=%.2f %s" % (d["compute_s"], d.get("build_s",0)+d.get("h2d_s",0), d.get("d2h_s",0), d.get("unpermute_s",0), d.get("write_s",0), d.get("total_s",0), d.get("rounds","?")))' "$1"; }
run() { # label backend order in out [extra]
  local run=() t0 t1
  [ "$2" = mpi ] && run=(mpirun --allow-run-as-root --oversubscribe --bind-to none -np "$gpus" -x APSP_MPI_GPU=1 -x LD_LIBRARY_PATH)
  t0=$(date +%s.%N)
  timeout -k 5 150 "${run[@]}" $b solve "$4" "$5" --backend "$2" --order "$3" --stats /tmp/st.json -q "${@:6}" > /tmp/run.log 2>&1; rc=$?
  t1=$(date +%s.%N)
  echo "$1 $2 order=$3 rc=$rc wall=$(python3 -c "print('%.2f' % ($t1 - $t0))") $(st /tmp/st.json 2>/dev/null)"
  [ $rc = 0 ] || tail -5 /tmp/run.log
}
echo "== --paths, 128x128 grid (V=16384), $gpus GPUs"
$b generate /dev/shm/g128.bin --kind grid --rows 128 --cols 128 >/dev/null
for be in multi-gpu mpi; do
  for o in nd none nd none; do run paths $be $o /dev/shm/g128.bin /dev/shm/p_$o.bin --paths; done
  cmp /dev/shm/p_nd.bin /dev/shm/p_none.bin && echo "paths $be: distances nd == none (cmp)"
  $b path /dev/shm/p_nd.bin 0 16383 | head -c 200; echo
  rm -f /dev/shm/p_*.bin*
done
echo "== 256x256 grid (V=65536) to ext4, 16 GiB output, multi-gpu"
$b generate /dev/shm/g256.bin --kind grid --rows 256 --cols 256 >/dev/null
quiesce() {
  rm -f $root/o.bin; sync
  for i in $(seq 60); do
    d=$(awk '/^(Dirty|Writeback):/{s+=$2} END{print s}' /proc/meminfo)
    [ "$d" -lt 65536 ] && break; sleep 0.5
  done
  echo 1 > /proc/sys/vm/drop_caches 2>/dev/null; sleep 1
}
for o in nd none nd; do quiesce; run ext4 multi-gpu $o /dev/shm/g256.bin $root/o.bin; done
quiesce; rm -f $root/o.bin /dev/shm/g*.bin
echo "total $(( $(date +%s) - s0 )) s"
