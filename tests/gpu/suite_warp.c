/* The GPU suite's warp cases (warp_reduce, warp_scan; warp_load, warp_store, warp_exchange): block shapes,
 * test kernels and the host check.
 *
 * Logical warps follow CUB: a hardware warp holds 32 / L whole logical warps of L lanes (lane = hardware
 * lane % L); for an L that does not divide 32 the lanes after the last whole logical warp take no part
 * (their outputs must stay poisoned). Each case runs on two block shapes: a 1-D block whose last hardware
 * warp is partial (e.g. 40 threads in logical warps of 8) and a 2-D one. */
#include "suite.h"

#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

/* Block dims of shape `which` (0 or 1) for k, and the logical warps in such a block. */
void warp_shape(const kase *k, int which, int dims[3], int *n_warps)
{
  const int lanes = k->n, per_hw = 32 / lanes;
  /* shape 0: one full hardware warp plus a partial one holding j whole logical warps;
   * shape 1: three full hardware warps as a 2-D block (or 1x1 for one lane) */
  int hw = which == 0 ? 1 + k->type % 2 : 3, j = which == 0 ? 1 + ((k->op < 0 ? 0 : k->op) + k->var + k->algo) % per_hw : 0;
  int bt = 32 * hw + j * lanes;
  if (which == 0) {
    dims[0] = bt, dims[1] = dims[2] = 1;
  } else {
    dims[0] = 16, dims[1] = bt / 16, dims[2] = 1;
  }
  *n_warps = hw * per_hw + j;
}

/* A scatter's ranks: a permutation of the logical warp's tile, (j * P + g) mod (L * N) for the item at
 * blocked position j, with P odd and prime to N (so to L * N). */
static int rank_prime(int items) { return items % 3 ? 3 : items % 5 ? 5 : 7; }

/* warp load, store, exchange: logical warp g's tile is in/out + g * L * N (load, store); each thread's N
 * items are at (b * bt + tid) * N. */
