/* The manifest reader (coop__bundle_load) and the payload reader of a link (coop__bundle_payload,
 * coop__bundle_read_payload). The input is files ("=== NAME" lines, fuzz_util.h), written into a temp
 * folder: the first is the manifest, the others its payloads. */
#include <stdlib.h>

#include "../../runtime/runtime.h"
#include "fuzz_util.h"

static int load_code(coop_result rc)
{
  return rc == COOP_SUCCESS || rc == COOP_ERROR_IO || rc == COOP_ERROR_OUT_OF_MEMORY || rc == COOP_ERROR_BUNDLE_CORRUPT ||
         rc == COOP_ERROR_BUNDLE_FORMAT || rc == COOP_ERROR_BUNDLE_VERSION || rc == COOP_ERROR_BUNDLE_CUDA_MAJOR ||
         rc == COOP_ERROR_BUNDLE_PRODUCER_NEWER || rc == COOP_ERROR_BUNDLE_HASH;
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
  const char *dir = fz_scratch();
  char first[65];
  if (!fz_write_files(dir, data, size, first)) return 0;
  char *path = coop__path_join(dir, first);
  coop__bundle b;
  coop__str log = {0};
  coop_result rc = coop__bundle_load(&b, path, &log);
  if (!load_code(rc) || (rc && log.len == 0)) {
    fprintf(stderr, "coop__bundle_load: %s, log '%s'\n", coop_result_name(rc), coop__str_get(&log));
    abort();
  }
  static const int archs[] = {75, 80, 90, 120};
  for (int i = 0; !rc && i < 4; ++i) {
    const coop__payload *p = coop__bundle_payload(&b, archs[i]);
    char *pay = NULL;
    size_t n = 0;
    coop_result prc = p ? coop__bundle_read_payload(&b, p, &pay, &n, &log) : COOP_SUCCESS;
    if (prc != COOP_SUCCESS && prc != COOP_ERROR_BUNDLE_CORRUPT && prc != COOP_ERROR_BUNDLE_HASH) {
      fprintf(stderr, "coop__bundle_read_payload: %s\n", coop_result_name(prc));
      abort();
    }
    free(pay);
  }
  if (!rc) coop__bundle_free(&b);
  coop__str_free(&log);
  free(path);
  return 0;
}
