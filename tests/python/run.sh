#!/usr/bin/env bash
# The Python layer's CPU tests as a user gets it: a clean virtual environment, `pip install ".[numba]"`
# (the README's line: builds libcooplink and the default catalog into the wheel), numba-cuda from PyPI,
# pytest. The CUDA 13.0 NVVM/nvJitLink wheels are pinned because the tests link Numba's LTO-IR with this
# toolkit's nvJitLink 13.0 (a newer NVVM's IR it cannot read); Numba's own linker has no such limit.
#
#   bash tests/python/run.sh [pip install options, e.g. -Csetup-args=-Dcatalog=ci for a quick local run]
set -euo pipefail
cd "$(dirname "$0")/../.."
venv=${COOP_PY_VENV:-build/py-venv}
rm -rf "$venv"
python3 -m venv "$venv"
"$venv/bin/pip" install -q --upgrade pip
"$venv/bin/pip" install -q "$@" ".[numba,test]" 'cuda-toolkit[nvvm]==13.0.*' 'nvidia-nvjitlink==13.0.*'
cd tests/python
env -u COOPLINK_CATALOG -u COOPLINK_LIBRARY "$OLDPWD/$venv/bin/python" -m pytest -q -p no:cacheprovider
