/* The linker: every error path with its exact code, auto-resolution, on-demand generation, inputs of
 * every kind, and the cooplink command line. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../support/lto.h"
#include "kernels.h"
#include "rt_util.h"
#include "util.h"

static const char *const AB[] = {"fixture_a", "fixture_b", NULL};

static coop_catalog *open_ab(char **dir)
{
  *dir = coopt_catalog_with(AB);
  coop_catalog *cat = NULL;
  char *err = NULL;
  cr_assert_eq(coop_catalog_open(&cat, *dir, &err), COOP_SUCCESS, "%s", err);
  return cat;
}

static void expect_log(const coop_linker *l, const char *message)
{
  char *log = coopt_linker_log(l);
  cr_assert_str_eq(log, message);
  free(log);
}

Test(linker, bad_option)
{
  coop_linker *l = NULL;
  const char *opts[] = {"-arch=sm_90", "-bogus"};
  cr_assert_eq(coop_linker_create(&l, NULL, 2, opts), COOP_ERROR_INVALID_VALUE);
  expect_log(l, "option '-bogus' is unknown or malformed\n");
  coop_linker_destroy(&l);
  const char *opts2[] = {"-arch=compute_90"};
  cr_assert_eq(coop_linker_create(&l, NULL, 1, opts2), COOP_ERROR_INVALID_VALUE);
  expect_log(l, "option '-arch=compute_90' is unknown or malformed\n");
  coop_linker_destroy(&l);
  cr_assert_null(l);
}

Test(linker, no_arch_without_gpu)
{
  char why[256];
  if (coop_driver_available(why, sizeof why)) cr_skip_test("a GPU is present: the arch comes from it");
  coop_linker *l = NULL;
  cr_assert_eq(coop_linker_create(&l, NULL, 0, NULL), COOP_ERROR_DRIVER);
  expect_log(l, "no -arch given and no GPU to take it from\n");
  coop_linker_destroy(&l);
}

Test(linker, unwritable_cache)
{
  coop_linker *l = NULL;
  const char *opts[] = {"-arch=sm_90", "-cache-dir=/dev/null/cache"};
  cr_assert_eq(coop_linker_create(&l, NULL, 2, opts), COOP_ERROR_CACHE);
  expect_log(l, "/dev/null/cache: the cache folder cannot be created or written (use -cache=0, -cache-dir= or "
                "COOPLINK_CACHE)\n");
  coop_linker_destroy(&l);
}

Test(linker, input_errors_and_state)
{
  coop_linker *l = NULL;
  const char *opts[] = {"-arch=sm_90", "-cache=0"};
  cr_assert_eq(coop_linker_create(&l, NULL, 2, opts), COOP_SUCCESS);
  cr_assert_eq(coop_linker_add_file(l, COOP_INPUT_AUTO, "kernel.txt"), COOP_ERROR_INPUT);
  expect_log(l, "kernel.txt: unknown input kind (expected .cu .ltoir .ptx .cubin .fatbin .a or a bundle .json)\n");
  cr_assert_eq(coop_linker_add_file(l, COOP_INPUT_AUTO, "/nonexistent/k.ltoir"), COOP_ERROR_IO);
  expect_log(l, "/nonexistent/k.ltoir: cannot read the input\n");
  cr_assert_eq(coop_linker_add_data(l, COOP_INPUT_AUTO, "x", 1, "x"), COOP_ERROR_INVALID_VALUE);
  cr_assert_eq(coop_linker_add_data(l, COOP_INPUT_BUNDLE, "x", 1, "x"), COOP_ERROR_INVALID_VALUE);
  cr_assert_eq(coop_linker_complete(l), COOP_ERROR_STATE);
  expect_log(l, "no inputs to link\n");
  const void *cubin;
  size_t size;
  cr_assert_eq(coop_linker_get_cubin(l, &cubin, &size), COOP_ERROR_STATE);
  coop_linker_destroy(&l);
  cr_assert_eq(coop_linker_destroy(&l), COOP_SUCCESS);
  cr_assert_eq(coop_linker_complete(NULL), COOP_ERROR_INVALID_VALUE);
}

static int count_calls(const char *ptx)
{
  int n = 0;
  for (const char *p = ptx; (p = strstr(p, "call")); p += 4) {
    const char *q = p;
    while (q > ptx && (q[-1] == ' ' || q[-1] == '\t')) --q;
    if (q == ptx || q[-1] == '\n') ++n;
  }
  return n;
}

Test(linker, auto_resolution_adds_only_needed_bundles)
{
  char *dir;
  coop_catalog *cat = open_ab(&dir);
  void *ir;
  size_t size;
  const char *opts[] = {"-arch=sm_90", "-cache=0", "-ptx"};
  coopt_kernel_ltoir(K_REDUCE, 90, &ir, &size);
  coop_linker *l = NULL;
  cr_assert_eq(coopt_link_ltoir(cat, opts, 3, ir, size, &l), COOP_SUCCESS, "%s", coopt_linker_log(l));
  coop_link_info info;
  cr_assert_eq(coop_linker_get_info(l, &info), COOP_SUCCESS);
  cr_assert_eq(info.n_bundles, 1);
  cr_assert_eq(info.cache_hit, 0);
  const char *name;
  cr_assert_eq(coop_linker_get_bundle(l, 0, &name), COOP_SUCCESS);
  cr_assert_str_eq(name, "fixture_a");
  const char *ptx;
  size_t ptx_size;
  cr_assert_eq(coop_linker_get_ptx(l, &ptx, &ptx_size), COOP_SUCCESS);
  cr_assert_null(strstr(ptx, ".func"));
  cr_assert_eq(count_calls(ptx), 0);
  const void *cubin;
  size_t cubin_size;
  cr_assert_eq(coop_linker_get_cubin(l, &cubin, &cubin_size), COOP_SUCCESS);
  cr_assert(cubin_size > 64 && memcmp(cubin, "\177ELF", 4) == 0);
  coop_linker_destroy(&l);
  free(ir);
  coopt_kernel_ltoir(K_BOTH, 90, &ir, &size);
  cr_assert_eq(coopt_link_ltoir(cat, opts, 3, ir, size, &l), COOP_SUCCESS, "%s", coopt_linker_log(l));
  coop_linker_get_info(l, &info);
  cr_assert_eq(info.n_bundles, 2);
  coop_linker_destroy(&l);
  free(ir);
  coop_catalog_close(&cat);
  free(dir);
}

Test(linker, missing_symbols_listed_when_generation_is_off)
{
  char *dir;
  coop_catalog *cat = open_ab(&dir);
  void *ir;
  size_t size;
  coopt_kernel_ltoir(K_MISSING, 90, &ir, &size);
  const char *opts[] = {"-arch=sm_90", "-cache=0", "-generate=0"};
  coop_linker *l = NULL;
  cr_assert_eq(coopt_link_ltoir(cat, opts, 3, ir, size, &l), COOP_ERROR_SYMBOL_MISSING);
  char *log = coopt_linker_log(l);
  cr_assert_not_null(strstr(log, "2 symbols are in no bundle of the catalog (on-demand generation is off):\n"
                                 "  coop_block_reduce_max_f64_t64_i2_raking\n"
                                 "  coop_block_exclusive_scan_sum_u8_t64_i1_raking\n"),
                     "%s", log);
  free(log);
  coop_linker_destroy(&l);
  free(ir);
  coop_catalog_close(&cat);
  free(dir);
}

/* The folder of generated bundles is read only when the catalog lacks a symbol: a broken manifest there
 * does not stop links the catalog covers, and is named when a link does need the folder. */
