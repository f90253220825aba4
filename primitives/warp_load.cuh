// cooplink primitives: WarpLoad (CUB's four algorithms) over logical warps of L lanes (a power of two, as
// CUB requires), plain and guarded. The tile is the logical warp's L * N items; temp is the calling
// logical warp's slot.
#pragma once
#include "common.cuh"
#include <cub/warp/warp_load.cuh>

namespace coop
{
template <class T, int L, int N, cub::WarpLoadAlgorithm A>
struct warp_load
{
  using cub_t  = cub::WarpLoad<T, N, A, L>;
  using temp_t = typename cub_t::TempStorage;

  static __device__ __forceinline__ void load(const T* src, T* items, void* temp)
  {
    T local[N];
    temp_binding<temp_t> t(temp);
    cub_t(t.get()).Load(src, local);
    copy_out(items, local);
  }

  static __device__ __forceinline__ void load_guarded(const T* src, T* items, int valid, const T* oob, void* temp)
  {
    T local[N];
    temp_binding<temp_t> t(temp);
    cub_t(t.get()).Load(src, local, valid, *oob);
    copy_out(items, local);
  }
};
} // namespace coop
