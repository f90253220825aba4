// cooplink primitives: BlockDiscontinuity, flags (int, 1 or 0) of the heads and/or tails of runs in a block's
// blocked tile: a head where flag_op(item before, item), a tail where flag_op(item, item after); the tile's
// first item is a head (its last a tail) unless a predecessor (successor) item is given, which thread 0
// (the last thread) gives, as in CUB.
#pragma once
#include "common.cuh"
#include <cub/block/block_discontinuity.cuh>

namespace coop
{
template <class T, int BX, int BY, int BZ, int N>
struct block_discontinuity
{
  using cub_t  = cub::BlockDiscontinuity<T, BX, BY, BZ>;
  using temp_t = typename cub_t::TempStorage;

  using tile_t  = T[N];
  using flags_t = int[N];

  // the items in, CUB's call (flags from the items' copy), the flags out: one set of flags, or heads and tails
  template <class F>
  static __device__ __forceinline__ void one(int* flags, const T* items, void* temp, F call)
  {
    T x[N];
    int f[N];
    copy_in(x, items);
    temp_binding<temp_t> t(temp);
    cub_t c(t.get());
    call(c, f, x);
    copy_out(flags, f);
  }
  template <class F>
  static __device__ __forceinline__ void both(int* head_flags, int* tail_flags, const T* items, void* temp, F call)
  {
    T x[N];
    int h[N], f[N];
    copy_in(x, items);
    temp_binding<temp_t> t(temp);
    cub_t c(t.get());
    call(c, h, f, x);
    copy_out(head_flags, h);
    copy_out(tail_flags, f);
  }

  template <class Op>
  static __device__ __forceinline__ void heads(int* head_flags, const T* items, void* temp, Op op)
  {
    one(head_flags, items, temp, [&](cub_t& c, flags_t& f, tile_t& x) { c.FlagHeads(f, x, op); });
  }
  template <class Op>
  static __device__ __forceinline__ void heads_pred(int* head_flags, const T* items, const T* pred, void* temp, Op op)
  {
    one(head_flags, items, temp, [&](cub_t& c, flags_t& f, tile_t& x) { c.FlagHeads(f, x, op, *pred); });
  }
  template <class Op>
  static __device__ __forceinline__ void tails(int* tail_flags, const T* items, void* temp, Op op)
  {
    one(tail_flags, items, temp, [&](cub_t& c, flags_t& f, tile_t& x) { c.FlagTails(f, x, op); });
  }
  template <class Op>
  static __device__ __forceinline__ void tails_succ(int* tail_flags, const T* items, const T* succ, void* temp, Op op)
  {
    one(tail_flags, items, temp, [&](cub_t& c, flags_t& f, tile_t& x) { c.FlagTails(f, x, op, *succ); });
  }
  template <class Op>
  static __device__ __forceinline__ void heads_tails(int* head_flags, int* tail_flags, const T* items, void* temp, Op op)
  {
    both(head_flags, tail_flags, items, temp,
         [&](cub_t& c, flags_t& h, flags_t& f, tile_t& x) { c.FlagHeadsAndTails(h, f, x, op); });
  }
  template <class Op>
  static __device__ __forceinline__ void
  heads_tails_pred(int* head_flags, int* tail_flags, const T* items, const T* pred, void* temp, Op op)
  {
    both(head_flags, tail_flags, items, temp,
         [&](cub_t& c, flags_t& h, flags_t& f, tile_t& x) { c.FlagHeadsAndTails(h, *pred, f, x, op); });
  }
  template <class Op>
  static __device__ __forceinline__ void
  heads_tails_succ(int* head_flags, int* tail_flags, const T* items, const T* succ, void* temp, Op op)
  {
    both(head_flags, tail_flags, items, temp,
         [&](cub_t& c, flags_t& h, flags_t& f, tile_t& x) { c.FlagHeadsAndTails(h, f, *succ, x, op); });
  }
  template <class Op>
  static __device__ __forceinline__ void heads_tails_pred_succ(
    int* head_flags, int* tail_flags, const T* items, const T* pred, const T* succ, void* temp, Op op)
  {
    both(head_flags, tail_flags, items, temp,
         [&](cub_t& c, flags_t& h, flags_t& f, tile_t& x) { c.FlagHeadsAndTails(h, *pred, f, *succ, x, op); });
  }
};
} // namespace coop
