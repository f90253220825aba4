/* The linker handle: options, inputs, results. Its stages are the link_*.c files (linker.h). */
#include "linker.h"

#include <cooplink/coopgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "driver.h"

int coop__sl_add(strlist *l, const char *s)
{
  for (size_t i = 0; i < l->n; ++i)
    if (strcmp(l->v[i], s) == 0) return 1;
  if (l->n == l->cap) {
    size_t c = l->cap ? l->cap * 2 : 16;
    char **v = realloc(l->v, c * sizeof *v);
    if (!v) return 0;
    l->v = v;
    l->cap = c;
  }
  return (l->v[l->n] = coop__strdup(s)) ? (++l->n, 1) : 0;
}
void coop__sl_free(strlist *l)
{
  for (size_t i = 0; i < l->n; ++i) free(l->v[i]);
  free(l->v);
  memset(l, 0, sizeof *l);
}

double coop__now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

void coop__lg(coop_linker *l, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  coop__str_vprintf(&l->log, fmt, ap);
  va_end(ap);
  coop__str_add(&l->log, "\n");
}

/* ---------------------------------------------------------------- create / destroy */

static int bool_opt(const char *v, int *out)
{
  if (!strcmp(v, "0")) *out = 0;
  else if (!strcmp(v, "1")) *out = 1;
  else return 0;
  return 1;
}

coop_result coop_linker_create(coop_linker **linker, const coop_catalog *catalog, unsigned n_options,
                               const char *const *options)
{
  if (!linker || (n_options && !options)) return COOP_ERROR_INVALID_VALUE;
  coop_linker *l = calloc(1, sizeof *l);
  *linker = l;
  if (!l) return COOP_ERROR_OUT_OF_MEMORY;
  l->catalog = catalog;
  l->cache = 1;
  l->generate = 1;
  char *cache_dir = NULL;
  for (unsigned i = 0; i < n_options; ++i) {
    const char *o = options[i];
    int ok = 1;
    if (!o) ok = 0;
    else if (!strncmp(o, "-arch=", 6)) ok = (l->arch = coop__parse_sm(o + 6)) > 0;
    else if (!strcmp(o, "-lineinfo")) l->lineinfo = 1;
    else if (!strcmp(o, "-ptx")) l->want_ptx = 1;
    else if (!strcmp(o, "-verbose")) l->verbose = 1;
    else if (!strncmp(o, "-cache=", 7)) ok = bool_opt(o + 7, &l->cache);
    else if (!strncmp(o, "-generate=", 10)) ok = bool_opt(o + 10, &l->generate);
    else if (!strncmp(o, "-cache-dir=", 11) && o[11]) {
      free(cache_dir);
      if (!(cache_dir = coop__strdup(o + 11))) return COOP_ERROR_OUT_OF_MEMORY;
    } else if (!strncmp(o, "-Xnvrtc=", 8) && o[8]) ok = coop__sl_add(&l->nvrtc_opts, o + 8) ? 1 : -1;
    else if (!strncmp(o, "-Xnvjitlink=", 12) && o[12]) ok = coop__sl_add(&l->link_opts, o + 12) ? 1 : -1;
    else if (!strncmp(o, "-I", 2) && o[2]) ok = coop__sl_add(&l->includes, o + 2) ? 1 : -1;
    else ok = 0;
    if (ok < 0) { /* (-1: out of memory keeping the option) */
      free(cache_dir);
      return COOP_ERROR_OUT_OF_MEMORY;
    }
    if (!ok) {
      coop__lg(l, "option '%s' is unknown or malformed", o ? o : "(null)");
      free(cache_dir);
      return COOP_ERROR_INVALID_VALUE;
    }
  }
  if (!l->arch) {
    coop_result rc = coop_device_arch(&l->arch);
    if (rc) {
      coop__lg(l, "no -arch given and no GPU to take it from");
      free(cache_dir);
      return rc;
    }
  }
  l->cache_dir = cache_dir ? cache_dir : coop__cache_default_dir();
  if (!l->cache_dir) return COOP_ERROR_OUT_OF_MEMORY;
  if (l->cache) {
    /* An unusable cache is an error now, not a surprise at the end of a link. */
    char *links = coop__path_join(l->cache_dir, "links");
    coop_result rc = links ? coop__mkdirs(links) : COOP_ERROR_OUT_OF_MEMORY;
    if (!rc && access(links, W_OK) != 0) rc = COOP_ERROR_IO;
    free(links);
    if (rc) {
      coop__lg(l, "%s: the cache folder cannot be created or written (use -cache=0, -cache-dir= or COOPLINK_CACHE)",
         l->cache_dir);
      return rc == COOP_ERROR_OUT_OF_MEMORY ? rc : COOP_ERROR_CACHE;
    }
    l->gen_dir = coop__path_join(l->cache_dir, "generated");
  } else {
    /* Without the cache, symbols generated on demand live in a private folder removed on destroy. */
    const char *tmp = getenv("TMPDIR");
    char *tmpl = coop__path_join(tmp && *tmp ? tmp : "/tmp", "cooplink-gen.XXXXXX");
    if (!tmpl) return COOP_ERROR_OUT_OF_MEMORY;
    if (!mkdtemp(tmpl)) {
      coop__lg(l, "%s: cannot create a folder for on-demand generation", tmpl);
      free(tmpl);
      return COOP_ERROR_IO;
    }
    l->private_dir = tmpl;
    l->gen_dir = coop__strdup(tmpl);
  }
  return l->gen_dir ? COOP_SUCCESS : COOP_ERROR_OUT_OF_MEMORY;
}

