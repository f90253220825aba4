/* Writing a catalog: one small bundle per CUB instance ("unit"), so that a link adds only the units
 * of the symbols it calls, plus one index that maps every symbol to its unit.
 *
 * nvJitLink's time grows with every byte of IR it is given, used or not (bench/README.md): a link of
 * a kernel against one 192-wrapper bundle takes 3.5x the link against a bundle of the one wrapper it
 * calls, and nvJitLink takes every member of an archive, referenced or not. So a catalog's unit is
 * the smallest group that shares one CUB template instance: the variants of one family, type, op,
 * block shape, items and algorithm (load: plain + guarded; scan: exclusive, inclusive and both prefix
 * forms). Units are compiled by the toolkit's lean front end (lean.c), one process per unit and arch
 * in parallel, and packed one compressed fatbin per unit with an lto entry per arch.
 *
 *   <dir>/catalog.json     what a link reads at open: versions, archs, the header, unit naming, index hash
 *   <dir>/index.json       the whole catalog: the same, plus each unit's manifest hash and symbols
 *   <dir>/<name>.h         one C header for every symbol of the catalog
 *   <dir>/<unit>.json      each unit's manifest (format 2)
 *   <dir>/<unit>.fatbin    its payload (or <unit>.sm_XX.ltoir per arch where the toolkit has no fatbinary)
 *
 * catalog.json is written last: it is the commit point. Files of units that a previous build of the
 * same folder listed and this one does not are removed after it. */
#include "gen.h"

#include <cooplink/version.h>
#include <dirent.h>
#include <jansson.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct unit {
  char name[80];
  size_t first, count; /* a range of the sorted order */
  coop__payload_desc pay[32];
  int n_pay;
  char *files[33];      /* payload file names, malloc'd */
  char sha[32][65];
  char *manifest;       /* text */
  char manifest_sha[65];
} unit;

/* The unit of an instance: everything but the variant. ($COOPGEN_SINGLE_UNIT puts every symbol in one
 * unit: the baseline of bench/catalog_bench, a lean bundle holding exactly the symbols asked for.) */
static void unit_key(char *out, size_t size, const coop__inst *in, int per_symbol)
{
  const coop__family *f = &coop__families[in->fam];
  if (getenv("COOPGEN_SINGLE_UNIT")) {
    snprintf(out, size, "single");
    return;
  }
  if (per_symbol) { /* "units": "symbol": the symbol without its coop_ prefix */
    snprintf(out, size, "%s", in->symbol + 5);
    return;
  }
  char op[64], items[16] = "";
  coop__op_spelling(in, op, sizeof op);
  if (coop__has_items(f)) snprintf(items, sizeof items, "_i%d", in->items);
  /* <family>[_<op>]_<type>[_<value type>]_<geometry>[_i<items>][_<algorithm>] */
  char extra[16] = "";
  if (f->extra) snprintf(extra, sizeof extra, "_%c%d", f->extra[0], in->extra);
  snprintf(out, size, "%s%s%s_%s%s%s_%s%s%s%s%s", f->name, in->op >= 0 ? "_" : "", op, coop__tcode(in),
           in->vtype >= 0 ? "_" : "", coop__vcode(in), in->geom, items, in->algo >= 0 ? "_" : "",
           in->algo >= 0 ? f->algos[in->algo].name : "", extra);
}

/* A unit's bundle name: its key, or for a key longer than a bundle name may be, a prefix and a hash. */
static void unit_name(char *out, size_t size, const char *key)
{
  if (strlen(key) > 64) {
    char hex[65];
    coop__sha256_hex(key, strlen(key), hex);
    snprintf(out, size, "%.47s_%.16s", key, hex);
  } else {
    snprintf(out, size, "%s", key);
  }
}

