// sdk/ops.h: free functions over the C ABI: creation, views, joining and indexing (elementwise etc.
// in math.h).
#ifndef SDK_OPS_H_
#define SDK_OPS_H_

#include <cstdint>
#include <new>
#include <optional>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "sdk/tensor_base.h"

// Every op: a fresh result handle, the status checked (throwing the core's error, which
// names the op and its arguments), then ownership moved into a Tensor.
#define SDK_DETAIL_RETURN(op, call)        \
  sdk_tensor* r_ = nullptr;                \
  ::sdk::detail::check_status((call), op); \
  return ::sdk::Tensor::steal(r_)
// A creation function's result: a leaf requiring grad when `options` ask for it.
#define SDK_DETAIL_RETURN_CREATED(op, options, call) \
  sdk_tensor* r_ = nullptr;                          \
  ::sdk::detail::check_status((call), op);           \
  return ::sdk::detail::created(::sdk::Tensor::steal(r_), options)

namespace sdk {
namespace detail {

inline int64_t len(IntArrayRef a) { return static_cast<int64_t>(a.size()); }
inline const sdk_tensor* const* handles(TensorList list) {
  // Tensor is exactly one sdk_tensor* (static_assert in tensor_base.h).
  return reinterpret_cast<const sdk_tensor* const*>(list.data());
}
inline sdk_dtype opt_dtype(std::optional<ScalarType> d) { return d ? to_c(*d) : sdk_dtype(-1); }

// (values, indices) of a two-result call.
inline std::tuple<Tensor, Tensor> pair_of(sdk_tensor* values, sdk_tensor* indices) {
  return std::tuple<Tensor, Tensor>(Tensor::steal(values), Tensor::steal(indices));
}

// out= semantics: a defined `out` receives the result; an undefined one is bound to a
// freshly allocated result (so `Tensor out; sdk::mm_out(out, a, b);` also works).
inline Tensor& finish_out(Tensor& out, sdk_tensor* result) {
  if (out.defined()) {
    sdk_tensor_release(result);
  } else {
    out = Tensor::steal(result);
  }
  return out;
}

// The ABI's in-place form: out == input and no result reference.
inline const Tensor& finish_inplace(const Tensor& self, sdk_status status, const char* op) {
  check_status(status, op);
  return self;
}

inline Tensor created(Tensor t, const TensorOptions& options) {
  if (options.requires_grad()) t.set_requires_grad(true);
  return t;
}

// Non-owning from_blob passes this rather than NULL: the memory is never the core's to free.
inline void keep_memory(void*, void*) {}

template <typename D>
void call_deleter(void* data, void* ctx) {
  D* d = static_cast<D*>(ctx);
  (*d)(data);
  delete d;
}

}  // namespace detail

// ====================================================================================
// Creation
// ====================================================================================

inline Tensor empty_strided(IntArrayRef size, IntArrayRef stride,
                            const TensorOptions& options = {});

/*! \brief Uninitialised tensor, contiguous or in the options' channels-last format. */
inline Tensor empty(IntArrayRef size, const TensorOptions& options = {}) {
  if (options.has_memory_format() && detail::is_channels_last(options.memory_format())) {
    return empty_strided(size, detail::channels_last_strides(size, options.memory_format()),
                         options);
  }
  SDK_DETAIL_RETURN_CREATED("empty", options,
                            sdk_empty(detail::len(size), size.data(), to_c(options.scalar_type()),
                                      options.device().to_c(), &r_));
}
/*! \brief Uninitialised tensor with explicit strides. */
inline Tensor empty_strided(IntArrayRef size, IntArrayRef stride, const TensorOptions& options) {
  if (size.size() != stride.size()) {
    detail::throw_error(SDK_ERROR_VALUE,
                        detail::concat("empty_strided: sizes ", size, " and strides ", stride,
                                       " differ in length"));
  }
  SDK_DETAIL_RETURN_CREATED(
      "empty_strided", options,
      sdk_empty_strided(detail::len(size), size.data(), stride.data(), to_c(options.scalar_type()),
                        options.device().to_c(), &r_));
}
/*! \brief Tensor filled with `fill_value`; without a dtype, the value's kind picks it
 *  (bool, int64, or float32) as in torch. */
inline Tensor full(IntArrayRef size, const Scalar& fill_value, const TensorOptions& options = {}) {
  ScalarType dtype = options.has_dtype()            ? options.scalar_type()
                     : fill_value.isBoolean()       ? kBool
                     : fill_value.isFloatingPoint() ? kFloat
                                                    : kLong;
  SDK_DETAIL_RETURN_CREATED("full", options,
                            sdk_full(detail::len(size), size.data(), fill_value.raw(), to_c(dtype),
                                     options.device().to_c(), &r_));
}
inline Tensor zeros(IntArrayRef size, const TensorOptions& options = {}) {
  return full(size, 0, options.dtype(options.scalar_type()));
}
/*! \brief torch's *_symint factories (sizes are concrete in the SDK: sdk/symint.h). */
inline Tensor empty_symint(SymIntArrayRef size, const TensorOptions& options = {}) {
  return empty(size, options);
}
inline Tensor zeros_symint(SymIntArrayRef size, const TensorOptions& options = {}) {
  return zeros(size, options);
}
inline Tensor ones(IntArrayRef size, const TensorOptions& options = {}) {
  return full(size, 1, options.dtype(options.scalar_type()));
}
/*! \brief [0, end). Without a dtype: int64 for int arguments, else float32. */
inline Tensor arange(const Scalar& start, const Scalar& end, const Scalar& step,
                     const TensorOptions& options = {}) {
  sdk_dtype dtype = options.has_dtype() ? to_c(options.scalar_type()) : sdk_dtype(-1);
  SDK_DETAIL_RETURN_CREATED(
      "arange", options,
      sdk_arange(start.raw(), end.raw(), step.raw(), dtype, options.device().to_c(), &r_));
}
inline Tensor arange(const Scalar& start, const Scalar& end, const TensorOptions& options = {}) {
  return arange(start, end, 1, options);
}
inline Tensor arange(const Scalar& end, const TensorOptions& options = {}) {
  return arange(0, end, 1, options);
}
inline Tensor linspace(double start, double end, int64_t steps, const TensorOptions& options = {}) {
  SDK_DETAIL_RETURN_CREATED(
      "linspace", options,
      sdk_linspace(start, end, steps, to_c(options.scalar_type()), options.device().to_c(), &r_));
}
inline Tensor eye(int64_t n, int64_t m, const TensorOptions& options = {}) {
  SDK_DETAIL_RETURN_CREATED(
      "eye", options, sdk_eye(n, m, to_c(options.scalar_type()), options.device().to_c(), &r_));
}
inline Tensor eye(int64_t n, const TensorOptions& options = {}) { return eye(n, -1, options); }

/*! \brief Reseed the default generator used by rand/randn/randint. */
inline void manual_seed(uint64_t seed) { sdk_manual_seed(nullptr, seed); }

/*! \brief An owned, seedable random generator (move-only) for reproducible streams that
 *  do not disturb the default generator. */
class Generator {
 public:
  explicit Generator(uint64_t seed) {
    detail::check_status(sdk_generator_create(seed, &gen_), "Generator");
  }
  Generator(Generator&& o) noexcept : gen_(o.gen_) { o.gen_ = nullptr; }
  Generator& operator=(Generator&& o) noexcept {
    std::swap(gen_, o.gen_);
    return *this;
  }
  Generator(const Generator&) = delete;
  Generator& operator=(const Generator&) = delete;
  ~Generator() { sdk_generator_destroy(gen_); }
  void manual_seed(uint64_t seed) { sdk_manual_seed(gen_, seed); }
  sdk_generator* get() const { return gen_; }

