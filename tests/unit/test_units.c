/* Catalogs of units (coopgen --catalog): the layout, determinism, what a link adds, and
 * coop_catalog_verify / `cooplink catalog verify` on tampered, truncated and foreign catalogs. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <nvJitLink.h>
#include <sys/wait.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cooplink/version.h>

#include "../support/lto.h"
#include "rt_util.h"
#include "util.h"

/* Three units: load direct, load striped (plain + guarded each), reduce sum raking at one item (full +
 * partial): 6 symbols. */
static const coop_gen_group GROUPS[] = {
  {.family = "block_load", .type = "f32", .threads = "32", .items = "1", .algorithm = "direct,striped"},
  {.family = "block_reduce", .type = "f32", .op = "sum", .threads = "32", .items = "1", .algorithm = "raking"},
};

static void build(const char *dir, int n_groups)
{
  coop_gen *gen = NULL;
  cr_assert_eq(coop_gen_create(&gen), COOP_SUCCESS);
  for (int i = 0; i < n_groups; ++i) cr_assert_eq(coop_gen_add_group(gen, &GROUPS[i]), COOP_SUCCESS);
  cr_assert_eq(coop_gen_set_name(gen, "units"), COOP_SUCCESS);
  cr_assert_eq(coop_gen_set_archs(gen, "sm_80"), COOP_SUCCESS);
  coop_result rc = coop_gen_write_catalog(gen, dir);
  char *log = coopt_gen_log(gen);
  cr_assert_eq(rc, COOP_SUCCESS, "%s", log);
  free(log);
  coop_gen_destroy(&gen);
}

/* One catalog for the whole process (a build compiles three units: a few seconds). */
static char *shared_catalog(void)
{
  static char *dir;
  if (!dir) {
    dir = coopt_tmpdir();
    build(dir, 2);
  }
  return dir;
}

static char *copy_of(const char *src)
{
  char *dir = coopt_tmpdir();
  char *cmd = coopt_fmt("cp -a '%s'/. '%s'/", src, dir);
  cr_assert_eq(system(cmd), 0);
  free(cmd);
  return dir;
}

static const char *const UNITS[] = {"block_load_f32_t32_i1_direct", "block_load_f32_t32_i1_striped",
                                    "block_reduce_sum_f32_t32_i1_raking"};