Test(linker, generated_folder_read_only_when_needed)
{
  char *dir;
  coop_catalog *cat = open_ab(&dir);
  char *cache = coopt_tmpdir();
  char *gen = coopt_fmt("%s/generated", cache);
  cr_assert_eq(mkdir(gen, 0755), 0);
  char *m = coopt_fmt("%s/broken.json", gen);
  FILE *f = fopen(m, "w");
  fputs("{\"format\": 1,", f);
  fclose(f);
  char *cdir = coopt_fmt("-cache-dir=%s", cache);
  const char *opts[] = {"-arch=sm_90", cdir, "-generate=0"};
  void *ir;
  size_t size;
  coop_linker *l = NULL;
  coopt_kernel_ltoir(K_REDUCE, 90, &ir, &size);
  cr_assert_eq(coopt_link_ltoir(cat, opts, 3, ir, size, &l), COOP_SUCCESS, "%s", coopt_linker_log(l));
  coop_linker_destroy(&l);
  free(ir);
  coopt_kernel_ltoir(K_MISSING, 90, &ir, &size);
  cr_assert_eq(coopt_link_ltoir(cat, opts, 3, ir, size, &l), COOP_ERROR_BUNDLE_CORRUPT);
  char *want = coopt_fmt("generated bundles: %s:1:13: not a valid manifest: string or '}' expected near end of file\n", m);
  char *log = coopt_linker_log(l);
  cr_assert_not_null(strstr(log, want), "%s", log);
  free(log);
  free(want);
  coop_linker_destroy(&l);
  free(ir);
  free(cdir);
  free(m);
  free(gen);
  free(cache);
  coop_catalog_close(&cat);
  free(dir);
}

