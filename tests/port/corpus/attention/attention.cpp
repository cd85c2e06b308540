// The reference path of a custom attention kernel: scores by baddbmm with an additive bias and
// a boolean mask, the row logsumexp kept for the backward pass, multi-head scores by einsum,
// cosine scores from row norms, and a rank-one update with outer.
#include <torch/extension.h>

#include <cmath>
#include <limits>
#include <vector>

// q: [B, Lq, D]; k, v: [B, Lk, D]; bias: [B, Lq, Lk]; mask: bool [B, Lq, Lk], true = hidden.
// Returns the output [B, Lq, D] and the logsumexp of each score row [B, Lq].
std::vector<torch::Tensor> masked_attention(const torch::Tensor& q, const torch::Tensor& k,
                                            const torch::Tensor& v, const torch::Tensor& bias,
                                            const torch::Tensor& mask) {
  TORCH_CHECK(q.dim() == 3 && k.dim() == 3 && v.dim() == 3,
              "masked_attention: expected 3-d q, k and v");
  TORCH_CHECK(mask.scalar_type() == at::kBool, "masked_attention: mask must be bool");
  const double scale = 1.0 / std::sqrt(static_cast<double>(q.size(-1)));
  auto scores = at::baddbmm(bias, q, k.transpose(1, 2), /*beta=*/1.0, /*alpha=*/scale);
  scores = scores.masked_fill(mask, -std::numeric_limits<double>::infinity());
  auto lse = at::logsumexp(scores, {-1}, /*keepdim=*/true);
  auto probs = (scores - lse).exp();
  return {at::bmm(probs, v), lse.squeeze(-1)};
}

// q: [B, H, Lq, D], k: [B, H, Lk, D] -> [B, H, Lq, Lk]
torch::Tensor multihead_scores(const torch::Tensor& q, const torch::Tensor& k) {
  const double scale = 1.0 / std::sqrt(static_cast<double>(q.size(-1)));
  return torch::einsum("bhqd,bhkd->bhqk", {q, k}) * scale;
}

torch::Tensor cosine_scores(const torch::Tensor& a, const torch::Tensor& b, double eps) {
  auto a_unit = a / a.norm(2, {-1}, /*keepdim=*/true).clamp_min(eps);
  auto b_unit = b / b.norm(2, {-1}, /*keepdim=*/true).clamp_min(eps);
  return at::matmul(a_unit, b_unit.transpose(-2, -1));
}

torch::Tensor rank_one_update(const torch::Tensor& m, const torch::Tensor& u,
                              const torch::Tensor& v, double alpha) {
  return m + alpha * at::outer(u, v);
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.def("masked_attention", &masked_attention);
  m.def("multihead_scores", &multihead_scores);
  m.def("cosine_scores", &cosine_scores, py::arg("a"), py::arg("b"), py::arg("eps") = 1e-8);
  m.def("rank_one_update", &rank_one_update, py::arg("m"), py::arg("u"), py::arg("v"),
        py::arg("alpha") = 1.0);
}
