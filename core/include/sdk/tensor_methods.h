// sdk/tensor_methods.h: the bodies of sdk::Tensor's op methods, each forwarding to the free
// function.
#ifndef SDK_TENSOR_METHODS_H_
#define SDK_TENSOR_METHODS_H_

#include <algorithm>

#include "sdk/elementwise.h"
#include "sdk/math.h"
#include "sdk/op_table.h"
#include "sdk/ops.h"

namespace sdk {
namespace detail {

// One element of any dtype converted to T (item<T>()).
template <typename T>
inline T load_as(const void* p, ScalarType t) {
  switch (t) {
    case ScalarType::Bool:
      return static_cast<T>(*static_cast<const bool*>(p));
    case ScalarType::Byte:
      return static_cast<T>(*static_cast<const uint8_t*>(p));
    case ScalarType::Char:
      return static_cast<T>(*static_cast<const int8_t*>(p));
    case ScalarType::Short:
      return static_cast<T>(*static_cast<const int16_t*>(p));
    case ScalarType::Int:
      return static_cast<T>(*static_cast<const int32_t*>(p));
    case ScalarType::Long:
      return static_cast<T>(*static_cast<const int64_t*>(p));
    case ScalarType::Half:
      return static_cast<T>(static_cast<float>(*static_cast<const Half*>(p)));
    case ScalarType::BFloat16:
      return static_cast<T>(static_cast<float>(*static_cast<const BFloat16*>(p)));
    case ScalarType::Float:
      return static_cast<T>(*static_cast<const float*>(p));
    case ScalarType::Double:
      return static_cast<T>(*static_cast<const double*>(p));
    default:
      throw_error(SDK_ERROR_TYPE, "item(): unknown dtype");
  }
}

inline const void* item_ptr(const Tensor& t) {
  if (t.numel() != 1) {
    throw_error(SDK_ERROR_VALUE,
                concat("item(): a Tensor with ", t.numel(),
                       " elements cannot be converted to a scalar (size ", t.sizes(), ")"));
  }
  if (!t.is_cpu()) {
    throw_error(SDK_ERROR_NOT_IMPLEMENTED, concat("item(): tensor is on ", t.device(),
                                                  "; only CPU tensors are readable from C++"));
  }
  return t.data_ptr();
}

}  // namespace detail

template <typename T>
inline T Tensor::item() const {
  return detail::load_as<T>(detail::item_ptr(*this), scalar_type());
}
inline Scalar Tensor::item() const {
  ScalarType t = scalar_type();
  const void* p = detail::item_ptr(*this);
  if (isFloatingType(t)) return Scalar(detail::load_as<double>(p, t));
  if (t == kBool) return Scalar(detail::load_as<bool>(p, t));
  return Scalar(detail::load_as<int64_t>(p, t));
}

inline void Tensor::check_writable(const char* what) const {
  if (SDK_UNLIKELY(sdk_tensor_is_read_only(checked()) != 0)) {
    detail::throw_error(SDK_ERROR_RUNTIME,
                        detail::concat(what,
                                       "(): the tensor is read-only memory; clone() it "
                                       "first, or use const_data_ptr() to read"));
  }
}

// ---- storage ---------------------------------------------------------------------------

inline Storage Tensor::storage() const {
  sdk_storage* s = nullptr;
  detail::check_status(sdk_tensor_storage(checked(), &s), "storage");
  return Storage::steal(s);
}
inline bool Tensor::is_alias_of(const Tensor& other) const {
  if (!defined() || !other.defined()) return false;
  return is_same(other) || storage().is_alias_of(other.storage());
}
inline const Tensor& Tensor::set_(const Storage& source, int64_t storage_offset, IntArrayRef size,
                                  IntArrayRef stride) const {
  if (SDK_UNLIKELY(!source.defined())) {
    detail::throw_error(SDK_ERROR_VALUE, "set_(): the source Storage is undefined");
  }
  if (SDK_UNLIKELY(!stride.empty() && stride.size() != size.size())) {
    detail::throw_error(SDK_ERROR_VALUE, detail::concat("set_(): ", size.size(), " sizes but ",
                                                        stride.size(), " strides"));
  }
  detail::check_status(sdk_tensor_set_storage_(checked(), source.get(), storage_offset,
                                               static_cast<int64_t>(size.size()), size.data(),
                                               stride.empty() ? nullptr : stride.data()),
                       "set_");
  return *this;
}
inline const Tensor& Tensor::set_(const Storage& source) const {
  const int64_t n = static_cast<int64_t>(source.nbytes()) / element_size();  // torch's: floor
  return set_(source, 0, IntArrayRef(&n, 1));
}
inline const Tensor& Tensor::set_(const Tensor& source) const {
  detail::check_status(sdk_tensor_set_tensor_(checked(), source.get()), "set_");
  return *this;
}
inline const Tensor& Tensor::set_() const { return set_(empty({0}, options())); }

[[noreturn]] SDK_NOINLINE inline void Tensor::throw_bad_dtype(ScalarType expected,
                                                              ScalarType actual, const char* what) {
  detail::throw_error(SDK_ERROR_TYPE, detail::concat(what, "<T>(): expected scalar type ", expected,
                                                     " but found ", actual));
}

inline void Tensor::check_accessor(ScalarType expected, size_t n, const char* what, bool index32,
                                   bool cpu_only) const {
  check_dtype(expected, what);
  int64_t nd = dim();
  if (static_cast<size_t>(nd) != n) {
    detail::throw_error(SDK_ERROR_VALUE,
                        detail::concat(what, "<T, ", n, ">(): expected a ", n,
                                       "-d tensor, but got a ", nd, "-d tensor of size ", sizes()));
  }
  if (cpu_only && !is_cpu()) {
    detail::throw_error(SDK_ERROR_VALUE, detail::concat("accessor(): tensor is on ", device(),
                                                        "; use packed_accessor32/64 in kernels"));
  }
  if (index32) {
    const int64_t limit = INT32_MAX;
    IntArrayRef sz = sizes(), st = strides();
    bool fits = numel() <= limit;
    for (size_t i = 0; i < n; ++i) fits = fits && sz[i] <= limit && st[i] <= limit;
    if (!fits) {
      detail::throw_error(SDK_ERROR_VALUE,
                          detail::concat("packed_accessor32: tensor of size ", sz, " and strides ",
                                         st, " needs 64-bit indexing (use packed_accessor64)"));
    }
  }
}

// ---- creation-like -------------------------------------------------------------------
inline Tensor Tensor::clone(MemoryFormat memory_format) const {
  return sdk::clone(*this, memory_format);
}
inline Tensor Tensor::contiguous(MemoryFormat memory_format) const {
  if (memory_format == MemoryFormat::Contiguous) {
    if (is_contiguous()) return *this;  // no C call beyond the flag: the common case
    return sdk::contiguous(*this);
  }
  SDK_CHECK_VALUE(memory_format != MemoryFormat::Preserve,
                  "contiguous: preserve memory format is unsupported by the contiguous operator");
  if (is_contiguous(memory_format)) return *this;
  return sdk::clone(*this, memory_format);
}
inline Tensor Tensor::to(ScalarType dtype, bool /*non_blocking*/, bool copy) const {
  SDK_DETAIL_RETURN("to", sdk_to_dtype(get(), to_c(dtype), copy ? 1 : 0, &r_));
}
inline Tensor Tensor::to(Device device, ScalarType dtype, bool non_blocking, bool copy) const {
  return to(TensorOptions().device(device).dtype(dtype), non_blocking, copy);
}
inline MaybeOwned<Tensor> Tensor::expect_contiguous(MemoryFormat memory_format) const& {
  if (is_contiguous(memory_format)) return MaybeOwned<Tensor>::borrowed(*this);
  return MaybeOwned<Tensor>::owned(contiguous(memory_format));
}
inline Tensor Tensor::to(const TensorOptions& options, bool non_blocking, bool copy) const {
  const ScalarType dtype = options.has_dtype() ? options.scalar_type() : scalar_type();
  if (options.has_device() && options.device() != device()) {
    // sdk_to_device returns the tensor itself when it is already there ("cuda" = cuda:0)
    sdk_tensor* moved = nullptr;
    detail::check_status(sdk_to_device(get(), options.device().to_c(), &moved), "to");
    Tensor t = Tensor::steal(moved);
    return t.to(dtype, non_blocking, copy && t.get() == get());
  }
  return to(dtype, non_blocking, copy);
}
inline Tensor Tensor::type_as(const Tensor& other) const { return to(other.scalar_type()); }
inline Tensor Tensor::cpu() const { return to(TensorOptions(kCPU)); }
inline const Tensor& Tensor::fill_(const Scalar& value) const {
  return detail::finish_inplace(*this, sdk_fill_(get(), value.raw()), "fill_");
}
inline const Tensor& Tensor::zero_() const { return fill_(0); }
inline const Tensor& Tensor::copy_(const Tensor& src, bool /*non_blocking*/) const {
  return detail::finish_inplace(*this, sdk_copy_(get(), src.get()), "copy_");
}
inline const Tensor& Tensor::uniform_(double from, double to) const {
  return detail::finish_inplace(*this, sdk_uniform_(get(), from, to, nullptr), "uniform_");
}
inline const Tensor& Tensor::normal_(double mean, double std) const {
  return detail::finish_inplace(*this, sdk_normal_(get(), mean, std, nullptr), "normal_");
}
inline const Tensor& Tensor::random_(int64_t from, int64_t to) const {
  return detail::finish_inplace(*this, sdk_randint_(get(), from, to, nullptr), "random_");
}

// ---- views ---------------------------------------------------------------------------
inline Tensor Tensor::view(IntArrayRef sizes) const { return sdk::view(*this, sizes); }
inline Tensor Tensor::view(ScalarType dtype) const { return sdk::view(*this, dtype); }
inline Tensor Tensor::view_as(const Tensor& o) const { return sdk::view(*this, o.sizes()); }
inline Tensor Tensor::reshape(IntArrayRef sizes) const { return sdk::reshape(*this, sizes); }
inline Tensor Tensor::reshape_as(const Tensor& o) const { return sdk::reshape(*this, o.sizes()); }
inline Tensor Tensor::as_strided(IntArrayRef sizes, IntArrayRef strides,
                                 std::optional<int64_t> offset) const {
  return sdk::as_strided(*this, sizes, strides, offset);
}
inline Tensor Tensor::permute(IntArrayRef dims) const { return sdk::permute(*this, dims); }
inline Tensor Tensor::transpose(int64_t d0, int64_t d1) const {
  return sdk::transpose(*this, d0, d1);
}
inline Tensor Tensor::t() const { return sdk::t(*this); }
inline Tensor Tensor::slice(int64_t dim, int64_t start, int64_t end, int64_t step) const {
  return sdk::slice(*this, dim, start, end, step);
}
inline Tensor Tensor::narrow(int64_t dim, int64_t start, int64_t length) const {
  return sdk::narrow(*this, dim, start, length);
}
inline Tensor Tensor::select(int64_t dim, int64_t index) const {
  return sdk::select(*this, dim, index);
}
inline Tensor Tensor::operator[](int64_t index) const { return sdk::select(*this, 0, index); }
inline std::vector<Tensor> Tensor::chunk(int64_t chunks, int64_t dim) const {
  return sdk::chunk(*this, chunks, dim);
}
inline std::vector<Tensor> Tensor::split(int64_t split_size, int64_t dim) const {
  return sdk::split(*this, split_size, dim);
}
inline std::vector<Tensor> Tensor::split(IntArrayRef split_sizes, int64_t dim) const {
  return sdk::split_with_sizes(*this, split_sizes, dim);
}
inline std::vector<Tensor> Tensor::split_with_sizes(IntArrayRef split_sizes, int64_t dim) const {
  return sdk::split_with_sizes(*this, split_sizes, dim);
}
inline std::vector<Tensor> Tensor::unbind(int64_t dim) const { return sdk::unbind(*this, dim); }
inline Tensor Tensor::unsqueeze(int64_t dim) const { return sdk::unsqueeze(*this, dim); }
inline Tensor Tensor::squeeze() const { return sdk::squeeze(*this); }
inline Tensor Tensor::squeeze(int64_t dim) const { return sdk::squeeze(*this, dim); }
inline Tensor Tensor::squeeze(IntArrayRef dims) const { return sdk::squeeze(*this, dims); }
inline Tensor Tensor::expand(IntArrayRef sizes, bool /*implicit*/) const {
  return sdk::expand(*this, sizes);
}
inline Tensor Tensor::expand_as(const Tensor& o) const { return sdk::expand(*this, o.sizes()); }
inline Tensor Tensor::flatten(int64_t start_dim, int64_t end_dim) const {
  return sdk::flatten(*this, start_dim, end_dim);
}

// ---- elementwise ---------------------------------------------------------------------
#define SDK_DETAIL_METHOD_UNARY(NAME, name, code) \
  inline Tensor Tensor::name() const { return sdk::name(*this); }
SDK_UNARY_OPS(SDK_DETAIL_METHOD_UNARY)
#undef SDK_DETAIL_METHOD_UNARY
#define SDK_DETAIL_METHOD_BINARY(NAME, name, code)                                  \
  inline Tensor Tensor::name(const Tensor& o) const { return sdk::name(*this, o); } \
  inline Tensor Tensor::name(const Scalar& o) const { return sdk::name(*this, o); }
SDK_BINARY_OPS(SDK_DETAIL_METHOD_BINARY)
#undef SDK_DETAIL_METHOD_BINARY
// In-place methods, for the ops whose result is not bool (the facts tables' last column).
#define SDK_DETAIL_METHOD_UNARY_(NAME, name, differentiable, inplace, bool_result) \
  SDK_DETAIL_IF_INPLACE(                                                           \
      inplace, bool_result,                                                        \
      inline const Tensor& Tensor::name##_() const { return sdk::name##_(*this); })
SDK_UNARY_OP_FACTS(SDK_DETAIL_METHOD_UNARY_)
#undef SDK_DETAIL_METHOD_UNARY_
#define SDK_DETAIL_METHOD_BINARY_(NAME, name, differentiable, inplace, bool_result)              \
  SDK_DETAIL_IF_INPLACE(                                                                         \
      inplace, bool_result, inline const Tensor& Tensor::name##_(const Tensor& o) const {        \
        return detail::finish_inplace(                                                           \
            *this, sdk_binary(SDK_##NAME, get(), o.get(), get(), nullptr), #name "_");           \
      })                                                                                         \
  SDK_DETAIL_IF_INPLACE(                                                                         \
      inplace, bool_result, inline const Tensor& Tensor::name##_(const Scalar& o) const {        \
        return detail::finish_inplace(                                                           \
            *this, sdk_binary_scalar(SDK_##NAME, get(), o.raw(), 0, get(), nullptr), #name "_"); \
      })
SDK_BINARY_OP_FACTS(SDK_DETAIL_METHOD_BINARY_)
#undef SDK_DETAIL_METHOD_BINARY_

inline Tensor Tensor::add(const Tensor& o, const Scalar& alpha) const {
  return sdk::add(*this, o, alpha);
}
inline Tensor Tensor::add(const Scalar& o, const Scalar& alpha) const {
  return sdk::add(*this, o, alpha);
}
inline const Tensor& Tensor::add_(const Tensor& o, const Scalar& alpha) const {
  return detail::finish_inplace(*this, sdk_add_scaled(get(), o.get(), alpha.raw(), get(), nullptr),
                                "add_");
}
inline const Tensor& Tensor::add_(const Scalar& o, const Scalar& alpha) const {
  return detail::finish_inplace(
      *this,
      sdk_binary_scalar(SDK_ADD, get(), detail::scalar_mul(o, alpha).raw(), 0, get(), nullptr),
      "add_");
}
inline Tensor Tensor::sub(const Tensor& o, const Scalar& alpha) const {
  return sdk::sub(*this, o, alpha);
}
inline Tensor Tensor::sub(const Scalar& o, const Scalar& alpha) const {
  return sdk::sub(*this, o, alpha);
}
inline const Tensor& Tensor::sub_(const Tensor& o, const Scalar& alpha) const {
  Scalar neg = alpha.isFloatingPoint() ? Scalar(-alpha.toDouble()) : Scalar(-alpha.toLong());
  return detail::finish_inplace(*this, sdk_add_scaled(get(), o.get(), neg.raw(), get(), nullptr),
                                "sub_");
}
inline const Tensor& Tensor::sub_(const Scalar& o, const Scalar& alpha) const {
  return detail::finish_inplace(
      *this,
      sdk_binary_scalar(SDK_SUB, get(), detail::scalar_mul(o, alpha).raw(), 0, get(), nullptr),
      "sub_");
}
inline Tensor Tensor::elu(const Scalar& alpha) const { return sdk::elu(*this, alpha); }
inline const Tensor& Tensor::elu_(const Scalar& alpha) const {
  return detail::finish_inplace(*this, sdk_elu(get(), alpha.toDouble(), get(), nullptr), "elu_");
}
inline Tensor Tensor::clamp(const std::optional<Scalar>& min,
                            const std::optional<Scalar>& max) const {
  return sdk::clamp(*this, min, max);
}
inline const Tensor& Tensor::clamp_(const std::optional<Scalar>& min,
                                    const std::optional<Scalar>& max) const {
  return detail::finish_inplace(
      *this, sdk_clamp(get(), detail::opt_scalar(min), detail::opt_scalar(max), get(), nullptr),
      "clamp_");
}
inline Tensor Tensor::clamp_min(const Scalar& min) const { return sdk::clamp_min(*this, min); }
inline Tensor Tensor::clamp_max(const Scalar& max) const { return sdk::clamp_max(*this, max); }
inline Tensor Tensor::movedim(int64_t source, int64_t destination) const {
  const int64_t n = dim();
  const int64_t src = source < 0 ? source + n : source;
  const int64_t dst = destination < 0 ? destination + n : destination;
  if (src < 0 || src >= n || dst < 0 || dst >= n) {
    detail::throw_error(SDK_ERROR_INDEX, detail::concat("movedim: dims ", source, ", ", destination,
                                                        " out of range for a ", n, "-d tensor"));
  }
  std::vector<int64_t> order;
  for (int64_t d = 0; d < n; ++d) {
    if (d != src) order.push_back(d);
  }
  order.insert(order.begin() + dst, src);
  return permute(order);
}
inline Tensor Tensor::where(const Tensor& condition, const Tensor& other) const {
  return sdk::where(condition, *this, other);
}
inline Tensor Tensor::masked_fill(const Tensor& mask, const Scalar& value) const {
  return sdk::masked_fill(*this, mask, value);
}
inline const Tensor& Tensor::masked_fill_(const Tensor& mask, const Scalar& value) const {
  return detail::finish_inplace(
      *this, sdk_masked_fill(get(), mask.get(), value.raw(), get(), nullptr), "masked_fill_");
}

// ---- elementwise beyond the op tables (sdk/elementwise.h) and new_* -------------------
inline Tensor Tensor::new_empty(IntArrayRef size, const TensorOptions& options) const {
  return sdk::empty(size, options.merged_with(this->options()));
}
inline Tensor Tensor::new_zeros(IntArrayRef size, const TensorOptions& options) const {
  return sdk::zeros(size, options.merged_with(this->options()));
}
inline Tensor Tensor::new_ones(IntArrayRef size, const TensorOptions& options) const {
  return sdk::ones(size, options.merged_with(this->options()));
}
inline Tensor Tensor::new_full(IntArrayRef size, const Scalar& fill_value,
                               const TensorOptions& options) const {
  return sdk::full(size, fill_value, options.merged_with(this->options()));
}
inline Tensor Tensor::div(const Tensor& o, std::optional<std::string_view> mode) const {
  return sdk::div(*this, o, mode);
}
inline Tensor Tensor::div(const Scalar& o, std::optional<std::string_view> mode) const {
  return sdk::div(*this, o, mode);
}
inline const Tensor& Tensor::div_(const Tensor& o, std::optional<std::string_view> mode) const {
  return detail::finish_inplace(
      *this, sdk_div_rounding(get(), o.get(), detail::rounding_mode_code(mode), get(), nullptr),
      "div_");
}
inline const Tensor& Tensor::div_(const Scalar& o, std::optional<std::string_view> mode) const {
  return detail::finish_inplace(
      *this,
      sdk_div_rounding_scalar(get(), o.raw(), 0, detail::rounding_mode_code(mode), get(), nullptr),
      "div_");
}
inline Tensor Tensor::nan_to_num(std::optional<double> nan, std::optional<double> posinf,
                                 std::optional<double> neginf) const {
  return sdk::nan_to_num(*this, nan, posinf, neginf);
}
inline const Tensor& Tensor::nan_to_num_(std::optional<double> nan, std::optional<double> posinf,
                                         std::optional<double> neginf) const {
  return detail::finish_inplace(
      *this,
      sdk_nan_to_num(get(), detail::opt_float(nan), detail::opt_float(posinf),
                     detail::opt_float(neginf), get(), nullptr),
      "nan_to_num_");
}
inline Tensor Tensor::lerp(const Tensor& end, const Scalar& weight) const {
  return sdk::lerp(*this, end, weight);
}
inline Tensor Tensor::lerp(const Tensor& end, const Tensor& weight) const {
  return sdk::lerp(*this, end, weight);
}
inline const Tensor& Tensor::lerp_(const Tensor& end, const Scalar& weight) const {
  return detail::finish_inplace(
      *this, sdk_lerp_scalar(get(), end.get(), weight.raw(), get(), nullptr), "lerp_");
}
inline const Tensor& Tensor::lerp_(const Tensor& end, const Tensor& weight) const {
  return detail::finish_inplace(*this, sdk_lerp(get(), end.get(), weight.get(), get(), nullptr),
                                "lerp_");
}
inline Tensor Tensor::addcmul(const Tensor& t1, const Tensor& t2, const Scalar& value) const {
  return sdk::addcmul(*this, t1, t2, value);
}
inline const Tensor& Tensor::addcmul_(const Tensor& t1, const Tensor& t2,
                                      const Scalar& value) const {
  return detail::finish_inplace(
      *this, sdk_addcmul(get(), t1.get(), t2.get(), value.raw(), get(), nullptr), "addcmul_");
}
inline Tensor Tensor::addcdiv(const Tensor& t1, const Tensor& t2, const Scalar& value) const {
  return sdk::addcdiv(*this, t1, t2, value);
}
inline const Tensor& Tensor::addcdiv_(const Tensor& t1, const Tensor& t2,
                                      const Scalar& value) const {
  return detail::finish_inplace(
      *this, sdk_addcdiv(get(), t1.get(), t2.get(), value.raw(), get(), nullptr), "addcdiv_");
}
inline Tensor Tensor::clamp(const std::optional<Tensor>& min,
                            const std::optional<Tensor>& max) const {
  return sdk::clamp(*this, min, max);
}
inline const Tensor& Tensor::clamp_(const std::optional<Tensor>& min,
                                    const std::optional<Tensor>& max) const {
  const bool lo = min && min->defined(), hi = max && max->defined();
  return detail::finish_inplace(
      *this,
      sdk_clamp_tensor(get(), lo ? min->get() : nullptr, hi ? max->get() : nullptr, get(), nullptr),
      "clamp_");
}
inline Tensor Tensor::clamp_min(const Tensor& min) const { return sdk::clamp_min(*this, min); }
inline Tensor Tensor::clamp_max(const Tensor& max) const { return sdk::clamp_max(*this, max); }
// The bounds go straight to the C ABI: an empty std::optional<Scalar> built here trips gcc's
// -Wmaybe-uninitialized at -O1 with the sanitizers (a false positive; users build -Werror).
inline const Tensor& Tensor::clamp_min_(const Scalar& min) const {
  return detail::finish_inplace(
      *this, sdk_clamp(get(), min.raw(), Scalar::none().raw(), get(), nullptr), "clamp_min_");
}
inline const Tensor& Tensor::clamp_max_(const Scalar& max) const {
  return detail::finish_inplace(
      *this, sdk_clamp(get(), Scalar::none().raw(), max.raw(), get(), nullptr), "clamp_max_");
}
inline const Tensor& Tensor::clamp_min_(const Tensor& min) const {
  return clamp_(min, std::optional<Tensor>());
}
inline const Tensor& Tensor::clamp_max_(const Tensor& max) const {
  return clamp_(std::optional<Tensor>(), max);
}
inline Tensor Tensor::isclose(const Tensor& other, double rtol, double atol, bool equal_nan) const {
  return sdk::isclose(*this, other, rtol, atol, equal_nan);
}
inline bool Tensor::allclose(const Tensor& other, double rtol, double atol, bool equal_nan) const {
  return sdk::allclose(*this, other, rtol, atol, equal_nan);
}

// ---- reductions ----------------------------------------------------------------------
inline Tensor Tensor::sum(std::optional<ScalarType> dtype) const { return sdk::sum(*this, dtype); }
inline Tensor Tensor::sum(IntArrayRef dim, bool keepdim, std::optional<ScalarType> dtype) const {
  return sdk::sum(*this, dim, keepdim, dtype);
}
inline Tensor Tensor::mean(std::optional<ScalarType> dtype) const {
  return sdk::mean(*this, dtype);
}
inline Tensor Tensor::mean(IntArrayRef dim, bool keepdim, std::optional<ScalarType> dtype) const {
  return sdk::mean(*this, dim, keepdim, dtype);
}
inline Tensor Tensor::prod(std::optional<ScalarType> dtype) const {
  return sdk::prod(*this, dtype);
}
inline Tensor Tensor::prod(IntArrayRef dim, bool keepdim, std::optional<ScalarType> dtype) const {
  return sdk::prod(*this, dim, keepdim, dtype);
}
inline Tensor Tensor::amax(IntArrayRef dim, bool keepdim) const {
  return sdk::amax(*this, dim, keepdim);
}
inline Tensor Tensor::amin(IntArrayRef dim, bool keepdim) const {
  return sdk::amin(*this, dim, keepdim);
}
inline Tensor Tensor::max() const { return sdk::amax(*this); }
inline std::tuple<Tensor, Tensor> Tensor::max(int64_t dim, bool keepdim) const {
  return sdk::max(*this, dim, keepdim);
}
inline Tensor Tensor::min() const { return sdk::amin(*this); }
inline std::tuple<Tensor, Tensor> Tensor::min(int64_t dim, bool keepdim) const {
  return sdk::min(*this, dim, keepdim);
}
inline Tensor Tensor::argmax(std::optional<int64_t> dim, bool keepdim) const {
  return sdk::argmax(*this, dim, keepdim);
}
inline Tensor Tensor::argmin(std::optional<int64_t> dim, bool keepdim) const {
  return sdk::argmin(*this, dim, keepdim);
}
inline Tensor Tensor::all() const { return sdk::all(*this); }
inline Tensor Tensor::all(int64_t dim, bool keepdim) const { return sdk::all(*this, dim, keepdim); }
inline Tensor Tensor::any() const { return sdk::any(*this); }
inline Tensor Tensor::any(int64_t dim, bool keepdim) const { return sdk::any(*this, dim, keepdim); }
inline Tensor Tensor::var(bool unbiased) const { return sdk::var(*this, unbiased); }
inline Tensor Tensor::var(IntArrayRef dim, bool unbiased, bool keepdim) const {
  return sdk::var(*this, dim, unbiased, keepdim);
}
inline Tensor Tensor::std(bool unbiased) const { return sdk::std(*this, unbiased); }
inline Tensor Tensor::std(IntArrayRef dim, bool unbiased, bool keepdim) const {
  return sdk::std(*this, dim, unbiased, keepdim);
}
inline Tensor Tensor::softmax(int64_t dim, std::optional<ScalarType> dtype) const {
  return sdk::softmax(*this, dim, dtype);
}
inline Tensor Tensor::log_softmax(int64_t dim, std::optional<ScalarType> dtype) const {
  return sdk::log_softmax(*this, dim, dtype);
}

// ---- linear algebra ------------------------------------------------------------------
inline Tensor Tensor::mm(const Tensor& o) const { return sdk::mm(*this, o); }
inline Tensor Tensor::bmm(const Tensor& o) const { return sdk::bmm(*this, o); }
inline Tensor Tensor::matmul(const Tensor& o) const { return sdk::matmul(*this, o); }
inline Tensor Tensor::mv(const Tensor& v) const { return sdk::mv(*this, v); }
inline Tensor Tensor::dot(const Tensor& o) const { return sdk::dot(*this, o); }
inline Tensor Tensor::addmm(const Tensor& m1, const Tensor& m2, const Scalar& beta,
                            const Scalar& alpha) const {
  return sdk::addmm(*this, m1, m2, beta, alpha);
}
inline const Tensor& Tensor::addmm_(const Tensor& m1, const Tensor& m2, const Scalar& beta,
                                    const Scalar& alpha) const {
  return detail::finish_inplace(
      *this, sdk_addmm(get(), m1.get(), m2.get(), beta.raw(), alpha.raw(), get(), nullptr),
      "addmm_");
}

// ---- indexing ------------------------------------------------------------------------
inline Tensor Tensor::index_select(int64_t dim, const Tensor& index) const {
  return sdk::index_select(*this, dim, index);
}
inline Tensor Tensor::gather(int64_t dim, const Tensor& index) const {
  return sdk::gather(*this, dim, index);
}
inline Tensor Tensor::index(TensorList indices) const { return sdk::index(*this, indices); }
inline const Tensor& Tensor::index_put_(TensorList indices, const Tensor& values,
                                        bool accumulate) const {
  return detail::finish_inplace(
      *this,
      sdk_index_put_(get(), static_cast<int64_t>(indices.size()), detail::handles(indices),
                     values.get(), accumulate ? 1 : 0),
      "index_put_");
}
inline Tensor Tensor::nonzero() const { return sdk::nonzero(*this); }
inline Tensor Tensor::norm(const Scalar& p) const { return sdk::norm(*this, p); }
inline Tensor Tensor::norm(const std::optional<Scalar>& p, IntArrayRef dim, bool keepdim) const {
  return sdk::norm(*this, p, dim, keepdim);
}
inline Tensor Tensor::logsumexp(IntArrayRef dim, bool keepdim) const {
  return sdk::logsumexp(*this, dim, keepdim);
}
inline Tensor Tensor::outer(const Tensor& vec2) const { return sdk::outer(*this, vec2); }
inline Tensor Tensor::ger(const Tensor& vec2) const { return sdk::outer(*this, vec2); }
inline Tensor Tensor::baddbmm(const Tensor& batch1, const Tensor& batch2, const Scalar& beta,
                              const Scalar& alpha) const {
  return sdk::baddbmm(*this, batch1, batch2, beta, alpha);
}
inline Tensor Tensor::repeat(IntArrayRef repeats) const {
  const int64_t nr = static_cast<int64_t>(repeats.size()), nd = dim();
  SDK_CHECK_VALUE(nr >= nd, "repeat: the number of repeats (", nr,
                  ") can not be smaller than the number of dimensions of the tensor (", nd, ")");
  // View as (1, s0, 1, s1, ...) with leading 1s, expand to (r0, s0, r1, s1, ...), flatten pairs.
  std::vector<int64_t> shape, expanded, out;
  for (int64_t i = 0; i < nr; ++i) {
    SDK_CHECK_VALUE(repeats[i] >= 0, "repeat: negative repeat ", repeats[i]);
    const int64_t s = i < nr - nd ? 1 : size(i - (nr - nd));
    shape.insert(shape.end(), {1, s});
    expanded.insert(expanded.end(), {repeats[i], s});
    out.push_back(repeats[i] * s);
  }
  return reshape(shape).expand(expanded).contiguous().view(out);
}

inline bool Tensor::equal(const Tensor& other) const {
  return sizes() == other.sizes() && eq(other).all().item<bool>();
}
inline bool Tensor::is_non_overlapping_and_dense() const {
  std::vector<int64_t> order(static_cast<size_t>(dim()));
  for (int64_t d = 0; d < dim(); ++d) order[static_cast<size_t>(d)] = d;
  std::sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
    return stride(a) < stride(b) || (stride(a) == stride(b) && size(a) < size(b));
  });
  int64_t expected = 1;
  for (int64_t d : order) {
    if (size(d) == 1) continue;
    if (stride(d) != expected) return false;
    expected *= size(d);
  }
  return true;
}

}  // namespace sdk

// Sorting, scans, scatter/index and reordering: free functions and their method bodies, a
// header per op family (sdk/ops_struct.h includes the four).
#include "sdk/layout.h"
#include "sdk/scan.h"
#include "sdk/scatter.h"
#include "sdk/sort.h"
// Creation, random, counting and searching ops; linear algebra (and their method bodies).
#include "sdk/linalg.h"
#include "sdk/ops_data.h"
// diff and the bitwise shifts.
#include "sdk/ops_bits.h"

#endif  // SDK_TENSOR_METHODS_H_