Test(linker, on_demand_generation_and_reuse, .timeout = 300)
{
  char *dir;
  coop_catalog *cat = open_ab(&dir);
  char *cache = coopt_tmpdir();
  char *cdir = coopt_fmt("-cache-dir=%s", cache);
  void *ir;
  size_t size;
  coopt_kernel_ltoir(K_MISSING, 90, &ir, &size);
  const char *opts[] = {"-arch=sm_90", cdir, "-ptx"};
  coop_linker *l = NULL;
  cr_assert_eq(coopt_link_ltoir(cat, opts, 3, ir, size, &l), COOP_SUCCESS, "%s", coopt_linker_log(l));
  coop_link_info info;
  coop_linker_get_info(l, &info);
  cr_assert_eq(info.n_generated, 2);
  cr_assert_eq(info.n_bundles, 1);
  const char *name, *ptx;
  size_t n;
  coop_linker_get_bundle(l, 0, &name);
  cr_assert(strncmp(name, "ondemand_", 9) == 0, "%s", name);
  cr_assert_eq(coop_linker_get_ptx(l, &ptx, &n), COOP_SUCCESS);
  cr_assert_null(strstr(ptx, ".func"));
  coop_linker_destroy(&l);
  /* A different link (lineinfo) misses the link cache but finds the generated bundle. */
  const char *opts2[] = {"-arch=sm_90", cdir, "-lineinfo"};
  cr_assert_eq(coopt_link_ltoir(cat, opts2, 3, ir, size, &l), COOP_SUCCESS, "%s", coopt_linker_log(l));
  coop_linker_get_info(l, &info);
  cr_assert_eq(info.n_generated, 0);
  cr_assert_eq(info.cache_hit, 0);
  cr_assert_eq(info.n_bundles, 1);
  coop_linker_destroy(&l);
  free(ir);
  free(cdir);
  free(cache);
  coop_catalog_close(&cat);
  free(dir);
}

Test(linker, not_a_cooplink_symbol)
{
  void *ir;
  size_t size;
  coopt_kernel_ltoir(K_BOGUS, 90, &ir, &size);
  const char *opts[] = {"-arch=sm_90", "-cache=0"};
  coop_linker *l = NULL;
  cr_assert_eq(coopt_link_ltoir(NULL, opts, 2, ir, size, &l), COOP_ERROR_SPEC_INVALID);
  char *log = coopt_linker_log(l);
  cr_assert_not_null(strstr(log, "coop_block_reduce_avg_f32_t128_i4_raking: not a symbol cooplink can generate"), "%s",
                     log);
  free(log);
  coop_linker_destroy(&l);
  free(ir);
}

Test(linker, nvrtc_error_is_reported)
{
  const char *opts[] = {"-arch=sm_90", "-cache=0"};
  coop_linker *l = NULL;
  cr_assert_eq(coop_linker_create(&l, NULL, 2, opts), COOP_SUCCESS);
  const char *src = "this is not CUDA\n";
  cr_assert_eq(coop_linker_add_data(l, COOP_INPUT_CUDA, src, strlen(src), "bad.cu"), COOP_SUCCESS);
  cr_assert_eq(coop_linker_complete(l), COOP_ERROR_NVRTC);
  char *log = coopt_linker_log(l);
  cr_assert_not_null(strstr(log, "NVRTC log (bad.cu):\nbad.cu(1): error"), "%s", log);
  cr_assert_not_null(strstr(log, "bad.cu: NVRTC failed: NVRTC_ERROR_COMPILATION\n"), "%s", log);
  free(log);
  cr_assert_eq(coop_linker_complete(l), COOP_ERROR_STATE);
  coop_linker_destroy(&l);
}

