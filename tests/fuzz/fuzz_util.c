#define _GNU_SOURCE /* memmem */
#include "fuzz_util.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../../common/common.h"

static char root[4096], scratch[4200];

static void cleanup(void)
{
  if (root[0]) coop__remove_tree(root);
}

const char *fz_scratch(void)
{
  if (!root[0]) {
    const char *t = getenv("TMPDIR");
    snprintf(root, sizeof root, "%s/coopfuzz.XXXXXX", t && *t ? t : "/tmp");
    if (!mkdtemp(root)) {
      perror("fz_scratch: mkdtemp");
      abort();
    }
    atexit(cleanup);
    setenv("TMPDIR", root, 1); /* what the library puts under $TMPDIR lands in ours too */
    snprintf(scratch, sizeof scratch, "%s/in", root);
  }
  coop__remove_tree(scratch);
  if (mkdir(scratch, 0700) != 0) {
    perror("fz_scratch: mkdir");
    abort();
  }
  return scratch;
}

void fz_write(const char *dir, const char *name, const void *data, size_t size)
{
  char *path = coop__path_join(dir, name);
  FILE *f = path ? fopen(path, "wb") : NULL;
  if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0) {
    perror("fz_write");
    abort();
  }
  free(path);
}

static int plain_name(const char *s, size_t n)
{
  if (n < 1 || n > 64 || s[0] == '.') return 0;
  for (size_t i = 0; i < n; ++i)
    if (!s[i] || !strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-", s[i])) return 0;
  return 1;
}

int fz_write_files(const char *dir, const uint8_t *data, size_t size, char first[65])
{
  first[0] = 0;
  const char *p = (const char *)data, *end = p + size;
  int n = 0;
  if (size < 4 || memcmp(p, "=== ", 4) != 0) {
    const char *first = memmem(p, size, "\n=== ", 5);
    p = first ? first + 1 : end;
  }
  while (p < end && n < 16) {
    const char *name = p + 4, *nl = memchr(name, '\n', (size_t)(end - name));
    if (!nl) break;
    const char *body = nl + 1, *next = memmem(body, (size_t)(end - body), "\n=== ", 5);
    const char *stop = next ? next : end;
    char file[65];
    if (plain_name(name, (size_t)(nl - name))) {
      snprintf(file, sizeof file, "%.*s", (int)(nl - name), name);
      fz_write(dir, file, body, (size_t)(stop - body));
      if (!n++) memcpy(first, file, sizeof file);
    }
    p = next ? next + 1 : end;
  }
  return n;
}

char *fz_string(const uint8_t *data, size_t size)
{
  char *s = malloc(size + 1);
  if (!s) abort();
  memcpy(s, data, size);
  s[size] = 0;
  return s;
}

FILE *fz_devnull(void)
{
  static FILE *f;
  if (!f && !(f = fopen("/dev/null", "w"))) abort();
  return f;
}
