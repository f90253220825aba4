/* Test support: NVRTC -dlto of a user kernel and an nvJitLink link, with every return code checked. */
#ifndef COOPT_LTO_H
#define COOPT_LTO_H
#include <stddef.h>

typedef struct coopt_blob {
  char *data;
  size_t size;
} coopt_blob;

/* Compiles CUDA C to LTO-IR for compute_<arch>; include_dir (may be NULL) is added with -I.
 * Returns 0 on success; on failure *log holds NVRTC's log (free() it). */
int coopt_compile(const char *src, int arch, const char *include_dir, coopt_blob *ltoir, char **log);

/* Links LTO-IR inputs for sm_<arch> with -lto -optimize-unused-variables (what the library's final link
 * uses; pass "-verbose" in extra for ptxas's resource report in *info);
 * ptx: 1 to get PTX (-ptx), 0 for a cubin. extra: NULL-terminated extra options.
 * Returns 0 on success; *info and *error get the logs (free() them). */
int coopt_link(int arch, const coopt_blob *inputs, int n, int ptx, const char *const *extra, coopt_blob *out,
               char **info, char **error);

/* Reads a whole file; returns 0 on success. */
int coopt_read(const char *path, coopt_blob *out);

/* Runs a command with the shell; returns its exit status and stdout+stderr in *output (free() it). */
int coopt_run(const char *cmd, char **output);

#endif