Test(linker, arch_coverage)
{
  char *dir;
  coop_catalog *cat = open_ab(&dir);
  void *ir;
  size_t size;
  coopt_kernel_ltoir(K_BOTH, 80, &ir, &size);
  const char *opts[] = {"-arch=sm_80", "-cache=0"};
  coop_linker *l = NULL;
  cr_assert_eq(coopt_link_ltoir(cat, opts, 2, ir, size, &l), COOP_ERROR_BUNDLE_ARCH);
  char *msg = coopt_fmt("%s/fixture_b.json: archs: no payload at or below sm_80 (the bundle has sm_90)\n", dir);
  expect_log(l, msg);
  free(msg);
  coop_linker_destroy(&l);
  free(ir);
  /* sm_90 IR links for sm_100 */
  coopt_kernel_ltoir(K_BOTH, 100, &ir, &size);
  const char *opts2[] = {"-arch=sm_100", "-cache=0"};
  cr_assert_eq(coopt_link_ltoir(cat, opts2, 2, ir, size, &l), COOP_SUCCESS, "%s", coopt_linker_log(l));
  coop_linker_destroy(&l);
  free(ir);
  coop_catalog_close(&cat);
  free(dir);
}

Test(linker, tampered_payload_rejected)
{
  char *dir;
  coop_catalog *cat = open_ab(&dir);
  char *p = coopt_fmt("%s/fixture_a.sm_90.ltoir", dir);
  FILE *f = fopen(p, "r+b");
  fseek(f, 200, SEEK_SET);
  int c = fgetc(f);
  fseek(f, 200, SEEK_SET);
  fputc(c ^ 0x5a, f);
  fclose(f);
  void *ir;
  size_t size;
  coopt_kernel_ltoir(K_REDUCE, 90, &ir, &size);
  const char *opts[] = {"-arch=sm_90", "-cache=0"};
  coop_linker *l = NULL;
  cr_assert_eq(coopt_link_ltoir(cat, opts, 2, ir, size, &l), COOP_ERROR_BUNDLE_HASH);
  char *log = coopt_linker_log(l);
  char *head = coopt_fmt("%s: payload sha256 ", p);
  cr_assert(strncmp(log, head, strlen(head)) == 0, "%s", log);
  cr_assert_not_null(strstr(log, "does not match the manifest"));
  free(head);
  free(log);
  coop_linker_destroy(&l);
  free(ir);
  free(p);
  coop_catalog_close(&cat);
  free(dir);
}

Test(linker, ptx_cubin_fatbin_and_archive_inputs, .timeout = 600)
{
  char *dir;
  coop_catalog *cat = open_ab(&dir);
  char *work = coopt_tmpdir();
  char *cu = coopt_fmt("%s/k.cu", work);
  FILE *f = fopen(cu, "w");
  fputs(K_REDUCE, f);
  fclose(f);
  char *cmd = coopt_fmt("cd %s && %s/bin/nvcc -cubin -rdc=true -arch=sm_90 -o k.cubin k.cu && "
                        "%s/bin/nvcc -fatbin -rdc=true -gencode arch=compute_90,code=lto_90 -o k.fatbin k.cu && "
                        "%s/bin/nvcc -lib -rdc=true -gencode arch=compute_90,code=lto_90 -o k.a k.cu && "
                        "%s/bin/nvcc -ptx -rdc=true -arch=sm_90 -o k.ptx k.cu 2>&1",
                        work, COOP_CUDA_ROOT, COOP_CUDA_ROOT, COOP_CUDA_ROOT, COOP_CUDA_ROOT);
  char *out = NULL;
  cr_assert_eq(coopt_run(cmd, &out), 0, "%s", out);
  static const char *kinds[] = {"k.ptx", "k.cubin", "k.fatbin", "k.a"};
  for (int i = 0; i < 4; ++i) {
    const char *opts[] = {"-arch=sm_90", "-cache=0"};
    coop_linker *l = NULL;
    cr_assert_eq(coop_linker_create(&l, cat, 2, opts), COOP_SUCCESS);
    char *path = coopt_fmt("%s/%s", work, kinds[i]);
    cr_assert_eq(coop_linker_add_file(l, COOP_INPUT_AUTO, path), COOP_SUCCESS, "%s", kinds[i]);
    cr_assert_eq(coop_linker_complete(l), COOP_SUCCESS, "%s: %s", kinds[i], coopt_linker_log(l));
    coop_link_info info;
    coop_linker_get_info(l, &info);
    cr_assert_eq(info.n_bundles, 1, "%s", kinds[i]);
    const char *name;
    coop_linker_get_bundle(l, 0, &name);
    cr_assert_str_eq(name, "fixture_a");
    coop_linker_destroy(&l);
    free(path);
  }
  free(out);
  free(cmd);
  free(cu);
  free(work);
  coop_catalog_close(&cat);
  free(dir);
}

