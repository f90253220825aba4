/* The linker's second stage: the coop_ symbols the inputs call (PTX and cubin scans, and a -ptx -O0
 * link of the LTO-IR inputs alone, whose .extern declarations name what nobody defines). */
#include "linker.h"

#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- discovery */

static int ident_char(char c)
{
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '$';
}

/* Every ".extern .func [(ret)] coop_xxx(" in PTX text. */
static int scan_ptx(coop_linker *l, const char *ptx)
{
  for (const char *p = ptx; (p = strstr(p, ".extern")); p += 7) {
    const char *q = p + 7;
    while (*q == ' ' || *q == '\t') ++q;
    if (strncmp(q, ".func", 5) != 0) continue;
    q += 5;
    while (*q == ' ' || *q == '\t' || *q == '\n' || *q == '\r') ++q;
    if (*q == '(') {
      int depth = 0;
      for (; *q; ++q) {
        if (*q == '(') ++depth;
        else if (*q == ')' && --depth == 0) {
          ++q;
          break;
        }
      }
      while (*q == ' ' || *q == '\t' || *q == '\n' || *q == '\r') ++q;
    }
    const char *s = q;
    while (ident_char(*q)) ++q;
    if (q - s > 5 && q - s < 200 && strncmp(s, "coop_", 5) == 0) {
      char name[200];
      snprintf(name, sizeof name, "%.*s", (int)(q - s), s);
      if (!coop__sl_add(&l->needed, name)) return 0;
    }
  }
  return 1;
}

/* Undefined coop_ symbols of an ELF cubin. */
static int scan_cubin(coop_linker *l, const input *in)
{
  const unsigned char *d = (const unsigned char *)in->data;
  if (in->size < sizeof(Elf64_Ehdr) || memcmp(d, ELFMAG, SELFMAG) != 0 || d[EI_CLASS] != ELFCLASS64) return 1;
  const Elf64_Ehdr *eh = (const Elf64_Ehdr *)d;
  if (eh->e_shoff == 0 || eh->e_shentsize != sizeof(Elf64_Shdr) ||
      eh->e_shoff + (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr) > in->size)
    return 1;
  const Elf64_Shdr *sh = (const Elf64_Shdr *)(d + eh->e_shoff);
  for (int i = 0; i < eh->e_shnum; ++i) {
    if (sh[i].sh_type != SHT_SYMTAB || sh[i].sh_link >= eh->e_shnum) continue;
    const Elf64_Shdr *strs = &sh[sh[i].sh_link];
    if (sh[i].sh_offset + sh[i].sh_size > in->size || strs->sh_offset + strs->sh_size > in->size) continue;
    const Elf64_Sym *sym = (const Elf64_Sym *)(d + sh[i].sh_offset);
    size_t n = sh[i].sh_size / sizeof(Elf64_Sym);
    for (size_t k = 0; k < n; ++k) {
      if (sym[k].st_shndx != SHN_UNDEF || sym[k].st_name >= strs->sh_size) continue;
      const char *name = (const char *)d + strs->sh_offset + sym[k].st_name;
      size_t maxlen = strs->sh_size - sym[k].st_name;
      if (strnlen(name, maxlen) < maxlen && strncmp(name, "coop_", 5) == 0 && !coop__sl_add(&l->needed, name)) return 0;
    }
  }
  return 1;
}

coop_result coop__discover(coop_linker *l)
{
  int any_ltoir = 0;
  for (size_t i = 0; i < l->n_inputs; ++i) {
    input *in = &l->inputs[i];
    if (in->kind == COOP_INPUT_LTOIR) any_ltoir = 1;
    if (in->kind == COOP_INPUT_PTX && !scan_ptx(l, in->data)) return COOP_ERROR_OUT_OF_MEMORY;
    if (in->kind == COOP_INPUT_CUBIN && !scan_cubin(l, in)) return COOP_ERROR_OUT_OF_MEMORY;
  }
  if (!any_ltoir) return COOP_SUCCESS;
  /* Link the LTO-IR inputs alone to PTX: every function they call and nobody defines is an .extern. */
  char *ptx = NULL, *info = NULL, *error = NULL;
  size_t size = 0;
  coop_result rc = coop__jl_run(l, COOP_INPUT_LTOIR, NULL, 0, 1, &ptx, &size, &info, &error);
  if (rc) {
    coop__lg(l, "nvJitLink failed on the inputs alone:\n%s", error ? error : "");
  } else if (!scan_ptx(l, ptx)) {
    rc = COOP_ERROR_OUT_OF_MEMORY;
  }
  free(ptx);
  free(info);
  free(error);
  return rc;
}

