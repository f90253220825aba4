/* bench: the runtime's link through the library (coop_linker_*) against baselines measured in the
 * same run:
 *   1. cold link of a kernel using three primitives (BlockLoad, BlockScan, BlockStore) versus NVRTC
 *      compiling the same three CUB wrappers;
 *   2. a warm cache hit;
 *   3. link time versus catalog size (10 .. 10,000 wrappers): auto-resolution versus linking the whole
 *      catalog.
 *
 *   link_bench [--reps N] [--arch N] [--max-catalog N] [--work DIR]
 */
#include <cooplink/coopgen.h>
#include <cooplink/cooplink.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench_util.h"
#include "../tests/support/lto.h"

#define now bench_now
#define median bench_median

static int arch = 90, reps = 7, max_catalog = 10000;
static char work[512] = "/tmp/coop_link_bench";

static void gen_bundle(const char *dir, const char *name, const coop_gen_group *groups, int n)
{
  char path[1024];
  snprintf(path, sizeof path, "%s/%s.json", dir, name);
  if (access(path, F_OK) == 0) return; /* kept between runs of the bench */
  coop_gen *g = NULL;
  char a[16];
  snprintf(a, sizeof a, "sm_%d", arch);
  if (coop_gen_create(&g) || coop_gen_set_name(g, name) || coop_gen_set_archs(g, a)) DIE("coop_gen setup");
  for (int i = 0; i < n; ++i)
    if (coop_gen_add_group(g, &groups[i])) DIE("group %s/%d", name, i);
  coop_result rc = coop_gen_write(g, dir);
  if (rc) DIE("coop_gen_write %s: %s", name, coop_result_name(rc));
  coop_gen_destroy(&g);
}

static const coop_gen_group CORE[] = {
  {.family = "block_load", .type = "f32", .threads = "256", .items = "4", .algorithm = "striped", .variant = "plain"},
  {.family = "block_scan", .type = "f32", .op = "sum", .threads = "256", .items = "4", .algorithm = "raking",
   .variant = "inclusive"},
  {.family = "block_store", .type = "f32", .threads = "256", .items = "4", .algorithm = "striped", .variant = "plain"},
};


