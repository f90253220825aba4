/* NVRTC: the temp-size probe (front end only) and one -dlto compile per architecture, in parallel. */
#include "gen.h"

#include "../common/nvrtc_dl.h"
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

coop_result coop__nvrtc_archs(int *archs, int *n, int max)
{
  int count = 0;
  *n = 0;
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
  /* fuzz targets parse only: NVRTC 13.0's list, without loading NVRTC */
  static const int fixed[] = {75, 80, 86, 87, 88, 89, 90, 100, 103, 110, 120, 121};
  for (size_t i = 0; i < sizeof fixed / sizeof fixed[0] && *n < max; ++i) archs[(*n)++] = fixed[i];
  return COOP_SUCCESS;
#endif
  if (!coop__nvrtc_available(NULL, 0)) return COOP_ERROR_TOOLKIT;
  if (nvrtcGetNumSupportedArchs(&count) != NVRTC_SUCCESS || count <= 0) return COOP_ERROR_TOOLKIT;
  int *all = malloc((size_t)count * sizeof *all);
  if (!all) return COOP_ERROR_OUT_OF_MEMORY;
  if (nvrtcGetSupportedArchs(all) != NVRTC_SUCCESS) {
    free(all);
    return COOP_ERROR_TOOLKIT;
  }
  for (int i = 0; i < count && *n < max; ++i)
    if (all[i] >= 75) archs[(*n)++] = all[i];
  free(all);
  return COOP_SUCCESS;
}

int coop__effective_archs(coop_gen *gen, int *archs, int max)
{
  if (gen->n_archs) {
    memcpy(archs, gen->archs, (size_t)gen->n_archs * sizeof *archs);
    return gen->n_archs;
  }
  int n = 0;
  if (coop__nvrtc_archs(archs, &n, max) != COOP_SUCCESS) return 0;
  return n;
}

typedef struct nv_opts {
  char inc1[1024], inc2[1024], arch[32];
  const char *v[16];
  int n;
} nv_opts;

static void make_opts(nv_opts *o, int arch, int syntax_only, int optimized)
{
  const char *root = coop__cuda_root();
  /* Both include paths, always: without the second, CCCL silently miscompiles (DESIGN.md). */
  snprintf(o->inc1, sizeof o->inc1, "-I%s/include/cccl", root);
  snprintf(o->inc2, sizeof o->inc2, "-I%s/include", root);
  snprintf(o->arch, sizeof o->arch, "-arch=compute_%d", arch);
  o->n = 0;
  o->v[o->n++] = o->inc1;
  o->v[o->n++] = o->inc2;
  o->v[o->n++] = o->arch;
  o->v[o->n++] = "-std=c++17";
  /* cooplink has no fp8/fp6/fp4 types: without CCCL's support for them the numeric_limits members NVRTC
   * emits into every bundle shrink (a CUB bundle's fixed IR: 100.6 -> 80.0 KB), and every link that
   * adds the bundle parses less. */
  o->v[o->n++] = "-DCCCL_DISABLE_NVFP8_SUPPORT";
  o->v[o->n++] = "-DCCCL_DISABLE_NVFP6_SUPPORT";
  o->v[o->n++] = "-DCCCL_DISABLE_NVFP4_SUPPORT";
  o->v[o->n++] = syntax_only ? "-fdevice-syntax-only" : "-dlto";
  /* "ir": "optimized" pre-optimises the IR (--gen-opt-lto): smaller bundles and links 1.7x as fast, but
   * nvJitLink then leaves a caller's loop around the calls rolled when the caller's own IR was not
   * optimised before the link (every Numba kernel: 1.3% slower on the H200); a CUDA C kernel's loops are
   * unrolled by NVRTC before the link. Plain IR (the default) is what a whole-program build gives. */
  if (optimized && !syntax_only) o->v[o->n++] = "--gen-opt-lto";
}

static void prim_headers(const char **srcs, const char **names)
{
  for (int i = 0; i < coop__n_primitives; ++i) {
    srcs[i] = coop__primitives[i].text;
    names[i] = coop__primitives[i].name;
  }
}

static void append_log(coop__str *log, nvrtcProgram prog, const char *what)
{
  size_t size = 0;
  if (nvrtcGetProgramLogSize(prog, &size) != NVRTC_SUCCESS || size <= 1) return;
  char *text = malloc(size);
  if (!text) return;
  if (nvrtcGetProgramLog(prog, text) == NVRTC_SUCCESS) coop__str_printf(log, "%s:\n%s\n", what, text);
  free(text);
}

