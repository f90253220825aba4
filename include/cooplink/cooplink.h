/* cooplink runtime (libcooplink): link user kernels against a catalog of cooplink bundles.
 *
 *   coop_catalog_open()    a folder of bundles, indexed symbol -> bundle, every manifest verified
 *   coop_linker_create()   one link, in the style of nvJitLink: create, add inputs, complete, get, destroy
 *   coop_module_load()     the CUDA driver through dlopen: load a cubin, launch a kernel
 *
 * The linker finds the coop_ symbols the inputs need, adds only the bundles that define them (or
 * generates missing ones on demand through the generator), links with nvJitLink -lto and caches the
 * result on disk, content-addressed. A catalog is read-only once open and may be shared by threads;
 * a linker or module handle belongs to one thread at a time. The library never prints: every message,
 * NVRTC log and nvJitLink log is kept in the handle that failed.
 *
 * Environment: COOPLINK_CATALOG (catalog folder when none is given), COOPLINK_CACHE (cache folder;
 * default $XDG_CACHE_HOME/cooplink or ~/.cache/cooplink), COOPLINK_CACHE_MAX_BYTES (cache size cap,
 * default 1 GiB), CUDA_HOME (toolkit for NVRTC's include paths).
 */
#ifndef COOPLINK_COOPLINK_H
#define COOPLINK_COOPLINK_H

#include <cooplink/export.h>
#include <cooplink/result.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- catalog */

typedef struct coop_catalog coop_catalog;

/* Opens a catalog folder; dir NULL means $COOPLINK_CATALOG, else the installed catalog (found relative
 * to the installed library, so that an installed tree may be moved; else <prefix>/share/cooplink/catalog).
 * A catalog written by coopgen --catalog is opened from its catalog.json alone (about 1 KB: format,
 * cooplink and CUDA versions, archs, the index's hash), checked now; a link then finds each symbol's
 * unit from the symbol's name and reads only the manifests and payloads it calls. Its index.json is
 * read only for the list (coop_catalog_get_bundle_info, coop_catalog_get_symbol) and by
 * coop_catalog_verify, checked against catalog.json's hash and every manifest against the index's
 * (COOP_ERROR_BUNDLE_HASH). A folder with only an index.json is opened from the index; a folder with
 * neither is read manifest by manifest (*.json). Each manifest is checked: well-formed
 * (COOP_ERROR_BUNDLE_CORRUPT), format version (COOP_ERROR_BUNDLE_FORMAT), cooplink version: same
 * major, minor not newer (COOP_ERROR_BUNDLE_VERSION), CUDA major equal to nvJitLink's
 * (COOP_ERROR_BUNDLE_CUDA_MAJOR), producer not newer than nvJitLink (COOP_ERROR_BUNDLE_PRODUCER_NEWER),
 * every payload file present, and no symbol defined twice (COOP_ERROR_SYMBOL_DUPLICATE). Payload hashes
 * and arch coverage are checked when a link uses the bundle. Also COOP_ERROR_IO (folder unreadable),
 * COOP_ERROR_OUT_OF_MEMORY, COOP_ERROR_INVALID_VALUE. On failure *catalog is NULL and, when errlog is not
 * NULL, *errlog gets a malloc'd message naming the file and field (free() it). */
COOP_API coop_result coop_catalog_open(coop_catalog **catalog, const char *dir, char **errlog);

/* Closes *catalog (no linker may use it any more) and sets it to NULL; NULL is a no-op. */
COOP_API coop_result coop_catalog_close(coop_catalog **catalog);

/* Counts of bundles and symbols. */
COOP_API coop_result coop_catalog_get_counts(const coop_catalog *catalog, size_t *bundles, size_t *symbols);

/* The bundle (manifest name without .json) that defines symbol, or COOP_ERROR_SYMBOL_MISSING. The
 * string lives as long as the catalog. */
COOP_API coop_result coop_catalog_find(const coop_catalog *catalog, const char *symbol, const char **bundle);

/* One bundle of a catalog, as coop_catalog_get_bundle_info reports it. Strings live as long as the
 * catalog. */
