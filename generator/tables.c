/* The device ABI of DESIGN.md as data: types, operators, families, algorithms, variants. */
#include "gen.h"

#include <stdio.h>

const coop__type coop__types[] = {
  {"i8", "int8_t", "cuda::std::int8_t", 1},          {"i16", "int16_t", "cuda::std::int16_t", 1},
  {"i32", "int32_t", "cuda::std::int32_t", 1},       {"i64", "int64_t", "cuda::std::int64_t", 1},
  {"u8", "uint8_t", "cuda::std::uint8_t", 1},        {"u16", "uint16_t", "cuda::std::uint16_t", 1},
  {"u32", "uint32_t", "cuda::std::uint32_t", 1},     {"u64", "uint64_t", "cuda::std::uint64_t", 1},
  {"f16", "__half", "__half", 0},                    {"bf16", "__nv_bfloat16", "__nv_bfloat16", 0},
  {"f32", "float", "float", 0},                      {"f64", "double", "double", 0},
};
const int coop__n_types = sizeof coop__types / sizeof coop__types[0];

#define R COOP__K_REDUCE
const coop__op coop__ops[] = {
  {"sum", "coop::op_sum", 0, R}, {"min", "coop::op_min", 0, R}, {"max", "coop::op_max", 0, R},
  {"prod", "coop::op_prod", 0, R}, {"and", "coop::op_and", 1, R}, {"or", "coop::op_or", 1, R},
  {"xor", "coop::op_xor", 1, R},
  {"less", "coop::cmp_less", 0, COOP__K_ORDER | COOP__K_FLAG}, {"greater", "coop::cmp_greater", 0, COOP__K_ORDER | COOP__K_FLAG},
  {"ne", "coop::flag_ne", 0, COOP__K_FLAG}, {"eq", "coop::flag_eq", 0, COOP__K_FLAG},
  {"sub", "coop::diff_sub", 0, COOP__K_DIFF},
};
#undef R
const int coop__n_ops = sizeof coop__ops / sizeof coop__ops[0];

const char *coop__tcode(const coop__inst *in)
{
  return coop__is_user_type(in) ? in->user.name : coop__types[in->type].code;
}
const char *coop__tctype(const coop__inst *in)
{
  return coop__is_user_type(in) ? in->user.ctype : coop__types[in->type].ctype;
}
const char *coop__tcpp(const coop__inst *in)
{
  return coop__is_user_type(in) ? in->user.cpp : coop__types[in->type].cpp;
}

const char *coop__vcode(const coop__inst *in)
{
  return in->vtype >= coop__n_types ? in->vuser.name : in->vtype >= 0 ? coop__types[in->vtype].code : "";
}
const char *coop__vctype(const coop__inst *in)
{
  return in->vtype >= coop__n_types ? in->vuser.ctype : in->vtype >= 0 ? coop__types[in->vtype].ctype : "";
}
const char *coop__vcpp(const coop__inst *in)
{
  return in->vtype >= coop__n_types ? in->vuser.cpp : in->vtype >= 0 ? coop__types[in->vtype].cpp : "";
}

const char *coop__op_spelling(const coop__inst *in, char *buf, size_t size)
{
  if (in->op == COOP__OP_CUSTOM) snprintf(buf, size, "custom_%s", in->custom);
  else snprintf(buf, size, "%s", in->op >= 0 ? coop__ops[in->op].name : "");
  return buf;
}

