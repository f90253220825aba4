// cooplink primitives: WarpExchange over logical warps of L lanes (a power of two, as CUB requires):
// blocked <-> striped and scatter to striped (ranks: each item's place in the logical warp's tile), with
// CUB's shared-memory algorithm, or its shuffle algorithm (N == L, no scatter). temp is the calling logical
// warp's slot.
#pragma once
#include "common.cuh"
#include <cub/warp/warp_exchange.cuh>

namespace coop
{
template <class T, int L, int N, cub::WarpExchangeAlgorithm A>
struct warp_exchange
{
  using cub_t  = cub::WarpExchange<T, N, L, A>;
  using temp_t = typename cub_t::TempStorage;

  static __device__ __forceinline__ void blocked_to_striped(const T* in, T* out, void* temp)
  {
    T a[N], b[N];
    copy_in(a, in);
    temp_binding<temp_t> t(temp);
    cub_t(t.get()).BlockedToStriped(a, b);
    copy_out(out, b);
  }

  static __device__ __forceinline__ void striped_to_blocked(const T* in, T* out, void* temp)
  {
    T a[N], b[N];
    copy_in(a, in);
    temp_binding<temp_t> t(temp);
    cub_t(t.get()).StripedToBlocked(a, b);
    copy_out(out, b);
  }

  static __device__ __forceinline__ void scatter_to_striped(const T* in, T* out, const int* ranks, void* temp)
  {
    T a[N], b[N];
    int r[N];
    copy_in(a, in);
    copy_in(r, ranks);
    temp_binding<temp_t> t(temp);
    cub_t(t.get()).ScatterToStriped(a, b, r);
    copy_out(out, b);
  }
};
} // namespace coop
