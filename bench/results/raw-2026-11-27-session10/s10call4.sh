#!/usr/bin/env bash
# session 10 call 4 (1 GPU): populate-ahead (new = .gpu_snapshot) vs without (old = .gpu_old, a0415c0),
# 16 GiB output of the V=65536 grid to ext4, each run after writeback has drained (quiesce)
root=$(pwd); s0=$(date +%s)
export CXX=/usr/bin/g++ CC=/usr/bin/gcc LD_LIBRARY_PATH=$root/.gpu_deps/metis/lib:${LD_LIBRARY_PATH:-}
nvidia-smi --query-gpu=name --format=csv,noheader; uname -r
conf() { cmake -S $1 -B $2 -G Ninja -DCMAKE_BUILD_TYPE=Release -DAPSP_WERROR=OFF -DAPSP_WITH_CUDA=ON -DAPSP_WITH_NCCL=OFF -DAPSP_WITH_MPI=OFF -DAPSP_WITH_PYTHON=OFF -DAPSP_BUILD_TESTS=OFF \
  -DCLI11_INCLUDE_DIR=$root/.gpu_deps/include -DCLI11_DIR=/nonexistent -DAPSP_WITH_METIS=ON -DMETIS_INCLUDE_DIR=$root/.gpu_deps/metis/include -DMETIS_LIBRARY=$root/.gpu_deps/metis/lib/libmetis.so >/tmp/cm$3.log 2>&1 || tail -20 /tmp/cm$3.log; }
conf .gpu_snapshot /tmp/bn n; conf .gpu_old /tmp/bo o
timeout 300 ninja -C /tmp/bn apsp >/tmp/bln.log 2>&1 || { grep -E "error|FAILED" -A3 /tmp/bln.log | head -30; exit 1; }
timeout 300 ninja -C /tmp/bo apsp >/tmp/blo.log 2>&1 || { grep -E "error|FAILED" -A3 /tmp/blo.log | head -30; exit 1; }
echo "build $(( $(date +%s) - s0 )) s"
/tmp/bn/apsp generate /dev/shm/grid.bin --kind grid --rows 256 --cols 256
quiesce() {
  rm -f $root/o.bin; sync
  for i in $(seq 60); do
    d=$(awk '/^(Dirty|Writeback):/{s+=$2} END{print s}' /proc/meminfo)
    [ "$d" -lt 65536 ] && break; sleep 0.5
  done
  echo 1 > /proc/sys/vm/drop_caches 2>/dev/null; sleep 1
}
run() { # label binary order
  quiesce
  local t0=$(date +%s.%N)
  APSP_TRACE=1 timeout 120 $2/apsp solve /dev/shm/grid.bin $root/o.bin --backend cuda --order $3 --stats >/tmp/st.txt 2>&1; rc=$?
  local t1=$(date +%s.%N)
  echo "$1 rc=$rc wall $(python3 -c "print('%.2f' % ($t1 - $t0))") s | $(grep -E ' compute |write [0-9]' /tmp/st.txt | grep -v trace | grep -oE '(compute|write) [0-9.]+ s' | tr '\n' ' ')| $(grep -oE 'populated [0-9]+' /tmp/st.txt)"
}
for k in 1 2 3; do run nd_new /tmp/bn nd; run nd_old /tmp/bo nd; done
for k in 1 2; do run none_new /tmp/bn none; run none_old /tmp/bo none; done
rm -f $root/o.bin
echo "total $(( $(date +%s) - s0 )) s"
