// Segmented exclusive sum from cooplink primitives: one block per segment, tile by tile, BlockLoad,
// BlockScan with a running prefix (the carry of the tiles before), BlockStore. Two builds as in
// bench/segreduce/kernels.cu: linked by cooplink, or with the wrappers' CUDA source in this translation
// unit (-DCOOP_WHOLE_PROGRAM). Parameters (-D): SC_T, SC_TC, SC_N (items a thread holds: two 16-byte
// vectors), SC_V (items a vector holds), SC_THREADS (256), SC_D (full tiles in flight a block: 1, or 2 for the
// build chosen when there are fewer segments than the GPU holds blocks: with 256 segments of 1M items a block
// per segment keeps too few loads in flight). Wider tiles (SC_N of 4 or 8 vectors a thread, one tile in flight)
// lost to both at every length (2026-12-04, f32, share of the copy ceiling, v4 / v8 against d2: 4096 0.721 /
// 0.127 against 0.816, 1M 0.654 / 0.360 against 0.748): what 1M lacks is blocks, not bytes a block. Two tiles of
// four vectors in flight lost too (2026-12-06, H100, f32: 1M 0.718 against d2's 0.848). SC_CLUSTER K > 1 builds
// sc_block on a cluster of K blocks a segment (below), which the launcher takes for segments of 64 KB and more
// (H100 f32 1M: c2 0.947 against d2's 0.861). The second kernel,
// sc_chain (below), gives a long segment many blocks; the launcher (bench/scan/scan.py choose) takes it for
// short segments, where it reads 3x a block per segment.
//
// Tiles: full tiles on a 16-byte boundary load and store as vectors (blocked, coalesced), the next SC_D
// tiles' loads issued before this one is scanned (a segment of 1M items has one block for the whole of it:
// its loads in flight are all that hides the memory's latency); a segment that starts off a boundary first takes a shorter tile that ends
// on one; the ragged end is guarded.
#ifdef COOP_WHOLE_PROGRAM
#include COOP_WHOLE_PROGRAM
/* sc_chain's pair is a user type: the header's operator must be declared with the wrappers' struct */
#if defined(SC_TC_F32)
#define COOP_TYPE_SRPF32 coop_user_srpf32
#elif defined(SC_TC_F64)
#define COOP_TYPE_SRPF64 coop_user_srpf64
#elif defined(SC_TC_I32)
#define COOP_TYPE_SRPI32 coop_user_srpi32
#endif
#endif
#include "scan.h"

#include "paste.h"
#include "segpair.h"

#ifndef SC_THREADS
#define SC_THREADS 256 /* (1024 measured worse than SC_D 2 at every length: f32 1M 0.702 against 0.747) */
#endif
#ifndef SC_D
#define SC_D 1 /* full tiles in flight a block: 2 measured worse where segments fill the GPU (f32 4096 0.816 against
                 * 0.877, 65536 0.795 against 0.855), better where they cannot (1M, 256 segments: 0.747 against 0.661);
                 * 4: 61 registers, 0.80-0.81 for 4096..65536, 0.755 for 1M */
#endif
#define SC_TILE (SC_THREADS * SC_N)
#define SC_T_ CAT(_t, SC_THREADS)
#define BLOAD CAT4(coop_block_load_, SC_TC, SC_T_, CAT3(_i, SC_N, _vectorize))
#define BLOADG CAT4(coop_block_load_guarded_, SC_TC, SC_T_, CAT3(_i, SC_N, _direct))
#define BSTORE CAT4(coop_block_store_, SC_TC, SC_T_, CAT3(_i, SC_N, _vectorize))
#define BSTOREG CAT4(coop_block_store_guarded_, SC_TC, SC_T_, CAT3(_i, SC_N, _direct))
#define BSCAN CAT4(coop_block_exclusive_scan_sum_prefix_, SC_TC, SC_T_, CAT3(_i, SC_N, _warp_scans))

#ifndef SC_CLUSTER
#define SC_CLUSTER 1 /* blocks a segment: > 1, an explore build (prepare.sh scan-<type>-c<K>; sc_block below) */
#endif
#if SC_CLUSTER > 1
/* sc_block on a cluster of SC_CLUSTER blocks a segment (grid: segments x SC_CLUSTER): where segments are too few
 * to fill the GPU (256 of 1M items), a block per segment is bound by its own tiles one after another (f32 1M d2:
 * 24% of the warps active, the d4 ring no faster). The segment's tiles (on the 16-byte grid from its start rounded
 * down) go round the cluster's blocks; in each round every block scans its tile from zero (BlockScan), sends the
 * tile's sum to every block of the cluster (distributed shared memory) and waits for the round's sums sent to it:
 * its tile's prefix is the running sum plus the sums of the tiles before it in the round, and every block adds all
 * of them to the running sum in the same order (the same value in every block). Each block loads its next round's
 * tile before it scans this one (two tiles in flight, as SC_D 2). */
