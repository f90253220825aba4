#include "lto.h"

#include <nvJitLink.h>
#include <nvrtc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#ifndef COOP_CUDA_ROOT
#define COOP_CUDA_ROOT "/usr/local/cuda"
#endif

static char *nvrtc_log(nvrtcProgram p)
{
  size_t n = 0;
  if (nvrtcGetProgramLogSize(p, &n) != NVRTC_SUCCESS) return strdup("(no log)");
  char *s = malloc(n + 1);
  if (nvrtcGetProgramLog(p, s) != NVRTC_SUCCESS) s[0] = 0;
  return s;
}

int coopt_compile(const char *src, int arch, const char *include_dir, coopt_blob *ltoir, char **log)
{
  char a[64], i1[1024], i2[1024], i3[1024];
  snprintf(a, sizeof a, "-arch=compute_%d", arch);
  snprintf(i1, sizeof i1, "-I%s/include/cccl", COOP_CUDA_ROOT);
  snprintf(i2, sizeof i2, "-I%s/include", COOP_CUDA_ROOT);
  snprintf(i3, sizeof i3, "-I%s", include_dir ? include_dir : ".");
  const char *opts[] = {"-dlto", a, i1, i2, i3, "-std=c++17"};
  nvrtcProgram p;
  *log = NULL;
  if (nvrtcCreateProgram(&p, src, "user.cu", 0, NULL, NULL) != NVRTC_SUCCESS) {
    *log = strdup("nvrtcCreateProgram failed");
    return 1;
  }
  nvrtcResult r = nvrtcCompileProgram(p, 6, opts);
  *log = nvrtc_log(p);
  if (r != NVRTC_SUCCESS) {
    nvrtcDestroyProgram(&p);
    return 1;
  }
  if (nvrtcGetLTOIRSize(p, &ltoir->size) != NVRTC_SUCCESS) return 1;
  ltoir->data = malloc(ltoir->size);
  if (nvrtcGetLTOIR(p, ltoir->data) != NVRTC_SUCCESS) return 1;
  if (nvrtcDestroyProgram(&p) != NVRTC_SUCCESS) return 1;
  return 0;
}

static char *jl_log(nvJitLinkHandle h, int info)
{
  size_t n = 0;
  nvJitLinkResult r = info ? nvJitLinkGetInfoLogSize(h, &n) : nvJitLinkGetErrorLogSize(h, &n);
  if (r != NVJITLINK_SUCCESS) return strdup("(no log)");
  char *s = malloc(n + 1);
  r = info ? nvJitLinkGetInfoLog(h, s) : nvJitLinkGetErrorLog(h, s);
  if (r != NVJITLINK_SUCCESS) s[0] = 0;
  return s;
}

int coopt_link(int arch, const coopt_blob *inputs, int n, int ptx, const char *const *extra, coopt_blob *out,
               char **info, char **error)
{
  char a[64];
  snprintf(a, sizeof a, "-arch=sm_%d", arch);
  const char *opts[32] = {"-lto", "-optimize-unused-variables", a};
  int no = 3;
  if (ptx) opts[no++] = "-ptx";
  for (int i = 0; extra && extra[i] && no < 32; ++i) opts[no++] = extra[i];
  nvJitLinkHandle h;
  *info = *error = NULL;
  if (nvJitLinkCreate(&h, (unsigned)no, opts) != NVJITLINK_SUCCESS) {
    *error = strdup("nvJitLinkCreate failed");
    return 1;
  }
  int rc = 0;
  for (int i = 0; i < n && !rc; ++i)
    if (nvJitLinkAddData(h, NVJITLINK_INPUT_LTOIR, inputs[i].data, inputs[i].size, "input") != NVJITLINK_SUCCESS)
      rc = 1;
  if (!rc && nvJitLinkComplete(h) != NVJITLINK_SUCCESS) rc = 1;
  if (!rc) {
    nvJitLinkResult r = ptx ? nvJitLinkGetLinkedPtxSize(h, &out->size) : nvJitLinkGetLinkedCubinSize(h, &out->size);
    if (r != NVJITLINK_SUCCESS) rc = 1;
  }
  if (!rc) {
    out->data = malloc(out->size + 1);
    nvJitLinkResult r = ptx ? nvJitLinkGetLinkedPtx(h, out->data) : nvJitLinkGetLinkedCubin(h, out->data);
    if (r != NVJITLINK_SUCCESS) rc = 1;
    else if (ptx) out->data[out->size] = 0;
  }
  *info = jl_log(h, 1);
  *error = jl_log(h, 0);
  if (nvJitLinkDestroy(&h) != NVJITLINK_SUCCESS) rc = 1;
  return rc;
}

int coopt_read(const char *path, coopt_blob *out)
{
  FILE *f = fopen(path, "rb");
  if (!f) return 1;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  out->data = malloc((size_t)n + 1);
  out->size = fread(out->data, 1, (size_t)n, f);
  out->data[out->size] = 0;
  fclose(f);
  return out->size == (size_t)n ? 0 : 1;
}

int coopt_run(const char *cmd, char **output)
{
  FILE *p = popen(cmd, "r");
  if (!p) return -1;
  size_t cap = 4096, len = 0;
  char *buf = malloc(cap);
  size_t got;
  while ((got = fread(buf + len, 1, cap - len - 1, p)) > 0) {
    len += got;
    if (cap - len < 1024) buf = realloc(buf, cap *= 2);
  }
  buf[len] = 0;
  *output = buf;
  int st = pclose(p);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}
