#!/usr/bin/env bash
# The benchmarks' zero-overhead claim, checked without a GPU: bench/segreduce/kernels.cu (sum and max)
# and bench/scan/scan.cu (sc_block, sc_chain; the cluster and widet builds) for float32, linked by cooplink against a catalog of their primitives, give
# cubins byte-identical to the same sources with the primitives' CUDA source in their translation unit
# (one NVRTC program, the same nvJitLink link); the cooplink link added the primitives' bundles (the
# whole program none), and every kernel of both has a 0-byte stack frame and no spills.
#
#   bash tests/bench/zero_overhead.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$(cd "$1" && pwd)
cd "$2"
COOPGEN=$build/coopgen
COOPLINK=$build/cooplink
ARCH=sm_90
BM_LINK_OPTS=--verbose
. bench/segreduce/modules.sh
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
bm_symbols f32 4 | sort -u > "$work/symbols.txt"
"$COOPGEN" "${BM_USER_TYPES[@]}" --symbols "$work/symbols.txt" --catalog --arch "$ARCH" --name segreduce -o "$work/catalog" | tail -1
fail=0
check() {  # check NAME DIR KERNELS
  local name=$1 d=$2 kernels=$3 added
  if ! cmp -s "$d/cooplink.cubin" "$d/whole.cubin"; then
    echo "FAIL $name: the cooplink-linked cubin differs from the whole program's"
    fail=1
  fi
  added=$(sed -n 's/.*bundles added (\([0-9]*\)).*/\1/p' "$d/cooplink.log")
  if [ "${added:-0}" -lt 1 ] || ! grep -q 'bundles added (0)' "$d/whole.log"; then
    echo "FAIL $name: bundles added: cooplink ${added:-none}, whole program $(grep -o 'bundles added ([0-9]*)' "$d/whole.log")"
    fail=1
  fi
  local n
  n=$(grep -c ': [0-9]* registers, 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads' "$d/cooplink.log" || true)
  if [ "$n" -ne "$kernels" ]; then
    echo "FAIL $name: $n of $kernels kernels without stack or spills:"
    grep 'registers' "$d/cooplink.log"
    fail=1
  fi
  if [ $fail = 0 ]; then echo "ok $name: byte-identical cubins ($(stat -c %s "$d/cooplink.cubin") bytes), $added bundles linked, $n kernels without stack or spills"; fi
}
for op in sum max; do
  bm_reduce f32 float 4 '(-3.402823466e+38f)' "$op" "$work/catalog" "$work/$op"
  check "segreduce f32 $op" "$work/$op" 14  # sr_block, sr_run, sr_wrun, sr_warp{4,8,16,32}{,u}, sr_warp{8,16,32}t
done
bm_scan f32 float 4 "$work/catalog" "$work/scan"
check "scan f32" "$work/scan" 3  # sc_block, sc_chain, copy_bw
# the launcher's other builds: sc_block on clusters of two blocks a segment (long segments), the chain with the
# wide look-back and warp_transpose loads and stores (short segments, 4-byte types)
bm_scan f32 float 4 "$work/catalog" "$work/scan-c2" 2 2 -Xnvrtc -DSC_CLUSTER=2
check "scan f32 c2" "$work/scan-c2" 2  # sc_block (clusters), copy_bw
bm_scan f32 float 4 "$work/catalog" "$work/scan-widet" 1 2 -Xnvrtc -DSC_CHAIN_FAST=2 \
  -Xnvrtc -DSC_CHAIN_IO=warp_transpose -Xnvrtc -DSC_CHAIN_IOU=WARP_TRANSPOSE
check "scan f32 widet" "$work/scan-widet" 3
exit $fail