static const coop__algo load_algos[] = {
  {"direct", "cub::BLOCK_LOAD_DIRECT", 0},
  {"striped", "cub::BLOCK_LOAD_STRIPED", 0},
  {"vectorize", "cub::BLOCK_LOAD_VECTORIZE", 0},
  {"transpose", "cub::BLOCK_LOAD_TRANSPOSE", 0},
  {"warp_transpose", "cub::BLOCK_LOAD_WARP_TRANSPOSE", 1},
  {"warp_transpose_ts", "cub::BLOCK_LOAD_WARP_TRANSPOSE_TIMESLICED", 1},
  /* the same, loading by CUB's LOAD_CS modifier (ld.cs: streamed data, first out of L2) */
  {"direct_cs", "cub::BLOCK_LOAD_DIRECT, cub::LOAD_CS", 0},
  {"striped_cs", "cub::BLOCK_LOAD_STRIPED, cub::LOAD_CS", 0},
  {"vectorize_cs", "cub::BLOCK_LOAD_VECTORIZE, cub::LOAD_CS", 0},
  {"transpose_cs", "cub::BLOCK_LOAD_TRANSPOSE, cub::LOAD_CS", 0},
  {"warp_transpose_cs", "cub::BLOCK_LOAD_WARP_TRANSPOSE, cub::LOAD_CS", 1},
  {"warp_transpose_ts_cs", "cub::BLOCK_LOAD_WARP_TRANSPOSE_TIMESLICED, cub::LOAD_CS", 1},
};
static const coop__algo store_algos[] = {
  {"direct", "cub::BLOCK_STORE_DIRECT", 0},
  {"striped", "cub::BLOCK_STORE_STRIPED", 0},
  {"vectorize", "cub::BLOCK_STORE_VECTORIZE", 0},
  {"transpose", "cub::BLOCK_STORE_TRANSPOSE", 0},
  {"warp_transpose", "cub::BLOCK_STORE_WARP_TRANSPOSE", 1},
  {"warp_transpose_ts", "cub::BLOCK_STORE_WARP_TRANSPOSE_TIMESLICED", 1},
};
static const coop__algo reduce_algos[] = {
  {"raking", "cub::BLOCK_REDUCE_RAKING", 0},
  {"raking_comm", "cub::BLOCK_REDUCE_RAKING_COMMUTATIVE_ONLY", 0},
  {"warp_reductions", "cub::BLOCK_REDUCE_WARP_REDUCTIONS", 0},
};
static const coop__algo scan_algos[] = {
  {"raking", "cub::BLOCK_SCAN_RAKING", 0},
  {"raking_memoize", "cub::BLOCK_SCAN_RAKING_MEMOIZE", 0},
  {"warp_scans", "cub::BLOCK_SCAN_WARP_SCANS", 0},
};

/* CUB's warp load, store and exchange take a power-of-two logical warp */
static const coop__algo warp_load_algos[] = {
  {"direct", "cub::WARP_LOAD_DIRECT", 0, 1},
  {"striped", "cub::WARP_LOAD_STRIPED", 0, 1},
  {"vectorize", "cub::WARP_LOAD_VECTORIZE", 0, 1},
  {"transpose", "cub::WARP_LOAD_TRANSPOSE", 0, 1},
  {"direct_cs", "cub::WARP_LOAD_DIRECT, cub::LOAD_CS", 0, 1},
  {"striped_cs", "cub::WARP_LOAD_STRIPED, cub::LOAD_CS", 0, 1},
  {"vectorize_cs", "cub::WARP_LOAD_VECTORIZE, cub::LOAD_CS", 0, 1},
  {"transpose_cs", "cub::WARP_LOAD_TRANSPOSE, cub::LOAD_CS", 0, 1},
};
static const coop__algo warp_store_algos[] = {
  {"direct", "cub::WARP_STORE_DIRECT", 0, 1},
  {"striped", "cub::WARP_STORE_STRIPED", 0, 1},
  {"vectorize", "cub::WARP_STORE_VECTORIZE", 0, 1},
  {"transpose", "cub::WARP_STORE_TRANSPOSE", 0, 1},
};
static const coop__algo warp_exchange_algos[] = {
  {"smem", "cub::WARP_EXCHANGE_SMEM", 0, 1},
  {"shuffle", "cub::WARP_EXCHANGE_SHUFFLE", 0, 1, 1, 1},
};

#define P_TEMP {"temp", COOP__P_TEMP, 0, 0, 0}