static int check_headers(coop_gen *gen)
{
  char path[1200];
  snprintf(path, sizeof path, "%s/include/cccl/cub/cub.cuh", coop__cuda_root());
  if (access(path, R_OK) != 0) {
    coop__log(gen, "CCCL headers not found: %s is missing (set CUDA_HOME to the toolkit)", path);
    return 0;
  }
  snprintf(path, sizeof path, "%s/include/cuda_fp16.h", coop__cuda_root());
  if (access(path, R_OK) != 0) {
    coop__log(gen, "CUDA headers not found: %s is missing (set CUDA_HOME to the toolkit)", path);
    return 0;
  }
  return 1;
}

/* Reads <A, B> out of "_Z11coop__probeILy36ELy16EE". */
static int parse_probe(const char *lowered, unsigned long long *a, unsigned long long *b)
{
  const char *p = strstr(lowered, "coop__probeI");
  if (!p) return 0;
  p += strlen("coop__probeI");
  unsigned long long v[2];
  for (int k = 0; k < 2; ++k) {
    if (p[0] != 'L' || (p[1] != 'y' && p[1] != 'm')) return 0;
    p += 2;
    if (*p < '0' || *p > '9') return 0;
    v[k] = strtoull(p, (char **)&p, 10);
    if (*p++ != 'E') return 0;
  }
  *a = v[0];
  *b = v[1];
  return 1;
}

static coop_result probe(coop_gen *gen, int arch)
{
  coop__str src = {0}, expr = {0};
  coop__emit_source(&src, gen, 0);
  if (src.oom) {
    coop__str_free(&src);
    return COOP_ERROR_OUT_OF_MEMORY;
  }
  const char *hs[COOP__MAX_PRIMITIVES], *hn[COOP__MAX_PRIMITIVES];
  prim_headers(hs, hn);
  nvrtcProgram prog;
  nvrtcResult r = nvrtcCreateProgram(&prog, coop__str_get(&src), "coopgen_probe.cu", coop__n_primitives, hs, hn);
  coop__str_free(&src);
  if (r != NVRTC_SUCCESS) {
    coop__log(gen, "nvrtcCreateProgram: %s", nvrtcGetErrorString(r));
    return r == NVRTC_ERROR_OUT_OF_MEMORY ? COOP_ERROR_OUT_OF_MEMORY : COOP_ERROR_NVRTC;
  }
  coop_result rc = COOP_SUCCESS;
  /* One expression per distinct template instance; the expressions are remembered in order. */
  char **exprs = calloc(gen->n_insts + 1, sizeof *exprs);
  size_t *which = calloc(gen->n_insts, sizeof *which);
  size_t n_exprs = 0;
  if (!exprs || !which) rc = COOP_ERROR_OUT_OF_MEMORY;
  for (size_t i = 0; i < gen->n_insts && !rc; ++i) {
    coop__str_clear(&expr);
    coop__probe_expr(&expr, &gen->insts[i]);
    if (expr.oom) {
      rc = COOP_ERROR_OUT_OF_MEMORY;
      break;
    }
    size_t k = 0;
    while (k < n_exprs && strcmp(exprs[k], coop__str_get(&expr)) != 0) ++k;
    if (k == n_exprs) {
      exprs[n_exprs] = coop__strdup(coop__str_get(&expr));
      if (!exprs[n_exprs]) {
        rc = COOP_ERROR_OUT_OF_MEMORY;
        break;
      }
      r = nvrtcAddNameExpression(prog, exprs[n_exprs]);
      if (r != NVRTC_SUCCESS) {
        coop__log(gen, "nvrtcAddNameExpression: %s", nvrtcGetErrorString(r));
        rc = COOP_ERROR_NVRTC;
      }
      ++n_exprs;
    }
    which[i] = k;
  }
  const char *cccl_expr = "&coop__probe<CCCL_VERSION, 0>";
  if (!rc && (r = nvrtcAddNameExpression(prog, cccl_expr)) != NVRTC_SUCCESS) {
    coop__log(gen, "nvrtcAddNameExpression: %s", nvrtcGetErrorString(r));
    rc = COOP_ERROR_NVRTC;
  }
  nv_opts o;
  make_opts(&o, arch, 1, 0);
  if (!rc) {
    r = nvrtcCompileProgram(prog, o.n, o.v);
    if (r != NVRTC_SUCCESS) {
      coop__log(gen, "NVRTC failed on the temp-size probe (compute_%d): %s", arch, nvrtcGetErrorString(r));
      append_log(&gen->log, prog, "NVRTC log");
      rc = COOP_ERROR_NVRTC;
    }
  }
  unsigned long long *bytes = NULL, *align = NULL;
  if (!rc) {
    bytes = calloc(n_exprs + 1, sizeof *bytes);
    align = calloc(n_exprs + 1, sizeof *align);
    if (!bytes || !align) rc = COOP_ERROR_OUT_OF_MEMORY;
  }
  for (size_t k = 0; k < n_exprs && !rc; ++k) {
    const char *lowered = NULL;
    if (nvrtcGetLoweredName(prog, exprs[k], &lowered) != NVRTC_SUCCESS || !parse_probe(lowered, &bytes[k], &align[k])) {
      coop__log(gen, "NVRTC gave no usable size for %s", exprs[k]);
      rc = COOP_ERROR_NVRTC;
    }
  }
  if (!rc) {
    const char *lowered = NULL;
    unsigned long long v, zero;
    if (nvrtcGetLoweredName(prog, cccl_expr, &lowered) != NVRTC_SUCCESS || !parse_probe(lowered, &v, &zero)) {
      coop__log(gen, "NVRTC gave no CCCL version");
      rc = COOP_ERROR_NVRTC;
    } else {
      gen->cccl_version = (int)v;
    }
  }
  for (size_t i = 0; i < gen->n_insts && !rc; ++i) {
    gen->insts[i].temp_bytes = bytes[which[i]];
    gen->insts[i].temp_align = align[which[i]];
  }
  for (size_t k = 0; exprs && k < n_exprs; ++k) free(exprs[k]);
  free(exprs);
  free(which);
  free(bytes);
  free(align);
  coop__str_free(&expr);
  nvrtcDestroyProgram(&prog);
  return rc;
}

