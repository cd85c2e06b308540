// A pybind11 class that keeps running moments across calls: a constructor and methods with
// keyword arguments and defaults, an optional tensor result (None before the first update),
// and list and tuple results.
#include <torch/extension.h>

#include <tuple>
#include <vector>

class RunningMoments {
 public:
  RunningMoments(int64_t features, double momentum) : features_(features), momentum_(momentum) {
    TORCH_CHECK(momentum > 0 && momentum <= 1, "RunningMoments: momentum must be in (0, 1], got ",
                momentum);
  }

  void update(const torch::Tensor& batch) {
    TORCH_CHECK(batch.dim() == 2 && batch.size(1) == features_, "update: expected [N, ", features_,
                "], got ", batch.sizes());
    auto mean = batch.mean(0);
    auto sq_mean = (batch * batch).mean(0);
    if (!mean_.has_value()) {
      mean_ = mean;
      sq_mean_ = sq_mean;
    } else {
      mean_ = *mean_ * (1 - momentum_) + mean * momentum_;
      sq_mean_ = *sq_mean_ * (1 - momentum_) + sq_mean * momentum_;
    }
    ++count_;
  }

  c10::optional<torch::Tensor> mean() const { return mean_; }

  c10::optional<torch::Tensor> variance() const {
    if (!mean_.has_value()) return c10::nullopt;
    return *sq_mean_ - *mean_ * *mean_;
  }

  int64_t count() const { return count_; }

  // (x - mean) / sqrt(var + eps), with the mean and variance used.
  std::tuple<torch::Tensor, torch::Tensor, torch::Tensor> normalize(const torch::Tensor& x,
                                                                    double eps) const {
    TORCH_CHECK(mean_.has_value(), "normalize: no batch seen yet");
    auto var = variance().value();
    return std::make_tuple((x - *mean_) / (var + eps).sqrt(), *mean_, var);
  }

 private:
  int64_t features_;
  double momentum_;
  int64_t count_ = 0;
  c10::optional<torch::Tensor> mean_;
  c10::optional<torch::Tensor> sq_mean_;
};

// Splits the last dim into `heads` equal parts.
std::vector<torch::Tensor> split_heads(const torch::Tensor& x, int64_t heads) {
  TORCH_CHECK(heads > 0 && x.size(-1) % heads == 0, "split_heads: ", x.size(-1),
              " features do not split into ", heads, " heads");
  return x.chunk(heads, -1);
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  py::class_<RunningMoments>(m, "RunningMoments")
      .def(py::init<int64_t, double>(), py::arg("features"), py::arg("momentum") = 0.1)
      .def("update", &RunningMoments::update, py::arg("batch"))
      .def("normalize", &RunningMoments::normalize, py::arg("x"), py::arg("eps") = 1e-5)
      .def_property_readonly("mean", &RunningMoments::mean)
      .def_property_readonly("variance", &RunningMoments::variance)
      .def_property_readonly("count", &RunningMoments::count);
  m.def("split_heads", &split_heads, py::arg("x"), py::kw_only(), py::arg("heads"));
}
