#define _GNU_SOURCE
#include "rt_util.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../support/lto.h"
#include "util.h"

char *coopt_catalog_with(const char *const *bundles)
{
  char *dir = coopt_tmpdir();
  for (const char *const *b = bundles; *b; ++b) {
    char *cmd = coopt_fmt("cp %s/%s.* %s/", COOPT_FIXTURES, *b, dir);
    char *out = NULL;
    cr_assert_eq(coopt_run(cmd, &out), 0, "%s: %s", cmd, out);
    free(out);
    free(cmd);
  }
  return dir;
}

void coopt_manifest_set(const char *path, const char *key, json_t *value)
{
  json_error_t je;
  json_t *m = json_load_file(path, 0, &je);
  cr_assert_not_null(m, "%s: %s", path, je.text);
  json_object_set_new(m, key, value);
  cr_assert_eq(json_dump_file(m, path, JSON_INDENT(1) | JSON_PRESERVE_ORDER), 0);
  json_decref(m);
}

char *coopt_linker_log(const coop_linker *l)
{
  size_t n = 0;
  if (!l || coop_linker_get_log_size(l, &n)) return strdup("(no log)");
  char *s = malloc(n);
  if (coop_linker_get_log(l, s)) s[0] = 0;
  return s;
}

void coopt_kernel_ltoir(const char *src, int arch, void **data, size_t *size)
{
  coopt_blob b = {0};
  char *log = NULL;
  cr_assert_eq(coopt_compile(src, arch, NULL, &b, &log), 0, "%s", log);
  free(log);
  *data = b.data;
  *size = b.size;
}

coop_result coopt_link_ltoir(const coop_catalog *cat, const char *const *opts, unsigned n_opts, const void *ir,
                             size_t size, coop_linker **l)
{
  coop_result rc = coop_linker_create(l, cat, n_opts, opts);
  if (rc) return rc;
  rc = coop_linker_add_data(*l, COOP_INPUT_LTOIR, ir, size, "kernel.ltoir");
  if (rc) return rc;
  return coop_linker_complete(*l);
}
