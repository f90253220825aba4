/* Requests: spec files (JSON/YAML through libyaml, which keeps every value's line and column) and
 * flag-style groups, validated completely before anything is kept. */
#include "gen.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#define MAX_VALUES 256

typedef struct sval {
  const char *text;
  char where[256];
} sval;

typedef struct slist {
  sval v[MAX_VALUES];
  int n;
  int given;
  char where[256]; /* of the key, or the flag */
} slist;

enum { F_FAMILY, F_TYPE, F_OP, F_THREADS, F_ITEMS, F_ALGORITHM, F_VARIANT, F_WARP, F_VALUES, F_BINS, F_DECODED, F_COUNT };
static const char *const field_names[F_COUNT] = {"family", "type",    "op",   "threads", "items",
                                                 "algorithm", "variant", "warp", "values", "bins", "decoded"};

typedef struct sgroup {
  slist f[F_COUNT];
  int flags; /* from flags: name fields "--type" */
  char where[512];
} sgroup;

void coop__log(coop_gen *gen, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  coop__str_vprintf(&gen->log, fmt, ap);
  va_end(ap);
  coop__str_add(&gen->log, "\n");
}

static const char *fname(const sgroup *g, int f, char buf[32])
{
  snprintf(buf, 32, g->flags ? "--%s" : "'%s'", field_names[f]);
  return buf;
}

static int find_name(const char *text, const char *const *names, size_t stride, int n)
{
  for (int i = 0; i < n; ++i) {
    const char *name = *(const char *const *)((const char *)names + stride * (size_t)i);
    if (strcmp(text, name) == 0) return i;
  }
  return -1;
}

static void list_names(coop__str *s, const void *table, size_t stride, int n)
{
  for (int i = 0; i < n; ++i) {
    const char *name = *(const char *const *)((const char *)table + stride * (size_t)i);
    coop__str_printf(s, "%s%s", i ? " " : "", name);
  }
}

/* "256", "16x16", "32x4x2" -> sizes; 0 on a malformed text, -1 when out of range. */
static int parse_threads(const char *text, int dims[3])
{
  dims[0] = dims[1] = dims[2] = 1;
  int k = 0;
  const char *p = text;
  while (1) {
    if (*p < '0' || *p > '9') return 0;
    long v = 0;
    while (*p >= '0' && *p <= '9') {
      v = v * 10 + (*p - '0');
      if (v > 100000) v = 100000;
      ++p;
    }
    dims[k++] = (int)v;
    if (*p == 0) break;
    if (*p != 'x' || k == 3) return 0;
    ++p;
  }
  long total = (long)dims[0] * dims[1] * dims[2];
  if (dims[0] < 1 || dims[1] < 1 || dims[2] < 1 || total > 1024 || dims[2] > 64) return -1;
  return 1;
}

static int parse_int(const char *text, int *out)
{
  if (!*text) return 0;
  long v = 0;
  for (const char *p = text; *p; ++p) {
    if (*p < '0' || *p > '9') return 0;
    v = v * 10 + (*p - '0');
    if (v > 1000000) v = 1000000;
  }
  *out = (int)v;
  return 1;
}

typedef struct parsed {
  int fam;
  char custom[MAX_VALUES][48]; /* the name of ops[i] == COOP__OP_CUSTOM + i */
  int types[MAX_VALUES], ops[MAX_VALUES], threads[MAX_VALUES][3], items[MAX_VALUES], algos[MAX_VALUES],
    variants[MAX_VALUES], vtypes[MAX_VALUES], extras[MAX_VALUES];
  int n_types, n_ops, n_threads, n_items, n_algos, n_variants, n_vtypes, n_extras;
} parsed;

static int valid_op_type(int op, int type)
{
  if (type >= coop__n_types) return op >= COOP__OP_CUSTOM; /* opaque: no arithmetic of ours */
  return op >= COOP__OP_CUSTOM || !coop__ops[op].bitwise || coop__types[type].is_int;
}

static const char *type_code(const coop_gen *gen, int t)
{
  return t >= coop__n_types ? gen->utypes[t - coop__n_types].name : coop__types[t].code;
}

/* Declares a user type (where names the request in messages); the same declaration twice is one. */
static coop_result add_utype(coop_gen *gen, const char *name, long long size, long long align, const char *where)
{
  size_t len = strlen(name);
  int ok = len >= 1 && len <= 24 && name[0] >= 'a' && name[0] <= 'z';
  for (size_t c = 0; ok && c < len; ++c) ok = (name[c] >= 'a' && name[c] <= 'z') || (name[c] >= '0' && name[c] <= '9');
  if (!ok) {
    coop__log(gen, "%s: invalid type name '%s' (1 to 24 of a-z 0-9, starting with a letter: it is the type's code "
              "in symbols, which use _ as the separator)", where, name);
    return COOP_ERROR_SPEC_INVALID;
  }
  for (int t = 0; t < coop__n_types; ++t)
    if (!strcmp(coop__types[t].code, name)) {
      coop__log(gen, "%s: type name '%s' is a built-in type's code", where, name);
      return COOP_ERROR_SPEC_INVALID;
    }
  if (size < 1 || size > 1024) {
    coop__log(gen, "%s: type '%s': size %lld out of range (1 to 1024 bytes)", where, name, size);
    return COOP_ERROR_SPEC_INVALID;
  }
  if (align < 1 || align > 256 || (align & (align - 1))) {
    coop__log(gen, "%s: type '%s': alignment %lld is not a power of two from 1 to 256", where, name, align);
    return COOP_ERROR_SPEC_INVALID;
  }
  if (size % align) {
    coop__log(gen, "%s: type '%s': size %lld is not a multiple of its alignment %lld (a C type's size always is)",
              where, name, size, align);
    return COOP_ERROR_SPEC_INVALID;
  }
  for (int i = 0; i < gen->n_utypes; ++i) {
    const coop__utype *u = &gen->utypes[i];
    if (strcmp(u->name, name)) continue;
    if (u->size == size && u->align == align) return COOP_SUCCESS;
    coop__log(gen, "%s: type '%s' is already declared with size %u and alignment %u", where, name, u->size, u->align);
    return COOP_ERROR_SPEC_INVALID;
  }
  if (gen->n_utypes == COOP__MAX_USER_TYPES) {
    coop__log(gen, "%s: more than %d user types", where, COOP__MAX_USER_TYPES);
    return COOP_ERROR_SPEC_INVALID;
  }
  coop__utype *u = &gen->utypes[gen->n_utypes++];
  memset(u, 0, sizeof *u);
  snprintf(u->name, sizeof u->name, "%s", name);
  snprintf(u->cpp, sizeof u->cpp, "coop_user_%s", name);
  snprintf(u->ctype, sizeof u->ctype, "COOP_TYPE_%s", name);
  for (char *c = u->ctype; *c; ++c) *c = (char)(*c >= 'a' && *c <= 'z' ? *c - 'a' + 'A' : *c);
  u->size = (unsigned)size;
  u->align = (unsigned)align;
  return COOP_SUCCESS;
}

coop_result coop_gen_add_type(coop_gen *gen, const char *name, size_t size, size_t align)
{
  if (!gen || !name) return COOP_ERROR_INVALID_VALUE;
  coop__str_clear(&gen->log);
  return add_utype(gen, name, size > 4096 ? 4096 : (long long)size, align > 4096 ? 4096 : (long long)align,
                   "coop_gen_add_type");
}
/* CUB's commutative-only algorithms reorder operands: a custom operator is not known to commute. */
static int valid_algo_op(const coop__family *fam, int algo, int op)
{
  return op < COOP__OP_CUSTOM || algo < 0 || strcmp(fam->algos[algo].name, "raking_comm") != 0;
}
static int valid_algo_threads(const coop__family *fam, int algo, const int t[3])
{
  return algo < 0 || !fam->algos[algo].warp_multiple || (t[0] * t[1] * t[2]) % 32 == 0;
}

