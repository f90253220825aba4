/* Out of memory at every allocation site of libcooplink, in turn (as libuv's out-of-memory tests do): a
 * scenario runs once recording the sites (return addresses inside libcooplink.so) of every malloc, calloc,
 * realloc, strdup and strndup it makes; then once per site with that site's first allocation failing. Each
 * such run must fail with COOP_ERROR_OUT_OF_MEMORY and leave no block allocated by the library behind
 * (every handle destroyed). The allocator functions are interposed in this executable, which links the
 * shared library, so allocations made inside NVRTC, nvJitLink, jansson or libyaml are not failed: only the
 * library's own call sites are (what its code must handle). */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <dlfcn.h>
#include <execinfo.h>
#include <signal.h>
#include <link.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kernels.h"
#include "rt_util.h"
#include "util.h"

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void __libc_free(void *);

enum { MAX_SITES = 4096, LIVE = 1 << 16 };
static struct {
  uintptr_t lo, hi, base;    /* libcooplink.so's mapped segments, its load address */
  int mode;                  /* 0 off, 1 record, 2 fail */
  uintptr_t sites[MAX_SITES]; /* distinct sites, in order of first use (record) */
  int n_sites;
  uint64_t paths[MAX_SITES]; /* distinct call paths (a site and four callers), in order of first use */
  long path_first[MAX_SITES]; /* and the allocation that first took each */
  int n_paths;
  long count;                /* the library's allocations so far in this run */
  long fail_at;              /* mode 2: the one that fails */
  uintptr_t failed_site;     /* where it was made */
  void *failed_stack[8];     /* and its callers */
  int failed_depth;
  void *live[LIVE];          /* blocks the library allocated and has not freed (open addressing) */
  size_t n_live;
} S;

static int find_lib(struct dl_phdr_info *info, size_t size, void *arg)
{
  (void)size;
  (void)arg;
  if (!strstr(info->dlpi_name, "libcooplink.so")) return 0;
  S.base = info->dlpi_addr;
  for (int i = 0; i < info->dlpi_phnum; ++i)
    if (info->dlpi_phdr[i].p_type == PT_LOAD) {
      uintptr_t a = info->dlpi_addr + info->dlpi_phdr[i].p_vaddr, b = a + info->dlpi_phdr[i].p_memsz;
      if (!S.lo || a < S.lo) S.lo = a;
      if (b > S.hi) S.hi = b;
    }
  return 1;
}

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER; /* (NVRTC and nvJitLink may free on their threads) */

static size_t slot(void *p) { return ((uintptr_t)p >> 4) * 0x9E3779B97F4A7C15ull >> 48 & (LIVE - 1); }

static void live_add_locked(void *p);
static void live_add(void *p)
{
  pthread_mutex_lock(&lock);
  live_add_locked(p);
  pthread_mutex_unlock(&lock);
}

static void live_add_locked(void *p)
{
  size_t i = slot(p);
  while (S.live[i]) i = (i + 1) & (LIVE - 1);
  S.live[i] = p;
  ++S.n_live;
}

static void live_remove(void *p)
{
  size_t i = slot(p);
  while (S.live[i] && S.live[i] != p) i = (i + 1) & (LIVE - 1);
  if (!S.live[i]) return; /* not the library's (or allocated while off) */
  S.live[i] = NULL;
  --S.n_live;
  for (size_t j = (i + 1) & (LIVE - 1); S.live[j]; j = (j + 1) & (LIVE - 1)) { /* re-seat the run after i */
    void *q = S.live[j];
    S.live[j] = NULL;
    --S.n_live;
    live_add_locked(q);
  }
}

/* Whether an allocation from `site` is the library's, and whether it must fail: in mode 2 the library's
 * fail_at-th allocation (counting from 1) does, and no other. */
static int ours(uintptr_t site) { return S.mode && site >= S.lo && site < S.hi; }

static int must_fail(uintptr_t site)
{
  if (!ours(site)) return 0;
  ++S.count;
  if (S.mode == 1) {
    int known = 0;
    for (int i = 0; i < S.n_sites && !known; ++i) known = S.sites[i] == site;
    if (!known && S.n_sites < MAX_SITES) S.sites[S.n_sites++] = site;
    void *f[7];
    int depth = backtrace(f, 7);
    uint64_t h = 1469598103934665603ull;
    for (int i = 2; i < depth; ++i) h = (h ^ (uintptr_t)f[i]) * 1099511628211ull; /* (0, 1: this file) */
    known = 0;
    for (int i = 0; i < S.n_paths && !known; ++i) known = S.paths[i] == h;
    if (!known && S.n_paths < MAX_SITES) {
      S.paths[S.n_paths] = h;
      S.path_first[S.n_paths++] = S.count;
    }
    return 0;
  }
  if (S.count == S.fail_at) {
    S.failed_site = site;
    S.failed_depth = backtrace(S.failed_stack, 8);
    return 1;
  }
  return 0;
}

