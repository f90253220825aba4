/* The GPU suite's second-wave block cases (block_exchange, block_merge_sort, block_discontinuity,
 * block_adjacent_difference, block_shuffle): test kernels, their custom operators and host checks.
 * A block's tile is its N items a thread, thread t's at (b * bt + t) * N (blocked); the exchanges' ranks are a
 * permutation of the tile, (j * P + b) mod (bt * N) for the item at blocked place j, P a prime not dividing
 * bt * N; the guarded scatter skips a third of them (negative ranks), the flagged one another third. */
#include "suite.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank_prime(int tile)
{
  static const int primes[] = {3, 5, 7, 11, 13, 17, 19, 23};
  for (size_t i = 0; i < sizeof primes / sizeof primes[0]; ++i)
    if (tile % primes[i]) return primes[i];
  return 29;
}

/* a radix rank's digit: `bits` bits of the raw key from begin[b % 4] */
static int rank_bits(const kase *k) { return k->algo == 1 ? 1 : k->algo == 2 ? 8 : 4; }
static int rank_begin(const kase *k, int b)
{
  const int room = (int)TY[k->type].size * 8 - rank_bits(k);
  const int begins[4] = {0, room, room / 2, room >= 1 ? 1 : 0};
  return begins[b % 4];
}

/* the exchanges: 0 striped_to_blocked 1 blocked_to_striped 2 warp_striped_to_blocked 3 blocked_to_warp_striped
 * 4 scatter_to_blocked 5 scatter_to_striped 6 scatter_to_striped_guarded 7 scatter_to_striped_flagged */
static int skipped(int var, int j, int b) { return (var == 6 && (j + b) % 3 == 0) || (var == 7 && (j + b) % 3 == 1); }

