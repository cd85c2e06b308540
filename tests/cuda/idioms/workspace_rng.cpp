// tests/cuda/idioms/workspace_rng.cpp: scratch memory and device random-number state written
// the way published CUDA extensions write them against torch (a workspace DataPtr from the
// caching allocator recorded on the stream that uses it; a kernel's Philox seed and offset
// from the default CUDA generator). Ported by the test, then built as plain C++: none of this
// needs the CUDA toolkit on the host side.
#include <ATen/cuda/CUDAGeneratorImpl.h>
#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAStream.h>
#include <torch/extension.h>

#include <ATen/cuda/CUDAGraphsUtils.cuh>
#include <mutex>
#include <tuple>
#include <vector>

namespace {

// A scratch buffer for work queued on `stream`: when it goes, its block waits for that stream.
class StreamWorkspace {
 public:
  StreamWorkspace(size_t nbytes, c10::cuda::CUDAStream stream)
      : ptr_(c10::cuda::CUDACachingAllocator::get()->allocate(nbytes)), stream_(stream) {
    c10::cuda::CUDACachingAllocator::recordStream(ptr_, stream_);
  }
  int64_t address() const { return reinterpret_cast<int64_t>(ptr_.get()); }
  bool on_cuda() const { return ptr_.device().is_cuda(); }

 private:
  c10::DataPtr ptr_;
  c10::cuda::CUDAStream stream_;
};

std::vector<StreamWorkspace>& kept() {
  static std::vector<StreamWorkspace> workspaces;
  return workspaces;
}

c10::cuda::CUDAStream external(int64_t stream) {
  return c10::cuda::getStreamFromExternal(reinterpret_cast<cudaStream_t>(stream),
                                          c10::cuda::current_device());
}

}  // namespace

// Allocates a workspace used on `stream` and keeps it; returns its address.
int64_t keep_workspace(int64_t nbytes, int64_t stream) {
  kept().emplace_back(static_cast<size_t>(nbytes), external(stream));
  TORCH_CHECK(kept().back().on_cuda(), "the workspace is not on a CUDA device");
  return kept().back().address();
}

void release_workspaces() { kept().clear(); }

// Memory the allocator did not hand out: recordStream leaves it to its owner.
void record_borrowed(const at::Tensor& t, int64_t stream) {
  c10::DataPtr borrowed(t.data_ptr(), t.device());
  c10::cuda::CUDACachingAllocator::recordStream(borrowed, external(stream));
}

bool empty_workspace_is_null() {
  c10::DataPtr p = c10::cuda::CUDACachingAllocator::get()->allocate(0);
  return !p && p.get() == nullptr;
}

// raw_alloc's memory goes back through raw_delete, or through the deleter a DataPtr takes.
bool raw_roundtrip(int64_t nbytes) {
  auto* allocator = c10::cuda::CUDACachingAllocator::get();
  void* scratch = allocator->raw_alloc(static_cast<size_t>(nbytes));
  allocator->raw_delete(scratch);
  void* owned = allocator->raw_alloc(static_cast<size_t>(nbytes));
  c10::DataPtr wrapped(owned, owned, allocator->raw_deleter(), c10::Device(c10::kCUDA, 0));
  return scratch != nullptr && wrapped.get() == owned;
}

// (seed, offset) of `calls` kernels that each draw `increment` numbers per thread.
std::vector<std::tuple<int64_t, int64_t>> philox_inputs(int64_t increment, int64_t calls,
                                                        int64_t device) {
  auto gen = at::get_generator_or_default<at::CUDAGeneratorImpl>(
      std::nullopt, at::cuda::detail::getDefaultCUDAGenerator(device));
  std::vector<std::tuple<int64_t, int64_t>> out;
  for (int64_t i = 0; i < calls; ++i) {
    at::PhiloxCudaState state;
    {
      std::lock_guard<std::mutex> lock(gen->mutex_);
      state = gen->philox_cuda_state(static_cast<uint64_t>(increment));
    }
    auto seeds = at::cuda::philox::unpack(state);
    out.emplace_back(static_cast<int64_t>(std::get<0>(seeds)),
                     static_cast<int64_t>(std::get<1>(seeds)));
  }
  return out;
}

// A generator object passed in where only the device's default one can serve.
void philox_from_generator() {
  std::optional<at::Generator> gen(at::Generator(1));
  at::get_generator_or_default<at::CUDAGeneratorImpl>(gen,
                                                      at::cuda::detail::getDefaultCUDAGenerator());
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.def("keep_workspace", &keep_workspace);
  m.def("release_workspaces", &release_workspaces);
  m.def("record_borrowed", &record_borrowed);
  m.def("empty_workspace_is_null", &empty_workspace_is_null);
  m.def("raw_roundtrip", &raw_roundtrip);
  m.def("philox_inputs", &philox_inputs);
  m.def("philox_from_generator", &philox_from_generator);
}
