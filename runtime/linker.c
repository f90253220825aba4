/* The linker handle: inputs, auto-resolution of coop_ symbols against the catalog (or on-demand
 * generation), nvJitLink, and the disk cache. */
#include "runtime.h"

#include <cooplink/coopgen.h>
#include <cooplink/version.h>
#include <elf.h>
#include <nvJitLink.h>
#include "../common/nvrtc_dl.h"
#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "driver.h"

typedef struct input {
  coop_input_kind kind;
  char *data;
  size_t size;
  char *name;
  coop__bundle bundle; /* COOP_INPUT_BUNDLE */
} input;

typedef struct strlist {
  char **v;
  size_t n, cap;
} strlist;

struct coop_linker {
  const coop_catalog *catalog;
  coop_catalog *generated;
  int arch, lineinfo, want_ptx, cache, generate, verbose, state;
  char *cache_dir, *gen_dir, *private_dir;
  strlist nvrtc_opts, link_opts, includes, bundles_used, needed;
  input *inputs;
  size_t n_inputs, cap_inputs;
  coop__str log;
  char *cubin, *ptx, *info_log;
  size_t cubin_size, ptx_size;
  coop_link_info info;
};

static int sl_add(strlist *l, const char *s)
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
static void sl_free(strlist *l)
{
  for (size_t i = 0; i < l->n; ++i) free(l->v[i]);
  free(l->v);
  memset(l, 0, sizeof *l);
}

