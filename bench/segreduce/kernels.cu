// Segmented reduction kernels built from cooplink primitives (the benchmark's and the adaptive
// launcher's). One source, two builds:
//   cooplink:       the primitives are the catalog's LTO-IR, linked by libcooplink (nvJitLink -lto);
//   whole program:  -DCOOP_WHOLE_PROGRAM="\"wrappers.cu\"" puts the same wrappers' CUDA source
//                   (coopgen --print-source) into this translation unit, so NVRTC sees every CUB call.
// Compile-time parameters (-D): SR_T (element type), SR_TC (its cooplink code), OP_SUM or OP_MAX, SR_N (items a
// thread loads per tile: one 16-byte vector), SR_ID (the operator's identity), SR_CHUNK (items per chunk of a
// long segment in the adaptive launcher).
//
// Kernels (extern "C"; 256 threads a block):
//   sr_block                one block per segment: vectorized BlockLoad tiles, one BlockReduce; segments
//                           longer than `defer` are queued for sr_chunks (the other first stage)
//   sr_warp<L>, sr_warp<L>u one logical warp of L lanes per segment, SR_K segments in flight per warp
//                           (vectorized WarpLoad, one WarpReduce each); segments longer than `defer`
//                           are queued for sr_chunks instead (a first stage of the adaptive launcher)
//   sr_chunks               the queued segments, SR_CHUNK items per block (the second stage)
//   sr_finalize             the segments of more than one chunk: their chunks' partials (the third)
#include "segreduce.h"
#ifdef COOP_WHOLE_PROGRAM
#include COOP_WHOLE_PROGRAM
#endif

#include "paste.h"

#if defined(OP_SUM)
#define OPN sum
#define OPF(a, b) ((a) + (b))
#elif defined(OP_MAX)
#define OPN max
#define OPF(a, b) ((a) < (b) ? (b) : (a)) /* cub::Max */
#else
#error "OP_SUM or OP_MAX"
#endif

#define SR_THREADS 256
#ifndef SR_K
#define SR_K 2 /* segments in flight per logical warp (4 measured slower: 48 registers, fewer warps) */
#endif
#ifndef SR_WARP_MIN_BLOCKS
#define SR_WARP_MIN_BLOCKS 1 /* blocks an SM must hold (prepare.sh: 8 for 4-byte types, 6 for 8-byte: no spills) */
#endif
#define SR_BTILE (SR_THREADS * SR_N)

#define WLOAD(L) CAT4(coop_warp_load_, SR_TC, CAT(_w, L), CAT3(_i, SR_N, _vectorize))
#define WLOADG(L) CAT4(coop_warp_load_guarded_, SR_TC, CAT(_w, L), CAT3(_i, SR_N, _striped))
#define WRED(L) CAT4(coop_warp_reduce_, OPN, CAT(_, SR_TC), CAT(_w, L))
#define BLOAD CAT4(coop_block_load_, SR_TC, _t256, CAT3(_i, SR_N, _vectorize))
#define BLOADG CAT4(coop_block_load_guarded_, SR_TC, _t256, CAT3(_i, SR_N, _striped))
#define BRED CAT4(coop_block_reduce_, OPN, CAT(_, SR_TC), _t256_i1_warp_reductions)

__device__ __forceinline__ SR_T thread_reduce(const SR_T (&x)[SR_N])
{
  SR_T a = x[0];
#pragma unroll
  for (int i = 1; i < SR_N; ++i) a = OPF(a, x[i]);
  return a;
}

/* The first index at or after p on a 16-byte boundary (the input is 16-byte aligned). */
__device__ __forceinline__ int align_up(int p) { return (p + SR_N - 1) / SR_N * SR_N; }

/* acc combined with in[p, e) by one logical warp of L lanes (lane = this thread's place in it): the
 * unaligned head one item a lane, full tiles as vectors two at a time, the ragged end guarded. */