void block2_kernel_source(FILE *f, const kase *k, int idx)
{
  const char *T = TY[k->type].ctype;
  const int bt = k->bx * k->by * k->bz, n = k->n;
  fprintf(f,
          "extern \"C\" __global__ void __launch_bounds__(%d) case_%d(const %s *in, %s *out, %s *out2, const int *valid, "
          "const %s *aux, int flag)\n{\n  extern __shared__ __align__(16) unsigned char smem[];\n"
          "  const int tid = threadIdx.x + threadIdx.y * %d + threadIdx.z * %d;\n  const size_t b = blockIdx.x;\n"
          "  (void)out2; (void)valid; (void)flag;\n  %s items[%d];\n"
          "  for (int i = 0; i < %d; ++i) items[i] = in[(b * %d + tid) * %d + i];\n",
          bt, idx, T, T, T, T, k->bx, k->bx * k->by, T, n, n, bt, n);
  if (k->fam == FAM_BEXCH) {
    fprintf(f, "  %s res[%d];\n  int ranks[%d], flags[%d];\n  for (int i = 0; i < %d; ++i) {\n"
               "    const int j = tid * %d + i;\n    res[i] = aux[%d];\n"
               "    ranks[i] = (int)(((size_t)j * %d + b) %% %d);\n"
               "    if (%d == 6 && (j + b) %% 3 == 0) ranks[i] = -1 - j;\n"
               "    flags[i] = (j + b) %% 3 != 1;\n  }\n  (void)ranks; (void)flags;\n",
            T, n, n, n, n, n, GRID, rank_prime(bt * n), bt * n, k->var);
    if (k->var < 4) fprintf(f, "  %s(items, res, smem);\n", k->sym);
    else if (k->var < 7) fprintf(f, "  %s(items, res, ranks, smem);\n", k->sym);
    else fprintf(f, "  %s(items, res, ranks, flags, smem);\n", k->sym);
    fprintf(f, "  for (int i = 0; i < %d; ++i) out[(b * %d + tid) * %d + i] = res[i];\n}\n\n", n, bt, n);
    return;
  }
  if (k->fam == FAM_BDISC || k->fam == FAM_BADJ || k->fam == FAM_BSHUF) {
    /* a tile predecessor (aux[b]) and successor (aux[b + 1 mod GRID]); flags to out2 (heads, then tails) */
    fprintf(f, "  %s res[%d];\n  int h[%d], tl[%d];\n  %s pred = aux[b], succ = aux[(b + 1) %% %d], edge = aux[%d];\n"
               "  for (int i = 0; i < %d; ++i) { res[i] = aux[%d]; h[i] = tl[i] = -7; }\n"
               "  (void)h; (void)tl; (void)pred; (void)succ;\n",
            T, n, n, n, T, GRID, GRID, n, GRID);
    const char *v = VARS[k->fam][k->var];
    if (k->fam == FAM_BDISC) {
      const int heads = !!strstr(v, "heads"), tails = !!strstr(v, "tails");
      fprintf(f, "  %s(%s%sitems, %s%ssmem);\n", k->sym, heads ? "h, " : "", tails ? "tl, " : "",
              strstr(v, "pred") ? "&pred, " : "", strstr(v, "succ") ? "&succ, " : "");
      fprintf(f, "  for (int i = 0; i < %d; ++i) { ((int *)out2)[(b * %d + tid) * %d + i] = h[i]; "
                 "((int *)out2)[%d + (b * %d + tid) * %d + i] = tl[i]; }\n}\n\n", n, bt, n, GRID * bt * n, bt, n);
      return;
    }
    if (k->fam == FAM_BADJ)
      fprintf(f, "  %s(items, res, %s%s%ssmem);\n", k->sym, strstr(v, "partial") ? "valid[b], " : "",
              strstr(v, "pred") ? "&pred, " : "", strstr(v, "succ") ? "&succ, " : "");
    else if (k->var < 2) /* offset, rotate: distances 1, -1, bt / 2 + 1, bt + 5 */
      fprintf(f, "  const int d[4] = {1, -1, %d, %d};\n  %s(&items[0], &res[0], d[b %% 4], smem);\n", bt / 2 + 1, bt + 5,
              k->sym);
    else if (k->var == 2 || k->var == 4)
      fprintf(f, "  %s(items, res, smem);\n", k->sym);
    else
      fprintf(f, "  %s(items, res, &edge, smem);\n  out2[b * %d + tid] = edge;\n", k->sym, bt);
    fprintf(f, "  for (int i = 0; i < %d; ++i) out[(b * %d + tid) * %d + i] = res[i];\n}\n\n", n, bt, n);
    return;
  }
  if (k->fam == FAM_BRANK) { /* block b ranks by the digit from rank_begin(b) */
    fprintf(f, "  const int begin[4] = {%d, %d, %d, %d};\n  int ranks[%d];\n  for (int i = 0; i < %d; ++i) ranks[i] = -7;\n"
               "  %s(items, ranks, begin[b %% 4], smem);\n"
               "  for (int i = 0; i < %d; ++i) ((int *)out2)[(b * %d + tid) * %d + i] = ranks[i];\n}\n\n",
            rank_begin(k, 0), rank_begin(k, 1), rank_begin(k, 2), rank_begin(k, 3), n, n, k->sym, n, bt, n);
    return;
  }
  if (k->fam == FAM_BHIST) { /* composite adds to bins holding their own numbers; init zeroes poisoned bins */
    fprintf(f, "  __shared__ unsigned hist[%d];\n  for (int i = tid; i < %d; i += %d) hist[i] = %s;\n  __syncthreads();\n"
               "  %s(items, hist, smem);\n  __syncthreads();\n"
               "  for (int i = tid; i < %d; i += %d) ((unsigned *)out2)[b * %d + i] = hist[i];\n}\n\n",
            k->wi, k->wi, bt, k->var ? "i" : "0xA5A5A5A5u", k->sym, k->wi, bt, k->wi);
    return;
  }
  if (k->fam == FAM_BRLD) { /* run lengths rld_len; windows from 0, one window on, 3, past the total */
    const int D = k->wi, dec = GRID * bt * D, tile = bt * n;
    fprintf(f, "  unsigned lens[%d], offs[%d], total = 0xA5A5A5A5u;\n  %s dec[%d];\n"
               "  for (int i = 0, j = tid * %d; i < %d; ++i, ++j)\n"
               "    lens[i] = j >= %d ? 0u : (unsigned)((b * %d + j) * 7 %% 4 + 1);\n"
               "  for (int i = 0; i < %d; ++i) { dec[i] = aux[%d]; offs[i] = 0xA5A5A5A5u; }\n"
               "  const int from[4] = {0, %d, 3, 1 << 30};\n",
            n, D, T, D, n, n, tile - tile / 4, tile, D, GRID, D * bt);
    if (k->var) fprintf(f, "  %s(items, lens, dec, offs, from[b %% 4], &total, smem);\n", k->sym);
    else fprintf(f, "  %s(items, lens, dec, from[b %% 4], &total, smem);\n", k->sym);
    fprintf(f, "  unsigned char *o2 = (unsigned char *)out2;\n"
               "  for (int i = 0; i < %d; ++i) {\n    ((%s *)o2)[(b * %d + tid) * %d + i] = dec[i];\n"
               "    ((unsigned *)(o2 + %zu))[(b * %d + tid) * %d + i] = offs[i];\n  }\n"
               "  ((unsigned *)(o2 + %zu))[b * %d + tid] = total;\n}\n\n",
            D, T, bt, D, (size_t)dec * TY[k->type].size, bt, D, (size_t)dec * TY[k->type].size + (size_t)dec * 4, bt);
    return;
  }
  if (k->fam == FAM_BRADIX) { /* block b sorts the bit range RANGES[b]; pairs carry each item's place */
    const int kb = (int)TY[k->type].size * 8;
    fprintf(f, "  const int range[4][2] = {{0, %d}, {0, %d}, {3, %d}, {5, 5}};\n  unsigned vals[%d];\n"
               "  for (int i = 0; i < %d; ++i) vals[i] = tid * %d + i;\n  (void)vals;\n",
            kb, kb / 2, kb - 2, n, n, n);
    fprintf(f, "  %s(items, %srange[b %% 4][0], range[b %% 4][1], smem);\n", k->sym, k->var >= 4 ? "vals, " : "");
    fprintf(f, "  for (int i = 0; i < %d; ++i) out[(b * %d + tid) * %d + i] = items[i];\n", n, bt, n);
    if (k->var >= 4) fprintf(f, "  for (int i = 0; i < %d; ++i) ((unsigned *)out2)[(b * %d + tid) * %d + i] = vals[i];\n", n, bt, n);
    fprintf(f, "}\n\n");
    return;
  }
  /* the merge sort: pairs carry each item's place in the tile as a u32 value */
  fprintf(f, "  unsigned vals[%d];\n  for (int i = 0; i < %d; ++i) vals[i] = tid * %d + i;\n  (void)vals;\n", n, n, n);
  fprintf(f, "  %s(items, %s%ssmem);\n", k->sym, k->var >= 2 ? "vals, " : "", k->var % 2 ? "valid[b], &aux[b], " : "");
  fprintf(f, "  for (int i = 0; i < %d; ++i) out[(b * %d + tid) * %d + i] = items[i];\n", n, bt, n);
  if (k->var >= 2) fprintf(f, "  for (int i = 0; i < %d; ++i) ((unsigned *)out2)[(b * %d + tid) * %d + i] = vals[i];\n", n, bt, n);
  fprintf(f, "}\n\n");
}

