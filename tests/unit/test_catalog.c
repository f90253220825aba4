/* Catalogs: every verification failure has its own code and a message naming the file and field. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../support/lto.h"
#include "rt_util.h"
#include "util.h"
#include <cooplink/version.h>

static const char *const AB[] = {"fixture_a", "fixture_b", NULL};
static const char *const A[] = {"fixture_a", NULL};

static void expect_open(const char *dir, coop_result rc, const char *message)
{
  coop_catalog *cat = (coop_catalog *)1;
  char *err = NULL;
  cr_assert_eq(coop_catalog_open(&cat, dir, &err), rc);
  cr_assert_null(cat);
  cr_assert_str_eq(err, message);
  free(err);
}

Test(catalog, open_index_find)
{
  char *dir = coopt_catalog_with(AB);
  coop_catalog *cat = NULL;
  char *err = NULL;
  cr_assert_eq(coop_catalog_open(&cat, dir, &err), COOP_SUCCESS, "%s", err);
  size_t nb = 0, ns = 0;
  cr_assert_eq(coop_catalog_get_counts(cat, &nb, &ns), COOP_SUCCESS);
  cr_assert_eq(nb, 2);
  cr_assert_eq(ns, 4);
  const char *b = NULL;
  cr_assert_eq(coop_catalog_find(cat, "coop_block_reduce_sum_partial_f32_t128_i1_raking", &b), COOP_SUCCESS);
  cr_assert_str_eq(b, "fixture_a");
  cr_assert_eq(coop_catalog_find(cat, "coop_block_inclusive_scan_sum_i32_t128_i4_warp_scans", &b), COOP_SUCCESS);
  cr_assert_str_eq(b, "fixture_b");
  cr_assert_eq(coop_catalog_find(cat, "coop_block_reduce_sum_f64_t128_i4_raking", &b), COOP_ERROR_SYMBOL_MISSING);
  cr_assert_eq(coop_catalog_close(&cat), COOP_SUCCESS);
  cr_assert_null(cat);
  free(dir);
}

Test(catalog, missing_folder)
{
  expect_open("/nonexistent/catalog", COOP_ERROR_IO,
              "/nonexistent/catalog: cannot open the catalog folder: No such file or directory\n");
}

Test(catalog, malformed_manifest)
{
  char *dir = coopt_catalog_with(A);
  char *m = coopt_fmt("%s/fixture_a.json", dir);
  FILE *f = fopen(m, "w");
  fputs("{\"format\": 1,", f);
  fclose(f);
  char *msg = coopt_fmt("%s:1:13: not a valid manifest: string or '}' expected near end of file\n", m);
  expect_open(dir, COOP_ERROR_BUNDLE_CORRUPT, msg);
  free(msg);
  free(m);
  free(dir);
}

/* Sets one manifest field of fixture_a and expects the open to fail with code and message; message is a
 * format with the manifest path as its first %s (and COOP_VERSION_STRING as a second where used). */
static void expect_field(const char *key, json_t *value, coop_result rc, const char *fmt)
{
  char *dir = coopt_catalog_with(A);
  char *m = coopt_fmt("%s/fixture_a.json", dir);
  coopt_manifest_set(m, key, value);
  char *msg = coopt_fmt(fmt, m, coop_version_string());
  expect_open(dir, rc, msg);
  free(msg);
  free(m);
  free(dir);
}

Test(catalog, format_version)
{
  expect_field("format", json_integer(3), COOP_ERROR_BUNDLE_FORMAT,
               "%s: format: version 3 is not supported (this cooplink reads formats 1 and 2)\n");
}

Test(catalog, cooplink_version)
{
  expect_field("cooplink_version", json_string("1.0.0"), COOP_ERROR_BUNDLE_VERSION,
               "%s: cooplink_version: 1.0.0 is not readable by cooplink %s (same major, minor not newer)\n");
}

Test(catalog, cuda_major)
{
  expect_field("cuda_version", json_string("12.4"), COOP_ERROR_BUNDLE_CUDA_MAJOR,
               "%s: cuda_version: made with CUDA 12.4, this nvJitLink is 13.0 (the major must match)\n");
}

