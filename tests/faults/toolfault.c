/* libtoolfault.so, preloaded into cooplink or coopgen by tests/faults/tools.sh: NVRTC and nvJitLink calls
 * that fail on request.
 *
 *   TOOLFAULT=NAME:N    the N-th call (from 1) of NAME (e.g. nvJitLinkComplete, nvrtcCompileProgram) returns
 *                       an error instead of calling the library: NVJITLINK_ERROR_INTERNAL,
 *                       NVRTC_ERROR_INTERNAL_ERROR (NVRTC_ERROR_COMPILATION for nvrtcCompileProgram)
 *   TOOLFAULT_CALLS=F   each function's calls so far, one "NAME COUNT" line each, kept in file F
 *
 * nvJitLink is linked, so its functions are interposed by name (the versioned names its header maps them
 * to); NVRTC is loaded with dlopen, so dlsym is interposed and hands out wrappers for its functions. */
#define _GNU_SOURCE
#define NVJITLINK_NO_INLINE
#include <dlfcn.h>
#include <fcntl.h>
#include <nvJitLink.h>
#include <nvrtc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { MAX_FUNCS = 64 };
static struct {
  const char *name;
  long calls;
} funcs[MAX_FUNCS];
static int n_funcs;

static void save(void)
{
  const char *f = getenv("TOOLFAULT_CALLS");
  if (!f) return;
  char buf[4096];
  int o = 0;
  for (int i = 0; i < n_funcs && o < (int)sizeof buf - 100; ++i)
    o += snprintf(buf + o, sizeof buf - o, "%s %ld\n", funcs[i].name, funcs[i].calls);
  int fd = open(f, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) return;
  if (write(fd, buf, (size_t)o) < 0) o = 0;
  close(fd);
}

/* Counts a call of `name`; 1 when this one must fail. */
static int fails(const char *name)
{
  int i = 0;
  while (i < n_funcs && strcmp(funcs[i].name, name)) ++i;
  if (i == n_funcs && n_funcs < MAX_FUNCS) funcs[n_funcs++].name = name;
  long c = i < MAX_FUNCS ? ++funcs[i].calls : 0;
  save();
  const char *f = getenv("TOOLFAULT");
  size_t n = strlen(name);
  return f && !strncmp(f, name, n) && f[n] == ':' && atol(f + n + 1) == c;
}

/* ---- nvJitLink: the functions cooplink calls ---- */
/* The header's inline functions call versioned symbols (__nvJitLinkCreate_13_0): JL_SUFFIX (-D, from the
 * library's dynamic symbols: tests/faults/tools.sh) names them. */
#ifndef JL_SUFFIX
#error "-DJL_SUFFIX=_13_0 (the version suffix of libnvJitLink's symbols)"
#endif
#define CAT3_(a, b, c) a##b##c
#define CAT3(a, b, c) CAT3_(a, b, c)
#define STR_(x) #x
#define STR(x) STR_(x)
#define JL(plain, params, args)                                                      \
  nvJitLinkResult CAT3(__, plain, JL_SUFFIX) params                                  \
  {                                                                                  \
    if (fails(#plain)) return NVJITLINK_ERROR_INTERNAL;                              \
    static nvJitLinkResult (*real) params;                                           \
    if (!real) *(void **)&real = dlsym(RTLD_NEXT, STR(CAT3(__, plain, JL_SUFFIX)));  \
    return real args;                                                                \
  }
JL(nvJitLinkCreate, (nvJitLinkHandle * h, uint32_t n, const char *const *o), (h, n, o))
JL(nvJitLinkDestroy, (nvJitLinkHandle * h), (h))
JL(nvJitLinkAddData, (nvJitLinkHandle h, nvJitLinkInputType t, const void *d, size_t s, const char *n), (h, t, d, s, n))
JL(nvJitLinkComplete, (nvJitLinkHandle h), (h))
JL(nvJitLinkGetLinkedCubinSize, (nvJitLinkHandle h, size_t *s), (h, s))
JL(nvJitLinkGetLinkedCubin, (nvJitLinkHandle h, void *c), (h, c))
JL(nvJitLinkGetLinkedPtxSize, (nvJitLinkHandle h, size_t *s), (h, s))
JL(nvJitLinkGetLinkedPtx, (nvJitLinkHandle h, char *p), (h, p))
JL(nvJitLinkGetErrorLogSize, (nvJitLinkHandle h, size_t *s), (h, s))
JL(nvJitLinkGetErrorLog, (nvJitLinkHandle h, char *l), (h, l))
JL(nvJitLinkGetInfoLogSize, (nvJitLinkHandle h, size_t *s), (h, s))
JL(nvJitLinkGetInfoLog, (nvJitLinkHandle h, char *l), (h, l))
JL(nvJitLinkVersion, (unsigned *major, unsigned *minor), (major, minor))

/* ---- NVRTC: wrappers handed out by dlsym ---- */
#define NVRTC_FUNCS(X)                                                                                     \
  X(Version, (int *a, int *b), (a, b))                                                                     \
  X(GetNumSupportedArchs, (int *n), (n))                                                                   \
  X(GetSupportedArchs, (int *a), (a))                                                                      \
  X(CreateProgram, (nvrtcProgram * p, const char *s, const char *n, int k, const char *const *h, const char *const *i), \
    (p, s, n, k, h, i))                                                                                    \
  X(DestroyProgram, (nvrtcProgram * p), (p))                                                               \
  X(CompileProgram, (nvrtcProgram p, int n, const char *const *o), (p, n, o))                              \
  X(GetLTOIRSize, (nvrtcProgram p, size_t *s), (p, s))                                                     \
  X(GetLTOIR, (nvrtcProgram p, char *c), (p, c))                                                           \
  X(GetCUBINSize, (nvrtcProgram p, size_t *s), (p, s))                                                     \
  X(GetCUBIN, (nvrtcProgram p, char *c), (p, c))                                                           \
  X(GetPTXSize, (nvrtcProgram p, size_t *s), (p, s))                                                       \
  X(GetPTX, (nvrtcProgram p, char *c), (p, c))                                                             \
  X(GetProgramLogSize, (nvrtcProgram p, size_t *s), (p, s))                                                \
  X(GetProgramLog, (nvrtcProgram p, char *l), (p, l))                                                      \
  X(AddNameExpression, (nvrtcProgram p, const char *e), (p, e))                                            \
  X(GetLoweredName, (nvrtcProgram p, const char *e, const char **l), (p, e, l))

#define RTC(name, params, args)                                                                             \
  static nvrtcResult (*real_##name) params;                                                                \
  static nvrtcResult wrap_##name params                                                                    \
  {                                                                                                        \
    if (fails("nvrtc" #name))                                                                              \
      return !strcmp(#name, "CompileProgram") ? NVRTC_ERROR_COMPILATION : NVRTC_ERROR_INTERNAL_ERROR;      \
    return real_##name args;                                                                               \
  }
NVRTC_FUNCS(RTC)
#undef RTC

void *dlsym(void *h, const char *name)
{
  static void *(*real)(void *, const char *);
  if (!real) *(void **)&real = dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.34");
  if (!real) *(void **)&real = dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.2.5");
  void *p = real(h, name);
  if (!p || strncmp(name, "nvrtc", 5) != 0) return p;
#define RTC(n, params, args)                   \
  if (!strcmp(name + 5, #n)) {                 \
    *(void **)&real_##n = p;                   \
    return (void *)wrap_##n;                   \
  }
  NVRTC_FUNCS(RTC)
#undef RTC
  return p;
}