/* CUB's warp-striped exchange: a block of at most one warp, or of whole warps. */
static int valid_variant_threads(const coop__variant *v, const int t[3])
{
  const int n = t[0] * t[1] * t[2];
  return !v->whole_warps || n <= 32 || n % 32 == 0;
}

static int valid_algo(const coop__family *fam, const coop__inst *in)
{
  const int t[3] = {in->bx, in->by, in->bz};
  if (fam->scope == COOP__SCOPE_BLOCK && !valid_variant_threads(&fam->variants[in->variant], t)) return 0;
  if (in->algo < 0) return 1;
  const coop__algo *al = &fam->algos[in->algo];
  const char *na = fam->variants[in->variant].not_algo;
  return !(al->pow2_lanes && (in->bx & (in->bx - 1))) && !(al->items_eq_lanes && in->items != in->bx) &&
         !(na && !strcmp(na, al->name));
}

static int add_inst(coop__inst **arr, size_t *n, size_t *cap, const coop__inst *in)
{
  if (*n == *cap) {
    size_t c = *cap ? *cap * 2 : 64;
    coop__inst *p = realloc(*arr, c * sizeof *p);
    if (!p) return 0;
    *arr = p;
    *cap = c;
  }
  (*arr)[(*n)++] = *in;
  return 1;
}

static void free_insts(coop__inst *arr, size_t n)
{
  for (size_t i = 0; i < n; ++i) free(arr[i].where);
  free(arr);
}

/* coop_<scope>_<stem>_<type>[_<value type>]_<geometry>[_i<items>][_<algorithm>] (DESIGN.md): the geometry a
 * block's t<X>[x<Y>x<Z>] or a logical warp's w<L>; items for block families and the warp families that take
 * several; the algorithm for families that have them. */
static void make_symbol(coop__inst *in)
{
  const coop__family *fam = &coop__families[in->fam];
  const coop__variant *var = &fam->variants[in->variant];
  char stem[96], op[64], items[16] = "", algo[40] = "";
  snprintf(stem, sizeof stem, var->stem, coop__op_spelling(in, op, sizeof op));
  if (fam->scope == COOP__SCOPE_WARP)
    snprintf(in->geom, sizeof in->geom, "w%d", in->bx);
  else if (in->by == 1 && in->bz == 1)
    snprintf(in->geom, sizeof in->geom, "t%d", in->bx);
  else
    snprintf(in->geom, sizeof in->geom, "t%dx%dx%d", in->bx, in->by, in->bz);
  if (coop__has_items(fam)) snprintf(items, sizeof items, "_i%d", in->items);
  if (in->algo >= 0) snprintf(algo, sizeof algo, "_%s", fam->algos[in->algo].name);
  char extra[16] = "";
  if (fam->extra) snprintf(extra, sizeof extra, "_%c%d", fam->extra[0], in->extra);
  snprintf(in->symbol, sizeof in->symbol, "coop_%s_%s_%s%s%s_%s%s%s%s", fam->scope == COOP__SCOPE_WARP ? "warp" : "block",
           stem, coop__tcode(in), in->vtype >= 0 ? "_" : "", coop__vcode(in), in->geom, items, algo, extra);
}

/* Checks one group and appends its instantiations to gen. Returns COOP_SUCCESS or an error with the
 * messages logged; gen is unchanged on error. */
