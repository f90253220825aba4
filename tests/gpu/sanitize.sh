#!/usr/bin/env bash
# On the GPU machine (device tool), after tests/gpu/prepare.sh here (carry build/tests/gpu_suite, .deps,
# .gpuwork): the C GPU suite under compute-sanitizer, and the check that it would see a primitive step
# outside its temp storage.
#   bash tests/gpu/sanitize.sh [memcheck] [racecheck] [synccheck] [planted]     (none named: all four)
#     memcheck, racecheck, synccheck: the whole suite under that tool; 0 errors and every case passing
#     planted: the cases _f32_t128_ (prepare.sh builds them into .gpuwork/planted: a filter changes the
#              bundles) launched with no dynamic shared memory at all (--short-temp): every case whose
#              primitive has temp storage must be reported by memcheck
# The parts run at once, each tool's suite split into SANITIZE_SLICES processes (default 4, gpu_suite
# --slice; the sanitizer's cost is mostly on the CPU), each under SANITIZE_TIMEOUT seconds (default 540).
# Each tool's log is $OUT/cs_<tool>.log (the summaries and the first reports); a line per part ends the output.
# SUITE_ARGS: the gpu_suite options prepare.sh was given (e.g. "--filter coop_warp_load_": the prebuilt
# cases are those of the same options).
set -uo pipefail
cd "$(dirname "$0")/../.."
export LD_LIBRARY_PATH="$PWD/.deps/lib:/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
out=${OUT:-/tmp}
tmp=$(mktemp -d)
parts=${*:-memcheck racecheck synccheck planted}
slices=${SANITIZE_SLICES:-4}
limit=${SANITIZE_TIMEOUT:-540}
t0=$SECONDS
for part in $parts; do
  case $part in
    memcheck | racecheck | synccheck)
      for ((k = 0; k < slices; ++k)); do
        (
          s0=$SECONDS
          timeout "$limit" compute-sanitizer --tool "$part" --error-exitcode 99 --print-limit 50 \
            --log-file "$tmp/$part.$k.log" build/tests/gpu_suite --jobs 2 --prebuilt .gpuwork ${SUITE_ARGS:-} --slice "$k/$slices" \
            > "$tmp/$part.$k.out" 2>&1
          echo "$? $((SECONDS - s0))" > "$tmp/$part.$k.rc"
        ) &
      done
      ;;
    planted)
      # a case a process: memcheck's first error in a kernel ends what the process can launch
      (
        cat .gpuwork/planted/*.temp | wc -l > "$tmp/planted.count"
        seq 0 $(($(cat "$tmp/planted.count") - 1)) | xargs -P 4 -I{} sh -c \
          'compute-sanitizer --tool memcheck --print-limit 10 --show-backtrace no --log-file "$1/planted.$2.log" \
             build/tests/gpu_suite --jobs 1 --prebuilt .gpuwork/planted --filter _f32_t128_ --only "$2" \
             --short-temp 100000000 > "$1/planted.$2.out" 2>&1' _ "$tmp" {}
        echo "$? $((SECONDS - t0))" > "$tmp/planted.rc"
      ) &
      ;;
    *) echo "sanitize.sh: memcheck, racecheck, synccheck or planted" >&2; exit 2 ;;
  esac
done
wait
# A tool's errors: memcheck and synccheck end with "ERROR SUMMARY: N errors", racecheck with
# "RACECHECK SUMMARY: H hazards displayed (E errors, W warnings)"; both read from every slice's log.
count() {
  cat "$@" 2>/dev/null | awk '
    /ERROR SUMMARY: [0-9]+ error/ { for (i = 1; i <= NF; ++i) if ($i == "SUMMARY:") e += $(i + 1) }
    /RACECHECK SUMMARY:/ { match($0, /\(([0-9]+) error/); if (RSTART) { s = substr($0, RSTART + 1); e += s + 0 }
                           match($0, /, ([0-9]+) warning/); if (RSTART) { s = substr($0, RSTART + 2); w += s + 0 } }
    END { printf "%d errors, %d warnings\n", e, w }'
}
summary=()
for part in $parts; do
  case $part in
    memcheck | racecheck | synccheck)
      passed=0 failed=0 rcs="" longest=0 summaries=0
      for ((k = 0; k < slices; ++k)); do
        read -r rc secs < "$tmp/$part.$k.rc"
        rcs+="$rc "
        ((secs > longest)) && longest=$secs
        line=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$tmp/$part.$k.out" | tail -n 1)
        passed=$((passed + ${line%% passed*}))
        failed=$((failed + $(echo "${line:-0 passed, 1 failed}" | awk '{print $3}')))
        grep -q 'SUMMARY:' "$tmp/$part.$k.log" && summaries=$((summaries + 1))
      done
      { grep -h 'SUMMARY:' "$tmp/$part".*.log; grep -h -m 20 -v 'SUMMARY:' "$tmp/$part".*.log; } > "$out/cs_$part.log"
      summary+=("$part: $((passed + failed)) cases in $slices processes, $passed passed, $failed failed; exit codes $rcs; \
$summaries of $slices sanitizer summaries, $(count "$tmp/$part".*.log); $longest s")
      ;;
    planted)
      read -r rc secs < "$tmp/planted.rc"
      cat "$tmp"/planted.*.out > "$tmp/planted.out"
      cat "$tmp"/planted.*.log > "$tmp/planted.log"
      grep -o '^short temp: case_[0-9]*' "$tmp/planted.out" | awk '{print $3}' | sort -u > "$tmp/short"
      grep -o 'case_[0-9]*' "$tmp/planted.log" | sort -u > "$tmp/flagged"
      missed=$(comm -23 "$tmp/short" "$tmp/flagged")
      [ -z "$missed" ] || { echo "planted: not reported by memcheck:"; grep -F -w -f <(echo "$missed") "$tmp/planted.out" | head -20; }
      summary+=("planted: $(cat "$tmp/planted.count") cases, $(wc -l < "$tmp/short") given no temp storage (all they need), \
$(comm -12 "$tmp/short" "$tmp/flagged" | wc -l) reported by memcheck, $secs s")
      { grep -h '^short temp: case_[0-9]* [a-z_0-9]*' "$tmp/planted.out" | head -3
        grep -h -A3 'Invalid __shared__' "$tmp/planted.log" | head -8; } > "$out/cs_planted.log"
      ;;
  esac
done
printf '%s\n' "${summary[@]}"