coop_result coop_gen_unit_of_symbol(const char *symbol, int per_symbol, char *unit, size_t size)
{
  if (!symbol || !unit || size < 81) return COOP_ERROR_INVALID_VALUE;
  coop_gen *g = NULL;
  coop_result rc = coop_gen_create(&g);
  if (!rc) g->names_only = 1; /* a unit's name does not depend on a user type's size */
  if (!rc) rc = coop_gen_add_symbol(g, symbol);
  if (!rc && g->n_insts != 1) rc = COOP_ERROR_SPEC_INVALID;
  if (!rc) {
    char key[192];
    unit_key(key, sizeof key, &g->insts[0], per_symbol);
    unit_name(unit, size, key);
  }
  coop_gen_destroy(&g);
  return rc;
}

typedef struct sort_ctx {
  const coop__inst *insts;
  int per_symbol;
} sort_ctx;

static int by_unit(const void *a, const void *b, void *ctx)
{
  char ka[192], kb[192];
  const sort_ctx *sc = ctx;
  const coop__inst *x = &sc->insts[*(const size_t *)a], *y = &sc->insts[*(const size_t *)b];
  unit_key(ka, sizeof ka, x, sc->per_symbol);
  unit_key(kb, sizeof kb, y, sc->per_symbol);
  int c = strcmp(ka, kb);
  return c ? c : strcmp(x->symbol, y->symbol);
}

/* A view of some instances as a coop_gen, for the emitters. */
static void sub_gen(coop_gen *sub, const coop_gen *gen, coop__inst *insts, size_t n, const char *name)
{
  memset(sub, 0, sizeof *sub);
  sub->name = (char *)name;
  memcpy(sub->archs, gen->archs, sizeof gen->archs);
  sub->n_archs = gen->n_archs;
  sub->insts = insts;
  sub->n_insts = n;
  sub->nvrtc_major = gen->nvrtc_major;
  sub->nvrtc_minor = gen->nvrtc_minor;
  sub->cccl_version = gen->cccl_version;
  sub->ir_optimized = gen->ir_optimized;
  sub->probed = 1;
}

typedef struct job {
  int kind; /* 0 preprocess (fam, arch); 1 compile (unit, arch); 2 fatbin (unit) */
  int fam, arch_i;
  size_t unit;
  coop_result rc;
  coop__str log;
} job;

typedef struct build {
  coop_gen *gen;
  coop__inst *insts; /* sorted by unit */
  unit *units;
  size_t n_units;
  int archs[32], n_archs, lean, fatbin;
  coop__lean lean_tc[32];
  char *work;
  /* the preprocessed header of each family, and of all of them ([COOP__FAM_COUNT]) for mixed units */
  char *header_ii[COOP__FAM_COUNT + 1][32];
  size_t header_ii_size[COOP__FAM_COUNT + 1][32];
  job *jobs;
  size_t n_jobs;
  atomic_size_t next;
  atomic_int failed;
} build;

