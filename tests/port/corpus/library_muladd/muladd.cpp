// Operators registered with TORCH_LIBRARY: a schema, a CPU kernel, a composite op calling
// another registered op through the dispatcher.
#include <torch/library.h>
#include <torch/types.h>

namespace corpus_muladd {

at::Tensor muladd_cpu(const at::Tensor& a, const at::Tensor& b, double c) {
  TORCH_CHECK(a.sizes() == b.sizes(), "muladd: shapes differ: ", a.sizes(), " vs ", b.sizes());
  TORCH_CHECK(a.dtype() == at::kFloat && b.dtype() == at::kFloat, "muladd: float32 only");
  TORCH_INTERNAL_ASSERT(a.device().type() == at::DeviceType::CPU);
  at::Tensor a_contig = a.contiguous();
  at::Tensor b_contig = b.contiguous();
  at::Tensor result = torch::empty(a_contig.sizes(), a_contig.options());
  const float* a_ptr = a_contig.data_ptr<float>();
  const float* b_ptr = b_contig.data_ptr<float>();
  float* out = result.data_ptr<float>();
  for (int64_t i = 0; i < result.numel(); i++) {
    out[i] = a_ptr[i] * b_ptr[i] + static_cast<float>(c);
  }
  return result;
}

at::Tensor square_plus(const at::Tensor& a, double c) {
  static auto op = c10::Dispatcher::singleton()
                       .findSchemaOrThrow("corpus_muladd::muladd", "")
                       .typed<at::Tensor(const at::Tensor&, const at::Tensor&, double)>();
  return op.call(a, a, c);
}

TORCH_LIBRARY(corpus_muladd, m) {
  m.def("muladd(Tensor a, Tensor b, float c) -> Tensor");
  m.def("square_plus(Tensor a, float c) -> Tensor");
}

TORCH_LIBRARY_IMPL(corpus_muladd, CPU, m) {
  m.impl("muladd", &muladd_cpu);
  m.impl("square_plus", TORCH_FN(square_plus));
}

}  // namespace corpus_muladd
