/* Text the generator writes: the CUDA C++ translation unit, the C header and the manifest. */
#include "gen.h"

#include <cooplink/version.h>
#include <ctype.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

static int param_present(const coop__inst *in, const coop__param *p)
{
  return p->name && !(p->skip_for_sum && in->op == 0);
}

/* The functor of a custom operator for one type: calls the user's extern "C" function by name. */
static void custom_functor_name(coop__str *s, const coop__inst *in)
{
  coop__str_printf(s, "coop_custom_%s_%s", in->custom, coop__tcode(in));
}

static void emit_custom_ops(coop__str *s, const coop_gen *gen, int preprocessed)
{
  const char *dev = preprocessed ? "__attribute__((device))" : "__device__";
  const char *inl = preprocessed ? "__attribute__((device)) __attribute__((always_inline)) inline" : "__device__ __forceinline__";
  for (size_t i = 0; i < gen->n_insts; ++i) {
    const coop__inst *in = &gen->insts[i];
    if (in->op != COOP__OP_CUSTOM) continue;
    int seen = 0, declared = 0;
    for (size_t k = 0; k < i && !seen; ++k) {
      const coop__inst *o = &gen->insts[k];
      if (o->op != COOP__OP_CUSTOM || strcmp(o->custom, in->custom)) continue;
      declared = 1;
      seen = o->type == in->type;
    }
    if (seen) continue;
    const char *T = coop__tcpp(in);
    if (coop__families[in->fam].uses_op == 2) { /* a comparator: int name(const T *a, const T *b), a before b */
      if (!declared)
        coop__str_printf(s, "extern \"C\" %s int %s(const %s *a, const %s *b);\n", dev, in->custom, T, T);
      coop__str_add(s, "struct ");
      custom_functor_name(s, in);
      coop__str_printf(s, "\n{\n  %s bool operator()(const %s &a, const %s &b) const\n  {\n"
                          "    return ::%s(&a, &b) != 0;\n  }\n};\n\n",
                       inl, T, T, in->custom);
      continue;
    }
    if (!declared) /* one declaration per name: every type calls the same C symbol */
      coop__str_printf(s, "extern \"C\" %s void %s(const %s *a, const %s *b, %s *out);\n", dev, in->custom, T, T, T);
    coop__str_add(s, "struct ");
    custom_functor_name(s, in);
    coop__str_printf(s, "\n{\n  %s %s operator()(const %s &a, const %s &b) const\n  {\n    %s r;\n"
                        "    ::%s(&a, &b, &r);\n    return r;\n  }\n};\n\n",
                     inl, T, T, T, T, in->custom);
  }
}

static void param_decl(coop__str *s, const char *elem, const coop__param *p)
{
  switch (p->kind) {
  case COOP__P_IN: coop__str_printf(s, "const %s *%s", elem, p->name); break;
  case COOP__P_OUT:
  case COOP__P_INOUT: coop__str_printf(s, "%s *%s", elem, p->name); break;
  case COOP__P_INT: coop__str_printf(s, "int %s", p->name); break;
  default: coop__str_printf(s, "void *%s", p->name); break;
  }
}

static const char *elem_type(const coop__inst *in, const coop__param *p, int tu);

void coop__param_decl(coop__str *s, const coop__inst *in, const coop__param *p)
{
  param_decl(s, elem_type(in, p, 0), p);
}

/* The element type of parameter p: in the TU (tu) or in C headers and signatures. */
static const char *elem_type(const coop__inst *in, const coop__param *p, int tu)
{
  if (p->elem == COOP__E_INT) return "int";
  if (p->elem == COOP__E_U32) return "unsigned int";
  if (p->elem == COOP__E_VALUE) return tu ? coop__vcpp(in) : coop__vctype(in);
  return tu ? coop__tcpp(in) : coop__tctype(in);
}

static void params(coop__str *s, const coop__inst *in, int tu)
{
  const coop__variant *v = &coop__families[in->fam].variants[in->variant];
  int first = 1;
  for (int i = 0; i < COOP__MAX_PARAMS; ++i) {
    if (!param_present(in, &v->params[i])) continue;
    if (!first) coop__str_add(s, ", ");
    first = 0;
    param_decl(s, elem_type(in, &v->params[i], tu), &v->params[i]);
  }
}