static int block2_other_check(const kase *k, const unsigned char *in, const unsigned char *out,
                              const unsigned char *out2, const unsigned char *aux, const int *valid, char *msg,
                              size_t msize);
static int radix_check(const kase *k, const unsigned char *in, const unsigned char *out, const unsigned char *out2,
                       char *msg, size_t msize);
static int hist_rld_check(const kase *k, const unsigned char *in, const unsigned char *out2, char *msg, size_t msize);
static int rank_check(const kase *k, const unsigned char *in, const unsigned char *out2, char *msg, size_t msize);

/* Place in the tile of thread th's item i: blocked, striped, warp-striped (warps of min(bt, 32) lanes). */
static int place(int how, int th, int i, int bt, int n)
{
  const int wt = bt < 32 ? bt : 32;
  switch (how) {
  case 0: return th * n + i;
  case 1: return i * bt + th;
  default: return (th / 32) * 32 * n + i * wt + th % 32;
  }
}

int block2_check(const kase *k, const unsigned char *in, const unsigned char *out, const unsigned char *out2,
                 const unsigned char *aux, const int *valid, char *msg, size_t msize)
{
  const size_t es = (size_t)TY[k->type].size;
  const int bt = k->bx * k->by * k->bz, n = k->n, tile = bt * n;
  char where[48];
  if (k->fam == FAM_BDISC || k->fam == FAM_BADJ || k->fam == FAM_BSHUF)
    return block2_other_check(k, in, out, out2, aux, valid, msg, msize);
  if (k->fam == FAM_BRADIX) return radix_check(k, in, out, out2, msg, msize);
  if (k->fam == FAM_BHIST || k->fam == FAM_BRLD) return hist_rld_check(k, in, out2, msg, msize);
  if (k->fam == FAM_BRANK) return rank_check(k, in, out2, msg, msize);
  if (k->fam == FAM_BSORT) {
    for (int b = 0; b < GRID; ++b) {
      const size_t at = (size_t)b * tile;
      snprintf(where, sizeof where, "block %d", b);
      if (!sort_group_check(k, in + at * es, tile, k->var % 2 ? valid[b] : tile, aux + b * es, out + at * es,
                            out2 + at * 4, where, msg, msize))
        return 0;
    }
    return 1;
  }
  /* where each input item goes (its place, or a rank), and which place each output slot reads */
  static const int from[8] = {1, 0, 2, 0, -1, -1, -1, -1}, to[8] = {0, 1, 0, 2, 0, 1, 1, 1};
  const int P = rank_prime(tile);
  int *src = malloc((size_t)tile * sizeof *src); /* place -> blocked index of the input item there, or -1 */
  int ok = 1;
  for (int b = 0; b < GRID && ok; ++b) {
    for (int p = 0; p < tile; ++p) src[p] = -1;
    int moved = 0, written = 0;
    for (int th = 0; th < bt; ++th)
      for (int i = 0; i < n; ++i) {
        const int j = th * n + i;
        if (skipped(k->var, j, b)) continue;
        const int p = from[k->var] >= 0 ? place(from[k->var], th, i, bt, n) : (int)(((size_t)j * P + (size_t)b) % (size_t)tile);
        src[p] = j;
        ++moved;
      }
    for (int p = 0; p < tile; ++p) written += src[p] >= 0;
    if (written != moved) { /* the test's own ranks or places collide: a bug here, not in the primitive */
      snprintf(msg, msize, "block %d: %d items to %d places (the check's mapping is not one to one)", b, moved, written);
      ok = 0;
    }
    for (int th = 0; th < bt && ok; ++th)
      for (int i = 0; i < n && ok; ++i) {
        const int p = place(to[k->var], th, i, bt, n), j = src[p];
        if (j < 0) continue; /* a place no scatter wrote: unspecified (CUB's) */
        const unsigned char *got = out + ((size_t)b * tile + (size_t)th * n + i) * es;
        if (memcmp(got, in + ((size_t)b * tile + (size_t)j) * es, es) != 0) {
          snprintf(msg, msize, "block %d thread %d item %d (place %d, from item %d): bytes differ", b, th, i, p, j);
          ok = 0;
        }
      }
  }
  free(src);
  return ok;
}

