/* The coop_gen handle: settings, and writing a bundle atomically. */
#include "gen.h"

#include <cooplink/version.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

coop_result coop_gen_create(coop_gen **gen)
{
  if (!gen) return COOP_ERROR_INVALID_VALUE;
  *gen = calloc(1, sizeof **gen);
  return *gen ? COOP_SUCCESS : COOP_ERROR_OUT_OF_MEMORY;
}

coop_result coop_gen_destroy(coop_gen **gen)
{
  if (!gen) return COOP_ERROR_INVALID_VALUE;
  coop_gen *g = *gen;
  if (!g) return COOP_SUCCESS;
  for (size_t i = 0; i < g->n_insts; ++i) free(g->insts[i].where);
  free(g->insts);
  free(g->name);
  coop__str_free(&g->log);
  free(g);
  *gen = NULL;
  return COOP_SUCCESS;
}

coop_result coop__set_name_at(coop_gen *gen, const char *name, const char *where)
{
  size_t n = strlen(name);
  int ok = n >= 1 && n <= 64 && name[0] >= 'a' && name[0] <= 'z';
  for (size_t i = 0; ok && i < n; ++i)
    ok = (name[i] >= 'a' && name[i] <= 'z') || (name[i] >= '0' && name[i] <= '9') || name[i] == '_';
  if (!ok) {
    coop__log(gen, "%s: invalid name '%s' (1 to 64 of a-z 0-9 _, starting with a letter)", where, name);
    return COOP_ERROR_SPEC_INVALID;
  }
  char *copy = coop__strdup(name);
  if (!copy) return COOP_ERROR_OUT_OF_MEMORY;
  free(gen->name);
  gen->name = copy;
  return COOP_SUCCESS;
}

coop_result coop_gen_set_name(coop_gen *gen, const char *name)
{
  if (!gen || !name) return COOP_ERROR_INVALID_VALUE;
  coop__str_clear(&gen->log);
  return coop__set_name_at(gen, name, "--name");
}

coop_result coop__set_archs_list(coop_gen *gen, const char *const *archs, const char *const *wheres, int n)
{
  int supported[32], n_supported = 0;
  coop_result rc = coop__nvrtc_archs(supported, &n_supported, 32);
  if (rc) {
    coop__log(gen, "NVRTC cannot list its supported architectures");
    return rc;
  }
  if (n == 0) {
    coop__log(gen, "%s: empty list of architectures", wheres ? wheres[0] : "--arch");
    return COOP_ERROR_SPEC_INVALID;
  }
  if (n > 32) {
    coop__log(gen, "%s: more than 32 architectures", wheres[0]);
    return COOP_ERROR_SPEC_INVALID;
  }
  int out[32];
  for (int i = 0; i < n; ++i) {
    int sm = coop__parse_sm(archs[i]);
    int ok = 0;
    for (int k = 0; k < n_supported; ++k) ok |= supported[k] == sm;
    if (!ok) {
      coop__str list = {0};
      for (int k = 0; k < n_supported; ++k) coop__str_printf(&list, "%ssm_%d", k ? " " : "", supported[k]);
      coop__log(gen, "%s: unsupported arch '%s' (this NVRTC supports: %s)", wheres[i], archs[i], coop__str_get(&list));
      coop__str_free(&list);
      return COOP_ERROR_SPEC_INVALID;
    }
    for (int k = 0; k < i; ++k)
      if (out[k] == sm) {
        coop__log(gen, "%s: duplicate arch '%s'", wheres[i], archs[i]);
        return COOP_ERROR_SPEC_INVALID;
      }
    out[i] = sm;
  }
  /* Sorted, so that the manifest does not depend on the order given. */
  for (int i = 1; i < n; ++i)
    for (int k = i; k > 0 && out[k - 1] > out[k]; --k) {
      int t = out[k];
      out[k] = out[k - 1];
      out[k - 1] = t;
    }
  memcpy(gen->archs, out, (size_t)n * sizeof *out);
  gen->n_archs = n;
  return COOP_SUCCESS;
}