Test(units, layout)
{
  char *dir = shared_catalog();
  json_error_t je;
  char *ip = coopt_fmt("%s/index.json", dir);
  json_t *idx = json_load_file(ip, 0, &je);
  cr_assert_not_null(idx, "%s", je.text);
  cr_assert_str_eq(json_string_value(json_object_get(idx, "kind")), "cooplink-catalog");
  cr_assert_eq(json_integer_value(json_object_get(idx, "format")), 2);
  cr_assert_str_eq(json_string_value(json_object_get(json_object_get(idx, "header"), "file")), "units.h");
  json_t *bundles = json_object_get(idx, "bundles");
  cr_assert_eq(json_array_size(bundles), 3);
  static const size_t n_syms[] = {2, 2, 2};
  for (size_t i = 0; i < 3; ++i) {
    json_t *b = json_array_get(bundles, i);
    cr_assert_str_eq(json_string_value(json_object_get(b, "name")), UNITS[i]);
    cr_assert_eq(json_array_size(json_object_get(b, "symbols")), n_syms[i]);
    /* the unit's manifest: one fatbin payload covering the catalog's archs */
    char *mp = coopt_fmt("%s/%s.json", dir, UNITS[i]);
    json_t *m = json_load_file(mp, 0, &je);
    cr_assert_not_null(m);
    json_t *p = json_array_get(json_object_get(m, "payloads"), 0);
    cr_assert_eq(json_array_size(json_object_get(m, "payloads")), 1);
    cr_assert_str_eq(json_string_value(json_object_get(p, "kind")), "fatbin");
    cr_assert_str_eq(json_string_value(json_array_get(json_object_get(p, "archs"), 0)), "sm_80");
    char *fp = coopt_fmt("%s/%s.fatbin", dir, UNITS[i]);
    cr_assert(coopt_exists(fp));
    json_decref(m);
    free(mp);
    free(fp);
  }
  cr_assert_str_eq(json_string_value(json_array_get(json_object_get(json_array_get(bundles, 2), "symbols"), 0)),
                   "coop_block_reduce_sum_f32_t32_i1_raking");
  cr_assert_str_eq(json_string_value(json_array_get(json_object_get(json_array_get(bundles, 2), "symbols"), 1)),
                   "coop_block_reduce_sum_partial_f32_t32_i1_raking");
  /* catalog.json, the index, the header, and a manifest + fatbin per unit: nothing else */
  cr_assert_eq(coopt_count_entries(dir), 3 + 2 * 3);
  /* catalog.json: what a link reads at open */
  char *cp = coopt_fmt("%s/catalog.json", dir);
  json_t *cat = json_load_file(cp, 0, &je);
  cr_assert_not_null(cat);
  cr_assert_str_eq(json_string_value(json_object_get(cat, "units")), "instance");
  cr_assert_eq(json_integer_value(json_object_get(cat, "bundles")), 3);
  cr_assert_eq(json_integer_value(json_object_get(cat, "symbols")), 6);
  coopt_blob itext = {0};
  cr_assert_eq(coopt_read(ip, &itext), 0);
  char ihex[65];
  coopt_sha256_hex(itext.data, itext.size, ihex);
  cr_assert_str_eq(json_string_value(json_object_get(cat, "index_sha256")), ihex);
  json_decref(cat);
  free(itext.data);
  free(cp);
  /* a symbol's unit from its name */
  char unit[128];
  cr_assert_eq(coop_gen_unit_of_symbol("coop_block_reduce_sum_partial_f32_t32_i1_raking", 0, unit, sizeof unit), COOP_SUCCESS);
  cr_assert_str_eq(unit, UNITS[2]);
  cr_assert_eq(coop_gen_unit_of_symbol("coop_block_load_guarded_f32_t32_i1_striped", 0, unit, sizeof unit), COOP_SUCCESS);
  cr_assert_str_eq(unit, UNITS[1]);
  cr_assert_eq(coop_gen_unit_of_symbol("coop_block_frobnicate_f32_t32_i1_raking", 0, unit, sizeof unit),
               COOP_ERROR_SPEC_INVALID);
  json_decref(idx);
  free(ip);
}

Test(units, deterministic_wherever_built)
{
  char *a = shared_catalog();
  char *b = coopt_tmpdir();
  char *deeper = coopt_fmt("%s/some/other/place", b);
  build(deeper, 2);
  const char *files[] = {"catalog.json", "index.json", "units.h", NULL};
  for (int i = 0; files[i]; ++i) {
    char *x = coopt_fmt("%s/%s", a, files[i]), *y = coopt_fmt("%s/%s", deeper, files[i]);
    cr_assert(coopt_same_file(x, y), "%s differs", files[i]);
    free(x);
    free(y);
  }
  for (int i = 0; i < 3; ++i)
    for (int k = 0; k < 2; ++k) {
      char *x = coopt_fmt("%s/%s.%s", a, UNITS[i], k ? "fatbin" : "json");
      char *y = coopt_fmt("%s/%s.%s", deeper, UNITS[i], k ? "fatbin" : "json");
      cr_assert(coopt_same_file(x, y), "%s differs between two builds", x);
      free(x);
      free(y);
    }
  free(deeper);
  free(b);
}

Test(units, rebuild_drops_units_no_longer_listed)
{
  char *dir = copy_of(shared_catalog());
  build(dir, 1); /* without the reduce group */
  char *gone = coopt_fmt("%s/%s.fatbin", dir, UNITS[2]), *gone_m = coopt_fmt("%s/%s.json", dir, UNITS[2]);
  cr_assert(!coopt_exists(gone));
  cr_assert(!coopt_exists(gone_m));
  cr_assert_eq(coopt_count_entries(dir), 3 + 2 * 2);
  coop_catalog *cat = NULL;
  char *err = NULL;
  cr_assert_eq(coop_catalog_open(&cat, dir, &err), COOP_SUCCESS, "%s", err);
  size_t nb = 0, ns = 0;
  coop_catalog_get_counts(cat, &nb, &ns);
  cr_assert_eq(nb, 2);
  cr_assert_eq(ns, 4);
  coop_catalog_close(&cat);
  free(gone);
  free(gone_m);
  free(dir);
}

