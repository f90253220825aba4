// cooplink primitives: BlockStore (all six CUB algorithms), plain and guarded.
#pragma once
#include "common.cuh"
#include <cub/block/block_store.cuh>

namespace coop
{
template <class T, int BX, int BY, int BZ, int N, cub::BlockStoreAlgorithm A>
struct block_store
{
  using cub_t  = cub::BlockStore<T, BX, N, A, BY, BZ>;
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
