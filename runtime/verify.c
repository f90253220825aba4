/* coop_catalog_verify: everything a link would check, for every bundle at once, every problem named. */
#include "runtime.h"

#include <stdlib.h>
#include <string.h>

static void keep_first(coop_result *first, coop_result rc)
{
  if (!*first) *first = rc;
}

coop_result coop_catalog_verify(const char *dir, char **report)
{
  if (!report) return COOP_ERROR_INVALID_VALUE;
  *report = NULL;
  coop__str log = {0};
  coop_catalog *c = NULL;
  char *err = NULL;
  coop_result first = coop_catalog_open(&c, dir, &err);
  if (first) {
    coop__str_add(&log, err ? err : coop_result_string(first));
    free(err);
  }
  if (c && (first = coop__catalog_load_index(c, &log))) coop_catalog_close(&c);
  if (c && c->n_bundles == 0) { /* (an empty folder, or one whose writer died before any manifest) */
    coop__str_printf(&log, "%s: no bundle (no catalog.json, index.json or bundle manifest): not a catalog\n", dir);
    first = COOP_ERROR_BUNDLE_CORRUPT;
  }
  for (size_t i = 0; c && i < c->n_bundles; ++i) {
    const coop__bundle *b = NULL;
    coop_result rc = coop__catalog_bundle(c, i, &b, &log);
    if (rc) {
      keep_first(&first, rc);
      continue;
    }
    for (int k = 0; k < b->n_payloads; ++k) {
      char *data = NULL;
      size_t size = 0;
      rc = coop__bundle_read_payload(b, &b->payloads[k], &data, &size, &log);
      free(data);
      if (rc) keep_first(&first, rc);
    }
    /* every arch the catalog promises */
    for (int a = 0; a < c->n_archs; ++a) {
      int covered = 0;
      for (int k = 0; k < b->n_payloads && !covered; ++k) {
        const coop__payload *p = &b->payloads[k];
        if (!p->fatbin) covered = p->arch == c->archs[a];
        for (int x = 0; p->fatbin && x < p->n_archs; ++x) covered |= p->archs[x] == c->archs[a];
      }
      if (!covered) {
        coop__str_printf(&log, "%s: payloads: no entry for sm_%d, which index.json lists under archs\n", b->manifest,
                         c->archs[a]);
        keep_first(&first, COOP_ERROR_BUNDLE_ARCH);
      }
    }
  }
  if (c && c->header_file) {
    char *path = coop__path_join(c->dir, c->header_file), *data = NULL;
    size_t size = 0;
    if (!path || coop__read_file(path, &data, &size) != COOP_SUCCESS) {
      coop__str_printf(&log, "%s: header: %s is missing or unreadable\n", c->dir, c->header_file);
      keep_first(&first, COOP_ERROR_BUNDLE_CORRUPT);
    } else {
      char hex[65];
      coop__sha256_hex(data, size, hex);
      if (strcmp(hex, c->header_sha) != 0) {
        coop__str_printf(&log, "%s: sha256 %s does not match index.json's header.sha256 %s\n", path, hex, c->header_sha);
        keep_first(&first, COOP_ERROR_BUNDLE_HASH);
      }
    }
    free(path);
    free(data);
  }
  coop_catalog_close(&c);
  if (log.oom) {
    coop__str_free(&log);
    return COOP_ERROR_OUT_OF_MEMORY;
  }
  *report = log.p ? log.p : coop__strdup("");
  return *report ? first : COOP_ERROR_OUT_OF_MEMORY;
}
