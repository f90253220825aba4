/* NVRTC, loaded on first use (dlopen of the toolkit's libnvrtc.so.<major>) instead of linked: a link of
 * LTO-IR inputs never needs it, and loading it costs every process about 5 ms (bench/README.md).
 * Include this instead of <nvrtc.h>: the nvrtc* names below are macros for cooplink's forwarding
 * functions, so calls read as NVRTC's own. Each returns NVRTC_ERROR_INTERNAL_ERROR when the library
 * cannot be loaded; coop__nvrtc_available() tells whether it can, and why not. */
#ifndef COOP_NVRTC_DL_H
#define COOP_NVRTC_DL_H

#include <nvrtc.h>
#include <stddef.h>

/* 1 if libnvrtc is loaded (loading it now if needed); else 0 with the reason in why. Thread-safe. */
int coop__nvrtc_available(char *why, size_t why_size);

/* nvrtcGetErrorString: its forwarder returns the reason when NVRTC could not be loaded */
const char *coop__nvrtcGetErrorString(nvrtcResult r);

#define COOP__NVRTC_FUNCS(X)                                                                               \
  X(nvrtcResult, Version, (int *major, int *minor), (major, minor))                                       \
  X(nvrtcResult, GetNumSupportedArchs, (int *n), (n))                                                     \
  X(nvrtcResult, GetSupportedArchs, (int *archs), (archs))                                                \
  X(nvrtcResult, CreateProgram,                                                                           \
    (nvrtcProgram * prog, const char *src, const char *name, int n, const char *const *headers,           \
     const char *const *include_names),                                                                   \
    (prog, src, name, n, headers, include_names))                                                         \
  X(nvrtcResult, DestroyProgram, (nvrtcProgram * prog), (prog))                                           \
  X(nvrtcResult, CompileProgram, (nvrtcProgram prog, int n, const char *const *options), (prog, n, options)) \
  X(nvrtcResult, GetLTOIRSize, (nvrtcProgram prog, size_t *size), (prog, size))                           \
  X(nvrtcResult, GetLTOIR, (nvrtcProgram prog, char *ir), (prog, ir))                                     \
  X(nvrtcResult, GetCUBINSize, (nvrtcProgram prog, size_t *size), (prog, size))                           \
  X(nvrtcResult, GetCUBIN, (nvrtcProgram prog, char *cubin), (prog, cubin))                               \
  X(nvrtcResult, GetPTXSize, (nvrtcProgram prog, size_t *size), (prog, size))                             \
  X(nvrtcResult, GetPTX, (nvrtcProgram prog, char *ptx), (prog, ptx))                                     \
  X(nvrtcResult, GetProgramLogSize, (nvrtcProgram prog, size_t *size), (prog, size))                      \
  X(nvrtcResult, GetProgramLog, (nvrtcProgram prog, char *log), (prog, log))                              \
  X(nvrtcResult, AddNameExpression, (nvrtcProgram prog, const char *expr), (prog, expr))                  \
  X(nvrtcResult, GetLoweredName, (nvrtcProgram prog, const char *expr, const char **lowered),             \
    (prog, expr, lowered))

#define COOP__NVRTC_DECL(ret, name, params, args) ret coop__nvrtc##name params;
COOP__NVRTC_FUNCS(COOP__NVRTC_DECL)
#undef COOP__NVRTC_DECL

#define nvrtcGetErrorString coop__nvrtcGetErrorString
#define nvrtcVersion coop__nvrtcVersion
#define nvrtcGetNumSupportedArchs coop__nvrtcGetNumSupportedArchs
#define nvrtcGetSupportedArchs coop__nvrtcGetSupportedArchs
#define nvrtcCreateProgram coop__nvrtcCreateProgram
#define nvrtcDestroyProgram coop__nvrtcDestroyProgram
#define nvrtcCompileProgram coop__nvrtcCompileProgram
#define nvrtcGetLTOIRSize coop__nvrtcGetLTOIRSize
#define nvrtcGetLTOIR coop__nvrtcGetLTOIR
#define nvrtcGetCUBINSize coop__nvrtcGetCUBINSize
#define nvrtcGetCUBIN coop__nvrtcGetCUBIN
#define nvrtcGetPTXSize coop__nvrtcGetPTXSize
#define nvrtcGetPTX coop__nvrtcGetPTX
#define nvrtcGetProgramLogSize coop__nvrtcGetProgramLogSize
#define nvrtcGetProgramLog coop__nvrtcGetProgramLog
#define nvrtcAddNameExpression coop__nvrtcAddNameExpression
#define nvrtcGetLoweredName coop__nvrtcGetLoweredName

#endif