__device__ __forceinline__ int sc_cluster_rank()
{
  unsigned r;
  asm("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
  return (int)r;
}
__device__ __forceinline__ int sc_cluster_id()
{
  unsigned r;
  asm("mov.u32 %0, %%clusterid.x;" : "=r"(r));
  return (int)r;
}
/* SC_CLUSTER's messages: a tile's sum as words of (round + 1) << 32 | 32 bits of it, each its own message (no
 * fence, no barrier a round: a cluster barrier's release waits for the block's stores to reach the GPU, measured
 * 25% of the warps' stalls, f32 1M) */
#define SC_WORDS (sizeof(SC_T) / 4)
/* writes word w of tile sum v of round q to `to`'s copy of this block's shared word at p (distributed shared
 * memory) */
__device__ __forceinline__ void sc_cluster_send(unsigned long long *p, unsigned to, int q, SC_T v, int w)
{
  unsigned long long bits = 0; /* (v's bits, the low word first) */
  memcpy(&bits, &v, sizeof v);
  const unsigned long long word = (unsigned long long)(unsigned)(q + 1) << 32 | (unsigned)(bits >> (32 * w));
  unsigned a = (unsigned)__cvta_generic_to_shared(p), r;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(to));
  asm volatile("st.relaxed.cluster.shared::cluster.u64 [%0], %1;" ::"r"(r), "l"(word) : "memory");
}
/* the sum of round q in a slot of this block's box (waits for its words) */
__device__ __forceinline__ SC_T sc_cluster_recv(const unsigned long long *box, int q)
{
  unsigned bits[SC_WORDS];
  for (int w = 0; w < (int)SC_WORDS; ++w) {
    unsigned long long word;
    const unsigned a = (unsigned)__cvta_generic_to_shared(box + w);
    do
      asm volatile("ld.relaxed.cluster.shared::cta.u64 %0, [%1];" : "=l"(word) : "r"(a) : "memory");
    while ((unsigned)(word >> 32) != (unsigned)(q + 1));
    bits[w] = (unsigned)word;
  }
  SC_T v;
  memcpy(&v, bits, sizeof v);
  return v;
}
__device__ __forceinline__ void sc_cluster_arrive() { asm volatile("barrier.cluster.arrive.release.aligned;" ::: "memory"); }
__device__ __forceinline__ void sc_cluster_wait() { asm volatile("barrier.cluster.wait.acquire.aligned;" ::: "memory"); }

/* tile i of the segment [b, e) on the grid from a (b rounded down to a vector): [*lo, *hi) */
__device__ __forceinline__ void sc_cluster_tile(int a, int b, int e, int i, int *lo, int *hi)
{
  *lo = max(a + i * SC_TILE, b);
  *hi = min(a + (i + 1) * SC_TILE, e);
}
/* tile i of the segment [b, e), loaded into x */
__device__ __forceinline__ void sc_cluster_load(const SC_T *in, int a, int b, int e, int i, SC_T (&x)[SC_N])
{
  const SC_T zero = 0;
  int lo, hi;
  sc_cluster_tile(a, b, e, i, &lo, &hi);
  if (hi - lo == SC_TILE)
    BLOAD(in + lo, x, 0);
  else
    BLOADG(in + lo, x, hi - lo, &zero, 0);
}

