/* NVRTC on first use: see nvrtc_dl.h. */
#include "nvrtc_dl.h"

#include <cuda.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "common.h"

#define COOP__NVRTC_PTR(ret, name, params, args) static ret(*p_##name) params;
COOP__NVRTC_FUNCS(COOP__NVRTC_PTR)
#undef COOP__NVRTC_PTR
static const char *(*p_GetErrorString)(nvrtcResult);

static pthread_once_t once = PTHREAD_ONCE_INIT;
static char failure[1400];

static void load(void)
{
  /* the toolkit's own (CUDA_HOME, else the one built against), then the loader's search path */
  char path[1200], soname[64];
  snprintf(soname, sizeof soname, "libnvrtc.so.%d", CUDA_VERSION / 1000);
  snprintf(path, sizeof path, "%s/lib64/%s", coop__cuda_root(), soname);
  void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!h) h = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    snprintf(failure, sizeof failure, "NVRTC could not be loaded: %s (set CUDA_HOME to the toolkit)", dlerror());
    return;
  }
#define COOP__NVRTC_SYM(ret, name, params, args)                                                  \
  if (!failure[0] && !(*(void **)&p_##name = dlsym(h, "nvrtc" #name)))                           \
    snprintf(failure, sizeof failure, "%s has no nvrtc" #name " (an older NVRTC than cooplink needs)", path);
  COOP__NVRTC_FUNCS(COOP__NVRTC_SYM)
  COOP__NVRTC_SYM(const char *, GetErrorString, (nvrtcResult r), (r))
#undef COOP__NVRTC_SYM
}

int coop__nvrtc_available(char *why, size_t why_size)
{
  pthread_once(&once, load);
  if (failure[0] && why && why_size) snprintf(why, why_size, "%s", failure);
  return failure[0] == 0;
}

const char *coop__nvrtcGetErrorString(nvrtcResult r)
{
  if (!coop__nvrtc_available(NULL, 0)) return failure;
  return p_GetErrorString(r);
}

#define COOP__NVRTC_FWD(ret, name, params, args)                                     \
  ret coop__nvrtc##name params                                                       \
  {                                                                                  \
    if (!coop__nvrtc_available(NULL, 0)) return NVRTC_ERROR_INTERNAL_ERROR;          \
    return p_##name args;                                                            \
  }
COOP__NVRTC_FUNCS(COOP__NVRTC_FWD)
#undef COOP__NVRTC_FWD