void coop__signature(coop__str *s, const coop__inst *in)
{
  coop__str_printf(s, "void %s(", in->symbol);
  params(s, in, 0);
  coop__str_add(s, ")");
}

/* The primitives template of an instance: <type, geometry[, items][, algorithm][, value type]>, the geometry a
 * block's X, Y, Z or a logical warp's lanes; a family with key-value variants takes the value type (void for
 * keys alone). coop::block_reduce<float, 256, 1, 1, 4, cub::BLOCK_REDUCE_RAKING>; coop::warp_reduce<float, 8>;
 * coop::warp_merge_sort<float, 16, 4, void> */
static void tmpl_instance(coop__str *s, const coop__inst *in)
{
  const coop__family *f = &coop__families[in->fam];
  coop__str_printf(s, "%s<%s, %d", f->tmpl, coop__tcpp(in), in->bx);
  if (f->scope == COOP__SCOPE_BLOCK) coop__str_printf(s, ", %d, %d", in->by, in->bz);
  if (coop__has_items(f)) coop__str_printf(s, ", %d", in->items);
  if (in->algo >= 0) coop__str_printf(s, ", %s", f->algos[in->algo].cub);
  if (coop__has_pairs(f)) coop__str_printf(s, ", %s", in->vtype >= 0 ? coop__vcpp(in) : "void");
  if (f->extra) coop__str_printf(s, ", %d", in->extra);
  coop__str_add(s, ">");
}

/* The user types gen's instances take (keys and values), each once, in order of first use; returns their
 * count (at most max). */
static int user_types(const coop_gen *gen, const coop__utype **out, int max)
{
  int n = 0;
  for (size_t i = 0; i < gen->n_insts; ++i) {
    const coop__inst *in = &gen->insts[i];
    const coop__utype *both[2] = {coop__is_user_type(in) ? &in->user : NULL,
                                  in->vtype >= coop__n_types ? &in->vuser : NULL};
    for (int b = 0; b < 2; ++b) {
      int seen = !both[b];
      for (int k = 0; k < n && !seen; ++k) seen = !strcmp(out[k]->name, both[b]->name);
      if (!seen && n < max) out[n++] = both[b];
    }
  }
  return n;
}

/* A user type in the TU: opaque aligned bytes (what CUB copies, shuffles and stores). */
static void emit_user_types(coop__str *s, const coop_gen *gen)
{
  const coop__utype *ut[2 * COOP__MAX_USER_TYPES];
  for (int i = 0, n = user_types(gen, ut, 2 * COOP__MAX_USER_TYPES); i < n; ++i) {
    const coop__utype *u = ut[i];
    coop__str_printf(s, "struct alignas(%u) %s\n{\n  unsigned char b[%u];\n};\n\n", u->align, u->cpp, u->size);
  }
}

void coop__emit_wrappers(coop__str *s, const coop_gen *gen, int with_checks, int preprocessed)
{
  emit_user_types(s, gen);
  emit_custom_ops(s, gen, preprocessed);
  for (size_t i = 0; i < gen->n_insts; ++i) {
    const coop__inst *in = &gen->insts[i];
    const coop__family *f = &coop__families[in->fam];
    const coop__variant *v = &f->variants[in->variant];
    coop__str_printf(s, "extern \"C\" %s void %s(", preprocessed ? "__attribute__((device))" : "__device__", in->symbol);
    params(s, in, 1);
    coop__str_add(s, ")\n{\n  using P = ");
    tmpl_instance(s, in);
    coop__str_add(s, ";\n");
    if (with_checks)
      coop__str_printf(s,
                       "  static_assert(coop::temp_bytes<P::temp_t>() == %lluull && coop::temp_align<P::temp_t>() == "
                       "%lluull, \"temp size recorded by coopgen differs from CUB's\");\n",
                       in->temp_bytes, in->temp_align);
    int sum_form = in->op == 0 && v->sum_method;
    coop__str_printf(s, "  P::%s(", sum_form ? v->sum_method : v->method);
    int first = 1;
    for (int k = 0; k < COOP__MAX_PARAMS; ++k) {
      if (!param_present(in, &v->params[k])) continue;
      coop__str_printf(s, "%s%s", first ? "" : ", ", v->params[k].name);
      first = 0;
    }
    if (in->op == COOP__OP_CUSTOM) {
      coop__str_add(s, ", ");
      custom_functor_name(s, in);
      coop__str_add(s, "{}");
    } else if (in->op >= 0 && !sum_form) {
      coop__str_printf(s, ", %s{}", coop__ops[in->op].functor);
    }
    coop__str_add(s, ");\n}\n\n");
  }
}

