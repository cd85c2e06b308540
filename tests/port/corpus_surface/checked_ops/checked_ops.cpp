// Argument checks in ATen/TensorUtils.h's style, out= variants into preallocated tensors, a
// device guard, flattened parameter buffers, and standard containers that torch/extension.h
// brings in without their own includes.
#include <ATen/DeviceGuard.h>
#include <ATen/TensorUtils.h>
#include <torch/csrc/utils/tensor_flatten.h>
#include <torch/extension.h>

namespace {

std::mutex g_lock;
std::unordered_map<std::string, int64_t> g_calls;

void count_call(const std::string& name) {
  std::lock_guard<std::mutex> guard(g_lock);
  ++g_calls[name];
}

}  // namespace

// y = x @ w + b with the checks a fused linear kernel makes before touching data pointers.
at::Tensor checked_linear(const at::Tensor& x, const at::Tensor& w, const at::Tensor& b) {
  count_call("checked_linear");
  at::TensorArg x_arg{x, "x", 1}, w_arg{w, "w", 2}, b_arg{b, "b", 3};
  at::CheckedFrom c = "checked_linear";
  at::checkDim(c, x_arg, 2);
  at::checkDim(c, w_arg, 2);
  at::checkSize(c, b_arg, {w.size(1)});
  at::checkAllSameType(c, {x_arg, w_arg, b_arg});
  at::checkContiguous(c, w_arg);
  const at::OptionalDeviceGuard guard(device_of(x));
  return at::addmm(b, x, w);
}

// The k largest of each row, written into tensors the caller allocated.
std::vector<at::Tensor> row_topk(const at::Tensor& x, int64_t k) {
  count_call("row_topk");
  at::Tensor values = at::empty({0}, x.options());
  at::Tensor indices = at::empty({0}, x.options().dtype(at::kLong));
  at::topk_out(values, indices, x, k, /*dim=*/1);
  at::Tensor best = at::empty({x.size(0)}, x.options());
  at::Tensor where = at::empty({x.size(0)}, indices.options());
  at::max_out(best, where, x, 1);
  return {values, indices, best, where};
}

// One flat buffer for a list of tensors, scaled, and split back into their shapes.
std::vector<at::Tensor> scale_flat(std::vector<at::Tensor> tensors, double factor) {
  count_call("scale_flat");
  at::Tensor flat = torch::utils::flatten_dense_tensors(tensors);
  flat.mul_(factor);
  return torch::utils::unflatten_dense_tensors(flat, tensors);
}

int64_t calls(const std::string& name) {
  std::lock_guard<std::mutex> guard(g_lock);
  auto it = g_calls.find(name);
  return it == g_calls.end() ? 0 : it->second;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.def("checked_linear", &checked_linear);
  m.def("row_topk", &row_topk);
  m.def("scale_flat", &scale_flat);
  m.def("calls", &calls);
}