/* ---- discontinuity, adjacent difference, shuffle ---- */

const char *block2_op(const kase *k, char *buf, size_t size)
{
  if (k->fam != FAM_BDISC && k->fam != FAM_BADJ) return NULL;
  if (strcmp(ALGOS[k->fam][k->algo], "custom")) return ALGOS[k->fam][k->algo];
  snprintf(buf, size, "custom:%s_%s", k->fam == FAM_BDISC ? "disc" : "adj", TY[k->type].code);
  return buf;
}

const char *block2_op_spelling(const kase *k, char *buf, size_t size)
{
  const char *op = block2_op(k, buf, size);
  if (!op) return "";
  if (op == buf) buf[6] = '_'; /* custom:x -> custom_x */
  return op;
}

void block2_prelude(FILE *f, const kase *cases, int first, int count)
{
  int disc[N_TYPES] = {0}, adj[N_TYPES] = {0};
  for (int i = first; i < first + count; ++i) {
    const kase *c = &cases[i];
    const char *T = TY[c->type].ctype, *code = TY[c->type].code;
    if (c->fam == FAM_BDISC && !strcmp(ALGOS[c->fam][c->algo], "custom") && !disc[c->type]++) {
      if (c->type == T_MAT2)
        fprintf(f, "extern \"C\" __device__ int disc_mat2(const mat2 *a, const mat2 *b) { return a->a / 2 != b->a / 2; }\n");
      else
        fprintf(f, "extern \"C\" __device__ int disc_%s(const %s *a, const %s *b)\n{ return (long long)(float)*a / 2 != "
                   "(long long)(float)*b / 2; }\n", code, T, T);
    }
    if (c->fam == FAM_BADJ && !strcmp(ALGOS[c->fam][c->algo], "custom") && !adj[c->type]++) {
      if (c->type == T_MAT2)
        fprintf(f, "extern \"C\" __device__ void adj_mat2(const mat2 *a, const mat2 *b, mat2 *o)\n"
                   "{ *o = mat2{a->a + b->a, a->b + b->b, a->c + b->c, a->d + b->d}; }\n");
      else
        fprintf(f, "extern \"C\" __device__ void adj_%s(const %s *a, const %s *b, %s *o) { *o = (%s)(*a + *b); }\n", code, T,
                T, T, T);
    }
  }
}

