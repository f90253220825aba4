/* Concurrency at the cache's size cap: 8 threads x 500 links on one shared catalog and cache, and 4
 * processes x 500 links on the same cache at the same time, three kernels in rotation and a cap that
 * holds one entry, so that nearly every link evicts another's entry while others read and write. Every
 * cubin must be byte-identical to a reference linked without the cache; afterwards every entry left must
 * be whole (a hit gives the reference bytes) and no temporary file may be left. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../support/lto.h"
#include "kernels.h"
#include "rt_util.h"
#include "util.h"

enum { THREADS = 8, PROCESSES = 4, LINKS = 500, KERNELS = 3 };

static coop_catalog *cat;
static char *cache_opt;
static void *ir[KERNELS];
static size_t ir_size[KERNELS];
static coopt_blob ref[KERNELS];
static pthread_barrier_t start;

/* Links kernel k with the cache; 0 when the cubin is the reference's, else a description (static). */
static const char *link_and_check(int k, int *hit)
{
  const char *opts[] = {"-arch=sm_90", cache_opt, "-generate=0"};
  coop_linker *l = NULL;
  coop_result rc = coopt_link_ltoir(cat, opts, 3, ir[k], ir_size[k], &l);
  const char *why = NULL;
  const void *c = NULL;
  size_t n = 0;
  if (rc) why = coop_result_name(rc);
  else if (coop_linker_get_cubin(l, &c, &n) || n != ref[k].size || memcmp(c, ref[k].data, n)) why = "a wrong cubin";
  coop_link_info info = {0};
  if (!why && hit && !coop_linker_get_info(l, &info)) *hit = info.cache_hit;
  coop_linker_destroy(&l);
  return why;
}

typedef struct job {
  int id, wrong, hits;
  const char *why;
} job;

static void *thread_main(void *arg)
{
  job *j = arg;
  pthread_barrier_wait(&start);
  for (int m = 0; m < LINKS; ++m) {
    int hit = 0;
    const char *why = link_and_check((j->id + m) % KERNELS, &hit);
    j->hits += hit;
    if (why) {
      ++j->wrong;
      j->why = why;
    }
  }
  return NULL;
}

static int temp_files(const char *dir)
{
  DIR *d = opendir(dir);
  int n = 0;
  struct dirent *e;
  while (d && (e = readdir(d)))
    n += e->d_name[0] == '.' && strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
  if (d) closedir(d);
  return n;
}

Test(stress, threads_and_processes_at_the_cache_cap, .timeout = 1800)
{
  static const char *const A[] = {"fixture_a", NULL};
  char *dir = coopt_catalog_with(A), *err = NULL;
  cr_assert_eq(coop_catalog_open(&cat, dir, &err), COOP_SUCCESS, "%s", err);
  const char *kernels[KERNELS] = {K_REDUCE, K_REDUCE2, K_REDUCE3};
  const char *nocache[] = {"-arch=sm_90", "-cache=0"};
  for (int k = 0; k < KERNELS; ++k) {
    coopt_kernel_ltoir(kernels[k], 90, &ir[k], &ir_size[k]);
    coop_linker *l = NULL;
    cr_assert_eq(coopt_link_ltoir(cat, nocache, 2, ir[k], ir_size[k], &l), COOP_SUCCESS);
    const void *c;
    cr_assert_eq(coop_linker_get_cubin(l, &c, &ref[k].size), COOP_SUCCESS);
    ref[k].data = malloc(ref[k].size);
    memcpy(ref[k].data, c, ref[k].size);
    coop_linker_destroy(&l);
  }
  char *cache = coopt_tmpdir();
  cache_opt = coopt_fmt("-cache-dir=%s", cache);
  /* the cap: one entry and a half (an entry is the cubin, its PTX-less info and a header: ~1.2 x cubin) */
  char cap[32];
  snprintf(cap, sizeof cap, "%zu", ref[0].size * 2);
  setenv("COOPLINK_CACHE_MAX_BYTES", cap, 1);
  /* the processes first (fork before any thread), held at a pipe until the threads are ready */
  int go[2];
  cr_assert_eq(pipe(go), 0);
  pid_t pids[PROCESSES];
  for (int p = 0; p < PROCESSES; ++p) {
    pids[p] = fork();
    cr_assert(pids[p] >= 0);
    if (pids[p] == 0) {
      close(go[1]);
      char c;
      if (read(go[0], &c, 1) != 0) _exit(100);
      int wrong = 0;
      for (int m = 0; m < LINKS; ++m) wrong += link_and_check((p + m) % KERNELS, NULL) != NULL;
      _exit(wrong > 99 ? 99 : wrong);
    }
  }
  close(go[0]);
  pthread_barrier_init(&start, NULL, THREADS + 1);
  job jobs[THREADS];
  pthread_t t[THREADS];
  for (int i = 0; i < THREADS; ++i) {
    jobs[i] = (job){.id = i};
    cr_assert_eq(pthread_create(&t[i], NULL, thread_main, &jobs[i]), 0);
  }
  close(go[1]); /* the processes start */
  pthread_barrier_wait(&start); /* and the threads */
  int hits = 0;
  for (int i = 0; i < THREADS; ++i) {
    pthread_join(t[i], NULL);
    cr_expect_eq(jobs[i].wrong, 0, "thread %d: %d of %d links wrong (%s)", i, jobs[i].wrong, LINKS, jobs[i].why);
    hits += jobs[i].hits;
  }
  for (int p = 0; p < PROCESSES; ++p) {
    int st = 0;
    cr_assert_eq(waitpid(pids[p], &st, 0), pids[p]);
    cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 0, "process %d: %s %d", p,
              WIFEXITED(st) ? "wrong links (or 100: no start)" : "signal", WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
  }
  /* every entry left is whole: a link of each kernel hits it or misses, and gives the reference bytes */
  for (int k = 0; k < KERNELS; ++k) cr_expect_null(link_and_check(k, NULL), "kernel %d after the run", k);
  char *links = coopt_fmt("%s/links", cache);
  cr_expect_eq(temp_files(links), 0, "temporary files left in %s", links);
  int entries = coopt_count_entries(links);
  cr_expect(entries >= 1 && entries <= 2, "%d entries under a cap of about one", entries);
  cr_log_info("%d threads x %d links and %d processes x %d links at once, cache cap %s bytes: %d thread links hit the "
              "cache, %d entries left",
              THREADS, LINKS, PROCESSES, LINKS, cap, hits, entries);
  unsetenv("COOPLINK_CACHE_MAX_BYTES");
  for (int k = 0; k < KERNELS; ++k) {
    free(ir[k]);
    free(ref[k].data);
  }
  coop_catalog_close(&cat);
  free(links);
  free(cache_opt);
  free(cache);
  free(dir);
}

