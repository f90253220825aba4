/* The CUDA driver, loaded with dlopen so that nothing links -lcuda and every CPU path runs on a
 * machine without a driver. Internal to libcooplink. */
#ifndef COOP_DRIVER_H
#define COOP_DRIVER_H

#include <cooplink/result.h>
#include <stddef.h>

typedef int coop__CUresult;
typedef int coop__CUdevice;
typedef struct coop__CUctx_st *coop__CUcontext;
typedef struct coop__CUmod_st *coop__CUmodule;
typedef struct coop__CUfunc_st *coop__CUfunction;
typedef struct coop__CUstream_st *coop__CUstream;
typedef struct coop__CUevent_st *coop__CUevent;
typedef unsigned long long coop__CUdeviceptr;

#define COOP__DRIVER_FUNCS(X)                                                                              \
  X(cuInit, (unsigned flags))                                                                              \
  X(cuDriverGetVersion, (int *version))                                                                    \
  X(cuDeviceGet, (coop__CUdevice * dev, int ordinal))                                                      \
  X(cuDeviceGetAttribute, (int *value, int attrib, coop__CUdevice dev))                                    \
  X(cuDevicePrimaryCtxRetain, (coop__CUcontext * ctx, coop__CUdevice dev))                                 \
  X(cuCtxSetCurrent, (coop__CUcontext ctx))                                                                \
  X(cuCtxSynchronize, (void))                                                                              \
  X(cuModuleLoadData, (coop__CUmodule * mod, const void *image))                                           \
  X(cuModuleUnload, (coop__CUmodule mod))                                                                  \
  X(cuModuleGetFunction, (coop__CUfunction * fn, coop__CUmodule mod, const char *name))                    \
  X(cuFuncSetAttribute, (coop__CUfunction fn, int attrib, int value))                                      \
  X(cuFuncGetAttribute, (int *value, int attrib, coop__CUfunction fn))                                     \
  X(cuMemAlloc_v2, (coop__CUdeviceptr * ptr, size_t bytes))                                                \
  X(cuMemFree_v2, (coop__CUdeviceptr ptr))                                                                 \
  X(cuMemcpyHtoD_v2, (coop__CUdeviceptr dst, const void *src, size_t bytes))                               \
  X(cuMemcpyDtoH_v2, (void *dst, coop__CUdeviceptr src, size_t bytes))                                     \
  X(cuMemsetD8_v2, (coop__CUdeviceptr dst, unsigned char value, size_t n))                                 \
  X(cuLaunchKernel, (coop__CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,  \
                     unsigned bz, unsigned smem, coop__CUstream s, void **params, void **extra))           \
  X(cuEventCreate, (coop__CUevent * ev, unsigned flags))                                                   \
  X(cuEventRecord, (coop__CUevent ev, coop__CUstream s))                                                   \
  X(cuEventSynchronize, (coop__CUevent ev))                                                                \
  X(cuEventElapsedTime, (float *ms, coop__CUevent a, coop__CUevent b))                                     \
  X(cuEventDestroy_v2, (coop__CUevent ev))                                                                 \
  X(cuGetErrorName, (coop__CUresult r, const char **name))                                                 \
  X(cuGetErrorString, (coop__CUresult r, const char **text))

typedef struct coop__driver {
#define COOP__DRV_MEMBER(name, args) coop__CUresult(*name) args;
  COOP__DRIVER_FUNCS(COOP__DRV_MEMBER)
#undef COOP__DRV_MEMBER
} coop__driver;

/* CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR / MINOR, CU_FUNC_ATTRIBUTE_* used here. */
enum {
  COOP__CU_ATTR_CC_MAJOR = 75,
  COOP__CU_ATTR_CC_MINOR = 76,
  COOP__CU_FUNC_MAX_DYNAMIC_SHARED = 8,
  COOP__CU_FUNC_NUM_REGS = 4,
  COOP__CU_FUNC_LOCAL_BYTES = 3,
};

/* Loads libcuda.so.1 once (thread-safe) and resolves every function; cuInit(0) is called.
 * Returns COOP_SUCCESS with *drv set, or COOP_ERROR_DRIVER with a reason in why (may be NULL). */
coop_result coop__driver_load(const coop__driver **drv, char *why, size_t why_size);

/* "CUDA_ERROR_X: text" for a driver result, into buf. */
const char *coop__driver_error(const coop__driver *drv, coop__CUresult r, char *buf, size_t size);

#endif