static const coop__variant load_variants[] = {
  {"plain", "load", "load", NULL, 0, {{"tile_src", COOP__P_IN, 0, 0, COOP__S_TILE}, {"items", COOP__P_OUT, 0, 0, COOP__S_ITEMS}, P_TEMP}},
  {"guarded", "load_guarded", "load_guarded", NULL, 0,
   {{"tile_src", COOP__P_IN, 0, 0, COOP__S_TILE}, {"items", COOP__P_OUT, 0, 0, COOP__S_ITEMS}, {"valid", COOP__P_INT, 0, 0, COOP__S_ONE},
    {"oob_default", COOP__P_IN, 0, 0, COOP__S_ONE}, P_TEMP}},
};
static const coop__variant store_variants[] = {
  {"plain", "store", "store", NULL, 0, {{"tile_dst", COOP__P_OUT, 0, 0, COOP__S_TILE}, {"items", COOP__P_IN, 0, 0, COOP__S_ITEMS}, P_TEMP}},
  {"guarded", "store_guarded", "store_guarded", NULL, 0,
   {{"tile_dst", COOP__P_OUT, 0, 0, COOP__S_TILE}, {"items", COOP__P_IN, 0, 0, COOP__S_ITEMS}, {"valid", COOP__P_INT, 0, 0, COOP__S_ONE}, P_TEMP}},
};
static const coop__variant reduce_variants[] = {
  {"full", "reduce_%s", "reduce", NULL, 0, {{"items", COOP__P_IN, 0, 0, COOP__S_ITEMS}, {"aggregate", COOP__P_OUT, 0, 0, COOP__S_ONE}, P_TEMP}},
  {"partial", "reduce_%s_partial", "reduce_partial", NULL, 1,
   {{"item", COOP__P_IN, 0, 0, COOP__S_ONE}, {"valid_threads", COOP__P_INT, 0, 0, COOP__S_ONE}, {"aggregate", COOP__P_OUT, 0, 0, COOP__S_ONE}, P_TEMP}},
};
static const coop__variant scan_variants[] = {
  {"exclusive", "exclusive_scan_%s", "exclusive", "exclusive_sum", 0,
   {{"items_in", COOP__P_IN, 0, 0, COOP__S_ITEMS}, {"items_out", COOP__P_OUT, 0, 0, COOP__S_ITEMS}, {"initial", COOP__P_IN, 1, 0, COOP__S_ONE},
    {"aggregate", COOP__P_OUT, 0, 1, COOP__S_ONE}, P_TEMP}},
  {"inclusive", "inclusive_scan_%s", "inclusive", NULL, 0,
   {{"items_in", COOP__P_IN, 0, 0, COOP__S_ITEMS}, {"items_out", COOP__P_OUT, 0, 0, COOP__S_ITEMS}, {"aggregate", COOP__P_OUT, 0, 1, COOP__S_ONE}, P_TEMP}},
  {"exclusive_prefix", "exclusive_scan_%s_prefix", "exclusive_prefix", NULL, 0,
   {{"items_in", COOP__P_IN, 0, 0, COOP__S_ITEMS}, {"items_out", COOP__P_OUT, 0, 0, COOP__S_ITEMS}, {"running", COOP__P_INOUT, 0, 0, COOP__S_ONE}, P_TEMP}},
  {"inclusive_prefix", "inclusive_scan_%s_prefix", "inclusive_prefix", NULL, 0,
   {{"items_in", COOP__P_IN, 0, 0, COOP__S_ITEMS}, {"items_out", COOP__P_OUT, 0, 0, COOP__S_ITEMS}, {"running", COOP__P_INOUT, 0, 0, COOP__S_ONE}, P_TEMP}},
};

static const coop__variant warp_reduce_variants[] = {
  {"full", "reduce_%s", "reduce", NULL, 1, {{"item", COOP__P_IN, 0, 0, COOP__S_ONE}, {"aggregate", COOP__P_OUT, 0, 0, COOP__S_ONE}, P_TEMP}},
  {"partial", "reduce_%s_partial", "reduce_partial", NULL, 1,
   {{"item", COOP__P_IN, 0, 0, COOP__S_ONE}, {"valid_lanes", COOP__P_INT, 0, 0, COOP__S_ONE}, {"aggregate", COOP__P_OUT, 0, 0, COOP__S_ONE}, P_TEMP}},
};
static const coop__variant warp_scan_variants[] = {
  {"exclusive", "exclusive_scan_%s", "exclusive", "exclusive_sum", 1,
   {{"item_in", COOP__P_IN, 0, 0, COOP__S_ONE}, {"item_out", COOP__P_OUT, 0, 0, COOP__S_ONE}, {"initial", COOP__P_IN, 1, 0, COOP__S_ONE},
    {"aggregate", COOP__P_OUT, 0, 1, COOP__S_ONE}, P_TEMP}},
  {"inclusive", "inclusive_scan_%s", "inclusive", NULL, 1,
   {{"item_in", COOP__P_IN, 0, 0, COOP__S_ONE}, {"item_out", COOP__P_OUT, 0, 0, COOP__S_ONE}, {"aggregate", COOP__P_OUT, 0, 1, COOP__S_ONE}, P_TEMP}},
};

