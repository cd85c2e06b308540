// Test extension for sdk/cuda_atomic.h: many threads update a few neighbouring elements of
// every dtype at once, so a wrong narrow-word update shows as a wrong count next door.
#include <sdk/cuda.h>
#include <sdk/cuda_atomic.h>
#include <sdk/extension.h>

#include <string>

template <typename T>
__global__ void update_kernel(T* out, int64_t n, int64_t per_element, int op, T value) {
  const int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (i >= n * per_element) return;
  T* at = out + i % n;
  switch (op) {
    case 0:
      atomicAdd(at, value);  // the overloads this header adds beside CUDA's own
      break;
    case 1:
      gpuAtomicAddNoReturn(at, value);
      break;
    case 2:
      gpuAtomicMax(at, static_cast<T>(value * static_cast<T>(i / n)));
      break;
    case 3:
      gpuAtomicMin(at, static_cast<T>(value * static_cast<T>(i / n)));
      break;
    default:
      gpuAtomicMul(at, value);
  }
}

// op: "add", "add_noreturn", "max", "min", "mul"; `out` is updated in place
void update(sdk::Tensor out, int64_t per_element, const std::string& op, double value) {
  SDK_CHECK(out.is_cuda() && out.is_contiguous(), "update: a contiguous CUDA tensor");
  const int code = op == "add"            ? 0
                   : op == "add_noreturn" ? 1
                   : op == "max"          ? 2
                   : op == "min"          ? 3
                                          : 4;
  const int64_t threads = out.numel() * per_element;
  const int block = 256;
  const int grid = static_cast<int>((threads + block - 1) / block);
  SDK_DISPATCH_ALL_TYPES_AND3(
      sdk::kHalf, sdk::kBFloat16, sdk::kBool, out.scalar_type(), "update", [&] {
        update_kernel<scalar_t><<<grid, block, 0, sdk::cuda::getCurrentCUDAStream()>>>(
            out.data_ptr<scalar_t>(), out.numel(), per_element, code, static_cast<scalar_t>(value));
      });
  SDK_CUDA_KERNEL_LAUNCH_CHECK();
}

PYBIND11_MODULE(SDK_EXTENSION_NAME, m) { m.def("update", &update); }
