// The CUDA helpers of sdk/cuda.h in one pybind11 module (tests/cuda/test_cuda_helpers.py):
// what works without a GPU (optional guards, unrecorded events, clear errors) and what needs one
// (the stream pool, stream guards, timed events, device properties, cuBLAS handles).
#include <sdk/cuda.h>
#include <sdk/extension.h>

#include <cstdint>
#include <tuple>
#include <vector>

namespace {

using sdk::cuda::CUDAEvent;
using sdk::cuda::CUDAStream;

bool optional_guard_without_device() {
  sdk::cuda::OptionalCUDAGuard empty;
  sdk::cuda::OptionalCUDAGuard from_undefined(sdk::device_of(sdk::Tensor()));
  return !empty.original_device().has_value() && !from_undefined.current_device().has_value();
}

void optional_guard_on_cpu() {
  sdk::cuda::OptionalCUDAGuard guard(sdk::device_of(sdk::zeros({1})));
}

std::tuple<bool, bool, bool> unrecorded_event() {
  CUDAEvent event;
  event.synchronize();  // nothing recorded: nothing to wait for
  return {event.isCreated(), event.query(), event.was_recorded()};
}

int warp_size() { return sdk::cuda::getCurrentDeviceProperties()->warpSize; }

int64_t properties_of(int64_t device) {
  return sdk::cuda::getDeviceProperties(static_cast<int32_t>(device))->multiProcessorCount;
}

// (stream pointers handed out by the pool, whether all are on the current device)
std::tuple<std::vector<uint64_t>, bool> pool_streams(int64_t n, bool high_priority) {
  std::vector<uint64_t> out;
  bool same_device = true;
  for (int64_t i = 0; i < n; ++i) {
    CUDAStream s = sdk::cuda::getStreamFromPool(high_priority);
    out.push_back(reinterpret_cast<uint64_t>(s.stream()));
    same_device = same_device && s.device_index() == sdk::cuda::current_device();
  }
  return {out, same_device};
}

// (current stream inside the guard is the pool stream, restored after, a device guard inside)
std::tuple<bool, bool, int64_t> stream_guard() {
  const CUDAStream before = sdk::cuda::getCurrentCUDAStream();
  const CUDAStream pooled = sdk::cuda::getStreamFromPool();
  bool inside = false;
  int64_t guarded_device = -1;
  {
    sdk::cuda::CUDAStreamGuard guard(pooled);
    inside = sdk::cuda::getCurrentCUDAStream() == pooled && guard.original_stream() == before;
    sdk::cuda::CUDAGuard device_guard(pooled.device());
    guarded_device = device_guard.current_device().index();
  }
  return {inside, sdk::cuda::getCurrentCUDAStream() == before, guarded_device};
}

__global__ void spin(float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = x[i];
    for (int k = 0; k < 1000; ++k) v = v * 0.999f + 0.001f;
    x[i] = v;
  }
}

// (milliseconds between two timed events around a kernel, query after synchronize, whether a
// second stream waited on the event)
std::tuple<double, bool, bool> timed_event(const sdk::Tensor& x) {
  SDK_CHECK(x.is_cuda() && x.scalar_type() == sdk::kFloat, "timed_event: float32 CUDA tensor");
  const sdk::cuda::OptionalCUDAGuard guard(sdk::device_of(x));
  CUDAEvent start(cudaEventDefault), end(cudaEventDefault);
  const CUDAStream stream = sdk::cuda::getCurrentCUDAStream();
  start.record(stream);
  const int n = static_cast<int>(x.numel());
  spin<<<sdk::ceil_div(n, 256), 256, 0, stream>>>(x.data_ptr<float>(), n);
  SDK_CUDA_KERNEL_LAUNCH_CHECK();
  end.record(stream);
  const CUDAStream other = sdk::cuda::getStreamFromPool();
  end.block(other);
  SDK_CUDA_CHECK(cudaStreamSynchronize(other));
  const bool waited = end.query();
  end.synchronize();
  return {start.elapsed_time(end), end.query(), waited};
}

bool blas_handle() {
#if __has_include(<cublas_v2.h>)
  cublasHandle_t h = sdk::cuda::getCurrentCUDABlasHandle();
  cudaStream_t bound = nullptr;
  SDK_CUDABLAS_CHECK(cublasGetStream(h, &bound));
  bool same = h != nullptr && bound == sdk::cuda::getCurrentCUDAStream().stream() &&
              sdk::cuda::getCurrentCUDABlasHandle() == h;
#if __has_include(<cublasLt.h>)
  // the cuBLASLt handle is this thread's cuBLAS handle, cast (cuBLAS allows it)
  same = same && reinterpret_cast<void*>(sdk::cuda::getCurrentCUDABlasLtHandle()) ==
                     reinterpret_cast<void*>(h);
#endif
  return same;
#else
  SDK_CHECK_NOT_IMPLEMENTED(false, "no cublas_v2.h in this toolkit");
  return false;
#endif
}

}  // namespace

// The CUDA library data types of dtypes, as ints (and the error for one CUDA has none of).
// torch's idiom: x's memory is used on `stream` too (on device 0; a CPU tensor is refused).
void record_on_stream(const sdk::Tensor& x, uint64_t stream) {
  x.record_stream(sdk::cuda::getStreamFromExternal(reinterpret_cast<cudaStream_t>(stream), 0));
}

std::vector<int> cuda_data_types(bool with_bool) {
  std::vector<int> out;
  for (sdk::ScalarType t : {sdk::kFloat, sdk::kDouble, sdk::kHalf, sdk::kBFloat16, sdk::kInt,
                            sdk::kLong, sdk::kChar, sdk::kByte, sdk::kShort}) {
    out.push_back(static_cast<int>(sdk::cuda::ScalarTypeToCudaDataType(t)));
  }
  if (with_bool) sdk::cuda::ScalarTypeToCudaDataType(sdk::kBool);
  return out;
}

PYBIND11_MODULE(SDK_EXTENSION_NAME, m) {
  m.def("cuda_data_types", &cuda_data_types);
  m.def("record_on_stream", &record_on_stream);
  m.def("optional_guard_without_device", &optional_guard_without_device);
  m.def("optional_guard_on_cpu", &optional_guard_on_cpu);
  m.def("unrecorded_event", &unrecorded_event);
  m.def("warp_size", &warp_size);
  m.def("properties_of", &properties_of);
  m.def("pool_streams", &pool_streams);
  m.def("stream_guard", &stream_guard);
  m.def("timed_event", &timed_event);
  m.def("blas_handle", &blas_handle);
}
