/* The GPU suite's warp cases (warp_reduce, warp_scan): block shapes, test kernels and the host check.
 *
 * Logical warps follow CUB: a hardware warp holds 32 / L whole logical warps of L lanes (lane = hardware
 * lane % L); for an L that does not divide 32 the lanes after the last whole logical warp take no part
 * (their outputs must stay poisoned). Each case runs on two block shapes: a 1-D block whose last hardware
 * warp is partial (e.g. 40 threads in logical warps of 8) and a 2-D one. */
#include "suite.h"

#include <stdio.h>
#include <string.h>

/* Block dims of shape `which` (0 or 1) for k, and the logical warps in such a block. */
void warp_shape(const kase *k, int which, int dims[3], int *n_warps)
{
  const int lanes = k->n, per_hw = 32 / lanes;
  /* shape 0: one full hardware warp plus a partial one holding j whole logical warps;
   * shape 1: three full hardware warps as a 2-D block (or 1x1 for one lane) */
  int hw = which == 0 ? 1 + k->type % 2 : 3, j = which == 0 ? 1 + (k->op + k->var) % per_hw : 0;
  int bt = 32 * hw + j * lanes;
  if (which == 0) {
    dims[0] = bt, dims[1] = dims[2] = 1;
  } else {
    dims[0] = 16, dims[1] = bt / 16, dims[2] = 1;
  }
  *n_warps = hw * per_hw + j;
}

void warp_kernel_source(FILE *f, const kase *k, int idx)
{
  const char *T = TY[k->type].ctype;
  const int lanes = k->n;
  char up[200];
  int i = 0;
  for (const char *p = k->sym; *p && i < 199; ++p) up[i++] = (char)(*p >= 'a' && *p <= 'z' ? *p - 32 : *p);
  up[i] = 0;
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
