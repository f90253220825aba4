// Segmented reduction kernels built from cooplink primitives (the benchmark's and the adaptive
// launcher's). One source, two builds:
//   cooplink:       the primitives are the catalog's LTO-IR, linked by libcooplink (nvJitLink -lto);
//   whole program:  -DCOOP_WHOLE_PROGRAM="\"wrappers.cu\"" puts the same wrappers' CUDA source
//                   (coopgen --print-source) into this translation unit, so NVRTC sees every CUB call.
// Compile-time parameters (-D): SR_T (element type), SR_TC (its cooplink code), SR_TCU and SR_TC_<SR_TCU> (the
// code in upper case), OP_SUM or OP_MAX, SR_N (items a thread loads per tile: one 16-byte vector), SR_N4 (four
// vectors' items), SR_ID (the operator's identity), SR_CHUNK (items per chunk of a long segment in the adaptive
// launcher).
//
// Kernels (extern "C"; 256 threads a block; each a grid-stride loop over the segments):
//   sr_block                one block per segment: vectorized BlockLoad tiles, one BlockReduce
//   sr_warp<L>, sr_warp<L>u one logical warp of L lanes per segment, SR_K segments in flight per warp
//   sr_warp<L>t             (vectorized WarpLoad, one WarpReduce each; t: several tiles of each at once)
//   sr_run                  one block per run of consecutive segments, read as one range (vectorized
//                           BlockLoad tiles whatever the lengths; a segmented BlockScan carries partials)
// Given a queue (the adaptive launcher), each kernel defers the segments longer than `defer` items and then
// reduces them in chunks of SR_CHUNK items, a block a chunk, with every block of the grid (sr_tail): one
// launch, whatever the lengths. Without one (a null queue), the kernel is the fixed kernel alone.
// (The queue and tail: tail.cuh; sr_run and sr_wrun: runs.cuh; both included here, with this file's macros.)
#ifdef COOP_WHOLE_PROGRAM
#include COOP_WHOLE_PROGRAM
/* sr_run's pair is a user type: the header's operator must be declared with the wrappers' struct */
#if defined(SR_TC_F32)
#define COOP_TYPE_SRPF32 coop_user_srpf32
#elif defined(SR_TC_F64)
#define COOP_TYPE_SRPF64 coop_user_srpf64
#elif defined(SR_TC_I32)
#define COOP_TYPE_SRPI32 coop_user_srpi32
#endif
#endif
#include "segreduce.h"

#include "paste.h"
#include "segpair.h"

#if defined(OP_SUM)
#define OPN sum
#define OPNU SUM
#define OPF(a, b) ((a) + (b))
#elif defined(OP_MAX)
#define OPN max
#define OPNU MAX
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
#ifndef SR_BLOCK_MIN_BLOCKS
#define SR_BLOCK_MIN_BLOCKS 8 /* sr_block: every block an SM can hold (32 registers; without the bound its tail
                               * blocks' part of the offsets took 34, six blocks an SM) */
#endif
#define SR_BTILE (SR_THREADS * SR_N)
#ifndef SR_ASSUME_ALIGNED
#define SR_ASSUME_ALIGNED 1 /* the vectorized warp loads' addresses in the kernels of 64 registers (sr_warp<L>t's
                             * first tiles, the four-tile loops), on 16-byte boundaries by construction, are said
                             * to be, so that the loads' own check of it (a scalar path beside every 16-byte load)
                             * goes. Measured against 0 (2026-12-04, H200, f32 sum, share of the read ceiling):
                             * random lengths adaptive 0.921 against 0.868 (warpu32), warpt32 0.904 against 0.819;
                             * 1024 warpt8 0.941 against 0.908; 128 and 1M unchanged; 2026-12-06 (H100, with
                             * SR_ROUND): random 0.958 against 0.933. (In the 32-register kernels and sr_block it
                             * made ptxas spill.) */
