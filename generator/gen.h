/* coopgen internals: the tables of the device ABI and the expanded instantiations. */
#ifndef COOP_GEN_H
#define COOP_GEN_H

#include "../common/common.h"
#include <cooplink/coopgen.h>

enum {
  COOP__FAM_LOAD,
  COOP__FAM_STORE,
  COOP__FAM_REDUCE,
  COOP__FAM_SCAN,
  COOP__FAM_WARP_REDUCE,
  COOP__FAM_WARP_SCAN,
  COOP__FAM_WARP_LOAD,
  COOP__FAM_WARP_STORE,
  COOP__FAM_WARP_EXCHANGE,
  COOP__FAM_WARP_MERGE_SORT,
  COOP__FAM_BLOCK_EXCHANGE,
  COOP__FAM_BLOCK_MERGE_SORT,
  COOP__FAM_BLOCK_DISCONTINUITY,
  COOP__FAM_BLOCK_ADJACENT_DIFFERENCE,
  COOP__FAM_BLOCK_SHUFFLE,
  COOP__FAM_BLOCK_RADIX_SORT,
  COOP__FAM_BLOCK_HISTOGRAM,
  COOP__FAM_BLOCK_RUN_LENGTH_DECODE,
  COOP__FAM_BLOCK_RADIX_RANK,
  COOP__FAM_COUNT
};
/* Who cooperates: a thread block (geometry t<X>[x<Y>x<Z>]_i<items>), or a logical warp of L lanes (w<L>). */
enum { COOP__SCOPE_BLOCK, COOP__SCOPE_WARP };

typedef struct coop__type {
  const char *code;  /* ABI type code, "f32" */
  const char *ctype; /* C type in headers and signatures */
  const char *cpp;   /* type in the generated TU */
  int is_int;
} coop__type;

typedef struct coop__op {
  const char *name;
  const char *functor; /* coop::op_sum ... */
  int bitwise;
  int kinds; /* the families that take it, by what their op is (COOP__K_*) */
} coop__op;
/* What a family's op is: a reduction's or scan's (T op(a, b)), a sort's ordering (int cmp(a, b), a before b),
 * a discontinuity's flag (int flag(a, b), a discontinuity between a and b), an adjacent difference's
 * (T op(b, a)). */
enum { COOP__K_REDUCE = 1, COOP__K_ORDER = 2, COOP__K_FLAG = 4, COOP__K_DIFF = 8 };

typedef struct coop__algo {
  const char *name; /* symbol suffix */
  const char *cub;  /* CUB enumerator */
  int warp_multiple; /* needs a thread count that is a multiple of 32 */
  int pow2_lanes;    /* a warp algorithm that needs a power-of-two logical warp */
  int items_eq_lanes; /* ... and as many items per thread as lanes (CUB's shuffle exchange) */
  int builtin_only;   /* no user type (CUB's shuffle exchange calls __shfl_xor_sync on the values) */
} coop__algo;

/* Parameter kinds of the C ABI. */
enum { COOP__P_IN, COOP__P_OUT, COOP__P_INOUT, COOP__P_INT, COOP__P_TEMP };
/* What an element parameter points to: one element, the thread's items_per_thread items, or the
 * block's whole tile (items_per_thread x threads, in memory). */
enum { COOP__S_ONE = 1, COOP__S_ITEMS, COOP__S_TILE, COOP__S_EXTRA /* the family's extra number of them */ };

typedef struct coop__param {
  const char *name;
  int kind;
  int skip_for_sum; /* absent when op is sum (the exclusive scan's initial value) */
  int nullable;
  int shape; /* element parameters: COOP__S_* */
  int elem; /* element parameters: of the family's type (0), of int (COOP__E_INT: an exchange's ranks), of the
              value type (COOP__E_VALUE: a sort's values) */
} coop__param;
enum { COOP__E_INT = 1, COOP__E_VALUE, COOP__E_U32 /* unsigned int: counters, run lengths */ };

#define COOP__MAX_PARAMS 8
typedef struct coop__variant {
  const char *name;     /* spec value: "plain", "partial", "exclusive_prefix" */
  const char *stem;     /* function part of the symbol; %s is the op */
  const char *method;   /* method of the primitives template */
  const char *sum_method; /* method used for op sum instead (no op argument), or NULL */
  int single_item;      /* always one item per thread */
  coop__param params[COOP__MAX_PARAMS];
  const char *not_algo; /* an algorithm this variant cannot take (CUB's shuffle exchange has no scatter) */
  int pairs;            /* takes a value type (a sort of key-value pairs) */
  const char *not_algo_why; /* why not (NULL: CUB has no such method) */
  int whole_warps;      /* a block of at most 32 threads or of whole warps (CUB's warp-striped exchange) */
} coop__variant;