static const char KERNEL[] =
  "extern \"C\" __device__ void coop_block_load_f32_t32_i1_direct(const float *, float *, void *);\n"
  "extern \"C\" __device__ void coop_block_load_guarded_f32_t32_i1_striped(const float *, float *, int, const float *, "
  "void *);\n"
  "extern \"C\" __device__ void coop_block_reduce_sum_f32_t32_i1_raking(const float *, float *, void *);\n"
  "extern \"C\" __global__ void k(const float *in, float *out, int n) {\n"
  "  __shared__ __align__(16) unsigned char temp[4096];\n"
  "  float a, b, s, z = 0.0f;\n"
  "  coop_block_load_f32_t32_i1_direct(in, &a, 0);\n"
  "  coop_block_load_guarded_f32_t32_i1_striped(in + 32, &b, n, &z, 0);\n"
  "  a += b;\n"
  "  coop_block_reduce_sum_f32_t32_i1_raking(&a, &s, temp);\n"
  "  if (threadIdx.x == 0) *out = s;\n"
  "}\n";

Test(units, link_adds_only_the_units_called)
{
  coop_catalog *cat = NULL;
  char *err = NULL;
  cr_assert_eq(coop_catalog_open(&cat, shared_catalog(), &err), COOP_SUCCESS, "%s", err);
  void *ir;
  size_t size;
  coopt_kernel_ltoir(KERNEL, 80, &ir, &size);
  coop_linker *l = NULL;
  const char *opts[] = {"-arch=sm_80", "-cache=0", "-generate=0", "-ptx"};
  coop_result rc = coopt_link_ltoir(cat, opts, 4, ir, size, &l);
  char *log = coopt_linker_log(l);
  cr_assert_eq(rc, COOP_SUCCESS, "%s", log);
  free(log);
  coop_link_info info;
  cr_assert_eq(coop_linker_get_info(l, &info), COOP_SUCCESS);
  cr_assert_eq(info.n_bundles, 3);
  for (size_t i = 0; i < 3; ++i) {
    const char *name = NULL;
    cr_assert_eq(coop_linker_get_bundle(l, i, &name), COOP_SUCCESS);
    cr_assert_str_eq(name, UNITS[i]);
  }
  const char *ptx;
  size_t ptx_size;
  cr_assert_eq(coop_linker_get_ptx(l, &ptx, &ptx_size), COOP_SUCCESS);
  cr_assert_null(strstr(ptx, ".func"));
  cr_assert_null(strstr(ptx, "call"));
  coop_linker_destroy(&l);

  /* a kernel that calls one symbol adds one unit */
  static const char ONE[] = "extern \"C\" __device__ void coop_block_load_f32_t32_i1_striped(const float *, float *, "
                            "void *);\nextern \"C\" __global__ void k(const float *in, float *out) { float a; "
                            "coop_block_load_f32_t32_i1_striped(in, &a, 0); out[threadIdx.x] = a; }\n";
  free(ir);
  coopt_kernel_ltoir(ONE, 80, &ir, &size);
  cr_assert_eq(coopt_link_ltoir(cat, opts, 4, ir, size, &l), COOP_SUCCESS);
  cr_assert_eq(coop_linker_get_info(l, &info), COOP_SUCCESS);
  cr_assert_eq(info.n_bundles, 1);
  const char *name = NULL;
  cr_assert_eq(coop_linker_get_bundle(l, 0, &name), COOP_SUCCESS);
  cr_assert_str_eq(name, UNITS[1]);
  coop_linker_destroy(&l);
  free(ir);
  coop_catalog_close(&cat);
}

static void expect_verify(const char *dir, coop_result rc, const char *report)
{
  char *got = NULL;
  cr_assert_eq(coop_catalog_verify(dir, &got), rc, "%s", got);
  cr_assert_str_eq(got, report);
  free(got);
}

Test(units, verify_accepts_a_good_catalog)
{
  expect_verify(shared_catalog(), COOP_SUCCESS, "");
}

static void flip_byte(const char *path, long at)
{
  FILE *f = fopen(path, "r+b");
  cr_assert_not_null(f);
  cr_assert_eq(fseek(f, at, SEEK_SET), 0);
  int c = fgetc(f);
  cr_assert_eq(fseek(f, at, SEEK_SET), 0);
  fputc(c ^ 0x5a, f);
  fclose(f);
}