static coop_result check_group(coop_gen *gen, const sgroup *g)
{
  parsed *p = calloc(1, sizeof *p);
  if (!p) return COOP_ERROR_OUT_OF_MEMORY;
  char nb[32];
  coop__str known = {0};
  coop_result rc = COOP_ERROR_SPEC_INVALID;

  /* Duplicates and emptiness within each list. */
  for (int f = 0; f < F_COUNT; ++f) {
    const slist *l = &g->f[f];
    if (l->given && l->n == 0) {
      coop__log(gen, "%s: %s is an empty list", l->where, fname(g, f, nb));
      goto out;
    }
    for (int i = 0; i < l->n; ++i)
      for (int j = 0; j < i; ++j)
        if (strcmp(l->v[i].text, l->v[j].text) == 0) {
          coop__log(gen, "%s: duplicate %s value '%s'", l->v[i].where, field_names[f], l->v[i].text);
          goto out;
        }
  }
  if (!g->f[F_FAMILY].given) {
    coop__log(gen, "%s: missing %s (required)", g->where, fname(g, F_FAMILY, nb));
    goto out;
  }
  if (g->f[F_FAMILY].n != 1) {
    coop__log(gen, "%s: %s takes one value per group, got %d", g->f[F_FAMILY].v[1].where, fname(g, F_FAMILY, nb),
              g->f[F_FAMILY].n);
    goto out;
  }
  p->fam = -1;
  for (int i = 0; i < COOP__FAM_COUNT; ++i)
    if (strcmp(g->f[F_FAMILY].v[0].text, coop__families[i].name) == 0) p->fam = i;
  if (p->fam < 0) {
    list_names(&known, coop__families, sizeof coop__families[0], COOP__FAM_COUNT);
    coop__log(gen, "%s: unknown family '%s' (known: %s)", g->f[F_FAMILY].v[0].where, g->f[F_FAMILY].v[0].text,
              coop__str_get(&known));
    goto out;
  }
  const coop__family *fam = &coop__families[p->fam];
  int warp = fam->scope == COOP__SCOPE_WARP;
  const int required[] = {F_TYPE, warp ? F_WARP : F_THREADS};
  for (size_t r = 0; r < sizeof required / sizeof required[0]; ++r)
    if (!g->f[required[r]].given) {
      coop__log(gen, "%s: missing %s (required for %s)", g->where, fname(g, required[r], nb), fam->name);
      goto out;
    }
  /* A warp family's geometry is its logical warp; warp reduce and scan take one item per lane and CUB
   * chooses their algorithm. */
  const int foreign[] = {warp ? F_THREADS : F_WARP, !warp ? F_WARP : coop__warp_items(fam) ? F_THREADS : F_ITEMS,
                         F_ALGORITHM};
  for (size_t r = 0; r < sizeof foreign / sizeof foreign[0]; ++r)
    if (g->f[foreign[r]].given && (foreign[r] != F_ALGORITHM || fam->n_algos == 0)) {
      coop__log(gen, "%s: %s takes no %s%s", g->f[foreign[r]].where, fam->name, fname(g, foreign[r], nb),
                foreign[r] == F_ALGORITHM && warp && !coop__warp_items(fam)
                  ? " (CUB chooses it: shuffles for a power-of-two warp, shared memory otherwise)"
                : foreign[r] == F_ALGORITHM ? " (CUB's has a single algorithm)"
                : foreign[r] == F_THREADS && coop__warp_items(fam) ? " (a warp primitive takes the logical warp's "
                                                                             "lanes, with warp)"
                : foreign[r] == F_THREADS || foreign[r] == F_ITEMS ? " (a warp primitive takes the logical warp's lanes, "
                                                                     "with warp, and one item per lane)"
                                                                   : "");
      goto out;
    }
  if (fam->uses_op && !g->f[F_OP].given) {
    coop__log(gen, "%s: missing %s (required for %s)", g->where, fname(g, F_OP, nb), fam->name);
    goto out;
  }
  if (!fam->uses_op && g->f[F_OP].given) {
    coop__log(gen, "%s: %s takes no op", g->f[F_OP].where, fam->name);
    goto out;
  }

  for (int f = F_BINS; f <= F_DECODED; ++f) { /* the family's extra number: required, and no other's */
    const int mine = fam->extra && !strcmp(fam->extra, field_names[f]);
    if (g->f[f].given && !mine) {
      coop__log(gen, "%s: %s takes no %s", g->f[f].where, fam->name, fname(g, f, nb));
      goto out;
    }
    if (mine && !g->f[f].given) {
      coop__log(gen, "%s: missing %s (required for %s)", g->where, fname(g, f, nb), fam->name);
      goto out;
    }
    for (int i = 0; mine && i < g->f[f].n; ++i) {
      int v, hi = f == F_BINS ? 4096 : 32;
      if (!parse_int(g->f[f].v[i].text, &v) || v < 1 || v > hi) {
        coop__log(gen, "%s: %s '%s' out of range (1 to %d)", g->f[f].v[i].where, field_names[f], g->f[f].v[i].text, hi);
        goto out;
      }
      p->extras[p->n_extras++] = v;
    }
  }
  if (!p->n_extras) p->extras[p->n_extras++] = 0;
  if (g->f[F_VALUES].given && !coop__has_pairs(fam)) {
    coop__log(gen, "%s: %s takes no %s (a value type is for a sort of key-value pairs)", g->f[F_VALUES].where,
              fam->name, fname(g, F_VALUES, nb));
    goto out;
  }
  for (int pass = 0; pass < 2; ++pass) { /* the key types, then the value types */
    const slist *l = &g->f[pass ? F_VALUES : F_TYPE];
    for (int i = 0; i < l->n; ++i) {
      int t = find_name(l->v[i].text, &coop__types[0].code, sizeof coop__types[0], coop__n_types);
      for (int u = 0; t < 0 && u < gen->n_utypes; ++u)
        if (!strcmp(l->v[i].text, gen->utypes[u].name)) t = coop__n_types + u;
      if (t < 0 && gen->names_only && add_utype(gen, l->v[i].text, 1, 1, l->v[i].where) == COOP_SUCCESS)
        t = coop__n_types + gen->n_utypes - 1;
      if (t < 0) {
        list_names(&known, coop__types, sizeof coop__types[0], coop__n_types);
        for (int u = 0; u < gen->n_utypes; ++u) coop__str_printf(&known, " %s", gen->utypes[u].name);
        coop__log(gen, "%s: unknown type '%s' (known: %s; a user type is declared first: 'types' in a spec, "
                  "--user-type, coop_gen_add_type or coop_linker_add_type)", l->v[i].where, l->v[i].text,
                  coop__str_get(&known));
        goto out;
      }
      if (pass) p->vtypes[p->n_vtypes++] = t;
      else p->types[p->n_types++] = t;
    }
  }
  const slist *l = &g->f[F_OP];
  for (int i = 0; i < l->n; ++i) {
    if (strncmp(l->v[i].text, "custom:", 7) == 0) {
      const char *nm = l->v[i].text + 7;
      size_t len = strlen(nm);
      int ok = len >= 1 && len <= 40 && ((nm[0] >= 'a' && nm[0] <= 'z') || nm[0] == '_');
      for (size_t c = 0; ok && c < len; ++c)
        ok = (nm[c] >= 'a' && nm[c] <= 'z') || (nm[c] >= '0' && nm[c] <= '9') || nm[c] == '_';
      if (!ok) {
        coop__log(gen, "%s: invalid custom operator '%s' (custom:<name>, the name of an extern \"C\" __device__ "
                  "function: 1 to 40 of a-z 0-9 _, not starting with a digit)", l->v[i].where, l->v[i].text);
        goto out;
      }
      /* a variant's suffix would make the symbol ambiguous (reduce_custom_x_partial) */
      if ((len >= 8 && !strcmp(nm + len - 8, "_partial")) || (len >= 7 && !strcmp(nm + len - 7, "_prefix"))) {
        coop__log(gen, "%s: custom operator '%s' ends like a variant of the symbol (_partial, _prefix); rename it",
                  l->v[i].where, l->v[i].text);
        goto out;
      }
      if (p->n_types > 1) {
        coop__log(gen, "%s: custom operator '%s' is one C function, so it takes one type, got %d", l->v[i].where,
                  l->v[i].text, p->n_types);
        goto out;
      }
      for (size_t k = 0; k < gen->n_insts; ++k)
        if (gen->insts[k].op == COOP__OP_CUSTOM && !strcmp(gen->insts[k].custom, nm) && p->n_types == 1 &&
            gen->insts[k].type != p->types[0]) {
          coop__log(gen, "%s: custom operator '%s' is one C function; %s already uses it for %s", l->v[i].where,
                    l->v[i].text, gen->insts[k].where, coop__tcode(&gen->insts[k]));
          goto out;
        }
      snprintf(p->custom[p->n_ops], sizeof p->custom[0], "%s", nm);
      p->ops[p->n_ops] = COOP__OP_CUSTOM + p->n_ops;
      ++p->n_ops;
      continue;
    }
    int o = find_name(l->v[i].text, &coop__ops[0].name, sizeof coop__ops[0], coop__n_ops);
    if (o >= 0 && !(coop__ops[o].kinds & coop__op_kind(fam))) o = -1; /* another kind of family's op */
    if (o < 0) {
      for (int k = 0; k < coop__n_ops; ++k)
        if (coop__ops[k].kinds & coop__op_kind(fam))
          coop__str_printf(&known, "%s%s", known.len ? " " : "", coop__ops[k].name);
      const int kind = coop__op_kind(fam);
      coop__log(gen, "%s: unknown %s '%s' for %s (known: %s, custom:<name>)", l->v[i].where,
                kind == COOP__K_ORDER ? "comparator" : kind == COOP__K_FLAG ? "flag op" : kind == COOP__K_DIFF ?
                "difference op" : "op", l->v[i].text, fam->name, coop__str_get(&known));
      goto out;
    }
    p->ops[p->n_ops++] = o;
  }
  if (!fam->uses_op) p->ops[p->n_ops++] = -1;
  l = &g->f[F_THREADS];
  for (int i = 0; i < l->n; ++i) {
    int *t = p->threads[p->n_threads];
    int ok = parse_threads(l->v[i].text, t);
    if (ok == 0) {
      coop__log(gen, "%s: invalid thread count '%s' (expected X, XxY or XxYxZ)", l->v[i].where, l->v[i].text);
      goto out;
    }
    if (ok < 0) {
      coop__log(gen, "%s: thread count '%s' out of range (each size at least 1, X*Y*Z at most 1024, Z at most 64)",
                l->v[i].where, l->v[i].text);
      goto out;
    }
    ++p->n_threads;
  }
  l = &g->f[F_WARP];
  for (int i = 0; i < l->n; ++i) {
    int v;
    if (!parse_int(l->v[i].text, &v)) {
      coop__log(gen, "%s: invalid logical warp size '%s' (expected a number of lanes from 1 to 32)", l->v[i].where,
                l->v[i].text);
      goto out;
    }
    if (v < 1 || v > 32) {
      coop__log(gen, "%s: logical warp size '%s' out of range (1 to 32 lanes)", l->v[i].where, l->v[i].text);
      goto out;
    }
    int *t = p->threads[p->n_threads++];
    t[0] = v;
    t[1] = t[2] = 1;
  }
  l = &g->f[F_ITEMS];
  for (int i = 0; i < l->n; ++i) {
    int v;
    if (!parse_int(l->v[i].text, &v)) {
      coop__log(gen, "%s: invalid items per thread '%s' (expected a number from 1 to 32)", l->v[i].where, l->v[i].text);
      goto out;
    }
    if (v < 1 || v > 32) {
      coop__log(gen, "%s: items per thread '%s' out of range (1 to 32)", l->v[i].where, l->v[i].text);
      goto out;
    }
    p->items[p->n_items++] = v;
  }
  if (!l->given) p->items[p->n_items++] = 1;
  l = &g->f[F_ALGORITHM];
  for (int i = 0; i < l->n; ++i) {
    int a = find_name(l->v[i].text, &fam->algos[0].name, sizeof fam->algos[0], fam->n_algos);
    if (a < 0) {
      list_names(&known, fam->algos, sizeof fam->algos[0], fam->n_algos);
      coop__log(gen, "%s: unknown algorithm '%s' for %s (known: %s)", l->v[i].where, l->v[i].text, fam->name,
                coop__str_get(&known));
      goto out;
    }
    p->algos[p->n_algos++] = a;
  }
  if (!l->given) p->algos[p->n_algos++] = fam->default_algo; /* -1 for a family without algorithms */
  l = &g->f[F_VARIANT];
  for (int i = 0; i < l->n; ++i) {
    int v = find_name(l->v[i].text, &fam->variants[0].name, sizeof fam->variants[0], fam->n_variants);
    if (v < 0) {
      list_names(&known, fam->variants, sizeof fam->variants[0], fam->n_variants);
      coop__log(gen, "%s: unknown variant '%s' for %s (known: %s)", l->v[i].where, l->v[i].text, fam->name,
                coop__str_get(&known));
      goto out;
    }
    p->variants[p->n_variants++] = v;
  }
  for (int v = 0; v < p->n_variants; ++v) /* a sort of pairs needs its value type */
    if (fam->variants[p->variants[v]].pairs && !g->f[F_VALUES].given) {
      coop__log(gen, "%s: variant '%s' of %s sorts key-value pairs: give the value type with %s",
                g->f[F_VARIANT].v[v].where, fam->variants[p->variants[v]].name, fam->name, fname(g, F_VALUES, nb));
      goto out;
    }
  if (!l->given) /* every variant; with a value type, those of pairs */
    for (int v = 0; v < fam->n_variants; ++v)
      if (!coop__has_pairs(fam) || fam->variants[v].pairs == g->f[F_VALUES].given) p->variants[p->n_variants++] = v;
  if (!p->n_vtypes) p->vtypes[p->n_vtypes++] = -1;

  for (int j = 0; fam->integer_only && j < p->n_types; ++j)
    if (p->types[j] >= coop__n_types || !coop__types[p->types[j]].is_int) {
      coop__log(gen, "%s: %s takes integer items (each one a bin's number): '%s' is not an integer type",
                g->f[F_TYPE].v[j].where, fam->name, type_code(gen, p->types[j]));
      goto out;
    }
  for (int j = 0; fam->no_user_type && j < p->n_types; ++j)
    if (p->types[j] >= coop__n_types) {
      coop__log(gen, "%s: %s with user type '%s': %s", g->f[F_TYPE].v[j].where, fam->name, type_code(gen, p->types[j]),
                fam->no_user_type);
      goto out;
    }
  /* A user type is opaque: only the user's operators know it. */
  for (int j = 0; fam->uses_op && j < p->n_types; ++j)
    for (int i = 0; p->types[j] >= coop__n_types && i < p->n_ops; ++i)
      if (p->ops[i] < COOP__OP_CUSTOM) {
        coop__log(gen, "%s: op '%s' with user type '%s': a user type is opaque bytes to cooplink, so its operators "
                  "are custom:<name>", g->f[F_OP].v[i].where, coop__ops[p->ops[i]].name, type_code(gen, p->types[j]));
        goto out;
      }
  /* Each value must take part in at least one valid combination. */
  for (int i = 0; fam->uses_op && i < p->n_ops; ++i) {
    int ok = 0;
    for (int j = 0; j < p->n_types; ++j) ok |= valid_op_type(p->ops[i], p->types[j]);
    if (!ok) {
      coop__log(gen, "%s: op '%s' needs an integer type, and no requested type is one", g->f[F_OP].v[i].where,
                coop__ops[p->ops[i]].name);
      goto out;
    }
  }
  for (int j = 0; fam->uses_op && j < p->n_types; ++j) {
    int ok = 0;
    for (int i = 0; i < p->n_ops; ++i) ok |= valid_op_type(p->ops[i], p->types[j]);
    if (!ok) {
      coop__log(gen, "%s: type '%s' is not an integer type, and every requested op is bitwise",
                g->f[F_TYPE].v[j].where, type_code(gen, p->types[j]));
      goto out;
    }
  }
  for (int a = 0; a < p->n_algos; ++a) {
    int ok = 0;
    for (int t = 0; t < p->n_threads; ++t) ok |= valid_algo_threads(fam, p->algos[a], p->threads[t]);
    if (!ok) {
      coop__log(gen, "%s: algorithm '%s' needs a thread count that is a multiple of 32, and no requested one is",
                g->f[F_ALGORITHM].given ? g->f[F_ALGORITHM].v[a].where : g->where, fam->algos[p->algos[a]].name);
      goto out;
    }
  }
  for (int t = 0; t < p->n_threads; ++t) {
    int ok = 0;
    for (int a = 0; a < p->n_algos; ++a) ok |= valid_algo_threads(fam, p->algos[a], p->threads[t]);
    if (!ok) {
      coop__log(gen, "%s: thread count '%s' is not a multiple of 32, which every requested algorithm needs",
                g->f[F_THREADS].v[t].where, g->f[F_THREADS].v[t].text);
      goto out;
    }
  }

  for (int i = 0; i < p->n_ops; ++i) {
    int ok = 0, a;
    for (a = 0; a < p->n_algos; ++a) ok |= valid_algo_op(fam, p->algos[a], p->ops[i]);
    if (!ok) {
      coop__log(gen, "%s: op '%s' with algorithm 'raking_comm': CUB's commutative-only reduction reorders "
                "operands, and a custom operator is not known to commute (use raking or warp_reductions)",
                g->f[F_OP].v[i].where, g->f[F_OP].v[i].text);
      goto out;
    }
  }
  for (int a = 0; a < p->n_algos; ++a) {
    int ok = 0;
    for (int i = 0; i < p->n_ops; ++i) ok |= valid_algo_op(fam, p->algos[a], p->ops[i]);
    if (!ok) {
      coop__log(gen, "%s: algorithm 'raking_comm' reorders operands, and every requested op is a custom operator, "
                "not known to commute (use raking or warp_reductions)",
                g->f[F_ALGORITHM].given ? g->f[F_ALGORITHM].v[a].where : g->where);
      goto out;
    }
  }

  for (int t = 0; fam->scope == COOP__SCOPE_BLOCK && fam->pow2_lanes && t < p->n_threads; ++t) {
    const int n = p->threads[t][0] * p->threads[t][1] * p->threads[t][2];
    if (n & (n - 1)) {
      coop__log(gen, "%s: a block of %d threads: CUB's %s needs a power-of-two thread count", g->f[F_THREADS].v[t].where,
                n, fam->name);
      goto out;
    }
  }
  for (int v = 0; fam->scope == COOP__SCOPE_BLOCK && g->f[F_VARIANT].given && v < p->n_variants; ++v) {
    int ok = 0;
    for (int t = 0; t < p->n_threads; ++t) ok |= valid_variant_threads(&fam->variants[p->variants[v]], p->threads[t]);
    if (!ok) {
      coop__log(gen, "%s: variant '%s' of %s needs a block of at most 32 threads or a multiple of 32, and no requested "
                "thread count is one (CUB's warp-striped exchange places a partial last warp's items as if it had 32 "
                "lanes, past its shared memory)", g->f[F_VARIANT].v[v].where, fam->variants[p->variants[v]].name,
                fam->name);
      goto out;
    }
  }
  /* CUB's warp load, store and exchange: a power-of-two logical warp; its shuffle exchange: as many items
   * as lanes, and no scatter. Each algorithm value must form a valid combination. */
  for (int t = 0; fam->scope == COOP__SCOPE_WARP && t < p->n_threads; ++t) {
    const int lanes = p->threads[t][0];
    int ok = 0; /* some requested algorithm takes any lane count */
    for (int a = 0; a < p->n_algos && !ok && !fam->pow2_lanes; ++a)
      ok = p->algos[a] < 0 || !fam->algos[p->algos[a]].pow2_lanes;
    if (!ok && (lanes & (lanes - 1))) {
      coop__log(gen, "%s: a logical warp of %d lanes: CUB's %s needs a power of two (1, 2, 4, 8, 16 or 32)",
                g->f[F_WARP].v[t].where, lanes, fam->name);
      goto out;
    }
  }
  for (int a = 0; a < p->n_algos; ++a) {
    if (p->algos[a] < 0) continue;
    const coop__algo *al = &fam->algos[p->algos[a]];
    for (int j = 0; al->builtin_only && j < p->n_types; ++j)
      if (p->types[j] >= coop__n_types) {
        coop__log(gen, "%s: algorithm '%s' of %s with user type '%s': CUB's moves values with __shfl_xor_sync, "
                  "which takes built-in types only (use smem)",
                  g->f[F_ALGORITHM].given ? g->f[F_ALGORITHM].v[a].where : g->where, al->name, fam->name,
                  type_code(gen, p->types[j]));
        goto out;
      }
    int ok = 0, need_items = 0;
    const char *variant = NULL, *why = NULL;
    for (int t = 0; t < p->n_threads && !ok; ++t)
      for (int it = 0; it < p->n_items && !ok; ++it)
        for (int v = 0; v < p->n_variants && !ok; ++v) {
          const int lanes = p->threads[t][0], items = p->items[it];
          const char *na = fam->variants[p->variants[v]].not_algo;
          if (al->items_eq_lanes && items != lanes) need_items = 1;
          else if (na && !strcmp(na, al->name)) {
            variant = fam->variants[p->variants[v]].name;
            why = fam->variants[p->variants[v]].not_algo_why;
          }
          else ok = 1;
        }
    if (!ok) {
      const char *where = g->f[F_ALGORITHM].given ? g->f[F_ALGORITHM].v[a].where : g->where;
      if (need_items)
        coop__log(gen, "%s: algorithm '%s' of %s needs as many items per thread as lanes (CUB's), and no requested "
                  "combination has them", where, al->name, fam->name);
      else
        coop__log(gen, "%s: algorithm '%s' of %s has no variant '%s' (%s)", where, al->name, fam->name, variant,
                  why ? why : "CUB's");
      goto out;
    }
  }

  /* Expand; a partial reduce has one item per thread whatever items says, so dedupe within the group. */
  coop__inst *arr = NULL;
  size_t n = 0, cap = 0;
  for (int v = 0; v < p->n_variants; ++v)
    for (int ty = 0; ty < p->n_types; ++ty)
      for (int o = 0; o < p->n_ops; ++o)
        for (int t = 0; t < p->n_threads; ++t)
          for (int it = 0; it < p->n_items; ++it)
            for (int a = 0; a < p->n_algos; ++a)
              for (int vt = 0; vt < p->n_vtypes; ++vt)
              for (int ex = 0; ex < p->n_extras; ++ex) {
                coop__inst in = {0};
                in.extra = p->extras[ex];
                in.fam = p->fam;
                in.variant = p->variants[v];
                in.type = p->types[ty];
                if (coop__is_user_type(&in)) in.user = gen->utypes[in.type - coop__n_types];
                in.vtype = fam->variants[in.variant].pairs ? p->vtypes[vt] : -1;
                if (in.vtype >= coop__n_types) in.vuser = gen->utypes[in.vtype - coop__n_types];
                in.op = p->ops[o] >= COOP__OP_CUSTOM ? COOP__OP_CUSTOM : p->ops[o];
                if (in.op == COOP__OP_CUSTOM) snprintf(in.custom, sizeof in.custom, "%s", p->custom[o]);
                in.algo = p->algos[a];
                in.bx = p->threads[t][0];
                in.by = p->threads[t][1];
                in.bz = p->threads[t][2];
                in.items = fam->variants[in.variant].single_item ? 1 : p->items[it];
                if (in.op >= 0 && !valid_op_type(in.op, in.type)) continue;
                if (!valid_algo_op(fam, in.algo, in.op)) continue;
                if (!valid_algo_threads(fam, in.algo, p->threads[t])) continue;
                if (!valid_algo(fam, &in)) continue;
                make_symbol(&in);
                int dup = 0;
                for (size_t k = 0; k < n && !dup; ++k) dup = strcmp(arr[k].symbol, in.symbol) == 0;
                if (dup) continue;
                in.where = coop__strdup(g->where);
                if (!in.where || !add_inst(&arr, &n, &cap, &in)) {
                  free(in.where);
                  free_insts(arr, n);
                  rc = COOP_ERROR_OUT_OF_MEMORY;
                  goto out;
                }
              }
  /* Across groups the same symbol twice is a mistake in the spec. */
  for (size_t k = 0; k < n; ++k)
    for (size_t j = 0; j < gen->n_insts; ++j)
      if (strcmp(arr[k].symbol, gen->insts[j].symbol) == 0) {
        coop__log(gen, "%s: symbol %s is requested twice (also at %s)", arr[k].where, arr[k].symbol,
                  gen->insts[j].where);
        free_insts(arr, n);
        goto out;
      }
  for (size_t k = 0; k < n; ++k)
    if (!add_inst(&gen->insts, &gen->n_insts, &gen->cap_insts, &arr[k])) {
      for (size_t j = k; j < n; ++j) free(arr[j].where);
      free(arr);
      rc = COOP_ERROR_OUT_OF_MEMORY;
      goto out;
    }
  free(arr);
  rc = COOP_SUCCESS;
out:
  coop__str_free(&known);
  free(p);
  return rc;
}

