/* Catalogs: folders of bundles, each manifest checked before use, indexed symbol -> bundle. */
#include "runtime.h"

#include <cuda.h>
#include <dirent.h>
#include <dlfcn.h>
#include <limits.h>
#include <errno.h>
#include <jansson.h>
#include <nvJitLink.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cooplink/coopgen.h>
#include <cooplink/version.h>

coop_result coop__nvjitlink_version(int *major, int *minor)
{
  unsigned ma = 0, mi = 0;
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
  ma = CUDA_VERSION / 1000; /* fuzz targets parse only: the toolkit's version, without calling nvJitLink */
  mi = CUDA_VERSION % 1000 / 10;
#else
  if (nvJitLinkVersion(&ma, &mi) != NVJITLINK_SUCCESS) return COOP_ERROR_TOOLKIT;
#endif
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
  free(b->types);
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

/* The versions an index or a manifest records, checked against this cooplink and nvJitLink. */
static coop_result check_versions(json_t *m, const char *path, coop__str *log)
{
  coop_result rc = COOP_SUCCESS;
  int a, bb, c;
  const char *cv = json_string_value(json_object_get(m, "cooplink_version"));
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
out:
  return rc;
}

/* Reads path (its sha256 into sha when not NULL) and parses it as a JSON object; `what` names it in
 * messages. On failure *m is NULL. */
static coop_result load_object(const char *path, const char *what, char *sha, json_t **m, coop__str *log)
{
  coop_result rc = COOP_SUCCESS;
  char *text = NULL;
  size_t size = 0;
  *m = NULL;
  if ((rc = coop__read_file(path, &text, &size)) == COOP_ERROR_OUT_OF_MEMORY) goto out;
  if (rc) FAIL(COOP_ERROR_IO, "%s: cannot read the %s", path, what);
  if (sha) coop__sha256_hex(text, size, sha);
  json_error_t je;
  *m = json_loadb(text, size, 0, &je);
  if (!*m || !json_is_object(*m))
    FAIL(COOP_ERROR_BUNDLE_CORRUPT, "%s:%d:%d: not a valid %s: %s", path, je.line, je.column, what,
         *m ? "not a JSON object" : je.text);
out:
  if (rc) {
    json_decref(*m);
    *m = NULL;
  }
  free(text);
  return rc;
}

coop_result coop__bundle_load(coop__bundle *b, const char *path, coop__str *log)
{
  memset(b, 0, sizeof *b);
  json_t *m = NULL;
  coop_result rc = load_object(path, "manifest", b->manifest_sha256, &m, log);
  if (rc) goto out;
  json_t *fmt = json_object_get(m, "format");
  if (!json_is_integer(fmt)) FAIL(COOP_ERROR_BUNDLE_CORRUPT, "%s: format: missing or not an integer", path);
  if (json_integer_value(fmt) != 1 && json_integer_value(fmt) != 2)
    FAIL(COOP_ERROR_BUNDLE_FORMAT, "%s: format: version %lld is not supported (this cooplink reads formats 1 and 2)",
         path, (long long)json_integer_value(fmt));
  if ((rc = check_versions(m, path, log))) goto out;
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
    int is_fatbin = kind && !strcmp(kind, "fatbin");
    int sm = arch ? coop__parse_sm(arch) : -1;
    int archs[32], n_archs = 0;
    if (is_fatbin) {
      json_t *ja = json_object_get(p, "archs");
      size_t k;
      json_t *a;
      sm = json_is_array(ja) && json_array_size(ja) > 0 && json_array_size(ja) <= 32 ? 1 << 30 : -1;
      json_array_foreach(ja, k, a)
      {
        int x = coop__parse_sm(json_string_value(a));
        if (x < 0 || sm < 0) {
          sm = -1;
          break;
        }
        archs[n_archs++] = x;
        if (x < sm) sm = x;
      }
    }
    if (sm < 0 || !plain_file_name(file) || !sha || strlen(sha) != 64 || !json_is_integer(bytes) || !kind ||
        (strcmp(kind, "ltoir") != 0 && !is_fatbin))
      FAIL(COOP_ERROR_BUNDLE_CORRUPT,
           "%s: payloads[%zu]: needs kind (ltoir with arch sm_XX, or fatbin with archs), file, bytes and sha256", path, i);
    coop__payload *pl = &b->payloads[b->n_payloads++];
    pl->arch = sm;
    pl->fatbin = is_fatbin;
    pl->n_archs = n_archs;
    memcpy(pl->archs, archs, sizeof archs);
    pl->file = coop__strdup(file);
    memcpy(pl->sha256, sha, 65);
    pl->bytes = (size_t)json_integer_value(bytes);
    char *pp = pl->file ? coop__path_join(b->dir, file) : NULL;
    if (!pp) FAIL(COOP_ERROR_OUT_OF_MEMORY, "out of memory");
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
    if (!(b->symbols[b->n_symbols] = coop__strdup(s))) FAIL(COOP_ERROR_OUT_OF_MEMORY, "out of memory");
    ++b->n_symbols;
  }
  json_t *types = json_object_get(m, "types"); /* absent in bundles of cooplink before user types */
  if (types && (!json_is_array(types) || json_array_size(types) > 64))
    FAIL(COOP_ERROR_BUNDLE_CORRUPT, "%s: types: not a list of at most 64 types", path);
  if (json_array_size(types) && !(b->types = calloc(json_array_size(types), sizeof *b->types)))
    FAIL(COOP_ERROR_OUT_OF_MEMORY, "out of memory");
  json_array_foreach(types, i, p)
  {
    const char *tn = json_string_value(json_object_get(p, "name"));
    json_t *size = json_object_get(p, "size"), *align = json_object_get(p, "align");
    if (!tn || strlen(tn) >= sizeof b->types[0].name || !json_is_integer(size) || !json_is_integer(align) ||
        json_integer_value(size) < 1 || json_integer_value(align) < 1)
      FAIL(COOP_ERROR_BUNDLE_CORRUPT, "%s: types[%zu]: needs name, size and align", path, i);
    coop__utype *t = &b->types[b->n_types++];
    snprintf(t->name, sizeof t->name, "%s", tn);
    t->size = (unsigned long)json_integer_value(size);
    t->align = (unsigned long)json_integer_value(align);
  }
out:
  json_decref(m);
  if (rc) coop__bundle_free(b);
  return rc;
}

