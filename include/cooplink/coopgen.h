/* cooplink generator (coopgen): from a spec to a bundle of LTO-IR.
 *
 * A coop_gen handle collects requests (spec files, spec strings or flag-style groups), validates each
 * one completely as it is added, and on coop_gen_write() compiles one CUDA C++ translation unit per
 * architecture with NVRTC (-dlto) and writes the bundle atomically:
 *
 *   <dir>/<name>.json           manifest (format version, versions, archs, payload hashes, symbols)
 *   <dir>/<name>.h              C header: declarations and <SYMBOL_UPPER>_TEMP_BYTES / _TEMP_ALIGN
 *   <dir>/<name>.<sm_XX>.ltoir  LTO-IR, one per architecture
 *
 * Symbols follow the device ABI of DESIGN.md, e.g. coop_block_reduce_sum_f32_t256_i4_warp_reductions.
 * The same requests always give byte-identical files, from the same working directory: NVRTC records it in
 * the LTO-IR of a bundle (coop_gen_write; a catalog, built through the front end from a folder of its own,
 * is byte-identical wherever it is built: tests/fuzz/determinism.sh). Handles are not thread-safe; use one
 * per thread.
 * Every function returns COOP_ERROR_INVALID_VALUE for a NULL handle or required argument.
 *
 * Spec file (JSON, or YAML, which is the same structure):
 *   { "name": "demo", "arch": ["sm_90", "sm_80"], "units": "instance",
 *     "generate": [ { "family": "block_reduce", "type": ["f32", "f64"], "op": ["sum", "max"],
 *                     "threads": [256, "32x4x2"], "items": 4, "algorithm": "warp_reductions",
 *                     "variant": ["full"] } ] }
 * Every list field also takes a single value. "generate" entries are groups: the product of the valid
 * combinations of their values is generated (an op that is bitwise is paired with integer types only,
 * a warp_transpose algorithm with thread counts that are multiples of 32); a value that forms no valid
 * combination is an error.
 *
 * "types": [ { "name": "mat2", "size": 16, "align": 4 } ] declares user types (see coop_gen_add_type),
 * which groups of the same spec then name in "type".
 *
 * "ir": "plain" (default) or "optimized" (pre-optimised LTO-IR; see coop_gen_set_ir).
 *
 * "units" (catalogs only, coop_gen_write_catalog): "instance" (default), one unit per CUB instance,
 * holding its variants; or "symbol", one unit per symbol: twice the units to build, and a link adds
 * no variant it does not call (which shows where links are fast: bench/README.md).
 *
 * Group fields:
 *   family     block_load | block_store | block_reduce | block_scan | block_exchange | block_merge_sort |
 *              block_discontinuity | block_adjacent_difference | block_shuffle | block_radix_sort |
 *              block_histogram | block_run_length_decode | block_radix_rank | warp_reduce | warp_scan |
 *              warp_load | warp_store | warp_exchange | warp_merge_sort (required)
 *   type       i8 i16 i32 i64 u8 u16 u32 u64 f16 bf16 f32 f64, or a declared user type (required)
 *   threads    block families: X, XxY or XxYxZ; 1 <= X*Y*Z <= 1024, Z <= 64 (required); block_merge_sort:
 *              a power of two, as CUB requires
 *   warp       warp families: lanes of the logical warp, 1..32 (required; symbols end in _w<lanes>); warp
 *              load, store, exchange and merge sort: a power of two, as CUB requires
 *   items      block families, warp load, store, exchange and merge sort: items per thread, 1..32 (default 1)
 *   values     warp_merge_sort, block_merge_sort: the value type(s) of a sort of key-value pairs
 *              (variants pairs, pairs_guarded; without it the sort is of keys)
 *   op         sum min max prod and or xor, custom:<name> (reduce and scan families: required; others:
 *              not allowed); a user type takes custom operators only. The merge sorts: their comparator,
 *              less greater or custom:<name> (extern "C" __device__ int name(const T *a, const T *b),
 *              non-zero when a goes before b); block_discontinuity: its flag op, ne eq less greater or
 *              custom:<name> (int name(const T *a, const T *b), non-zero for a discontinuity between a and the
 *              item b after it); block_adjacent_difference: sub or custom:<name> (void name(const T *a,
 *              const T *b, T *out): out = a "minus" b, b the item before a (left) or after it (right))
 *   algorithm  block_load/block_store: direct striped vectorize transpose warp_transpose
 *              warp_transpose_ts (default direct); block_reduce: raking raking_comm warp_reductions
 *              (default warp_reductions); block_scan: raking raking_memoize warp_scans (default raking);
 *              block_load also each load algorithm with `_cs` (vectorize_cs, ...): loads by CUB's LOAD_CS
 *              modifier (ld.cs: streamed data, first out of L2)
 *   variant    block_load/block_store: plain guarded; block_reduce: full partial (partial always has
 *              one item per thread, _i1); block_scan: exclusive inclusive exclusive_prefix
 *              inclusive_prefix; warp_reduce: full partial (valid lanes); warp_scan: exclusive
 *              inclusive; warp_load/warp_store: plain guarded; warp_exchange: blocked_to_striped
 *              striped_to_blocked scatter_to_striped; warp_merge_sort: keys keys_guarded pairs
 *              pairs_guarded (a guarded sort orders the first valid items; the places after them are
 *              unspecified, as in CUB); block_merge_sort: as warp_merge_sort; block_exchange:
 *              striped_to_blocked blocked_to_striped warp_striped_to_blocked blocked_to_warp_striped (these two:
 *              at most 32 threads or whole warps) scatter_to_blocked scatter_to_striped (ranks: each item's place
 *              in the tile) scatter_to_striped_guarded (ranks < 0 skipped) scatter_to_striped_flagged (is_valid
 *              flags); block_discontinuity: heads heads_pred tails tails_succ heads_tails heads_tails_pred
 *              heads_tails_succ heads_tails_pred_succ (int flags; _pred: a tile predecessor item, thread 0's,
 *              _succ: a tile successor, the last thread's); block_adjacent_difference: left left_pred
 *              left_partial left_partial_pred right right_succ right_partial (_partial: valid items); block_shuffle:
 *              offset rotate (one item, int distance) up up_suffix down down_prefix; block_radix_sort:
 *              keys_asc keys_desc keys_asc_striped keys_desc_striped and pairs_* the same (int begin_bit, end_bit;
 *              pairs with values). Default: every variant of the family (with values, those of pairs).
 *   algorithm  (also) block_radix_sort: r1 .. r8, its radix bits a pass (default r4); keys of a built-in type;
 *              block_histogram: sort atomic (default sort); block_radix_rank: r1 .. r8 (its digit's bits;
 *              variants asc desc; int begin_bit; ranks of the keys' raw bits).
 *   bins       block_histogram (required): its bins, 1..4096 (symbols end in _b<bins>); items: integer bin
 *              numbers; variants init_composite composite; the histogram: bins unsigned int counters
 *   decoded    block_run_length_decode (required): decoded items a thread, 1..32 (symbols end in _d<n>); items:
 *              runs a thread; variants decode decode_offsets (a window from int from_offset; the total out)
 *   algorithm  (also) warp_load/warp_store: direct striped vectorize transpose (default direct), warp_load
 *              also each with `_cs` (as block_load's);
 *              warp_exchange: smem shuffle (default smem; shuffle: items == lanes, built-in types, no
 *              scatter); block_exchange: smem smem_ts (CUB's warp time slicing; default smem; smem_ts has no
 *              guarded or flagged scatter)
 * Warp reduce and scan and the merge sorts have no algorithm: CUB's is fixed (for warp reduce and scan,
 * shuffles for a power-of-two logical warp, shared memory otherwise).
 */
