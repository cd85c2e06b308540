// core/src/cuda/glue/philox.cpp: each CUDA device's default generator as device kernels use
// it (ABI 1.11): a seed and a running Philox offset, handed out to extensions' kernels.
//
// Host state only, kept in the core so that every extension of the process draws from the
// same sequence and sdk.manual_seed reaches it.
#include <mutex>
#include <vector>

#include "cuda/glue/cuda_glue.h"

namespace sdk::detail::cuda {
namespace {

// The CPU default generator's default seed (random.cpp), as torch seeds both alike.
constexpr uint64_t kDefaultSeed = 67280421310721ULL;

struct PhiloxState {
  uint64_t seed = kDefaultSeed;
  uint64_t offset = 0;
};

struct Generators {
  std::mutex mu;
  std::vector<PhiloxState> devices;  // grown on first use of a device
  uint64_t seed = kDefaultSeed;      // sdk_manual_seed's last: for devices not yet used
};

// Never destroyed: an extension's static may draw during exit.
Generators& generators() {
  static Generators* g = new Generators();
  return *g;
}

PhiloxState& state_of(Generators& g, int32_t device) {
  if (g.devices.size() <= static_cast<size_t>(device)) {
    g.devices.resize(static_cast<size_t>(device) + 1, PhiloxState{g.seed, 0});
  }
  return g.devices[static_cast<size_t>(device)];
}

// -1 is the current device; anything else must name a visible one.
int32_t resolve(int32_t device_index, const char* op) {
  if (device_index == -1) {
    int32_t current = 0;
    int rc = backend().current_device(&current);
    if (rc != 0) throw_error(rc, backend().last_error());
    return current;
  }
  check_device(sdk_device{SDK_CUDA, device_index}, op);
  return device_index;
}

}  // namespace

void reseed_philox_all(uint64_t seed) {
  Generators& g = generators();
  std::lock_guard<std::mutex> lock(g.mu);
  g.seed = seed;
  for (PhiloxState& s : g.devices) s = PhiloxState{seed, 0};
}

}  // namespace sdk::detail::cuda

namespace cu = sdk::detail::cuda;
using namespace sdk::detail;

extern "C" {

SDK_API sdk_status sdk_cuda_philox_state(int32_t device_index, uint64_t increment, uint64_t* seed,
                                         uint64_t* offset) {
  SDK_SAFE_CALL_BEGIN;
  check_not_null(seed, "sdk_cuda_philox_state", "seed");
  check_not_null(offset, "sdk_cuda_philox_state", "offset");
  const int32_t device = cu::resolve(device_index, "philox_cuda_state");
  // Each Philox call makes 4 numbers: whole calls, so kernels never share one.
  SDK_VALUE_CHECK(increment <= UINT64_MAX - 3, "philox_cuda_state: increment ", increment,
                  " is too large");
  const uint64_t rounded = (increment + 3) / 4 * 4;
  cu::Generators& g = cu::generators();
  std::lock_guard<std::mutex> lock(g.mu);
  cu::PhiloxState& s = cu::state_of(g, device);
  *seed = s.seed;
  *offset = s.offset;
  s.offset += rounded;
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_cuda_philox_seed(int32_t device_index, uint64_t seed) {
  SDK_SAFE_CALL_BEGIN;
  const int32_t device = cu::resolve(device_index, "manual_seed");
  cu::Generators& g = cu::generators();
  std::lock_guard<std::mutex> lock(g.mu);
  cu::state_of(g, device) = cu::PhiloxState{seed, 0};
  SDK_SAFE_CALL_END;
}

}  // extern "C"
