/* The spec parser (coop_gen_add_spec_string: JSON and YAML, both through libyaml), then the CUDA source
 * of what it accepted. Built twice, as spec_json and spec_yaml, each with its own corpus. */
#include <cooplink/coopgen.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
  coop_gen *gen = NULL;
  if (coop_gen_create(&gen)) abort();
  coop_result rc = coop_gen_add_spec_string(gen, (const char *)data, size, "fuzz.spec");
  size_t log_size = 0, n = 0;
  coop_gen_get_log_size(gen, &log_size);
  coop_gen_get_symbol_count(gen, &n);
  if (rc != COOP_SUCCESS && rc != COOP_ERROR_SPEC_SYNTAX && rc != COOP_ERROR_SPEC_INVALID &&
      rc != COOP_ERROR_OUT_OF_MEMORY) {
    fprintf(stderr, "coop_gen_add_spec_string returned %s\n", coop_result_name(rc));
    abort();
  }
  if (rc && (log_size < 2 || n != 0)) { /* a failure explains itself and keeps nothing */
    fprintf(stderr, "%s with %s and %zu symbols kept\n", coop_result_name(rc), log_size < 2 ? "no message" : "a message", n);
    abort();
  }
  if (!rc && n <= 256) {
    char *src = NULL;
    if (coop_gen_get_source(gen, &src) != COOP_SUCCESS) abort();
    free(src);
  }
  coop_gen_destroy(&gen);
  return 0;
}
