// Baselines that use no cooplink primitive, built with the same -D parameters as kernels.cu:
//   read_bw     the read-bandwidth ceiling: every 16-byte vector of the input read once (grid-stride,
//               eight vectors in flight a thread), folded into a value that is written only if impossible;
//               the benchmark runs it at three grid sizes and takes the fastest; read_bw_cs the same by
//               ld.global.cs, which the benchmark also times
//   sr_tree     the talk's kernel: one block per segment, a strided per-thread sum, then a shared-memory
//               tree (halving with __syncthreads)
#define SR_THREADS 256
#if defined(OP_SUM)
#define OPF(a, b) ((a) + (b))
#else
#define OPF(a, b) ((a) < (b) ? (b) : (a))
#endif

template <bool CS> __device__ __forceinline__ int4 read_vec(const int4 *p) { return CS ? __ldcs(p) : __ldg(p); }

template <bool CS> __device__ __forceinline__ void read_all(const int4 *in, long long n_vec, int *sink)
{
  int acc = 0;
  long long i = (long long)blockIdx.x * SR_THREADS + threadIdx.x;
  const long long stride = (long long)gridDim.x * SR_THREADS;
  for (; i + 7 * stride < n_vec; i += 8 * stride) {
    int4 v[8];
#pragma unroll
    for (int k = 0; k < 8; ++k) v[k] = read_vec<CS>(in + i + k * stride);
#pragma unroll
    for (int k = 0; k < 8; ++k) acc ^= v[k].x ^ v[k].y ^ v[k].z ^ v[k].w;
  }
  for (; i < n_vec; i += stride) {
    const int4 a = read_vec<CS>(in + i);
    acc ^= a.x ^ a.y ^ a.z ^ a.w;
  }
  if (acc == 0x7fffffff) *sink = acc; /* keeps the loads; never true for the benchmark's data */
}
extern "C" __global__ void __launch_bounds__(SR_THREADS) read_bw(const int4 *in, long long n_vec, int *sink)
{
  read_all<false>(in, n_vec, sink);
}
/* the same by ld.global.cs (the kernels' loads under SR_LOAD_CS): the ceiling is the faster of the two */
extern "C" __global__ void __launch_bounds__(SR_THREADS) read_bw_cs(const int4 *in, long long n_vec, int *sink)
{
  read_all<true>(in, n_vec, sink);
}

extern "C" __global__ void __launch_bounds__(SR_THREADS) sr_tree(const SR_T *in, const int *off, SR_T *out)
{
  __shared__ SR_T s[SR_THREADS];
  const int b = off[blockIdx.x], e = off[blockIdx.x + 1];
  SR_T acc = SR_ID;
  for (int i = b + threadIdx.x; i < e; i += SR_THREADS) acc = OPF(acc, in[i]);
  s[threadIdx.x] = acc;
  __syncthreads();
  for (int h = SR_THREADS / 2; h > 0; h /= 2) {
    if (threadIdx.x < h) s[threadIdx.x] = OPF(s[threadIdx.x], s[threadIdx.x + h]);
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = s[0];
}
