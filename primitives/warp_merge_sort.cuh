// cooplink primitives: WarpMergeSort over logical warps of L lanes (a power of two: CUB builds its lane
// mask for those only), keys or key-value pairs with a comparator, plain and guarded (merge_sort_calls.cuh).
// temp is the calling logical warp's slot.
#pragma once
#include "merge_sort_calls.cuh"
#include <cub/warp/warp_merge_sort.cuh>

namespace coop
{
template <class K, int L, int N, class V>
struct warp_merge_sort : merge_sort_calls<K, N, V, cub::WarpMergeSort<K, N, L, sort_value_t<V>>>
{};
} // namespace coop
