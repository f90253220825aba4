/* The catalog's compiler: the toolkit's own front end (cicc), run with exactly the commands nvcc would
 * run for `nvcc -rdc=true -fatbin [-Xcicc -gen-opt-lto] -gencode arch=compute_XX,code=lto_XX`, taken from
 * `nvcc --dryrun` once per arch.
 *
 * Why not NVRTC: NVRTC emits every constexpr static member of every class the CUB headers instantiate
 * as a weak device global (about 600, 80 KB of IR in every module), and nvJitLink pays for them in
 * every module it is given (1.5-1.7 ms each, bench/README.md). cicc in nvcc's mode (-tused) emits only
 * what is used: a one-wrapper module is 24 KB instead of 107 KB, links 2.5-3 ms faster, and the linked
 * machine code is the same byte for byte. That is what makes a catalog of one small module per CUB
 * instance affordable.
 *
 * The device preprocessing of a family's header (gcc -E with nvcc's defines, 0.3 s) is done once per
 * family and arch; each unit is that text plus its wrappers, spelled without macros. cicc runs with
 * the root folder as its working directory and fixed source names, because its output depends on
 * both: so the same spec gives byte-identical IR wherever it is built. */
#include "gen.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <wordexp.h>

#define UNIT_NAME "coopgen_unit.cu"

/* Runs argv (PATH lookup for argv[0]) in cwd with stdin closed and stdout+stderr to log_path.
 * Returns the exit status, or -1 if it could not be started or was killed. */