typedef struct coop_bundle_info {
  const char *name;
  size_t n_symbols;
  int archs[32]; /* the archs its payloads cover, ascending (e.g. 90) */
  int n_archs;
  int fatbin;    /* 1: one fatbin with an lto entry per arch; 0: LTO-IR per arch */
  size_t payload_bytes;
} coop_bundle_info;

/* The i-th bundle (0 <= i < bundles of coop_catalog_get_counts); reads its manifest if not read yet,
 * with the coop_catalog_open codes (message in *errlog when not NULL; free() it). */
COOP_API coop_result coop_catalog_get_bundle_info(const coop_catalog *catalog, size_t i, coop_bundle_info *info,
                                                  char **errlog);

/* The i-th symbol of the catalog in name order and its bundle's index. */
COOP_API coop_result coop_catalog_get_symbol(const coop_catalog *catalog, size_t i, const char **symbol,
                                             size_t *bundle);

/* Checks a catalog completely, as a link would and more: the index or every manifest, every payload's
 * size and sha256, the header's sha256, that every bundle covers every arch the catalog lists, the
 * CUDA major (same as this nvJitLink's) and producer (not newer). *report (malloc'd; free() it) gets
 * one line per problem, naming the file and field, or nothing when all is well. Returns COOP_SUCCESS
 * only when the catalog is usable with this nvJitLink, else the code of the first problem (a folder
 * with no bundle at all: COOP_ERROR_BUNDLE_CORRUPT). */
COOP_API coop_result coop_catalog_verify(const char *dir, char **report);

/* ---------------------------------------------------------------- linker */

typedef struct coop_linker coop_linker;

typedef enum coop_input_kind {
  COOP_INPUT_AUTO = 0,   /* by file extension: .cu .ltoir .ptx .cubin .fatbin .a .json (a bundle) */
  COOP_INPUT_CUDA = 1,   /* CUDA C++ source, compiled with NVRTC -dlto (both CCCL include paths) */
  COOP_INPUT_LTOIR = 2,
  COOP_INPUT_PTX = 3,
  COOP_INPUT_CUBIN = 4,
  COOP_INPUT_FATBIN = 5,
  COOP_INPUT_LIBRARY = 6, /* an nvcc -lib archive */
  COOP_INPUT_BUNDLE = 7   /* an extra bundle, by its manifest path: added whole */
} coop_input_kind;

/* Creates a linker. catalog may be NULL (only extra bundles and on-demand generation). Options, as
 * strings in the style of nvJitLink:
 *   -arch=sm_XX        target (default: the current GPU's; COOP_ERROR_DRIVER when there is none)
 *   -lineinfo          line information in the output
 *   -ptx               also produce the linked PTX (coop_linker_get_ptx)
 *   -verbose           keep ptxas's per-kernel report (registers, stack frame, spills) in the log
 *   -cache=0|1         the disk cache (default 1); -cache-dir=PATH overrides COOPLINK_CACHE
 *   -generate=0|1      generate symbols missing from the catalog on demand (default 1)
 *   -Xnvrtc=OPT        pass OPT to NVRTC (CUDA inputs); -Xnvjitlink=OPT pass OPT to nvJitLink
 *   -I<dir>            include folder for CUDA inputs (the catalog folder is always one)
 * Returns COOP_SUCCESS, COOP_ERROR_INVALID_VALUE (unknown or malformed option, named in the log),
 * COOP_ERROR_DRIVER (no arch given and no GPU), COOP_ERROR_CACHE (cache folder not writable),
 * COOP_ERROR_IO (with -cache=0: no private folder under $TMPDIR for on-demand generation),
 * COOP_ERROR_OUT_OF_MEMORY. On failure other than OOM a handle is still returned so that its log can
 * be read; destroy it. */
COOP_API coop_result coop_linker_create(coop_linker **linker, const coop_catalog *catalog, unsigned n_options,
                                        const char *const *options);

/* Destroys *linker and sets it to NULL; NULL is a no-op. */
COOP_API coop_result coop_linker_destroy(coop_linker **linker);

/* Adds an input from memory (copied). name appears in messages. COOP_INPUT_AUTO is refused here
 * (COOP_ERROR_INVALID_VALUE); so is COOP_INPUT_BUNDLE (use coop_linker_add_file). Returns
 * COOP_SUCCESS, COOP_ERROR_INVALID_VALUE, COOP_ERROR_STATE (already completed), COOP_ERROR_OUT_OF_MEMORY. */
