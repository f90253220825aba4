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

#define WLOAD(L) CAT4(coop_warp_load_, SR_TC, CAT(_w, L), CAT3(_i, SR_N, _vectorize))
#define WLOADG(L) CAT4(coop_warp_load_guarded_, SR_TC, CAT(_w, L), CAT3(_i, SR_N, _striped))
#define WRED(L) CAT4(coop_warp_reduce_, OPN, CAT(_, SR_TC), CAT(_w, L))
#define BLOAD CAT4(coop_block_load_, SR_TC, _t256, CAT3(_i, SR_N, _vectorize))
#define BLOADG CAT4(coop_block_load_guarded_, SR_TC, _t256, CAT3(_i, SR_N, _striped))
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

/* The adaptive launcher's deferred segments. A first stage that meets a segment longer than `defer`
 * reserves its chunks of SR_CHUNK items (a contiguous range of work items: sr_reserve_add, or
 * sr_reserve_cas in the kernels bounded to 32 registers) and writes one work item per chunk,
 * (segment + 1) << 32 | chunk number, where 0 means "not written yet". A reservation that would pass the
 * queue's `capacity` (offsets that overlap can) fails, and its group reduces the segment itself; a failed
 * fetch-and-add records where the items that will never be written begin (`dead`). Every block, its own share done,
 * takes work items, a block a chunk, until none is left. Once every block of the grid has started
 * (`started`), a take is a fetch-and-add on `taken`: a ticket, which may name an item not reserved yet;
 * its block waits until the item is written or reserving is over (every block with a share is through it,
 * `shared`) without it. Before that a block may wait for nothing that is not running: it takes a reserved
 * item by compare-and-swap or leaves; the grid's last block (blocks start in index order, as CUB's
 * decoupled look-back also assumes: when it runs, every block has started) always waits for reserving to
 * be over and takes what is left. A segment of several chunks leaves one partial per chunk; the block that
 * finishes its last chunk combines them in chunk order. Every call leaves the queue, the items and the
 * counters zeroed. (In sr_block's one launch only its tail blocks take part, ranked among themselves: the
 * blocks, the grid and its last block above are theirs.) */
struct sr_queue {
  unsigned chunks;  /* work items reserved (past `capacity` after a failed reservation) */
  unsigned taken;   /* tickets handed out */
  unsigned shared;  /* blocks with a share of their own through it: at share_blocks, reserving is over */
  unsigned exited;  /* blocks out: the last one zeroes the queue */
  unsigned started; /* blocks started: at all of them, a block may hold a ticket for an item to come */
  unsigned dead;    /* capacity less the first item of the first failed reservation (0: none failed) */
  unsigned pad[2];
};

__device__ __forceinline__ unsigned sr_chunk_count(long long len) { return (unsigned)((len + SR_CHUNK - 1) / SR_CHUNK); }

#define SR_NONE 0xffffffffu

/* Where a logical warp writes segment i's result (WARP_KERNEL): i computed where it is used, through an opaque
 * copy, in the kernels of T > 1 first tiles and the 8-byte types' (ptxas otherwise keeps the output's address,
 * known before the segment's range, across the range: int32 max sr_warp32t spilled 8 bytes at 64 registers,
 * float64 max sr_warp32 16 bytes at 40; with the copy in every kernel, int32 max sr_warp32u spilled 12). */
template <int T> __device__ __forceinline__ int sr_out_index(int i)
{
  if (T > 1 || sizeof(SR_T) > 4) asm volatile("" : "+r"(i));
  return i;
}

/* Whether the reservation of `count` items from `first` fits the queue. */
__device__ __forceinline__ bool sr_fits(unsigned first, unsigned count, unsigned capacity)
{
  return first <= capacity && count <= capacity - first;
}

/* A reservation from `first` failed: the items from there on are never written (every later reservation
 * fails too), which `dead` (capacity less the lowest such `first`) tells the ticket holders. */
