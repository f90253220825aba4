/* For each family: a CUDA C kernel compiled by NVRTC -dlto and linked with the bundle by nvJitLink
 * inlines every call (no .func, no call, no local memory in the linked PTX; 0-byte stack frames and no
 * spills in the -verbose log), for sm_75, sm_80, sm_90, sm_100 and sm_120. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../support/lto.h"
#include "util.h"

static const int ARCHS[] = {75, 80, 90, 100, 120};

/* Lines of the PTX whose instruction is a call. */
static int count_calls(const char *ptx)
{
  int n = 0;
  for (const char *p = ptx; (p = strstr(p, "call")); p += 4) {
    const char *q = p;
    while (q > ptx && (q[-1] == ' ' || q[-1] == '\t')) --q;
    if (q == ptx || q[-1] == '\n' || q[-1] == '}' || q[-1] == '{') ++n; /* at the start of a statement */
  }
  return n;
}

/* prelude: what the kernel puts before the header (its own type for a user type's COOP_TYPE_<NAME>). */
static void check_family_typed(const coop_gen_group *groups, int n_groups, const char *types, const char *prelude,
                               const char *kernel)
{
  char *dir = coopt_tmpdir();
  coopt_generate_typed(groups, n_groups, types, "fam", "sm_75,sm_80,sm_90,sm_100,sm_120", dir);
  char *src = coopt_fmt("%s#include \"fam.h\"\n%s", prelude, kernel);
  for (size_t a = 0; a < sizeof ARCHS / sizeof ARCHS[0]; ++a) {
    int arch = ARCHS[a];
    coopt_blob user = {0}, bundle = {0}, ptx = {0}, cubin = {0};
    char *nvrtc_log = NULL, *info = NULL, *error = NULL;
    cr_assert_eq(coopt_compile(src, arch, dir, &user, &nvrtc_log), 0, "sm_%d: %s", arch, nvrtc_log);
    char *payload = coopt_fmt("%s/fam.sm_%d.ltoir", dir, arch);
    cr_assert_eq(coopt_read(payload, &bundle), 0);
    coopt_blob in[2] = {user, bundle};
    cr_assert_eq(coopt_link(arch, in, 2, 1, NULL, &ptx, &info, &error), 0, "sm_%d: %s", arch, error);
    cr_assert_null(strstr(ptx.data, ".func"), "sm_%d: a function survived in the linked PTX", arch);
    cr_assert_eq(count_calls(ptx.data), 0, "sm_%d: a call survived in the linked PTX", arch);
    cr_assert_null(strstr(ptx.data, ".local"), "sm_%d: local memory in the linked PTX", arch);
    cr_assert_not_null(strstr(ptx.data, ".entry k"), "sm_%d: the kernel is missing", arch);
    free(info);
    free(error);
    const char *const verbose[] = {"-verbose", NULL};
    cr_assert_eq(coopt_link(arch, in, 2, 0, verbose, &cubin, &info, &error), 0, "sm_%d: %s", arch, error);
    int frames = 0;
    for (const char *p = info; (p = strstr(p, "bytes stack frame")); ++p, ++frames) {
      const char *line = p;
      while (line > info && line[-1] != '\n') --line;
      const char *dot = strstr(line, ".");
      int len = (int)(strchr(p, '\n') - dot);
      cr_assert(len == 68 && strncmp(dot, ".     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads", 68) == 0,
                "sm_%d: %.*s", arch, len, dot);
    }
    cr_assert_eq(frames, 1, "sm_%d: one kernel, one report; log:\n%s", arch, info);
    free(info);
    free(error);
    free(nvrtc_log);
    free(payload);
    free(user.data);
    free(bundle.data);
    free(ptx.data);
    free(cubin.data);
  }
  free(src);
  free(dir);
}

static void check_family(const coop_gen_group *groups, int n_groups, const char *kernel)
{
  check_family_typed(groups, n_groups, NULL, "", kernel);
}

Test(link, block_load, .timeout = 600)
{
  coop_gen_group g[] = {{.family = "block_load", .type = "f32", .threads = "128", .items = "4",
                         .algorithm = "transpose,warp_transpose"}};
  check_family(g, 1,
               "extern \"C\" __global__ void __launch_bounds__(128) k(const float *in, float *out, int n) {\n"
               "  __shared__ __align__(16) unsigned char temp[COOP_BLOCK_LOAD_F32_T128_I4_TRANSPOSE_TEMP_BYTES];\n"
               "  float a[4], b[4], oob = -1.0f;\n"
               "  coop_block_load_f32_t128_i4_transpose(in + blockIdx.x * 512, a, temp);\n"
               "  __syncthreads();\n"
               "  coop_block_load_guarded_f32_t128_i4_warp_transpose(in + blockIdx.x * 512, b, n, &oob, temp);\n"
               "  for (int i = 0; i < 4; ++i) out[(blockIdx.x * 128 + threadIdx.x) * 4 + i] = a[i] + b[i];\n}\n");
}