/* ---- flags ---- */

static coop_result split_list(coop_gen *gen, slist *l, const char *flag, const char *text, char **storage)
{
  snprintf(l->where, sizeof l->where, "%s", flag);
  if (!text) return COOP_SUCCESS;
  l->given = 1;
  char *copy = coop__strdup(text);
  if (!copy) return COOP_ERROR_OUT_OF_MEMORY;
  *storage = copy;
  char *save = NULL;
  size_t len = strlen(copy);
  if (len == 0 || copy[0] == ',' || copy[len - 1] == ',' || strstr(copy, ",,")) {
    coop__log(gen, "%s: empty value in list '%s'", flag, text);
    return COOP_ERROR_SPEC_INVALID;
  }
  for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
    if (l->n == MAX_VALUES) {
      coop__log(gen, "%s: more than %d values", flag, MAX_VALUES);
      return COOP_ERROR_SPEC_INVALID;
    }
    l->v[l->n].text = tok;
    snprintf(l->v[l->n].where, sizeof l->v[l->n].where, "%s", flag);
    ++l->n;
  }
  return COOP_SUCCESS;
}

coop_result coop_gen_add_group(coop_gen *gen, const coop_gen_group *group)
{
  if (!gen || !group) return COOP_ERROR_INVALID_VALUE;
  coop__str_clear(&gen->log);
  sgroup *g = calloc(1, sizeof *g);
  if (!g) return COOP_ERROR_OUT_OF_MEMORY;
  g->flags = 1;
  snprintf(g->where, sizeof g->where, "flags");
  const char *texts[F_COUNT] = {group->family, group->type,      group->op,      group->threads,     group->items,
                                group->algorithm, group->variant, group->warp, group->values, group->bins,
                                group->decoded};
  char *storage[F_COUNT] = {0};
  coop_result rc = COOP_SUCCESS;
  for (int f = 0; f < F_COUNT && rc == COOP_SUCCESS; ++f) {
    char flag[32];
    snprintf(flag, sizeof flag, "--%s", field_names[f]);
    rc = split_list(gen, &g->f[f], flag, texts[f], &storage[f]);
  }
  if (rc == COOP_SUCCESS) rc = check_group(gen, g);
  for (int f = 0; f < F_COUNT; ++f) free(storage[f]);
  free(g);
  return rc;
}

