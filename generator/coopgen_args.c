/* coopgen's command line: flags into a coop__coopgen_args (coopgen_args.h). */
#include "coopgen_args.h"

#include <getopt.h>
#include <string.h>

const char coop__coopgen_usage[] =
  "usage: coopgen [--spec FILE]... [--family F --type T,... --threads N,... [--op OP,...] [--items N,...]\n"
  "               [--algorithm A,...] [--variant V,...]] [--arch sm_XX,...] [--name NAME] [-o DIR]\n"
  "               (a warp family takes --warp LANES,... instead of --threads; warp load, store, exchange\n"
  "               and merge sort take --items too; a sort of pairs takes --values TYPE,...)\n"
  "               [--symbols FILE] [--ir plain|optimized] [--print-source] [--catalog]\n"
  "               [--user-type NAME:SIZE:ALIGN]...    |    coopgen --describe\n"
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
  "--describe prints the families and algorithms coopgen takes, as JSON (coop_gen_describe).\n"
  "See include/cooplink/coopgen.h for the spec format.\n";

int coop__coopgen_parse_args(coop__coopgen_args *a, int argc, char **argv, FILE *err)
{
  enum { O_SPEC = 256, O_FAMILY, O_TYPE, O_OP, O_THREADS, O_ITEMS, O_ALGO, O_VARIANT, O_ARCH, O_NAME, O_SOURCE, O_VER, O_CATALOG, O_SYMBOLS, O_WARP, O_IR, O_UTYPE, O_VALUES, O_BINS, O_DECODED, O_DESCRIBE };
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
    {"describe", no_argument, 0, O_DESCRIBE},
    {0, 0, 0, 0},
  };
  memset(a, 0, sizeof *a);
  a->out = ".";
  coop_gen_group *group = &a->group;
  int c;
  opterr = 0;
  optind = 0; /* glibc: a full restart, so that the parser may run more than once in a process */
  while ((c = getopt_long(argc, argv, "o:h", longs, NULL)) != -1) {
    switch (c) {
    case O_SPEC:
      if (a->n_specs == 64) {
        fprintf(err, "coopgen: more than 64 --spec files\n");
        return 2;
      }
      a->specs[a->n_specs++] = optarg;
      break;
    case O_FAMILY: group->family = optarg; a->any_group = 1; break;
    case O_TYPE: group->type = optarg; a->any_group = 1; break;
    case O_OP: group->op = optarg; a->any_group = 1; break;
    case O_THREADS: group->threads = optarg; a->any_group = 1; break;
    case O_ITEMS: group->items = optarg; a->any_group = 1; break;
    case O_WARP: group->warp = optarg; a->any_group = 1; break;
    case O_VALUES: group->values = optarg; a->any_group = 1; break;
    case O_BINS: group->bins = optarg; a->any_group = 1; break;
    case O_DECODED: group->decoded = optarg; a->any_group = 1; break;
    case O_ALGO: group->algorithm = optarg; a->any_group = 1; break;
    case O_VARIANT: group->variant = optarg; a->any_group = 1; break;
    case O_ARCH: a->arch = optarg; break;
    case O_NAME: a->name = optarg; break;
    case 'o': a->out = optarg; break;
    case O_SOURCE: a->print_source = 1; break;
    case O_CATALOG: a->catalog = 1; break;
    case O_SYMBOLS: a->symbols = optarg; break;
    case O_IR: a->ir = optarg; break;
    case O_UTYPE:
      if (a->n_utypes == 32) {
        fprintf(err, "coopgen: more than 32 --user-type declarations\n");
        return 2;
      }
      a->utypes[a->n_utypes++] = optarg;
      break;
    case O_VER: return COOP__ARGS_VERSION;
    case O_DESCRIBE: return COOP__ARGS_DESCRIBE;
    case 'h': return COOP__ARGS_HELP;
    default:
      if (optopt) fprintf(err, "coopgen: option '%s' needs a value\n%s", argv[optind - 1], coop__coopgen_usage);
      else fprintf(err, "coopgen: unknown option '%s'\n%s", argv[optind - 1], coop__coopgen_usage);
      return 2;
    }
  }
  if (optind < argc) {
    fprintf(err, "coopgen: unexpected argument '%s'\n%s", argv[optind], coop__coopgen_usage);
    return 2;
  }
  if (!a->n_specs && !a->any_group && !a->symbols) {
    fprintf(err, "coopgen: nothing to generate: give --spec FILE, --family ... or --symbols FILE\n%s",
            coop__coopgen_usage);
    return 2;
  }
  return COOP__ARGS_RUN;
}