Test(link, block_store, .timeout = 600)
{
  coop_gen_group g[] = {{.family = "block_store", .type = "i64", .threads = "64", .items = "3",
                         .algorithm = "transpose,vectorize"}};
  check_family(g, 1,
               "extern \"C\" __global__ void __launch_bounds__(64) k(const long long *in, int64_t *out, int n) {\n"
               "  __shared__ __align__(16) unsigned char temp[COOP_BLOCK_STORE_I64_T64_I3_TRANSPOSE_TEMP_BYTES];\n"
               "  int64_t a[3];\n"
               "  for (int i = 0; i < 3; ++i) a[i] = in[threadIdx.x * 3 + i] * 3;\n"
               "  coop_block_store_i64_t64_i3_transpose(out + blockIdx.x * 192, a, temp);\n"
               "  __syncthreads();\n"
               "  coop_block_store_guarded_i64_t64_i3_vectorize(out + 100000 + blockIdx.x * 192, a, n, 0);\n}\n");
}

Test(link, block_reduce, .timeout = 600)
{
  coop_gen_group g[] = {{.family = "block_reduce", .type = "f32", .op = "sum,max", .threads = "256", .items = "4",
                         .algorithm = "raking,warp_reductions"}};
  check_family(g, 1,
               "extern \"C\" __global__ void __launch_bounds__(256) k(const float *in, float *out, int n) {\n"
               "  __shared__ __align__(16) unsigned char temp[COOP_BLOCK_REDUCE_SUM_F32_T256_I4_RAKING_TEMP_BYTES];\n"
               "  float a[4], s, m, p;\n"
               "  for (int i = 0; i < 4; ++i) a[i] = in[(blockIdx.x * 256 + threadIdx.x) * 4 + i];\n"
               "  coop_block_reduce_sum_f32_t256_i4_raking(a, &s, temp);\n  __syncthreads();\n"
               "  coop_block_reduce_max_f32_t256_i4_warp_reductions(a, &m, temp);\n  __syncthreads();\n"
               "  coop_block_reduce_sum_partial_f32_t256_i1_warp_reductions(&a[0], n, &p, temp);\n"
               "  if (threadIdx.x == 0) { out[blockIdx.x * 3] = s; out[blockIdx.x * 3 + 1] = m; "
               "out[blockIdx.x * 3 + 2] = p; }\n}\n");
}

Test(link, block_scan, .timeout = 600)
{
  coop_gen_group g[] = {{.family = "block_scan", .type = "i32", .op = "sum,max", .threads = "16x8", .items = "4",
                         .algorithm = "warp_scans,raking_memoize"}};
  check_family(g, 1,
               "extern \"C\" __global__ void __launch_bounds__(128) k(const int *in, int *out, int tiles) {\n"
               "  __shared__ __align__(16) unsigned char temp[COOP_BLOCK_EXCLUSIVE_SCAN_SUM_I32_T16X8X1_I4_WARP_SCANS_TEMP_BYTES];\n"
               "  const int t = threadIdx.y * 16 + threadIdx.x;\n"
               "  int a[4], b[4], run = 0, agg, init = -5;\n"
               "  for (int tile = 0; tile < tiles; ++tile) {\n"
               "    for (int i = 0; i < 4; ++i) a[i] = in[(tile * 128 + t) * 4 + i];\n"
               "    coop_block_inclusive_scan_sum_prefix_i32_t16x8x1_i4_warp_scans(a, b, &run, temp);\n"
               "    __syncthreads();\n"
               "    coop_block_exclusive_scan_max_i32_t16x8x1_i4_raking_memoize(b, a, &init, &agg, temp);\n"
               "    __syncthreads();\n"
               "    for (int i = 0; i < 4; ++i) out[(tile * 128 + t) * 4 + i] = a[i] + agg;\n  }\n}\n");
}

Test(link, warp_reduce, .timeout = 600)
{
  /* a shuffle warp (8 lanes) and a shared-memory one (7 lanes), full and partial */
  coop_gen_group g[] = {{.family = "warp_reduce", .type = "f32", .op = "sum,max", .warp = "8,7"}};
  check_family(g, 1,
               "extern \"C\" __global__ void __launch_bounds__(64) k(const float *in, float *out, int valid) {\n"
               "  __shared__ __align__(16) unsigned char temp[4 * COOP_WARP_REDUCE_MAX_F32_W7_TEMP_BYTES];\n"
               "  const int t = threadIdx.x, w7 = (t % 32) / 7;\n"
               "  float x = in[blockIdx.x * 64 + t], a, b;\n"
               "  coop_warp_reduce_sum_f32_w8(&x, &a, 0);\n"
               "  coop_warp_reduce_max_partial_f32_w8(&a, valid, &b, 0);\n"
               "  if (w7 < 4) {\n"
               "    coop_warp_reduce_max_f32_w7(&b, &a, temp + w7 * COOP_WARP_REDUCE_MAX_F32_W7_TEMP_BYTES);\n"
               "    __syncwarp();\n"
               "    coop_warp_reduce_sum_partial_f32_w7(&a, valid, &b, temp + w7 * COOP_WARP_REDUCE_MAX_F32_W7_TEMP_BYTES);\n"
               "  }\n"
               "  out[blockIdx.x * 64 + t] = b;\n}\n");
}

