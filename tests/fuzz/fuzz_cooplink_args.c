/* cooplink's command lines: `cooplink link` (coop__link_args_parse), whose options and user types then go
 * to coop_linker_create and coop_linker_add_type as main() gives them (with -arch first and -cache=0
 * last, so that no GPU is asked and no cache folder made), and `cooplink catalog`
 * (coop__catalog_args_parse). The input is the arguments after the command, each ended by a NUL. */
#include <stdlib.h>
#include <string.h>

#include <cooplink/cooplink.h>
#include "../../common/common.h"
#include "../../runtime/cooplink_args.h"
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
  char *text = fz_string(data, size), *argv[257];
  int argc = 0;
  for (char *p = text; p < text + size && argc < 256; p += strlen(p) + 1) argv[argc++] = p;
  argv[argc] = NULL;
  fz_scratch(); /* $TMPDIR, where the linker makes its private folder, is now inside ours */
  coop__link_args a;
  int parsed = coop__link_args_parse(&a, argc, argv, fz_devnull());
  if (parsed != 0 && parsed != 2) abort();
  if (!parsed) {
    const char *opts[260] = {"-arch=sm_80"};
    memcpy(opts + 1, a.opts, a.n_opts * sizeof *opts);
    opts[a.n_opts + 1] = "-cache=0";
    coop_linker *l = NULL;
    coop_result rc = coop_linker_create(&l, NULL, a.n_opts + 2, opts);
    if (rc != COOP_SUCCESS && rc != COOP_ERROR_INVALID_VALUE) {
      fprintf(stderr, "coop_linker_create: %s\n", coop_result_name(rc));
      abort();
    }
    for (int i = 0; !rc && i < a.n_utypes; ++i) {
      char name[64];
      unsigned long tsize, talign;
      if (!coop__parse_user_type(a.utypes[i], name, &tsize, &talign)) continue;
      rc = coop_linker_add_type(l, name, tsize, talign);
      if (rc != COOP_SUCCESS && rc != COOP_ERROR_INVALID_VALUE) {
        fprintf(stderr, "coop_linker_add_type: %s\n", coop_result_name(rc));
        abort();
      }
    }
    coop_linker_destroy(&l);
    coop__link_args_free(&a);
  }
  coop__catalog_args c;
  parsed = coop__catalog_args_parse(&c, argc, argv, fz_devnull());
  if (parsed != 0 && parsed != 2) abort();
  if (!parsed && strcmp(c.verb, "list") != 0 && strcmp(c.verb, "verify") != 0) abort();
  free(text);
  return 0;
}
