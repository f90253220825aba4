#!/usr/bin/env bash
# Installs what cooplink needs on Debian 12 (idempotent: only what is missing) and checks the CUDA
# toolkit, which Debian does not package in the version cooplink needs (CUDA >= 12.4 with nvJitLink).
set -euo pipefail
pkgs=(meson ninja-build pkg-config gcc g++ binutils libc6-dev python3 libcriterion-dev libjansson-dev libyaml-dev libssl-dev
  clang llvm libclang-rt-14-dev valgrind)  # (the last four: tests/fuzz and tests/sanitize, issue 12)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" = 0 ] || sudo=sudo
  echo "setup: installing ${missing[*]}"
  $sudo apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
fi
cuda=${CUDA_HOME:-/usr/local/cuda}
for f in bin/nvcc include/nvrtc.h include/nvJitLink.h include/cccl/cub/cub.cuh lib64/libnvJitLink.so lib64/libnvrtc.so; do
  if [ ! -e "$cuda/$f" ]; then
    echo "setup: the CUDA toolkit at $cuda lacks $f; install CUDA 12.4 or newer there or set CUDA_HOME" >&2
    exit 1
  fi
done