/* Cache entries take the process's umask, which the library reads without setting it (setting it, even
 * for a moment, would let other threads create world-writable files). */
Test(stress, cache_entries_follow_the_umask)
{
  static const char *const A[] = {"fixture_a", NULL};
  char *dir = coopt_catalog_with(A), *err = NULL;
  cr_assert_eq(coop_catalog_open(&cat, dir, &err), COOP_SUCCESS, "%s", err);
  coopt_kernel_ltoir(K_REDUCE, 90, &ir[0], &ir_size[0]);
  const mode_t masks[] = {027, 002};
  for (int i = 0; i < 2; ++i) {
    char *cache = coopt_tmpdir();
    cache_opt = coopt_fmt("-cache-dir=%s", cache);
    const mode_t old = umask(masks[i]);
    const char *opts[] = {"-arch=sm_90", cache_opt};
    coop_linker *l = NULL;
    cr_assert_eq(coopt_link_ltoir(cat, opts, 2, ir[0], ir_size[0], &l), COOP_SUCCESS);
    coop_linker_destroy(&l);
    umask(old);
    char *links = coopt_fmt("%s/links", cache);
    DIR *d = opendir(links);
    struct dirent *e;
    int seen = 0;
    while (d && (e = readdir(d))) {
      if (e->d_name[0] == '.') continue;
      char *p = coopt_fmt("%s/%s", links, e->d_name);
      struct stat st;
      cr_assert_eq(stat(p, &st), 0);
      cr_expect_eq(st.st_mode & 0777, 0666 & ~masks[i], "%s: mode %o under umask %03o", p, st.st_mode & 0777, masks[i]);
      ++seen;
      free(p);
    }
    if (d) closedir(d);
    cr_assert_eq(seen, 1);
    free(links);
    free(cache_opt);
    free(cache);
  }
  free(ir[0]);
  coop_catalog_close(&cat);
  free(dir);
}

/* A temporary file left by a writer that was killed (an hour old or more) is removed by the next write into
 * the cache; a live writer's (a fresh one) is left alone. */
Test(stress, stale_temporary_files_are_removed)
{
  static const char *const A[] = {"fixture_a", NULL};
  char *dir = coopt_catalog_with(A), *err = NULL;
  cr_assert_eq(coop_catalog_open(&cat, dir, &err), COOP_SUCCESS, "%s", err);
  coopt_kernel_ltoir(K_REDUCE, 90, &ir[0], &ir_size[0]);
  char *cache = coopt_tmpdir();
  cache_opt = coopt_fmt("-cache-dir=%s", cache);
  char *links = coopt_fmt("%s/links", cache);
  cr_assert_eq(mkdir(links, 0777), 0);
  char *stale = coopt_fmt("%s/.0123.bin.tmp.AbCdEf", links), *fresh = coopt_fmt("%s/.4567.bin.tmp.GhIjKl", links);
  for (int i = 0; i < 2; ++i) {
    FILE *f = fopen(i ? fresh : stale, "wb");
    cr_assert(f && fputs("half-written", f) >= 0 && fclose(f) == 0);
  }
  struct timespec old[2] = {{time(NULL) - 7200, 0}, {time(NULL) - 7200, 0}};
  cr_assert_eq(utimensat(AT_FDCWD, stale, old, 0), 0);
  const char *opts[] = {"-arch=sm_90", cache_opt};
  coop_linker *l = NULL;
  cr_assert_eq(coopt_link_ltoir(cat, opts, 2, ir[0], ir_size[0], &l), COOP_SUCCESS); /* a miss: it writes */
  coop_linker_destroy(&l);
  cr_expect(!coopt_exists(stale), "the stale temporary file is still there");
  cr_expect(coopt_exists(fresh), "a fresh temporary file (a live writer's) was removed");
  free(stale);
  free(fresh);
  free(links);
  free(ir[0]);
  free(cache_opt);
  free(cache);
  coop_catalog_close(&cat);
  free(dir);
}