extern "C" __global__ void __cluster_dims__(SC_CLUSTER, 1, 1) __launch_bounds__(SC_THREADS)
  sc_block(const SC_T *in, const int *off, SC_T *out)
{
  __shared__ __align__(16) unsigned char temp[SCAN_TEMP_BYTES];
  /* box[q % 2][k]: block k's tile sum of round q (a round's words are read before this block sends the next
   * round's; none is written again until every block has sent that next round's, so two rounds' boxes suffice) */
  __shared__ unsigned long long box[2][SC_CLUSTER][SC_WORDS];
  const int rank = sc_cluster_rank(), s = sc_cluster_id();
  const int b = off[s], e = max(off[s + 1], b), a = b - b % SC_V;
  const int tiles = e > b ? (e - a + SC_TILE - 1) / SC_TILE : 0, rounds = (tiles + SC_CLUSTER - 1) / SC_CLUSTER;
  for (int k = (int)threadIdx.x; k < 2 * SC_CLUSTER * (int)SC_WORDS; k += SC_THREADS) (&box[0][0][0])[k] = 0;
  sc_cluster_arrive(); /* (every block's box is cleared before any is written: once a launch) */
  sc_cluster_wait();
  SC_T running = 0;
  SC_T x[2][SC_N];
  if (rank < tiles) sc_cluster_load(in, a, b, e, rank, x[0]);
  for (int r = 0; r < rounds; r += 2) {
#pragma unroll
    for (int d = 0; d < 2; ++d) {
      const int q = r + d;
      if (q >= rounds) break;
      const int i = q * SC_CLUSTER + rank;
      if (i + SC_CLUSTER < tiles) sc_cluster_load(in, a, b, e, i + SC_CLUSTER, x[d ^ 1]); /* (the next round's) */
      SC_T y[SC_N], sum = 0;
      if (i < tiles) BSCAN(x[d], y, &sum, temp); /* (i is the block's: all its threads or none) */
      if (threadIdx.x < SC_CLUSTER * SC_WORDS)
        sc_cluster_send(&box[d][rank][threadIdx.x % SC_WORDS], threadIdx.x / SC_WORDS, q, sum,
                        threadIdx.x % SC_WORDS);
      SC_T prefix = running, all = 0;
#pragma unroll
      for (int k = 0; k < SC_CLUSTER; ++k) {
        const SC_T v = sc_cluster_recv(&box[d][k][0], q);
        if (k < rank) prefix += v;
        all += v;
      }
      running += all;
      if (i < tiles) {
#pragma unroll
        for (int j = 0; j < SC_N; ++j) y[j] += prefix;
        int lo, hi;
        sc_cluster_tile(a, b, e, i, &lo, &hi);
        if (hi - lo == SC_TILE)
          BSTORE(out + lo, y, 0);
        else
          BSTOREG(out + lo, y, hi - lo, 0);
      }
      __syncthreads(); /* temp is reused */
    }
  }
  /* no block leaves while a word it sent may be on its way (CUDA's rule for distributed shared memory): a block is
   * here once it has every word sent to it, so when all are, none is in flight; relaxed, no fence */
  asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory");
  sc_cluster_wait();
}
#else
extern "C" __global__ void __launch_bounds__(SC_THREADS) sc_block(const SC_T *in, const int *off, SC_T *out)
{
  __shared__ __align__(16) unsigned char temp[SCAN_TEMP_BYTES];
  const int b = off[blockIdx.x], e = off[blockIdx.x + 1];
  const SC_T zero = 0;
  SC_T running = 0;
  int p = b;
  const int head = (SC_V - b % SC_V) % SC_V; /* items before the first 16-byte boundary */
  if (head) {
    const int n = min(e - b, head + SC_TILE - SC_V); /* a tile that ends on a boundary */
    SC_T x[SC_N], y[SC_N];
    BLOADG(in + p, x, n, &zero, 0);
    BSCAN(x, y, &running, temp);
    BSTOREG(out + p, y, n, 0);
    __syncthreads(); /* temp is reused */
    p += n;
  }
#if SC_D == 1 /* one tile at a time, as first measured (f32 4096 0.877, 65536 0.855 of the copy ceiling); the ring
               * below with one tile in flight, the same order of loads and scans, measured 0.785 and 0.747
               * (results/scan/s24_scan_f32.json) */
  for (; p + SC_TILE <= e; p += SC_TILE) {
    SC_T x[SC_N], y[SC_N];
    BLOAD(in + p, x, 0);
    BSCAN(x, y, &running, temp);
    BSTORE(out + p, y, 0);
    __syncthreads(); /* temp is reused */
  }
#else
  const int tiles = max(e - p, 0) / SC_TILE; /* full tiles: SC_D of them loading while one is scanned and stored */
  SC_T x[SC_D][SC_N];
#pragma unroll
  for (int d = 0; d < SC_D; ++d)
    if (d < tiles) BLOAD(in + p + d * SC_TILE, x[d], 0);
  for (int t = 0; t < tiles; t += SC_D) {
#pragma unroll
    for (int d = 0; d < SC_D; ++d) {
      if (t + d >= tiles) break;
      SC_T y[SC_N];
      BSCAN(x[d], y, &running, temp);
      BSTORE(out + p + (t + d) * SC_TILE, y, 0);
      __syncthreads(); /* temp is reused */
      if (t + d + SC_D < tiles) BLOAD(in + p + (t + d + SC_D) * SC_TILE, x[d], 0);
    }
  }
  p += tiles * SC_TILE;
#endif
  if (p < e) {
    SC_T x[SC_N], y[SC_N];
    BLOADG(in + p, x, e - p, &zero, 0);
    BSCAN(x, y, &running, temp);
    BSTOREG(out + p, y, e - p, 0);
  }
}
#endif

