#!/usr/bin/env bash
# On the GPU machine (device tool): installs the carried wheels next to the host's numba-cuda (no
# network there), runs the Python GPU suite, the segmented_reduce suite, the Numba segmented-reduction
# example and the Python benchmark. Prepared here by tests/gpu/prepare_python.sh; carry .gpuwheels and
# .gpupycat.
#
#   bash tests/gpu/run_python.sh [suite|segmented|example|bench|all] [FILTER]
#                          (FILTER: only the suite's cases whose name contains it, e.g. record, warp)
#   SANITIZE="memcheck racecheck synccheck" bash tests/gpu/run_python.sh suite    (under compute-sanitizer)
set -uo pipefail
cd "$(dirname "$0")/../.."
what=${1:-all}
filter=${2:-}
# the host's Python has numba-cuda, numpy, cupy and torch outside any venv: install beside them
site=${TMPDIR:-/tmp}/cooplink-site
rm -rf "$site"
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target "$site" .gpuwheels/*.whl
export PYTHONPATH="$site${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1
py=python3
cd /tmp  # import the installed package, not the source tree
repo=$OLDPWD
export COOPLINK_CACHE=${COOPLINK_CACHE:-/tmp/cooplink-cache}
"$py" -m cooplink
if { [ "$what" = suite ] || [ "$what" = all ]; } && [ -n "${SANITIZE:-}" ]; then
  # SANITIZE="memcheck racecheck synccheck": the suite under each tool at once (its 14 processes shared
  # among them; every process of the suite's is instrumented), errors summed over every process's log
  tools=($SANITIZE)
  logs=$(mktemp -d)
  for tool in "${tools[@]}"; do
    (
      t0=$SECONDS
      COOPLINK_CATALOG="$repo/.gpupycat" timeout "${SANITIZE_TIMEOUT:-560}" compute-sanitizer --tool "$tool" \
        --target-processes all --error-exitcode 99 --print-limit 50 --log-file "$logs/$tool.%p.log" \
        "$py" "$repo/tests/gpu/python_suite.py" --jobs $((14 / ${#tools[@]})) --filter "$filter" > "$logs/$tool.out" 2>&1
      echo "$? $((SECONDS - t0))" > "$logs/$tool.rc"
    ) &
  done
  wait
  for tool in "${tools[@]}"; do
    read -r rc secs < "$logs/$tool.rc"
    { grep -h 'SUMMARY:' "$logs/$tool".*.log; grep -h -m 20 -v 'SUMMARY:' "$logs/$tool".*.log; } > "${OUT:-/tmp}/py_$tool.log"
    grep '^FAIL' "$logs/$tool.out" | head -5
    echo "python suite under $tool: $(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$logs/$tool.out" | tail -n 1)," \
      "exit code $rc, $(ls "$logs/$tool".*.log | wc -l) processes, $(grep -h 'SUMMARY:' "$logs/$tool".*.log |
      awk '/ERROR SUMMARY/ {e += $(NF - 1) + 0} /RACECHECK SUMMARY/ {match($0, /\(([0-9]+) error/); e += substr($0, RSTART + 1) + 0}
           END {print e + 0}') sanitizer errors, $secs s"
  done
elif [ "$what" = suite ] || [ "$what" = all ]; then
  COOPLINK_CATALOG="$repo/.gpupycat" "$py" "$repo/tests/gpu/python_suite.py" --jobs 14 --filter "$filter" | tee "${OUT:-/tmp}/python_suite.txt" | tail -n 40
fi
if [ "$what" = segmented ] || [ "$what" = all ]; then
  "$py" "$repo/tests/gpu/segmented_suite.py" --filter "$filter" | tee "${OUT:-/tmp}/segmented_suite.txt" | tail -n 60
fi
if [ "$what" = example ] || [ "$what" = all ]; then
  "$py" "$repo/examples/segreduce/segreduce_numba.py" | tee "${OUT:-/tmp}/segreduce_numba.txt"
fi
if [ "$what" = bench ] || [ "$what" = all ]; then
  "$py" "$repo/bench/python_first_result.py" --out "${OUT:-/tmp}/python_first_result.md"
fi
