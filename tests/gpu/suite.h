/* The GPU suite's shared declarations: the cases, their types and the host reference values. */
#ifndef COOP_GPU_SUITE_H
#define COOP_GPU_SUITE_H

#include <stddef.h>
#include <stdint.h>

/* FAM_WSORT's "algorithms" are its comparators: less, greater, and custom:sortcmp_<type> (keys by key / 2,
 * descending: many ties, so the values, each item's place, show the stability; mat2: by field a) */
enum { FAM_LOAD, FAM_STORE, FAM_REDUCE, FAM_SCAN, FAM_WREDUCE, FAM_WSCAN, FAM_WLOAD, FAM_WSTORE, FAM_WEXCH, FAM_WSORT,
       FAM_BEXCH, FAM_BSORT, FAM_BDISC, FAM_BADJ, FAM_BSHUF, FAM_BRADIX, FAM_BHIST, FAM_BRLD, FAM_BRANK, N_FAMS };
/* FAM_BHIST: kase.wi is its bins; FAM_BRLD: kase.n its runs a thread, kase.wi its decoded items a thread */
/* FAM_BRADIX's algorithms are radix bits; each block of a launch sorts its own bit range */
/* FAM_BSORT's "algorithms" are FAM_WSORT's comparators; FAM_BDISC's its flag ops (ne, less, and
 * custom:disc_<type>: key / 2 differs), FAM_BADJ's its difference ops (sub, and custom:adj_<type>: a + b) */
/* OP_LAST: a custom operator (custom:last_<type>, out = b), associative and not commutative, defined by
 * the test code: results show the operand order. OP_MATMUL: the user type mat2 (a 2x2 matrix of uint32,
 * 16 bytes aligned to 16, declared to the generator) with its only operator, the matrix product modulo
 * 2^32 (custom:matmul, defined by the test code): exact, associative, not commutative. */
enum { OP_SUM, OP_MIN, OP_MAX, OP_PROD, OP_AND, OP_OR, OP_XOR, OP_LAST, OP_MATMUL, N_OPS };
enum { K_INT, K_F16, K_BF16, K_F32, K_F64, K_MAT };

typedef struct tinfo {
  const char *code, *ctype;
  int size, is_int, is_signed, kind;
} tinfo;
extern const tinfo TY[];
#define N_TYPES 13
#define T_MAT2 12 /* TY[T_MAT2]: the user type */
extern const char *const OPS[N_OPS];
extern const char *const FAMS[N_FAMS];
extern const char *const VARS[N_FAMS][8];
/* the pow2 logical warps of the warp data families */
extern const int PWARPS[6];
extern const int N_VARS[N_FAMS];
/* the warp families have no algorithm (CUB chooses): one nameless entry */
extern const char *const ALGOS[N_FAMS][12];
extern const int N_ALGOS[N_FAMS];
/* logical warps: every size CUB takes; the power-of-two ones use shuffles, the others shared memory */
extern const int WARPS[];
#define N_WARPS 11
static inline int is_warp_fam(int fam) { return fam >= FAM_WREDUCE && fam <= FAM_WSORT; }
/* warp load, store and exchange: items per lane (kase.wi) and an algorithm; power-of-two warps */
static inline int is_warp_data_fam(int fam) { return fam >= FAM_WLOAD && fam <= FAM_WSORT; }
static inline int is_sort_fam(int fam) { return fam == FAM_WSORT || fam == FAM_BSORT; }
/* the second wave's block families (suite_block2.c) */
static inline int is_block2_fam(int fam) { return fam >= FAM_BEXCH; }
/* The loads' algorithms are CUB's, then each again by its LOAD_CS modifier (`_cs`): the same layout */
static inline int base_algo(int fam, int algo) { return fam == FAM_LOAD ? algo % 6 : fam == FAM_WLOAD ? algo % 4 : algo; }
static inline int uses_op(int fam) { return fam == FAM_REDUCE || fam == FAM_SCAN || fam == FAM_WREDUCE || fam == FAM_WSCAN; }
extern const int SHAPES[][3];
#define N_SHAPES 10
extern const int ITEMS[4];
#define GRID 4   /* blocks per launch: each its own tile and its own partial count */
#define TILES 3  /* tiles per block for the _prefix scans */
#define SHARD 48 /* cases per bundle / link */

