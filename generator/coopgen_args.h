/* coopgen's command line, parsed apart from main() so that a fuzz target can call it. */
#ifndef COOPGEN_ARGS_H
#define COOPGEN_ARGS_H

#include <cooplink/coopgen.h>
#include <stdio.h>

extern const char coop__coopgen_usage[];

typedef struct coop__coopgen_args {
  coop_gen_group group;
  const char *specs[64], *utypes[32]; /* point into argv */
  int n_specs, n_utypes;
  const char *arch, *name, *out, *symbols, *ir;
  int print_source, any_group, catalog;
} coop__coopgen_args;

enum { COOP__ARGS_RUN = -1, COOP__ARGS_HELP = -2, COOP__ARGS_VERSION = -3, COOP__ARGS_DESCRIBE = -4 };

/* Parses argv (getopt_long, restarted on every call). Returns COOP__ARGS_RUN, COOP__ARGS_HELP,
 * COOP__ARGS_VERSION, COOP__ARGS_DESCRIBE, or the exit status 2 of a usage error, whose message went to err. */
int coop__coopgen_parse_args(coop__coopgen_args *a, int argc, char **argv, FILE *err);

#endif