static const coop__variant warp_exchange_variants[] = {
  {"blocked_to_striped", "exchange_blocked_to_striped", "blocked_to_striped", NULL, 0,
   {{"items_in", COOP__P_IN, 0, 0, COOP__S_ITEMS}, {"items_out", COOP__P_OUT, 0, 0, COOP__S_ITEMS}, P_TEMP}},
  {"striped_to_blocked", "exchange_striped_to_blocked", "striped_to_blocked", NULL, 0,
   {{"items_in", COOP__P_IN, 0, 0, COOP__S_ITEMS}, {"items_out", COOP__P_OUT, 0, 0, COOP__S_ITEMS}, P_TEMP}},
  {"scatter_to_striped", "exchange_scatter_to_striped", "scatter_to_striped", NULL, 0,
   {{"items_in", COOP__P_IN, 0, 0, COOP__S_ITEMS}, {"items_out", COOP__P_OUT, 0, 0, COOP__S_ITEMS},
    {"ranks", COOP__P_IN, 0, 0, COOP__S_ITEMS, COOP__E_INT}, P_TEMP}, "shuffle"},
};
/* CUB's merge sort is stable (its StableSort is Sort) */
static const coop__variant merge_sort_variants[] = {
  {"keys", "merge_sort_keys_%s", "sort_keys", NULL, 0, {{"keys", COOP__P_INOUT, 0, 0, COOP__S_ITEMS}, P_TEMP}},
  {"keys_guarded", "merge_sort_keys_guarded_%s", "sort_keys_guarded", NULL, 0,
   {{"keys", COOP__P_INOUT, 0, 0, COOP__S_ITEMS}, {"valid", COOP__P_INT, 0, 0, COOP__S_ONE},
    {"oob_default", COOP__P_IN, 0, 0, COOP__S_ONE}, P_TEMP}},
  {"pairs", "merge_sort_pairs_%s", "sort_pairs", NULL, 0,
   {{"keys", COOP__P_INOUT, 0, 0, COOP__S_ITEMS}, {"values", COOP__P_INOUT, 0, 0, COOP__S_ITEMS, COOP__E_VALUE}, P_TEMP},
   NULL, 1},
  {"pairs_guarded", "merge_sort_pairs_guarded_%s", "sort_pairs_guarded", NULL, 0,
   {{"keys", COOP__P_INOUT, 0, 0, COOP__S_ITEMS}, {"values", COOP__P_INOUT, 0, 0, COOP__S_ITEMS, COOP__E_VALUE},
    {"valid", COOP__P_INT, 0, 0, COOP__S_ONE}, {"oob_default", COOP__P_IN, 0, 0, COOP__S_ONE}, P_TEMP},
   NULL, 1},
};

/* CUB's WARP_TIME_SLICING */
static const coop__algo block_exchange_algos[] = {
  {"smem", "false", 0},
  {"smem_ts", "true", 0},
};
#define P_EXCH_IO {"items_in", COOP__P_IN, 0, 0, COOP__S_ITEMS}, {"items_out", COOP__P_OUT, 0, 0, COOP__S_ITEMS}
#define P_RANKS {"ranks", COOP__P_IN, 0, 0, COOP__S_ITEMS, COOP__E_INT}
/* CUB's guarded and flagged scatters write the whole tile's shared memory whatever the time slicing; its
 * warp-striped exchanges place a partial last warp's items as if it had 32 lanes */
