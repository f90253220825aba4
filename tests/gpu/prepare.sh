#!/usr/bin/env bash
# Builds here (release) and gathers the shared libraries the GPU machine lacks into .deps/lib, so that
# the device tool can carry build/tests/gpu_suite, .deps/ and .gpuwork/ (build/ as a whole is over the 64 MiB carry limit) and run tests/gpu/run.sh there.
#
#   bash tests/gpu/prepare.sh [gpu_suite options]
#   COOP_GPU_CATALOG=DIR bash tests/gpu/prepare.sh     # also test an installed catalog (e.g. the
#                                                     # release tarball's share/cooplink/catalog)
#
# With COOP_GPU_CATALOG the catalog is copied to .gpucat (carry it too), every symbol of it is built as
# a case linked through libcooplink against it (.gpuwork/catalog), and the nvcc -dlto test program is
# linked against the tarball's LTO archive (.gpuwork/device_link; COOP_GPU_ARCHIVE=lib/libcooplink_device.a).
set -euo pipefail
cd "$(dirname "$0")/../.."
[ -d build ] || meson setup build --buildtype=release -Dcatalog=ci
meson compile -C build
mkdir -p .deps/lib
for lib in libjansson.so.4 libyaml-0.so.2; do
  cp -L "$(ldconfig -p | awk -v l="$lib" '$1 == l && /x86-64/ {print $NF; exit}')" .deps/lib/
done
# The suite's bundles, test kernels and links are built here (cheaper than device time); the GPU
# machine only loads the cubins and runs them.
rm -rf .gpuwork .gpucat && mkdir -p .gpuwork
build/tests/gpu_suite --cpu-only --arch "${COOP_GPU_ARCH:-90}" --jobs "$(nproc)" --save .gpuwork "$@" | tail -n 3
# tests/gpu/sanitize.sh planted: the float32 cases of 128 threads on their own (a filter changes the bundles)
mkdir -p .gpuwork/planted
build/tests/gpu_suite --cpu-only --arch "${COOP_GPU_ARCH:-90}" --jobs "$(nproc)" --filter _f32_t128_ \
  --save .gpuwork/planted | tail -n 1
if [ -n "${COOP_GPU_CATALOG:-}" ]; then
  cp -r "$COOP_GPU_CATALOG" .gpucat
  mkdir -p .gpuwork/catalog
  build/tests/gpu_suite --cpu-only --arch "${COOP_GPU_ARCH:-90}" --jobs "$(nproc)" --catalog .gpucat \
    --save .gpuwork/catalog | tail -n 3
  if [ -n "${COOP_GPU_ARCHIVE:-}" ]; then
    cuda=${CUDA_HOME:-/usr/local/cuda}
    nvcc=$cuda/bin/nvcc
    [ -e "$cuda/nvvm/lib64/libnvvm.so" ] || nvcc=$(bash packaging/cuda-view.sh build/cuda-view "$cuda")
    "$nvcc" -arch=sm_"${COOP_GPU_ARCH:-90}" -rdc=true -dlto -I.gpucat tests/install/device_link.cu \
      -L"$(dirname "$COOP_GPU_ARCHIVE")" -lcooplink_device -o .gpuwork/device_link
  fi
fi
du -sh build .deps .gpuwork ${COOP_GPU_CATALOG:+.gpucat}
