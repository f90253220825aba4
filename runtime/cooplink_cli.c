/* cooplink: the runtime's command line. */
#include <cooplink/cooplink.h>
#include <cooplink/version.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../common/common.h"
#include "cooplink_args.h"

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
  coop__link_args a;
  int parsed = coop__link_args_parse(&a, argc, argv, stderr);
  if (parsed) return parsed;
  int status = 1;
  coop_catalog *cat = NULL;
  coop_linker *l = NULL;
  if (!open_catalog(a.catalog_dir, a.catalog_dir != NULL, &cat)) goto done;
  if (a.verbose) {
    size_t nb = 0, ns = 0;
    if (cat) coop_catalog_get_counts(cat, &nb, &ns);
    printf("cooplink: catalog: %zu bundles, %zu symbols\n", nb, ns);
  }
  coop_result rc = coop_linker_create(&l, cat, a.n_opts, a.opts);
  for (int i = 0; !rc && i < a.n_utypes; ++i) {
    char name[64];
    unsigned long size = 0, align = 0;
    if (!coop__parse_user_type(a.utypes[i], name, &size, &align)) {
      fprintf(stderr, "cooplink: --user-type '%s': expected NAME:SIZE:ALIGN (e.g. mat2:16:4)\n", a.utypes[i]);
      status = 2;
      goto done;
    }
    rc = coop_linker_add_type(l, name, size, align);
  }
  for (int i = 0; !rc && i < a.n_inputs; ++i) rc = coop_linker_add_file(l, COOP_INPUT_AUTO, a.inputs[i]);
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
  if (coop_linker_get_cubin(l, &cubin, &size) || !write_file(a.out, cubin, size)) goto done;
  if (a.ptx_out) {
    const char *ptx;
    if (coop_linker_get_ptx(l, &ptx, &size) || !write_file(a.ptx_out, ptx, size)) goto done;
  }
  if (a.verbose) {
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
  coop__link_args_free(&a);
  return status;
}

static void print_archs(const int *archs, int n)
{
  for (int i = 0; i < n; ++i) printf("%ssm_%d", i ? "," : "", archs[i]);
}

/* cooplink catalog list|verify [DIR]: DIR defaults to $COOPLINK_CATALOG, else the installed catalog. */
static int cmd_catalog(int argc, char **argv)
{
  coop__catalog_args args;
  int parsed = coop__catalog_args_parse(&args, argc, argv, stderr);
  if (parsed) return parsed;
  const char *dir = args.dir, *verb = args.verb;
  int symbols = args.symbols;
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
    fputs(coop__cooplink_usage, stdout);
    return 0;
  }
  fputs(coop__cooplink_usage, stderr);
  return 2;
}
