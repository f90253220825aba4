// cooplink primitives: BlockRunLengthDecode. Each thread gives N runs (values and lengths, in order across the
// block's threads: a blocked arrangement of runs); one call decodes the window of Decoded items a thread that
// starts at from_offset of the decoded sequence (blocked), and gives its total length (every thread). A call
// a window: the next window is another call with from_offset advanced by Decoded * threads (the runs are
// scanned again: CUB keeps them in temp, which a C call cannot hold between calls). A from_offset past the
// total is taken as the total (CUB's is undefined there); the places past the total are unspecified.
// decode_offsets also gives each decoded item's place within its run. As CUB, a run of length 0 may be
// followed only by runs of length 0.
#pragma once
#include "common.cuh"
#include <cub/block/block_run_length_decode.cuh>

namespace coop
{
template <class T, int BX, int BY, int BZ, int N, int Decoded>
struct block_run_length_decode
{
  using cub_t  = cub::BlockRunLengthDecode<T, BX, N, Decoded, unsigned int, BY, BZ>;
  using temp_t = typename cub_t::TempStorage;

  template <class F>
  static __device__ __forceinline__ void
  runs(const T* run_values, const unsigned int* run_lengths, unsigned int* total, void* temp, F decode)
  {
    T v[N];
    unsigned int l[N], size;
    copy_in(v, run_values);
    copy_in(l, run_lengths);
    temp_binding<temp_t> t(temp);
    cub_t c(t.get(), v, l, size);
    decode(c, size);
    *total = size;
  }

  static __device__ __forceinline__ void decode(const T* run_values, const unsigned int* run_lengths, T* decoded,
                                                int from_offset, unsigned int* total, void* temp)
  {
    runs(run_values, run_lengths, total, temp, [&](cub_t& c, unsigned int size) {
      T d[Decoded];
      const unsigned int from = from_offset < 0 ? 0u : (unsigned int) from_offset;
      c.RunLengthDecode(d, from < size ? from : size);
      copy_out(decoded, d);
    });
  }

  static __device__ __forceinline__ void decode_offsets(const T* run_values, const unsigned int* run_lengths, T* decoded,
                                                        unsigned int* item_offsets, int from_offset, unsigned int* total,
                                                        void* temp)
  {
    runs(run_values, run_lengths, total, temp, [&](cub_t& c, unsigned int size) {
      T d[Decoded];
      unsigned int o[Decoded];
      const unsigned int from = from_offset < 0 ? 0u : (unsigned int) from_offset;
      c.RunLengthDecode(d, o, from < size ? from : size);
      copy_out(decoded, d);
      copy_out(item_offsets, o);
    });
  }
};
} // namespace coop
