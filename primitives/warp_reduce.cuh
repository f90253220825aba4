// cooplink primitives: WarpReduce over logical warps of L lanes (1..32; CUB's shuffle version for powers
// of two, its shared-memory version otherwise), full and partial (the first valid_lanes lanes). As in
// CUB, the aggregate is defined in lane 0 of each logical warp. temp is the calling logical warp's slot.
#pragma once
#include "common.cuh"
#include <cub/warp/warp_reduce.cuh>

namespace coop
{
template <class T, int L>
struct warp_reduce
{
  using cub_t  = cub::WarpReduce<T, L>;
  using temp_t = typename cub_t::TempStorage;

  template <class Op>
  static __device__ __forceinline__ void reduce(const T* item, T* aggregate, void* temp, Op op)
  {
    temp_binding<temp_t> t(temp);
    if constexpr (::cuda::std::is_same<Op, op_sum>::value)
    {
      *aggregate = cub_t(t.get()).Sum(*item);
    }
    else
    {
      *aggregate = cub_t(t.get()).Reduce(*item, op);
    }
  }

  template <class Op>
  static __device__ __forceinline__ void reduce_partial(const T* item, int valid_lanes, T* aggregate, void* temp, Op op)
  {
    temp_binding<temp_t> t(temp);
    if constexpr (::cuda::std::is_same<Op, op_sum>::value)
    {
      *aggregate = cub_t(t.get()).Sum(*item, valid_lanes);
    }
    else
    {
      *aggregate = cub_t(t.get()).Reduce(*item, op, valid_lanes);
    }
  }
};
} // namespace coop
