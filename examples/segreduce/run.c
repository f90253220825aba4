/* Links examples/segreduce/segreduce.cu against a catalog with libcooplink, runs it on random
 * segments (outputs poisoned first) and checks every segment sum against a float64 host reference.
 *
 *   segreduce_run --catalog DIR [--source FILE] [--segments N] [--mean-length N]
 */
#include <cooplink/cooplink.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t state = 42;
static uint64_t rnd(void)
{
  uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

#define CHECK(call)                                                                 \
  do {                                                                              \
    coop_result rc_ = (call);                                                       \
    if (rc_) {                                                                      \
      fprintf(stderr, "segreduce: %s failed: %s\n", #call, coop_result_name(rc_));  \
      return 1;                                                                     \
    }                                                                               \
  } while (0)

int main(int argc, char **argv)
{
  const char *catalog_dir = NULL, *source = "examples/segreduce/segreduce.cu";
  int segments = 20000, mean = 2000;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--catalog") && i + 1 < argc) catalog_dir = argv[++i];
    else if (!strcmp(argv[i], "--source") && i + 1 < argc) source = argv[++i];
    else if (!strcmp(argv[i], "--segments") && i + 1 < argc) segments = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--mean-length") && i + 1 < argc) mean = atoi(argv[++i]);
    else {
      fprintf(stderr, "usage: segreduce_run --catalog DIR [--source FILE] [--segments N] [--mean-length N]\n");
      return 2;
    }
  }
  char why[256];
  if (!coop_driver_available(why, sizeof why)) {
    printf("segreduce: no GPU (%s): not run\n", why);
    return 0;
  }
  coop_catalog *cat = NULL;
  char *err = NULL;
  if (coop_catalog_open(&cat, catalog_dir, &err)) {
    fprintf(stderr, "segreduce: %s\n", err);
    return 1;
  }
  coop_linker *l = NULL;
  coop_result rc = coop_linker_create(&l, cat, 0, NULL);
  if (!rc) rc = coop_linker_add_file(l, COOP_INPUT_CUDA, source);
  if (!rc) rc = coop_linker_complete(l);
  if (rc) {
    size_t n = 0;
    coop_linker_get_log_size(l, &n);
    char *log = malloc(n);
    coop_linker_get_log(l, log);
    fprintf(stderr, "segreduce: link failed: %s\n%s\n", coop_result_name(rc), log);
    return 1;
  }
  const void *cubin;
  size_t cubin_size;
  CHECK(coop_linker_get_cubin(l, &cubin, &cubin_size));
  coop_module *m = NULL;
  if (coop_module_load(&m, cubin, &err)) {
    fprintf(stderr, "segreduce: %s\n", err);
    return 1;
  }
  int regs = 0, local = 0;
  CHECK(coop_module_get_resources(m, "segreduce", &regs, &local));

  int *offsets = malloc((size_t)(segments + 1) * sizeof *offsets);
  offsets[0] = 0;
  for (int s = 0; s < segments; ++s) offsets[s + 1] = offsets[s] + (int)(rnd() % (uint64_t)(2 * mean + 1));
  size_t n = (size_t)offsets[segments];
  float *in = malloc(n * sizeof *in), *out = malloc((size_t)segments * sizeof *out);
  for (size_t i = 0; i < n; ++i) in[i] = (float)((double)(rnd() >> 11) / 9007199254740992.0 * 2.0 - 1.0);
  for (int s = 0; s < segments; ++s) out[s] = NAN; /* poison */
  unsigned long long d_in, d_off, d_out;
  CHECK(coop_device_alloc(&d_in, n * sizeof *in + 16));
  CHECK(coop_device_alloc(&d_off, (size_t)(segments + 1) * sizeof *offsets));
  CHECK(coop_device_alloc(&d_out, (size_t)segments * sizeof *out));
  CHECK(coop_device_upload(d_in, in, n * sizeof *in));
  CHECK(coop_device_upload(d_off, offsets, (size_t)(segments + 1) * sizeof *offsets));
  CHECK(coop_device_upload(d_out, out, (size_t)segments * sizeof *out));
  void *params[] = {&d_in, &d_off, &d_out};
  unsigned grid[3] = {(unsigned)segments, 1, 1}, block[3] = {256, 1, 1};
  if (coop_module_launch(m, "segreduce", grid, block, 0, params, &err)) {
    fprintf(stderr, "segreduce: %s\n", err);
    return 1;
  }
  CHECK(coop_device_download(out, d_out, (size_t)segments * sizeof *out));
  int bad = 0;
  for (int s = 0; s < segments; ++s) {
    double ref = 0, mag = 0;
    for (int i = offsets[s]; i < offsets[s + 1]; ++i) {
      ref += in[i];
      mag += fabs(in[i]);
    }
    /* each input passes through at most (tiles + 4 + 8 + 32) float additions */
    double depth = (offsets[s + 1] - offsets[s]) / 1024.0 + 48;
    if (!(fabs(out[s] - ref) <= depth * 0x1p-24 * mag + 1e-30) && bad++ < 5)
      fprintf(stderr, "segreduce: segment %d: got %.9g, expected %.9g\n", s, out[s], ref);
  }
  float best = 1e30f;
  for (int r = 0; r < 10; ++r) {
    float ms = 0;
    CHECK(coop_module_time(m, "segreduce", grid, block, 0, params, &ms));
    if (ms < best) best = ms;
  }
  double gbs = (double)(n * sizeof(float) + (size_t)(segments + 1) * 4 + (size_t)segments * 4) / (best * 1e-3) / 1e9;
  printf("segreduce: %d segments, %zu floats: %s (%d wrong); %d registers, %d bytes local; best of 10: %.3f ms, %.0f GB/s\n",
         segments, n, bad ? "FAILED" : "all sums correct", bad, regs, local, best, gbs);
  coop_device_free(d_in);
  coop_device_free(d_off);
  coop_device_free(d_out);
  coop_module_unload(&m);
  coop_linker_destroy(&l);
  coop_catalog_close(&cat);
  free(offsets);
  free(in);
  free(out);
  return bad ? 1 : 0;
}
