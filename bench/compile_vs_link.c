/* bench: NVRTC compiling the cooplink wrappers a kernel needs (load + scan + store + reduce) versus
 * nvJitLink linking that kernel against the prebuilt bundle. Both measured in the same run, as a
 * ratio; median of N repetitions. The user kernel's own NVRTC compile is done once, outside both.
 *
 *   compile_vs_link [--reps N] [--arch N]
 */
#include <cooplink/coopgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../tests/support/lto.h"
#include "bench_util.h"

static const char *KERNEL =
  "#include \"bench.h\"\n"
  "extern \"C\" __global__ void __launch_bounds__(256) k(const float *in, float *out, float *sums) {\n"
  "  __shared__ __align__(16) unsigned char temp[4096];\n"
  "  float a[4], b[4], total;\n"
  "  coop_block_load_f32_t256_i4_warp_transpose(in + blockIdx.x * 1024, a, temp);\n  __syncthreads();\n"
  "  coop_block_inclusive_scan_sum_f32_t256_i4_raking(a, b, 0, temp);\n  __syncthreads();\n"
  "  coop_block_store_f32_t256_i4_warp_transpose(out + blockIdx.x * 1024, b, temp);\n  __syncthreads();\n"
  "  coop_block_reduce_sum_f32_t256_i4_warp_reductions(a, &total, temp);\n"
  "  if (threadIdx.x == 0) sums[blockIdx.x] = total;\n}\n";

int main(int argc, char **argv)
{
  int reps = 5, arch = 90;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--reps") && i + 1 < argc) reps = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--arch") && i + 1 < argc) arch = atoi(argv[++i]);
    else {
      fprintf(stderr, "usage: compile_vs_link [--reps N] [--arch N]\n");
      return 2;
    }
  }
  if (reps < 1 || reps > 100) reps = 5;
  char dir[] = "/tmp/coop_bench.XXXXXX";
  if (!mkdtemp(dir)) return 1;
  char archs[16];
  snprintf(archs, sizeof archs, "sm_%d", arch);
  coop_gen_group groups[] = {
    {.family = "block_load", .type = "f32", .threads = "256", .items = "4", .algorithm = "warp_transpose",
     .variant = "plain"},
    {.family = "block_scan", .type = "f32", .op = "sum", .threads = "256", .items = "4", .algorithm = "raking",
     .variant = "inclusive"},
    {.family = "block_store", .type = "f32", .threads = "256", .items = "4", .algorithm = "warp_transpose",
     .variant = "plain"},
    {.family = "block_reduce", .type = "f32", .op = "sum", .threads = "256", .items = "4",
     .algorithm = "warp_reductions", .variant = "full"},
  };
  double *tc = calloc((size_t)reps, sizeof *tc), *tl = calloc((size_t)reps, sizeof *tl);
  double *tn = calloc((size_t)reps, sizeof *tn);
  coopt_blob user = {0};
  for (int r = 0; r < reps; ++r) {
    coop_gen *gen = NULL;
    if (coop_gen_create(&gen) || coop_gen_set_name(gen, "bench") || coop_gen_set_archs(gen, archs)) return 1;
    for (int g = 0; g < 4; ++g)
      if (coop_gen_add_group(gen, &groups[g])) return 1;
    tn[r] = bench_compile_wrappers(gen, arch);
    if (tn[r] < 0) {
      fprintf(stderr, "NVRTC compile of the wrappers failed\n");
      return 1;
    }
    double t0 = bench_now();
    coop_result rc = coop_gen_write(gen, dir);
    tc[r] = bench_now() - t0;
    coop_gen_destroy(&gen);
    if (rc) {
      fprintf(stderr, "coop_gen_write: %s\n", coop_result_name(rc));
      return 1;
    }
    if (!user.data) {
      char *log = NULL;
      if (coopt_compile(KERNEL, arch, dir, &user, &log)) {
        fprintf(stderr, "NVRTC (kernel): %s\n", log);
        return 1;
      }
      free(log);
    }
    char path[256];
    snprintf(path, sizeof path, "%s/bench.sm_%d.ltoir", dir, arch);
    coopt_blob bundle = {0}, cubin = {0};
    if (coopt_read(path, &bundle)) return 1;
    coopt_blob in[2] = {user, bundle};
    char *info = NULL, *error = NULL;
    t0 = bench_now();
    int lrc = coopt_link(arch, in, 2, 0, NULL, &cubin, &info, &error);
    tl[r] = bench_now() - t0;
    if (lrc) {
      fprintf(stderr, "nvJitLink: %s\n", error);
      return 1;
    }
    free(info);
    free(error);
    free(bundle.data);
    free(cubin.data);
  }
  double c = bench_median(tn, reps), g = bench_median(tc, reps), l = bench_median(tl, reps);
  printf("| what (sm_%d, median of %d) | seconds |\n|---|---|\n", arch, reps);
  printf("| compile: NVRTC -dlto of the 4 CUB wrappers | %.3f |\n", c);
  printf("| generate: coopgen's probe + compile + bundle write (coop_gen_write) | %.3f |\n", g);
  printf("| link: nvJitLink -lto of the kernel with the bundle, to cubin | %.4f |\n", l);
  printf("| link / compile | 1/%.1f |\n", c / l);
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  if (system(cmd) != 0) return 1;
  return c / l >= 20 ? 0 : 3;
}