#ifndef COOPLINK_COOPGEN_H
#define COOPLINK_COOPGEN_H

#include <cooplink/export.h>
#include <cooplink/result.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct coop_gen coop_gen;

/* One group in flag form. Each field is a comma list as text (e.g. "f32,f64"); NULL means "not given"
 * (the default, or an error for a required field). */
typedef struct coop_gen_group {
  const char *family;
  const char *type;
  const char *op;
  const char *threads;
  const char *items;
  const char *algorithm;
  const char *variant;
  const char *warp;
  const char *values; /* a sort of key-value pairs: the value type(s) */
  const char *bins;    /* block_histogram: its bins */
  const char *decoded; /* block_run_length_decode: decoded items per thread */
} coop_gen_group;

/* Creates a handle. Returns COOP_SUCCESS or COOP_ERROR_OUT_OF_MEMORY. */
COOP_API coop_result coop_gen_create(coop_gen **gen);

/* Destroys *gen and sets it to NULL; a NULL *gen is a no-op. Returns COOP_SUCCESS. */
COOP_API coop_result coop_gen_destroy(coop_gen **gen);

/* Adds the requests of a spec file (JSON or YAML). Errors name the file, line and column and the
 * offending value. Returns COOP_SUCCESS, COOP_ERROR_IO (unreadable), COOP_ERROR_SPEC_SYNTAX (not
 * well-formed), COOP_ERROR_SPEC_INVALID (well-formed but wrong), COOP_ERROR_OUT_OF_MEMORY. On failure
 * nothing of the file is kept. A "name" or "arch" in the file replaces an earlier one. */
