#include "common.h"

#include <cooplink/version.h>
#include <errno.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *coop_result_name(coop_result r)
{
  switch (r) {
#define COOP__NAME(name, value, text) \
  case name: return #name;
    COOP_RESULT_MAP(COOP__NAME)
#undef COOP__NAME
  }
  return "COOP_RESULT_UNKNOWN";
}

const char *coop_result_string(coop_result r)
{
  switch (r) {
#define COOP__TEXT(name, value, text) \
  case name: return text;
    COOP_RESULT_MAP(COOP__TEXT)
#undef COOP__TEXT
  }
  return "unknown result code";
}

int coop_version(void) { return COOP_VERSION_NUMBER; }
const char *coop_version_string(void) { return COOP_VERSION_STRING; }

void coop__str_free(coop__str *s)
{
  free(s->p);
  memset(s, 0, sizeof *s);
}

void coop__str_clear(coop__str *s)
{
  s->len = 0;
  if (s->p) s->p[0] = 0;
}

static int str_reserve(coop__str *s, size_t extra)
{
  if (s->oom) return 0;
  if (s->len + extra + 1 <= s->cap) return 1;
  size_t cap = s->cap ? s->cap : 256;
  while (cap < s->len + extra + 1) cap *= 2;
  char *p = realloc(s->p, cap);
  if (!p) {
    s->oom = 1;
    return 0;
  }
  s->p = p;
  s->cap = cap;
  return 1;
}

void coop__str_addn(coop__str *s, const char *text, size_t n)
{
  if (!str_reserve(s, n)) return;
  memcpy(s->p + s->len, text, n);
  s->len += n;
  s->p[s->len] = 0;
}

void coop__str_add(coop__str *s, const char *text) { coop__str_addn(s, text, strlen(text)); }

void coop__str_vprintf(coop__str *s, const char *fmt, va_list ap)
{
  va_list ap2;
  va_copy(ap2, ap);
  int n = vsnprintf(NULL, 0, fmt, ap2);
  va_end(ap2);
  if (n < 0 || !str_reserve(s, (size_t)n)) return;
  vsnprintf(s->p + s->len, (size_t)n + 1, fmt, ap);
  s->len += (size_t)n;
}

void coop__str_printf(coop__str *s, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  coop__str_vprintf(s, fmt, ap);
  va_end(ap);
}

const char *coop__str_get(const coop__str *s) { return s->p ? s->p : ""; }

char *coop__strdup(const char *s)
{
  size_t n = strlen(s) + 1;
  char *p = malloc(n);
  if (p) memcpy(p, s, n);
  return p;
}

char *coop__path_join(const char *dir, const char *name)
{
  size_t a = strlen(dir), b = strlen(name);
  char *p = malloc(a + b + 2);
  if (!p) return NULL;
  memcpy(p, dir, a);
  p[a] = '/';
  memcpy(p + a + 1, name, b + 1);
  return p;
}

coop_result coop__read_file(const char *path, char **data, size_t *size)
{
  *data = NULL;
  *size = 0;
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return COOP_ERROR_IO;
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    return COOP_ERROR_IO;
  }
  char *buf = malloc((size_t)st.st_size + 1);
  if (!buf) {
    close(fd);
    return COOP_ERROR_OUT_OF_MEMORY;
  }
  size_t got = 0;
  while (got < (size_t)st.st_size) {
    ssize_t n = read(fd, buf + got, (size_t)st.st_size - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += (size_t)n;
  }
  close(fd);
  if (got != (size_t)st.st_size) {
    free(buf);
    return COOP_ERROR_IO;
  }
  buf[got] = 0;
  *data = buf;
  *size = got;
  return COOP_SUCCESS;
}

/* The process's umask, read without changing it: umask(0) then umask(mask) would leave other threads a
 * moment in which their files are created world-writable (Linux 4.7+ shows it in /proc; else 022). */
