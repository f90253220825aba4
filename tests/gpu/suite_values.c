/* The GPU suite's host side of the values: random inputs per op and the reference results (integers
 * wrapped exactly, floats in long double with a rounding bound). */
#include "suite.h"

#include <math.h>
#include <string.h>
#include <stdio.h>

const tinfo TY[] = {
  {"i8", "int8_t", 1, 1, 1, K_INT},      {"i16", "int16_t", 2, 1, 1, K_INT},   {"i32", "int32_t", 4, 1, 1, K_INT},
  {"i64", "int64_t", 8, 1, 1, K_INT},    {"u8", "uint8_t", 1, 1, 0, K_INT},    {"u16", "uint16_t", 2, 1, 0, K_INT},
  {"u32", "uint32_t", 4, 1, 0, K_INT},   {"u64", "uint64_t", 8, 1, 0, K_INT},  {"f16", "__half", 2, 0, 1, K_F16},
  {"bf16", "__nv_bfloat16", 2, 0, 1, K_BF16}, {"f32", "float", 4, 0, 1, K_F32}, {"f64", "double", 8, 0, 1, K_F64},
  {"mat2", "mat2", 16, 0, 0, K_MAT},
};
const char *const OPS[N_OPS] = {"sum", "min", "max", "prod", "and", "or", "xor", "custom", "matmul"};
const char *const FAMS[N_FAMS] = {"block_load", "block_store", "block_reduce", "block_scan", "warp_reduce",
                                   "warp_scan", "warp_load", "warp_store", "warp_exchange", "warp_merge_sort",
                                   "block_exchange", "block_merge_sort", "block_discontinuity",
                                   "block_adjacent_difference", "block_shuffle", "block_radix_sort", "block_histogram",
                                   "block_run_length_decode", "block_radix_rank"};
const char *const VARS[N_FAMS][8] = {{"plain", "guarded"}, {"plain", "guarded"}, {"full", "partial"},
                                      {"exclusive", "inclusive", "exclusive_prefix", "inclusive_prefix"},
                                      {"full", "partial"},  {"exclusive", "inclusive"},
                                      {"plain", "guarded"}, {"plain", "guarded"},
                                      {"blocked_to_striped", "striped_to_blocked", "scatter_to_striped"},
                                      {"keys", "keys_guarded", "pairs", "pairs_guarded"},
                                      {"striped_to_blocked", "blocked_to_striped", "warp_striped_to_blocked",
                                       "blocked_to_warp_striped", "scatter_to_blocked", "scatter_to_striped",
                                       "scatter_to_striped_guarded", "scatter_to_striped_flagged"},
                                      {"keys", "keys_guarded", "pairs", "pairs_guarded"},
                                      {"heads", "heads_pred", "tails", "tails_succ", "heads_tails", "heads_tails_pred",
                                       "heads_tails_succ", "heads_tails_pred_succ"},
                                      {"left", "left_pred", "left_partial", "left_partial_pred", "right", "right_succ",
                                       "right_partial"},
                                      {"offset", "rotate", "up", "up_suffix", "down", "down_prefix"},
                                      {"keys_asc", "keys_desc", "keys_asc_striped", "keys_desc_striped", "pairs_asc",
                                       "pairs_desc", "pairs_asc_striped", "pairs_desc_striped"},
                                      {"init_composite", "composite"},
                                      {"decode", "decode_offsets"},
                                      {"asc", "desc"}};
const int N_VARS[N_FAMS] = {2, 2, 2, 4, 2, 2, 2, 2, 3, 4, 8, 4, 8, 7, 6, 8, 2, 2, 2};
const int PWARPS[6] = {1, 2, 4, 8, 16, 32};
const char *const ALGOS[N_FAMS][12] = {
  {"direct", "striped", "vectorize", "transpose", "warp_transpose", "warp_transpose_ts", "direct_cs", "striped_cs",
   "vectorize_cs", "transpose_cs", "warp_transpose_cs", "warp_transpose_ts_cs"},
  {"direct", "striped", "vectorize", "transpose", "warp_transpose", "warp_transpose_ts"},
  {"raking", "raking_comm", "warp_reductions"},
  {"raking", "raking_memoize", "warp_scans"},
  {""},
  {""},
  {"direct", "striped", "vectorize", "transpose", "direct_cs", "striped_cs", "vectorize_cs", "transpose_cs"},
  {"direct", "striped", "vectorize", "transpose"},
  {"smem", "shuffle"},
  {"less", "greater", "custom"},
  {"smem", "smem_ts"},
  {"less", "greater", "custom"},
  {"ne", "less", "custom"},
  {"sub", "custom"},
  {""},
  {"r4", "r1", "r8"},
  {"sort", "atomic"},
  {""},
  {"r4", "r1", "r8"}};
