// cooplink primitives: BlockRadixRank, as CUB has it: each key's rank in the block's blocked tile by one digit
// of Bits bits of its raw bits (an unsigned integer's, from begin_bit up: cub::BFEDigitExtractor), ascending
// or descending, stable (equal digits keep their order). The keys are ranked as raw bits, not in the numeric
// order of signed or floating types (CUB's BlockRadixSort twiddles them first).
#pragma once
#include "common.cuh"
#include <cub/block/block_radix_rank.cuh>

namespace coop
{
template <class T, int BX, int BY, int BZ, int N, int Bits>
struct block_radix_rank
{
  using bits_t = typename cub::Traits<T>::UnsignedBits;
  template <bool Desc>
  using rank_t = cub::BlockRadixRank<BX, Bits, Desc, true, cub::BLOCK_SCAN_WARP_SCANS, cudaSharedMemBankSizeFourByte, BY, BZ>;
  static_assert(sizeof(typename rank_t<false>::TempStorage) == sizeof(typename rank_t<true>::TempStorage),
                "CUB's ascending and descending ranks share a temp size");
  using cub_t  = rank_t<false>;
  using temp_t = typename cub_t::TempStorage;

  template <bool Desc>
  static __device__ __forceinline__ void rank(const T* keys, int* ranks, int begin_bit, void* temp)
  {
    bits_t k[N];
    int r[N];
    for (int i = 0; i < N; ++i)
    {
      ::cuda::std::memcpy(&k[i], keys + i, sizeof(bits_t));
    }
    temp_binding<temp_t> t(temp);
    rank_t<Desc>(reinterpret_cast<typename rank_t<Desc>::TempStorage&>(t.get()))
      .RankKeys(k, r, cub::BFEDigitExtractor<bits_t>(static_cast<unsigned>(begin_bit), Bits));
    copy_out(ranks, r);
  }
  static __device__ __forceinline__ void rank_asc(const T* keys, int* ranks, int begin_bit, void* temp)
  {
    rank<false>(keys, ranks, begin_bit, temp);
  }
  static __device__ __forceinline__ void rank_desc(const T* keys, int* ranks, int begin_bit, void* temp)
  {
    rank<true>(keys, ranks, begin_bit, temp);
  }
};
} // namespace coop
