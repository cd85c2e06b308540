"""One SDK op library for the interop tests, built once with cpp_extension.load (against the
SDK's C ABI only: no framework's headers), with its shape functions and derivatives."""

from __future__ import annotations

import sdk
import sdk.library

NS = "interop_ops"

SOURCE = r"""
#include <sdk/library.h>

using sdk::Tensor;

// a * b + c, for any floating dtype (written with the SDK's tensor ops)
Tensor muladd(const Tensor& a, const Tensor& b, double c) { return a * b + c; }
Tensor mul(const Tensor& a, const Tensor& b) { return a * b; }
// self += other, in place: the schema marks self written and returned
Tensor add_(const Tensor& self, const Tensor& other) {
  self.add_(other);
  return self;
}
// out = a + b, written into out
void add_out(const Tensor& a, const Tensor& b, Tensor& out) { out.copy_(a + b); }
// rows' sums and maxima: two results
std::tuple<Tensor, Tensor> sum_max(const Tensor& x) {
  return {x.sum(1), std::get<0>(x.max(1))};
}

SDK_LIBRARY(interop_ops, m) {
  m.def("muladd(Tensor a, Tensor b, float c) -> Tensor");
  m.def("mul(Tensor a, Tensor b) -> Tensor");
  m.def("add_(Tensor(a!) self, Tensor other) -> Tensor(a!)");
  m.def("add_out(Tensor a, Tensor b, Tensor(a!) out) -> ()");
  m.def("sum_max(Tensor x) -> (Tensor, Tensor)");
}
SDK_LIBRARY_IMPL(interop_ops, CPU, m) {
  m.impl("muladd", &muladd);
  m.impl("mul", &mul);
  m.impl("add_", &add_);
  m.impl("add_out", &add_out);
  m.impl("sum_max", &sum_max);
}
"""


def _setup_context(ctx, inputs, output):
    a, b, *_ = inputs
    ctx.save_for_backward(a, b)


def _muladd_backward(ctx, grad):
    a, b = ctx.saved_tensors
    # sdk.ops calls with the caller's tensors: torch's go to torch.ops once registered
    return sdk.ops.interop_ops.mul(grad, b), sdk.ops.interop_ops.mul(grad, a), None


def _mul_backward(ctx, grad):
    return _muladd_backward(ctx, grad)[:2]


def build() -> str:
    """Build the library (or load it from the JIT cache) and register it, its shape functions
    and derivatives, once per process; returns the path of the built binary."""
    from cpp_extension import load_inline

    global _binary
    if _binary is not None:
        return _binary
    _binary = load_inline("interop_ops", SOURCE, is_python_module=False)
    L = sdk.library
    L.register_fake(f"{NS}::muladd", lambda a, b, c: sdk.empty_like(a))
    L.register_fake(f"{NS}::mul", lambda a, b: sdk.empty_like(a))
    L.register_fake(f"{NS}::add_", lambda self, other: self)
    L.register_fake(f"{NS}::sum_max", lambda x: (x.new_empty(x.shape[0]), x.new_empty(x.shape[0])))
    L.register_autograd(f"{NS}::muladd", _muladd_backward, setup_context=_setup_context)
    L.register_autograd(f"{NS}::mul", _mul_backward, setup_context=_setup_context)
    return _binary


_binary = None