#define SITE ((uintptr_t)__builtin_return_address(0))

void *malloc(size_t n)
{
  uintptr_t site = SITE;
  if (must_fail(site)) return NULL;
  void *p = __libc_malloc(n);
  if (p && ours(site)) live_add(p);
  return p;
}

void *calloc(size_t n, size_t m)
{
  uintptr_t site = SITE;
  if (must_fail(site)) return NULL;
  void *p = __libc_calloc(n, m);
  if (p && ours(site)) live_add(p);
  return p;
}

void *realloc(void *old, size_t n)
{
  uintptr_t site = SITE;
  if (must_fail(site)) return NULL;
  void *p = __libc_realloc(old, n);
  if (p && old) {
    pthread_mutex_lock(&lock);
    live_remove(old);
    pthread_mutex_unlock(&lock);
  }
  if (p && ours(site)) live_add(p);
  return p;
}

void free(void *p)
{
  if (p && S.n_live) {
    pthread_mutex_lock(&lock);
    live_remove(p);
    pthread_mutex_unlock(&lock);
  }
  __libc_free(p);
}

static char *dup_at(uintptr_t site, const char *s, size_t n)
{
  if (must_fail(site)) return NULL;
  char *p = __libc_malloc(n + 1);
  if (!p) return NULL;
  memcpy(p, s, n);
  p[n] = 0;
  if (ours(site)) live_add(p);
  return p;
}

char *strdup(const char *s) { return dup_at(SITE, s, strlen(s)); }
char *strndup(const char *s, size_t n) { return dup_at(SITE, s, strnlen(s, n)); }

/* ---- scenarios: each returns the first failing code and releases everything it made ---- */

typedef struct world {
  char *catalog, *cache, *cache_opt;
  void *ir, *gen_ir;
  size_t ir_size, gen_ir_size;
} world;

static coop_result link_once(world *w)
{
  coop_catalog *cat = NULL;
  coop_result rc = coop_catalog_open(&cat, w->catalog, NULL);
  if (rc) return rc;
  const char *opts[] = {"-arch=sm_90", w->cache_opt, "-generate=0"};
  coop_linker *l = NULL;
  rc = coop_linker_create(&l, cat, 3, opts);
  if (!rc) rc = coop_linker_add_data(l, COOP_INPUT_LTOIR, w->ir, w->ir_size, "kernel.ltoir");
  if (!rc) rc = coop_linker_complete(l);
  const void *cubin;
  size_t size = 0;
  if (!rc) rc = coop_linker_get_cubin(l, &cubin, &size);
  if (!rc && size == 0) rc = COOP_ERROR_STATE;
  coop_linker_destroy(&l);
  coop_catalog_close(&cat);
  return rc;
}

static coop_result spec_once(const char *text)
{
  coop_gen *gen = NULL;
  coop_result rc = coop_gen_create(&gen);
  if (!rc) rc = coop_gen_add_spec_string(gen, text, strlen(text), "spec");
  if (rc && rc != COOP_ERROR_OUT_OF_MEMORY && S.mode != 2) {
    char *log = coopt_gen_log(gen);
    cr_log_error("%s", log);
    free(log);
  }
  size_t n = 0;
  if (!rc) rc = coop_gen_get_symbol_count(gen, &n);
  char *src = NULL;
  if (!rc) rc = coop_gen_get_source(gen, &src);
  if (!rc && (n == 0 || !src)) rc = COOP_ERROR_STATE;
  free(src);
  coop_gen_destroy(&gen);
  return rc;
}

static const char SPEC_JSON[] =
  "{\"name\": \"oom\", \"arch\": [\"sm_80\", \"sm_90\"], \"generate\": ["
  "{\"family\": \"block_reduce\", \"type\": [\"f32\", \"i64\"], \"op\": [\"sum\", \"max\"], \"threads\": [128, \"8x4\"], "
  "\"items\": 4, \"algorithm\": \"raking\"},"
  "{\"family\": \"block_load\", \"type\": \"f64\", \"threads\": 64, \"items\": 2, \"algorithm\": \"vectorize\"}]}";
static const char SPEC_YAML[] =
  "name: oom\narch: [sm_90]\ngenerate:\n"
  "  - {family: block_scan, type: i32, op: sum, threads: 256, items: 4, algorithm: [warp_scans, raking]}\n"
  "  - {family: warp_reduce, type: f32, op: [sum, max], warp: [8, 32]}\n";

static world *W;

