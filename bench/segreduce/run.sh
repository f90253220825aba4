#!/usr/bin/env bash
# On the GPU machine (device tool): the segmented-reduction benchmark. Prepared here by
# bench/segreduce/prepare.sh (carry .gpubench); with --numba also tests/gpu/prepare_python.sh (carry
# .gpuwheels; the Numba kernels use the benchmark's catalog). Results (JSON) go to $OUT; bench/segreduce/report.py makes the tables and plots.
#
#   bash bench/segreduce/run.sh [bench.py options]
set -uo pipefail
cd "$(dirname "$0")/../.."
if [ -d .gpuwheels ]; then
  site=${TMPDIR:-/tmp}/cooplink-site
  rm -rf "$site"
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target "$site" .gpuwheels/cooplink-*.whl
  export PYTHONPATH="$site${PYTHONPATH:+:$PYTHONPATH}" COOPLINK_CATALOG=$PWD/.gpubench/catalog
  export COOPLINK_CACHE=${COOPLINK_CACHE:-/tmp/cooplink-cache}
fi
export PYTHONUNBUFFERED=1
python3 bench/segreduce/bench.py --gpubench .gpubench --out "${OUT:-/tmp}" "$@"
