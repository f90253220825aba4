/* The catalog loader: coop_catalog_open on a folder (catalog.json, index.json, manifests, payloads: the
 * input's files, "=== NAME" lines, fuzz_util.h), its listing and look-ups as `cooplink catalog list`
 * and a link make them, and coop_catalog_verify. */
#include <stdlib.h>
#include <string.h>

#include <cooplink/cooplink.h>
#include "fuzz_util.h"

static int open_code(coop_result rc)
{
  return rc == COOP_SUCCESS || rc == COOP_ERROR_IO || rc == COOP_ERROR_OUT_OF_MEMORY || rc == COOP_ERROR_BUNDLE_CORRUPT ||
         rc == COOP_ERROR_BUNDLE_FORMAT || rc == COOP_ERROR_BUNDLE_VERSION || rc == COOP_ERROR_BUNDLE_CUDA_MAJOR ||
         rc == COOP_ERROR_BUNDLE_PRODUCER_NEWER || rc == COOP_ERROR_BUNDLE_HASH || rc == COOP_ERROR_SYMBOL_DUPLICATE;
}

/* rc is a code the header lists for the call (extra: one more); a failure of a call with a message
 * (has_msg) names its cause in err */
static void check(const char *what, coop_result rc, coop_result extra, int has_msg, const char *err)
{
  if ((!open_code(rc) && rc != extra) || (rc && has_msg && (!err || !err[0]))) {
    fprintf(stderr, "%s: %s, message '%s'\n", what, coop_result_name(rc), err ? err : "(none)");
    abort();
  }
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
  const char *dir = fz_scratch();
  char first[65];
  fz_write_files(dir, data, size, first);
  coop_catalog *c = NULL;
  char *err = NULL;
  coop_result rc = coop_catalog_open(&c, dir, &err);
  check("coop_catalog_open", rc, COOP_SUCCESS, 1, err);
  free(err);
  if (!rc) {
    /* a symbol by name, before the index is read (units found from the name), then the listing */
    const char *bundle = NULL;
    rc = coop_catalog_find(c, "coop_block_reduce_sum_f32_t32_i1_raking", &bundle);
    check("coop_catalog_find", rc, COOP_ERROR_SYMBOL_MISSING, 0, NULL);
    size_t nb = 0, ns = 0;
    coop_catalog_get_counts(c, &nb, &ns);
    for (size_t i = 0; i < nb && i < 64; ++i) {
      coop_bundle_info info;
      err = NULL;
      rc = coop_catalog_get_bundle_info(c, i, &info, &err);
      check("coop_catalog_get_bundle_info", rc, COOP_ERROR_INVALID_VALUE, 1, err); /* i past a lazy count */
      free(err);
    }
    for (size_t i = 0; i < 256; ++i) {
      const char *sym;
      size_t b;
      if (coop_catalog_get_symbol(c, i, &sym, &b) != COOP_SUCCESS) break;
      rc = coop_catalog_find(c, sym, &bundle);
      check("coop_catalog_find", rc, COOP_ERROR_SYMBOL_MISSING, 0, NULL);
    }
    coop_catalog_close(&c);
  }
  char *report = NULL;
  rc = coop_catalog_verify(dir, &report);
  check("coop_catalog_verify", rc, COOP_ERROR_BUNDLE_ARCH, 1, report);
  free(report);
  return 0;
}
