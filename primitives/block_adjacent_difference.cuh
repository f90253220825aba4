// cooplink primitives: BlockAdjacentDifference of a block's blocked tile: subtract left (each item op the
// one before it; the tile's first item kept, or op'd with a predecessor that every thread gives), subtract
// right (each item op the one after it; the last kept, or with a successor), and CUB's partial-tile forms
// (the items from `valid` on are kept as they are).
#pragma once
#include "common.cuh"
#include <cub/block/block_adjacent_difference.cuh>

namespace coop
{
template <class T, int BX, int BY, int BZ, int N>
struct block_adjacent_difference
{
  using cub_t  = cub::BlockAdjacentDifference<T, BX, BY, BZ>;
  using temp_t = typename cub_t::TempStorage;

  // the tile in, CUB's call (on the tile's copies x -> y), the tile out
  template <class F>
  static __device__ __forceinline__ void apply(const T* in, T* out, void* temp, F call)
  {
    T x[N], y[N];
    copy_in(x, in);
    temp_binding<temp_t> t(temp);
    cub_t c(t.get());
    call(c, x, y);
    copy_out(out, y);
  }
  using tile_t = T[N];

  template <class Op>
  static __device__ __forceinline__ void subtract_left(const T* in, T* out, void* temp, Op op)
  {
    apply(in, out, temp, [&](cub_t& c, tile_t& x, tile_t& y) { c.SubtractLeft(x, y, op); });
  }
  template <class Op>
  static __device__ __forceinline__ void subtract_left_pred(const T* in, T* out, const T* pred, void* temp, Op op)
  {
    apply(in, out, temp, [&](cub_t& c, tile_t& x, tile_t& y) { c.SubtractLeft(x, y, op, *pred); });
  }
  template <class Op>
  static __device__ __forceinline__ void subtract_left_partial(const T* in, T* out, int valid, void* temp, Op op)
  {
    apply(in, out, temp, [&](cub_t& c, tile_t& x, tile_t& y) { c.SubtractLeftPartialTile(x, y, op, valid); });
  }
  template <class Op>
  static __device__ __forceinline__ void
  subtract_left_partial_pred(const T* in, T* out, int valid, const T* pred, void* temp, Op op)
  {
    apply(in, out, temp, [&](cub_t& c, tile_t& x, tile_t& y) { c.SubtractLeftPartialTile(x, y, op, valid, *pred); });
  }
  template <class Op>
  static __device__ __forceinline__ void subtract_right(const T* in, T* out, void* temp, Op op)
  {
    apply(in, out, temp, [&](cub_t& c, tile_t& x, tile_t& y) { c.SubtractRight(x, y, op); });
  }
  template <class Op>
  static __device__ __forceinline__ void subtract_right_succ(const T* in, T* out, const T* succ, void* temp, Op op)
  {
    apply(in, out, temp, [&](cub_t& c, tile_t& x, tile_t& y) { c.SubtractRight(x, y, op, *succ); });
  }
  template <class Op>
  static __device__ __forceinline__ void subtract_right_partial(const T* in, T* out, int valid, void* temp, Op op)
  {
    apply(in, out, temp, [&](cub_t& c, tile_t& x, tile_t& y) { c.SubtractRightPartialTile(x, y, op, valid); });
  }
};
} // namespace coop