/* ---- spec files ---- */

typedef struct yctx {
  coop_gen *gen;
  yaml_document_t *doc;
  const char *label;
} yctx;

static void where_of(const yctx *y, const yaml_node_t *n, char *buf, size_t size)
{
  snprintf(buf, size, "%s:%zu:%zu", y->label, n->start_mark.line + 1, n->start_mark.column + 1);
}

static coop_result yerr(const yctx *y, const yaml_node_t *n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static coop_result yerr(const yctx *y, const yaml_node_t *n, const char *fmt, ...)
{
  char w[512];
  where_of(y, n, w, sizeof w);
  coop__str_printf(&y->gen->log, "%s: ", w);
  va_list ap;
  va_start(ap, fmt);
  coop__str_vprintf(&y->gen->log, fmt, ap);
  va_end(ap);
  coop__str_add(&y->gen->log, "\n");
  return COOP_ERROR_SPEC_INVALID;
}

static const char *node_kind(const yaml_node_t *n)
{
  return n->type == YAML_MAPPING_NODE ? "a mapping" : n->type == YAML_SEQUENCE_NODE ? "a list" : "a scalar";
}

/* Rejects duplicate keys and keys outside known; returns the index of the first problem or 0. */
static coop_result check_keys(const yctx *y, yaml_node_t *map, const char *const *known, int n_known)
{
  for (yaml_node_pair_t *a = map->data.mapping.pairs.start; a < map->data.mapping.pairs.top; ++a) {
    yaml_node_t *k = yaml_document_get_node(y->doc, a->key);
    if (k->type != YAML_SCALAR_NODE) return yerr(y, k, "a key must be a scalar, got %s", node_kind(k));
    const char *ks = (const char *)k->data.scalar.value;
    int ok = 0;
    for (int i = 0; i < n_known; ++i) ok |= strcmp(ks, known[i]) == 0;
    if (!ok) {
      coop__str list = {0};
      for (int i = 0; i < n_known; ++i) coop__str_printf(&list, "%s%s", i ? " " : "", known[i]);
      coop_result rc = yerr(y, k, "unknown key '%s' (known: %s)", ks, coop__str_get(&list));
      coop__str_free(&list);
      return rc;
    }
    for (yaml_node_pair_t *b = map->data.mapping.pairs.start; b < a; ++b) {
      yaml_node_t *kb = yaml_document_get_node(y->doc, b->key);
      if (kb->type == YAML_SCALAR_NODE && strcmp((const char *)kb->data.scalar.value, ks) == 0)
        return yerr(y, k, "duplicate key '%s'", ks);
    }
  }
  return COOP_SUCCESS;
}

static yaml_node_t *map_get(const yctx *y, yaml_node_t *map, const char *key, yaml_node_t **key_node)
{
  for (yaml_node_pair_t *a = map->data.mapping.pairs.start; a < map->data.mapping.pairs.top; ++a) {
    yaml_node_t *k = yaml_document_get_node(y->doc, a->key);
    if (k->type == YAML_SCALAR_NODE && strcmp((const char *)k->data.scalar.value, key) == 0) {
      if (key_node) *key_node = k;
      return yaml_document_get_node(y->doc, a->value);
    }
  }
  return NULL;
}

/* A scalar or a list of scalars into l. */
static coop_result read_list(const yctx *y, yaml_node_t *key, yaml_node_t *n, slist *l, const char *what)
{
  where_of(y, key, l->where, sizeof l->where);
  l->given = 1;
  if (n->type == YAML_SCALAR_NODE) {
    if (n->data.scalar.length == 0) return yerr(y, n, "empty value for '%s'", what);
    l->v[0].text = (const char *)n->data.scalar.value;
    where_of(y, n, l->v[0].where, sizeof l->v[0].where);
    l->n = 1;
    return COOP_SUCCESS;
  }
  if (n->type != YAML_SEQUENCE_NODE) return yerr(y, n, "'%s' must be a value or a list of values, got %s", what, node_kind(n));
  for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top; ++it) {
    yaml_node_t *e = yaml_document_get_node(y->doc, *it);
    if (e->type != YAML_SCALAR_NODE) return yerr(y, e, "'%s' list entries must be values, got %s", what, node_kind(e));
    if (e->data.scalar.length == 0) return yerr(y, e, "empty value for '%s'", what);
    if (l->n == MAX_VALUES) return yerr(y, e, "more than %d values for '%s'", MAX_VALUES, what);
    l->v[l->n].text = (const char *)e->data.scalar.value;
    where_of(y, e, l->v[l->n].where, sizeof l->v[l->n].where);
    ++l->n;
  }
  return COOP_SUCCESS;
}

