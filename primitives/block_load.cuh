// cooplink primitives: BlockLoad (all six CUB algorithms), plain and guarded, with CUB's default loads or a
// cache modifier (M: the `_cs` algorithms load by ld.cs, CUB's LOAD_CS, through its
// CacheModifiedInputIterator, which BlockLoad's vectorized algorithm still loads in vectors).
#pragma once
#include "common.cuh"
#include <cub/block/block_load.cuh>

namespace coop
{
template <class T, int BX, int BY, int BZ, int N, cub::BlockLoadAlgorithm A,
          cub::CacheLoadModifier M = cub::LOAD_DEFAULT>
struct block_load
{
  using cub_t  = cub::BlockLoad<T, BX, N, A, BY, BZ>;
  using temp_t = typename cub_t::TempStorage;

  static __device__ __forceinline__ void load(const T* src, T* items, void* temp)
  {
    T local[N];
    temp_binding<temp_t> t(temp);
    cub_t(t.get()).Load(load_source<M>(src), local);
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