#define WARP_RANGE(L)                                                                                        \
  __device__ __forceinline__ SR_T warp_range_##L(const SR_T *in, int p, int e, int lane, SR_T acc)                \
  {                                                                                                          \
    const SR_T id = SR_ID;                                                                                         \
    const int a = min(align_up(p), e);                                                                       \
    if (lane < a - p) acc = OPF(acc, in[p + lane]);                                                          \
    for (p = a; p + 2 * L * SR_N <= e; p += 2 * L * SR_N) {                                                        \
      SR_T x[SR_N], y[SR_N];                                                                                          \
      WLOAD(L)(in + p, x, 0);                                                                                \
      WLOAD(L)(in + p + L * SR_N, y, 0);                                                                        \
      acc = OPF(acc, OPF(thread_reduce(x), thread_reduce(y)));                                               \
    }                                                                                                        \
    if (p + L * SR_N <= e) {                                                                                    \
      SR_T x[SR_N];                                                                                                \
      WLOAD(L)(in + p, x, 0);                                                                                \
      acc = OPF(acc, thread_reduce(x));                                                                      \
      p += L * SR_N;                                                                                            \
    }                                                                                                        \
    if (p < e) {                                                                                             \
      SR_T x[SR_N];                                                                                                \
      WLOADG(L)(in + p, x, e - p, &id, 0);                                                                   \
      acc = OPF(acc, thread_reduce(x));                                                                      \
    }                                                                                                        \
    return acc;                                                                                              \
  }

/* The segments a first stage leaves to sr_chunks (longer than its `defer`). The queue counter (cleared by
 * the launcher before each call) holds (records << 32 | chunks), so that records in queue order have
 * increasing first chunks; a record names its segment and first chunk; each chunk has a work item
 * (segment, chunk number), so that sr_chunks finds its range with one load. */
struct sr_record {
  int seg;
  unsigned first_chunk;
};

__device__ __forceinline__ unsigned sr_chunk_count(long long len) { return (unsigned)((len + SR_CHUNK - 1) / SR_CHUNK); }

/* Called by one thread of the group that defers segment s; returns (record << 32 | first chunk). */
__device__ __forceinline__ unsigned long long sr_defer(int s, long long len, unsigned long long *queue, sr_record *rec)
{
  const unsigned long long old = atomicAdd(queue, (1ull << 32) | sr_chunk_count(len));
  rec[old >> 32] = sr_record{s, (unsigned)old};
  return old;
}

/* The group's lanes (`lane` of `lanes`) write the work items of the segment sr_defer queued as `q`. */
__device__ __forceinline__ void sr_write_items(int s, long long len, unsigned long long q, int lane, int lanes, int2 *items)
{
  for (unsigned j = lane; j < sr_chunk_count(len); j += lanes) items[(unsigned)q + j] = make_int2(s, (int)j);
}

/* One logical warp of L lanes per segment, SR_K consecutive segments at a time: the first tile of each is
 * loaded before any is reduced, so that SR_K loads are in flight per lane, and the next SR_K segments'
 * offsets are loaded while these are reduced. */
