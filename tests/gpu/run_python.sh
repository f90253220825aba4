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
  # SANITIZE="memcheck racecheck synccheck": the suite under each tool at once, 14 shards of the suite
  # shared among them, each shard a process of its own under its own compute-sanitizer (and log)
  tools=($SANITIZE)
  shards=$((14 / ${#tools[@]}))
  logs=$(mktemp -d)
  for tool in "${tools[@]}"; do
    for ((k = 0; k < shards; ++k)); do
      (
        t0=$SECONDS
        COOPLINK_CATALOG="$repo/.gpupycat" timeout "${SANITIZE_TIMEOUT:-560}" compute-sanitizer --tool "$tool" \
          --error-exitcode 99 --print-limit 50 --log-file "$logs/$tool.$k.log" \
          "$py" "$repo/tests/gpu/python_suite.py" --shard "$k/$shards" --filter "$filter" > "$logs/$tool.$k.out" 2>&1
        echo "$? $((SECONDS - t0))" > "$logs/$tool.$k.rc"
      ) &
    done
  done
  wait
  for tool in "${tools[@]}"; do
    { grep -h 'SUMMARY:' "$logs/$tool".*.log; grep -h -m 20 -v 'SUMMARY:' "$logs/$tool".*.log; } > "${OUT:-/tmp}/py_$tool.log"
    grep -h '^FAIL' "$logs/$tool".*.out | head -5
    echo "python suite under $tool: $(cat "$logs/$tool".*.out | awk '/^[0-9]+ passed, [0-9]+ failed$/ {p += $1; f += $3}
      END {printf "%d passed, %d failed", p, f}') in $shards processes, exit codes $(cat "$logs/$tool".*.rc | awk '{printf "%s ", $1}')," \
      "$(grep -h 'SUMMARY:' "$logs/$tool".*.log | wc -l) sanitizer summaries, $(grep -h 'SUMMARY:' "$logs/$tool".*.log |
      awk '/ERROR SUMMARY/ {e += $(NF - 1) + 0} /RACECHECK SUMMARY/ {match($0, /\(([0-9]+) error/); e += substr($0, RSTART + 1) + 0}
           END {print e + 0}') sanitizer errors, $(cat "$logs/$tool".*.rc | awk '$2 > m {m = $2} END {print m + 0}') s"
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