coop_result coop_gen_set_archs(coop_gen *gen, const char *archs)
{
  if (!gen) return COOP_ERROR_INVALID_VALUE;
  coop__str_clear(&gen->log);
  if (!archs) {
    gen->n_archs = 0;
    return COOP_SUCCESS;
  }
  char *copy = coop__strdup(archs);
  if (!copy) return COOP_ERROR_OUT_OF_MEMORY;
  const char *texts[33], *wheres[33];
  int n = 0;
  coop_result rc = COOP_SUCCESS;
  size_t len = strlen(copy);
  if (len == 0 || copy[0] == ',' || copy[len - 1] == ',' || strstr(copy, ",,")) {
    coop__log(gen, "--arch: empty value in list '%s'", archs);
    rc = COOP_ERROR_SPEC_INVALID;
  }
  char *save = NULL;
  for (char *t = rc ? NULL : strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
    if (n == 33) break;
    texts[n] = t;
    wheres[n] = "--arch";
    ++n;
  }
  if (!rc) rc = coop__set_archs_list(gen, texts, wheres, n);
  free(copy);
  return rc;
}

coop_result coop_gen_set_ir(coop_gen *gen, const char *ir)
{
  if (!gen || !ir) return COOP_ERROR_INVALID_VALUE;
  coop__str_clear(&gen->log);
  if (strcmp(ir, "plain") != 0 && strcmp(ir, "optimized") != 0) {
    coop__log(gen, "--ir: '%s' is not plain or optimized", ir);
    return COOP_ERROR_SPEC_INVALID;
  }
  gen->ir_optimized = !strcmp(ir, "optimized");
  gen->ir_forced = 1;
  return COOP_SUCCESS;
}

coop_result coop_gen_get_symbol_count(const coop_gen *gen, size_t *count)
{
  if (!gen || !count) return COOP_ERROR_INVALID_VALUE;
  *count = gen->n_insts;
  return COOP_SUCCESS;
}

coop_result coop_gen_get_log_size(const coop_gen *gen, size_t *size)
{
  if (!gen || !size) return COOP_ERROR_INVALID_VALUE;
  *size = gen->log.len + 1;
  return COOP_SUCCESS;
}

coop_result coop_gen_get_log(const coop_gen *gen, char *log)
{
  if (!gen || !log) return COOP_ERROR_INVALID_VALUE;
  memcpy(log, coop__str_get(&gen->log), gen->log.len + 1);
  return COOP_SUCCESS;
}

static int by_symbol(const void *a, const void *b)
{
  return strcmp(((const coop__inst *)a)->symbol, ((const coop__inst *)b)->symbol);
}

coop_result coop_gen_get_source(coop_gen *gen, char **source)
{
  if (!gen || !source) return COOP_ERROR_INVALID_VALUE;
  if (gen->n_insts) qsort(gen->insts, gen->n_insts, sizeof *gen->insts, by_symbol); /* insts is NULL without requests */
  coop__str s = {0};
  coop__emit_source(&s, gen, 0);
  if (s.oom) {
    coop__str_free(&s);
    return COOP_ERROR_OUT_OF_MEMORY;
  }
  *source = s.p ? s.p : coop__strdup("");
  return *source ? COOP_SUCCESS : COOP_ERROR_OUT_OF_MEMORY;
}

/* A file of the bundle: final path, contents, temporary name once written. */
typedef struct out_file {
  char *path;
  const char *data;
  size_t size;
  char *tmp;
} out_file;

