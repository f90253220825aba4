/* The linker's last stage: nvJitLink runs, the cache key, and coop_linker_complete. */
#include "linker.h"

#include <cooplink/version.h>
#include <cuda.h>
#include <jansson.h>
#include <nvJitLink.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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


/* nvJitLink's info or error log, malloc'd (empty when it has none to give); NULL only when out of memory. */
static char *jl_log(nvJitLinkHandle h, int info)
{
  size_t n = 0;
  nvJitLinkResult r = info ? nvJitLinkGetInfoLogSize(h, &n) : nvJitLinkGetErrorLogSize(h, &n);
  if (r != NVJITLINK_SUCCESS) n = 0;
  char *s = malloc(n + 1);
  if (!s) return NULL;
  r = info ? nvJitLinkGetInfoLog(h, s) : nvJitLinkGetErrorLog(h, s);
  if (r != NVJITLINK_SUCCESS) s[0] = 0;
  s[n] = 0;
  return s;
}

/* One nvJitLink run over the user inputs (those of kind only_kind, or all when 0) and the extra blobs.
 * ptx: produce PTX instead of a cubin. */
coop_result coop__jl_run(coop_linker *l, int only_kind, const blob *extra, size_t n_extra, int ptx, char **out,
                          size_t *out_size, char **info, char **error)
{
  strlist o = {0};
  char a[32];
  snprintf(a, sizeof a, "-arch=sm_%d", l->arch);
  int ok = coop__sl_add(&o, a) && coop__sl_add(&o, "-lto") && coop__sl_add(&o, "-optimize-unused-variables");
  /* ptxas's resource report costs 1-3 ms a link: only on request */
  if (l->verbose && !only_kind) ok &= coop__sl_add(&o, "-verbose");
  if (ptx) ok &= coop__sl_add(&o, "-ptx");
  /* Discovery only needs the .extern declarations, which -O0 keeps: 1.1 ms instead of 4-7 ms. */
  if (ptx && only_kind) ok &= coop__sl_add(&o, "-O0");
  if (l->lineinfo) ok &= coop__sl_add(&o, "-lineinfo");
  for (size_t i = 0; i < l->link_opts.n; ++i) ok &= coop__sl_add(&o, l->link_opts.v[i]);
  if (!ok) {
    coop__sl_free(&o);
    return COOP_ERROR_OUT_OF_MEMORY;
  }
  *out = *info = *error = NULL;
  nvJitLinkHandle h;
  nvJitLinkResult r = nvJitLinkCreate(&h, (uint32_t)o.n, (const char **)o.v);
  coop__sl_free(&o);
  if (r != NVJITLINK_SUCCESS) {
    coop__lg(l, "nvJitLinkCreate failed (%d)", (int)r);
    return COOP_ERROR_NVJITLINK;
  }
  coop_result rc = COOP_SUCCESS;
  for (size_t i = 0; i < l->n_inputs && !rc; ++i) {
    input *in = &l->inputs[i];
    if (in->kind == COOP_INPUT_BUNDLE || (only_kind && (int)in->kind != only_kind)) continue;
    if ((r = nvJitLinkAddData(h, jl_kind(in->kind), in->data, in->size, in->name)) != NVJITLINK_SUCCESS) {
      coop__lg(l, "%s: nvJitLink refused the input (%d)", in->name, (int)r);
      /* a malformed input is the caller's; any other refusal nvJitLink's own */
      rc = r == NVJITLINK_ERROR_INVALID_INPUT || r == NVJITLINK_ERROR_UNRECOGNIZED_INPUT ||
               r == NVJITLINK_ERROR_INCORRECT_INPUT_TYPE
             ? COOP_ERROR_INPUT
             : COOP_ERROR_NVJITLINK;
    }
  }
  for (size_t i = 0; i < n_extra && !rc; ++i)
    if ((r = nvJitLinkAddData(h, extra[i].fatbin ? NVJITLINK_INPUT_FATBIN : NVJITLINK_INPUT_LTOIR, extra[i].data,
                              extra[i].size, extra[i].name)) !=
        NVJITLINK_SUCCESS) {
      coop__lg(l, "%s: nvJitLink refused the bundle payload (%d)", extra[i].name, (int)r);
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
      rc = r != NVJITLINK_SUCCESS ? COOP_ERROR_NVJITLINK : COOP_ERROR_OUT_OF_MEMORY;
      free(*out);
      *out = NULL;
    }
  }
  *info = jl_log(h, 1);
  *error = jl_log(h, 0);
  nvJitLinkDestroy(&h);
  if (!*info || !*error) {
    free(*out);
    *out = NULL;
    rc = COOP_ERROR_OUT_OF_MEMORY;
  }
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
  for (int i = 0; i < l->n_types; ++i) /* what on-demand generation makes of a user type's symbols */
    coop__str_printf(&k, "type %s %lu %lu\n", l->types[i].name, l->types[i].size, l->types[i].align);
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
      if (coop__sl_add(&l->needed, name) && l->needed.n > before) added = 1;
    }
    p = e;
  }
  return added;
}

/* A failed link that misses what a bundle's manifest lists under "needs" (a custom operator the user's
 * code supplies): names the symbol that needs it and the signature to define. Returns 1 if it found one. */