#endif
#if SR_ASSUME_ALIGNED
#define SR_AL(p) (static_cast<const SR_T *>(__builtin_assume_aligned((p), 16)))
#else
#define SR_AL(p) (p)
#endif
#define SR_AL_IF(c, p) ((c) ? SR_AL(p) : (p))
#ifndef SR_RUN_MIN_BLOCKS
#define SR_RUN_MIN_BLOCKS 1 /* sr_run: blocks an SM must hold (modules.sh: 4 for 4-byte types, 3 for 8-byte ones) */
#endif

/* SR_LOAD_CS 1 (the default): the input's tiles loaded by the loads' `_cs` algorithms (ld.cs, CUB's LOAD_CS: the
 * input first out of L2, so that the results written and the offsets stay there while it streams past; a
 * segment's unaligned head, less than a vector's items, stays a plain load). The results' writes are what held the
 * short segments down (2026-12-07, H100, f32 sum, the launcher's plan, share of the read ceiling: without them
 * 0.99 at 32 and 128 items); against plain loads (0, prepare.sh's `plain` builds; H100, two runs,
 * bench/results/segreduce/s38_*, s39_*): 128 items 0.935 -> 0.955, 1024 0.968 -> 0.979, random 0.951 -> 0.961,
 * 32 0.894 -> 0.902; float64 128 0.933 -> 0.945 (its sr_block then needs SR_BLOCK_MIN_BLOCKS 6: modules.sh) */
#ifndef SR_LOAD_CS
#define SR_LOAD_CS 1
#endif
#if SR_LOAD_CS
#define SR_LS _cs
#else
#define SR_LS
#endif
#define WLOAD(L) CAT4(coop_warp_load_, SR_TC, CAT(_w, L), CAT3(_i, SR_N, CAT(_vectorize, SR_LS)))
#define WLOADG(L) CAT4(coop_warp_load_guarded_, SR_TC, CAT(_w, L), CAT3(_i, SR_N, CAT(_striped, SR_LS)))
#define WRED(L) CAT4(coop_warp_reduce_, OPN, CAT(_, SR_TC), CAT(_w, L))
#define BLOAD CAT4(coop_block_load_, SR_TC, _t256, CAT3(_i, SR_N, CAT(_vectorize, SR_LS)))
#define BLOADG CAT4(coop_block_load_guarded_, SR_TC, _t256, CAT3(_i, SR_N, CAT(_striped, SR_LS)))
#define BRED CAT4(coop_block_reduce_, OPN, CAT(_, SR_TC), _t256_i1_warp_reductions)
#ifndef SR_EXPLORE_LDG
#define SR_EXPLORE_LDG 0
#endif
#if SR_EXPLORE_LDG /* an explore build (prepare.sh `ldg`), not cooplink's: the full tiles' 16-byte loads by ld.global.nc, CUB's
                    * LOAD_LDG (cub::DeviceSegmentedReduce's LDG.E.128.CONSTANT, where BlockLoad and WarpLoad of a
                    * plain pointer give LDG.E.128), to see whether the hint is what keeps sr_block under CUB at
                    * 65536 items (H200: 0.986 against 0.998) and the tail at 1M (0.948 against 0.952); 2026-12-05's
                    * ldg build spilled in sr_block, so its 8192 figure told nothing */
__device__ __forceinline__ void sr_ldg_vec(const SR_T *p, int i, SR_T *x)
{
  union {
    int4 v;
    SR_T t[SR_N];
  } u;
  u.v = __ldg(reinterpret_cast<const int4 *>(p) + i);
#pragma unroll
  for (int j = 0; j < SR_N; ++j) x[j] = u.t[j];
}
__device__ __forceinline__ void sr_ldg_block(const SR_T *p, SR_T *x, void *) { sr_ldg_vec(p, threadIdx.x, x); }
template <int L> __device__ __forceinline__ void sr_ldg_warp(const SR_T *p, SR_T *x, void *) { sr_ldg_vec(p, threadIdx.x % L, x); }
#undef BLOAD
#undef WLOAD
#define BLOAD sr_ldg_block
#define WLOAD(L) sr_ldg_warp<L>
#endif

