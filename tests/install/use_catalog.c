/* Built from outside the source tree with `pkg-config --cflags --libs cooplink` against an installed
 * tree (tests/install/run.sh): opens the installed catalog with no environment variable, links a
 * kernel calling three catalog symbols, and checks that exactly their three units were added and that
 * every call was inlined. Exit 0 only when all of that holds. */
#include <cooplink/cooplink.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char kernel[] =
  "#include \"cooplink_default.h\"\n"
  "extern \"C\" __global__ void scan_tiles(const float *in, float *out) {\n"
  "  __shared__ __align__(16) unsigned char temp[COOP_BLOCK_INCLUSIVE_SCAN_SUM_F32_T256_I4_RAKING_TEMP_BYTES];\n"
  "  float a[4], b[4];\n"
  "  coop_block_load_f32_t256_i4_striped(in + blockIdx.x * 1024, a, 0);\n"
  "  coop_block_inclusive_scan_sum_f32_t256_i4_raking(a, b, nullptr, temp);\n"
  "  coop_block_store_f32_t256_i4_striped(out + blockIdx.x * 1024, b, 0);\n"
  "}\n";

static const char *const expected[] = {"block_load_f32_t256_i4_striped", "block_scan_sum_f32_t256_i4_raking",
                                       "block_store_f32_t256_i4_striped"};

static int fail(const char *what, coop_result rc, const char *log)
{
  fprintf(stderr, "use_catalog: %s: %s\n%s\n", what, coop_result_name(rc), log ? log : "");
  return 1;
}

int main(void)
{
  if (getenv("COOPLINK_CATALOG")) return fail("COOPLINK_CATALOG is set; this test needs it unset", COOP_SUCCESS, NULL);
  coop_catalog *cat = NULL;
  char *err = NULL;
  coop_result rc = coop_catalog_open(&cat, NULL, &err);
  if (rc) return fail("the installed catalog did not open", rc, err);
  size_t nb = 0, ns = 0;
  coop_catalog_get_counts(cat, &nb, &ns);
  coop_linker *l = NULL;
  const char *opts[] = {"-arch=sm_90", "-cache=0", "-generate=0", "-ptx"};
  rc = coop_linker_create(&l, cat, 4, opts);
  if (!rc) rc = coop_linker_add_data(l, COOP_INPUT_CUDA, kernel, sizeof kernel - 1, "scan_tiles.cu");
  if (!rc) rc = coop_linker_complete(l);
  if (rc) {
    size_t n = 0;
    coop_linker_get_log_size(l, &n);
    char *log = malloc(n);
    coop_linker_get_log(l, log);
    return fail("the link failed", rc, log);
  }
  coop_link_info info;
  coop_linker_get_info(l, &info);
  if (info.n_bundles != 3) {
    fprintf(stderr, "use_catalog: %zu bundles added, expected 3\n", info.n_bundles);
    return 1;
  }
  for (size_t i = 0; i < 3; ++i) {
    const char *name = NULL;
    coop_linker_get_bundle(l, i, &name);
    if (strcmp(name, expected[i]) != 0) {
      fprintf(stderr, "use_catalog: bundle %zu is %s, expected %s\n", i, name, expected[i]);
      return 1;
    }
  }
  const void *cubin;
  size_t cubin_size;
  const char *ptx;
  size_t ptx_size;
  coop_linker_get_cubin(l, &cubin, &cubin_size);
  coop_linker_get_ptx(l, &ptx, &ptx_size);
  if (cubin_size < 4 || memcmp(cubin, "\x7f" "ELF", 4) != 0) return fail("the cubin is not an ELF file", rc, NULL);
  if (strstr(ptx, ".func") || strstr(ptx, "call")) return fail("the linked PTX has a function or a call", rc, NULL);
  printf("use_catalog: installed catalog of %zu bundles and %zu symbols; the kernel linked %zu units (%s, %s, %s), "
         "%zu-byte cubin, every call inlined\n",
         nb, ns, info.n_bundles, expected[0], expected[1], expected[2], cubin_size);
  coop_linker_destroy(&l);
  coop_catalog_close(&cat);
  return 0;
}
