#!/usr/bin/env bash
# Fuzzes every libFuzzer target of tests/fuzz for its share of SECONDS_TOTAL (default 60), one at a time,
# over a scratch copy of its seed corpus; replays tests/fuzz/regressions/<target>/*; checks that coopgen
# writes the same bytes twice (determinism.sh). Exits non-zero on any crash, leak, timeout or difference.
#   bash tests/fuzz/run.sh [SECONDS_TOTAL]
# Environment: FUZZ_BUILD (default <repo>/build-fuzz, set up with clang when missing), COOPGEN (for the
# determinism check; default <repo>/build/coopgen, else the fuzz build's), FUZZ_TARGETS (a subset).
set -euo pipefail
total=${1:-60}
src=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
fuzz=$src/tests/fuzz
build=${FUZZ_BUILD:-$src/build-fuzz}
read -r -a targets <<< "${FUZZ_TARGETS:-spec_json spec_yaml symbol manifest catalog cache_entry coopgen_args cooplink_args}"

t0=$(date +%s)
if [ ! -f "$build/build.ninja" ]; then
  CC=clang meson setup "$build" "$src" -Dfuzz=true -Dcatalog=none -Dtests=false >/dev/null
fi
meson compile -C "$build" -j 1 "${targets[@]/#/fuzz_}" coopgen >/dev/null
echo "fuzz: built in $(( $(date +%s) - t0 )) s"

scratch=$(mktemp -d "${TMPDIR:-/tmp}/coopfuzz-run.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
export TMPDIR=$scratch/tmp ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
mkdir -p "$TMPDIR"
share=$(( total / ${#targets[@]} ))
(( share >= 1 )) || share=1
status=0
for t in "${targets[@]}"; do
  exe=$build/tests/fuzz/fuzz_$t
  mkdir -p "$scratch/corpus/$t" "$scratch/art/$t"
  cp "$fuzz/corpus/$t"/* "$scratch/corpus/$t/"
  dict=()
  [ -f "$fuzz/$t.dict" ] && dict=(-dict="$fuzz/$t.dict")
  log=$scratch/$t.log
  rc=0
  "$exe" -max_total_time="$share" -timeout=10 -rss_limit_mb=2048 -detect_leaks=1 -print_final_stats=1 \
    -artifact_prefix="$scratch/art/$t/" "${dict[@]}" "$scratch/corpus/$t" > "$log" 2>&1 || rc=$?
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  corp=$(grep -o 'corp: [0-9]*/[0-9]*[a-zA-Z]*' "$log" | tail -1 | sed 's/corp: //')
  crashes=$(find "$scratch/art/$t" -type f | wc -l)
  line="fuzz $t: ${runs:-?} runs in ${share} s, corpus ${corp:-?}, $crashes crashes/leaks/timeouts"
  if (( rc != 0 || crashes != 0 )); then
    status=1
    echo "$line: FAILED (exit $rc)"
    grep -E 'ERROR|SUMMARY|runtime error|Test unit written' "$log" | head -20 || true
    for a in "$scratch/art/$t"/*; do
      [ -f "$a" ] && mkdir -p "$build/artifacts/$t" && cp "$a" "$build/artifacts/$t/" && echo "  input kept as $build/artifacts/$t/$(basename "$a")"
    done
  else
    echo "$line"
  fi
  if compgen -G "$fuzz/regressions/$t/*" > /dev/null; then
    n=$(find "$fuzz/regressions/$t" -type f | wc -l)
    if "$exe" -timeout=10 -rss_limit_mb=2048 -detect_leaks=1 "$fuzz/regressions/$t"/* > "$log" 2>&1; then
      echo "fuzz $t: $n regression inputs replayed: ok"
    else
      status=1
      echo "fuzz $t: regression inputs replayed: FAILED"
      grep -E 'ERROR|SUMMARY|runtime error|Running:' "$log" | head -20 || true
    fi
  fi
done

coopgen=${COOPGEN:-$src/build/coopgen}
[ -x "$coopgen" ] || coopgen=$build/coopgen
if ASAN_OPTIONS=detect_leaks=0 bash "$fuzz/determinism.sh" "$coopgen"; then :; else status=1; fi
echo "fuzz: $( ((status)) && echo FAILED || echo ok ) in $(( $(date +%s) - t0 )) s"
exit $status
