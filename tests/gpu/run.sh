#!/usr/bin/env bash
# Runs on the GPU machine (device tool), from the repository root, after tests/gpu/prepare.sh here,
# carrying build/, .deps/ and .gpuwork/:
#   bash tests/gpu/run.sh [gpu_suite options]   (the same options as given to prepare.sh)
set -uo pipefail
cd "$(dirname "$0")/../.."
export LD_LIBRARY_PATH="$PWD/.deps/lib:/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader || true
missing=$(ldd build/tests/gpu_suite | grep 'not found' || true)
if [ -n "$missing" ]; then echo "missing libraries: $missing"; exit 1; fi
build/tests/gpu_suite --jobs "$(nproc)" --prebuilt .gpuwork "$@" 2>&1 | tee "${OUT:-/tmp}/gpu_suite.log"
exit "${PIPESTATUS[0]}"
