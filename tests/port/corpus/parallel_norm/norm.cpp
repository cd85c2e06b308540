// Sum of squares with at::parallel_reduce, accumulated in at::acc_type; c10::irange loops.
#include <ATen/AccumulateType.h>
#include <ATen/Parallel.h>
#include <c10/util/irange.h>
#include <torch/extension.h>

#include <cmath>

double l2_norm(const at::Tensor& x) {
  auto input = x.contiguous();
  return AT_DISPATCH_FLOATING_TYPES_AND_HALF(input.scalar_type(), "l2_norm", [&] {
    using acc_t = at::acc_type<scalar_t, /*is_cuda=*/false>;
    const scalar_t* data = input.data_ptr<scalar_t>();
    acc_t total = at::parallel_reduce(
        0, input.numel(), 2048, acc_t(0),
        [&](int64_t begin, int64_t end, acc_t partial) {
          for (const auto i : c10::irange(begin, end)) {
            const acc_t v = static_cast<acc_t>(data[i]);
            partial += v * v;
          }
          return partial;
        },
        [](acc_t a, acc_t b) { return a + b; });
    return static_cast<double>(std::sqrt(total));
  });
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def("l2_norm", &l2_norm); }
