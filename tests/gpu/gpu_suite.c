/* The GPU suite: for every family x variant x type x op x algorithm (two shapes each, sweeping thread
 * counts 1..1024, 2-D and 3-D blocks and items 1, 3, 4, 16), generate bundles with the generator
 * library, compile a test kernel per case with NVRTC -dlto, link it with the bundle by nvJitLink, run
 * it on the GPU over random inputs and seeded random partial tiles (outputs poisoned first) and
 * compare with a host reference: integers and min/max/prod exactly, float sums within a bound derived
 * from the number of additions. Ends with "N passed, M failed".
 *
 *   gpu_suite [--cpu-only] [--arch N] [--jobs N] [--seed N] [--filter TEXT] [--work DIR]
 *             [--save DIR | --prebuilt DIR] [--catalog DIR] [--short-temp BYTES] [--slice K/N]
 *
 * --catalog DIR tests a catalog instead (an installed one, coopgen --catalog): every symbol it holds is
 * a case, its test kernel includes the catalog's header and is linked through libcooplink against the
 * catalog (auto-resolution, the units' payloads as shipped), nothing generated.
 *
 * --cpu-only stops after generating and linking (no driver needed). --save DIR keeps each shard's
 * cubin and temp sizes; --prebuilt DIR runs those instead of building (tests/gpu/prepare.sh builds
 * them on the CPU machine, where the build is cheaper than device time). --slice K/N builds and runs
 * only the shards s with s % N == K, so that N processes share the suite (tests/gpu/sanitize.sh); --only I
 * runs case I alone (of those built or prebuilt with the same options). */
#include <cooplink/coopgen.h>
#include <jansson.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cooplink/cooplink.h>

#include "../../runtime/driver.h"
#include "../support/lto.h"
#include "suite.h"

static kase *cases;
static int n_cases;
static int arch = 90, jobs = 8, cpu_only;
static unsigned long long seed = 12345;
static const char *work = "/tmp/coop_gpu_suite";
static const char *filter;
/* --short-temp N: launch with N bytes less dynamic shared memory than the temp storage needs (none, past it):
 * a kernel whose primitive then touches temp must be reported by compute-sanitizer memcheck
 * (tests/gpu/sanitize.sh checks that it is) */
static long short_temp = -1;
static const char *catalog_dir;
static coop_catalog *catalog;
static char catalog_header[256];

/* ---- case list ---- */
/* the user type mat2 takes its own operator only, and only it */
static int op_ok(int type, int op)
{
  if ((type == T_MAT2) != (op == OP_MATMUL)) return 0;
  return op < OP_AND || op > OP_XOR || TY[type].is_int;
}
/* The op as the symbol spells it; a custom one: custom_last_<type> */
static const char *op_spelling(const kase *k, char *buf, size_t size)
{
  if (k->op == OP_LAST) snprintf(buf, size, "custom_last_%s", TY[k->type].code);
  else if (k->op == OP_MATMUL) snprintf(buf, size, "custom_matmul");
  else snprintf(buf, size, "%s", OPS[k->op]);
  return buf;
}
static int warp_algo(int fam, int algo) { return fam <= FAM_STORE && base_algo(fam, algo) >= 4; }
/* A block shape the case can take: whole warps for the warp-transpose algorithms; a power of two for the
 * merge sort; at most one warp or whole warps for the warp-striped exchanges (CUB's) */
static int shape_ok(int fam, int var, int algo, const int sh[3])
{
  const int n = sh[0] * sh[1] * sh[2];
  if (warp_algo(fam, algo)) return n % 32 == 0;
  if (fam == FAM_BSORT) return (n & (n - 1)) == 0;
  if ((fam == FAM_BRADIX || fam == FAM_BRANK) && !strcmp(ALGOS[fam][algo], "r8"))
    return n <= 256; /* 129 counter lanes x threads x 4 bytes: past 256 threads more shared memory than an sm_90
                        block has (227 KB), which the generator refuses */
  if (fam == FAM_BEXCH && (var == 2 || var == 3)) return n <= 32 || n % 32 == 0;
  return 1;
}

static void symbol_of(kase *k)
{
  char geom[32], stem[96], op[48];
  if (k->op >= 0) op_spelling(k, op, sizeof op);
  if (k->by == 1 && k->bz == 1) snprintf(geom, sizeof geom, "t%d", k->bx);
  else snprintf(geom, sizeof geom, "t%dx%dx%d", k->bx, k->by, k->bz);
  if (is_sort_fam(k->fam)) {
    static const char *st[4] = {"merge_sort_keys", "merge_sort_keys_guarded", "merge_sort_pairs",
                                "merge_sort_pairs_guarded"};
    char cmp[48], geo[48];
    if (k->algo == 2) snprintf(cmp, sizeof cmp, "custom_sortcmp_%s", TY[k->type].code);
    else snprintf(cmp, sizeof cmp, "%s", ALGOS[k->fam][k->algo]);
    if (k->fam == FAM_WSORT) snprintf(geo, sizeof geo, "w%d_i%d", k->n, k->wi);
    else snprintf(geo, sizeof geo, "%s_i%d", geom, k->n);
    snprintf(k->sym, sizeof k->sym, "coop_%s_%s_%s_%s%s_%s", k->fam == FAM_WSORT ? "warp" : "block", st[k->var], cmp,
             TY[k->type].code, k->var >= 2 ? "_u32" : "", geo);
    return;
  }
  if (k->fam == FAM_BEXCH || k->fam == FAM_BRADIX) { /* pairs: u32 values */
    snprintf(k->sym, sizeof k->sym, "coop_block_%s_%s_%s%s_%s_i%d_%s", k->fam == FAM_BEXCH ? "exchange" : "radix_sort",
             VARS[k->fam][k->var], TY[k->type].code, k->fam == FAM_BRADIX && k->var >= 4 ? "_u32" : "", geom, k->n,
             ALGOS[k->fam][k->algo]);
    return;
  }
  if (k->fam == FAM_BHIST) {
    snprintf(k->sym, sizeof k->sym, "coop_block_histogram_%s_%s_%s_i%d_%s_b%d", VARS[k->fam][k->var], TY[k->type].code,
             geom, k->n, ALGOS[k->fam][k->algo], k->wi);
    return;
  }
  if (k->fam == FAM_BRANK) {
    snprintf(k->sym, sizeof k->sym, "coop_block_radix_rank_%s_%s_%s_i%d_%s", VARS[k->fam][k->var], TY[k->type].code, geom,
             k->n, ALGOS[k->fam][k->algo]);
    return;
  }
  if (k->fam == FAM_BRLD) {
    snprintf(k->sym, sizeof k->sym, "coop_block_run_length_decode%s_%s_%s_i%d_d%d", k->var ? "_offsets" : "",
             TY[k->type].code, geom, k->n, k->wi);
    return;
  }
  if (is_block2_fam(k->fam)) { /* <family stem>_<variant>[_<op>]_<type>_<geometry>_i<items> */
    static const char *fam_stem[] = {[FAM_BDISC] = "discontinuity", [FAM_BADJ] = "adjacent_difference",
                                     [FAM_BSHUF] = "shuffle"};
    char opb[48];
    const char *opn = block2_op_spelling(k, opb, sizeof opb);
    snprintf(k->sym, sizeof k->sym, "coop_block_%s_%s%s%s_%s_%s_i%d", fam_stem[k->fam], VARS[k->fam][k->var],
             opn[0] ? "_" : "", opn, TY[k->type].code, geom, k->n);
    return;
  }
  if (is_warp_data_fam(k->fam)) {
    static const char *ex[3] = {"exchange_blocked_to_striped", "exchange_striped_to_blocked", "exchange_scatter_to_striped"};
    const char *st = k->fam == FAM_WEXCH ? ex[k->var] : k->fam == FAM_WLOAD ? (k->var ? "load_guarded" : "load")
                                                                             : (k->var ? "store_guarded" : "store");
    snprintf(k->sym, sizeof k->sym, "coop_warp_%s_%s_w%d_i%d_%s", st, TY[k->type].code, k->n, k->wi,
             ALGOS[k->fam][k->algo]);
    return;
  }
  if (is_warp_fam(k->fam)) {
    if (k->fam == FAM_WREDUCE) snprintf(stem, sizeof stem, k->var ? "reduce_%s_partial" : "reduce_%s", op);
    else snprintf(stem, sizeof stem, k->var ? "inclusive_scan_%s" : "exclusive_scan_%s", op);
    snprintf(k->sym, sizeof k->sym, "coop_warp_%s_%s_w%d", stem, TY[k->type].code, k->n);
    return;
  }
  switch (k->fam) {
  case FAM_LOAD: snprintf(stem, sizeof stem, k->var ? "load_guarded" : "load"); break;
  case FAM_STORE: snprintf(stem, sizeof stem, k->var ? "store_guarded" : "store"); break;
  case FAM_REDUCE: snprintf(stem, sizeof stem, k->var ? "reduce_%s_partial" : "reduce_%s", op); break;
  default: {
    static const char *f[4] = {"exclusive_scan_%s", "inclusive_scan_%s", "exclusive_scan_%s_prefix",
                               "inclusive_scan_%s_prefix"};
    snprintf(stem, sizeof stem, f[k->var], op);
  }
  }
  snprintf(k->sym, sizeof k->sym, "coop_block_%s_%s_%s_i%d_%s", stem, TY[k->type].code, geom, k->n,
           ALGOS[k->fam][k->algo]);
}

