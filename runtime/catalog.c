/* Catalogs: folders of bundles, each manifest checked before use, indexed symbol -> bundle. */
#include "runtime.h"

#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <nvJitLink.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <cooplink/version.h>

coop_result coop__nvjitlink_version(int *major, int *minor)
{
  unsigned ma = 0, mi = 0;
  if (nvJitLinkVersion(&ma, &mi) != NVJITLINK_SUCCESS) return COOP_ERROR_TOOLKIT;
  *major = (int)ma;
  *minor = (int)mi;
  return COOP_SUCCESS;
}

void coop__bundle_free(coop__bundle *b)
{
  free(b->name);
  free(b->dir);
  free(b->manifest);
  for (int i = 0; i < b->n_payloads; ++i) free(b->payloads[i].file);
  for (size_t i = 0; i < b->n_symbols; ++i) free(b->symbols[i]);
  free(b->symbols);
  memset(b, 0, sizeof *b);
}

static int plain_file_name(const char *s)
{
  return s && *s && !strchr(s, '/') && strcmp(s, ".") && strcmp(s, "..");
}

#define FAIL(code, ...)                      \
  do {                                       \
    coop__str_printf(log, __VA_ARGS__);      \
    coop__str_add(log, "\n");                \
    rc = (code);                             \
    goto out;                                \
  } while (0)

static int parse_version(const char *s, int *a, int *b, int *c)
{
  *c = 0;
  return s && (sscanf(s, "%d.%d.%d", a, b, c) >= 2);
}

