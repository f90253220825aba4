/* The temp sizes the generator records (probed from CUB inside NVRTC) equal what nvcc's host compiler
 * gives for sizeof/alignof of the same CUB TempStorage types, odd shapes included. The CUB types are
 * spelled out here independently of the primitives templates. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../support/lto.h"
#include "util.h"

typedef struct probe {
  coop_gen_group group; /* one symbol */
  const char *symbol;
  const char *cub_type; /* the TempStorage type as a CUB user writes it */
  int empty;            /* CUB's TempStorage is empty: reported as 0 bytes */
} probe;

static const probe PROBES[] = {
  {{"block_load", "f64", NULL, "7", "3", "transpose", "plain"}, "coop_block_load_f64_t7_i3_transpose",
   "cub::BlockLoad<double, 7, 3, cub::BLOCK_LOAD_TRANSPOSE, 1, 1>::TempStorage", 0},
  {{"block_load", "i8", NULL, "32x2", "16", "warp_transpose", "plain"}, "coop_block_load_i8_t32x2x1_i16_warp_transpose",
   "cub::BlockLoad<signed char, 32, 16, cub::BLOCK_LOAD_WARP_TRANSPOSE, 2, 1>::TempStorage", 0},
  {{"block_load", "f16", NULL, "65", "4", "direct", "guarded"}, "coop_block_load_guarded_f16_t65_i4_direct",
   "cub::BlockLoad<__half, 65, 4, cub::BLOCK_LOAD_DIRECT, 1, 1>::TempStorage", 1},
  {{"block_load", "u16", NULL, "5x3x2", "1", "striped", "plain"}, "coop_block_load_u16_t5x3x2_i1_striped",
   "cub::BlockLoad<unsigned short, 5, 1, cub::BLOCK_LOAD_STRIPED, 3, 2>::TempStorage", 1},
  {{"block_store", "f16", NULL, "65", "3", "transpose", "plain"}, "coop_block_store_f16_t65_i3_transpose",
   "cub::BlockStore<__half, 65, 3, cub::BLOCK_STORE_TRANSPOSE, 1, 1>::TempStorage", 0},
  {{"block_store", "u64", NULL, "96", "5", "warp_transpose_ts", "guarded"},
   "coop_block_store_guarded_u64_t96_i5_warp_transpose_ts",
   "cub::BlockStore<unsigned long long, 96, 5, cub::BLOCK_STORE_WARP_TRANSPOSE_TIMESLICED, 1, 1>::TempStorage", 0},
  {{"block_store", "bf16", NULL, "1", "32", "vectorize", "plain"}, "coop_block_store_bf16_t1_i32_vectorize",
   "cub::BlockStore<__nv_bfloat16, 1, 32, cub::BLOCK_STORE_VECTORIZE, 1, 1>::TempStorage", 1},
  {{"block_reduce", "i8", "min", "7", "1", "raking", "full"}, "coop_block_reduce_min_i8_t7_i1_raking",
   "cub::BlockReduce<signed char, 7, cub::BLOCK_REDUCE_RAKING, 1, 1>::TempStorage", 0},
  {{"block_reduce", "bf16", "sum", "65", "3", "raking_comm", "full"}, "coop_block_reduce_sum_bf16_t65_i3_raking_comm",
   "cub::BlockReduce<__nv_bfloat16, 65, cub::BLOCK_REDUCE_RAKING_COMMUTATIVE_ONLY, 1, 1>::TempStorage", 0},
  {{"block_reduce", "f64", "max", "1", "4", "warp_reductions", "partial"},
   "coop_block_reduce_max_partial_f64_t1_i1_warp_reductions",
   "cub::BlockReduce<double, 1, cub::BLOCK_REDUCE_WARP_REDUCTIONS, 1, 1>::TempStorage", 0},
  {{"block_reduce", "u32", "xor", "8x4x2", "2", "raking_comm", "full"}, "coop_block_reduce_xor_u32_t8x4x2_i2_raking_comm",
   "cub::BlockReduce<unsigned int, 8, cub::BLOCK_REDUCE_RAKING_COMMUTATIVE_ONLY, 4, 2>::TempStorage", 0},
  {{"block_scan", "u16", "sum", "7x3", "3", "raking", "exclusive"}, "coop_block_exclusive_scan_sum_u16_t7x3x1_i3_raking",
   "cub::BlockScan<unsigned short, 7, cub::BLOCK_SCAN_RAKING, 3, 1>::TempStorage", 0},
  {{"block_scan", "i64", "prod", "65", "1", "raking_memoize", "inclusive_prefix"},
   "coop_block_inclusive_scan_prod_prefix_i64_t65_i1_raking_memoize",
   "cub::BlockScan<long long, 65, cub::BLOCK_SCAN_RAKING_MEMOIZE, 1, 1>::TempStorage", 0},
  {{"block_scan", "f32", "max", "5x3x2", "16", "warp_scans", "inclusive"}, "coop_block_inclusive_scan_max_f32_t5x3x2_i16_warp_scans",
   "cub::BlockScan<float, 5, cub::BLOCK_SCAN_WARP_SCANS, 3, 2>::TempStorage", 0},
  {{"block_scan", "f16", "min", "1024", "1", "warp_scans", "exclusive"}, "coop_block_exclusive_scan_min_f16_t1024_i1_warp_scans",
   "cub::BlockScan<__half, 1024, cub::BLOCK_SCAN_WARP_SCANS, 1, 1>::TempStorage", 0},
  /* warp families: shuffles (empty storage) for a power-of-two warp, shared memory otherwise */
  {{"warp_reduce", "f64", "sum", NULL, NULL, NULL, "full", "7"}, "coop_warp_reduce_sum_f64_w7",
   "cub::WarpReduce<double, 7>::TempStorage", 0},
  {{"warp_reduce", "i8", "max", NULL, NULL, NULL, "partial", "31"}, "coop_warp_reduce_max_partial_i8_w31",
   "cub::WarpReduce<signed char, 31>::TempStorage", 0},
  {{"warp_reduce", "f32", "min", NULL, NULL, NULL, "full", "8"}, "coop_warp_reduce_min_f32_w8",
   "cub::WarpReduce<float, 8>::TempStorage", 1},
  {{"warp_scan", "u16", "sum", NULL, NULL, NULL, "inclusive", "12"}, "coop_warp_inclusive_scan_sum_u16_w12",
   "cub::WarpScan<unsigned short, 12>::TempStorage", 0},
  {{"warp_scan", "bf16", "max", NULL, NULL, NULL, "exclusive", "3"}, "coop_warp_exclusive_scan_max_bf16_w3",
   "cub::WarpScan<__nv_bfloat16, 3>::TempStorage", 0},
  {{"warp_scan", "f64", "sum", NULL, NULL, NULL, "exclusive", "32"}, "coop_warp_exclusive_scan_sum_f64_w32",
   "cub::WarpScan<double, 32>::TempStorage", 1},
  /* user types (declared in USER_TYPES, spelled out in the host program as opaque aligned bytes) */
  {{"block_reduce", "rgb", "custom:rgb_mix", "65", "3", "raking", "full"}, "coop_block_reduce_custom_rgb_mix_rgb_t65_i3_raking",
   "cub::BlockReduce<rgb, 65, cub::BLOCK_REDUCE_RAKING, 1, 1>::TempStorage", 0},
  {{"block_scan", "mat2", "custom:matmul", "7x3", "2", "warp_scans", "exclusive"},
   "coop_block_exclusive_scan_custom_matmul_mat2_t7x3x1_i2_warp_scans",
   "cub::BlockScan<mat2, 7, cub::BLOCK_SCAN_WARP_SCANS, 3, 1>::TempStorage", 0},
  {{"block_load", "mat2", NULL, "32x2", "3", "warp_transpose", "plain"}, "coop_block_load_mat2_t32x2x1_i3_warp_transpose",
   "cub::BlockLoad<mat2, 32, 3, cub::BLOCK_LOAD_WARP_TRANSPOSE, 2, 1>::TempStorage", 0},
  {{"warp_scan", "big", "custom:big_op", NULL, NULL, NULL, "inclusive", "12"}, "coop_warp_inclusive_scan_custom_big_op_big_w12",
   "cub::WarpScan<big, 12>::TempStorage", 0},
  {{"warp_reduce", "rgb", "custom:rgb_mix", NULL, NULL, NULL, "full", "5"}, "coop_warp_reduce_custom_rgb_mix_rgb_w5",
   "cub::WarpReduce<rgb, 5>::TempStorage", 0},
  {{"warp_reduce", "big", "custom:big_op", NULL, NULL, NULL, "full", "16"}, "coop_warp_reduce_custom_big_op_big_w16",
   "cub::WarpReduce<big, 16>::TempStorage", 1},
  /* warp load, store, exchange: odd item counts, several lane counts */
  {{"warp_load", "f64", NULL, NULL, "3", "transpose", "plain", "16"}, "coop_warp_load_f64_w16_i3_transpose",
   "cub::WarpLoad<double, 3, cub::WARP_LOAD_TRANSPOSE, 16>::TempStorage", 0},
  {{"warp_load", "i8", NULL, NULL, "5", "striped", "guarded", "4"}, "coop_warp_load_guarded_i8_w4_i5_striped",
   "cub::WarpLoad<signed char, 5, cub::WARP_LOAD_STRIPED, 4>::TempStorage", 1},
  {{"warp_store", "u16", NULL, NULL, "7", "transpose", "plain", "32"}, "coop_warp_store_u16_w32_i7_transpose",
   "cub::WarpStore<unsigned short, 7, cub::WARP_STORE_TRANSPOSE, 32>::TempStorage", 0},
  {{"warp_store", "f16", NULL, NULL, "2", "vectorize", "guarded", "2"}, "coop_warp_store_guarded_f16_w2_i2_vectorize",
   "cub::WarpStore<__half, 2, cub::WARP_STORE_VECTORIZE, 2>::TempStorage", 1},
  {{"warp_exchange", "mat2", NULL, NULL, "3", "smem", "scatter_to_striped", "8"},
   "coop_warp_exchange_scatter_to_striped_mat2_w8_i3_smem",
   "cub::WarpExchange<mat2, 3, 8, cub::WARP_EXCHANGE_SMEM>::TempStorage", 0},
  {{"warp_exchange", "u64", NULL, NULL, "16", "shuffle", "blocked_to_striped", "16"},
   "coop_warp_exchange_blocked_to_striped_u64_w16_i16_shuffle",
   "cub::WarpExchange<unsigned long long, 16, 16, cub::WARP_EXCHANGE_SHUFFLE>::TempStorage", 1},
  /* warp merge sort: keys, pairs (a value type, a user type) */
  {{"warp_merge_sort", "f64", "less", NULL, "3", NULL, "keys", "16"}, "coop_warp_merge_sort_keys_less_f64_w16_i3",
   "cub::WarpMergeSort<double, 3, 16>::TempStorage", 0},
  {{"warp_merge_sort", "u8", "greater", NULL, "5", NULL, "pairs_guarded", "4", "rgb"},
   "coop_warp_merge_sort_pairs_guarded_greater_u8_rgb_w4_i5",
   "cub::WarpMergeSort<unsigned char, 5, 4, rgb>::TempStorage", 0},
  /* block exchange: time slicing, padding (8 items), one thread, 3-D; block merge sort: keys, pairs, user keys */
  {{"block_exchange", "f64", NULL, "65", "3", "smem_ts", "scatter_to_blocked"},
   "coop_block_exchange_scatter_to_blocked_f64_t65_i3_smem_ts", "cub::BlockExchange<double, 65, 3, true, 1, 1>::TempStorage", 0},
  {{"block_exchange", "mat2", NULL, "7x3", "8", "smem", "striped_to_blocked"},
   "coop_block_exchange_striped_to_blocked_mat2_t7x3x1_i8_smem", "cub::BlockExchange<mat2, 7, 8, false, 3, 1>::TempStorage", 0},
  {{"block_exchange", "i8", NULL, "1", "1", "smem", "warp_striped_to_blocked"},
   "coop_block_exchange_warp_striped_to_blocked_i8_t1_i1_smem", "cub::BlockExchange<signed char, 1, 1, false, 1, 1>::TempStorage",
   0},
  {{"block_exchange", "u16", NULL, "16x4x2", "16", "smem", "scatter_to_striped_flagged"},
   "coop_block_exchange_scatter_to_striped_flagged_u16_t16x4x2_i16_smem",
   "cub::BlockExchange<unsigned short, 16, 16, false, 4, 2>::TempStorage", 0},
  {{"block_exchange", "rgb", NULL, "96", "5", "smem_ts", "blocked_to_warp_striped"},
   "coop_block_exchange_blocked_to_warp_striped_rgb_t96_i5_smem_ts", "cub::BlockExchange<rgb, 96, 5, true, 1, 1>::TempStorage", 0},
  {{"block_merge_sort", "f32", "less", "128", "3", NULL, "keys"}, "coop_block_merge_sort_keys_less_f32_t128_i3",
   "cub::BlockMergeSort<float, 128, 3, cub::NullType, 1, 1>::TempStorage", 0},
  {{"block_merge_sort", "u8", "greater", "8x4", "5", NULL, "pairs_guarded", NULL, "rgb"},
   "coop_block_merge_sort_pairs_guarded_greater_u8_rgb_t8x4x1_i5", "cub::BlockMergeSort<unsigned char, 8, 5, rgb, 4, 1>::TempStorage",
   0},
  {{"block_merge_sort", "big", "custom:big_less", "2x2x2", "1", NULL, "keys"}, "coop_block_merge_sort_keys_custom_big_less_big_t2x2x2_i1",
   "cub::BlockMergeSort<big, 2, 1, cub::NullType, 2, 2>::TempStorage", 0},
  /* discontinuity, adjacent difference, shuffle: odd, 3-D, user types */
  {{"block_discontinuity", "f64", "ne", "65", "3", NULL, "heads_tails_pred_succ"},
   "coop_block_discontinuity_heads_tails_pred_succ_ne_f64_t65_i3", "cub::BlockDiscontinuity<double, 65, 1, 1>::TempStorage", 0},
  {{"block_discontinuity", "mat2", "custom:mat_differs", "4x2x3", "2", NULL, "heads"},
   "coop_block_discontinuity_heads_custom_mat_differs_mat2_t4x2x3_i2", "cub::BlockDiscontinuity<mat2, 4, 2, 3>::TempStorage", 0},
  {{"block_adjacent_difference", "i16", "sub", "7", "5", NULL, "left_partial_pred"},
   "coop_block_adjacent_difference_left_partial_pred_sub_i16_t7_i5", "cub::BlockAdjacentDifference<short, 7, 1, 1>::TempStorage", 0},
  {{"block_adjacent_difference", "rgb", "custom:rgb_delta", "32x3", "1", NULL, "right_succ"},
   "coop_block_adjacent_difference_right_succ_custom_rgb_delta_rgb_t32x3x1_i1",
   "cub::BlockAdjacentDifference<rgb, 32, 3, 1>::TempStorage", 0},
  {{"block_shuffle", "u8", NULL, "1", "1", NULL, "rotate"}, "coop_block_shuffle_rotate_u8_t1_i1",
   "cub::BlockShuffle<unsigned char, 1, 1, 1>::TempStorage", 0},
  {{"block_shuffle", "big", NULL, "8x8x2", "3", NULL, "down_prefix"}, "coop_block_shuffle_down_prefix_big_t8x8x2_i3",
   "cub::BlockShuffle<big, 8, 8, 2>::TempStorage", 0},
  /* radix sort: radix bits, odd and 3-D blocks, user-type values */
  {{"block_radix_sort", "u32", NULL, "65", "3", "r4", "keys_asc"}, "coop_block_radix_sort_keys_asc_u32_t65_i3_r4",
   "cub::BlockRadixSort<unsigned int, 65, 3>::TempStorage", 0},
  {{"block_radix_sort", "f16", NULL, "4x4x2", "5", "r7", "keys_desc_striped"},
   "coop_block_radix_sort_keys_desc_striped_f16_t4x4x2_i5_r7",
   "cub::BlockRadixSort<__half, 4, 5, cub::NullType, 7, true, cub::BLOCK_SCAN_WARP_SCANS, cudaSharedMemBankSizeFourByte, 4, "
   "2>::TempStorage", 0},
  {{"block_radix_sort", "i64", NULL, "96", "2", "r1", "pairs_asc", NULL, "big"}, "coop_block_radix_sort_pairs_asc_i64_big_t96_i2_r1",
   "cub::BlockRadixSort<long long, 96, 2, big, 1>::TempStorage", 0},
  {{"block_radix_sort", "u8", NULL, "1", "1", "r8", "pairs_desc", NULL, "f64"}, "coop_block_radix_sort_pairs_desc_u8_f64_t1_i1_r8",
   "cub::BlockRadixSort<unsigned char, 1, 1, double, 8>::TempStorage", 0},
  /* histogram: both algorithms, odd bins; run-length decode: user-type values, 2-D */
  {{"block_histogram", "u8", NULL, "65", "3", "sort", "init_composite", NULL, NULL, "256"},
   "coop_block_histogram_init_composite_u8_t65_i3_sort_b256",
   "cub::BlockHistogram<unsigned char, 65, 3, 256, cub::BLOCK_HISTO_SORT>::TempStorage", 0},
  {{"block_histogram", "i16", NULL, "8x4x2", "5", "atomic", "composite", NULL, NULL, "7"},
   "coop_block_histogram_composite_i16_t8x4x2_i5_atomic_b7",
   "cub::BlockHistogram<short, 8, 5, 7, cub::BLOCK_HISTO_ATOMIC, 4, 2>::TempStorage", 1},
  {{"block_run_length_decode", "mat2", NULL, "7x3", "2", NULL, "decode_offsets", NULL, NULL, NULL, "5"},
   "coop_block_run_length_decode_offsets_mat2_t7x3x1_i2_d5",
   "cub::BlockRunLengthDecode<mat2, 7, 2, 5, unsigned int, 3, 1>::TempStorage", 0},
  {{"block_run_length_decode", "f64", NULL, "128", "1", NULL, "decode", NULL, NULL, NULL, "8"},
   "coop_block_run_length_decode_f64_t128_i1_d8", "cub::BlockRunLengthDecode<double, 128, 1, 8>::TempStorage", 0},
  {{"block_radix_rank", "u16", NULL, "65", "3", "r5", "desc"}, "coop_block_radix_rank_desc_u16_t65_i3_r5",
   "cub::BlockRadixRank<65, 5, true>::TempStorage", 0},
  {{"block_radix_rank", "f64", NULL, "4x4x2", "2", "r8", "asc"}, "coop_block_radix_rank_asc_f64_t4x4x2_i2_r8",
   "cub::BlockRadixRank<4, 8, false, true, cub::BLOCK_SCAN_WARP_SCANS, cudaSharedMemBankSizeFourByte, 4, 2>::TempStorage", 0},
};
#define N_PROBES (sizeof PROBES / sizeof PROBES[0])
static const char USER_TYPES[] = "rgb:3:1,mat2:16:8,big:48:16";
static const char USER_STRUCTS[] = "struct alignas(1) rgb { unsigned char b[3]; };\n"
                                   "struct alignas(8) mat2 { unsigned char b[16]; };\n"
                                   "struct alignas(16) big { unsigned char b[48]; };\n";

