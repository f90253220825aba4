#!/usr/bin/env bash
# File-system faults under the cache and output folders of the cooplink and coopgen commands
# (tests/faults/fsfault.c, preloaded), each followed by a clean run that must give the right bytes:
#   1. a link's cache entry: the process killed at each of its changing file operations in turn;
#   2. a link that generates a missing symbol into the cache (a bundle, then the cache entry): the same;
#   3. coopgen writing a catalog: the same; then `cooplink catalog verify` may refuse it but not crash (what
#      it accepts, a link must use right or name the symbol missing), and coopgen run again into the same
#      folder makes a catalog that verifies;
#   4. a full disk (every write from the N-th on fails with ENOSPC), for each N: the link still succeeds
#      without caching, or a generating link fails naming the problem; no temporary file is left behind;
#   5. a read-only cache folder (EROFS): a clear error, and --no-cache works.
# Nothing half-written may ever be used: every clean run after a fault is compared byte for byte with a
# reference link made without faults.
#   bash tests/faults/run.sh BUILD_DIR SOURCE_DIR LIBFSFAULT
set -uo pipefail
build=$(realpath "$1")
src=$(realpath "$2")
shim=$(realpath "$3")
cooplink=$build/cooplink
coopgen=$build/coopgen
. "$(dirname "$0")/common.sh"
faulty() { # faulty DIR FAULT COMMAND...: COMMAND with the shim, faults under DIR; its status
  local d=$1 f=$2
  shift 2
  LD_PRELOAD=$shim FSFAULT_DIR=$d FSFAULT=$f FSFAULT_COUNT=$work/count "$@"
}
ops_of() { # ops_of DIR COMMAND...: the changing operations COMMAND makes under DIR, without faults
  local d=$1
  shift
  LD_PRELOAD=$shim FSFAULT_DIR=$d FSFAULT_COUNT=$work/count "$@" > /dev/null 2>&1 || { echo 0; return; }
  cat "$work/count"
}
leftovers() { find "$1" -name '.*.tmp.*' -o -name '*.tmp[0-9]*' | head -3; }

# 1, 2: killed at every changing operation under the cache, then a clean link
for k in k g; do
  mkdir -p "$work/count_c"
  total=$(ops_of "$work/count_c" link "$k" "$work/count_c" "$work/x.cubin")
  rm -rf "$work/count_c"
  [ "$total" -gt 3 ] || bad "$k: only $total changing operations counted"
  kills=0
  for ((n = 1; n <= total; ++n)); do
    c=$work/c_${k}_$n
    mkdir -p "$c"
    faulty "$c" "kill:$n" link "$k" "$c" "$work/x.cubin" > /dev/null 2>&1
    st=$?
    [ $st = 137 ] && kills=$((kills + 1)) || bad "$k, kill at operation $n of $total: exit $st, not killed"
    if ! link "$k" "$c" "$work/after.cubin" > "$work/after.log" 2>&1; then
      bad "$k, after a kill at operation $n: the clean link failed: $(tail -2 "$work/after.log")"
    elif ! cmp -s "$work/after.cubin" "$work/ref_$k.cubin"; then
      bad "$k, after a kill at operation $n: the cubin differs from the reference"
    fi
    rm -rf "$c"
  done
  echo "killed: $k.cu link ($( [ $k = g ] && echo 'generating a bundle, ' )cache entry): $kills of $total operations, each followed by a clean link with the reference bytes"
done

# 3: coopgen writing a catalog
cat > "$work/spec.json" <<'EOF'
{"name": "faults", "arch": ["sm_90"], "generate": [
  {"family": "block_reduce", "type": "f32", "op": "sum", "threads": 128, "items": 4, "algorithm": "raking"}]}
