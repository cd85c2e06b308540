// cuda_storage_kernel.cpp: compile-only check that the storage idioms of CUDA extensions build
// under nvcc (-x cu): a kernel over a tensor set_ onto another's storage, and the block of a
// CUDA tensor's storage recorded on the current stream (tutel's recordStream idiom).
#include <sdk/cuda_guard.h>
#include <sdk/tensor.h>

__global__ void fill_kernel(float* data, int64_t n, float value) {
  const int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (i < n) data[i] = value;
}

// Fills the second half of `t`'s storage through a view made with set_.
sdk::Tensor fill_tail(const sdk::Tensor& t, float value) {
  SDK_CHECK(t.is_cuda() && t.scalar_type() == sdk::kFloat, "fill_tail: a CUDA float tensor");
  sdk::Storage s = t.storage();
  const int64_t n = static_cast<int64_t>(s.nbytes() / sizeof(float));
  sdk::Tensor tail = sdk::empty({0}, t.options()).set_(s, n / 2, {n - n / 2});
  const int64_t m = tail.numel();
  fill_kernel<<<static_cast<unsigned>((m + 255) / 256), 256, 0,
                sdk::cuda::getCurrentCUDAStream()>>>(tail.data_ptr<float>(), m, value);
  sdk::cuda::CUDACachingAllocator::recordStream(s.data_ptr(), sdk::cuda::getCurrentCUDAStream());
  return tail;
}