Test(link, warp_scan, .timeout = 600)
{
  coop_gen_group g[] = {{.family = "warp_scan", .type = "i32", .op = "sum,min", .warp = "16,12"}};
  check_family(g, 1,
               "extern \"C\" __global__ void __launch_bounds__(32) k(const int *in, int *out) {\n"
               "  __shared__ __align__(16) unsigned char temp[2 * COOP_WARP_INCLUSIVE_SCAN_MIN_I32_W12_TEMP_BYTES];\n"
               "  const int t = threadIdx.x, w = t / 12, init = 7;\n"
               "  int x = in[blockIdx.x * 32 + t], a, b, agg;\n"
               "  coop_warp_inclusive_scan_sum_i32_w16(&x, &a, &agg, 0);\n"
               "  coop_warp_exclusive_scan_min_i32_w16(&a, &b, &init, 0, 0);\n"
               "  if (w < 2) {\n"
               "    coop_warp_exclusive_scan_sum_i32_w12(&b, &a, 0, temp + w * COOP_WARP_INCLUSIVE_SCAN_MIN_I32_W12_TEMP_BYTES);\n"
               "    __syncwarp();\n"
               "    coop_warp_inclusive_scan_min_i32_w12(&a, &b, &agg, temp + w * COOP_WARP_INCLUSIVE_SCAN_MIN_I32_W12_TEMP_BYTES);\n"
               "  }\n"
               "  out[blockIdx.x * 32 + t] = b + agg;\n}\n");
}

/* The PTX of `kernel` (which includes "NAME.h") linked for sm_90 with the bundle NAME generated from groups;
 * free() it. */
static char *linked_ptx(const coop_gen_group *groups, int n_groups, const char *name, const char *kernel)
{
  char *dir = coopt_tmpdir();
  coopt_generate(groups, n_groups, name, "sm_90", dir);
  coopt_blob user = {0}, bundle = {0}, ptx = {0};
  char *nvrtc_log = NULL, *info = NULL, *error = NULL;
  cr_assert_eq(coopt_compile(kernel, 90, dir, &user, &nvrtc_log), 0, "%s", nvrtc_log);
  char *payload = coopt_fmt("%s/%s.sm_90.ltoir", dir, name);
  cr_assert_eq(coopt_read(payload, &bundle), 0);
  coopt_blob in[2] = {user, bundle};
  cr_assert_eq(coopt_link(90, in, 2, 1, NULL, &ptx, &info, &error), 0, "%s", error);
  free(info);
  free(error);
  free(nvrtc_log);
  free(payload);
  free(user.data);
  free(bundle.data);
  free(dir);
  return ptx.data;
}

/* CUB 3.0 syncs every logical warp whose size is not a power of two with the first one's lanes (WarpMask:
 * a constant 0x7f for 7 lanes), so the other logical warps of a hardware warp sync with a mask that leaves
 * them out (compute-sanitizer synccheck: "Barrier error detected. Invalid arguments"). primitives/common.cuh
 * gives each logical warp its own lanes: the linked kernel's warp barriers take a mask computed from the
 * lane, never a constant. (The GPU half: tests/gpu/sanitize.sh synccheck.) */
Test(link, non_power_of_two_logical_warps_sync_their_own_lanes, .timeout = 600)
{
  coop_gen_group g[] = {{.family = "warp_reduce", .type = "f32", .op = "sum", .warp = "7"},
                        {.family = "warp_scan", .type = "i32", .op = "max", .warp = "12"}};
  char *ptx = linked_ptx(
    g, 2, "odd",
    "#include \"odd.h\"\n"
    "extern \"C\" __global__ void k(const float *in, float *out, const int *iin, int *iout) {\n"
    "  __shared__ __align__(16) unsigned char t7[4 * COOP_WARP_REDUCE_SUM_F32_W7_TEMP_BYTES];\n"
    "  __shared__ __align__(16) unsigned char t12[2 * COOP_WARP_INCLUSIVE_SCAN_MAX_I32_W12_TEMP_BYTES];\n"
    "  const int lane = threadIdx.x % 32, w7 = lane / 7, w12 = lane / 12;\n"
    "  float x = in[threadIdx.x], a;\n"
    "  int y = iin[threadIdx.x], b;\n"
    "  if (w7 < 4) coop_warp_reduce_sum_f32_w7(&x, &a, t7 + w7 * COOP_WARP_REDUCE_SUM_F32_W7_TEMP_BYTES);\n"
    "  if (w12 < 2) coop_warp_inclusive_scan_max_i32_w12(&y, &b, 0, t12 + w12 * COOP_WARP_INCLUSIVE_SCAN_MAX_I32_W12_TEMP_BYTES);\n"
    "  out[threadIdx.x] = a;\n  iout[threadIdx.x] = b;\n}\n");
  int barriers = 0;
  for (const char *p = ptx; (p = strstr(p, "bar.warp.sync")); p += 13, ++barriers) {
    const char *arg = p + 13;
    while (*arg == ' ' || *arg == '\t') ++arg;
    cr_assert_eq(*arg, '%', "a warp barrier with a constant mask: %.40s", p);
  }
  cr_assert_geq(barriers, 4, "the shared-memory warp reduce and scan sync at every step; PTX:\n%s", ptx);
  free(ptx);
}