Test(units, verify_catches_a_tampered_payload)
{
  char *dir = copy_of(shared_catalog());
  char *fp = coopt_fmt("%s/%s.fatbin", dir, UNITS[1]);
  flip_byte(fp, 200);
  char *got = NULL;
  cr_assert_eq(coop_catalog_verify(dir, &got), COOP_ERROR_BUNDLE_HASH);
  char *want = coopt_fmt("%s: payload sha256 ", fp);
  cr_assert_eq(strncmp(got, want, strlen(want)), 0, "%s", got);
  char *manifest = coopt_fmt("(%s/%s.json, sha256)", dir, UNITS[1]);
  cr_assert_not_null(strstr(got, manifest), "%s", got);
  /* one problem, one line */
  cr_assert_eq(strchr(got, '\n'), got + strlen(got) - 1);
  free(got);
  free(manifest);
  free(want);
  /* the command line: exit 1, the problem named */
  char *cmd = coopt_fmt("'%s' catalog verify '%s' > '%s/out.txt' 2>&1", COOPLINK_PATH, dir, dir);
  int st = system(cmd);
  cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 1);
  coopt_blob out = {0};
  char *op = coopt_fmt("%s/out.txt", dir);
  cr_assert_eq(coopt_read(op, &out), 0);
  cr_assert_not_null(strstr(out.data, "COOP_ERROR_BUNDLE_HASH"));
  cr_assert_not_null(strstr(out.data, fp));
  free(out.data);
  free(op);
  free(cmd);
  free(fp);
  free(dir);
}

Test(units, verify_catches_a_truncated_payload)
{
  char *dir = copy_of(shared_catalog());
  char *fp = coopt_fmt("%s/%s.fatbin", dir, UNITS[0]);
  coopt_blob data = {0};
  cr_assert_eq(coopt_read(fp, &data), 0);
  cr_assert_eq(truncate(fp, (off_t)(data.size / 2)), 0);
  char *want = coopt_fmt("%s/%s.json: payloads[0].bytes: %s.fatbin has %zu bytes, the manifest says %zu (truncated or "
                         "changed)\n",
                         dir, UNITS[0], UNITS[0], data.size / 2, data.size);
  expect_verify(dir, COOP_ERROR_BUNDLE_HASH, want);
  free(want);
  free(data.data);
  free(fp);
  free(dir);
}

Test(units, verify_catches_a_changed_manifest)
{
  char *dir = copy_of(shared_catalog());
  char *mp = coopt_fmt("%s/%s.json", dir, UNITS[2]);
  coopt_manifest_set(mp, "generator", json_string("someone else"));
  char *got = NULL;
  cr_assert_eq(coop_catalog_verify(dir, &got), COOP_ERROR_BUNDLE_HASH);
  cr_assert_not_null(strstr(got, "is not the one index.json records"), "%s", got);
  cr_assert_eq(strncmp(got, mp, strlen(mp)), 0, "%s", got);
  free(got);
  free(mp);
  free(dir);
}

Test(units, verify_catches_another_cuda_major)
{
  char *dir = copy_of(shared_catalog());
  char *ip = coopt_fmt("%s/catalog.json", dir);
  coopt_manifest_set(ip, "cuda_version", json_string("12.8"));
  unsigned ma = 0, mi = 0;
  cr_assert_eq(nvJitLinkVersion(&ma, &mi), NVJITLINK_SUCCESS);
  char *want = coopt_fmt("%s: cuda_version: made with CUDA 12.8, this nvJitLink is %u.%u (the major must match)\n", ip,
                         ma, mi);
  expect_verify(dir, COOP_ERROR_BUNDLE_CUDA_MAJOR, want);
  /* and a link refuses it at open */
  coop_catalog *cat = (coop_catalog *)1;
  char *err = NULL;
  cr_assert_eq(coop_catalog_open(&cat, dir, &err), COOP_ERROR_BUNDLE_CUDA_MAJOR);
  cr_assert_str_eq(err, want);
  cr_assert_null(cat);
  free(err);
  free(want);
  free(ip);
  free(dir);
}