static mode_t process_umask(void)
{
  mode_t mask = 022;
  FILE *f = fopen("/proc/self/status", "re");
  char line[128];
  unsigned m;
  while (f && fgets(line, sizeof line, f))
    if (sscanf(line, "Umask: %o", &m) == 1) mask = (mode_t)m;
  if (f) fclose(f);
  return mask;
}

coop_result coop__write_temp(const char *path, const void *data, size_t size, char **tmp_path)
{
  *tmp_path = NULL;
  const char *slash = strrchr(path, '/');
  size_t dlen = slash ? (size_t)(slash - path) + 1 : 0;
  const char *base = slash ? slash + 1 : path;
  size_t n = dlen + strlen(base) + 16;
  char *tmp = malloc(n);
  if (!tmp) return COOP_ERROR_OUT_OF_MEMORY;
  snprintf(tmp, n, "%.*s.%s.tmp.XXXXXX", (int)dlen, path, base);
  int fd = mkstemp(tmp);
  if (fd < 0) {
    free(tmp);
    return COOP_ERROR_IO;
  }
  /* mkstemp makes 0600; bundles and cache entries are meant to be shared like any other output. */
  fchmod(fd, 0666 & ~process_umask());
  const char *p = data;
  size_t left = size;
  int ok = 1;
  while (left > 0) {
    ssize_t w = write(fd, p, left);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      ok = 0;
      break;
    }
    p += w;
    left -= (size_t)w;
  }
  if (ok && fsync(fd) != 0) ok = 0;
  if (close(fd) != 0) ok = 0;
  if (!ok) {
    unlink(tmp);
    free(tmp);
    return COOP_ERROR_IO;
  }
  *tmp_path = tmp;
  return COOP_SUCCESS;
}

coop_result coop__mkdirs(const char *path)
{
  char *p = coop__strdup(path);
  if (!p) return COOP_ERROR_OUT_OF_MEMORY;
  for (char *q = p + 1; *q; ++q) {
    if (*q != '/') continue;
    *q = 0;
    if (mkdir(p, 0777) != 0 && errno != EEXIST) {
      free(p);
      return COOP_ERROR_IO;
    }
    *q = '/';
  }
  int rc = mkdir(p, 0777);
  int err = errno;
  free(p);
  if (rc != 0 && err != EEXIST) return COOP_ERROR_IO;
  struct stat st;
  if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode)) return COOP_ERROR_IO;
  return COOP_SUCCESS;
}

void coop__sha256_hex(const void *data, size_t size, char hex[65])
{
  unsigned char md[32];
  unsigned int len = 0;
  EVP_Digest(data, size, md, &len, EVP_sha256(), NULL);
  static const char digits[] = "0123456789abcdef";
  for (int i = 0; i < 32; ++i) {
    hex[2 * i] = digits[md[i] >> 4];
    hex[2 * i + 1] = digits[md[i] & 15];
  }
  hex[64] = 0;
}

const char *coop__cuda_root(void)
{
  const char *e = getenv("CUDA_HOME");
  if (e && *e) return e;
  e = getenv("CUDA_PATH");
  if (e && *e) return e;
#ifdef COOP_CUDA_ROOT
  return COOP_CUDA_ROOT;
#else
  return "/usr/local/cuda";
#endif
}

int coop__parse_sm(const char *text)
{
  if (!text || strncmp(text, "sm_", 3) != 0) return -1; /* NULL: a manifest's arch that is not a string */
  const char *d = text + 3;
  size_t n = strlen(d);
  if (n < 2 || n > 3) return -1;
  int v = 0;
  for (size_t i = 0; i < n; ++i) {
    if (d[i] < '0' || d[i] > '9') return -1;
    v = v * 10 + (d[i] - '0');
  }
  return v;
}

int coop__parse_user_type(const char *text, char name[64], unsigned long *size, unsigned long *align)
{
  int end = 0;
  *size = *align = 0;
  return sscanf(text, "%63[^:]:%lu:%lu%n", name, size, align, &end) == 3 && !text[end] && !strpbrk(text, "-+ ");
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
  (void)st;
  (void)flag;
  (void)ftw;
  remove(path);
  return 0;
}

void coop__remove_tree(const char *dir) { nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS); }