/* CUB 3.0's WarpLoad<..., WARP_LOAD_VECTORIZE> never vectorized a pointer (its pointer overloads of Load are
 * templates on a parameter nothing deduces, so the iterator overload loads an item at a time);
 * primitives/warp_load.cuh calls the vectorized load itself. The linked kernel loads 16-byte vectors (and
 * keeps CUB's item-by-item path for a pointer off a 16-byte boundary). */
Test(link, warp_load_vectorize_loads_vectors, .timeout = 600)
{
  coop_gen_group g[] = {{.family = "warp_load", .type = "f32", .warp = "8", .items = "4", .algorithm = "vectorize"}};
  char *ptx = linked_ptx(g, 1, "wl",
                         "#include \"wl.h\"\n"
                         "extern \"C\" __global__ void k(const float *in, float *out) {\n"
                         "  float x[4];\n"
                         "  coop_warp_load_f32_w8_i4_vectorize(in + (threadIdx.x / 8) * 32, x, 0);\n"
                         "  out[threadIdx.x] = x[0] + x[1] + x[2] + x[3];\n}\n");
  cr_assert_not_null(strstr(ptx, "ld.global.v4.f32"), "no 16-byte load in the linked PTX:\n%s", ptx);
  free(ptx);
}

Test(link, custom_operator, .timeout = 600)
{
  /* the user's operator, defined in the kernel's own code, called by block and warp primitives: inlined */
  coop_gen_group g[] = {{.family = "block_reduce", .type = "f32", .op = "custom:mat", .threads = "128", .items = "4",
                         .algorithm = "raking,warp_reductions"},
                        {.family = "block_scan", .type = "f32", .op = "custom:mat", .threads = "128", .items = "4",
                         .algorithm = "warp_scans", .variant = "exclusive,inclusive_prefix"},
                        {.family = "warp_reduce", .type = "f32", .op = "custom:mat", .warp = "8,7"}};
  check_family(g, 3,
               "extern \"C\" __device__ void mat(const float *a, const float *b, float *out) { *out = *a * 2.0f - *b; }\n"
               "extern \"C\" __global__ void __launch_bounds__(128) k(const float *in, float *out, int n) {\n"
               "  __shared__ __align__(16) unsigned char temp[8192];\n"
               "  const int t = threadIdx.x;\n"
               "  float a[4], b[4], agg, run = 1.0f, init = 0.5f;\n"
               "  for (int i = 0; i < 4; ++i) a[i] = in[t * 4 + i];\n"
               "  coop_block_reduce_custom_mat_f32_t128_i4_raking(a, &agg, temp);\n"
               "  __syncthreads();\n"
               "  coop_block_exclusive_scan_custom_mat_f32_t128_i4_warp_scans(a, b, &init, 0, temp);\n"
               "  __syncthreads();\n"
               "  coop_block_inclusive_scan_custom_mat_prefix_f32_t128_i4_warp_scans(b, a, &run, temp);\n"
               "  __syncthreads();\n"
               "  float x = a[0] + agg, y, z;\n"
               "  coop_warp_reduce_custom_mat_partial_f32_w8(&x, n, &y, 0);\n"
               "  if ((t % 32) / 7 < 4) coop_warp_reduce_custom_mat_f32_w7(&y, &z, temp + ((t / 32) * 4 + (t % 32) / 7) * 64);\n"
               "  out[t] = z + run;\n}\n");
}

