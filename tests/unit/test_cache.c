/* The link cache: hit and miss, corrupt and truncated entries dropped and rebuilt, threads and
 * processes at once (byte-identical cubins, no corrupt entries), and the size cap. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../support/lto.h"
#include "kernels.h"
#include "rt_util.h"
#include "util.h"

static const char *const A[] = {"fixture_a", NULL};

typedef struct fix {
  char *dir, *cache, *cdir;
  coop_catalog *cat;
  void *ir[3];
  size_t size[3];
} fix;

static void setup_fix(fix *f)
{
  f->dir = coopt_catalog_with(A);
  char *err = NULL;
  cr_assert_eq(coop_catalog_open(&f->cat, f->dir, &err), COOP_SUCCESS, "%s", err);
  f->cache = coopt_tmpdir();
  f->cdir = coopt_fmt("-cache-dir=%s", f->cache);
  coopt_kernel_ltoir(K_REDUCE, 90, &f->ir[0], &f->size[0]);
  coopt_kernel_ltoir(K_REDUCE2, 90, &f->ir[1], &f->size[1]);
  coopt_kernel_ltoir(K_REDUCE3, 90, &f->ir[2], &f->size[2]);
}

static void teardown_fix(fix *f)
{
  coop_catalog_close(&f->cat);
  for (int i = 0; i < 3; ++i) free(f->ir[i]);
  free(f->dir);
  free(f->cache);
  free(f->cdir);
}

/* Links kernel k; returns the cubin (malloc'd) and whether it was a hit. */
static coopt_blob link_k(fix *f, int k, int *hit)
{
  const char *opts[] = {"-arch=sm_90", f->cdir};
  coop_linker *l = NULL;
  coop_result rc = coopt_link_ltoir(f->cat, opts, 2, f->ir[k], f->size[k], &l);
  cr_assert_eq(rc, COOP_SUCCESS, "%s", coopt_linker_log(l));
  const void *c;
  coopt_blob b = {0};
  cr_assert_eq(coop_linker_get_cubin(l, &c, &b.size), COOP_SUCCESS);
  b.data = malloc(b.size);
  memcpy(b.data, c, b.size);
  coop_link_info info;
  coop_linker_get_info(l, &info);
  if (hit) *hit = info.cache_hit;
  coop_linker_destroy(&l);
  return b;
}

static int same(coopt_blob a, coopt_blob b) { return a.size == b.size && memcmp(a.data, b.data, a.size) == 0; }