/* 'types': a list of {name, size, align} mappings, declared into y->gen. */
static coop_result read_types(const yctx *y, yaml_node_t *n)
{
  if (n->type != YAML_SEQUENCE_NODE)
    return yerr(y, n, "'types' must be a list of {name, size, align}, got %s", node_kind(n));
  static const char *const keys[] = {"name", "size", "align"};
  for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top; ++it) {
    yaml_node_t *e = yaml_document_get_node(y->doc, *it);
    if (e->type != YAML_MAPPING_NODE) return yerr(y, e, "a type must be a mapping {name, size, align}, got %s", node_kind(e));
    coop_result rc = check_keys(y, e, keys, 3);
    if (rc) return rc;
    const char *text[3];
    long long num[3] = {0};
    for (int k = 0; k < 3; ++k) {
      yaml_node_t *v = map_get(y, e, keys[k], NULL);
      if (!v) return yerr(y, e, "a type needs name, size and align; '%s' is missing", keys[k]);
      if (v->type != YAML_SCALAR_NODE) return yerr(y, v, "'%s' must be a value, got %s", keys[k], node_kind(v));
      text[k] = (const char *)v->data.scalar.value;
      int iv;
      if (k && !parse_int(text[k], &iv)) return yerr(y, v, "'%s' must be a number of bytes, got '%s'", keys[k], text[k]);
      if (k) num[k] = iv;
    }
    char where[512];
    where_of(y, e, where, sizeof where);
    if ((rc = add_utype(y->gen, text[0], num[1], num[2], where))) return rc;
  }
  return COOP_SUCCESS;
}

coop_result coop__set_name_at(coop_gen *gen, const char *name, const char *where);
coop_result coop__set_archs_list(coop_gen *gen, const char *const *archs, const char *const *wheres, int n);

