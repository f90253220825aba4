/* Test kernels for the runtime tests. */
#ifndef COOPT_KERNELS_H
#define COOPT_KERNELS_H

#define K_DECL_REDUCE "extern \"C\" __device__ void coop_block_reduce_sum_f32_t128_i4_raking(const float *, float *, void *);\n"
#define K_DECL_SCAN \
  "extern \"C\" __device__ void coop_block_inclusive_scan_sum_i32_t128_i4_warp_scans(const int *, int *, int *, void *);\n"

#define K_REDUCE_BODY(name)                                                                     \
  "extern \"C\" __global__ void __launch_bounds__(128) " name "(const float *in, float *out) {\n" \
  "  __shared__ __align__(16) unsigned char temp[4096];\n"                                      \
  "  float a[4], s;\n  for (int i = 0; i < 4; ++i) a[i] = in[threadIdx.x * 4 + i];\n"          \
  "  coop_block_reduce_sum_f32_t128_i4_raking(a, &s, temp);\n"                                 \
  "  if (threadIdx.x == 0) out[blockIdx.x] = s;\n}\n"

#define K_REDUCE K_DECL_REDUCE K_REDUCE_BODY("k")
#define K_REDUCE2 K_DECL_REDUCE K_REDUCE_BODY("k2")
#define K_REDUCE3 K_DECL_REDUCE K_REDUCE_BODY("k3")

#define K_BOTH                                                                                  \
  K_DECL_REDUCE K_DECL_SCAN                                                                     \
  "extern \"C\" __global__ void __launch_bounds__(128) k(const float *in, int *io, float *out) {\n" \
  "  __shared__ __align__(16) unsigned char temp[4096];\n"                                      \
  "  float a[4], s;\n  int b[4], c[4];\n"                                                      \
  "  for (int i = 0; i < 4; ++i) { a[i] = in[threadIdx.x * 4 + i]; b[i] = io[threadIdx.x * 4 + i]; }\n" \
  "  coop_block_reduce_sum_f32_t128_i4_raking(a, &s, temp);\n  __syncthreads();\n"             \
  "  coop_block_inclusive_scan_sum_i32_t128_i4_warp_scans(b, c, 0, temp);\n"                  \
  "  for (int i = 0; i < 4; ++i) io[threadIdx.x * 4 + i] = c[i];\n"                            \
  "  if (threadIdx.x == 0) out[blockIdx.x] = s;\n}\n"

#define K_MISSING                                                                               \
  "extern \"C\" __device__ void coop_block_reduce_max_f64_t64_i2_raking(const double *, double *, void *);\n" \
  "extern \"C\" __device__ void coop_block_exclusive_scan_sum_u8_t64_i1_raking(const unsigned char *, unsigned char *, unsigned char *, void *);\n" \
  "extern \"C\" __global__ void __launch_bounds__(64) k(const double *in, double *out, unsigned char *io) {\n" \
  "  __shared__ __align__(16) unsigned char temp[4096];\n"                                      \
  "  double a[2], m;\n  unsigned char x = io[threadIdx.x], y;\n"                               \
  "  a[0] = in[threadIdx.x * 2]; a[1] = in[threadIdx.x * 2 + 1];\n"                            \
  "  coop_block_reduce_max_f64_t64_i2_raking(a, &m, temp);\n  __syncthreads();\n"              \
  "  coop_block_exclusive_scan_sum_u8_t64_i1_raking(&x, &y, 0, temp);\n"                       \
  "  io[threadIdx.x] = y;\n  if (threadIdx.x == 0) out[0] = m;\n}\n"

#define K_BOGUS                                                                                 \
  "extern \"C\" __device__ void coop_block_reduce_avg_f32_t128_i4_raking(const float *, float *, void *);\n" \
  "extern \"C\" __global__ void k(const float *in, float *out) {\n"                             \
  "  float a[4] = {in[0], in[1], in[2], in[3]}, s;\n"                                          \
  "  coop_block_reduce_avg_f32_t128_i4_raking(a, &s, 0);\n  out[0] = s;\n}\n"

#endif
