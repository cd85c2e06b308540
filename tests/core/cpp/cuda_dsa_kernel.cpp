// cuda_dsa_kernel.cpp: a kernel written for torch's device-side assertions (two extra
// parameters, CUDA_KERNEL_ASSERT2, launched through TORCH_DSA_KERNEL_LAUNCH), in the SDK's
// spellings. Compiled with nvcc by test_cpp_port_surface.py (no GPU here: compile only).
#include <sdk/cuda.h>
#include <sdk/extension.h>

__global__ void iota_kernel(float* out, int n, SDK_DSA_KERNEL_ARGS) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  SDK_CUDA_KERNEL_ASSERT2(n >= 0);
  if (i < n) out[i] = static_cast<float>(i);
}

sdk::Tensor iota(sdk::Tensor out) {
  const int n = static_cast<int>(out.numel());
  SDK_DSA_KERNEL_LAUNCH(iota_kernel, (n + 255) / 256, 256, 0, sdk::cuda::getCurrentCUDAStream(),
                        out.data_ptr<float>(), n);
  return out;
}