/* A segment's result written (the warp kernels and sr_block). Explore builds only (prepare.sh), to see what the
 * results' writes cost where segments are short (a result every 128 B at 32 items; the read ceiling writes none):
 * SR_EXPLORE_STORE 1 (`nost`) writes none (a result only if it equals a value the data never give: wrong results,
 * a bound, not a kernel); 2 (`el`) writes with an L2 evict_last policy, so that the results stay in L2 while the
 * input streams past; 3 (`ef`) with evict_first, so that they leave it soon, in the order written; 4 (`st`) by
 * st.global.cs. */
#ifndef SR_EXPLORE_STORE
#define SR_EXPLORE_STORE 0
#endif
__device__ __forceinline__ void sr_store(SR_T *p, SR_T v)
{
#if SR_EXPLORE_STORE == 1
  if (v == (SR_T)-1234567) *p = v;
#elif SR_EXPLORE_STORE == 4
  __stcs(p, v);
#elif SR_EXPLORE_STORE == 2 || SR_EXPLORE_STORE == 3
  unsigned long long pol;
#if SR_EXPLORE_STORE == 2
  asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(pol));
#else
  asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(pol));
#endif
  if (sizeof(SR_T) == 4) {
    unsigned b;
    memcpy(&b, &v, 4);
    asm volatile("st.global.L2::cache_hint.b32 [%0], %1, %2;" ::"l"(p), "r"(b), "l"(pol) : "memory");
  } else {
    unsigned long long b;
    memcpy(&b, &v, 8);
    asm volatile("st.global.L2::cache_hint.b64 [%0], %1, %2;" ::"l"(p), "l"(b), "l"(pol) : "memory");
  }
#else
  *p = v;
#endif
}

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
 * unaligned head one item a lane, full tiles as vectors U at a time (U loads in flight a lane), then one
 * at a time, the ragged end guarded. */
#define WARP_RANGE(L, U, NAME)                                                                               \
  __device__ __forceinline__ SR_T NAME(const SR_T *in, int p, int e, int lane, SR_T acc)                     \
  {                                                                                                          \
    const SR_T id = SR_ID;                                                                                   \
    const int a = min(align_up(p), e); /* (up to SR_N - 1 head items: more than the lanes when L < SR_N - 1) */ \
    for (int i = lane; i < a - p; i += L) acc = OPF(acc, in[p + i]);                                         \
    for (p = a; p + U * L * SR_N <= e; p += U * L * SR_N) {                                                  \
      SR_T x[U][SR_N];                                                                                       \
      _Pragma("unroll") for (int u = 0; u < U; ++u) WLOAD(L)(SR_AL_IF(U == 4, in + p + u * L * SR_N), x[u], 0); \
      _Pragma("unroll") for (int u = 0; u < U; u += 2) acc = OPF(acc, OPF(thread_reduce(x[u]), thread_reduce(x[u + 1]))); \
    }                                                                                                        \
    for (; p + L * SR_N <= e; p += L * SR_N) {                                                               \
      SR_T x[SR_N];                                                                                          \
      WLOAD(L)(SR_AL_IF(U == 4, in + p), x, 0);                                                              \
      acc = OPF(acc, thread_reduce(x));                                                                      \
    }                                                                                                        \
    if (p < e) {                                                                                             \
      SR_T x[SR_N];                                                                                          \
      WLOADG(L)(in + p, x, e - p, &id, 0);                                                                   \
      acc = OPF(acc, thread_reduce(x));                                                                      \
    }                                                                                                        \
    return acc;                                                                                              \
  }