typedef struct coop__family {
  const char *name;     /* "block_reduce" */
  const char *header;   /* primitives file */
  const char *tmpl;     /* coop::block_reduce */
  int uses_op; /* 0: none; 1: an operator, T op(a, b); 2: a predicate, int op(a, b) (custom ops' C signatures) */
  const coop__algo *algos;
  int n_algos;
  int default_algo;
  const coop__variant *variants;
  int n_variants;
  int scope; /* COOP__SCOPE_* */
  int warp_items; /* a warp family with items per thread (load, store, exchange, sort): w<L>_i<N>[_<algo>] */
  int pow2_lanes; /* the family needs a power-of-two logical warp (a block family: thread count), whatever the
                     algorithm */
  int op_kind; /* COOP__K_*: its op's kind (0: COOP__K_REDUCE for operators, COOP__K_ORDER for predicates) */
  const char *no_user_type; /* why its type (a sort's keys) cannot be a user type, or NULL */
  int integer_only;         /* its type must be a built-in integer type (a histogram's bin numbers) */
  const char *extra;        /* a second number of the instance ("bins", "decoded"): its spec field, its template
                               argument after the others, its symbol suffix _<extra's first letter><n> */
} coop__family;
static inline int coop__warp_items(const coop__family *f) { return f->scope == COOP__SCOPE_WARP && f->warp_items; }
/* Whether the symbol and the template take items per thread: every block family, and warp_items. */
static inline int coop__has_items(const coop__family *f) { return f->scope == COOP__SCOPE_BLOCK || f->warp_items; }
static inline int coop__op_kind(const coop__family *f)
{
  return f->op_kind ? f->op_kind : f->uses_op == 2 ? COOP__K_ORDER : COOP__K_REDUCE;
}
static inline int coop__has_pairs(const coop__family *f)
{
  for (int v = 0; v < f->n_variants; ++v)
    if (f->variants[v].pairs) return 1;
  return 0;
}

extern const coop__type coop__types[];
extern const int coop__n_types;
extern const coop__op coop__ops[];
extern const int coop__n_ops;
extern const coop__family coop__families[];

/* A user-defined type ({name, size, align} in a spec, --user-type, coop_gen_add_type): carried as an opaque
 * struct __align__(align) { unsigned char b[size]; }; its operators are custom. Its index is coop__n_types
 * + its place in the handle's list. */
#define COOP__MAX_USER_TYPES 32
typedef struct coop__utype {
  char name[25];  /* [a-z][a-z0-9]*: the type code in symbols */
  char ctype[40]; /* COOP_TYPE_<NAME>: the header's macro (the user may define it as their own type) */
  char cpp[40];   /* coop_user_<name>: the TU's struct */
  unsigned size, align;
} coop__utype;

/* A user's operator (op "custom:<name>"): the wrapper calls extern "C" __device__ void <name>(const T *a,
 * const T *b, T *out), which the user's link supplies. */
#define COOP__OP_CUSTOM 1000

/* One instantiation: one C-ABI symbol. */
typedef struct coop__inst {
  int fam, variant, type, op /* -1 if none, COOP__OP_CUSTOM */, algo /* -1 for a family without algorithms */;
  char custom[48]; /* the custom operator's name */
  coop__utype user; /* type >= coop__n_types: the user type */
  int vtype;        /* a sort of pairs: the value type (-1: none) */
  coop__utype vuser;
  int bx, by, bz, items; /* a warp family: bx is the logical warp's lanes, by = bz = items = 1 */
  int extra;             /* the family's extra number (bins, decoded items), 0 if none */
  char symbol[200];
  char geom[32];
  char *where; /* where it was requested, for messages */
  unsigned long long temp_bytes, temp_align;
} coop__inst;

/* The embedded primitives sources (generated at build time from primitives/). */
typedef struct coop__embedded {
  const char *name;
  const char *text;
} coop__embedded;
extern const coop__embedded coop__primitives[];
extern const int coop__n_primitives;
#define COOP__MAX_PRIMITIVES 64 /* embed.py asserts that the primitives files fit (NVRTC's header arrays) */

struct coop_gen {
  coop__str log;
  char *name;
  int archs[32];
  int n_archs; /* 0: default */
  coop__inst *insts;
  size_t n_insts, cap_insts;
  int nvrtc_major, nvrtc_minor, cccl_version; /* filled by the compile */
  int probed;                                 /* temp sizes and versions known: coop__compile skips the probe */
  int unit_per_symbol;                        /* catalog units of one symbol each (spec "units": "symbol") */
  int ir_optimized;                           /* pre-optimised LTO-IR (spec "ir": "optimized", --ir) */
  int ir_forced;                              /* set by coop_gen_set_ir: a spec's "ir" does not change it */
  coop__utype utypes[COOP__MAX_USER_TYPES];   /* declared user types */
  int n_utypes;
  int names_only; /* symbols are parsed for their names only: an unknown type is taken for a user type */
};

