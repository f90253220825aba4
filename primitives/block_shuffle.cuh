// cooplink primitives: BlockShuffle. offset: each thread takes the item of the thread `distance` places on
// (its own output unchanged where that thread does not exist); rotate: the same, wrapping around the block
// (distance taken modulo the block's threads: CUB wraps once, and a distance of a block or more would read
// past its shared memory); up: the block's blocked tile shifted up one place (thread 0's first output
// unchanged; with the suffix, every thread gets the tile's last item); down: shifted down one place (the last
// thread's last output unchanged; with the prefix, every thread gets the tile's first item).
#pragma once
#include "common.cuh"
#include <cub/block/block_shuffle.cuh>

namespace coop
{
template <class T, int BX, int BY, int BZ, int N>
struct block_shuffle
{
  using cub_t  = cub::BlockShuffle<T, BX, BY, BZ>;
  using temp_t = typename cub_t::TempStorage;
  static constexpr int threads = BX * BY * BZ;

  static __device__ __forceinline__ void offset(const T* in, T* out, int distance, void* temp)
  {
    T o = *out;
    temp_binding<temp_t> t(temp);
    cub_t(t.get()).Offset(*in, o, distance);
    *out = o;
  }

  static __device__ __forceinline__ void rotate(const T* in, T* out, int distance, void* temp)
  {
    T o;
    const int d = (distance % threads + threads) % threads;
    temp_binding<temp_t> t(temp);
    cub_t(t.get()).Rotate(*in, o, static_cast<unsigned>(d));
    *out = o;
  }

  using tile_t = T[N];
  // the items in and the outputs (CUB leaves one unchanged), CUB's call, the outputs back
  template <class F>
  static __device__ __forceinline__ void shift(const T* in, T* out, void* temp, F call)
  {
    T x[N], y[N];
    copy_in(x, in);
    copy_in(y, out);
    temp_binding<temp_t> t(temp);
    cub_t c(t.get());
    call(c, x, y);
    copy_out(out, y);
  }

  static __device__ __forceinline__ void up(const T* in, T* out, void* temp)
  {
    shift(in, out, temp, [&](cub_t& c, tile_t& x, tile_t& y) { c.Up(x, y); });
  }
  static __device__ __forceinline__ void up_suffix(const T* in, T* out, T* block_suffix, void* temp)
  {
    shift(in, out, temp, [&](cub_t& c, tile_t& x, tile_t& y) { c.Up(x, y, *block_suffix); });
  }
  static __device__ __forceinline__ void down(const T* in, T* out, void* temp)
  {
    shift(in, out, temp, [&](cub_t& c, tile_t& x, tile_t& y) { c.Down(x, y); });
  }
  static __device__ __forceinline__ void down_prefix(const T* in, T* out, T* block_prefix, void* temp)
  {
    shift(in, out, temp, [&](cub_t& c, tile_t& x, tile_t& y) { c.Down(x, y, *block_prefix); });
  }
};
} // namespace coop
