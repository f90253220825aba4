/* The symbol-name parser of on-demand generation: coop_gen_add_symbol (a symbol's instantiation) and
 * coop_gen_unit_of_symbol (its catalog unit, how a link finds it without the index). */
#include <cooplink/coopgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"

static int plain_unit(const char *u)
{
  size_t n = strlen(u);
  return n >= 1 && n <= 80 && strspn(u, "abcdefghijklmnopqrstuvwxyz0123456789_") == n;
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
  char *symbol = fz_string(data, size), unit[128] = "", unit1[128] = "";
  coop_result u0 = coop_gen_unit_of_symbol(symbol, 0, unit, 81);
  coop_result u1 = coop_gen_unit_of_symbol(symbol, 1, unit1, 81);
  if (u0 != u1 || (u0 && u0 != COOP_ERROR_SPEC_INVALID) || (!u0 && (!plain_unit(unit) || !plain_unit(unit1)))) {
    fprintf(stderr, "coop_gen_unit_of_symbol: %s '%s', %s '%s'\n", coop_result_name(u0), unit, coop_result_name(u1), unit1);
    abort();
  }
  coop_gen *gen = NULL;
  if (coop_gen_create(&gen)) abort();
  coop_result rc = coop_gen_add_symbol(gen, symbol);
  size_t n = 0, log_size = 0;
  coop_gen_get_symbol_count(gen, &n);
  coop_gen_get_log_size(gen, &log_size);
  /* a symbol coopgen makes is exactly one instance and has a unit; a refused one says why */
  if (rc ? rc != COOP_ERROR_SPEC_INVALID || n != 0 || log_size < 2 : n != 1 || u0 != COOP_SUCCESS) {
    fprintf(stderr, "coop_gen_add_symbol: %s, %zu symbols, unit %s\n", coop_result_name(rc), n, coop_result_name(u0));
    abort();
  }
  if (!rc) {
    char *src = NULL;
    if (coop_gen_get_source(gen, &src) != COOP_SUCCESS || !strstr(src, symbol)) abort();
    free(src);
  }
  coop_gen_destroy(&gen);
  free(symbol);
  return 0;
}
