/* The linker's third stage: the bundles that define the needed symbols: extra bundles, the catalog,
 * the folder of bundles generated on demand, and on-demand generation for the rest. */
#include "linker.h"

#include <cooplink/coopgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---------------------------------------------------------------- resolution */

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
  if (rc) coop__lg(l, "generated bundles: %s", err ? err : "");
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
  for (int i = 0; i < l->n_types && !rc; ++i) { /* part of the bundle's name: another size is another bundle */
    const coop__utype *t = &l->types[i];
    coop__str_printf(&all, "type %s %lu %lu\n", t->name, t->size, t->align);
    rc = coop_gen_add_type(gen, t->name, t->size, t->align);
  }
  for (size_t i = 0; i < missing->n && !rc; ++i) {
    coop__str_printf(&all, "%s\n", missing->v[i]);
    rc = coop_gen_add_symbol(gen, missing->v[i]);
  }
  char hex[65], name[64], arch[16];
  if (!rc && all.oom) rc = COOP_ERROR_OUT_OF_MEMORY; /* (the bundle's name is this list's hash) */
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

/* A bundle built for a user type of the link's name but of another size or alignment. */
static coop_result check_types(coop_linker *l, const coop__bundle *b)
{
  for (size_t k = 0; k < b->n_types; ++k)
    for (int i = 0; i < l->n_types; ++i) {
      const coop__utype *have = &b->types[k], *want = &l->types[i];
      if (strcmp(have->name, want->name) || (have->size == want->size && have->align == want->align)) continue;
      coop__lg(l, "bundle %s (%s) was built for user type '%s' of %lu bytes aligned to %lu, but this link declares it "
               "as %lu bytes aligned to %lu: the name is part of its symbols, so give the other type another name",
               b->name, b->manifest, have->name, have->size, have->align, want->size, want->align);
      return COOP_ERROR_TYPE_MISMATCH;
    }
  return COOP_SUCCESS;
}

/* Fills bundles (deduplicated) for every needed symbol, generating or failing on the missing ones. */
coop_result coop__resolve(coop_linker *l, const coop__bundle ***bundles, size_t *n_bundles)
{
  strlist missing = {0};
  coop_result rc = COOP_SUCCESS;
  /* the generated folder is opened (every manifest parsed) only when the catalog lacks a symbol */
  int gen_open = 0;
  for (int pass = 0; pass < 2 && !rc; ++pass) {
    coop__sl_free(&missing);
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
        if (!coop__sl_add(&missing, sym)) rc = COOP_ERROR_OUT_OF_MEMORY;
        continue;
      }
      int dup = 0;
      for (size_t k = 0; k < *n_bundles; ++k) dup |= (*bundles)[k] == b;
      if (!dup) (*bundles)[(*n_bundles)++] = b;
    }
    for (size_t k = 0; k < *n_bundles && !rc; ++k) rc = check_types(l, (*bundles)[k]);
    if (rc || missing.n == 0) break;
    if (!l->generate || pass == 1) {
      coop__str list = {0};
      for (size_t i = 0; i < missing.n; ++i) coop__str_printf(&list, "  %s\n", missing.v[i]);
      coop__lg(l, "%zu symbol%s in no bundle of the catalog%s:\n%s", missing.n, missing.n == 1 ? " is" : "s are",
         l->generate ? " (and generation did not provide it)" : " (on-demand generation is off)", coop__str_get(&list));
      coop__str_free(&list);
      rc = COOP_ERROR_SYMBOL_MISSING;
      break;
    }
    rc = generate(l, &missing);
    if (!rc) rc = reopen_generated(l);
  }
  coop__sl_free(&missing);
  return rc;
}

