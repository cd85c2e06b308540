// CPU ops that read torch's global settings (at::globalContext) and include the headers
// extensions include by habit (logging checks, the tensor serialization header).
#include <ATen/Context.h>
#include <c10/util/Logging.h>
#include <torch/extension.h>
#include <torch/serialize/tensor.h>

#include <tuple>

// Running sum down the rows of a 2-D float64 tensor; rows are summed pairwise (a different
// rounding) unless deterministic algorithms were asked for.
torch::Tensor row_cumsum(const torch::Tensor& x) {
  TORCH_CHECK_EQ(x.dim(), 2);
  TORCH_CHECK(x.scalar_type() == at::kDouble, "row_cumsum: expected float64");
  const bool deterministic = at::globalContext().deterministicAlgorithms();
  if (deterministic) {
    at::globalContext().alertNotDeterministic("row_cumsum");
  }
  torch::Tensor src = x.contiguous();
  torch::Tensor out = torch::empty_like(src);
  const int64_t rows = src.size(0), cols = src.size(1);
  const double* s = src.data_ptr<double>();
  double* o = out.data_ptr<double>();
  for (int64_t j = 0; j < cols; ++j) {
    double acc = 0;
    for (int64_t i = 0; i < rows; ++i) {
      acc += s[i * cols + j];
      o[i * cols + j] = acc;
    }
  }
  return out;
}

// The settings as an extension sees them: deterministic algorithms, warn-only, TF32 in
// cuBLAS, and whether CUDA is there (CUDA initialised first when it is).
std::tuple<bool, bool, bool, bool> settings() {
  auto& ctx = at::globalContext();
  const bool cuda = ctx.hasCUDA();
  if (cuda) ctx.lazyInitCUDA();
  return std::make_tuple(ctx.deterministicAlgorithms(), ctx.deterministicAlgorithmsWarnOnly(),
                         ctx.allowTF32CuBLAS(), cuda);
}

// The inter-op thread count, set from C++ when n > 0 (torch allows one set per process,
// before any inter-op work), then read.
int interop_threads(int n) {
  if (n > 0) at::set_num_interop_threads(n);
  return at::get_num_interop_threads();
}

// ATen/Config.h's build switches and the size guards, as extensions test them: the MKL and
// parallel-backend values, whether the feature-only switches are defined, and the guards.
std::tuple<int, int, int, bool, bool, bool, bool> switches(int64_t n) {
#ifdef TORCH_USE_CUDA_DSA
  const bool dsa = true;
#else
  const bool dsa = false;
#endif
#ifdef AT_PER_OPERATOR_HEADERS
  const bool per_op = true;
#else
  const bool per_op = false;
#endif
  return std::make_tuple(AT_MKL_SEQUENTIAL(), AT_PARALLEL_OPENMP, AT_PARALLEL_NATIVE, dsa, per_op,
                         TORCH_GUARD_OR_FALSE(n > 2), TORCH_GUARD_OR_TRUE(n < 0));
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.def("switches", &switches);
  m.def("interop_threads", &interop_threads);
  m.def("row_cumsum", &row_cumsum);
  m.def("settings", &settings);
}
