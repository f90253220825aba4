/* Modules: cubins loaded into the primary context of device 0 through the dlopen'd driver. */
#include "driver.h"
#include "runtime.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct coop_module {
  const coop__driver *d;
  coop__CUmodule mod;
};

static void set_err(char **errlog, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void set_err(char **errlog, const char *fmt, ...)
{
  if (!errlog) return;
  coop__str s = {0};
  va_list ap;
  va_start(ap, fmt);
  coop__str_vprintf(&s, fmt, ap);
  va_end(ap);
  *errlog = s.p;
}

/* The driver, with the primary context of device 0 current on this thread. */
static coop_result context(const coop__driver **d, char *why, size_t size)
{
  coop_result rc = coop__driver_load(d, why, size);
  if (rc) return rc;
  coop__CUdevice dev;
  coop__CUcontext ctx;
  char buf[200];
  coop__CUresult r = (*d)->cuDeviceGet(&dev, 0);
  if (!r) r = (*d)->cuDevicePrimaryCtxRetain(&ctx, dev);
  if (!r) r = (*d)->cuCtxSetCurrent(ctx);
  if (r) {
    snprintf(why, size, "no usable GPU: %s", coop__driver_error(*d, r, buf, sizeof buf));
    return COOP_ERROR_DRIVER;
  }
  return COOP_SUCCESS;
}

int coop_driver_available(char *why, size_t why_size)
{
  char buf[256] = "";
  const coop__driver *d;
  coop_result rc = context(&d, buf, sizeof buf);
  if (rc && why && why_size) snprintf(why, why_size, "%s", buf);
  return rc == COOP_SUCCESS;
}

coop_result coop_device_arch(int *arch)
{
  if (!arch) return COOP_ERROR_INVALID_VALUE;
  const coop__driver *d;
  char why[256];
  if (context(&d, why, sizeof why)) return COOP_ERROR_DRIVER;
  int ma = 0, mi = 0;
  coop__CUdevice dev;
  if (d->cuDeviceGet(&dev, 0) || d->cuDeviceGetAttribute(&ma, COOP__CU_ATTR_CC_MAJOR, dev) ||
      d->cuDeviceGetAttribute(&mi, COOP__CU_ATTR_CC_MINOR, dev))
    return COOP_ERROR_DRIVER;
  *arch = ma * 10 + mi;
  return COOP_SUCCESS;
}

coop_result coop_module_load(coop_module **module, const void *cubin, char **errlog)
{
  if (errlog) *errlog = NULL;
  if (!module || !cubin) return COOP_ERROR_INVALID_VALUE;
  *module = NULL;
  char why[256];
  const coop__driver *d;
  if (context(&d, why, sizeof why)) {
    set_err(errlog, "%s", why);
    return COOP_ERROR_DRIVER;
  }
  coop_module *m = calloc(1, sizeof *m);
  if (!m) return COOP_ERROR_OUT_OF_MEMORY;
  m->d = d;
  coop__CUresult r = d->cuModuleLoadData(&m->mod, cubin);
  if (r) {
    char buf[200];
    set_err(errlog, "cuModuleLoadData: %s", coop__driver_error(d, r, buf, sizeof buf));
    free(m);
    return COOP_ERROR_DRIVER;
  }
  *module = m;
  return COOP_SUCCESS;
}

coop_result coop_module_unload(coop_module **module)
{
  if (!module) return COOP_ERROR_INVALID_VALUE;
  if (!*module) return COOP_SUCCESS;
  coop__CUresult r = (*module)->d->cuModuleUnload((*module)->mod);
  free(*module);
  *module = NULL;
  return r ? COOP_ERROR_DRIVER : COOP_SUCCESS;
}

static coop_result get_fn(coop_module *m, const char *kernel, coop__CUfunction *fn, char **errlog)
{
  coop__CUresult r = m->d->cuModuleGetFunction(fn, m->mod, kernel);
  if (r) {
    char buf[200];
    set_err(errlog, "cuModuleGetFunction(%s): %s", kernel, coop__driver_error(m->d, r, buf, sizeof buf));
    return COOP_ERROR_DRIVER;
  }
  return COOP_SUCCESS;
}

static coop_result launch(coop_module *m, coop__CUfunction fn, const unsigned g[3], const unsigned b[3], unsigned smem,
                          void **params, char **errlog)
{
  const coop__driver *d = m->d;
  char buf[200];
  coop__CUresult r = 0;
  if (smem > 48 * 1024) r = d->cuFuncSetAttribute(fn, COOP__CU_FUNC_MAX_DYNAMIC_SHARED, (int)smem);
  if (!r) r = d->cuLaunchKernel(fn, g[0], g[1], g[2], b[0], b[1], b[2], smem, NULL, params, NULL);
  if (r) {
    set_err(errlog, "cuLaunchKernel: %s", coop__driver_error(d, r, buf, sizeof buf));
    return COOP_ERROR_DRIVER;
  }
  return COOP_SUCCESS;
}

coop_result coop_module_launch(coop_module *m, const char *kernel, const unsigned grid[3], const unsigned block[3],
                               unsigned shared_bytes, void **params, char **errlog)
{
  if (errlog) *errlog = NULL;
  if (!m || !kernel || !grid || !block) return COOP_ERROR_INVALID_VALUE;
  coop__CUfunction fn;
  coop_result rc = get_fn(m, kernel, &fn, errlog);
  if (!rc) rc = launch(m, fn, grid, block, shared_bytes, params, errlog);
  if (!rc) {
    coop__CUresult r = m->d->cuCtxSynchronize();
    if (r) {
      char buf[200];
      set_err(errlog, "%s: %s", kernel, coop__driver_error(m->d, r, buf, sizeof buf));
      rc = COOP_ERROR_DRIVER;
    }
  }
  return rc;
}

coop_result coop_module_time(coop_module *m, const char *kernel, const unsigned grid[3], const unsigned block[3],
                             unsigned shared_bytes, void **params, float *ms)
{
  if (!m || !kernel || !grid || !block || !ms) return COOP_ERROR_INVALID_VALUE;
  const coop__driver *d = m->d;
  coop__CUfunction fn;
  if (get_fn(m, kernel, &fn, NULL)) return COOP_ERROR_DRIVER;
  coop__CUevent a = NULL, b = NULL;
  coop_result rc = COOP_ERROR_DRIVER;
  if (d->cuEventCreate(&a, 0) || d->cuEventCreate(&b, 0)) goto out;
  if (d->cuEventRecord(a, NULL)) goto out;
  if (launch(m, fn, grid, block, shared_bytes, params, NULL)) goto out;
  if (d->cuEventRecord(b, NULL) || d->cuEventSynchronize(b) || d->cuEventElapsedTime(ms, a, b)) goto out;
  rc = COOP_SUCCESS;
out:
  if (a) d->cuEventDestroy_v2(a);
  if (b) d->cuEventDestroy_v2(b);
  return rc;
}

coop_result coop_module_get_resources(coop_module *m, const char *kernel, int *registers, int *local_bytes)
{
  if (!m || !kernel || !registers || !local_bytes) return COOP_ERROR_INVALID_VALUE;
  coop__CUfunction fn;
  if (get_fn(m, kernel, &fn, NULL)) return COOP_ERROR_DRIVER;
  if (m->d->cuFuncGetAttribute(registers, COOP__CU_FUNC_NUM_REGS, fn) ||
      m->d->cuFuncGetAttribute(local_bytes, COOP__CU_FUNC_LOCAL_BYTES, fn))
    return COOP_ERROR_DRIVER;
  return COOP_SUCCESS;
}

static coop_result drv(const coop__driver **d)
{
  char why[256];
  return context(d, why, sizeof why);
}

coop_result coop_device_alloc(unsigned long long *ptr, size_t bytes)
{
  const coop__driver *d;
  if (!ptr) return COOP_ERROR_INVALID_VALUE;
  if (drv(&d)) return COOP_ERROR_DRIVER;
  return d->cuMemAlloc_v2(ptr, bytes) ? COOP_ERROR_DRIVER : COOP_SUCCESS;
}
coop_result coop_device_free(unsigned long long ptr)
{
  const coop__driver *d;
  if (drv(&d)) return COOP_ERROR_DRIVER;
  return d->cuMemFree_v2(ptr) ? COOP_ERROR_DRIVER : COOP_SUCCESS;
}
coop_result coop_device_upload(unsigned long long dst, const void *src, size_t bytes)
{
  const coop__driver *d;
  if (!src) return COOP_ERROR_INVALID_VALUE;
  if (drv(&d)) return COOP_ERROR_DRIVER;
  return d->cuMemcpyHtoD_v2(dst, src, bytes) ? COOP_ERROR_DRIVER : COOP_SUCCESS;
}
coop_result coop_device_download(void *dst, unsigned long long src, size_t bytes)
{
  const coop__driver *d;
  if (!dst) return COOP_ERROR_INVALID_VALUE;
  if (drv(&d)) return COOP_ERROR_DRIVER;
  return d->cuMemcpyDtoH_v2(dst, src, bytes) ? COOP_ERROR_DRIVER : COOP_SUCCESS;
}
