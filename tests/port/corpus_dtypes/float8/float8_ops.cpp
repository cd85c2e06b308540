// CPU ops on 8-bit float tensors in the idiom extensions use: ScalarType checks, torch's
// float8 C++ types through data_ptr, a dispatch over the float8 types, .to() between dtypes.
#include <ATen/Dispatch_v2.h>
#include <c10/util/Float8_e4m3fn.h>
#include <c10/util/Float8_e5m2.h>
#include <torch/extension.h>

#include <algorithm>
#include <cmath>
#include <tuple>

// Per-tensor scaled quantization of a float32 tensor to e4m3fn: the scale maps the largest
// magnitude onto e4m3fn's largest finite value; returns the codes and the inverse scale.
std::tuple<torch::Tensor, double> quantize_e4m3(const torch::Tensor& x) {
  TORCH_CHECK(x.scalar_type() == at::kFloat && x.is_contiguous(),
              "quantize_e4m3: expected a contiguous float32 tensor");
  const float* src = x.data_ptr<float>();
  float amax = 0.f;
  for (int64_t i = 0; i < x.numel(); ++i) amax = std::max(amax, std::fabs(src[i]));
  const float scale = amax > 0.f ? 448.f / amax : 1.f;
  torch::Tensor out = torch::empty(x.sizes(), x.options().dtype(at::kFloat8_e4m3fn));
  c10::Float8_e4m3fn* dst = out.data_ptr<c10::Float8_e4m3fn>();
  for (int64_t i = 0; i < x.numel(); ++i) dst[i] = c10::Float8_e4m3fn(src[i] * scale);
  return std::make_tuple(out, 1.0 / scale);
}

// float32 of any 8-bit float tensor times `scale`, dispatched over the float8 types.
torch::Tensor dequantize(const torch::Tensor& q, double scale) {
  const bool fp8 = q.scalar_type() == c10::ScalarType::Float8_e4m3fn ||
                   q.scalar_type() == c10::ScalarType::Float8_e5m2 ||
                   q.scalar_type() == at::ScalarType::Float8_e4m3fnuz ||
                   q.scalar_type() == at::ScalarType::Float8_e5m2fnuz;
  TORCH_CHECK(fp8 && q.is_contiguous(), "dequantize: expected a contiguous float8 tensor, got ",
              q.scalar_type());
  torch::Tensor out = torch::empty(q.sizes(), q.options().dtype(at::kFloat));
  float* o = out.data_ptr<float>();
  AT_DISPATCH_V2(q.scalar_type(), "dequantize", AT_WRAP([&] {
                   const scalar_t* p = q.data_ptr<scalar_t>();
                   for (int64_t i = 0; i < q.numel(); ++i)
                     o[i] = static_cast<float>(p[i]) * float(scale);
                 }),
                 AT_FLOAT8_TYPES);
  return out;
}

// The count of NaN codes in an e5m2 tensor, read element by element as c10::Float8_e5m2.
int64_t count_nan_e5m2(const torch::Tensor& q) {
  TORCH_CHECK(q.dtype() == at::kFloat8_e5m2, "count_nan_e5m2: expected float8_e5m2");
  torch::Tensor c = q.contiguous();
  const c10::Float8_e5m2* p = c.data_ptr<c10::Float8_e5m2>();
  int64_t n = 0;
  for (int64_t i = 0; i < c.numel(); ++i) n += p[i].isnan() ? 1 : 0;
  return n;
}

// x converted to e5m2 and back by the framework's own .to() (the round trip of a cast).
torch::Tensor round_trip_e5m2(const torch::Tensor& x) {
  return x.to(at::kFloat8_e5m2).to(x.scalar_type());
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.def("quantize_e4m3", &quantize_e4m3);
  m.def("dequantize", &dequantize);
  m.def("count_nan_e5m2", &count_nan_e5m2);
  m.def("round_trip_e5m2", &round_trip_e5m2);
}