#if SC_D == 1 /* (the chained kernel is built once a type, with the default build) */
/* sc_chain: the whole array in tiles of SC_CTILE items on the array's own grid (tile t: items [t * SC_CTILE,
 * (t + 1) * SC_CTILE) clipped to [off[0], off[n_seg])), a block a tile, the tiles chained by a decoupled look-back
 * (as cub::DeviceScan's): so a segment of 1M items has 256 blocks instead of one. A block loads its tile (four
 * 16-byte vectors a thread, BlockLoad), marks the tile's segment starts (the offsets that fall in it, found by a
 * 256-way search of the offsets) in a bitmap, reduces its items into a (value since the last start, a start seen)
 * pair a thread, scans the pairs (BlockScan, exclusive, the segmented operator of bench/segreduce's sr_run: a user
 * type and a custom operator), publishes the tile's pair, and, unless the tile begins a segment, sums the pairs of
 * the tiles before it back to the nearest one with a start in it or whose inclusive value is published (a warp,
 * 32 tiles a step). Each item then gets its exclusive sum within its segment (BlockStore).
 *
 * status[t] (zero before the first launch) holds (epoch << 2) | 1 once vals[2t] holds the tile's aggregate (the
 * sum since its last start, or of the whole tile) and | 2 once vals[2t + 1] holds its inclusive value (the sum
 * from the start of the segment its last item is in): a launch passes an epoch one above the last (from 1), so no
 * launch reads another's words and nothing is cleared between launches. Offsets must not decrease (sc_block reads
 * an end before a start as an empty segment; here it is undefined). Floating-point sums are regrouped by the
 * look-back (which tiles' words a block finds published), so they may differ from run to run in the last bit, as
 * cub::DeviceScan's. */
/* SC_N4: four vectors a thread, SC_V * 4 (a literal: it is pasted into the primitives' names) */
#define SC_CTILE (SC_THREADS * SC_N4)
#ifndef SC_CHAIN_IO
#define SC_CHAIN_IO vectorize /* the full tiles' BlockLoad and BlockStore (an explore build: warp_transpose, SC_CHAIN_IOU
                               * WARP_TRANSPOSE: coalesced, through shared memory, as cub::DeviceScan's) */
#define SC_CHAIN_IOU VECTORIZE
#endif
#define BLOAD4 CAT4(coop_block_load_, SC_TC, SC_T_, CAT4(_i, SC_N4, _, SC_CHAIN_IO))
#define BLOADG4 CAT4(coop_block_load_guarded_, SC_TC, SC_T_, CAT3(_i, SC_N4, _direct))
#define BSTORE4 CAT4(coop_block_store_, SC_TC, SC_T_, CAT4(_i, SC_N4, _, SC_CHAIN_IO))
#define BLOAD4_TEMP_BYTES CAT4(COOP_BLOCK_LOAD_, SC_TCU, CAT(_T, SC_THREADS), CAT4(_I, SC_N4, _, CAT(SC_CHAIN_IOU, _TEMP_BYTES)))
#define BSTORE4_TEMP_BYTES CAT4(COOP_BLOCK_STORE_, SC_TCU, CAT(_T, SC_THREADS), CAT4(_I, SC_N4, _, CAT(SC_CHAIN_IOU, _TEMP_BYTES)))
#define SC_MAX(a, b) ((a) > (b) ? (a) : (b))
#define BSTOREG4 CAT4(coop_block_store_guarded_, SC_TC, SC_T_, CAT3(_i, SC_N4, _direct))
#define WSUM CAT3(coop_warp_reduce_sum_, SC_TC, _w32)
#define SC_SEGOP CAT(srsum, SC_TC)
#define SC_PAIR CAT(COOP_TYPE_SRP, SC_TCU)
#define BSCANSEG CAT(CAT4(coop_block_exclusive_scan_custom_, SC_SEGOP, _prefix_srp, SC_TC), CAT(_t256_i1_, SC_SEGSCAN))
#define BSCANSEG_TEMP_BYTES                                                                                   \
  CAT(CAT4(COOP_BLOCK_EXCLUSIVE_SCAN_CUSTOM_SRSUM, SC_TCU, _PREFIX_SRP, SC_TCU), CAT3(_T256_I1_, SC_SEGSCANU, _TEMP_BYTES))