void coop__emit_source(coop__str *s, const coop_gen *gen, int with_checks)
{
  coop__str_printf(s, "// Generated by coopgen %s for bundle '%s'. Do not edit.\n", COOP_VERSION_STRING,
                   gen->name ? gen->name : "");
  int used[COOP__FAM_COUNT] = {0};
  for (size_t i = 0; i < gen->n_insts; ++i) used[gen->insts[i].fam] = 1;
  for (int f = 0; f < COOP__FAM_COUNT; ++f)
    if (used[f]) coop__str_printf(s, "#include \"%s\"\n", coop__families[f].header);
  coop__str_add(s, "\n");
  coop__emit_wrappers(s, gen, with_checks, 0);
}

/* The probe's name expression for one instance's temp storage. */
void coop__probe_expr(coop__str *s, const coop__inst *in)
{
  coop__str_add(s, "&coop__probe<coop::temp_bytes<");
  tmpl_instance(s, in);
  coop__str_add(s, "::temp_t>(), coop::temp_align<");
  tmpl_instance(s, in);
  coop__str_add(s, "::temp_t>()>");
}

static void upper(coop__str *s, const char *text)
{
  for (const char *p = text; *p; ++p) {
    char c = (char)toupper((unsigned char)*p);
    coop__str_addn(s, &c, 1);
  }
}