typedef struct job {
  const char *src;
  int arch, optimized;
  char *ltoir;
  size_t size;
  coop_result rc;
  coop__str log;
} job;

typedef struct pool {
  job *jobs;
  int n;
  atomic_int next;
} pool;

static void run_job(job *j)
{
  const char *hs[COOP__MAX_PRIMITIVES], *hn[COOP__MAX_PRIMITIVES];
  prim_headers(hs, hn);
  nvrtcProgram prog;
  nvrtcResult r = nvrtcCreateProgram(&prog, j->src, "coopgen.cu", coop__n_primitives, hs, hn);
  if (r != NVRTC_SUCCESS) {
    coop__str_printf(&j->log, "nvrtcCreateProgram: %s\n", nvrtcGetErrorString(r));
    j->rc = COOP_ERROR_NVRTC;
    return;
  }
  nv_opts o;
  make_opts(&o, j->arch, 0, j->optimized);
  r = nvrtcCompileProgram(prog, o.n, o.v);
  if (r != NVRTC_SUCCESS) {
    coop__str_printf(&j->log, "NVRTC failed for compute_%d: %s\n", j->arch, nvrtcGetErrorString(r));
    append_log(&j->log, prog, "NVRTC log");
    j->rc = COOP_ERROR_NVRTC;
  } else if ((r = nvrtcGetLTOIRSize(prog, &j->size)) != NVRTC_SUCCESS || j->size == 0) {
    coop__str_printf(&j->log, "nvrtcGetLTOIRSize (compute_%d): %s\n", j->arch, nvrtcGetErrorString(r));
    j->rc = COOP_ERROR_NVRTC;
  } else if (!(j->ltoir = malloc(j->size))) {
    j->rc = COOP_ERROR_OUT_OF_MEMORY;
  } else if ((r = nvrtcGetLTOIR(prog, j->ltoir)) != NVRTC_SUCCESS) {
    coop__str_printf(&j->log, "nvrtcGetLTOIR (compute_%d): %s\n", j->arch, nvrtcGetErrorString(r));
    j->rc = COOP_ERROR_NVRTC;
  }
  nvrtcDestroyProgram(&prog);
}

static void *worker(void *arg)
{
  pool *p = arg;
  for (;;) {
    int i = atomic_fetch_add(&p->next, 1);
    if (i >= p->n) return NULL;
    run_job(&p->jobs[i]);
  }
}

int coop__job_count(int n)
{
  const char *e = getenv("COOPGEN_JOBS");
  long cpus = e && atoi(e) > 0 ? atoi(e) : sysconf(_SC_NPROCESSORS_ONLN);
  if (cpus < 1) cpus = 1;
  return n < cpus ? n : (int)cpus;
}