size_t block2_out2_items(const kase *k, size_t n_in, size_t es)
{
  if (is_sort_fam(k->fam) || k->fam == FAM_BRADIX) return (n_in * 4 + es - 1) / es;
  if (k->fam == FAM_BHIST) return ((size_t)GRID * (size_t)k->wi * 4 + es - 1) / es;
  if (k->fam == FAM_BRANK) return (n_in * 4 + es - 1) / es;
  if (k->fam == FAM_BRLD) { /* decoded items, their offsets (u32), the totals (u32) */
    const size_t dec = (size_t)GRID * (size_t)(k->bx * k->by * k->bz) * (size_t)k->wi;
    return (dec * es + dec * 4 + (size_t)GRID * (size_t)(k->bx * k->by * k->bz) * 4 + es - 1) / es;
  }
  if (k->fam == FAM_BDISC) return (n_in * 8 + es - 1) / es;
  return 0;
}

/* an item's value for the orderings and the custom flag op (mat2: its field a) */
static long double num(const kase *k, const unsigned char *p)
{
  const tinfo *t = &TY[k->type];
  if (t->kind == K_MAT) {
    uint32_t a;
    memcpy(&a, p, 4);
    return a;
  }
  if (t->is_int) return t->is_signed ? (long double)(int64_t)ld_u(t, p) : (long double)ld_u(t, p);
  return ld_f(t, p);
}

static int flag(const kase *k, const unsigned char *a, const unsigned char *b)
{
  const long double x = num(k, a), y = num(k, b);
  switch (k->algo) {
  case 0: return TY[k->type].kind == K_MAT ? memcmp(a, b, 16) != 0 : x != y;
  case 1: return x < y;
  default: return (long long)x / 2 != (long long)y / 2;
  }
}

/* a op b of the adjacent difference (sub: a - b; the custom: a + b), in the item's type */
static void diff(const kase *k, const unsigned char *a, const unsigned char *b, unsigned char *out)
{
  const tinfo *t = &TY[k->type];
  const int add = k->algo == 1;
  if (t->kind == K_MAT) {
    uint32_t x[4], y[4];
    memcpy(x, a, 16);
    memcpy(y, b, 16);
    for (int i = 0; i < 4; ++i) x[i] = add ? x[i] + y[i] : x[i] - y[i];
    memcpy(out, x, 16);
  } else if (t->is_int) {
    st_u(t, out, add ? ld_u(t, a) + ld_u(t, b) : ld_u(t, a) - ld_u(t, b));
  } else {
    st_f(t, out, (double)(add ? ld_f(t, a) + ld_f(t, b) : ld_f(t, a) - ld_f(t, b)));
  }
}

