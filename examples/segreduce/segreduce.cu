// Segmented sum, the running example of the talk in shared/seeds: one block per segment, tiles of
// 256 threads x 4 items loaded striped (coalesced; a sum does not care about the order) with a guarded
// load for the ragged end, reduced with BlockReduce. Uses the default catalog's bundle.
#include "cooplink_default.h"

extern "C" __global__ void __launch_bounds__(256)
  segreduce(const float *in, const int *offsets, float *out)
{
  __shared__ __align__(16) unsigned char temp[COOP_BLOCK_REDUCE_SUM_F32_T256_I4_WARP_REDUCTIONS_TEMP_BYTES];
  const int begin = offsets[blockIdx.x], end = offsets[blockIdx.x + 1];
  const float zero = 0.0f;
  float total = 0.0f;
  for (int tile = begin; tile < end; tile += 1024) {
    float items[4], sum;
    coop_block_load_guarded_f32_t256_i4_striped(in + tile, items, end - tile, &zero, 0);
    coop_block_reduce_sum_f32_t256_i4_warp_reductions(items, &sum, temp);
    __syncthreads(); /* temp is reused by the next tile */
    total += sum;     /* the aggregate is defined in thread 0 */
  }
  if (threadIdx.x == 0) out[blockIdx.x] = total;
}
