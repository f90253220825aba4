/* Bundles: the issue's exact command line, determinism, manifest against header and payloads, and
 * atomic writes (a failing run leaves nothing, and an earlier bundle intact). */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/common.h"
#include <cooplink/version.h>
#include "../support/lto.h"
#include "util.h"

static const char *FILES[] = {"demo.json", "demo.h", "demo.sm_80.ltoir", "demo.sm_90.ltoir"};

static char *generate_demo(const char *dir)
{
  char *cmd = coopt_fmt("%s --family block_reduce --type f32,f64 --op sum,max --threads 256,32x4x2 --items 4 "
                        "--algorithm warp_reductions --arch sm_90,sm_80 --name demo -o %s 2>&1",
                        COOPGEN_PATH, dir);
  char *out = NULL;
  int rc = coopt_run(cmd, &out);
  cr_assert_eq(rc, 0, "%s", out);
  free(cmd);
  return out;
}

Test(bundle, issue_command_line_and_determinism, .timeout = 300)
{
  char *a = coopt_tmpdir(), *b = coopt_tmpdir();
  char *out = generate_demo(a), *want = coopt_fmt("coopgen: wrote 16 symbols to %s\n", a);
  cr_assert_str_eq(out, want);
  free(want);
  free(generate_demo(b));
  cr_assert_eq(coopt_count_entries(a), 4, "exactly the manifest, the header and two payloads");
  for (int i = 0; i < 4; ++i) {
    char *pa = coopt_fmt("%s/%s", a, FILES[i]), *pb = coopt_fmt("%s/%s", b, FILES[i]);
    cr_assert(coopt_same_file(pa, pb), "%s differs between two runs", FILES[i]);
    free(pa);
    free(pb);
  }
  char *mp = coopt_fmt("%s/demo.json", a);
  json_error_t je;
  json_t *m = json_load_file(mp, 0, &je);
  cr_assert_not_null(m, "%s", je.text);
  json_t *syms = json_object_get(m, "symbols");
  cr_assert_eq(json_array_size(syms), 16);
  static const char *expect[] = {
    "coop_block_reduce_max_f32_t256_i4_warp_reductions",
    "coop_block_reduce_max_f32_t32x4x2_i4_warp_reductions",
    "coop_block_reduce_max_f64_t256_i4_warp_reductions",
    "coop_block_reduce_max_f64_t32x4x2_i4_warp_reductions",
    "coop_block_reduce_max_partial_f32_t256_i1_warp_reductions",
    "coop_block_reduce_max_partial_f32_t32x4x2_i1_warp_reductions",
    "coop_block_reduce_max_partial_f64_t256_i1_warp_reductions",
    "coop_block_reduce_max_partial_f64_t32x4x2_i1_warp_reductions",
    "coop_block_reduce_sum_f32_t256_i4_warp_reductions",
    "coop_block_reduce_sum_f32_t32x4x2_i4_warp_reductions",
    "coop_block_reduce_sum_f64_t256_i4_warp_reductions",
    "coop_block_reduce_sum_f64_t32x4x2_i4_warp_reductions",
    "coop_block_reduce_sum_partial_f32_t256_i1_warp_reductions",
    "coop_block_reduce_sum_partial_f32_t32x4x2_i1_warp_reductions",
    "coop_block_reduce_sum_partial_f64_t256_i1_warp_reductions",
    "coop_block_reduce_sum_partial_f64_t32x4x2_i1_warp_reductions",
  };
  for (size_t i = 0; i < 16; ++i)
    cr_assert_str_eq(json_string_value(json_object_get(json_array_get(syms, i), "name")), expect[i]);
  json_t *s0 = json_array_get(syms, 8);
  cr_assert_str_eq(json_string_value(json_object_get(s0, "signature")),
                   "void coop_block_reduce_sum_f32_t256_i4_warp_reductions(const float *items, float *aggregate, "
                   "void *temp)");
  json_decref(m);
  free(mp);
  free(out);
  free(a);
  free(b);
}

/* Every symbol of the manifest has its declaration and its two constants in the header, with the
 * manifest's values; the hashes of header and payloads are right. */