/* The same for U = 4 (the kernels of 64 registers) in fewer round trips: the unaligned head's loads are
 * combined last, so that the tiles' loads need not wait for them (in WARP_RANGE the head's add holds the
 * warp before its first tile is asked for: a round trip more for every segment that starts off a 16-byte
 * boundary, 3 of 4 of random lengths), and what the full rounds leave (up to three full tiles and the
 * ragged end) is loaded at once, not a tile and a round trip at a time. SR_ROUND 0: WARP_RANGE (measured
 * against it, H100, float32 sum, share of the read ceiling: random lengths 0.958 against 0.948,
 * heavy-tailed 0.865 against 0.857, the fixed lengths unchanged; bench/README.md, 2026-12-06). */
#ifndef SR_ROUND
#define SR_ROUND 1
#endif
#define WARP_RANGE_ROUND(L, NAME)                                                                            \
  __device__ __forceinline__ void NAME##_last(const SR_T *in, int p, int e, SR_T &acc)                       \
  {                                                                                                          \
    const SR_T id = SR_ID;                                                                                   \
    SR_T x[4][SR_N];                                                                                         \
    _Pragma("unroll") for (int u = 0; u < 4; ++u)                                                            \
    {                                                                                                        \
      const int q = p + u * L * SR_N;                                                                        \
      if (q + L * SR_N <= e)                                                                                 \
        WLOAD(L)(SR_AL(in + q), x[u], 0);                                                                    \
      else                                                                                                   \
        WLOADG(L)(in + q, x[u], max(0, e - q), &id, 0);                                                      \
    }                                                                                                        \
    acc = OPF(acc, OPF(thread_reduce(x[0]), thread_reduce(x[1])));                                           \
    acc = OPF(acc, OPF(thread_reduce(x[2]), thread_reduce(x[3])));                                           \
  }                                                                                                          \
  __device__ __forceinline__ SR_T NAME(const SR_T *in, int p, int e, int lane, SR_T acc)                     \
  {                                                                                                          \
    const SR_T id = SR_ID;                                                                                   \
    const int a = min(align_up(p), e);                                                                       \
    SR_T h = id;                                                                                             \
    if (lane < a - p) h = in[p + lane];                                                                      \
    if (L < SR_N - 1) /* (more head items than lanes: 1- and 2-byte items in a small logical warp) */        \
      for (int i = lane + L; i < a - p; i += L) h = OPF(h, in[p + i]);                                       \
    for (p = a; p + 4 * L * SR_N <= e; p += 4 * L * SR_N) {                                                  \
      SR_T x[4][SR_N];                                                                                       \
      _Pragma("unroll") for (int u = 0; u < 4; ++u) WLOAD(L)(SR_AL(in + p + u * L * SR_N), x[u], 0);         \
      acc = OPF(acc, OPF(thread_reduce(x[0]), thread_reduce(x[1])));                                         \
      acc = OPF(acc, OPF(thread_reduce(x[2]), thread_reduce(x[3])));                                         \
    }                                                                                                        \
    if (p < e) NAME##_last(in, p, e, acc); /* the last round */                                              \
    return OPF(acc, h);                                                                                      \
  }

/* This thread's part of in[p, e) for a whole block: head, full tiles U at a time (U loads in flight a
 * thread: with two, a block of one 4 MB segment ran at 0.72 of the DRAM peak where CUB's, with 16 KB of a
 * block's loads in flight, ran at 0.91: bench/results/segreduce/profile_f32sum.md; four spill the kernels
 * bounded to 32 registers, which keep two), then one at a time, guarded end. */