Test(tempsizes, equal_nvcc_host_sizeof, .timeout = 600)
{
  char *dir = coopt_tmpdir();
  coop_gen_group groups[N_PROBES];
  for (size_t i = 0; i < N_PROBES; ++i) groups[i] = PROBES[i].group;
  coopt_generate_typed(groups, (int)N_PROBES, USER_TYPES, "sizes", "sm_75", dir);

  /* The host program. */
  char *cu = coopt_fmt("%s/sizes_host.cu", dir);
  FILE *f = fopen(cu, "w");
  cr_assert_not_null(f);
  fprintf(f, "#include <cub/block/block_load.cuh>\n#include <cub/block/block_store.cuh>\n"
             "#include <cub/block/block_reduce.cuh>\n#include <cub/block/block_scan.cuh>\n"
             "#include <cub/warp/warp_reduce.cuh>\n#include <cub/warp/warp_scan.cuh>\n"
             "#include <cub/warp/warp_load.cuh>\n#include <cub/warp/warp_store.cuh>\n"
             "#include <cub/warp/warp_exchange.cuh>\n#include <cub/warp/warp_merge_sort.cuh>\n"
             "#include <cub/block/block_exchange.cuh>\n#include <cub/block/block_merge_sort.cuh>\n"
             "#include <cub/block/block_discontinuity.cuh>\n#include <cub/block/block_adjacent_difference.cuh>\n"
             "#include <cub/block/block_shuffle.cuh>\n#include <cub/block/block_radix_sort.cuh>\n"
             "#include <cub/block/block_histogram.cuh>\n#include <cub/block/block_run_length_decode.cuh>\n"
             "#include <cub/block/block_radix_rank.cuh>\n"
             "#include <cuda_fp16.h>\n#include <cuda_bf16.h>\n#include <cstdio>\n%s"
             "int main() {\n", USER_STRUCTS);
  for (size_t i = 0; i < N_PROBES; ++i)
    fprintf(f, "  std::printf(\"%%s %%zu %%zu\\n\", \"%s\", sizeof(%s), alignof(%s));\n", PROBES[i].symbol,
            PROBES[i].cub_type, PROBES[i].cub_type);
  fprintf(f, "}\n");
  fclose(f);
  char *cmd = coopt_fmt("%s/bin/nvcc -std=c++17 -I%s/include/cccl -I%s/include -o %s/sizes_host %s 2>&1 && "
                        "%s/sizes_host",
                        COOP_CUDA_ROOT, COOP_CUDA_ROOT, COOP_CUDA_ROOT, dir, cu, dir);
  char *out = NULL;
  cr_assert_eq(coopt_run(cmd, &out), 0, "%s", out);

  char *mp = coopt_fmt("%s/sizes.json", dir);
  json_error_t je;
  json_t *m = json_load_file(mp, 0, &je);
  cr_assert_not_null(m, "%s", je.text);
  json_t *syms = json_object_get(m, "symbols");
  size_t checked = 0;
  for (char *line = strtok(out, "\n"); line; line = strtok(NULL, "\n")) {
    char sym[160];
    size_t hs, ha;
    cr_assert_eq(sscanf(line, "%159s %zu %zu", sym, &hs, &ha), 3, "%s", line);
    const probe *p = NULL;
    for (size_t i = 0; i < N_PROBES; ++i)
      if (!strcmp(PROBES[i].symbol, sym)) p = &PROBES[i];
    cr_assert_not_null(p);
    json_t *o = NULL, *e;
    size_t k;
    json_array_foreach(syms, k, e) if (!strcmp(json_string_value(json_object_get(e, "name")), sym)) o = e;
    cr_assert_not_null(o, "%s is not in the manifest", sym);
    size_t bytes = (size_t)json_integer_value(json_object_get(o, "temp_bytes"));
    size_t align = (size_t)json_integer_value(json_object_get(o, "temp_align"));
    if (p->empty) {
      cr_assert_eq(hs, 1, "%s: CUB's empty TempStorage has sizeof 1 on the host, got %zu", sym, hs);
      cr_assert_eq(bytes, 0, "%s: empty storage is reported as 0 bytes, got %zu", sym, bytes);
    } else {
      cr_assert_eq(bytes, hs, "%s: manifest %zu bytes, nvcc host sizeof %zu", sym, bytes, hs);
      cr_assert_eq(align, ha, "%s: manifest align %zu, nvcc host alignof %zu", sym, align, ha);
    }
    ++checked;
  }
  cr_assert_eq(checked, N_PROBES);
  json_decref(m);
  free(out);
  free(cmd);
  free(cu);
  free(mp);
  free(dir);
}