#define MAX_CASES 16384
static void add_case(const kase *k)
{
  if (n_cases == MAX_CASES) {
    printf("more than %d cases: raise MAX_CASES\n0 passed, 1 failed\n", MAX_CASES);
    exit(1);
  }
  cases[n_cases++] = *k;
}

static void build_cases(void)
{
  cases = calloc(MAX_CASES, sizeof *cases);
  int ctr = 0;
  for (int fam = 0; fam < N_FAMS; ++fam)
    for (int var = 0; var < N_VARS[fam]; ++var)
      for (int type = 0; type < N_TYPES; ++type)
        for (int op = 0; op < (uses_op(fam) ? N_OPS : 1); ++op)
          for (int algo = 0; algo < N_ALGOS[fam]; ++algo)
            for (int rep = 0; rep < 2; ++rep, ++ctr) {
              if (uses_op(fam) && !op_ok(type, op)) continue;
              if (op >= OP_LAST && fam == FAM_REDUCE && algo == 1) continue; /* raking_comm: refused */
              kase k = {0};
              k.fam = fam;
              k.var = var;
              k.type = type;
              k.op = uses_op(fam) ? op : -1;
              k.algo = algo;
              if (is_warp_data_fam(fam)) { /* power-of-two warps; the shuffle exchange: as many items as lanes */
                k.n = PWARPS[(ctr + rep * 3) % 6];
                k.wi = fam == FAM_WEXCH && algo == 1 ? k.n : ITEMS[(ctr / 6 + rep) % 4];
                if (fam == FAM_WEXCH && algo == 1 && (var == 2 || type == T_MAT2)) continue; /* CUB's shuffle
                                                             exchange: no scatter, built-in types only */
                if (fam == FAM_WSORT && type == T_MAT2 && algo != 2) continue; /* an opaque key: its comparator */
              }
              if (is_warp_fam(fam)) { /* the block shapes are the run's (warp_shape) */
                if (!is_warp_data_fam(fam)) k.n = WARPS[(ctr + rep * 5) % N_WARPS];
                symbol_of(&k);
                int dup = 0;
                for (int j = 0; j < n_cases && !dup; ++j) dup = strcmp(cases[j].sym, k.sym) == 0;
                if (dup || (filter && !strstr(k.sym, filter))) continue;
                k.shard = n_cases / SHARD;
                add_case(&k);
                continue;
              }
              if (fam == FAM_BEXCH && algo == 1 && var >= 6) continue; /* refused: CUB does not time-slice them */
              if (fam == FAM_BSORT && type == T_MAT2 && algo != 2) continue; /* an opaque key: its comparator */
              if ((fam == FAM_BDISC || fam == FAM_BADJ) && type == T_MAT2 && strcmp(ALGOS[fam][algo], "custom")) continue;
              if ((fam == FAM_BRADIX || fam == FAM_BRANK) && type == T_MAT2) continue; /* refused: no bits */
              int s = ctr % N_SHAPES;
              while (!shape_ok(fam, var, algo, SHAPES[s])) s = (s + 1) % N_SHAPES;
              k.bx = SHAPES[s][0];
              k.by = SHAPES[s][1];
              k.bz = SHAPES[s][2];
              k.n = ITEMS[(ctr / N_SHAPES + ctr + rep) % 4];
              if (k.bx * k.by * k.bz >= 512 && k.n == 16) k.n = 4;
              if (fam == FAM_REDUCE && var == 1) k.n = 1;
              if (fam == FAM_BSHUF && var < 2) k.n = 1; /* offset, rotate: one item */
              if (fam == FAM_BHIST) { /* integer bin numbers; bins 7, 64, 256 */
                if (!TY[type].is_int) continue;
                k.wi = (int[]){7, 64, 256}[(ctr / 2 + rep) % 3];
              }
              if (fam == FAM_BRLD) k.wi = (int[]){1, 4, 8, 3}[(ctr + rep) % 4]; /* decoded items a thread */
              symbol_of(&k);
              if (filter && !strstr(k.sym, filter)) continue;
              int dup = 0;
              for (int j = 0; j < n_cases && !dup; ++j) dup = strcmp(cases[j].sym, k.sym) == 0;
              if (dup) continue;
              k.shard = n_cases / SHARD;
              add_case(&k);
            }
}

