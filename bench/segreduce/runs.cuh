// kernels.cu's kernels of runs of consecutive segments read as one range (included by kernels.cu alone: its
// macros and helpers): sr_run, a block a run, and sr_wrun, a warp a run of 32.
#pragma once

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
#define BLOAD4 CAT4(coop_block_load_, SR_TC, _t256, CAT3(_i, SR_N4, CAT(_vectorize, SR_LS)))
#define BLOADGD CAT4(coop_block_load_guarded_, SR_TC, _t256, CAT3(_i, SR_N, CAT(_direct, SR_LS)))
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
#define WLOADB CAT4(coop_warp_load_, SR_TC, _w32, CAT3(_i, SR_N4, CAT(_vectorize, SR_LS)))
#define WLOADBG CAT4(coop_warp_load_guarded_, SR_TC, _w32, CAT3(_i, SR_N4, CAT(_direct, SR_LS)))
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