static void warp_data_kernel_source(FILE *f, const kase *k, int idx, const char *up)
{
  const char *T = TY[k->type].ctype;
  const int L = k->n, N = k->wi;
  fprintf(f,
          "extern \"C\" __global__ void case_%d(const %s *in, %s *out, %s *out2, const int *valid, const %s *aux, int flag)\n"
          "{\n  extern __shared__ __align__(16) unsigned char smem[];\n"
          "  const int bt = blockDim.x * blockDim.y * blockDim.z;\n"
          "  const int tid = threadIdx.x + threadIdx.y * blockDim.x + threadIdx.z * blockDim.x * blockDim.y;\n"
          "  const int per_hw = 32 / %d, lw = (tid %% 32) / %d, lane = (tid %% 32) %% %d;\n"
          "  const int nw = (bt / 32) * per_hw + (bt %% 32) / %d, w = (tid / 32) * per_hw + lw;\n"
          "  const size_t b = blockIdx.x, g = b * nw + w;\n"
          "  (void)out2; (void)valid; (void)flag; (void)aux; (void)lane;\n"
          "  unsigned char *temp = smem + (size_t)w * %s_TEMP_BYTES;\n"
          "  %s items[%d], res[%d];\n",
          idx, T, T, T, T, L, L, L, L, up, T, N, N);
  switch (k->fam) {
  case FAM_WSORT: /* pairs: the values are each item's place in the logical warp's blocked tile */
    fprintf(f, "  unsigned vals[%d];\n  for (int i = 0; i < %d; ++i) { items[i] = in[(b * bt + tid) * %d + i]; "
               "vals[i] = lane * %d + i; }\n", N, N, N, N);
    fprintf(f, "  %s(items, %s%stemp);\n", k->sym, k->var >= 2 ? "vals, " : "", k->var % 2 ? "valid[g], &aux[g], " : "");
    fprintf(f, "  for (int i = 0; i < %d; ++i) out[(b * bt + tid) * %d + i] = items[i];\n", N, N);
    if (k->var >= 2)
      fprintf(f, "  for (int i = 0; i < %d; ++i) ((unsigned *)out2)[(b * bt + tid) * %d + i] = vals[i];\n", N, N);
    break;
  case FAM_WLOAD:
    fprintf(f, "  for (int i = 0; i < %d; ++i) res[i] = aux[%d * nw];\n", N, GRID);
    if (k->var) fprintf(f, "  %s(in + g * %d, res, valid[g], &aux[g], temp);\n", k->sym, L * N);
    else fprintf(f, "  %s(in + g * %d, res, temp);\n", k->sym, L * N);
    fprintf(f, "  for (int i = 0; i < %d; ++i) out[(b * bt + tid) * %d + i] = res[i];\n", N, N);
    break;
  case FAM_WSTORE:
    fprintf(f, "  for (int i = 0; i < %d; ++i) items[i] = in[(b * bt + tid) * %d + i];\n", N, N);
    if (k->var) fprintf(f, "  %s(out + g * %d, items, valid[g], temp);\n", k->sym, L * N);
    else fprintf(f, "  %s(out + g * %d, items, temp);\n", k->sym, L * N);
    break;
  default:
    fprintf(f, "  for (int i = 0; i < %d; ++i) { items[i] = in[(b * bt + tid) * %d + i]; res[i] = aux[%d * nw]; }\n",
            N, N, GRID);
    if (k->var == 2) {
      fprintf(f, "  int ranks[%d];\n  for (int i = 0; i < %d; ++i) ranks[i] = (int)(((size_t)(lane * %d + i) * %d + g) %% %d);\n",
              N, N, N, rank_prime(N), L * N);
      fprintf(f, "  %s(items, res, ranks, temp);\n", k->sym);
    } else {
      fprintf(f, "  %s(items, res, temp);\n", k->sym);
    }
    fprintf(f, "  for (int i = 0; i < %d; ++i) out[(b * bt + tid) * %d + i] = res[i];\n", N, N);
  }
  fprintf(f, "}\n\n");
}

/* The sort's order: 1 when key a goes before key b (less, greater, or the test code's comparator). */
static int sorts_before(const kase *k, const unsigned char *a, const unsigned char *b)
{
  const tinfo *t = &TY[k->type];
  if (t->kind == K_MAT) {
    uint32_t x, y;
    memcpy(&x, a, 4);
    memcpy(&y, b, 4);
    return x < y;
  }
  long double x = t->is_int ? (long double)(int64_t)ld_u(t, a) : ld_f(t, a);
  long double y = t->is_int ? (long double)(int64_t)ld_u(t, b) : ld_f(t, b);
  if (t->is_int && !t->is_signed) x = (long double)ld_u(t, a), y = (long double)ld_u(t, b);
  return k->algo == 0 ? x < y : k->algo == 1 ? x > y : (long long)x / 2 > (long long)y / 2;
}

/* The guarded sort's out-of-bounds default: last in the order. CUB sorts the first `valid` items (the
 * default fills the rest of a thread's items before its local sort) and leaves the places after them
 * unspecified, so only those first places are checked. */
void warp_sort_oob(const kase *k, unsigned char *p)
{
  const tinfo *t = &TY[k->type];
  if (t->kind == K_MAT) {
    uint32_t m[4] = {100, 0, 0, 0};
    memcpy(p, m, sizeof m);
  } else if (t->is_int) {
    st_u(t, p, k->algo == 0 ? 100 : 0);
  } else {
    st_f(t, p, k->algo == 0 ? 100.0 : 0.0);
  }
}

static _Thread_local const kase *sort_case;
static _Thread_local const unsigned char **sort_keys;
static int stable_cmp(const void *pa, const void *pb)
{
  const int a = *(const int *)pa, b = *(const int *)pb;
  if (sorts_before(sort_case, sort_keys[a], sort_keys[b])) return -1;
  if (sorts_before(sort_case, sort_keys[b], sort_keys[a])) return 1;
  return (a > b) - (a < b); /* stable: equal keys keep their places' order */
}