typedef struct shard shard;
/* ---- build: generate, compile, link one shard ---- */
struct shard {
  int first, count;
  coopt_blob cubin;
  char err[4096];
  int ok;
  int skip; /* not in this process's --slice */
};
static void kernel_source(FILE *f, const kase *k, int idx);
static int index_of(const char *const *names, int n, const char *s)
{
  for (int i = 0; s && i < n; ++i)
    if (!strcmp(names[i], s)) return i;
  return -1;
}

/* Every symbol of the catalog, from its units' manifests (family, variant, type, op, algorithm, block,
 * items, temp bytes). */
static void build_catalog_cases(void)
{
  char *err = NULL;
  if (coop_catalog_open(&catalog, catalog_dir, &err)) {
    printf("cannot open the catalog %s: %s\n0 passed, 1 failed\n", catalog_dir, err);
    exit(1);
  }
  char path[1200];
  snprintf(path, sizeof path, "%s/index.json", catalog_dir);
  json_error_t je;
  json_t *idx = json_load_file(path, 0, &je);
  if (!idx) {
    printf("%s: %s\n0 passed, 1 failed\n", path, je.text);
    exit(1);
  }
  snprintf(catalog_header, sizeof catalog_header, "%s",
           json_string_value(json_object_get(json_object_get(idx, "header"), "file")));
  size_t nb = json_array_size(json_object_get(idx, "bundles"));
  size_t cap = nb * 8 + 1; /* grown as the units' symbols are read (a unit holds its instance's variants) */
  cases = calloc(cap, sizeof *cases);
  size_t bi;
  json_t *b;
  json_array_foreach(json_object_get(idx, "bundles"), bi, b)
  {
    snprintf(path, sizeof path, "%s/%s.json", catalog_dir, json_string_value(json_object_get(b, "name")));
    json_t *m = json_load_file(path, 0, &je);
    size_t si;
    json_t *o;
    json_array_foreach(json_object_get(m, "symbols"), si, o)
    {
      kase k = {0};
      k.fam = index_of(FAMS, N_FAMS, json_string_value(json_object_get(o, "family")));
      k.var = k.fam < 0 ? -1 : index_of(VARS[k.fam], N_VARS[k.fam], json_string_value(json_object_get(o, "variant")));
      k.type = -1; /* the built-in types: a catalog has no user type */
      for (int t = 0; t < T_MAT2; ++t)
        if (!strcmp(TY[t].code, json_string_value(json_object_get(o, "type")) ?: "")) k.type = t;
      k.op = index_of(OPS, N_OPS, json_string_value(json_object_get(o, "op")));
      k.algo = k.fam < 0 ? -1 : index_of(ALGOS[k.fam], N_ALGOS[k.fam], json_string_value(json_object_get(o, "algorithm")));
      json_t *blk = json_object_get(o, "block");
      k.bx = (int)json_integer_value(json_array_get(blk, 0));
      k.by = (int)json_integer_value(json_array_get(blk, 1));
      k.bz = (int)json_integer_value(json_array_get(blk, 2));
      k.n = (int)json_integer_value(json_object_get(o, "items"));
      if (k.fam >= 0 && is_warp_fam(k.fam)) k.n = (int)json_integer_value(json_object_get(o, "warp"));
      k.temp_bytes = (size_t)json_integer_value(json_object_get(o, "temp_bytes"));
      if (k.fam >= 0 && is_warp_fam(k.fam) && !is_warp_data_fam(k.fam)) k.algo = 0; /* none */
      if (k.fam >= 0 && is_warp_data_fam(k.fam)) k.wi = (int)json_integer_value(json_object_get(o, "items"));
      if (k.fam >= 0 && (is_sort_fam(k.fam) || k.fam == FAM_BDISC || k.fam == FAM_BADJ)) /* the op (never custom) */
        k.algo = index_of(ALGOS[k.fam], N_ALGOS[k.fam] - 1, json_string_value(json_object_get(o, "op")));
      if (k.fam == FAM_BSHUF) k.algo = 0; /* none */
      if (k.fam == FAM_BHIST) k.wi = (int)json_integer_value(json_object_get(o, "bins"));
      if (k.fam == FAM_BRLD) k.wi = (int)json_integer_value(json_object_get(o, "decoded")), k.algo = 0;
      if (k.fam < 0 || k.var < 0 || k.type < 0 || k.algo < 0 || (uses_op(k.fam) && k.op < 0)) {
        printf("%s: symbols[%zu]: a family, variant, type, op or algorithm this suite does not know\n", path, si);
        exit(1);
      }
      symbol_of(&k);
      if (strcmp(k.sym, json_string_value(json_object_get(o, "name"))) != 0) {
        printf("%s: symbols[%zu]: %s, but its fields name %s\n", path, si, json_string_value(json_object_get(o, "name")),
               k.sym);
        exit(1);
      }
      if (filter && !strstr(k.sym, filter)) continue;
      k.shard = n_cases / SHARD;
      if ((size_t)n_cases == cap) {
        kase *grown = realloc(cases, (cap *= 2) * sizeof *cases);
        if (!grown) {
          printf("out of memory\n0 passed, 1 failed\n");
          exit(1);
        }
        cases = grown;
      }
      cases[n_cases++] = k;
    }
    json_decref(m);
  }
  json_decref(idx);
}

/* A catalog shard: the test kernels, linked through libcooplink against the catalog. */
static void build_catalog_shard(shard *sh)
{
  char *src = NULL;
  size_t src_len = 0;
  FILE *f = open_memstream(&src, &src_len);
  fprintf(f, "#include \"%s\"\n\n", catalog_header);
  for (int i = sh->first; i < sh->first + sh->count; ++i) kernel_source(f, &cases[i], i);
  fclose(f);
  coopt_blob user = {0};
  char *log = NULL;
  if (coopt_compile(src, arch, catalog_dir, &user, &log)) {
    snprintf(sh->err, sizeof sh->err, "NVRTC (test kernels): %.3900s", log);
    free(src);
    free(log);
    return;
  }
  free(src);
  char a[32];
  snprintf(a, sizeof a, "-arch=sm_%d", arch);
  const char *opts[] = {a, "-cache=0", "-generate=0"};
  coop_linker *l = NULL;
  coop_result rc = coop_linker_create(&l, catalog, 3, opts);
  if (!rc) rc = coop_linker_add_data(l, COOP_INPUT_LTOIR, user.data, user.size, "test_kernels.ltoir");
  if (!rc) rc = coop_linker_complete(l);
  const void *cubin;
  size_t size;
  if (!rc) rc = coop_linker_get_cubin(l, &cubin, &size);
  if (rc) {
    size_t n = 0;
    coop_linker_get_log_size(l, &n);
    char *ll = malloc(n);
    coop_linker_get_log(l, ll);
    snprintf(sh->err, sizeof sh->err, "libcooplink: %s: %.3900s", coop_result_name(rc), ll);
    free(ll);
  } else {
    sh->cubin.data = malloc(size);
    memcpy(sh->cubin.data, cubin, size);
    sh->cubin.size = size;
    sh->ok = 1;
  }
  coop_linker_destroy(&l);
  free(user.data);
}