coop_result coop__bundle_load(coop__bundle *b, const char *path, coop__str *log)
{
  memset(b, 0, sizeof *b);
  coop_result rc = COOP_SUCCESS;
  char *text = NULL;
  size_t size = 0;
  json_t *m = NULL;
  if (coop__read_file(path, &text, &size) != COOP_SUCCESS) FAIL(COOP_ERROR_IO, "%s: cannot read the manifest", path);
  coop__sha256_hex(text, size, b->manifest_sha256);
  json_error_t je;
  m = json_loadb(text, size, 0, &je);
  if (!m || !json_is_object(m))
    FAIL(COOP_ERROR_BUNDLE_CORRUPT, "%s:%d:%d: not a valid manifest: %s", path, je.line, je.column,
         m ? "not a JSON object" : je.text);
  json_t *fmt = json_object_get(m, "format");
  if (!json_is_integer(fmt)) FAIL(COOP_ERROR_BUNDLE_CORRUPT, "%s: format: missing or not an integer", path);
  if (json_integer_value(fmt) != 1)
    FAIL(COOP_ERROR_BUNDLE_FORMAT, "%s: format: version %lld is not supported (this cooplink reads format 1)", path,
         (long long)json_integer_value(fmt));
  const char *cv = json_string_value(json_object_get(m, "cooplink_version"));
  int a, bb, c;
  if (!parse_version(cv, &a, &bb, &c)) FAIL(COOP_ERROR_BUNDLE_CORRUPT, "%s: cooplink_version: missing or malformed", path);
  if (a != COOP_VERSION_MAJOR || bb > COOP_VERSION_MINOR)
    FAIL(COOP_ERROR_BUNDLE_VERSION, "%s: cooplink_version: %s is not readable by cooplink %s (same major, minor not newer)",
         path, cv, COOP_VERSION_STRING);
  const char *cuda = json_string_value(json_object_get(m, "cuda_version"));
  if (!parse_version(cuda, &a, &bb, &c)) FAIL(COOP_ERROR_BUNDLE_CORRUPT, "%s: cuda_version: missing or malformed", path);
  int lma, lmi;
  if (coop__nvjitlink_version(&lma, &lmi)) FAIL(COOP_ERROR_TOOLKIT, "nvJitLinkVersion failed");
  if (a != lma)
    FAIL(COOP_ERROR_BUNDLE_CUDA_MAJOR, "%s: cuda_version: made with CUDA %s, this nvJitLink is %d.%d (the major must match)",
         path, cuda, lma, lmi);
  if (bb > lmi)
    FAIL(COOP_ERROR_BUNDLE_PRODUCER_NEWER, "%s: cuda_version: made with CUDA %s, newer than this nvJitLink %d.%d", path,
         cuda, lma, lmi);
  const char *name = json_string_value(json_object_get(m, "name"));
  const char *slash = strrchr(path, '/');
  const char *base = slash ? slash + 1 : path;
  size_t blen = strlen(base);
  if (!name || blen < 6 || strncmp(base, name, blen - 5) != 0 || strlen(name) != blen - 5)
    FAIL(COOP_ERROR_BUNDLE_CORRUPT, "%s: name: '%s' does not match the file name", path, name ? name : "(missing)");
  b->name = coop__strdup(name);
  b->manifest = coop__strdup(path);
  b->dir = slash ? strndup(path, (size_t)(slash - path)) : coop__strdup(".");
  if (!b->name || !b->manifest || !b->dir) FAIL(COOP_ERROR_OUT_OF_MEMORY, "out of memory");
  json_t *pays = json_object_get(m, "payloads");
  if (!json_is_array(pays) || json_array_size(pays) == 0 || json_array_size(pays) > 32)
    FAIL(COOP_ERROR_BUNDLE_CORRUPT, "%s: payloads: missing, empty or too long", path);
  size_t i;
  json_t *p;
  json_array_foreach(pays, i, p)
  {
    const char *arch = json_string_value(json_object_get(p, "arch"));
    const char *file = json_string_value(json_object_get(p, "file"));
    const char *sha = json_string_value(json_object_get(p, "sha256"));
    const char *kind = json_string_value(json_object_get(p, "kind"));
    json_t *bytes = json_object_get(p, "bytes");
    int sm = arch ? coop__parse_sm(arch) : -1;
    if (sm < 0 || !plain_file_name(file) || !sha || strlen(sha) != 64 || !json_is_integer(bytes) || !kind ||
        strcmp(kind, "ltoir") != 0)
      FAIL(COOP_ERROR_BUNDLE_CORRUPT, "%s: payloads[%zu]: needs arch (sm_XX), kind ltoir, file, bytes and sha256", path, i);
    coop__payload *pl = &b->payloads[b->n_payloads++];
    pl->arch = sm;
    pl->file = coop__strdup(file);
    memcpy(pl->sha256, sha, 65);
    pl->bytes = (size_t)json_integer_value(bytes);
    char *pp = coop__path_join(b->dir, file);
    struct stat st;
    int ok = pp && stat(pp, &st) == 0 && S_ISREG(st.st_mode);
    if (!ok) {
      free(pp);
      FAIL(COOP_ERROR_BUNDLE_CORRUPT, "%s: payloads[%zu].file: %s is missing", path, i, file);
    }
    free(pp);
    if ((size_t)st.st_size != pl->bytes)
      FAIL(COOP_ERROR_BUNDLE_HASH, "%s: payloads[%zu].bytes: %s has %lld bytes, the manifest says %zu (truncated or changed)",
           path, i, file, (long long)st.st_size, pl->bytes);
  }
  json_t *syms = json_object_get(m, "symbols");
  if (!json_is_array(syms)) FAIL(COOP_ERROR_BUNDLE_CORRUPT, "%s: symbols: missing or not a list", path);
  b->symbols = calloc(json_array_size(syms) + 1, sizeof *b->symbols);
  if (!b->symbols) FAIL(COOP_ERROR_OUT_OF_MEMORY, "out of memory");
  json_array_foreach(syms, i, p)
  {
    const char *s = json_string_value(json_object_get(p, "name"));
    if (!s || strncmp(s, "coop_", 5) != 0)
      FAIL(COOP_ERROR_BUNDLE_CORRUPT, "%s: symbols[%zu].name: missing or not a coop_ symbol", path, i);
    b->symbols[b->n_symbols++] = coop__strdup(s);
  }
out:
  json_decref(m);
  free(text);
  if (rc) coop__bundle_free(b);
  return rc;
}