COOP_API coop_result coop_gen_add_spec_file(coop_gen *gen, const char *path);

/* As coop_gen_add_spec_file, from memory; label names the text in messages. */
COOP_API coop_result coop_gen_add_spec_string(coop_gen *gen, const char *text, size_t size, const char *label);

/* Adds one flag-style group; messages name the flag (e.g. "--type"). Returns COOP_SUCCESS,
 * COOP_ERROR_SPEC_INVALID or COOP_ERROR_OUT_OF_MEMORY; on failure nothing is kept. */
COOP_API coop_result coop_gen_add_group(coop_gen *gen, const coop_gen_group *group);

/* Adds the one instantiation a canonical symbol names (e.g. "coop_block_reduce_sum_f32_t256_i4_raking"),
 * as the runtime does for on-demand generation. Returns COOP_SUCCESS, COOP_ERROR_SPEC_INVALID (not a
 * canonical cooplink symbol, or an invalid combination; the log says which) or COOP_ERROR_OUT_OF_MEMORY. */
COOP_API coop_result coop_gen_add_symbol(coop_gen *gen, const char *symbol);

/* Declares a user-defined type: name (1 to 24 of [a-z0-9], starting with a letter, not a built-in code; it
 * is the type's code in symbols), size (1 to 1024 bytes) and alignment (a power of two up to 256 that
 * divides size). The generated code carries it as an opaque struct alignas(align) { unsigned char
 * b[size]; }: loads, stores, exchanges and the custom operators (op custom:<name>) of the reduce and scan
 * families work on it; built-in ops are refused. The header declares it as COOP_TYPE_<NAME> (define that
 * macro as your own type before including the header). Declaring the same type twice is one declaration;
 * the same name with another size or alignment is COOP_ERROR_SPEC_INVALID. A symbol of a user type
 * (coop_gen_add_symbol) needs its type declared first. Returns COOP_SUCCESS, COOP_ERROR_SPEC_INVALID. */
COOP_API coop_result coop_gen_add_type(coop_gen *gen, const char *name, size_t size, size_t align);

/* Sets the bundle name: 1 to 64 of [a-z0-9_], starting with a letter. Returns COOP_SUCCESS or
 * COOP_ERROR_SPEC_INVALID. */
COOP_API coop_result coop_gen_set_name(coop_gen *gen, const char *name);

/* Sets the architectures, a comma list of sm_XX; NULL restores the default (every sm_75 and newer that
 * this NVRTC supports). Returns COOP_SUCCESS, COOP_ERROR_SPEC_INVALID (unknown or unsupported arch,
 * duplicate) or COOP_ERROR_TOOLKIT (NVRTC not usable). */
COOP_API coop_result coop_gen_set_archs(coop_gen *gen, const char *archs);

/* The LTO-IR's form: "plain" (the default: what a whole-program build gives) or "optimized"
 * (pre-optimised: smaller bundles, links about 1.7x as fast, but nvJitLink leaves a caller's loop around
 * the calls rolled when the caller's IR was not optimised before the link, as a Numba kernel's is not).
 * Overrides a spec's "ir". Returns COOP_SUCCESS or COOP_ERROR_SPEC_INVALID. */
