/* coopgen: the generator's command line. */
#include <cooplink/coopgen.h>
#include <cooplink/version.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
  "usage: coopgen [--spec FILE]... [--family F --type T,... --threads N,... [--op OP,...] [--items N,...]\n"
  "               [--algorithm A,...] [--variant V,...]] [--arch sm_XX,...] [--name NAME] [-o DIR]\n"
  "               (a warp family takes --warp LANES,... instead of --threads; warp load, store, exchange\n"
  "               and merge sort take --items too; a sort of pairs takes --values TYPE,...)\n"
  "               [--symbols FILE] [--ir plain|optimized] [--print-source] [--catalog]\n"
  "               [--user-type NAME:SIZE:ALIGN]...\n"
  "Generates a cooplink bundle (manifest, C header, LTO-IR per arch) into DIR (default: .).\n"
  "With --catalog, writes a catalog instead: one small bundle per CUB instance, an index.json and one\n"
  "header NAME.h, compiled in parallel ($COOPGEN_JOBS), so that a link adds only what it calls.\n"
  "The flags --family .. --variant form one group, like one entry of a spec file's \"generate\" list;\n"
  "lists are comma separated and every valid combination is generated. --arch defaults to every arch\n"
  "from sm_75 up that NVRTC supports. --symbols FILE adds the symbols it lists (one device-ABI name per\n"
  "line, as a link that generates on demand would). --ir optimized pre-optimises the LTO-IR (faster links;\n"
  "a Numba kernel's loops around the calls then stay rolled), overriding a spec's \"ir\" (default plain).\n"
  "--user-type declares a user type (e.g. mat2:16:4) that --type, specs and --symbols may then name; its\n"
  "ops are custom:<name> (an extern \"C\" __device__ void name(const T *a, const T *b, T *out) you link).\n"
  "See include/cooplink/coopgen.h for the spec format.\n";

static int fail(coop_gen *gen, coop_result rc)
{
  size_t size = 0;
  coop_gen_get_log_size(gen, &size);
  char *log = malloc(size);
  if (log && coop_gen_get_log(gen, log) == COOP_SUCCESS && log[0]) {
    for (char *line = strtok(log, "\n"); line; line = strtok(NULL, "\n")) fprintf(stderr, "coopgen: %s\n", line);
  } else {
    fprintf(stderr, "coopgen: %s: %s\n", coop_result_name(rc), coop_result_string(rc));
  }
  free(log);
  coop_gen_destroy(&gen);
  return 1;
}

/* --user-type NAME:SIZE:ALIGN */
static coop_result add_user_type(coop_gen *gen, const char *text)
{
  char name[64];
  unsigned long size = 0, align = 0;
  int end = 0;
  if (sscanf(text, "%63[^:]:%lu:%lu%n", name, &size, &align, &end) != 3 || text[end] || strchr(text, '-') ||
      strchr(text, '+') || strchr(text, ' ')) {
    fprintf(stderr, "coopgen: --user-type '%s': expected NAME:SIZE:ALIGN (e.g. mat2:16:4)\n", text);
    return COOP_ERROR_SPEC_INVALID;
  }
  return coop_gen_add_type(gen, name, size, align);
}