Test(bundle, manifest_agrees_with_header_and_payloads, .timeout = 300)
{
  char *dir = coopt_tmpdir();
  coop_gen_group groups[] = {
    {.family = "block_load", .type = "f16,i64", .threads = "65,16x16", .items = "3", .algorithm = "direct,transpose"},
    {.family = "block_scan", .type = "u8,bf16", .op = "sum,min", .threads = "7", .items = "4",
     .algorithm = "raking,warp_scans"},
  };
  coopt_generate(groups, 2, "mix", "sm_75", dir);

  coopt_blob header = {0}, payload = {0};
  char *hp = coopt_fmt("%s/mix.h", dir), *pp = coopt_fmt("%s/mix.sm_75.ltoir", dir), *mp = coopt_fmt("%s/mix.json", dir);
  cr_assert_eq(coopt_read(hp, &header), 0);
  cr_assert_eq(coopt_read(pp, &payload), 0);
  json_error_t je;
  json_t *m = json_load_file(mp, 0, &je);
  cr_assert_not_null(m);
  cr_assert_eq(json_integer_value(json_object_get(m, "format")), 2);
  cr_assert_str_eq(json_string_value(json_object_get(m, "cooplink_version")), coop_version_string());
  cr_assert_str_eq(json_string_value(json_object_get(m, "cuda_version")), "13.0");
  char hex[65];
  coop__sha256_hex(header.data, header.size, hex);
  cr_assert_str_eq(json_string_value(json_object_get(json_object_get(m, "header"), "sha256")), hex);
  json_t *pay = json_array_get(json_object_get(m, "payloads"), 0);
  coop__sha256_hex(payload.data, payload.size, hex);
  cr_assert_str_eq(json_string_value(json_object_get(pay, "sha256")), hex);
  cr_assert_eq(json_integer_value(json_object_get(pay, "bytes")), (json_int_t)payload.size);

  json_t *syms = json_object_get(m, "symbols");
  /* load: 2 types x 2 shapes x 2 algos x 2 variants; scan: 2 types x 2 ops x 2 algos x 4 variants */
  cr_assert_eq(json_array_size(syms), 16 + 32);
  size_t i;
  json_t *o;
  int zero_temp = 0;
  json_array_foreach(syms, i, o)
  {
    const char *name = json_string_value(json_object_get(o, "name"));
    char upper[200];
    size_t k = 0;
    for (; name[k]; ++k) upper[k] = (char)(name[k] >= 'a' && name[k] <= 'z' ? name[k] - 32 : name[k]);
    upper[k] = 0;
    long long bytes = json_integer_value(json_object_get(o, "temp_bytes"));
    long long align = json_integer_value(json_object_get(o, "temp_align"));
    char *d1 = coopt_fmt("#define %s_TEMP_BYTES %lld\n", upper, bytes);
    char *d2 = coopt_fmt("#define %s_TEMP_ALIGN %lld\n", upper, align);
    char *decl = coopt_fmt("__device__ %s;\n", json_string_value(json_object_get(o, "signature")));
    cr_assert_not_null(strstr(header.data, d1), "missing %s", d1);
    cr_assert_not_null(strstr(header.data, d2), "missing %s", d2);
    cr_assert_not_null(strstr(header.data, decl), "missing %s", decl);
    cr_assert(align >= 1 && (align & (align - 1)) == 0);
    zero_temp += bytes == 0;
    /* direct loads have CUB's empty TempStorage: reported as 0 bytes and a nullable temp */
    int direct = strstr(name, "coop_block_load") && strstr(name, "_direct");
    cr_assert_eq(bytes == 0, direct, "%s: %lld bytes", name, bytes);
    free(d1);
    free(d2);
    free(decl);
  }
  cr_assert_eq(zero_temp, 8);
  json_decref(m);
  free(header.data);
  free(payload.data);
  free(hp);
  free(pp);
  free(mp);
  free(dir);
}

/* A failing run writes nothing and leaves an earlier bundle of the same name as it was. */
Test(bundle, failed_run_leaves_earlier_bundle_intact, .timeout = 300)
{
  char *dir = coopt_tmpdir();
  coop_gen *gen;
  coop_gen_group g = {.family = "block_store", .type = "i32", .threads = "32", .items = "2"};
  cr_assert_eq(coop_gen_create(&gen), COOP_SUCCESS);
  cr_assert_eq(coop_gen_add_group(gen, &g), COOP_SUCCESS);
  cr_assert_eq(coop_gen_set_name(gen, "keep"), COOP_SUCCESS);
  cr_assert_eq(coop_gen_set_archs(gen, "sm_80"), COOP_SUCCESS);
  cr_assert_eq(coop_gen_write(gen, dir), COOP_SUCCESS);
  char *mp = coopt_fmt("%s/keep.json", dir);
  coopt_blob before = {0}, after = {0};
  cr_assert_eq(coopt_read(mp, &before), 0);
  /* Same bundle, more symbols, but the toolkit cannot be found: the compile fails. */
  coop_gen_group g2 = {.family = "block_store", .type = "i64", .threads = "32", .items = "2"};
  cr_assert_eq(coop_gen_add_group(gen, &g2), COOP_SUCCESS);
  setenv("CUDA_HOME", "/nonexistent-cuda", 1);
  cr_assert_eq(coop_gen_write(gen, dir), COOP_ERROR_TOOLKIT);
  char *log = coopt_gen_log(gen);
  cr_assert_str_eq(log, "CCCL headers not found: /nonexistent-cuda/include/cccl/cub/cub.cuh is missing (set "
                        "CUDA_HOME to the toolkit)\n");
  free(log);
  unsetenv("CUDA_HOME");
  cr_assert_eq(coopt_count_entries(dir), 3, "manifest, header, one payload; no temporary files");
  cr_assert_eq(coopt_read(mp, &after), 0);
  cr_assert(before.size == after.size && memcmp(before.data, after.data, before.size) == 0);
  /* An output path that is a file: an I/O error naming it, nothing created. */
  char *file_as_dir = coopt_fmt("%s/keep.h/sub", dir);
  cr_assert_eq(coop_gen_write(gen, file_as_dir), COOP_ERROR_IO);
  log = coopt_gen_log(gen);
  char *expect = coopt_fmt("%s: cannot create the output folder\n", file_as_dir);
  cr_assert_str_eq(log, expect);
  cr_assert_eq(coopt_count_entries(dir), 3);
  free(expect);
  free(log);
  free(file_as_dir);
  coop_gen_destroy(&gen);
  free(before.data);
  free(after.data);
  free(mp);
  free(dir);
}
