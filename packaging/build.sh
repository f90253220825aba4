#!/usr/bin/env bash
# Set-up and a release build in build/ (reconfigured if it exists), with the small CI catalog
# (catalog/ci.json); packaging/release.sh builds the whole default catalog.
set -euo pipefail
cd "$(dirname "$0")/.."
bash packaging/setup-debian.sh
cuda=${CUDA_HOME:-/usr/local/cuda}
if [ -f build/build.ninja ]; then
  meson setup --reconfigure build -Dtoolkit_root="$cuda" -Dcatalog="${COOPLINK_CATALOG_SPEC:-ci}" >/dev/null
else
  meson setup build --buildtype=release -Dtoolkit_root="$cuda" -Dcatalog="${COOPLINK_CATALOG_SPEC:-ci}" >/dev/null
fi
meson compile -C build