 private:
  sdk_generator* gen_ = nullptr;
};

/*! \brief Uniform [0, 1) from `gen`. */
inline Tensor rand(IntArrayRef size, Generator& gen, const TensorOptions& options = {}) {
  Tensor t = empty(size, options);
  detail::check_status(sdk_uniform_(t.get(), 0.0, 1.0, gen.get()), "rand");
  return t;
}
/*! \brief Standard normal from `gen`. */
inline Tensor randn(IntArrayRef size, Generator& gen, const TensorOptions& options = {}) {
  Tensor t = empty(size, options);
  detail::check_status(sdk_normal_(t.get(), 0.0, 1.0, gen.get()), "randn");
  return t;
}
/*! \brief Integers in [low, high) from `gen`; int64 unless a dtype is given. */
inline Tensor randint(int64_t low, int64_t high, IntArrayRef size, Generator& gen,
                      const TensorOptions& options = {}) {
  Tensor t = empty(size, options.has_dtype() ? options : options.dtype(kLong));
  detail::check_status(sdk_randint_(t.get(), low, high, gen.get()), "randint");
  return t;
}

/*! \brief Uniform [0, 1). */
inline Tensor rand(IntArrayRef size, const TensorOptions& options = {}) {
  Tensor t = empty(size, options);
  detail::check_status(sdk_uniform_(t.get(), 0.0, 1.0, nullptr), "rand");
  return t;
}
/*! \brief Standard normal. */
inline Tensor randn(IntArrayRef size, const TensorOptions& options = {}) {
  Tensor t = empty(size, options);
  detail::check_status(sdk_normal_(t.get(), 0.0, 1.0, nullptr), "randn");
  return t;
}
/*! \brief Integers uniform in [low, high); int64 unless a dtype is given. */
inline Tensor randint(int64_t low, int64_t high, IntArrayRef size,
                      const TensorOptions& options = {}) {
  Tensor t = empty(size, options.has_dtype() ? options : options.dtype(kLong));
  detail::check_status(sdk_randint_(t.get(), low, high, nullptr), "randint");
  return t;
}
inline Tensor randint(int64_t high, IntArrayRef size, const TensorOptions& options = {}) {
  return randint(0, high, size, options);
}

// *_like: the source's sizes, dtype and device unless the options say otherwise, laid out
// like the source (MemoryFormat::Preserve, torch's default) or row-major.
inline Tensor empty_like(const Tensor& self, const TensorOptions& options = {},
                         MemoryFormat memory_format = MemoryFormat::Preserve) {
  if (options.has_memory_format()) memory_format = options.memory_format();
  if (detail::is_channels_last(memory_format)) {
    return empty(self.sizes(), options.merged_with(self.options()).memory_format(memory_format));
  }
  if (options.has_device() && options.device() != self.device()) {
    return empty(self.sizes(), options.merged_with(self.options()));
  }
  const sdk_dtype dtype = options.has_dtype() ? to_c(options.scalar_type()) : -1;
  SDK_DETAIL_RETURN_CREATED(
      "empty_like", options,
      sdk_empty_like(self.get(), dtype, static_cast<int32_t>(memory_format), &r_));
}
inline Tensor zeros_like(const Tensor& self, const TensorOptions& options = {},
                         MemoryFormat memory_format = MemoryFormat::Preserve) {
  return empty_like(self, options, memory_format).zero_();
}
inline Tensor ones_like(const Tensor& self, const TensorOptions& options = {},
                        MemoryFormat memory_format = MemoryFormat::Preserve) {
  return empty_like(self, options, memory_format).fill_(1);
}
inline Tensor full_like(const Tensor& self, const Scalar& fill_value,
                        const TensorOptions& options = {},
                        MemoryFormat memory_format = MemoryFormat::Preserve) {
  return empty_like(self, options, memory_format).fill_(fill_value);
}
inline Tensor rand_like(const Tensor& self, const TensorOptions& options = {},
                        MemoryFormat memory_format = MemoryFormat::Preserve) {
  return empty_like(self, options, memory_format).uniform_(0, 1);
}
inline Tensor randn_like(const Tensor& self, const TensorOptions& options = {},
                         MemoryFormat memory_format = MemoryFormat::Preserve) {
  return empty_like(self, options, memory_format).normal_(0, 1);
}
inline Tensor randint_like(const Tensor& self, int64_t low, int64_t high,
                           const TensorOptions& options = {}) {
  return randint(low, high, self.sizes(), options.merged_with(self.options()));
}
inline Tensor randint_like(const Tensor& self, int64_t high, const TensorOptions& options = {}) {
  return randint_like(self, 0, high, options);
}

/*! \brief Wrap external memory without copying; the caller keeps it alive. */
inline Tensor from_blob(void* data, IntArrayRef sizes, IntArrayRef strides,
                        const TensorOptions& options = {}) {
  SDK_DETAIL_RETURN_CREATED("from_blob", options,
                            sdk_from_blob(data, detail::len(sizes), sizes.data(),
                                          strides.size() == sizes.size() ? strides.data() : nullptr,
                                          to_c(options.scalar_type()), options.device().to_c(),
                                          &detail::keep_memory, nullptr, &r_));
}
inline Tensor from_blob(void* data, IntArrayRef sizes, const TensorOptions& options = {}) {
  return from_blob(data, sizes, IntArrayRef(), options);
}
/*! \brief Wrap external memory; `deleter(data)` runs when the last view dies. If wrapping
 *  fails, the deleter is not called and the memory stays the caller's. */
template <typename D, std::enable_if_t<std::is_invocable<D&, void*>::value, int> = 0>
inline Tensor from_blob(void* data, IntArrayRef sizes, IntArrayRef strides, D deleter,
                        const TensorOptions& options = {}) {
  if (!strides.empty() && strides.size() != sizes.size()) {
    detail::throw_error(SDK_ERROR_VALUE, detail::concat("from_blob: sizes ", sizes, " and strides ",
                                                        strides, " differ in length"));
  }
  D* ctx = new D(std::move(deleter));
  sdk_tensor* r = nullptr;
  sdk_status s = sdk_from_blob(
      data, detail::len(sizes), sizes.data(), strides.empty() ? nullptr : strides.data(),
      to_c(options.scalar_type()), options.device().to_c(), &detail::call_deleter<D>, ctx, &r);
  if (s != SDK_OK) {
    delete ctx;
    detail::throw_last_error("from_blob");
  }
  return detail::created(Tensor::steal(r), options);
}
template <typename D, std::enable_if_t<std::is_invocable<D&, void*>::value, int> = 0>
inline Tensor from_blob(void* data, IntArrayRef sizes, D deleter,
                        const TensorOptions& options = {}) {
  return from_blob(data, sizes, IntArrayRef(), std::move(deleter), options);
}

/*! \brief A copy in fresh memory, laid out like self (Preserve) or row-major. */
inline Tensor clone(const Tensor& self, MemoryFormat memory_format = MemoryFormat::Preserve) {
  if (memory_format == MemoryFormat::Contiguous) {
    SDK_DETAIL_RETURN("clone", sdk_clone(self.get(), &r_));
  }
  Tensor r = empty_like(self, {}, memory_format);
  r.copy_(self);
  return r;
}

// ====================================================================================
// Views (share storage with the input)
// ====================================================================================

inline Tensor view(const Tensor& self, IntArrayRef size) {
  SDK_DETAIL_RETURN("view", sdk_view(self.get(), detail::len(size), size.data(), &r_));
}
/*! \brief self's memory read as `dtype`, which must have self's item size (ABI 1.10). */
inline Tensor view(const Tensor& self, ScalarType dtype) {
  SDK_DETAIL_RETURN("view", sdk_view_dtype(self.get(), to_c(dtype), &r_));
}
inline Tensor reshape(const Tensor& self, IntArrayRef shape) {
  SDK_DETAIL_RETURN("reshape", sdk_reshape(self.get(), detail::len(shape), shape.data(), &r_));
}
inline Tensor as_strided(const Tensor& self, IntArrayRef size, IntArrayRef stride,
                         std::optional<int64_t> storage_offset = std::nullopt) {
  if (size.size() != stride.size()) {
    detail::throw_error(SDK_ERROR_VALUE, detail::concat("as_strided: sizes ", size, " and strides ",
                                                        stride, " differ in length"));
  }
  int64_t offset = storage_offset ? *storage_offset : self.storage_offset();
  SDK_DETAIL_RETURN("as_strided", sdk_as_strided(self.get(), detail::len(size), size.data(),
                                                 stride.data(), offset, &r_));
}
inline Tensor permute(const Tensor& self, IntArrayRef dims) {
  if (static_cast<int64_t>(dims.size()) != self.dim()) {
    detail::throw_error(SDK_ERROR_VALUE,
                        detail::concat("permute: dims ", dims, " must list all ", self.dim(),
                                       " dims of a tensor of size ", self.sizes()));
  }
  SDK_DETAIL_RETURN("permute", sdk_permute(self.get(), dims.data(), &r_));
}
inline Tensor transpose(const Tensor& self, int64_t dim0, int64_t dim1) {
  SDK_DETAIL_RETURN("transpose", sdk_transpose(self.get(), dim0, dim1, &r_));
}
inline Tensor t(const Tensor& self) {
  int64_t n = self.dim();
  if (n > 2) {
    detail::throw_error(SDK_ERROR_VALUE,
                        detail::concat("t() expects a tensor with <= 2 dimensions, but got a ", n,
                                       "-d tensor of size ", self.sizes()));
  }
  return n < 2 ? self : transpose(self, 0, 1);
}
inline Tensor slice(const Tensor& self, int64_t dim = 0, int64_t start = 0, int64_t end = INT64_MAX,
                    int64_t step = 1) {
  SDK_DETAIL_RETURN("slice", sdk_slice(self.get(), dim, start, end, step, &r_));
}
inline Tensor narrow(const Tensor& self, int64_t dim, int64_t start, int64_t length) {
  int64_t size = self.size(dim);
  int64_t s = start < 0 ? start + size : start;
  if (s < 0 || length < 0 || s + length > size) {
    detail::throw_error(SDK_ERROR_INDEX,
                        detail::concat("narrow: start ", start, " and length ", length,
                                       " out of range for dim ", dim, " of size ", size));
  }
  return slice(self, dim, s, s + length, 1);
}
inline Tensor select(const Tensor& self, int64_t dim, int64_t index) {
  SDK_DETAIL_RETURN("select", sdk_select(self.get(), dim, index, &r_));
}
/*! \brief A complex tensor's memory as its parts' dtype with a last dim of 2 (real, imaginary):
 *  torch's view_as_real (ABI 1.11). */
inline Tensor view_as_real(const Tensor& self) {
  SDK_DETAIL_RETURN("view_as_real", sdk_view_as_real(self.get(), &r_));
}
/*! \brief A float32/float64 tensor with a last dim of 2 and stride 1 read as complex64/128. */
inline Tensor view_as_complex(const Tensor& self) {
  SDK_DETAIL_RETURN("view_as_complex", sdk_view_as_complex(self.get(), &r_));
}
/*! \brief The real parts of a complex tensor as a view (a real tensor is its own). */
inline Tensor real(const Tensor& self) {
  return isComplexType(self.scalar_type()) ? select(view_as_real(self), -1, 0) : self;
}
/*! \brief The imaginary parts of a complex tensor as a view. */
inline Tensor imag(const Tensor& self) { return select(view_as_real(self), -1, 1); }
inline std::vector<Tensor> split_with_sizes(const Tensor& self, IntArrayRef split_sizes,
                                            int64_t dim = 0) {
  std::vector<Tensor> pieces(split_sizes.size());
  // Tensor and sdk_tensor* share a layout, so the core writes straight into the vector.
  detail::check_status(
      sdk_split_with_sizes(self.get(), detail::len(split_sizes), split_sizes.data(), dim,
                           reinterpret_cast<sdk_tensor**>(pieces.data())),
      "split_with_sizes");
  return pieces;
}
/*! \brief Pieces of `split_size` along dim (the last may be smaller). */
inline std::vector<Tensor> split(const Tensor& self, int64_t split_size, int64_t dim = 0) {
  int64_t size = self.size(dim);
  if (split_size < 0 || (split_size == 0 && size != 0)) {
    detail::throw_error(SDK_ERROR_VALUE, detail::concat("split: split_size must be positive, got ",
                                                        split_size, " for a dim of size ", size));
  }
  int64_t n = split_size == 0 ? 1 : (size + split_size - 1) / split_size;
  if (n == 0) n = 1;
  std::vector<int64_t> sizes(static_cast<size_t>(n), split_size);
  sizes.back() = size - split_size * (n - 1);
  return split_with_sizes(self, sizes, dim);
}
inline std::vector<Tensor> split(const Tensor& self, IntArrayRef split_sizes, int64_t dim = 0) {
  return split_with_sizes(self, split_sizes, dim);
}
/*! \brief `chunks` near-equal pieces along dim (fewer when the dim is short), as torch. */
inline std::vector<Tensor> chunk(const Tensor& self, int64_t chunks, int64_t dim = 0) {
  if (chunks <= 0) {
    detail::throw_error(SDK_ERROR_VALUE,
                        detail::concat("chunk: chunks must be positive, got ", chunks));
  }
  int64_t size = self.size(dim);
  int64_t each = (size + chunks - 1) / chunks;
  if (each == 0) {  // empty dim: `chunks` empty pieces
    std::vector<int64_t> zero(static_cast<size_t>(chunks), 0);
    return split_with_sizes(self, zero, dim);
  }
  return split(self, each, dim);
}
inline std::vector<Tensor> unbind(const Tensor& self, int64_t dim = 0) {
  int64_t n = self.size(dim);
  std::vector<Tensor> out;
  out.reserve(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) out.push_back(select(self, dim, i));
  return out;
}
inline Tensor unsqueeze(const Tensor& self, int64_t dim) {
  SDK_DETAIL_RETURN("unsqueeze", sdk_unsqueeze(self.get(), dim, &r_));
}
inline Tensor squeeze(const Tensor& self) {
  SDK_DETAIL_RETURN("squeeze", sdk_squeeze(self.get(), 0, nullptr, &r_));
}
inline Tensor squeeze(const Tensor& self, IntArrayRef dims) {
  if (dims.empty()) return self;  // torch: an empty dim list squeezes nothing
  SDK_DETAIL_RETURN("squeeze", sdk_squeeze(self.get(), detail::len(dims), dims.data(), &r_));
}
inline Tensor squeeze(const Tensor& self, int64_t dim) { return squeeze(self, IntArrayRef(dim)); }
inline Tensor expand(const Tensor& self, IntArrayRef size) {
  SDK_DETAIL_RETURN("expand", sdk_expand(self.get(), detail::len(size), size.data(), &r_));
}
inline Tensor flatten(const Tensor& self, int64_t start_dim = 0, int64_t end_dim = -1) {
  SDK_DETAIL_RETURN("flatten", sdk_flatten(self.get(), start_dim, end_dim, &r_));
}
/*! \brief The number of elements (torch's at::numel). */
inline int64_t numel(const Tensor& self) { return self.numel(); }
inline Tensor contiguous(const Tensor& self) {
  SDK_DETAIL_RETURN("contiguous", sdk_contiguous(self.get(), &r_));
}

// ====================================================================================
// Joining and indexing
// ====================================================================================

inline Tensor cat(TensorList tensors, int64_t dim = 0) {
  SDK_DETAIL_RETURN("cat", sdk_cat(static_cast<int64_t>(tensors.size()), detail::handles(tensors),
                                   dim, nullptr, &r_));
}
inline Tensor& cat_out(Tensor& out, TensorList tensors, int64_t dim = 0) {
  sdk_tensor* r = nullptr;
  detail::check_status(
      sdk_cat(static_cast<int64_t>(tensors.size()), detail::handles(tensors), dim, out.get(), &r),
      "cat_out");
  return detail::finish_out(out, r);
}
inline Tensor stack(TensorList tensors, int64_t dim = 0) {
  SDK_DETAIL_RETURN("stack", sdk_stack(static_cast<int64_t>(tensors.size()),
                                       detail::handles(tensors), dim, nullptr, &r_));
}
inline Tensor& stack_out(Tensor& out, TensorList tensors, int64_t dim = 0) {
  sdk_tensor* r = nullptr;
  detail::check_status(
      sdk_stack(static_cast<int64_t>(tensors.size()), detail::handles(tensors), dim, out.get(), &r),
      "stack_out");
  return detail::finish_out(out, r);
}
inline Tensor index_select(const Tensor& self, int64_t dim, const Tensor& index) {
  SDK_DETAIL_RETURN("index_select", sdk_index_select(self.get(), dim, index.get(), nullptr, &r_));
}
inline Tensor& index_select_out(Tensor& out, const Tensor& self, int64_t dim, const Tensor& index) {
  sdk_tensor* r = nullptr;
  detail::check_status(sdk_index_select(self.get(), dim, index.get(), out.get(), &r),
                       "index_select_out");
  return detail::finish_out(out, r);
}
inline Tensor gather(const Tensor& self, int64_t dim, const Tensor& index) {
  SDK_DETAIL_RETURN("gather", sdk_gather(self.get(), dim, index.get(), nullptr, &r_));
}
/*! \brief torch's sparse_grad flag: gradients here are dense either way. */
inline Tensor gather(const Tensor& self, int64_t dim, const Tensor& index, bool /*sparse_grad*/) {
  return gather(self, dim, index);
}
inline Tensor& gather_out(Tensor& out, const Tensor& self, int64_t dim, const Tensor& index) {
  sdk_tensor* r = nullptr;
  detail::check_status(sdk_gather(self.get(), dim, index.get(), out.get(), &r), "gather_out");
  return detail::finish_out(out, r);
}
/*! \brief Advanced indexing by integer tensors over the first dims. */
inline Tensor index(const Tensor& self, TensorList indices) {
  SDK_DETAIL_RETURN("index", sdk_index(self.get(), static_cast<int64_t>(indices.size()),
                                       detail::handles(indices), &r_));
}
inline Tensor nonzero(const Tensor& self) {
  SDK_DETAIL_RETURN("nonzero", sdk_nonzero(self.get(), &r_));
}

/*! \brief The dtype of an op on a and b under torch's promotion rules. */
inline ScalarType promote_types(ScalarType a, ScalarType b) {
  return from_c_dtype(sdk_promote_types(to_c(a), to_c(b)));
}
/*! \brief c10::promoteTypes, the same rule. */
inline ScalarType promoteTypes(ScalarType a, ScalarType b) { return promote_types(a, b); }

/*! \brief Export as a versioned DLPack tensor sharing memory; the caller owns the result
 *  and calls its deleter. */
inline sdk_dl_managed_tensor_versioned* toDLPack(const Tensor& t) {
  sdk_dl_managed_tensor_versioned* m = nullptr;
  detail::check_status(sdk_to_dlpack(t.get(), &m), "toDLPack");
  return m;
}
/*! \brief Import a versioned DLPack tensor without copying; the tensor takes ownership of
 *  `m` on success (on failure it stays the caller's). */
inline Tensor fromDLPack(sdk_dl_managed_tensor_versioned* m) {
  SDK_DETAIL_RETURN("fromDLPack", sdk_from_dlpack(m, &r_));
}
/*! \brief Import a pre-1.0 (unversioned) DLPack tensor; ownership as fromDLPack. */
inline Tensor fromDLPack(sdk_dl_managed_tensor* m) {
  SDK_DETAIL_RETURN("fromDLPack", sdk_from_dlpack_unversioned(m, &r_));
}

/*! \brief Threads used by the core's kernels and its BLAS. */
inline void set_num_threads(int n) {
  detail::check_status(sdk_set_num_threads(n), "set_num_threads");
}
inline int get_num_threads() { return sdk_get_num_threads(); }
/*! \brief The inter-op thread count (at::set_num_interop_threads): recorded, process-wide,
 *  for the code that sizes its own work by it; the SDK runs ops one after another. */
inline void set_num_interop_threads(int n) {
  detail::check_status(sdk_set_num_interop_threads(n), "set_num_interop_threads");
}
/*! \brief The count above: the last one set (from C++ or Python), else 1. */
inline int get_num_interop_threads() { return sdk_get_num_interop_threads(); }

}  // namespace sdk

#endif  // SDK_OPS_H_