/* ---- test kernels ---- */
static void kernel_source(FILE *f, const kase *k, int idx)
{
  if (is_warp_fam(k->fam)) {
    warp_kernel_source(f, k, idx);
    return;
  }
  if (is_block2_fam(k->fam)) {
    block2_kernel_source(f, k, idx);
    return;
  }
  const char *T = TY[k->type].ctype;
  int bt = k->bx * k->by * k->bz, n = k->n;
  fprintf(f,
          "extern \"C\" __global__ void __launch_bounds__(%d) case_%d(const %s *in, %s *out, %s *out2, const int *valid, "
          "const %s *aux, int flag)\n{\n  extern __shared__ __align__(16) unsigned char smem[];\n"
          "  const int tid = threadIdx.x + threadIdx.y * %d + threadIdx.z * %d;\n  const size_t b = blockIdx.x;\n"
          "  const %s poison = aux[%d];\n  (void)out2; (void)valid; (void)flag;\n",
          bt, idx, T, T, T, T, k->bx, k->bx * k->by, T, GRID);
  switch (k->fam) {
  case FAM_LOAD:
    fprintf(f, "  %s items[%d];\n  for (int i = 0; i < %d; ++i) items[i] = poison;\n", T, n, n);
    if (k->var) fprintf(f, "  %s(in + b * %d, items, valid[b], &aux[b], smem);\n", k->sym, bt * n);
    else fprintf(f, "  %s(in + b * %d, items, smem);\n", k->sym, bt * n);
    fprintf(f, "  for (int i = 0; i < %d; ++i) out[(b * %d + tid) * %d + i] = items[i];\n", n, bt, n);
    break;
  case FAM_STORE:
    fprintf(f, "  %s items[%d];\n  for (int i = 0; i < %d; ++i) items[i] = in[(b * %d + tid) * %d + i];\n", T, n, n,
            bt, n);
    if (k->var) fprintf(f, "  %s(out + b * %d, items, valid[b], smem);\n", k->sym, bt * n);
    else fprintf(f, "  %s(out + b * %d, items, smem);\n", k->sym, bt * n);
    break;
  case FAM_REDUCE:
    if (k->var)
      fprintf(f, "  %s item = in[b * %d + tid];\n  %s agg = poison;\n  %s(&item, valid[b], &agg, smem);\n", T, bt, T,
              k->sym);
    else
      fprintf(f,
              "  %s items[%d];\n  for (int i = 0; i < %d; ++i) items[i] = in[(b * %d + tid) * %d + i];\n"
              "  %s agg = poison;\n  %s(items, &agg, smem);\n",
              T, n, n, bt, n, T, k->sym);
    fprintf(f, "  if (tid == 0) out[b] = agg;\n");
    break;
  default:
    if (k->var >= 2) {
      fprintf(f,
              "  %s running = aux[b];\n  for (int t = 0; t < %d; ++t) {\n    const size_t tile = b * %d + t;\n"
              "    %s items[%d], res[%d];\n"
              "    for (int i = 0; i < %d; ++i) { items[i] = in[(tile * %d + tid) * %d + i]; res[i] = poison; }\n"
              "    %s(items, res, &running, smem);\n"
              "    for (int i = 0; i < %d; ++i) out[(tile * %d + tid) * %d + i] = res[i];\n"
              "    out2[tile * %d + tid] = running;\n    __syncthreads();\n  }\n",
              T, TILES, TILES, T, n, n, n, bt, n, k->sym, n, bt, n, bt);
    } else {
      fprintf(f,
              "  %s items[%d], res[%d];\n"
              "  for (int i = 0; i < %d; ++i) { items[i] = in[(b * %d + tid) * %d + i]; res[i] = poison; }\n"
              "  %s agg = poison;\n",
              T, n, n, n, bt, n, T);
      if (k->var == 0 && k->op != OP_SUM)
        fprintf(f, "  %s(items, res, &aux[b], flag ? &agg : 0, smem);\n", k->sym);
      else
        fprintf(f, "  %s(items, res, flag ? &agg : 0, smem);\n", k->sym);
      fprintf(f,
              "  for (int i = 0; i < %d; ++i) out[(b * %d + tid) * %d + i] = res[i];\n"
              "  if (flag) out2[b * %d + tid] = agg;\n",
              n, bt, n, bt);
    }
  }
  fprintf(f, "}\n\n");
}

/* ---- build: generate, compile, link one shard ---- */
static shard *shards;
static int n_shards;
static atomic_int next_shard;
static int slice_k, slice_n = 1; /* --slice K/N: only the shards s with s % N == K */
static int only = -1;             /* --only I: run case I alone (a sanitizer that stops at the first error) */
#define COUNTED(i) (!shards[(i) / SHARD].skip && (only < 0 || (i) == only))

static const char *save_dir, *prebuilt_dir;

/* Prebuilt shards: <dir>/gsK.cubin and <dir>/gsK.temp ("symbol temp_bytes" per case, in order). */
static void load_shard(int s)
{
  shard *sh = &shards[s];
  char path[1200];
  snprintf(path, sizeof path, "%s/gs%d.cubin", prebuilt_dir, s);
  if (coopt_read(path, &sh->cubin)) {
    snprintf(sh->err, sizeof sh->err, "cannot read %s", path);
    return;
  }
  snprintf(path, sizeof path, "%s/gs%d.temp", prebuilt_dir, s);
  FILE *f = fopen(path, "r");
  if (!f) {
    snprintf(sh->err, sizeof sh->err, "cannot read %s", path);
    return;
  }
  for (int i = sh->first; i < sh->first + sh->count; ++i) {
    char sym[160];
    size_t bytes;
    if (fscanf(f, "%159s %zu", sym, &bytes) != 2 || strcmp(sym, cases[i].sym) != 0) {
      snprintf(sh->err, sizeof sh->err, "%s does not match this case list (rebuild with the same options)", path);
      fclose(f);
      return;
    }
    cases[i].temp_bytes = bytes;
  }
  fclose(f);
  sh->ok = 1;
}

static void save_shard(int s)
{
  shard *sh = &shards[s];
  char path[1200];
  snprintf(path, sizeof path, "%s/gs%d.cubin", save_dir, s);
  FILE *f = fopen(path, "wb");
  int ok = f && fwrite(sh->cubin.data, 1, sh->cubin.size, f) == sh->cubin.size;
  if (f && fclose(f) != 0) ok = 0;
  snprintf(path, sizeof path, "%s/gs%d.temp", save_dir, s);
  f = ok ? fopen(path, "w") : NULL;
  for (int i = sh->first; f && i < sh->first + sh->count; ++i) fprintf(f, "%s %zu\n", cases[i].sym, cases[i].temp_bytes);
  if (!f || fclose(f) != 0) ok = 0;
  if (!ok) {
    snprintf(sh->err, sizeof sh->err, "cannot write %s", path);
    sh->ok = 0;
  }
}