const int N_ALGOS[N_FAMS] = {12, 6, 3, 3, 1, 1, 8, 4, 2, 3, 2, 3, 3, 2, 1, 3, 2, 1, 3};
const int WARPS[] = {1, 2, 3, 4, 5, 7, 8, 12, 16, 31, 32};
const int SHAPES[][3] = {{1, 1, 1},   {7, 1, 1},    {32, 1, 1},  {65, 1, 1}, {128, 1, 1},
                                {256, 1, 1}, {1024, 1, 1}, {16, 16, 1}, {8, 4, 2},  {5, 3, 2}};
const int ITEMS[4] = {1, 3, 4, 16};

uint64_t rng_state;
uint64_t rnd(void)
{
  uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
double unif(double a, double b) { return a + (b - a) * ((double)(rnd() >> 11) / 9007199254740992.0); }

long double ld_f(const tinfo *t, const void *p)
{
  switch (t->kind) {
  case K_F16: {
    _Float16 h;
    memcpy(&h, p, 2);
    return (long double)h;
  }
  case K_BF16: {
    uint16_t b;
    memcpy(&b, p, 2);
    uint32_t u = (uint32_t)b << 16;
    float f;
    memcpy(&f, &u, 4);
    return f;
  }
  case K_F32: {
    float f;
    memcpy(&f, p, 4);
    return f;
  }
  default: {
    double d;
    memcpy(&d, p, 8);
    return d;
  }
  }
}
void st_f(const tinfo *t, void *p, double v)
{
  switch (t->kind) {
  case K_F16: {
    _Float16 h = (_Float16)v;
    memcpy(p, &h, 2);
    break;
  }
  case K_BF16: {
    float f = (float)v;
    uint32_t u;
    memcpy(&u, &f, 4);
    uint16_t b = (uint16_t)((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);
    memcpy(p, &b, 2);
    break;
  }
  case K_F32: {
    float f = (float)v;
    memcpy(p, &f, 4);
    break;
  }
  default: memcpy(p, &v, 8);
  }
}
uint64_t ld_u(const tinfo *t, const void *p)
{
  uint64_t u = 0;
  memcpy(&u, p, (size_t)t->size);
  if (t->is_signed && t->size < 8 && (u >> (8 * t->size - 1)) & 1) u |= ~0ull << (8 * t->size);
  return u;
}
void st_u(const tinfo *t, void *p, uint64_t v) { memcpy(p, &v, (size_t)t->size); }


val load_val(const tinfo *t, const void *p)
{
  val v = {0};
  if (t->kind == K_MAT) memcpy(v.m, p, sizeof v.m);
  else if (t->is_int) v.u = ld_u(t, p);
  else {
    v.f = ld_f(t, p);
    v.mag = fabsl(v.f);
  }
  return v;
}

static uint64_t trunc_u(const tinfo *t, uint64_t u)
{
  uint8_t buf[8];
  st_u(t, buf, u);
  return ld_u(t, buf);
}

val combine(const tinfo *t, int op, val a, val b)
{
  val r = {0};
  if (t->kind == K_MAT) { /* OP_MATMUL: a * b, modulo 2^32 */
    r.m[0] = a.m[0] * b.m[0] + a.m[1] * b.m[2];
    r.m[1] = a.m[0] * b.m[1] + a.m[1] * b.m[3];
    r.m[2] = a.m[2] * b.m[0] + a.m[3] * b.m[2];
    r.m[3] = a.m[2] * b.m[1] + a.m[3] * b.m[3];
    return r;
  }
  if (t->is_int) {
    int lt = t->is_signed ? (int64_t)a.u < (int64_t)b.u : a.u < b.u;
    switch (op) {
    case OP_SUM: r.u = a.u + b.u; break;
    case OP_PROD: r.u = a.u * b.u; break;
    case OP_MIN: r.u = lt ? a.u : b.u; break;
    case OP_MAX: r.u = lt ? b.u : a.u; break;
    case OP_AND: r.u = a.u & b.u; break;
    case OP_LAST: r.u = b.u; break;
    case OP_OR: r.u = a.u | b.u; break;
    default: r.u = a.u ^ b.u; break;
    }
    r.u = trunc_u(t, r.u);
    return r;
  }
  if (op == OP_LAST) return b;
  switch (op) {
  case OP_SUM: r.f = a.f + b.f; break;
  case OP_PROD: r.f = a.f * b.f; break;
  case OP_MIN: r.f = b.f < a.f ? b.f : a.f; break;
  default: r.f = a.f < b.f ? b.f : a.f; break;
  }
  r.mag = a.mag + b.mag;
  r.depth = (a.depth > b.depth ? a.depth : b.depth) + 1;
  return r;
}

static double unit_roundoff(const tinfo *t)
{
  switch (t->kind) {
  case K_F16: return ldexp(1.0, -11);
  case K_BF16: return ldexp(1.0, -8);
  case K_F32: return ldexp(1.0, -24);
  default: return ldexp(1.0, -53);
  }
}

int matches(const kase *k, const void *got, val ref, int depth_bound, char *why, size_t wsize)
{
  const tinfo *t = &TY[k->type];
  if (t->kind == K_MAT) {
    uint32_t g[4];
    memcpy(g, got, sizeof g);
    if (!memcmp(g, ref.m, sizeof g)) return 1;
    snprintf(why, wsize, "got [%u %u; %u %u], expected [%u %u; %u %u]", g[0], g[1], g[2], g[3], ref.m[0], ref.m[1],
             ref.m[2], ref.m[3]);
    return 0;
  }
  if (t->is_int) {
    uint64_t g = ld_u(t, got);
    if (g == ref.u) return 1;
    snprintf(why, wsize, "got %llu (0x%llx), expected %llu (0x%llx)", (unsigned long long)g, (unsigned long long)g,
             (unsigned long long)ref.u, (unsigned long long)ref.u);
    return 0;
  }
  long double g = ld_f(t, got);
  long double tol = 0;
  if (k->op == OP_SUM) tol = (long double)(depth_bound + 2) * unit_roundoff(t) * ref.mag;
  if (!isnan((double)g) && fabsl(g - ref.f) <= tol) return 1;
  snprintf(why, wsize, "got %.9Lg, expected %.9Lg (tolerance %.3Lg)", g, ref.f, tol);
  return 0;
}

void gen_value(const kase *k, void *p, size_t idx, size_t special1, size_t special2)
{
  const tinfo *t = &TY[k->type];
  int op = uses_op(k->fam) ? k->op : -1;
  int bits = 8 * t->size;
  if (k->fam == FAM_BHIST) { /* bin numbers (CUB indexes the bins with the samples: a signed type's are
                                * 0..its maximum) */
    uint64_t bins = (uint64_t)k->wi;
    if (t->is_signed && bits < 64 && bins > (1ull << (bits - 1))) bins = 1ull << (bits - 1);
    st_u(t, p, rnd() % bins);
    return;
  }
  if (small_keys(k->fam)) { /* sort keys, runs: 0..7, many duplicates (mat2: its field a) */
    if (t->kind == K_MAT) {
      uint32_t m[4] = {(uint32_t)(rnd() % 8), (uint32_t)rnd(), (uint32_t)rnd(), (uint32_t)rnd()};
      memcpy(p, m, sizeof m);
    } else if (t->is_int) {
      st_u(t, p, rnd() % 8);
    } else {
      st_f(t, p, (double)(rnd() % 8));
    }
    return;
  }
  if (t->kind == K_MAT) {
    uint32_t m[4];
    for (int i = 0; i < 4; ++i) m[i] = (uint32_t)rnd();
    memcpy(p, m, sizeof m);
    return;
  }
  if (t->is_int) {
    uint64_t v = rnd();
    if (op == OP_PROD) {
      static const int64_t odd[] = {1, -1, 3, 5, -3, 7, 1, -1};
      v = (uint64_t)odd[rnd() % 8];
    } else if (op == OP_AND) {
      v = rnd() % 8 == 0 ? ~(1ull << (rnd() % (unsigned)bits)) : ~0ull;
    } else if (op == OP_OR) {
      v = 1ull << (rnd() % (unsigned)bits);
    }
    st_u(t, p, v);
    return;
  }
  double v;
  if (op == OP_PROD) v = idx == special1 ? 2.0 : idx == special2 ? 0.5 : (rnd() & 1 ? 1.0 : -1.0);
  else if (op == OP_MIN || op == OP_MAX) v = unif(-100, 100);
  else v = unif(-1, 1);
  st_f(t, p, v);
}

