// sdk/cuda_generator.h: seeds and offsets for kernels that draw random numbers on the device
// (torch's ATen/cuda/CUDAGeneratorImpl.h, CUDAGraphsUtils.cuh and PhiloxUtils.cuh):
// PhiloxCudaState, CUDAGeneratorImpl::philox_cuda_state, cuda::detail::getDefaultCUDAGenerator,
// get_generator_or_default and cuda::philox::unpack.
//
// The generator's state lives in the core (sdk_cuda_philox_state), so every extension of the
// process draws from one sequence per device and sdk.manual_seed reseeds it. The usual shape:
//   auto* gen = sdk::get_generator_or_default<sdk::CUDAGeneratorImpl>(
//       std::nullopt, sdk::cuda::detail::getDefaultCUDAGenerator());
//   sdk::PhiloxCudaState rng;
//   { std::lock_guard<std::mutex> lock(gen->mutex_); rng = gen->philox_cuda_state(4); }
//   kernel<<<...>>>(rng, ...);  // in the kernel: auto [seed, offset] = philox::unpack(rng);
//                               // curand_init(seed, thread, offset, &state);
// No CUDA graph capture: a state always holds plain values (captured_ is false).
#ifndef SDK_CUDA_GENERATOR_H_
#define SDK_CUDA_GENERATOR_H_

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <tuple>
#include <utility>
#include <vector>

#include "sdk/cuda_guard.h"
#include "sdk/macros.h"

#if defined(__CUDACC__) || defined(__HIPCC__)
#define SDK_DETAIL_HOST_DEVICE __host__ __device__
#else
#define SDK_DETAIL_HOST_DEVICE
#endif

namespace sdk {

/*! \brief A kernel's Philox seed and offset (torch's at::PhiloxCudaState), passed by value to
 *  the kernel and read there with sdk::cuda::philox::unpack. */
struct PhiloxCudaState {
  PhiloxCudaState() = default;
  PhiloxCudaState(uint64_t seed, uint64_t offset) {
    seed_.val = seed;
    offset_.val = offset;
  }
  // torch's layout: the pointer members serve graph capture, which the SDK does not do
  union Payload {
    uint64_t val;
    int64_t* ptr;
  };
  Payload seed_{};
  Payload offset_{};
  uint32_t offset_intragraph_ = 0;
  bool captured_ = false;
};

/*! \brief One device's default CUDA generator (torch's at::CUDAGeneratorImpl). Lock
 *  `mutex_` around philox_cuda_state as torch's callers do (the core locks too). */
class CUDAGeneratorImpl {
 public:
  explicit CUDAGeneratorImpl(DeviceIndex device) : device_(device) {}
  CUDAGeneratorImpl(const CUDAGeneratorImpl&) = delete;
  CUDAGeneratorImpl& operator=(const CUDAGeneratorImpl&) = delete;

  /*! \brief The seed and offset for a kernel that makes `increment` draws per thread; the
   *  next call's offset is past them (rounded up to a multiple of 4). */
  PhiloxCudaState philox_cuda_state(uint64_t increment) {
    const auto [seed, offset] = philox_engine_inputs(increment);
    return PhiloxCudaState(seed, offset);
  }
  /*! \brief The same as a (seed, offset) pair (torch's older name). */
  std::pair<uint64_t, uint64_t> philox_engine_inputs(uint64_t increment) {
    uint64_t seed = 0, offset = 0;
    detail::check_status(sdk_cuda_philox_state(device_, increment, &seed, &offset),
                         "CUDAGeneratorImpl::philox_cuda_state");
    return {seed, offset};
  }
  uint64_t current_seed() { return philox_engine_inputs(0).first; }
  /*! \brief The offset the next kernel would get. */
  uint64_t philox_offset_per_thread() { return philox_engine_inputs(0).second; }
  /*! \brief Reseed this device (offset back to 0), as torch.cuda.manual_seed. */
  void set_current_seed(uint64_t seed) {
    detail::check_status(sdk_cuda_philox_seed(device_, seed),
                         "CUDAGeneratorImpl::set_current_seed");
  }
  DeviceIndex device_index() const { return device_; }
  Device device() const { return Device(kCUDA, device_); }

  std::mutex mutex_;

 private:
  DeviceIndex device_;
};

namespace cuda {
namespace detail {
/*! \brief Device `device_index`'s default generator (-1: the current device), as torch's
 *  at::cuda::detail::getDefaultCUDAGenerator; valid for the life of the process. */
inline CUDAGeneratorImpl* getDefaultCUDAGenerator(DeviceIndex device_index = -1) {
  static std::mutex lock;
  static std::vector<std::unique_ptr<CUDAGeneratorImpl>> generators;
  if (!::sdk::cuda::is_available()) {
    ::sdk::detail::throw_error(
        SDK_ERROR_RUNTIME, ::sdk::detail::concat("getDefaultCUDAGenerator: CUDA is not available: ",
                                                 sdk_cuda_unavailable_reason()));
  }
  const DeviceIndex device = resolve_device(device_index, "getDefaultCUDAGenerator");
  if (device < 0 || device >= ::sdk::cuda::device_count()) {
    ::sdk::detail::throw_error(
        SDK_ERROR_VALUE, ::sdk::detail::concat("getDefaultCUDAGenerator: no CUDA device ", device,
                                               " (", ::sdk::cuda::device_count(), " visible)"));
  }
  std::lock_guard<std::mutex> guard(lock);
  if (generators.size() <= static_cast<size_t>(device)) generators.resize(device + 1);
  auto& gen = generators[static_cast<size_t>(device)];
  if (!gen) gen = std::make_unique<CUDAGeneratorImpl>(device);
  return gen.get();
}
}  // namespace detail

namespace philox {
/*! \brief (seed, offset) of a state inside a kernel (torch's at::cuda::philox::unpack). */
SDK_DETAIL_HOST_DEVICE inline std::tuple<uint64_t, uint64_t> unpack(PhiloxCudaState arg) {
  return std::tuple<uint64_t, uint64_t>(arg.seed_.val, arg.offset_.val + arg.offset_intragraph_);
}
}  // namespace philox
}  // namespace cuda

/*! \brief `default_gen` when no generator is given (torch's at::get_generator_or_default).
 *  A kernel here draws from its device's default generator only: a generator object passed
 *  in (a CPU sdk::Generator) is refused rather than silently ignored. */
template <typename T>
T* get_generator_or_default(std::nullopt_t, T* default_gen) {
  return default_gen;
}
template <typename T, typename G>
T* get_generator_or_default(const std::optional<G>& gen, T* default_gen) {
  if (gen.has_value()) {
    detail::throw_error(SDK_ERROR_VALUE,
                        "get_generator_or_default: a CUDA kernel draws from its device's default "
                        "generator; a generator object cannot be passed to it here");
  }
  return default_gen;
}

}  // namespace sdk

#undef SDK_DETAIL_HOST_DEVICE

#endif  // SDK_CUDA_GENERATOR_H_
