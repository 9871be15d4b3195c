#!/usr/bin/env bash
# session 13 call 2 (final): gpu_check build,test,nthu,sanitize from a clean build of the merged
# session (python drop-in, output/process robustness, input limits, io messages), then nd solves
# of the 256x256 grid and geometric V=65536 and one dense (to /dev/null), then a --paths pair on
# cuda: solve --paths, apsp path, solve without --paths removes the stale OUT.next.
root=$(pwd); s0=$(date +%s)
APSP_WITH_MPI=OFF APSP_WITH_NCCL=OFF CXX=/usr/bin/g++ CC=/usr/bin/gcc PYTHON_BENCH=0 SANITIZE_TIMEOUT=120 OUT=$OUT/cuda \
  timeout 430 scripts/gpu_check.sh --src .gpu_snapshot --deps .gpu_deps --steps build,test,nthu,sanitize 2>&1 | tail -15
echo "check part: $(( $(date +%s) - s0 )) s"
b=/tmp/apsp-gpu-build/apsp
export LD_LIBRARY_PATH=$root/.gpu_deps/metis/lib:${LD_LIBRARY_PATH:-}
$b generate /dev/shm/grid.bin --kind grid --rows 256 --cols 256 >/dev/null
$b generate /dev/shm/geo.bin --kind geometric -V 65536 -k 4 >/dev/null
for spec in "grid nd" "geo nd" "grid none"; do
  set -- $spec
  t0=$(date +%s.%N)
  timeout 60 $b solve /dev/shm/$1.bin /dev/null --backend cuda --order $2 --stats /tmp/s.json -q > /tmp/r.log 2>&1
  rc=$?; t1=$(date +%s.%N)
  echo "$1 $2 rc=$rc wall=$(python3 -c "print('%.2f' % ($t1 - $t0))") $(python3 -c 'import json; d=json.loads(open("/tmp/s.json").read().splitlines()[-1]); print("compute=%.4f rounds=%s" % (d["compute_s"], d["rounds"]))')"
done
echo "== --paths pair on cuda (V=4000 uniform)"
$b generate /dev/shm/u.bin -V 4000 -E 40000 >/dev/null
$b solve /dev/shm/u.bin $root/p.bin --backend cuda --paths -q; echo "solve --paths rc=$?"
$b path $root/p.bin 0 3999 | tail -1; echo "path rc=$?"
stat -c '%n %y' $root/p.bin $root/p.bin.next
$b solve /dev/shm/u.bin $root/p.bin --backend cuda -q; echo "solve without --paths rc=$?"; ls $root/p.bin* 
rm -f $root/p.bin* /dev/shm/*.bin
echo "total $(( $(date +%s) - s0 )) s"