using sc_pair = seg_pair<SC_T>; /* (cut: a segment starts in these items) */
static_assert(sizeof(sc_pair) == sizeof(SC_PAIR) && alignof(sc_pair) <= alignof(SC_PAIR), "the pair's user type");

/* The segmented operator: b's value alone when a segment starts in b, else a's and b's summed. */
extern "C" __device__ void SC_SEGOP(const SC_PAIR *a, const SC_PAIR *b, SC_PAIR *o)
{
  seg_pair_combine<SC_T>(a, b, o, [](SC_T x, SC_T y) { return x + y; });
}

#ifndef SC_CHAIN_FAST
#define SC_CHAIN_FAST 0 /* 1: an explore build (prepare.sh scan-<type>-fast; 2026-12-07): for 4-byte types a tile's
                         * flags and value in one 64-bit word of vals (one read a look-back, as cub::DeviceScan's,
                         * where the default reads the status, then the value), and the offsets' first read where
                         * they would be if the segments were even (one read for even lengths, where the default's
                         * search takes two to four); 2 (scan-<type>-wide): the same, and for 4-byte types a
                         * look-back of 128 tiles a step by relaxed accesses (sc_lookback_wide): a tile's inclusive value
                         * waits on the look-back of the one before it, so the chain advances one step's tiles a
                         * round trip of the L2 (32 tiles of 16 KB every ~0.5 us is ~1 TB/s of input at most) */
#endif
#define SC_PACKED (SC_CHAIN_FAST && sizeof(SC_T) == 4)

/* SC_PACKED's word: (epoch << 2 | kind) << 32 | the value's bits (kind 1: aggregate, bit 2: inclusive) */
__device__ __forceinline__ unsigned long long sc_word(unsigned epoch, unsigned kind, SC_T v)
{
  unsigned bits;
  memcpy(&bits, &v, sizeof bits);
  return (unsigned long long)(epoch << 2 | kind) << 32 | bits;
}
__device__ __forceinline__ unsigned sc_word_epoch(unsigned long long w) { return (unsigned)(w >> 34); }
__device__ __forceinline__ unsigned sc_word_kind(unsigned long long w) { return (unsigned)(w >> 32) & 3; }
__device__ __forceinline__ SC_T sc_word_value(unsigned long long w)
{
  const unsigned bits = (unsigned)w;
  SC_T v;
  memcpy(&v, &bits, sizeof bits);
  return v;
}

/* Publishes tile t's value v: kind 1 its aggregate, 2 or 3 its inclusive value (3: after an aggregate) (SC_PACKED: in
 * one word, the inclusive replacing the aggregate; else vals[2t] or vals[2t + 1], then status[t]). */
__device__ __forceinline__ void sc_publish(unsigned *status, SC_T *vals, int t, unsigned epoch, unsigned kind, SC_T v)
{
  if constexpr (SC_PACKED) {
    const unsigned long long w = sc_word(epoch, kind, v);
    unsigned long long *word = reinterpret_cast<unsigned long long *>(vals) + t;
    if constexpr (SC_CHAIN_FAST >= 2) /* (a word is its own message: nothing before it need be seen first) */
      asm volatile("st.relaxed.gpu.global.u64 [%0], %1;" ::"l"(word), "l"(w) : "memory");
    else
      asm volatile("st.release.gpu.global.u64 [%0], %1;" ::"l"(word), "l"(w) : "memory");
  } else {
    vals[2 * t + (kind >= 2)] = v;
    bm_store_release(&status[t], epoch << 2 | kind);
  }
}

/* Waits for tile k's word of this epoch: its kind (bit 2: inclusive), and under SC_PACKED its value. */
__device__ __forceinline__ unsigned sc_wait(const unsigned *status, const SC_T *vals, int k, unsigned epoch, SC_T *v)
{
  if constexpr (SC_PACKED) {
    unsigned long long w;
    do
      asm volatile("ld.acquire.gpu.global.u64 %0, [%1];"
                   : "=l"(w)
                   : "l"(reinterpret_cast<const unsigned long long *>(vals) + k)
                   : "memory");
    while (sc_word_epoch(w) != epoch);
    *v = sc_word_value(w);
    return sc_word_kind(w);
  } else {
    unsigned w;
    while ((w = bm_load_acquire(&status[k])) >> 2 != epoch) {
    }
    return w & 3;
  }
}