coop_result coop_linker_destroy(coop_linker **linker)
{
  if (!linker) return COOP_ERROR_INVALID_VALUE;
  coop_linker *l = *linker;
  if (!l) return COOP_SUCCESS;
  for (size_t i = 0; i < l->n_inputs; ++i) {
    free(l->inputs[i].data);
    free(l->inputs[i].name);
    coop__bundle_free(&l->inputs[i].bundle);
  }
  free(l->inputs);
  coop__sl_free(&l->nvrtc_opts);
  coop__sl_free(&l->link_opts);
  coop__sl_free(&l->includes);
  coop__sl_free(&l->bundles_used);
  coop__sl_free(&l->needed);
  coop__free_resolved(l);
  coop_catalog_close(&l->generated);
  if (l->private_dir) coop__remove_tree(l->private_dir);
  free(l->private_dir);
  free(l->cache_dir);
  free(l->gen_dir);
  free(l->cubin);
  free(l->ptx);
  free(l->info_log);
  coop__str_free(&l->log);
  free(l);
  *linker = NULL;
  return COOP_SUCCESS;
}

/* ---------------------------------------------------------------- inputs */

static coop_result push_input(coop_linker *l, input *in)
{
  if (l->n_inputs == l->cap_inputs) {
    size_t c = l->cap_inputs ? l->cap_inputs * 2 : 8;
    input *v = realloc(l->inputs, c * sizeof *v);
    if (!v) return COOP_ERROR_OUT_OF_MEMORY;
    l->inputs = v;
    l->cap_inputs = c;
  }
  l->inputs[l->n_inputs++] = *in;
  return COOP_SUCCESS;
}

coop_result coop_linker_add_data(coop_linker *l, coop_input_kind kind, const void *data, size_t size, const char *name)
{
  if (!l || !data || !name || kind <= COOP_INPUT_AUTO || kind >= COOP_INPUT_BUNDLE) return COOP_ERROR_INVALID_VALUE;
  if (l->state) return COOP_ERROR_STATE;
  input in = {0};
  in.kind = kind;
  in.size = size;
  in.data = malloc(size + 1);
  in.name = coop__strdup(name);
  if (!in.data || !in.name) {
    free(in.data);
    free(in.name);
    return COOP_ERROR_OUT_OF_MEMORY;
  }
  memcpy(in.data, data, size);
  in.data[size] = 0;
  coop_result rc = push_input(l, &in);
  if (rc) {
    free(in.data);
    free(in.name);
  }
  return rc;
}

