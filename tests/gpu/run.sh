#!/usr/bin/env bash
# Runs on the GPU machine (device tool), from the repository root, after tests/gpu/prepare.sh here,
# carrying build/tests/gpu_suite, .deps/ and .gpuwork/ (and .gpucat/ when prepared with COOP_GPU_CATALOG):
#   bash tests/gpu/run.sh [gpu_suite options]   (the same options as given to prepare.sh)
# Runs the suite's own cases, then (when prepared) every symbol of the catalog in .gpucat and the nvcc
# -dlto program linked against the LTO archive. Exit 0 only when everything passed.
set -uo pipefail
cd "$(dirname "$0")/../.."
export LD_LIBRARY_PATH="$PWD/.deps/lib:/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader || true
missing=$(ldd build/tests/gpu_suite | grep 'not found' || true)
if [ -n "$missing" ]; then echo "missing libraries: $missing"; exit 1; fi
status=0
build/tests/gpu_suite --jobs "$(nproc)" --prebuilt .gpuwork "$@" 2>&1 | tee "${OUT:-/tmp}/gpu_suite.log"
[ "${PIPESTATUS[0]}" = 0 ] || status=1
if [ -d .gpucat ]; then
  build/tests/gpu_suite --jobs "$(nproc)" --prebuilt .gpuwork/catalog --catalog .gpucat 2>&1 |
    tee "${OUT:-/tmp}/gpu_suite_catalog.log"
  [ "${PIPESTATUS[0]}" = 0 ] || status=1
fi
if [ -x .gpuwork/device_link ]; then
  if .gpuwork/device_link; then
    echo "nvcc -dlto program against libcooplink_device.a: ran, every output of the striped load + inclusive scan + striped store correct"
  else
    echo "nvcc -dlto program against libcooplink_device.a: FAILED (exit $?)"
    status=1
  fi
fi
exit "$status"
