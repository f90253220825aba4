/* coopgen's command line (coop__coopgen_parse_args), then what main() does with it short of reading
 * files and compiling: --ir, --user-type, the flag group, --arch, --name and the generated source. The
 * input is the arguments after argv[0], each ended by a NUL. */
#include <stdlib.h>
#include <string.h>

#include "../../common/common.h"
#include "../../generator/coopgen_args.h"
#include "fuzz_util.h"

static void expect(const char *what, coop_result rc)
{
  if (rc != COOP_SUCCESS && rc != COOP_ERROR_SPEC_INVALID && rc != COOP_ERROR_OUT_OF_MEMORY) {
    fprintf(stderr, "%s: %s\n", what, coop_result_name(rc));
    abort();
  }
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
  char *text = fz_string(data, size), *argv[258] = {"coopgen"};
  int argc = 1;
  for (char *p = text; p < text + size && argc < 257; p += strlen(p) + 1) argv[argc++] = p;
  argv[argc] = NULL;
  coop__coopgen_args a;
  int parsed = coop__coopgen_parse_args(&a, argc, argv, fz_devnull());
  if (parsed != COOP__ARGS_RUN && parsed != COOP__ARGS_HELP && parsed != COOP__ARGS_VERSION && parsed != COOP__ARGS_DESCRIBE &&
      parsed != 2)
    abort();
  if (parsed == COOP__ARGS_DESCRIBE) { /* the table as JSON, whatever else the command line held */
    char *json = NULL;
    if (coop_gen_describe(&json) != COOP_SUCCESS || !json || json[0] != '{') abort();
    free(json);
  }
  coop_gen *gen = NULL;
  if (parsed == COOP__ARGS_RUN) {
    if (coop_gen_create(&gen)) abort();
    coop_result rc = a.ir ? coop_gen_set_ir(gen, a.ir) : COOP_SUCCESS;
    expect("coop_gen_set_ir", rc);
    for (int i = 0; !rc && i < a.n_utypes; ++i) {
      char name[64];
      unsigned long tsize, talign;
      if (coop__parse_user_type(a.utypes[i], name, &tsize, &talign)) expect("coop_gen_add_type", rc = coop_gen_add_type(gen, name, tsize, talign));
    }
    if (!rc && a.any_group) expect("coop_gen_add_group", rc = coop_gen_add_group(gen, &a.group));
    if (!rc && a.arch) expect("coop_gen_set_archs", rc = coop_gen_set_archs(gen, a.arch));
    if (!rc && a.name) expect("coop_gen_set_name", rc = coop_gen_set_name(gen, a.name));
    size_t n = 0;
    coop_gen_get_symbol_count(gen, &n);
    if (!rc && n <= 256) {
      char *src = NULL;
      if (coop_gen_get_source(gen, &src) != COOP_SUCCESS) abort();
      free(src);
    }
    coop_gen_destroy(&gen);
  }
  free(text);
  return 0;
}
