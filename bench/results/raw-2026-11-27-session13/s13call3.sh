#!/usr/bin/env bash
# session 13 call 3: the final commit after the review's fixes (host code only since call 2):
# gpu_check build,test,nthu from a clean build, then the --paths pair on cuda again.
root=$(pwd); s0=$(date +%s)
APSP_WITH_MPI=OFF APSP_WITH_NCCL=OFF CXX=/usr/bin/g++ CC=/usr/bin/gcc PYTHON_BENCH=0 OUT=$OUT/cuda \
  timeout 400 scripts/gpu_check.sh --src .gpu_snapshot --deps .gpu_deps --steps build,test,nthu 2>&1 | tail -10
b=/tmp/apsp-gpu-build/apsp
export LD_LIBRARY_PATH=$root/.gpu_deps/metis/lib:${LD_LIBRARY_PATH:-}
echo "== --paths pair on cuda (V=4000 uniform)"
$b generate /dev/shm/u.bin -V 4000 -E 40000 >/dev/null
$b solve /dev/shm/u.bin $root/p.bin --backend cuda --paths -q; echo "solve --paths rc=$?"
$b path $root/p.bin 0 3999 | tail -1; echo "path rc=$?"
stat -c '%n %y' $root/p.bin $root/p.bin.next
$b solve /dev/shm/u.bin $root/p.bin --backend cuda -q; echo "solve without --paths rc=$?"; ls $root/p.bin*
rm -f $root/p.bin* /dev/shm/*.bin
echo "total $(( $(date +%s) - s0 )) s"