Test(link, user_type, .timeout = 600)
{
  /* a user type (a 2x2 matrix, the kernel's own struct) through load, block and warp reduce and scan with a
   * non-commutative operator (the matrix product, defined in the kernel's code) and store: inlined */
  coop_gen_group g[] = {{.family = "block_load", .type = "mat2", .threads = "64", .items = "2", .algorithm = "warp_transpose"},
                        {.family = "block_reduce", .type = "mat2", .op = "custom:matmul", .threads = "64", .items = "2",
                         .algorithm = "raking"},
                        {.family = "block_scan", .type = "mat2", .op = "custom:matmul", .threads = "64", .items = "2",
                         .algorithm = "warp_scans", .variant = "inclusive,exclusive_prefix"},
                        {.family = "warp_reduce", .type = "mat2", .op = "custom:matmul", .warp = "8", .variant = "full"},
                        {.family = "warp_scan", .type = "mat2", .op = "custom:matmul", .warp = "7", .variant = "exclusive"},
                        {.family = "block_store", .type = "mat2", .threads = "64", .items = "2", .algorithm = "striped"}};
  check_family_typed(g, 6, "mat2:16:16",
                     "struct __align__(16) mat2 { float a, b, c, d; };\n#define COOP_TYPE_MAT2 struct mat2\n",
                     "extern \"C\" __device__ void matmul(const mat2 *x, const mat2 *y, mat2 *o) {\n"
                     "  mat2 r = {x->a * y->a + x->b * y->c, x->a * y->b + x->b * y->d, x->c * y->a + x->d * y->c,\n"
                     "            x->c * y->b + x->d * y->d};\n  *o = r;\n}\n"
                     "extern \"C\" __global__ void __launch_bounds__(64) k(const mat2 *in, mat2 *out, int n) {\n"
                     "  __shared__ __align__(16) unsigned char temp[8192];\n"
                     "  const int t = threadIdx.x;\n"
                     "  mat2 a[2], b[2], agg, run = {1, 0, 0, 1}, w, v, id = {1, 0, 0, 1};\n"
                     "  coop_block_load_mat2_t64_i2_warp_transpose(in + blockIdx.x * 128, a, temp);\n"
                     "  __syncthreads();\n"
                     "  coop_block_reduce_custom_matmul_mat2_t64_i2_raking(a, &agg, temp);\n"
                     "  __syncthreads();\n"
                     "  coop_block_inclusive_scan_custom_matmul_mat2_t64_i2_warp_scans(a, b, 0, temp);\n"
                     "  __syncthreads();\n"
                     "  coop_block_exclusive_scan_custom_matmul_prefix_mat2_t64_i2_warp_scans(b, a, &run, temp);\n"
                     "  __syncthreads();\n"
                     "  coop_warp_reduce_custom_matmul_mat2_w8(&a[0], &w, 0);\n"
                     "  if ((t % 32) / 7 < 4) coop_warp_exclusive_scan_custom_matmul_mat2_w7(&a[1], &v, &id, 0,\n"
                     "      temp + ((t / 32) * 4 + (t % 32) / 7) * COOP_WARP_EXCLUSIVE_SCAN_CUSTOM_MATMUL_MAT2_W7_TEMP_BYTES);\n"
                     "  __syncthreads();\n"
                     "  b[0] = w; b[1] = v; b[0].a += agg.a + run.d;\n"
                     "  coop_block_store_mat2_t64_i2_striped(out + blockIdx.x * 128, b, 0);\n}\n");
}

Test(link, warp_load_store_exchange, .timeout = 600)
{
  /* logical warps of 8 lanes, 4 items each: load (transpose, guarded vectorize), exchange (shared memory,
   * scatter; shuffle), store (striped) */
  coop_gen_group g[] = {{.family = "warp_load", .type = "f32", .warp = "8", .items = "4", .algorithm = "transpose,vectorize"},
                        {.family = "warp_exchange", .type = "f32", .warp = "8", .items = "4", .algorithm = "smem"},
                        {.family = "warp_exchange", .type = "f32", .warp = "4", .items = "4", .algorithm = "shuffle",
                         .variant = "blocked_to_striped"},
                        {.family = "warp_store", .type = "f32", .warp = "8", .items = "4", .algorithm = "striped"}};
  check_family(g, 4,
               "extern \"C\" __global__ void __launch_bounds__(128) k(const float *in, float *out, int n) {\n"
               "  __shared__ __align__(16) unsigned char temp[16 * 1024];\n"
               "  const int t = threadIdx.x, w = t / 8;\n"
               "  unsigned char *slot = temp + w * COOP_WARP_LOAD_F32_W8_I4_TRANSPOSE_TEMP_BYTES;\n"
               "  float a[4], b[4], oob = -1.0f;\n"
               "  int r[4];\n"
               "  coop_warp_load_f32_w8_i4_transpose(in + w * 32, a, slot);\n"
               "  __syncwarp();\n"
               "  coop_warp_load_guarded_f32_w8_i4_vectorize(in + 4096 + w * 32, b, n, &oob, 0);\n"
               "  for (int i = 0; i < 4; ++i) { a[i] += b[i]; r[i] = 31 - ((t % 8) * 4 + i); }\n"
               "  coop_warp_exchange_scatter_to_striped_f32_w8_i4_smem(a, b, r, slot);\n"
               "  __syncwarp();\n"
               "  coop_warp_exchange_striped_to_blocked_f32_w8_i4_smem(b, a, slot);\n"
               "  coop_warp_exchange_blocked_to_striped_f32_w4_i4_shuffle(a, b, 0);\n"
               "  __syncwarp();\n"
               "  coop_warp_store_f32_w8_i4_striped(out + w * 32, b, 0);\n}\n");
}