int sort_group_check(const kase *k, const unsigned char *tile, int T, int n_valid, const unsigned char *oob,
                     const unsigned char *out, const unsigned char *out2, const char *where, char *msg, size_t msize)
{
  const size_t es = (size_t)TY[k->type].size;
  const int pairs = k->var >= 2;
  static _Thread_local const unsigned char *keys[1024 * 32];
  static _Thread_local int order[1024 * 32];
  if (T > 1024 * 32) {
    snprintf(msg, msize, "%s: a tile of %d items is more than the check holds", where, T);
    return 0;
  }
  for (int p = 0; p < T; ++p) {
    keys[p] = p < n_valid ? tile + (size_t)p * es : oob;
    order[p] = p;
  }
  sort_case = k;
  sort_keys = keys;
  qsort(order, (size_t)T, sizeof order[0], stable_cmp);
  for (int p = 0; p < n_valid; ++p) { /* CUB leaves the places after the valid items unspecified */
    if (memcmp(out + (size_t)p * es, keys[order[p]], es) != 0) {
      snprintf(msg, msize, "%s item %d (valid %d): key bytes differ", where, p, n_valid);
      return 0;
    }
    uint32_t v;
    memcpy(&v, out2 + (size_t)p * 4, 4);
    if (pairs && v != (uint32_t)order[p]) {
      snprintf(msg, msize, "%s item %d: value %u, the stable order's %d", where, p, v, order[p]);
      return 0;
    }
  }
  return 1;
}

static int warp_sort_check(const kase *k, int bt, int nw, const unsigned char *in, const unsigned char *out,
                           const unsigned char *out2, const unsigned char *aux, const int *valid, char *msg,
                           size_t msize)
{
  const size_t es = (size_t)TY[k->type].size;
  const int L = k->n, N = k->wi, T = L * N, per_hw = 32 / L;
  const int guarded = k->var % 2;
  for (int b = 0; b < GRID; ++b)
    for (int w = 0; w < nw; ++w) {
      const size_t g = (size_t)b * nw + (size_t)w;
      const int first = (w / per_hw) * 32 + (w % per_hw) * L, n_valid = guarded ? valid[g] : T;
      const size_t at = ((size_t)b * bt + first) * N; /* blocked: lane l item i at l*N+i */
      char where[64];
      snprintf(where, sizeof where, "block %d logical warp %d", b, w);
      if (!sort_group_check(k, in + at * es, T, n_valid, aux + g * es, out + at * es, out2 + at * 4, where, msg, msize))
        return 0;
    }
  return 1;
}