static int missing_needs(coop_linker *l, const coop__bundle *const *bundles, size_t n_bundles, const char *error)
{
  int found = 0;
  const char *pat = "Unresolved extern function '";
  for (const char *p = error; p && (p = strstr(p, pat));) {
    p += strlen(pat);
    const char *e = strchr(p, '\'');
    if (!e || e - p >= 200) break;
    char name[200];
    snprintf(name, sizeof name, "%.*s", (int)(e - p), p);
    p = e;
    for (size_t b = 0; b < n_bundles; ++b) {
      json_t *m = json_load_file(bundles[b]->manifest, 0, NULL);
      size_t i, k;
      json_t *sym, *need;
      json_array_foreach(json_object_get(m, "symbols"), i, sym)
      {
        json_array_foreach(json_object_get(sym, "needs"), k, need)
        {
          if (strcmp(json_string_value(json_object_get(need, "name")) ? json_string_value(json_object_get(need, "name")) : "",
                     name) != 0)
            continue;
          coop__lg(l, "%s (bundle %s) calls the %s '%s', which no input defines: define %s in the code you link",
                   json_string_value(json_object_get(sym, "name")), bundles[b]->name,
                   json_string_value(json_object_get(need, "kind")), name,
                   json_string_value(json_object_get(need, "signature")));
          found = 1;
        }
      }
      json_decref(m);
    }
  }
  return found;
}

static coop_result link_all(coop_linker *l)
{
  const coop__bundle **bundles = NULL;
  size_t n_bundles = 0;
  blob *payloads = NULL;
  coop_result rc = COOP_SUCCESS;
  for (int round = 0; round < 8; ++round) {
    rc = coop__resolve(l, &bundles, &n_bundles);
    if (rc) break;
    free(payloads);
    payloads = calloc(n_bundles + 1, sizeof *payloads);
    if (!payloads) {
      rc = COOP_ERROR_OUT_OF_MEMORY;
      break;
    }
    rc = coop__read_payloads(l, bundles, n_bundles, payloads);
    if (rc) break;
    char *info = NULL, *error = NULL;
    free(l->cubin);
    l->cubin = NULL;
    rc = coop__jl_run(l, 0, payloads, n_bundles, 0, &l->cubin, &l->cubin_size, &info, &error);
    if (rc == COOP_ERROR_NVJITLINK && error && unresolved_from_log(l, error)) {
      free(info);
      free(error);
      for (size_t i = 0; i < n_bundles; ++i) free(payloads[i].data);
      continue; /* a symbol hidden in a fatbin or archive: resolve it too */
    }
    if (rc == COOP_ERROR_NVJITLINK && error && missing_needs(l, bundles, n_bundles, error))
      rc = COOP_ERROR_SYMBOL_MISSING;
    if (rc) coop__lg(l, "nvJitLink failed:\n%s", error ? error : "");
    free(l->info_log);
    l->info_log = info ? info : coop__strdup("");
    free(error);
    if (!rc && l->want_ptx) {
      char *pinfo = NULL, *perr = NULL;
      rc = coop__jl_run(l, 0, payloads, n_bundles, 1, &l->ptx, &l->ptx_size, &pinfo, &perr);
      if (rc) coop__lg(l, "nvJitLink (PTX) failed:\n%s", perr ? perr : "");
      free(pinfo);
      free(perr);
    }
    break;
  }
  if (!rc) {
    coop__sl_free(&l->bundles_used);
    for (size_t i = 0; i < n_bundles; ++i)
      if (!coop__sl_add(&l->bundles_used, bundles[i]->name)) rc = COOP_ERROR_OUT_OF_MEMORY;
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
    coop__lg(l, "coop_linker_complete was already called on this handle");
    return COOP_ERROR_STATE;
  }
  if (l->n_inputs == 0) {
    coop__lg(l, "no inputs to link");
    return COOP_ERROR_STATE;
  }
  l->state = 2;
  double t0 = coop__now();
  coop_result rc = coop__compile_cuda_inputs(l);
  if (rc) return rc;
  char key[65];
  if ((rc = make_key(l, key))) return rc;
  if (l->cache) {
    coop__cache_entry e;
    const int hit = coop__cache_get(l->cache_dir, key, &e);
    if (hit < 0) return COOP_ERROR_OUT_OF_MEMORY;
    if (hit) {
      l->cubin = e.cubin;
      l->cubin_size = e.cubin_size;
      l->ptx = e.ptx_size ? e.ptx : (free(e.ptx), NULL);
      l->ptx_size = e.ptx_size;
      l->info_log = e.info;
      for (char *s = e.bundles, *nl; s && *s; s = nl + 1) {
        nl = strchr(s, '\n');
        if (!nl) break;
        *nl = 0;
        if (!coop__sl_add(&l->bundles_used, s)) rc = COOP_ERROR_OUT_OF_MEMORY;
      }
      free(e.bundles);
      l->info.cache_hit = 1;
      l->info.n_bundles = l->bundles_used.n;
      l->info.seconds = coop__now() - t0;
      if (!rc) l->state = 1;
      return rc;
    }
  }
  rc = coop__discover(l);
  if (!rc) rc = link_all(l);
  if (rc) return rc;
  l->info.n_bundles = l->bundles_used.n;
  if (l->cache) {
    coop__str names = {0};
    for (size_t i = 0; i < l->bundles_used.n; ++i) coop__str_printf(&names, "%s\n", l->bundles_used.v[i]);
    coop__cache_entry e = {l->cubin, l->ptx ? l->ptx : "", l->info_log, (char *)coop__str_get(&names),
                           l->cubin_size, l->ptx_size, strlen(l->info_log), names.len};
    coop_result crc = names.oom ? COOP_ERROR_OUT_OF_MEMORY : coop__cache_put(l->cache_dir, key, &e, coop__cache_max_bytes());
    coop__str_free(&names);
    /* a full or unwritable cache costs only the next link's time; running out of memory is reported */
    if (crc == COOP_ERROR_OUT_OF_MEMORY) return crc;
    if (crc) coop__lg(l, "%s: the link succeeded but could not be cached", l->cache_dir);
  }
  l->info.seconds = coop__now() - t0;
  l->state = 1;
  return COOP_SUCCESS;
}