/* A catalog.json whose index_sha256 matches index.json again, after an edit of the index. */
static void rehash_index(const char *dir)
{
  char *ip = coopt_fmt("%s/index.json", dir), *cp = coopt_fmt("%s/catalog.json", dir);
  coopt_blob text = {0};
  cr_assert_eq(coopt_read(ip, &text), 0);
  char hex[65];
  coopt_sha256_hex(text.data, text.size, hex);
  coopt_manifest_set(cp, "index_sha256", json_string(hex));
  free(text.data);
  free(ip);
  free(cp);
}

Test(units, verify_catches_a_changed_index)
{
  char *dir = copy_of(shared_catalog());
  char *ip = coopt_fmt("%s/index.json", dir);
  coopt_manifest_set(ip, "name", json_string("other"));
  char *got = NULL;
  cr_assert_eq(coop_catalog_verify(dir, &got), COOP_ERROR_BUNDLE_HASH);
  char *want = coopt_fmt("%s: sha256 ", ip);
  cr_assert_eq(strncmp(got, want, strlen(want)), 0, "%s", got);
  cr_assert_not_null(strstr(got, "is not catalog.json's index_sha256"), "%s", got);
  free(got);
  free(want);
  free(ip);
  free(dir);
}

Test(units, link_finds_units_by_name_without_the_index)
{
  /* a link reads catalog.json and the units it calls, never the index: it works with the index gone */
  char *dir = copy_of(shared_catalog());
  char *ip = coopt_fmt("%s/index.json", dir);
  cr_assert_eq(unlink(ip), 0);
  coop_catalog *cat = NULL;
  char *err = NULL;
  cr_assert_eq(coop_catalog_open(&cat, dir, &err), COOP_SUCCESS, "%s", err);
  const char *b = NULL;
  cr_assert_eq(coop_catalog_find(cat, "coop_block_load_guarded_f32_t32_i1_striped", &b), COOP_SUCCESS);
  cr_assert_str_eq(b, UNITS[1]);
  cr_assert_eq(coop_catalog_find(cat, "coop_block_load_f32_t64_i1_striped", &b), COOP_ERROR_SYMBOL_MISSING);
  size_t nb = 0, ns = 0;
  coop_catalog_get_counts(cat, &nb, &ns);
  cr_assert_eq(nb, 3);
  cr_assert_eq(ns, 6);
  /* the list needs the index, and says it is missing */
  coop_bundle_info info;
  cr_assert_eq(coop_catalog_get_bundle_info(cat, 0, &info, &err), COOP_ERROR_IO);
  char *want = coopt_fmt("%s: cannot read the index\n", ip);
  cr_assert_str_eq(err, want);
  coop_catalog_close(&cat);
  free(want);
  free(err);
  free(ip);
  free(dir);
}

Test(units, verify_catches_a_missing_arch)
{
  char *dir = copy_of(shared_catalog());
  char *ip = coopt_fmt("%s/index.json", dir);
  json_t *archs = json_array();
  json_array_append_new(archs, json_string("sm_80"));
  json_array_append_new(archs, json_string("sm_90"));
  coopt_manifest_set(ip, "archs", archs);
  rehash_index(dir);
  char *got = NULL;
  cr_assert_eq(coop_catalog_verify(dir, &got), COOP_ERROR_BUNDLE_ARCH);
  char *line = coopt_fmt("%s/%s.json: payloads: no entry for sm_90, which index.json lists under archs\n", dir, UNITS[0]);
  cr_assert_eq(strncmp(got, line, strlen(line)), 0, "%s", got);
  free(got);
  free(line);
  free(ip);
  free(dir);
}

