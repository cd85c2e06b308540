// test_storage_api.cpp: sdk::Storage and the set_ family (sdk/storage.h, ABI 1.12) against known
// values: what a storage reports, aliasing, use counts as torch counts them, set_ over another
// tensor's memory (values, bounds, dtype and device checks), the memory outliving its first
// tensor, read-only memory staying read-only; exits nonzero on any failure. Run under the
// sanitizers too (tests/sanitizers), where a read past a storage or of freed memory fails.
#include <sdk/all.h>

#include <cstdint>
#include <vector>

#include "expect.h"

namespace {

std::vector<float> values(const sdk::Tensor& t) {
  sdk::Tensor c = t.contiguous();
  const float* p = c.data_ptr<float>();
  return std::vector<float>(p, p + c.numel());
}

void what_a_storage_reports() {
  sdk::Tensor a = sdk::arange(12, sdk::kFloat).reshape({3, 4});
  sdk::Storage s = a.storage();
  EXPECT(s.defined() && static_cast<bool>(s));
  EXPECT(s.nbytes() == 48 && s.sym_nbytes() == 48);
  EXPECT(s.data() == a.data_ptr() && s.data_ptr().get() == a.data_ptr());
  EXPECT(s.mutable_data() == a.data_ptr());
  EXPECT(s.device() == sdk::Device(sdk::kCPU) && s.device_type() == sdk::kCPU);
  EXPECT(s.resizable());
  EXPECT(a.has_storage() && !sdk::Tensor().has_storage());

  // a view shares the storage; its own data pointer is inside it
  sdk::Tensor row = a.select(0, 1);
  EXPECT(row.storage().is_alias_of(s) && row.is_alias_of(a) && a.is_alias_of(row));
  EXPECT(row.storage().data() == s.data() && row.data_ptr() != s.data());
  EXPECT(!sdk::zeros({3, 4}).is_alias_of(a) && !a.is_alias_of(sdk::Tensor()));
  EXPECT(!sdk::zeros({0}).storage().is_alias_of(sdk::zeros({0}).storage()));

  // torch's counts: two tensors and `s`; a temporary from storage() does not count itself
  EXPECT(s.use_count() == 3);
  EXPECT(a.storage().use_count() == 3 && !a.storage().unique());
  sdk::Tensor fresh = sdk::zeros({2});
  EXPECT(fresh.storage().use_count() == 1);
  EXPECT(fresh.storage().unique());
  row.reset();
  EXPECT(s.use_count() == 2);

  EXPECT_ERROR(SDK_ERROR_RUNTIME, "undefined Storage", sdk::Storage().nbytes());
  EXPECT_ERROR(SDK_ERROR_RUNTIME, "undefined sdk::Tensor", sdk::Tensor().storage());
  EXPECT(sdk::Storage().is_alias_of(sdk::Storage()));  // as torch's: both empty
}

void set_to_another_tensor() {
  // gsplat's idiom: an output tensor takes a result's memory
  sdk::Tensor src = sdk::arange(6, sdk::kFloat).reshape({2, 3});
  sdk::Tensor out = sdk::empty({0});
  EXPECT(&out.set_(src) == &out);
  EXPECT(out.sizes() == src.sizes() && out.strides() == src.strides());
  EXPECT(out.data_ptr() == src.data_ptr() && out.is_set_to(src) && out.is_alias_of(src));
  out.fill_(7);
  EXPECT(values(src) == std::vector<float>(6, 7.0f));

  // a transposed view: same geometry, same memory
  sdk::Tensor t = src.t();
  out.set_(t);
  EXPECT(out.strides() == t.strides() && out.storage_offset() == 0 && out.is_set_to(t));

  EXPECT_ERROR(SDK_ERROR_TYPE,
               "could not set a tensor of dtype float64 to a source of dtype "
               "float32",
               sdk::empty({0}, sdk::kDouble).set_(src));
  EXPECT_ERROR(SDK_ERROR_VALUE, "'source' is NULL", out.set_(sdk::Tensor()));

  // set_() leaves an empty storage
  out.set_();
  EXPECT(out.numel() == 0 && out.dim() == 1 && out.storage().nbytes() == 0);
  EXPECT(!out.is_alias_of(src));
}

void set_to_a_storage() {
  sdk::Tensor src = sdk::arange(10, sdk::kFloat);
  sdk::Storage s = src.storage();
  sdk::Tensor v = sdk::empty({0});
  // FBGEMM's idiom: set_(storage, offset, sizes, strides)
  v.set_(s, 2, {2, 3}, {3, 1});
  EXPECT(values(v) == (std::vector<float>{2, 3, 4, 5, 6, 7}));
  EXPECT(v.storage_offset() == 2 && v.is_alias_of(src));
  v.set_(s, 1, {4});  // no strides: contiguous
  EXPECT(values(v) == (std::vector<float>{1, 2, 3, 4}) && v.is_contiguous());
  v.set_(s, 0, {3, 2}, {1, 3});  // overlapping, transposed-like strides
  EXPECT(values(v) == (std::vector<float>{0, 3, 1, 4, 2, 5}));
  v.set_(s);  // all of it, 1-d
  EXPECT(v.numel() == 10 && values(v)[9] == 9.0f);

  // the storage's bytes bound every geometry: element 10 is past 40 bytes
  EXPECT_ERROR(SDK_ERROR_VALUE, "reach element 10 but the storage holds 10 elements (40 bytes",
               v.set_(s, 1, {10}));
  EXPECT_ERROR(SDK_ERROR_VALUE, "reach element 11", v.set_(s, 0, {2, 2}, {10, 1}));
  EXPECT_ERROR(SDK_ERROR_VALUE, "storage_offset must be >= 0", v.set_(s, -1, {1}));
  EXPECT_ERROR(SDK_ERROR_VALUE, "strides must be >= 0", v.set_(s, 4, {2}, {-1}));
  EXPECT_ERROR(SDK_ERROR_VALUE, "negative size", v.set_(s, 0, {-2}));
  EXPECT_ERROR(SDK_ERROR_VALUE, "2 sizes but 1 strides", v.set_(s, 0, {2, 2}, {1}));
  EXPECT_ERROR(SDK_ERROR_VALUE, "strides overflow", v.set_(s, 0, {3}, {INT64_MAX}));
  EXPECT_ERROR(SDK_ERROR_VALUE, "Storage is undefined", v.set_(sdk::Storage(), 0, {1}));
  EXPECT(v.numel() == 10);  // a refused set_ changed nothing

  // itemsize against nbytes: 40 bytes hold 5 doubles, not 6; 10 int16 at offset 10
  sdk::Tensor d = sdk::empty({0}, sdk::kDouble);
  d.set_(s);
  EXPECT(d.numel() == 5);
  EXPECT_ERROR(SDK_ERROR_VALUE, "holds 5 elements (40 bytes, elements of 8)", d.set_(s, 0, {6}));
  sdk::Tensor h = sdk::empty({0}, sdk::kShort);
  h.set_(s, 10, {10});
  EXPECT(h.numel() == 10 && h.data_ptr() == static_cast<const char*>(s.data()) + 20);
  // an empty geometry reaches nothing and fits anywhere, as torch's
  v.set_(s, 100, {0});
  EXPECT(v.numel() == 0);
}

void memory_outlives_its_first_tensor() {
  sdk::Tensor kept = sdk::empty({0});
  {
    sdk::Tensor src = sdk::arange(1000, sdk::kFloat);
    kept.set_(src.storage(), 998, {2});
  }  // src and the Storage handle are gone; kept holds the memory
  for (int i = 0; i < 10; ++i) sdk::full({1000}, -1.0);  // reuse freed blocks, if any
  EXPECT(values(kept) == (std::vector<float>{998, 999}));
  EXPECT(kept.storage().use_count() == 1);

  // a storage handle alone keeps the memory
  sdk::Storage alone;
  {
    sdk::Tensor src = sdk::full({4}, 2.5, sdk::kDouble);
    alone = src.storage();
  }
  EXPECT(alone.use_count() == 1 && alone.nbytes() == 32);
  sdk::Tensor back = sdk::empty({0}, sdk::kDouble).set_(alone);
  EXPECT(back.sum().item<double>() == 10.0);

  // the storage a tensor leaves stays valid for what was read from it before
  sdk::Tensor moving = sdk::full({64}, 3.0f);
  const float* before = moving.data_ptr<float>();
  moving.set_(sdk::zeros({2}));
  EXPECT(before[63] == 3.0f);  // still the old memory (a sanitizer run checks the read)
}

void read_only_memory_stays_read_only() {
  std::vector<float> buf{1, 2, 3, 4};
  sdk::Tensor ro = sdk::from_blob(buf.data(), {4});
  EXPECT(sdk_tensor_set_read_only(ro.get(), "a test buffer") == SDK_OK);
  sdk::Storage s = ro.storage();
  EXPECT(!s.resizable());
  EXPECT(s.data() == buf.data());
  EXPECT_ERROR(SDK_ERROR_RUNTIME, "read-only", s.mutable_data());
  EXPECT_ERROR(SDK_ERROR_RUNTIME, "read-only", s.mutable_data_ptr());
  sdk::Tensor v = sdk::empty({0});
  v.set_(s, 1, {2});
  EXPECT(values(v) == (std::vector<float>{2, 3}));
  EXPECT_ERROR(SDK_ERROR_RUNTIME, "a test buffer", v.fill_(0));
  EXPECT_ERROR(SDK_ERROR_RUNTIME, "read-only", v.mutable_data_ptr());
  sdk::Tensor w = sdk::empty({0}).set_(ro);
  EXPECT_ERROR(SDK_ERROR_RUNTIME, "a test buffer", w.add_(1));
  EXPECT(buf[0] == 1 && buf[1] == 2);
  // a read-only tensor moved onto writable memory may write it: its old memory is unchanged
  sdk::Tensor fresh = sdk::zeros({4});
  w.set_(fresh);
  w.fill_(5);
  EXPECT(values(fresh) == std::vector<float>(4, 5.0f) && buf[0] == 1);
}

void devices_must_match() {
  sdk::Tensor meta = sdk::empty({3}, sdk::TensorOptions().device(sdk::kMeta));
  EXPECT(meta.storage().data() == nullptr && meta.storage().nbytes() == 12);
  EXPECT_ERROR(SDK_ERROR_VALUE, "the storage is on meta but the tensor on cpu",
               sdk::empty({0}).set_(meta.storage(), 0, {3}));
  EXPECT_ERROR(SDK_ERROR_VALUE, "the source is on cpu but the tensor on meta",
               sdk::empty({0}, sdk::TensorOptions().device(sdk::kMeta)).set_(sdk::zeros({1})));
  sdk::Tensor m2 = sdk::empty({0}, sdk::TensorOptions().device(sdk::kMeta));
  m2.set_(meta.storage(), 1, {2});
  EXPECT(m2.is_meta() && m2.numel() == 2 && m2.is_alias_of(meta));
}

}  // namespace

int main() {
  what_a_storage_reports();
  set_to_another_tensor();
  set_to_a_storage();
  memory_outlives_its_first_tensor();
  read_only_memory_stays_read_only();
  devices_must_match();
  std::printf("%d checks, %d failures\n", g_checks, g_failures);
  return g_failures == 0 ? 0 : 1;
}
