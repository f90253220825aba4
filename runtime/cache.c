/* The link cache: one file per key under <dir>/links, written atomically, checked on read. */
#include "runtime.h"

#include <dirent.h>
#include <fcntl.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* File layout: MAGIC, 4 little-endian u64 lengths, the 4 sections, then the sha256 (hex, 64 bytes) of
 * everything before it. A truncated or altered file fails the length or the hash check. */
static const char MAGIC[16] = "COOPLINK-CACHE1";

char *coop__cache_default_dir(void)
{
  const char *e = getenv("COOPLINK_CACHE");
  if (e && *e) return coop__strdup(e);
  e = getenv("XDG_CACHE_HOME");
  if (e && *e) return coop__path_join(e, "cooplink");
  e = getenv("HOME");
  if (e && *e) {
    char *c = coop__path_join(e, ".cache");
    char *d = c ? coop__path_join(c, "cooplink") : NULL;
    free(c);
    return d;
  }
  return coop__strdup("/tmp/cooplink-cache");
}

unsigned long long coop__cache_max_bytes(void)
{
  const char *e = getenv("COOPLINK_CACHE_MAX_BYTES");
  if (e && *e) {
    char *end = NULL;
    unsigned long long v = strtoull(e, &end, 10);
    if (end && *end == 0) return v;
  }
  return 1ull << 30;
}

void coop__cache_entry_free(coop__cache_entry *e)
{
  free(e->cubin);
  free(e->ptx);
  free(e->info);
  free(e->bundles);
  memset(e, 0, sizeof *e);
}

static char *entry_path(const char *dir, const char *key)
{
  size_t n = strlen(dir) + strlen(key) + 16;
  char *p = malloc(n);
  if (p) snprintf(p, n, "%s/links/%s.bin", dir, key);
  return p;
}

static uint64_t get_u64(const unsigned char *p)
{
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = v << 8 | p[i];
  return v;
}
static void put_u64(unsigned char *p, uint64_t v)
{
  for (int i = 0; i < 8; ++i) p[i] = (unsigned char)(v >> (8 * i));
}

static char *dup_section(const char *src, size_t n)
{
  char *p = malloc(n + 1);
  if (!p) return NULL;
  memcpy(p, src, n);
  p[n] = 0;
  return p;
}

int coop__cache_get(const char *dir, const char *key, coop__cache_entry *e)
{
  memset(e, 0, sizeof *e);
  char *path = entry_path(dir, key);
  if (!path) return -1;
  char *data = NULL;
  size_t size = 0;
  int hit = 0;
  coop_result rc = coop__read_file(path, &data, &size);
  if (rc) {
    hit = rc == COOP_ERROR_OUT_OF_MEMORY ? -1 : 0;
    goto out;
  }
  const size_t head = sizeof MAGIC + 32;
  int ok = size >= head + 64 && memcmp(data, MAGIC, sizeof MAGIC) == 0;
  uint64_t len[4] = {0};
  for (int i = 0; ok && i < 4; ++i) len[i] = get_u64((const unsigned char *)data + sizeof MAGIC + 8 * i);
  ok = ok && len[0] < size && len[1] < size && len[2] < size && len[3] < size &&
       head + len[0] + len[1] + len[2] + len[3] + 64 == size;
  if (ok) {
    char hex[65];
    coop__sha256_hex(data, size - 64, hex);
    ok = memcmp(hex, data + size - 64, 64) == 0;
  }
  if (!ok) {
    unlink(path); /* corrupt or truncated: drop it, the caller rebuilds */
    goto out;
  }
  const char *p = data + head;
  e->cubin_size = len[0];
  e->cubin = dup_section(p, len[0]);
  p += len[0];
  e->ptx_size = len[1];
  e->ptx = dup_section(p, len[1]);
  p += len[1];
  e->info_size = len[2];
  e->info = dup_section(p, len[2]);
  p += len[2];
  e->bundles_size = len[3];
  e->bundles = dup_section(p, len[3]);
  if (!e->cubin || !e->ptx || !e->info || !e->bundles) {
    coop__cache_entry_free(e);
    hit = -1;
    goto out;
  }
  hit = 1;
  utimensat(AT_FDCWD, path, NULL, 0); /* recently used */
out:
  free(data);
  free(path);
  return hit;
}

typedef struct old_entry {
  char *path;
  time_t mtime;
  off_t size;
} old_entry;

