// cub::DeviceSegmentedReduce (the device-wide baseline), built by nvcc into a shared library the
// benchmark calls through ctypes: sum and max of float, double and int over int offsets.
//   cub_sr_<op>_<tc>(temp, &temp_bytes, in, out, n_seg, offsets, stream) -> cudaError_t
// (temp NULL: the size query, as CUB's own API).
#include <cub/device/device_segmented_reduce.cuh>

#define DEFINE(op, OP, tc, T)                                                                              \
  extern "C" int cub_sr_##op##_##tc(void *temp, size_t *temp_bytes, const T *in, T *out, int n_seg,        \
                                     const int *offsets, cudaStream_t stream)                              \
  {                                                                                                        \
    return (int)cub::DeviceSegmentedReduce::OP(temp, *temp_bytes, in, out, n_seg, offsets, offsets + 1,   \
                                                stream);                                                   \
  }
DEFINE(sum, Sum, f32, float)
DEFINE(sum, Sum, f64, double)
DEFINE(sum, Sum, i32, int)
DEFINE(max, Max, f32, float)
DEFINE(max, Max, f64, double)
DEFINE(max, Max, i32, int)

extern "C" int cub_sr_error_string(int e, char *buf, size_t size)
{
  snprintf(buf, size, "%s", cudaGetErrorString((cudaError_t)e));
  return 0;
}

// cub::DeviceScan::ExclusiveSum over the whole array (bench/scan's device-wide baseline).
#include <cub/device/device_scan.cuh>

#define DEFINE_SCAN(tc, T)                                                                                 \
  extern "C" int cub_scan_exclusive_sum_##tc(void *temp, size_t *temp_bytes, const T *in, T *out, int n,  \
                                              cudaStream_t stream)                                         \
  {                                                                                                        \
    return (int)cub::DeviceScan::ExclusiveSum(temp, *temp_bytes, in, out, n, stream);                      \
  }
DEFINE_SCAN(f32, float)
DEFINE_SCAN(f64, double)
DEFINE_SCAN(i32, int)