Test(units, failed_build_leaves_the_catalog_as_it_was)
{
  char *dir = copy_of(shared_catalog());
  char *ip = coopt_fmt("%s/catalog.json", dir);
  coopt_blob before = {0}, after = {0};
  cr_assert_eq(coopt_read(ip, &before), 0);
  int entries = coopt_count_entries(dir);
  coop_gen *gen = NULL;
  cr_assert_eq(coop_gen_create(&gen), COOP_SUCCESS);
  coop_gen_group g = {.family = "block_store", .type = "i32", .threads = "32", .items = "2"};
  cr_assert_eq(coop_gen_add_group(gen, &g), COOP_SUCCESS);
  cr_assert_eq(coop_gen_set_name(gen, "units"), COOP_SUCCESS);
  cr_assert_eq(coop_gen_set_archs(gen, "sm_80"), COOP_SUCCESS);
  setenv("CUDA_HOME", "/nonexistent-cuda", 1);
  coop_result rc = coop_gen_write_catalog(gen, dir);
  unsetenv("CUDA_HOME");
  cr_assert_eq(rc, COOP_ERROR_TOOLKIT);
  char *log = coopt_gen_log(gen);
  cr_assert_str_eq(log, "CCCL headers not found: /nonexistent-cuda/include/cccl/cub/cub.cuh is missing (set "
                        "CUDA_HOME to the toolkit)\n");
  free(log);
  coop_gen_destroy(&gen);
  cr_assert_eq(coopt_read(ip, &after), 0);
  cr_assert_eq(before.size, after.size);
  cr_assert_eq(memcmp(before.data, after.data, before.size), 0);
  cr_assert_eq(coopt_count_entries(dir), entries);
  free(before.data);
  free(after.data);
  free(ip);
  free(dir);
}

Test(units, unwritable_output_folder_is_named)
{
  coop_gen *gen = NULL;
  cr_assert_eq(coop_gen_create(&gen), COOP_SUCCESS);
  coop_gen_group g = {.family = "block_load", .type = "f32", .threads = "32", .items = "1", .algorithm = "direct",
                      .variant = "plain"};
  cr_assert_eq(coop_gen_add_group(gen, &g), COOP_SUCCESS);
  cr_assert_eq(coop_gen_set_name(gen, "units"), COOP_SUCCESS);
  cr_assert_eq(coop_gen_set_archs(gen, "sm_80"), COOP_SUCCESS);
  cr_assert_eq(coop_gen_write_catalog(gen, "/dev/null/catalog"), COOP_ERROR_IO);
  char *log = coopt_gen_log(gen);
  cr_assert_str_eq(log, "/dev/null/catalog: cannot create the output folder\n");
  free(log);
  coop_gen_destroy(&gen);
}

Test(units, one_symbol_per_unit)
{
  static const char spec[] =
    "{\"name\": \"units\", \"arch\": \"sm_80\", \"units\": \"symbol\", \"generate\": [{\"family\": \"block_load\", "
    "\"type\": \"f32\", \"threads\": 32, \"items\": 1, \"algorithm\": \"striped\"}]}";
  coop_gen *gen = NULL;
  cr_assert_eq(coop_gen_create(&gen), COOP_SUCCESS);
  cr_assert_eq(coop_gen_add_spec_string(gen, spec, sizeof spec - 1, "spec"), COOP_SUCCESS);
  size_t units = 0;
  cr_assert_eq(coop_gen_get_unit_count(gen, &units), COOP_SUCCESS);
  cr_assert_eq(units, 2);
  char *dir = coopt_tmpdir();
  coop_result rc = coop_gen_write_catalog(gen, dir);
  char *log = coopt_gen_log(gen);
  cr_assert_eq(rc, COOP_SUCCESS, "%s", log);
  free(log);
  coop_gen_destroy(&gen);
  char *cp = coopt_fmt("%s/catalog.json", dir);
  json_error_t je;
  json_t *cat = json_load_file(cp, 0, &je);
  cr_assert_str_eq(json_string_value(json_object_get(cat, "units")), "symbol");
  json_decref(cat);
  char unit[128];
  cr_assert_eq(coop_gen_unit_of_symbol("coop_block_load_guarded_f32_t32_i1_striped", 1, unit, sizeof unit), COOP_SUCCESS);
  cr_assert_str_eq(unit, "block_load_guarded_f32_t32_i1_striped");
  for (int guarded = 0; guarded < 2; ++guarded) {
    char *fp = coopt_fmt("%s/block_load_%sf32_t32_i1_striped.fatbin", dir, guarded ? "guarded_" : "");
    cr_assert(coopt_exists(fp), "%s", fp);
    free(fp);
  }
  /* a kernel calling the plain load adds that one unit, holding that one symbol */
  static const char ONE[] = "extern \"C\" __device__ void coop_block_load_f32_t32_i1_striped(const float *, float *, "
                            "void *);\nextern \"C\" __global__ void k(const float *in, float *out) { float a; "
                            "coop_block_load_f32_t32_i1_striped(in, &a, 0); out[threadIdx.x] = a; }\n";
  coop_catalog *c = NULL;
  char *err = NULL;
  cr_assert_eq(coop_catalog_open(&c, dir, &err), COOP_SUCCESS, "%s", err);
  void *ir;
  size_t size;
  coopt_kernel_ltoir(ONE, 80, &ir, &size);
  coop_linker *l = NULL;
  const char *opts[] = {"-arch=sm_80", "-cache=0", "-generate=0"};
  cr_assert_eq(coopt_link_ltoir(c, opts, 3, ir, size, &l), COOP_SUCCESS);
  coop_link_info info;
  coop_linker_get_info(l, &info);
  cr_assert_eq(info.n_bundles, 1);
  const char *name = NULL;
  cr_assert_eq(coop_linker_get_bundle(l, 0, &name), COOP_SUCCESS);
  cr_assert_str_eq(name, "block_load_f32_t32_i1_striped");
  coop_linker_destroy(&l);
  coop_catalog_close(&c);
  free(ir);
  free(cp);
  free(dir);
}