static void build_shard(int s)
{
  shard *sh = &shards[s];
  char name[64], dir[1024], path[1200];
  if (prebuilt_dir) {
    load_shard(s);
    return;
  }
  if (catalog_dir) {
    build_catalog_shard(sh);
    if (sh->ok && save_dir) save_shard(s);
    return;
  }
  snprintf(name, sizeof name, "gs%d", s);
  snprintf(dir, sizeof dir, "%s/%s", work, name);
  coop_gen *gen = NULL;
  coop_result rc = coop_gen_create(&gen);
  char archs[16];
  snprintf(archs, sizeof archs, "sm_%d", arch);
  if (!rc) rc = coop_gen_set_name(gen, name);
  if (!rc) rc = coop_gen_set_archs(gen, archs);
  for (int i = sh->first; i < sh->first + sh->count && !rc; ++i) {
    kase *k = &cases[i];
    char threads[32], items[8], witems[8];
    snprintf(threads, sizeof threads, "%dx%dx%d", k->bx, k->by, k->bz);
    snprintf(items, sizeof items, "%d", k->n);
    char custom[48];
    snprintf(custom, sizeof custom, k->op == OP_MATMUL ? "custom:matmul" : "custom:last_%s", TY[k->type].code);
    if (k->type == T_MAT2 && !rc) rc = coop_gen_add_type(gen, "mat2", 16, 16);
    coop_gen_group g = {FAMS[k->fam], TY[k->type].code, k->op >= OP_LAST ? custom : k->op >= 0 ? OPS[k->op] : NULL,
                        threads, items,
                        ALGOS[k->fam][k->algo], VARS[k->fam][k->var], NULL};
    if (is_warp_fam(k->fam)) { /* lanes instead of threads; warp reduce and scan: no items, no algorithm */
      g.threads = g.items = g.algorithm = NULL;
      g.warp = items;
      if (is_warp_data_fam(k->fam)) {
        snprintf(witems, sizeof witems, "%d", k->wi);
        g.items = witems;
        g.algorithm = ALGOS[k->fam][k->algo];
      }
    }
    if (k->fam == FAM_BDISC || k->fam == FAM_BADJ || k->fam == FAM_BSHUF) { /* flag and difference ops */
      g.algorithm = NULL;
      g.op = block2_op(k, custom, sizeof custom);
    }
    if (k->fam == FAM_BRADIX) g.values = k->var >= 4 ? "u32" : NULL;
    char extra[16];
    snprintf(extra, sizeof extra, "%d", k->wi);
    if (k->fam == FAM_BHIST) g.bins = extra;
    if (k->fam == FAM_BRLD) g.decoded = extra, g.algorithm = NULL;
    if (is_sort_fam(k->fam)) { /* its comparator; pairs: u32 values */
      g.algorithm = NULL;
      snprintf(custom, sizeof custom, "custom:sortcmp_%s", TY[k->type].code);
      g.op = k->algo == 2 ? custom : ALGOS[k->fam][k->algo];
      g.values = k->var >= 2 ? "u32" : NULL;
    }
    rc = coop_gen_add_group(gen, &g);
  }
  if (!rc) rc = coop_gen_write(gen, dir);
  if (rc) {
    size_t n = 0;
    coop_gen_get_log_size(gen, &n);
    char *log = malloc(n);
    coop_gen_get_log(gen, log);
    snprintf(sh->err, sizeof sh->err, "coopgen: %s: %.3900s", coop_result_name(rc), log);
    free(log);
    coop_gen_destroy(&gen);
    return;
  }
  coop_gen_destroy(&gen);
  /* temp sizes from the manifest */
  snprintf(path, sizeof path, "%s/%s.json", dir, name);
  json_error_t je;
  json_t *m = json_load_file(path, 0, &je);
  if (!m) {
    snprintf(sh->err, sizeof sh->err, "manifest %s: %s", path, je.text);
    return;
  }
  json_t *syms = json_object_get(m, "symbols");
  for (int i = sh->first; i < sh->first + sh->count; ++i) {
    size_t j;
    json_t *o;
    int found = 0;
    json_array_foreach(syms, j, o)
    {
      if (strcmp(json_string_value(json_object_get(o, "name")), cases[i].sym) == 0) {
        cases[i].temp_bytes = (size_t)json_integer_value(json_object_get(o, "temp_bytes"));
        found = 1;
      }
    }
    if (!found) {
      snprintf(sh->err, sizeof sh->err, "symbol %s not in manifest %s", cases[i].sym, path);
      json_decref(m);
      return;
    }
  }
  json_decref(m);
  /* test kernels */
  char *src = NULL;
  size_t src_len = 0;
  FILE *f = open_memstream(&src, &src_len);
  /* the user type: the test code's own struct, the header's COOP_TYPE_MAT2 */
  fprintf(f, "struct __align__(16) mat2 { unsigned int a, b, c, d; };\n#define COOP_TYPE_MAT2 struct mat2\n"
             "#include \"%s.h\"\n\n", name);
  for (int i = sh->first; i < sh->first + sh->count; ++i)
    if (cases[i].op == OP_MATMUL) {
      fprintf(f, "extern \"C\" __device__ void matmul(const mat2 *x, const mat2 *y, mat2 *o)\n{\n"
                 "  *o = mat2{x->a * y->a + x->b * y->c, x->a * y->b + x->b * y->d, x->c * y->a + x->d * y->c,\n"
                 "            x->c * y->b + x->d * y->d};\n}\n");
      break;
    }
  /* the custom operator of the shard's OP_LAST cases, one C function per type */
  int defined[N_TYPES] = {0}, cmp_defined[N_TYPES] = {0};
  for (int i = sh->first; i < sh->first + sh->count; ++i) { /* the sorts' comparators: key / 2, descending */
    const kase *c = &cases[i];
    if (!is_sort_fam(c->fam) || c->algo != 2 || cmp_defined[c->type]++) continue;
    const char *T = TY[c->type].ctype;
    if (c->type == T_MAT2)
      fprintf(f, "extern \"C\" __device__ int sortcmp_mat2(const mat2 *a, const mat2 *b) { return a->a < b->a; }\n");
    else
      fprintf(f, "extern \"C\" __device__ int sortcmp_%s(const %s *a, const %s *b)\n{ return (long long)(float)*a / 2 > "
                 "(long long)(float)*b / 2; }\n", TY[c->type].code, T, T);
  }
  block2_prelude(f, cases, sh->first, sh->count);
  for (int i = sh->first; i < sh->first + sh->count; ++i)
    if (cases[i].op == OP_LAST && !defined[cases[i].type]++)
      fprintf(f, "extern \"C\" __device__ void last_%s(const %s *a, const %s *b, %s *out) { (void)a; *out = *b; }\n",
              TY[cases[i].type].code, TY[cases[i].type].ctype, TY[cases[i].type].ctype, TY[cases[i].type].ctype);
  for (int i = sh->first; i < sh->first + sh->count; ++i) kernel_source(f, &cases[i], i);
  fclose(f);
  coopt_blob user = {0}, bundle = {0};
  char *log = NULL, *info = NULL, *error = NULL;
  if (coopt_compile(src, arch, dir, &user, &log)) {
    snprintf(sh->err, sizeof sh->err, "NVRTC (test kernels): %.3900s", log);
    free(src);
    free(log);
    return;
  }
  free(src);
  free(log);
  snprintf(path, sizeof path, "%s/%s.sm_%d.ltoir", dir, name, arch);
  if (coopt_read(path, &bundle)) {
    snprintf(sh->err, sizeof sh->err, "cannot read %s", path);
    return;
  }
  coopt_blob in[2] = {user, bundle};
  if (coopt_link(arch, in, 2, 0, NULL, &sh->cubin, &info, &error)) {
    snprintf(sh->err, sizeof sh->err, "nvJitLink: %.3900s", error);
  } else {
    sh->ok = 1;
    if (save_dir) save_shard(s);
  }
  free(info);
  free(error);
  free(user.data);
  free(bundle.data);
}

