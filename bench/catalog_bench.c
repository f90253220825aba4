/* bench: a link against the whole default catalog versus a link against bundles holding exactly the
 * symbols the kernel calls, in one run, and both versus NVRTC compiling the same CUB wrappers.
 *
 * The kernel calls three primitives (BlockLoad striped, BlockScan inclusive sum raking, BlockStore
 * striped; f32, 256 threads x 4 items) and is given as LTO-IR. Each repetition times the six links in
 * an order shuffled anew (a fixed seed), then the NVRTC compile, so that each link follows the compile
 * (which leaves the CPU caches cold: the link after it runs 1-3 ms slower) equally often:
 *   lib full     coop_catalog_open of the full catalog + a cold link (cache and generation off)
 *   lib exact1   the same against a catalog of one bundle holding exactly the three symbols
 *   lib exact3   ... three bundles holding one symbol each
 *   proc *       the same three as whole `cooplink link --no-cache` processes
 *   nvrtc        NVRTC -dlto of the three CUB wrappers (the generator's translation unit)
 * and the ratios are taken per repetition (median, worst, best). The exact bundles are built like the
 * catalog (lean front end, same archs, one fatbin each), so the comparison is layout against layout.
 *
 *   catalog_bench --catalog DIR [--reps N] [--arch N] [--work DIR] [--cooplink PATH]
 */
#include <cooplink/coopgen.h>
#include <cooplink/cooplink.h>
#include <jansson.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../tests/support/lto.h"
#include "bench_util.h"

extern char **environ;

static const char *SYMS[] = {"coop_block_load_f32_t256_i4_striped", "coop_block_inclusive_scan_sum_f32_t256_i4_raking",
                             "coop_block_store_f32_t256_i4_striped"};


static int arch = 90, reps = 15;

static coop_gen *three(const char *archs, const char *ir)
{
  coop_gen *g = NULL;
  if (coop_gen_create(&g) || coop_gen_set_name(g, "exact") || (archs && coop_gen_set_archs(g, archs)) ||
      coop_gen_set_ir(g, ir))
    DIE("coop_gen setup");
  for (int i = 0; i < 3; ++i)
    if (coop_gen_add_symbol(g, SYMS[i])) DIE("coop_gen_add_symbol %s", SYMS[i]);
  return g;
}

static void build_exact(const char *dir, const char *archs, const char *ir, int single)
{
  char idx[1200];
  snprintf(idx, sizeof idx, "%s/index.json", dir);
  if (access(idx, F_OK) == 0) return; /* kept between runs */
  coop_gen *g = three(archs, ir);
  if (single) setenv("COOPGEN_SINGLE_UNIT", "1", 1);
  coop_result rc = coop_gen_write_catalog(g, dir);
  unsetenv("COOPGEN_SINGLE_UNIT");
  if (rc) DIE("coop_gen_write_catalog %s: %s", dir, coop_result_name(rc));
  coop_gen_destroy(&g);
}

/* The catalog's archs as a comma list. */
/* The catalog's IR form (catalog.json "ir"; catalogs from before it was recorded were pre-optimised),
 * so that the exact bundles are built the same way. */
static const char *catalog_ir(const char *dir)
{
  char path[1200];
  snprintf(path, sizeof path, "%s/catalog.json", dir);
  json_error_t je;
  json_t *c = json_load_file(path, 0, &je);
  if (!c) DIE("%s: %s", path, je.text);
  const char *ir = json_string_value(json_object_get(c, "ir"));
  static char out[16];
  snprintf(out, sizeof out, "%s", ir ? ir : "optimized");
  json_decref(c);
  return out;
}

static char *catalog_archs(const char *dir)
{
  char path[1200];
  snprintf(path, sizeof path, "%s/index.json", dir);
  json_error_t je;
  json_t *idx = json_load_file(path, 0, &je);
  if (!idx) DIE("%s: %s", path, je.text);
  static char out[512];
  out[0] = 0;
  size_t i;
  json_t *a;
  json_array_foreach(json_object_get(idx, "archs"), i, a)
  {
    strcat(out, i ? "," : "");
    strcat(out, json_string_value(a));
  }
  json_decref(idx);
  return out;
}

