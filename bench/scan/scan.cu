// Segmented exclusive sum from cooplink primitives: one block per segment, tile by tile, BlockLoad,
// BlockScan with a running prefix (the carry of the tiles before), BlockStore. Two builds as in
// bench/segreduce/kernels.cu: linked by cooplink, or with the wrappers' CUDA source in this translation
// unit (-DCOOP_WHOLE_PROGRAM). Parameters (-D): SC_T, SC_TC, SC_N (items a thread holds: two 16-byte
// vectors), SC_V (items a vector holds), SC_THREADS (256), SC_D (full tiles in flight a block: 1, or 2 for the
// build chosen when there are fewer segments than the GPU holds blocks: with 256 segments of 1M items a block
// per segment keeps too few loads in flight). Wider tiles (SC_N of 4 or 8 vectors a thread, one tile in flight)
// lost to both at every length (2026-12-04, f32, share of the copy ceiling, v4 / v8 against d2: 4096 0.721 /
// 0.127 against 0.816, 1M 0.654 / 0.360 against 0.748): what 1M lacks is blocks, not bytes a block.
//
// Tiles: full tiles on a 16-byte boundary load and store as vectors (blocked, coalesced), the next SC_D
// tiles' loads issued before this one is scanned (a segment of 1M items has one block for the whole of it:
// its loads in flight are all that hides the memory's latency); a segment that starts off a boundary first takes a shorter tile that ends
// on one; the ragged end is guarded.
#include "scan.h"
#ifdef COOP_WHOLE_PROGRAM
#include COOP_WHOLE_PROGRAM
#endif

#include "paste.h"

#ifndef SC_THREADS
#define SC_THREADS 256 /* (1024 measured worse than SC_D 2 at every length: f32 1M 0.702 against 0.747) */
#endif
#ifndef SC_D
#define SC_D 1 /* full tiles in flight a block: 2 measured worse where segments fill the GPU (f32 4096 0.816 against
                 * 0.877, 65536 0.795 against 0.855), better where they cannot (1M, 256 segments: 0.747 against 0.661);
                 * 4: 61 registers, 0.80-0.81 for 4096..65536, 0.755 for 1M */
#endif
#define SC_TILE (SC_THREADS * SC_N)
#define SC_T_ CAT(_t, SC_THREADS)
#define BLOAD CAT4(coop_block_load_, SC_TC, SC_T_, CAT3(_i, SC_N, _vectorize))
#define BLOADG CAT4(coop_block_load_guarded_, SC_TC, SC_T_, CAT3(_i, SC_N, _direct))
#define BSTORE CAT4(coop_block_store_, SC_TC, SC_T_, CAT3(_i, SC_N, _vectorize))
#define BSTOREG CAT4(coop_block_store_guarded_, SC_TC, SC_T_, CAT3(_i, SC_N, _direct))
#define BSCAN CAT4(coop_block_exclusive_scan_sum_prefix_, SC_TC, SC_T_, CAT3(_i, SC_N, _warp_scans))

extern "C" __global__ void __launch_bounds__(SC_THREADS) sc_block(const SC_T *in, const int *off, SC_T *out)
{
  __shared__ __align__(16) unsigned char temp[SCAN_TEMP_BYTES];
  const int b = off[blockIdx.x], e = off[blockIdx.x + 1];
  const SC_T zero = 0;
  SC_T running = 0;
  int p = b;
  const int head = (SC_V - b % SC_V) % SC_V; /* items before the first 16-byte boundary */
  if (head) {
    const int n = min(e - b, head + SC_TILE - SC_V); /* a tile that ends on a boundary */
    SC_T x[SC_N], y[SC_N];
    BLOADG(in + p, x, n, &zero, 0);
    BSCAN(x, y, &running, temp);
    BSTOREG(out + p, y, n, 0);
    __syncthreads(); /* temp is reused */
    p += n;
  }
#if SC_D == 1 /* one tile at a time, as first measured (f32 4096 0.877, 65536 0.855 of the copy ceiling); the ring
               * below with one tile in flight, the same order of loads and scans, measured 0.785 and 0.747
               * (results/scan/s24_scan_f32.json) */
  for (; p + SC_TILE <= e; p += SC_TILE) {
    SC_T x[SC_N], y[SC_N];
    BLOAD(in + p, x, 0);
    BSCAN(x, y, &running, temp);
    BSTORE(out + p, y, 0);
    __syncthreads(); /* temp is reused */
  }
#else
  const int tiles = max(e - p, 0) / SC_TILE; /* full tiles: SC_D of them loading while one is scanned and stored */
  SC_T x[SC_D][SC_N];
#pragma unroll
  for (int d = 0; d < SC_D; ++d)
    if (d < tiles) BLOAD(in + p + d * SC_TILE, x[d], 0);
  for (int t = 0; t < tiles; t += SC_D) {
#pragma unroll
    for (int d = 0; d < SC_D; ++d) {
      if (t + d >= tiles) break;
      SC_T y[SC_N];
      BSCAN(x[d], y, &running, temp);
      BSTORE(out + p + (t + d) * SC_TILE, y, 0);
      __syncthreads(); /* temp is reused */
      if (t + d + SC_D < tiles) BLOAD(in + p + (t + d + SC_D) * SC_TILE, x[d], 0);
    }
  }
  p += tiles * SC_TILE;
#endif
  if (p < e) {
    SC_T x[SC_N], y[SC_N];
    BLOADG(in + p, x, e - p, &zero, 0);
    BSCAN(x, y, &running, temp);
    BSTOREG(out + p, y, e - p, 0);
  }
}

/* The copy ceiling: every 16-byte vector read once and written once (grid-stride, four in flight). */
extern "C" __global__ void __launch_bounds__(SC_THREADS) copy_bw(const int4 *in, int4 *out, long long n_vec)
{
  long long i = (long long)blockIdx.x * SC_THREADS + threadIdx.x;
  const long long stride = (long long)gridDim.x * SC_THREADS;
  for (; i + 3 * stride < n_vec; i += 4 * stride) {
    int4 v[4];
#pragma unroll
    for (int k = 0; k < 4; ++k) v[k] = __ldg(in + i + k * stride);
#pragma unroll
    for (int k = 0; k < 4; ++k) out[i + k * stride] = v[k];
  }
  for (; i < n_vec; i += stride) out[i] = __ldg(in + i);
}