const coop__payload *coop__bundle_payload(const coop__bundle *b, int arch)
{
  const coop__payload *best = NULL;
  for (int i = 0; i < b->n_payloads; ++i) {
    const coop__payload *p = &b->payloads[i];
    if (p->arch <= arch && (!best || p->arch > best->arch)) best = p;
  }
  return best;
}

coop_result coop__bundle_read_payload(const coop__bundle *b, const coop__payload *p, char **data, size_t *size,
                                      coop__str *log)
{
  char *path = coop__path_join(b->dir, p->file);
  if (!path) return COOP_ERROR_OUT_OF_MEMORY;
  coop_result rc = coop__read_file(path, data, size);
  if (rc) {
    coop__str_printf(log, "%s: cannot read the payload of bundle %s\n", path, b->name);
    free(path);
    return rc == COOP_ERROR_OUT_OF_MEMORY ? rc : COOP_ERROR_BUNDLE_CORRUPT;
  }
  char hex[65];
  coop__sha256_hex(*data, *size, hex);
  if (strcmp(hex, p->sha256) != 0) {
    coop__str_printf(log, "%s: payload sha256 %s does not match the manifest %s (%s, sha256)\n", path, hex, p->sha256,
                     b->manifest);
    free(*data);
    *data = NULL;
    free(path);
    return COOP_ERROR_BUNDLE_HASH;
  }
  free(path);
  return COOP_SUCCESS;
}

static int cmp_sym(const void *a, const void *b)
{
  return strcmp(((const coop__sym *)a)->name, ((const coop__sym *)b)->name);
}
static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static const char *default_catalog_dir(void)
{
  const char *e = getenv("COOPLINK_CATALOG");
  if (e && *e) return e;
#ifdef COOP_DEFAULT_CATALOG
  return COOP_DEFAULT_CATALOG;
#else
  return "/usr/local/share/cooplink/catalog";
#endif
}

coop_result coop_catalog_close(coop_catalog **catalog)
{
  if (!catalog) return COOP_ERROR_INVALID_VALUE;
  coop_catalog *c = *catalog;
  if (!c) return COOP_SUCCESS;
  for (size_t i = 0; i < c->n_bundles; ++i) coop__bundle_free(&c->bundles[i]);
  free(c->bundles);
  free(c->index);
  free(c->dir);
  free(c);
  *catalog = NULL;
  return COOP_SUCCESS;
}