int main(int argc, char **argv)
{
  enum { O_SPEC = 256, O_FAMILY, O_TYPE, O_OP, O_THREADS, O_ITEMS, O_ALGO, O_VARIANT, O_ARCH, O_NAME, O_SOURCE, O_VER, O_CATALOG, O_SYMBOLS, O_WARP, O_IR, O_UTYPE, O_VALUES, O_BINS, O_DECODED };
  static const struct option longs[] = {
    {"spec", required_argument, 0, O_SPEC},       {"family", required_argument, 0, O_FAMILY},
    {"type", required_argument, 0, O_TYPE},       {"op", required_argument, 0, O_OP},
    {"threads", required_argument, 0, O_THREADS}, {"items", required_argument, 0, O_ITEMS},
    {"warp", required_argument, 0, O_WARP},      {"ir", required_argument, 0, O_IR},
    {"algorithm", required_argument, 0, O_ALGO},  {"variant", required_argument, 0, O_VARIANT},
    {"arch", required_argument, 0, O_ARCH},       {"name", required_argument, 0, O_NAME},
    {"output", required_argument, 0, 'o'},        {"print-source", no_argument, 0, O_SOURCE},
    {"version", no_argument, 0, O_VER},           {"help", no_argument, 0, 'h'},
    {"catalog", no_argument, 0, O_CATALOG},       {"symbols", required_argument, 0, O_SYMBOLS},
    {"user-type", required_argument, 0, O_UTYPE}, {"values", required_argument, 0, O_VALUES},
    {"bins", required_argument, 0, O_BINS},       {"decoded", required_argument, 0, O_DECODED},
    {0, 0, 0, 0},
  };
  coop_gen_group group = {0};
  const char *specs[64], *utypes[32];
  int n_specs = 0, n_utypes = 0;
  const char *arch = NULL, *name = NULL, *out = ".", *symbols = NULL, *ir = NULL;
  int print_source = 0, any_group = 0, catalog = 0;
  int c;
  opterr = 0;
  while ((c = getopt_long(argc, argv, "o:h", longs, NULL)) != -1) {
    switch (c) {
    case O_SPEC:
      if (n_specs == 64) {
        fprintf(stderr, "coopgen: more than 64 --spec files\n");
        return 2;
      }
      specs[n_specs++] = optarg;
      break;
    case O_FAMILY: group.family = optarg; any_group = 1; break;
    case O_TYPE: group.type = optarg; any_group = 1; break;
    case O_OP: group.op = optarg; any_group = 1; break;
    case O_THREADS: group.threads = optarg; any_group = 1; break;
    case O_ITEMS: group.items = optarg; any_group = 1; break;
    case O_WARP: group.warp = optarg; any_group = 1; break;
    case O_VALUES: group.values = optarg; any_group = 1; break;
    case O_BINS: group.bins = optarg; any_group = 1; break;
    case O_DECODED: group.decoded = optarg; any_group = 1; break;
    case O_ALGO: group.algorithm = optarg; any_group = 1; break;
    case O_VARIANT: group.variant = optarg; any_group = 1; break;
    case O_ARCH: arch = optarg; break;
    case O_NAME: name = optarg; break;
    case 'o': out = optarg; break;
    case O_SOURCE: print_source = 1; break;
    case O_CATALOG: catalog = 1; break;
    case O_SYMBOLS: symbols = optarg; break;
    case O_IR: ir = optarg; break;
    case O_UTYPE:
      if (n_utypes == 32) {
        fprintf(stderr, "coopgen: more than 32 --user-type declarations\n");
        return 2;
      }
      utypes[n_utypes++] = optarg;
      break;
    case O_VER: printf("coopgen %s\n", coop_version_string()); return 0;
    case 'h': fputs(usage, stdout); return 0;
    default:
      if (optopt) fprintf(stderr, "coopgen: option '%s' needs a value\n%s", argv[optind - 1], usage);
      else fprintf(stderr, "coopgen: unknown option '%s'\n%s", argv[optind - 1], usage);
      return 2;
    }
  }
  if (optind < argc) {
    fprintf(stderr, "coopgen: unexpected argument '%s'\n%s", argv[optind], usage);
    return 2;
  }
  if (!n_specs && !any_group && !symbols) {
    fprintf(stderr, "coopgen: nothing to generate: give --spec FILE, --family ... or --symbols FILE\n%s", usage);
    return 2;
  }
  coop_gen *gen = NULL;
  coop_result rc = coop_gen_create(&gen);
  if (rc) {
    fprintf(stderr, "coopgen: %s\n", coop_result_string(rc));
    return 1;
  }
  if (ir && (rc = coop_gen_set_ir(gen, ir))) return fail(gen, rc);
  for (int i = 0; i < n_utypes; ++i)
    if ((rc = add_user_type(gen, utypes[i]))) return fail(gen, rc);
  for (int i = 0; i < n_specs; ++i)
    if ((rc = coop_gen_add_spec_file(gen, specs[i]))) return fail(gen, rc);
  if (any_group && (rc = coop_gen_add_group(gen, &group))) return fail(gen, rc);
  if (symbols) {
    FILE *f = fopen(symbols, "r");
    if (!f) {
      fprintf(stderr, "coopgen: %s: cannot be read\n", symbols);
      coop_gen_destroy(&gen);
      return 1;
    }
    char line[512];
    int lineno = 0;
    while (fgets(line, sizeof line, f)) {
      ++lineno;
      line[strcspn(line, "\r\n")] = 0;
      if (!line[0] || line[0] == '#') continue;
      if ((rc = coop_gen_add_symbol(gen, line))) {
        fprintf(stderr, "coopgen: %s:%d: '%s' is not a symbol coopgen can make\n", symbols, lineno, line);
        fclose(f);
        return fail(gen, rc);
      }
    }
    fclose(f);
  }
  if (arch && (rc = coop_gen_set_archs(gen, arch))) return fail(gen, rc);
  if (name && (rc = coop_gen_set_name(gen, name))) return fail(gen, rc);
  if (print_source) {
    char *src = NULL;
    if ((rc = coop_gen_get_source(gen, &src))) return fail(gen, rc);
    fputs(src, stdout);
    free(src);
    coop_gen_destroy(&gen);
    return 0;
  }
  if ((rc = catalog ? coop_gen_write_catalog(gen, out) : coop_gen_write(gen, out))) return fail(gen, rc);
  size_t n = 0, units = 0;
  coop_gen_get_symbol_count(gen, &n);
  if (catalog) {
    coop_gen_get_unit_count(gen, &units);
    printf("coopgen: wrote a catalog of %zu symbols in %zu bundles to %s\n", n, units, out);
  } else {
    printf("coopgen: wrote %zu symbols to %s\n", n, out);
  }
  coop_gen_destroy(&gen);
  return 0;
}