static void *build_worker(void *arg)
{
  (void)arg;
  for (;;) {
    int s = atomic_fetch_add(&next_shard, 1);
    if (s >= n_shards) return NULL;
    if (s % slice_n != slice_k) shards[s].skip = 1;
    else build_shard(s);
  }
}

/* ---- run ---- */
static const coop__driver *D;
#define CU(call)                                                                                    \
  do {                                                                                              \
    coop__CUresult r_ = (call);                                                                     \
    if (r_) {                                                                                       \
      char b_[256];                                                                                 \
      snprintf(why, wsize, "%s: %s", #call, coop__driver_error(D, r_, b_, sizeof b_));              \
      goto done;                                                                                    \
    }                                                                                               \
  } while (0)

static int g_fail_printed;

static int printed_per[N_FAMS][8];
static int report(kase *k, const char *what)
{
  if (printed_per[k->fam][k->var]++ < 4 && g_fail_printed++ < 60) printf("FAIL %s [%dx%dx%d i%d]: %s\n", k->sym, k->bx, k->by, k->bz, k->n, what);
  k->failed = 1;
  return 0;
}

/* Runs one case once (flag: aggregate wanted) and checks every output. */
/* Runs one case once (flag: aggregate wanted; shape: which of a warp case's block shapes) and checks
 * every output. A block case has one tile (or TILES) per block, a valid count and an aux value per block;
 * a warp case one item per thread, a valid count and an aux value per logical warp. */
static int run_case(coop__CUmodule mod, kase *k, int idx, int flag, int shape)
{
  char why[512] = "", name[32];
  size_t wsize = sizeof why;
  const tinfo *t = &TY[k->type];
  const size_t es = (size_t)t->size;
  const int warp = is_warp_fam(k->fam);
  int dims[3] = {k->bx, k->by, k->bz}, n_warps = 0;
  if (warp) warp_shape(k, shape, dims, &n_warps);
  const int bt = dims[0] * dims[1] * dims[2], n = is_warp_data_fam(k->fam) ? k->wi : warp ? 1 : k->n;
  const int tiles = GRID * (k->fam == FAM_SCAN && k->var >= 2 ? TILES : 1);
  /* a sort of pairs writes its u32 values to out2 */
  const size_t n_in = (size_t)tiles * bt * n, n_out = n_in,
               n_out2 = block2_out2_items(k, n_in, es) ? block2_out2_items(k, n_in, es) : (size_t)tiles * bt;
  const int n_aux = warp ? GRID * n_warps : GRID; /* valid counts and aux values */
  const size_t need = warp ? k->temp_bytes * (size_t)n_warps : k->temp_bytes;
  const size_t smem = short_temp < 0 ? need : (size_t)short_temp >= need ? 0 : need - (size_t)short_temp;
  if (short_temp >= 0 && need) printf("short temp: case_%d %s: %zu of %zu bytes\n", idx, k->sym, smem, need);
  unsigned char *in = malloc(n_in * es), *out = malloc(n_out * es), *out2 = malloc(n_out2 * es);
  unsigned char *aux = malloc((size_t)(n_aux + 1) * es), *poison = aux + (size_t)n_aux * es;
  int *valid = malloc((size_t)n_aux * sizeof *valid);
  coop__CUdeviceptr d_in = 0, d_out = 0, d_out2 = 0, d_valid = 0, d_aux = 0;
  int ok = 0;
  rng_state = seed ^ ((uint64_t)idx * 0x9E37ull) ^ (uint64_t)flag ^ ((uint64_t)shape << 40);
  size_t per_tile = (size_t)bt * n;
  for (int tl = 0; tl < tiles; ++tl) {
    size_t s1 = rnd() % per_tile, s2 = rnd() % per_tile;
    for (size_t i = 0; i < per_tile; ++i) gen_value(k, in + (tl * per_tile + i) * es, i, s1, s2);
  }
  for (int b = 0; b < n_aux; ++b) gen_value(k, aux + b * es, 1, 0, 0);
  for (int b = 0; b < n_aux && is_sort_fam(k->fam); ++b) warp_sort_oob(k, aux + b * es);
  memset(poison, 0xA5, es);
  for (int b = 0; b < n_aux; ++b) {
    /* valid items: of a logical warp's tile (warp data), lanes (warp reduce), threads (block reduce), items */
    int full = is_warp_data_fam(k->fam) ? k->n * k->wi : warp ? k->n : k->fam == FAM_REDUCE ? bt : bt * n;
    int lo = k->fam == FAM_REDUCE || (warp && !is_warp_data_fam(k->fam)) ? 1 : 0;
    valid[b] = b == 0 ? full : b == 3 ? lo : lo + (int)(rnd() % (uint64_t)(full - lo + 1));
  }
  for (size_t i = 0; i < n_out; ++i) memcpy(out + i * es, poison, es);
  for (size_t i = 0; i < n_out2; ++i) memcpy(out2 + i * es, poison, es);
  coop__CUfunction fn;
  snprintf(name, sizeof name, "case_%d", idx);
  CU(D->cuModuleGetFunction(&fn, mod, name));
  if (smem > 48 * 1024) CU(D->cuFuncSetAttribute(fn, COOP__CU_FUNC_MAX_DYNAMIC_SHARED, (int)smem));
  CU(D->cuMemAlloc_v2(&d_in, n_in * es));
  CU(D->cuMemAlloc_v2(&d_out, n_out * es));
  CU(D->cuMemAlloc_v2(&d_out2, n_out2 * es));
  CU(D->cuMemAlloc_v2(&d_valid, (size_t)n_aux * sizeof *valid));
  CU(D->cuMemAlloc_v2(&d_aux, (size_t)(n_aux + 1) * es));
  CU(D->cuMemcpyHtoD_v2(d_in, in, n_in * es));
  CU(D->cuMemcpyHtoD_v2(d_out, out, n_out * es)); /* poisoned */
  CU(D->cuMemcpyHtoD_v2(d_out2, out2, n_out2 * es));
  CU(D->cuMemcpyHtoD_v2(d_valid, valid, (size_t)n_aux * sizeof *valid));
  CU(D->cuMemcpyHtoD_v2(d_aux, aux, (size_t)(n_aux + 1) * es));
  void *params[] = {&d_in, &d_out, &d_out2, &d_valid, &d_aux, &flag};
  CU(D->cuLaunchKernel(fn, GRID, 1, 1, (unsigned)dims[0], (unsigned)dims[1], (unsigned)dims[2], (unsigned)smem, NULL,
                       params, NULL));
  CU(D->cuCtxSynchronize());
  CU(D->cuMemcpyDtoH_v2(out, d_out, n_out * es));
  CU(D->cuMemcpyDtoH_v2(out2, d_out2, n_out2 * es));

  ok = 1;
  char msg[400];
  if (warp && !warp_check(k, dims, in, out, out2, aux, poison, valid, flag, msg, sizeof msg)) ok = report(k, msg);
  if (is_block2_fam(k->fam) && !block2_check(k, in, out, out2, aux, valid, msg, sizeof msg)) ok = report(k, msg);
  for (int b = 0; b < GRID && ok && !warp && !is_block2_fam(k->fam); ++b) {
    const unsigned char *tile = in + (size_t)b * per_tile * es;
    if (k->fam == FAM_LOAD || k->fam == FAM_STORE) {
      int striped = base_algo(k->fam, k->algo) == 1;
      for (int th = 0; th < bt && ok; ++th)
        for (int i = 0; i < n && ok; ++i) {
          size_t lin = striped ? (size_t)i * bt + th : (size_t)th * n + i; /* tile offset of item i of thread th */
          const unsigned char *expect;
          const unsigned char *got;
          if (k->fam == FAM_LOAD) {
            expect = k->var && lin >= (size_t)valid[b] ? aux + b * es : tile + lin * es;
            got = out + (((size_t)b * bt + th) * n + i) * es;
          } else {
            expect = k->var && lin >= (size_t)valid[b] ? poison : in + (((size_t)b * bt + th) * n + i) * es;
            got = out + ((size_t)b * per_tile + lin) * es;
          }
          if (memcmp(expect, got, es) != 0) {
            snprintf(msg, sizeof msg, "block %d thread %d item %d (valid %d): bytes differ", b, th, i, valid[b]);
            ok = report(k, msg);
          }
        }
    } else if (k->fam == FAM_REDUCE) {
      int count = k->var ? valid[b] : bt * n;
      const unsigned char *src = k->var ? in + (size_t)b * bt * es : tile;
      val acc = load_val(t, src);
      for (int i = 1; i < count; ++i) acc = combine(t, k->op, acc, load_val(t, src + (size_t)i * es));
      if (!matches(k, out + b * es, acc, n + bt / 32 + 48, why, wsize)) {
        snprintf(msg, sizeof msg, "block %d (valid %d): %s", b, valid[b], why);
        ok = report(k, msg);
      }
    } else {
      int prefix = k->var >= 2, inclusive = k->var == 1 || k->var == 3;
      int has_init = prefix || (k->var == 0 && k->op != OP_SUM);
      val carry = has_init ? load_val(t, aux + b * es) : (val){0};
      for (int tl = 0; tl < (prefix ? TILES : 1) && ok; ++tl) {
        size_t tix = prefix ? (size_t)b * TILES + tl : (size_t)b;
        const unsigned char *src = in + tix * per_tile * es;
        val run = carry; /* value before element j */
        int have = has_init;
        val agg = {0};
        for (size_t j = 0; j < per_tile && ok; ++j) {
          val x = load_val(t, src + j * es);
          val incl = have ? combine(t, k->op, run, x) : x;
          agg = j == 0 ? x : combine(t, k->op, agg, x);
          val expect = inclusive ? incl : run; /* exclusive sum without init starts at 0 */
          if (!matches(k, out + (tix * per_tile + j) * es, expect, n + bt / 8 + 64 + TILES, why, wsize)) {
            snprintf(msg, sizeof msg, "%s %zu element %zu: %s", prefix ? "tile" : "block", tix, j, why);
            ok = report(k, msg);
          }
          run = incl;
          have = 1;
        }
        if (prefix) carry = combine(t, k->op, carry, agg);
        for (int th = 0; th < bt && ok && (prefix || flag); ++th) {
          val expect = prefix ? carry : agg;
          if (!matches(k, out2 + (tix * bt + th) * es, expect, n + bt / 8 + 64 + TILES, why, wsize)) {
            snprintf(msg, sizeof msg, "%s %zu thread %d %s: %s", prefix ? "tile" : "block", tix, th,
                     prefix ? "running" : "aggregate", why);
            ok = report(k, msg);
          }
        }
      }
    }
  }
done:
  if (why[0] && !ok && !k->failed) report(k, why);
  if (d_in) D->cuMemFree_v2(d_in);
  if (d_out) D->cuMemFree_v2(d_out);
  if (d_out2) D->cuMemFree_v2(d_out2);
  if (d_valid) D->cuMemFree_v2(d_valid);
  if (d_aux) D->cuMemFree_v2(d_aux);
  free(in);
  free(out);
  free(out2);
  free(aux);
  free(valid);
  return ok;
}

static double now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--cpu-only")) cpu_only = 1;
    else if (!strcmp(argv[i], "--arch") && i + 1 < argc) arch = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--jobs") && i + 1 < argc) jobs = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--seed") && i + 1 < argc) seed = strtoull(argv[++i], NULL, 10);
    else if (!strcmp(argv[i], "--filter") && i + 1 < argc) filter = argv[++i];
    else if (!strcmp(argv[i], "--work") && i + 1 < argc) work = argv[++i];
    else if (!strcmp(argv[i], "--save") && i + 1 < argc) save_dir = argv[++i];
    else if (!strcmp(argv[i], "--prebuilt") && i + 1 < argc) prebuilt_dir = argv[++i];
    else if (!strcmp(argv[i], "--catalog") && i + 1 < argc) catalog_dir = argv[++i];
    else if (!strcmp(argv[i], "--short-temp") && i + 1 < argc) short_temp = atol(argv[++i]);
    else if (!strcmp(argv[i], "--slice") && i + 1 < argc) {
      if (sscanf(argv[++i], "%d/%d", &slice_k, &slice_n) != 2 || slice_n < 1 || slice_k < 0 || slice_k >= slice_n) {
        fprintf(stderr, "gpu_suite: --slice K/N with 0 <= K < N\n");
        return 2;
      }
    } else if (!strcmp(argv[i], "--only") && i + 1 < argc) {
      only = atoi(argv[++i]);
    } else {
      fprintf(stderr, "usage: gpu_suite [--cpu-only] [--arch N] [--jobs N] [--seed N] [--filter TEXT] [--work DIR] [--save DIR | "
              "--prebuilt DIR] [--catalog DIR] [--short-temp BYTES] [--slice K/N] [--only CASE]\n");
      return 2;
    }
  }
  coop__CUcontext ctx = NULL;
  if (!cpu_only) {
    char why[256];
    if (coop__driver_load(&D, why, sizeof why)) {
      printf("no CUDA driver: %s\n0 passed, 1 failed\n", why);
      return 1;
    }
    coop__CUdevice dev;
    int ma = 0, mi = 0;
    if (D->cuDeviceGet(&dev, 0) || D->cuDeviceGetAttribute(&ma, COOP__CU_ATTR_CC_MAJOR, dev) ||
        D->cuDeviceGetAttribute(&mi, COOP__CU_ATTR_CC_MINOR, dev) || D->cuDevicePrimaryCtxRetain(&ctx, dev) ||
        D->cuCtxSetCurrent(ctx)) {
      printf("cannot open device 0\n0 passed, 1 failed\n");
      return 1;
    }
    arch = ma * 10 + mi;
  }
  if (catalog_dir && !prebuilt_dir) build_catalog_cases();
  else if (catalog_dir) {
    /* the run half: the case list from the catalog's manifests, the cubins from --prebuilt */
    build_catalog_cases();
  } else build_cases();
  n_shards = (n_cases + SHARD - 1) / SHARD;
  shards = calloc((size_t)n_shards + 1, sizeof *shards);
  for (int s = 0; s < n_shards; ++s) {
    shards[s].first = s * SHARD;
    shards[s].count = n_cases - s * SHARD < SHARD ? n_cases - s * SHARD : SHARD;
  }
  if (catalog_dir)
    printf("gpu_suite: %d cases from the catalog %s in %d links for sm_%d, seed %llu\n", n_cases, catalog_dir, n_shards,
           arch, seed);
  else
    printf("gpu_suite: %d cases in %d bundles for sm_%d, seed %llu\n", n_cases, n_shards, arch, seed);
  fflush(stdout);
  double t0 = now();
  pthread_t tids[64];
  int nt = jobs < 64 ? jobs : 64;
  for (int i = 0; i < nt; ++i) pthread_create(&tids[i], NULL, build_worker, NULL);
  for (int i = 0; i < nt; ++i) pthread_join(tids[i], NULL);
  double t1 = now();
  printf("generate+compile+link: %.1f s\n", t1 - t0);
  int passed = 0, failed = 0;
  for (int s = 0; s < n_shards; ++s)
    if (!shards[s].ok && !shards[s].skip) {
      printf("FAIL shard %d (%s .. ): %s\n", s, cases[shards[s].first].sym, shards[s].err);
      for (int i = shards[s].first; i < shards[s].first + shards[s].count; ++i) cases[i].failed = 1;
    }
  if (cpu_only) {
    for (int i = 0; i < n_cases; ++i)
      if (COUNTED(i)) cases[i].failed ? ++failed : ++passed;
    printf("(cpu-only: built, not run)\n%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
  }
  for (int s = 0; s < n_shards; ++s) {
    if (!shards[s].ok) continue;
    coop__CUmodule mod;
    coop__CUresult r = D->cuModuleLoadData(&mod, shards[s].cubin.data);
    if (r) {
      char b[256];
      printf("FAIL shard %d: cuModuleLoadData: %s\n", s, coop__driver_error(D, r, b, sizeof b));
      for (int i = shards[s].first; i < shards[s].first + shards[s].count; ++i) cases[i].failed = 1;
      continue;
    }
    for (int i = shards[s].first; i < shards[s].first + shards[s].count; ++i) {
      if (only >= 0 && i != only) continue;
      kase *k = &cases[i];
      int runs = (k->fam == FAM_SCAN && k->var < 2) || k->fam == FAM_WSCAN ? 2 : 1;
      for (int sh = 0; sh < (is_warp_fam(k->fam) ? 2 : 1); ++sh)
        for (int fl = 0; fl < runs && !k->failed; ++fl) run_case(mod, k, i, runs == 2 ? fl : 0, sh);
    }
    D->cuModuleUnload(mod);
  }
  for (int i = 0; i < n_cases; ++i)
    if (COUNTED(i)) cases[i].failed ? ++failed : ++passed;
  printf("run: %.1f s\n", now() - t1);
  /* coverage of the sweep */
  int shapes_seen[N_SHAPES] = {0}, items_seen[4] = {0};
  for (int i = 0; i < n_cases; ++i) {
    for (int s = 0; s < N_SHAPES; ++s)
      shapes_seen[s] += cases[i].bx == SHAPES[s][0] && cases[i].by == SHAPES[s][1] && cases[i].bz == SHAPES[s][2];
    for (int j = 0; j < 4; ++j) items_seen[j] += !is_warp_fam(cases[i].fam) && cases[i].n == ITEMS[j];
  }
  printf("shapes:");
  for (int s = 0; s < N_SHAPES; ++s) printf(" %dx%dx%d=%d", SHAPES[s][0], SHAPES[s][1], SHAPES[s][2], shapes_seen[s]);
  printf("\nitems:");
  for (int j = 0; j < 4; ++j) printf(" %d=%d", ITEMS[j], items_seen[j]);
  printf("\n");
  int lanes_seen[N_WARPS] = {0};
  for (int i = 0; i < n_cases; ++i)
    for (int j = 0; j < N_WARPS; ++j) lanes_seen[j] += is_warp_fam(cases[i].fam) && cases[i].n == WARPS[j];
  printf("logical warps (lanes):");
  for (int j = 0; j < N_WARPS; ++j) printf(" %d=%d", WARPS[j], lanes_seen[j]);
  printf("\n");
  for (int f = 0; f < N_FAMS; ++f)
    for (int v = 0; v < N_VARS[f]; ++v) {
      int np = 0, nf = 0;
      for (int i = 0; i < n_cases; ++i)
        if (cases[i].fam == f && cases[i].var == v && COUNTED(i)) cases[i].failed ? ++nf : ++np;
      printf("  %-13s %-17s %5d passed %5d failed\n", FAMS[f], VARS[f][v], np, nf);
    }
  printf("%d passed, %d failed\n", passed, failed);
  return failed ? 1 : 0;
}
