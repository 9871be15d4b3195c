#!/usr/bin/env bash
# session 12 call 6: the 16 GiB output of the V=65536 grid and geometric graph written to ext4
# (issue 21's whole-process target), nd (batches) vs none, each run after writeback has drained.
root=$(pwd); s0=$(date +%s)
export CXX=/usr/bin/g++ CC=/usr/bin/gcc LD_LIBRARY_PATH=$root/.gpu_deps/metis/lib:${LD_LIBRARY_PATH:-}
nvidia-smi --query-gpu=name --format=csv,noheader; uname -r; df -h $root | tail -1
cmake -S .gpu_snapshot -B /tmp/bn -G Ninja -DCMAKE_BUILD_TYPE=Release -DAPSP_WERROR=OFF -DAPSP_WITH_CUDA=ON -DAPSP_WITH_NCCL=OFF -DAPSP_WITH_MPI=OFF -DAPSP_WITH_PYTHON=OFF -DAPSP_BUILD_TESTS=OFF \
  -DCLI11_INCLUDE_DIR=$root/.gpu_deps/include -DCLI11_DIR=/nonexistent -DAPSP_WITH_METIS=ON -DMETIS_INCLUDE_DIR=$root/.gpu_deps/metis/include -DMETIS_LIBRARY=$root/.gpu_deps/metis/lib/libmetis.so >/tmp/cmn.log 2>&1 || tail -20 /tmp/cmn.log
timeout 300 ninja -C /tmp/bn apsp >/tmp/bln.log 2>&1 || { grep -E "error|FAILED" -A3 /tmp/bln.log | head -30; exit 1; }
echo "build $(( $(date +%s) - s0 )) s"
/tmp/bn/apsp generate /dev/shm/grid.bin --kind grid --rows 256 --cols 256 >/dev/null
/tmp/bn/apsp generate /dev/shm/geo.bin --kind geometric -V 65536 -k 4 >/dev/null
quiesce() {
  rm -f $root/o.bin; sync
  for i in $(seq 60); do
    d=$(awk '/^(Dirty|Writeback):/{s+=$2} END{print s}' /proc/meminfo)
    [ "$d" -lt 65536 ] && break; sleep 0.5
  done
  echo 1 > /proc/sys/vm/drop_caches 2>/dev/null; sleep 1
}
run() { # label graph order
  quiesce
  local t0=$(date +%s.%N)
  timeout 120 /tmp/bn/apsp solve /dev/shm/$2.bin $root/o.bin --backend cuda --order $3 --stats >/tmp/st.txt 2>&1; rc=$?
  local t1=$(date +%s.%N)
  echo "$1 $2 order=$3 rc=$rc wall $(python3 -c "print('%.2f' % ($t1 - $t0))") s | $(grep -oE '(compute|write) +[0-9.]+ s' /tmp/st.txt | tr -s ' ' | tr '\n' ' ')| size $(stat -c %s $root/o.bin 2>/dev/null)"
}
for g in grid geo; do
  for k in 1 2 3; do run nd $g nd; done
  run none $g none
done
rm -f $root/o.bin
echo "total $(( $(date +%s) - s0 )) s"
