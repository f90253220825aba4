/* The linker's internals, shared by its stages: linker.c (the handle, its inputs and results),
 * link_compile.c (CUDA inputs through NVRTC), link_discover.c (the coop_ symbols the inputs call),
 * link_resolve.c (the bundles that define them, or on-demand generation) and link_run.c (nvJitLink,
 * the cache, coop_linker_complete) and link_payloads.c (resolution without a link, for other linkers). */
#ifndef COOP_LINKER_H
#define COOP_LINKER_H

#include "runtime.h"

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

/* A payload handed to nvJitLink. */
typedef struct blob {
  char *data;
  size_t size;
  const char *name;
  int fatbin;
} blob;

struct coop_linker {
  const coop_catalog *catalog;
  coop_catalog *generated;
  int arch, lineinfo, want_ptx, cache, generate, verbose, state;
  char *cache_dir, *gen_dir, *private_dir;
  strlist nvrtc_opts, link_opts, includes, bundles_used, needed;
  coop__utype types[32]; /* declared user types (coop_linker_add_type) */
  int n_types;
  input *inputs;
  size_t n_inputs, cap_inputs;
  coop__str log;
  char *cubin, *ptx, *info_log;
  size_t cubin_size, ptx_size;
  coop_link_info info;
  /* after coop_linker_resolve (state 3): each bundle's payload for arch and manifest path */
  blob *resolved;
  char **resolved_manifest;
  size_t n_resolved;
};


/* A list of distinct strings. coop__sl_add returns 0 on OOM (1 if added or already there). */
int coop__sl_add(strlist *l, const char *s);
void coop__sl_free(strlist *l);
double coop__now(void);
/* Appends a line to the handle's log. */
void coop__lg(coop_linker *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* link_compile.c: compiles a CUDA input to LTO-IR in place (NVRTC -dlto, both CCCL include paths). */
coop_result coop__compile_cuda(coop_linker *l, input *in);
/* ... every CUDA input of the handle, in order. */
coop_result coop__compile_cuda_inputs(coop_linker *l);
/* link_run.c: one nvJitLink run over the inputs (those of kind only_kind, or all when 0) and the extra
 * blobs; ptx: PTX instead of a cubin. */
coop_result coop__jl_run(coop_linker *l, int only_kind, const blob *extra, size_t n_extra, int ptx, char **out,
                         size_t *out_size, char **info, char **error);
/* link_discover.c: adds to l->needed every coop_ symbol the inputs call and nobody defines. */
coop_result coop__discover(coop_linker *l);
/* link_resolve.c: the bundles (deduplicated) that define l->needed, generating or failing on the missing. */
coop_result coop__resolve(coop_linker *l, const coop__bundle ***bundles, size_t *n_bundles);
/* link_payloads.c: reads each bundle's payload for l->arch (checked), naming the problem in the log. */
coop_result coop__read_payloads(coop_linker *l, const coop__bundle *const *bundles, size_t n, blob *out);
void coop__free_resolved(coop_linker *l);

#endif