Test(link, warp_merge_sort, .timeout = 600)
{
  /* keys and key-value pairs, guarded, with CUB's orderings and the user's comparator (a struct's key) */
  coop_gen_group g[] = {{.family = "warp_merge_sort", .type = "f32", .op = "less,greater", .warp = "16", .items = "4"},
                        {.family = "warp_merge_sort", .type = "kv", .op = "custom:by_key", .warp = "8", .items = "2",
                         .values = "u32"}};
  check_family_typed(g, 2, "kv:8:4", "struct kv { int key, tag; };\n#define COOP_TYPE_KV struct kv\n",
                     "extern \"C\" __device__ int by_key(const kv *a, const kv *b) { return a->key < b->key; }\n"
                     "extern \"C\" __global__ void __launch_bounds__(64) k(const float *in, float *out, kv *s, int n) {\n"
                     "  __shared__ __align__(16) unsigned char temp[16 * 1024];\n"
                     "  const int t = threadIdx.x;\n"
                     "  float a[4], big = 1e30f;\n"
                     "  for (int i = 0; i < 4; ++i) a[i] = in[t * 4 + i];\n"
                     "  coop_warp_merge_sort_keys_less_f32_w16_i4(a, temp + (t / 16) * COOP_WARP_MERGE_SORT_KEYS_LESS_F32_W16_I4_TEMP_BYTES);\n"
                     "  __syncwarp();\n"
                     "  coop_warp_merge_sort_keys_guarded_greater_f32_w16_i4(a, n, &big, temp + (t / 16) * 4096);\n"
                     "  for (int i = 0; i < 4; ++i) out[t * 4 + i] = a[i];\n"
                     "  kv x[2] = {s[t * 2], s[t * 2 + 1]}, hi = {1 << 30, 0};\n"
                     "  unsigned v[2] = {2u * t, 2u * t + 1};\n"
                     "  __syncwarp();\n"
                     "  coop_warp_merge_sort_pairs_guarded_custom_by_key_kv_u32_w8_i2(x, v, n, &hi, temp + (t / 8) * 1024);\n"
                     "  s[t * 2] = x[0]; s[t * 2 + 1] = x[1]; s[t * 2].tag += v[0] + v[1];\n}\n");
}