#define TS_OVERRUN "CUB's guarded and flagged scatters ignore time slicing and would write past its shared memory"
static const coop__variant block_exchange_variants[] = {
  {"striped_to_blocked", "exchange_striped_to_blocked", "striped_to_blocked", NULL, 0, {P_EXCH_IO, P_TEMP}},
  {"blocked_to_striped", "exchange_blocked_to_striped", "blocked_to_striped", NULL, 0, {P_EXCH_IO, P_TEMP}},
  {"warp_striped_to_blocked", "exchange_warp_striped_to_blocked", "warp_striped_to_blocked", NULL, 0,
   {P_EXCH_IO, P_TEMP}, NULL, 0, NULL, 1},
  {"blocked_to_warp_striped", "exchange_blocked_to_warp_striped", "blocked_to_warp_striped", NULL, 0,
   {P_EXCH_IO, P_TEMP}, NULL, 0, NULL, 1},
  {"scatter_to_blocked", "exchange_scatter_to_blocked", "scatter_to_blocked", NULL, 0, {P_EXCH_IO, P_RANKS, P_TEMP}},
  {"scatter_to_striped", "exchange_scatter_to_striped", "scatter_to_striped", NULL, 0, {P_EXCH_IO, P_RANKS, P_TEMP}},
  {"scatter_to_striped_guarded", "exchange_scatter_to_striped_guarded", "scatter_to_striped_guarded", NULL, 0,
   {P_EXCH_IO, P_RANKS, P_TEMP}, "smem_ts", 0, TS_OVERRUN},
  {"scatter_to_striped_flagged", "exchange_scatter_to_striped_flagged", "scatter_to_striped_flagged", NULL, 0,
   {P_EXCH_IO, P_RANKS, {"is_valid", COOP__P_IN, 0, 0, COOP__S_ITEMS, COOP__E_INT}, P_TEMP}, "smem_ts", 0, TS_OVERRUN},
};