static void *kir;
static size_t kir_size;
static size_t last_bundles;

static double lib_link(const char *dir)
{
  double t0 = bench_now();
  coop_catalog *cat = NULL;
  char *err = NULL;
  if (coop_catalog_open(&cat, dir, &err)) DIE("open %s: %s", dir, err);
  coop_linker *l = NULL;
  char a[32];
  snprintf(a, sizeof a, "-arch=sm_%d", arch);
  const char *opts[] = {a, "-cache=0", "-generate=0"};
  if (coop_linker_create(&l, cat, 3, opts)) DIE("coop_linker_create");
  if (coop_linker_add_data(l, COOP_INPUT_LTOIR, kir, kir_size, "k.ltoir")) DIE("add");
  coop_result rc = coop_linker_complete(l);
  if (rc) DIE("link against %s: %s", dir, coop_result_name(rc));
  coop_link_info info;
  coop_linker_get_info(l, &info);
  last_bundles = info.n_bundles;
  coop_linker_destroy(&l);
  coop_catalog_close(&cat);
  return bench_now() - t0;
}

static const char *cooplink = "build/cooplink";
static char kpath[1100], opath[1100];

static double proc_link(const char *dir)
{
  char a[32];
  snprintf(a, sizeof a, "sm_%d", arch);
  char *argv[] = {(char *)cooplink, "link", "--no-cache", "--no-generate", "--arch", a, "--catalog", (char *)dir,
                  kpath, "-o", opath, NULL};
  double t0 = bench_now();
  pid_t pid;
  if (posix_spawn(&pid, cooplink, NULL, NULL, argv, environ) != 0) DIE("cannot run %s", cooplink);
  int st = 0;
  waitpid(pid, &st, 0);
  double dt = bench_now() - t0;
  if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) DIE("%s link against %s failed", cooplink, dir);
  return dt;
}

enum { LIB_FULL, LIB_E1, LIB_E3, PROC_FULL, PROC_E1, PROC_E3, NVRTC, N_MEAS };
static const char *names[N_MEAS] = {"lib full", "lib exact1", "lib exact3", "proc full", "proc exact1", "proc exact3",
                                    "nvrtc"};

static void ratio_row(const char *what, double *num, double *den, int n, int invert)
{
  double *r = malloc(sizeof *r * (size_t)n);
  for (int i = 0; i < n; ++i) r[i] = invert ? den[i] / num[i] : num[i] / den[i];
  double med = bench_median(r, n);
  if (invert)
    printf("| %s | 1/%.1f (1/%.1f .. 1/%.1f) |\n", what, med, r[n - 1], r[0]);
  else
    printf("| %s | %.3f (%.3f .. %.3f) |\n", what, med, r[0], r[n - 1]);
  free(r);
}

