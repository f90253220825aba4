/* cooplink: the runtime's command line. */
#include <cooplink/cooplink.h>
#include <cooplink/version.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char usage[] =
  "usage: cooplink link [--arch sm_XX] [--catalog DIR] [--no-cache] [--cache-dir DIR] [--no-generate]\n"
  "                     [-I DIR] [--lineinfo] [-Xnvrtc OPT] [-Xnvjitlink OPT] [--verbose]\n"
  "                     [--user-type NAME:SIZE:ALIGN]...\n"
  "                     INPUT... -o OUT.cubin [--ptx OUT.ptx]\n"
  "       cooplink catalog list [DIR] [--symbols]   the bundles of a catalog: symbols, archs, sizes\n"
  "       cooplink catalog verify [DIR]             full check; exit 0 only when usable here\n"
  "       cooplink device                      the GPU's arch (sm_XX), exit 1 without one\n"
  "       cooplink --version\n"
  "INPUT: .cu (compiled with NVRTC), .ltoir, .ptx, .cubin, .fatbin, .a (nvcc -lib) or a bundle's .json.\n"
  "The coop_ symbols the inputs need are found and only the bundles defining them are linked; a\n"
  "symbol in no bundle is generated on demand (unless --no-generate). --arch defaults to the GPU's.\n"
  "--user-type declares a user type the symbols take (e.g. mat2:16:4), for generation and checks.\n";

static int write_file(const char *path, const void *data, size_t size)
{
  size_t n = strlen(path) + 16;
  char *tmp = malloc(n);
  snprintf(tmp, n, "%s.tmp%d", path, (int)getpid());
  FILE *f = fopen(tmp, "wb");
  int ok = f && fwrite(data, 1, size, f) == size;
  if (f && fclose(f) != 0) ok = 0;
  if (ok && rename(tmp, path) != 0) ok = 0;
  if (!ok) {
    unlink(tmp);
    fprintf(stderr, "cooplink: cannot write %s\n", path);
  }
  free(tmp);
  return ok;
}

static void print_lines(const char *prefix, const char *text)
{
  const char *p = text;
  while (p && *p) {
    const char *e = strchr(p, '\n');
    int n = e ? (int)(e - p) : (int)strlen(p);
    if (n) fprintf(stderr, "%s%.*s\n", prefix, n, p);
    p = e ? e + 1 : NULL;
  }
}

/* Kernel resources from nvJitLink's -verbose log (ptxas lines). */
static void print_kernels(const char *log)
{
  const char *mark = "Function properties for ";
  for (const char *p = log; (p = strstr(p, mark)); ) {
    p += strlen(mark);
    const char *e = strchr(p, '\n');
    if (!e) break;
    char name[256];
    snprintf(name, sizeof name, "%.*s", (int)(e - p), p);
    const char *frame = strstr(e, "bytes stack frame");
    const char *regs = strstr(e, "Used ");
    const char *next = strstr(e, mark);
    long stack = -1, st = -1, ld = -1, r = -1;
    if (frame && (!next || frame < next)) {
      const char *ls = frame;
      while (ls > e && ls[-1] != '\n') --ls;
      const char *dot = strchr(ls, '.');
      if (dot) sscanf(dot + 1, " %ld bytes stack frame, %ld bytes spill stores, %ld bytes spill loads", &stack, &st, &ld);
    }
    if (regs && (!next || regs < next)) sscanf(regs, "Used %ld registers", &r);
    printf("cooplink: kernel %s: %ld registers, %ld bytes stack frame, %ld bytes spill stores, %ld bytes spill loads\n",
           name, r, stack, st, ld);
    p = e;
  }
}

static int open_catalog(const char *dir, int required, coop_catalog **cat)
{
  char *err = NULL;
  coop_result rc = coop_catalog_open(cat, dir, &err);
  if (rc == COOP_ERROR_IO && !required) { /* no catalog at the default place: links can still generate */
    free(err);
    *cat = NULL;
    return 1;
  }
  if (rc) {
    print_lines("cooplink: ", err);
    fprintf(stderr, "cooplink: %s\n", coop_result_name(rc));
    free(err);
    return 0;
  }
  return 1;
}