#define WARP_KERNEL(L, NAME, MIN_BLOCKS)                                                                     \
  extern "C" __global__ void __launch_bounds__(SR_THREADS, MIN_BLOCKS)                                       \
    NAME(const SR_T *in, const int *off, SR_T *out, int n_seg, long long defer_items,                 \
               unsigned long long *queue, sr_record *rec, int2 *items)                                      \
  {                                                                                                          \
    const int defer = (int)min(defer_items, 0x7fffffffLL);                                             \
    const SR_T id = SR_ID;                                                                                   \
    const int lane = threadIdx.x % L;                                                                        \
    const int stride = gridDim.x * (SR_THREADS / L) * SR_K;                                                  \
    int s0 = (blockIdx.x * (SR_THREADS / L) + threadIdx.x / L) * SR_K;                                       \
    int o[SR_K + 1];                                                                                         \
    _Pragma("unroll") for (int k = 0; k <= SR_K; ++k) o[k] = s0 < n_seg ? off[min(s0 + k, n_seg)] : 0;     \
    for (; s0 < n_seg; s0 += stride) {                                                                       \
      SR_T x[SR_K][SR_N];                                                                                    \
      unsigned deferred = 0;                                                                                 \
      _Pragma("unroll") for (int k = 0; k < SR_K; ++k)                                                       \
      {                                                                                                      \
        const int len = o[k + 1] - o[k];                                                                     \
        if (len > defer) deferred |= 1u << k;                                                                \
        if (len >= L * SR_N && o[k] % SR_N == 0 && len <= defer)                                             \
          WLOAD(L)(in + o[k], x[k], 0);                                                                      \
        else                                                                                                 \
          WLOADG(L)(in + o[k], x[k], len > defer ? 0 : min(len, L * SR_N), &id, 0);                          \
      }                                                                                                      \
      int b[SR_K + 1];                                                                                       \
      _Pragma("unroll") for (int k = 0; k <= SR_K; ++k)                                                      \
      {                                                                                                      \
        b[k] = o[k];                                                                                         \
        if (s0 + stride < n_seg) o[k] = off[min(s0 + stride + k, n_seg)]; /* the next segments' */           \
      }                                                                                                      \
      _Pragma("unroll") for (int k = 0; k < SR_K; ++k)                                                       \
      {                                                                                                      \
        if (s0 + k >= n_seg) break;                                                                          \
        const int len = b[k + 1] - b[k];                                                                     \
        if (deferred & (1u << k)) { /* lane 0 queues it, the lanes write its work items */                  \
          const unsigned mask = L == 32 ? 0xffffffffu : ((1u << L) - 1) << (threadIdx.x % 32 / L * L);      \
          unsigned long long q = lane == 0 ? sr_defer(s0 + k, len, queue, rec) : 0;                         \
          q = __shfl_sync(mask, q, 0, L);                                                                    \
          sr_write_items(s0 + k, len, q, lane, L, items);                                                    \
          continue;                                                                                          \
        }                                                                                                    \
        SR_T acc = thread_reduce(x[k]);                                                                      \
        if (len > L * SR_N) acc = warp_range_##L(in, b[k] + L * SR_N, b[k + 1], lane, acc);                 \
        SR_T agg;                                                                                            \
        WRED(L)(&acc, &agg, 0);                                                                              \
        if (lane == 0) out[s0 + k] = agg;                                                                    \
      }                                                                                                      \
    }                                                                                                        \
  }

/* sr_warp<L>: registers bounded so that an SM holds SR_WARP_MIN_BLOCKS blocks (best for short segments);
 * sr_warp<L>u: unbounded (more registers, fewer warps: best for segments of a few KB) */
