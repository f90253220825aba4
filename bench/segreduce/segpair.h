// What the benchmark kernels that scan over segment boundaries share (bench/segreduce/runs.cuh's sr_run and
// sr_wrun, bench/scan/scan.cu's sc_chain): the (value, cut) pair and its segmented operator, and the acquire /
// release accesses of the flag words that blocks publish to each other.
#pragma once

/* A pair of a value and `cut`: a segment boundary falls in the items it covers (sr_run: a segment ends there;
 * sc_chain: one starts), so what came before does not carry past them. Each kernel passes it to a BlockScan as a
 * user type of the same size (its static_assert). */
template <class T>
struct seg_pair {
  T v;
  int cut;
};

/* The segmented operator over the user type P laid out as seg_pair<T>: b's value alone when b holds a cut, else
 * a's and b's combined by op. */
template <class T, class P, class Op>
__device__ __forceinline__ void seg_pair_combine(const P *a, const P *b, P *o, Op op)
{
  seg_pair<T> x, y, r;
  memcpy(&x, a, sizeof x);
  memcpy(&y, b, sizeof y);
  r.v = y.cut ? y.v : op(x.v, y.v);
  r.cut = x.cut | y.cut;
  memcpy(o, &r, sizeof r);
}

__device__ __forceinline__ unsigned bm_load_acquire(const unsigned *p)
{
  unsigned v;
  asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

__device__ __forceinline__ void bm_store_release(unsigned *p, unsigned v)
{
  asm volatile("st.release.gpu.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}