static int cmd_link(int argc, char **argv)
{
  const char *catalog_dir = NULL, *out = NULL, *ptx_out = NULL;
  const char *opts[256];
  unsigned n_opts = 0;
  const char *inputs[256], *utypes[32];
  int n_inputs = 0, verbose = 0, n_utypes = 0;
  char *owned[256];
  int n_owned = 0;
#define OPT(s) (opts[n_opts++] = (s))
#define OWN(fmt, v)                                         \
  do {                                                      \
    const char *v_ = (v);                                   \
    size_t n_ = strlen(fmt) + strlen(v_) + 1;               \
    char *s_ = malloc(n_);                                  \
    snprintf(s_, n_, fmt, v_);                              \
    owned[n_owned++] = s_;                                  \
    OPT(s_);                                                \
  } while (0)
  for (int i = 0; i < argc; ++i) {
    const char *a = argv[i];
    int has = i + 1 < argc;
    if (n_opts > 240 || n_owned > 240 || n_inputs > 250) {
      fprintf(stderr, "cooplink: too many arguments\n");
      return 2;
    }
    if (!strcmp(a, "--arch") && has) OWN("-arch=%s", argv[++i]);
    else if (!strcmp(a, "--catalog") && has) catalog_dir = argv[++i];
    else if (!strcmp(a, "--no-cache")) OPT("-cache=0");
    else if (!strcmp(a, "--cache-dir") && has) OWN("-cache-dir=%s", argv[++i]);
    else if (!strcmp(a, "--no-generate")) OPT("-generate=0");
    else if (!strcmp(a, "-I") && has) OWN("-I%s", argv[++i]);
    else if (!strncmp(a, "-I", 2) && a[2]) OPT(a);
    else if (!strcmp(a, "--lineinfo")) OPT("-lineinfo");
    else if (!strcmp(a, "--user-type") && has && n_utypes < 32) utypes[n_utypes++] = argv[++i];
    else if (!strcmp(a, "-Xnvrtc") && has) OWN("-Xnvrtc=%s", argv[++i]);
    else if (!strcmp(a, "-Xnvjitlink") && has) OWN("-Xnvjitlink=%s", argv[++i]);
    else if (!strcmp(a, "--verbose") || !strcmp(a, "-v")) {
      verbose = 1;
      OPT("-verbose");
    }
    else if (!strcmp(a, "-o") && has) out = argv[++i];
    else if (!strcmp(a, "--ptx") && has) {
      ptx_out = argv[++i];
      OPT("-ptx");
    } else if (a[0] == '-') {
      fprintf(stderr, "cooplink: unknown or incomplete option '%s'\n%s", a, usage);
      return 2;
    } else inputs[n_inputs++] = a;
  }
  if (!out || n_inputs == 0) {
    fprintf(stderr, "cooplink: link needs at least one INPUT and -o OUT.cubin\n%s", usage);
    return 2;
  }
  int status = 1;
  coop_catalog *cat = NULL;
  coop_linker *l = NULL;
  if (!open_catalog(catalog_dir, catalog_dir != NULL, &cat)) goto done;
  if (verbose) {
    size_t nb = 0, ns = 0;
    if (cat) coop_catalog_get_counts(cat, &nb, &ns);
    printf("cooplink: catalog: %zu bundles, %zu symbols\n", nb, ns);
  }
  coop_result rc = coop_linker_create(&l, cat, n_opts, opts);
  for (int i = 0; !rc && i < n_utypes; ++i) {
    char name[64];
    unsigned long size = 0, align = 0;
    int end = 0;
    if (sscanf(utypes[i], "%63[^:]:%lu:%lu%n", name, &size, &align, &end) != 3 || utypes[i][end] ||
        strpbrk(utypes[i], "-+ ")) {
      fprintf(stderr, "cooplink: --user-type '%s': expected NAME:SIZE:ALIGN (e.g. mat2:16:4)\n", utypes[i]);
      status = 2;
      goto done;
    }
    rc = coop_linker_add_type(l, name, size, align);
  }
  for (int i = 0; !rc && i < n_inputs; ++i) rc = coop_linker_add_file(l, COOP_INPUT_AUTO, inputs[i]);
  if (!rc) rc = coop_linker_complete(l);
  if (rc) {
    size_t n = 0;
    if (l && coop_linker_get_log_size(l, &n) == COOP_SUCCESS) {
      char *log = malloc(n);
      if (log && coop_linker_get_log(l, log) == COOP_SUCCESS) print_lines("cooplink: ", log);
      free(log);
    }
    fprintf(stderr, "cooplink: link failed: %s (%s)\n", coop_result_name(rc), coop_result_string(rc));
    goto done;
  }
  const void *cubin;
  size_t size;
  if (coop_linker_get_cubin(l, &cubin, &size) || !write_file(out, cubin, size)) goto done;
  if (ptx_out) {
    const char *ptx;
    if (coop_linker_get_ptx(l, &ptx, &size) || !write_file(ptx_out, ptx, size)) goto done;
  }
  if (verbose) {
    coop_link_info info;
    coop_linker_get_info(l, &info);
    printf("cooplink: bundles added (%zu):", info.n_bundles);
    for (size_t i = 0; i < info.n_bundles; ++i) {
      const char *name;
      if (coop_linker_get_bundle(l, i, &name) == COOP_SUCCESS) printf(" %s", name);
    }
    printf("\ncooplink: link time: %.1f ms (%s)%s\n", info.seconds * 1e3, info.cache_hit ? "cache hit" : "cache miss",
           info.n_generated ? ", symbols generated on demand" : "");
    size_t n = 0;
    coop_linker_get_log_size(l, &n);
    char *log = malloc(n);
    if (log && coop_linker_get_log(l, log) == COOP_SUCCESS) print_kernels(log);
    free(log);
  }
  status = 0;
done:
  coop_linker_destroy(&l);
  coop_catalog_close(&cat);
  for (int i = 0; i < n_owned; ++i) free(owned[i]);
  return status;
}

