// cooplink primitives: BlockScan (raking, raking_memoize, warp_scans): exclusive and inclusive, with an
// optional aggregate, and the _prefix forms that carry a running total across tiles.
#pragma once
#include "common.cuh"
#include <cub/block/block_scan.cuh>

namespace coop
{
template <class T, int BX, int BY, int BZ, int N, cub::BlockScanAlgorithm A>
struct block_scan
{
  using cub_t  = cub::BlockScan<T, BX, A, BY, BZ>;
  using temp_t = typename cub_t::TempStorage;

  static __device__ __forceinline__ void exclusive_sum(const T* in, T* out, T* aggregate, void* temp)
  {
    T li[N], lo[N];
    copy_in(li, in);
    temp_binding<temp_t> t(temp);
    if (aggregate)
    {
      T agg;
      cub_t(t.get()).ExclusiveSum(li, lo, agg);
      *aggregate = agg;
    }
    else
    {
      cub_t(t.get()).ExclusiveSum(li, lo);
    }
    copy_out(out, lo);
  }

  template <class Op>
  static __device__ __forceinline__ void exclusive(const T* in, T* out, const T* initial, T* aggregate, void* temp, Op op)
  {
    T li[N], lo[N];
    copy_in(li, in);
    temp_binding<temp_t> t(temp);
    if (aggregate)
    {
      T agg;
      cub_t(t.get()).ExclusiveScan(li, lo, *initial, op, agg);
      *aggregate = agg;
    }
    else
    {
      cub_t(t.get()).ExclusiveScan(li, lo, *initial, op);
    }
    copy_out(out, lo);
  }

  template <class Op>
  static __device__ __forceinline__ void inclusive(const T* in, T* out, T* aggregate, void* temp, Op op)
  {
    T li[N], lo[N];
    copy_in(li, in);
    temp_binding<temp_t> t(temp);
    if (aggregate)
    {
      T agg;
      if constexpr (::cuda::std::is_same<Op, op_sum>::value)
      {
        cub_t(t.get()).InclusiveSum(li, lo, agg);
      }
      else
      {
        cub_t(t.get()).InclusiveScan(li, lo, op, agg);
      }
      *aggregate = agg;
    }
    else
    {
      if constexpr (::cuda::std::is_same<Op, op_sum>::value)
      {
        cub_t(t.get()).InclusiveSum(li, lo);
      }
      else
      {
        cub_t(t.get()).InclusiveScan(li, lo, op);
      }
    }
    copy_out(out, lo);
  }

  // Every thread passes the same carry; the tile is scanned seeded with it, and every thread gets
  // carry op aggregate back.
  template <class Op>
  static __device__ __forceinline__ void exclusive_prefix(const T* in, T* out, T* running, void* temp, Op op)
  {
    T li[N], lo[N];
    copy_in(li, in);
    temp_binding<temp_t> t(temp);
    const T carry = *running;
    T agg;
    cub_t(t.get()).ExclusiveScan(li, lo, carry, op, agg);
    *running = static_cast<T>(op(carry, agg));
    copy_out(out, lo);
  }

  template <class Op>
  static __device__ __forceinline__ void inclusive_prefix(const T* in, T* out, T* running, void* temp, Op op)
  {
    T li[N], lo[N];
    copy_in(li, in);
    temp_binding<temp_t> t(temp);
    const T carry = *running;
    T agg;
    cub_t(t.get()).InclusiveScan(li, lo, carry, op, agg);
    *running = static_cast<T>(op(carry, agg));
    copy_out(out, lo);
  }
};
} // namespace coop
