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
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }

mkdir -p "$work/catalog"
cp "$build"/tests/fixture_a.* "$work/catalog"/
cat > "$work/k.cu" <<'EOF'
extern "C" __device__ void coop_block_reduce_sum_f32_t128_i4_raking(const float *, float *, void *);
extern "C" __global__ void __launch_bounds__(128) k(const float *in, float *out) {
  __shared__ __align__(16) unsigned char temp[4096];
  float a[4], s;
  for (int i = 0; i < 4; ++i) a[i] = in[threadIdx.x * 4 + i];
  coop_block_reduce_sum_f32_t128_i4_raking(a, &s, temp);
  if (threadIdx.x == 0) out[blockIdx.x] = s;
}
EOF
cat > "$work/g.cu" <<'EOF'
extern "C" __device__ void coop_block_load_f32_t32_i1_direct(const float *, float *, void *);
extern "C" __global__ void __launch_bounds__(32) g(const float *in, float *out) {
  float a[1];
  coop_block_load_f32_t32_i1_direct(in, a, 0);
  out[threadIdx.x] = a[0] * 2.0f;
}
EOF
link() { "$cooplink" link --arch sm_90 --catalog "$work/catalog" --cache-dir "$2" "$work/$1.cu" -o "$3"; }
link "k" "$work/c0" "$work/ref_k.cubin" > /dev/null 2>&1 || bad "reference link of k.cu"
link "g" "$work/c0" "$work/ref_g.cubin" > /dev/null 2>&1 || bad "reference link of g.cu (generating)"
[ $fail = 0 ] || exit 1

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
