// An op library in the idiom of TorchScript-era extensions: torch/script.h as the only
// include (it brings ATen, the autograd Function and op registration), an autograd Function
// with its own backward, and TORCH_LIBRARY's m.def of a plain function (schema inferred), or
// m.def of a schema and m.impl of the function in the same block.
#include <torch/script.h>

using Context = torch::autograd::AutogradContext;
using Tensor = torch::Tensor;
using tensor_list = torch::autograd::tensor_list;

// y = w @ x + b over a batch of column vectors x (..., n, 1), with w (..., m, n), b (..., m, 1).
class AffineFunction : public torch::autograd::Function<AffineFunction> {
 public:
  static Tensor forward(Context* ctx, const Tensor& x, const Tensor& w, const Tensor& b) {
    ctx->save_for_backward({x, w});
    return torch::matmul(w, x) + b;
  }
  static tensor_list backward(Context* ctx, const tensor_list& grads) {
    const auto saved = ctx->get_saved_variables();
    const Tensor& x = saved[0];
    const Tensor& w = saved[1];
    const Tensor& g = grads[0];
    return {torch::matmul(w.transpose(-1, -2), g), torch::matmul(g, x.transpose(-1, -2)), g};
  }
};

static Tensor affine(const Tensor& x, const Tensor& w, const Tensor& b) {
  return AffineFunction::apply(x, w, b);
}

TORCH_LIBRARY(script_affine, m) {
  m.def("affine", affine);
  // the same op defined by schema, its kernel given to impl() in the same block (catch-all)
  m.def("affine_impl(Tensor x, Tensor w, Tensor b) -> Tensor");
  m.impl("affine_impl", affine);
}
