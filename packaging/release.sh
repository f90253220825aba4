#!/usr/bin/env bash
# Release tarball for this toolkit's CUDA major: libcooplink (shared and static), headers, coopgen,
# cooplink, the default catalog (every arch; about 17 minutes on 2 cores), the nvcc LTO archive, the
# pkg-config file and the README, in a tree that works wherever it is unpacked:
#   dist/cooplink-<version>-cuda<major>-linux-x86_64.tar.gz
#
#   bash packaging/release.sh [--catalog default|ci] [--out DIR]
#
# --catalog ci packs the small CI catalog instead (what CI uses to check this script). Build time,
# catalog size and installed size are printed and written to <out>/<name>.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
catalog=default
out=dist
while [ $# -gt 0 ]; do
  case "$1" in
    --catalog) catalog=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    *) echo "usage: release.sh [--catalog default|ci] [--out DIR]" >&2; exit 2 ;;
  esac
done
bash packaging/setup-debian.sh
cuda=${CUDA_HOME:-/usr/local/cuda}
major=$(sed -n 's/^#define CUDA_VERSION \([0-9]*\)$/\1/p' "$cuda/include/cuda.h")
major=$((major / 1000))
version=$(sed -n "s/^  version: '\(.*\)',$/\1/p" meson.build)
name=cooplink-$version-cuda$major-linux-x86_64
[ "$catalog" = default ] || name=$name-$catalog
builddir=build-release-$catalog
mkdir -p "$out"
out=$(cd "$out" && pwd)
if [ -f "$builddir/build.ninja" ]; then
  meson setup --reconfigure "$builddir" -Dtoolkit_root="$cuda" -Dcatalog="$catalog" -Dtests=false >/dev/null
else
  meson setup "$builddir" --buildtype=release -Dtoolkit_root="$cuda" -Dcatalog="$catalog" -Dtests=false \
    --prefix="/opt/$name" --libdir=lib -Dpkgconfig.relocatable=true >/dev/null
fi
start=$(date +%s)
meson compile -C "$builddir"
build_s=$(( $(date +%s) - start ))
stage=$(mktemp -d "${TMPDIR:-/tmp}/cooplink-release.XXXXXX")
trap 'rm -rf "$stage"' EXIT
DESTDIR="$stage" meson install -C "$builddir" --no-rebuild --quiet
mv "$stage/opt/$name" "$stage/$name"
cp README.md "$stage/$name/README.md"
# reproducible: sorted names, fixed owner and times
epoch=$(git log -1 --format=%ct 2>/dev/null || echo 0)
tar --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$epoch" -C "$stage" -czf "$out/$name.tar.gz" "$name"
cat_bytes=$(du -sb "$stage/$name/share/cooplink/catalog" | cut -f1)
arc_bytes=$(stat -c %s "$stage/$name/lib/libcooplink_device.a")
all_bytes=$(du -sb "$stage/$name" | cut -f1)
units=$(ls "$stage/$name/share/cooplink/catalog"/*.json | grep -vcE "/(index|catalog).json$" || true)
{
  echo "release $name ($(date -u +%Y-%m-%d), $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'))"
  echo "command: bash packaging/release.sh --catalog $catalog"
  echo "build (meson compile, with the catalog): ${build_s} s"
  echo "catalog: $units bundles, $cat_bytes bytes"
  echo "nvcc LTO archive: $arc_bytes bytes"
  echo "installed tree: $all_bytes bytes; tarball: $(stat -c %s "$out/$name.tar.gz") bytes"
} | tee "$out/$name.txt"
echo "$out/$name.tar.gz"