COOP_API coop_result coop_linker_add_data(coop_linker *linker, coop_input_kind kind, const void *data, size_t size,
                                          const char *name);

/* Adds an input file (read now). Also COOP_ERROR_IO (unreadable), COOP_ERROR_INPUT (unknown extension
 * with COOP_INPUT_AUTO), and for bundles the coop_catalog_open codes. */
COOP_API coop_result coop_linker_add_file(coop_linker *linker, coop_input_kind kind, const char *path);

/* Links: compiles CUDA inputs, finds the coop_ symbols they need, adds the bundles defining them
 * (verifying payload hashes and arch coverage), links with nvJitLink -lto -optimize-unused-variables,
 * and reads/writes the cache. Returns COOP_SUCCESS, COOP_ERROR_NVRTC, COOP_ERROR_NVJITLINK,
 * COOP_ERROR_SYMBOL_MISSING (the log lists every missing symbol), COOP_ERROR_BUNDLE_HASH,
 * COOP_ERROR_BUNDLE_ARCH, COOP_ERROR_TOOLKIT, COOP_ERROR_CACHE, COOP_ERROR_SPEC_INVALID (a missing
 * symbol that is not a valid cooplink name, with generation on), COOP_ERROR_TYPE_MISMATCH (see
 * coop_linker_add_type), COOP_ERROR_INPUT (nvJitLink found an input malformed), COOP_ERROR_STATE (called twice or no inputs),
 * COOP_ERROR_OUT_OF_MEMORY. */
COOP_API coop_result coop_linker_complete(coop_linker *linker);

/* The linked cubin / PTX (PTX only with -ptx); valid after a successful complete, owned by the handle. */
COOP_API coop_result coop_linker_get_cubin(const coop_linker *linker, const void **cubin, size_t *size);
COOP_API coop_result coop_linker_get_ptx(const coop_linker *linker, const char **ptx, size_t *size);

/* What the link did. */
typedef struct coop_link_info {
  double seconds;           /* wall time of coop_linker_complete */
  int cache_hit;            /* 1 when the result came from the cache */
  size_t n_bundles;         /* bundles added (catalog, generated and extra) */
  size_t n_generated;       /* symbols generated on demand */
} coop_link_info;
COOP_API coop_result coop_linker_get_info(const coop_linker *linker, coop_link_info *info);

/* Name of the i-th added bundle (0 <= i < n_bundles); owned by the handle. */
COOP_API coop_result coop_linker_get_bundle(const coop_linker *linker, size_t i, const char **name);

/* For a layer that runs its own link (the Python layer hands these payloads to Numba's linker): the
 * bundles that define a set of symbols, found as coop_linker_complete finds them (bundles added, the
 * catalog, the folder of on-demand bundles in the cache, on-demand generation into it, so that a later
 * process finds what this one generated), without linking.
 *
 * coop_linker_add_symbol declares a symbol that is needed although no input calls it: a name of the
 * device ABI ("coop_..."), else COOP_ERROR_INVALID_VALUE; COOP_ERROR_STATE after resolve or complete.
 * coop_linker_resolve resolves the declared symbols and those the inputs call, reads every payload for
 * the linker's arch and checks it (size, sha256, arch coverage); codes as coop_linker_complete's
 * (COOP_ERROR_SYMBOL_MISSING, COOP_ERROR_SPEC_INVALID, COOP_ERROR_BUNDLE_HASH, COOP_ERROR_BUNDLE_ARCH,
 * COOP_ERROR_NVRTC, COOP_ERROR_STATE if called twice or after complete). Then coop_linker_get_info gives
 * n_bundles and n_generated, coop_linker_get_bundle the names, and, for 0 <= i < n_bundles: */
COOP_API coop_result coop_linker_add_symbol(coop_linker *linker, const char *symbol);
/* Declares a user-defined type (see coop_gen_add_type: name, size, alignment) that symbols of this link
 * take: on-demand generation makes them for it (a symbol names its type, not its size), and every bundle
 * the link adds that takes a type of this name must have been built for the same size and alignment,
 * else coop_linker_complete / coop_linker_resolve fail with COOP_ERROR_TYPE_MISMATCH naming both.
 * Returns COOP_SUCCESS, COOP_ERROR_INVALID_VALUE (an invalid declaration, or the same name declared with
 * another size or alignment; the log says why), COOP_ERROR_STATE (after resolve or complete),
 * COOP_ERROR_OUT_OF_MEMORY. */