static int by_mtime(const void *a, const void *b)
{
  const old_entry *x = a, *y = b;
  return x->mtime < y->mtime ? -1 : x->mtime > y->mtime;
}

/* A temporary file a writer left an hour ago or more: its process was killed before it could rename or remove
 * it (a live writer's file is seconds old). Never read; removed (best effort) so that such files do not pile up. */
static void drop_stale_temp(const char *links, const char *name)
{
  char *p = coop__path_join(links, name);
  struct stat st;
  if (p && stat(p, &st) == 0 && time(NULL) - st.st_mtime >= 3600) unlink(p);
  free(p);
}

/* Removes the least recently used entries until the folder is 10% under max_bytes; COOP_ERROR_OUT_OF_MEMORY
 * (nothing evicted) or COOP_SUCCESS. */
static coop_result evict(const char *links, unsigned long long max_bytes)
{
  DIR *d = opendir(links);
  if (!d) return COOP_SUCCESS;
  int oom = 0;
  old_entry *v = NULL;
  size_t n = 0, cap = 0;
  unsigned long long total = 0;
  struct dirent *de;
  while ((de = readdir(d))) {
    size_t len = strlen(de->d_name);
    if (de->d_name[0] == '.' && strstr(de->d_name, ".bin.tmp.")) { /* a writer's temporary file */
      drop_stale_temp(links, de->d_name);
      continue;
    }
    if (de->d_name[0] == '.' || len < 5 || strcmp(de->d_name + len - 4, ".bin") != 0) continue;
    char *p = coop__path_join(links, de->d_name);
    struct stat st;
    if (!p) {
      oom = 1;
      break;
    }
    if (stat(p, &st) != 0) {
      free(p);
      continue;
    }
    if (n == cap) {
      cap = cap ? cap * 2 : 64;
      old_entry *nv = realloc(v, cap * sizeof *nv);
      if (!nv) {
        free(p);
        oom = 1;
        break;
      }
      v = nv;
    }
    v[n++] = (old_entry){p, st.st_mtime, st.st_size};
    total += (unsigned long long)st.st_size;
  }
  closedir(d);
  if (!oom && total > max_bytes) {
    qsort(v, n, sizeof *v, by_mtime);
    for (size_t i = 0; i < n && total > max_bytes - max_bytes / 10; ++i)
      if (unlink(v[i].path) == 0) total -= (unsigned long long)v[i].size;
  }
  for (size_t i = 0; i < n; ++i) free(v[i].path);
  free(v);
  return oom ? COOP_ERROR_OUT_OF_MEMORY : COOP_SUCCESS;
}

coop_result coop__cache_put(const char *dir, const char *key, const coop__cache_entry *e, unsigned long long max_bytes)
{
  char *links = coop__path_join(dir, "links");
  char *path = entry_path(dir, key);
  coop_result rc = links && path ? coop__mkdirs(links) : COOP_ERROR_OUT_OF_MEMORY;
  size_t head = sizeof MAGIC + 32;
  size_t size = head + e->cubin_size + e->ptx_size + e->info_size + e->bundles_size + 64;
  char *buf = rc ? NULL : malloc(size);
  if (!rc && !buf) rc = COOP_ERROR_OUT_OF_MEMORY;
  if (!rc) {
    memcpy(buf, MAGIC, sizeof MAGIC);
    size_t lens[4] = {e->cubin_size, e->ptx_size, e->info_size, e->bundles_size};
    const char *secs[4] = {e->cubin, e->ptx, e->info, e->bundles};
    char *p = buf + head;
    for (int i = 0; i < 4; ++i) {
      put_u64((unsigned char *)buf + sizeof MAGIC + 8 * i, lens[i]);
      if (lens[i]) memcpy(p, secs[i], lens[i]);
      p += lens[i];
    }
    char hex[65];
    coop__sha256_hex(buf, size - 64, hex);
    memcpy(p, hex, 64);
    char *tmp = NULL;
    rc = coop__write_temp(path, buf, size, &tmp);
    if (!rc && rename(tmp, path) != 0) {
      unlink(tmp);
      rc = COOP_ERROR_CACHE;
    }
    if (rc == COOP_ERROR_IO) rc = COOP_ERROR_CACHE;
    free(tmp);
  }
  if (!rc && max_bytes) rc = evict(links, max_bytes);
  free(buf);
  free(links);
  free(path);
  return rc;
}