#define P_ITEMS_IN {"items", COOP__P_IN, 0, 0, COOP__S_ITEMS}
#define P_HEADS {"head_flags", COOP__P_OUT, 0, 0, COOP__S_ITEMS, COOP__E_INT}
#define P_TAILS {"tail_flags", COOP__P_OUT, 0, 0, COOP__S_ITEMS, COOP__E_INT}
#define P_PRED {"tile_predecessor", COOP__P_IN, 0, 0, COOP__S_ONE}
#define P_SUCC {"tile_successor", COOP__P_IN, 0, 0, COOP__S_ONE}
static const coop__variant discontinuity_variants[] = {
  {"heads", "discontinuity_heads_%s", "heads", NULL, 0, {P_HEADS, P_ITEMS_IN, P_TEMP}},
  {"heads_pred", "discontinuity_heads_pred_%s", "heads_pred", NULL, 0, {P_HEADS, P_ITEMS_IN, P_PRED, P_TEMP}},
  {"tails", "discontinuity_tails_%s", "tails", NULL, 0, {P_TAILS, P_ITEMS_IN, P_TEMP}},
  {"tails_succ", "discontinuity_tails_succ_%s", "tails_succ", NULL, 0, {P_TAILS, P_ITEMS_IN, P_SUCC, P_TEMP}},
  {"heads_tails", "discontinuity_heads_tails_%s", "heads_tails", NULL, 0, {P_HEADS, P_TAILS, P_ITEMS_IN, P_TEMP}},
  {"heads_tails_pred", "discontinuity_heads_tails_pred_%s", "heads_tails_pred", NULL, 0,
   {P_HEADS, P_TAILS, P_ITEMS_IN, P_PRED, P_TEMP}},
  {"heads_tails_succ", "discontinuity_heads_tails_succ_%s", "heads_tails_succ", NULL, 0,
   {P_HEADS, P_TAILS, P_ITEMS_IN, P_SUCC, P_TEMP}},
  {"heads_tails_pred_succ", "discontinuity_heads_tails_pred_succ_%s", "heads_tails_pred_succ", NULL, 0,
   {P_HEADS, P_TAILS, P_ITEMS_IN, P_PRED, P_SUCC, P_TEMP}},
};
#define P_VALID {"valid", COOP__P_INT, 0, 0, COOP__S_ONE}
static const coop__variant adjacent_difference_variants[] = {
  {"left", "adjacent_difference_left_%s", "subtract_left", NULL, 0, {P_EXCH_IO, P_TEMP}},
  {"left_pred", "adjacent_difference_left_pred_%s", "subtract_left_pred", NULL, 0, {P_EXCH_IO, P_PRED, P_TEMP}},
  {"left_partial", "adjacent_difference_left_partial_%s", "subtract_left_partial", NULL, 0, {P_EXCH_IO, P_VALID, P_TEMP}},
  {"left_partial_pred", "adjacent_difference_left_partial_pred_%s", "subtract_left_partial_pred", NULL, 0,
   {P_EXCH_IO, P_VALID, P_PRED, P_TEMP}},
  {"right", "adjacent_difference_right_%s", "subtract_right", NULL, 0, {P_EXCH_IO, P_TEMP}},
  {"right_succ", "adjacent_difference_right_succ_%s", "subtract_right_succ", NULL, 0, {P_EXCH_IO, P_SUCC, P_TEMP}},
  {"right_partial", "adjacent_difference_right_partial_%s", "subtract_right_partial", NULL, 0,
   {P_EXCH_IO, P_VALID, P_TEMP}},
};
/* the outputs CUB leaves unchanged in places (offset past the block, up's first, down's last) are inout */
#define P_SHUF_ITEMS {"items_in", COOP__P_IN, 0, 0, COOP__S_ITEMS}, {"items_out", COOP__P_INOUT, 0, 0, COOP__S_ITEMS}
static const coop__variant shuffle_variants[] = {
  {"offset", "shuffle_offset", "offset", NULL, 1,
   {{"item_in", COOP__P_IN, 0, 0, COOP__S_ONE}, {"item_out", COOP__P_INOUT, 0, 0, COOP__S_ONE},
    {"distance", COOP__P_INT, 0, 0, COOP__S_ONE}, P_TEMP}},
  {"rotate", "shuffle_rotate", "rotate", NULL, 1,
   {{"item_in", COOP__P_IN, 0, 0, COOP__S_ONE}, {"item_out", COOP__P_OUT, 0, 0, COOP__S_ONE},
    {"distance", COOP__P_INT, 0, 0, COOP__S_ONE}, P_TEMP}},
  {"up", "shuffle_up", "up", NULL, 0, {P_SHUF_ITEMS, P_TEMP}},
  {"up_suffix", "shuffle_up_suffix", "up_suffix", NULL, 0,
   {P_SHUF_ITEMS, {"block_suffix", COOP__P_OUT, 0, 0, COOP__S_ONE}, P_TEMP}},
  {"down", "shuffle_down", "down", NULL, 0, {P_SHUF_ITEMS, P_TEMP}},
  {"down_prefix", "shuffle_down_prefix", "down_prefix", NULL, 0,
   {P_SHUF_ITEMS, {"block_prefix", COOP__P_OUT, 0, 0, COOP__S_ONE}, P_TEMP}},
};

/* the radix sort's "algorithm" is its RADIX_BITS (a symbol's _r<bits>) */
static const coop__algo radix_bits[] = {{"r1", "1"}, {"r2", "2"}, {"r3", "3"}, {"r4", "4"},
                                        {"r5", "5"}, {"r6", "6"}, {"r7", "7"}, {"r8", "8"}};
#define P_KEYS {"keys", COOP__P_INOUT, 0, 0, COOP__S_ITEMS}
#define P_VALUES {"values", COOP__P_INOUT, 0, 0, COOP__S_ITEMS, COOP__E_VALUE}
#define P_BITS {"begin_bit", COOP__P_INT, 0, 0, COOP__S_ONE}, {"end_bit", COOP__P_INT, 0, 0, COOP__S_ONE}
#define RADIX(NAME, PAIRS, ...) {NAME, "radix_sort_" NAME, NAME, NULL, 0, {__VA_ARGS__}, NULL, PAIRS}
static const coop__variant radix_sort_variants[] = {
  RADIX("keys_asc", 0, P_KEYS, P_BITS, P_TEMP),
  RADIX("keys_desc", 0, P_KEYS, P_BITS, P_TEMP),
  RADIX("keys_asc_striped", 0, P_KEYS, P_BITS, P_TEMP),
  RADIX("keys_desc_striped", 0, P_KEYS, P_BITS, P_TEMP),
  RADIX("pairs_asc", 1, P_KEYS, P_VALUES, P_BITS, P_TEMP),
  RADIX("pairs_desc", 1, P_KEYS, P_VALUES, P_BITS, P_TEMP),
  RADIX("pairs_asc_striped", 1, P_KEYS, P_VALUES, P_BITS, P_TEMP),
  RADIX("pairs_desc_striped", 1, P_KEYS, P_VALUES, P_BITS, P_TEMP),
};
#undef RADIX