Test(link, block_exchange_merge_sort, .timeout = 600)
{
  /* a 3-D block of 64 threads, 4 items each: exchanges (striped, warp-striped, scatter with ranks, guarded and
   * flagged, time-sliced), then a merge sort of keys and of key-value pairs with the user's comparator */
  coop_gen_group g[] = {{.family = "block_exchange", .type = "f32", .threads = "8x4x2", .items = "4", .algorithm = "smem"},
                        {.family = "block_exchange", .type = "f32", .threads = "8x4x2", .items = "4", .algorithm = "smem_ts",
                         .variant = "striped_to_blocked,scatter_to_blocked"},
                        {.family = "block_merge_sort", .type = "f32", .op = "less", .threads = "8x4x2", .items = "4",
                         .variant = "keys,keys_guarded"},
                        {.family = "block_merge_sort", .type = "kv", .op = "custom:by_key", .threads = "8x4x2", .items = "4",
                         .values = "u32"}};
  check_family_typed(g, 4, "kv:8:4", "struct kv { int key, tag; };\n#define COOP_TYPE_KV struct kv\n",
                     "extern \"C\" __device__ int by_key(const kv *a, const kv *b) { return a->key < b->key; }\n"
                     "extern \"C\" __global__ void __launch_bounds__(64) k(const float *in, float *out, kv *s, int n) {\n"
                     "  __shared__ __align__(16) unsigned char temp[16 * 1024];\n"
                     "  const int t = threadIdx.x + 8 * (threadIdx.y + 4 * threadIdx.z);\n"
                     "  float a[4], b[4], big = 1e30f;\n"
                     "  int r[4], f[4];\n"
                     "  for (int i = 0; i < 4; ++i) { a[i] = in[t + 64 * i]; r[i] = 255 - (t * 4 + i); f[i] = i != 2; }\n"
                     "  coop_block_exchange_striped_to_blocked_f32_t8x4x2_i4_smem(a, b, temp);\n"
                     "  __syncthreads();\n"
                     "  coop_block_exchange_scatter_to_striped_guarded_f32_t8x4x2_i4_smem(b, a, r, temp);\n"
                     "  __syncthreads();\n"
                     "  coop_block_exchange_scatter_to_striped_flagged_f32_t8x4x2_i4_smem(a, b, r, f, temp);\n"
                     "  __syncthreads();\n"
                     "  coop_block_exchange_blocked_to_warp_striped_f32_t8x4x2_i4_smem(b, a, temp);\n"
                     "  __syncthreads();\n"
                     "  coop_block_exchange_warp_striped_to_blocked_f32_t8x4x2_i4_smem(a, b, temp);\n"
                     "  __syncthreads();\n"
                     "  coop_block_exchange_scatter_to_blocked_f32_t8x4x2_i4_smem_ts(b, a, r,\n"
                     "      temp + 0 * COOP_BLOCK_EXCHANGE_SCATTER_TO_BLOCKED_F32_T8X4X2_I4_SMEM_TS_TEMP_BYTES);\n"
                     "  __syncthreads();\n"
                     "  coop_block_exchange_striped_to_blocked_f32_t8x4x2_i4_smem_ts(a, b, temp);\n"
                     "  __syncthreads();\n"
                     "  coop_block_merge_sort_keys_less_f32_t8x4x2_i4(b, temp);\n"
                     "  __syncthreads();\n"
                     "  coop_block_merge_sort_keys_guarded_less_f32_t8x4x2_i4(b, n, &big, temp);\n"
                     "  __syncthreads();\n"
                     "  coop_block_exchange_blocked_to_striped_f32_t8x4x2_i4_smem(b, a, temp);\n"
                     "  __syncthreads();\n"
                     "  coop_block_exchange_scatter_to_striped_f32_t8x4x2_i4_smem(a, b, r, temp);\n"
                     "  for (int i = 0; i < 4; ++i) out[t * 4 + i] = b[i];\n"
                     "  kv x[4], hi = {1 << 30, 0};\n"
                     "  unsigned v[4];\n"
                     "  for (int i = 0; i < 4; ++i) { x[i] = s[t * 4 + i]; v[i] = 4u * t + i; }\n"
                     "  __syncthreads();\n"
                     "  coop_block_merge_sort_pairs_custom_by_key_kv_u32_t8x4x2_i4(x, v, temp);\n"
                     "  __syncthreads();\n"
                     "  coop_block_merge_sort_pairs_guarded_custom_by_key_kv_u32_t8x4x2_i4(x, v, n, &hi, temp);\n"
                     "  for (int i = 0; i < 4; ++i) { s[t * 4 + i] = x[i]; s[t * 4 + i].tag += v[i]; }\n}\n");
}

Test(link, block_discontinuity_adjacent_difference_shuffle, .timeout = 600)
{
  /* 96 threads as 32x3, 3 items each: head and tail flags (with a tile predecessor and successor, CUB's
   * inequality and the user's flag op), adjacent differences (left, right, partial), shuffles */
  coop_gen_group g[] = {{.family = "block_discontinuity", .type = "i32", .op = "ne,custom:far", .threads = "32x3", .items = "3",
                         .variant = "heads,tails_succ,heads_tails_pred_succ"},
                        {.family = "block_adjacent_difference", .type = "i32", .op = "sub", .threads = "32x3", .items = "3"},
                        {.family = "block_shuffle", .type = "i32", .threads = "32x3", .items = "1,3"}};
  check_family_typed(g, 3, NULL, "",
                     "extern \"C\" __device__ int far(const int *a, const int *b) { return *b - *a > 2 || *a - *b > 2; }\n"
                     "extern \"C\" __global__ void __launch_bounds__(96) k(const int *in, int *out, int n) {\n"
                     "  __shared__ __align__(16) unsigned char temp[16 * 1024];\n"
                     "  const int t = threadIdx.x + 32 * threadIdx.y;\n"
                     "  int a[3], b[3], h[3], f[3], pred = in[0] - 1, succ = in[1000], x, y = -1, s, p;\n"
                     "  for (int i = 0; i < 3; ++i) a[i] = in[t * 3 + i];\n"
                     "  coop_block_discontinuity_heads_ne_i32_t32x3x1_i3(h, a, temp);\n"
                     "  __syncthreads();\n"
                     "  coop_block_discontinuity_tails_succ_custom_far_i32_t32x3x1_i3(f, a, &succ, temp);\n"
                     "  __syncthreads();\n"
                     "  for (int i = 0; i < 3; ++i) b[i] = h[i] + 2 * f[i];\n"
                     "  coop_block_discontinuity_heads_tails_pred_succ_ne_i32_t32x3x1_i3(h, f, a, &pred, &succ, temp);\n"
                     "  __syncthreads();\n"
                     "  coop_block_adjacent_difference_left_sub_i32_t32x3x1_i3(a, b, temp);\n"
                     "  __syncthreads();\n"
                     "  coop_block_adjacent_difference_right_partial_sub_i32_t32x3x1_i3(b, a, n, temp);\n"
                     "  __syncthreads();\n"
                     "  coop_block_adjacent_difference_left_partial_pred_sub_i32_t32x3x1_i3(a, b, n, &pred, temp);\n"
                     "  __syncthreads();\n"
                     "  x = b[0] + h[1] + f[2];\n"
                     "  coop_block_shuffle_offset_i32_t32x3x1_i1(&x, &y, n, temp);\n"
                     "  __syncthreads();\n"
                     "  coop_block_shuffle_rotate_i32_t32x3x1_i1(&y, &x, n, temp);\n"
                     "  __syncthreads();\n"
                     "  coop_block_shuffle_up_suffix_i32_t32x3x1_i3(b, a, &s, temp);\n"
                     "  __syncthreads();\n"
                     "  coop_block_shuffle_down_prefix_i32_t32x3x1_i3(a, b, &p, temp);\n"
                     "  for (int i = 0; i < 3; ++i) out[t * 3 + i] = b[i] + x + s + p;\n}\n");
}