/* A bundle written by the generator (NVRTC: a second a run). */
static coop_result scenario_generate(void)
{
  static const char spec[] = "{\"name\": \"oomgen\", \"arch\": [\"sm_90\"], \"generate\": [{\"family\": \"block_load\", "
                             "\"type\": \"f32\", \"threads\": 32, \"items\": 1, \"algorithm\": \"direct\"}]}";
  char *dir = coopt_fmt("%s/gen%ld", W->cache, S.mode == 2 ? S.fail_at : 0);
  coop_gen *gen = NULL;
  coop_result rc = coop_gen_create(&gen);
  if (!rc) rc = coop_gen_add_spec_string(gen, spec, sizeof spec - 1, "spec");
  if (!rc) rc = coop_gen_write(gen, dir);
  coop_gen_destroy(&gen);
  free(dir);
  return rc;
}

/* A link that generates its missing symbol on demand into the cache. */
static coop_result scenario_link_generating(void)
{
  char *dir = coopt_fmt("%s/lg%ld", W->cache, S.mode == 2 ? S.fail_at : 0);
  char *opt = coopt_fmt("-cache-dir=%s", dir);
  const char *opts[] = {"-arch=sm_90", opt};
  coop_linker *l = NULL;
  coop_result rc = coop_linker_create(&l, NULL, 2, opts);
  if (!rc) rc = coop_linker_add_data(l, COOP_INPUT_LTOIR, W->gen_ir, W->gen_ir_size, "g.ltoir");
  if (!rc) rc = coop_linker_complete(l);
  coop_linker_destroy(&l);
  free(opt);
  free(dir);
  return rc;
}
static coop_result scenario_link(void) { return link_once(W); }
static coop_result scenario_link_miss(void) /* a fresh cache folder each run: the entry is written */
{
  char *dir = coopt_fmt("%s/%ld", W->cache, S.mode == 2 ? S.fail_at : 0); /* (each run in its own child) */
  char *opt = coopt_fmt("-cache-dir=%s", dir);
  char *keep = W->cache_opt;
  W->cache_opt = opt;
  coop_result rc = link_once(W);
  W->cache_opt = keep;
  free(opt);
  free(dir);
  return rc;
}
static coop_result scenario_spec_json(void) { return spec_once(SPEC_JSON); }
static coop_result scenario_spec_yaml(void) { return spec_once(SPEC_YAML); }
static coop_result scenario_verify(void)
{
  char *report = NULL;
  coop_result rc = coop_catalog_verify(W->catalog, &report);
  free(report);
  return rc;
}

/* A crash under a fault prints its stack (frames in the library as offsets: addr2line -f -e libcooplink.so). */
static void on_crash(int sig)
{
  void *frames[32];
  int n = backtrace(frames, 32);
  for (int i = 0; i < n; ++i) {
    Dl_info di = {0};
    char line[160];
    int len = dladdr(frames[i], &di) && di.dli_fname
                ? snprintf(line, sizeof line, "  #%d %s+0x%lx\n", i, strrchr(di.dli_fname, '/') ? strrchr(di.dli_fname, '/') + 1 : di.dli_fname,
                           (unsigned long)((uintptr_t)frames[i] - (uintptr_t)di.dli_fbase))
                : snprintf(line, sizeof line, "  #%d %p\n", i, frames[i]);
    if (write(2, line, (size_t)len) < 0) break;
  }
  signal(sig, SIG_DFL);
  raise(sig);
}

/* Runs `scenario` counting the library's allocations, then once per allocation with that one failing (or,
 * with `paths`, once per distinct call path: the first allocation made through each, for scenarios whose
 * runs take seconds). */
