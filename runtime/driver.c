#include "driver.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

static coop__driver g_drv;
static coop_result g_rc = COOP_ERROR_DRIVER;
static char g_why[256];
static pthread_once_t g_once = PTHREAD_ONCE_INIT;

static void load_once(void)
{
  void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    snprintf(g_why, sizeof g_why, "cannot load libcuda.so.1: %s", dlerror());
    return;
  }
#define COOP__DRV_LOAD(name, args)                                                      \
  *(void **)&g_drv.name = dlsym(h, #name);                                              \
  if (!g_drv.name) {                                                                    \
    snprintf(g_why, sizeof g_why, "libcuda.so.1 has no %s", #name);                     \
    return;                                                                             \
  }
  COOP__DRIVER_FUNCS(COOP__DRV_LOAD)
#undef COOP__DRV_LOAD
  coop__CUresult r = g_drv.cuInit(0);
  if (r != 0) {
    char buf[160];
    snprintf(g_why, sizeof g_why, "cuInit failed: %s", coop__driver_error(&g_drv, r, buf, sizeof buf));
    return;
  }
  g_rc = COOP_SUCCESS;
}

coop_result coop__driver_load(const coop__driver **drv, char *why, size_t why_size)
{
  pthread_once(&g_once, load_once);
  *drv = g_rc == COOP_SUCCESS ? &g_drv : NULL;
  if (g_rc != COOP_SUCCESS && why && why_size) snprintf(why, why_size, "%s", g_why);
  return g_rc;
}

const char *coop__driver_error(const coop__driver *drv, coop__CUresult r, char *buf, size_t size)
{
  const char *name = NULL, *text = NULL;
  if (drv && drv->cuGetErrorName) drv->cuGetErrorName(r, &name);
  if (drv && drv->cuGetErrorString) drv->cuGetErrorString(r, &text);
  snprintf(buf, size, "%s (%d): %s", name ? name : "CUDA_ERROR_UNKNOWN", r, text ? text : "no description");
  return buf;
}