/* The cache entries (paths, malloc'd) under <cache>/links. */
static int entries(fix *f, char **paths, int max)
{
  char *links = coopt_fmt("%s/links", f->cache);
  DIR *d = opendir(links);
  int n = 0;
  struct dirent *e;
  while (d && (e = readdir(d)))
    if (e->d_name[0] != '.' && n < max) paths[n++] = coopt_fmt("%s/%s", links, e->d_name);
    else if (e->d_name[0] == '.' && strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
      cr_assert_fail("a temporary file was left behind: %s", e->d_name);
  if (d) closedir(d);
  free(links);
  return n;
}

/* The number of cache entries. */
static int n_entries(fix *f)
{
  char *p[8];
  int n = entries(f, p, 8);
  for (int i = 0; i < n; ++i) free(p[i]);
  return n;
}

/* Links kernel k; returns whether it was a hit. */
static int hit_k(fix *f, int k)
{
  int hit = -1;
  free(link_k(f, k, &hit).data);
  return hit;
}

Test(cache, miss_then_hit)
{
  fix f = {0};
  setup_fix(&f);
  int hit = -1;
  coopt_blob a = link_k(&f, 0, &hit);
  cr_assert_eq(hit, 0);
  coopt_blob b = link_k(&f, 0, &hit);
  cr_assert_eq(hit, 1);
  cr_assert(same(a, b));
  cr_assert_eq(n_entries(&f), 1);
  cr_assert_eq(hit_k(&f, 1), 0); /* another kernel: another key */
  cr_assert_eq(n_entries(&f), 2);
  free(a.data);
  free(b.data);
  teardown_fix(&f);
}

static void damage_and_relink(int truncate_it)
{
  fix f = {0};
  setup_fix(&f);
  int hit;
  coopt_blob a = link_k(&f, 0, &hit);
  char *p[8];
  cr_assert_eq(entries(&f, p, 8), 1);
  coopt_blob e = {0};
  cr_assert_eq(coopt_read(p[0], &e), 0);
  if (truncate_it) {
    cr_assert_eq(truncate(p[0], (off_t)(e.size / 2)), 0);
  } else {
    FILE *fp = fopen(p[0], "r+b");
    fseek(fp, (long)(e.size / 2), SEEK_SET);
    int c = fgetc(fp);
    fseek(fp, (long)(e.size / 2), SEEK_SET);
    fputc(c ^ 1, fp);
    fclose(fp);
  }
  free(p[0]);
  free(e.data);
  coopt_blob b = link_k(&f, 0, &hit);
  cr_assert_eq(hit, 0, "a damaged entry must not be used");
  cr_assert(same(a, b));
  coopt_blob c = link_k(&f, 0, &hit);
  cr_assert_eq(hit, 1, "the entry is rebuilt");
  cr_assert(same(a, c));
  cr_assert_eq(n_entries(&f), 1);
  free(a.data);
  free(b.data);
  free(c.data);
  teardown_fix(&f);
}

Test(cache, corrupt_entry_dropped_and_rebuilt) { damage_and_relink(0); }
Test(cache, truncated_entry_dropped_and_rebuilt) { damage_and_relink(1); }

typedef struct job {
  fix *f;
  int id;
  coopt_blob out[3];
} job;

static void *thread_main(void *arg)
{
  job *j = arg;
  /* each thread its own linker; the catalog is shared */
  for (int m = 0; m < 3; ++m) j->out[m] = link_k(j->f, (j->id + m) % 2, NULL);
  return NULL;
}

Test(cache, threads_and_processes, .timeout = 600)
{
  fix f = {0};
  setup_fix(&f);
  /* references, without the cache */
  char *ref_cache = coopt_tmpdir();
  fix r = f;
  r.cdir = coopt_fmt("-cache-dir=%s", ref_cache);
  coopt_blob ref[2] = {link_k(&r, 0, NULL), link_k(&r, 1, NULL)};
  enum { N = 4 };
  job jobs[N];
  pthread_t t[N];
  for (int i = 0; i < N; ++i) {
    jobs[i] = (job){&f, i, {{0}}};
    cr_assert_eq(pthread_create(&t[i], NULL, thread_main, &jobs[i]), 0);
  }
  for (int i = 0; i < N; ++i) pthread_join(t[i], NULL);
  for (int i = 0; i < N; ++i)
    for (int m = 0; m < 3; ++m) {
      cr_assert(same(jobs[i].out[m], ref[(i + m) % 2]), "thread %d link %d", i, m);
      free(jobs[i].out[m].data);
    }
  /* two processes on a fresh cache, each writing its cubins */
  char *cache2 = coopt_tmpdir();
  fix g = f;
  g.cache = cache2;
  g.cdir = coopt_fmt("-cache-dir=%s", cache2);
  pid_t pids[2];
  for (int p = 0; p < 2; ++p) {
    pids[p] = fork();
    cr_assert(pids[p] >= 0);
    if (pids[p] == 0) {
      for (int m = 0; m < 3; ++m) {
        coopt_blob b = link_k(&g, (p + m) % 2, NULL);
        char *path = coopt_fmt("%s/out_%d_%d.cubin", cache2, p, m);
        FILE *fp = fopen(path, "wb");
        int ok = fp && fwrite(b.data, 1, b.size, fp) == b.size && !fclose(fp);
        free(b.data);
        free(path);
        if (!ok) _exit(3);
      }
      _exit(0);
    }
  }
  for (int p = 0; p < 2; ++p) {
    int st = 0;
    cr_assert_eq(waitpid(pids[p], &st, 0), pids[p]);
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child %d", p);
  }
  for (int p = 0; p < 2; ++p)
    for (int m = 0; m < 3; ++m) {
      char *path = coopt_fmt("%s/out_%d_%d.cubin", cache2, p, m);
      coopt_blob b = {0};
      cr_assert_eq(coopt_read(path, &b), 0);
      cr_assert(same(b, ref[(p + m) % 2]), "process %d link %d", p, m);
      free(b.data);
      free(path);
    }
  /* every entry left is whole: both keys hit */
  cr_assert_eq(n_entries(&f), 2);
  cr_assert_eq(n_entries(&g), 2);
  cr_assert_eq(hit_k(&g, 0), 1);
  cr_assert_eq(hit_k(&g, 1), 1);
  free(ref[0].data);
  free(ref[1].data);
  free(ref_cache);
  free(r.cdir);
  free(cache2);
  free(g.cdir);
  teardown_fix(&f);
}

Test(cache, size_cap_evicts_least_recently_used)
{
  fix f = {0};
  setup_fix(&f);
  cr_assert_eq(hit_k(&f, 0), 0);
  char *p[8];
  cr_assert_eq(entries(&f, p, 8), 1);
  coopt_blob e = {0};
  cr_assert_eq(coopt_read(p[0], &e), 0);
  free(p[0]);
  char cap[32];
  snprintf(cap, sizeof cap, "%zu", e.size * 3 / 2);
  free(e.data);
  setenv("COOPLINK_CACHE_MAX_BYTES", cap, 1);
  sleep(1); /* distinct modification times */
  cr_assert_eq(hit_k(&f, 1), 0);
  sleep(1);
  cr_assert_eq(hit_k(&f, 2), 0);
  cr_assert_eq(n_entries(&f), 1, "only the newest entry fits");
  cr_assert_eq(hit_k(&f, 2), 1, "the newest entry was kept");
  cr_assert_eq(hit_k(&f, 0), 0, "the oldest entry was evicted");
  unsetenv("COOPLINK_CACHE_MAX_BYTES");
  teardown_fix(&f);
}
