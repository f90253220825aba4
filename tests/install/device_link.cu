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
  // Runs where a GPU is: an inclusive sum of ones over one tile gives 1..1024.
  float *in = nullptr, *out = nullptr;
  float host[1024];
  for (float &x : host) x = 1.0f;
  if (cudaMalloc(&in, sizeof host) != cudaSuccess || cudaMalloc(&out, sizeof host) != cudaSuccess) return 2;
  cudaMemcpy(in, host, sizeof host, cudaMemcpyHostToDevice);
  cudaMemset(out, 0xff, sizeof host); // poison
  scan_tiles<<<1, 256>>>(in, out);
  if (cudaDeviceSynchronize() != cudaSuccess) return 3;
  cudaMemcpy(host, out, sizeof host, cudaMemcpyDeviceToHost);
  for (int i = 0; i < 1024; ++i)
    if (host[i] != float(i + 1)) return 4;
  return 0;
}