Test(linker, command_line, .timeout = 300)
{
  char *dir = coopt_catalog_with(AB);
  char *work = coopt_tmpdir();
  char *cu = coopt_fmt("%s/k.cu", work);
  FILE *f = fopen(cu, "w");
  fputs("#include \"fixture_a.h\"\n" K_REDUCE_BODY("k"), f);
  fclose(f);
  char *cmd = coopt_fmt("%s link --arch sm_90 --catalog %s --no-cache --verbose %s -o %s/k.cubin --ptx %s/k.ptx 2>&1",
                        COOPLINK_PATH, dir, cu, work, work);
  char *out = NULL;
  cr_assert_eq(coopt_run(cmd, &out), 0, "%s", out);
  cr_assert_not_null(strstr(out, "cooplink: catalog: 2 bundles, 4 symbols\ncooplink: bundles added (1): fixture_a\n"),
                     "%s", out);
  cr_assert_not_null(strstr(out, "cooplink: link time: "), "%s", out);
  cr_assert_not_null(strstr(out, ", 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"), "%s", out);
  cr_assert_not_null(strstr(out, "cooplink: kernel k: "), "%s", out);
  char *cubin = coopt_fmt("%s/k.cubin", work);
  cr_assert(coopt_exists(cubin));
  free(out);
  free(cmd);
  /* a failing link: exit 1, the reason, and no output file */
  cmd = coopt_fmt("%s link --arch sm_90 --catalog %s --no-cache --no-generate %s -o %s/m.cubin 2>&1", COOPLINK_PATH,
                  dir, cu, work);
  char *cu2 = coopt_fmt("%s/m.cu", work);
  f = fopen(cu2, "w");
  fputs(K_MISSING, f);
  fclose(f);
  free(cmd);
  cmd = coopt_fmt("%s link --arch sm_90 --catalog %s --no-cache --no-generate %s -o %s/m.cubin 2>&1", COOPLINK_PATH,
                  dir, cu2, work);
  cr_assert_eq(coopt_run(cmd, &out), 1, "%s", out);
  cr_assert_not_null(strstr(out, "cooplink: link failed: COOP_ERROR_SYMBOL_MISSING"), "%s", out);
  char *m = coopt_fmt("%s/m.cubin", work);
  cr_assert(!coopt_exists(m));
  free(m);
  free(out);
  free(cmd);
  free(cu2);
  free(cubin);
  free(cu);
  free(work);
  free(dir);
}

/* Two processes that generated overlapping sets of missing symbols leave two bundles defining the same
 * symbol in the generated folder; both are identical for that symbol, and links go on working. */