COOP_API coop_result coop_gen_set_ir(coop_gen *gen, const char *ir);

/* Number of distinct symbols requested so far. */
COOP_API coop_result coop_gen_get_symbol_count(const coop_gen *gen, size_t *count);

/* Writes the generated CUDA C++ translation unit (what NVRTC compiles) to *source, malloc'd and
 * NUL-terminated; free() it. Temp-size checks are left out (they need the compile). */
COOP_API coop_result coop_gen_get_source(coop_gen *gen, char **source);

/* Compiles and writes the bundle into dir (created if missing). Files appear only when every
 * compile succeeded: each is written to a temporary name and renamed, the manifest last. Returns
 * COOP_SUCCESS, COOP_ERROR_STATE (no name or no requests), COOP_ERROR_TOOLKIT, COOP_ERROR_NVRTC
 * (log in the handle), COOP_ERROR_SPEC_INVALID (a primitive's temp storage is more shared memory than
 * a block can have on one of the archs; the log names it), COOP_ERROR_IO, COOP_ERROR_OUT_OF_MEMORY. */
COOP_API coop_result coop_gen_write(coop_gen *gen, const char *dir);

/* Writes a catalog into dir (created if missing): one small bundle per CUB instance (the variants of
 * one family, type, op, block shape, items and algorithm), so that a link adds only the units of the
 * symbols it calls, plus index.json (every symbol -> its unit, each unit's manifest hash), catalog.json
 * (versions, archs, unit naming and the index's hash: what a link reads; written last, the commit
 * point) and one C header <name>.h for every symbol. Units are compiled in parallel
 * ($COOPGEN_JOBS processes, default one per CPU) by the toolkit's nvcc front end (cicc with nvcc's own
 * commands, which emits none of the ~600 unused weak globals NVRTC puts in every module), or by NVRTC
 * where nvcc or its host preprocessor is missing; each unit's payload is one compressed fatbin with an
 * lto entry per arch where the toolkit has fatbinary, else LTO-IR per arch. The same requests give
 * byte-identical files wherever they are built. Files of units that a previous catalog in dir listed
 * and this one does not are removed once the new catalog.json is in place. Returns as coop_gen_write. */
COOP_API coop_result coop_gen_write_catalog(coop_gen *gen, const char *dir);

/* The name of the catalog unit (bundle) that holds symbol in a catalog coopgen --catalog wrote, into
 * unit (size bytes, at least 81); per_symbol: the catalog's units are of one symbol each. Returns
 * COOP_SUCCESS, COOP_ERROR_SPEC_INVALID (not a canonical cooplink symbol), COOP_ERROR_INVALID_VALUE (NULL,
 * or size too small), COOP_ERROR_OUT_OF_MEMORY. */
COOP_API coop_result coop_gen_unit_of_symbol(const char *symbol, int per_symbol, char *unit, size_t size);

/* Number of catalog units (bundles) the requests so far form. */
COOP_API coop_result coop_gen_get_unit_count(coop_gen *gen, size_t *count);

/* What the generator takes, as JSON in *json (malloc'd, NUL-terminated; free() it): {"families": {name: {"scope":
 * "block" or "warp", "algorithms": [{"name", "warp_multiple": a thread count that is a multiple of 32 needed,
 * "power_of_two_lanes": a power-of-two logical warp (block families: thread count) needed}, ...] (empty for a
 * family without algorithms), "default_algorithm": its name (absent without algorithms)}, ...}}: the table the
 * spec, flag and symbol requests are checked against. Returns COOP_SUCCESS, COOP_ERROR_INVALID_VALUE (json
 * NULL), COOP_ERROR_OUT_OF_MEMORY. */
COOP_API coop_result coop_gen_describe(char **json);

/* The handle's log: the messages of the last failing call (one per line) and NVRTC's log. Size
 * includes the terminating NUL. */
COOP_API coop_result coop_gen_get_log_size(const coop_gen *gen, size_t *size);
COOP_API coop_result coop_gen_get_log(const coop_gen *gen, char *log);

#ifdef __cplusplus
}
#endif
#endif