void coop__emit_header(coop__str *s, const coop_gen *gen)
{
  coop__str_printf(s,
                   "/* Generated by coopgen %s: bundle '%s'. Do not edit.\n"
                   " *\n"
                   " * Device functions of the cooplink C ABI, defined in this bundle's LTO-IR. Element values are\n"
                   " * passed by pointer; temp is caller-owned memory (usually __shared__) of at least\n"
                   " * <SYMBOL>_TEMP_BYTES bytes aligned to <SYMBOL>_TEMP_ALIGN; 0 bytes means temp may be NULL.\n"
                   " * Functions do not synchronize on exit: __syncthreads() before reusing temp. A block reduce's\n"
                   " * aggregate is defined in thread 0 only. A warp primitive (coop_warp_*_w<L>) works on logical\n"
                   " * warps of L lanes (thread t is in warp t / L); its temp is that logical warp's own slot of\n"
                   " * _TEMP_BYTES (__syncwarp() before reusing it), and a warp reduce's aggregate is defined in\n"
                   " * lane 0 only. */\n",
                   COOP_VERSION_STRING, gen->name);
  coop__str add = {0};
  coop__str_add(&add, "COOP_BUNDLE_");
  upper(&add, gen->name);
  coop__str_add(&add, "_H");
  coop__str_printf(s, "#ifndef %s\n#define %s\n\n", coop__str_get(&add), coop__str_get(&add));
  if (add.oom) s->oom = 1;
  coop__str_free(&add);
  for (size_t i = 0; i < gen->n_insts; ++i) {
    const coop__inst *in = &gen->insts[i];
    coop__str_add(s, "#define ");
    upper(s, in->symbol);
    coop__str_printf(s, "_TEMP_BYTES %llu\n#define ", in->temp_bytes);
    upper(s, in->symbol);
    coop__str_printf(s, "_TEMP_ALIGN %llu\n", in->temp_align);
  }
  int f16 = 0, bf16 = 0;
  for (size_t i = 0; i < gen->n_insts; ++i) {
    f16 |= strcmp(coop__tcode(&gen->insts[i]), "f16") == 0;
    bf16 |= strcmp(coop__tcode(&gen->insts[i]), "bf16") == 0;
  }
  coop__str_add(s, "\n#if defined(__CUDACC__) || defined(__CUDACC_RTC__)\n"
                   "#if defined(__CUDACC_RTC__)\n#include <cuda/std/cstdint>\n#else\n#include <stdint.h>\n#endif\n");
  if (f16) coop__str_add(s, "#include <cuda_fp16.h>\n");
  if (bf16) coop__str_add(s, "#include <cuda_bf16.h>\n");
  const coop__utype *ut[2 * COOP__MAX_USER_TYPES];
  for (int i = 0, n = user_types(gen, ut, 2 * COOP__MAX_USER_TYPES); i < n; ++i) {
    /* user types: opaque bytes, or the user's own type */
    const coop__utype *u = ut[i];
    coop__str_printf(s,
                     "\n/* User type '%s': %u bytes aligned to %u. Define %s as your own type of that size and\n"
                     " * alignment before including this header to call these functions with it. */\n"
                     "#ifndef %s\nstruct alignas(%u) coop_%s\n{\n  unsigned char b[%u];\n};\n#define %s struct coop_%s\n#endif\n"
                     "static_assert(sizeof(%s) == %u && alignof(%s) >= %u, \"%s must be %u bytes aligned to %u: the bundle "
                     "was generated for that\");\n",
                     u->name, u->size, u->align, u->ctype, u->ctype, u->align, u->name, u->size, u->ctype, u->name,
                     u->ctype, u->size, u->ctype, u->align, u->ctype, u->size, u->align);
  }
  coop__str_add(s, "\n#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n");
  for (size_t i = 0; i < gen->n_insts; ++i) { /* the custom operators the bundle calls: the user defines them */
    const coop__inst *in = &gen->insts[i];
    int seen = in->op != COOP__OP_CUSTOM;
    for (size_t k = 0; k < i && !seen; ++k) seen = gen->insts[k].op == COOP__OP_CUSTOM && !strcmp(gen->insts[k].custom, in->custom);
    if (seen) continue;
    const char *T = coop__tctype(in);
    if (coop__families[in->fam].uses_op == 2)
      coop__str_printf(s, "__device__ int %s(const %s *a, const %s *b); /* yours: %s */\n", in->custom, T, T,
                       coop__op_kind(&coop__families[in->fam]) == COOP__K_FLAG ? "a discontinuity between a and b"
                                                                               : "a goes before b");
    else
      coop__str_printf(s, "__device__ void %s(const %s *a, const %s *b, %s *out); /* your operator */\n", in->custom,
                       T, T, T);
  }
  for (size_t i = 0; i < gen->n_insts; ++i) {
    coop__str_add(s, "__device__ ");
    coop__signature(s, &gen->insts[i]);
    coop__str_add(s, ";\n");
  }
  coop__str_printf(s, "\n#ifdef __cplusplus\n}\n#endif\n#endif /* __CUDACC__ */\n#endif\n");
}

static const char *kind_name(int kind)
{
  switch (kind) {
  case COOP__P_IN: return "in";
  case COOP__P_OUT: return "out";
  case COOP__P_INOUT: return "inout";
  case COOP__P_INT: return "int";
  default: return "temp";
  }
}

