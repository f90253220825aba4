/* Resolution without a link, for layers that run their own linker (the Python layer hands the payloads to
 * Numba's): declared symbols and user types, coop_linker_resolve, and each bundle's payload and manifest. */
#include "linker.h"

#include <cooplink/coopgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

coop_result coop__read_payloads(coop_linker *l, const coop__bundle *const *bundles, size_t n, blob *out)
{
  coop_result rc = COOP_SUCCESS;
  for (size_t i = 0; i < n && !rc; ++i) {
    const coop__payload *p = coop__bundle_payload(bundles[i], l->arch);
    if (!p) {
      coop__str have = {0};
      for (int k = 0; k < bundles[i]->n_payloads; ++k) coop__str_printf(&have, " sm_%d", bundles[i]->payloads[k].arch);
      coop__lg(l, "%s: archs: no payload at or below sm_%d (the bundle has%s)", bundles[i]->manifest, l->arch,
               coop__str_get(&have));
      coop__str_free(&have);
      return COOP_ERROR_BUNDLE_ARCH;
    }
    rc = coop__bundle_read_payload(bundles[i], p, &out[i].data, &out[i].size, &l->log);
    out[i].name = bundles[i]->name;
    out[i].fatbin = p->fatbin;
  }
  return rc;
}

void coop__free_resolved(coop_linker *l)
{
  for (size_t i = 0; i < l->n_resolved; ++i) {
    free(l->resolved[i].data);
    free(l->resolved_manifest[i]);
  }
  free(l->resolved);
  free(l->resolved_manifest);
  l->resolved = NULL;
  l->resolved_manifest = NULL;
  l->n_resolved = 0;
}

coop_result coop_linker_add_symbol(coop_linker *l, const char *symbol)
{
  if (!l || !symbol || strncmp(symbol, "coop_", 5) != 0 || strlen(symbol) >= 200) return COOP_ERROR_INVALID_VALUE;
  if (l->state) return COOP_ERROR_STATE;
  return coop__sl_add(&l->needed, symbol) ? COOP_SUCCESS : COOP_ERROR_OUT_OF_MEMORY;
}

coop_result coop_linker_add_type(coop_linker *l, const char *name, size_t size, size_t align)
{
  if (!l || !name) return COOP_ERROR_INVALID_VALUE;
  if (l->state) return COOP_ERROR_STATE;
  coop__str_clear(&l->log);
  for (int i = 0; i < l->n_types; ++i) {
    const coop__utype *t = &l->types[i];
    if (strcmp(t->name, name)) continue;
    if (t->size == size && t->align == align) return COOP_SUCCESS;
    coop__lg(l, "coop_linker_add_type: type '%s' is already declared with size %lu and alignment %lu", name, t->size,
             t->align);
    return COOP_ERROR_INVALID_VALUE;
  }
  if (l->n_types == (int)(sizeof l->types / sizeof l->types[0])) {
    coop__lg(l, "coop_linker_add_type: more than %zu user types", sizeof l->types / sizeof l->types[0]);
    return COOP_ERROR_INVALID_VALUE;
  }
  /* the generator's rules, checked by the generator */
  coop_gen *gen = NULL;
  coop_result rc = coop_gen_create(&gen);
  if (rc) return rc;
  rc = coop_gen_add_type(gen, name, size, align);
  if (rc == COOP_ERROR_SPEC_INVALID) {
    size_t n = 0;
    coop_gen_get_log_size(gen, &n);
    char *log = malloc(n);
    if (log && coop_gen_get_log(gen, log) == COOP_SUCCESS) {
      log[strcspn(log, "\n")] = 0;
      coop__lg(l, "coop_linker_add_type: %s", strncmp(log, "coop_gen_add_type: ", 19) ? log : log + 19);
    }
    free(log);
    rc = COOP_ERROR_INVALID_VALUE;
  }
  coop_gen_destroy(&gen);
  if (rc) return rc;
  coop__utype *t = &l->types[l->n_types++];
  snprintf(t->name, sizeof t->name, "%s", name);
  t->size = size;
  t->align = align;
  return COOP_SUCCESS;
}

coop_result coop_linker_resolve(coop_linker *l)
{
  if (!l) return COOP_ERROR_INVALID_VALUE;
  coop__str_clear(&l->log);
  if (l->state) {
    coop__lg(l, "coop_linker_resolve: this handle was already resolved or linked");
    return COOP_ERROR_STATE;
  }
  l->state = 2;
  coop_result rc = coop__compile_cuda_inputs(l);
  if (!rc && l->n_inputs) rc = coop__discover(l);
  const coop__bundle **bundles = NULL;
  size_t n = 0;
  if (!rc) rc = coop__resolve(l, &bundles, &n);
  if (!rc) {
    l->resolved = calloc(n + 1, sizeof *l->resolved);
    l->resolved_manifest = calloc(n + 1, sizeof *l->resolved_manifest);
    if (!l->resolved || !l->resolved_manifest) rc = COOP_ERROR_OUT_OF_MEMORY;
  }
  if (!rc) {
    l->n_resolved = n;
    rc = coop__read_payloads(l, bundles, n, l->resolved);
    for (size_t i = 0; i < n && !rc; ++i)
      if (!(l->resolved_manifest[i] = coop__strdup(bundles[i]->manifest)) || !coop__sl_add(&l->bundles_used, bundles[i]->name))
        rc = COOP_ERROR_OUT_OF_MEMORY;
  }
  free(bundles);
  if (rc) {
    coop__free_resolved(l);
    coop__sl_free(&l->bundles_used);
    return rc;
  }
  l->info.n_bundles = l->bundles_used.n;
  l->state = 3;
  return COOP_SUCCESS;
}

coop_result coop_linker_get_payload(const coop_linker *l, size_t i, const void **data, size_t *size, coop_input_kind *kind)
{
  if (!l || !data || !size || !kind) return COOP_ERROR_INVALID_VALUE;
  if (l->state != 3) return COOP_ERROR_STATE;
  if (i >= l->n_resolved) return COOP_ERROR_INVALID_VALUE;
  *data = l->resolved[i].data;
  *size = l->resolved[i].size;
  *kind = l->resolved[i].fatbin ? COOP_INPUT_FATBIN : COOP_INPUT_LTOIR;
  return COOP_SUCCESS;
}

coop_result coop_linker_get_manifest(const coop_linker *l, size_t i, const char **path)
{
  if (!l || !path) return COOP_ERROR_INVALID_VALUE;
  if (l->state != 3) return COOP_ERROR_STATE;
  if (i >= l->n_resolved) return COOP_ERROR_INVALID_VALUE;
  *path = l->resolved_manifest[i];
  return COOP_SUCCESS;
}
