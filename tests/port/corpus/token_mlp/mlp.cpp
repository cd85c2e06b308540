// A transformer feed-forward block over token ids: embedding lookup, layer norm, two
// projections with nn.Linear's [out, in] weights (addmm), GELU, dropout and the residual.
#include <torch/extension.h>

torch::Tensor feed_forward(const torch::Tensor& ids, const torch::Tensor& table,
                           const torch::Tensor& ln_weight, const torch::Tensor& ln_bias,
                           const torch::Tensor& w1, const torch::Tensor& b1,
                           const torch::Tensor& w2, const torch::Tensor& b2, double p, bool train) {
  TORCH_CHECK(ids.scalar_type() == at::kLong, "feed_forward: ids must be int64");
  TORCH_CHECK(w1.size(1) == table.size(1) && w2.size(0) == table.size(1),
              "feed_forward: projections do not fit the embedding width ", table.size(1));
  const int64_t dim = table.size(1);
  auto x = at::embedding(table, ids);  // ids.sizes() + [dim]
  auto h = at::layer_norm(x, {dim}, ln_weight, ln_bias, /*eps=*/1e-5);
  auto hidden = at::gelu(at::addmm(b1, h.reshape({-1, dim}), w1.t()));
  hidden = at::dropout(hidden, p, train);
  auto out = at::addmm(b2, hidden, w2.t());
  return x + out.view(x.sizes());
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.def("feed_forward", &feed_forward, py::arg("ids"), py::arg("table"), py::arg("ln_weight"),
        py::arg("ln_bias"), py::arg("w1"), py::arg("b1"), py::arg("w2"), py::arg("b2"),
        py::arg("p") = 0.1, py::arg("train") = false);
}