const coop__payload *coop__bundle_payload(const coop__bundle *b, int arch)
{
  const coop__payload *best = NULL;
  for (int i = 0; i < b->n_payloads; ++i) {
    const coop__payload *p = &b->payloads[i];
    /* a fatbin qualifies when one of its entries does; nvJitLink picks the entry */
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

static char installed_catalog[4096];

/* The installed catalog, found relative to the installed library (or, when linked statically, to the
 * program that contains this code), so that an installed tree works wherever it is unpacked. */
static void find_installed_catalog(void)
{
  Dl_info info;
  if (!dladdr((void *)&find_installed_catalog, &info) || !info.dli_fname) return;
  char self[4096];
  if (!realpath(info.dli_fname, self)) return;
  char *slash = strrchr(self, '/');
  if (!slash) return;
  *slash = 0;
#if defined(COOP_LIB_TO_CATALOG) && defined(COOP_BIN_TO_CATALOG)
  const char *rels[] = {COOP_LIB_TO_CATALOG, COOP_BIN_TO_CATALOG};
  for (int i = 0; i < 2; ++i) {
    char cand[4096 + 300], idx[4096 + 320], meta[4096 + 320];
    snprintf(cand, sizeof cand, "%s/%s", self, rels[i]);
    snprintf(idx, sizeof idx, "%s/index.json", cand);
    snprintf(meta, sizeof meta, "%s/catalog.json", cand);
    if ((access(meta, F_OK) == 0 || access(idx, F_OK) == 0) && strlen(cand) < sizeof installed_catalog) {
      snprintf(installed_catalog, sizeof installed_catalog, "%s", cand);
      return;
    }
  }
#endif
}

static const char *default_catalog_dir(void)
{
  const char *e = getenv("COOPLINK_CATALOG");
  if (e && *e) return e;
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, find_installed_catalog);
  if (installed_catalog[0]) return installed_catalog;
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
  for (size_t i = 0; i < c->n_named; ++i) {
    coop__bundle_free(c->named[i]);
    free(c->named[i]);
  }
  free(c->named);
  free(c->index);
  free(c->dir);
  free(c->header_file);
  pthread_mutex_destroy(&c->mu);
  free(c);
  *catalog = NULL;
  return COOP_SUCCESS;
}

/* index.json: the catalog's bundles and symbols without reading every manifest (a catalog of a
 * thousand bundles opens in a few milliseconds); each manifest is read and checked against the hash
 * the index records when a link first needs it. */
static coop_result open_index(coop_catalog *c, const char *path, coop__str *log)
{
  json_t *m = NULL;
  coop_result rc = load_object(path, "catalog index", c->digest, &m, log);
  if (rc) goto out;
  json_t *fmt = json_object_get(m, "format");
  const char *kind = json_string_value(json_object_get(m, "kind"));
  if (!kind || strcmp(kind, "cooplink-catalog") != 0)
    FAIL(COOP_ERROR_BUNDLE_CORRUPT, "%s: kind: missing or not \"cooplink-catalog\"", path);
  if (!json_is_integer(fmt)) FAIL(COOP_ERROR_BUNDLE_CORRUPT, "%s: format: missing or not an integer", path);
  if (json_integer_value(fmt) != 2)
    FAIL(COOP_ERROR_BUNDLE_FORMAT, "%s: format: version %lld is not supported (this cooplink reads catalog format 2)",
         path, (long long)json_integer_value(fmt));
  if ((rc = check_versions(m, path, log))) goto out;
  json_t *hdr = json_object_get(m, "header");
  const char *hfile = json_string_value(json_object_get(hdr, "file"));
  const char *hsha = json_string_value(json_object_get(hdr, "sha256"));
  if (!plain_file_name(hfile) || !hsha || strlen(hsha) != 64)
    FAIL(COOP_ERROR_BUNDLE_CORRUPT, "%s: header: needs file and sha256", path);
  if (!(c->header_file = coop__strdup(hfile))) FAIL(COOP_ERROR_OUT_OF_MEMORY, "out of memory");
  memcpy(c->header_sha, hsha, 65);
  json_t *jarchs = json_object_get(m, "archs");
  size_t ai;
  json_t *ja;
  if (!json_is_array(jarchs) || json_array_size(jarchs) == 0 || json_array_size(jarchs) > 32)
    FAIL(COOP_ERROR_BUNDLE_CORRUPT, "%s: archs: missing, empty or too long", path);
  json_array_foreach(jarchs, ai, ja)
  {
    int a = coop__parse_sm(json_string_value(ja));
    if (a < 0) FAIL(COOP_ERROR_BUNDLE_CORRUPT, "%s: archs[%zu]: not sm_XX", path, ai);
    c->archs[c->n_archs++] = a;
  }
  json_t *bundles = json_object_get(m, "bundles");
  if (!json_is_array(bundles)) FAIL(COOP_ERROR_BUNDLE_CORRUPT, "%s: bundles: missing or not a list", path);
  c->bundles = calloc(json_array_size(bundles) + 1, sizeof *c->bundles);
  if (!c->bundles) FAIL(COOP_ERROR_OUT_OF_MEMORY, "out of memory");
  size_t i, total = 0;
  json_t *b;
  json_array_foreach(bundles, i, b)
  {
    const char *name = json_string_value(json_object_get(b, "name"));
    const char *sha = json_string_value(json_object_get(b, "manifest_sha256"));
    json_t *syms = json_object_get(b, "symbols");
    if (!name || !plain_file_name(name) || !sha || strlen(sha) != 64 || !json_is_array(syms))
      FAIL(COOP_ERROR_BUNDLE_CORRUPT, "%s: bundles[%zu]: needs name, manifest_sha256 and symbols", path, i);
    coop__bundle *cb = &c->bundles[c->n_bundles++];
    char mname[300];
    snprintf(mname, sizeof mname, "%s.json", name);
    cb->name = coop__strdup(name);
    cb->dir = coop__strdup(c->dir);
    cb->manifest = coop__path_join(c->dir, mname);
    memcpy(cb->expected_sha, sha, 65);
    cb->symbols = calloc(json_array_size(syms) + 1, sizeof *cb->symbols);
    if (!cb->name || !cb->dir || !cb->manifest || !cb->symbols) FAIL(COOP_ERROR_OUT_OF_MEMORY, "out of memory");
    size_t k;
    json_t *sym;
    json_array_foreach(syms, k, sym)
    {
      const char *sn = json_string_value(sym);
      if (!sn || strncmp(sn, "coop_", 5) != 0)
        FAIL(COOP_ERROR_BUNDLE_CORRUPT, "%s: bundles[%zu].symbols[%zu]: missing or not a coop_ symbol", path, i, k);
      if (!(cb->symbols[cb->n_symbols++] = coop__strdup(sn))) FAIL(COOP_ERROR_OUT_OF_MEMORY, "out of memory");
    }
    total += cb->n_symbols;
  }
  c->index = calloc(total + 1, sizeof *c->index);
  if (!c->index) FAIL(COOP_ERROR_OUT_OF_MEMORY, "out of memory");
out:
  json_decref(m);
  return rc;
}

/* catalog.json: what a link needs of the catalog, a few hundred bytes. */
static coop_result open_meta(coop_catalog *c, const char *path, coop__str *log)
{
  coop_result rc = COOP_SUCCESS;
  json_error_t je;
  json_t *m = json_load_file(path, 0, &je);
  if (!m || !json_is_object(m))
    FAIL(COOP_ERROR_BUNDLE_CORRUPT, "%s:%d:%d: not a valid catalog file: %s", path, je.line, je.column,
         m ? "not a JSON object" : je.text);
  const char *kind = json_string_value(json_object_get(m, "kind"));
  if (!kind || strcmp(kind, "cooplink-catalog") != 0)
    FAIL(COOP_ERROR_BUNDLE_CORRUPT, "%s: kind: missing or not \"cooplink-catalog\"", path);
  json_t *fmt = json_object_get(m, "format");
  if (!json_is_integer(fmt)) FAIL(COOP_ERROR_BUNDLE_CORRUPT, "%s: format: missing or not an integer", path);
  if (json_integer_value(fmt) != 2)
    FAIL(COOP_ERROR_BUNDLE_FORMAT, "%s: format: version %lld is not supported (this cooplink reads catalog format 2)",
         path, (long long)json_integer_value(fmt));
  if ((rc = check_versions(m, path, log))) goto out;
  const char *sha = json_string_value(json_object_get(m, "index_sha256"));
  const char *units = json_string_value(json_object_get(m, "units"));
  json_t *nb = json_object_get(m, "bundles"), *ns = json_object_get(m, "symbols");
  if (!sha || strlen(sha) != 64 || !units || !json_is_integer(nb) || !json_is_integer(ns))
    FAIL(COOP_ERROR_BUNDLE_CORRUPT, "%s: needs units, bundles, symbols and index_sha256", path);
  memcpy(c->index_sha, sha, 65);
  memcpy(c->digest, sha, 65); /* the index's hash names every manifest: the catalog's identity */
  c->by_name = !strcmp(units, "instance") || !strcmp(units, "symbol");
  c->per_symbol = !strcmp(units, "symbol");
  c->meta_bundles = (size_t)json_integer_value(nb);
  c->meta_symbols = (size_t)json_integer_value(ns);
  c->lazy = 1;
out:
  json_decref(m);
  return rc;
}

/* The sorted symbol index over c->bundles, refusing a symbol defined twice. */
static coop_result finish_index(coop_catalog *c, coop__str *log)
{
  for (size_t i = 0; i < c->n_bundles; ++i)
    for (size_t k = 0; k < c->bundles[i].n_symbols; ++k) c->index[c->n_index++] = (coop__sym){c->bundles[i].symbols[k], i};
  qsort(c->index, c->n_index, sizeof *c->index, cmp_sym);
  for (size_t i = 1; i < c->n_index && !c->allow_duplicates; ++i)
    if (strcmp(c->index[i].name, c->index[i - 1].name) == 0) {
      coop__str_printf(log, "%s: symbol %s is defined by two bundles: %s and %s\n", c->dir, c->index[i].name,
                       c->bundles[c->index[i - 1].bundle].manifest, c->bundles[c->index[i].bundle].manifest);
      return COOP_ERROR_SYMBOL_DUPLICATE;
    }
  c->index_loaded = 1;
  return COOP_SUCCESS;
}

/* With c->mu held. */
static coop_result ensure_index(coop_catalog *c, coop__str *log)
{
  if (!c->lazy || c->index_loaded) return COOP_SUCCESS;
  char *path = coop__path_join(c->dir, "index.json"), *text = NULL;
  size_t size = 0;
  coop_result rc = path ? coop__read_file(path, &text, &size) : COOP_ERROR_OUT_OF_MEMORY;
  if (rc) {
    coop__str_printf(log, "%s: cannot read the index\n", path ? path : c->dir);
  } else {
    char hex[65];
    coop__sha256_hex(text, size, hex);
    if (strcmp(hex, c->index_sha) != 0) {
      coop__str_printf(log, "%s: sha256 %s is not catalog.json's index_sha256 %s\n", path, hex, c->index_sha);
      rc = COOP_ERROR_BUNDLE_HASH;
    }
  }
  free(text);
  if (!rc) rc = open_index(c, path, log);
  if (!rc) rc = finish_index(c, log);
  free(path);
  return rc;
}

coop_result coop__catalog_load_index(const coop_catalog *cc, coop__str *log)
{
  coop_catalog *c = (coop_catalog *)cc;
  pthread_mutex_lock(&c->mu);
  coop_result rc = ensure_index(c, log);
  pthread_mutex_unlock(&c->mu);
  return rc;
}

static int lists(const coop__bundle *b, const char *symbol)
{
  for (size_t k = 0; k < b->n_symbols; ++k)
    if (!strcmp(b->symbols[k], symbol)) return 1;
  return 0;
}

/* A folder without index.json: every *.json is a bundle manifest, each read and checked now. */
static coop_result open_folder(coop_catalog *c, const char *dir, coop__str *log)
{
  coop_result rc = COOP_SUCCESS;
  char **names = NULL;
  size_t n_names = 0, cap = 0;
  DIR *d = opendir(dir);
  if (!d) {
    coop__str_printf(log, "%s: cannot open the catalog folder: %s\n", dir, strerror(errno));
    return COOP_ERROR_IO;
  }
  struct dirent *e;
  while ((e = readdir(d))) {
    size_t n = strlen(e->d_name);
    if (n <= 5 || e->d_name[0] == '.' || strcmp(e->d_name + n - 5, ".json") != 0) continue;
    if (n_names == cap) {
      cap = cap ? cap * 2 : 64;
      char **nn = realloc(names, cap * sizeof *nn);
      if (!nn) FAIL(COOP_ERROR_OUT_OF_MEMORY, "out of memory");
      names = nn;
    }
    if (!(names[n_names] = coop__strdup(e->d_name))) FAIL(COOP_ERROR_OUT_OF_MEMORY, "out of memory");
    ++n_names;
  }
  if (n_names) qsort(names, n_names, sizeof *names, cmp_str); /* names is NULL in a folder without manifests */
  c->bundles = calloc(n_names + 1, sizeof *c->bundles);
  if (!c->bundles) FAIL(COOP_ERROR_OUT_OF_MEMORY, "out of memory");
  coop__str ident = {0};
  size_t total = 0;
  for (size_t i = 0; i < n_names; ++i) {
    char *path = coop__path_join(dir, names[i]);
    rc = path ? coop__bundle_load(&c->bundles[c->n_bundles], path, log) : COOP_ERROR_OUT_OF_MEMORY;
    free(path);
    if (rc) {
      coop__str_free(&ident);
      goto out;
    }
    coop__bundle *b = &c->bundles[c->n_bundles++];
    b->loaded = 1;
    coop__str_printf(&ident, "%s %s\n", b->name, b->manifest_sha256);
    total += b->n_symbols;
  }
  if (ident.oom) {
    coop__str_free(&ident);
    FAIL(COOP_ERROR_OUT_OF_MEMORY, "out of memory");
  }
  coop__sha256_hex(coop__str_get(&ident), ident.len, c->digest);
  coop__str_free(&ident);
  c->index = calloc(total + 1, sizeof *c->index);
  if (!c->index) FAIL(COOP_ERROR_OUT_OF_MEMORY, "out of memory");
out:
  closedir(d);
  for (size_t i = 0; i < n_names; ++i) free(names[i]);
  free(names);
  return rc;
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
  char *index_path = NULL;
  if (!c || !(c->dir = coop__strdup(dir)) || !(index_path = coop__path_join(dir, "index.json"))) {
    if (c) pthread_mutex_init(&c->mu, NULL);
    rc = COOP_ERROR_OUT_OF_MEMORY;
    goto out;
  }
  pthread_mutex_init(&c->mu, NULL);
  c->allow_duplicates = allow_duplicates;
  char *meta = coop__path_join(dir, "catalog.json");
  if (!meta) rc = COOP_ERROR_OUT_OF_MEMORY;
  else if (access(meta, F_OK) == 0) rc = open_meta(c, meta, &log);
  else if (access(index_path, F_OK) == 0) rc = open_index(c, index_path, &log);
  else rc = open_folder(c, dir, &log);
  free(meta);
  if (!rc && !c->lazy) rc = finish_index(c, &log);
out:
  free(index_path);
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

static coop_result bundle_at(coop_catalog *c, size_t i, const coop__bundle **out, coop__str *log)
{
  if (i >= c->n_bundles) return COOP_ERROR_INVALID_VALUE;
  coop__bundle *b = &c->bundles[i];
  coop_result rc = COOP_SUCCESS;
  if (!b->loaded) {
    coop__bundle nb;
    rc = coop__bundle_load(&nb, b->manifest, log);
    int read_ok = rc == COOP_SUCCESS; /* on failure coop__bundle_load has freed nb */
    if (!rc && strcmp(nb.manifest_sha256, b->expected_sha) != 0) {
      coop__str_printf(log, "%s: the manifest's sha256 %s is not the one index.json records (%s): changed after the "
                            "catalog was built\n", b->manifest, nb.manifest_sha256, b->expected_sha);
      rc = COOP_ERROR_BUNDLE_HASH;
    }
    if (!rc && nb.n_symbols != b->n_symbols) {
      coop__str_printf(log, "%s: symbols: %zu, index.json lists %zu\n", b->manifest, nb.n_symbols, b->n_symbols);
      rc = COOP_ERROR_BUNDLE_CORRUPT;
    }
    if (!rc) {
      /* keep the index's symbol strings (c->index points at them); take the rest of the manifest */
      for (size_t k = 0; k < nb.n_symbols; ++k) free(nb.symbols[k]);
      free(nb.symbols);
      nb.symbols = b->symbols;
      nb.n_symbols = b->n_symbols;
      free(b->name);
      free(b->dir);
      free(b->manifest);
      memcpy(nb.expected_sha, b->expected_sha, 65);
      *b = nb;
      b->loaded = 1;
    } else if (read_ok) {
      coop__bundle_free(&nb);
    }
  }
  if (!rc) *out = b;
  return rc;
}

coop_result coop__catalog_bundle(const coop_catalog *cc, size_t i, const coop__bundle **out, coop__str *log)
{
  coop_catalog *c = (coop_catalog *)cc; /* loading on first use is the only change, under the lock */
  pthread_mutex_lock(&c->mu);
  coop_result rc = ensure_index(c, log);
  if (!rc) rc = bundle_at(c, i, out, log);
  pthread_mutex_unlock(&c->mu);
  return rc;
}

/* The unit of symbol by its name alone (c->mu held): 1 when that settles it (*b set or NULL). */
static int find_by_name(coop_catalog *c, const char *symbol, const coop__bundle **b, coop_result *rc, coop__str *log)
{
  char unit[128];
  if (coop_gen_unit_of_symbol(symbol, c->per_symbol, unit, sizeof unit) != COOP_SUCCESS)
    return 0; /* not our naming: the index */
  *b = NULL;
  *rc = COOP_SUCCESS;
  for (size_t i = 0; i < c->n_named; ++i)
    if (!strcmp(c->named[i]->name, unit)) {
      if (lists(c->named[i], symbol)) *b = c->named[i];
      return 1;
    }
  char file[160];
  snprintf(file, sizeof file, "%s.json", unit);
  char *path = coop__path_join(c->dir, file);
  if (!path) {
    *rc = COOP_ERROR_OUT_OF_MEMORY;
    return 1;
  }
  if (access(path, F_OK) != 0) { /* no such unit: not in the catalog */
    free(path);
    return 1;
  }
  coop__bundle *nb = calloc(1, sizeof *nb);
  if (c->n_named == c->cap_named) {
    size_t cap = c->cap_named ? c->cap_named * 2 : 16;
    coop__bundle **v = realloc(c->named, cap * sizeof *v);
    if (v) {
      c->named = v;
      c->cap_named = cap;
    }
  }
  if (!nb || c->n_named == c->cap_named) {
    free(nb);
    free(path);
    *rc = COOP_ERROR_OUT_OF_MEMORY;
    return 1;
  }
  *rc = coop__bundle_load(nb, path, log);
  free(path);
  if (*rc) {
    free(nb);
    return 1;
  }
  nb->loaded = 1;
  c->named[c->n_named++] = nb;
  if (lists(nb, symbol)) *b = nb;
  return 1;
}

coop_result coop__catalog_find_bundle(const coop_catalog *cc, const char *symbol, const coop__bundle **b, coop__str *log)
{
  coop_catalog *c = (coop_catalog *)cc;
  *b = NULL;
  coop_result rc = COOP_SUCCESS;
  pthread_mutex_lock(&c->mu);
  if (!(c->lazy && c->by_name && !c->index_loaded && find_by_name(c, symbol, b, &rc, log))) {
    rc = ensure_index(c, log);
    if (!rc) {
      coop__sym key = {symbol, 0};
      const coop__sym *s = bsearch(&key, c->index, c->n_index, sizeof key, cmp_sym);
      if (s) rc = bundle_at(c, s->bundle, b, log);
    }
  }
  pthread_mutex_unlock(&c->mu);
  return rc;
}

coop_result coop_catalog_get_counts(const coop_catalog *catalog, size_t *bundles, size_t *symbols)
{
  if (!catalog) return COOP_ERROR_INVALID_VALUE;
  int meta = catalog->lazy && !catalog->index_loaded;
  if (bundles) *bundles = meta ? catalog->meta_bundles : catalog->n_bundles;
  if (symbols) *symbols = meta ? catalog->meta_symbols : catalog->n_index;
  return COOP_SUCCESS;
}

coop_result coop_catalog_find(const coop_catalog *catalog, const char *symbol, const char **bundle)
{
  if (!catalog || !symbol || !bundle) return COOP_ERROR_INVALID_VALUE;
  coop__str log = {0};
  const coop__bundle *b = NULL;
  coop_result rc = coop__catalog_find_bundle(catalog, symbol, &b, &log);
  coop__str_free(&log);
  if (rc) return rc;
  if (!b) return COOP_ERROR_SYMBOL_MISSING;
  *bundle = b->name;
  return COOP_SUCCESS;
}

coop_result coop_catalog_open(coop_catalog **catalog, const char *dir, char **errlog)
{
  return coop__catalog_open(catalog, dir, errlog, 0);
}

coop_result coop_catalog_get_bundle_info(const coop_catalog *catalog, size_t i, coop_bundle_info *info, char **errlog)
{
  if (errlog) *errlog = NULL;
  if (!catalog || !info) return COOP_ERROR_INVALID_VALUE;
  coop__str log = {0};
  const coop__bundle *b = NULL;
  coop_result rc = coop__catalog_load_index(catalog, &log);
  if (!rc && i >= catalog->n_bundles) rc = COOP_ERROR_INVALID_VALUE;
  if (!rc) rc = coop__catalog_bundle(catalog, i, &b, &log);
  if (rc) {
    if (errlog) *errlog = log.p ? log.p : coop__strdup(coop_result_string(rc));
    else coop__str_free(&log);
    return rc;
  }
  coop__str_free(&log);
  memset(info, 0, sizeof *info);
  info->name = b->name;
  info->n_symbols = b->n_symbols;
  for (int k = 0; k < b->n_payloads; ++k) {
    const coop__payload *p = &b->payloads[k];
    info->payload_bytes += p->bytes;
    info->fatbin |= p->fatbin;
    if (p->fatbin)
      for (int a = 0; a < p->n_archs && info->n_archs < 32; ++a) info->archs[info->n_archs++] = p->archs[a];
    else if (info->n_archs < 32)
      info->archs[info->n_archs++] = p->arch;
  }
  for (int x = 1; x < info->n_archs; ++x)
    for (int y = x; y > 0 && info->archs[y - 1] > info->archs[y]; --y) {
      int t = info->archs[y];
      info->archs[y] = info->archs[y - 1];
      info->archs[y - 1] = t;
    }
  return COOP_SUCCESS;
}

coop_result coop_catalog_get_symbol(const coop_catalog *catalog, size_t i, const char **symbol, size_t *bundle)
{
  if (!catalog || !symbol) return COOP_ERROR_INVALID_VALUE;
  coop__str log = {0};
  coop_result rc = coop__catalog_load_index(catalog, &log);
  coop__str_free(&log);
  if (rc) return rc;
  if (i >= catalog->n_index) return COOP_ERROR_INVALID_VALUE;
  *symbol = catalog->index[i].name;
  if (bundle) *bundle = catalog->index[i].bundle;
  return COOP_SUCCESS;
}

coop_result coop_get_environment(coop_environment *env)
{
  if (!env) return COOP_ERROR_INVALID_VALUE;
  /* the cache folder is computed from the environment: one copy per thread, valid until its next call */
  static __thread char cache_dir[4096];
  memset(env, 0, sizeof *env);
  env->version = COOP_VERSION_STRING;
  env->catalog_dir = default_catalog_dir();
  env->toolkit_root = coop__cuda_root();
  char *c = coop__cache_default_dir();
  if (!c) return COOP_ERROR_OUT_OF_MEMORY;
  snprintf(cache_dir, sizeof cache_dir, "%s", c);
  free(c);
  env->cache_dir = cache_dir;
  return coop__nvjitlink_version(&env->nvjitlink_major, &env->nvjitlink_minor);
}
