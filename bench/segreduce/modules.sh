# The benchmark kernels' modules, for bench/segreduce/prepare.sh (every type, for the GPU machine) and
# tests/bench/zero_overhead.sh (CI). Sourced; the caller sets COOPGEN and COOPLINK (the two programs'
# paths) and ARCH (sm_XX), and runs from the repository root; BM_LINK_OPTS adds options to the links
# (--verbose: the logs name the bundles linked and each kernel's registers and stack; it also changes
# the cubins' bytes, so the benchmark's own builds go without it).
# BM_CHUNK_BYTES: the tail's chunk in bytes (262144, _segplan.CHUNK_BYTES; other sizes for bench.py's
# --variants chunk<K>k builds).
#
#   bm_symbols TC N             the symbols the reduce (sum, max) and scan kernels of one type call
#   bm_reduce TC CT N LOWEST OP CATALOG DIR
#                               DIR/cooplink.cubin: bench/segreduce/kernels.cu linked by cooplink against
#                               CATALOG; DIR/whole.cubin: the same source with the primitives' CUDA source
#                               (coopgen --print-source) in its translation unit, through the same NVRTC +
#                               nvJitLink; DIR/baselines.cubin; DIR/*.log: the links' verbose logs;
#                               DIR/nvcc.args: the -D options, for an nvcc build of the whole program
#   bm_scan TC CT N CATALOG DIR [D] [V] [DEFS...]
#                               the same for bench/scan/scan.cu (sc_block and sc_chain; no baselines), D full
#                               tiles in flight a block of sc_block (1),
#                               V 16-byte vectors a thread (2)
#   bm_nvcc SOURCE CATALOG DIR  DIR/nvcc.cubin: the whole program through nvcc