__device__ __forceinline__ void sr_failed(sr_queue *q, unsigned first, unsigned capacity)
{
  if (first < capacity) atomicMax(&q->dead, capacity - first);
}

/* The end of the work items that are or will be written: `chunks` or less. */
__device__ __forceinline__ unsigned sr_end(const sr_queue *q, unsigned capacity)
{
  return min(bm_load_acquire(&q->chunks), capacity - bm_load_acquire(&q->dead));
}

/* Counts this block in `started` (a first stage's first step; q null: a fixed kernel alone). */
__device__ __forceinline__ void sr_start(sr_queue *q)
{
  if (q && threadIdx.x == 0) atomicAdd(&q->started, 1);
}

/* The first of `count` work items reserved for a segment, or SR_NONE when the queue has no room: by
 * compare-and-swap (a reservation that does not fit leaves `chunks` as it was), for the kernels bounded to
 * 32 registers, which a fetch-and-add spills (the compiler aggregates a warp's fetch-and-adds on one
 * address with a shuffle scan); one round trip per reservation, the others retry meanwhile. */
__device__ __forceinline__ unsigned sr_reserve_cas(sr_queue *q, unsigned capacity, unsigned count)
{
  unsigned c = bm_load_acquire(&q->chunks);
  for (;;) {
    if (c > capacity || count > capacity - c) return SR_NONE;
    const unsigned seen = atomicCAS(&q->chunks, c, c + count);
    if (seen == c) return c;
    c = seen;
  }
}

/* The same by fetch-and-add: one atomic whatever the contention; a reservation that does not fit passes
 * `capacity` and records it (sr_failed). */
__device__ __forceinline__ unsigned sr_reserve_add(sr_queue *q, unsigned capacity, unsigned count)
{
  const unsigned first = atomicAdd(&q->chunks, count);
  if (sr_fits(first, count, capacity)) return first;
  sr_failed(q, first, capacity);
  return SR_NONE;
}

/* A work item (or a ticket for one) for this block, or SR_NONE: see sr_queue (`ranks`: the blocks that take
 * part in the tail, gridDim.x but in sr_block's one launch). */
__device__ __forceinline__ unsigned sr_take(sr_queue *q, unsigned capacity, unsigned ranks)
{
  if (bm_load_acquire(&q->started) == ranks) return atomicAdd(&q->taken, 1);
  unsigned t = bm_load_acquire(&q->taken);
  for (;;) {
    if (t >= sr_end(q, capacity)) return SR_NONE;
    const unsigned seen = atomicCAS(&q->taken, t, t + 1);
    if (seen == t) return t;
    t = seen;
  }
}

