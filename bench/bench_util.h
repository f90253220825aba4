/* Shared by the benchmarks: clocks, medians, and NVRTC compiling the generator's wrappers. */
#ifndef COOP_BENCH_UTIL_H
#define COOP_BENCH_UTIL_H
#include <cooplink/coopgen.h>
#include <stdio.h>
#include <stdlib.h>

/* Prints the message and exits 1: a benchmark that cannot measure what it says stops. */
#define DIE(...)                  \
  do {                            \
    fprintf(stderr, __VA_ARGS__); \
    fprintf(stderr, "\n");        \
    exit(1);                      \
  } while (0)

double bench_now(void);
/* Sorts v and returns its median. */
double bench_median(double *v, int n);
/* Seconds NVRTC takes to compile gen's translation unit with -dlto for compute_<arch> (no probe), or -1. */
double bench_compile_wrappers(coop_gen *gen, int arch);
/* Seconds NVRTC takes to compile gen's wrappers and kernel together, whole program, to a cubin for sm_<arch>. */
double bench_compile_whole(coop_gen *gen, int arch, const char *kernel);
/* The kernel both link benchmarks link: BlockLoad striped, BlockScan inclusive sum raking, BlockStore
 * striped (f32, 256 threads x 4 items), declared by hand. */
extern const char *const bench_kernel_three;
#endif