# type code, C type, items per 16-byte vector, lowest value
BM_TYPES=("f32 float 4 (-3.402823466e+38f)" "f64 double 2 (-1.7976931348623157e+308)" "i32 int 4 (-2147483647-1)")
# the scan's builds, D_V: D full tiles in flight a block (bench/scan/scan.cu SC_D) of V 16-byte vectors a thread
# (SC_N / SC_V), built as scan-<type>[-d<D>][-v<V>] (1_2: scan-<type>, the default). One tile of 4 or 8 vectors lost
# to two vectors at every length (2026-12-04, bench/scan/scan.cu's header), and so did two tiles of four (2_4,
# 2026-12-06, H100, f32: 1M 0.718 against two tiles of two's 0.848, 4096 0.847 against one tile's 0.980)
BM_SCAN_BUILDS=(1_2 2_2)
# the sources of every module (kernels.cu with the headers it includes, baselines.cu, CUB's, scan.cu): prepare.sh copies
# them to .gpubench/src, and device.sh refuses a .gpubench built from others
BM_SOURCES=(bench/segreduce/*.cu bench/segreduce/*.cuh bench/segreduce/*.h bench/scan/scan.cu)
# sr_run's (value, ends here) pair per type: a user type of the catalog (coopgen --user-type)
BM_USER_TYPES=(--user-type srpf32:8:4 --user-type srpf64:16:8 --user-type srpi32:8:4)

bm_symbols() {
  local tc=$1 n=$2 op l i=$(($2 * 2))
  for op in sum max; do  # (the reduce kernels' loads, each also as its _cs algorithm: kernels.cu SR_LOAD_CS)
    for l in 4 8 16 32; do
      echo "coop_warp_load_${tc}_w${l}_i${n}_vectorize"
      echo "coop_warp_load_guarded_${tc}_w${l}_i${n}_striped"
      echo "coop_warp_reduce_${op}_${tc}_w${l}"
    done
    echo "coop_block_load_${tc}_t256_i${n}_vectorize"
    echo "coop_block_load_guarded_${tc}_t256_i${n}_striped"
    echo "coop_block_reduce_${op}_${tc}_t256_i1_warp_reductions"
    # sr_run: four vectors a thread, the ragged end guarded and blocked, the segmented scan
    echo "coop_block_load_${tc}_t256_i$((n * 4))_vectorize"
    echo "coop_block_load_guarded_${tc}_t256_i${n}_direct"
    echo "coop_block_exclusive_scan_custom_sr${op}${tc}_prefix_srp${tc}_t256_i1_$(bm_segscan "$n")"
    # sr_wrun: four vectors a lane of a warp, the ragged end guarded and blocked, the warp's segmented scan
    echo "coop_warp_load_${tc}_w32_i$((n * 4))_vectorize"
    echo "coop_warp_load_guarded_${tc}_w32_i$((n * 4))_direct"
    echo "coop_warp_exclusive_scan_custom_sr${op}${tc}_srp${tc}_w32"
  done | sed '/_load_/{p;s/$/_cs/}'
  # scan: BlockLoad, BlockScan exclusive sum with a running prefix, BlockStore (the vectors a thread of each of
  # BM_SCAN_BUILDS)
  for i in $(for sv in "${BM_SCAN_BUILDS[@]}"; do echo $((n * ${sv#*_})); done | sort -u); do
    echo "coop_block_load_${tc}_t256_i${i}_vectorize"
    echo "coop_block_load_guarded_${tc}_t256_i${i}_direct"
    echo "coop_block_store_${tc}_t256_i${i}_vectorize"
    echo "coop_block_store_guarded_${tc}_t256_i${i}_direct"
    echo "coop_block_exclusive_scan_sum_prefix_${tc}_t256_i${i}_warp_scans"
  done
  bm_chain_symbols "$tc" "$n"
}

# the scan's chained kernel (bench/scan/scan.cu sc_chain): four vectors a thread, sr_run's segmented scan of
# (value, starts here) pairs, a warp's sum for the look-back
bm_chain_symbols() {
  local tc=$1 n=$2
  echo "coop_block_load_${tc}_t256_i$((n * 4))_vectorize"
  echo "coop_block_load_guarded_${tc}_t256_i$((n * 4))_direct"
  echo "coop_block_store_${tc}_t256_i$((n * 4))_vectorize"
  echo "coop_block_store_guarded_${tc}_t256_i$((n * 4))_direct"
  echo "coop_block_load_${tc}_t256_i$((n * 4))_warp_transpose"  # (explore builds: SC_CHAIN_IO)
  echo "coop_block_store_${tc}_t256_i$((n * 4))_warp_transpose"
  echo "coop_block_exclusive_scan_custom_srsum${tc}_prefix_srp${tc}_t256_i1_$(bm_segscan "$n")"
  echo "coop_warp_reduce_sum_${tc}_w32"
}

bm_segscan() {  # the segmented scan's algorithm by items a vector: raking for 8-byte types (sr_run: 80 registers
  [ "$1" = 2 ] && echo raking || echo warp_scans  # against warp_scans' 107, three blocks an SM; 4-byte: 64 / 58)
}

# bm_link NAME SOURCE CATALOG DIR DEFS...: cooplink.cubin and whole.cubin of SOURCE, with the wrappers of
# DIR/symbols.txt as CUDA source for the whole program
bm_link() {
  local name=$1 src=$2 cat=$3 d=$4
  shift 4
  "$COOPGEN" "${BM_USER_TYPES[@]}" --symbols "$d/symbols.txt" --arch "$ARCH" --name "$name" --print-source -o "$d/unused" \
    > "$d/wrappers.cu"
  rm -rf "$d/unused"
  local link=("$COOPLINK" link --arch "$ARCH" --catalog "$cat" --no-cache --no-generate ${BM_LINK_OPTS:-} -I "$d" -I bench/segreduce "$@")
  "${link[@]}" "$src" -o "$d/cooplink.cubin" > "$d/cooplink.log" 2>&1 || { cat "$d/cooplink.log"; return 1; }
  "${link[@]}" -I primitives -Xnvrtc '-DCOOP_WHOLE_PROGRAM="wrappers.cu"' "$src" -o "$d/whole.cubin" \
    > "$d/whole.log" 2>&1 || { cat "$d/whole.log"; return 1; }
  local a=("$@") i
  : > "$d/nvcc.args"
  for ((i = 1; i < ${#a[@]}; i += 2)); do printf '%s\n' "${a[i]}" >> "$d/nvcc.args"; done
}

bm_reduce() {  # bm_reduce TC CT N LOWEST OP CATALOG DIR [DEFS...: more -Xnvrtc -D options]
  local tc=$1 ct=$2 n=$3 lowest=$4 op=$5 cat=$6 d=$7 id up
  shift 7
  rm -rf "$d" && mkdir -p "$d"
  [ "$op" = sum ] && id="(($ct)0)" || id="$lowest"
  up=$(echo "${op}_${tc}" | tr a-z A-Z)
  bm_symbols "$tc" "$n" | grep -E "_${op}_${tc}_|_sr${op}${tc}_|load_(guarded_)?${tc}_(w[0-9]+|t256)_i(${n}|$((n * 4))_vec)|load_guarded_${tc}_w32_i$((n * 4))_direct" |
    { [[ " $* " == *" -DSR_LOAD_CS=0 "* ]] && grep -v '_cs$' || cat; } | sort -u > "$d/symbols.txt"
  local tcu
  tcu=$(echo "$tc" | tr a-z A-Z)
  local defs=(-Xnvrtc "-DSR_T=$ct" -Xnvrtc "-DSR_TC=$tc" -Xnvrtc "-DSR_TCU=$tcu" -Xnvrtc "-DSR_TC_$tcu"
              -Xnvrtc "-DOP_$(echo "$op" | tr a-z A-Z)" -Xnvrtc "-DSR_N=$n" -Xnvrtc "-DSR_N4=$((n * 4))"
              -Xnvrtc "-DSR_ID=$id" -Xnvrtc "-DSR_CHUNK=$((${BM_CHUNK_BYTES:-262144} / (n == 2 ? 8 : 4)))"
              -Xnvrtc "-DSR_WARP_MIN_BLOCKS=$((n == 2 ? 6 : 8))" -Xnvrtc "-DSR_RUN_MIN_BLOCKS=$((n == 2 ? 3 : 4))"
              -Xnvrtc "-DSR_WRUN_MIN_BLOCKS=$((n == 2 ? 2 : 3))")  # (sr_wrun: float64 spilled 24-48 bytes under 3)
  # sr_block's bound: 6 blocks an SM for 8-byte types (their ld.cs tiles spilled 8 bytes under 8's 32 registers;
  # 40 registers, no stack), unless the build sets its own
  [[ " $* " == *" -DSR_BLOCK_MIN_BLOCKS="* ]] || defs+=(-Xnvrtc "-DSR_BLOCK_MIN_BLOCKS=$((n == 2 ? 6 : 8))")
  defs+=(-Xnvrtc "-DBRED_TEMP_BYTES=COOP_BLOCK_REDUCE_${up}_T256_I1_WARP_REDUCTIONS_TEMP_BYTES" "$@")
  if [ "$n" = 2 ]; then  # sr_run's segmented scan (bm_symbols)
    defs+=(-Xnvrtc -DSR_RUN_SCAN=raking -Xnvrtc -DSR_RUN_SCANU=RAKING)
  fi
  bm_link segreduce bench/segreduce/kernels.cu "$cat" "$d" "${defs[@]}"
  "$COOPLINK" link --arch "$ARCH" --no-cache --no-generate "${defs[@]}" bench/segreduce/baselines.cu \
    -o "$d/baselines.cubin"
}

bm_scan() {  # bm_scan TC CT N CATALOG DIR [D (1)] [VECTORS A THREAD (2)] [DEFS...: more -Xnvrtc -D options]
  local tc=$1 ct=$2 n=$3 cat=$4 d=$5 sd=${6:-1} i=$(($3 * ${7:-2})) up
  shift $(($# < 7 ? $# : 7))
  rm -rf "$d" && mkdir -p "$d"
  up=$(echo "$tc" | tr a-z A-Z)
  # (sc_chain's symbols in every build: scan.cu declares its pair's operator whatever SC_D is)
  { bm_symbols "$tc" "$n" | grep -E "_${tc}_t256_i${i}_"; bm_chain_symbols "$tc" "$n"; } |
    sort -u > "$d/symbols.txt"
  echo '#include "segreduce.h"' > "$d/scan.h"  # (scan.cu includes scan.h; the catalog's header is segreduce.h)
  local alg
  alg=$(bm_segscan "$n")
  bm_link scan bench/scan/scan.cu "$cat" "$d" -Xnvrtc "-DSC_T=$ct" -Xnvrtc "-DSC_TC=$tc" -Xnvrtc "-DSC_N=$i" \
    -Xnvrtc "-DSC_V=$n" -Xnvrtc "-DSC_D=$sd" -Xnvrtc "-DSC_N4=$((n * 4))" -Xnvrtc "-DSC_TCU=$up" -Xnvrtc "-DSC_TC_$up" \
    -Xnvrtc "-DSC_SEGSCAN=$alg" \
    -Xnvrtc "-DSC_SEGSCANU=$(echo "$alg" | tr a-z A-Z)" \
    -Xnvrtc "-DSCAN_TEMP_BYTES=COOP_BLOCK_EXCLUSIVE_SCAN_SUM_PREFIX_${up}_T256_I${i}_WARP_SCANS_TEMP_BYTES" "$@"
}

bm_nvcc() {
  local src=$1 cat=$2 d=$3 args
  mapfile -t args < "$d/nvcc.args"
  nvcc -cubin -arch="$ARCH" -O3 -std=c++17 -I "$cat" -I primitives -I "$d" -I bench/segreduce "${args[@]}" \
    '-DCOOP_WHOLE_PROGRAM="wrappers.cu"' "$src" -o "$d/nvcc.cubin"
}