template <int U>
__device__ __forceinline__ SR_T block_range(const SR_T *in, int p, int e)
{
  const SR_T id = SR_ID;
  SR_T acc = id;
  const int a = min(align_up(p), e);
  if ((int)threadIdx.x < a - p) acc = in[p + threadIdx.x]; /* (signed: a - p < 0 when offsets decrease) */
  for (p = a; p + U * SR_BTILE <= e; p += U * SR_BTILE) {
    SR_T x[U][SR_N];
#pragma unroll
    for (int u = 0; u < U; ++u) BLOAD(in + p + u * SR_BTILE, x[u], 0);
#pragma unroll
    for (int u = 0; u < U; ++u) acc = OPF(acc, thread_reduce(x[u]));
  }
#pragma unroll
  for (int u = 1; u < U && p + SR_BTILE <= e; ++u, p += SR_BTILE) { /* (at most U - 1 full tiles are left) */
    SR_T x[SR_N];
    BLOAD(in + p, x, 0);
    acc = OPF(acc, thread_reduce(x));
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

#include "tail.cuh"

/* Where a logical warp writes segment i's result (WARP_KERNEL): i computed where it is used, through an opaque
 * copy, in the kernels of T > 1 first tiles and the 8-byte types' (ptxas otherwise keeps the output's address,
 * known before the segment's range, across the range: int32 max sr_warp32t spilled 8 bytes at 64 registers,
 * float64 max sr_warp32 16 bytes at 40; with the copy in every kernel, int32 max sr_warp32u spilled 12). */
template <int T> __device__ __forceinline__ int sr_out_index(int i)
{
  if (T > 1 || sizeof(SR_T) > 4) asm volatile("" : "+r"(i));
  return i;
}

/* One logical warp of L lanes per segment, SR_K consecutive segments at a time: the first T tiles of each
 * are loaded before any is reduced, so that SR_K * T loads are in flight per lane, and the next SR_K
 * segments' offsets are loaded while these are reduced. A segment longer than `defer` is deferred to the
 * tail (q non-null: the adaptive launcher's first stage). */
#define WARP_KERNEL(L, NAME, MIN_BLOCKS, RANGE, RESERVE, BU, T)                                                       \
  extern "C" __global__ void __launch_bounds__(SR_THREADS, MIN_BLOCKS)                                       \
    NAME(const SR_T *in, const int *off, SR_T *out, int n_seg, long long defer_items, sr_queue *q,           \
         unsigned long long *items, SR_T *partial, unsigned *done, unsigned capacity, unsigned share_blocks) \
  {                                                                                                          \
    sr_start(q);                                                                                             \
    const int defer = (int)min(defer_items, 0x7fffffffLL);                                                   \
    const SR_T id = SR_ID;                                                                                   \
    const int lane = threadIdx.x % L;                                                                        \
    const int stride = gridDim.x * (SR_THREADS / L) * SR_K;                                                  \
    int s0 = (blockIdx.x * (SR_THREADS / L) + threadIdx.x / L) * SR_K;                                       \
    int o[SR_K + 1];                                                                                         \
    _Pragma("unroll") for (int k = 0; k <= SR_K; ++k) o[k] = s0 < n_seg ? off[min(s0 + k, n_seg)] : 0;       \
    for (; s0 < n_seg; s0 += stride) {                                                                       \
      SR_T x[SR_K][T][SR_N];                                                                                 \
      unsigned deferred = 0;                                                                                 \
      _Pragma("unroll") for (int k = 0; k < SR_K; ++k)                                                       \
      {                                                                                                      \
        const int len = o[k + 1] - o[k];                                                                     \
        if (len > defer) deferred |= 1u << k;                                                                \
        if (T == 1) { /* (as it was before T: the same code for the kernels measured so) */                  \
          if (len >= L * SR_N && o[k] % SR_N == 0 && len <= defer)                                           \
            WLOAD(L)(in + o[k], x[k][0], 0);                                                                 \
          else                                                                                               \
            WLOADG(L)(in + o[k], x[k][0], len > defer ? 0 : min(len, L * SR_N), &id, 0);                     \
          continue;                                                                                          \
        }                                                                                                    \
        /* the first T tiles from a, the segment's start (a name of its own: the cubins stay those measured; \
         * from its first 16-byte boundary instead measured no better: bench/README, SR_HEAD) */             \
        const int a = o[k];                                                                                  \
        const bool vec = o[k] % SR_N == 0 && len <= defer;                                                   \
        _Pragma("unroll") for (int t = 0; t < T; ++t)                                                        \
        {                                                                                                    \
          const int rest = len > defer ? 0 : o[k + 1] - a - t * L * SR_N; /* this tile's items and after */  \
          if (vec && rest >= L * SR_N)                                                                       \
            WLOAD(L)(SR_AL(in + a + t * L * SR_N), x[k][t], 0);                                              \
          else                                                                                               \
            WLOADG(L)(in + a + t * L * SR_N, x[k][t], max(0, min(rest, L * SR_N)), &id, 0);                  \
        }                                                                                                    \
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
        SR_T acc = thread_reduce(x[k][0]); /* (the identity for a deferred segment: nothing loaded) */       \
        _Pragma("unroll") for (int t = 1; t < T; ++t) acc = OPF(acc, thread_reduce(x[k][t]));                \
        int from = b[k] + T * L * SR_N;                                                                      \
        if (deferred & (1u << k)) { /* lane 0 reserves its chunks, the lanes write its work items */         \
          const unsigned mask = L == 32 ? 0xffffffffu : ((1u << L) - 1) << (threadIdx.x % 32 / L * L);       \
          unsigned first = lane == 0 ? RESERVE(q, capacity, sr_chunk_count(len)) : 0;                        \
          first = __shfl_sync(mask, first, 0, L);                                                            \
          if (first != SR_NONE) {                                                                            \
            sr_write_items(s0 + k, len, first, lane, L, items);                                              \
            continue;                                                                                        \
          }                                                                                                  \
          from = b[k]; /* no room in the queue: reduced here */                                              \
        }                                                                                                    \
        if (b[k + 1] > from) acc = RANGE(in, from, b[k + 1], lane, acc);                                     \
        SR_T agg;                                                                                            \
        WRED(L)(&acc, &agg, 0);                                                                              \
        if (lane == 0) sr_store(out + sr_out_index<T>(s0 + k), agg);                                         \
      }                                                                                                      \
    }                                                                                                        \
    if (q) {                                                                                                 \
      DECLARE_BLOCK_TEMP;                                                                                    \
      sr_tail<BU>(in, off, out, q, items, partial, done, capacity, share_blocks, temp, blockIdx.x, gridDim.x); \
    }                                                                                                        \
  }

/* sr_warp<L>: registers bounded so that an SM holds SR_WARP_MIN_BLOCKS blocks (best for short segments),
 * two tiles in flight a lane; sr_warp<L>u: four tiles in flight a lane, up to 64 registers (half the warps
 * an SM can hold: best for segments of a few KB; unbounded, float64 took 95 registers, a quarter);
 * sr_warp<L>t (8 to 32 lanes): sr_warp<L>u with its first SR_WARPT_TILES tiles of both segments loaded
 * at once (eight loads in flight a lane from the start: the others load one tile a segment, reduce it, then
 * load the rest, a round trip a step: 128-item segments took three; bench.py --explore) */
#ifndef SR_WARPT_TILES
#define SR_WARPT_TILES 4
#endif
#if SR_ROUND
#define WARP_RANGE4(L, NAME) WARP_RANGE_ROUND(L, NAME)
#else
#define WARP_RANGE4(L, NAME) WARP_RANGE(L, 4, NAME)
#endif
#define WARP_KERNELS(L)                                                                                      \
  WARP_RANGE(L, 2, warp_range_##L)                                                                           \
  WARP_RANGE4(L, warp_range4_##L)                                                                            \
  WARP_KERNEL(L, sr_warp##L, SR_WARP_MIN_BLOCKS, warp_range_##L, sr_reserve_cas, 2, 1)                       \
  WARP_KERNEL(L, sr_warp##L##u, 4, warp_range4_##L, sr_reserve_add, 4, 1)
WARP_KERNELS(4)
WARP_KERNELS(8)
WARP_KERNELS(16)
WARP_KERNELS(32)
WARP_KERNEL(8, sr_warp8t, 4, warp_range4_8, sr_reserve_add, 4, SR_WARPT_TILES)
WARP_KERNEL(16, sr_warp16t, 4, warp_range4_16, sr_reserve_add, 4, SR_WARPT_TILES)
WARP_KERNEL(32, sr_warp32t, 4, warp_range4_32, sr_reserve_add, 4, SR_WARPT_TILES)

#include "runs.cuh"

/* One block per segment (grid-stride). Alone (q null), every block takes segments. In the adaptive launcher's
 * one launch (q non-null), the grid is gridDim.x - share_blocks blocks of segments, a segment a block as the
 * fixed kernel's grid (the hardware hands out the blocks: on a grid of the blocks the GPU holds at once,
 * a grid-stride share of 31 segments a block ran at 0.990 of the fixed kernel, the one launch at 0.973), which
 * leave the segments longer than `defer` alone and never touch the queue, then share_blocks tail blocks:
 * they start last (blocks start in index order), find the long segments in their part of the offsets,
 * reserve their chunks and take them (sr_tail, ranked among themselves). With no blocks of segments
 * (share_blocks >= gridDim.x) the tail blocks reduce their parts' other segments too. */
extern "C" __global__ void __launch_bounds__(SR_THREADS, SR_BLOCK_MIN_BLOCKS)
  sr_block(const SR_T *in, const int *off, SR_T *out, int n_seg, long long defer, sr_queue *q,
           unsigned long long *items, SR_T *partial, unsigned *done, unsigned capacity, unsigned share_blocks)
{
  DECLARE_BLOCK_TEMP;
  const unsigned seg_blocks = !q ? gridDim.x : gridDim.x > share_blocks ? gridDim.x - share_blocks : 0;
  if (blockIdx.x < seg_blocks) {
    for (int s = blockIdx.x; s < n_seg; s += seg_blocks) {
      const int b = off[s], e = off[s + 1];
      if (q && e - b > defer) continue; /* the tail blocks' */
      const SR_T acc = block_range<4>(in, b, e);
      SR_T agg;
      BRED(&acc, &agg, temp);
      if (threadIdx.x == 0) sr_store(out + s, agg);
      __syncthreads(); /* temp is reused */
    }
    return;
  }
  __shared__ int so[SR_THREADS + 1];
  __shared__ unsigned first;
  const unsigned rank = blockIdx.x - seg_blocks;
  sr_start(q);
  const long long part = (n_seg + (long long)share_blocks - 1) / share_blocks;
  const int s_end = (int)min((long long)n_seg, (rank + 1) * part);
  for (int s0 = (int)min((long long)n_seg, rank * part); s0 < s_end; s0 += SR_THREADS) {
    const int g = min(SR_THREADS, s_end - s0), k = threadIdx.x;
    if (k < g) so[k] = off[s0 + k];
    if (k == 0) so[g] = off[s0 + g];
    __syncthreads();
    const bool mine = k < g && (so[k + 1] - so[k] > defer || seg_blocks == 0);
    if (!__syncthreads_or(mine)) continue; /* (most parts: no long segment) */
    for (int j = 0; j < g; ++j) {
      const int b = so[j], e = so[j + 1];
      bool here = seg_blocks == 0;
      if (e - b > defer) {
        if (threadIdx.x == 0) first = sr_reserve_add(q, capacity, sr_chunk_count(e - b));
        __syncthreads();
        here = first == SR_NONE; /* (no room in the queue: reduced here) */
        if (!here) sr_write_items(s0 + j, e - b, first, threadIdx.x, SR_THREADS, items);
      }
      if (here) {
        const SR_T acc = block_range<4>(in, b, e);
        SR_T agg;
        BRED(&acc, &agg, temp);
        if (threadIdx.x == 0) out[s0 + j] = agg;
      }
      __syncthreads(); /* temp and `first` are reused */
    }
  }
  sr_tail<4>(in, off, out, q, items, partial, done, capacity, share_blocks, temp, rank, share_blocks);
}
