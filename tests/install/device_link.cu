// nvcc users: the installed LTO archive, linked by nvcc -dlto -rdc=true (tests/install/run.sh).
#include "cooplink_default.h"

extern "C" __global__ void scan_tiles(const float *in, float *out)
{
  __shared__ __align__(16) unsigned char temp[COOP_BLOCK_INCLUSIVE_SCAN_SUM_F32_T256_I4_RAKING_TEMP_BYTES];
  float a[4], b[4];
  coop_block_load_f32_t256_i4_striped(in + blockIdx.x * 1024, a, 0);
  coop_block_inclusive_scan_sum_f32_t256_i4_raking(a, b, nullptr, temp);
  coop_block_store_f32_t256_i4_striped(out + blockIdx.x * 1024, b, 0);
}

int main()
{
  // Runs where a GPU is. Over a tile of ones: thread t loads elements t, t+256, t+512, t+768 (striped)
  // and holds them as its items 0..3; the scan runs in items order (thread t's item i is the tile's
  // 4t+i-th), so the inclusive sum there is 4t+i+1, which the striped store writes to element t+256i.
  float *in = nullptr, *out = nullptr;
  float host[1024];
  for (float &x : host) x = 1.0f;
  if (cudaMalloc(&in, sizeof host) != cudaSuccess || cudaMalloc(&out, sizeof host) != cudaSuccess) return 2;
  cudaMemcpy(in, host, sizeof host, cudaMemcpyHostToDevice);
  cudaMemset(out, 0xff, sizeof host); // poison
  scan_tiles<<<1, 256>>>(in, out);
  if (cudaDeviceSynchronize() != cudaSuccess) return 3;
  cudaMemcpy(host, out, sizeof host, cudaMemcpyDeviceToHost);
  for (int t = 0; t < 256; ++t)
    for (int i = 0; i < 4; ++i)
      if (host[t + 256 * i] != float(4 * t + i + 1)) return 4;
  return 0;
}
