// A CUDA kernel the torch way: a device guard from device_of, the current stream, packed
// accessors, a half-aware dispatch and the launch check.
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>
#include <torch/extension.h>

template <typename scalar_t>
__global__ void scale_kernel(const at::PackedTensorAccessor32<scalar_t, 1, at::RestrictPtrTraits> x,
                             at::PackedTensorAccessor32<scalar_t, 1, at::RestrictPtrTraits> y,
                             float alpha) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < x.size(0)) y[i] = static_cast<scalar_t>(static_cast<float>(x[i]) * alpha);
}

at::Tensor scale_cuda(const at::Tensor& x, double alpha) {
  TORCH_CHECK(x.is_cuda(), "scale_cuda: expected a CUDA tensor, got ", x.device());
  TORCH_CHECK(x.dim() == 1, "scale_cuda: expected a 1-d tensor");
  const at::cuda::OptionalCUDAGuard device_guard(device_of(x));
  auto y = at::empty_like(x);
  const int threads = 256;
  const int blocks = static_cast<int>(at::ceil_div(x.numel(), int64_t{threads}));
  auto stream = at::cuda::getCurrentCUDAStream();
  if (x.numel() == 0) return y;
  AT_DISPATCH_FLOATING_TYPES_AND_HALF(x.scalar_type(), "scale_cuda", [&] {
    scale_kernel<scalar_t><<<blocks, threads, 0, stream>>>(
        x.packed_accessor32<scalar_t, 1, at::RestrictPtrTraits>(),
        y.packed_accessor32<scalar_t, 1, at::RestrictPtrTraits>(), static_cast<float>(alpha));
    C10_CUDA_KERNEL_LAUNCH_CHECK();
  });
  return y;
}

int warp_size() { return at::cuda::getCurrentDeviceProperties()->warpSize; }

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.def("scale_cuda", &scale_cuda);
  m.def("warp_size", &warp_size);
}
