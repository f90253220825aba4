#include "bench_util.h"

#include <nvrtc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../generator/gen.h"

double bench_now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int cmp(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

double bench_median(double *v, int n)
{
  qsort(v, (size_t)n, sizeof *v, cmp);
  return v[n / 2];
}

static double compile(coop_gen *gen, int arch, const char *kernel);

double bench_compile_wrappers(coop_gen *gen, int arch) { return compile(gen, arch, NULL); }
double bench_compile_whole(coop_gen *gen, int arch, const char *kernel) { return compile(gen, arch, kernel); }

/* kernel NULL: the wrappers with -dlto (LTO-IR for compute_<arch>); else the wrappers and the kernel in one
 * whole-program compile to a cubin for sm_<arch>, as a user without cooplink would build them. */
static double compile(coop_gen *gen, int arch, const char *kernel)
{
  char *src = NULL;
  if (coop_gen_get_source(gen, &src)) return -1;
  if (kernel) {
    size_t a = strlen(src), b = strlen(kernel);
    char *both = malloc(a + b + 1);
    if (!both) return -1;
    memcpy(both, src, a);
    memcpy(both + a, kernel, b + 1);
    free(src);
    src = both;
  }
  const char *hs[16], *hn[16];
  for (int i = 0; i < coop__n_primitives; ++i) {
    hs[i] = coop__primitives[i].text;
    hn[i] = coop__primitives[i].name;
  }
  char a[32], i1[512], i2[512];
  snprintf(a, sizeof a, kernel ? "-arch=sm_%d" : "-arch=compute_%d", arch);
  snprintf(i1, sizeof i1, "-I%s/include/cccl", COOP_CUDA_ROOT);
  snprintf(i2, sizeof i2, "-I%s/include", COOP_CUDA_ROOT);
  const char *opts[] = {a, i1, i2, "-std=c++17", "-dlto"};
  nvrtcProgram p;
  if (nvrtcCreateProgram(&p, src, "wrappers.cu", coop__n_primitives, hs, hn) != NVRTC_SUCCESS) {
    free(src);
    return -1;
  }
  double t0 = bench_now();
  nvrtcResult r = nvrtcCompileProgram(p, kernel ? 4 : 5, opts);
  size_t size = 0;
  if (r == NVRTC_SUCCESS && kernel && (nvrtcGetCUBINSize(p, &size) != NVRTC_SUCCESS || size == 0)) r = NVRTC_ERROR_COMPILATION;
  double t = bench_now() - t0;
  nvrtcDestroyProgram(&p);
  free(src);
  return r == NVRTC_SUCCESS ? t : -1;
}

const char *const bench_kernel_three =
  "extern \"C\" __device__ void coop_block_load_f32_t256_i4_striped(const float *, float *, void *);\n"
  "extern \"C\" __device__ void coop_block_inclusive_scan_sum_f32_t256_i4_raking(const float *, float *, float *, void *);\n"
  "extern \"C\" __device__ void coop_block_store_f32_t256_i4_striped(float *, const float *, void *);\n"
  "extern \"C\" __global__ void __launch_bounds__(256) k(const float *in, float *out) {\n"
  "  __shared__ __align__(16) unsigned char temp[8192];\n"
  "  float a[4], b[4];\n"
  "  coop_block_load_f32_t256_i4_striped(in + blockIdx.x * 1024, a, 0);\n"
  "  coop_block_inclusive_scan_sum_f32_t256_i4_raking(a, b, 0, temp);\n"
  "  coop_block_store_f32_t256_i4_striped(out + blockIdx.x * 1024, b, 0);\n}\n";