COOP_API coop_result coop_linker_add_type(coop_linker *linker, const char *name, size_t size, size_t align);
COOP_API coop_result coop_linker_resolve(coop_linker *linker);
/* the i-th bundle's payload for the arch (LTO-IR, or a fatbin holding an lto entry for it; give it to
 * nvJitLink with -lto) and the path of its manifest (JSON: each symbol's parameters, temp bytes and
 * alignment); both owned by the handle. COOP_ERROR_STATE before a successful resolve. */
COOP_API coop_result coop_linker_get_payload(const coop_linker *linker, size_t i, const void **data, size_t *size,
                                             coop_input_kind *kind);
COOP_API coop_result coop_linker_get_manifest(const coop_linker *linker, size_t i, const char **path);

/* The log: cooplink's messages, then NVRTC's and nvJitLink's logs (info and errors) of the last call.
 * Size includes the terminating NUL. */
COOP_API coop_result coop_linker_get_log_size(const coop_linker *linker, size_t *size);
COOP_API coop_result coop_linker_get_log(const coop_linker *linker, char *log);

/* ---------------------------------------------------------------- environment */

/* Where this library looks and what it found; the strings are owned by the library (cache_dir until the
 * calling thread's next call). */
typedef struct coop_environment {
  const char *version;         /* cooplink's version, "0.1.0" */
  const char *catalog_dir;     /* the catalog used when none is given ($COOPLINK_CATALOG, else the installed one) */
  const char *cache_dir;       /* the cache folder ($COOPLINK_CACHE, $XDG_CACHE_HOME/cooplink, ~/.cache/cooplink) */
  const char *toolkit_root;    /* the CUDA toolkit for NVRTC and on-demand generation ($CUDA_HOME, ...) */
  int nvjitlink_major, nvjitlink_minor;
} coop_environment;
COOP_API coop_result coop_get_environment(coop_environment *env);

/* ---------------------------------------------------------------- driver */

typedef struct coop_module coop_module;

/* 1 if a CUDA driver and a GPU are usable; else 0 with a reason in why (may be NULL). */
COOP_API int coop_driver_available(char *why, size_t why_size);

/* The compute capability of device 0 as major*10+minor (e.g. 90), or COOP_ERROR_DRIVER. */
COOP_API coop_result coop_device_arch(int *arch);

/* Loads a cubin into the primary context of device 0. Returns COOP_SUCCESS or COOP_ERROR_DRIVER
 * (message in *errlog when not NULL; free() it). */
COOP_API coop_result coop_module_load(coop_module **module, const void *cubin, char **errlog);

/* Launches kernel with the given grid, block, dynamic shared memory and parameters (as for
 * cuLaunchKernel) on the default stream and waits for it. COOP_ERROR_DRIVER with a message in *errlog. */
COOP_API coop_result coop_module_launch(coop_module *module, const char *kernel, const unsigned grid[3],
                                        const unsigned block[3], unsigned shared_bytes, void **params, char **errlog);

/* Kernel resources: registers per thread and local (stack) bytes per thread. */
COOP_API coop_result coop_module_get_resources(coop_module *module, const char *kernel, int *registers,
                                               int *local_bytes);

/* Device memory helpers for examples and tests. */
COOP_API coop_result coop_device_alloc(unsigned long long *ptr, size_t bytes);
COOP_API coop_result coop_device_free(unsigned long long ptr);
COOP_API coop_result coop_device_upload(unsigned long long dst, const void *src, size_t bytes);
COOP_API coop_result coop_device_download(void *dst, unsigned long long src, size_t bytes);
/* Times a launch with device events: milliseconds of the kernel alone. */
COOP_API coop_result coop_module_time(coop_module *module, const char *kernel, const unsigned grid[3],
                                      const unsigned block[3], unsigned shared_bytes, void **params, float *ms);

COOP_API coop_result coop_module_unload(coop_module **module);

#ifdef __cplusplus
}
#endif
#endif