EOF
gen() { "$coopgen" --spec "$work/spec.json" --catalog -o "$1"; }
mkdir -p "$work/gcount"
total=$(ops_of "$work/gcount" gen "$work/gcount/out")
[ "$total" -gt 3 ] || bad "coopgen: only $total changing operations counted"
kills=0
for ((n = 1; n <= total; ++n)); do
  d=$work/gen_$n
  mkdir -p "$d"
  faulty "$d" "kill:$n" gen "$d/out" > /dev/null 2>&1
  st=$?
  [ $st = 137 ] && kills=$((kills + 1)) || bad "coopgen, kill at operation $n of $total: exit $st"
  "$cooplink" catalog verify "$d/out" > "$work/v.log" 2>&1
  st=$?
  [ $st -lt 128 ] || bad "coopgen, kill at operation $n: verify of what was left crashed ($st)"
  if [ $st = 0 ]; then # accepted (the whole bundles written so far, read manifest by manifest before
    # catalog.json exists): a link against it gives the reference bytes or names the symbol not yet there
    if "$cooplink" link --arch sm_90 --catalog "$d/out" --no-cache --no-generate "$work/k.cu" -o "$work/v.cubin" \
      > "$work/v.log" 2>&1; then
      cmp -s "$work/v.cubin" "$work/ref_k.cubin" || bad "coopgen, kill at operation $n: a link against what was left differs"
    else
      grep -q COOP_ERROR_SYMBOL_MISSING "$work/v.log" ||
        bad "coopgen, kill at operation $n: a link against what was left failed: $(tail -1 "$work/v.log")"
    fi
  fi
  gen "$d/out" > /dev/null 2>&1 || bad "coopgen, after a kill at operation $n: the clean run failed"
  "$cooplink" catalog verify "$d/out" > /dev/null 2>&1 || bad "coopgen, after a kill at operation $n: no valid catalog"
  rm -rf "$d"
done
echo "killed: coopgen --catalog: $kills of $total operations, each followed by verify (no crash) and a clean run"

# 4: a full disk from the N-th write on
for k in k g; do
  mkdir -p "$work/wc"
  LD_PRELOAD=$shim FSFAULT_DIR=$work/wc FSFAULT=enospc:1000000 FSFAULT_COUNT=$work/count \
    link "$k" "$work/wc" "$work/x.cubin" > /dev/null 2>&1
  rm -rf "$work/wc"
  total=$(cat "$work/count")
  for ((n = 1; n <= total; ++n)); do
    c=$work/full_$n
    mkdir -p "$c"
    faulty "$c" "enospc:$n" link "$k" "$c" "$work/x.cubin" > "$work/full.log" 2>&1
    st=$?
    if [ $st = 0 ]; then
      cmp -s "$work/x.cubin" "$work/ref_$k.cubin" || bad "$k, disk full at write $n: a wrong cubin"
    elif [ $k = g ]; then
      grep -q "cannot write\|could not\|cannot" "$work/full.log" ||
        bad "$k, disk full at write $n: failed without naming the problem: $(tail -2 "$work/full.log")"
    else
      bad "$k, disk full at write $n: the link failed although only the cache could not be written"
    fi
    [ $st -lt 128 ] || bad "$k, disk full at write $n: crashed ($st)"
    [ -z "$(leftovers "$c")" ] || bad "$k, disk full at write $n: temporary files left: $(leftovers "$c")"
    link "$k" "$c" "$work/after.cubin" > /dev/null 2>&1 && cmp -s "$work/after.cubin" "$work/ref_$k.cubin" ||
      bad "$k, after a full disk at write $n: the clean link failed or differs"
    rm -rf "$c"
  done
  echo "disk full: $k.cu link, at each of its $total writes under the cache: handled, nothing left behind"
done

# 5: a read-only cache folder
mkdir -p "$work/ro"
faulty "$work/ro" erofs link k "$work/ro" "$work/x.cubin" > "$work/ro.log" 2>&1
st=$?
[ $st != 0 ] && [ $st -lt 128 ] && grep -q "cache folder cannot be created or written" "$work/ro.log" ||
  bad "read-only cache: exit $st, $(tail -2 "$work/ro.log")"
faulty "$work/ro" erofs link k "$work/ro" "$work/x.cubin" --no-cache > /dev/null 2>&1 &&
  cmp -s "$work/x.cubin" "$work/ref_k.cubin" || bad "read-only cache: --no-cache did not link"
echo "read-only cache folder: refused with the folder named; --no-cache links"
[ $fail = 0 ] && echo "faults: all handled" || echo "faults: FAILED"
exit $fail
