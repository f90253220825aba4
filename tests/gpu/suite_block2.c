/* The GPU suite's second-wave block cases (block_exchange, block_merge_sort): test kernels and host checks.
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
  /* the merge sort: pairs carry each item's place in the tile as a u32 value */
  fprintf(f, "  unsigned vals[%d];\n  for (int i = 0; i < %d; ++i) vals[i] = tid * %d + i;\n  (void)vals;\n", n, n, n);
  fprintf(f, "  %s(items, %s%ssmem);\n", k->sym, k->var >= 2 ? "vals, " : "", k->var % 2 ? "valid[b], &aux[b], " : "");
  fprintf(f, "  for (int i = 0; i < %d; ++i) out[(b * %d + tid) * %d + i] = items[i];\n", n, bt, n);
  if (k->var >= 2) fprintf(f, "  for (int i = 0; i < %d; ++i) ((unsigned *)out2)[(b * %d + tid) * %d + i] = vals[i];\n", n, bt, n);
  fprintf(f, "}\n\n");
}

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