static coop_result load_doc(coop_gen *gen, yaml_document_t *doc, const char *label)
{
  yctx y = {gen, doc, label};
  yaml_node_t *root = yaml_document_get_root_node(doc);
  if (!root) {
    coop__log(gen, "%s: the spec is empty", label);
    return COOP_ERROR_SPEC_INVALID;
  }
  if (root->type != YAML_MAPPING_NODE) return yerr(&y, root, "the spec must be a mapping, got %s", node_kind(root));
  static const char *const top_keys[] = {"name", "arch", "units", "ir", "types", "generate"};
  coop_result rc = check_keys(&y, root, top_keys, 6);
  if (rc) return rc;

  /* Validate everything into a scratch handle first, so a failing file leaves gen unchanged. */
  coop_gen scratch = {0};
  memcpy(scratch.utypes, gen->utypes, sizeof gen->utypes);
  scratch.n_utypes = gen->n_utypes;
  scratch.insts = NULL;
  /* Groups must not collide with what gen already holds: seed scratch with gen's symbols. */
  scratch.n_insts = 0;
  yctx ys = {&scratch, doc, label};
  yaml_node_t *kn = NULL;
  yaml_node_t *name = map_get(&y, root, "name", &kn);
  const char *name_text = NULL;
  char name_where[512] = "";
  if (name) {
    if (name->type != YAML_SCALAR_NODE) {
      rc = yerr(&ys, name, "'name' must be a value, got %s", node_kind(name));
      goto fail;
    }
    name_text = (const char *)name->data.scalar.value;
    where_of(&y, name, name_where, sizeof name_where);
    rc = coop__set_name_at(&scratch, name_text, name_where);
    if (rc) goto fail;
  }
  yaml_node_t *units = map_get(&y, root, "units", &kn);
  int units_value = -1;
  if (units) {
    const char *u = units->type == YAML_SCALAR_NODE ? (const char *)units->data.scalar.value : NULL;
    if (!u || (strcmp(u, "instance") != 0 && strcmp(u, "symbol") != 0)) {
      rc = yerr(&ys, units, "'units' must be instance or symbol");
      goto fail;
    }
    units_value = !strcmp(u, "symbol");
  }
  yaml_node_t *ir = map_get(&y, root, "ir", &kn);
  int ir_value = -1;
  if (ir) {
    const char *u = ir->type == YAML_SCALAR_NODE ? (const char *)ir->data.scalar.value : NULL;
    if (!u || (strcmp(u, "plain") != 0 && strcmp(u, "optimized") != 0)) {
      rc = yerr(&ys, ir, "'ir' must be plain or optimized");
      goto fail;
    }
    ir_value = !strcmp(u, "optimized");
  }
  yaml_node_t *arch = map_get(&y, root, "arch", &kn);
  if (arch) {
    slist *archs = calloc(1, sizeof *archs);
    if (!archs) {
      rc = COOP_ERROR_OUT_OF_MEMORY;
      goto fail;
    }
    rc = read_list(&ys, kn, arch, archs, "arch");
    if (!rc) {
      const char *texts[MAX_VALUES], *wheres[MAX_VALUES] = {archs->where}; /* "arch": [] is named at its key */
      for (int i = 0; i < archs->n; ++i) {
        texts[i] = archs->v[i].text;
        wheres[i] = archs->v[i].where;
      }
      rc = coop__set_archs_list(&scratch, texts, wheres, archs->n);
    }
    free(archs);
    if (rc) goto fail;
  }
  yaml_node_t *types = map_get(&y, root, "types", &kn);
  if (types && (rc = read_types(&ys, types))) goto fail;
  yaml_node_t *groups = map_get(&y, root, "generate", &kn);
  if (groups) {
    if (groups->type != YAML_SEQUENCE_NODE) {
      rc = yerr(&ys, groups, "'generate' must be a list of groups, got %s", node_kind(groups));
      goto fail;
    }
    /* Earlier requests of gen take part in the duplicate check. */
    scratch.insts = gen->insts;
    scratch.n_insts = gen->n_insts;
    scratch.cap_insts = 0;
    size_t base = gen->n_insts;
    coop__inst *own = NULL;
    for (yaml_node_item_t *it = groups->data.sequence.items.start; it < groups->data.sequence.items.top; ++it) {
      yaml_node_t *gn = yaml_document_get_node(doc, *it);
      if (gn->type != YAML_MAPPING_NODE) {
        rc = yerr(&ys, gn, "a group must be a mapping, got %s", node_kind(gn));
        break;
      }
      rc = check_keys(&ys, gn, field_names, F_COUNT);
      if (rc) break;
      sgroup *G = calloc(1, sizeof *G);
      if (!G) {
        rc = COOP_ERROR_OUT_OF_MEMORY;
        break;
      }
      where_of(&y, gn, G->where, sizeof G->where);
      for (int f = 0; f < F_COUNT && !rc; ++f) {
        yaml_node_t *fk = NULL;
        yaml_node_t *fv = map_get(&y, gn, field_names[f], &fk);
        if (fv) rc = read_list(&ys, fk, fv, &G->f[f], field_names[f]);
      }
      if (rc) {
        free(G);
        break;
      }
      /* check_group appends to scratch.insts; the first append must copy, not grow gen's array. */
      if (!own) {
        own = malloc((scratch.n_insts + 64) * sizeof *own);
        if (!own) {
          free(G);
          rc = COOP_ERROR_OUT_OF_MEMORY;
          break;
        }
        if (scratch.n_insts) memcpy(own, scratch.insts, scratch.n_insts * sizeof *own);
        scratch.insts = own;
        scratch.cap_insts = scratch.n_insts + 64;
      }
      rc = check_group(&scratch, G);
      free(G);
      own = scratch.insts;
      if (rc) break;
    }
    if (rc) {
      if (own) {
        for (size_t k = base; k < scratch.n_insts; ++k) free(own[k].where);
        free(own);
      }
      scratch.insts = NULL;
      scratch.n_insts = 0;
      goto fail;
    }
    if (own) {
      free(gen->insts);
      gen->insts = own;
      gen->n_insts = scratch.n_insts;
      gen->cap_insts = scratch.cap_insts;
    }
    scratch.insts = NULL;
  }
  if (scratch.name) {
    free(gen->name);
    gen->name = scratch.name;
    scratch.name = NULL;
  }
  if (scratch.n_archs) {
    memcpy(gen->archs, scratch.archs, sizeof gen->archs);
    gen->n_archs = scratch.n_archs;
  }
  if (units_value >= 0) gen->unit_per_symbol = units_value;
  if (ir_value >= 0 && !gen->ir_forced) gen->ir_optimized = ir_value;
  memcpy(gen->utypes, scratch.utypes, sizeof gen->utypes);
  gen->n_utypes = scratch.n_utypes;
  coop__str_free(&scratch.log);
  return COOP_SUCCESS;
fail:
  coop__str_add(&gen->log, coop__str_get(&scratch.log));
  coop__str_free(&scratch.log);
  free(scratch.name);
  return rc ? rc : COOP_ERROR_SPEC_INVALID;
}

coop_result coop_gen_add_spec_string(coop_gen *gen, const char *text, size_t size, const char *label)
{
  if (!gen || !text || !label) return COOP_ERROR_INVALID_VALUE;
  coop__str_clear(&gen->log);
  yaml_parser_t parser;
  if (!yaml_parser_initialize(&parser)) return COOP_ERROR_OUT_OF_MEMORY;
  yaml_parser_set_input_string(&parser, (const unsigned char *)text, size);
  yaml_document_t doc;
  if (!yaml_parser_load(&parser, &doc)) {
    coop__log(gen, "%s:%zu:%zu: syntax error: %s%s%s", label, parser.problem_mark.line + 1,
              parser.problem_mark.column + 1, parser.problem ? parser.problem : "malformed input",
              parser.context ? " " : "", parser.context ? parser.context : "");
    coop_result rc = parser.error == YAML_MEMORY_ERROR ? COOP_ERROR_OUT_OF_MEMORY : COOP_ERROR_SPEC_SYNTAX;
    yaml_parser_delete(&parser);
    return rc;
  }
  /* A second document in the stream is not ours to ignore. */
  yaml_document_t extra;
  int more = 0;
  if (yaml_parser_load(&parser, &extra)) {
    more = yaml_document_get_root_node(&extra) != NULL;
    yaml_document_delete(&extra);
  }
  coop_result rc;
  if (more) {
    coop__log(gen, "%s: more than one document in the spec", label);
    rc = COOP_ERROR_SPEC_SYNTAX;
  } else {
    rc = load_doc(gen, &doc, label);
  }
  yaml_document_delete(&doc);
  yaml_parser_delete(&parser);
  return rc;
}