Test(units, units_setting_is_checked)
{
  static const char spec[] = "{\"name\": \"u\", \"units\": \"family\", \"generate\": []}";
  coop_gen *gen = NULL;
  cr_assert_eq(coop_gen_create(&gen), COOP_SUCCESS);
  cr_assert_eq(coop_gen_add_spec_string(gen, spec, sizeof spec - 1, "spec"), COOP_ERROR_SPEC_INVALID);
  char *log = coopt_gen_log(gen);
  cr_assert_str_eq(log, "spec:1:24: 'units' must be instance or symbol\n");
  free(log);
  coop_gen_destroy(&gen);
}

static int slurp(const char *path, char **data, size_t *size)
{
  FILE *f = fopen(path, "rb");
  if (!f) return -1;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  *data = malloc((size_t)n + 1);
  *size = fread(*data, 1, (size_t)n, f);
  (*data)[*size] = 0;
  fclose(f);
  return *size == (size_t)n ? 0 : -1;
}

/* Resolution without a link (the Python layer's path): the unit of each declared symbol, its payload for
 * the arch (the very bytes of the unit's fatbin) and its manifest; the errors of each call. */
Test(units, resolve_without_linking)
{
  const char *dir = shared_catalog();
  coop_catalog *c = NULL;
  char *err = NULL;
  cr_assert_eq(coop_catalog_open(&c, dir, &err), COOP_SUCCESS, "%s", err);
  const char *opts[] = {"-arch=sm_90", "-cache=0", "-generate=0"};
  coop_linker *l = NULL;
  cr_assert_eq(coop_linker_create(&l, c, 3, opts), COOP_SUCCESS);
  cr_assert_eq(coop_linker_add_symbol(l, "not_a_coop_symbol"), COOP_ERROR_INVALID_VALUE);
  cr_assert_eq(coop_linker_add_symbol(l, "coop_block_load_guarded_f32_t32_i1_striped"), COOP_SUCCESS);
  cr_assert_eq(coop_linker_add_symbol(l, "coop_block_load_f32_t32_i1_striped"), COOP_SUCCESS);
  cr_assert_eq(coop_linker_add_symbol(l, "coop_block_reduce_sum_partial_f32_t32_i1_raking"), COOP_SUCCESS);
  const void *data;
  size_t size;
  coop_input_kind kind;
  cr_assert_eq(coop_linker_get_payload(l, 0, &data, &size, &kind), COOP_ERROR_STATE);
  cr_assert_eq(coop_linker_resolve(l), COOP_SUCCESS);
  coop_link_info info;
  coop_linker_get_info(l, &info);
  cr_assert_eq(info.n_bundles, 2); /* the striped load's unit (both symbols) and the reduce's */
  for (size_t i = 0; i < 2; ++i) {
    const char *name, *manifest;
    cr_assert_eq(coop_linker_get_bundle(l, i, &name), COOP_SUCCESS);
    cr_assert_eq(coop_linker_get_manifest(l, i, &manifest), COOP_SUCCESS);
    char *want = coopt_fmt("%s/%s.json", dir, name);
    cr_assert_str_eq(manifest, want);
    free(want);
    cr_assert_eq(coop_linker_get_payload(l, i, &data, &size, &kind), COOP_SUCCESS);
    cr_assert_eq(kind, COOP_INPUT_FATBIN);
    char *path = coopt_fmt("%s/%s.fatbin", dir, name), *bytes = NULL;
    size_t n = 0;
    cr_assert_eq(slurp(path, &bytes, &n), 0);
    cr_assert_eq(n, size);
    cr_assert(memcmp(bytes, data, n) == 0);
    free(bytes);
    free(path);
  }
  cr_assert_eq(coop_linker_get_payload(l, 2, &data, &size, &kind), COOP_ERROR_INVALID_VALUE);
  cr_assert_eq(coop_linker_resolve(l), COOP_ERROR_STATE);
  cr_assert_eq(coop_linker_add_symbol(l, "coop_block_load_f32_t32_i1_direct"), COOP_ERROR_STATE);
  coop_linker_destroy(&l);

  /* a symbol the catalog lacks, with generation off: named in the log */
  cr_assert_eq(coop_linker_create(&l, c, 3, opts), COOP_SUCCESS);
  cr_assert_eq(coop_linker_add_symbol(l, "coop_block_load_f32_t64_i1_direct"), COOP_SUCCESS);
  cr_assert_eq(coop_linker_resolve(l), COOP_ERROR_SYMBOL_MISSING);
  char *log = coopt_linker_log(l);
  cr_assert(strstr(log, "  coop_block_load_f32_t64_i1_direct\n"), "%s", log);
  free(log);
  coop_linker_destroy(&l);
  coop_catalog_close(&c);
}