int main(int argc, char **argv)
{
  const char *catalog = NULL, *work = "/tmp/coop_catalog_bench", *form_given = NULL;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--catalog") && i + 1 < argc) catalog = argv[++i];
    else if (!strcmp(argv[i], "--reps") && i + 1 < argc) reps = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--arch") && i + 1 < argc) arch = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--work") && i + 1 < argc) work = argv[++i];
    else if (!strcmp(argv[i], "--cooplink") && i + 1 < argc) cooplink = argv[++i];
    else if (!strcmp(argv[i], "--ir") && i + 1 < argc) form_given = argv[++i];
    else DIE("usage: catalog_bench --catalog DIR [--reps N] [--arch N] [--work DIR] [--cooplink PATH] [--ir FORM]");
  }
  if (!catalog || reps < 3) DIE("catalog_bench: --catalog DIR is required (and --reps >= 3)");
  char e1[1100], e3[1100];
  const char *form = form_given ? form_given : catalog_ir(catalog); /* --ir: a catalog that does not say */
  snprintf(e1, sizeof e1, "%s/exact1-%s", work, form);
  snprintf(e3, sizeof e3, "%s/exact3-%s", work, form);
  snprintf(kpath, sizeof kpath, "%s/k.ltoir", work);
  snprintf(opath, sizeof opath, "%s/k.cubin", work);
  char *archs = catalog_archs(catalog);
  build_exact(e1, archs, form, 1);
  build_exact(e3, archs, form, 0);
  coopt_blob ir = {0};
  char *log = NULL;
  if (coopt_compile(bench_kernel_three, arch, NULL, &ir, &log)) DIE("kernel: %s", log);
  kir = ir.data;
  kir_size = ir.size;
  FILE *f = fopen(kpath, "wb");
  if (!f || fwrite(kir, 1, kir_size, f) != kir_size || fclose(f)) DIE("%s: cannot write", kpath);
  coop_gen *g = three(NULL, form);

  size_t nb = 0, ns = 0;
  {
    coop_catalog *c = NULL;
    char *err = NULL;
    if (coop_catalog_open(&c, catalog, &err)) DIE("%s: %s", catalog, err);
    coop_catalog_get_counts(c, &nb, &ns);
    coop_catalog_close(&c);
  }
  /* first calls of the process load NVRTC and nvJitLink: reported apart */
  double first_nvrtc = bench_compile_wrappers(g, arch);
  double first_lib = lib_link(catalog);
  size_t full_bundles = last_bundles;
  double *m[N_MEAS];
  for (int k = 0; k < N_MEAS; ++k) m[k] = calloc((size_t)reps, sizeof(double));
  srand(7);
  for (int r = 0; r < reps; ++r) {
    int order[N_MEAS];
    for (int s = 0; s < N_MEAS; ++s) order[s] = s;
    for (int s = NVRTC - 1; s > 0; --s) { /* Fisher-Yates over the six links; NVRTC stays last */
      int j = rand() % (s + 1), t = order[s];
      order[s] = order[j];
      order[j] = t;
    }
    for (int s = 0; s < N_MEAS; ++s) {
      int k = order[s];
      switch (k) {
      case LIB_FULL: m[k][r] = lib_link(catalog); break;
      case LIB_E1: m[k][r] = lib_link(e1); break;
      case LIB_E3: m[k][r] = lib_link(e3); break;
      case PROC_FULL: m[k][r] = proc_link(catalog); break;
      case PROC_E1: m[k][r] = proc_link(e1); break;
      case PROC_E3: m[k][r] = proc_link(e3); break;
      default: m[k][r] = bench_compile_wrappers(g, arch); break;
      }
      if (m[k][r] < 0) DIE("%s failed", names[k]);
    }
  }
  printf("| what (sm_%d, %d repetitions; catalog %s: %zu bundles, %zu symbols, %s IR; the kernel adds %zu) | time |\n",
         arch, reps, catalog, nb, ns, form, full_bundles);
  printf("|---|---|\n");
  printf("| first NVRTC compile / first library link of the process | %.1f ms / %.1f ms |\n", first_nvrtc * 1e3,
         first_lib * 1e3);
  for (int k = 0; k < N_MEAS; ++k) {
    double *c = malloc(sizeof(double) * (size_t)reps);
    memcpy(c, m[k], sizeof(double) * (size_t)reps);
    printf("| %s (median) | %.2f ms |\n", names[k], bench_median(c, reps) * 1e3);
    free(c);
  }
  printf("\n| ratio, per repetition | median (best .. worst) |\n|---|---|\n");
  ratio_row("**library: full catalog / one bundle of exactly the 3 symbols**", m[LIB_FULL], m[LIB_E1], reps, 0);
  ratio_row("library: full catalog / 3 bundles of one symbol each", m[LIB_FULL], m[LIB_E3], reps, 0);
  ratio_row("**process: full catalog / one bundle of exactly the 3 symbols**", m[PROC_FULL], m[PROC_E1], reps, 0);
  ratio_row("process: full catalog / 3 bundles of one symbol each", m[PROC_FULL], m[PROC_E3], reps, 0);
  ratio_row("**whole process, full catalog / NVRTC compile of the 3 wrappers**", m[PROC_FULL], m[NVRTC], reps, 1);
  ratio_row("library link, full catalog / NVRTC compile of the 3 wrappers", m[LIB_FULL], m[NVRTC], reps, 1);
  coop_gen_destroy(&g);
  return 0;
}