#define WARP_KERNELS(L)                                                                                      \
  WARP_RANGE(L)                                                                                              \
  WARP_KERNEL(L, sr_warp##L, SR_WARP_MIN_BLOCKS)                                                             \
  WARP_KERNEL(L, sr_warp##L##u, 1)
WARP_KERNELS(4)
WARP_KERNELS(8)
WARP_KERNELS(16)
WARP_KERNELS(32)

/* This thread's part of in[p, e) for a whole block: head, full tiles two at a time, guarded end. */
__device__ __forceinline__ SR_T block_range(const SR_T *in, int p, int e)
{
  const SR_T id = SR_ID;
  SR_T acc = id;
  const int a = min(align_up(p), e);
  if (threadIdx.x < a - p) acc = in[p + threadIdx.x];
  for (p = a; p + 2 * SR_BTILE <= e; p += 2 * SR_BTILE) {
    SR_T x[SR_N], y[SR_N];
    BLOAD(in + p, x, 0);
    BLOAD(in + p + SR_BTILE, y, 0);
    acc = OPF(acc, OPF(thread_reduce(x), thread_reduce(y)));
  }
  if (p + SR_BTILE <= e) {
    SR_T x[SR_N];
    BLOAD(in + p, x, 0);
    acc = OPF(acc, thread_reduce(x));
    p += SR_BTILE;
  }
  if (p < e) {
    SR_T x[SR_N];
    BLOADG(in + p, x, e - p, &id, 0);
    acc = OPF(acc, thread_reduce(x));
  }
  return acc;
}

/* BRED_TEMP_BYTES: the header's COOP_BLOCK_REDUCE_<OP>_<SR_TC>_T256_I1_WARP_REDUCTIONS_TEMP_BYTES */
#define DECLARE_BLOCK_TEMP __shared__ __align__(16) unsigned char temp[BRED_TEMP_BYTES]

/* One block per segment; a segment longer than `defer` is queued for sr_chunks instead. */
extern "C" __global__ void __launch_bounds__(SR_THREADS)
  sr_block(const SR_T *in, const int *off, SR_T *out, long long defer, unsigned long long *queue, sr_record *rec,
           int2 *items)
{
  DECLARE_BLOCK_TEMP;
  const int s = blockIdx.x;
  const int b = off[s], e = off[s + 1];
  if (e - b > defer) {
    __shared__ unsigned long long q;
    if (threadIdx.x == 0) q = sr_defer(s, e - b, queue, rec);
    __syncthreads();
    sr_write_items(s, e - b, q, threadIdx.x, SR_THREADS, items);
    return;
  }
  const SR_T acc = block_range(in, b, e);
  SR_T agg;
  BRED(&acc, &agg, temp);
  if (threadIdx.x == 0) out[s] = agg;
}

/* The queued segments, one chunk of SR_CHUNK items a block (grid-stride over the chunks). A segment of one
 * chunk is written out; the others leave a partial per chunk for sr_finalize. */
extern "C" __global__ void __launch_bounds__(SR_THREADS)
  sr_chunks(const SR_T *in, const int *off, SR_T *out, const unsigned long long *queue, const int2 *items,
            SR_T *partial)
{
  DECLARE_BLOCK_TEMP;
  const unsigned chunks = (unsigned)*queue;
  for (unsigned c = blockIdx.x; c < chunks; c += gridDim.x) {
    const int2 w = items[c];
    const int sb = off[w.x], se = off[w.x + 1];
    const int b = sb + w.y * SR_CHUNK, e = min(b + SR_CHUNK, se);
    const SR_T acc = block_range(in, b, e);
    SR_T agg;
    BRED(&acc, &agg, temp);
    if (threadIdx.x == 0) {
      if (se - sb <= SR_CHUNK) out[w.x] = agg;
      else partial[c] = agg;
    }
    __syncthreads(); /* temp is reused by the next chunk */
  }
}

/* A 32-lane warp per queued segment of more than one chunk: the reduction of its chunks' partials. */
extern "C" __global__ void __launch_bounds__(SR_THREADS)
  sr_finalize(const int *off, SR_T *out, const unsigned long long *queue, const sr_record *rec, const SR_T *partial)
{
  const int records = (int)(*queue >> 32);
  const int lane = threadIdx.x % 32;
  for (int i = (blockIdx.x * SR_THREADS + threadIdx.x) / 32; i < records; i += gridDim.x * (SR_THREADS / 32)) {
    const sr_record r = rec[i];
    const unsigned n = sr_chunk_count(off[r.seg + 1] - off[r.seg]);
    if (n <= 1) continue;
    SR_T acc = SR_ID;
    for (unsigned j = lane; j < n; j += 32) acc = OPF(acc, partial[r.first_chunk + j]);
    SR_T agg;
    WRED(32)(&acc, &agg, 0);
    if (lane == 0) out[r.seg] = agg;
  }
}