Test(linker, overlapping_generated_bundles_tolerated, .timeout = 300)
{
  char *cache = coopt_tmpdir();
  char *spec = coopt_fmt("%s/race.json", cache);
  FILE *f = fopen(spec, "w");
  fputs("{\"name\": \"race_other_process\", \"arch\": \"sm_90\", \"generate\": [\n"
        " {\"family\": \"block_reduce\", \"type\": \"f64\", \"op\": \"max\", \"threads\": 64, \"items\": 2,"
        "  \"algorithm\": \"raking\", \"variant\": \"full\"},\n"
        " {\"family\": \"block_scan\", \"type\": \"u8\", \"op\": \"sum\", \"threads\": 64, \"items\": 1,"
        "  \"algorithm\": \"raking\", \"variant\": \"exclusive\"}]}\n",
        f);
  fclose(f);
  char *cmd = coopt_fmt("%s --spec %s -o %s/generated 2>&1", COOPGEN_PATH, spec, cache);
  char *out = NULL;
  cr_assert_eq(coopt_run(cmd, &out), 0, "%s", out);
  char *cdir = coopt_fmt("-cache-dir=%s", cache);
  void *ir;
  size_t size;
  const char *k1 = "extern \"C\" __device__ void coop_block_reduce_max_f64_t64_i2_raking(const double *, double *, void *);\n"
                   "extern \"C\" __global__ void k(const double *in, double *out) {\n"
                   "  __shared__ __align__(16) unsigned char temp[2048];\n  double a[2] = {in[0], in[1]}, m;\n"
                   "  coop_block_reduce_max_f64_t64_i2_raking(a, &m, temp);\n  out[0] = m;\n}\n";
  coopt_kernel_ltoir(k1, 90, &ir, &size);
  const char *opts[] = {"-arch=sm_90", cdir, "-generate=0"};
  coop_linker *l = NULL;
  /* the symbol is found in the other process's bundle */
  cr_assert_eq(coopt_link_ltoir(NULL, opts, 3, ir, size, &l), COOP_SUCCESS, "%s", coopt_linker_log(l));
  coop_linker_destroy(&l);
  free(ir);
  /* now a bundle of this process defines the same symbol as well */
  char *cmd2 = coopt_fmt("%s --family block_reduce --type f64 --op max --threads 64 --items 2 --algorithm raking "
                         "--variant full --arch sm_90 --name race_this_process -o %s/generated 2>&1",
                         COOPGEN_PATH, cache);
  free(out);
  cr_assert_eq(coopt_run(cmd2, &out), 0, "%s", out);
  coopt_kernel_ltoir(K_MISSING, 90, &ir, &size);
  const char *opts2[] = {"-arch=sm_90", cdir, "-generate=0", "-lineinfo"};
  cr_assert_eq(coopt_link_ltoir(NULL, opts2, 4, ir, size, &l), COOP_SUCCESS, "%s", coopt_linker_log(l));
  coop_linker_destroy(&l);
  free(ir);
  free(out);
  free(cmd);
  free(cmd2);
  free(cdir);
  free(spec);
  free(cache);
}

Test(linker, missing_custom_operator_is_named, .timeout = 300)
{
  /* a bundle that calls the user's operator my_add, linked with code that does not define it */
  char *dir = coopt_tmpdir();
  coop_gen_group g[] = {{.family = "block_reduce", .type = "f32", .op = "custom:my_add", .threads = "128",
                         .items = "4", .algorithm = "raking", .variant = "full"}};
  coopt_generate(g, 1, "cop", "sm_90", dir);
  char *manifest = coopt_fmt("%s/cop.json", dir);
  const char *src =
    "#include \"cop.h\"\n"
    "extern \"C\" __global__ void k(const float *in, float *out) {\n"
    "  __shared__ __align__(16) unsigned char t[COOP_BLOCK_REDUCE_CUSTOM_MY_ADD_F32_T128_I4_RAKING_TEMP_BYTES];\n"
    "  float it[4] = {in[0], in[1], in[2], in[3]}, a;\n"
    "  coop_block_reduce_custom_my_add_f32_t128_i4_raking(it, &a, t);\n"
    "  out[0] = a;\n}\n";
  char *inc = coopt_fmt("-I%s", dir);
  const char *opts[] = {"-arch=sm_90", "-cache=0", "-generate=0", inc};
  coop_linker *l = NULL;
  cr_assert_eq(coop_linker_create(&l, NULL, 4, opts), COOP_SUCCESS);
  cr_assert_eq(coop_linker_add_file(l, COOP_INPUT_BUNDLE, manifest), COOP_SUCCESS);
  cr_assert_eq(coop_linker_add_data(l, COOP_INPUT_CUDA, src, strlen(src), "k.cu"), COOP_SUCCESS);
  cr_assert_eq(coop_linker_complete(l), COOP_ERROR_SYMBOL_MISSING);
  char *log = coopt_linker_log(l);
  cr_assert_not_null(strstr(log, "coop_block_reduce_custom_my_add_f32_t128_i4_raking (bundle cop) calls the operator "
                                 "'my_add', which no input defines: define extern \"C\" __device__ void my_add(const "
                                 "float *a, const float *b, float *out) in the code you link"),
                     "%s", log);
  free(log);
  coop_linker_destroy(&l);
  free(inc);
  free(manifest);
  free(dir);
}

/* message is a part of the log */
static void expect_in_log(const coop_linker *l, const char *message)
{
  char *log = coopt_linker_log(l);
  cr_assert_not_null(strstr(log, message), "'%s' is not in the log:\n%s", message, log);
  free(log);
}