/* A filler bundle of `count` distinct direct-load wrappers; k picks type and thread range. */
static void filler(const char *dir, const char *name, int k, int count, int item_base)
{
  static const char *types[12] = {"i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "f16", "bf16", "f32", "f64"};
  coop_gen_group g[4];
  char threads[4][512];
  int made = 0, n = 0;
  for (int it = item_base; it < item_base + 4 && made < count; ++it) {
    int per = (count - made) < 25 ? count - made : 25;
    threads[n][0] = 0;
    for (int t = 0; t < per; ++t) {
      char buf[16];
      snprintf(buf, sizeof buf, "%s%d", t ? "," : "", (k / 12) * 25 + t + 1 + 500);
      (void)0;
      strcat(threads[n], buf);
    }
    static char items[4][4];
    snprintf(items[n], sizeof items[n], "%d", it);
    g[n] = (coop_gen_group){.family = "block_load", .type = types[k % 12], .threads = threads[n], .items = items[n],
                            .algorithm = "direct", .variant = "plain"};
    made += per;
    ++n;
  }
  gen_bundle(dir, name, g, n);
}

static void link_once(const coop_catalog *cat, const coopt_blob *user, const char *const *opts, int n_opts,
                      double *secs, int *hit, size_t *n_bundles)
{
  coop_linker *l = NULL;
  coop_result rc = coop_linker_create(&l, cat, (unsigned)n_opts, opts);
  if (!rc) rc = coop_linker_add_data(l, COOP_INPUT_LTOIR, user->data, user->size, "kernel.ltoir");
  double t0 = now();
  if (!rc) rc = coop_linker_complete(l);
  *secs = now() - t0;
  if (rc) {
    size_t n = 0;
    coop_linker_get_log_size(l, &n);
    char *log = malloc(n);
    coop_linker_get_log(l, log);
    DIE("link: %s\n%s", coop_result_name(rc), log);
  }
  coop_link_info info;
  coop_linker_get_info(l, &info);
  *hit = info.cache_hit;
  *n_bundles = info.n_bundles;
  coop_linker_destroy(&l);
}

static int whole_limit(int n) { return n <= 10000; }

/* Whole-catalog link: every payload of the catalog folder with plain nvJitLink. */
static double link_whole(const char *dir, const coopt_blob *user, int n_bundles_max)
{
  char cmd[1200];
  snprintf(cmd, sizeof cmd, "ls %s/*.sm_%d.ltoir", dir, arch);
  char *list = NULL;
  if (coopt_run(cmd, &list) != 0) DIE("ls");
  coopt_blob *in = calloc((size_t)n_bundles_max + 2, sizeof *in);
  int n = 0;
  in[n++] = *user;
  for (char *p = strtok(list, "\n"); p && n < n_bundles_max + 1; p = strtok(NULL, "\n"))
    if (coopt_read(p, &in[n++])) DIE("read %s", p);
  coopt_blob out = {0};
  char *info = NULL, *err = NULL;
  double t0 = now();
  if (coopt_link(arch, in, n, 0, NULL, &out, &info, &err)) DIE("whole link: %s", err);
  double t = now() - t0;
  for (int i = 1; i < n; ++i) free(in[i].data);
  free(in);
  free(list);
  free(out.data);
  free(info);
  free(err);
  return t;
}

int main(int argc, char **argv)
{
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--reps") && i + 1 < argc) reps = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--arch") && i + 1 < argc) arch = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--max-catalog") && i + 1 < argc) max_catalog = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--work") && i + 1 < argc) snprintf(work, sizeof work, "%s", argv[++i]);
    else DIE("usage: link_bench [--reps N] [--arch N] [--max-catalog N] [--work DIR]");
  }
  if (reps < 3) reps = 3;
  char bundles[600], cmd[4096];
  snprintf(bundles, sizeof bundles, "%s/bundles", work);
  snprintf(cmd, sizeof cmd, "mkdir -p %s", bundles);
  if (system(cmd)) DIE("mkdir");
  gen_bundle(bundles, "core", CORE, 3);

  /* 1. cold link (library, cache off) vs NVRTC compiling the same three wrappers (the generator's TU
   *    without the probe), vs the same link with plain nvJitLink and vs NVRTC compiling kernel and wrappers
   *    whole program: all four interleaved in each repetition, so every ratio compares runs that saw the
   *    same machine (this one is noisy), and the ratio is taken per repetition. */
  coop_gen *g = NULL;
  coop_gen_create(&g);
  for (int i = 0; i < 3; ++i) coop_gen_add_group(g, &CORE[i]);
  coop_gen_set_name(g, "core");
  double *tc = calloc((size_t)reps, sizeof *tc), *tl = calloc((size_t)reps, sizeof *tl);
  double *tw = calloc(64, sizeof *tw);
  double *tk = calloc((size_t)reps, sizeof *tk), *tp = calloc((size_t)reps, sizeof *tp);
  double *rl = calloc((size_t)reps, sizeof *rl), *rp = calloc((size_t)reps, sizeof *rp);
  double *rk = calloc((size_t)reps, sizeof *rk);
  coopt_blob user = {0};
  char *log = NULL;
  if (coopt_compile(bench_kernel_three, arch, NULL, &user, &log)) DIE("kernel: %s", log);
  char core_cat[700];
  snprintf(core_cat, sizeof core_cat, "%s/cat_core", work);
  snprintf(cmd, sizeof cmd, "mkdir -p %s && ln -sf %s/core.* %s/", core_cat, bundles, core_cat);
  if (system(cmd)) DIE("ln");
  coop_catalog *cat = NULL;
  char *err = NULL;
  if (coop_catalog_open(&cat, core_cat, &err)) DIE("catalog: %s", err);
  char archopt[32], cdir[700];
  snprintf(archopt, sizeof archopt, "-arch=sm_%d", arch);
  snprintf(cdir, sizeof cdir, "-cache-dir=%s/cache", work);
  const char *cold[] = {archopt, "-cache=0"};
  int hit;
  size_t nb;
  char path[800];
  snprintf(path, sizeof path, "%s/core.sm_%d.ltoir", bundles, arch);
  coopt_blob core = {0};
  if (coopt_read(path, &core)) DIE("read %s", path);
  coopt_blob in[2] = {user, core};
  /* the first compile and the first link of the process (loading and initialising NVRTC and nvJitLink:
   * what a fresh program pays), then `reps` repetitions in the warm process */
  double first_compile = bench_compile_wrappers(g, arch), first_link;
  if (first_compile < 0) DIE("NVRTC compile of the wrappers failed");
  link_once(cat, &user, cold, 2, &first_link, &hit, &nb);
  for (int r = 0; r < reps; ++r) {
    if ((tc[r] = bench_compile_wrappers(g, arch)) < 0) DIE("NVRTC compile of the wrappers failed");
    /* the link right after a compile runs on cold CPU caches: alternate which of the two goes first */
    for (int k = 0; k < 2; ++k) {
      if (k == (r & 1)) {
        link_once(cat, &user, cold, 2, &tl[r], &hit, &nb);
        continue;
      }
      coopt_blob out = {0};
      char *info = NULL, *lerr = NULL;
      double t0 = now();
      if (coopt_link(arch, in, 2, 0, NULL, &out, &info, &lerr)) DIE("plain link: %s", lerr);
      tp[r] = now() - t0;
      free(out.data);
      free(info);
      free(lerr);
    }
    if ((tk[r] = bench_compile_whole(g, arch, bench_kernel_three)) < 0) DIE("NVRTC whole-program compile failed");
    rl[r] = tc[r] / tl[r];
    rp[r] = tc[r] / tp[r];
    rk[r] = tk[r] / tl[r];
  }
  free(core.data);
  coop_gen_destroy(&g);
  /* warm: the first cached link fills the entry, the next ones hit it */
  snprintf(cmd, sizeof cmd, "rm -rf %s/cache", work);
  if (system(cmd)) DIE("rm");
  const char *warm[] = {archopt, cdir};
  double first;
  link_once(cat, &user, warm, 2, &first, &hit, &nb);
  int nw = 21;
  for (int r = 0; r < nw; ++r) {
    link_once(cat, &user, warm, 2, &tw[r], &hit, &nb);
    if (!hit) DIE("expected a cache hit");
  }
  coop_catalog_close(&cat);
  double c = median(tc, reps), l = median(tl, reps), w = median(tw, nw), pl = median(tp, reps);
  double whole = median(tk, reps);
  /* per-repetition ratios: median, and the worst and best repetition */
  double rcm = median(rl, reps), rpm = median(rp, reps), rkm = median(rk, reps);
  printf("| what (sm_%d; then %d repetitions, each: compile, library link, plain link, whole compile) | time |\n"
         "|---|---|\n", arch, reps);
  printf("| NVRTC -dlto of the 3 CUB wrappers, first compile of the process | %.1f ms |\n", first_compile * 1e3);
  printf("| cold link through libcooplink, first link of the process | %.1f ms |\n", first_link * 1e3);
  printf("| first link / first compile | 1/%.1f |\n", first_compile / first_link);
  printf("| NVRTC -dlto of the 3 CUB wrappers (median) | %.1f ms |\n", c * 1e3);
  printf("| cold link through libcooplink, cache off (median) | %.1f ms |\n", l * 1e3);
  printf("| plain nvJitLink link of the same inputs and options (median) | %.1f ms |\n", pl * 1e3);
  printf("| NVRTC whole-program compile of kernel + 3 wrappers to a cubin (median) | %.1f ms |\n", whole * 1e3);
  printf("| **cold link / compile, per repetition: median (worst .. best)** | **1/%.1f** (1/%.1f .. 1/%.1f) |\n",
         rcm, rl[0], rl[reps - 1]);
  printf("| plain link / compile, per repetition: median (worst .. best) | 1/%.1f (1/%.1f .. 1/%.1f) |\n", rpm, rp[0],
         rp[reps - 1]);
  printf("| cold link / whole-program compile, per repetition: median (worst .. best) | 1/%.1f (1/%.1f .. 1/%.1f) |\n",
         rkm, rk[0], rk[reps - 1]);
  printf("| warm cache hit (median of %d) | %.3f ms |\n\n", nw, w * 1e3);
  fflush(stdout);

  /* 3. catalog size */
  printf("| catalog wrappers | bundles | open | auto-resolved link (bundles added) | whole-catalog link |\n");
  printf("|---|---|---|---|---|\n");
  fflush(stdout);
  filler(bundles, "fill_s7", 0, 7, 5);
  filler(bundles, "fill_s97", 1, 97, 5);
  int sizes[4] = {10, 100, 1000, 10000};
  /* every bundle is generated before any link is timed: links right after NVRTC runs are slower */
  for (int k = 0; k < (max_catalog - 100) / 100; ++k) {
    char name[32];
    snprintf(name, sizeof name, "fill_%d", k);
    filler(bundles, name, k, 100, 1);
  }
  for (int s = 0; s < 4 && sizes[s] <= max_catalog; ++s) {
    int n_full = sizes[s] <= 100 ? 0 : (sizes[s] - 100) / 100;
    char dir[700];
    snprintf(dir, sizeof dir, "%s/cat_%d", work, sizes[s]);
    snprintf(cmd, sizeof cmd, "rm -rf %s && mkdir -p %s && ln -s %s/core.* %s/ && ln -s %s/%s.* %s/", dir, dir, bundles,
             dir, bundles, sizes[s] == 10 ? "fill_s7" : "fill_s97", dir);
    if (system(cmd)) DIE("ln");
    for (int k = 0; k < n_full; ++k) {
      snprintf(cmd, sizeof cmd, "ln -s %s/fill_%d.* %s/", bundles, k, dir);
      if (system(cmd)) DIE("ln");
    }
    double t0 = now();
    if (coop_catalog_open(&cat, dir, &err)) DIE("catalog: %s", err);
    double topen = now() - t0;
    size_t nbundles, nsyms;
    coop_catalog_get_counts(cat, &nbundles, &nsyms);
    for (int r = 0; r < reps; ++r) link_once(cat, &user, cold, 2, &tl[r], &hit, &nb);
    double la = median(tl, reps);
    double lw = whole_limit(sizes[s]) ? link_whole(dir, &user, (int)nbundles) : -1;
    printf("| %zu | %zu | %.1f ms | %.1f ms (%zu) | %.0f ms |\n", nsyms, nbundles, topen * 1e3, la * 1e3, nb, lw * 1e3);
    fflush(stdout);
    coop_catalog_close(&cat);
  }
  return 0;
}
