#!/usr/bin/env bash
# scripts/deps.sh — install the Debian packages apsp builds and tests with, when any is missing.
# Uses sudo when not root. The CUDA toolkit is optional and not installed here: with nvcc on the
# PATH (or at /usr/local/cuda/bin/nvcc) the build adds the GPU backends, otherwise it is CPU-only.
# hipcc + libamdhip64-dev (ROCm 5.2) compile the hip backend for AMD GPUs (scripts/test_hip_build.sh).
set -euo pipefail
pkgs=(build-essential cmake ninja-build pkg-config libcli11-dev libgtest-dev zlib1g-dev
      python3 python3-dev pybind11-dev python3-numpy python3-scipy python3-pytest python3-matplotlib python3-networkx
      libopenmpi-dev openmpi-bin libmetis-dev libsuitesparse-dev hipcc libamdhip64-dev)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "apsp: installing missing Debian packages: ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