static int block2_other_check(const kase *k, const unsigned char *in, const unsigned char *out,
                              const unsigned char *out2, const unsigned char *aux, const int *valid, char *msg,
                              size_t msize)
{
  const size_t es = (size_t)TY[k->type].size;
  const int bt = k->bx * k->by * k->bz, n = k->n, tile = bt * n;
  const char *v = VARS[k->fam][k->var];
  const unsigned char *poison = aux + (size_t)GRID * es;
  unsigned char want[16];
  for (int b = 0; b < GRID; ++b) {
    const unsigned char *x = in + (size_t)b * tile * es, *pred = aux + (size_t)b * es,
                        *succ = aux + (size_t)((b + 1) % GRID) * es;
    const unsigned char *got = out + (size_t)b * tile * es;
    if (k->fam == FAM_BDISC) {
      const int *heads = (const int *)out2 + (size_t)b * tile, *tails = (const int *)out2 + (size_t)GRID * tile + (size_t)b * tile;
      for (int j = 0; j < tile; ++j) {
        const int hw = j ? flag(k, x + (j - 1) * es, x + j * es) : strstr(v, "pred") ? flag(k, pred, x) : 1;
        const int tw = j < tile - 1 ? flag(k, x + j * es, x + (j + 1) * es) : strstr(v, "succ") ? flag(k, x + j * es, succ) : 1;
        if (strstr(v, "heads") && heads[j] != hw) {
          snprintf(msg, msize, "block %d item %d: head flag %d, want %d", b, j, heads[j], hw);
          return 0;
        }
        if (strstr(v, "tails") && tails[j] != tw) {
          snprintf(msg, msize, "block %d item %d: tail flag %d, want %d", b, j, tails[j], tw);
          return 0;
        }
      }
      continue;
    }
    for (int j = 0; j < tile; ++j) {
      const unsigned char *w = want;
      if (k->fam == FAM_BADJ) {
        const int vv = strstr(v, "partial") ? valid[b] : tile;
        if (v[0] == 'l') { /* left: each item op the one before */
          if (j >= vv) w = x + j * es;
          else if (j) diff(k, x + j * es, x + (j - 1) * es, want);
          else if (strstr(v, "pred")) diff(k, x, pred, want);
          else w = x;
        } else { /* right: each item op the one after */
          if (j < vv - 1) diff(k, x + j * es, x + (j + 1) * es, want);
          else if (j == tile - 1 && strstr(v, "succ")) diff(k, x + j * es, succ, want);
          else w = x + j * es;
        }
      } else if (k->var < 2) { /* offset, rotate by d */
        const int d[4] = {1, -1, bt / 2 + 1, bt + 5}, src = j + d[b % 4];
        if (k->var == 0) w = src >= 0 && src < bt ? x + src * es : poison;
        else w = x + (size_t)(((src % bt) + bt) % bt) * es;
      } else if (k->var < 4) { /* up: from the place before; thread 0's first unchanged */
        w = j ? x + (j - 1) * es : poison;
      } else { /* down: from the place after; the last thread's last unchanged */
        w = j < tile - 1 ? x + (j + 1) * es : poison;
      }
      if (memcmp(got + (size_t)j * es, w, es) != 0) {
        snprintf(msg, msize, "block %d item %d (thread %d, valid %d): bytes differ", b, j, j / n, valid[b]);
        return 0;
      }
    }
    if (k->fam == FAM_BSHUF && (k->var == 3 || k->var == 5)) { /* the suffix (last item) or prefix (first), every thread */
      const unsigned char *w = k->var == 3 ? x + (size_t)(tile - 1) * es : x;
      for (int th = 0; th < bt; ++th)
        if (memcmp(out2 + ((size_t)b * bt + th) * es, w, es) != 0) {
          snprintf(msg, msize, "block %d thread %d: the tile's %s differs", b, th, k->var == 3 ? "suffix" : "prefix");
          return 0;
        }
    }
  }
  return 1;
}

/* ---- radix sort ---- */

