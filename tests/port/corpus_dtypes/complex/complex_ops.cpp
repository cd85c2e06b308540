// CPU ops on complex tensors in the idiom extensions use: c10::complex<T> through data_ptr and
// accessors, dispatches over the complex types, ScalarType checks and the dtype helpers.
#include <ATen/Dispatch.h>
#include <ATen/Dispatch_v2.h>
#include <c10/util/complex.h>
#include <torch/extension.h>

#include <cmath>

// acc += a * b, element by element, for floating and complex tensors of one dtype (a
// multiply-accumulate: the inner step of a complex filter or matrix product).
torch::Tensor mac_(torch::Tensor acc, const torch::Tensor& a, const torch::Tensor& b) {
  TORCH_CHECK(a.scalar_type() == acc.scalar_type() && b.scalar_type() == acc.scalar_type(),
              "mac_: the three tensors must have one dtype");
  TORCH_CHECK(acc.is_contiguous() && a.is_contiguous() && b.is_contiguous(),
              "mac_: expected contiguous tensors");
  TORCH_CHECK(a.numel() == acc.numel() && b.numel() == acc.numel(), "mac_: sizes differ");
  AT_DISPATCH_FLOATING_AND_COMPLEX_TYPES(acc.scalar_type(), "mac_", [&] {
    scalar_t* o = acc.data_ptr<scalar_t>();
    const scalar_t* x = a.data_ptr<scalar_t>();
    const scalar_t* y = b.data_ptr<scalar_t>();
    for (int64_t i = 0; i < acc.numel(); ++i) o[i] += x[i] * y[i];
  });
  return acc;
}

// The sum of |z|^2 over a 2-d complex64 tensor of any strides, read through an accessor.
double energy(const torch::Tensor& z) {
  TORCH_CHECK(z.scalar_type() == at::kComplexFloat && z.dim() == 2,
              "energy: expected a 2-d complex64 tensor, got ", z.scalar_type());
  auto acc = z.accessor<c10::complex<float>, 2>();
  double e = 0.0;
  for (int64_t i = 0; i < acc.size(0); ++i)
    for (int64_t j = 0; j < acc.size(1); ++j) e += std::norm(acc[i][j]);
  return e;
}

// Each element as (|z|, arg z) in a tensor of the parts' dtype with a last dim of 2.
torch::Tensor to_polar(const torch::Tensor& z) {
  TORCH_CHECK(at::isComplexType(z.scalar_type()), "to_polar: expected a complex tensor, got ",
              z.scalar_type());
  torch::Tensor c = z.contiguous();
  torch::Tensor out =
      torch::empty({c.numel(), 2}, c.options().dtype(c10::toRealValueType(c.scalar_type())));
  AT_DISPATCH_V2(c.scalar_type(), "to_polar", AT_WRAP([&] {
                   using real_t = typename scalar_t::value_type;
                   const scalar_t* p = c.data_ptr<scalar_t>();
                   real_t* o = out.data_ptr<real_t>();
                   for (int64_t i = 0; i < c.numel(); ++i) {
                     o[2 * i] = std::abs(p[i]);
                     o[2 * i + 1] = std::arg(p[i]);
                   }
                 }),
                 AT_EXPAND(AT_COMPLEX_TYPES));
  return out;
}

// x turned by `theta` radians (x * e^(i theta)); a real x is made complex of its width first.
torch::Tensor rotate(const torch::Tensor& x, double theta) {
  torch::Tensor z = at::isComplexType(x.scalar_type())
                        ? x.contiguous()
                        : x.to(c10::toComplexType(x.scalar_type())).contiguous();
  torch::Tensor out = torch::empty_like(z);
  AT_DISPATCH_COMPLEX_TYPES(z.scalar_type(), "rotate", [&] {
    using real_t = typename scalar_t::value_type;
    const scalar_t turn = c10::polar(real_t(1), static_cast<real_t>(theta));
    const scalar_t* p = z.data_ptr<scalar_t>();
    scalar_t* o = out.data_ptr<scalar_t>();
    for (int64_t i = 0; i < z.numel(); ++i) o[i] = p[i] * turn;
  });
  return out;
}

// 2 * x for every dtype but bool and the 16-bit floats, complex included.
torch::Tensor twice(const torch::Tensor& x) {
  torch::Tensor c = x.contiguous();
  torch::Tensor out = torch::empty_like(c);
  AT_DISPATCH_ALL_TYPES_AND_COMPLEX(c.scalar_type(), "twice", [&] {
    const scalar_t* p = c.data_ptr<scalar_t>();
    scalar_t* o = out.data_ptr<scalar_t>();
    for (int64_t i = 0; i < c.numel(); ++i) o[i] = p[i] + p[i];
  });
  return out;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.def("mac_", &mac_);
  m.def("energy", &energy);
  m.def("to_polar", &to_polar);
  m.def("rotate", &rotate);
  m.def("twice", &twice);
}