coop_result coop_gen_write(coop_gen *gen, const char *dir)
{
  if (!gen || !dir) return COOP_ERROR_INVALID_VALUE;
  coop__str_clear(&gen->log);
  if (!gen->name) {
    coop__log(gen, "the bundle has no name (--name or \"name\")");
    return COOP_ERROR_STATE;
  }
  if (gen->n_insts == 0) {
    coop__log(gen, "nothing to generate: no group was requested");
    return COOP_ERROR_STATE;
  }
  qsort(gen->insts, gen->n_insts, sizeof *gen->insts, by_symbol);
  gen->probed = 0; /* every write probes what it compiles */

  int archs[32];
  int n_archs = coop__effective_archs(gen, archs, 32);
  char *ltoir[32] = {0};
  size_t ltoir_size[32] = {0};
  char *pfiles[32] = {0}, *phash[32] = {0};
  out_file files[34];
  int n_files = 0;
  memset(files, 0, sizeof files);
  coop__str header = {0}, manifest = {0};
  char *mpath = NULL;

  coop_result rc = coop__compile(gen, ltoir, ltoir_size);
  if (rc) goto out;
  for (int i = 0; i < n_archs && !rc; ++i) {
    char name[128];
    snprintf(name, sizeof name, "%s.sm_%d.ltoir", gen->name, archs[i]);
    pfiles[i] = coop__strdup(name);
    phash[i] = malloc(65);
    if (!pfiles[i] || !phash[i]) rc = COOP_ERROR_OUT_OF_MEMORY;
    else coop__sha256_hex(ltoir[i], ltoir_size[i], phash[i]);
  }
  if (rc) goto out;
  coop__emit_header(&header, gen);
  char hname[128], hhash[65];
  snprintf(hname, sizeof hname, "%s.h", gen->name);
  coop__sha256_hex(coop__str_get(&header), header.len, hhash);
  coop__payload_desc descs[32];
  for (int i = 0; i < n_archs; ++i) descs[i] = (coop__payload_desc){0, archs[i], pfiles[i], phash[i], ltoir_size[i]};
  rc = coop__emit_manifest(&manifest, gen, hname, hhash, descs, n_archs);
  if (rc || header.oom) {
    rc = COOP_ERROR_OUT_OF_MEMORY;
    goto out;
  }
  rc = coop__mkdirs(dir);
  if (rc) {
    coop__log(gen, "%s: cannot create the output folder", dir);
    goto out;
  }
  for (int i = 0; i < n_archs; ++i) {
    files[n_files].path = coop__path_join(dir, pfiles[i]);
    files[n_files].data = ltoir[i];
    files[n_files].size = ltoir_size[i];
    ++n_files;
  }
  files[n_files].path = coop__path_join(dir, hname);
  files[n_files].data = coop__str_get(&header);
  files[n_files].size = header.len;
  ++n_files;
  char mname[128];
  snprintf(mname, sizeof mname, "%s.json", gen->name);
  files[n_files].path = mpath = coop__path_join(dir, mname);
  files[n_files].data = coop__str_get(&manifest);
  files[n_files].size = manifest.len;
  ++n_files;
  for (int i = 0; i < n_files; ++i)
    if (!files[i].path) {
      rc = COOP_ERROR_OUT_OF_MEMORY;
      goto out;
    }
  for (int i = 0; i < n_files && !rc; ++i) {
    rc = coop__write_temp(files[i].path, files[i].data, files[i].size, &files[i].tmp);
    if (rc) coop__log(gen, "%s: cannot write", files[i].path);
  }
  if (rc) goto out;
  /* The manifest is the commit point: drop the old one first, put the new one in place last. */
  if (unlink(mpath) != 0 && access(mpath, F_OK) == 0) {
    coop__log(gen, "%s: cannot replace the existing manifest", mpath);
    rc = COOP_ERROR_IO;
    goto out;
  }
  for (int i = 0; i < n_files && !rc; ++i) {
    if (rename(files[i].tmp, files[i].path) != 0) {
      coop__log(gen, "%s: cannot rename into place", files[i].path);
      rc = COOP_ERROR_IO;
      break;
    }
    free(files[i].tmp);
    files[i].tmp = NULL;
  }
out:
  for (int i = 0; i < n_files; ++i) {
    if (files[i].tmp) {
      unlink(files[i].tmp);
      free(files[i].tmp);
    }
    free(files[i].path);
  }
  for (int i = 0; i < 32; ++i) {
    free(ltoir[i]);
    free(pfiles[i]);
    free(phash[i]);
  }
  coop__str_free(&header);
  coop__str_free(&manifest);
  return rc;
}