/* sc_chain's wide look-back (SC_CHAIN_FAST 2, 4-byte types; warp 0, lane 0 gets the result): the sum of the tiles
 * before t back to the nearest one whose inclusive value is published (a tile with a start publishes it at once),
 * that one included; tiles below k_first (the first that publishes) count as inclusive zeros. 128 tiles a step, a
 * lane reading four tiles' packed words in two 16-byte loads; relaxed loads, as a word is its own message (flags and
 * value together: nothing else is read that another block wrote). A window is aligned to four tiles, so its top
 * lane may read up to three words past tile t - 1: vals holds 2 * n_tiles + 8 items. */
#ifndef SC_LB_WAIT0
#define SC_LB_WAIT0 0 /* ns the wide look-back sleeps before its first read (cub::DeviceScan's float32 tuning for sm_90:
                       * 1140, the L2's write latency), and between reads of words not yet published (688) */
#define SC_LB_WAIT 0
#endif
__device__ __forceinline__ SC_T sc_lookback_wide(const SC_T *vals, int t, int k_first, unsigned epoch)
{
  if (SC_LB_WAIT0) __nanosleep(SC_LB_WAIT0);
  const int lane = (int)threadIdx.x;
  const unsigned long long *words = reinterpret_cast<const unsigned long long *>(vals);
  const SC_T zero = 0;
  SC_T acc = zero;
  for (int top = t - 1;;) { /* the window [base, base + 128) holds the tiles still to count, top the highest */
    const int base = (top & ~3) - 124, k0 = base + 4 * lane;
    unsigned long long w[4] = {0, 0, 0, 0};
    if (k0 + 3 >= k_first && k0 <= top) { /* (k0 >= 0 then: k_first >= 0 and k0 a multiple of 4) */
      bool ready;
      do {
        asm volatile("ld.relaxed.gpu.global.v2.u64 {%0, %1}, [%2];" : "=l"(w[0]), "=l"(w[1]) : "l"(words + k0) : "memory");
        asm volatile("ld.relaxed.gpu.global.v2.u64 {%0, %1}, [%2];" : "=l"(w[2]), "=l"(w[3]) : "l"(words + k0 + 2)
                     : "memory");
        ready = true;
#pragma unroll
        for (int i = 0; i < 4; ++i)
          if (k0 + i >= k_first && k0 + i <= top && sc_word_epoch(w[i]) != epoch) ready = false;
        if (SC_LB_WAIT && !ready) __nanosleep(SC_LB_WAIT);
      } while (!ready);
    }
    SC_T v[4];
    unsigned incl = 0; /* bit i: tile k0 + i's value is inclusive */
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      const int k = k0 + i;
      v[i] = sc_word_value(w[i]);
      if (k > top) {
        v[i] = zero;
      } else if (k < k_first) {
        v[i] = zero;
        incl |= 1u << i;
      } else if (sc_word_kind(w[i]) & 2) {
        incl |= 1u << i;
      }
    }
    const unsigned done = __ballot_sync(~0u, incl != 0);
    const int stop = done ? 31 - __clz(done) : -1; /* the lane with the nearest inclusive value */
    const int from = lane == stop ? 31 - __clz(incl) : lane > stop ? 0 : 4; /* this lane's tiles that count */
    SC_T mine = zero, sum;
#pragma unroll
    for (int i = 0; i < 4; ++i)
      if (i >= from) mine += v[i];
    WSUM(&mine, &sum, 0);
    acc += sum;
    if (done) return acc;
    top = base - 1;
  }
}

#ifdef SC_CHAIN_MINB /* an explore build's blocks an SM (8: 32 registers) in __launch_bounds__; not by default, as
                       * a bound of 1 is not the same as none (ptxas gives the default build 48 registers, not 39) */
#define SC_CHAIN_BOUNDS __launch_bounds__(SC_THREADS, SC_CHAIN_MINB)
#else
#define SC_CHAIN_BOUNDS __launch_bounds__(SC_THREADS)
#endif
/* sc_chain's load of tile [lo, hi) into x (a full tile: a whole one of the array's grid). */
__device__ __forceinline__ void sc_chain_load(const SC_T *in, int lo, int hi, SC_T (&x)[SC_N4], unsigned char *temp)
{
  const SC_T zero = 0;
  if (hi - lo == SC_CTILE)
    BLOAD4(in + lo, x, temp);
  else
    BLOADG4(in + lo, x, hi - lo, &zero, 0);
}