static double now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void lg(coop_linker *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void lg(coop_linker *l, const char *fmt, ...)
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
      cache_dir = coop__strdup(o + 11);
    } else if (!strncmp(o, "-Xnvrtc=", 8) && o[8]) ok = sl_add(&l->nvrtc_opts, o + 8);
    else if (!strncmp(o, "-Xnvjitlink=", 12) && o[12]) ok = sl_add(&l->link_opts, o + 12);
    else if (!strncmp(o, "-I", 2) && o[2]) ok = sl_add(&l->includes, o + 2);
    else ok = 0;
    if (!ok) {
      lg(l, "option '%s' is unknown or malformed", o ? o : "(null)");
      free(cache_dir);
      return COOP_ERROR_INVALID_VALUE;
    }
  }
  if (!l->arch) {
    coop_result rc = coop_device_arch(&l->arch);
    if (rc) {
      lg(l, "no -arch given and no GPU to take it from");
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
      lg(l, "%s: the cache folder cannot be created or written (use -cache=0, -cache-dir= or COOPLINK_CACHE)",
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
      lg(l, "%s: cannot create a folder for on-demand generation", tmpl);
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
  sl_free(&l->nvrtc_opts);
  sl_free(&l->link_opts);
  sl_free(&l->includes);
  sl_free(&l->bundles_used);
  sl_free(&l->needed);
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
    lg(l, "%s: unknown input kind (expected .cu .ltoir .ptx .cubin .fatbin .a or a bundle .json)", path);
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
    lg(l, "%s: cannot read the input", path);
    return rc;
  }
  rc = coop_linker_add_data(l, kind, data, size, path);
  free(data);
  return rc;
}

/* ---------------------------------------------------------------- NVRTC */

static coop_result compile_cuda(coop_linker *l, input *in)
{
  char why[1100];
  if (!coop__nvrtc_available(why, sizeof why)) {
    lg(l, "%s: %s", in->name, why);
    return COOP_ERROR_TOOLKIT;
  }
  const char *root = coop__cuda_root();
  strlist opts = {0};
  char buf[4200];
  int ok = 1;
  snprintf(buf, sizeof buf, "-arch=compute_%d", l->arch);
  ok &= sl_add(&opts, "-dlto") && sl_add(&opts, buf) && sl_add(&opts, "-std=c++17");
  /* Both include paths, always: without the second CCCL silently miscompiles (DESIGN.md). */
  snprintf(buf, sizeof buf, "-I%s/include/cccl", root);
  ok &= sl_add(&opts, buf);
  snprintf(buf, sizeof buf, "-I%s/include", root);
  ok &= sl_add(&opts, buf);
  if (l->catalog) {
    snprintf(buf, sizeof buf, "-I%s", l->catalog->dir);
    ok &= sl_add(&opts, buf);
  }
  snprintf(buf, sizeof buf, "-I%s", l->gen_dir);
  ok &= sl_add(&opts, buf);
  for (size_t i = 0; i < l->includes.n; ++i) {
    snprintf(buf, sizeof buf, "-I%s", l->includes.v[i]);
    ok &= sl_add(&opts, buf);
  }
  if (l->lineinfo) ok &= sl_add(&opts, "-lineinfo");
  for (size_t i = 0; i < l->nvrtc_opts.n; ++i) ok &= sl_add(&opts, l->nvrtc_opts.v[i]);
  if (!ok) {
    sl_free(&opts);
    return COOP_ERROR_OUT_OF_MEMORY;
  }
  nvrtcProgram prog;
  nvrtcResult r = nvrtcCreateProgram(&prog, in->data, in->name, 0, NULL, NULL);
  if (r != NVRTC_SUCCESS) {
    lg(l, "%s: nvrtcCreateProgram: %s", in->name, nvrtcGetErrorString(r));
    sl_free(&opts);
    return COOP_ERROR_NVRTC;
  }
  r = nvrtcCompileProgram(prog, (int)opts.n, (const char *const *)opts.v);
  size_t ls = 0;
  if (nvrtcGetProgramLogSize(prog, &ls) == NVRTC_SUCCESS && ls > 1) {
    char *text = malloc(ls);
    if (text && nvrtcGetProgramLog(prog, text) == NVRTC_SUCCESS) coop__str_printf(&l->log, "NVRTC log (%s):\n%s\n", in->name, text);
    free(text);
  }
  coop_result rc = COOP_SUCCESS;
  size_t size = 0;
  char *ir = NULL;
  if (r != NVRTC_SUCCESS) {
    lg(l, "%s: NVRTC failed: %s", in->name, nvrtcGetErrorString(r));
    rc = COOP_ERROR_NVRTC;
  } else if ((r = nvrtcGetLTOIRSize(prog, &size)) != NVRTC_SUCCESS || !(ir = malloc(size + 1)) ||
             (r = nvrtcGetLTOIR(prog, ir)) != NVRTC_SUCCESS) {
    lg(l, "%s: cannot get the LTO-IR: %s", in->name, nvrtcGetErrorString(r));
    rc = ir ? COOP_ERROR_NVRTC : COOP_ERROR_OUT_OF_MEMORY;
    free(ir);
  } else {
    free(in->data);
    in->data = ir;
    in->size = size;
    in->kind = COOP_INPUT_LTOIR;
  }
  nvrtcDestroyProgram(&prog);
  sl_free(&opts);
  return rc;
}

/* ---------------------------------------------------------------- nvJitLink */

static nvJitLinkInputType jl_kind(coop_input_kind k)
{
  switch (k) {
  case COOP_INPUT_LTOIR: return NVJITLINK_INPUT_LTOIR;
  case COOP_INPUT_PTX: return NVJITLINK_INPUT_PTX;
  case COOP_INPUT_CUBIN: return NVJITLINK_INPUT_CUBIN;
  case COOP_INPUT_FATBIN: return NVJITLINK_INPUT_FATBIN;
  default: return NVJITLINK_INPUT_LIBRARY;
  }
}

typedef struct blob {
  char *data;
  size_t size;
  const char *name;
  int fatbin;
} blob;

static char *jl_log(nvJitLinkHandle h, int info)
{
  size_t n = 0;
  nvJitLinkResult r = info ? nvJitLinkGetInfoLogSize(h, &n) : nvJitLinkGetErrorLogSize(h, &n);
  if (r != NVJITLINK_SUCCESS) return NULL;
  char *s = malloc(n + 1);
  if (!s) return NULL;
  r = info ? nvJitLinkGetInfoLog(h, s) : nvJitLinkGetErrorLog(h, s);
  if (r != NVJITLINK_SUCCESS) s[0] = 0;
  s[n] = 0;
  return s;
}

/* One nvJitLink run over the user inputs (those of kind only_kind, or all when 0) and the extra blobs.
 * ptx: produce PTX instead of a cubin. */
static coop_result jl_run(coop_linker *l, int only_kind, const blob *extra, size_t n_extra, int ptx, char **out,
                          size_t *out_size, char **info, char **error)
{
  strlist o = {0};
  char a[32];
  snprintf(a, sizeof a, "-arch=sm_%d", l->arch);
  int ok = sl_add(&o, a) && sl_add(&o, "-lto") && sl_add(&o, "-optimize-unused-variables");
  /* ptxas's resource report costs 1-3 ms a link: only on request */
  if (l->verbose && !only_kind) ok &= sl_add(&o, "-verbose");
  if (ptx) ok &= sl_add(&o, "-ptx");
  /* Discovery only needs the .extern declarations, which -O0 keeps: 1.1 ms instead of 4-7 ms. */
  if (ptx && only_kind) ok &= sl_add(&o, "-O0");
  if (l->lineinfo) ok &= sl_add(&o, "-lineinfo");
  for (size_t i = 0; i < l->link_opts.n; ++i) ok &= sl_add(&o, l->link_opts.v[i]);
  if (!ok) {
    sl_free(&o);
    return COOP_ERROR_OUT_OF_MEMORY;
  }
  *out = *info = *error = NULL;
  nvJitLinkHandle h;
  nvJitLinkResult r = nvJitLinkCreate(&h, (uint32_t)o.n, (const char **)o.v);
  sl_free(&o);
  if (r != NVJITLINK_SUCCESS) {
    lg(l, "nvJitLinkCreate failed (%d)", (int)r);
    return COOP_ERROR_NVJITLINK;
  }
  coop_result rc = COOP_SUCCESS;
  for (size_t i = 0; i < l->n_inputs && !rc; ++i) {
    input *in = &l->inputs[i];
    if (in->kind == COOP_INPUT_BUNDLE || (only_kind && (int)in->kind != only_kind)) continue;
    if ((r = nvJitLinkAddData(h, jl_kind(in->kind), in->data, in->size, in->name)) != NVJITLINK_SUCCESS) {
      lg(l, "%s: nvJitLink refused the input (%d)", in->name, (int)r);
      rc = COOP_ERROR_INPUT;
    }
  }
  for (size_t i = 0; i < n_extra && !rc; ++i)
    if ((r = nvJitLinkAddData(h, extra[i].fatbin ? NVJITLINK_INPUT_FATBIN : NVJITLINK_INPUT_LTOIR, extra[i].data,
                              extra[i].size, extra[i].name)) !=
        NVJITLINK_SUCCESS) {
      lg(l, "%s: nvJitLink refused the bundle payload (%d)", extra[i].name, (int)r);
      rc = COOP_ERROR_NVJITLINK;
    }
  if (!rc && (r = nvJitLinkComplete(h)) != NVJITLINK_SUCCESS) rc = COOP_ERROR_NVJITLINK;
  if (!rc) {
    r = ptx ? nvJitLinkGetLinkedPtxSize(h, out_size) : nvJitLinkGetLinkedCubinSize(h, out_size);
    if (r == NVJITLINK_SUCCESS && (*out = malloc(*out_size + 1))) {
      r = ptx ? nvJitLinkGetLinkedPtx(h, *out) : nvJitLinkGetLinkedCubin(h, *out);
      (*out)[*out_size] = 0;
    }
    if (r != NVJITLINK_SUCCESS || !*out) {
      rc = *out ? COOP_ERROR_NVJITLINK : COOP_ERROR_OUT_OF_MEMORY;
      free(*out);
      *out = NULL;
    }
  }
  *info = jl_log(h, 1);
  *error = jl_log(h, 0);
  nvJitLinkDestroy(&h);
  return rc;
}

/* ---------------------------------------------------------------- discovery */

static int ident_char(char c)
{
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '$';
}

/* Every ".extern .func [(ret)] coop_xxx(" in PTX text. */
static int scan_ptx(coop_linker *l, const char *ptx)
{
  for (const char *p = ptx; (p = strstr(p, ".extern")); p += 7) {
    const char *q = p + 7;
    while (*q == ' ' || *q == '\t') ++q;
    if (strncmp(q, ".func", 5) != 0) continue;
    q += 5;
    while (*q == ' ' || *q == '\t' || *q == '\n' || *q == '\r') ++q;
    if (*q == '(') {
      int depth = 0;
      for (; *q; ++q) {
        if (*q == '(') ++depth;
        else if (*q == ')' && --depth == 0) {
          ++q;
          break;
        }
      }
      while (*q == ' ' || *q == '\t' || *q == '\n' || *q == '\r') ++q;
    }
    const char *s = q;
    while (ident_char(*q)) ++q;
    if (q - s > 5 && q - s < 200 && strncmp(s, "coop_", 5) == 0) {
      char name[200];
      snprintf(name, sizeof name, "%.*s", (int)(q - s), s);
      if (!sl_add(&l->needed, name)) return 0;
    }
  }
  return 1;
}

/* Undefined coop_ symbols of an ELF cubin. */
static int scan_cubin(coop_linker *l, const input *in)
{
  const unsigned char *d = (const unsigned char *)in->data;
  if (in->size < sizeof(Elf64_Ehdr) || memcmp(d, ELFMAG, SELFMAG) != 0 || d[EI_CLASS] != ELFCLASS64) return 1;
  const Elf64_Ehdr *eh = (const Elf64_Ehdr *)d;
  if (eh->e_shoff == 0 || eh->e_shentsize != sizeof(Elf64_Shdr) ||
      eh->e_shoff + (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr) > in->size)
    return 1;
  const Elf64_Shdr *sh = (const Elf64_Shdr *)(d + eh->e_shoff);
  for (int i = 0; i < eh->e_shnum; ++i) {
    if (sh[i].sh_type != SHT_SYMTAB || sh[i].sh_link >= eh->e_shnum) continue;
    const Elf64_Shdr *strs = &sh[sh[i].sh_link];
    if (sh[i].sh_offset + sh[i].sh_size > in->size || strs->sh_offset + strs->sh_size > in->size) continue;
    const Elf64_Sym *sym = (const Elf64_Sym *)(d + sh[i].sh_offset);
    size_t n = sh[i].sh_size / sizeof(Elf64_Sym);
    for (size_t k = 0; k < n; ++k) {
      if (sym[k].st_shndx != SHN_UNDEF || sym[k].st_name >= strs->sh_size) continue;
      const char *name = (const char *)d + strs->sh_offset + sym[k].st_name;
      size_t maxlen = strs->sh_size - sym[k].st_name;
      if (strnlen(name, maxlen) < maxlen && strncmp(name, "coop_", 5) == 0 && !sl_add(&l->needed, name)) return 0;
    }
  }
  return 1;
}

static coop_result discover(coop_linker *l)
{
  int any_ltoir = 0;
  for (size_t i = 0; i < l->n_inputs; ++i) {
    input *in = &l->inputs[i];
    if (in->kind == COOP_INPUT_LTOIR) any_ltoir = 1;
    if (in->kind == COOP_INPUT_PTX && !scan_ptx(l, in->data)) return COOP_ERROR_OUT_OF_MEMORY;
    if (in->kind == COOP_INPUT_CUBIN && !scan_cubin(l, in)) return COOP_ERROR_OUT_OF_MEMORY;
  }
  if (!any_ltoir) return COOP_SUCCESS;
  /* Link the LTO-IR inputs alone to PTX: every function they call and nobody defines is an .extern. */
  char *ptx = NULL, *info = NULL, *error = NULL;
  size_t size = 0;
  coop_result rc = jl_run(l, COOP_INPUT_LTOIR, NULL, 0, 1, &ptx, &size, &info, &error);
  if (rc) {
    lg(l, "nvJitLink failed on the inputs alone:\n%s", error ? error : "");
  } else if (!scan_ptx(l, ptx)) {
    rc = COOP_ERROR_OUT_OF_MEMORY;
  }
  free(ptx);
  free(info);
  free(error);
  return rc;
}

/* ---------------------------------------------------------------- resolution */

typedef struct chosen {
  const coop__bundle *b;
} chosen;

/* The bundle of c defining sym (its manifest read and checked on first use), or NULL in *b. */
static coop_result find_in(coop_linker *l, const coop_catalog *c, const char *sym, const coop__bundle **b)
{
  *b = NULL;
  return c ? coop__catalog_find_bundle(c, sym, b, &l->log) : COOP_SUCCESS;
}

static int defined_by_extra(const coop_linker *l, const char *sym)
{
  for (size_t i = 0; i < l->n_inputs; ++i) {
    const input *in = &l->inputs[i];
    if (in->kind != COOP_INPUT_BUNDLE) continue;
    for (size_t k = 0; k < in->bundle.n_symbols; ++k)
      if (!strcmp(in->bundle.symbols[k], sym)) return 1;
  }
  return 0;
}

static coop_result reopen_generated(coop_linker *l)
{
  coop_catalog_close(&l->generated);
  if (access(l->gen_dir, F_OK) != 0) return COOP_SUCCESS;
  char *err = NULL;
  coop_result rc = coop__catalog_open(&l->generated, l->gen_dir, &err, 1);
  if (rc) lg(l, "generated bundles: %s", err ? err : "");
  free(err);
  return rc;
}

/* Generates one bundle holding every missing symbol into the generated folder. */
static coop_result generate(coop_linker *l, const strlist *missing)
{
  coop_gen *gen = NULL;
  coop_result rc = coop_gen_create(&gen);
  if (rc) return rc;
  coop__str all = {0};
  for (size_t i = 0; i < missing->n && !rc; ++i) {
    coop__str_printf(&all, "%s\n", missing->v[i]);
    rc = coop_gen_add_symbol(gen, missing->v[i]);
  }
  char hex[65], name[64], arch[16];
  coop__sha256_hex(coop__str_get(&all), all.len, hex);
  snprintf(name, sizeof name, "ondemand_%.16s_sm_%d", hex, l->arch);
  snprintf(arch, sizeof arch, "sm_%d", l->arch);
  if (!rc) rc = coop_gen_set_name(gen, name);
  if (!rc) rc = coop_gen_set_archs(gen, arch);
  if (!rc) rc = coop_gen_write(gen, l->gen_dir);
  if (rc) {
    size_t n = 0;
    coop_gen_get_log_size(gen, &n);
    char *log = malloc(n);
    if (log && coop_gen_get_log(gen, log) == COOP_SUCCESS) coop__str_printf(&l->log, "on-demand generation:\n%s", log);
    free(log);
  } else {
    l->info.n_generated += missing->n;
  }
  coop__str_free(&all);
  coop_gen_destroy(&gen);
  return rc;
}

/* Fills bundles (deduplicated) for every needed symbol, generating or failing on the missing ones. */
static coop_result resolve(coop_linker *l, const coop__bundle ***bundles, size_t *n_bundles)
{
  strlist missing = {0};
  coop_result rc = COOP_SUCCESS;
  /* the generated folder is opened (every manifest parsed) only when the catalog lacks a symbol */
  int gen_open = 0;
  for (int pass = 0; pass < 2 && !rc; ++pass) {
    sl_free(&missing);
    *n_bundles = 0;
    free(*bundles);
    *bundles = calloc(l->needed.n + l->n_inputs + 1, sizeof **bundles);
    if (!*bundles) return COOP_ERROR_OUT_OF_MEMORY;
    for (size_t i = 0; i < l->n_inputs; ++i)
      if (l->inputs[i].kind == COOP_INPUT_BUNDLE) (*bundles)[(*n_bundles)++] = &l->inputs[i].bundle;
    for (size_t i = 0; i < l->needed.n; ++i) {
      const char *sym = l->needed.v[i];
      if (defined_by_extra(l, sym)) continue;
      const coop__bundle *b = NULL;
      if ((rc = find_in(l, l->catalog, sym, &b))) break;
      if (!b && !gen_open) {
        gen_open = 1;
        if ((rc = reopen_generated(l))) break;
      }
      if (!b && (rc = find_in(l, l->generated, sym, &b))) break;
      if (!b) {
        if (!sl_add(&missing, sym)) rc = COOP_ERROR_OUT_OF_MEMORY;
        continue;
      }
      int dup = 0;
      for (size_t k = 0; k < *n_bundles; ++k) dup |= (*bundles)[k] == b;
      if (!dup) (*bundles)[(*n_bundles)++] = b;
    }
    if (rc || missing.n == 0) break;
    if (!l->generate || pass == 1) {
      coop__str list = {0};
      for (size_t i = 0; i < missing.n; ++i) coop__str_printf(&list, "  %s\n", missing.v[i]);
      lg(l, "%zu symbol%s in no bundle of the catalog%s:\n%s", missing.n, missing.n == 1 ? " is" : "s are",
         l->generate ? " (and generation did not provide it)" : " (on-demand generation is off)", coop__str_get(&list));
      coop__str_free(&list);
      rc = COOP_ERROR_SYMBOL_MISSING;
      break;
    }
    rc = generate(l, &missing);
    if (!rc) rc = reopen_generated(l);
  }
  sl_free(&missing);
  return rc;
}

/* ---------------------------------------------------------------- complete */

static void add_key_part(coop__str *k, const char *label, const void *data, size_t size)
{
  char hex[65];
  coop__sha256_hex(data, size, hex);
  coop__str_printf(k, "%s %zu %s\n", label, size, hex);
}

static coop_result make_key(coop_linker *l, char key[65])
{
  coop__str k = {0};
  int jma = 0, jmi = 0;
  coop__nvjitlink_version(&jma, &jmi);
  /* CUDA inputs are keyed by the IR NVRTC made of them, so NVRTC's version is not asked for (that would
   * load it into every process); the toolkit built against stands for on-demand generation */
  int rma = CUDA_VERSION / 1000, rmi = CUDA_VERSION % 1000 / 10;
  coop__str_printf(&k, "cooplink %s\nnvjitlink %d.%d\ntoolkit %d.%d\narch %d\nlineinfo %d\nptx %d\ngenerate %d\nverbose %d\n",
                   COOP_VERSION_STRING, jma, jmi, rma, rmi, l->arch, l->lineinfo, l->want_ptx, l->generate, l->verbose);
  for (size_t i = 0; i < l->link_opts.n; ++i) coop__str_printf(&k, "Xnvjitlink %s\n", l->link_opts.v[i]);
  coop__str_printf(&k, "catalog %s\n", l->catalog ? l->catalog->digest : "-");
  for (size_t i = 0; i < l->n_inputs; ++i) {
    const input *in = &l->inputs[i];
    if (in->kind == COOP_INPUT_BUNDLE) coop__str_printf(&k, "bundle %s\n", in->bundle.manifest_sha256);
    else {
      char label[32];
      snprintf(label, sizeof label, "input %d", (int)in->kind);
      add_key_part(&k, label, in->data, in->size);
    }
  }
  if (k.oom) {
    coop__str_free(&k);
    return COOP_ERROR_OUT_OF_MEMORY;
  }
  coop__sha256_hex(coop__str_get(&k), k.len, key);
  coop__str_free(&k);
  return COOP_SUCCESS;
}

/* "Unresolved extern function 'coop_x'" in a failed link's log: a symbol discovery could not see
 * (inside a fatbin or an archive). Returns 1 if a new one was added. */
static int unresolved_from_log(coop_linker *l, const char *error)
{
  int added = 0;
  const char *pat = "Unresolved extern function '";
  for (const char *p = error; p && (p = strstr(p, pat)); ) {
    p += strlen(pat);
    const char *e = strchr(p, '\'');
    if (!e) break;
    if (e - p > 5 && e - p < 200 && !strncmp(p, "coop_", 5)) {
      char name[200];
      snprintf(name, sizeof name, "%.*s", (int)(e - p), p);
      size_t before = l->needed.n;
      if (sl_add(&l->needed, name) && l->needed.n > before) added = 1;
    }
    p = e;
  }
  return added;
}

static coop_result link_all(coop_linker *l)
{
  const coop__bundle **bundles = NULL;
  size_t n_bundles = 0;
  blob *payloads = NULL;
  coop_result rc = COOP_SUCCESS;
  for (int round = 0; round < 8; ++round) {
    rc = resolve(l, &bundles, &n_bundles);
    if (rc) break;
    free(payloads);
    payloads = calloc(n_bundles + 1, sizeof *payloads);
    if (!payloads) {
      rc = COOP_ERROR_OUT_OF_MEMORY;
      break;
    }
    for (size_t i = 0; i < n_bundles && !rc; ++i) {
      const coop__payload *p = coop__bundle_payload(bundles[i], l->arch);
      if (!p) {
        coop__str have = {0};
        for (int k = 0; k < bundles[i]->n_payloads; ++k) coop__str_printf(&have, " sm_%d", bundles[i]->payloads[k].arch);
        lg(l, "%s: archs: no payload at or below sm_%d (the bundle has%s)", bundles[i]->manifest, l->arch,
           coop__str_get(&have));
        coop__str_free(&have);
        rc = COOP_ERROR_BUNDLE_ARCH;
        break;
      }
      rc = coop__bundle_read_payload(bundles[i], p, &payloads[i].data, &payloads[i].size, &l->log);
      payloads[i].name = bundles[i]->name;
      payloads[i].fatbin = p->fatbin;
    }
    if (rc) break;
    char *info = NULL, *error = NULL;
    free(l->cubin);
    l->cubin = NULL;
    rc = jl_run(l, 0, payloads, n_bundles, 0, &l->cubin, &l->cubin_size, &info, &error);
    if (rc == COOP_ERROR_NVJITLINK && error && unresolved_from_log(l, error)) {
      free(info);
      free(error);
      for (size_t i = 0; i < n_bundles; ++i) free(payloads[i].data);
      continue; /* a symbol hidden in a fatbin or archive: resolve it too */
    }
    if (rc) lg(l, "nvJitLink failed:\n%s", error ? error : "");
    free(l->info_log);
    l->info_log = info ? info : coop__strdup("");
    free(error);
    if (!rc && l->want_ptx) {
      char *pinfo = NULL, *perr = NULL;
      rc = jl_run(l, 0, payloads, n_bundles, 1, &l->ptx, &l->ptx_size, &pinfo, &perr);
      if (rc) lg(l, "nvJitLink (PTX) failed:\n%s", perr ? perr : "");
      free(pinfo);
      free(perr);
    }
    break;
  }
  if (!rc) {
    sl_free(&l->bundles_used);
    for (size_t i = 0; i < n_bundles; ++i)
      if (!sl_add(&l->bundles_used, bundles[i]->name)) rc = COOP_ERROR_OUT_OF_MEMORY;
  }
  for (size_t i = 0; payloads && i < n_bundles; ++i) free(payloads[i].data);
  free(payloads);
  free(bundles);
  return rc;
}

coop_result coop_linker_complete(coop_linker *l)
{
  if (!l) return COOP_ERROR_INVALID_VALUE;
  coop__str_clear(&l->log);
  if (l->state) {
    lg(l, "coop_linker_complete was already called on this handle");
    return COOP_ERROR_STATE;
  }
  if (l->n_inputs == 0) {
    lg(l, "no inputs to link");
    return COOP_ERROR_STATE;
  }
  l->state = 2;
  double t0 = now();
  coop_result rc = COOP_SUCCESS;
  for (size_t i = 0; i < l->n_inputs && !rc; ++i)
    if (l->inputs[i].kind == COOP_INPUT_CUDA) rc = compile_cuda(l, &l->inputs[i]);
  if (rc) return rc;
  char key[65];
  if ((rc = make_key(l, key))) return rc;
  if (l->cache) {
    coop__cache_entry e;
    if (coop__cache_get(l->cache_dir, key, &e)) {
      l->cubin = e.cubin;
      l->cubin_size = e.cubin_size;
      l->ptx = e.ptx_size ? e.ptx : (free(e.ptx), NULL);
      l->ptx_size = e.ptx_size;
      l->info_log = e.info;
      for (char *s = e.bundles, *nl; s && *s; s = nl + 1) {
        nl = strchr(s, '\n');
        if (!nl) break;
        *nl = 0;
        if (!sl_add(&l->bundles_used, s)) rc = COOP_ERROR_OUT_OF_MEMORY;
      }
      free(e.bundles);
      l->info.cache_hit = 1;
      l->info.n_bundles = l->bundles_used.n;
      l->info.seconds = now() - t0;
      if (!rc) l->state = 1;
      return rc;
    }
  }
  rc = discover(l);
  if (!rc) rc = link_all(l);
  if (rc) return rc;
  l->info.n_bundles = l->bundles_used.n;
  if (l->cache) {
    coop__str names = {0};
    for (size_t i = 0; i < l->bundles_used.n; ++i) coop__str_printf(&names, "%s\n", l->bundles_used.v[i]);
    coop__cache_entry e = {l->cubin, l->ptx ? l->ptx : "", l->info_log, (char *)coop__str_get(&names),
                           l->cubin_size, l->ptx_size, strlen(l->info_log), names.len};
    coop_result crc = coop__cache_put(l->cache_dir, key, &e, coop__cache_max_bytes());
    coop__str_free(&names);
    if (crc) lg(l, "%s: the link succeeded but could not be cached", l->cache_dir);
  }
  l->info.seconds = now() - t0;
  l->state = 1;
  return COOP_SUCCESS;
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
