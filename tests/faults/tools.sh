#!/usr/bin/env bash
# NVRTC and nvJitLink failing (tests/faults/toolfault.c, preloaded): every call a link or a generation makes
# to them fails in turn (the N-th call of each function, for every N the clean run reached). Each run must
# either fail with its documented code (COOP_ERROR_NVRTC for NVRTC, COOP_ERROR_NVJITLINK for nvJitLink,
# COOP_ERROR_TOOLKIT where the toolkit's version or archs cannot be read) and no crash, or, where the
# call's failure costs nothing but a log, succeed with the reference bytes; and the cache it leaves must
# give the reference bytes to a clean link after it.
#   bash tests/faults/tools.sh BUILD_DIR SOURCE_DIR LIBTOOLFAULT
set -uo pipefail
build=$(realpath "$1")
shim=$(realpath "$3")
cooplink=$build/cooplink
coopgen=$build/coopgen
. "$(dirname "$0")/common.sh"

for k in k g; do
  rm -rf "$work/cc"
  LD_PRELOAD=$shim TOOLFAULT_CALLS=$work/calls link "$k" "$work/cc" "$work/x.cubin" > /dev/null 2>&1 ||
    bad "$k: the counting run failed"
  runs=0 failed=0 benign=0
  while read -r fn calls; do
    for ((n = 1; n <= calls; ++n)); do
      c=$work/c_$runs
      LD_PRELOAD=$shim TOOLFAULT=$fn:$n link "$k" "$c" "$work/x.cubin" > "$work/log" 2>&1
      st=$?
      runs=$((runs + 1))
      case $fn in nvrtc*) want='COOP_ERROR_NVRTC|COOP_ERROR_TOOLKIT' ;; *) want='COOP_ERROR_NVJITLINK|COOP_ERROR_TOOLKIT' ;; esac
      if [ $st = 0 ]; then
        benign=$((benign + 1))
        cmp -s "$work/x.cubin" "$work/ref_$k.cubin" || bad "$k, $fn call $n failing: success with a wrong cubin"
      elif [ $st -ge 128 ]; then
        bad "$k, $fn call $n failing: crashed ($st)"
      elif grep -qE "$want" "$work/log"; then
        failed=$((failed + 1))
      else
        bad "$k, $fn call $n failing: exit $st without $want: $(tail -2 "$work/log" | tr '\n' ' ')"
      fi
      link "$k" "$c" "$work/after.cubin" > /dev/null 2>&1 && cmp -s "$work/after.cubin" "$work/ref_$k.cubin" ||
        bad "$k, after $fn call $n failed: the clean link with that cache failed or differs"
      rm -rf "$c"
    done
  done < "$work/calls"
  echo "tool failures: $k.cu link$( [ $k = g ] && echo ' (generating)'): $runs calls failed in turn: $failed gave their code, $benign succeeded with the reference bytes"
done

# coopgen: every NVRTC call of a generation failing in turn
cat > "$work/spec.json" <<'EOF'
{"name": "tools", "arch": ["sm_90"], "generate": [
  {"family": "block_reduce", "type": "f32", "op": "sum", "threads": 128, "items": 4, "algorithm": "raking"}]}
EOF
LD_PRELOAD=$shim TOOLFAULT_CALLS=$work/calls "$coopgen" --spec "$work/spec.json" -o "$work/g0" > /dev/null 2>&1 ||
  bad "coopgen: the counting run failed"
runs=0
while read -r fn calls; do
  for ((n = 1; n <= calls; ++n)); do
    LD_PRELOAD=$shim TOOLFAULT=$fn:$n "$coopgen" --spec "$work/spec.json" -o "$work/g" > "$work/log" 2>&1
    st=$?
    runs=$((runs + 1))
    if [ $st = 0 ]; then
      "$cooplink" catalog verify "$work/g" > /dev/null 2>&1 || bad "coopgen, $fn call $n failing: success, but no valid bundle"
    elif [ $st -ge 128 ]; then
      bad "coopgen, $fn call $n failing: crashed ($st)"
    elif ! grep -qE 'COOP_ERROR_NVRTC|COOP_ERROR_TOOLKIT' "$work/log"; then
      bad "coopgen, $fn call $n failing: exit $st without its code: $(tail -2 "$work/log" | tr '\n' ' ')"
    elif ls "$work/g"/*.json > /dev/null 2>&1; then
      bad "coopgen, $fn call $n failing: a manifest was written"
    fi
    rm -rf "$work/g"
  done
done < "$work/calls"
echo "tool failures: coopgen: $runs NVRTC calls failed in turn, each refused with its code and no bundle"
[ $fail = 0 ] && echo "tools: all handled" || echo "tools: FAILED"
exit $fail
