#!/bin/bash
# bench/io/run.sh — apsp's NTHU read/write speed next to dd on the same disk.
#
#   bench/io/run.sh BUILD_DIR [WORK_DIR] [V] [E]
#
# BUILD_DIR holds libapsp.a (any configured build of this repo), or a ready io_speed binary (e.g.
# built with -static to run on a machine without a compiler); WORK_DIR (default: BUILD_DIR)
# must have ~8 GB free: the 3.6 GB result is written, measured and deleted twice. Prints the dd
# figures and then io_speed's table; paste both into bench/results/io-<date>.md.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${1:?usage: run.sh BUILD_DIR [WORK_DIR] [V] [E]}
work=${2:-$build}
V=${3:-30000}
E=${4:-5000000}
bytes=$((V * V * 4))
mb64=$(((bytes + (64 << 20) - 1) / (64 << 20)))

echo "== machine: $(nproc) cores, $(free -g | awk '/Mem:/{print $2}') GiB RAM; $(df -h "$work" | awk 'NR==2{print $1 " " $2 " total, " $4 " free"}')"
echo "== commit: $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)"
if [ -x "$build/io_speed" ]; then
  bin="$build/io_speed"
else
  bin="$work/io_speed"
  c++ -std=c++20 -O2 -fopenmp -I"$root/include" "$here/io_speed.cpp" "$build/libapsp.a" -o "$bin"
fi

echo "== dd: write $((mb64 * 64)) MiB from /dev/zero (page cache), then with conv=fdatasync (disk)"
dd if=/dev/zero of="$work/dd.bin" bs=64M count=$mb64 2>&1 | tail -1
rm -f "$work/dd.bin"
dd if=/dev/zero of="$work/dd.bin" bs=64M count=$mb64 conv=fdatasync 2>&1 | tail -1
echo "== dd: read it back cold (iflag=direct) and warm"
dd if="$work/dd.bin" of=/dev/null bs=64M iflag=direct 2>&1 | tail -1
dd if="$work/dd.bin" of=/dev/null bs=64M 2>&1 | tail -1
rm -f "$work/dd.bin"

echo "== apsp io_speed on $work (the disk)"
"$bin" "$work" "$V" "$E"
# tmpfs takes the disk out: what is left is the CPU cost of parsing/formatting and copying.
if [ -d /dev/shm ] && [ "$(df -B1 --output=avail /dev/shm | tail -1)" -gt $((bytes * 2)) ]; then
  echo "== apsp io_speed on /dev/shm (tmpfs: no disk)"
  mkdir -p /dev/shm/apsp-io-speed
  "$bin" /dev/shm/apsp-io-speed "$V" "$E"
  rm -rf /dev/shm/apsp-io-speed
fi
[ "$bin" = "$work/io_speed" ] && rm -f "$bin"
true
