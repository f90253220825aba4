// cooplink primitives: the calls of CUB's merge sorts (BlockMergeSort and WarpMergeSort share their Sort
// methods through BlockMergeSortStrategy): keys or key-value pairs (V = void: keys only) with a comparator,
// plain and guarded (sorts the first `valid` items into the first `valid` places; as in CUB, the places
// after them are unspecified, partly oob_default). CUB's merge sort is stable.
#pragma once
#include "common.cuh"

namespace coop
{
template <class V>
using sort_value_t = ::cuda::std::conditional_t<::cuda::std::is_void<V>::value, cub::NullType, V>;

template <class K, int N, class V, class CubT>
struct merge_sort_calls
{
  using value_t = sort_value_t<V>;
  using cub_t   = CubT;
  using temp_t  = typename cub_t::TempStorage;

  template <class Cmp>
  static __device__ __forceinline__ void sort_keys(K* keys, void* temp, Cmp cmp)
  {
    K k[N];
    copy_in(k, keys);
    temp_binding<temp_t> t(temp);
    cub_t(t.get()).Sort(k, cmp);
    copy_out(keys, k);
  }

  template <class Cmp>
  static __device__ __forceinline__ void sort_keys_guarded(K* keys, int valid, const K* oob, void* temp, Cmp cmp)
  {
    K k[N];
    copy_in(k, keys);
    temp_binding<temp_t> t(temp);
    cub_t(t.get()).Sort(k, cmp, valid, *oob);
    copy_out(keys, k);
  }

  template <class Cmp>
  static __device__ __forceinline__ void sort_pairs(K* keys, value_t* values, void* temp, Cmp cmp)
  {
    K k[N];
    value_t v[N];
    copy_in(k, keys);
    copy_in(v, values);
    temp_binding<temp_t> t(temp);
    cub_t(t.get()).Sort(k, v, cmp);
    copy_out(keys, k);
    copy_out(values, v);
  }

  template <class Cmp>
  static __device__ __forceinline__ void
  sort_pairs_guarded(K* keys, value_t* values, int valid, const K* oob, void* temp, Cmp cmp)
  {
    K k[N];
    value_t v[N];
    copy_in(k, keys);
    copy_in(v, values);
    temp_binding<temp_t> t(temp);
    cub_t(t.get()).Sort(k, v, cmp, valid, *oob);
    copy_out(keys, k);
    copy_out(values, v);
  }
};
} // namespace coop
