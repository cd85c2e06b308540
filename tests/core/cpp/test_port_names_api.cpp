// test_port_names_api.cpp: the torch names the porting census ranks high, beyond what the
// corpus exercises: channels-last layouts (torch's rules for recognising them), the stable
// ABI's StableIValue round trips, ops and error-code check, and at::globalContext(); exits
// nonzero on any failure.
#include <sdk/all.h>
#include <sdk/stable.h>

#include <cstdio>
#include <future>
#include <optional>
#include <thread>
#include <vector>

#include "expect.h"

namespace {

using Ints = std::vector<int64_t>;

Ints strides_of(const sdk::Tensor& t) { return t.strides().vec(); }

void channels_last_layouts() {
  const auto cl = sdk::MemoryFormat::ChannelsLast;
  sdk::Tensor x = sdk::arange(2 * 3 * 4 * 5, sdk::kFloat).reshape({2, 3, 4, 5});
  EXPECT(x.is_contiguous(sdk::MemoryFormat::Contiguous) && !x.is_contiguous(cl));
  EXPECT(x.suggest_memory_format() == sdk::MemoryFormat::Contiguous);

  sdk::Tensor y = x.contiguous(cl);
  EXPECT(strides_of(y) == Ints({60, 1, 15, 3}));
  EXPECT(y.is_contiguous(cl) && !y.is_contiguous() && y.equal(x));
  EXPECT(y.suggest_memory_format() == cl);
  EXPECT(y.contiguous(cl).get() == y.get());  // already channels-last: the tensor itself
  EXPECT(y.expect_contiguous(cl)->get() == y.get());
  EXPECT(y.contiguous().is_contiguous() && y.contiguous().equal(x));

  // *_like and clone keep a channels-last layout (Preserve) or make one on request
  EXPECT(strides_of(sdk::empty_like(y)) == Ints({60, 1, 15, 3}));
  EXPECT(strides_of(x.clone(cl)) == Ints({60, 1, 15, 3}) && x.clone(cl).equal(x));
  EXPECT(strides_of(sdk::zeros_like(x, cl)) == Ints({60, 1, 15, 3}));
  EXPECT(strides_of(sdk::empty({2, 3, 4, 5}, sdk::TensorOptions().memory_format(cl))) ==
         Ints({60, 1, 15, 3}));
  EXPECT(strides_of((y * 2)) == Ints({60, 1, 15, 3}));  // elementwise results follow

  // torch's ambiguous cases read as contiguous: N111, and a 1C1W transposed to 1W1C
  EXPECT(sdk::zeros({4, 1, 1, 1}).suggest_memory_format() == sdk::MemoryFormat::Contiguous);
  EXPECT(sdk::zeros({1, 3, 1, 5}).transpose(1, 3).suggest_memory_format() ==
         sdk::MemoryFormat::Contiguous);
  // a size-1 dimension's stride does not matter to is_contiguous(ChannelsLast)
  EXPECT(sdk::zeros({2, 3, 1, 1}).is_contiguous(cl));
  // a non-dense NHWC view is not contiguous, but still reads as channels-last
  sdk::Tensor sliced = y.narrow(3, 0, 2);
  EXPECT(!sliced.is_contiguous(cl) && sliced.suggest_memory_format() == cl);
  EXPECT(sliced.suggest_memory_format(/*channels_last_strides_exact_match=*/true) ==
         sdk::MemoryFormat::Contiguous);

  sdk::Tensor v = sdk::arange(2 * 3 * 2 * 2 * 2, sdk::kFloat).reshape({2, 3, 2, 2, 2});
  sdk::Tensor v3 = v.contiguous(sdk::MemoryFormat::ChannelsLast3d);
  EXPECT(strides_of(v3) == Ints({24, 1, 12, 6, 3}) && v3.equal(v));
  EXPECT(v3.suggest_memory_format() == sdk::MemoryFormat::ChannelsLast3d);

  EXPECT_ERROR(SDK_ERROR_VALUE, "required rank 4 tensor to use channels_last format",
               sdk::zeros({2, 3}).contiguous(cl));
  EXPECT_ERROR(SDK_ERROR_VALUE, "required rank 5 tensor to use channels_last_3d format",
               x.contiguous(sdk::MemoryFormat::ChannelsLast3d));
  EXPECT_ERROR(SDK_ERROR_VALUE, "preserve memory format is unsupported",
               x.contiguous(sdk::MemoryFormat::Preserve));
  EXPECT_ERROR(SDK_ERROR_VALUE, "Preserve is not a memory format",
               (void)x.is_contiguous(sdk::MemoryFormat::Preserve));
}

void stable_values_round_trip() {
  namespace sd = sdk::stable::detail;
  using sdk::stable::Tensor;
  EXPECT(sd::to<int64_t>(sd::from(int64_t{-7})) == -7);
  EXPECT(sd::to<double>(sd::from(2.5)) == 2.5);
  EXPECT(sd::to<bool>(sd::from(true)) && !sd::to<bool>(sd::from(false)));
  EXPECT(sd::to<sdk::ScalarType>(sd::from(sdk::kDouble)) == sdk::kDouble);
  EXPECT(!sd::to<std::optional<int64_t>>(sd::from(std::optional<int64_t>())).has_value());
  EXPECT(sd::to<std::optional<int64_t>>(sd::from(std::optional<int64_t>(3))).value() == 3);

  Tensor t = sdk::ones({2, 2});
  const int64_t uses = sdk_tensor_use_count(t.get());
  StableIValue held = sd::from(t);  // a new reference the stack owns
  EXPECT(sdk_tensor_use_count(t.get()) == uses + 1);
  Tensor back = sd::to<Tensor>(held);  // adopted: no new reference
  EXPECT(back.get() == t.get() && sdk_tensor_use_count(t.get()) == uses + 1);
  std::optional<Tensor> none = sd::to<std::optional<Tensor>>(sd::from(std::optional<Tensor>()));
  EXPECT(!none.has_value());
}

void stable_ops_and_checks() {
  using sdk::stable::Tensor;
  Tensor x = sdk::arange(6, sdk::kFloat).reshape({2, 3});
  Tensor z = sdk::stable::new_zeros(x, {4}, sdk::headeronly::ScalarType::Long);
  EXPECT(z.scalar_type() == sdk::kLong && z.numel() == 4 && z.get_device_index() == -1);
  EXPECT(sdk::stable::amax(x, 1).const_data_ptr<float>()[1] == 5.0f);
  EXPECT(sdk::stable::amax(x, std::vector<int64_t>{0, 1}).const_data_ptr<float>()[0] == 5.0f);
  Tensor padded = sdk::stable::pad(x, {1, 1}, "replicate");
  EXPECT(padded.size(1) == 5 && padded.const_data_ptr<float>()[0] == 0.0f);
  EXPECT_ERROR(SDK_ERROR_VALUE, "doesn't take in value argument",
               sdk::stable::pad(x, {1, 1}, "reflect", 2.0));
  EXPECT(sdk::stable::flatten(sdk::stable::transpose(x, 0, 1)).const_data_ptr<float>()[1] == 3.0f);
  Tensor e = sdk::stable::empty({2, 3, 4, 5}, sdk::kFloat, std::nullopt, std::nullopt, std::nullopt,
                                sdk::MemoryFormat::ChannelsLast);
  EXPECT(e.stride(1) == 1 && e.stride(3) == 3);
  EXPECT_ERROR(SDK_ERROR_VALUE, "pin_memory",
               sdk::stable::empty({2}, std::nullopt, std::nullopt, std::nullopt, true));

  // SDK_ERROR_CODE_CHECK throws with the core's message for a failed C ABI call
  EXPECT_ERROR(SDK_ERROR_VALUE, "shape [4, 4] is invalid for input of size 6", [&] {
    sdk_tensor* r = nullptr;
    const int64_t bad[] = {4, 4};
    SDK_ERROR_CODE_CHECK(sdk_reshape(x.get(), 2, bad, &r));
  }());
  if (!sdk::cuda::is_available()) {  // no GPU: a clear error, not a crash
    EXPECT_ERROR(SDK_ERROR_RUNTIME, "", (void)sdk::stable::accelerator::getCurrentDeviceIndex());
  }
}

// The softmax scale as torch's attention kernels compute it, through SymFloat.
sdk::SymFloat attention_scale(const sdk::Tensor& query, std::optional<double> scale) {
  const auto s = scale.has_value()
                     ? scale.value()
                     : (sdk::SymFloat(1.0) / (sdk::SymFloat(query.sym_size(-1)).sqrt()));
  return sdk::SymFloat(s);
}

void small_names() {
  sdk::Tensor q = sdk::zeros({2, 16});
  EXPECT(attention_scale(q, std::nullopt).expect_float() == 0.25);
  EXPECT(attention_scale(q, 0.5).expect_float() == 0.5);
  EXPECT((sdk::SymFloat(3.0) - sdk::SymFloat(sdk::SymInt(1))) * 2.0 == sdk::SymFloat(4.0));
  EXPECT(!sdk::SymFloat(1.5).is_symbolic() && sdk::SymFloat(1.0) < sdk::SymFloat(2.0));
  EXPECT(sdk::numel(q) == 32);

  // at::launch runs the task asynchronously; the caller waits on what the task sets
  std::promise<int> done;
  std::future<int> result = done.get_future();
  const std::thread::id caller = std::this_thread::get_id();
  sdk::launch([&done, caller] { done.set_value(std::this_thread::get_id() == caller ? 1 : 2); });
  EXPECT(result.get() == 2);

  EXPECT(sdk::cuda::check_device({}));  // no tensors: no device to ask about
  if (!sdk::cuda::is_available()) {
    EXPECT_ERROR(SDK_ERROR_RUNTIME, "", (void)sdk::cuda::check_device({q}));
  }
}

void global_context() {
  sdk::Context& ctx = sdk::globalContext();
  EXPECT(&ctx == &sdk::globalContext());
  EXPECT(!ctx.deterministicAlgorithms() && !ctx.deterministicAlgorithmsWarnOnly());
  ctx.alertNotDeterministic("probe");  // nothing asked for determinism: no error
  // the switch is the core's (what Python's sdk.use_deterministic_algorithms sets)
  ctx.setDeterministicAlgorithms(true);
  EXPECT(sdk_deterministic_algorithms() == 1 && ctx.deterministicAlgorithms());
  EXPECT_ERROR(SDK_ERROR_NOT_IMPLEMENTED, "probe does not have a deterministic",
               ctx.alertNotDeterministic("probe"));
  sdk_set_deterministic_algorithms(1, 1);
  EXPECT(ctx.deterministicAlgorithmsWarnOnly());
  ctx.alertNotDeterministic("probe");  // warns only
  ctx.setDeterministicAlgorithms(false, true);
  EXPECT(sdk_deterministic_algorithms() == 0 && !ctx.deterministicAlgorithmsWarnOnly());
  ctx.lazyInitCUDA();
  EXPECT(ctx.hasCUDA() == sdk::cuda::is_available());
  // the inter-op count is recorded in the core (what Python's sdk.set_num_interop_threads
  // sets too): 1 until set, a count below 1 refused and the count kept
  EXPECT(sdk::get_num_interop_threads() == 1);
  sdk::set_num_interop_threads(6);
  EXPECT(sdk::get_num_interop_threads() == 6 && sdk_get_num_interop_threads() == 6);
  EXPECT_ERROR(SDK_ERROR_VALUE, "n must be >= 1, got 0", sdk::set_num_interop_threads(0));
  EXPECT(sdk::get_num_interop_threads() == 6);
  sdk::set_num_interop_threads(1);
  EXPECT(!ctx.allowTF32CuBLAS() && !ctx.hasCuDNN());
}

void backward_without_engine() {
  // no sdk package in this process: backward names what is missing instead of doing nothing
  sdk::Tensor x = sdk::ones({2});
  EXPECT_ERROR(SDK_ERROR_RUNTIME, "import sdk", x.backward(sdk::ones({2})));
  EXPECT(sdk_tensor_backward(x.get(), nullptr, 4) == SDK_ERROR_VALUE);
  EXPECT(sdk_tensor_backward(nullptr, nullptr, 0) == SDK_ERROR_VALUE);
}

}  // namespace

int main() {
  channels_last_layouts();
  stable_values_round_trip();
  stable_ops_and_checks();
  global_context();
  small_names();
  backward_without_engine();
  std::printf("%d checks, %d failures\n", g_checks, g_failures);
  return g_failures == 0 ? 0 : 1;
}
