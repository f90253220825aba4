#!/usr/bin/env bash
# On the GPU machine (device tool), after tests/gpu/prepare.sh here (carry build/tests/gpu_suite, .deps,
# .gpuwork): the C GPU suite under compute-sanitizer, and the check that it would see a primitive step
# outside its temp storage.
#   bash tests/gpu/sanitize.sh [memcheck] [racecheck] [synccheck] [planted]     (none named: all four)
#     memcheck, racecheck, synccheck: the whole suite under that tool; 0 errors and every case passing
#     planted: the cases of FILTER (default _f32_t128_) launched with no dynamic shared memory at all
#              (--short-temp): every case whose primitive has temp storage must be reported by memcheck
# Each tool's log is $OUT/cs_<tool>.log (its last lines); a line per part ends the output.
set -uo pipefail
cd "$(dirname "$0")/../.."
export LD_LIBRARY_PATH="$PWD/.deps/lib:/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
out=${OUT:-/tmp}
tmp=$(mktemp -d)
parts=${*:-memcheck racecheck synccheck planted}
jobs=$(nproc)
summary=()
for part in $parts; do
  t0=$SECONDS
  case $part in
    memcheck | racecheck | synccheck)
      timeout "${SANITIZE_TIMEOUT:-420}" compute-sanitizer --tool "$part" --error-exitcode 99 --print-limit 50 \
        --log-file "$tmp/$part.log" build/tests/gpu_suite --jobs "$jobs" --prebuilt .gpuwork > "$tmp/$part.out" 2>&1
      rc=$?
      errors=$(grep -ho 'ERROR SUMMARY: [0-9]* error' "$tmp/$part.log" | awk '{s += $3} END {print s + 0}')
      tail -n 30 "$tmp/$part.log" > "$out/cs_$part.log"
      summary+=("$part: rc $rc, $(tail -n 1 "$tmp/$part.out"), sanitizer errors $errors, $((SECONDS - t0)) s")
      ;;
    planted)
      compute-sanitizer --tool memcheck --print-limit 1000000 --show-backtrace no --log-file "$tmp/planted.log" \
        build/tests/gpu_suite --jobs "$jobs" --prebuilt .gpuwork --filter "${FILTER:-_f32_t128_}" --short-temp 100000000 \
        > "$tmp/planted.out" 2>&1
      grep -o '^short temp: case_[0-9]*' "$tmp/planted.out" | awk '{print $3}' | sort -u > "$tmp/short"
      grep -o 'case_[0-9]*' "$tmp/planted.log" | sort -u > "$tmp/flagged"
      missed=$(comm -23 "$tmp/short" "$tmp/flagged")
      [ -z "$missed" ] || { echo "planted: not reported by memcheck:"; grep -F -w -f <(echo "$missed") "$tmp/planted.out" | head -20; }
      summary+=("planted: $(wc -l < "$tmp/short") cases given no temp storage, $(comm -12 "$tmp/short" "$tmp/flagged" | wc -l) reported by memcheck, $((SECONDS - t0)) s")
      grep -o '^short temp: case_[0-9]* [a-z_0-9]*' "$tmp/planted.out" | head -3 > "$out/cs_planted.log"
      ;;
    *) echo "sanitize.sh: memcheck, racecheck, synccheck or planted" >&2; exit 2 ;;
  esac
done
printf '%s\n' "${summary[@]}"
