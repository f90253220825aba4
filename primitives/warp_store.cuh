// cooplink primitives: WarpStore (CUB's four algorithms) over logical warps of L lanes (a power of two,
// as CUB requires), plain and guarded. The tile is the logical warp's L * N items; temp is the calling
// logical warp's slot.
#pragma once
#include "common.cuh"
#include <cub/warp/warp_store.cuh>

namespace coop
{
template <class T, int L, int N, cub::WarpStoreAlgorithm A>
struct warp_store
{
  using cub_t  = cub::WarpStore<T, N, A, L>;
  using temp_t = typename cub_t::TempStorage;

  static __device__ __forceinline__ void store(T* dst, const T* items, void* temp)
  {
    T local[N];
    copy_in(local, items);
    temp_binding<temp_t> t(temp);
    cub_t(t.get()).Store(dst, local);
  }

  static __device__ __forceinline__ void store_guarded(T* dst, const T* items, int valid, void* temp)
  {
    T local[N];
    copy_in(local, items);
    temp_binding<temp_t> t(temp);
    cub_t(t.get()).Store(dst, local, valid);
  }
};
} // namespace coop
