#!/usr/bin/env bash
# catalog_bench on the GPU host (device tool), from the repository root, carrying build/, .deps/ (bash
# tests/gpu/prepare.sh copies the libraries there) and .gpucat/ (the release tarball's
# share/cooplink/catalog, fatbins included):
#   bash bench/run_device_catalog.sh [catalog_bench options]
# Prints the machine's CPU, then catalog_bench's tables; a copy goes to $OUT/catalog_bench.md.
set -euo pipefail
cd "$(dirname "$0")/.."
export LD_LIBRARY_PATH="$PWD/.deps/lib:/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
out="${OUT:-/tmp}/catalog_bench.md"
{
  echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), $(nproc) cores"
  echo
  build/bench/catalog_bench --catalog .gpucat --cooplink build/cooplink --work /tmp/coop_catalog_bench "$@"
} | tee "$out"