Test(link, block_radix_sort, .timeout = 600)
{
  /* keys ascending over a bit range, descending to striped, key-value pairs (float keys, int values), inlined */
  coop_gen_group g[] = {{.family = "block_radix_sort", .type = "u32", .threads = "128", .items = "4",
                         .variant = "keys_asc,keys_desc_striped"},
                        {.family = "block_radix_sort", .type = "f32", .values = "i32", .threads = "128", .items = "4",
                         .algorithm = "r5", .variant = "pairs_asc"}};
  check_family(g, 2,
               "extern \"C\" __global__ void __launch_bounds__(128) k(const unsigned *in, float *f, int *out, int b, int e) {\n"
               "  __shared__ __align__(16) unsigned char temp[16 * 1024];\n"
               "  const int t = threadIdx.x;\n"
               "  unsigned a[4];\n  float x[4];\n  int v[4];\n"
               "  for (int i = 0; i < 4; ++i) { a[i] = in[t * 4 + i]; x[i] = f[t * 4 + i]; v[i] = t * 4 + i; }\n"
               "  coop_block_radix_sort_keys_asc_u32_t128_i4_r4(a, b, e, temp);\n"
               "  __syncthreads();\n"
               "  coop_block_radix_sort_keys_desc_striped_u32_t128_i4_r4(a, 0, 32, temp);\n"
               "  __syncthreads();\n"
               "  coop_block_radix_sort_pairs_asc_f32_i32_t128_i4_r5(x, v, 0, 32, temp);\n"
               "  for (int i = 0; i < 4; ++i) { out[t * 4 + i] = (int)a[i] + v[i]; f[t * 4 + i] = x[i]; }\n}\n");
}

Test(link, block_histogram_run_length_decode, .timeout = 600)
{
  /* a 256-bin histogram of bytes (sort, then atomic added to it) and a run-length decode window, inlined */
  coop_gen_group g[] = {{.family = "block_histogram", .type = "u8", .threads = "128", .items = "4", .bins = "256",
                         .algorithm = "sort,atomic"},
                        {.family = "block_run_length_decode", .type = "f32", .threads = "128", .items = "2", .decoded = "4"},
                        {.family = "block_radix_rank", .type = "u8", .threads = "128", .items = "4", .algorithm = "r4"}};
  check_family(g, 3,
               "extern \"C\" __global__ void __launch_bounds__(128) k(const unsigned char *in, unsigned *out, float *f, int n) {\n"
               "  __shared__ __align__(16) unsigned char temp[16 * 1024];\n"
               "  __shared__ unsigned hist[256];\n"
               "  const int t = threadIdx.x;\n"
               "  unsigned char a[4];\n  float v[2], d[4];\n  unsigned l[2], o[4], total;\n"
               "  for (int i = 0; i < 4; ++i) a[i] = in[t * 4 + i];\n"
               "  coop_block_histogram_init_composite_u8_t128_i4_sort_b256(a, hist, temp);\n"
               "  __syncthreads();\n"
               "  coop_block_histogram_composite_u8_t128_i4_atomic_b256(a, hist, 0);\n"
               "  __syncthreads();\n"
               "  out[t] = hist[t] + hist[t + 128];\n"
               "  for (int i = 0; i < 2; ++i) { v[i] = f[t * 2 + i]; l[i] = a[i] % 5; }\n"
               "  coop_block_run_length_decode_offsets_f32_t128_i2_d4(v, l, d, o, n, &total, temp);\n"
               "  int r[4];\n"
               "  coop_block_radix_rank_desc_u8_t128_i4_r4(a, r, n & 4, temp);\n"
               "  for (int i = 0; i < 4; ++i) f[t * 4 + i] = d[i] + o[i] + total + r[i];\n}\n");
}