/* The lanes (`lane` of `lanes`) of the group that deferred segment s write its work items from `first`. */
__device__ __forceinline__ void sr_write_items(int s, long long len, unsigned first, int lane, int lanes,
                                               unsigned long long *items)
{
  for (unsigned j = lane; j < sr_chunk_count(len); j += lanes)
    __stcg(items + first + j, (unsigned long long)(s + 1) << 32 | j);
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

/* The adaptive launcher's second part, run by every block when its own share is done (see sr_queue);
 * a block's thread 0 takes its next work item while the block reduces the current one. */

/* Work item t once written, or 0 when there is none: t passed the items reserved by the time reserving
 * was over (or the queue's capacity). */
__device__ __forceinline__ unsigned long long sr_item(const sr_queue *q, const unsigned long long *items,
                                                      unsigned t, unsigned capacity, unsigned share_blocks)
{
  if (t == SR_NONE) return 0;
  for (;;) {
    if (t >= capacity - bm_load_acquire(&q->dead)) return 0;
    const unsigned long long w = __ldcv(items + t);
    if (w != 0) return w;
    if (bm_load_acquire(&q->shared) >= share_blocks && t >= sr_end(q, capacity)) return 0;
    __nanosleep(64);
  }
}

/* The next work item for this block (`rank` of the tail's `ranks` blocks), as sr_item; the last of them,
 * finding none free, waits for reserving to be over and takes what is left. */
__device__ __forceinline__ unsigned long long sr_next(sr_queue *q, const unsigned long long *items, unsigned *ticket,
                                                      unsigned capacity, unsigned share_blocks, unsigned rank,
                                                      unsigned ranks)
{
  unsigned t = sr_take(q, capacity, ranks);
  if (t == SR_NONE && rank == ranks - 1) {
    while (bm_load_acquire(&q->shared) < share_blocks && (t = sr_take(q, capacity, ranks)) == SR_NONE) __nanosleep(128);
    if (t == SR_NONE) t = sr_take(q, capacity, ranks);
  }
  *ticket = t;
  return sr_item(q, items, t, capacity, share_blocks);
}

/* rank, ranks: this block's place among the blocks that take part in the tail, and their number (blockIdx.x
 * and gridDim.x but in sr_block's one launch, whose blocks of segments leave before it). */
template <int U>
__device__ __forceinline__ void sr_tail(const SR_T *in, const int *off, SR_T *out, sr_queue *q, unsigned long long *items,
                                        SR_T *partial, unsigned *done, unsigned capacity, unsigned share_blocks,
                                        void *temp, unsigned rank, unsigned ranks)
{
  __shared__ unsigned long long work;
  __shared__ unsigned ticket;
  __shared__ int combine;
  __syncthreads(); /* every warp of the block is through its share */
  if (threadIdx.x == 0) {
    __threadfence();
    if (rank < share_blocks) atomicAdd(&q->shared, 1);
    if (rank >= share_blocks) /* no share: the blocks with one (all started before) reserve first */
      while (bm_load_acquire(&q->shared) < share_blocks) __nanosleep(128);
    work = sr_next(q, items, &ticket, capacity, share_blocks, rank, ranks);
  }
  __syncthreads();
  for (;;) {
    const unsigned long long w = work;
    const unsigned t = ticket;
    if (w == 0) break;
    unsigned next = SR_NONE;
    if (threadIdx.x == 0) {
      __stcg(items + t, 0ull);
      next = sr_take(q, capacity, ranks); /* (its latency hides behind this chunk's loads) */
    }
    const unsigned j = (unsigned)w;
    const int s = (int)(w >> 32) - 1;
    const int sb = off[s], se = off[s + 1];
    const int b = sb + (int)j * SR_CHUNK;
    const SR_T acc = block_range<U>(in, b, (int)min((long long)b + SR_CHUNK, (long long)se));
    SR_T agg;
    BRED(&acc, &agg, temp);
    const unsigned n = sr_chunk_count(se - sb);
    if (threadIdx.x == 0) {
      int last = 0;
      if (n == 1) {
        out[s] = agg;
      } else {
        partial[t] = agg;
        __threadfence();
        last = atomicAdd(done + (t - j), 1) == n - 1;
      }
      combine = last;
    }
    __syncthreads();
    if (combine) { /* this segment's last chunk: its partials, in chunk order */
      __threadfence();
      const unsigned first = t - j;
      SR_T a = SR_ID;
      for (unsigned i = threadIdx.x; i < n; i += SR_THREADS) a = OPF(a, __ldcg(partial + first + i));
      SR_T total;
      BRED(&a, &total, temp);
      if (threadIdx.x == 0) {
        out[s] = total;
        done[first] = 0;
      }
    }
    if (threadIdx.x == 0) {
      if (next == SR_NONE) {
        work = sr_next(q, items, &ticket, capacity, share_blocks, rank, ranks);
      } else {
        ticket = next;
        work = sr_item(q, items, next, capacity, share_blocks);
      }
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    __threadfence();
    if (atomicAdd(&q->exited, 1) == ranks - 1) { /* every other block of the tail is out */
      __threadfence();
      *q = sr_queue{};
    }
  }
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
        if (lane == 0) out[sr_out_index<T>(s0 + k)] = agg;                                                   \
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

/* ---- sr_run: one block per run of consecutive segments ----
 * A block takes `group` consecutive segments at a time (ceil(n_seg / blocks with a share), at most
 * SR_THREADS): their items are one contiguous range, read as tiles of four 16-byte vectors a thread
 * (BlockLoad vectorize: blocked, coalesced) whatever the segments' lengths, so that no load waits for an
 * offset and every thread has 64 bytes in flight. Each thread reduces its items segment by segment (the
 * group's offsets in shared memory; a binary search for the segment of its first item) and writes the
 * segments that begin and end within it; the partial of a segment that began in an earlier thread or tile
 * reaches the thread where it ends through a BlockScan (exclusive, with a running prefix from tile to
 * tile) over (ends here, value) pairs with the segmented operator, a user type and a custom operator. The
 * end of a range: tiles of one vector a thread, then one guarded (direct). Empty segments get the
 * identity where the group starts; a segment longer than `defer` is deferred to the tail (q non-null) and
 * the range is cut around it. */
using sr_pair = seg_pair<SR_T>; /* (cut: a segment ends in these items) */
#define SR_PAIR CAT(COOP_TYPE_SRP, SR_TCU)
#define SR_SEGOP CAT3(sr, OPN, SR_TC)
#define BLOAD4 CAT4(coop_block_load_, SR_TC, _t256, CAT3(_i, SR_N4, _vectorize))
#define BLOADGD CAT4(coop_block_load_guarded_, SR_TC, _t256, CAT3(_i, SR_N, _direct))
#ifndef SR_RUN_SCAN /* the segmented scan's algorithm (modules.sh: raking for 8-byte types, 80 registers against */
#define SR_RUN_SCAN warp_scans /* warp_scans' 107, so that an SM holds three blocks; 4-byte: 64 against 58) */
#define SR_RUN_SCANU WARP_SCANS
#endif
#define BSCANSEG CAT(CAT4(coop_block_exclusive_scan_custom_, SR_SEGOP, _prefix_srp, SR_TC), CAT(_t256_i1_, SR_RUN_SCAN))
#define BSCANSEG_TEMP_BYTES                                                                                  \
  CAT(CAT4(COOP_BLOCK_EXCLUSIVE_SCAN_CUSTOM_SR, CAT(OPNU, SR_TCU), _PREFIX_SRP, SR_TCU),                     \
      CAT3(_T256_I1_, SR_RUN_SCANU, _TEMP_BYTES))
static_assert(sizeof(sr_pair) == sizeof(SR_PAIR) && alignof(sr_pair) <= alignof(SR_PAIR), "the pair's user type");

/* The segmented operator: b's value alone when a segment ends in b, else a's and b's combined. */
extern "C" __device__ void SR_SEGOP(const SR_PAIR *a, const SR_PAIR *b, SR_PAIR *o)
{
  seg_pair_combine<SR_T>(a, b, o, [](SR_T x, SR_T y) { return OPF(x, y); });
}

/* One thread's part of a tile of a range (sr_run's and sr_wrun's): its IPT items x from position u, of which
 * [lo, hi) are the range's; so[ks..ke] the offsets of the range's segments (so[ks] <= lo, hi <= so[ke]), out + base
 * their results. Writes the segments that begin and end within its items; returns the pair it scans (the items
 * after the last segment that ends here, cut when one does) and, in head and head_k (-1: none), the items of the
 * first segment that ends here, whose earlier part the scan brings. */
template <int IPT>
__device__ __forceinline__ sr_pair sr_run_lane(const SR_T (&x)[IPT], int u, int lo, int hi, const int *so, int ks,
                                               int ke, SR_T *out, SR_T &head, int &head_k)
{
  const SR_T id = SR_ID;
  sr_pair mine = {id, 0};
  head = id;
  head_k = -1;
  if (lo < hi) {
    int a = ks, b = ke; /* the last k with so[k] <= lo: lo's segment, not empty */
    while (b - a > 1) {
      const int m = (a + b) >> 1;
      if (so[m] <= lo) a = m;
      else b = m;
    }
    int k = a, end = so[k + 1];
    if (end >= hi) { /* no segment ends before this thread's last item (most threads past a few items a
                      * segment): one reduction, no branch an item (42 instructions an item before) */
      SR_T acc = id;
      if (lo == u && hi == u + IPT) {
#pragma unroll
        for (int i = 0; i < IPT; ++i) acc = OPF(acc, x[i]);
      } else {
#pragma unroll
        for (int i = 0; i < IPT; ++i) acc = u + i >= lo && u + i < hi ? OPF(acc, x[i]) : acc;
      }
      if (end == hi) { /* segment k ends at this thread's last item: its earlier part comes from the scan */
        head = acc;
        head_k = k;
      } else {
        mine.v = acc;
      }
    } else {
      SR_T acc = id;
#pragma unroll
      for (int i = 0; i < IPT; ++i) {
        const int p = u + i;
        if (p < lo || p >= hi) continue;
        acc = OPF(acc, x[i]);
        if (p + 1 == end) { /* segment k ends here */
          if (head_k < 0) {
            head = acc; /* its earlier part comes from the scan */
            head_k = k;
          } else {
            out[k] = acc;
          }
          acc = id;
          for (++k; k < ke && so[k + 1] <= p + 1; ++k) {} /* (empty segments: written when the group starts) */
          end = k < ke ? so[k + 1] : 0x7fffffff;
        }
      }
      mine.v = acc;
    }
    mine.cut = head_k >= 0;
  }
  return mine;
}

/* One tile of a range (sr_run_lane), its pairs scanned by the block. */
template <int IPT>
__device__ __forceinline__ void sr_run_tile(const SR_T (&x)[IPT], int u, int lo, int hi, const int *so, int ks, int ke,
                                            SR_T *out, sr_pair *running, void *temp)
{
  SR_T head;
  int head_k;
  const sr_pair mine = sr_run_lane<IPT>(x, u, lo, hi, so, ks, ke, out, head, head_k);
  sr_pair carry;
  BSCANSEG(reinterpret_cast<const SR_PAIR *>(&mine), reinterpret_cast<SR_PAIR *>(&carry),
           reinterpret_cast<SR_PAIR *>(running), temp);
  if (head_k >= 0) out[head_k] = OPF(carry.v, head);
  __syncthreads(); /* temp is reused */
}

/* The items [a, e) of segments so[ks..ke] (results at out + k), tile by tile. */
__device__ __forceinline__ void sr_run_range(const SR_T *in, int a, int e, const int *so, int ks, int ke, SR_T *out,
                                             void *temp)
{
  const SR_T id = SR_ID;
  sr_pair running = {id, 0};
  int p = a - a % SR_N; /* (the input is 16-byte aligned) */
  for (; p + SR_THREADS * SR_N4 <= e; p += SR_THREADS * SR_N4) {
    SR_T x[SR_N4];
    BLOAD4(in + p, x, 0);
    const int u = p + (int)threadIdx.x * SR_N4;
    sr_run_tile<SR_N4>(x, u, max(u, a), min(u + SR_N4, e), so, ks, ke, out, &running, temp);
  }
  for (; p + SR_BTILE <= e; p += SR_BTILE) {
    SR_T x[SR_N];
    BLOAD(in + p, x, 0);
    const int u = p + (int)threadIdx.x * SR_N;
    sr_run_tile<SR_N>(x, u, max(u, a), min(u + SR_N, e), so, ks, ke, out, &running, temp);
  }
  if (p < e) {
    SR_T x[SR_N];
    BLOADGD(in + p, x, e - p, &id, 0);
    const int u = p + (int)threadIdx.x * SR_N;
    sr_run_tile<SR_N>(x, u, max(u, a), min(u + SR_N, e), so, ks, ke, out, &running, temp);
  }
}

/* The first k >= k0 whose bit is set in mask (SR_THREADS bits), or `group` when none. */
__device__ __forceinline__ int sr_next_bit(const unsigned *mask, int k0, int group)
{
  for (int w = k0 / 32; w * 32 < group; ++w) {
    const unsigned m = mask[w] & (w == k0 / 32 ? 0xffffffffu << (k0 % 32) : 0xffffffffu);
    if (m) return min(w * 32 + __ffs(m) - 1, group);
  }
  return group;
}

extern "C" __global__ void __launch_bounds__(SR_THREADS, SR_RUN_MIN_BLOCKS)
  sr_run(const SR_T *in, const int *off, SR_T *out, int n_seg, long long defer, sr_queue *q,
         unsigned long long *items, SR_T *partial, unsigned *done, unsigned capacity, unsigned share_blocks)
{
  DECLARE_BLOCK_TEMP;
  __shared__ __align__(16) unsigned char scan_temp[BSCANSEG_TEMP_BYTES];
  __shared__ int so[SR_THREADS + 1];
  __shared__ unsigned deferred[SR_THREADS / 32];
  __shared__ unsigned first[SR_THREADS];
  sr_start(q);
  const int blocks = q ? (int)share_blocks : (int)gridDim.x; /* blocks with a share of the segments */
  const int group = (int)min((n_seg + (long long)blocks - 1) / max(blocks, 1), (long long)SR_THREADS);
  const SR_T id = SR_ID;
  for (long long s0 = (long long)blockIdx.x * group; blockIdx.x < blocks && s0 < n_seg; s0 += (long long)blocks * group) {
    const int g = (int)min((long long)group, n_seg - s0), k = threadIdx.x;
    if (k < g) so[k] = off[s0 + k];
    if (k == 0) so[g] = off[s0 + g]; /* (g may be SR_THREADS) */
    if (k < SR_THREADS / 32) deferred[k] = 0;
    __syncthreads();
    int len = 0;
    if (k < g) {
      len = so[k + 1] - so[k];
      if (len <= 0) out[s0 + k] = id; /* (an empty segment; an end before its start, as CUB: empty) */
      if (q && len > defer && (first[k] = sr_reserve_add(q, capacity, sr_chunk_count(len))) != SR_NONE)
        atomicOr(&deferred[k / 32], 1u << (k % 32));
    }
    const bool ranges = !__syncthreads_or(len < 0); /* offsets that decrease: no ranges, a segment at a time */
    /* the deferred segments' work items (rare), written by every thread; then the ranges between them */
    for (int d = sr_next_bit(deferred, 0, g); d < g; d = sr_next_bit(deferred, d + 1, g))
      sr_write_items((int)(s0 + d), so[d + 1] - so[d], first[d], threadIdx.x, SR_THREADS, items);
    for (int k0 = 0; ranges && k0 < g;) {
      const int k1 = sr_next_bit(deferred, k0, g);
      if (so[k1] > so[k0]) sr_run_range(in, so[k0], so[k1], so, k0, k1, out + s0, scan_temp);
      k0 = k1 + 1;
    }
    for (int j = 0; !ranges && j < g; ++j) /* (what sr_block does) */
      if (so[j + 1] > so[j] && !(deferred[j / 32] >> (j % 32) & 1)) {
        const SR_T acc = block_range<4>(in, so[j], so[j + 1]);
        SR_T agg;
        BRED(&acc, &agg, temp);
        if (threadIdx.x == 0) out[s0 + j] = agg;
        __syncthreads(); /* temp is reused */
      }
    __syncthreads(); /* so and deferred are reused */
  }
  if (q) sr_tail<4>(in, off, out, q, items, partial, done, capacity, share_blocks, temp, blockIdx.x, gridDim.x);
}

/* ---- sr_wrun: one warp per run of 32 consecutive segments ----
 * sr_run's way at a warp's scale, with no barrier: a warp takes 32 consecutive segments at a time, reads their
 * items as one range in tiles of four 16-byte vectors a lane (WarpLoad vectorize: blocked), the next tile's loads
 * issued before this one is reduced, so that no load waits for an offset or a reduction; each lane reduces its
 * items segment by segment (sr_run_lane) and the partials of the segments that cross lanes and tiles meet in a
 * WarpScan (exclusive, the segmented operator over (value, cut) pairs, seeded with the running partial of the
 * tiles before). The next run's offsets are loaded while this one is read. Empty segments get the identity; a
 * segment longer than `defer` is deferred to the tail (q non-null) and the range cut around it; offsets that
 * decrease: a segment at a time (a logical warp of 32 lanes). */
#define WR_IPT SR_N4           /* items a lane a tile */
#define WR_TILE (32 * WR_IPT)  /* items a tile */
#define WLOADB CAT4(coop_warp_load_, SR_TC, _w32, CAT3(_i, SR_N4, _vectorize))
#define WLOADBG CAT4(coop_warp_load_guarded_, SR_TC, _w32, CAT3(_i, SR_N4, _direct))
#define WSCANSEG CAT4(coop_warp_exclusive_scan_custom_, SR_SEGOP, _srp, CAT(SR_TC, _w32))
#ifndef SR_WRUN_MIN_BLOCKS
#define SR_WRUN_MIN_BLOCKS 3 /* 80 registers (under 64 it spilled 24 bytes), 24 warps an SM */
#endif

/* The tile of the range [a, e) at p (p + WR_TILE past e: guarded, the identity past it). */
__device__ __forceinline__ void sr_wrun_load(const SR_T *in, int p, int e, SR_T (&x)[WR_IPT])
{
  const SR_T id = SR_ID;
  if (p + WR_TILE <= e)
    WLOADB(SR_AL(in + p), x, 0);
  else
    WLOADBG(in + p, x, e - p, &id, 0);
}

/* The tile at p of a range [a, e) (sr_run_lane), its pairs scanned by the warp from *running. */
__device__ __forceinline__ void sr_wrun_tile(const SR_T (&x)[WR_IPT], int p, int a, int e, const int *so, int ks,
                                             int ke, SR_T *out, sr_pair &running, int lane)
{
  SR_T head;
  int head_k;
  const int u = p + lane * WR_IPT;
  const sr_pair mine = sr_run_lane<WR_IPT>(x, u, max(u, a), min(u + WR_IPT, e), so, ks, ke, out, head, head_k);
  sr_pair carry, agg;
  WSCANSEG(reinterpret_cast<const SR_PAIR *>(&mine), reinterpret_cast<SR_PAIR *>(&carry),
           reinterpret_cast<const SR_PAIR *>(&running), reinterpret_cast<SR_PAIR *>(&agg), 0);
  if (head_k >= 0) out[head_k] = OPF(carry.v, head);
  SR_SEGOP(reinterpret_cast<const SR_PAIR *>(&running), reinterpret_cast<const SR_PAIR *>(&agg),
           reinterpret_cast<SR_PAIR *>(&running));
}

/* The items [a, e) of segments so[ks..ke] (results at out + k), by one warp, two tiles in flight. */
__device__ __forceinline__ void sr_wrun_range(const SR_T *in, int a, int e, const int *so, int ks, int ke, SR_T *out,
                                              int lane)
{
  sr_pair running = {SR_ID, 0};
  int p = a - a % SR_N; /* (the input is 16-byte aligned) */
  SR_T xa[WR_IPT], xb[WR_IPT];
  sr_wrun_load(in, p, e, xa);
  for (;;) { /* (two tiles a turn: no copy between the buffers) */
    if (p + WR_TILE < e) sr_wrun_load(in, p + WR_TILE, e, xb);
    sr_wrun_tile(xa, p, a, e, so, ks, ke, out, running, lane);
    if ((p += WR_TILE) >= e) break;
    if (p + WR_TILE < e) sr_wrun_load(in, p + WR_TILE, e, xa);
    sr_wrun_tile(xb, p, a, e, so, ks, ke, out, running, lane);
    if ((p += WR_TILE) >= e) break;
  }
}

extern "C" __global__ void __launch_bounds__(SR_THREADS, SR_WRUN_MIN_BLOCKS)
  sr_wrun(const SR_T *in, const int *off, SR_T *out, int n_seg, long long defer, sr_queue *q,
          unsigned long long *items, SR_T *partial, unsigned *done, unsigned capacity, unsigned share_blocks)
{
  __shared__ int so_warps[SR_THREADS / 32][33];
  int *so = so_warps[threadIdx.x / 32];
  const int lane = threadIdx.x % 32;
  const SR_T id = SR_ID;
  sr_start(q);
  const int blocks = q ? (int)share_blocks : (int)gridDim.x; /* blocks with a share of the segments */
  const long long stride = (long long)blocks * SR_THREADS; /* (32 segments a warp) */
  long long s0 = (long long)blockIdx.x * SR_THREADS + threadIdx.x / 32 * 32;
  int nb = 0, ne = 0; /* this lane's segment's offsets (lanes past the run: the last offset) */
  if (blockIdx.x < blocks && s0 < n_seg) {
    nb = off[min(s0 + lane, (long long)n_seg)];
    ne = off[min(s0 + lane + 1, (long long)n_seg)];
  }
  for (; blockIdx.x < blocks && s0 < n_seg; s0 += stride) {
    const int g = (int)min(32LL, n_seg - s0);
    const int b = nb, e = ne, len = e - b;
    if (s0 + stride < n_seg) { /* the next run's, while this one is read */
      nb = off[min(s0 + stride + lane, (long long)n_seg)];
      ne = off[min(s0 + stride + lane + 1, (long long)n_seg)];
    }
    so[lane] = b; /* (lane g holds the run's end) */
    if (lane == 31) so[32] = e;
    const bool mine = lane < g;
    if (mine && len <= 0) out[s0 + lane] = id; /* (an empty segment; an end before its start, as CUB: empty) */
    unsigned first = SR_NONE;
    if (q && mine && len > defer) first = sr_reserve_add(q, capacity, sr_chunk_count(len));
    const unsigned deferred = __ballot_sync(0xffffffffu, first != SR_NONE);
    if (first != SR_NONE) sr_write_items((int)(s0 + lane), len, first, 0, 1, items);
    const bool ranges = !__any_sync(0xffffffffu, mine && len < 0);
    __syncwarp(); /* so is written */
    for (int k0 = 0; ranges && k0 < g;) {
      const unsigned m = deferred & (0xffffffffu << k0);
      const int k1 = m ? min(__ffs(m) - 1, g) : g;
      if (so[k1] > so[k0]) sr_wrun_range(in, so[k0], so[k1], so, k0, k1, out + s0, lane);
      k0 = k1 + 1;
    }
    for (int j = 0; !ranges && j < g; ++j) /* (a segment at a time) */
      if (so[j + 1] > so[j] && !(deferred >> j & 1)) {
        SR_T acc = warp_range4_32(in, so[j], so[j + 1], lane, id), agg;
        WRED(32)(&acc, &agg, 0);
        if (lane == 0) out[s0 + j] = agg;
      }
    __syncwarp(); /* so is reused */
  }
  if (q) {
    DECLARE_BLOCK_TEMP;
    sr_tail<4>(in, off, out, q, items, partial, done, capacity, share_blocks, temp, blockIdx.x, gridDim.x);
  }
}

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
      if (threadIdx.x == 0) out[s] = agg;
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