static void print_archs(const int *archs, int n)
{
  for (int i = 0; i < n; ++i) printf("%ssm_%d", i ? "," : "", archs[i]);
}

/* cooplink catalog list|verify [DIR]: DIR defaults to $COOPLINK_CATALOG, else the installed catalog. */
static int cmd_catalog(int argc, char **argv)
{
  const char *dir = NULL, *verb = "list";
  int symbols = 0, n_pos = 0;
  for (int i = 0; i < argc; ++i) {
    if (!strcmp(argv[i], "--catalog") && i + 1 < argc) dir = argv[++i];
    else if (!strcmp(argv[i], "--symbols")) symbols = 1;
    else if (argv[i][0] == '-') {
      fprintf(stderr, "cooplink: unknown option '%s'\n%s", argv[i], usage);
      return 2;
    } else if (n_pos == 0 && (!strcmp(argv[i], "list") || !strcmp(argv[i], "verify"))) {
      verb = argv[i];
      ++n_pos;
    } else if (!dir) {
      dir = argv[i];
      ++n_pos;
    } else {
      fprintf(stderr, "cooplink: unexpected argument '%s'\n%s", argv[i], usage);
      return 2;
    }
  }
  if (!strcmp(verb, "verify")) {
    char *report = NULL;
    coop_result rc = coop_catalog_verify(dir, &report);
    print_lines("cooplink: ", report);
    free(report);
    if (rc) {
      fprintf(stderr, "cooplink: catalog %s is not usable: %s (%s)\n", dir ? dir : "(default)", coop_result_name(rc),
              coop_result_string(rc));
      return 1;
    }
  }
  coop_catalog *cat = NULL;
  if (!open_catalog(dir, 1, &cat)) return 1;
  size_t nb, ns, bytes = 0;
  coop_catalog_get_counts(cat, &nb, &ns);
  int status = 0;
  for (size_t i = 0; i < nb; ++i) {
    coop_bundle_info info;
    char *err = NULL;
    coop_result rc = coop_catalog_get_bundle_info(cat, i, &info, &err);
    if (rc) {
      print_lines("cooplink: ", err);
      free(err);
      status = 1;
      continue;
    }
    bytes += info.payload_bytes;
    if (!strcmp(verb, "list")) {
      printf("%-56s %4zu symbols  %8zu bytes  %s ", info.name, info.n_symbols, info.payload_bytes,
             info.fatbin ? "fatbin" : "ltoir ");
      print_archs(info.archs, info.n_archs);
      printf("\n");
    }
  }
  if (symbols)
    for (size_t i = 0; i < ns; ++i) {
      const char *sym;
      size_t b;
      coop_bundle_info info;
      if (coop_catalog_get_symbol(cat, i, &sym, &b) == COOP_SUCCESS &&
          coop_catalog_get_bundle_info(cat, b, &info, NULL) == COOP_SUCCESS)
        printf("%s %s\n", sym, info.name);
    }
  printf("%s: %zu bundles, %zu symbols, %zu payload bytes%s\n", dir ? dir : "(default catalog)", nb, ns, bytes,
         !strcmp(verb, "verify") && !status ? "; every manifest, payload hash, arch and version checked: usable" : "");
  coop_catalog_close(&cat);
  return status;
}

int main(int argc, char **argv)
{
  if (argc >= 2 && !strcmp(argv[1], "link")) {
    /* Everything is written and closed: leave without the CUDA libraries' static destructors (LLVM's
     * teardown), which cost a short link a measurable share of its time. */
    int status = cmd_link(argc - 2, argv + 2);
    fflush(stdout);
    fflush(stderr);
    _exit(status);
  }
  if (argc >= 2 && !strcmp(argv[1], "catalog")) return cmd_catalog(argc - 2, argv + 2);
  if (argc == 2 && !strcmp(argv[1], "device")) {
    int arch;
    if (coop_device_arch(&arch) != COOP_SUCCESS) {
      char why[256] = "";
      coop_driver_available(why, sizeof why);
      fprintf(stderr, "cooplink: no GPU: %s\n", why);
      return 1;
    }
    printf("sm_%d\n", arch);
    return 0;
  }
  if (argc == 2 && !strcmp(argv[1], "--version")) {
    printf("cooplink %s\n", coop_version_string());
    return 0;
  }
  if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
    fputs(usage, stdout);
    return 0;
  }
  fputs(usage, stderr);
  return 2;
}