Test(units, environment)
{
  setenv("COOPLINK_CACHE", "/tmp/cooplink-env-test", 1);
  coop_environment env;
  cr_assert_eq(coop_get_environment(NULL), COOP_ERROR_INVALID_VALUE);
  cr_assert_eq(coop_get_environment(&env), COOP_SUCCESS);
  cr_assert_str_eq(env.version, coop_version_string());
  cr_assert_str_eq(env.cache_dir, "/tmp/cooplink-env-test");
  cr_assert(env.toolkit_root && env.toolkit_root[0] == '/');
  int major = 0, minor = 0;
  cr_assert_eq(nvJitLinkVersion((unsigned *)&major, (unsigned *)&minor), NVJITLINK_SUCCESS);
  cr_assert_eq(env.nvjitlink_major, major);
  cr_assert_eq(env.nvjitlink_minor, minor);
  unsetenv("COOPLINK_CACHE");
}

/* coopgen --symbols: a file of names, as a link generating on demand would take them; a bad line named. */
Test(units, coopgen_symbols_file)
{
  char *dir = coopt_tmpdir(), *list = coopt_fmt("%s/symbols.txt", dir), *bad = coopt_fmt("%s/bad.txt", dir);
  FILE *f = fopen(list, "w");
  fputs("# comment\ncoop_block_load_f32_t32_i1_direct\n\ncoop_block_reduce_max_f32_t32_i1_raking\n", f);
  fclose(f);
  f = fopen(bad, "w");
  fputs("coop_block_load_f32_t32_i1_direct\ncoop_block_nope_f32\n", f);
  fclose(f);
  char *cmd = coopt_fmt("'%s' --symbols '%s' --catalog --arch sm_80 --name syms -o '%s/cat' > /dev/null",
                        COOPGEN_PATH, list, dir);
  cr_assert_eq(system(cmd), 0);
  free(cmd);
  char *index = coopt_fmt("%s/cat/block_reduce_max_f32_t32_i1_raking.json", dir);
  cr_assert_eq(access(index, F_OK), 0);
  free(index);
  char *out = coopt_fmt("%s/err.txt", dir);
  cmd = coopt_fmt("'%s' --symbols '%s' -o '%s/x' 2> '%s'", COOPGEN_PATH, bad, dir, out);
  cr_assert_neq(system(cmd), 0);
  char *text = NULL;
  size_t n = 0;
  cr_assert_eq(slurp(out, &text, &n), 0);
  cr_assert(strstr(text, "bad.txt:2: 'coop_block_nope_f32' is not a symbol coopgen can make\n"), "%s", text);
  free(text);
  free(cmd);
  free(out);
  free(list);
  free(bad);
  free(dir);
}
