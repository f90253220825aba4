// cooplink primitives: BlockHistogram of a block's items (each a bin's number, below Bins) into Bins unsigned
// int counters (the caller's, in shared memory): init_composite zeroes them first (CUB's Histogram), composite
// adds to them (CUB's Composite); CUB's sort and atomic algorithms. The counters are complete once every
// thread has returned and synchronized (__syncthreads), as in CUB.
#pragma once
#include "common.cuh"
#include <cub/block/block_histogram.cuh>

namespace coop
{
template <class T, int BX, int BY, int BZ, int N, cub::BlockHistogramAlgorithm A, int Bins>
struct block_histogram
{
  using cub_t  = cub::BlockHistogram<T, BX, N, Bins, A, BY, BZ>;
  using temp_t = typename cub_t::TempStorage;

  static __device__ __forceinline__ void init_composite(const T* items, unsigned int* histogram, void* temp)
  {
    T x[N];
    copy_in(x, items);
    temp_binding<temp_t> t(temp);
    cub_t(t.get()).Histogram(x, histogram);
  }

  static __device__ __forceinline__ void composite(const T* items, unsigned int* histogram, void* temp)
  {
    T x[N];
    copy_in(x, items);
    temp_binding<temp_t> t(temp);
    cub_t(t.get()).Composite(x, histogram);
  }
};
} // namespace coop
