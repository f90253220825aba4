/* Helpers shared by the CPU tests. */
#ifndef COOPT_UTIL_H
#define COOPT_UTIL_H
#include <cooplink/coopgen.h>
#include <stddef.h>

/* A fresh empty folder under $TMPDIR; free() it. */
char *coopt_tmpdir(void);
/* The handle's log as a malloc'd string. */
char *coopt_gen_log(const coop_gen *gen);
/* 1 if path exists. */
int coopt_exists(const char *path);
/* Number of entries in a folder (without . and ..), -1 if it cannot be read. */
int coopt_count_entries(const char *dir);
/* Generates groups into bundle `name` for archs (comma list) in dir, asserting success. */
void coopt_generate(const coop_gen_group *groups, int n, const char *name, const char *archs, const char *dir);
/* ... after declaring the user types of types ("mat2:16:8,rgb:3:1"; NULL: none). */
void coopt_generate_typed(const coop_gen_group *groups, int n, const char *types, const char *name, const char *archs,
                          const char *dir);
/* printf into a malloc'd string. */
char *coopt_fmt(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* SHA-256 as 64 hex digits (OpenSSL). */
void coopt_sha256_hex(const void *data, size_t size, char hex[65]);
/* 1 if two files have identical bytes. */
int coopt_same_file(const char *a, const char *b);
#endif
