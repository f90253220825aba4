/* The linker's first stage: CUDA inputs to LTO-IR with NVRTC. */
#include "linker.h"

#include <stdio.h>
#include <stdlib.h>
#include "../common/nvrtc_dl.h"

/* ---------------------------------------------------------------- NVRTC */

coop_result coop__compile_cuda(coop_linker *l, input *in)
{
  char why[1100];
  if (!coop__nvrtc_available(why, sizeof why)) {
    coop__lg(l, "%s: %s", in->name, why);
    return COOP_ERROR_TOOLKIT;
  }
  const char *root = coop__cuda_root();
  strlist opts = {0};
  char buf[4200];
  int ok = 1;
  snprintf(buf, sizeof buf, "-arch=compute_%d", l->arch);
  ok &= coop__sl_add(&opts, "-dlto") && coop__sl_add(&opts, buf) && coop__sl_add(&opts, "-std=c++17");
  /* Both include paths, always: without the second CCCL silently miscompiles (DESIGN.md). */
  snprintf(buf, sizeof buf, "-I%s/include/cccl", root);
  ok &= coop__sl_add(&opts, buf);
  snprintf(buf, sizeof buf, "-I%s/include", root);
  ok &= coop__sl_add(&opts, buf);
  if (l->catalog) {
    snprintf(buf, sizeof buf, "-I%s", l->catalog->dir);
    ok &= coop__sl_add(&opts, buf);
  }
  snprintf(buf, sizeof buf, "-I%s", l->gen_dir);
  ok &= coop__sl_add(&opts, buf);
  for (size_t i = 0; i < l->includes.n; ++i) {
    snprintf(buf, sizeof buf, "-I%s", l->includes.v[i]);
    ok &= coop__sl_add(&opts, buf);
  }
  if (l->lineinfo) ok &= coop__sl_add(&opts, "-lineinfo");
  for (size_t i = 0; i < l->nvrtc_opts.n; ++i) ok &= coop__sl_add(&opts, l->nvrtc_opts.v[i]);
  if (!ok) {
    coop__sl_free(&opts);
    return COOP_ERROR_OUT_OF_MEMORY;
  }
  nvrtcProgram prog;
  nvrtcResult r = nvrtcCreateProgram(&prog, in->data, in->name, 0, NULL, NULL);
  if (r != NVRTC_SUCCESS) {
    coop__lg(l, "%s: nvrtcCreateProgram: %s", in->name, nvrtcGetErrorString(r));
    coop__sl_free(&opts);
    return COOP_ERROR_NVRTC;
  }
  r = nvrtcCompileProgram(prog, (int)opts.n, (const char *const *)opts.v);
  size_t ls = 0;
  if (nvrtcGetProgramLogSize(prog, &ls) == NVRTC_SUCCESS && ls > 1) {
    char *text = malloc(ls);
    if (text && nvrtcGetProgramLog(prog, text) == NVRTC_SUCCESS) coop__str_printf(&l->log, "NVRTC log (%s):\n%s\n", in->name, text);
    free(text);
  }
  coop_result rc = COOP_SUCCESS;
  size_t size = 0;
  char *ir = NULL;
  if (r != NVRTC_SUCCESS) {
    coop__lg(l, "%s: NVRTC failed: %s", in->name, nvrtcGetErrorString(r));
    rc = COOP_ERROR_NVRTC;
  } else if ((r = nvrtcGetLTOIRSize(prog, &size)) != NVRTC_SUCCESS || !(ir = malloc(size + 1)) ||
             (r = nvrtcGetLTOIR(prog, ir)) != NVRTC_SUCCESS) {
    rc = r != NVRTC_SUCCESS ? COOP_ERROR_NVRTC : COOP_ERROR_OUT_OF_MEMORY;
    if (rc == COOP_ERROR_NVRTC) coop__lg(l, "%s: cannot get the LTO-IR: %s", in->name, nvrtcGetErrorString(r));
    free(ir);
  } else {
    free(in->data);
    in->data = ir;
    in->size = size;
    in->kind = COOP_INPUT_LTOIR;
  }
  nvrtcDestroyProgram(&prog);
  coop__sl_free(&opts);
  return rc;
}


coop_result coop__compile_cuda_inputs(coop_linker *l)
{
  coop_result rc = COOP_SUCCESS;
  for (size_t i = 0; i < l->n_inputs && !rc; ++i)
    if (l->inputs[i].kind == COOP_INPUT_CUDA) rc = coop__compile_cuda(l, &l->inputs[i]);
  return rc;
}