/* The most shared memory a block can have on sm_<arch>, bytes (the opt-in maximum, cudaDevAttr-
 * MaxSharedMemoryPerBlockOptin: the CUDA C++ Programming Guide's table of compute capabilities). */
static unsigned long long block_smem_limit(int arch)
{
  switch (arch) {
  case 75: return 64 * 1024;
  case 80: case 87: return 163 * 1024;
  case 86: case 89: case 120: case 121: return 99 * 1024;
  default: return arch >= 90 && arch < 120 ? 227 * 1024 : 0; /* 0: not known, not checked */
  }
}

/* COOP_ERROR_SPEC_INVALID, naming each symbol whose temp storage no block can have on one of archs. */
static coop_result check_temp_fits(coop_gen *gen, const int *archs, int n)
{
  coop_result rc = COOP_SUCCESS;
  for (size_t i = 0; i < gen->n_insts; ++i) {
    const coop__inst *in = &gen->insts[i];
    for (int a = 0; a < n; ++a) {
      const unsigned long long limit = block_smem_limit(archs[a]);
      if (limit && in->temp_bytes > limit) {
        coop__log(gen, "%s%s%s: its temp storage is %llu bytes, more shared memory than a block can have on sm_%d "
                       "(%llu bytes): fewer threads, items or radix bits, or leave sm_%d out",
                  in->where ? in->where : "", in->where ? ": " : "", in->symbol, in->temp_bytes, archs[a], limit,
                  archs[a]);
        rc = COOP_ERROR_SPEC_INVALID;
        break;
      }
    }
  }
  return rc;
}

coop_result coop__probe_all(coop_gen *gen)
{
  int archs[32];
  int n = coop__effective_archs(gen, archs, 32);
  if (n == 0) {
    coop__log(gen, "NVRTC reports no supported architecture from sm_75 up");
    return COOP_ERROR_TOOLKIT;
  }
  char why[1100];
  if (!coop__nvrtc_available(why, sizeof why)) {
    coop__log(gen, "%s", why);
    return COOP_ERROR_TOOLKIT;
  }
  if (!check_headers(gen)) return COOP_ERROR_TOOLKIT;
  if (nvrtcVersion(&gen->nvrtc_major, &gen->nvrtc_minor) != NVRTC_SUCCESS) {
    coop__log(gen, "nvrtcVersion failed");
    return COOP_ERROR_TOOLKIT;
  }
  int lowest = archs[0];
  for (int i = 1; i < n; ++i)
    if (archs[i] < lowest) lowest = archs[i];
  coop_result rc = probe(gen, lowest);
  if (!rc) rc = check_temp_fits(gen, archs, n);
  if (!rc) gen->probed = 1;
  return rc;
}

coop_result coop__compile(coop_gen *gen, char **ltoir, size_t *ltoir_size)
{
  int archs[32];
  int n = coop__effective_archs(gen, archs, 32);
  coop_result rc = gen->probed ? COOP_SUCCESS : coop__probe_all(gen);
  if (rc) return rc;

  coop__str src = {0};
  coop__emit_source(&src, gen, 1);
  if (src.oom) {
    coop__str_free(&src);
    return COOP_ERROR_OUT_OF_MEMORY;
  }
  job jobs[32];
  memset(jobs, 0, sizeof jobs);
  for (int i = 0; i < n; ++i) {
    jobs[i].src = coop__str_get(&src);
    jobs[i].arch = archs[i];
    jobs[i].optimized = gen->ir_optimized;
  }
  pool p = {jobs, n, 0};
  int threads = coop__job_count(n);
  pthread_t tids[32];
  int started = 0;
  for (int t = 1; t < threads; ++t)
    if (pthread_create(&tids[started], NULL, worker, &p) == 0) ++started;
  worker(&p);
  for (int t = 0; t < started; ++t) pthread_join(tids[t], NULL);
  coop__str_free(&src);

  rc = COOP_SUCCESS;
  for (int i = 0; i < n; ++i) {
    coop__str_add(&gen->log, coop__str_get(&jobs[i].log));
    coop__str_free(&jobs[i].log);
    if (jobs[i].rc && !rc) rc = jobs[i].rc;
    ltoir[i] = jobs[i].ltoir;
    ltoir_size[i] = jobs[i].size;
  }
  if (!rc && gen->log.oom) rc = COOP_ERROR_OUT_OF_MEMORY;
  if (rc)
    for (int i = 0; i < n; ++i) {
      free(ltoir[i]);
      ltoir[i] = NULL;
    }
  return rc;
}