coop_result coop_gen_add_spec_file(coop_gen *gen, const char *path)
{
  if (!gen || !path) return COOP_ERROR_INVALID_VALUE;
  char *data;
  size_t size;
  coop_result rc = coop__read_file(path, &data, &size);
  if (rc) {
    coop__str_clear(&gen->log);
    coop__log(gen, "%s: cannot read the spec file", path);
    return rc;
  }
  rc = coop_gen_add_spec_string(gen, data, size, path);
  free(data);
  return rc;
}

/* ---- symbols ---- */

/* Adds group g if it yields exactly symbol: 1 when it did, 0 when not (reason set if the group was
 * invalid), -1 out of memory. */
static int try_symbol_group(coop_gen *gen, const coop_gen_group *g, const char *symbol, char *reason, size_t size)
{
  size_t before = gen->n_insts;
  coop_result rc = coop_gen_add_group(gen, g);
  if (rc == COOP_ERROR_OUT_OF_MEMORY) return -1;
  if (rc == COOP_SUCCESS && gen->n_insts == before + 1 && strcmp(gen->insts[before].symbol, symbol) == 0) return 1;
  if (rc == COOP_SUCCESS) { /* parsed, but the canonical name differs (e.g. t256x1x1): not ours */
    while (gen->n_insts > before) free(gen->insts[--gen->n_insts].where);
  } else {
    snprintf(reason, size, "%s", coop__str_get(&gen->log));
    char *nl = strchr(reason, '\n');
    if (nl) *nl = 0;
  }
  coop__str_clear(&gen->log);
  return 0;
}

/* The stems of fam's functions: for each variant and op, whether stem names it. */
static int for_stem(coop_gen *gen, const coop__family *fam, const char *stem, coop_gen_group g, const char *symbol,
                    char *reason, size_t size)
{
  for (int v = 0; v < fam->n_variants && fam->uses_op; ++v) { /* a custom op: <before>custom_<name><after> */
    const char *pat = fam->variants[v].stem, *pc = strstr(pat, "%s");
    size_t before = (size_t)(pc - pat), after = strlen(pc + 2), n = strlen(stem);
    if (n <= before + after + 7 || strncmp(stem, pat, before) || strcmp(stem + n - after, pc + 2) ||
        strncmp(stem + before, "custom_", 7))
      continue;
    char op[64];
    snprintf(op, sizeof op, "custom:%.*s", (int)(n - after - before - 7), stem + before + 7);
    g.family = fam->name;
    g.op = op;
    g.variant = fam->variants[v].name;
    int r = try_symbol_group(gen, &g, symbol, reason, size);
    if (r) return r;
  }
  for (int v = 0; v < fam->n_variants; ++v)
    for (int o = fam->uses_op ? 0 : -1; o < (fam->uses_op ? coop__n_ops : 0); ++o) {
      char want[64];
      snprintf(want, sizeof want, fam->variants[v].stem, o >= 0 ? coop__ops[o].name : "");
      if (strcmp(want, stem) != 0) continue;
      g.family = fam->name;
      g.op = o >= 0 ? coop__ops[o].name : NULL;
      g.variant = fam->variants[v].name;
      int r = try_symbol_group(gen, &g, symbol, reason, size);
      if (r) return r;
    }
  return 0;
}

coop_result coop_gen_add_symbol(coop_gen *gen, const char *symbol)
{
  if (!gen || !symbol) return COOP_ERROR_INVALID_VALUE;
  coop__str_clear(&gen->log);
  size_t n = strlen(symbol);
  char reason[512] = "";
  int r = 0;
  if (n > 150) goto bad;
  /* coop_<scope>_<stem>_<type>[_<value type>]_<geometry>[_i<items>][_<algorithm>] (make_symbol), taken apart
   * from the end for each family: its algorithm (-1: none), items, geometry, value type (pairs) and type */
  for (int f = 0; f < COOP__FAM_COUNT && !r; ++f) {
    const coop__family *fam = &coop__families[f];
    const int warp = fam->scope == COOP__SCOPE_WARP;
    const char *prefix = warp ? "coop_warp_" : "coop_block_";
    if (strncmp(symbol, prefix, strlen(prefix)) != 0) continue;
    for (int a = fam->n_algos ? 0 : -1; a < fam->n_algos && !r; ++a)
      for (int pairs = 0; pairs <= coop__has_pairs(fam) && !r; ++pairs) {
        char body[200], *extra = NULL;
        snprintf(body, sizeof body, "%s", symbol + strlen(prefix));
        char *items = NULL;
        if (fam->extra) { /* _<letter><n> */
          extra = strrchr(body, '_');
          if (!extra || extra[1] != fam->extra[0]) continue;
          *extra = 0;
        }
        if (a >= 0) {
          size_t bl = strlen(body), al = strlen(fam->algos[a].name);
          if (bl <= al + 1 || body[bl - al - 1] != '_' || strcmp(body + bl - al, fam->algos[a].name)) continue;
          body[bl - al - 1] = 0;
        }
        if (coop__has_items(fam)) {
          items = strrchr(body, '_');
          if (!items || items[1] != 'i') continue;
          *items = 0;
        }
        char *geom = strrchr(body, '_');
        if (!geom || geom[1] != (warp ? 'w' : 't')) continue;
        *geom = 0;
        char *values = NULL;
        if (pairs) {
          values = strrchr(body, '_');
          if (!values) continue;
          *values = 0;
        }
        char *type = strrchr(body, '_');
        if (!type) continue;
        *type = 0;
        coop_gen_group g = {0};
        g.type = type + 1;
        if (warp) g.warp = geom + 2;
        else g.threads = geom + 2;
        g.values = values ? values + 1 : NULL;
        g.items = items ? items + 2 : NULL;
        g.algorithm = a >= 0 ? fam->algos[a].name : NULL;
        if (extra && !strcmp(fam->extra, "bins")) g.bins = extra + 2;
        if (extra && !strcmp(fam->extra, "decoded")) g.decoded = extra + 2;
        r = for_stem(gen, fam, body, g, symbol, reason, sizeof reason);
      }
  }
  if (r < 0) return COOP_ERROR_OUT_OF_MEMORY;
  if (r) return COOP_SUCCESS;
bad:
  if (reason[0]) {
    /* "--items: items per thread '40' out of range (1 to 32)" -> drop the flag name */
    const char *rs = strncmp(reason, "--", 2) == 0 && strstr(reason, ": ") ? strstr(reason, ": ") + 2 : reason;
    coop__log(gen, "%s: %s", symbol, rs);
    return COOP_ERROR_SPEC_INVALID;
  }
  coop__log(gen,
            "%s: not a symbol cooplink can generate (expected coop_block_<function>_<type>[_<value type>]_t<threads>_i<items>"
            "[_<algorithm>] or coop_warp_<function>_<type>[_<value type>]_w<lanes>[_i<items>][_<algorithm>])",
            symbol);
  return COOP_ERROR_SPEC_INVALID;
}
