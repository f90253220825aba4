// cooplink primitives: WarpLoad (CUB's four algorithms) over logical warps of L lanes (a power of two, as
// CUB requires), plain and guarded. The tile is the logical warp's L * N items; temp is the calling
// logical warp's slot. M: CUB's default loads or a cache modifier (the `_cs` algorithms: ld.cs, CUB's
// LOAD_CS, through its CacheModifiedInputIterator; the vectorized load with the modifier itself).
#pragma once
#include "common.cuh"
#include <cub/warp/warp_load.cuh>

namespace coop
{
template <class T, int L, int N, cub::WarpLoadAlgorithm A, cub::CacheLoadModifier M = cub::LOAD_DEFAULT>
struct warp_load
{
  using cub_t  = cub::WarpLoad<T, N, A, L>;
  using temp_t = typename cub_t::TempStorage;

  static __device__ __forceinline__ void load(const T* src, T* items, void* temp)
  {
    T local[N];
    temp_binding<temp_t> t(temp);
    if constexpr (A == cub::WARP_LOAD_VECTORIZE)
    {
      // CUB 3.0's WarpLoad<..., WARP_LOAD_VECTORIZE> declares its pointer overloads of Load as templates
      // whose parameter nothing deduces, so a pointer takes the iterator overload: LoadDirectBlocked, one
      // scalar load an item (bench/segreduce's warp kernels: four 4-byte loads where a 16-byte one was
      // meant). This is what those overloads call (the vectorized load, or the blocked one when src is not
      // aligned to the vector), with WarpLoad's lane.
      (void) t;
      const int lane = L == 32 ? int(::cuda::ptx::get_sreg_laneid()) : int(::cuda::ptx::get_sreg_laneid() % L);
      cub::InternalLoadDirectBlockedVectorized<M>(lane, src, local);
    }
    else
    {
      cub_t(t.get()).Load(load_source<M>(src), local);
    }
    copy_out(items, local);
  }

  static __device__ __forceinline__ void load_guarded(const T* src, T* items, int valid, const T* oob, void* temp)
  {
    T local[N];
    temp_binding<temp_t> t(temp);
    cub_t(t.get()).Load(load_source<M>(src), local, valid, *oob);
    copy_out(items, local);
  }
};
} // namespace coop
