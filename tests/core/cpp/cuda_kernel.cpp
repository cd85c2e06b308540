// cuda_kernel.cpp: compile-only check that tensor.h works under nvcc (-x cu) with accessors in
// kernels.
#include <sdk/tensor.h>

// Elementwise LLTM-style kernel over 2-D packed accessors, as extension authors write them.
template <typename scalar_t>
__global__ void scale_rows_kernel(
    sdk::PackedTensorAccessor32<scalar_t, 2, sdk::RestrictPtrTraits> in,
    sdk::PackedTensorAccessor32<scalar_t, 2, sdk::RestrictPtrTraits> out, scalar_t alpha) {
  const int row = blockIdx.y;
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < in.size(0) && col < in.size(1)) {
    auto in_row = in[row];
    out[row][col] = alpha * in_row[col] + static_cast<scalar_t>(in.stride(0));
  }
}

// 16-bit floats convert on the device through the same header.
__global__ void half_kernel(sdk::PackedTensorAccessor64<sdk::Half, 1> x, float* sum) {
  const int64_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < x.size(0)) {
    float v = x[i];
    x[i] = sdk::Half(v * 2.0f);
    sdk::BFloat16 b(v);
    atomicAdd(sum, static_cast<float>(b));
  }
}

sdk::Tensor scale_rows_cuda(const sdk::Tensor& input, double alpha) {
  SDK_CHECK(input.is_cuda(), "input must be a CUDA tensor, got ", input.device());
  SDK_CHECK(input.dim() == 2, "input must be 2-d, got ", input.sizes());
  auto output = sdk::empty_like(input);
  const dim3 threads(128);
  const dim3 blocks((input.size(1) + 127) / 128, input.size(0));
  SDK_DISPATCH_FLOATING_TYPES(input.scalar_type(), "scale_rows_cuda", ([&] {
                                scale_rows_kernel<scalar_t><<<blocks, threads>>>(
                                    input.packed_accessor32<scalar_t, 2, sdk::RestrictPtrTraits>(),
                                    output.packed_accessor32<scalar_t, 2, sdk::RestrictPtrTraits>(),
                                    static_cast<scalar_t>(alpha));
                              }));
  return output;
}

void half_cuda(const sdk::Tensor& x, float* sum) {
  half_kernel<<<(x.numel() + 255) / 256, 256>>>(x.packed_accessor64<sdk::Half, 1>(), sum);
}