coop_result coop__catalog_open(coop_catalog **catalog, const char *dir, char **errlog, int allow_duplicates)
{
  if (errlog) *errlog = NULL;
  if (!catalog) return COOP_ERROR_INVALID_VALUE;
  *catalog = NULL;
  if (!dir) dir = default_catalog_dir();
  coop__str log = {0};
  coop_result rc = COOP_SUCCESS;
  coop_catalog *c = calloc(1, sizeof *c);
  char **names = NULL;
  size_t n_names = 0, cap = 0;
  DIR *d = NULL;
  if (!c || !(c->dir = coop__strdup(dir))) {
    rc = COOP_ERROR_OUT_OF_MEMORY;
    goto out;
  }
  d = opendir(dir);
  if (!d) {
    coop__str_printf(&log, "%s: cannot open the catalog folder: %s\n", dir, strerror(errno));
    rc = COOP_ERROR_IO;
    goto out;
  }
  struct dirent *e;
  while ((e = readdir(d))) {
    size_t n = strlen(e->d_name);
    if (n <= 5 || e->d_name[0] == '.' || strcmp(e->d_name + n - 5, ".json") != 0) continue;
    if (n_names == cap) {
      cap = cap ? cap * 2 : 64;
      char **nn = realloc(names, cap * sizeof *nn);
      if (!nn) {
        rc = COOP_ERROR_OUT_OF_MEMORY;
        goto out;
      }
      names = nn;
    }
    if (!(names[n_names] = coop__strdup(e->d_name))) {
      rc = COOP_ERROR_OUT_OF_MEMORY;
      goto out;
    }
    ++n_names;
  }
  qsort(names, n_names, sizeof *names, cmp_str);
  c->bundles = calloc(n_names + 1, sizeof *c->bundles);
  if (!c->bundles) {
    rc = COOP_ERROR_OUT_OF_MEMORY;
    goto out;
  }
  coop__str ident = {0};
  size_t total = 0;
  for (size_t i = 0; i < n_names; ++i) {
    char *path = coop__path_join(dir, names[i]);
    rc = path ? coop__bundle_load(&c->bundles[c->n_bundles], path, &log) : COOP_ERROR_OUT_OF_MEMORY;
    free(path);
    if (rc) {
      coop__str_free(&ident);
      goto out;
    }
    coop__bundle *b = &c->bundles[c->n_bundles++];
    coop__str_printf(&ident, "%s %s\n", b->name, b->manifest_sha256);
    total += b->n_symbols;
  }
  coop__sha256_hex(coop__str_get(&ident), ident.len, c->digest);
  coop__str_free(&ident);
  c->index = calloc(total + 1, sizeof *c->index);
  if (!c->index) {
    rc = COOP_ERROR_OUT_OF_MEMORY;
    goto out;
  }
  for (size_t i = 0; i < c->n_bundles; ++i)
    for (size_t k = 0; k < c->bundles[i].n_symbols; ++k) c->index[c->n_index++] = (coop__sym){c->bundles[i].symbols[k], i};
  qsort(c->index, c->n_index, sizeof *c->index, cmp_sym);
  for (size_t i = 1; i < c->n_index && !allow_duplicates; ++i)
    if (strcmp(c->index[i].name, c->index[i - 1].name) == 0) {
      coop__str_printf(&log, "%s: symbol %s is defined by two bundles: %s and %s\n", dir, c->index[i].name,
                       c->bundles[c->index[i - 1].bundle].manifest, c->bundles[c->index[i].bundle].manifest);
      rc = COOP_ERROR_SYMBOL_DUPLICATE;
      goto out;
    }
out:
  if (d) closedir(d);
  for (size_t i = 0; i < n_names; ++i) free(names[i]);
  free(names);
  if (rc) {
    coop_catalog_close(&c);
    if (errlog) *errlog = log.p ? log.p : coop__strdup(coop_result_string(rc));
    else coop__str_free(&log);
    return rc;
  }
  coop__str_free(&log);
  *catalog = c;
  return COOP_SUCCESS;
}

coop_result coop_catalog_get_counts(const coop_catalog *catalog, size_t *bundles, size_t *symbols)
{
  if (!catalog) return COOP_ERROR_INVALID_VALUE;
  if (bundles) *bundles = catalog->n_bundles;
  if (symbols) *symbols = catalog->n_index;
  return COOP_SUCCESS;
}

coop_result coop_catalog_find(const coop_catalog *catalog, const char *symbol, const char **bundle)
{
  if (!catalog || !symbol || !bundle) return COOP_ERROR_INVALID_VALUE;
  coop__sym key = {symbol, 0};
  const coop__sym *s = bsearch(&key, catalog->index, catalog->n_index, sizeof key, cmp_sym);
  if (!s) return COOP_ERROR_SYMBOL_MISSING;
  *bundle = catalog->bundles[s->bundle].name;
  return COOP_SUCCESS;
}

coop_result coop_catalog_open(coop_catalog **catalog, const char *dir, char **errlog)
{
  return coop__catalog_open(catalog, dir, errlog, 0);
}