int coop__run(char *const *argv, const char *cwd, const char *log_path)
{
  pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    int fd = open(log_path ? log_path : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int in = open("/dev/null", O_RDONLY);
    if (fd < 0 || in < 0 || (cwd && chdir(cwd) != 0)) _exit(127);
    dup2(in, 0);
    dup2(fd, 1);
    dup2(fd, 2);
    execvp(argv[0], argv);
    _exit(127);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* coop__run with the log at log_path; on failure the tool's output goes into log after `what`. */
static int run_logged(char *const *argv, const char *cwd, const char *log_path, const char *what, coop__str *log)
{
  int st = coop__run(argv, cwd, log_path);
  if (st != 0) {
    char *text = NULL;
    size_t size = 0;
    coop__read_file(log_path, &text, &size);
    coop__str_printf(log, "%s (exit %d):\n%s\n", what, st, text ? text : "");
    free(text);
  }
  return st;
}


static void free_argv(char **v)
{
  for (size_t i = 0; v && v[i]; ++i) free(v[i]);
  free(v);
}

/* Splits a shell command line as the shell would (quotes), with no command substitution. */
static char **split(const char *line)
{
  wordexp_t w;
  if (wordexp(line, &w, WRDE_NOCMD | WRDE_UNDEF) != 0) return NULL;
  char **v = calloc(w.we_wordc + 1, sizeof *v);
  for (size_t i = 0; v && i < w.we_wordc; ++i)
    if (!(v[i] = coop__strdup(w.we_wordv[i]))) {
      free_argv(v);
      v = NULL;
    }
  wordfree(&w);
  return v;
}


/* A copy of a NULL-terminated argv, NULL on OOM. */
static char **copy_argv(char *const *v)
{
  size_t n = 0;
  while (v[n]) ++n;
  char **c = calloc(n + 1, sizeof *c);
  for (size_t i = 0; c && i < n; ++i)
    if (!(c[i] = coop__strdup(v[i]))) {
      free_argv(c);
      return NULL;
    }
  return c;
}

static int set_arg(char **argv, int i, const char *value)
{
  char *c = coop__strdup(value);
  if (!c) return 0;
  free(argv[i]);
  argv[i] = c;
  return 1;
}

static int find_arg(char **argv, const char *name)
{
  for (int i = 0; argv[i]; ++i)
    if (!strcmp(argv[i], name) && argv[i + 1]) return i + 1;
  return -1;
}

static int ends_with(const char *s, const char *tail)
{
  size_t n = strlen(s), t = strlen(tail);
  return n >= t && !strcmp(s + n - t, tail);
}

void coop__lean_free(coop__lean *l)
{
  free_argv(l->pp);
  free_argv(l->cicc);
  memset(l, 0, sizeof *l);
}

/* Expands $NAME and ${NAME} of the dryrun's variable lines in text. */
static void expand(coop__str *out, const char *text, char **names, char **values, int n)
{
  for (const char *p = text; *p;) {
    int done = 0;
    if (*p == '$')
      for (int k = 0; k < n && !done; ++k) {
        size_t len = strlen(names[k]);
        if (!strncmp(p + 1, names[k], len) && !(p[1 + len] == '_' || (p[1 + len] >= 'A' && p[1 + len] <= 'Z'))) {
          coop__str_add(out, values[k]);
          p += 1 + len;
          done = 1;
        } else if (p[1] == '{' && !strncmp(p + 2, names[k], len) && p[2 + len] == '}') {
          coop__str_add(out, values[k]);
          p += 3 + len;
          done = 1;
        }
      }
    if (!done) coop__str_addn(out, p++, 1);
  }
}

coop_result coop__lean_init(coop__lean *l, int arch, const char *workdir, int optimized, coop__str *log)
{
  memset(l, 0, sizeof *l);
  l->arch = arch;
  const char *root = coop__cuda_root();
  char nvcc[1100], gencode[64], cmd[4096], path[1200];
  snprintf(nvcc, sizeof nvcc, "%s/bin/nvcc", root);
  if (access(nvcc, X_OK) != 0) {
    coop__str_printf(log, "%s: not found (the catalog build compiles with the toolkit's nvcc front end)\n", nvcc);
    return COOP_ERROR_TOOLKIT;
  }
  snprintf(path, sizeof path, "%s/coopgen_dryrun.cu", workdir);
  FILE *f = fopen(path, "w");
  if (!f || fputs("\n", f) < 0 || fclose(f) != 0) {
    if (f) fclose(f);
    coop__str_printf(log, "%s: cannot write\n", path);
    return COOP_ERROR_IO;
  }
  snprintf(gencode, sizeof gencode, "arch=compute_%d,code=lto_%d", arch, arch);
  /* The same options as the NVRTC path (compile.c make_opts), in nvcc's spelling. */
  snprintf(cmd, sizeof cmd,
           "cd '%s' && '%s' --dryrun -std=c++17 -rdc=true -fatbin %s-DCCCL_DISABLE_NVFP8_SUPPORT "
           "-DCCCL_DISABLE_NVFP6_SUPPORT -DCCCL_DISABLE_NVFP4_SUPPORT -gencode %s coopgen_dryrun.cu -o "
           "coopgen_dryrun.fatbin 2>&1",
           workdir, nvcc, optimized ? "-Xcicc -gen-opt-lto " : "", gencode);
  FILE *p = popen(cmd, "r");
  if (!p) {
    coop__str_printf(log, "cannot run %s --dryrun\n", nvcc);
    return COOP_ERROR_TOOLKIT;
  }
  char *names[32], *values[32];
  int n_vars = 0;
  char *pp_line = NULL, *cicc_line = NULL;
  char *line = NULL;
  size_t cap = 0;
  while (getline(&line, &cap, p) > 0) {
    line[strcspn(line, "\r\n")] = 0;
    if (strncmp(line, "#$ ", 3) != 0) continue;
    const char *s = line + 3;
    const char *eq = strchr(s, '=');
    size_t nlen = eq ? (size_t)(eq - s) : 0;
    int is_var = eq && nlen > 0 && strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZ_") == nlen;
    if (is_var && n_vars < 32) {
      names[n_vars] = strndup(s, nlen);
      values[n_vars] = coop__strdup(eq + 1);
      ++n_vars;
    } else if (!is_var && strstr(s, " -E ") && !pp_line) {
      pp_line = coop__strdup(s);
    } else if (!is_var && strstr(s, "cicc") && !cicc_line) {
      cicc_line = coop__strdup(s);
    }
  }
  free(line);
  int status = pclose(p);
  coop_result rc = COOP_SUCCESS;
  if (status != 0 || !pp_line || !cicc_line) {
    coop__str_printf(log, "%s --dryrun for sm_%d did not give a preprocessor and a cicc command (exit %d)\n", nvcc, arch,
                     status);
    rc = COOP_ERROR_TOOLKIT;
  }
  coop__str a = {0}, b = {0};
  if (!rc) {
    expand(&a, pp_line, names, values, n_vars);
    expand(&b, cicc_line, names, values, n_vars);
    l->pp = split(coop__str_get(&a));
    l->cicc = split(coop__str_get(&b));
    if (!l->pp || !l->cicc) {
      coop__str_printf(log, "cannot split nvcc's commands for sm_%d\n", arch);
      rc = COOP_ERROR_TOOLKIT;
    }
  }
  if (!rc) {
    /* the preprocessor: the dryrun's input and output */
    l->pp_out = find_arg(l->pp, "-o");
    l->pp_in = -1;
    for (int i = 0; l->pp[i]; ++i)
      if (!strcmp(l->pp[i], "coopgen_dryrun.cu")) l->pp_in = i;
    /* cicc: the input is the preprocessed file, the output follows -o */
    l->ci_out = find_arg(l->cicc, "-o");
    l->ci_in = -1;
    for (int i = 0; l->cicc[i]; ++i)
      if (ends_with(l->cicc[i], ".ii")) l->ci_in = i;
    static const char *const side[] = {"--orig_src_file_name", "--orig_src_path_name", "--include_file_name",
                                       "--module_id_file_name", "--gen_c_file_name", "--stub_file_name",
                                       "--gen_device_file_name"};
    int ok = l->pp_in >= 0 && l->pp_out >= 0 && l->ci_in >= 0 && l->ci_out >= 0;
    for (int k = 0; k < 7 && ok; ++k) ok = (l->ci_side[k] = find_arg(l->cicc, side[k])) >= 0 || k >= 2;
    if (!ok) {
      coop__str_printf(log, "nvcc's commands for sm_%d have an unexpected shape:\n  %s\n  %s\n", arch, pp_line, cicc_line);
      rc = COOP_ERROR_TOOLKIT;
    }
  }
  coop__str_free(&a);
  coop__str_free(&b);
  free(pp_line);
  free(cicc_line);
  for (int i = 0; i < n_vars; ++i) {
    free(names[i]);
    free(values[i]);
  }
  if (!rc) {
    /* the host preprocessor must work here (it is the C++ compiler's: g++ on Debian) */
    char out[1200];
    snprintf(out, sizeof out, "%s/coopgen_dryrun.ii", workdir);
    rc = coop__lean_preprocess(l, workdir, "coopgen_dryrun.cu", out, log);
    if (rc) rc = COOP_ERROR_TOOLKIT;
    unlink(out);
  }
  unlink(path);
  if (rc) coop__lean_free(l);
  return rc;
}

coop_result coop__lean_preprocess(const coop__lean *l, const char *workdir, const char *source, const char *out,
                                  coop__str *log)
{
  char **argv = copy_argv(l->pp);
  if (!argv) return COOP_ERROR_OUT_OF_MEMORY;
  int ok = set_arg(argv, l->pp_in, source) && set_arg(argv, l->pp_out, out);
  if (!ok) {
    free_argv(argv);
    return COOP_ERROR_OUT_OF_MEMORY;
  }
  char lp[1200], what[1400];
  snprintf(lp, sizeof lp, "%s.log", out);
  snprintf(what, sizeof what, "the device preprocessor failed on %s for sm_%d", source, l->arch);
  int st = run_logged(argv, workdir, lp, what, log);
  free_argv(argv);
  if (st != 0) return COOP_ERROR_NVRTC;
  unlink(lp);
  return COOP_SUCCESS;
}

coop_result coop__lean_compile(const coop__lean *l, const char *jobdir, const char *ii, const char *ltoir,
                               coop__str *log)
{
  char **argv = copy_argv(l->cicc);
  if (!argv) return COOP_ERROR_OUT_OF_MEMORY;
  int ok = 1;
  char side[1200];
  static const char *const names[] = {UNIT_NAME, "/coopgen/" UNIT_NAME, "coopgen_unit.fatbin.c", "unit.module_id",
                                      "unit.cudafe1.c", "unit.cudafe1.stub.c", "unit.cudafe1.gpu"};
  for (int k = 0; k < 7 && ok; ++k) {
    if (l->ci_side[k] < 0) continue;
    if (k < 3) {
      ok = set_arg(argv, l->ci_side[k], names[k]);
    } else {
      snprintf(side, sizeof side, "%s/%s", jobdir, names[k]);
      ok = set_arg(argv, l->ci_side[k], side);
    }
  }
  ok = ok && set_arg(argv, l->ci_in, ii) && set_arg(argv, l->ci_out, ltoir);
  if (!ok) {
    free_argv(argv);
    return COOP_ERROR_OUT_OF_MEMORY;
  }
  char lp[1200], what[64];
  snprintf(lp, sizeof lp, "%s/cicc.log", jobdir);
  snprintf(what, sizeof what, "cicc failed for sm_%d", l->arch);
  /* cicc's output depends on its working folder: always the root, for reproducible IR */
  int st = run_logged(argv, "/", lp, what, log);
  free_argv(argv);
  return st != 0 ? COOP_ERROR_NVRTC : COOP_SUCCESS;
}

int coop__fatbinary_available(void)
{
  char path[1100];
  snprintf(path, sizeof path, "%s/bin/fatbinary", coop__cuda_root());
  return access(path, X_OK) == 0;
}

coop_result coop__fatbinary(const char *out, const int *archs, char *const *ltoir_paths, int n, const char *logdir,
                            coop__str *log)
{
  char tool[1100];
  snprintf(tool, sizeof tool, "%s/bin/fatbinary", coop__cuda_root());
  char **argv = calloc((size_t)n + 8, sizeof *argv);
  if (!argv) return COOP_ERROR_OUT_OF_MEMORY;
  coop__str c = {0};
  coop__str_printf(&c, "--create=%s", out);
  int k = 0;
  argv[k++] = coop__strdup(tool);
  argv[k++] = coop__strdup(coop__str_get(&c));
  argv[k++] = coop__strdup("-64");
  argv[k++] = coop__strdup("--device-c");
  argv[k++] = coop__strdup("--compress-all");
  /* size mode: 15% smaller than the default, and nvJitLink decompresses only the entry it links */
  argv[k++] = coop__strdup("--compress-mode=size");
  for (int i = 0; i < n; ++i) {
    coop__str_clear(&c);
    coop__str_printf(&c, "--image3=kind=nvvm,sm=%d,file=%s", archs[i], ltoir_paths[i]);
    argv[k++] = coop__strdup(coop__str_get(&c));
  }
  coop__str_free(&c);
  for (int i = 0; i < k; ++i)
    if (!argv[i]) {
      free_argv(argv);
      return COOP_ERROR_OUT_OF_MEMORY;
    }
  char lp[1200], what[1200];
  snprintf(lp, sizeof lp, "%s/fatbinary.log", logdir);
  snprintf(what, sizeof what, "fatbinary failed on %s", out);
  int st = run_logged(argv, logdir, lp, what, log);
  free_argv(argv);
  return st != 0 ? COOP_ERROR_TOOLKIT : COOP_SUCCESS;
}