typedef struct kase {
  int fam, var, type, op, algo, bx, by, bz, n; /* n: items per thread; a warp case: the logical warp's lanes */
  int wi;                                      /* a warp data case: items per lane */
  char sym[160];
  size_t temp_bytes;
  int shard;
  int failed;
} kase;


/* ---- host values and the reference (suite_values.c) ---- */
extern uint64_t rng_state;
uint64_t rnd(void);
double unif(double a, double b);
long double ld_f(const tinfo *t, const void *p);
void st_f(const tinfo *t, void *p, double v);
uint64_t ld_u(const tinfo *t, const void *p);
void st_u(const tinfo *t, void *p, uint64_t v);

/* A reference value: integers as wrapped 64-bit, floats in long double with the sum of magnitudes
 * and the number of roundings that went into it. */
typedef struct val {
  uint64_t u;
  uint32_t m[4]; /* mat2: row-major */
  long double f, mag;
  int depth;
} val;
val load_val(const tinfo *t, const void *p);
val combine(const tinfo *t, int op, val a, val b);
/* Exact for integers and min/max/prod (whose inputs keep products exact); sums within
 * depth * u * sum|x|, where depth bounds the additions any one input passes through. */
int matches(const kase *k, const void *got, val ref, int depth_bound, char *why, size_t wsize);
/* A random input value for k's op: products stay exact, and/or keep bits, min/max spread out. */
void gen_value(const kase *k, void *p, size_t idx, size_t special1, size_t special2);


/* ---- warp cases (suite_warp.c); for them kase.n is the logical warp's lanes ---- */
#include <stdio.h>
void warp_shape(const kase *k, int which, int dims[3], int *n_warps);
/* a guarded sort's out-of-bounds default: last in the case's order */
void warp_sort_oob(const kase *k, unsigned char *p);
/* A merge sort's check of one group (a logical warp's or a block's tile of T items at `tile`, blocked): the
 * first n_valid places of out (keys) and out2 (u32 values: each item's place, for pairs) hold the stable
 * order of the first n_valid items (oob: the default of the others). */
int sort_group_check(const kase *k, const unsigned char *tile, int T, int n_valid, const unsigned char *oob,
                     const unsigned char *out, const unsigned char *out2, const char *where, char *msg, size_t msize);
void warp_kernel_source(FILE *f, const kase *k, int idx);
int warp_check(const kase *k, const int dims[3], const unsigned char *in, const unsigned char *out,
               const unsigned char *out2, const unsigned char *aux, const unsigned char *poison, const int *valid,
               int flag, char *msg, size_t msize);


/* ---- the second wave's block cases (suite_block2.c): kase.n is items per thread ---- */
void block2_kernel_source(FILE *f, const kase *k, int idx);
int block2_check(const kase *k, const unsigned char *in, const unsigned char *out, const unsigned char *out2,
                 const unsigned char *aux, const int *valid, char *msg, size_t msize);
/* the op of a case's group (a custom one written into buf), or NULL */
const char *block2_op(const kase *k, char *buf, size_t size);
/* the symbol's op part ("ne", "custom_disc_f32"), or "" */
const char *block2_op_spelling(const kase *k, char *buf, size_t size);
/* the test code's custom operators for the cases [first, first + count) */
void block2_prelude(FILE *f, const kase *cases, int first, int count);
/* out2's size in elements of the case's type: the flags and the sorts' values are 4-byte ints */
size_t block2_out2_items(const kase *k, size_t n_in, size_t es);
/* a case's inputs: small integers (runs, exact differences) */
static inline int small_keys(int fam) { return is_sort_fam(fam) || fam == FAM_BDISC || fam == FAM_BADJ; }

#endif
