// core/src/cuda/backend/scan.cu: running sums and products (cumsum, cumprod) along one dim.
//
// One thread per line: neighbouring threads take neighbouring inner positions, so their loads
// along the dim coalesce whenever the dim is not the last one. A scan along the last dim runs
// one line per thread, each reading its row in order.
#include "common.h"
#include "device_util.cuh"

namespace sdk::cuda {
namespace {

constexpr int kScanThreads = 256;

template <typename A>
__global__ void scan_kernel(sdk_cuda_scan_desc d) {
  const int64_t lines = d.outer * d.inner;
  const int64_t isz = elem_size(d.dtype);
  for (int64_t l = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; l < lines;
       l += int64_t(gridDim.x) * blockDim.x) {
    const int64_t o = l / d.inner, i = l % d.inner;
    const int64_t start = (o * d.n * d.inner + i) * isz;
    scan_line<A>(d.op, d.dtype, d.in + start, d.out + start, d.n, d.inner * isz);
  }
}

}  // namespace

void launch_scan(const sdk_cuda_scan_desc& d, cudaStream_t s) {
  const int64_t lines = d.outer * d.inner;
  if (lines == 0 || d.n == 0) return;
  const unsigned int grid = grid_for(lines, kScanThreads);
  if (is_float_dtype(d.dtype)) {
    scan_kernel<double><<<grid, kScanThreads, 0, s>>>(d);
  } else {
    scan_kernel<int64_t><<<grid, kScanThreads, 0, s>>>(d);
  }
}

}  // namespace sdk::cuda