/* CUB's bit-ordered key (radix_rank_sort_operations.cuh): signed integers with the sign bit flipped, floats
 * with the sign bit flipped when clear and every bit when set, -0.0 as +0.0 */
static uint64_t bit_ordered(const kase *k, const unsigned char *p)
{
  const tinfo *t = &TY[k->type];
  const int bits = t->size * 8;
  const uint64_t high = 1ull << (bits - 1), all = bits == 64 ? ~0ull : (1ull << bits) - 1;
  uint64_t u = 0;
  memcpy(&u, p, (size_t)t->size);
  if (t->is_int) return t->is_signed ? u ^ high : u;
  if (u == high) u = 0; /* -0.0 */
  return (u & high ? ~u : u ^ high) & all;
}

static _Thread_local const uint64_t *radix_digits;
static _Thread_local int radix_desc;
static int radix_cmp(const void *pa, const void *pb)
{
  const int a = *(const int *)pa, b = *(const int *)pb;
  const uint64_t x = radix_digits[a], y = radix_digits[b];
  if (x != y) return (x < y) == !radix_desc ? -1 : 1;
  return (a > b) - (a < b); /* stable */
}

static int radix_check(const kase *k, const unsigned char *in, const unsigned char *out, const unsigned char *out2,
                       char *msg, size_t msize)
{
  const size_t es = (size_t)TY[k->type].size;
  const int bt = k->bx * k->by * k->bz, n = k->n, tile = bt * n, kb = (int)es * 8;
  const int range[4][2] = {{0, kb}, {0, kb / 2}, {3, kb - 2}, {5, 5}};
  const int desc = k->var % 2, striped = k->var % 4 >= 2, pairs = k->var >= 4;
  uint64_t *digits = malloc((size_t)tile * sizeof *digits);
  int *order = malloc((size_t)tile * sizeof *order), ok = 1;
  for (int b = 0; b < GRID && ok; ++b) {
    const int lo = range[b % 4][0], w = range[b % 4][1] - lo;
    const unsigned char *x = in + (size_t)b * tile * es;
    for (int j = 0; j < tile; ++j) {
      const uint64_t v = bit_ordered(k, x + (size_t)j * es) >> lo;
      digits[j] = w >= 64 ? v : v & ((1ull << w) - 1);
      order[j] = j;
    }
    radix_digits = digits;
    radix_desc = desc;
    qsort(order, (size_t)tile, sizeof *order, radix_cmp);
    for (int th = 0; th < bt && ok; ++th)
      for (int i = 0; i < n && ok; ++i) {
        const int p = striped ? i * bt + th : th * n + i, slot = th * n + i;
        if (memcmp(out + ((size_t)b * tile + slot) * es, x + (size_t)order[p] * es, es) != 0) {
          snprintf(msg, msize, "block %d (bits %d..%d) thread %d item %d: key bytes differ (the stable order's item %d)",
                   b, lo, lo + w, th, i, order[p]);
          ok = 0;
        }
        uint32_t v;
        memcpy(&v, out2 + ((size_t)b * tile + slot) * 4, 4);
        if (ok && pairs && v != (uint32_t)order[p]) {
          snprintf(msg, msize, "block %d (bits %d..%d) thread %d item %d: value %u, the stable order's %d", b, lo, lo + w,
                   th, i, v, order[p]);
          ok = 0;
        }
      }
  }
  free(digits);
  free(order);
  return ok;
}

/* ---- histogram, run-length decode ---- */

/* The length of run j of block b's tile: 1..4, but for the last quarter of the tile's runs, 0 (CUB: "a run
 * of length zero may not be followed by a run length that is not zero"). */
static uint32_t rld_len(int b, int tile, int j)
{
  return j >= tile - tile / 4 ? 0 : (uint32_t)(((size_t)b * (size_t)tile + (size_t)j) * 7 % 4 + 1);
}