/* The host check of a warp data case: byte-exact placement. */
static int warp_data_check(const kase *k, const int dims[3], const unsigned char *in, const unsigned char *out,
                           const unsigned char *out2, const unsigned char *aux, const unsigned char *poison,
                           const int *valid, char *msg, size_t msize)
{
  const size_t es = (size_t)TY[k->type].size;
  const int L = k->n, N = k->wi, per_hw = 32 / L, bt = dims[0] * dims[1] * dims[2];
  const int nw = (bt / 32) * per_hw + (bt % 32) / L;
  const int striped = base_algo(k->fam, k->algo) == 1;
  if (k->fam == FAM_WSORT) return warp_sort_check(k, bt, nw, in, out, out2, aux, valid, msg, msize);
  for (int b = 0; b < GRID; ++b)
    for (int w = 0; w < nw; ++w) {
      const size_t g = (size_t)b * nw + (size_t)w;
      const int first = (w / per_hw) * 32 + (w % per_hw) * L; /* thread of lane 0 */
      for (int l = 0; l < L; ++l)
        for (int i = 0; i < N; ++i) {
          const size_t mine = ((size_t)b * bt + first + l) * N + i; /* this thread's item i */
          const unsigned char *expect, *got;
          if (k->fam == FAM_WLOAD || k->fam == FAM_WSTORE) {
            const size_t j = striped ? (size_t)i * L + l : (size_t)l * N + i; /* its place in the tile */
            if (k->fam == FAM_WLOAD) {
              expect = k->var && j >= (size_t)valid[g] ? aux + g * es : in + (g * L * N + j) * es;
              got = out + mine * es;
            } else {
              expect = k->var && j >= (size_t)valid[g] ? poison : in + mine * es;
              got = out + (g * L * N + j) * es;
            }
          } else {
            /* output item i of lane l holds the tile element at striped place i * L + l (blocked l * N + i
             * for striped_to_blocked); which input item that is */
            size_t pos = k->var == 1 ? (size_t)l * N + i : (size_t)i * L + l, src = 0;
            if (k->var == 0) src = (pos / N) * N + pos % N;           /* input blocked: lane pos / N, item pos % N */
            else if (k->var == 1) src = (pos % L) * N + pos / L;      /* input striped: lane pos % L, item pos / L */
            else
              for (size_t j = 0; j < (size_t)L * N; ++j) /* the item whose rank is pos */
                if ((j * (size_t)rank_prime(N) + g) % ((size_t)L * N) == pos) src = j;
            expect = in + (((size_t)b * bt + first) * N + src) * es;
            got = out + mine * es;
          }
          if (memcmp(expect, got, es) != 0) {
            snprintf(msg, msize, "block %d logical warp %d lane %d item %d%s: bytes differ", b, w, l, i,
                     k->var && k->fam != FAM_WEXCH ? " (guarded)" : "");
            return 0;
          }
        }
    }
  return 1;
}

void warp_kernel_source(FILE *f, const kase *k, int idx)
{
  const char *T = TY[k->type].ctype;
  const int lanes = k->n;
  char up[200];
  int i = 0;
  for (const char *p = k->sym; *p && i < 199; ++p) up[i++] = (char)(*p >= 'a' && *p <= 'z' ? *p - 32 : *p);
  up[i] = 0;
  if (is_warp_data_fam(k->fam)) {
    warp_data_kernel_source(f, k, idx, up);
    return;
  }
  fprintf(f,
          "extern \"C\" __global__ void case_%d(const %s *in, %s *out, %s *out2, const int *valid, const %s *aux, int flag)\n"
          "{\n  extern __shared__ __align__(16) unsigned char smem[];\n"
          "  const int bt = blockDim.x * blockDim.y * blockDim.z;\n"
          "  const int tid = threadIdx.x + threadIdx.y * blockDim.x + threadIdx.z * blockDim.x * blockDim.y;\n"
          "  const int per_hw = 32 / %d, lw = (tid %% 32) / %d;\n"
          "  if (lw >= per_hw) return; /* not in a whole logical warp */\n"
          "  const int nw = (bt / 32) * per_hw + (bt %% 32) / %d, w = (tid / 32) * per_hw + lw;\n"
          "  const size_t b = blockIdx.x, g = b * nw + w;\n"
          "  const %s poison = aux[%d * nw];\n  (void)out2; (void)valid; (void)flag; (void)poison;\n"
          "  unsigned char *temp = smem + (size_t)w * %s_TEMP_BYTES;\n"
          "  %s item = in[b * bt + tid];\n",
          idx, T, T, T, T, lanes, lanes, lanes, T, GRID, up, T);
  if (k->fam == FAM_WREDUCE) {
    fprintf(f, "  %s agg = poison;\n", T);
    if (k->var) fprintf(f, "  %s(&item, valid[g], &agg, temp);\n", k->sym);
    else fprintf(f, "  %s(&item, &agg, temp);\n", k->sym);
    fprintf(f, "  if ((tid %% 32) %% %d == 0) out[g] = agg;\n", lanes);
  } else {
    fprintf(f, "  %s res = poison, agg = poison;\n", T);
    if (k->var == 0 && k->op != OP_SUM) fprintf(f, "  %s(&item, &res, &aux[g], flag ? &agg : 0, temp);\n", k->sym);
    else fprintf(f, "  %s(&item, &res, flag ? &agg : 0, temp);\n", k->sym);
    fprintf(f, "  out[b * bt + tid] = res;\n  if (flag) out2[b * bt + tid] = agg;\n");
  }
  fprintf(f, "}\n\n");
}