static void fail_in_turn(const char *name, coop_result (*scenario)(void), int paths)
{
  if (!S.hi) dl_iterate_phdr(find_lib, NULL);
  void *warm[1];
  backtrace(warm, 1); /* (loads what backtrace needs now, not in a signal handler) */
  signal(SIGSEGV, on_crash);
  signal(SIGABRT, on_crash);
  cr_assert(S.hi > S.lo, "libcooplink.so is not loaded: this test must link the shared library");
  S.n_sites = S.n_paths = 0;
  S.count = 0;
  S.mode = 1;
  coop_result rc = scenario();
  S.mode = 0;
  cr_assert_eq(rc, COOP_SUCCESS, "%s: the scenario fails without a fault (%s)", name, coop_result_name(rc));
  cr_assert_eq(S.n_live, 0, "%s: %zu blocks left without a fault", name, S.n_live);
  const long total = S.count;
  cr_assert_gt(total, 5, "%s: only %ld allocations", name, total);
  int bad = 0, crashed = 0;
  const long runs = paths ? S.n_paths : total;
  long path_first[MAX_SITES];
  memcpy(path_first, S.path_first, sizeof path_first);
  for (long i = 1; i <= runs; ++i) { /* each run in a child: a crash is counted, and the next run is clean */
    const long n = paths ? path_first[i - 1] : i;
    struct {
      coop_result rc;
      size_t live;
      uintptr_t site;
      int depth;
      void *stack[8];
    } r = {0};
    int fds[2];
    cr_assert_eq(pipe(fds), 0);
    pid_t pid = fork();
    cr_assert(pid >= 0);
    if (pid == 0) {
      close(fds[0]);
      S.count = 0;
      S.fail_at = n;
      S.mode = 2;
      r.rc = scenario();
      S.mode = 0;
      r.live = S.n_live;
      r.site = S.failed_site;
      r.depth = S.failed_depth;
      memcpy(r.stack, S.failed_stack, sizeof r.stack);
      _exit(write(fds[1], &r, sizeof r) == (ssize_t)sizeof r ? 0 : 1);
    }
    close(fds[1]);
    ssize_t got = read(fds[0], &r, sizeof r);
    close(fds[0]);
    int st = 0;
    waitpid(pid, &st, 0);
    if (got != (ssize_t)sizeof r || !WIFEXITED(st) || WEXITSTATUS(st)) {
      ++bad;
      ++crashed;
      cr_log_error("%s: allocation %ld: the run crashed (%s %d; its stack above)", name, n,
                   WIFSIGNALED(st) ? "signal" : "exit", WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
      continue;
    }
    if (!r.site) continue; /* (fewer allocations this time: e.g. a cache miss that is now a hit) */
    if (r.rc != COOP_ERROR_OUT_OF_MEMORY || r.live) {
      if (++bad <= 40) {
        char where[240] = "";
        for (int i = 2, o = 0; i < r.depth && o < (int)sizeof where - 20; ++i) /* (0, 1: this file) */
          if ((uintptr_t)r.stack[i] >= S.lo && (uintptr_t)r.stack[i] < S.hi)
            o += snprintf(where + o, sizeof where - o, " 0x%lx", (unsigned long)((uintptr_t)r.stack[i] - S.base));
        cr_log_error("%s: allocation %ld: %s, %zu blocks left; stack in libcooplink.so:%s", name, n,
                     coop_result_name(r.rc), r.live, where);
      }
    }
  }
  cr_log_info("%s: %ld of %ld allocations (%d sites, %d call paths) failed in turn, %d mishandled (%d crashed)",
              name, runs, total, S.n_sites, S.n_paths, bad, crashed);
  cr_assert_eq(bad, 0, "%s: %d of %ld runs mishandled (see the log; addr2line -f -e libcooplink.so ADDR)", name, bad,
               runs);
}

static void setup(void)
{
  static const char *const A[] = {"fixture_a", NULL};
  W = calloc(1, sizeof *W);
  W->catalog = coopt_catalog_with(A);
  W->cache = coopt_tmpdir();
  W->cache_opt = coopt_fmt("-cache-dir=%s", W->cache);
  coopt_kernel_ltoir(K_REDUCE, 90, &W->ir, &W->ir_size);
  static const char G[] =
    "extern \"C\" __device__ void coop_block_load_f32_t32_i1_direct(const float *, float *, void *);\n"
    "extern \"C\" __global__ void __launch_bounds__(32) g(const float *in, float *out) {\n"
    "  float a[1];\n  coop_block_load_f32_t32_i1_direct(in, a, 0);\n  out[threadIdx.x] = a[0];\n}\n";
  coopt_kernel_ltoir(G, 90, &W->gen_ir, &W->gen_ir_size);
}

Test(oom, spec_json) { fail_in_turn("spec (JSON)", scenario_spec_json, 0); }
Test(oom, spec_yaml) { fail_in_turn("spec (YAML)", scenario_spec_yaml, 0); }
Test(oom, link, .init = setup, .timeout = 900)
{
  char *on = W->cache_opt;
  W->cache_opt = "-cache=0";
  fail_in_turn("link, cache off", scenario_link, 0);
  W->cache_opt = on;
  fail_in_turn("link, cache miss", scenario_link_miss, 0);
  cr_assert_eq(link_once(W), COOP_SUCCESS);
  fail_in_turn("link, cache hit", scenario_link, 0); /* (the entry is there: every run hits it) */
}
Test(oom, generate, .init = setup, .timeout = 1800) { fail_in_turn("generate a bundle", scenario_generate, 1); }
Test(oom, link_generating, .init = setup, .timeout = 1800)
{
  fail_in_turn("link, generating on demand", scenario_link_generating, 1);
}
Test(oom, catalog_verify, .init = setup) { fail_in_turn("catalog verify", scenario_verify, 0); }
