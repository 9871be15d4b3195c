#!/usr/bin/env bash
# scripts/whole_ab.sh — whole-process A/B of two apsp binaries on the same machine, in one call:
# course-format graphs (E = 5M, weights 0..W), best of N alternating runs each, outputs compared.
# Usage: scripts/whole_ab.sh A_APSP B_APSP [SIZES=5000,11000,30000] [W=1000] [N=3]
# Prints one line per size: "V=... A ... ms B ... ms (B/A ...) outputs same|DIFFERENT".
set -uo pipefail
A=$1 B=$2 SIZES=${3:-5000,11000,30000} W=${4:-1000} N=${5:-3}
DATA=${DATA:-/tmp/apsp-ab-data}
mkdir -p "$DATA"
IFS=, read -ra VS <<<"$SIZES"
for V in "${VS[@]}"; do
  IN=$DATA/w${W}_$V.in
  [ -s "$IN" ] || "$B" generate "$IN" -V "$V" -E 5000000 --wmin 0 --wmax "$W" --seed 1 >/dev/null 2>&1 || exit 1
  "$A" "$IN" "$DATA/a.bin" >/dev/null 2>&1  # page cache warm, one untimed run each
  "$B" "$IN" "$DATA/b.bin" >/dev/null 2>&1
  ba="" bb=""
  for r in $(seq "$N"); do
    for side in a b; do
      bin=$A; [ $side = b ] && bin=$B
      rm -f "$DATA/$side.bin"; sync; sleep 1
      s=$(date +%s%N); "$bin" "$IN" "$DATA/$side.bin" >/dev/null 2>&1 || { echo "V=$V $side: FAIL"; continue; }
      t=$(( ($(date +%s%N) - s) / 1000000 ))
      if [ $side = a ]; then { [ -z "$ba" ] || [ "$t" -lt "$ba" ]; } && ba=$t; else { [ -z "$bb" ] || [ "$t" -lt "$bb" ]; } && bb=$t; fi
    done
  done
  cmp -s "$DATA/a.bin" "$DATA/b.bin" && same=same || same=DIFFERENT
  echo "V=$V w 0..$W: A $ba ms, B $bb ms (B/A $(python3 -c "print('%.2f' % ($bb / $ba))")), outputs $same"
  rm -f "$DATA/a.bin" "$DATA/b.bin"
done
