// cooplink primitives: what every family shares. Compiled by NVRTC inside the generator's TU only.
#pragma once

#include <cub/iterator/cache_modified_input_iterator.cuh>
#include <cub/util_ptx.cuh>
#include <cub/util_type.cuh>
#include <cuda/functional>
#include <cuda/std/cstdint>
#include <cuda/std/functional>
#include <cuda/std/type_traits>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

// A logical warp of L lanes, L not a power of two: CUB 3.0's WarpMask<L> is the mask of the hardware
// warp's first logical warp whatever its argument ("assumed that only one virtual warp exists"), so the
// other whole logical warps of a hardware warp (32 / L of them: the ABI's, and CUB's own lane numbering)
// call __syncwarp with a mask that leaves them out: undefined behaviour, reported by compute-sanitizer
// synccheck as "Barrier error detected. Invalid arguments" (tests/gpu/sanitize.sh; NVIDIA/cub#179). Each
// logical warp syncs its own lanes instead. warp_id is the logical warp within the hardware warp (CUB
// passes laneid / L), so the shift stays below 32. Powers of two keep CUB's own.
CUB_NAMESPACE_BEGIN
#define COOP_WARP_MASK(L)                                                                  \
  template <>                                                                              \
  _CCCL_HOST_DEVICE _CCCL_FORCEINLINE unsigned int WarpMask<L>(unsigned int warp_id)       \
  {                                                                                        \
    return (0xFFFFFFFFu >> (32 - (L))) << (warp_id * (L));                                 \
  }
COOP_WARP_MASK(3)
COOP_WARP_MASK(5)
COOP_WARP_MASK(6)
COOP_WARP_MASK(7)
COOP_WARP_MASK(9)
COOP_WARP_MASK(10)
COOP_WARP_MASK(11)
COOP_WARP_MASK(12)
COOP_WARP_MASK(13)
COOP_WARP_MASK(14)
COOP_WARP_MASK(15)
COOP_WARP_MASK(17)
COOP_WARP_MASK(18)
COOP_WARP_MASK(19)
COOP_WARP_MASK(20)
COOP_WARP_MASK(21)
COOP_WARP_MASK(22)
COOP_WARP_MASK(23)
COOP_WARP_MASK(24)
COOP_WARP_MASK(25)
COOP_WARP_MASK(26)
COOP_WARP_MASK(27)
COOP_WARP_MASK(28)
COOP_WARP_MASK(29)
COOP_WARP_MASK(30)
COOP_WARP_MASK(31)
#undef COOP_WARP_MASK
CUB_NAMESPACE_END

namespace coop
{
// CUB wraps each TempStorage in Uninitialized<_TempStorage> (BlockStore derives from it); direct
// algorithms use an empty _TempStorage (NullType), whose sizeof is still 1. Those are reported as 0
// bytes, and temp may be NULL. unwrap() finds _TempStorage through the base class too.
namespace detail
{
template <class X>
__host__ __device__ X unwrap(const cub::Uninitialized<X>*);
} // namespace detail

template <class TS, class = void>
struct temp_traits
{
  static constexpr bool empty = ::cuda::std::is_empty<TS>::value;
};
template <class TS>
struct temp_traits<TS, ::cuda::std::void_t<decltype(detail::unwrap(static_cast<TS*>(nullptr)))>>
{
  static constexpr bool empty =
    ::cuda::std::is_empty<decltype(detail::unwrap(static_cast<TS*>(nullptr)))>::value;
};

template <class TS>
__host__ __device__ constexpr unsigned long long temp_bytes()
{
  return temp_traits<TS>::empty ? 0ull : sizeof(TS);
}
template <class TS>
__host__ __device__ constexpr unsigned long long temp_align()
{
  return temp_traits<TS>::empty ? 1ull : alignof(TS);
}

// Binds CUB's TempStorage reference to the caller's memory, or to a local for empty storage, so that
// a NULL temp is never dereferenced.
template <class TS, bool Empty = temp_traits<TS>::empty>
struct temp_binding
{
  TS& ref;
  __device__ __forceinline__ explicit temp_binding(void* p)
      : ref(*static_cast<TS*>(p))
  {}
  __device__ __forceinline__ TS& get()
  {
    return ref;
  }
};
template <class TS>
struct temp_binding<TS, true>
{
  TS local;
  __device__ __forceinline__ explicit temp_binding(void*) {}
  __device__ __forceinline__ TS& get()
  {
    return local;
  }
};

// The operators are CUB's own functors, so CUB's specialised paths (e.g. warp redux for integer sums)
// are taken exactly as in a whole-program build.
using op_sum  = ::cuda::std::plus<>;
using op_prod = ::cuda::std::multiplies<>;
using op_min  = ::cuda::minimum<>;
using op_max  = ::cuda::maximum<>;
using op_and  = ::cuda::std::bit_and<>;
using op_or   = ::cuda::std::bit_or<>;
using op_xor  = ::cuda::std::bit_xor<>;
// orderings of the sort families
using cmp_less    = ::cuda::std::less<>;
using cmp_greater = ::cuda::std::greater<>;
// the discontinuity's flag operators (a discontinuity where flag(a, b), a before b), the adjacent
// difference's operator (difference(b, a): an item minus the one before it)
using flag_ne  = ::cuda::std::not_equal_to<>;
using flag_eq  = ::cuda::std::equal_to<>;
using diff_sub = ::cuda::std::minus<>;

// What the load families read from: the pointer itself for CUB's default loads, else CUB's
// CacheModifiedInputIterator with the modifier (the `_cs` algorithms: LOAD_CS, ld.cs), which BlockLoad's and
// WarpLoad's vectorized algorithms still load in vectors.
template <cub::CacheLoadModifier M, class T>
__device__ __forceinline__ auto load_source(const T* src)
{
  if constexpr (M == cub::LOAD_DEFAULT)
  {
    return src;
  }
  else
  {
    return cub::CacheModifiedInputIterator<M, T>(src);
  }
}

template <class T, int N>
__device__ __forceinline__ void copy_in(T (&dst)[N], const T* src)
{
#pragma unroll
  for (int i = 0; i < N; ++i)
  {
    dst[i] = src[i];
  }
}
template <class T, int N>
__device__ __forceinline__ void copy_out(T* dst, const T (&src)[N])
{
#pragma unroll
  for (int i = 0; i < N; ++i)
  {
    dst[i] = src[i];
  }
}
} // namespace coop

// Filled in by the generator's size probe: the mangled name of coop__probe<bytes, align> carries the
// numbers out of an NVRTC front-end pass.
template <unsigned long long Bytes, unsigned long long Align>
__device__ char coop__probe;
