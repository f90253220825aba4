// cooplink primitives: BlockMergeSort of a block's blocked tile, keys or key-value pairs with a comparator,
// plain and guarded (merge_sort_calls.cuh).
#pragma once
#include "merge_sort_calls.cuh"
#include <cub/block/block_merge_sort.cuh>

namespace coop
{
template <class K, int BX, int BY, int BZ, int N, class V>
struct block_merge_sort
    : merge_sort_calls<K, N, V, cub::BlockMergeSort<K, BX, N, sort_value_t<V>, BY, BZ>>
{};
} // namespace coop
