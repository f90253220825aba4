/* cooplink's command lines: flags into coop__link_args / coop__catalog_args (cooplink_args.h). */
#include "cooplink_args.h"

#include <stdlib.h>
#include <string.h>

const char coop__cooplink_usage[] =
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

void coop__link_args_free(coop__link_args *a)
{
  for (int i = 0; i < a->n_owned; ++i) free(a->owned[i]);
  a->n_owned = 0;
}

/* prefix + value, malloc'd and kept in a->owned; 0 out of memory */
static int own(coop__link_args *a, const char *prefix, const char *value)
{
  size_t n = strlen(prefix) + strlen(value) + 1;
  char *s = malloc(n);
  if (!s) return 0;
  snprintf(s, n, "%s%s", prefix, value);
  a->owned[a->n_owned++] = s;
  a->opts[a->n_opts++] = s;
  return 1;
}

int coop__link_args_parse(coop__link_args *a, int argc, char **argv, FILE *err)
{
  memset(a, 0, sizeof *a);
  int status = 0;
  for (int i = 0; i < argc && !status; ++i) {
    const char *v = argv[i];
    int has = i + 1 < argc, ok = 1;
    if (a->n_opts > 240 || a->n_owned > 240 || a->n_inputs > 250) {
      fprintf(err, "cooplink: too many arguments\n");
      status = 2;
    }
    else if (!strcmp(v, "--arch") && has) ok = own(a, "-arch=", argv[++i]);
    else if (!strcmp(v, "--catalog") && has) a->catalog_dir = argv[++i];
    else if (!strcmp(v, "--no-cache")) a->opts[a->n_opts++] = "-cache=0";
    else if (!strcmp(v, "--cache-dir") && has) ok = own(a, "-cache-dir=", argv[++i]);
    else if (!strcmp(v, "--no-generate")) a->opts[a->n_opts++] = "-generate=0";
    else if (!strcmp(v, "-I") && has) ok = own(a, "-I", argv[++i]);
    else if (!strncmp(v, "-I", 2) && v[2]) a->opts[a->n_opts++] = v;
    else if (!strcmp(v, "--lineinfo")) a->opts[a->n_opts++] = "-lineinfo";
    else if (!strcmp(v, "--user-type") && has && a->n_utypes < 32) a->utypes[a->n_utypes++] = argv[++i];
    else if (!strcmp(v, "-Xnvrtc") && has) ok = own(a, "-Xnvrtc=", argv[++i]);
    else if (!strcmp(v, "-Xnvjitlink") && has) ok = own(a, "-Xnvjitlink=", argv[++i]);
    else if (!strcmp(v, "--verbose") || !strcmp(v, "-v")) {
      a->verbose = 1;
      a->opts[a->n_opts++] = "-verbose";
    }
    else if (!strcmp(v, "-o") && has) a->out = argv[++i];
    else if (!strcmp(v, "--ptx") && has) {
      a->ptx_out = argv[++i];
      a->opts[a->n_opts++] = "-ptx";
    } else if (v[0] == '-') {
      fprintf(err, "cooplink: unknown or incomplete option '%s'\n%s", v, coop__cooplink_usage);
      status = 2;
    } else a->inputs[a->n_inputs++] = v;
    if (!ok) {
      fprintf(err, "cooplink: out of memory\n");
      status = 1;
    }
  }
  if (!status && (!a->out || a->n_inputs == 0)) {
    fprintf(err, "cooplink: link needs at least one INPUT and -o OUT.cubin\n%s", coop__cooplink_usage);
    status = 2;
  }
  if (status) coop__link_args_free(a);
  return status;
}

int coop__catalog_args_parse(coop__catalog_args *a, int argc, char **argv, FILE *err)
{
  int n_pos = 0;
  memset(a, 0, sizeof *a);
  a->verb = "list";
  for (int i = 0; i < argc; ++i) {
    if (!strcmp(argv[i], "--catalog") && i + 1 < argc) a->dir = argv[++i];
    else if (!strcmp(argv[i], "--symbols")) a->symbols = 1;
    else if (argv[i][0] == '-') {
      fprintf(err, "cooplink: unknown option '%s'\n%s", argv[i], coop__cooplink_usage);
      return 2;
    } else if (n_pos == 0 && (!strcmp(argv[i], "list") || !strcmp(argv[i], "verify"))) {
      a->verb = argv[i];
      ++n_pos;
    } else if (!a->dir) {
      a->dir = argv[i];
      ++n_pos;
    } else {
      fprintf(err, "cooplink: unexpected argument '%s'\n%s", argv[i], coop__cooplink_usage);
      return 2;
    }
  }
  return 0;
}
