#!/usr/bin/env bash
# Builds here (release) and gathers the shared libraries the GPU machine lacks into .deps/lib, so that
# the device tool can carry build/ and .deps/ and run tests/gpu/run.sh there.
set -euo pipefail
cd "$(dirname "$0")/../.."
[ -d build ] || meson setup build --buildtype=release
meson compile -C build
mkdir -p .deps/lib
for lib in libjansson.so.4 libyaml-0.so.2; do
  cp -L "$(ldconfig -p | awk -v l="$lib" '$1 == l && /x86-64/ {print $NF; exit}')" .deps/lib/
done
# The suite's bundles, test kernels and links are built here (cheaper than device time); the GPU
# machine only loads the cubins and runs them.
rm -rf .gpuwork && mkdir -p .gpuwork
build/tests/gpu_suite --cpu-only --arch "${COOP_GPU_ARCH:-90}" --jobs "$(nproc)" --save .gpuwork "$@" | tail -n 3
du -sh build .deps .gpuwork