coop_result coop__emit_manifest(coop__str *s, const coop_gen *gen, const char *header_file, const char *header_hash,
                                const coop__payload_desc *payloads, int n_payloads)
{
  int archs[32];
  int n_archs = coop__effective_archs((coop_gen *)gen, archs, 32);
  json_t *root = json_object();
  json_t *syms = json_array();
  json_t *pays = json_array();
  json_t *jarchs = json_array();
  if (!root || !syms || !pays || !jarchs) goto oom;
  json_object_set_new(root, "format", json_integer(2));
  json_object_set_new(root, "generator", json_string("coopgen"));
  json_object_set_new(root, "cooplink_version", json_string(COOP_VERSION_STRING));
  char ver[32];
  snprintf(ver, sizeof ver, "%d.%d", gen->nvrtc_major, gen->nvrtc_minor);
  json_object_set_new(root, "cuda_version", json_string(ver));
  snprintf(ver, sizeof ver, "%d.%d.%d", gen->cccl_version / 1000000, gen->cccl_version / 1000 % 1000,
           gen->cccl_version % 1000);
  json_object_set_new(root, "cccl_version", json_string(ver));
  json_object_set_new(root, "name", json_string(gen->name));
  for (int i = 0; i < n_archs; ++i) {
    char a[16];
    snprintf(a, sizeof a, "sm_%d", archs[i]);
    json_array_append_new(jarchs, json_string(a));
  }
  for (int i = 0; i < n_payloads; ++i) {
    const coop__payload_desc *d = &payloads[i];
    json_t *p = json_object();
    if (d->fatbin) {
      json_object_set_new(p, "kind", json_string("fatbin"));
      json_object_set_new(p, "archs", json_deep_copy(jarchs));
    } else {
      char a[16];
      snprintf(a, sizeof a, "sm_%d", d->arch);
      json_object_set_new(p, "arch", json_string(a));
      json_object_set_new(p, "kind", json_string("ltoir"));
    }
    json_object_set_new(p, "file", json_string(d->file));
    json_object_set_new(p, "bytes", json_integer((json_int_t)d->bytes));
    json_object_set_new(p, "sha256", json_string(d->sha256));
    json_array_append_new(pays, p);
  }
  json_object_set_new(root, "archs", jarchs);
  json_object_set_new(root, "ir", json_string(gen->ir_optimized ? "optimized" : "plain"));
  json_t *hdr = json_object();
  json_object_set_new(hdr, "file", json_string(header_file));
  json_object_set_new(hdr, "sha256", json_string(header_hash));
  json_object_set_new(root, "header", hdr);
  json_object_set_new(root, "payloads", pays);
  json_t *utypes = json_array();
  const coop__utype *ut[2 * COOP__MAX_USER_TYPES];
  for (int i = 0, n = user_types(gen, ut, 2 * COOP__MAX_USER_TYPES); i < n; ++i) {
    /* the user types the symbols take, as declared */
    const coop__utype *u = ut[i];
    json_t *t = json_object();
    json_object_set_new(t, "name", json_string(u->name));
    json_object_set_new(t, "size", json_integer(u->size));
    json_object_set_new(t, "align", json_integer(u->align));
    json_object_set_new(t, "ctype", json_string(u->ctype));
    json_array_append_new(utypes, t);
  }
  json_object_set_new(root, "types", utypes);
  for (size_t i = 0; i < gen->n_insts; ++i) {
    const coop__inst *in = &gen->insts[i];
    const coop__family *f = &coop__families[in->fam];
    const coop__variant *v = &f->variants[in->variant];
    json_t *o = json_object();
    json_object_set_new(o, "name", json_string(in->symbol));
    json_object_set_new(o, "family", json_string(f->name));
    json_object_set_new(o, "variant", json_string(v->name));
    json_object_set_new(o, "type", json_string(coop__tcode(in)));
    json_object_set_new(o, "value_type", in->vtype >= 0 ? json_string(coop__vcode(in)) : json_null());
    char opname[64];
    json_object_set_new(o, "op", in->op >= 0 ? json_string(coop__op_spelling(in, opname, sizeof opname)) : json_null());
    json_object_set_new(o, "algorithm", in->algo >= 0 ? json_string(f->algos[in->algo].name) : json_null());
    int warp = f->scope == COOP__SCOPE_WARP;
    json_object_set_new(o, "scope", json_string(warp ? "warp" : "block"));
    if (warp) { /* any block shape: the threads form logical warps of this many lanes */
      json_object_set_new(o, "block", json_null());
      json_object_set_new(o, "warp", json_integer(in->bx));
    } else {
      json_t *blk = json_array();
      json_array_append_new(blk, json_integer(in->bx));
      json_array_append_new(blk, json_integer(in->by));
      json_array_append_new(blk, json_integer(in->bz));
      json_object_set_new(o, "block", blk);
      json_object_set_new(o, "warp", json_null());
    }
    json_object_set_new(o, "items", json_integer(in->items));
    if (f->extra) json_object_set_new(o, f->extra, json_integer(in->extra)); /* bins, decoded items */
    json_t *ps = json_array();
    for (int k = 0; k < COOP__MAX_PARAMS; ++k) {
      const coop__param *p = &v->params[k];
      if (!param_present(in, p)) continue;
      coop__str d = {0};
      coop__param_decl(&d, in, p);
      json_t *jp = json_object();
      json_object_set_new(jp, "name", json_string(p->name));
      json_object_set_new(jp, "kind", json_string(kind_name(p->kind)));
      json_object_set_new(jp, "decl", json_string(coop__str_get(&d)));
      json_object_set_new(jp, "nullable", json_boolean(p->nullable || (p->kind == COOP__P_TEMP && !in->temp_bytes)));
      if (p->kind == COOP__P_IN || p->kind == COOP__P_OUT || p->kind == COOP__P_INOUT) {
        static const char *shapes[] = {"", "one", "items", "tile", "extra"};
        long long threads = (long long)in->bx * in->by * in->bz; /* a warp family: its lanes */
        long long count = p->shape == COOP__S_TILE    ? threads * in->items
                          : p->shape == COOP__S_ITEMS ? in->items
                          : p->shape == COOP__S_EXTRA ? in->extra
                                                      : 1;
        json_object_set_new(jp, "type", json_string(p->elem == COOP__E_INT     ? "i32"
                                                    : p->elem == COOP__E_U32   ? "u32"
                                                    : p->elem == COOP__E_VALUE ? coop__vcode(in)
                                                                               : coop__tcode(in)));
        json_object_set_new(jp, "shape", json_string(shapes[p->shape]));
        json_object_set_new(jp, "count", json_integer((json_int_t)count));
      }
      json_array_append_new(ps, jp);
      if (d.oom) s->oom = 1; /* (a declaration cut short must not reach the manifest) */
      coop__str_free(&d);
    }
    json_object_set_new(o, "params", ps);
    coop__str sig = {0};
    coop__signature(&sig, in);
    json_object_set_new(o, "signature", json_string(coop__str_get(&sig)));
    if (sig.oom) s->oom = 1;
    coop__str_free(&sig);
    json_object_set_new(o, "temp_bytes", json_integer((json_int_t)in->temp_bytes));
    json_object_set_new(o, "temp_align", json_integer((json_int_t)in->temp_align));
    json_t *needs = json_array();
    if (in->op == COOP__OP_CUSTOM) { /* the operator the user's link must define */
      json_t *nd = json_object();
      const int cmp = f->uses_op == 2;
      json_object_set_new(nd, "name", json_string(in->custom));
      json_object_set_new(nd, "kind", json_string(cmp ? "comparator" : "operator"));
      coop__str d = {0};
      const char *T = coop__tctype(in);
      if (cmp) coop__str_printf(&d, "extern \"C\" __device__ int %s(const %s *a, const %s *b)", in->custom, T, T);
      else coop__str_printf(&d, "extern \"C\" __device__ void %s(const %s *a, const %s *b, %s *out)", in->custom, T, T, T);
      json_object_set_new(nd, "signature", json_string(coop__str_get(&d)));
      if (d.oom) s->oom = 1;
      coop__str_free(&d);
      json_array_append_new(needs, nd);
    }
    json_object_set_new(o, "needs", needs);
    json_array_append_new(syms, o);
  }
  json_object_set_new(root, "symbols", syms);
  char *text = s->oom ? NULL : json_dumps(root, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
  json_decref(root);
  if (!text) return COOP_ERROR_OUT_OF_MEMORY;
  coop__str_add(s, text);
  coop__str_add(s, "\n");
  free(text);
  return s->oom ? COOP_ERROR_OUT_OF_MEMORY : COOP_SUCCESS;
oom:
  json_decref(root);
  json_decref(syms);
  json_decref(pays);
  json_decref(jarchs);
  return COOP_ERROR_OUT_OF_MEMORY;
}