/* sc_chain's work on tile t ([lo, hi), loaded into x): its starts, the scan of its pairs, its publication, its
 * look-back and its store. temp, starts and prefix: the block's shared memory (sc_chain). */
__device__ __forceinline__ void sc_chain_tile(const int *off, SC_T *out, int n_seg, int first, int last,
                                              unsigned *status, SC_T *vals, unsigned epoch, int t, int lo, int hi,
                                              SC_T (&x)[SC_N4], unsigned char *temp, unsigned *starts, SC_T *prefix)
{
  const int tid = (int)threadIdx.x;
  const SC_T zero = 0;
  for (int i = tid; i < SC_CTILE / 32; i += SC_THREADS) starts[i] = 0;
  /* k0: the first offset at or past lo (how many are below it), by a 256-way search: [a, b] holds it */
  int a = 0, b = n_seg + 1;
#if SC_CHAIN_FAST
  int from = -1; /* the first offset the starts' loop below reads (-1: a) */
  { /* first the 256 offsets about where lo's would be were the segments even: most often they bracket it */
    const long long g = (long long)(lo - first) * n_seg / max(last - first, 1);
    const int base = (int)max(min(g - SC_THREADS / 2, (long long)(n_seg + 1 - SC_THREADS)), 0LL);
    const int w = min(SC_THREADS, n_seg + 1 - base), k = base + tid; /* (w: the offsets in the window) */
    const int o = tid < w ? off[k] : hi;
    const int c = __syncthreads_count(tid < w && o < lo);
    if ((c > 0 || base == 0) && c < w) { /* off[base + c - 1] < lo <= off[base + c]: found, and the window's starts */
      a = b = base + c;
      if (tid < w && k >= a && o < hi) atomicOr(&starts[(o - lo) / 32], 1u << ((o - lo) % 32));
      from = __syncthreads_or(tid == w - 1 && o < hi) ? base + w : n_seg + 1; /* (more past the window?) */
    } else if (c == 0) {
      b = base;
    } else {
      a = base + w;
    }
  }
#endif
  while (a < b) {
    const int step = (b - a + SC_THREADS - 1) / SC_THREADS, k = a + tid * step;
    const int c = __syncthreads_count(k < b && off[k] < lo);
    const int a0 = a;
    a = c ? a0 + (c - 1) * step + 1 : a0;
    b = c ? min(b, a0 + c * step) : a0;
  }
#if SC_CHAIN_FAST
  for (int k = (from < 0 ? a : from) + tid; from <= n_seg; k += SC_THREADS) { /* the offsets in [lo, hi): the starts */
#else
  for (int k = a + tid;; k += SC_THREADS) { /* the offsets in [lo, hi): the tile's starts */
#endif
    const int o = k <= n_seg ? off[k] : hi;
    if (o < hi) atomicOr(&starts[(o - lo) / 32], 1u << ((o - lo) % 32));
    if (!__syncthreads_or(tid == SC_THREADS - 1 && o < hi && k + SC_THREADS <= n_seg)) break; /* (they ascend) */
  }
  /* this thread's items [tid * SC_N4, + SC_N4) of the tile: their starts, and the pair they reduce to */
  const unsigned mine = (starts[tid * SC_N4 / 32] >> (tid * SC_N4 % 32)) & (SC_N4 == 32 ? ~0u : (1u << SC_N4) - 1);
  sc_pair p = {zero, mine != 0};
  const int s = mine ? 31 - __clz(mine) : 0; /* the last start among them */
#pragma unroll
  for (int i = 0; i < SC_N4; ++i)
    if (i >= s) p.v += x[i];
  sc_pair e, run = {zero, 0};
  BSCANSEG(reinterpret_cast<const SC_PAIR *>(&p), reinterpret_cast<SC_PAIR *>(&e), reinterpret_cast<SC_PAIR *>(&run),
           temp);
  /* run: the tile's pair. A tile with a start has its inclusive value already; one without publishes its
   * aggregate for the look-back of the tiles after it, and its inclusive value after its own look-back. */
  if (tid == 0) sc_publish(status, vals, t, epoch, run.cut ? 2 : 1, run.v);
  if (tid < 32 && !(starts[0] & 1)) { /* the sum from the start of lo's segment to lo */
    const int k_first = first / SC_CTILE; /* (the first tile that publishes: it holds off[0], a start) */
    SC_T acc = zero;
    if constexpr (SC_CHAIN_FAST >= 2 && SC_PACKED)
      acc = sc_lookback_wide(vals, t, k_first, epoch);
    else
    for (int j = t - 1;; j -= 32) {
      const int k = j - tid;
#if SC_CHAIN_FAST
      SC_T v = zero;
      const unsigned kind = k >= k_first ? sc_wait(status, vals, k, epoch, &v) : 2; /* (before k_first: none) */
      const unsigned done = __ballot_sync(~0u, kind & 2);
      const int stop = done ? __ffs(done) - 1 : 32; /* the nearest tile with its inclusive value */
      if (tid > stop)
        v = zero;
      else if (!SC_PACKED && k >= k_first)
        v = __ldcg(&vals[2 * k + (tid == stop ? 1 : 0)]);
#else /* (the build measured 2026-12-06, as it was) */
      unsigned w = epoch << 2 | 2; /* (before k_first: nothing to add) */
      if (k >= k_first)
        while ((w = bm_load_acquire(&status[k])) >> 2 != epoch) {
        }
      const unsigned done = __ballot_sync(~0u, w & 2);
      const int stop = done ? __ffs(done) - 1 : 32; /* the nearest tile with its inclusive value */
      SC_T v = zero;
      if (k >= k_first && tid <= stop) v = __ldcg(&vals[2 * k + (tid == stop ? 1 : 0)]);
#endif
      SC_T sum;
      WSUM(&v, &sum, 0);
      acc += sum; /* (lane 0's is the sum) */
      if (done) break;
    }
    if (tid == 0) {
      *prefix = acc;
      if (!run.cut) {
        sc_publish(status, vals, t, epoch, 3, acc + run.v);
      }
    }
  } else if (tid == 0) {
    *prefix = zero;
  }
  __syncthreads();
  SC_T acc = e.cut ? e.v : *prefix + e.v; /* the sum before this thread's first item, within its segment */
#pragma unroll
  for (int i = 0; i < SC_N4; ++i) {
    if (mine >> i & 1) acc = zero;
    const SC_T v = x[i];
    x[i] = acc;
    acc += v;
  }
  if (hi - lo == SC_CTILE)
    BSTORE4(out + lo, x, temp);
  else
    BSTOREG4(out + lo, x, hi - lo, 0);
}

/* (persistent blocks, as many as the GPU holds at once, each taking the next tile by a counter and loading it
 * while it scans the one before: measured slower everywhere, H100 f32 128 0.664 against 0.822 for a block a
 * tile, 65536 0.091, 1M 0.170; dropped, bench/README.md's eleventh session) */
extern "C" __global__ void SC_CHAIN_BOUNDS
  sc_chain(const SC_T *in, const int *off, SC_T *out, int n_seg, unsigned *status, SC_T *vals, unsigned epoch)
{
  /* (the loads', the scan's and the stores' temp storage: __syncthreads between each's use and the next's) */
  __shared__ __align__(16) unsigned char temp[SC_MAX(BSCANSEG_TEMP_BYTES, SC_MAX(BLOAD4_TEMP_BYTES, BSTORE4_TEMP_BYTES))];
  __shared__ unsigned starts[SC_CTILE / 32]; /* bit i: a segment starts at the tile's item i */
  __shared__ SC_T prefix;
  const int first = off[0], last = off[n_seg];
  SC_T x[SC_N4];
  const int t = (int)blockIdx.x;
  const int lo = max(t * SC_CTILE, first), hi = min((t + 1) * SC_CTILE, last);
  if (lo >= hi) return; /* (a tile wholly outside the segments: no block looks back past the first start) */
  sc_chain_load(in, lo, hi, x, temp);
  sc_chain_tile(off, out, n_seg, first, last, status, vals, epoch, t, lo, hi, x, temp, starts, &prefix);
}
#endif

/* The copy ceiling: every 16-byte vector read once and written once (grid-stride, four in flight). */
extern "C" __global__ void __launch_bounds__(SC_THREADS) copy_bw(const int4 *in, int4 *out, long long n_vec)
{
  long long i = (long long)blockIdx.x * SC_THREADS + threadIdx.x;
  const long long stride = (long long)gridDim.x * SC_THREADS;
  for (; i + 3 * stride < n_vec; i += 4 * stride) {
    int4 v[4];
#pragma unroll
    for (int k = 0; k < 4; ++k) v[k] = __ldg(in + i + k * stride);
#pragma unroll
    for (int k = 0; k < 4; ++k) out[i + k * stride] = v[k];
  }
  for (; i < n_vec; i += stride) out[i] = __ldg(in + i);
}
