// muladd.cpp: three operators registered with SDK_LIBRARY, with CPU kernels.
//
//   mymuladd(a, b, c) = a * b + c     (a, b float32 tensors of one shape, c a float)
//   mymul(a, b)       = a * b
//   myadd_out(a, b, out): out = a + b (writes `out`, which the schema marks mutable)
//
// Python calls them as sdk.ops.muladd_ops.<name>; their autograd is registered in Python
// (muladd_ops/ops.py). The CUDA kernels are in muladd.cu.
#include <Python.h>
#include <sdk/library.h>

namespace muladd_ops {

static void check_pair(const sdk::Tensor& a, const sdk::Tensor& b) {
  SDK_CHECK(a.sizes() == b.sizes(), "a and b must have the same shape, got ", a.sizes(), " and ",
            b.sizes());
  SDK_CHECK(a.dtype() == sdk::kFloat && b.dtype() == sdk::kFloat, "a and b must be float32");
  SDK_CHECK(a.device().is_cpu() && b.device().is_cpu(), "the CPU kernel needs CPU tensors");
}

sdk::Tensor mymuladd_cpu(const sdk::Tensor& a, const sdk::Tensor& b, double c) {
  check_pair(a, b);
  sdk::Tensor a_contig = a.contiguous();
  sdk::Tensor b_contig = b.contiguous();
  sdk::Tensor result = sdk::empty(a_contig.sizes(), a_contig.options());
  const float* a_ptr = a_contig.data_ptr<float>();
  const float* b_ptr = b_contig.data_ptr<float>();
  float* result_ptr = result.data_ptr<float>();
  // numel() once, outside the loop: it is a call into the core (torch's is inline), which
  // the compiler cannot hoist; in the loop condition it costs 1M calls for 1M elements.
  const int64_t n = result.numel();
  for (int64_t i = 0; i < n; i++) {
    result_ptr[i] = a_ptr[i] * b_ptr[i] + static_cast<float>(c);
  }
  return result;
}

sdk::Tensor mymul_cpu(const sdk::Tensor& a, const sdk::Tensor& b) {
  check_pair(a, b);
  sdk::Tensor a_contig = a.contiguous();
  sdk::Tensor b_contig = b.contiguous();
  sdk::Tensor result = sdk::empty(a_contig.sizes(), a_contig.options());
  const float* a_ptr = a_contig.data_ptr<float>();
  const float* b_ptr = b_contig.data_ptr<float>();
  float* result_ptr = result.data_ptr<float>();
  const int64_t n = result.numel();
  for (int64_t i = 0; i < n; i++) result_ptr[i] = a_ptr[i] * b_ptr[i];
  return result;
}

// Writes `out` in place: the schema says so with Tensor(a!).
void myadd_out_cpu(const sdk::Tensor& a, const sdk::Tensor& b, sdk::Tensor& out) {
  check_pair(a, b);
  SDK_CHECK(out.sizes() == a.sizes() && out.dtype() == sdk::kFloat && out.is_contiguous(),
            "out must be a contiguous float32 tensor of the inputs' shape");
  sdk::Tensor a_contig = a.contiguous();
  sdk::Tensor b_contig = b.contiguous();
  const float* a_ptr = a_contig.data_ptr<float>();
  const float* b_ptr = b_contig.data_ptr<float>();
  float* out_ptr = out.data_ptr<float>();
  const int64_t n = out.numel();
  for (int64_t i = 0; i < n; i++) out_ptr[i] = a_ptr[i] + b_ptr[i];
}

// The operators' schemas: one SDK_LIBRARY block per namespace.
SDK_LIBRARY(muladd_ops, m) {
  m.def("mymuladd(Tensor a, Tensor b, float c) -> Tensor");
  m.def("mymul(Tensor a, Tensor b) -> Tensor");
  m.def("myadd_out(Tensor a, Tensor b, Tensor(a!) out) -> ()");
}

// The CPU kernels.
SDK_LIBRARY_IMPL(muladd_ops, CPU, m) {
  m.impl("mymuladd", &mymuladd_cpu);
  m.impl("mymul", &mymul_cpu);
  m.impl("myadd_out", &myadd_out_cpu);
}

}  // namespace muladd_ops

// An empty module named _C, so that `import muladd_ops._C` loads this library (and runs its
// registrations) when it is built as a Python package; it uses only the limited API, so one
// wheel serves every Python 3.9+.
PyMODINIT_FUNC PyInit__C(void) {
  static struct PyModuleDef module_def = {PyModuleDef_HEAD_INIT, "_C", nullptr, -1, nullptr};
  return PyModule_Create(&module_def);
}