/* A primitive whose temp storage is more shared memory than a block can have on an arch of the bundle is
 * refused when it is generated, naming the symbol, its bytes and the arch (CUB would compile it; no launch
 * of a kernel that calls it could run). 8 radix bits x 1024 threads: 129 counter lanes x 1024 x 4 bytes and more. */
Test(tempsizes, more_than_a_block_of_shared_memory_is_refused, .timeout = 300)
{
  char *dir = coopt_tmpdir();
  /* archs, radix bits, the arch named, its bytes, the temp bytes */
  static const struct {
    const char *archs, *algo;
    int arch, limit, bytes;
  } C[] = {{"sm_90", "r8", 90, 232448, 528576}, {"sm_86,sm_90", "r6", 86, 101376, 135360}};
  for (int c = 0; c < 2; ++c) {
    coop_gen *gen = NULL;
    cr_assert_eq(coop_gen_create(&gen), COOP_SUCCESS);
    coop_gen_group g = {"block_radix_rank", "u32", NULL, "1024", "4", C[c].algo, "asc"};
    cr_assert_eq(coop_gen_add_group(gen, &g), COOP_SUCCESS);
    cr_assert_eq(coop_gen_set_archs(gen, C[c].archs), COOP_SUCCESS);
    cr_assert_eq(coop_gen_set_name(gen, "toobig"), COOP_SUCCESS);
    char *out = coopt_fmt("%s/%d", dir, c);
    coop_result rc = coop_gen_write(gen, out);
    char *log = coopt_gen_log(gen);
    cr_assert_eq(rc, COOP_ERROR_SPEC_INVALID, "%s", log);
    char *want = coopt_fmt("coop_block_radix_rank_asc_u32_t1024_i4_%s: its temp storage is %d bytes, more shared memory "
                           "than a block can have on sm_%d (%d bytes)",
                           C[c].algo, C[c].bytes, C[c].arch, C[c].limit);
    cr_assert_not_null(strstr(log, want), "want \"%s\" in:\n%s", want, log);
    char *manifest = coopt_fmt("%s/toobig.json", out);
    cr_assert(access(manifest, F_OK) != 0, "nothing is written for a refused bundle");
    free(manifest);
    free(want);
    free(log);
    free(out);
    coop_gen_destroy(&gen);
  }
  free(dir);
}
