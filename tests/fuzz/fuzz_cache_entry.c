/* The link cache's entry reader (coop__cache_get) on the input written as <tmp>/links/<key>.bin. The
 * first byte's low bit asks for the trailing sha256 to be made right, so that the fuzzer gets past the
 * hash check to the sections. A hit is written back (coop__cache_put) and must give the same bytes; a
 * miss must have removed the entry. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../runtime/runtime.h"
#include "fuzz_util.h"

#define KEY "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
#define KEY2 "fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
  if (size < 1) return 0;
  int fix_hash = data[0] & 1;
  const size_t n = size - 1;
  unsigned char *entry = malloc(n ? n : 1);
  memcpy(entry, data + 1, n);
  if (fix_hash && n >= 64) {
    char hex[65];
    coop__sha256_hex(entry, n - 64, hex);
    memcpy(entry + n - 64, hex, 64);
  }
  const char *dir = fz_scratch();
  char *links = coop__path_join(dir, "links");
  if (mkdir(links, 0700) != 0) abort();
  fz_write(links, KEY ".bin", entry, n);
  coop__cache_entry e;
  int hit = coop__cache_get(dir, KEY, &e);
  if (hit < 0) abort(); /* (out of memory: not on these sizes) */
  char *path = coop__path_join(links, KEY ".bin"), *path2 = coop__path_join(links, KEY2 ".bin");
  if (!hit && access(path, F_OK) == 0) {
    fprintf(stderr, "a rejected cache entry was left in place\n");
    abort();
  }
  if (hit) {
    if (coop__cache_put(dir, KEY2, &e, 0) != COOP_SUCCESS) abort();
    char *back = NULL;
    size_t back_size = 0;
    if (coop__read_file(path2, &back, &back_size) || back_size != n || memcmp(back, entry, n) != 0) {
      fprintf(stderr, "a cache entry read and written back differs: %zu bytes, then %zu\n", n, back_size);
      abort();
    }
    free(back);
    coop__cache_entry_free(&e);
  }
  free(path);
  free(path2);
  free(links);
  free(entry);
  return 0;
}