/* The element type of an instance: its code in symbols, its C type (header, signatures), its TU type. */
const char *coop__tcode(const coop__inst *in);
const char *coop__tctype(const coop__inst *in);
const char *coop__tcpp(const coop__inst *in);
/* ... of a sort's values */
const char *coop__vcode(const coop__inst *in);
const char *coop__vctype(const coop__inst *in);
const char *coop__vcpp(const coop__inst *in);
static inline int coop__is_user_type(const coop__inst *in) { return in->type >= coop__n_types; }

/* The op as the symbol spells it ("sum", "custom_my_add"), or "" for a family without ops. */
const char *coop__op_spelling(const coop__inst *in, char *buf, size_t size);
/* Builds the C prototype of inst ("void coop_...(const float *items, ...)") into s. */
void coop__signature(coop__str *s, const coop__inst *inst);
/* Appends "T *name" for a parameter. */
void coop__param_decl(coop__str *s, const coop__inst *inst, const coop__param *p);
/* Builds the TU source; with_checks adds the static_asserts of the probed temp sizes. */
void coop__emit_source(coop__str *s, const coop_gen *gen, int with_checks);
/* The wrappers alone, without the #include lines and with the device attribute spelled without macros
 * (__attribute__((device))), to follow a family header already preprocessed (lean.c). */
void coop__emit_wrappers(coop__str *s, const coop_gen *gen, int with_checks, int preprocessed);
/* The probe's name expression for one instance's temp storage. */
void coop__probe_expr(coop__str *s, const coop__inst *inst);
/* Builds the C header. */
void coop__emit_header(coop__str *s, const coop_gen *gen);
/* One payload file of a bundle: LTO-IR for one arch, or a fatbin with one lto entry per arch of gen. */
typedef struct coop__payload_desc {
  int fatbin;
  int arch; /* LTO-IR only */
  const char *file;
  const char *sha256;
  size_t bytes;
} coop__payload_desc;

/* Builds the manifest JSON (format 2). */
coop_result coop__emit_manifest(coop__str *s, const coop_gen *gen, const char *header_file, const char *header_hash,
                                const coop__payload_desc *payloads, int n_payloads);

/* NVRTC: probes temp sizes into gen->insts (unless gen->probed), then compiles one LTO-IR per arch (in
 * parallel). */
coop_result coop__compile(coop_gen *gen, char **ltoir, size_t *ltoir_size);
/* The probe alone: toolkit checks, NVRTC and CCCL versions, temp sizes of every instance (one front
 * end pass for all of them); sets gen->probed. */
coop_result coop__probe_all(coop_gen *gen);

/* lean.c: the toolkit's cicc with nvcc's own commands for one arch (see there why). */
typedef struct coop__lean {
  int arch;
  char **pp, **cicc;      /* argv of the device preprocessor and of cicc, NULL-terminated */
  int pp_in, pp_out;      /* indices of the input and the output file in pp */
  int ci_in, ci_out;      /* ... in cicc */
  int ci_side[7];         /* source names, then side files of cicc (-1 where absent) */
} coop__lean;
coop_result coop__lean_init(coop__lean *l, int arch, const char *workdir, int optimized, coop__str *log);
void coop__lean_free(coop__lean *l);
/* gcc -E (nvcc's command for the arch) of source (a file name in workdir) into out. */
coop_result coop__lean_preprocess(const coop__lean *l, const char *workdir, const char *source, const char *out,
                                  coop__str *log);
/* cicc of the preprocessed file ii into ltoir; jobdir holds its side files and log. */
coop_result coop__lean_compile(const coop__lean *l, const char *jobdir, const char *ii, const char *ltoir,
                               coop__str *log);
int coop__fatbinary_available(void);
/* A compressed fatbin with one nvvm (LTO-IR) entry per arch. */
coop_result coop__fatbinary(const char *out, const int *archs, char *const *ltoir_paths, int n, const char *logdir,
                            coop__str *log);
/* Runs argv in cwd, stdout and stderr to log_path; the exit status, -1 if not started or killed. */
int coop__run(char *const *argv, const char *cwd, const char *log_path);
int coop__job_count(int n);

/* The archs to build: gen's or the default list. */
int coop__effective_archs(coop_gen *gen, int *archs, int max);
coop_result coop__nvrtc_archs(int *archs, int *n, int max);

void coop__log(coop_gen *gen, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
