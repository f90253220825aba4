#!/usr/bin/env bash
# The installed tree, used from outside the source tree (meson test 'install'):
#   1. meson install into a staging folder, then move the prefix somewhere else entirely (or, with
#      --tarball, unpack a release tarball of packaging/release.sh somewhere);
#   2. a C program built with `pkg-config --cflags --libs cooplink` opens the installed catalog with no
#      environment variable and links a kernel that adds exactly its three units, every call inlined;
#   3. the installed cooplink finds and verifies the same catalog;
#   4. nvcc -dlto -rdc=true links a kernel against the installed LTO archive (-lcooplink_device), and
#      the device-linked cubin holds the kernel alone (every catalog call inlined); where the toolkit
#      lacks nvvm/lib64/libnvvm.so, through packaging/cuda-view.sh. Where a GPU exists, it runs.
# usage: run.sh BUILD_DIR SOURCE_DIR
#        run.sh --tarball TARBALL SOURCE_DIR
set -euo pipefail
tarball=""
if [ "$1" = --tarball ]; then
  tarball=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
  shift 2
  src=$(cd "$1" && pwd)
else
  build=$(cd "$1" && pwd)
  src=$(cd "$2" && pwd)
fi
cuda=${CUDA_HOME:-/usr/local/cuda}
T=$(mktemp -d "${TMPDIR:-/tmp}/cooplink-install.XXXXXX")
trap 'rm -rf "$T"' EXIT
mkdir "$T/stage"
if [ -n "$tarball" ]; then
  tar -xzf "$tarball" -C "$T/stage"
else
  DESTDIR="$T/stage" meson install -C "$build" --no-rebuild --quiet
fi
staged=$(dirname "$(dirname "$(find "$T/stage" -path '*/bin/cooplink' -type f)")")
mv "$staged" "$T/prefix"
prefix=$T/prefix
pcdir=$(dirname "$(find "$prefix" -name cooplink.pc)")
libdir=$(dirname "$pcdir")
catalog=$prefix/share/cooplink/catalog
for f in "$prefix/bin/coopgen" "$prefix/bin/cooplink" "$prefix/include/cooplink/cooplink.h" \
         "$libdir/libcooplink.so" "$libdir/libcooplink.a" "$libdir/libcooplink_device.a" "$catalog/index.json"; do
  [ -e "$f" ] || { echo "install: $f was not installed" >&2; exit 1; }
done
mkdir "$T/work"
cd "$T/work"
unset COOPLINK_CATALOG
echo "== a C program through pkg-config"
export PKG_CONFIG_PATH=$pcdir
cc -std=c11 -Wall -Werror "$src/tests/install/use_catalog.c" $(pkg-config --cflags --libs cooplink) -o use_catalog
./use_catalog
echo "== the installed cooplink finds its catalog"
out=$("$prefix/bin/cooplink" catalog verify)
echo "$out"
case "$out" in
  "(default catalog): "*"usable") ;;
  *) echo "install: cooplink catalog verify did not report the installed catalog usable" >&2; exit 1 ;;
esac
echo "== NVRTC is loaded only when something is compiled"
if ldd "$prefix/bin/cooplink" "$libdir/libcooplink.so" | grep -q nvrtc; then
  echo "install: cooplink or libcooplink links NVRTC; it should load it on first use" >&2
  exit 1
fi
if LD_DEBUG=libs "$prefix/bin/cooplink" catalog verify 2>&1 >/dev/null | grep -q 'libnvrtc'; then
  echo "install: cooplink catalog verify loaded NVRTC" >&2
  exit 1
fi
echo "cooplink catalog verify ran without loading libnvrtc"
echo "== nvcc -dlto against the LTO archive"
nvcc=$cuda/bin/nvcc
if [ ! -e "$cuda/nvvm/lib64/libnvvm.so" ]; then
  nvcc=$(bash "$src/packaging/cuda-view.sh" "$T/cuda" "$cuda")
  echo "this toolkit has no nvvm/lib64/libnvvm.so: nvcc through the view $T/cuda"
fi
mkdir keep
"$nvcc" -arch=sm_90 -rdc=true -dlto -I"$catalog" "$src/tests/install/device_link.cu" -L"$libdir" -lcooplink_device \
  -o device_link --keep --keep-dir keep
funcs=$(readelf -sW keep/*_dlink.sm_90.cubin | awk '$4 == "FUNC" {print $NF}' | sort | tr '\n' ' ')
if [ "$funcs" != "scan_tiles " ]; then
  echo "install: the device-linked cubin has functions '$funcs', expected the kernel alone" >&2
  exit 1
fi
echo "device-linked cubin: one function, scan_tiles: the three catalog calls are inlined"
if "$prefix/bin/cooplink" device >/dev/null 2>&1; then
  ./device_link && echo "device_link ran on the GPU: every output correct"
fi
echo "install: all checks passed"
