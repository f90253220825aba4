// cooplink primitives: BlockExchange, every CUB mode: striped <-> blocked, warp-striped <-> blocked, scatter
// (ranks: each item's place in the block's tile) to blocked or striped, and CUB's guarded (ranks < 0
// skipped) and flagged scatters to striped; the algorithm is CUB's WARP_TIME_SLICING (smem: false, smem_ts:
// true, which trades parallelism for a warp's share of shared memory). The items of a place that no scatter
// writes are left as shared memory held them (CUB's).
#pragma once
#include "common.cuh"
#include <cub/block/block_exchange.cuh>

namespace coop
{
template <class T, int BX, int BY, int BZ, int N, bool TimeSliced>
struct block_exchange
{
  using cub_t  = cub::BlockExchange<T, BX, N, TimeSliced, BY, BZ>;
  using temp_t = typename cub_t::TempStorage;

#define COOP_EXCHANGE(NAME, CUB)                                                        \
  static __device__ __forceinline__ void NAME(const T* in, T* out, void* temp)          \
  {                                                                                     \
    T a[N], b[N];                                                                       \
    copy_in(a, in);                                                                     \
    temp_binding<temp_t> t(temp);                                                       \
    cub_t(t.get()).CUB(a, b);                                                           \
    copy_out(out, b);                                                                   \
  }
  COOP_EXCHANGE(striped_to_blocked, StripedToBlocked)
  COOP_EXCHANGE(blocked_to_striped, BlockedToStriped)
  COOP_EXCHANGE(warp_striped_to_blocked, WarpStripedToBlocked)
  COOP_EXCHANGE(blocked_to_warp_striped, BlockedToWarpStriped)
#undef COOP_EXCHANGE

#define COOP_SCATTER(NAME, CUB)                                                         \
  static __device__ __forceinline__ void NAME(const T* in, T* out, const int* ranks, void* temp) \
  {                                                                                     \
    T a[N], b[N];                                                                       \
    int r[N];                                                                           \
    copy_in(a, in);                                                                     \
    copy_in(r, ranks);                                                                  \
    temp_binding<temp_t> t(temp);                                                       \
    cub_t(t.get()).CUB(a, b, r);                                                        \
    copy_out(out, b);                                                                   \
  }
  COOP_SCATTER(scatter_to_blocked, ScatterToBlocked)
  COOP_SCATTER(scatter_to_striped, ScatterToStriped)
  COOP_SCATTER(scatter_to_striped_guarded, ScatterToStripedGuarded)
#undef COOP_SCATTER

  static __device__ __forceinline__ void
  scatter_to_striped_flagged(const T* in, T* out, const int* ranks, const int* is_valid, void* temp)
  {
    T a[N], b[N];
    int r[N], f[N];
    copy_in(a, in);
    copy_in(r, ranks);
    copy_in(f, is_valid);
    temp_binding<temp_t> t(temp);
    cub_t(t.get()).ScatterToStripedFlagged(a, b, r, f);
    copy_out(out, b);
  }
};
} // namespace coop
