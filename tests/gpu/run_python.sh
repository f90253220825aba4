#!/usr/bin/env bash
# On the GPU machine (device tool): installs the carried wheels into a venv over the host's numba-cuda
# (no network there), runs the Python GPU suite, the Numba segmented-reduction example and the Python
# benchmark. Prepared here by tests/gpu/prepare_python.sh; carry .gpuwheels and .gpupycat.
#
#   bash tests/gpu/run_python.sh [suite|example|bench|all]
set -euo pipefail
cd "$(dirname "$0")/../.."
what=${1:-all}
venv=${TMPDIR:-/tmp}/cooplink-venv
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv --system-site-packages "$venv"
  "$venv/bin/pip" install -q --no-index --no-deps .gpuwheels/cooplink-*.whl
  if ls .gpuwheels/cuda_cccl-*.whl >/dev/null 2>&1; then
    "$venv/bin/pip" install -q --no-index --no-deps .gpuwheels/cuda_cccl-*.whl
  fi
fi
py="$venv/bin/python"
cd /tmp  # import the installed package, not the source tree
repo=$OLDPWD
export COOPLINK_CACHE=${COOPLINK_CACHE:-/tmp/cooplink-cache}
"$py" -m cooplink
if [ "$what" = suite ] || [ "$what" = all ]; then
  COOPLINK_CATALOG="$repo/.gpupycat" "$py" "$repo/tests/gpu/python_suite.py" | tee "${OUT:-/tmp}/python_suite.txt" | tail -n 40
fi
if [ "$what" = example ] || [ "$what" = all ]; then
  "$py" "$repo/examples/segreduce/segreduce_numba.py" | tee "${OUT:-/tmp}/segreduce_numba.txt"
fi
if [ "$what" = bench ] || [ "$what" = all ]; then
  "$py" "$repo/bench/python_first_result.py" --out "${OUT:-/tmp}/python_first_result.md"
fi