static char *workpath(const build *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static char *workpath(const build *b, const char *fmt, ...)
{
  coop__str s = {0};
  coop__str_printf(&s, "%s/", b->work);
  va_list ap;
  va_start(ap, fmt);
  coop__str_vprintf(&s, fmt, ap);
  va_end(ap);
  if (s.oom) {
    coop__str_free(&s);
    return NULL;
  }
  return s.p;
}

static coop_result write_file(const char *path, const void *data, size_t size)
{
  FILE *f = fopen(path, "wb");
  if (!f) return COOP_ERROR_IO;
  int ok = fwrite(data, 1, size, f) == size;
  ok &= fclose(f) == 0;
  return ok ? COOP_SUCCESS : COOP_ERROR_IO;
}

/* The family whose header a unit needs, or COOP__FAM_COUNT when it mixes families. */
static int unit_family(const build *b, const unit *u)
{
  int fam = b->insts[u->first].fam;
  for (size_t k = 1; k < u->count; ++k)
    if (b->insts[u->first + k].fam != fam) return COOP__FAM_COUNT;
  return fam;
}

/* The stub each family's header is preprocessed from: one file per family (and "all" for mixed units),
 * written before any job runs, since the jobs of every arch read it at once. */
static char *stub_path(const build *b, int fam)
{
  return workpath(b, "coopgen_%s.cu", fam < COOP__FAM_COUNT ? coop__families[fam].name : "all");
}

static coop_result write_stub(const build *b, int fam)
{
  char *src = stub_path(b, fam);
  if (!src) return COOP_ERROR_OUT_OF_MEMORY;
  coop__str text = {0};
  for (int f = 0; f < COOP__FAM_COUNT; ++f)
    if (f == fam || fam == COOP__FAM_COUNT) coop__str_printf(&text, "#include \"%s\"\n", coop__families[f].header);
  coop_result rc = text.oom ? COOP_ERROR_OUT_OF_MEMORY : write_file(src, coop__str_get(&text), text.len);
  if (rc) coop__log(b->gen, "%s: cannot write", src);
  coop__str_free(&text);
  free(src);
  return rc;
}

static void run_preprocess(build *b, job *j)
{
  int arch = b->archs[j->arch_i];
  char *src = stub_path(b, j->fam);
  char *out = workpath(b, "%s.sm_%d.ii", j->fam < COOP__FAM_COUNT ? coop__families[j->fam].name : "all", arch);
  if (!src || !out) j->rc = COOP_ERROR_OUT_OF_MEMORY;
  /* by its name in the work folder: the path is written into the preprocessed text */
  if (!j->rc) j->rc = coop__lean_preprocess(&b->lean_tc[j->arch_i], b->work, strrchr(src, '/') + 1, out, &j->log);
  if (!j->rc)
    j->rc = coop__read_file(out, &b->header_ii[j->fam][j->arch_i], &b->header_ii_size[j->fam][j->arch_i]);
  if (out) unlink(out);
  free(src);
  free(out);
}

static void run_compile(build *b, job *j)
{
  unit *u = &b->units[j->unit];
  int arch = b->archs[j->arch_i];
  coop_gen sub;
  sub_gen(&sub, b->gen, b->insts + u->first, u->count, u->name);
  char *jobdir = workpath(b, "%s.sm_%d.d", u->name, arch);
  char *ii = workpath(b, "%s.sm_%d.d/unit.ii", u->name, arch);
  char *ltoir = workpath(b, "%s.sm_%d.ltoir", u->name, arch);
  if (!jobdir || !ii || !ltoir || mkdir(jobdir, 0777) != 0) j->rc = jobdir && ii && ltoir ? COOP_ERROR_IO : COOP_ERROR_OUT_OF_MEMORY;
  if (!j->rc && b->lean) {
    int fam = unit_family(b, u);
    coop__str tail = {0};
    coop__str_printf(&tail, "\n# 1 \"coopgen_unit.cu\"\n");
    coop__emit_wrappers(&tail, &sub, 1, 1);
    FILE *f = fopen(ii, "wb");
    int ok = f && fwrite(b->header_ii[fam][j->arch_i], 1, b->header_ii_size[fam][j->arch_i], f) ==
                    b->header_ii_size[fam][j->arch_i];
    ok = ok && fwrite(coop__str_get(&tail), 1, tail.len, f) == tail.len && !tail.oom;
    if (f) ok &= fclose(f) == 0;
    const int oom = tail.oom;
    coop__str_free(&tail);
    j->rc = ok ? coop__lean_compile(&b->lean_tc[j->arch_i], jobdir, ii, ltoir, &j->log)
               : oom ? COOP_ERROR_OUT_OF_MEMORY : COOP_ERROR_IO;
    if (!getenv("COOPGEN_KEEP_WORK")) unlink(ii);
  } else if (!j->rc) {
    /* no nvcc front end: NVRTC, one module per unit and arch (larger: its weak globals stay) */
    sub.n_archs = 1;
    sub.archs[0] = arch;
    char *ir[32] = {0};
    size_t size[32] = {0};
    j->rc = coop__compile(&sub, ir, size);
    coop__str_add(&j->log, coop__str_get(&sub.log));
    coop__str_free(&sub.log);
    if (!j->rc) j->rc = write_file(ltoir, ir[0], size[0]);
    free(ir[0]);
  }
  if (j->rc) coop__str_printf(&j->log, "unit %s, sm_%d: compile failed\n", u->name, arch);
  free(jobdir);
  free(ii);
  free(ltoir);
}

static void run_fatbin(build *b, job *j)
{
  unit *u = &b->units[j->unit];
  char *paths[32] = {0};
  char *out = workpath(b, "%s.fatbin", u->name);
  int ok = out != NULL;
  for (int i = 0; i < b->n_archs && ok; ++i) ok = (paths[i] = workpath(b, "%s.sm_%d.ltoir", u->name, b->archs[i])) != NULL;
  j->rc = ok ? coop__fatbinary(out, b->archs, paths, b->n_archs, b->work, &j->log) : COOP_ERROR_OUT_OF_MEMORY;
  for (int i = 0; i < b->n_archs; ++i) free(paths[i]);
  free(out);
}

static void *worker(void *arg)
{
  build *b = arg;
  for (;;) {
    size_t i = atomic_fetch_add(&b->next, 1);
    if (i >= b->n_jobs) return NULL;
    job *j = &b->jobs[i];
    if (atomic_load(&b->failed)) {
      j->rc = COOP_ERROR_STATE; /* not run: an earlier job failed */
      continue;
    }
    if (j->kind == 0) run_preprocess(b, j);
    else if (j->kind == 1) run_compile(b, j);
    else run_fatbin(b, j);
    if (j->rc) atomic_store(&b->failed, 1);
  }
}

/* Runs jobs [from, to) of b on the pool; the first failure's log goes to the handle. */
static coop_result run_jobs(build *b, size_t from, size_t to)
{
  b->next = from;
  size_t end = b->n_jobs;
  b->n_jobs = to;
  int threads = coop__job_count((int)(to - from > 1024 ? 1024 : to - from));
  pthread_t tids[256];
  int started = 0;
  for (int t = 1; t < threads && t < 256; ++t)
    if (pthread_create(&tids[started], NULL, worker, b) == 0) ++started;
  worker(b);
  for (int t = 0; t < started; ++t) pthread_join(tids[t], NULL);
  b->n_jobs = end;
  for (size_t i = from; i < to; ++i)
    if (b->jobs[i].rc && b->jobs[i].rc != COOP_ERROR_STATE) {
      coop__str_add(&b->gen->log, coop__str_get(&b->jobs[i].log));
      return b->jobs[i].rc;
    }
  return atomic_load(&b->failed) ? COOP_ERROR_STATE : COOP_SUCCESS;
}

/* Puts data at dir/name atomically (temporary file, then rename). */
static coop_result put(coop_gen *gen, const char *dir, const char *name, const void *data, size_t size)
{
  char *path = coop__path_join(dir, name), *tmp = NULL;
  if (!path) return COOP_ERROR_OUT_OF_MEMORY;
  coop_result rc = coop__write_temp(path, data, size, &tmp);
  if (!rc && rename(tmp, path) != 0) rc = COOP_ERROR_IO;
  if (rc) {
    coop__log(gen, "%s: cannot write", path);
    if (tmp) unlink(tmp);
  }
  free(tmp);
  free(path);
  return rc;
}

/* The files of the units a previous index.json of dir lists (each unit's manifest and the payloads it
 * names), one per line, to remove those the new index no longer lists. */
static void old_files(const char *dir, coop__str *names)
{
  char *path = coop__path_join(dir, "index.json");
  json_t *idx = path ? json_load_file(path, 0, NULL) : NULL;
  free(path);
  size_t i;
  json_t *b;
  json_array_foreach(json_object_get(idx, "bundles"), i, b)
  {
    const char *name = json_string_value(json_object_get(b, "name"));
    if (!name || strchr(name, '/')) continue;
    coop__str_printf(names, "%s.json\n", name);
    char *mp = coop__path_join(dir, name);
    coop__str m = {0};
    coop__str_printf(&m, "%s.json", mp ? mp : "");
    json_t *man = json_load_file(coop__str_get(&m), 0, NULL);
    size_t k;
    json_t *p;
    json_array_foreach(json_object_get(man, "payloads"), k, p)
    {
      const char *f = json_string_value(json_object_get(p, "file"));
      if (f && !strchr(f, '/')) coop__str_printf(names, "%s\n", f);
    }
    json_decref(man);
    coop__str_free(&m);
    free(mp);
  }
  json_decref(idx);
}

static coop_result write_catalog_files(build *b, const char *dir)
{
  coop_gen *gen = b->gen;
  coop__str header = {0}, stale = {0};
  coop_result rc = COOP_SUCCESS;
  char hname[96], hhash[65];
  snprintf(hname, sizeof hname, "%s.h", gen->name);
  coop_gen all;
  sub_gen(&all, gen, gen->insts, gen->n_insts, gen->name); /* gen->insts are sorted by symbol */
  coop__emit_header(&header, &all);
  if (header.oom) return COOP_ERROR_OUT_OF_MEMORY;
  coop__sha256_hex(coop__str_get(&header), header.len, hhash);
  old_files(dir, &stale);
  json_t *index = json_object(), *jb = json_array(), *jarchs = json_array();
  for (int i = 0; i < b->n_archs; ++i) {
    char a[16];
    snprintf(a, sizeof a, "sm_%d", b->archs[i]);
    json_array_append_new(jarchs, json_string(a));
  }
  for (size_t ui = 0; ui < b->n_units && !rc; ++ui) {
    unit *u = &b->units[ui];
    /* payloads */
    if (b->fatbin) {
      char *src = workpath(b, "%s.fatbin", u->name);
      char *data = NULL;
      size_t size = 0;
      rc = src ? coop__read_file(src, &data, &size) : COOP_ERROR_OUT_OF_MEMORY;
      free(src);
      if (!rc) {
        u->files[0] = malloc(strlen(u->name) + 8);
        if (!u->files[0]) rc = COOP_ERROR_OUT_OF_MEMORY;
        else sprintf(u->files[0], "%s.fatbin", u->name);
      }
      if (!rc) {
        coop__sha256_hex(data, size, u->sha[0]);
        u->pay[0] = (coop__payload_desc){1, 0, u->files[0], u->sha[0], size};
        u->n_pay = 1;
        rc = put(gen, dir, u->files[0], data, size);
      }
      free(data);
    } else {
      for (int i = 0; i < b->n_archs && !rc; ++i) {
        char *src = workpath(b, "%s.sm_%d.ltoir", u->name, b->archs[i]);
        char *data = NULL;
        size_t size = 0;
        rc = src ? coop__read_file(src, &data, &size) : COOP_ERROR_OUT_OF_MEMORY;
        free(src);
        if (!rc && !(u->files[i] = malloc(strlen(u->name) + 24))) rc = COOP_ERROR_OUT_OF_MEMORY;
        if (!rc) {
          sprintf(u->files[i], "%s.sm_%d.ltoir", u->name, b->archs[i]);
          coop__sha256_hex(data, size, u->sha[i]);
          u->pay[i] = (coop__payload_desc){0, b->archs[i], u->files[i], u->sha[i], size};
          u->n_pay = i + 1;
          rc = put(gen, dir, u->files[i], data, size);
        }
        free(data);
      }
    }
    if (rc) break;
    coop_gen sub;
    sub_gen(&sub, gen, b->insts + u->first, u->count, u->name);
    coop__str m = {0};
    rc = coop__emit_manifest(&m, &sub, hname, hhash, u->pay, u->n_pay);
    char mname[96];
    snprintf(mname, sizeof mname, "%s.json", u->name);
    if (!rc) {
      coop__sha256_hex(coop__str_get(&m), m.len, u->manifest_sha);
      rc = put(gen, dir, mname, coop__str_get(&m), m.len);
    }
    coop__str_free(&m);
    json_t *o = json_object(), *syms = json_array();
    json_object_set_new(o, "name", json_string(u->name));
    json_object_set_new(o, "manifest_sha256", json_string(u->manifest_sha));
    for (size_t k = 0; k < u->count; ++k) json_array_append_new(syms, json_string(b->insts[u->first + k].symbol));
    json_object_set_new(o, "symbols", syms);
    json_array_append_new(jb, o);
  }
  if (!rc) rc = put(gen, dir, hname, coop__str_get(&header), header.len);
  if (!rc) {
    char ver[32];
    json_object_set_new(index, "format", json_integer(2));
    json_object_set_new(index, "kind", json_string("cooplink-catalog"));
    json_object_set_new(index, "name", json_string(gen->name));
    json_object_set_new(index, "cooplink_version", json_string(COOP_VERSION_STRING));
    snprintf(ver, sizeof ver, "%d.%d", gen->nvrtc_major, gen->nvrtc_minor);
    json_object_set_new(index, "cuda_version", json_string(ver));
    snprintf(ver, sizeof ver, "%d.%d.%d", gen->cccl_version / 1000000, gen->cccl_version / 1000 % 1000,
             gen->cccl_version % 1000);
    json_object_set_new(index, "cccl_version", json_string(ver));
    json_object_set_new(index, "compiler", json_string(b->lean ? "cicc" : "nvrtc"));
    json_object_set_new(index, "archs", jarchs);
    jarchs = NULL;
    json_t *h = json_object();
    json_object_set_new(h, "file", json_string(hname));
    json_object_set_new(h, "sha256", json_string(hhash));
    json_object_set_new(index, "header", h);
    json_object_set_new(index, "bundles", jb);
    jb = NULL;
    /* compact: tools parse the whole index (the runtime only when asked for the list) */
    char *text = json_dumps(index, JSON_COMPACT | JSON_PRESERVE_ORDER);
    char isha[65] = "";
    if (!text) rc = COOP_ERROR_OUT_OF_MEMORY;
    else {
      coop__str t = {0};
      coop__str_add(&t, text);
      coop__str_add(&t, "\n");
      coop__sha256_hex(coop__str_get(&t), t.len, isha);
      rc = t.oom ? COOP_ERROR_OUT_OF_MEMORY : put(gen, dir, "index.json", t.p, t.len);
      coop__str_free(&t);
    }
    free(text);
    /* catalog.json, last: the commit point, and all a link reads at open (the index's metadata, its hash,
     * and how units are named, so that a symbol's unit is found from its name alone) */
    if (!rc) {
      json_t *cat = json_object();
      const char *keys[] = {"format", "kind", "name", "cooplink_version", "cuda_version", "cccl_version", "compiler",
                            "archs", "header"};
      for (size_t k = 0; k < sizeof keys / sizeof *keys; ++k)
        json_object_set(cat, keys[k], json_object_get(index, keys[k]));
      json_object_set_new(cat, "units", json_string(getenv("COOPGEN_SINGLE_UNIT") ? "single" : gen->unit_per_symbol ? "symbol" : "instance"));
      json_object_set_new(cat, "ir", json_string(gen->ir_optimized ? "optimized" : "plain"));
      json_object_set_new(cat, "bundles", json_integer((json_int_t)b->n_units));
      json_object_set_new(cat, "symbols", json_integer((json_int_t)gen->n_insts));
      json_object_set_new(cat, "index_sha256", json_string(isha));
      char *ct = json_dumps(cat, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
      json_decref(cat);
      coop__str t = {0};
      coop__str_add(&t, ct ? ct : "");
      coop__str_add(&t, "\n");
      rc = !ct || t.oom ? COOP_ERROR_OUT_OF_MEMORY : put(gen, dir, "catalog.json", t.p, t.len);
      coop__str_free(&t);
      free(ct);
    }
  }
  /* after the commit: drop files of units the new index no longer lists */
  if (!rc && stale.len) {
    for (char *s = stale.p, *nl; s && *s; s = nl + 1) {
      nl = strchr(s, '\n');
      if (!nl) break;
      *nl = 0;
      int listed = !strcmp(s, "index.json") || !strcmp(s, "catalog.json") || !strcmp(s, hname);
      for (size_t ui = 0; ui < b->n_units && !listed; ++ui) {
        const unit *u = &b->units[ui];
        size_t n = strlen(u->name);
        listed = !strncmp(s, u->name, n) && (!strcmp(s + n, ".json") || !strcmp(s + n, ".fatbin") ||
                                              !strncmp(s + n, ".sm_", 4));
      }
      if (!listed) {
        char *p = coop__path_join(dir, s);
        if (p) unlink(p);
        free(p);
      }
    }
  }
  json_decref(index);
  json_decref(jb);
  json_decref(jarchs);
  coop__str_free(&header);
  coop__str_free(&stale);
  return rc;
}

static int by_symbol(const void *a, const void *b)
{
  return strcmp(((const coop__inst *)a)->symbol, ((const coop__inst *)b)->symbol);
}

coop_result coop_gen_write_catalog(coop_gen *gen, const char *dir)
{
  if (!gen || !dir) return COOP_ERROR_INVALID_VALUE;
  coop__str_clear(&gen->log);
  if (!gen->name) {
    coop__log(gen, "the catalog has no name (--name or \"name\")");
    return COOP_ERROR_STATE;
  }
  if (gen->n_insts == 0) {
    coop__log(gen, "nothing to generate: no group was requested");
    return COOP_ERROR_STATE;
  }
  qsort(gen->insts, gen->n_insts, sizeof *gen->insts, by_symbol);
  build b;
  memset(&b, 0, sizeof b);
  b.gen = gen;
  b.n_archs = coop__effective_archs(gen, b.archs, 32);
  size_t *order = calloc(gen->n_insts, sizeof *order);
  b.insts = calloc(gen->n_insts, sizeof *b.insts);
  b.units = calloc(gen->n_insts, sizeof *b.units);
  coop_result rc = order && b.insts && b.units ? COOP_SUCCESS : COOP_ERROR_OUT_OF_MEMORY;
  gen->probed = 0;
  if (!rc) rc = coop__probe_all(gen);
  if (!rc) {
    for (size_t i = 0; i < gen->n_insts; ++i) order[i] = i;
    sort_ctx sc = {gen->insts, gen->unit_per_symbol};
    qsort_r(order, gen->n_insts, sizeof *order, by_unit, &sc);
    char prev[192] = "";
    for (size_t i = 0; i < gen->n_insts; ++i) {
      b.insts[i] = gen->insts[order[i]];
      char key[192];
      unit_key(key, sizeof key, &b.insts[i], gen->unit_per_symbol);
      if (strcmp(key, prev) != 0) {
        unit *u = &b.units[b.n_units++];
        unit_name(u->name, sizeof u->name, key);
        u->first = i;
        snprintf(prev, sizeof prev, "%s", key);
      }
      b.units[b.n_units - 1].count++;
    }
  }
  const char *tmp = getenv("TMPDIR");
  if (!rc) {
    b.work = coop__path_join(tmp && *tmp ? tmp : "/tmp", "coopgen-catalog.XXXXXX");
    if (!b.work) rc = COOP_ERROR_OUT_OF_MEMORY;
    else if (!mkdtemp(b.work)) {
      coop__log(gen, "%s: cannot create a work folder", b.work);
      free(b.work);
      b.work = NULL;
      rc = COOP_ERROR_IO;
    }
  }
  /* the primitives, for the device preprocessor */
  for (int i = 0; !rc && i < coop__n_primitives; ++i) {
    char *p = coop__path_join(b.work, coop__primitives[i].name);
    rc = p ? write_file(p, coop__primitives[i].text, strlen(coop__primitives[i].text)) : COOP_ERROR_OUT_OF_MEMORY;
    free(p);
  }
  /* the lean front end where the toolkit has nvcc and a host preprocessor; else NVRTC */
  if (!rc) {
    coop__str why = {0};
    b.lean = getenv("COOPGEN_NVRTC_ONLY") == NULL;
    for (int i = 0; i < b.n_archs && b.lean; ++i)
      if (coop__lean_init(&b.lean_tc[i], b.archs[i], b.work, gen->ir_optimized, &why) != COOP_SUCCESS) b.lean = 0;
    if (!b.lean && why.len) coop__log(gen, "note: NVRTC compiles the catalog: %s", coop__str_get(&why));
    coop__str_free(&why);
    b.fatbin = coop__fatbinary_available();
  }
  int used[COOP__FAM_COUNT + 1] = {0};
  for (size_t u = 0; u < b.n_units; ++u) used[unit_family(&b, &b.units[u])] = 1;
  size_t n_jobs = (size_t)b.n_archs * (COOP__FAM_COUNT + 1 + b.n_units) + b.n_units;
  b.jobs = rc ? NULL : calloc(n_jobs, sizeof *b.jobs);
  if (!rc && !b.jobs) rc = COOP_ERROR_OUT_OF_MEMORY;
  size_t n_pre = 0, n_comp = 0;
  if (!rc) {
    /* preprocessing first, then the compiles largest unit first (they take the longest), then fatbins */
    for (int f = 0; f <= COOP__FAM_COUNT && b.lean && !rc; ++f)
      if (used[f]) rc = write_stub(&b, f);
    for (int f = 0; f <= COOP__FAM_COUNT && b.lean; ++f)
      for (int a = 0; a < b.n_archs && used[f]; ++a) b.jobs[b.n_jobs++] = (job){.kind = 0, .fam = f, .arch_i = a};
    n_pre = b.n_jobs;
    for (size_t u = 0; u < b.n_units; ++u)
      for (int a = 0; a < b.n_archs; ++a) b.jobs[b.n_jobs++] = (job){.kind = 1, .unit = u, .arch_i = a};
    n_comp = b.n_jobs;
    for (size_t u = 0; u < b.n_units && b.fatbin; ++u) b.jobs[b.n_jobs++] = (job){.kind = 2, .unit = u};
    if (!rc) rc = run_jobs(&b, 0, n_pre);
  }
  if (!rc) rc = run_jobs(&b, n_pre, n_comp);
  if (!rc) rc = run_jobs(&b, n_comp, b.n_jobs);
  if (!rc) {
    rc = coop__mkdirs(dir);
    if (rc) coop__log(gen, "%s: cannot create the output folder", dir);
  }
  if (!rc) rc = write_catalog_files(&b, dir);

  for (size_t i = 0; b.jobs && i < b.n_jobs; ++i) coop__str_free(&b.jobs[i].log);
  free(b.jobs);
  for (int a = 0; a < 32; ++a) {
    coop__lean_free(&b.lean_tc[a]);
    for (int f = 0; f <= COOP__FAM_COUNT; ++f) free(b.header_ii[f][a]);
  }
  for (size_t u = 0; b.units && u < b.n_units; ++u)
    for (int i = 0; i < 33; ++i) free(b.units[u].files[i]);
  if (b.work) {
    if (!getenv("COOPGEN_KEEP_WORK")) coop__remove_tree(b.work);
    free(b.work);
  }
  free(b.units);
  free(b.insts);
  free(order);
  return rc;
}

coop_result coop_gen_get_unit_count(coop_gen *gen, size_t *count)
{
  if (!gen || !count) return COOP_ERROR_INVALID_VALUE;
  size_t *order = calloc(gen->n_insts + 1, sizeof *order);
  if (!order) return COOP_ERROR_OUT_OF_MEMORY;
  for (size_t i = 0; i < gen->n_insts; ++i) order[i] = i;
  sort_ctx sc = {gen->insts, gen->unit_per_symbol};
  qsort_r(order, gen->n_insts, sizeof *order, by_unit, &sc);
  size_t n = 0;
  char prev[192] = "";
  for (size_t i = 0; i < gen->n_insts; ++i) {
    char key[192];
    unit_key(key, sizeof key, &gen->insts[order[i]], gen->unit_per_symbol);
    if (strcmp(key, prev) != 0) ++n;
    snprintf(prev, sizeof prev, "%s", key);
  }
  free(order);
  *count = n;
  return COOP_SUCCESS;
}
