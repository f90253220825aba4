// cooplink primitives: BlockRadixSort of a block's blocked tile, keys or key-value pairs (V = void: keys
// only), ascending or descending, over the key bits [begin_bit, end_bit), with Bits radix bits a pass
// (CUB's RADIX_BITS); the result blocked, or striped (CUB's SortBlockedToStriped). Keys: the integer and
// floating types (CUB's own bit orderings); values: any type. Stable.
#pragma once
#include "merge_sort_calls.cuh"
#include <cub/block/block_radix_sort.cuh>

namespace coop
{
template <class K, int BX, int BY, int BZ, int N, int Bits, class V>
struct block_radix_sort
{
  using value_t = sort_value_t<V>;
  using cub_t   = cub::BlockRadixSort<K, BX, N, value_t, Bits, true, cub::BLOCK_SCAN_WARP_SCANS,
                                      cudaSharedMemBankSizeFourByte, BY, BZ>;
  using temp_t  = typename cub_t::TempStorage;
  using keys_t  = K[N];
  using vals_t  = value_t[N];

  // the keys (and values) in, CUB's call, out
  template <class F>
  static __device__ __forceinline__ void keys(K* keys, void* temp, F call)
  {
    K k[N];
    copy_in(k, keys);
    temp_binding<temp_t> t(temp);
    cub_t c(t.get());
    call(c, k);
    copy_out(keys, k);
  }
  template <class F>
  static __device__ __forceinline__ void pairs(K* keys, value_t* values, void* temp, F call)
  {
    K k[N];
    value_t v[N];
    copy_in(k, keys);
    copy_in(v, values);
    temp_binding<temp_t> t(temp);
    cub_t c(t.get());
    call(c, k, v);
    copy_out(keys, k);
    copy_out(values, v);
  }

  static __device__ __forceinline__ void keys_asc(K* k, int b, int e, void* temp)
  {
    keys(k, temp, [&](cub_t& c, keys_t& x) { c.Sort(x, b, e); });
  }
  static __device__ __forceinline__ void keys_desc(K* k, int b, int e, void* temp)
  {
    keys(k, temp, [&](cub_t& c, keys_t& x) { c.SortDescending(x, b, e); });
  }
  static __device__ __forceinline__ void keys_asc_striped(K* k, int b, int e, void* temp)
  {
    keys(k, temp, [&](cub_t& c, keys_t& x) { c.SortBlockedToStriped(x, b, e); });
  }
  static __device__ __forceinline__ void keys_desc_striped(K* k, int b, int e, void* temp)
  {
    keys(k, temp, [&](cub_t& c, keys_t& x) { c.SortDescendingBlockedToStriped(x, b, e); });
  }
  static __device__ __forceinline__ void pairs_asc(K* k, value_t* v, int b, int e, void* temp)
  {
    pairs(k, v, temp, [&](cub_t& c, keys_t& x, vals_t& y) { c.Sort(x, y, b, e); });
  }
  static __device__ __forceinline__ void pairs_desc(K* k, value_t* v, int b, int e, void* temp)
  {
    pairs(k, v, temp, [&](cub_t& c, keys_t& x, vals_t& y) { c.SortDescending(x, y, b, e); });
  }
  static __device__ __forceinline__ void pairs_asc_striped(K* k, value_t* v, int b, int e, void* temp)
  {
    pairs(k, v, temp, [&](cub_t& c, keys_t& x, vals_t& y) { c.SortBlockedToStriped(x, y, b, e); });
  }
  static __device__ __forceinline__ void pairs_desc_striped(K* k, value_t* v, int b, int e, void* temp)
  {
    pairs(k, v, temp, [&](cub_t& c, keys_t& x, vals_t& y) { c.SortDescendingBlockedToStriped(x, y, b, e); });
  }
};
} // namespace coop
