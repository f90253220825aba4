/* libcooplink runtime internals. */
#ifndef COOP_RUNTIME_H
#define COOP_RUNTIME_H

#include "../common/common.h"
#include <cooplink/cooplink.h>
#include <pthread.h>

typedef struct coop__payload {
  int arch;   /* LTO-IR: its arch; fatbin: the lowest of its entries */
  int fatbin; /* a fatbin with one lto entry per arch of archs */
  int archs[32], n_archs;
  char *file; /* plain name inside the bundle's folder */
  char sha256[65];
  size_t bytes;
} coop__payload;

/* A user type as a manifest or a link declares it. */
typedef struct coop__utype {
  char name[25];
  unsigned long size, align;
} coop__utype;

typedef struct coop__bundle {
  char *name;
  char *dir;
  char *manifest;
  char manifest_sha256[65];
  coop__payload payloads[32];
  int n_payloads;
  char **symbols;
  size_t n_symbols;
  coop__utype *types;     /* the user types its symbols take (manifest "types") */
  size_t n_types;
  int loaded;             /* an indexed catalog reads a bundle's manifest on first use */
  char expected_sha[65];  /* ... and checks it against the index's hash */
} coop__bundle;

typedef struct coop__sym {
  const char *name;
  size_t bundle;
} coop__sym;

struct coop_catalog {
  char *dir;
  pthread_mutex_t mu;     /* guards those loads: a catalog may be shared by threads */
  coop__bundle *bundles;
  size_t n_bundles;
  coop__sym *index; /* sorted by name */
  size_t n_index;
  char digest[65]; /* identity of every manifest, for cache keys */
  /* opened from catalog.json: the index is read only when the list is asked for (coop__catalog_load_index);
   * with units named after their symbols' instance (by_name), a symbol's unit is found from its name */
  int lazy, by_name, per_symbol, index_loaded;
  size_t meta_bundles, meta_symbols;
  char index_sha[65];
  coop__bundle **named; /* bundles read by name, each its own allocation (pointers handed out stay valid) */
  size_t n_named, cap_named;
  int allow_duplicates;
  /* from index.json */
  char *header_file;
  char header_sha[65];
  int archs[32], n_archs;
};

/* coop_catalog_open; allow_duplicates for the folder of bundles generated on demand, where processes
 * racing on overlapping sets of missing symbols may each have generated one (they are identical). */
coop_result coop__catalog_open(coop_catalog **catalog, const char *dir, char **errlog, int allow_duplicates);
/* The bundle of c that defines symbol (its manifest read and checked on first use), or NULL in *b. */
coop_result coop__catalog_find_bundle(const coop_catalog *c, const char *symbol, const coop__bundle **b, coop__str *log);
/* Reads the whole index of a catalog opened from catalog.json (no-op otherwise), checking it against
 * catalog.json's index_sha256. */
coop_result coop__catalog_load_index(const coop_catalog *c, coop__str *log);
/* The i-th bundle of c, its manifest read and checked (against the index's hash) on first use. */
coop_result coop__catalog_bundle(const coop_catalog *c, size_t i, const coop__bundle **b, coop__str *log);
/* Reads and checks one manifest into b (fields owned by b). Messages go to log, naming path and field. */
coop_result coop__bundle_load(coop__bundle *b, const char *path, coop__str *log);
void coop__bundle_free(coop__bundle *b);
/* The payload to link for sm_<arch>: the exact arch, else the newest below it. NULL if none. */
const coop__payload *coop__bundle_payload(const coop__bundle *b, int arch);
/* Reads the payload and checks size and hash. *data is malloc'd. */
coop_result coop__bundle_read_payload(const coop__bundle *b, const coop__payload *p, char **data, size_t *size,
                                      coop__str *log);
/* nvJitLink's version. */
coop_result coop__nvjitlink_version(int *major, int *minor);

/* The cache: entries under <dir>/links, keyed by a hex digest. */
typedef struct coop__cache_entry {
  char *cubin, *ptx, *info, *bundles;
  size_t cubin_size, ptx_size, info_size, bundles_size;
} coop__cache_entry;
/* 1 on a hit (entry filled), 0 on a miss, -1 out of memory; a corrupt or truncated entry is removed and is
 * a miss. */
int coop__cache_get(const char *dir, const char *key, coop__cache_entry *e);
/* Stores atomically and evicts the least recently used entries above max_bytes. */
coop_result coop__cache_put(const char *dir, const char *key, const coop__cache_entry *e, unsigned long long max_bytes);
void coop__cache_entry_free(coop__cache_entry *e);
/* The default cache folder ($COOPLINK_CACHE, $XDG_CACHE_HOME/cooplink, ~/.cache/cooplink); malloc'd. */
char *coop__cache_default_dir(void);
unsigned long long coop__cache_max_bytes(void);

#endif
