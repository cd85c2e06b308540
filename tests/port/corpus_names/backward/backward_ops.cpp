// Gradients computed inside an extension with Tensor::backward(): through a C++ autograd
// Function, and from a graph the caller built in Python. The GIL is released around backward,
// as torch's engine requires of C++ callers.
#include <torch/extension.h>

struct Square : public torch::autograd::Function<Square> {
  static torch::Tensor forward(torch::autograd::AutogradContext* ctx, torch::Tensor x) {
    ctx->save_for_backward({x});
    return x * x;
  }
  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grads) {
    const torch::Tensor x = ctx->get_saved_variables()[0];
    return {2 * x * grads[0]};
  }
};

// d(sum(w * x^2))/dx, computed in C++: a fresh leaf, Square, then backward with w.
torch::Tensor grad_of_square(const torch::Tensor& x, const torch::Tensor& w) {
  torch::Tensor leaf = x.detach().clone();
  leaf.requires_grad_(true);
  torch::Tensor y = Square::apply(leaf);
  pybind11::gil_scoped_release no_gil;
  y.backward(w);
  return leaf.grad();
}

// The same leaf through two backward passes: the gradients accumulate; the first pass keeps
// the graph so that the second can run.
torch::Tensor accumulated(const torch::Tensor& x) {
  torch::Tensor leaf = x.detach().clone();
  leaf.requires_grad_(true);
  torch::Tensor y = Square::apply(leaf);
  pybind11::gil_scoped_release no_gil;
  y.backward(torch::ones_like(y), /*retain_graph=*/true);
  y.backward(torch::ones_like(y));
  return leaf.grad();
}

// backward() on a tensor whose graph the caller built (in Python).
void backward_from(const torch::Tensor& y, const torch::Tensor& grad) {
  pybind11::gil_scoped_release no_gil;
  y.backward(grad);
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.def("grad_of_square", &grad_of_square);
  m.def("accumulated", &accumulated);
  m.def("backward_from", &backward_from);
}
