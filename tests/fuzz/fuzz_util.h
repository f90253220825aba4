/* What the fuzz targets share: a private temp folder per process, removed at exit, and inputs that are
 * several files. */
#ifndef COOP_FUZZ_UTIL_H
#define COOP_FUZZ_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* A fresh, empty folder inside this process's temp folder ($TMPDIR/coopfuzz.XXXXXX, removed at exit);
 * the same path each call, emptied each call. The first call points $TMPDIR at the process's temp folder.
 * Aborts when it cannot be made. */
const char *fz_scratch(void);

/* Writes data to dir/name; aborts on failure. */
void fz_write(const char *dir, const char *name, const void *data, size_t size);

/* An input of several files: each starts with a line "=== NAME" and runs to the next "\n=== " or the end
 * (text before the first is ignored). Writes those with a plain name (1 to 64 of [A-Za-z0-9._-], not
 * starting with '.') into dir, at most 16; returns how many it wrote, and the first one's name in first. */
int fz_write_files(const char *dir, const uint8_t *data, size_t size, char first[65]);

/* A copy of data with a NUL after it (free() it). */
char *fz_string(const uint8_t *data, size_t size);

/* /dev/null, for the messages of a parser under test. */
FILE *fz_devnull(void);

#endif
