#define _GNU_SOURCE
#include <openssl/evp.h>
#include "util.h"

#include <criterion/criterion.h>

#include <dirent.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../support/lto.h"

/* The folders coopt_tmpdir made in this process, removed with everything in them when it exits (a test's
 * worker, pass or fail; COOPT_KEEP_TMP=1 keeps them to look at). Children forked by a test leave by _exit. */
static struct {
  char **dirs;
  int n;
  pid_t owner;
} tmp;

static int make_writable(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
  (void)ftw;
  if (type == FTW_D || type == FTW_DNR) chmod(path, (st->st_mode & 07777) | S_IRWXU);
  return 0;
}

static int remove_entry(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
  (void)st, (void)type, (void)ftw;
  remove(path);
  return 0;
}

static void remove_tmpdirs(void)
{
  if (getpid() != tmp.owner) return;
  const char *keep = getenv("COOPT_KEEP_TMP");
  for (int i = 0; i < tmp.n; ++i) {
    if (!(keep && *keep == '1')) {
      nftw(tmp.dirs[i], make_writable, 16, FTW_PHYS); /* (a test may leave a folder read-only) */
      nftw(tmp.dirs[i], remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    }
    free(tmp.dirs[i]);
  }
  free(tmp.dirs);
  tmp.dirs = NULL;
  tmp.n = 0;
}

char *coopt_tmpdir(void)
{
  const char *base = getenv("TMPDIR");
  char *t = coopt_fmt("%s/coopt.XXXXXX", base && *base ? base : "/tmp");
  if (!mkdtemp(t)) {
    free(t);
    return NULL;
  }
  if (tmp.owner != getpid()) { /* the first in this process (forked from one that made some: its list, not ours) */
    for (int i = 0; i < tmp.n; ++i) free(tmp.dirs[i]);
    free(tmp.dirs);
    tmp.dirs = NULL;
    tmp.n = 0;
    tmp.owner = getpid();
    atexit(remove_tmpdirs);
  }
  char **d = realloc(tmp.dirs, (tmp.n + 1) * sizeof *d);
  if (d) {
    tmp.dirs = d;
    tmp.dirs[tmp.n++] = strdup(t);
  }
  return t;
}

char *coopt_gen_log(const coop_gen *gen)
{
  size_t n = 0;
  if (coop_gen_get_log_size(gen, &n) != COOP_SUCCESS) return strdup("(no log)");
  char *s = malloc(n);
  if (coop_gen_get_log(gen, s) != COOP_SUCCESS) s[0] = 0;
  return s;
}

int coopt_exists(const char *path)
{
  struct stat st;
  return stat(path, &st) == 0;
}

int coopt_count_entries(const char *dir)
{
  DIR *d = opendir(dir);
  if (!d) return -1;
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d)))
    if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) ++n;
  closedir(d);
  return n;
}

char *coopt_fmt(const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  char *s = NULL;
  if (vasprintf(&s, fmt, ap) < 0) s = NULL;
  va_end(ap);
  return s;
}

int coopt_same_file(const char *a, const char *b)
{
  coopt_blob x = {0}, y = {0};
  int same = !coopt_read(a, &x) && !coopt_read(b, &y) && x.size == y.size && memcmp(x.data, y.data, x.size) == 0;
  free(x.data);
  free(y.data);
  return same;
}

void coopt_generate(const coop_gen_group *groups, int n, const char *name, const char *archs, const char *dir)
{
  coopt_generate_typed(groups, n, NULL, name, archs, dir);
}

void coopt_generate_typed(const coop_gen_group *groups, int n, const char *types, const char *name, const char *archs,
                          const char *dir)
{
  coop_gen *gen = NULL;
  cr_assert_eq(coop_gen_create(&gen), COOP_SUCCESS);
  for (const char *t = types; t && *t; t = strchr(t, ',') ? strchr(t, ',') + 1 : "") {
    char tn[32];
    size_t size, align;
    cr_assert_eq(sscanf(t, "%31[^:]:%zu:%zu", tn, &size, &align), 3, "%s", t);
    cr_assert_eq(coop_gen_add_type(gen, tn, size, align), COOP_SUCCESS, "%s", t);
  }
  for (int i = 0; i < n; ++i) cr_assert_eq(coop_gen_add_group(gen, &groups[i]), COOP_SUCCESS, "group %d", i);
  cr_assert_eq(coop_gen_set_name(gen, name), COOP_SUCCESS);
  cr_assert_eq(coop_gen_set_archs(gen, archs), COOP_SUCCESS);
  coop_result rc = coop_gen_write(gen, dir);
  char *log = coopt_gen_log(gen);
  cr_assert_eq(rc, COOP_SUCCESS, "%s", log);
  free(log);
  coop_gen_destroy(&gen);
}

void coopt_sha256_hex(const void *data, size_t size, char hex[65])
{
  unsigned char md[32];
  unsigned int n = 0;
  EVP_Digest(data, size, md, &n, EVP_sha256(), NULL);
  for (int i = 0; i < 32; ++i) snprintf(hex + 2 * i, 3, "%02x", md[i]);
}

#if defined(__SANITIZE_ADDRESS__) /* gcc */
#define COOPT_ASAN 1
#elif defined(__has_feature) /* clang */
#if __has_feature(address_sanitizer)
#define COOPT_ASAN 1
#endif
#endif
#ifdef COOPT_ASAN
#include <sanitizer/lsan_interface.h>
/* Under LeakSanitizer (tests/sanitize/run.sh): Criterion's runner, the parent that spawns a worker per test,
 * leaks a BoxFort timeout request now and then when tests with .timeout run two at a time (--jobs 2). It runs
 * no cooplink code, so what it allocates is not checked; every test's worker still is, when it exits. */
ReportHook(PRE_ALL)(struct criterion_test_set *tests)
{
  (void)tests;
  __lsan_disable();
}
#endif
