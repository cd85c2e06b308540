"""An SDK op library whose shape functions are C++ Meta kernels only (no Python fake), written
as torch extensions write theirs, built once with cpp_extension.load_inline."""

from __future__ import annotations

NS = "interop_meta"

SOURCE = r"""
#include <sdk/library.h>

#include <tuple>

using sdk::Tensor;

static void check_rowdot(const Tensor& x, const Tensor& w) {
  SDK_CHECK(x.dim() == 2 && w.dim() == 1, "rowdot: expected x 2-d and w 1-d, got ", x.dim(),
            "-d and ", w.dim(), "-d");
  SDK_CHECK(x.size(1) == w.size(0), "rowdot: x has ", x.size(1), " columns but w has ",
            w.size(0), " entries");
  SDK_CHECK(x.dtype() == sdk::kFloat && w.dtype() == sdk::kFloat, "rowdot: float32 only");
}

// out[i] = sum_j x[i, j] * w[j], a loop over the data as a CPU kernel writes it
Tensor rowdot_cpu(const Tensor& x, const Tensor& w) {
  check_rowdot(x, w);
  Tensor xc = x.contiguous(), wc = w.contiguous();
  Tensor out = sdk::empty({x.size(0)}, x.options());
  const float* px = xc.data_ptr<float>();
  const float* pw = wc.data_ptr<float>();
  float* po = out.data_ptr<float>();
  for (int64_t i = 0; i < x.size(0); ++i) {
    float acc = 0;
    for (int64_t j = 0; j < x.size(1); ++j) acc += px[i * x.size(1) + j] * pw[j];
    po[i] = acc;
  }
  return out;
}

// The same checks, and the result's shape only: sdk::empty with no device is a meta tensor
// while a Meta kernel runs.
Tensor rowdot_meta(const Tensor& x, const Tensor& w) {
  check_rowdot(x, w);
  return sdk::empty({x.size(0)}, sdk::dtype(sdk::kFloat));
}

// x + 1 and x's elements flattened as int64: two results, a view and a dtype change
std::tuple<Tensor, Tensor> plus_flat_cpu(const Tensor& x) {
  return {x + 1, x.reshape({-1}).to(sdk::kLong)};
}
std::tuple<Tensor, Tensor> plus_flat_meta(const Tensor& x) {
  SDK_CHECK(x.is_meta(), "plus_flat's Meta kernel sees meta tensors");
  return {sdk::empty_like(x), sdk::empty_like(x.reshape({-1}), x.options().dtype(sdk::kLong))};
}

// A Meta kernel that reads data: it must fail with a clear error, not write anywhere.
Tensor touches_data_cpu(const Tensor& x) { return x * 2; }
Tensor touches_data_meta(const Tensor& x) {
  Tensor out = sdk::empty_like(x);
  out.data_ptr<float>()[0] = 1.0f;
  return out;
}

// A Meta kernel that disagrees with its CPU kernel (for opcheck).
Tensor wrong_cpu(const Tensor& x) { return x * 2; }
Tensor wrong_meta(const Tensor& x) { return sdk::empty({x.numel() + 1}, x.options()); }

SDK_LIBRARY(interop_meta, m) {
  m.def("rowdot(Tensor x, Tensor w) -> Tensor");
  m.def("plus_flat(Tensor x) -> (Tensor, Tensor)");
  m.def("touches_data(Tensor x) -> Tensor");
  m.def("wrong(Tensor x) -> Tensor");
}
SDK_LIBRARY_IMPL(interop_meta, CPU, m) {
  m.impl("rowdot", &rowdot_cpu);
  m.impl("plus_flat", &plus_flat_cpu);
  m.impl("touches_data", &touches_data_cpu);
  m.impl("wrong", &wrong_cpu);
}
SDK_LIBRARY_IMPL(interop_meta, Meta, m) {
  m.impl("rowdot", &rowdot_meta);
  m.impl("plus_flat", &plus_flat_meta);
  m.impl("touches_data", &touches_data_meta);
  m.impl("wrong", &wrong_meta);
}
"""

_built = False


def build() -> None:
    """Build (or load from the JIT cache) and register the library once per process."""
    from cpp_extension import load_inline

    global _built
    if not _built:
        load_inline("interop_meta_ops", SOURCE, is_python_module=False)
        _built = True
