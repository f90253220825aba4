// cooplink primitives: WarpScan over logical warps of L lanes (1..32), exclusive and inclusive, with an
// optional aggregate (every lane receives it, as in CUB). temp is the calling logical warp's slot.
#pragma once
#include "common.cuh"
#include <cub/warp/warp_scan.cuh>

namespace coop
{
template <class T, int L>
struct warp_scan
{
  using cub_t  = cub::WarpScan<T, L>;
  using temp_t = typename cub_t::TempStorage;

  static __device__ __forceinline__ void exclusive_sum(const T* in, T* out, T* aggregate, void* temp)
  {
    temp_binding<temp_t> t(temp);
    T o;
    if (aggregate)
    {
      T agg;
      cub_t(t.get()).ExclusiveSum(*in, o, agg);
      *aggregate = agg;
    }
    else
    {
      cub_t(t.get()).ExclusiveSum(*in, o);
    }
    *out = o;
  }

  template <class Op>
  static __device__ __forceinline__ void exclusive(const T* in, T* out, const T* initial, T* aggregate, void* temp, Op op)
  {
    temp_binding<temp_t> t(temp);
    T o;
    if (aggregate)
    {
      T agg;
      cub_t(t.get()).ExclusiveScan(*in, o, *initial, op, agg);
      *aggregate = agg;
    }
    else
    {
      cub_t(t.get()).ExclusiveScan(*in, o, *initial, op);
    }
    *out = o;
  }

  template <class Op>
  static __device__ __forceinline__ void inclusive(const T* in, T* out, T* aggregate, void* temp, Op op)
  {
    temp_binding<temp_t> t(temp);
    T o;
    if (aggregate)
    {
      T agg;
      if constexpr (::cuda::std::is_same<Op, op_sum>::value)
      {
        cub_t(t.get()).InclusiveSum(*in, o, agg);
      }
      else
      {
        cub_t(t.get()).InclusiveScan(*in, o, op, agg);
      }
      *aggregate = agg;
    }
    else if constexpr (::cuda::std::is_same<Op, op_sum>::value)
    {
      cub_t(t.get()).InclusiveSum(*in, o);
    }
    else
    {
      cub_t(t.get()).InclusiveScan(*in, o, op);
    }
    *out = o;
  }
};
} // namespace coop
