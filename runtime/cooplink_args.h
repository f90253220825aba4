/* cooplink's command lines (link, catalog), parsed apart from main() so that a fuzz target can call them. */
#ifndef COOPLINK_ARGS_H
#define COOPLINK_ARGS_H

#include <stdio.h>

extern const char coop__cooplink_usage[];

/* cooplink link: the linker's options (coop_linker_create), inputs and outputs. */
typedef struct coop__link_args {
  const char *catalog_dir, *out, *ptx_out;
  const char *opts[256];
  unsigned n_opts;
  const char *inputs[256], *utypes[32]; /* point into argv */
  int n_inputs, n_utypes, verbose;
  char *owned[256]; /* the options made here ("-arch=..."), freed by coop__link_args_free */
  int n_owned;
} coop__link_args;

/* Parses the arguments after "link". Returns 0, or the exit status of a usage error (2; 1 out of
 * memory), whose message went to err; on error nothing is left to free. */
int coop__link_args_parse(coop__link_args *a, int argc, char **argv, FILE *err);
void coop__link_args_free(coop__link_args *a);

/* cooplink catalog [list|verify] [DIR] [--catalog DIR] [--symbols] */
typedef struct coop__catalog_args {
  const char *dir, *verb; /* dir NULL: the default catalog; verb "list" or "verify" */
  int symbols;
} coop__catalog_args;

/* Parses the arguments after "catalog". Returns 0, or 2 with the message in err. */
int coop__catalog_args_parse(coop__catalog_args *a, int argc, char **argv, FILE *err);

#endif