static int hist_rld_check(const kase *k, const unsigned char *in, const unsigned char *out2, char *msg, size_t msize)
{
  const size_t es = (size_t)TY[k->type].size;
  const int bt = k->bx * k->by * k->bz, n = k->n;
  if (k->fam == FAM_BHIST) {
    const int bins = k->wi;
    for (int b = 0; b < GRID; ++b) {
      uint32_t want[256];
      for (int i = 0; i < bins; ++i) want[i] = k->var ? (uint32_t)i : 0;
      for (int j = 0; j < bt * n; ++j) ++want[ld_u(&TY[k->type], in + ((size_t)b * bt * n + (size_t)j) * es) % (uint64_t)bins];
      for (int i = 0; i < bins; ++i) {
        uint32_t got;
        memcpy(&got, out2 + ((size_t)b * bins + (size_t)i) * 4, 4);
        if (got != want[i]) {
          snprintf(msg, msize, "block %d bin %d: %u, want %u", b, i, got, want[i]);
          return 0;
        }
      }
    }
    return 1;
  }
  /* the run-length decode: block b's runs in thread order, lengths rld_len */
  const int D = k->wi, dec = GRID * bt * D;
  const unsigned char *offs = out2 + (size_t)dec * es, *totals = offs + (size_t)dec * 4;
  for (int b = 0; b < GRID; ++b) {
    uint32_t total = 0;
    for (int j = 0; j < bt * n; ++j) total += rld_len(b, bt * n, j);
    const uint32_t from4[4] = {0, (uint32_t)(D * bt), 3, 1u << 30}, from = from4[b % 4] < total ? from4[b % 4] : total;
    for (int th = 0; th < bt; ++th) {
      uint32_t t;
      memcpy(&t, totals + ((size_t)b * bt + (size_t)th) * 4, 4);
      if (t != total) {
        snprintf(msg, msize, "block %d thread %d: total %u, want %u", b, th, t, total);
        return 0;
      }
      for (int i = 0; i < D; ++i) {
        const uint32_t p = from + (uint32_t)(th * D + i);
        if (p >= total) continue; /* past the decoded sequence: unspecified */
        uint32_t start = 0;
        int run = 0;
        for (;; ++run) { /* the run holding place p */
          const uint32_t len = rld_len(b, bt * n, run);
          if (p < start + len) break;
          start += len;
        }
        const size_t slot = (size_t)b * bt * D + (size_t)th * D + (size_t)i;
        if (memcmp(out2 + slot * es, in + ((size_t)b * bt * n + (size_t)run) * es, es) != 0) {
          snprintf(msg, msize, "block %d thread %d item %d (place %u, run %d): bytes differ", b, th, i, p, run);
          return 0;
        }
        uint32_t o;
        memcpy(&o, offs + slot * 4, 4);
        if (k->var && o != p - start) {
          snprintf(msg, msize, "block %d thread %d item %d: offset %u within its run, want %u", b, th, i, o, p - start);
          return 0;
        }
      }
    }
  }
  return 1;
}

/* ---- radix rank ---- */

static int rank_check(const kase *k, const unsigned char *in, const unsigned char *out2, char *msg, size_t msize)
{
  const size_t es = (size_t)TY[k->type].size;
  const int bt = k->bx * k->by * k->bz, n = k->n, tile = bt * n, bits = rank_bits(k);
  uint64_t *digits = malloc((size_t)tile * sizeof *digits);
  int *order = malloc((size_t)tile * sizeof *order), ok = 1;
  for (int b = 0; b < GRID && ok; ++b) {
    const int lo = rank_begin(k, b);
    for (int j = 0; j < tile; ++j) {
      uint64_t u = 0;
      memcpy(&u, in + ((size_t)b * tile + (size_t)j) * es, es);
      digits[j] = (u >> lo) & ((1ull << bits) - 1);
      order[j] = j;
    }
    radix_digits = digits;
    radix_desc = k->var;
    qsort(order, (size_t)tile, sizeof *order, radix_cmp);
    for (int p = 0; p < tile && ok; ++p) { /* the item at sorted place p has rank p */
      int got;
      memcpy(&got, out2 + ((size_t)b * tile + (size_t)order[p]) * 4, 4);
      if (got != p) {
        snprintf(msg, msize, "block %d (bits %d..%d) item %d: rank %d, want %d", b, lo, lo + bits, order[p], got, p);
        ok = 0;
      }
    }
  }
  free(digits);
  free(order);
  return ok;
}
