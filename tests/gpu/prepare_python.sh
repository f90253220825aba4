#!/usr/bin/env bash
# Here (no GPU): the wheel for the GPU machine (repaired: it lacks jansson and libyaml), the catalog of
# every symbol the Python GPU suite calls (sm_90), and cuda-cccl 1.0.2 for the benchmark's comparison.
#   bash tests/gpu/prepare_python.sh [--wheel-only]   (--wheel-only: .gpuwheels alone, for
#                                                      bench/segreduce/device.sh, a few minutes less)
set -euo pipefail
wheel_only=0
[ "${1:-}" = --wheel-only ] && wheel_only=1
cd "$(dirname "$0")/../.."
bash packaging/wheel.sh --catalog "${COOP_WHEEL_CATALOG:-ci}" >/dev/null
rm -rf .gpuwheels .gpupycat && mkdir -p .gpuwheels
cp dist/wheel/repaired/cooplink-*.whl .gpuwheels/
pip download -q --no-deps cuda-cccl==1.0.2 --python-version 312 --only-binary=:all: \
  --platform manylinux_2_26_x86_64 -d .gpuwheels
venv=build/wheel-venv
[ -x "$venv/bin/numba" ] || "$venv/bin/pip" install -q 'numba-cuda[cu13]==0.30.4' 'numba==0.68.*' \
  'cuda-toolkit[nvvm]==13.0.*'
"$venv/bin/pip" install -q --force-reinstall --no-deps dist/wheel/cooplink-*.whl
[ $wheel_only = 1 ] && { du -sh .gpuwheels; exit 0; }
syms=$(mktemp)
(cd /tmp && "$OLDPWD/$venv/bin/python" "$OLDPWD/tests/gpu/python_suite.py" --symbols "$syms")
utypes=()
while read -r t; do utypes+=(--user-type "$t"); done < "$syms.types"
build/coopgen "${utypes[@]}" --symbols "$syms" --catalog --arch sm_"${COOP_GPU_ARCH:-90}" --name pysuite -o .gpupycat |
  tail -1
rm -f "$syms" "$syms.types"
du -sh .gpuwheels .gpupycat
