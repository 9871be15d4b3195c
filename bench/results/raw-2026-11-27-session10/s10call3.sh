#!/usr/bin/env bash
# session 10 call 3 (populate ahead) (1 GPU): where the 16 GiB output's time goes, sparse (nd) vs dense (none), V=65536 grid
root=$(pwd); s0=$(date +%s)
export CXX=/usr/bin/g++ CC=/usr/bin/gcc LD_LIBRARY_PATH=$root/.gpu_deps/metis/lib:${LD_LIBRARY_PATH:-}
nvidia-smi --query-gpu=name --format=csv,noheader; nproc; free -g | head -2; df -hT . /dev/shm | cat
cat /proc/sys/vm/dirty_background_bytes /proc/sys/vm/dirty_background_ratio /proc/sys/vm/dirty_ratio
b=/tmp/b1
cmake -S .gpu_snapshot -B $b -G Ninja -DCMAKE_BUILD_TYPE=Release -DAPSP_WERROR=OFF -DAPSP_WITH_CUDA=ON -DAPSP_WITH_NCCL=OFF -DAPSP_WITH_MPI=OFF -DAPSP_WITH_PYTHON=OFF -DAPSP_BUILD_TESTS=OFF \
  -DCLI11_INCLUDE_DIR=$root/.gpu_deps/include -DCLI11_DIR=/nonexistent -DAPSP_WITH_METIS=ON -DMETIS_INCLUDE_DIR=$root/.gpu_deps/metis/include -DMETIS_LIBRARY=$root/.gpu_deps/metis/lib/libmetis.so >/tmp/cm.log 2>&1 || tail -20 /tmp/cm.log
timeout 300 ninja -C $b apsp >/tmp/bl.log 2>&1 || { grep -E "error|FAILED" -A3 /tmp/bl.log | head -30; exit 1; }
echo "build $(( $(date +%s) - s0 )) s"
$b/apsp generate /dev/shm/grid.bin --kind grid --rows 256 --cols 256
run() { # label env... -- order out
  local label=$1; shift
  local t0=$(date +%s.%N)
  env "$@" APSP_TRACE=1 timeout 120 $b/apsp solve /dev/shm/grid.bin "$OUTF" --backend cuda --order $ORD --stats >/tmp/st.txt 2>&1; rc=$?
  local t1=$(date +%s.%N)
  echo "$label order=$ORD out=$OUTF rc=$rc wall $(python3 -c "print('%.2f' % ($t1 - $t0))") s | $(grep -iE 'compute|write|total|wall|order' /tmp/st.txt | grep -v trace | tr -s ' ' | tr '\n' ';' | cut -c1-400)"
  grep -iE "prefill|split over|written|populated" /tmp/st.txt | cut -c1-250 | head -4
  t2=$(date +%s.%N); rm -f "$OUTF"; sync; echo "   (rm+sync $(python3 -c "print('%.1f' % ($(date +%s.%N) - $t2))") s)"
}
ORD=nd OUTF=$root/o.bin
run nd_disk_default X=1
run nd_disk_default2 X=1
run nd_disk_default3 X=1
run nd_disk_limit16G APSP_WRITE_PREFILL_LIMIT=17179869184
ORD=none OUTF=$root/o.bin
run none_disk_default X=1
run none_disk_limit16G APSP_WRITE_PREFILL_LIMIT=17179869184
ORD=nd OUTF=/dev/null
run nd_null X=1
echo "total $(( $(date +%s) - s0 )) s"
