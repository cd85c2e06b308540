// Kernels written against torch's stable ABI: torch::stable::Tensor with its free ops, dtype
// checks through torch::headeronly::ScalarType, unboxed kernels registered with TORCH_BOX and
// a hand-written boxed kernel reading and writing StableIValues.
#include <torch/csrc/stable/library.h>
#include <torch/csrc/stable/ops.h>
#include <torch/csrc/stable/tensor.h>
#include <torch/headeronly/core/ScalarType.h>
#include <torch/headeronly/util/Exception.h>

#include <cstdint>
#include <optional>

using torch::stable::Tensor;

namespace {

// x * scale + shift for a contiguous float32 tensor, into empty_like(x).
Tensor affine(const Tensor& x, double scale, double shift) {
  STD_TORCH_CHECK(x.scalar_type() == torch::headeronly::ScalarType::Float,
                  "affine: expected a float32 tensor");
  STD_TORCH_CHECK(x.is_contiguous(), "affine: x must be contiguous");
  Tensor out = torch::stable::empty_like(x);
  const float* src = x.const_data_ptr<float>();
  float* dst = out.mutable_data_ptr<float>();
  for (int64_t i = 0; i < x.numel(); ++i) {
    dst[i] = static_cast<float>(src[i] * scale + shift);
  }
  return out;
}

// x with a row of `value` above and below: new_empty, fill_, then a narrow view copied into.
Tensor framed(const Tensor& x, double value) {
  STD_TORCH_CHECK(x.dim() == 2, "framed: expected a 2-D tensor, got ", x.dim(), " dims");
  Tensor out = torch::stable::new_empty(x, {x.size(0) + 2, x.size(1)});
  torch::stable::fill_(out, value);
  Tensor middle = torch::stable::narrow(out, 0, 1, x.size(0));
  torch::stable::copy_(middle, x);
  return out;
}

// The transpose of x, flattened and padded with one zero at each end.
Tensor flat_t_padded(const Tensor& x) {
  Tensor t = torch::stable::transpose(x, 0, 1);
  Tensor flat = torch::stable::reshape(t, {-1});
  return torch::stable::pad(flat, {1, 1}, "constant", 0.0);
}

// Per row of a float32 or float64 matrix, how many entries are positive (int64), walking the
// input by its strides; zero_ clears a scratch copy first.
Tensor count_positive(const Tensor& x) {
  STD_TORCH_CHECK(x.dim() == 2, "count_positive: expected a 2-D tensor");
  Tensor counts = torch::stable::new_zeros(x, {x.size(0)}, torch::headeronly::ScalarType::Long);
  Tensor scratch = torch::stable::new_empty(counts, {x.size(0)});
  torch::stable::fill_(scratch, 7.0);
  torch::stable::zero_(scratch);
  int64_t* c = counts.mutable_data_ptr<int64_t>();
  const int64_t* base = scratch.const_data_ptr<int64_t>();
  for (int64_t i = 0; i < x.size(0); ++i) {
    for (int64_t j = 0; j < x.size(1); ++j) {
      const int64_t at = i * x.stride(0) + j * x.stride(1);
      double v = 0;
      switch (x.scalar_type()) {
        case torch::headeronly::ScalarType::Float:
          v = x.const_data_ptr<float>()[at];
          break;
        case torch::headeronly::ScalarType::Double:
          v = x.const_data_ptr<double>()[at];
          break;
        default:
          STD_TORCH_CHECK(false, "count_positive: expected float32 or float64");
      }
      c[i] += base[i] + (v > 0 ? 1 : 0);
    }
  }
  return counts;
}

// The boxed convention by hand: (x * alpha * repeat, negated when asked) + bias, and the
// number of elements, from scaled_sum(Tensor x, Tensor? bias, float alpha, bool negate,
// int? repeat) -> (Tensor, int).
void boxed_scaled_sum(StableIValue* stack, uint64_t num_args, uint64_t num_outputs) {
  STD_TORCH_CHECK(num_args == 5 && num_outputs == 2, "scaled_sum: unexpected stack");
  Tensor x = torch::stable::detail::to<Tensor>(stack[0]);
  std::optional<Tensor> bias = torch::stable::detail::to<std::optional<Tensor>>(stack[1]);
  double alpha = torch::stable::detail::to<double>(stack[2]);
  bool negate = torch::stable::detail::to<bool>(stack[3]);
  std::optional<int64_t> repeat = torch::stable::detail::to<std::optional<int64_t>>(stack[4]);
  STD_TORCH_CHECK(x.scalar_type() == torch::headeronly::ScalarType::Double && x.is_contiguous(),
                  "scaled_sum: expected a contiguous float64 tensor");
  const double factor = alpha * static_cast<double>(repeat.value_or(1)) * (negate ? -1.0 : 1.0);
  Tensor out = torch::stable::empty_like(x);
  const double* src = x.const_data_ptr<double>();
  const double* b = bias.has_value() ? bias->const_data_ptr<double>() : nullptr;
  double* dst = out.mutable_data_ptr<double>();
  for (int64_t i = 0; i < x.numel(); ++i) {
    dst[i] = src[i] * factor + (b ? b[i] : 0.0);
  }
  stack[0] = torch::stable::detail::from(out);
  stack[1] = torch::stable::detail::from(x.numel());
}

}  // namespace

STABLE_TORCH_LIBRARY(corpus_stable, m) {
  m.def("affine(Tensor x, float scale, float shift) -> Tensor");
  m.def("framed(Tensor x, float value) -> Tensor");
  m.def("flat_t_padded(Tensor x) -> Tensor");
  m.def("count_positive(Tensor x) -> Tensor");
  m.def(
      "scaled_sum(Tensor x, Tensor? bias, float alpha, bool negate, int? repeat) -> (Tensor, "
      "int)");
}

STABLE_TORCH_LIBRARY_IMPL(corpus_stable, CPU, m) {
  m.impl("affine", TORCH_BOX(&affine));
  m.impl("framed", TORCH_BOX(&framed));
  m.impl("flat_t_padded", TORCH_BOX(&flat_t_padded));
  m.impl("count_positive", TORCH_BOX(&count_positive));
  m.impl("scaled_sum", &boxed_scaled_sum);
}
