// sdk/tensor.h: the header-only C++ tensor API over the C ABI (what ATen is to torch extensions).
//
// Porting a torch extension: include <sdk/tensor.h> (or <sdk/extension.h> for pybind11
// modules), then torch:: / at:: -> sdk::, TORCH_CHECK -> SDK_CHECK, AT_DISPATCH_* ->
// SDK_DISPATCH_*. Everything here is inline and calls only functions of sdk/c_api.h, so an
// extension binary depends on the stable C ABI alone. Errors throw sdk::Error.
#ifndef SDK_TENSOR_H_
#define SDK_TENSOR_H_

#include <cstdio>
#include <iosfwd>
#include <string>

#include "sdk/accessor.h"
#include "sdk/array_ref.h"
#include "sdk/c_api.h"
#include "sdk/composite.h"
#include "sdk/composite_math.h"
#include "sdk/device.h"
#include "sdk/dispatch.h"
#include "sdk/dtype.h"
#include "sdk/elementwise.h"
#include "sdk/error.h"
#include "sdk/half.h"
#include "sdk/indexing.h"
#include "sdk/layers.h"
#include "sdk/linalg.h"
#include "sdk/math.h"
#include "sdk/numeric_limits.h"
#include "sdk/ops.h"
#include "sdk/ops_bits.h"
#include "sdk/ops_data.h"
#include "sdk/ops_out.h"  // name_out variants outside the op tables
#include "sdk/options.h"
#include "sdk/parallel.h"
#include "sdk/sampling.h"
#include "sdk/scalar.h"
#include "sdk/tensor_base.h"
#include "sdk/tensor_methods.h"

namespace sdk {

/*! \brief torch's at::TensorBase (a Tensor without the ops) is sdk::Tensor itself: code
 *  written against TensorBase (data_ptr, sizes, options) compiles unchanged. */
using TensorBase = Tensor;

namespace detail {

// Appends the elements of a CPU tensor, nested like Python's repr, eliding long dims.
inline void append_values(std::string& s, const Tensor& t, const char* base, int64_t dim) {
  IntArrayRef sizes = t.sizes(), strides = t.strides();
  const int64_t n = sizes[dim], edge = 3;
  const int64_t step = strides[dim] * t.element_size();
  s += '[';
  for (int64_t i = 0; i < n; ++i) {
    if (n > 2 * edge && i == edge) {
      s += "..., ";
      i = n - edge;
    }
    if (i && s.back() != ' ') s += ", ";
    const char* p = base + i * step;
    if (dim + 1 < t.dim()) {
      append_values(s, t, p, dim + 1);
    } else if (t.is_floating_point()) {
      str_append(s, load_as<double>(p, t.scalar_type()));
    } else if (t.scalar_type() == kBool) {
      s += load_as<bool>(p, kBool) ? "True" : "False";
    } else {
      str_append(s, load_as<int64_t>(p, t.scalar_type()));
    }
  }
  s += ']';
}

}  // namespace detail

/*! \brief "tensor([[1, 2], [3, 4]], dtype=int64)": values of CPU tensors (long dims
 *  elided), else sizes, dtype and device. "undefined" for an undefined tensor. */
inline std::string to_string(const Tensor& t) {
  if (!t.defined()) return "tensor(undefined)";
  std::string s = "tensor(";
  if (t.is_cpu() && t.numel() > 0) {
    const char* base = static_cast<const char*>(t.data_ptr());
    if (t.dim() == 0) {
      Tensor flat = t.reshape({1});
      std::string inner;
      detail::append_values(inner, flat, static_cast<const char*>(flat.data_ptr()), 0);
      s += inner.substr(1, inner.size() - 2);
    } else {
      detail::append_values(s, t, base, 0);
    }
  } else {
    str_append(s, "size=");
    str_append(s, t.sizes());
  }
  str_append(s, detail::concat(", dtype=", t.scalar_type()));
  if (!t.is_cpu()) str_append(s, detail::concat(", device=", t.device()));
  s += ')';
  return s;
}

inline void Tensor::print() const { std::printf("%s\n", to_string(*this).c_str()); }

/*! \brief Messages name a tensor by its shape and dtype: "Tensor[2, 3] float32". */
inline void str_append(std::string& s, const Tensor& t) {
  if (!t.defined()) {
    s += "Tensor(undefined)";
    return;
  }
  s += "Tensor";
  str_append(s, t.sizes());
  s += ' ';
  s += toString(t.scalar_type());
}

// std::cout << x, as with torch (x's to_string form; sizes as "[2, 3]", dtypes and devices
// by name). Templates on the stream, so only code that prints needs <ostream>.
#define SDK_DETAIL_OSTREAM(T)                                                          \
  template <typename CharT, typename Traits>                                           \
  std::basic_ostream<CharT, Traits>& operator<<(std::basic_ostream<CharT, Traits>& os, \
                                                const T& v) {                          \
    std::string s;                                                                     \
    str_append(s, v);                                                                  \
    return os << s.c_str();                                                            \
  }
SDK_DETAIL_OSTREAM(IntArrayRef)
SDK_DETAIL_OSTREAM(ScalarType)
SDK_DETAIL_OSTREAM(TypeMeta)
SDK_DETAIL_OSTREAM(Device)
SDK_DETAIL_OSTREAM(Scalar)
#undef SDK_DETAIL_OSTREAM

template <typename CharT, typename Traits>
std::basic_ostream<CharT, Traits>& operator<<(std::basic_ostream<CharT, Traits>& os,
                                              const Tensor& t) {
  return os << to_string(t).c_str();
}

}  // namespace sdk

#endif  // SDK_TENSOR_H_
