/* libfsfault.so, preloaded into cooplink or coopgen by tests/faults/run.sh: file-system faults under one
 * folder (FSFAULT_DIR), the rest of the file system untouched.
 *
 *   FSFAULT=kill:N    the process is killed (SIGKILL) at its N-th changing operation under the folder
 *                     (create, mkstemp, mkdir, write, fsync, rename, unlink; counting from 1); a write is
 *                     killed half-way through its bytes, as a full page cache or a power cut leaves it
 *   FSFAULT=enospc:N  from the N-th write under the folder on, writes fail with ENOSPC (a full disk)
 *   FSFAULT=erofs     every change under the folder fails with EROFS (a read-only cache folder; root,
 *                     which CI runs as, ignores permission bits, so chmod cannot stand in for it)
 *   FSFAULT_COUNT=F   the number of changing operations seen so far is kept in file F (rewritten at each:
 *                     the cooplink command leaves by _exit, past any destructor)
 */
#define _GNU_SOURCE
#undef _FILE_OFFSET_BITS /* (meson sets it: open and mkstemp would be their 64 forms, defined here as well) */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[PATH_MAX];
static size_t dir_len;
static enum { NONE, KILL, ENOSPC_, EROFS_ } mode;
static long at, ops, writes;

__attribute__((constructor)) static void init(void)
{
  const char *d = getenv("FSFAULT_DIR"), *f = getenv("FSFAULT");
  if (!d || !realpath(d, dir)) return; /* (the folder must exist) */
  dir_len = strlen(dir);
  if (!f) return;
  if (!strncmp(f, "kill:", 5)) mode = KILL, at = atol(f + 5);
  else if (!strncmp(f, "enospc:", 7)) mode = ENOSPC_, at = atol(f + 7);
  else if (!strcmp(f, "erofs")) mode = EROFS_;
}

/* Whether path (relative to the working folder or dirfd AT_FDCWD) lies under the folder. */
static int under(const char *path)
{
  if (!dir_len || !path) return 0;
  char abs[2 * PATH_MAX];
  if (path[0] == '/') {
    snprintf(abs, sizeof abs, "%s", path);
  } else {
    char cwd[PATH_MAX];
    if (!getcwd(cwd, sizeof cwd)) return 0;
    snprintf(abs, sizeof abs, "%s/%s", cwd, path);
  }
  return !strncmp(abs, dir, dir_len) && (abs[dir_len] == '/' || abs[dir_len] == 0);
}

static int fd_under(int fd)
{
  char link[64], path[PATH_MAX];
  snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  ssize_t n = readlink(link, path, sizeof path - 1);
  if (n <= 0) return 0;
  path[n] = 0;
  return under(path);
}

#define REAL(name) ((__typeof__(&name))dlsym(RTLD_NEXT, #name))

static void count(void)
{
  const char *f = getenv("FSFAULT_COUNT");
  if (!f) return;
  int e = errno, fd = REAL(open)(f, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd >= 0) {
    char b[32];
    int n = snprintf(b, sizeof b, "%ld\n", ops);
    if (REAL(write)(fd, b, (size_t)n) < 0) n = 0;
    close(fd);
  }
  errno = e;
}

/* One changing operation under the folder: 0 to go on, -1 (errno set) to fail it; may not return. */
static int change(int is_write)
{
  ++ops;
  count();
  if (mode == KILL && ops == at && !is_write) raise(SIGKILL);
  if (mode == EROFS_) {
    errno = EROFS;
    return -1;
  }
  if (mode == ENOSPC_ && is_write && ++writes >= at) {
    errno = ENOSPC;
    return -1;
  }
  return 0;
}

static int creating(int flags) { return (flags & (O_CREAT | O_WRONLY | O_RDWR | O_TRUNC)) != 0; }

int open(const char *path, int flags, ...)
{
  va_list ap;
  va_start(ap, flags);
  mode_t m = (flags & (O_CREAT | O_TMPFILE)) ? va_arg(ap, mode_t) : 0;
  va_end(ap);
  if (creating(flags) && under(path) && change(0)) return -1;
  return REAL(open)(path, flags, m);
}

int open64(const char *path, int flags, ...)
{
  va_list ap;
  va_start(ap, flags);
  mode_t m = (flags & (O_CREAT | O_TMPFILE)) ? va_arg(ap, mode_t) : 0;
  va_end(ap);
  if (creating(flags) && under(path) && change(0)) return -1;
  return REAL(open64)(path, flags, m);
}

int mkstemp(char *tmpl)
{
  if (under(tmpl) && change(0)) return -1;
  return REAL(mkstemp)(tmpl);
}

int mkstemp64(char *tmpl)
{
  if (under(tmpl) && change(0)) return -1;
  return REAL(mkstemp64)(tmpl);
}

int mkdir(const char *path, mode_t m)
{
  if (under(path) && change(0)) return -1;
  return REAL(mkdir)(path, m);
}

int rename(const char *from, const char *to)
{
  if ((under(from) || under(to)) && change(0)) return -1;
  return REAL(rename)(from, to);
}

int unlink(const char *path)
{
  if (under(path) && change(0)) return -1;
  return REAL(unlink)(path);
}

int fsync(int fd)
{
  if (fd_under(fd) && change(0)) return -1;
  return REAL(fsync)(fd);
}

int access(const char *path, int how)
{
  if (mode == EROFS_ && (how & W_OK) && under(path)) {
    errno = EROFS;
    return -1;
  }
  return REAL(access)(path, how);
}

ssize_t write(int fd, const void *buf, size_t n)
{
  if (fd > 2 && fd_under(fd)) {
    if (mode == KILL && ops + 1 == at) { /* killed half-way through this write */
      ++ops;
      count();
      if (n > 1) REAL(write)(fd, buf, n / 2);
      raise(SIGKILL);
    }
    if (change(1)) return -1;
  }
  return REAL(write)(fd, buf, n);
}