Test(linker, user_types_generated_on_demand_and_checked, .timeout = 300)
{
  /* a kernel calling symbols of a user type that no catalog has: the link generates them for the type it
   * declares; undeclared, the link names the missing declaration; declared with another size, the bundle
   * generated for the first declaration is refused, naming both */
  char *cache = coopt_tmpdir();
  char *cdir = coopt_fmt("-cache-dir=%s", cache);
  const char *src =
    "struct __align__(8) pair { float x, y; };\n"
    "extern \"C\" __device__ void coop_warp_inclusive_scan_custom_pmax_pair_w16(const pair *, pair *, pair *, void *);\n"
    "extern \"C\" __device__ void pmax(const pair *a, const pair *b, pair *o) { *o = a->x > b->x ? *a : *b; }\n"
    "extern \"C\" __global__ void k(const pair *in, pair *out) {\n"
    "  pair v = in[threadIdx.x], r;\n"
    "  coop_warp_inclusive_scan_custom_pmax_pair_w16(&v, &r, 0, 0);\n"
    "  out[threadIdx.x] = r;\n}\n";
  const char *opts[] = {"-arch=sm_90", cdir, "-ptx"};
  coop_linker *l = NULL;
  cr_assert_eq(coop_linker_create(&l, NULL, 3, opts), COOP_SUCCESS);
  cr_assert_eq(coop_linker_add_data(l, COOP_INPUT_CUDA, src, strlen(src), "k.cu"), COOP_SUCCESS);
  cr_assert_eq(coop_linker_complete(l), COOP_ERROR_SPEC_INVALID);
  expect_in_log(l, "coop_warp_inclusive_scan_custom_pmax_pair_w16: unknown type 'pair'");
  coop_linker_destroy(&l);

  cr_assert_eq(coop_linker_create(&l, NULL, 3, opts), COOP_SUCCESS);
  cr_assert_eq(coop_linker_add_type(l, "pair", 8, 3), COOP_ERROR_INVALID_VALUE);
  expect_in_log(l, "coop_linker_add_type: type 'pair': alignment 3 is not a power of two from 1 to 256");
  cr_assert_eq(coop_linker_add_type(l, "pair", 12, 8), COOP_ERROR_INVALID_VALUE);
  expect_in_log(l, "size 12 is not a multiple of its alignment 8");
  cr_assert_eq(coop_linker_add_type(l, "pair", 8, 8), COOP_SUCCESS);
  cr_assert_eq(coop_linker_add_type(l, "pair", 8, 8), COOP_SUCCESS); /* the same declaration again */
  cr_assert_eq(coop_linker_add_type(l, "pair", 16, 8), COOP_ERROR_INVALID_VALUE);
  expect_in_log(l, "type 'pair' is already declared with size 8 and alignment 8");
  cr_assert_eq(coop_linker_add_data(l, COOP_INPUT_CUDA, src, strlen(src), "k.cu"), COOP_SUCCESS);
  cr_assert_eq(coop_linker_complete(l), COOP_SUCCESS, "%s", coopt_linker_log(l));
  coop_link_info info;
  coop_linker_get_info(l, &info);
  cr_assert_eq(info.n_generated, 1);
  const char *ptx;
  size_t n;
  cr_assert_eq(coop_linker_get_ptx(l, &ptx, &n), COOP_SUCCESS);
  cr_assert_null(strstr(ptx, ".func"), "the scan and the operator are inlined");
  cr_assert_not_null(strstr(ptx, "shfl.sync"), "a 16-lane warp scan shuffles");
  cr_assert_eq(coop_linker_add_type(l, "other", 4, 4), COOP_ERROR_STATE);
  coop_linker_destroy(&l);

  cr_assert_eq(coop_linker_create(&l, NULL, 3, opts), COOP_SUCCESS);
  cr_assert_eq(coop_linker_add_type(l, "pair", 16, 8), COOP_SUCCESS);
  cr_assert_eq(coop_linker_add_data(l, COOP_INPUT_CUDA, src, strlen(src), "k.cu"), COOP_SUCCESS);
  cr_assert_eq(coop_linker_complete(l), COOP_ERROR_TYPE_MISMATCH);
  expect_in_log(l, "was built for user type 'pair' of 8 bytes aligned to 8, but this link declares it as 16 bytes "
                "aligned to 8");
  coop_linker_destroy(&l);
  free(cdir);
  free(cache);
}
