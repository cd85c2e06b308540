// core/src/random.cpp: seedable generators (xoshiro256**) and uniform_/normal_/randint_ fills.
#include <cmath>
#include <cstring>
#include <mutex>

#include "cuda/glue/cuda_glue.h"
#include "elementwise.h"

struct sdk_generator {
  std::mutex mu;  // a generator may be shared between threads
  uint64_t s[4];
  // Box-Muller makes pairs; the second value waits here for the next call.
  bool has_spare = false;
  double spare = 0.0;
};

namespace sdk::detail {
namespace {

constexpr uint64_t kDefaultSeed = 67280421310721ULL;

uint64_t splitmix64(uint64_t& x) {
  uint64_t z = (x += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

void seed(sdk_generator& g, uint64_t value) {
  uint64_t x = value;
  for (auto& w : g.s) w = splitmix64(x);  // never all zero
  g.has_spare = false;
}

inline uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

uint64_t next_u64(sdk_generator& g) {
  uint64_t* s = g.s;
  uint64_t result = rotl(s[1] * 5, 7) * 9;
  uint64_t t = s[1] << 17;
  s[2] ^= s[0];
  s[3] ^= s[1];
  s[1] ^= s[2];
  s[0] ^= s[3];
  s[2] ^= t;
  s[3] = rotl(s[3], 45);
  return result;
}

// Uniform in [0, 1) with 53 random bits.
double next_double(sdk_generator& g) { return static_cast<double>(next_u64(g) >> 11) * 0x1p-53; }

sdk_generator& default_generator() {
  static sdk_generator* g = [] {
    auto* p = new sdk_generator();
    seed(*p, kDefaultSeed);
    return p;
  }();
  return *g;
}

// Fill t element by element in logical order (deterministic for a seed).
template <typename F>
void fill_with(TensorImpl& t, const char* op, F value) {
  if (t.numel == 0) return;
  TensorIter it;
  it.build({&t}, op);
  SDK_DISPATCH_ALL(t.dtype, op, [&] {
    it.run_range(0, it.numel, [&](char** p, const int64_t* s, int64_t n) {
      char* q = p[0];
      for (int64_t i = 0; i < n; ++i, q += s[0]) {
        *reinterpret_cast<scalar_t*>(q) = value(static_cast<scalar_t*>(nullptr));
      }
    });
  });
}

TensorImpl& checked_mut(sdk_tensor* t, const char* op) {
  TensorImpl& x = const_cast<TensorImpl&>(checked(t, op, "t"));
  check_cpu(x, op);
  check_writable(x, op);
  check_no_internal_overlap(x, op);
  return x;
}

}  // namespace
}  // namespace sdk::detail

using namespace sdk::detail;

extern "C" {

SDK_API sdk_status sdk_generator_create(uint64_t seed_value, sdk_generator** result) {
  SDK_SAFE_CALL_BEGIN;
  check_not_null(result, "sdk_generator_create", "result");
  auto* g = new sdk_generator();
  seed(*g, seed_value);
  *result = g;
  SDK_SAFE_CALL_END;
}

SDK_API void sdk_generator_destroy(sdk_generator* gen) { delete gen; }

SDK_API void sdk_manual_seed(sdk_generator* gen, uint64_t seed_value) {
  sdk_generator& g = gen ? *gen : default_generator();
  // torch.manual_seed seeds the CUDA devices' generators too
  if (!gen) sdk::detail::cuda::reseed_philox_all(seed_value);
  std::lock_guard<std::mutex> lock(g.mu);
  seed(g, seed_value);
}

// The saved state: "sRNG", format 1, has_spare, two zero bytes, the four xoshiro words,
// the spare normal value (host byte order).
SDK_API sdk_status sdk_generator_get_state(sdk_generator* gen, void* state, int64_t size) {
  SDK_SAFE_CALL_BEGIN;
  check_not_null(state, "sdk_generator_get_state", "state");
  SDK_VALUE_CHECK(size >= SDK_GENERATOR_STATE_SIZE, "sdk_generator_get_state: the buffer holds ",
                  size, " bytes, the state needs ", SDK_GENERATOR_STATE_SIZE);
  sdk_generator& g = gen ? *gen : default_generator();
  unsigned char out[SDK_GENERATOR_STATE_SIZE] = {'s', 'R', 'N', 'G', 1};
  {
    std::lock_guard<std::mutex> lock(g.mu);
    out[5] = g.has_spare ? 1 : 0;
    std::memcpy(out + 8, g.s, sizeof g.s);
    std::memcpy(out + 40, &g.spare, sizeof g.spare);
  }
  std::memcpy(state, out, sizeof out);
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_generator_set_state(sdk_generator* gen, const void* state, int64_t size) {
  SDK_SAFE_CALL_BEGIN;
  const char* op = "sdk_generator_set_state";
  check_not_null(state, op, "state");
  SDK_VALUE_CHECK(size == SDK_GENERATOR_STATE_SIZE, op, ": a generator state has ",
                  SDK_GENERATOR_STATE_SIZE, " bytes, got ", size);
  unsigned char in[SDK_GENERATOR_STATE_SIZE];
  std::memcpy(in, state, sizeof in);
  SDK_VALUE_CHECK(
      std::memcmp(in, "sRNG", 4) == 0 && in[4] == 1 && in[5] <= 1 && in[6] == 0 && in[7] == 0, op,
      ": not a generator state (from sdk_generator_get_state, format 1)");
  uint64_t words[4];
  double spare;
  std::memcpy(words, in + 8, sizeof words);
  std::memcpy(&spare, in + 40, sizeof spare);
  SDK_VALUE_CHECK((words[0] | words[1] | words[2] | words[3]) != 0, op,
                  ": an all-zero state never changes; not a generator state");
  SDK_VALUE_CHECK(in[5] == 0 || std::isfinite(spare), op, ": the saved normal value is ", spare);
  sdk_generator& g = gen ? *gen : default_generator();
  std::lock_guard<std::mutex> lock(g.mu);
  std::memcpy(g.s, words, sizeof words);
  g.has_spare = in[5] == 1;
  g.spare = in[5] == 1 ? spare : 0.0;
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_uniform_(sdk_tensor* t, double low, double high, sdk_generator* gen) {
  SDK_SAFE_CALL_BEGIN;
  if (t && cuda::is_cuda(*to_impl(t))) {
    return cuda::via_host(t, "sdk_uniform_",
                          [&](sdk_tensor* h) { return sdk_uniform_(h, low, high, gen); });
  }
  const char* op = "sdk_uniform_";
  TensorImpl& x = checked_mut(t, op);
  SDK_TYPE_CHECK(is_floating(x.dtype), op, ": expected a floating tensor, got ",
                 dtype_name(x.dtype));
  SDK_VALUE_CHECK(std::isfinite(low) && std::isfinite(high) && low <= high, op,
                  ": expected finite low <= high, got [", low, ", ", high, ")");
  sdk_generator& g = gen ? *gen : default_generator();
  std::lock_guard<std::mutex> lock(g.mu);
  double span = high - low;
  fill_with(x, op, [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    double v = low + span * next_double(g);
    T r = cast_to<T>(v);
    // Rounding to a narrow type may land on `high`: keep the interval half-open.
    if (static_cast<double>(static_cast<typename OpMath<T>::type>(r)) >= high && high > low) {
      r = cast_to<T>(low);
    }
    return r;
  });
  x.bump_version();
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_normal_(sdk_tensor* t, double mean, double std_, sdk_generator* gen) {
  SDK_SAFE_CALL_BEGIN;
  if (t && cuda::is_cuda(*to_impl(t))) {
    return cuda::via_host(t, "sdk_normal_",
                          [&](sdk_tensor* h) { return sdk_normal_(h, mean, std_, gen); });
  }
  const char* op = "sdk_normal_";
  TensorImpl& x = checked_mut(t, op);
  SDK_TYPE_CHECK(is_floating(x.dtype), op, ": expected a floating tensor, got ",
                 dtype_name(x.dtype));
  SDK_VALUE_CHECK(std::isfinite(mean) && std::isfinite(std_) && std_ >= 0, op,
                  ": expected finite mean and std >= 0, got mean=", mean, ", std=", std_);
  sdk_generator& g = gen ? *gen : default_generator();
  std::lock_guard<std::mutex> lock(g.mu);
  fill_with(x, op, [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    double z;
    if (g.has_spare) {
      z = g.spare;
      g.has_spare = false;
    } else {
      // Box-Muller; 1 - u keeps the log argument in (0, 1].
      double u1 = 1.0 - next_double(g), u2 = next_double(g);
      double rad = std::sqrt(-2.0 * std::log(u1));
      z = rad * std::cos(2.0 * M_PI * u2);
      g.spare = rad * std::sin(2.0 * M_PI * u2);
      g.has_spare = true;
    }
    return cast_to<T>(mean + std_ * z);
  });
  x.bump_version();
  SDK_SAFE_CALL_END;
}

SDK_API sdk_status sdk_randint_(sdk_tensor* t, int64_t low, int64_t high, sdk_generator* gen) {
  SDK_SAFE_CALL_BEGIN;
  if (t && cuda::is_cuda(*to_impl(t))) {
    return cuda::via_host(t, "sdk_randint_",
                          [&](sdk_tensor* h) { return sdk_randint_(h, low, high, gen); });
  }
  const char* op = "sdk_randint_";
  TensorImpl& x = checked_mut(t, op);
  SDK_VALUE_CHECK(high > low, op, ": expected low < high, got [", low, ", ", high, ")");
  sdk_generator& g = gen ? *gen : default_generator();
  std::lock_guard<std::mutex> lock(g.mu);
  uint64_t range = static_cast<uint64_t>(high) - static_cast<uint64_t>(low);
  fill_with(x, op, [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    // Multiply-shift maps 64 random bits onto [0, range) with negligible bias.
    uint64_t r = static_cast<uint64_t>((static_cast<unsigned __int128>(next_u64(g)) * range) >> 64);
    return cast_to<T>(static_cast<int64_t>(static_cast<uint64_t>(low) + r));
  });
  x.bump_version();
  SDK_SAFE_CALL_END;
}

}  // extern "C"
