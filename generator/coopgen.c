/* coopgen: the generator's command line. */
#include <cooplink/coopgen.h>
#include <cooplink/version.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/common.h"
#include "coopgen_args.h"

static int fail(coop_gen *gen, coop_result rc)
{
  size_t size = 0;
  coop_gen_get_log_size(gen, &size);
  char *log = malloc(size);
  if (log && coop_gen_get_log(gen, log) == COOP_SUCCESS && log[0])
    for (char *line = strtok(log, "\n"); line; line = strtok(NULL, "\n")) fprintf(stderr, "coopgen: %s\n", line);
  fprintf(stderr, "coopgen: failed: %s (%s)\n", coop_result_name(rc), coop_result_string(rc));
  free(log);
  coop_gen_destroy(&gen);
  return 1;
}

/* --user-type NAME:SIZE:ALIGN */
static coop_result add_user_type(coop_gen *gen, const char *text)
{
  char name[64];
  unsigned long size = 0, align = 0;
  if (!coop__parse_user_type(text, name, &size, &align)) {
    fprintf(stderr, "coopgen: --user-type '%s': expected NAME:SIZE:ALIGN (e.g. mat2:16:4)\n", text);
    return COOP_ERROR_SPEC_INVALID;
  }
  return coop_gen_add_type(gen, name, size, align);
}

int main(int argc, char **argv)
{
  coop__coopgen_args args;
  int parsed = coop__coopgen_parse_args(&args, argc, argv, stderr);
  if (parsed == COOP__ARGS_VERSION) {
    printf("coopgen %s\n", coop_version_string());
    return 0;
  }
  if (parsed == COOP__ARGS_DESCRIBE) {
    char *json = NULL;
    coop_result rc = coop_gen_describe(&json);
    if (rc) {
      fprintf(stderr, "coopgen: --describe: %s\n", coop_result_string(rc));
      return 1;
    }
    puts(json);
    free(json);
    return 0;
  }
  if (parsed == COOP__ARGS_HELP) {
    fputs(coop__coopgen_usage, stdout);
    return 0;
  }
  if (parsed != COOP__ARGS_RUN) return parsed;
  coop_gen *gen = NULL;
  coop_result rc = coop_gen_create(&gen);
  if (rc) {
    fprintf(stderr, "coopgen: %s\n", coop_result_string(rc));
    return 1;
  }
  if (args.ir && (rc = coop_gen_set_ir(gen, args.ir))) return fail(gen, rc);
  for (int i = 0; i < args.n_utypes; ++i)
    if ((rc = add_user_type(gen, args.utypes[i]))) return fail(gen, rc);
  for (int i = 0; i < args.n_specs; ++i)
    if ((rc = coop_gen_add_spec_file(gen, args.specs[i]))) return fail(gen, rc);
  if (args.any_group && (rc = coop_gen_add_group(gen, &args.group))) return fail(gen, rc);
  if (args.symbols) {
    FILE *f = fopen(args.symbols, "r");
    if (!f) {
      fprintf(stderr, "coopgen: %s: cannot be read\n", args.symbols);
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
        fprintf(stderr, "coopgen: %s:%d: '%s' is not a symbol coopgen can make\n", args.symbols, lineno, line);
        fclose(f);
        return fail(gen, rc);
      }
    }
    fclose(f);
  }
  if (args.arch && (rc = coop_gen_set_archs(gen, args.arch))) return fail(gen, rc);
  if (args.name && (rc = coop_gen_set_name(gen, args.name))) return fail(gen, rc);
  if (args.print_source) {
    char *src = NULL;
    if ((rc = coop_gen_get_source(gen, &src))) return fail(gen, rc);
    fputs(src, stdout);
    free(src);
    coop_gen_destroy(&gen);
    return 0;
  }
  if ((rc = args.catalog ? coop_gen_write_catalog(gen, args.out) : coop_gen_write(gen, args.out))) return fail(gen, rc);
  size_t n = 0, units = 0;
  coop_gen_get_symbol_count(gen, &n);
  if (args.catalog) {
    coop_gen_get_unit_count(gen, &units);
    printf("coopgen: wrote a catalog of %zu symbols in %zu bundles to %s\n", n, units, args.out);
  } else {
    printf("coopgen: wrote %zu symbols to %s\n", n, args.out);
  }
  coop_gen_destroy(&gen);
  return 0;
}
