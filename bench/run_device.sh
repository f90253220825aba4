#!/usr/bin/env bash
# Runs the CPU benchmarks on another machine (the GPU host, through the device tool), from the repository
# root, carrying build/ and .deps/ (bash tests/gpu/prepare.sh copies the libraries there):
#   bash bench/run_device.sh [link_bench options]
# Prints the machine's CPU, then link_bench's tables; a copy goes to $OUT/link_bench.md.
set -euo pipefail
cd "$(dirname "$0")/.."
export LD_LIBRARY_PATH="$PWD/.deps/lib:/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
out="${OUT:-/tmp}/link_bench.md"
{
  echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), $(nproc) cores"
  echo
  build/bench/link_bench "$@"
} | tee "$out"
