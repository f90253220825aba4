/* Helpers for the runtime tests: fixture bundles copied into fresh folders, manifest edits, links. */
#ifndef COOPT_RT_UTIL_H
#define COOPT_RT_UTIL_H
#include <cooplink/cooplink.h>
#include <jansson.h>

/* A fresh folder holding copies of the named fixture bundles (NULL-terminated list). */
char *coopt_catalog_with(const char *const *bundles);
/* Sets key to value (a JSON value, consumed) in a manifest file, rewriting it. */
void coopt_manifest_set(const char *path, const char *key, json_t *value);
/* The linker's log, malloc'd. */
char *coopt_linker_log(const coop_linker *l);
/* Compiles CUDA C for arch to LTO-IR (asserting success). */
void coopt_kernel_ltoir(const char *src, int arch, void **data, size_t *size);
/* A link of one LTO-IR input; returns the result, fills *l (destroy it). */
coop_result coopt_link_ltoir(const coop_catalog *cat, const char *const *opts, unsigned n_opts, const void *ir,
                             size_t size, coop_linker **l);
#endif