/* Checks every output of one run (GRID blocks of dims) against the host reference. */
int warp_check(const kase *k, const int dims[3], const unsigned char *in, const unsigned char *out,
               const unsigned char *out2, const unsigned char *aux, const unsigned char *poison, const int *valid,
               int flag, char *msg, size_t msize)
{
  if (is_warp_data_fam(k->fam)) return warp_data_check(k, dims, in, out, out2, aux, poison, valid, msg, msize);
  const tinfo *t = &TY[k->type];
  const size_t es = (size_t)t->size;
  const int lanes = k->n, per_hw = 32 / lanes, bt = dims[0] * dims[1] * dims[2];
  const int nw = (bt / 32) * per_hw + (bt % 32) / lanes;
  char why[300];
  for (int b = 0; b < GRID; ++b) {
    for (int tid = 0; tid < bt; ++tid) { /* threads outside whole logical warps wrote nothing */
      if ((tid % 32) / lanes < per_hw || k->fam == FAM_WREDUCE) continue;
      size_t at = ((size_t)b * bt + tid) * es;
      if (memcmp(out + at, poison, es) != 0 || (flag && memcmp(out2 + at, poison, es) != 0)) {
        snprintf(msg, msize, "block %d thread %d: not in a whole logical warp of %d, but its output was written", b,
                 tid, lanes);
        return 0;
      }
    }
    for (int w = 0; w < nw; ++w) {
      const size_t g = (size_t)b * nw + (size_t)w;
      const int first = (w / per_hw) * 32 + (w % per_hw) * lanes; /* thread of lane 0 */
      const unsigned char *src = in + ((size_t)b * bt + first) * es;
      if (k->fam == FAM_WREDUCE) {
        int count = k->var ? valid[g] : lanes;
        val acc = load_val(t, src);
        for (int i = 1; i < count; ++i) acc = combine(t, k->op, acc, load_val(t, src + (size_t)i * es));
        if (!matches(k, out + g * es, acc, lanes + 48, why, sizeof why)) {
          snprintf(msg, msize, "block %d logical warp %d (valid %d): %s", b, w, count, why);
          return 0;
        }
        continue;
      }
      int inclusive = k->var == 1, has_init = k->var == 0 && k->op != OP_SUM;
      val run = has_init ? load_val(t, aux + g * es) : (val){0}, agg = {0};
      int have = has_init;
      for (int i = 0; i < lanes; ++i) {
        val x = load_val(t, src + (size_t)i * es);
        val incl = have ? combine(t, k->op, run, x) : x;
        agg = i == 0 ? x : combine(t, k->op, agg, x);
        val expect = inclusive ? incl : run; /* an exclusive sum starts at 0 */
        if (!matches(k, out + ((size_t)b * bt + first + i) * es, expect, lanes + 48, why, sizeof why)) {
          snprintf(msg, msize, "block %d logical warp %d lane %d: %s", b, w, i, why);
          return 0;
        }
        run = incl;
        have = 1;
      }
      for (int i = 0; flag && i < lanes; ++i)
        if (!matches(k, out2 + ((size_t)b * bt + first + i) * es, agg, lanes + 48, why, sizeof why)) {
          snprintf(msg, msize, "block %d logical warp %d lane %d aggregate: %s", b, w, i, why);
          return 0;
        }
    }
  }
  return 1;
}
