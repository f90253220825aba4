// cooplink primitives: BlockReduce (raking, raking_comm, warp_reductions), full tiles and partial.
// As in CUB, the aggregate is defined in thread 0 only.
#pragma once
#include "common.cuh"
#include <cub/block/block_reduce.cuh>

namespace coop
{
template <class T, int BX, int BY, int BZ, int N, cub::BlockReduceAlgorithm A>
struct block_reduce
{
  using cub_t  = cub::BlockReduce<T, BX, A, BY, BZ>;
  using temp_t = typename cub_t::TempStorage;

  template <class Op>
  static __device__ __forceinline__ void reduce(const T* items, T* aggregate, void* temp, Op op)
  {
    T local[N];
    copy_in(local, items);
    temp_binding<temp_t> t(temp);
    if constexpr (::cuda::std::is_same<Op, op_sum>::value)
    {
      *aggregate = cub_t(t.get()).Sum(local);
    }
    else
    {
      *aggregate = cub_t(t.get()).Reduce(local, op);
    }
  }

  // One item per thread; the first valid_threads threads (in row-major thread order) take part.
  template <class Op>
  static __device__ __forceinline__ void reduce_partial(const T* item, int valid_threads, T* aggregate, void* temp, Op op)
  {
    temp_binding<temp_t> t(temp);
    if constexpr (::cuda::std::is_same<Op, op_sum>::value)
    {
      *aggregate = cub_t(t.get()).Sum(*item, valid_threads);
    }
    else
    {
      *aggregate = cub_t(t.get()).Reduce(*item, op, valid_threads);
    }
  }
};
} // namespace coop