static const coop__algo histogram_algos[] = {{"sort", "cub::BLOCK_HISTO_SORT"}, {"atomic", "cub::BLOCK_HISTO_ATOMIC"}};
#define P_HISTOGRAM {"histogram", COOP__P_INOUT, 0, 0, COOP__S_EXTRA, COOP__E_U32}
static const coop__variant histogram_variants[] = {
  {"init_composite", "histogram_init_composite", "init_composite", NULL, 0, {P_ITEMS_IN, P_HISTOGRAM, P_TEMP}},
  {"composite", "histogram_composite", "composite", NULL, 0, {P_ITEMS_IN, P_HISTOGRAM, P_TEMP}},
};
#define P_RUNS {"run_values", COOP__P_IN, 0, 0, COOP__S_ITEMS}, {"run_lengths", COOP__P_IN, 0, 0, COOP__S_ITEMS, COOP__E_U32}
#define P_DECODED {"decoded_items", COOP__P_OUT, 0, 0, COOP__S_EXTRA}
#define P_TOTAL {"total_decoded_size", COOP__P_OUT, 0, 0, COOP__S_ONE, COOP__E_U32}
static const coop__variant run_length_decode_variants[] = {
  {"decode", "run_length_decode", "decode", NULL, 0,
   {P_RUNS, P_DECODED, {"from_offset", COOP__P_INT, 0, 0, COOP__S_ONE}, P_TOTAL, P_TEMP}},
  {"decode_offsets", "run_length_decode_offsets", "decode_offsets", NULL, 0,
   {P_RUNS, P_DECODED, {"item_offsets", COOP__P_OUT, 0, 0, COOP__S_EXTRA, COOP__E_U32},
    {"from_offset", COOP__P_INT, 0, 0, COOP__S_ONE}, P_TOTAL, P_TEMP}},
};

static const coop__variant radix_rank_variants[] = {
  {"asc", "radix_rank_asc", "rank_asc", NULL, 0,
   {{"keys", COOP__P_IN, 0, 0, COOP__S_ITEMS}, {"ranks", COOP__P_OUT, 0, 0, COOP__S_ITEMS, COOP__E_INT},
    {"begin_bit", COOP__P_INT, 0, 0, COOP__S_ONE}, P_TEMP}},
  {"desc", "radix_rank_desc", "rank_desc", NULL, 0,
   {{"keys", COOP__P_IN, 0, 0, COOP__S_ITEMS}, {"ranks", COOP__P_OUT, 0, 0, COOP__S_ITEMS, COOP__E_INT},
    {"begin_bit", COOP__P_INT, 0, 0, COOP__S_ONE}, P_TEMP}},
};

