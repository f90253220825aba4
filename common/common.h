/* cooplink internals shared by the generator and the runtime: growable strings, files, hashing,
 * toolkit discovery. Not installed, not API. */
#ifndef COOP_COMMON_H
#define COOP_COMMON_H

#include <cooplink/result.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

/* A growable NUL-terminated string. A failed allocation sets oom and later appends do nothing. */
typedef struct coop__str {
  char *p;
  size_t len, cap;
  int oom;
} coop__str;

void coop__str_free(coop__str *s);
void coop__str_clear(coop__str *s);
void coop__str_add(coop__str *s, const char *text);
void coop__str_addn(coop__str *s, const char *text, size_t n);
void coop__str_printf(coop__str *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void coop__str_vprintf(coop__str *s, const char *fmt, va_list ap);
/* The string, "" when empty; never NULL. */
const char *coop__str_get(const coop__str *s);

/* Reads a whole file. *data is NUL-terminated (not counted in *size); free() it. */
coop_result coop__read_file(const char *path, char **data, size_t *size);
/* Writes data to a temporary file beside path (".<base>.tmp.XXXXXX"), fsyncs it and returns its name
 * in *tmp_path (free() it); the caller renames it into place or unlinks it. */
coop_result coop__write_temp(const char *path, const void *data, size_t size, char **tmp_path);
/* Creates the folder and its parents (mode 0777 & ~umask). */
coop_result coop__mkdirs(const char *path);
/* Removes a folder and everything under it (best effort, symbolic links not followed). */
void coop__remove_tree(const char *dir);
/* dir + "/" + name, malloc'd; NULL on OOM. */
char *coop__path_join(const char *dir, const char *name);

/* SHA-256 of data as 64 lower-case hex digits and a NUL. */
void coop__sha256_hex(const void *data, size_t size, char hex[65]);

/* The CUDA toolkit root: $CUDA_HOME, else $CUDA_PATH, else the one found at build time, else
 * /usr/local/cuda. Static or environment string. */
const char *coop__cuda_root(void);

/* Parses "sm_XX" / "sm_XXX"; returns the number (e.g. 90) or -1 (also for NULL). */
int coop__parse_sm(const char *text);

/* Parses a command line's user type "NAME:SIZE:ALIGN" (e.g. mat2:16:4; no sign, no blank): 1 when
 * well-formed (name, at most 63 characters, into name), else 0. The values are checked by the callee
 * (coop_gen_add_type, coop_linker_add_type). */
int coop__parse_user_type(const char *text, char name[64], unsigned long *size, unsigned long *align);

char *coop__strdup(const char *s);

#endif