static coop_input_kind kind_of(const char *path)
{
  static const struct {
    const char *ext;
    coop_input_kind kind;
  } map[] = {{".cu", COOP_INPUT_CUDA},     {".ltoir", COOP_INPUT_LTOIR},   {".ptx", COOP_INPUT_PTX},
             {".cubin", COOP_INPUT_CUBIN}, {".fatbin", COOP_INPUT_FATBIN}, {".a", COOP_INPUT_LIBRARY},
             {".json", COOP_INPUT_BUNDLE}};
  size_t n = strlen(path);
  for (size_t i = 0; i < sizeof map / sizeof map[0]; ++i) {
    size_t e = strlen(map[i].ext);
    if (n > e && strcmp(path + n - e, map[i].ext) == 0) return map[i].kind;
  }
  return COOP_INPUT_AUTO;
}

coop_result coop_linker_add_file(coop_linker *l, coop_input_kind kind, const char *path)
{
  if (!l || !path || kind < COOP_INPUT_AUTO || kind > COOP_INPUT_BUNDLE) return COOP_ERROR_INVALID_VALUE;
  if (l->state) return COOP_ERROR_STATE;
  coop__str_clear(&l->log);
  if (kind == COOP_INPUT_AUTO) kind = kind_of(path);
  if (kind == COOP_INPUT_AUTO) {
    coop__lg(l, "%s: unknown input kind (expected .cu .ltoir .ptx .cubin .fatbin .a or a bundle .json)", path);
    return COOP_ERROR_INPUT;
  }
  if (kind == COOP_INPUT_BUNDLE) {
    input in = {0};
    in.kind = kind;
    coop_result rc = coop__bundle_load(&in.bundle, path, &l->log);
    if (rc) return rc;
    in.name = coop__strdup(path);
    if (!in.name || push_input(l, &in)) {
      free(in.name);
      coop__bundle_free(&in.bundle);
      return COOP_ERROR_OUT_OF_MEMORY;
    }
    return COOP_SUCCESS;
  }
  char *data;
  size_t size;
  coop_result rc = coop__read_file(path, &data, &size);
  if (rc) {
    coop__lg(l, "%s: cannot read the input", path);
    return rc;
  }
  rc = coop_linker_add_data(l, kind, data, size, path);
  free(data);
  return rc;
}

/* ---------------------------------------------------------------- results */

coop_result coop_linker_get_cubin(const coop_linker *l, const void **cubin, size_t *size)
{
  if (!l || !cubin || !size) return COOP_ERROR_INVALID_VALUE;
  if (l->state != 1) return COOP_ERROR_STATE;
  *cubin = l->cubin;
  *size = l->cubin_size;
  return COOP_SUCCESS;
}

coop_result coop_linker_get_ptx(const coop_linker *l, const char **ptx, size_t *size)
{
  if (!l || !ptx || !size) return COOP_ERROR_INVALID_VALUE;
  if (l->state != 1 || !l->ptx) return COOP_ERROR_STATE;
  *ptx = l->ptx;
  *size = l->ptx_size;
  return COOP_SUCCESS;
}

coop_result coop_linker_get_info(const coop_linker *l, coop_link_info *info)
{
  if (!l || !info) return COOP_ERROR_INVALID_VALUE;
  *info = l->info;
  return COOP_SUCCESS;
}

coop_result coop_linker_get_bundle(const coop_linker *l, size_t i, const char **name)
{
  if (!l || !name || i >= l->bundles_used.n) return COOP_ERROR_INVALID_VALUE;
  *name = l->bundles_used.v[i];
  return COOP_SUCCESS;
}

static const char *full_log(const coop_linker *l, coop__str *tmp)
{
  coop__str_add(tmp, coop__str_get(&l->log));
  if (l->info_log && *l->info_log) coop__str_printf(tmp, "nvJitLink info log:\n%s", l->info_log);
  return coop__str_get(tmp);
}

coop_result coop_linker_get_log_size(const coop_linker *l, size_t *size)
{
  if (!l || !size) return COOP_ERROR_INVALID_VALUE;
  coop__str t = {0};
  *size = strlen(full_log(l, &t)) + 1;
  coop__str_free(&t);
  return COOP_SUCCESS;
}

coop_result coop_linker_get_log(const coop_linker *l, char *log)
{
  if (!l || !log) return COOP_ERROR_INVALID_VALUE;
  coop__str t = {0};
  const char *s = full_log(l, &t);
  memcpy(log, s, strlen(s) + 1);
  coop__str_free(&t);
  return COOP_SUCCESS;
}