#define N(a) ((int)(sizeof(a) / sizeof((a)[0])))
const coop__family coop__families[COOP__FAM_COUNT] = {
  {"block_load", "block_load.cuh", "coop::block_load", 0, load_algos, N(load_algos), 0, load_variants, N(load_variants)},
  {"block_store", "block_store.cuh", "coop::block_store", 0, store_algos, N(store_algos), 0, store_variants,
   N(store_variants)},
  {"block_reduce", "block_reduce.cuh", "coop::block_reduce", 1, reduce_algos, N(reduce_algos), 2, reduce_variants,
   N(reduce_variants)},
  {"block_scan", "block_scan.cuh", "coop::block_scan", 1, scan_algos, N(scan_algos), 0, scan_variants,
   N(scan_variants)},
  /* CUB picks the warp algorithm itself (shuffles for a power-of-two warp, shared memory otherwise) */
  {"warp_reduce", "warp_reduce.cuh", "coop::warp_reduce", 1, NULL, 0, -1, warp_reduce_variants, N(warp_reduce_variants),
   COOP__SCOPE_WARP},
  {"warp_scan", "warp_scan.cuh", "coop::warp_scan", 1, NULL, 0, -1, warp_scan_variants, N(warp_scan_variants),
   COOP__SCOPE_WARP},
  /* the warp's tile: L * items; the block families' variants (plain, guarded) */
  {"warp_load", "warp_load.cuh", "coop::warp_load", 0, warp_load_algos, N(warp_load_algos), 0, load_variants,
   N(load_variants), COOP__SCOPE_WARP, 1},
  {"warp_store", "warp_store.cuh", "coop::warp_store", 0, warp_store_algos, N(warp_store_algos), 0, store_variants,
   N(store_variants), COOP__SCOPE_WARP, 1},
  {"warp_exchange", "warp_exchange.cuh", "coop::warp_exchange", 0, warp_exchange_algos, N(warp_exchange_algos), 0,
   warp_exchange_variants, N(warp_exchange_variants), COOP__SCOPE_WARP, 1},
  /* keys or key-value pairs with a comparator; CUB builds its lane mask for power-of-two warps only */
  {"warp_merge_sort", "warp_merge_sort.cuh", "coop::warp_merge_sort", 2, NULL, 0, -1, merge_sort_variants,
   N(merge_sort_variants), COOP__SCOPE_WARP, 1, 1},
  {"block_exchange", "block_exchange.cuh", "coop::block_exchange", 0, block_exchange_algos, N(block_exchange_algos), 0,
   block_exchange_variants, N(block_exchange_variants)},
  /* CUB's block merge sort: a power-of-two thread count */
  {"block_merge_sort", "block_merge_sort.cuh", "coop::block_merge_sort", 2, NULL, 0, -1, merge_sort_variants,
   N(merge_sort_variants), COOP__SCOPE_BLOCK, 0, 1},
  {"block_discontinuity", "block_discontinuity.cuh", "coop::block_discontinuity", 2, NULL, 0, -1,
   discontinuity_variants, N(discontinuity_variants), COOP__SCOPE_BLOCK, 0, 0, COOP__K_FLAG},
  {"block_adjacent_difference", "block_adjacent_difference.cuh", "coop::block_adjacent_difference", 1, NULL, 0, -1,
   adjacent_difference_variants, N(adjacent_difference_variants), COOP__SCOPE_BLOCK, 0, 0, COOP__K_DIFF},
  {"block_shuffle", "block_shuffle.cuh", "coop::block_shuffle", 0, NULL, 0, -1, shuffle_variants, N(shuffle_variants)},
  /* keys: the integer and floating types CUB decomposes itself; values: any type */
  {"block_radix_sort", "block_radix_sort.cuh", "coop::block_radix_sort", 0, radix_bits, N(radix_bits), 3,
   radix_sort_variants, N(radix_sort_variants), COOP__SCOPE_BLOCK, 0, 0, 0,
   "CUB's radix sort takes a user type as keys only with a decomposer into its arithmetic members, which "
   "cooplink's user types (opaque bytes) do not declare (sort them with block_merge_sort and a comparator)"},
  /* items: bin numbers (integers below the bins); the histogram: `bins` unsigned int counters (shared memory) */
  {"block_histogram", "block_histogram.cuh", "coop::block_histogram", 0, histogram_algos, N(histogram_algos), 0,
   histogram_variants, N(histogram_variants), COOP__SCOPE_BLOCK, 0, 0, 0, NULL, 1, "bins"},
  /* items: runs a thread; decoded: items a thread of each window */
  {"block_run_length_decode", "block_run_length_decode.cuh", "coop::block_run_length_decode", 0, NULL, 0, -1,
   run_length_decode_variants, N(run_length_decode_variants), COOP__SCOPE_BLOCK, 0, 0, 0, NULL, 0, "decoded"},
  /* ranks by one digit (the radix bits, r1..r8) of a key's raw bits */
  {"block_radix_rank", "block_radix_rank.cuh", "coop::block_radix_rank", 0, radix_bits, N(radix_bits), 3,
   radix_rank_variants, N(radix_rank_variants), COOP__SCOPE_BLOCK, 0, 0, 0,
   "CUB's radix rank reads a key's bits as an unsigned integer's; a user type has no such bits"},
};