Test(catalog, producer_newer)
{
  expect_field("cuda_version", json_string("13.9"), COOP_ERROR_BUNDLE_PRODUCER_NEWER,
               "%s: cuda_version: made with CUDA 13.9, newer than this nvJitLink 13.0\n");
}

Test(catalog, name_mismatch)
{
  expect_field("name", json_string("other"), COOP_ERROR_BUNDLE_CORRUPT,
               "%s: name: 'other' does not match the file name\n");
}

Test(catalog, payload_missing)
{
  char *dir = coopt_catalog_with(A);
  char *p = coopt_fmt("%s/fixture_a.sm_90.ltoir", dir);
  cr_assert_eq(unlink(p), 0);
  char *msg = coopt_fmt("%s/fixture_a.json: payloads[1].file: fixture_a.sm_90.ltoir is missing\n", dir);
  expect_open(dir, COOP_ERROR_BUNDLE_CORRUPT, msg);
  free(msg);
  free(p);
  free(dir);
}

Test(catalog, payload_truncated)
{
  char *dir = coopt_catalog_with(A);
  char *p = coopt_fmt("%s/fixture_a.sm_80.ltoir", dir);
  coopt_blob b = {0};
  cr_assert_eq(coopt_read(p, &b), 0);
  cr_assert_eq(truncate(p, (off_t)(b.size / 2)), 0);
  char *msg = coopt_fmt("%s/fixture_a.json: payloads[0].bytes: fixture_a.sm_80.ltoir has %zu bytes, the manifest says "
                        "%zu (truncated or changed)\n",
                        dir, b.size / 2, b.size);
  expect_open(dir, COOP_ERROR_BUNDLE_HASH, msg);
  free(msg);
  free(b.data);
  free(p);
  free(dir);
}

Test(catalog, duplicate_symbol)
{
  char *dir = coopt_catalog_with(A);
  char *cmd = coopt_fmt("cd %s && for f in fixture_a.*; do cp $f fixture_c${f#fixture_a}; done", dir);
  char *out = NULL;
  cr_assert_eq(coopt_run(cmd, &out), 0, "%s", out);
  char *m = coopt_fmt("%s/fixture_c.json", dir);
  coopt_manifest_set(m, "name", json_string("fixture_c"));
  /* the payload names still point at fixture_a's files, which exist */
  char *msg = coopt_fmt("%s: symbol coop_block_load_f32_t128_i4_striped is defined by two bundles: %s/fixture_a.json and "
                        "%s/fixture_c.json\n",
                        dir, dir, dir);
  expect_open(dir, COOP_ERROR_SYMBOL_DUPLICATE, msg);
  free(msg);
  free(m);
  free(out);
  free(cmd);
  free(dir);
}

/* ---- found by fuzzing (tests/fuzz/regressions/manifest, catalog): an arch that is not a string crashed ---- */

Test(catalog, fatbin_arch_not_a_string)
{
  expect_field("payloads",
               json_pack("[{s:s, s:[i], s:s, s:i, s:s}]", "kind", "fatbin", "archs", 90, "file", "fixture_a.sm_80.ltoir",
                         "bytes", 1, "sha256", "0000000000000000000000000000000000000000000000000000000000000000"),
               COOP_ERROR_BUNDLE_CORRUPT,
               "%s: payloads[0]: needs kind (ltoir with arch sm_XX, or fatbin with archs), file, bytes and sha256\n");
}

Test(catalog, index_arch_not_a_string)
{
  char *dir = coopt_tmpdir(), *path = coopt_fmt("%s/index.json", dir);
  FILE *f = fopen(path, "w");
  cr_assert_not_null(f);
  fprintf(f, "{\"format\": 2, \"kind\": \"cooplink-catalog\", \"cooplink_version\": \"%s\", \"cuda_version\": \"13.0\", "
             "\"header\": {\"file\": \"c.h\", \"sha256\": \"%064d\"}, \"archs\": [null], \"bundles\": []}", COOP_VERSION_STRING, 0);
  fclose(f);
  char *msg = coopt_fmt("%s: archs[0]: not sm_XX\n", path);
  expect_open(dir, COOP_ERROR_BUNDLE_CORRUPT, msg);
  free(msg);
  free(path);
  free(dir);
}
